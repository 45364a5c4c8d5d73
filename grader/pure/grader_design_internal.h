/*
 * grader_design_internal.h — what the three files of the design reader
 * share: the answer cut into words, sentences and segments
 * (grader_design.c), the clauses read from the segments with the English
 * grammar (grader_design_read.c), and the claims looked up in the clauses
 * (grader_design_claim.c). Included only by those files.
 *
 * Memory: everything lives in the allocator the caller handed to
 * grader_design_new (the sandbox's when grading), so a limit that abandons a
 * grading half-way drops it with the state.
 */
#ifndef WB_GRADER_DESIGN_INTERNAL_H
#define WB_GRADER_DESIGN_INTERNAL_H

#include "grader_pure.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DESIGN_SEGMENT_WORDS 20 /* a longer run without a boundary is cut */
#define DESIGN_SEGMENT_SOFT 16  /* ...and one this long before a preposition */
#define NONE SIZE_MAX
#define DESIGN_NOUN_WORDS 4 /* a rubric noun of more words is not kept whole */

/* What separates a segment from the one before it. */
enum dsep {
    SEP_SENTENCE = 0, /* the first segment of a sentence */
    SEP_COMMA,
    SEP_COLON,
    SEP_PAREN, /* "(" or ")" */
    SEP_DASH,  /* — or – */
    SEP_ARROW, /* -> => → ⇒ */
    SEP_WORD,  /* a clause word (and, but, because, which, if, ...) starts it */
    SEP_LINE,  /* the end of a short line (one term a line) */
    SEP_CUT    /* DESIGN_SEGMENT_WORDS words without a boundary */
};

struct dword {
    size_t at, len;         /* in d->text (lower case, NUL after each word) */
    size_t src_at, src_len; /* in the answer as written */
    size_t norm_at;         /* start in its sentence's normalised text */
    size_t norm_end;        /* end there */
    size_t sentence;
    size_t seg;    /* segment, numbered across the answer */
    uint8_t sep;   /* enum dsep: what came before, when the word starts its segment */
    bool apos;     /* an apostrophe directly before it ("don't" is "don" "t") */
    bool negated;  /* an odd number of negators before it in its segment, or dismissed */
    bool negator;  /* it is a negator itself */
    bool compound; /* joined to a neighbour by a hyphen */
    bool njoin;    /* joined to the next word in a noun of the rubric ("all reduce") */
    bool alpha;    /* letters only (UTF-8 bytes count as letters) */
    bool term;     /* a word of the rubric (grader_design_read marks them) */
    bool aside;    /* inside a short parenthesis: not handed to the grammar */
    size_t clause; /* the clause it belongs to, NONE */
};

struct dsentence {
    size_t first, n; /* its words */
    bool question;   /* it ends with "?" */
    bool claim;      /* it holds an asserted clause (set by the reader) */
    bool list;       /* most of its segments are terms, not clauses */
    bool bare;       /* no function word outside a hyphenated compound: no claim for a
                        phrase, a pattern or a near group ("warp switching") */
    char *norm;      /* lower case, white space folded, punctuation kept */
    size_t norm_len;
};

struct dseg {
    size_t first, n; /* its words */
    size_t sentence;
    uint8_t sep;    /* enum dsep before it */
    bool parsed;    /* the grammar read it */
    bool linked;    /* ...and found a linkage */
    size_t clause0; /* its clauses: clause0 .. clause0 + n_clauses - 1 */
    size_t n_clauses;
};

/* How a clause came to be read. */
enum dkind {
    CL_FULL = 0,   /* a subject linked to its verb */
    CL_IMPERATIVE, /* a verb first, no subject: "pad the tile" (the student's own) */
    CL_SHARED,     /* a verb phrase sharing the subject of the clause before:
                      "...and hides latency", "built for throughput" after "GPU:" */
    CL_NOTE,       /* a noun and what is said of it, no verb: "writes strided" */
    CL_ARROW       /* "GPU -> throughput": a relation left unsaid */
};

#define DESIGN_MAX_REL 8

