/*
 * grader_design.c — reading a design answer for evidence: sentences that
 * make claims, clauses and what they negate, and the search for a rubric's
 * phrases and near-by terms in them, misspellings tolerated.
 *
 * An answer is cut once into words, each knowing its sentence, its clause
 * and whether it stands under a negation; then every phrase, `near` group
 * and pattern of the rubric is looked up in that table. The rules (written
 * for instructors in lessons/FORMAT.md, "design"):
 *
 *   - Sentences end at . ! ? ; (a full stop between two letters or digits,
 *     as in 5.5 or e.g, does not end one), at a blank line, and before a
 *     line that starts with a list marker (-, *, +, •, "1." or "1)").
 *   - Parts: a sentence is cut into parts at commas, and at the end of a
 *     line of fewer than four words (one term a line is a list; a long line
 *     is prose wrapped, and its part goes on).
 *   - A sentence is a claim unless it has no function word ("the", "is",
 *     "to", "by", ...: FUNCTION_WORDS below), or it has three parts or more
 *     and more than half of its words are in bare parts: parts of fewer than
 *     four words, or without a function word. Words of a hyphenated compound
 *     ("all-reduce", "in-memory") are never function words.
 *   - The answer is a list of terms when fewer than half of its words are
 *     in claims; then no concept counts. Otherwise only claims count.
 *   - Clauses: a claim is cut into clauses at , : ( ) — – and before the
 *     words and, but, while, whereas, although, though, however, yet,
 *     because, since, so, which, who, whose, then, thus, therefore, hence.
 *   - A word is dismissed (negated as well) when a dismissal follows it in
 *     its clause: useless, pointless, unnecessary, unneeded, irrelevant,
 *     overkill, or
 *     a negator followed within three words by help(s), matter(s), needed,
 *     necessary, required, useful, work(s), worth, tell, problem,
 *     bottleneck, issue, difference, speed(s) or need ("profiling would not help",
 *     "communication is not the bottleneck"), or "nothing" after changes,
 *     adds, gains, achieves, does, tells, brings, buys ("a bigger batch
 *     changes nothing").
 *   - A word is negated when an odd number of negators come before it in
 *     its clause (no, not — but not "not only" —, never, cannot, none,
 *     nothing, neither, nor, without, lack(s/ing), unable, "instead of",
 *     "rather than", and the n't forms: don't, can't, isn't... written with
 *     or without the apostrophe). Two negators cancel: "you cannot get
 *     coalesced writes without a tile" counts the tile.
 *   - A phrase matches whole words in order within one sentence; a word
 *     ending in '*' matches as a prefix ("switch*"). A misspelt word counts
 *     when it starts with the same letter and is one edit away (Damerau-
 *     Levenshtein: an insertion, deletion, substitution or swap of two
 *     neighbours) from a phrase word of 7 letters or more, two edits from
 *     one of 10 or more; words with digits, and answer words that are
 *     themselves words of the rubric (`known`) or function words, must
 *     match exactly.
 *   - A near group matches when all its terms occur in one sentence with
 *     at most `within` words from the first word of the first to the first
 *     word of the last, in any order.
 *
 * Pure C: no Lua, no I/O; linear in the answer for each phrase looked up.
 */
#include "grader_pure.h"

#include <stdlib.h>
#include <string.h>

#define MAX_PHRASE GRADER_DESIGN_MAX_PHRASE
#define MAX_WORD 64  /* longer words are kept but match only exactly */
#define FUZZY1 7     /* phrase words this long tolerate one edit */
#define FUZZY2 10    /* and this long, two */
#define BARE_WORDS 4 /* a part with fewer words is bare */

