/*
 * grader_design.c — reading a design answer, part one: cutting it into
 * words, sentences and segments, what each word's segment negates, and the
 * search for a rubric's phrases and near-by terms, misspellings tolerated.
 * The clauses come from grader_design_read.c (the English grammar), the
 * claims from grader_design_claim.c.
 *
 * The rules (written for instructors in lessons/FORMAT.md, "design"):
 *
 *   - Sentences end at . ! ? ; (a full stop between two letters or digits,
 *     as in 5.5 or e.g, does not end one), at a blank line, and before a
 *     line that starts with a list marker (-, *, +, •, "1." or "1)").
 *   - Segments: a sentence is cut at , : ( ) — – and arrows (-> => → ⇒),
 *     at the end of a line of fewer than four words (one term a line is a
 *     list; a long line is prose wrapped), before the clause words (and,
 *     but, because, which, if, ...: CLAUSE_WORDS below), and after
 *     DESIGN_SEGMENT_WORDS words without any of these. The grammar reads
 *     one segment at a time: a short run parses fast, and one that does not
 *     parse does not take the sentence with it.
 *   - A word is dismissed (negated as well) when a dismissal follows it in
 *     its segment: useless, pointless, unnecessary, unneeded, irrelevant,
 *     overkill, or a negator followed within three words by help(s),
 *     matter(s), needed, necessary, required, useful, work(s), worth, tell,
 *     problem, bottleneck, issue, difference, speed(s) or need ("profiling
 *     would not help", "communication is not the bottleneck"), or "nothing"
 *     after changes, adds, gains, achieves, does, tells, brings, buys ("a
 *     bigger batch changes nothing").
 *   - A word is negated when an odd number of negators come before it in
 *     its segment (no, not — but not "not only" —, never, cannot, none,
 *     nothing, neither, nor, without, lack(s/ing), unable, hardly, scarcely,
 *     barely, seldom, rarely, "instead of", "rather than", and the n't forms:
 *     don't, can't, isn't... written with or without the apostrophe). Two
 *     negators cancel.
 *   - A phrase matches whole words in order within one sentence; a word
 *     ending in '*' matches as a prefix ("switch*"). A misspelt word counts
 *     when it starts with the same letter and is one edit away (core's
 *     Damerau-Levenshtein: an insertion, deletion, substitution or swap of
 *     two neighbours) from a phrase word of 7 letters or more, two edits
 *     from one of 10 or more; words with digits, and answer words that are
 *     themselves words of the rubric (`known`) or function words, must
 *     match exactly.
 *   - A phrase or near group counts where the grammar read a clause that
 *     asserts it (not a question, not a condition, not about something
 *     else: grader_design_read.c); elsewhere it is "named, but not claimed".
 *   - A near group matches when all its terms occur in one sentence with
 *     at most `within` words from the first word of the first to the first
 *     word of the last, in any order.
 *
 * Pure C: no Lua, no I/O; linear in the answer for each phrase looked up.
 */
#include "grader_design_internal.h"

#include <stdlib.h>
#include <string.h>

#define MAX_PHRASE GRADER_DESIGN_MAX_PHRASE
#define FUZZY1 7      /* phrase words this long tolerate one edit */
#define FUZZY2 10     /* and this long, two */
#define SHORT_LINE 4  /* a line of fewer words is a list item of its own */
#define SHORT_PAREN 6 /* a parenthesis of this many words is an aside, not a segment */

/* Function words: never taken for a misspelt term. */
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

/* Words before which a new segment starts. */
static const char *const CLAUSE_WORDS[] = {
    "although", "and",     "because", "but",       "hence",  "however", "if",
    "since",    "so",      "then",    "therefore", "though", "thus",    "unless",
    "whereas",  "whether", "which",   "while",     "who",    "whose",   "yet"};

/* Where a long run is best cut: before a preposition. */
static const char *const CUT_BEFORE[] = {"of",  "in",      "on",     "at",    "with",  "by",
                                         "for", "from",    "into",   "along", "under", "over",
                                         "per", "through", "across", "onto",  "via"};

/* Words that negate what follows in their segment (with the two-word ones
 * and the n't forms handled in negator_at()), and the adverbs that do
 * ("GPUs hardly hide latency"). */
