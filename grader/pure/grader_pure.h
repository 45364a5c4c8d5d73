/*
 * grader_pure.h — the grader's pure building blocks: the bottom of grader/'s
 * three layers, used by the Lua runtime (grader/runtime/) and by packs and
 * grading (grader/). Never included from outside grader/.
 *
 * Everything here is pure C: no Lua, no I/O, no globals but the
 * link-grammar dictionary (loaded once per process, grader_lg.c), so it is
 * tested directly with cmocka and fuzzed. Units (grader_unit.c), numeric
 * answers (grader_number_lex.c, grader_number.c), tolerance and
 * partial-credit bands (grader_tol.c), the variant RNG (grader_rng.c),
 * design answers (grader_design.c; sentences read into clauses and claims
 * by grader_design_read.c, grader_design_claim.c and grader_lg.c, which
 * share grader_design_internal.h), text normalisation and the checking of
 * Lua patterns (grader_text.c), the Lua lexer (grader_lualex.c) and the
 * cutting of lesson files (grader_slim.c). It uses core and link-grammar:
 * the build compiles this layer without Lua's headers and links it on its
 * own.
 */
#ifndef WB_GRADER_PURE_H
#define WB_GRADER_PURE_H

#include "core/core.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- units --------------------------------------------------------------- */

/* Physical dimension of a unit. Values are held in the base unit of their
 * dimension: seconds, bytes, bytes per second, FLOP, FLOP per second, and a
 * plain ratio for NONE ("x", "×" and "%" are ratios: 25% = 0.25, 2.5x = 2.5). */
enum grader_dim {
    GRADER_DIM_NONE = 0,
    GRADER_DIM_TIME,
    GRADER_DIM_BYTES,
    GRADER_DIM_BANDWIDTH, /* bytes/s; Gbps = 1e9 bits/s = 1.25e8 B/s */
    GRADER_DIM_FLOP,
    GRADER_DIM_FLOPS
};

struct grader_unit {
    const char *name; /* canonical spelling: "ms", "GB/s", "%", "×" */
    enum grader_dim dim;
    double scale; /* value in base unit = number × scale */
};

/* Looks up a unit by spelling. Accepts s ms us µs ns min h; B KB MB GB TB
 * KiB MiB GiB TiB, bits b Kb Mb Gb; B/s KB/s MB/s GB/s TB/s KiB/s MiB/s GiB/s
 * and the "Bps" forms; bps Kbps Mbps Gbps Tbps (bits); FLOP GFLOP TFLOP PFLOP;
 * FLOP/s GFLOP/s TFLOP/s PFLOP/s and FLOPS GFLOPS TFLOPS PFLOPS; x X × %.
 * Case matters where it means something (Mb ≠ MB). "" is the plain number
 * (dim NONE, scale 1). Returns NULL for an unknown spelling. Static storage. */
const struct grader_unit *grader_unit_find(const char *spelling);
/* As grader_unit_find for the n bytes at s (not NUL-terminated). */
const struct grader_unit *grader_unit_findn(const char *s, size_t n);

/* x in unit `from` expressed in unit `to`, both of the same dimension and
 * from grader_unit_find: one correctly rounded operation when the exact
 * ratio is a whole number either way ("320 ms" is exactly 0.32 s). */
double grader_unit_convert(double x, const struct grader_unit *from, const struct grader_unit *to);

/* The base unit of a dimension (scale 1): s, B, B/s, FLOP, FLOP/s, "". */
const struct grader_unit *grader_unit_base(enum grader_dim dim);

/* What a unit of dimension dim measures, for messages: "a time" (as in
 * "ms is a time"), "a size", ..., "a ratio". Static. */
const char *grader_dim_noun(enum grader_dim dim);

/* An answer in unit u, described: "a time such as 320 ms" (as in "expected
 * a time such as 320 ms"), "a percentage such as 56%". Static. */
const char *grader_unit_phrase(const struct grader_unit *u);

/* The units whose spelling equals s[0..n) ignoring ASCII case, for "did you
 * mean": at most 3 canonical names joined by " or " in buf (n bytes; "" when
 * none). Returns how many. */