/* Words that carry sentence structure: a run of terms has none of them. */
static const char *const FUNCTION_WORDS[] = {
    "a", "about", "above", "across", "after", "again", "against", "also", "although", "am", "an",
    "and", "another", "any", "are", "as", "at", "be", "because", "been", "before", "being", "below",
    "between", "both", "but", "by", "can", "cannot", "could", "did", "do", "does", "doing", "down",
    "during", "each", "either", "every", "few", "fewer", "for", "from", "had", "has", "have",
    "having", "he", "hence", "her", "here", "him", "his", "how", "however", "i", "if", "in", "into",
    "is", "it", "its", "itself", "less", "like", "many", "may", "me", "might", "more", "most",
    "much", "must", "my", "neither", "never", "no", "none", "nor", "not", "nothing", "of", "on",
    "once", "only", "onto", "or", "other", "our", "out", "over", "per", "rather", "same", "shall",
    "she", "should", "since", "so", "some", "such", "than", "that", "the", "their", "them", "then",
    "there", "therefore", "these", "they", "this", "those", "though", "through", "thus", "to",
    "too", "under", "until", "up", "us", "very", "via", "was", "we", "were", "what", "when",
    "where", "whereas", "which", "while", "who", "whom", "whose", "why", "will", "with", "within",
    "without", "would", "yet", "you", "your",
    /* negators and the stems of n't: "don't" is "don" "t" */
    "aint", "arent", "cant", "couldnt", "didnt", "doesnt", "dont", "hadnt", "hasnt", "havent",
    "isnt", "mustnt", "neednt", "shouldnt", "wasnt", "werent", "wont", "wouldnt", "aren", "couldn",
    "didn", "doesn", "don", "hadn", "hasn", "haven", "isn", "mustn", "needn", "shouldn", "wasn",
    "weren", "won", "wouldn", "lack", "lacks", "lacking", "unable"};

/* Words before which a new clause starts. */
static const char *const CLAUSE_WORDS[] = {
    "although",  "and",    "because", "but",     "hence", "however", "since", "so",    "then",
    "therefore", "though", "thus",    "whereas", "which", "while",   "who",   "whose", "yet"};

/* Words that negate what follows in their clause (with the two-word ones
 * and the n't forms handled in negator()). */
static const char *const NEGATORS[] = {
    "aint",     "arent",   "cannot", "cant",   "couldnt", "didnt",   "doesnt", "dont",
    "hadnt",    "hasnt",   "havent", "isnt",   "lack",    "lacking", "lacks",  "mustnt",
    "neednt",   "neither", "never",  "no",     "none",    "nor",     "not",    "nothing",
    "shouldnt", "unable",  "wasnt",  "werent", "without", "wont",    "wouldnt"};

static bool in_list(const char *const *list, size_t n, const char *w, size_t len)
{
    for (size_t i = 0; i < n; i++)
        if (strlen(list[i]) == len && memcmp(list[i], w, len) == 0)
            return true;
    return false;
}

#define IN(list, w, len) in_list(list, sizeof list / sizeof list[0], w, len)

struct dword {
    size_t at, len;  /* in d->text (lower case) */
    size_t norm_at;  /* start in its sentence's normalised text */
    size_t norm_end; /* end there */
    size_t sentence;
    size_t clause; /* numbered across the answer */
    size_t part;   /* numbered across the answer */
    bool negated;  /* an odd number of negators before it in its clause */
    bool function; /* a function word (not inside a compound) */
    bool alpha;    /* letters only (UTF-8 bytes count as letters) */
};

struct dsentence {
    size_t first, n; /* its words */
    bool claim;
    char *norm; /* lower case, white space folded, punctuation kept */
    size_t norm_len;
};

struct grader_design {
    grader_alloc_fn alloc;
    void *ud;
    bool oom;   /* an allocation failed: the results are not to be trusted */
    char *text; /* the answer's words, lower case, NUL-separated */
    size_t text_len, text_cap;
    struct dword *w;
    size_t n_w, cap_w;
    struct dsentence *s;
    size_t n_s, cap_s;
    size_t claim_words;
    bool list;
};

/* Memory comes from the caller's allocator (the sandbox's, when grading:
 * counted against its cap, and dropped with it if a limit abandons the
 * state half-way). */
static void *mem(struct grader_design *d, void *p, size_t old, size_t size)
{
    if (d->oom)
        return NULL;
    void *q = d->alloc(d->ud, p, old, size);
    if (!q && size)
        d->oom = true;
    return q;
}

static void mem_free(struct grader_design *d, void *p, size_t size)
{
    if (p)
        d->alloc(d->ud, p, size, 0);
}

/* Makes room for one more element in *a (n used of *cap). */
static bool room(struct grader_design *d, void **a, size_t n, size_t *cap, size_t size,
                 size_t first)
{
    if (n < *cap)
        return true;
    size_t nc = *cap ? *cap * 2 : first;
    void *q = mem(d, *a, *cap * size, nc * size);
    if (!q)
        return false;
    *a = q;
    *cap = nc;
    return true;
}