static const char *const NEGATORS[] = {
    "aint",     "arent",   "cannot", "cant",   "couldnt", "didnt",   "doesnt",  "dont",
    "hadnt",    "hasnt",   "havent", "isnt",   "lack",    "lacking", "lacks",   "mustnt",
    "neednt",   "neither", "never",  "no",     "none",    "nor",     "not",     "nothing",
    "shouldnt", "unable",  "wasnt",  "werent", "without", "wont",    "wouldnt", "hardly",
    "scarcely", "barely",  "seldom", "rarely"};

bool grader_design_in_list(const char *const *list, size_t n, const char *w, size_t len)
{
    for (size_t i = 0; i < n; i++)
        if (strlen(list[i]) == len && memcmp(list[i], w, len) == 0)
            return true;
    return false;
}

bool grader_design_word_is(const struct grader_design *d, size_t i, const char *s)
{
    return i < d->n_w && d->w[i].len == strlen(s) &&
           memcmp(d->text + d->w[i].at, s, d->w[i].len) == 0;
}

/* Memory comes from the caller's allocator (the sandbox's, when grading:
 * counted against its cap, and dropped with it if a limit abandons the
 * state half-way). */
void *grader_design_mem(struct grader_design *d, void *p, size_t old, size_t size)
{
    if (d->oom)
        return NULL;
    void *q = d->alloc(d->ud, p, old, size);
    if (!q && size)
        d->oom = true;
    return q;
}

void grader_design_mem_free(struct grader_design *d, void *p, size_t size)
{
    if (p)
        d->alloc(d->ud, p, size, 0);
}

bool grader_design_room(struct grader_design *d, void **a, size_t n, size_t *cap, size_t size,
                        size_t first)
{
    if (n < *cap)
        return true;
    size_t nc = *cap ? *cap * 2 : first;
    void *q = grader_design_mem(d, *a, *cap * size, nc * size);
    if (!q)
        return false;
    *a = q;
    *cap = nc;
    return true;
}

#define mem grader_design_mem
#define mem_free grader_design_mem_free
#define room grader_design_room

static bool word_byte(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c >= 0x80;
}

/* Bytes of a separating UTF-8 sequence at s[i] (no-break space, general
 * punctuation U+2000-U+206F, arrows U+2190-U+21FF), or 0. */
static size_t sep_len(const unsigned char *s, size_t i, size_t n)
{
    if (s[i] == 0xC2 && i + 1 < n && s[i + 1] == 0xA0)
        return 2;
    if (s[i] == 0xE2 && i + 2 < n &&
        (s[i + 1] == 0x80 || s[i + 1] == 0x81 || s[i + 1] == 0x86 || s[i + 1] == 0x87))
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
    size_t seg, seg_words;
    uint8_t sep; /* what the next segment follows */
    bool sentence_open;
    bool in_paren; /* inside a short parenthesis: its words are an aside */
};

/* Starts a new segment (if the current one has words); `sep` says why. A
 * sentence's first segment keeps SEP_SENTENCE. */
static void new_seg(struct cutter *c, enum dsep sep)
{
    if (c->seg_words) {
        c->seg++;
        c->seg_words = 0;
        c->sep = (uint8_t)sep;
    } else if (sep == SEP_WORD && c->sep != SEP_SENTENCE) {
        c->sep = (uint8_t)sep; /* ", so ...": the word says more than the comma */
    }
}