size_t grader_unit_suggest(const char *s, size_t n, char *buf, size_t bufn);

/* ---- numbers ------------------------------------------------------------- */

/* The outcome of reading a numeric answer. */
struct grader_number {
    bool ok;
    double value;   /* in the expected unit (see grader_number_parse) */
    double base;    /* in the base unit of its dimension */
    double c_value; /* value with '/' between whole numbers truncating as C's
                     * integer division does ("(1000+255)/256" is 4); equals
                     * value unless c_differs */
    bool c_differs; /* the C reading differs from the real one */
    char unit[16];  /* the unit the student wrote, canonical spelling, "" if none */
    char why[200];  /* when !ok: what is wrong and how to write it, for the student */
};

/* Reads `text` as a numeric answer expected in unit `expected` (a spelling
 * grader_unit_find knows; "" for a plain number):
 *   - numbers: 12, -3.5, .5, 6.02e23, 1E-3, with optional spaces around;
 *   - arithmetic: + - * / ^ (right-assoc), // (floor division, as in Python
 *     and Lua), parentheses, unary minus, and sqrt log ln log2 log10 exp abs
 *     min max ceil floor round, constants pi and e — evaluated safely (no
 *     code runs), depth-limited, e.g. "1/(0.2+0.8/4)", "ceil(1000/256)";
 *   - '/' is real division for `value`; `c_value` is the same answer with
 *     '/' between two whole numbers truncating, as C's integer division;
 *   - an optional unit after the expression ("320 ms", "2.5x", "56 %",
 *     "4.8 TB/s"), converted to `expected`; a bare number is taken to be
 *     in `expected` already;
 *   - "%" on a NONE answer means per cent: "56%" against expected "" is 0.56,
 *     against expected "%" is 56.
 * Refused, with `why` saying so: empty text; words that are not numbers
 * ("abc"); a comma ("3,5": "use a decimal point"); NaN or infinite results
 * ("1e999": "too large"); division by zero; a unit of another dimension
 * ("expected a time such as 320 ms, got MB"); an unknown unit; trailing junk.
 * Never crashes on any input (fuzzed). Returns out->ok. */
bool grader_number_parse(const char *text, const char *expected, struct grader_number *out);

/* The reading of one numeric answer, shared by the lexer
 * (grader_number_lex.c) and the expression parser (grader_number.c). */
struct grader_numlex {
    const char *s; /* the answer, not NUL-terminated at n */
    size_t n;
    size_t i; /* next byte */
    int depth;
    bool c_div;      /* '/' between whole numbers truncates, as in C */
    bool c_div_seen; /* a '/' between whole numbers whose quotient is not whole */
    bool failed;
    char *why;
    size_t why_n;
};

/* Records the problem (printf-style) in p->why and sets p->failed; only the
 * first problem is kept: it is the one worth reporting. */