static bool word_byte(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c >= 0x80;
}

/* Bytes of a separating UTF-8 sequence at s[i] (no-break space, general
 * punctuation U+2000-U+206F), or 0. */
static size_t sep_len(const unsigned char *s, size_t i, size_t n)
{
    if (s[i] == 0xC2 && i + 1 < n && s[i + 1] == 0xA0)
        return 2;
    if (s[i] == 0xE2 && i + 2 < n && (s[i + 1] == 0x80 || s[i + 1] == 0x81))
        return 3;
    return 0;
}

/* ---- cutting the answer ----------------------------------------------------------- */

/* A growing byte buffer in the design's memory. */
struct dbuf {
    char *data;
    size_t len, cap;
};

static void dbuf_putc(struct grader_design *d, struct dbuf *b, char c)
{
    if (room(d, (void **)&b->data, b->len, &b->cap, 1, 256))
        b->data[b->len++] = c;
}

struct cutter {
    struct grader_design *d;
    const unsigned char *src;
    size_t n;
    struct dbuf text;
    struct dbuf norm; /* the current sentence's normalised text */
    size_t sentence_first;
    size_t clause, part;
    bool clause_has_words, part_has_words, sentence_open;
};

static void new_clause(struct cutter *c)
{
    if (c->clause_has_words)
        c->clause++;
    c->clause_has_words = false;
}

static void new_part(struct cutter *c)
{
    if (c->part_has_words)
        c->part++;
    c->part_has_words = false;
    new_clause(c);
}

/* A sentence's claim test (see the file comment). */
static bool is_claim(const struct grader_design *d, size_t first, size_t n)
{
    bool any_function = false;
    size_t parts = 0, bare_words = 0;
    for (size_t i = first; i < first + n;) {
        size_t part = d->w[i].part, k = i;
        bool fn = false;
        while (k < first + n && d->w[k].part == part) {
            fn |= d->w[k].function;
            k++;
        }
        parts++;
        if (k - i < BARE_WORDS || !fn)
            bare_words += k - i;
        any_function |= fn;
        i = k;
    }
    if (!any_function)
        return false;
    return parts < 3 || bare_words * 2 <= n;
}

static void end_sentence(struct cutter *c)
{
    struct grader_design *d = c->d;
    size_t n = d->n_w - c->sentence_first;
    if (n > 0 && room(d, (void **)&d->s, d->n_s, &d->cap_s, sizeof *d->s, 16)) {
        struct dsentence *s = &d->s[d->n_s];
        s->first = c->sentence_first;
        s->n = n;
        for (size_t i = s->first; i < s->first + n; i++)
            d->w[i].sentence = d->n_s;
        s->claim = is_claim(d, s->first, n);
        /* trim the trailing space of the normalised text */
        while (c->norm.len && c->norm.data[c->norm.len - 1] == ' ')
            c->norm.len--;
        s->norm_len = c->norm.len;
        s->norm = mem(d, NULL, 0, c->norm.len + 1);
        if (s->norm) {
            if (c->norm.len)
                memcpy(s->norm, c->norm.data, c->norm.len);
            s->norm[c->norm.len] = '\0';
            if (s->claim)
                d->claim_words += n;
            d->n_s++;
        }
    }
    c->norm.len = 0;
    c->sentence_first = d->n_w;
    c->sentence_open = false;
    new_part(c);
}

static void add_norm(struct cutter *c, unsigned char ch)
{
    bool space = ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '\v';
    if (space) {
        if (c->norm.len && c->norm.data[c->norm.len - 1] != ' ')
            dbuf_putc(c->d, &c->norm, ' ');
        return;
    }
    dbuf_putc(c->d, &c->norm, (char)(ch >= 'A' && ch <= 'Z' ? ch + 32 : ch));
}

/* Is the word just added a negator, given the words before it? Handles
 * "not only" (not one), "instead of", "rather than" and "n't". */