static void end_sentence(struct cutter *c, bool question)
{
    struct grader_design *d = c->d;
    size_t n = d->n_w - c->sentence_first;
    if (n > 0 && room(d, (void **)&d->s, d->n_s, &d->cap_s, sizeof *d->s, 16)) {
        struct dsentence *s = &d->s[d->n_s];
        memset(s, 0, sizeof *s);
        s->first = c->sentence_first;
        s->n = n;
        s->question = question;
        for (size_t i = s->first; i < s->first + n; i++)
            d->w[i].sentence = d->n_s;
        /* trim the trailing space of the normalised text */
        while (c->norm.len && c->norm.data[c->norm.len - 1] == ' ')
            c->norm.len--;
        s->norm_len = c->norm.len;
        s->norm = mem(d, NULL, 0, c->norm.len + 1);
        if (s->norm) {
            if (c->norm.len)
                memcpy(s->norm, c->norm.data, c->norm.len);
            s->norm[c->norm.len] = '\0';
            d->n_s++;
        }
    }
    c->norm.len = 0;
    c->sentence_first = d->n_w;
    c->sentence_open = false;
    c->in_paren = false;
    if (c->seg_words) {
        c->seg++;
        c->seg_words = 0;
    }
    c->sep = SEP_SENTENCE;
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

/* Is word i a negator, given the word after it? Handles "not only" (not
 * one), "instead of", "rather than" and "n't". */
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
    if (w->len == 1 && s[0] == 't' && i > 0 && d->w[i - 1].seg == w->seg && w->apos) {
        const struct dword *p = &d->w[i - 1];
        if (p->len >= 2 && d->text[p->at + p->len - 1] == 'n')
            return 1; /* don't, can't, isn't: "don" "t" */
    }
    return DESIGN_IN(NEGATORS, s, w->len);
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
    memset(w, 0, sizeof *w);
    w->at = c->text.len;
    w->len = len;
    w->src_at = start;
    w->src_len = len;
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
    /* a new segment starts before a clause word, and after a long run
     * (before a preposition once it is long, at the latest at the limit) */
    if (DESIGN_IN(CLAUSE_WORDS, s, len))
        new_seg(c, SEP_WORD);
    else if (c->seg_words >= DESIGN_SEGMENT_WORDS ||
             (c->seg_words >= DESIGN_SEGMENT_SOFT && DESIGN_IN(CUT_BEFORE, s, len)))
        new_seg(c, SEP_CUT);
    w->apos = start > 0 && (c->src[start - 1] == '\'' ||
                            (start >= 3 && c->src[start - 3] == 0xE2 && c->src[start - 2] == 0x80 &&
                             c->src[start - 1] == 0x99));
    w->compound = (start > 0 && c->src[start - 1] == '-') || (end < c->n && c->src[end] == '-');
    w->sentence = SIZE_MAX; /* set when the sentence ends */
    w->seg = c->seg;
    w->sep = c->seg_words == 0 ? c->sep : SEP_SENTENCE;
    w->aside = c->in_paren;
    w->clause = NONE;
    w->norm_at = c->norm.len;
    for (size_t k = start; k < end; k++)
        add_norm(c, c->src[k]);
    w->norm_end = c->norm.len;
    c->seg_words++;
    c->sentence_open = true;
    d->n_w++;
}

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

/* Does a dismissal start at word i ("useless"; a negator followed within
 * three words, in the segment, by one of DISMISSED; "no need", "no
 * difference")? */
static bool dismissal_at(const struct grader_design *d, size_t i)
{
    const struct dword *w = &d->w[i];
    const char *s = d->text + w->at;
    if (DESIGN_IN(DISMISSALS, s, w->len))
        return true;
    /* "changes nothing", "adds nothing" */
    if (grader_design_word_is(d, i, "nothing") && i > 0 && d->w[i - 1].seg == w->seg &&
        DESIGN_IN(NOTHING_VERBS, d->text + d->w[i - 1].at, d->w[i - 1].len))
        return true;
    bool neg = DESIGN_IN(NEGATORS, s, w->len) || grader_design_word_is(d, i, "not") ||
               (w->len == 1 && s[0] == 't' && i > 0 && d->w[i - 1].seg == w->seg &&
                d->w[i - 1].len >= 2 && d->text[d->w[i - 1].at + d->w[i - 1].len - 1] == 'n');
    if (!neg)
        return false;
    for (size_t k = i + 1; k <= i + 3 && k < d->n_w && d->w[k].seg == w->seg; k++)
        if (DESIGN_IN(DISMISSED, d->text + d->w[k].at, d->w[k].len) ||
            grader_design_word_is(d, k, "need"))
            return true;
    return false;
}

/* After all words are read: count negators per segment (a negator needs
 * the word after it for "not only", "instead of", "rather than"). */