struct dclause {
    size_t seg;
    uint8_t kind;                 /* enum dkind */
    size_t first, last;           /* its words (inclusive) */
    size_t subj_first, subj_last; /* the subject as written, NONE when none */
    size_t head;                  /* the subject's head word, NONE */
    size_t ante_first, ante_last; /* what a pronoun or a shared subject stands for, NONE */
    size_t from;                  /* the clause a shared subject comes from, NONE */
    size_t rel[DESIGN_MAX_REL];   /* the verb group: verbs, participles, predicate adjectives */
    size_t n_rel;
    size_t obj_first, obj_last;     /* the rest of the predicate (objects, complements), NONE */
    size_t oref;                    /* a relative clause's own noun, its object ("the stragglers
                                       that every iteration waits for"), NONE */
    size_t agent_first, agent_last; /* a passive's "by ..." phrase, NONE */
    bool passive;
    bool question; /* asked, not claimed */
    bool hedged;   /* a condition or a counterfactual ("if instead ...", "whether") */
    bool result;   /* a goal, a result to reach ("so that ...", "becomes ...") or what
                      would happen ("if ..., a warp would touch 32 sectors"): credit,
                      never a contradiction */
    bool denied;   /* under a predicate that denies it: "it is a myth that ...",
                      "GPUs fail to ..." */
    int neg_words; /* negators before the verb group's last word, in the clause */
    bool padding;  /* its subject and object are outside the question's vocabulary */
    bool subj_off; /* its subject (a noun, not a pronoun or the writer) is off the question */
    bool listed;   /* a verb phrase without a subject among a list of terms: not a claim */
};

struct grader_design {
    grader_alloc_fn alloc;
    void *ud;
    bool oom;         /* an allocation failed: the results are not to be trusted */
    bool guard_nouns; /* the words of a rubric's name go to the grammar as one (njoin) */
    const char *src;  /* the answer (borrowed from grader_design_new's caller) */
    size_t src_n;
    char *text; /* the answer's words, lower case, NUL-separated */
    size_t text_len, text_cap;
    struct dword *w;
    size_t n_w, cap_w;
    struct dsentence *s;
    size_t n_s, cap_s;
    struct dseg *g;
    size_t n_g, cap_g;
    struct dclause *c;
    size_t n_c, cap_c;
    bool read;              /* grader_design_read ran */
    size_t parsed_words;    /* words handed to the grammar */
    size_t unread_words;    /* words of segments with rubric terms left unread (budget) */
    size_t clause_words;    /* words inside clauses */
    size_t padding_clauses; /* clauses about something else */
};

/* Memory in the design's allocator (NULL and d->oom on failure). */
void *grader_design_mem(struct grader_design *d, void *p, size_t old, size_t size);
void grader_design_mem_free(struct grader_design *d, void *p, size_t size);
/* Room for one more element in *a (n used of *cap, growing from `first`). */
bool grader_design_room(struct grader_design *d, void **a, size_t n, size_t *cap, size_t size,
                        size_t first);

/* Word i as lower-case text (NUL-terminated, borrowed). */
static inline const char *dw_text(const struct grader_design *d, size_t i)
{
    return d->text + d->w[i].at;
}
/* Is word i exactly s? */
bool grader_design_word_is(const struct grader_design *d, size_t i, const char *s);
/* The last word of the compound word i starts or is in: joined by hyphens
 * ("all-reduce") or a noun of the rubric ("all reduce"); i when none. */
size_t grader_design_compound_end(const struct grader_design *d, size_t i);
/* Is the lower-case word w (len bytes) in the sorted-or-not list? */
bool grader_design_in_list(const char *const *list, size_t n, const char *w, size_t len);
#define DESIGN_IN(list, w, len) grader_design_in_list(list, sizeof list / sizeof list[0], w, len)
/* Is word i in the list? */
#define DESIGN_WORD_IN(d, list, i) DESIGN_IN(list, dw_text(d, i), (d)->w[i].len)

/* Does answer word i match phrase word p (whole, as a prefix "switch*",
 * or misspelt by one or two edits when `fuzzy`)? */
struct grader_pword {
    const char *s;
    size_t len;
    bool prefix;
    bool digits;
};
bool grader_design_word_match(const struct grader_design *d, size_t i, const struct grader_pword *p,
                              bool fuzzy, struct grader_design_known *known);
/* Cuts a phrase into words (lower case; '*' right after a word makes it a
 * prefix) into buf/pw (at most max words). Returns the count. */
#define DESIGN_MAX_PHRASE_WORDS 16
size_t grader_design_phrase_words(const char *phrase, char *buf, struct grader_pword *pw,
                                  size_t max);

#endif /* WB_GRADER_DESIGN_INTERNAL_H */