static int negator_at(const struct grader_design *d, size_t i, const char *next, size_t next_len)
{
    const struct dword *w = &d->w[i];
    const char *s = d->text + w->at;
    if (w->len == 3 && memcmp(s, "not", 3) == 0)
        return !(next_len == 4 && memcmp(next, "only", 4) == 0);
    if ((w->len == 7 && memcmp(s, "instead", 7) == 0) && next_len == 2 &&
        memcmp(next, "of", 2) == 0)
        return 1;
    if ((w->len == 6 && memcmp(s, "rather", 6) == 0) && next_len == 4 &&
        memcmp(next, "than", 4) == 0)
        return 1;
    if (w->len == 1 && s[0] == 't' && i > 0 && d->w[i - 1].clause == w->clause) {
        const struct dword *p = &d->w[i - 1];
        if (p->len >= 2 && d->text[p->at + p->len - 1] == 'n')
            return 1; /* don't, can't, isn't: "don" "t" */
    }
    return IN(NEGATORS, s, w->len);
}

/* Reads the word at src[*i] into the table. */
static void add_word(struct cutter *c, size_t *i)
{
    struct grader_design *d = c->d;
    size_t start = *i, end = start;
    while (end < c->n && word_byte(c->src[end]) && !sep_len(c->src, end, c->n))
        end++;
    size_t len = end - start;
    *i = end;
    if (!room(d, (void **)&d->w, d->n_w, &d->cap_w, sizeof *d->w, 64))
        return;
    struct dword *w = &d->w[d->n_w];
    w->at = c->text.len;
    w->len = len;
    w->alpha = true;
    for (size_t k = start; k < end; k++) {
        unsigned char ch = c->src[k];
        char lc = (char)(ch >= 'A' && ch <= 'Z' ? ch + 32 : ch);
        dbuf_putc(d, &c->text, lc);
        w->alpha &= !(ch >= '0' && ch <= '9');
    }
    dbuf_putc(d, &c->text, '\0');
    if (d->oom)
        return;
    const char *s = c->text.data + w->at;
    /* a new clause starts before a clause word */
    if (IN(CLAUSE_WORDS, s, len))
        new_clause(c);
    bool compound = (start > 0 && c->src[start - 1] == '-') || (end < c->n && c->src[end] == '-');
    w->function = !compound && IN(FUNCTION_WORDS, s, len);
    w->sentence = SIZE_MAX; /* set when the sentence ends */
    w->clause = c->clause;
    w->part = c->part;
    w->norm_at = c->norm.len;
    for (size_t k = start; k < end; k++)
        add_norm(c, c->src[k]);
    w->norm_end = c->norm.len;
    w->negated = false; /* mark_negation, once the words after it are known */
    c->clause_has_words = c->part_has_words = c->sentence_open = true;
    d->n_w++;
}

/* After all words are read: count negators per clause (a negator needs the
 * word after it for "not only", "instead of", "rather than"). */
/* Words that dismiss what comes before them in their clause: "profiling
 * is useless". */
static const char *const DISMISSALS[] = {"irrelevant",  "overkill", "pointless",
                                         "unnecessary", "unneeded", "useless"};

/* After a negator: the words that make "is not needed", "would not help",
 * "never helps", "does not matter" a dismissal of what comes before. */
static const char *const DISMISSED[] = {
    "help",     "helps",      "matter", "matters",    "necessary", "needed",
    "required", "useful",     "work",   "works",      "worth",     "tell",
    "problem",  "bottleneck", "issue",  "difference", "speed",     "speeds"};

/* Verbs that dismiss their subject when "nothing" follows them. */
static const char *const NOTHING_VERBS[] = {
    "achieve", "achieves", "add",  "adds",  "change", "changes", "do",  "does",
    "gain",    "gains",    "tell", "tells", "bring",  "brings",  "buy", "buys"};

static bool word_is(const struct grader_design *d, size_t i, const char *s)
{
    return i < d->n_w && d->w[i].len == strlen(s) &&
           memcmp(d->text + d->w[i].at, s, d->w[i].len) == 0;
}

/* Does a dismissal start at word i ("useless"; a negator followed within
 * three words, in the clause, by one of DISMISSED; "no need", "no
 * difference")? */