static void mark_negation(struct grader_design *d)
{
    int count = 0;
    size_t seg = SIZE_MAX, start = 0;
    for (size_t i = 0; i < d->n_w; i++) {
        struct dword *w = &d->w[i];
        if (w->seg != seg) {
            seg = w->seg;
            count = 0;
            start = i;
        }
        w->negated = count % 2 == 1;
        const char *next = "";
        size_t next_len = 0;
        if (i + 1 < d->n_w && d->w[i + 1].seg == w->seg) {
            next = d->text + d->w[i + 1].at;
            next_len = d->w[i + 1].len;
        }
        int neg = negator_at(d, i, next, next_len);
        w->negator = neg != 0;
        count += neg;
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

/* A parenthesis at s[i] closed within a few words, before the sentence
 * ends: read as an aside inside its segment, not a segment of its own. */
static bool short_paren(const unsigned char *s, size_t i, size_t n)
{
    size_t words = 0;
    bool in_word = false;
    for (size_t k = i + 1; k < n && k < i + 120; k++) {
        if (s[k] == ')')
            return words <= SHORT_PAREN;
        /* a full stop ends it, a dot inside a name does not ("threadIdx.x") */
        bool stop = s[k] == '.' && !(word_byte(s[k - 1]) && k + 1 < n && word_byte(s[k + 1]));
        if (s[k] == '(' || stop || s[k] == '?' || s[k] == '!' || s[k] == ';' || s[k] == '\n')
            return false;
        bool w = word_byte(s[k]);
        if (w && !in_word)
            words++;
        in_word = w;
    }
    return false;
}

/* An arrow at s[i]: "->", "-->", "=>", "→" (and the other arrows of
 * U+2190-U+21FF). Returns its length, or 0. */
static size_t arrow_len(const unsigned char *s, size_t i, size_t n)
{
    if (s[i] == 0xE2 && i + 2 < n && (s[i + 1] == 0x86 || s[i + 1] == 0x87))
        return 3;
    size_t k = i;
    while (k < n && k - i < 3 && (s[k] == '-' || s[k] == '='))
        k++;
    if (k > i && k < n && s[k] == '>')
        return k + 1 - i;
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
    d->src = text;
    d->src_n = n;
    struct cutter c = {.d = d, .src = (const unsigned char *)text, .n = n, .sep = SEP_SENTENCE};
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
                end_sentence(&c, false);
                i = k + 1;
                if (i < n && (s[i] == '\n' || s[i] == '\r') && s[i] != s[k])
                    i++;
                line_start = true;
                continue;
            }
            size_t m = k < n ? list_marker(s, k, n) : 0;
            if (m) {
                end_sentence(&c, false);
                i = k + m;
                line_start = false;
                continue;
            }
            line_start = false;
        }
        size_t al = arrow_len(s, i, n);
        if (al) {
            new_seg(&c, SEP_ARROW);
            add_norm(&c, ' ');
            i += al;
            continue;
        }
        size_t sl = sep_len(s, i, n);
        if (sl) {
            /* — and – cut segments; other general punctuation separates words */
            if (sl == 3 && s[i + 1] == 0x80 && (s[i + 2] == 0x94 || s[i + 2] == 0x93))
                new_seg(&c, SEP_DASH);
            add_norm(&c, ' ');
            i += sl;
            continue;
        }
        if (word_byte(ch)) {
            add_word(&c, &i);
            continue;
        }
        if (ch == '\n' || ch == '\r') {
            /* A short line is a segment of its own (a list, one term a
             * line); a long one is prose wrapped, and the segment goes on. */
            if (d->n_w - line_first < SHORT_LINE)
                new_seg(&c, SEP_LINE);
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
            end_sentence(&c, ch == '?');
            i++;
            continue;
        }
        if (ch == ',')
            new_seg(&c, SEP_COMMA);
        else if (ch == ':')
            new_seg(&c, SEP_COLON);
        else if (ch == '(' && !c.in_paren && short_paren(s, i, n)) {
            c.in_paren = true; /* "a larger batch (weak scaling) should help": an aside */
        } else if (ch == ')' && c.in_paren) {
            c.in_paren = false;
        } else if (ch == '(' || ch == ')') {
            new_seg(&c, SEP_PAREN);
        }
        if (c.sentence_open)
            add_norm(&c, ch);
        i++;
    }
    end_sentence(&c, false);
    dbuf_putc(d, &c.text, '\0'); /* never NULL once it worked */
    d->text = c.text.data;
    d->text_cap = c.text.cap;
    mem_free(d, c.norm.data, c.norm.cap);
    /* the segments */
    for (size_t i = 0; i < d->n_w && !d->oom;) {
        size_t k = i;
        while (k < d->n_w && d->w[k].seg == d->w[i].seg)
            k++;
        if (room(d, (void **)&d->g, d->n_g, &d->cap_g, sizeof *d->g, 16)) {
            struct dseg *g = &d->g[d->n_g];
            memset(g, 0, sizeof *g);
            g->first = i;
            g->n = k - i;
            g->sentence = d->w[i].sentence;
            g->sep = d->w[i].sep;
            for (size_t j = i; j < k; j++)
                d->w[j].seg = d->n_g;
            d->n_g++;
        }
        i = k;
    }
    if (d->oom) {
        grader_design_free(d);
        return NULL;
    }
    mark_negation(d);
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
    mem_free(d, d->g, d->cap_g * sizeof *d->g);
    mem_free(d, d->c, d->cap_c * sizeof *d->c);
    mem_free(d, d->text, d->text_cap);
    d->alloc(d->ud, d, sizeof *d, 0);
}