void grader_numlex_fail(struct grader_numlex *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Moves past spaces (grader_text_space_at). */
void grader_numlex_skip_spaces(struct grader_numlex *p);
/* The byte at p->i, 0 at the end. */
int grader_numlex_peek(const struct grader_numlex *p);
/* Width of a '-' at byte i: 1 for ASCII, 3 for U+2212 MINUS SIGN; 0 when none. */
size_t grader_numlex_minus_at(const struct grader_numlex *p, size_t i);
/* After a sign at [start, p->i): refuses a second sign ("--1", "2+-1"). */
void grader_numlex_no_second_sign(struct grader_numlex *p, size_t start);
/* Refuses the comma at byte c, saying whether it reads as a decimal comma or
 * a thousands separator and how to write either. */
void grader_numlex_comma(struct grader_numlex *p, size_t c);
/* Reads the number at p->i (digits with at most one point, an optional
 * exponent) and moves past it; 0 with the problem recorded when it is
 * malformed or too large. */
double grader_numlex_number(struct grader_numlex *p);
/* ASCII digit; ASCII letter or '_' (a word of a function or constant). */
bool grader_numlex_digit(int c);
bool grader_numlex_alpha(int c);

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 when invalid. */
size_t grader_utf8_len(const unsigned char *s, size_t n);
/* Width of a space at s (ASCII white space, U+00A0, U+2009, U+202F), or 0. */
size_t grader_text_space_at(const char *s, size_t n);
/* Copies s[0..n) into out (outn bytes) as printable text for a message:
 * control bytes and invalid UTF-8 become '?', and long text is cut at a
 * character boundary with "…", so a `why` is always short, valid UTF-8 and
 * safe to print. */
void grader_text_quote(const char *s, size_t n, char *out, size_t outn);

/* Formats v with `sig` significant figures (trailing zeros trimmed, no
 * exponent between 1e-4 and 1e9) into buf. Returns buf. */
char *grader_number_format(double v, int sig, char *buf, size_t n);

/* ---- tolerance ----------------------------------------------------------- */

/* How close counts as right. Defaults (grader_tol_default): rel = 0.01 (1%),
 * abs = 0, sig = 0. With sig > 0 the answer is right when it rounds to the
 * same `sig` significant figures as the reference, or lies inside the
 * rel/abs interval. When both rel and abs are given, the wider interval
 * wins. A reference of exactly 0 with abs 0 uses abs = 1e-9. */
struct grader_tol {
    double rel;
    double abs;
    int sig;
};
void grader_tol_default(struct grader_tol *t);

/* The accepted interval [lo, hi] around `ref`. */
void grader_tol_interval(const struct grader_tol *t, double ref, double *lo, double *hi);

/* True when `v` is accepted against `ref` under t. */
bool grader_tol_accepts(const struct grader_tol *t, double ref, double v);

/* Writes the accepted interval as text, e.g. "2.475 to 2.525 ×" (unit
 * appended when not empty; 4 significant figures, more when needed to tell
 * the ends apart). Returns buf. */
char *grader_tol_describe(const struct grader_tol *t, double ref, const char *unit, char *buf,
                          size_t n);

/* A partial-credit band: an answer outside the tolerance but within this
 * band's (wider) tolerance earns `score` (a fraction of the points). */
struct grader_band {
    struct grader_tol tol;
    double score;         /* 0..1 */
    const char *feedback; /* borrowed, may be NULL */
};

/* Scores v against ref: 1 inside `tol`; else the highest band score whose
 * interval holds v (the band's index in *band, -1 when none); else 0. */
double grader_tol_score(const struct grader_tol *tol, const struct grader_band *bands,
                        size_t n_bands, double ref, double v, int *band);

/* When the answer `num` (the student's `text`, read by grader_number_parse
 * in `unit`) misses a whole-number reference `ref` only by rounding, writes
 * feedback saying how into buf (n bytes) and returns true:
 *   - C's integer division would be right: "(1000+255)/256 is 4.902 with
 *     real division ...; C's integer division would truncate it ...", with
 *     how to write it (// or ceil);
 *   - the value rounded up (or down) would be right: "3.906 is not a whole
 *     number ...: round it up (ceil(3.906))".
 * Neither writes the rounded value: it is the answer. "Right" means
 * accepted by tol and rounding to ref. False, buf untouched, otherwise (and
 * always when ref is not a whole number). Callers ask only for questions
 * whose answer is a whole count. Pure. */
bool grader_tol_rounding_note(const struct grader_tol *tol, double ref, const char *text,
                              const struct grader_number *num, const char *unit, char *buf,
                              size_t n);

/* The feedback of an answer outside tol of ref: how close counts ("Not
 * within the accepted tolerance (±1%)..."), never where the answer lies.
 * unit: the question's (may be NULL). Pure; writes at most n bytes. */
void grader_tol_miss(const struct grader_tol *tol, double ref, const char *unit, char *fb,
                     size_t n);

/* A slip of form rather than of method: when the answer num times (or
 * divided by) 1000, 100 or a million would be accepted, writes feedback
 * naming the slip ("That is 1000 times too small: a slip of units? ..."),
 * never the reference, and returns true; false, fb untouched, otherwise.
 * unit: the question's. Pure. */
bool grader_tol_slip(const struct grader_tol *tol, double ref, const struct grader_number *num,
                     const char *unit, char *fb, size_t n);

/* ---- variant RNG --------------------------------------------------------- */

/* xoshiro256** seeded through splitmix64: the same numbers on every machine
 * for the same seed. */
struct grader_rng {
    uint64_t s[4];
};

/* Seed for (pack, question, user, variant): FNV-1a over the four fields
 * separated by NUL bytes (variant as decimal text). */
uint64_t grader_rng_seed(const char *pack_id, const char *qid, const char *user, int variant);
void grader_rng_init(struct grader_rng *r, uint64_t seed);
uint64_t grader_rng_next(struct grader_rng *r);
/* Uniform in [0, 1) with 53 random bits. */
double grader_rng_uniform(struct grader_rng *r);
/* Uniform integer in [lo, hi] (inclusive, lo <= hi), unbiased. */
int64_t grader_rng_int(struct grader_rng *r, int64_t lo, int64_t hi);

/* ---- the English grammar (grader_lg.c) ------------------------------------- */

/* link-grammar behind one small interface; grader_lg.c is the only file
 * that includes its header. Unlike the rest of this header it keeps state:
 * the dictionary (loaded on first use, kept until exit) and a cache of
 * parses by input, under one lock. */
#define GRADER_LG_MAX_TOKENS 24 /* words of one parse: longer runs are cut before */
#define GRADER_LG_MAX_TOKEN 31  /* bytes of one word (longer ones are cut) */
#define GRADER_LG_MAX_LINKS 64
#define GRADER_LG_WALL 255 /* a link's end at the sentence's wall (its start or end) */
struct grader_lg_link {
    uint8_t l, r;  /* token indexes, l < r, or GRADER_LG_WALL */
    char label[8]; /* link type, e.g. "Ss", "Pv", "Os", "MVp", "Jp" (cut to 7 bytes) */
};
struct grader_lg_parse {
    uint8_t n;                      /* tokens */
    uint8_t nulls;                  /* tokens the linkage leaves out */
    bool linked;                    /* a linkage was found (possibly leaving words out) */
    bool timed_out;                 /* link-grammar's own time limit ended the search */
    char pos[GRADER_LG_MAX_TOKENS]; /* per token: the dictionary's part of speech ('n',
                                       'v', 'a', 'e', 'p', 'r', 'j', ...), '-' left out,
                                       '?' none given */
    uint8_t n_links;
    struct grader_lg_link link[GRADER_LG_MAX_LINKS];
};
/* Parses tokens[0..n) (n <= GRADER_LG_MAX_TOKENS: more are cut; each a
 * word without spaces) as one sentence ending in "." (or "?" when
 * `question`), leaving out at most two words when the run is short. Same
 * input, same parse: kept in the cache. Returns 0 (with out->linked false
 * when no linkage was found), or CORE_ERR_INTERNAL with `err` saying what to
 * install when the dictionary cannot be loaded. */
int grader_lg_parse(const char *const *tokens, size_t n, bool question, struct grader_lg_parse *out,
                    struct core_err *err);
/* Whether the dictionary knows `word` (as written). Errors as for
 * grader_lg_parse. */
int grader_lg_known(const char *word, bool *known, struct core_err *err);
/* What the parser did in this process, for `bench grader`. */
struct grader_lg_stats {
    bool loaded;      /* the dictionary is loaded */
    int64_t load_ns;  /* how long loading it took */
    uint64_t parses;  /* parses run */
    uint64_t hits;    /* parses answered by the cache */
    uint64_t words;   /* words parsed */
    int64_t parse_ns; /* time in the parser */
    int64_t worst_ns; /* the longest parse */
    size_t cached;    /* parses in the cache now */
};
void grader_lg_stats_get(struct grader_lg_stats *s);
/* Empties the cache (bench: timings with and without it). */
void grader_lg_cache_clear(void);

/* ---- design answers (grader_design.c) -------------------------------------- */

/* A design answer cut into words, sentences and clauses, with what is a
 * claim and what is negated (the rules are in grader_design.c and
 * lessons/FORMAT.md). Free with grader_design_free. */
struct grader_design;
/* The allocator it uses, with lua_Alloc's contract (nsize 0 frees; osize
 * is the block's size): the grader passes the sandbox's own. */
typedef void *(*grader_alloc_fn)(void *ud, void *ptr, size_t osize, size_t nsize);
/* NULL when memory ran out. */
struct grader_design *grader_design_new(const char *text, size_t n, grader_alloc_fn alloc,
                                        void *ud);
void grader_design_free(struct grader_design *d);
/* True when an allocation failed after grader_design_new (a near search):
 * the last result is not to be trusted. */
bool grader_design_oom(const struct grader_design *d);
#define GRADER_DESIGN_MAX_PHRASE 256 /* bytes of a phrase or term */

size_t grader_design_n_words(const struct grader_design *d);

/* Sentences, for Lua patterns: sentence i's text (lower case, white space
 * folded, punctuation kept; borrowed), whether it holds an asserted clause
 * (after grader_design_read), and how the word at (or after) byte `offset`
 * of that text counts (with `any`, negated counts as found). */
size_t grader_design_n_sentences(const struct grader_design *d);
bool grader_design_claim(const struct grader_design *d, size_t i);
const char *grader_design_sentence(const struct grader_design *d, size_t i, size_t *len);

/* Words of the rubric itself: an answer word that is one of them is never
 * taken for a misspelling of another. */
struct grader_design_known {
    struct grader_design *d; /* whose memory it uses */
    char **words;
    size_t n, cap;
    bool sorted;
    char **nouns; /* multi-word nouns of the rubric, words joined by one space */
    size_t n_nouns, cap_nouns;
};
void grader_design_known_init(struct grader_design_known *k, struct grader_design *d);
/* Adds the words of a phrase. */
void grader_design_known_add(struct grader_design_known *k, const char *phrase);
/* Adds the words of a phrase that names a thing (a claim's subject or
 * object): one of several words ("all-reduce", "backward pass") is also
 * kept whole, and the reader hands it to the grammar as one noun in either
 * spelling, with a hyphen or a space. */
void grader_design_known_add_noun(struct grader_design_known *k, const char *phrase);
void grader_design_known_fini(struct grader_design_known *k);
/* Is w (lower case) one of the words? */
bool grader_design_known_has(struct grader_design_known *k, const char *w);
/* Is w (len bytes, lower case) a function word ("the", "is", "of", ...)? */
bool grader_design_function_word(const char *w, size_t len);

/* Reads the answer's clauses with the English grammar (grader_design_read.c):
 * the segments that hold a word of the rubric (`known`), in order, until
 * `budget` words were parsed. `vocab` (the question's words: prompt, model
 * answer, hints, rubric) tells a clause about the question from padding;
 * NULL takes every clause as on topic. Returns 0, CORE_ERR_INTERNAL when the
 * grammar cannot be loaded (err says what to install) or CORE_ERR_LIMIT when
 * memory ran out. Once per design: a second call does nothing. */
#define GRADER_DESIGN_PARSE_BUDGET 400
int grader_design_read(struct grader_design *d, struct grader_design_known *known,
                       struct grader_design_known *vocab, size_t budget, struct core_err *err);
/* What the reading found in the whole answer. */
struct grader_design_stats {
    size_t words, clause_words; /* words, and words inside clauses */
    size_t clauses, padding;    /* clauses, and those about something else */
    size_t parsed_words;        /* words handed to the grammar */
    size_t unread_words;        /* words with rubric terms left unread (budget spent) */
};
void grader_design_stats(const struct grader_design *d, struct grader_design_stats *st);
/* Clause k as text, for the evidence: the clause as written, its subject
 * (with "= ..." what a pronoun or shared subject stands for), its verb
 * group and its object. */
struct grader_design_clause_text {
    char clause[240], subject[120], relation[80], object[160];
    char lead[120]; /* a clause without its own subject: the subject it shares */
};
void grader_design_clause_text(const struct grader_design *d, size_t k,
                               struct grader_design_clause_text *t);

/* How a phrase or near group was found, best first. */
enum grader_design_hit {
    GRADER_HIT_NONE = 0,
    GRADER_HIT_UNCLAIMED, /* only in sentences that are not claims */
    GRADER_HIT_NEGATED,   /* in claims, but only under a negation */
    GRADER_HIT_FOUND      /* in a claim, not negated (with `any`: negated or not) */
};
/* Looks a phrase up (whole words in order in one sentence, misspellings
 * tolerated when `fuzzy`; "word*" is a prefix). With `any`, negation does
 * not matter (for `contradicts`). `known` may be NULL. */
enum grader_design_hit grader_design_phrase(const struct grader_design *d, const char *phrase,
                                            bool fuzzy, bool any,
                                            struct grader_design_known *known);
/* How the word at byte `offset` of sentence i's text counts (a Lua
 * pattern's match). */
enum grader_design_hit grader_design_hit_at(const struct grader_design *d, size_t sentence,
                                            size_t offset, bool any);
/* Looks a near group up: every term (a phrase) in one sentence, the first
 * words of the first and the last at most `within` words apart. */
enum grader_design_hit grader_design_near(const struct grader_design *d, const char *const *terms,
                                          size_t n_terms, size_t within, bool fuzzy, bool any,
                                          struct grader_design_known *known);

/* A claim of a rubric: who does what (grader_design_claim.c). Each slot is
 * a list of phrases (borrowed: valid while the claim is looked up), as for
 * `match`; a slot with n == 0 is not given. anti[k] are the antonyms of
 * slot k's phrases (what says the opposite in that role). */
#define GRADER_CLAIM_TERMS 64
struct grader_claim_slot {
    const char *terms[GRADER_CLAIM_TERMS];
    size_t n;
};
struct grader_claim_spec {
    struct grader_claim_slot slot[3]; /* subject, relation, object */
    struct grader_claim_slot anti[3];
};
/* Why a contradiction contradicts, and why a match did not count. */
enum grader_claim_why {
    GRADER_CLAIM_NONE = 0,
    GRADER_CLAIM_NEGATED, /* the relation negated or denied */
    GRADER_CLAIM_SWAPPED, /* subject and object exchanged */
    GRADER_CLAIM_ANTONYM, /* one slot said by its opposite */
    GRADER_CLAIM_QUESTION,
    GRADER_CLAIM_HEDGED,  /* a condition or a counterfactual */
    GRADER_CLAIM_PADDING, /* about something else */
    GRADER_CLAIM_LISTED   /* a verb phrase in a list of terms */
};
struct grader_claim_result {
    enum grader_design_hit hit; /* FOUND: asserted; NEGATED: only negated; UNCLAIMED: only
                                   asked, supposed or off the question */
    size_t clause;              /* where (for the evidence), SIZE_MAX when none */
    enum grader_claim_why unclaimed_why;
    bool contradicted; /* an asserted clause says the opposite */
    size_t contra_clause;
    enum grader_claim_why contra_why;
    size_t at[3]; /* FOUND: the first answer word each slot matched (subject, relation,
                     object), SIZE_MAX for a slot not given */
};
/* Word i of the answer as written (borrowed; *len its length). */
const char *grader_design_word_src(const struct grader_design *d, size_t i, size_t *len);
/* Looks claim cs up in the clauses of a design that was read. */
void grader_design_claim_find(const struct grader_design *d, const struct grader_claim_spec *cs,
                              bool fuzzy, struct grader_design_known *known,
                              struct grader_claim_result *out);
/* The clause of the word at byte `offset` of sentence i's text, or
 * SIZE_MAX. */
size_t grader_design_clause_of(const struct grader_design *d, size_t sentence, size_t offset);
/* The clause where a phrase is best found (asserted first), or SIZE_MAX. */
size_t grader_design_phrase_clause(const struct grader_design *d, const char *phrase, bool fuzzy,
                                   struct grader_design_known *known);

/* ---- text (grader_text.c) and slim lesson files (grader_slim.c) ------------------ */

/* Text normalisation for comparisons: ASCII lower case, runs of white space
 * folded to one space, leading and trailing white space and punctuation
 * (. , ; : ! ? ' " ` ( ) [ ] { }) removed. Writes at most n bytes plus a
 * NUL to out (which must hold n + 1) and returns the length. */
size_t grader_text_norm(const char *s, size_t n, char *out);
/* Words for whole-word matching: ASCII letters and digits lower-cased, bytes
 * of UTF-8 sequences kept, anything else a separator; words joined by one
 * space. Same buffer rule as grader_text_norm. */
size_t grader_text_words(const char *s, size_t n, char *out);
/* True when `pat` is a well-formed Lua pattern; else `why` says what is
 * wrong (Lua itself only notices when a match reaches the bad part). */
bool grader_pattern_check(const char *pat, size_t n, char *why, size_t why_n);

/* ---- the Lua lexer (grader_lualex.c) -------------------------------------- */

enum grader_tok {
    GRADER_TOK_EOF,
    GRADER_TOK_NAME,
    GRADER_TOK_KEYWORD,
    GRADER_TOK_STRING,
    GRADER_TOK_NUMBER,
    GRADER_TOK_OPEN,  /* ( { [ */
    GRADER_TOK_CLOSE, /* ) } ] */
    GRADER_TOK_OP,
    GRADER_TOK_BAD /* an unfinished string or comment */
};

/* A lexer over s[0..n): after grader_lex_next, t is the current token,
 * s[start..end) its text and tline its line; c its first character for
 * brackets and operators. Comments and white space are skipped; i is where
 * the next token is looked for. */
struct grader_lex {
    const char *s;
    size_t n, i;
    int line;
    enum grader_tok t;
    size_t start, end;
    int tline;
    char c;
};
void grader_lex_init(struct grader_lex *x, const char *s, size_t n);
void grader_lex_next(struct grader_lex *x);
/* The current token is the name or keyword `word`. */
bool grader_lex_is(const struct grader_lex *x, const char *word);
/* Does token `prev` end an expression or statement, so that a name after
 * it starts a new statement? (bof: nothing came before.) */
bool grader_lex_ends_statement(const struct grader_lex *prev, bool bof);
/* Follows the nesting over the current token: `function`, `do`, `if` and
 * `repeat` open a block (*depth + 1), `end` and `until` close one; an
 * opening bracket adds one to *brackets, a closing one takes one away.
 * Other tokens change neither. */
void grader_lex_nest(const struct grader_lex *x, int *depth, int *brackets);

/* Where each piece of a cut file came from: piece i starts on line slim[i]
 * of the cut and on line orig[i] of the file. */
struct grader_linemap {
    int *slim;
    int *orig;
    size_t n;
};
/* The file's line for line `line` of the cut (unchanged without a map). */
int grader_linemap_orig(const struct grader_linemap *m, int line);
void grader_linemap_fini(struct grader_linemap *m);

/* The top-level plain call statements `question {...}` / `question(...)` /
 * `calculator {...}` / `page ...` of one lesson file, found by one lexer
 * pass. NULL when the file cannot be cut safely (something the lexer does
 * not follow). Free with grader_slim_plan_free. */
struct grader_slim_plan;
struct grader_slim_plan *grader_slim_plan_new(const char *src, size_t len);
void grader_slim_plan_free(struct grader_slim_plan *pl);

/* The file `src` (that pl was made from) cut down to the one question or
 * calculator statement starting on line keep_line: every other such
 * statement left out, the rest kept in order, pieces joined by newlines.
 * Fills *len and `map` (caller frees with grader_linemap_fini). NULL when
 * there is not exactly one such statement on keep_line. Costs the size of
 * the file's other code plus the statement. Caller frees. */
char *grader_slim_cut(const struct grader_slim_plan *pl, const char *src, int keep_line,
                      size_t *len, struct grader_linemap *map);

#endif /* WB_GRADER_PURE_H */