static bool dismissal_at(const struct grader_design *d, size_t i)
{
    const struct dword *w = &d->w[i];
    const char *s = d->text + w->at;
    if (IN(DISMISSALS, s, w->len))
        return true;
    /* "changes nothing", "adds nothing" */
    if (word_is(d, i, "nothing") && i > 0 && d->w[i - 1].clause == w->clause &&
        IN(NOTHING_VERBS, d->text + d->w[i - 1].at, d->w[i - 1].len))
        return true;
    bool neg = IN(NEGATORS, s, w->len) || word_is(d, i, "not") ||
               (w->len == 1 && s[0] == 't' && i > 0 && d->w[i - 1].clause == w->clause &&
                d->w[i - 1].len >= 2 && d->text[d->w[i - 1].at + d->w[i - 1].len - 1] == 'n');
    if (!neg)
        return false;
    for (size_t k = i + 1; k <= i + 3 && k < d->n_w && d->w[k].clause == w->clause; k++)
        if (IN(DISMISSED, d->text + d->w[k].at, d->w[k].len) || word_is(d, k, "need"))
            return true;
    return false;
}

static void mark_negation(struct grader_design *d)
{
    int count = 0;
    size_t clause = SIZE_MAX, start = 0;
    for (size_t i = 0; i < d->n_w; i++) {
        struct dword *w = &d->w[i];
        if (w->clause != clause) {
            clause = w->clause;
            count = 0;
            start = i;
        }
        w->negated = count % 2 == 1;
        const char *next = "";
        size_t next_len = 0;
        if (i + 1 < d->n_w && d->w[i + 1].clause == w->clause) {
            next = d->text + d->w[i + 1].at;
            next_len = d->w[i + 1].len;
        }
        count += negator_at(d, i, next, next_len);
        /* "X would not help", "X is useless": X is dismissed, not claimed */
        if (dismissal_at(d, i))
            for (size_t k = start; k < i; k++)
                d->w[k].negated = true;
    }
}

/* At the start of a line: a list marker ("- ", "* ", "+ ", "• ", "1. ",
 * "1) ")? Returns its length, or 0. */
static size_t list_marker(const unsigned char *s, size_t i, size_t n)
{
    if (i + 1 < n && strchr("-*+", s[i]) && (s[i + 1] == ' ' || s[i + 1] == '\t'))
        return 2;
    if (i + 3 < n && s[i] == 0xE2 && s[i + 1] == 0x80 && s[i + 2] == 0xA2)
        return 3; /* • */
    size_t k = i;
    while (k < n && k - i < 3 && s[k] >= '0' && s[k] <= '9')
        k++;
    if (k > i && k + 1 < n && (s[k] == '.' || s[k] == ')') && (s[k + 1] == ' ' || s[k + 1] == '\t'))
        return k + 2 - i;
    return 0;
}

struct grader_design *grader_design_new(const char *text, size_t n, grader_alloc_fn alloc, void *ud)
{
    struct grader_design *d = alloc(ud, NULL, 0, sizeof *d);
    if (!d)
        return NULL;
    memset(d, 0, sizeof *d);
    d->alloc = alloc;
    d->ud = ud;
    struct cutter c = {.d = d, .src = (const unsigned char *)text, .n = n};
    const unsigned char *s = c.src;
    bool line_start = true;
    size_t line_first = 0; /* the first word of the current line */
    for (size_t i = 0; i < n && !d->oom;) {
        unsigned char ch = s[i];
        if (line_start) {
            line_first = d->n_w;
            size_t k = i;
            while (k < n && (s[k] == ' ' || s[k] == '\t'))
                k++;
            if (k < n && (s[k] == '\n' || s[k] == '\r')) { /* a blank line */
                end_sentence(&c);
                i = k + 1;
                if (i < n && (s[i] == '\n' || s[i] == '\r') && s[i] != s[k])
                    i++;
                line_start = true;
                continue;
            }
            size_t m = k < n ? list_marker(s, k, n) : 0;
            if (m) {
                end_sentence(&c);
                i = k + m;
                line_start = false;
                continue;
            }
            line_start = false;
        }
        size_t sl = sep_len(s, i, n);
        if (sl) {
            /* — and – cut clauses; other general punctuation separates words */
            if (sl == 3 && s[i + 1] == 0x80 && (s[i + 2] == 0x94 || s[i + 2] == 0x93))
                new_clause(&c);
            add_norm(&c, ' ');
            i += sl;
            continue;
        }
        if (word_byte(ch)) {
            add_word(&c, &i);
            continue;
        }
        if (ch == '\n' || ch == '\r') {
            /* A short line is a part of its own (a list, one term a line);
             * a long one is prose wrapped, and the part goes on. */
            if (d->n_w - line_first < BARE_WORDS)
                new_part(&c);
            line_start = true;
            add_norm(&c, ' ');
            i++;
            if (i < n && (s[i] == '\n' || s[i] == '\r') && s[i] != ch)
                i++; /* \r\n is one line break */
            continue;
        }
        bool end = ch == '!' || ch == '?' || ch == ';';
        if (ch == '.')
            end = !(i > 0 && i + 1 < n && word_byte(s[i - 1]) && word_byte(s[i + 1]));
        if (end) {
            end_sentence(&c);
            i++;
            continue;
        }
        if (ch == ',')
            new_part(&c);
        else if (ch == ':' || ch == '(' || ch == ')')
            new_clause(&c);
        if (c.sentence_open)
            add_norm(&c, ch);
        i++;
    }
    end_sentence(&c);
    dbuf_putc(d, &c.text, '\0'); /* never NULL once it worked */
    d->text = c.text.data;
    d->text_cap = c.text.cap;
    mem_free(d, c.norm.data, c.norm.cap);
    if (d->oom) {
        grader_design_free(d);
        return NULL;
    }
    mark_negation(d);
    d->list = d->claim_words * 2 < d->n_w;
    return d;
}