bool grader_design_oom(const struct grader_design *d)
{
    return d->oom;
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

/* The word of sentence i at (or after) byte `offset` of its text. */
static size_t word_at(const struct grader_design *d, size_t i, size_t offset)
{
    const struct dsentence *s = &d->s[i];
    for (size_t k = s->first; k < s->first + s->n; k++)
        if (d->w[k].norm_end > offset)
            return k;
    return s->n ? s->first + s->n - 1 : NONE;
}

/* ---- matching ------------------------------------------------------------------------ */

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

void grader_design_known_add_noun(struct grader_design_known *k, const char *phrase)
{
    grader_design_known_add(k, phrase);
    struct grader_design *d = k->d;
    const unsigned char *s = (const unsigned char *)phrase;
    size_t len = strlen(phrase), n = 0, words = 0;
    if (d->oom || len > GRADER_DESIGN_MAX_PHRASE || strchr(phrase, '*'))
        return;
    char buf[GRADER_DESIGN_MAX_PHRASE + 1];
    for (size_t i = 0; i < len;) {
        size_t sl = sep_len(s, i, len);
        if (sl || !word_byte(s[i])) {
            i += sl ? sl : 1;
            continue;
        }
        if (n)
            buf[n++] = ' ';
        size_t start = n;
        while (i < len && word_byte(s[i]) && !sep_len(s, i, len) && n < GRADER_DESIGN_MAX_PHRASE)
            buf[n++] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] + 32 : s[i]), i++;
        bool alpha = n > start;
        for (size_t c = start; c < n; c++)
            alpha &= buf[c] >= 'a' && buf[c] <= 'z';
        if (!alpha || grader_design_function_word(buf + start, n - start))
            return; /* "8-gpu", "copy-of-the-model": no name of letters */
        words++;
    }
    if (words < 2 || words > DESIGN_NOUN_WORDS)
        return;
    buf[n] = '\0';
    if (!room(d, (void **)&k->nouns, k->n_nouns, &k->cap_nouns, sizeof *k->nouns, 8))
        return;
    char *w = mem(d, NULL, 0, n + 1);
    if (!w)
        return;
    memcpy(w, buf, n + 1);
    k->nouns[k->n_nouns++] = w;
}

void grader_design_known_fini(struct grader_design_known *k)
{
    if (!k || !k->d)
        return;
    for (size_t i = 0; i < k->n_nouns; i++)
        mem_free(k->d, k->nouns[i], strlen(k->nouns[i]) + 1);
    mem_free(k->d, k->nouns, k->cap_nouns * sizeof *k->nouns);
    for (size_t i = 0; i < k->n; i++)
        mem_free(k->d, k->words[i], strlen(k->words[i]) + 1);
    mem_free(k->d, k->words, k->cap * sizeof *k->words);
    memset(k, 0, sizeof *k);
}

bool grader_design_known_has(struct grader_design_known *k, const char *w)
{
    if (!k || k->n == 0)
        return false;
    if (!k->sorted) {
        qsort(k->words, k->n, sizeof *k->words, cmp_str);
        k->sorted = true;
    }
    return bsearch(&w, k->words, k->n, sizeof *k->words, cmp_str) != NULL;
}

bool grader_design_word_match(const struct grader_design *d, size_t i, const struct grader_pword *p,
                              bool fuzzy, struct grader_design_known *known)
{
    const struct dword *w = &d->w[i];
    const char *a = d->text + w->at;
    if (p->prefix)
        return w->len >= p->len && memcmp(a, p->s, p->len) == 0;
    if (w->len == p->len && memcmp(a, p->s, p->len) == 0)
        return true;
    if (!fuzzy || p->digits || !w->alpha || p->len < FUZZY1 || a[0] != p->s[0] ||
        DESIGN_IN(FUNCTION_WORDS, a, w->len))
        return false;
    size_t max = p->len >= FUZZY2 ? 2 : 1;
    if (core_str_edits(a, w->len, p->s, p->len, max) > max)
        return false;
    return !grader_design_known_has(known, a); /* a word of the rubric is not a misspelling */
}

bool grader_design_function_word(const char *w, size_t len)
{
    return DESIGN_IN(FUNCTION_WORDS, w, len);
}

size_t grader_design_phrase_words(const char *phrase, char *buf, struct grader_pword *pw,
                                  size_t max)
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