void grader_design_free(struct grader_design *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->n_s; i++)
        mem_free(d, d->s[i].norm, d->s[i].norm_len + 1);
    mem_free(d, d->s, d->cap_s * sizeof *d->s);
    mem_free(d, d->w, d->cap_w * sizeof *d->w);
    mem_free(d, d->text, d->text_cap);
    d->alloc(d->ud, d, sizeof *d, 0);
}

bool grader_design_oom(const struct grader_design *d)
{
    return d->oom;
}

bool grader_design_is_list(const struct grader_design *d)
{
    return d->list;
}

size_t grader_design_n_words(const struct grader_design *d)
{
    return d->n_w;
}

size_t grader_design_n_sentences(const struct grader_design *d)
{
    return d->n_s;
}

bool grader_design_claim(const struct grader_design *d, size_t i)
{
    return i < d->n_s && d->s[i].claim;
}

const char *grader_design_sentence(const struct grader_design *d, size_t i, size_t *len)
{
    *len = d->s[i].norm_len;
    return d->s[i].norm;
}

bool grader_design_negated_at(const struct grader_design *d, size_t i, size_t offset)
{
    const struct dsentence *s = &d->s[i];
    for (size_t k = s->first; k < s->first + s->n; k++)
        if (d->w[k].norm_end > offset)
            return d->w[k].negated;
    return s->n ? d->w[s->first + s->n - 1].negated : false;
}

/* ---- matching ------------------------------------------------------------------------ */

/* Optimal string alignment distance between a and b, or max + 1 when it
 * is more than max. */
static size_t edits(const char *a, size_t na, const char *b, size_t nb, size_t max)
{
    if ((na > nb ? na - nb : nb - na) > max || na >= MAX_WORD || nb >= MAX_WORD)
        return max + 1;
    size_t prev2[MAX_WORD + 1], prev[MAX_WORD + 1], cur[MAX_WORD + 1];
    for (size_t j = 0; j <= nb; j++)
        prev[j] = j;
    for (size_t i = 1; i <= na; i++) {
        cur[0] = i;
        size_t row_min = cur[0];
        for (size_t j = 1; j <= nb; j++) {
            size_t cost = a[i - 1] != b[j - 1];
            size_t v = prev[j - 1] + cost;
            if (prev[j] + 1 < v)
                v = prev[j] + 1;
            if (cur[j - 1] + 1 < v)
                v = cur[j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                prev2[j - 2] + 1 < v)
                v = prev2[j - 2] + 1;
            cur[j] = v;
            if (v < row_min)
                row_min = v;
        }
        if (row_min > max)
            return max + 1;
        memcpy(prev2, prev, (nb + 1) * sizeof *prev);
        memcpy(prev, cur, (nb + 1) * sizeof *cur);
    }
    return prev[nb];
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void grader_design_known_init(struct grader_design_known *k, struct grader_design *d)
{
    memset(k, 0, sizeof *k);
    k->d = d;
}

void grader_design_known_add(struct grader_design_known *k, const char *phrase)
{
    struct grader_design *d = k->d;
    const unsigned char *s = (const unsigned char *)phrase;
    size_t len = strlen(phrase);
    for (size_t i = 0; i < len && !d->oom;) {
        size_t sl = sep_len(s, i, len);
        if (sl || !word_byte(s[i])) {
            i += sl ? sl : 1;
            continue;
        }
        size_t start = i;
        while (i < len && word_byte(s[i]) && !sep_len(s, i, len))
            i++;
        if (!room(d, (void **)&k->words, k->n, &k->cap, sizeof *k->words, 32))
            return;
        char *w = mem(d, NULL, 0, i - start + 1);
        if (!w)
            return;
        for (size_t j = start; j < i; j++)
            w[j - start] = (char)(s[j] >= 'A' && s[j] <= 'Z' ? s[j] + 32 : s[j]);
        w[i - start] = '\0';
        k->words[k->n++] = w;
    }
    k->sorted = false;
}

void grader_design_known_fini(struct grader_design_known *k)
{
    if (!k || !k->d)
        return;
    for (size_t i = 0; i < k->n; i++)
        mem_free(k->d, k->words[i], strlen(k->words[i]) + 1);
    mem_free(k->d, k->words, k->cap * sizeof *k->words);
    memset(k, 0, sizeof *k);
}

static bool known_has(struct grader_design_known *k, const char *w)
{
    if (!k || k->n == 0)
        return false;
    if (!k->sorted) {
        qsort(k->words, k->n, sizeof *k->words, cmp_str);
        k->sorted = true;
    }
    return bsearch(&w, k->words, k->n, sizeof *k->words, cmp_str) != NULL;
}

/* One word of a phrase: its text, and whether it is a prefix ("switch*"). */
struct pword {
    const char *s;
    size_t len;
    bool prefix;
    bool digits;
};

/* Does answer word w match phrase word p? */
static bool word_match(const struct grader_design *d, const struct dword *w, const struct pword *p,
                       bool fuzzy, struct grader_design_known *known)
{
    const char *a = d->text + w->at;
    if (p->prefix)
        return w->len >= p->len && memcmp(a, p->s, p->len) == 0;
    if (w->len == p->len && memcmp(a, p->s, p->len) == 0)
        return true;
    if (!fuzzy || p->digits || !w->alpha || p->len < FUZZY1 || a[0] != p->s[0] || w->function)
        return false;
    size_t max = p->len >= FUZZY2 ? 2 : 1;
    if (edits(a, w->len, p->s, p->len, max) > max)
        return false;
    return !known_has(known, a); /* a word of the rubric is not a misspelling */
}

/* Splits a phrase into words (as wb.words does; '*' right after a word
 * makes it a prefix). Returns the count (at most max); `buf` holds them. */
static size_t phrase_words(const char *phrase, char *buf, struct pword *pw, size_t max)
{
    size_t n = 0, k = 0;
    const unsigned char *s = (const unsigned char *)phrase;
    size_t len = strlen(phrase);
    for (size_t i = 0; i < len && n < max;) {
        size_t sl = sep_len(s, i, len);
        if (sl || !word_byte(s[i])) {
            i += sl ? sl : 1;
            continue;
        }
        pw[n].s = buf + k;
        pw[n].digits = false;
        size_t start = k;
        while (i < len && word_byte(s[i]) && !sep_len(s, i, len)) {
            unsigned char ch = s[i++];
            pw[n].digits |= ch >= '0' && ch <= '9';
            buf[k++] = (char)(ch >= 'A' && ch <= 'Z' ? ch + 32 : ch);
        }
        buf[k++] = '\0';
        pw[n].len = k - 1 - start;
        pw[n].prefix = i < len && s[i] == '*';
        n++;
    }
    return n;
}

#define MAX_PHRASE_WORDS 16

/* Calls found(d, first word, n words, negated, ud) for every occurrence of
 * the phrase in the answer's sentences. Stops when found returns true. */
static void each_occurrence(const struct grader_design *d, const char *phrase, bool fuzzy,
                            struct grader_design_known *known,
                            bool (*found)(const struct grader_design *, size_t, size_t, void *),
                            void *ud)
{
    char buf[MAX_PHRASE + MAX_PHRASE_WORDS + 1];
    struct pword pw[MAX_PHRASE_WORDS];
    if (strlen(phrase) > MAX_PHRASE)
        return; /* checked at load: a phrase this long is a pack error */
    size_t np = phrase_words(phrase, buf, pw, MAX_PHRASE_WORDS);
    for (size_t i = 0; np && i + np <= d->n_w; i++) {
        size_t k = 0;
        while (k < np && d->w[i + k].sentence == d->w[i].sentence &&
               word_match(d, &d->w[i + k], &pw[k], fuzzy, known))
            k++;
        if (k == np && found(d, i, np, ud))
            break;
    }
}

struct phrase_state {
    enum grader_design_hit hit;
    bool any; /* contradiction search: negation does not matter */
};

static bool phrase_found(const struct grader_design *d, size_t first, size_t n, void *ud)
{
    struct phrase_state *st = ud;
    const struct dword *w = &d->w[first];
    if (!d->s[w->sentence].claim) {
        if (st->hit == GRADER_HIT_NONE)
            st->hit = GRADER_HIT_UNCLAIMED;
        return false;
    }
    (void)n;
    /* Negators inside the phrase belong to it ("not coalesced"): only
     * those before its first word count. */
    bool negated = w->negated;
    if (negated && !st->any) {
        st->hit = GRADER_HIT_NEGATED;
        return false;
    }
    st->hit = GRADER_HIT_FOUND;
    return true;
}

enum grader_design_hit grader_design_phrase(const struct grader_design *d, const char *phrase,
                                            bool fuzzy, bool any, struct grader_design_known *known)
{
    struct phrase_state st = {GRADER_HIT_NONE, any};
    each_occurrence(d, phrase, fuzzy, known, phrase_found, &st);
    return st.hit;
}

/* ---- near ------------------------------------------------------------------------------ */

struct occ {
    size_t sentence, pos; /* pos: word index in the answer */
    size_t term;
    bool negated, claim;
};

struct occ_list {
    struct grader_design *d;
    struct occ *o;
    size_t n, cap;
    size_t term;
};

static bool near_found(const struct grader_design *d, size_t first, size_t n, void *ud)
{
    struct occ_list *l = ud;
    (void)n;
    bool negated = d->w[first].negated;
    if (!room(l->d, (void **)&l->o, l->n, &l->cap, sizeof *l->o, 16))
        return true; /* out of memory: stop (the caller sees d->oom) */
    l->o[l->n++] = (struct occ){d->w[first].sentence, first, l->term, negated,
                                d->s[d->w[first].sentence].claim};
    return false;
}

static int cmp_occ(const void *a, const void *b)
{
    const struct occ *x = a, *y = b;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

enum grader_design_hit grader_design_near(const struct grader_design *d, const char *const *terms,
                                          size_t n_terms, size_t within, bool fuzzy, bool any,
                                          struct grader_design_known *known)
{
    if (n_terms == 0 || n_terms > 32)
        return GRADER_HIT_NONE;
    struct occ_list l = {.d = (struct grader_design *)d};
    for (size_t t = 0; t < n_terms; t++) {
        l.term = t;
        each_occurrence(d, terms[t], fuzzy, known, near_found, &l);
    }
    if (l.n)
        qsort(l.o, l.n, sizeof *l.o, cmp_occ);
    /* Three passes, best first: claims without negation; claims with it;
     * any sentence. A window of occurrences in one sentence that holds
     * every term, first to last at most `within` words apart. */
    enum grader_design_hit hit = GRADER_HIT_NONE;
    for (int pass = 0; pass < 3 && hit == GRADER_HIT_NONE; pass++) {
        size_t count[32] = {0}, have = 0, lo = 0;
        for (size_t hi = 0; hi < l.n; hi++) {
            const struct occ *o = &l.o[hi];
            bool use = pass == 2 || (o->claim && (pass == 1 || !o->negated || any));
            if (!use) {
                memset(count, 0, sizeof count);
                have = 0;
                lo = hi + 1;
                continue;
            }
            if (count[o->term]++ == 0)
                have++;
            while (lo < hi && (l.o[lo].sentence != o->sentence || o->pos - l.o[lo].pos > within)) {
                if (--count[l.o[lo].term] == 0)
                    have--;
                lo++;
            }
            if (have == n_terms) {
                hit = pass == 0   ? GRADER_HIT_FOUND
                      : pass == 1 ? GRADER_HIT_NEGATED
                                  : GRADER_HIT_UNCLAIMED;
                break;
            }
        }
    }
    mem_free(l.d, l.o, l.cap * sizeof *l.o);
    return hit;
}