/* Calls found(d, first word, n words, ud) for every occurrence of the
 * phrase in the answer's sentences. Stops when found returns true. */
static void each_occurrence(const struct grader_design *d, const char *phrase, bool fuzzy,
                            struct grader_design_known *known,
                            bool (*found)(const struct grader_design *, size_t, size_t, void *),
                            void *ud)
{
    char buf[MAX_PHRASE + DESIGN_MAX_PHRASE_WORDS + 1];
    struct grader_pword pw[DESIGN_MAX_PHRASE_WORDS];
    if (strlen(phrase) > MAX_PHRASE)
        return; /* checked at load: a phrase this long is a pack error */
    size_t np = grader_design_phrase_words(phrase, buf, pw, DESIGN_MAX_PHRASE_WORDS);
    for (size_t i = 0; np && i + np <= d->n_w; i++) {
        size_t k = 0;
        while (k < np && d->w[i + k].sentence == d->w[i].sentence &&
               grader_design_word_match(d, i + k, &pw[k], fuzzy, known))
            k++;
        if (k == np && found(d, i, np, ud))
            break;
    }
}

/* How a word counts: in an asserted clause, negated there, or outside. */
static enum grader_design_hit word_hit(const struct grader_design *d, size_t i)
{
    const struct dword *w = &d->w[i];
    if (w->clause == NONE || d->s[w->sentence].bare)
        return GRADER_HIT_UNCLAIMED;
    const struct dclause *c = &d->c[w->clause];
    if (c->question || c->hedged || c->padding || c->listed)
        return GRADER_HIT_UNCLAIMED;
    return w->negated || c->denied ? GRADER_HIT_NEGATED : GRADER_HIT_FOUND;
}

struct phrase_state {
    enum grader_design_hit hit;
    bool any; /* contradiction search: negation does not matter */
};

static enum grader_design_hit best(enum grader_design_hit a, enum grader_design_hit b)
{
    return a > b ? a : b;
}

static bool phrase_found(const struct grader_design *d, size_t first, size_t n, void *ud)
{
    struct phrase_state *st = ud;
    (void)n;
    /* Negators inside the phrase belong to it ("not coalesced"): only
     * those before its first word count. */
    enum grader_design_hit h = word_hit(d, first);
    if (h == GRADER_HIT_NEGATED && st->any)
        h = GRADER_HIT_FOUND;
    st->hit = best(st->hit, h);
    return st->hit == GRADER_HIT_FOUND;
}

enum grader_design_hit grader_design_phrase(const struct grader_design *d, const char *phrase,
                                            bool fuzzy, bool any, struct grader_design_known *known)
{
    struct phrase_state st = {GRADER_HIT_NONE, any};
    each_occurrence(d, phrase, fuzzy, known, phrase_found, &st);
    return st.hit;
}

enum grader_design_hit grader_design_hit_at(const struct grader_design *d, size_t sentence,
                                            size_t offset, bool any)
{
    size_t k = word_at(d, sentence, offset);
    if (k == NONE)
        return GRADER_HIT_UNCLAIMED;
    enum grader_design_hit h = word_hit(d, k);
    return h == GRADER_HIT_NEGATED && any ? GRADER_HIT_FOUND : h;
}

/* ---- near ------------------------------------------------------------------------------ */

struct occ {
    size_t sentence, pos; /* pos: word index in the answer */
    size_t term;
    enum grader_design_hit hit;
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
    if (!room(l->d, (void **)&l->o, l->n, &l->cap, sizeof *l->o, 16))
        return true; /* out of memory: stop (the caller sees d->oom) */
    l->o[l->n++] = (struct occ){d->w[first].sentence, first, l->term, word_hit(d, first)};
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
    /* Three passes, best first: asserted, not negated (negation does not
     * matter with `any`); asserted, negated; anywhere. A window of
     * occurrences in one sentence that holds every term, first to last at
     * most `within` words apart. */
    enum grader_design_hit hit = GRADER_HIT_NONE;
    for (int pass = 0; pass < 3 && hit == GRADER_HIT_NONE; pass++) {
        size_t count[32] = {0}, have = 0, lo = 0;
        for (size_t hi = 0; hi < l.n; hi++) {
            const struct occ *o = &l.o[hi];
            bool use = pass == 2 || o->hit == GRADER_HIT_FOUND ||
                       (o->hit == GRADER_HIT_NEGATED && (pass == 1 || any));
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
