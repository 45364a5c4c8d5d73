/*
 * grader_design_read.c — reading a design answer, part two: the clauses of
 * its segments, found with the English grammar (grader_lg.c), each with its
 * subject, its verb group (the relation) and the rest of its predicate (the
 * object), and whether it is asserted at all.
 *
 * Which segments are read: those that hold a word of the rubric, in order,
 * until the answer's budget of parsed words is spent (what is left is
 * unread: no clause, no credit — so a 16 KiB answer costs a bounded number
 * of parses). Each segment is handed to the grammar as its words, with
 * what the dictionary could not read replaced (grammar_token): a word with
 * digits or other scripts ("32x33", "H100") stands as a noun, a few
 * technical nouns it only knows as verbs ("reads", "writes") as their
 * synonyms, contractions as their words.
 *
 * From a parse (link names in link-grammar's English dictionary):
 *   - a clause per subject link (S*, not SJ*): the subject is the noun
 *     phrase of its head, the verb group the verb followed through I, P*,
 *     and MVi+I (infinitives: "are designed to hide"), the object the rest
 *     of the segment after the verb group (up to the next clause);
 *     an inverted subject (SI*) or a question wall (Q*) makes a question;
 *     a passive (Pv) with "by" names its agent;
 *   - no subject link, a verb first: an imperative ("pad the tile"), or,
 *     after "and", a comma, a colon or an arrow, a verb phrase sharing the
 *     subject of the clause before ("... and hides latency");
 *   - no verb: a noun with a participle or adjective after it ("writes
 *     strided", a note) reads as that noun and what is said of it;
 *   - "A -> B" (an arrow between two segments): A said of B, the relation
 *     left unsaid;
 *   - nothing of that: a string of words, not a claim.
 * A segment that starts with a verb and has no subject of its own
 * ("hides latency by switching warps", after "GPU:" or "and") is parsed
 * again with "it" before it: the grammar otherwise takes the verb for a
 * plural noun.
 *
 * Whether a clause is asserted (FORMAT.md lists the words):
 *   - negation: the negators before a word in its segment
 *     (grader_design.c), plus the predicates that deny what they govern —
 *     "it is a myth / false / untrue that ...", "GPUs fail / refuse /
 *     cease to ..." (DENY);
 *   - questions (a "?" or the grammar's question reading) claim nothing;
 *   - conditions and counterfactuals: a clause under if, unless, whether,
 *     suppose, assuming, imagine, or one with would, could or might in a
 *     sentence that has such a condition ("If instead threadIdx.x indexed
 *     the rows, a warp would read down a column") — neither credit nor
 *     contradiction;
 *   - goals and results: "so that ...", "in order that ...", and a verb of
 *     change (become, get, turn, make) — credit, never a contradiction
 *     ("so that the writes become coalesced" describes the fix);
 *   - padding: a clause whose subject and object hold no word of the
 *     question (its prompt, model answer, hints and rubric) is about
 *     something else.
 * Pronouns (it, they, this, which, ...) stand for the subject of the clause
 * before, or for a relative's noun; a shared subject and a note's label
 * ("GPU: built for throughput") likewise.
 *
 * Uses grader_lg.c for the grammar; its memory is the design's.
 */
#include "grader_design_internal.h"

#include <stdio.h>
#include <string.h>

#define FAR_VERB 12 /* words from a subject's head to its verb, at most */

/* ---- words ------------------------------------------------------------------ */

/* Predicates that deny the clause they govern: "it is a myth that ...",
 * "GPUs fail to ...". */
static const char *const DENY[] = {
    "cease",    "ceased",   "ceases",        "deny",       "denied",    "denies",
    "doubt",    "doubtful", "doubts",        "fail",       "failed",    "failing",
    "fails",    "fallacy",  "false",         "impossible", "incorrect", "lie",
    "mistake",  "mistaken", "misconception", "myth",       "neglect",   "neglected",
    "neglects", "nonsense", "refuse",        "refused",    "refuses",   "untrue",
    "wrong",    "unlikely", "unable",        "stop",       "stops",     "stopped"};

/* Words that assert the clause they govern: "this means that ...", "the
 * profiler shows the stores are strided", "the reason is that ...". */
static const char *const ASSERT[] = {
    "know",        "knows",        "known",    "show",       "shows",       "showed",
    "shown",       "mean",         "means",    "meant",      "note",        "notice",
    "see",         "sees",         "seen",     "find",       "finds",       "found",
    "prove",       "proves",       "proved",   "confirm",    "confirms",    "confirmed",
    "demonstrate", "demonstrates", "reveal",   "reveals",    "indicate",    "indicates",
    "suggest",     "suggests",     "ensure",   "ensures",    "guarantee",   "guarantees",
    "true",        "clear",        "obvious",  "evident",    "certain",     "fact",
    "reason",      "so",           "such",     "given",      "think",       "thinks",
    "believe",     "believes",     "expect",   "expects",    "guess",       "suspect",
    "say",         "says",         "said",     "argue",      "problem",     "issue",
    "point",       "result",       "effect",   "cause",      "consequence", "explanation",
    "answer",      "fix",          "solution", "bottleneck", "culprit",     "catch",
    "trick",       "idea",         "hence",    "thus",       "therefore",   "because",
    "since",       "implies",      "imply",    "tells",      "tell",        "explains",
    "explain",     "means",        "measured", "measure",    "measures",    "verify",
    "verifies",    "sure"};

/* Words that open a condition, a counterfactual or an open question. */
static const char *const HEDGE[] = {"if",     "unless",   "whether",  "suppose", "supposing",
                                    "assume", "assuming", "imagine",  "pretend", "pretends",
                                    "wonder", "unclear",  "uncertain"};

/* Modals that make a clause counterfactual in a sentence with a condition. */
static const char *const MODAL[] = {"would", "could", "might", "wouldn", "couldn", "d"};

static const char *const MODAL_AUX[] = {"would", "should", "could", "can",    "will",
                                        "must",  "may",    "might", "cannot", "shall"};

/* Verbs of change: their clause says what becomes true (a result). */
static const char *const CHANGE[] = {"become", "becomes", "became", "becoming"};

/* Pronouns that stand for something said before. */
static const char *const PRONOUN[] = {"it",   "its",   "they", "them", "this", "these", "those",
                                      "that", "which", "who",  "he",   "she",  "one",   "there"};
static const char *const RELATIVE[] = {"which", "who", "that"};

/* The student's own voice: a subject that is the writer or the reader. */
static const char *const PERSON[] = {"i", "we", "you", "one"};

/* Coordinating words a shared-subject verb phrase starts with. */
static const char *const COORD[] = {"and",  "or", "but",  "then",  "yet",
                                    "also", "so", "thus", "hence", "therefore"};

/* Words that join a segment to the one before, left out of its parse. */
static const char *const LEAD[] = {"and",    "or",    "but",     "so",        "because", "since",
                                   "then",   "thus",  "hence",   "therefore", "yet",     "although",
                                   "though", "while", "whereas", "however",   "also"};

/* Technical nouns the dictionary knows only as verbs, and a few words it
 * reads badly, as a synonym of the same grammar (for the parser only: the
 * rubric sees the words as written). */
static const char *const SUBST[][2] = {
    {"reads", "loads"},           {"writes", "stores"},      {"coalesced", "aligned"},
    {"shard", "partition"},       {"shards", "partitions"},  {"sharded", "partitioned"},
    {"sharding", "partitioning"}, {"batch", "group"},        {"batches", "groups"},
    {"batched", "grouped"},       {"batching", "grouping"},  {"prefetch", "fetch"},
    {"prefetches", "fetches"},    {"prefetched", "fetched"}, {"prefetching", "fetching"},
    {"halves", "cuts"},           {"halve", "cut"}};

/* Words before "parallel" that make it a name ("data parallel"). */
static const char *const PARALLEL_KIND[] = {"data",    "model",  "tensor",   "pipeline",
                                            "request", "expert", "sequence", "context"};

/* Determiners after which "read" and "write" are nouns. */
static const char *const DETERMINER[] = {"a",    "an",  "the",   "each", "every", "one", "this",
                                         "that", "its", "their", "our",  "no",    "any", "per"};

/* Auxiliaries: the verb they help carries the relation. */
static const char *const AUXILIARY[] = {
    "is",  "are",   "was",  "were",   "be",   "been",  "being", "am",     "has", "have",
    "had", "do",    "does", "did",    "will", "would", "shall", "should", "can", "could",
    "may", "might", "must", "cannot", "get",  "gets",  "got",   "to"};

/* Forms of be and have (a participle follows them). */
static const char *const BE_HAVE[] = {"is",  "are",  "was", "were", "be",   "been", "being",
                                      "has", "have", "had", "get",  "gets", "got",  "s"};

/* n't stems and what they are without it. */
static const char *const NT_STEM[][2] = {
    {"don", "do"},       {"doesn", "does"},     {"didn", "did"},   {"isn", "is"},
    {"aren", "are"},     {"wasn", "was"},       {"weren", "were"}, {"hasn", "has"},
    {"haven", "have"},   {"hadn", "had"},       {"can", "can"},    {"couldn", "could"},
    {"wouldn", "would"}, {"shouldn", "should"}, {"won", "will"},   {"mustn", "must"},
    {"needn", "need"},   {"ain", "is"}};

/* Negators written without the apostrophe, as the grammar knows them. */
static const char *const NT_WORD[][2] = {
    {"dont", "don't"},       {"doesnt", "doesn't"},     {"didnt", "didn't"},
    {"isnt", "isn't"},       {"arent", "aren't"},       {"wasnt", "wasn't"},
    {"werent", "weren't"},   {"hasnt", "hasn't"},       {"havent", "haven't"},
    {"hadnt", "hadn't"},     {"cant", "can't"},         {"couldnt", "couldn't"},
    {"wouldnt", "wouldn't"}, {"shouldnt", "shouldn't"}, {"wont", "won't"},
    {"mustnt", "mustn't"}};

/* Is word i the first of one of the pairs? */
static bool in_pairs(const struct grader_design *d, size_t i, const char *const (*pairs)[2],
                     size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (grader_design_word_is(d, i, pairs[k][0]))
            return true;
    return false;
}
#define WORD_IN_PAIRS(d, i, pairs) in_pairs(d, i, pairs, sizeof pairs / sizeof pairs[0])

static const char *const SUBJ_PRONOUN_S[] = {"it", "that", "there", "here", "what", "who",
                                             "he", "she",  "where", "how",  "this", "which"};

static bool word_in(const struct grader_design *d, size_t i, const char *const *list, size_t n)
{
    return i < d->n_w && grader_design_in_list(list, n, dw_text(d, i), d->w[i].len);
}
#define WORD_IN(d, i, list) word_in(d, i, list, sizeof list / sizeof list[0])

/* ---- the grammar's words ---------------------------------------------------------- */

/* Are words a and a + 1 one hyphenated compound ("all-reduce"), or one
 * noun of the rubric ("all reduce")? */
static bool hyphen_joined(const struct grader_design *d, size_t a, size_t b)
{
    size_t end = d->w[a].src_at + d->w[a].src_len;
    return b == a + 1 && d->w[b].seg == d->w[a].seg &&
           ((d->guard_nouns && d->w[a].njoin) || (d->w[b].src_at == end + 1 && d->src[end] == '-'));
}

size_t grader_design_compound_end(const struct grader_design *d, size_t i)
{
    while (i != NONE && i + 1 < d->n_w &&
           (hyphen_joined(d, i, i + 1) || (d->w[i].njoin && d->w[i + 1].seg == d->w[i].seg)))
        i++;
    return i;
}

/* Marks the runs of words that spell a noun of the rubric (known->nouns),
 * with a space or a hyphen between its words ("all reduce", "all-reduce"),
 * the last one perhaps plural: the grammar gets them as one noun. */
static void mark_nouns(struct grader_design *d, const struct grader_design_known *known)
{
    if (!known)
        return;
    for (size_t i = 0; i < d->n_w; i++)
        for (size_t k = 0; k < known->n_nouns; k++) {
            const char *p = known->nouns[k];
            size_t j = i;
            for (;;) {
                size_t pl = strcspn(p, " ");
                const struct dword *w = &d->w[j];
                const char *t = dw_text(d, j);
                bool last = p[pl] == '\0';
                bool eq = w->len == pl && memcmp(t, p, pl) == 0;
                if (!eq && last && w->len > pl && memcmp(t, p, pl) == 0)
                    eq = strcmp(t + pl, "s") == 0 || strcmp(t + pl, "es") == 0;
                if (!eq)
                    break;
                if (last) {
                    for (size_t m = i; m < j; m++)
                        d->w[m].njoin = true;
                    break;
                }
                size_t end = w->src_at + w->src_len;
                if (j + 1 >= d->n_w || d->w[j + 1].seg != w->seg || d->w[j + 1].src_at != end + 1 ||
                    (d->src[end] != ' ' && d->src[end] != '-'))
                    break;
                p += pl + 1;
                j++;
            }
        }
}

/* Words after which an unknown word is a verb. */
static const char *const VERB_BEFORE[] = {"i",     "we",  "you",  "they", "to",  "would", "should",
                                          "could", "can", "will", "must", "may", "might", "cannot",
                                          "then",  "not", "also", "and",  "or"};

static bool ends(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n > m && memcmp(s + n - m, suffix, m) == 0;
}

/* Verbs after which an unknown word says how something is or goes ("we
 * go async", "it stays stale"): left to the dictionary's guess. */
static const char *const STATE_BEFORE[] = {"go",     "goes",    "went", "is",   "are",    "be",
                                           "stay",   "stays",   "run",  "runs", "become", "becomes",
                                           "remain", "remains", "was",  "were"};

/* Verbs that take a "that" clause: their clause is no relative one. */
static const char *const VERB_LIKE[] = {"think", "know",   "say",   "believe", "hope",   "mean",
                                        "show",  "see",    "note",  "find",    "expect", "ensure",
                                        "check", "verify", "claim", "assume",  "suppose"};

/* Could word i be the noun a relative clause is about (not a verb, not a
 * function word)? A plural or a rubric term is taken for one. */
static bool gov_is_noun(const struct grader_design *d, size_t i)
{
    const char *s = dw_text(d, i);
    size_t n = d->w[i].len;
    if (n < 3 || grader_design_function_word(s, n) || ends(s, "ed") || ends(s, "ing"))
        return false;
    return d->w[i].term || s[n - 1] == 's' || !WORD_IN(d, i, VERB_LIKE);
}

/* Is word i digits only, or a single letter (a size: "K x K")? */
static bool number_word(const struct grader_design *d, size_t i)
{
    const char *s = dw_text(d, i);
    if (d->w[i].len == 1 && s[0] >= 'a' && s[0] <= 'z' && s[0] != 'a')
        return true;
    for (size_t k = 0; k < d->w[i].len; k++)
        if (s[k] < '0' || s[k] > '9')
            return false;
    return d->w[i].len > 0;
}

/* Are words a and b (a < b) joined by code punctuation only ("out[x]")? */
static bool glued(const struct grader_design *d, size_t a, size_t b)
{
    size_t from = d->w[a].src_at + d->w[a].src_len, to = d->w[b].src_at;
    for (size_t k = from; k < to; k++)
        if (!strchr("[]_.=/<>{}#`^()*+-", d->src[k]) || d->src[k] == '\0')
            return false;
    return to > from;
}

/* Is word i part of a piece of code: glued to code punctuation ("[", "_",
 * ".", "=", ...) on either side, as in out[x][y], threadIdx.x, __shared__? */
static bool code_word(const struct grader_design *d, size_t i)
{
    const struct dword *w = &d->w[i];
    size_t a = w->src_at, b = w->src_at + w->src_len;
    static const char CODE[] = "[]_=<>{}#`^";
    if (a > 0 && strchr(CODE, d->src[a - 1]) && d->src[a - 1])
        return true;
    if (b < d->src_n && strchr(CODE, d->src[b]) && d->src[b])
        return true;
    /* a dot inside a word run: threadIdx.x (not a sentence's end) */
    if (a > 1 && d->src[a - 1] == '.' && d->src[a - 2] != ' ' && d->src[a - 2] != '\n' &&
        !(d->src[a - 2] >= '0' && d->src[a - 2] <= '9'))
        return true;
    if (b + 1 < d->src_n && d->src[b] == '.' && d->src[b + 1] != ' ' && d->src[b + 1] != '\n' &&
        !(d->src[b + 1] >= '0' && d->src[b + 1] <= '9') && d->src[b + 1] != '\r')
        return true;
    return false;
}

/* A technical noun, for the grammar: "metal" is a noun only, counted or
 * not ("a metal", "for metal"), so it fits where the word stood. */
#define NOUN "metal"
#define NOUNS "metals"

/* The token the grammar gets for word i, written into buf (n bytes), or
 * NULL when the word is left out (a possessive 's, the t of n't). */
static const char *grammar_token(const struct grader_design *d, size_t i, char *buf, size_t n)
{
    const struct dword *w = &d->w[i];
    if (w->aside)
        return NULL; /* "(weak scaling)": the clause reads on without it */
    /* a hyphenated compound is one word for the grammar: "all-reduce" */
    if (i > 0 && hyphen_joined(d, i - 1, i))
        return NULL;
    if (i + 1 < d->n_w && hyphen_joined(d, i, i + 1)) {
        size_t last = i + 1;
        while (last + 1 < d->n_w && hyphen_joined(d, last, last + 1))
            last++;
        /* a name of the rubric spelt with spaces ("all reduce", when the
         * words are guarded): its hyphenated spelling, as one word */
        size_t m = 0;
        bool letters = true;
        for (size_t k = i; k <= last && letters; k++) {
            letters = m + d->w[k].src_len + 1 < n && m + d->w[k].src_len <= GRADER_LG_MAX_TOKEN;
            for (size_t c = 0; c < d->w[k].src_len && letters; c++) {
                unsigned char ch = (unsigned char)d->src[d->w[k].src_at + c];
                letters = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
            }
            if (!letters)
                break;
            if (k > i)
                buf[m++] = '-';
            memcpy(buf + m, d->src + d->w[k].src_at, d->w[k].src_len);
            m += d->w[k].src_len;
        }
        if (!letters)
            return NOUN;
        buf[m] = '\0';
        return buf;
    }
    const char *lw = dw_text(d, i);
    const struct dseg *g = &d->g[w->seg];
    bool first = i == g->first;
    size_t next = i + 1 < d->n_w && d->w[i + 1].seg == w->seg ? i + 1 : NONE;
    /* contractions: "don" "t" -> "don't"; "it" "s" -> "it" "is" */
    if (w->apos && !first) {
        if (grader_design_word_is(d, i, "t") && WORD_IN_PAIRS(d, i - 1, NT_STEM))
            return NULL; /* the stem before it took it: "don't" */
        if (grader_design_word_is(d, i, "s"))
            return WORD_IN(d, i - 1, SUBJ_PRONOUN_S) ? "is" : NULL;
        static const char *const CL[][2] = {
            {"re", "are"}, {"ll", "will"}, {"ve", "have"}, {"m", "am"}, {"d", "would"}};
        for (size_t k = 0; k < sizeof CL / sizeof CL[0]; k++)
            if (grader_design_word_is(d, i, CL[k][0]))
                return CL[k][1];
    }
    if (next != NONE && d->w[next].apos && grader_design_word_is(d, next, "t"))
        for (size_t k = 0; k < sizeof NT_STEM / sizeof NT_STEM[0]; k++)
            if (grader_design_word_is(d, i, NT_STEM[k][0])) {
                snprintf(buf, n, "%sn't", strcmp(NT_STEM[k][1], "can") == 0 ? "ca" : NT_STEM[k][1]);
                if (strcmp(NT_STEM[k][0], "won") == 0)
                    snprintf(buf, n, "won't");
                return buf;
            }
    /* code: "out[x][y]", "threadIdx.x", "__shared__" read as one noun */
    if (code_word(d, i))
        return !first && code_word(d, i - 1) &&
                       d->w[i - 1].src_at + d->w[i - 1].src_len < w->src_at && glued(d, i - 1, i)
                   ? NULL
                   : NOUN;
    /* "32 x 32": one number */
    if ((grader_design_word_is(d, i, "x") || grader_design_word_is(d, i, "by")) && !first &&
        next != NONE && number_word(d, i - 1) && number_word(d, next))
        return NULL;
    if (number_word(d, i) && i >= 2 && !first && d->w[i - 2].seg == w->seg &&
        (grader_design_word_is(d, i - 1, "x") || grader_design_word_is(d, i - 1, "by")) &&
        number_word(d, i - 2))
        return NULL;
    /* "K x K taps": the size is a number for the grammar, not a letter */
    if (number_word(d, i) && next != NONE && next + 1 < d->n_w && d->w[next + 1].seg == w->seg &&
        (grader_design_word_is(d, next, "x") || grader_design_word_is(d, next, "by")) &&
        number_word(d, next + 1))
        return "32";
    for (size_t k = 0; k < sizeof NT_WORD / sizeof NT_WORD[0]; k++)
        if (grader_design_word_is(d, i, NT_WORD[k][0]))
            return NT_WORD[k][1];
    for (size_t k = 0; k < sizeof SUBST / sizeof SUBST[0]; k++)
        if (grader_design_word_is(d, i, SUBST[k][0]))
            return SUBST[k][1];
    /* "data parallel", "tensor parallel": one name, a noun for the grammar
     * ("training is data parallel") */
    if (grader_design_word_is(d, i, "parallel") && !first && WORD_IN(d, i - 1, PARALLEL_KIND))
        return NOUN;
    if (WORD_IN(d, i, PARALLEL_KIND) && next != NONE &&
        (grader_design_word_is(d, next, "parallel") ||
         grader_design_word_is(d, next, "parallelism")))
        return NOUN; /* "request parallelism": "request" is no verb there */
    /* "kernel launch overhead": "launch" names the cost, it is no verb */
    if (grader_design_word_is(d, i, "launch") && next != NONE &&
        (grader_design_word_is(d, next, "overhead") ||
         grader_design_word_is(d, next, "overheads") || grader_design_word_is(d, next, "cost") ||
         grader_design_word_is(d, next, "costs") || grader_design_word_is(d, next, "latency") ||
         grader_design_word_is(d, next, "time")))
        return NOUN;
    /* "far left of the ridge point": a place the grammar reads as "ahead of" */
    if ((grader_design_word_is(d, i, "left") || grader_design_word_is(d, i, "right")) &&
        next != NONE && grader_design_word_is(d, next, "of"))
        return "ahead";
    /* "BF16 mixed precision": "mixed" is no verb there; the noun stays */
    if (grader_design_word_is(d, i, "mixed") && next != NONE &&
        grader_design_word_is(d, next, "precision"))
        return NULL;
    /* "read": a noun after a determiner, a participle after be or have;
     * else a verb the dictionary reads badly ("threads read addresses") */
    if (grader_design_word_is(d, i, "read") || grader_design_word_is(d, i, "write")) {
        if (!first && WORD_IN(d, i - 1, DETERMINER))
            return lw[0] == 'r' ? "load" : "store";
        if (lw[0] == 'w')
            return "store";
        if (first || !WORD_IN(d, i - 1, BE_HAVE))
            return "fetch";
    }
    /* letters only, ASCII, short: as written (capitals help the grammar) */
    bool letters = w->src_len <= GRADER_LG_MAX_TOKEN, digits = true;
    for (size_t k = 0; k < w->src_len && letters; k++) {
        unsigned char ch = (unsigned char)d->src[w->src_at + k];
        bool l = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
        bool dg = ch >= '0' && ch <= '9';
        digits &= dg;
        letters = l || dg;
    }
    if (letters && digits && w->src_len <= 9)
        return memcpy(buf, d->src + w->src_at, w->src_len), buf[w->src_len] = '\0', buf;
    if (!letters || w->src_len == 0 || !w->alpha)
        return NOUN; /* "32x33", "H100", "GB/s" parts, other scripts: a noun */
    memcpy(buf, d->src + w->src_at, w->src_len);
    buf[w->src_len] = '\0';
    /* a lower-case word the dictionary does not know is, in a design
     * answer, a technical noun ("centroid", "mapper"): said so, the grammar
     * does not take it for a verb; after a subject pronoun, a modal or "to"
     * it is a verb, and an -ed, -ing or -ly word keeps the dictionary's
     * guess by its ending */
    bool known = true;
    if (buf[0] >= 'a' && buf[0] <= 'z' && w->src_len >= 4 &&
        grader_lg_known(buf, &known, NULL) == CORE_OK && !known && !ends(lw, "ed") &&
        !ends(lw, "ing") && !ends(lw, "ly") &&
        (first || (!WORD_IN(d, i - 1, VERB_BEFORE) && !WORD_IN(d, i - 1, STATE_BEFORE))))
        return ends(lw, "s") && !ends(lw, "ss") ? NOUNS : NOUN;
    return buf;
}

/* ---- one parse, read -------------------------------------------------------------- */

/* A segment's parse with its tokens mapped to words. */
struct seg_parse {
    struct grader_lg_parse p;
    size_t tok_word[GRADER_LG_MAX_TOKENS]; /* word of each token, NONE for an added "it" */
    size_t n_tok;
    bool lead_it; /* a pronoun was put first (a shared subject, or "you" of an imperative) */
    bool lead_you;
};

static bool label_is(const struct grader_lg_link *l, const char *prefix)
{
    return strncmp(l->label, prefix, strlen(prefix)) == 0;
}

/* A subject link: S*, not SJ* (split conjunctions). */
static bool subject_link(const struct grader_lg_link *l)
{
    return l->label[0] == 'S' && l->label[1] != 'J' && l->l != GRADER_LG_WALL &&
           l->r != GRADER_LG_WALL;
}

/* Links inside a noun phrase (determiners, adjectives, compounds, post
 * modifiers and their objects). */
static bool np_link(const struct grader_lg_link *l)
{
    char a = l->label[0], b = l->label[1];
    if (a == 'D' || a == 'A' || a == 'G' || a == 'Y' || a == 'L' || a == 'J' || a == 'U')
        return true;
    if (a == 'N' && b != '\0' && b != 'I') /* NM, ND, NN...; N alone is "not" */
        return true;
    if (a == 'M' && b != 'V' && b != 'X') /* Mp, Mv, Mg, Ma, Mr; MV is a verb's */
        return true;
    return a == 'E' && b == 'A';
}

/* Is token t's word a verb or adjective the chain may hold? */
static bool chain_link(const struct grader_lg_link *l)
{
    char a = l->label[0], b = l->label[1];
    if (a == 'I' && b != 'D') /* infinitive after a modal or "to" */
        return true;
    if (a == 'P' && (b == 'v' || b == 'g' || b == 'a' || b == 'P' || b == 'f'))
        return true;
    if (a == 'T' && b == 'O')
        return true;
    return a == 'M' && b == 'V' && l->label[2] == 'i'; /* "designed to", "fail to" */
}

/* The lowest token of the noun phrase around head, below `limit`. */
static size_t np_start(const struct seg_parse *sp, size_t head, size_t limit)
{
    size_t lo = head;
    bool grew = true;
    for (int rounds = 0; grew && rounds < GRADER_LG_MAX_TOKENS; rounds++) {
        grew = false;
        for (size_t k = 0; k < sp->p.n_links; k++) {
            const struct grader_lg_link *l = &sp->p.link[k];
            if (l->l == GRADER_LG_WALL || l->r == GRADER_LG_WALL || !np_link(l))
                continue;
            if (l->r >= lo && l->r <= head && l->l < lo && l->l < limit) {
                lo = l->l;
                grew = true;
            }
        }
    }
    return lo;
}

static size_t tok_word(const struct seg_parse *sp, size_t t)
{
    return t < sp->n_tok ? sp->tok_word[t] : NONE;
}

/* A word of the segment at or after token t (an added "it" has none). */
static size_t word_from(const struct seg_parse *sp, size_t t)
{
    for (; t < sp->n_tok; t++)
        if (sp->tok_word[t] != NONE)
            return sp->tok_word[t];
    return NONE;
}

static struct dclause *new_clause(struct grader_design *d, size_t seg, enum dkind kind)
{
    if (!grader_design_room(d, (void **)&d->c, d->n_c, &d->cap_c, sizeof *d->c, 16))
        return NULL;
    struct dclause *c = &d->c[d->n_c++];
    memset(c, 0, sizeof *c);
    c->seg = seg;
    c->kind = (uint8_t)kind;
    c->first = c->last = NONE;
    c->subj_first = c->subj_last = c->head = NONE;
    c->ante_first = c->ante_last = NONE;
    c->from = NONE;
    c->oref = NONE;
    c->obj_first = c->obj_last = NONE;
    c->agent_first = c->agent_last = NONE;
    return c;
}

/* Follows the verb group from token v; fills c->rel (words) and returns the
 * last token of the group. A "to" governed by a denying verb ("fail to")
 * makes what follows denied; a verb of change marks a result. */
static size_t read_chain(struct grader_design *d, const struct seg_parse *sp, size_t v,
                         struct dclause *c)
{
    size_t cur = v, last = v;
    for (int steps = 0; steps < GRADER_LG_MAX_TOKENS; steps++) {
        size_t w = tok_word(sp, cur);
        if (w != NONE && !grader_design_word_is(d, w, "to") && c->n_rel < DESIGN_MAX_REL) {
            c->rel[c->n_rel++] = w;
            if (WORD_IN(d, w, CHANGE))
                c->result = true;
        }
        size_t next = NONE;
        const char *next_label = "";
        for (size_t k = 0; k < sp->p.n_links; k++) {
            const struct grader_lg_link *l = &sp->p.link[k];
            if (l->l == cur && l->r != GRADER_LG_WALL && l->r > cur && chain_link(l) &&
                (next == NONE || l->r < next)) {
                next = l->r;
                next_label = l->label;
            }
        }
        if (next == NONE)
            break;
        /* a "to" after a verb that denies it: "fail to hide" */
        size_t nw = tok_word(sp, next);
        if (nw != NONE && grader_design_word_is(d, nw, "to") && w != NONE && WORD_IN(d, w, DENY))
            c->denied = !c->denied;
        /* "would [overlap it ... or compress the gradients]": the chain
         * reaches the "or"; its two verbs (VJl, VJr) are the group's */
        if (sp->p.pos[next] == 'j') {
            size_t lv = NONE, rv = NONE;
            for (size_t k = 0; k < sp->p.n_links; k++) {
                const struct grader_lg_link *l = &sp->p.link[k];
                if (label_is(l, "VJl") && l->r == next && l->l != GRADER_LG_WALL)
                    lv = l->l;
                if (label_is(l, "VJr") && l->l == next && l->r != GRADER_LG_WALL)
                    rv = l->r;
            }
            if (lv == NONE || rv == NONE)
                break;
            size_t lw = tok_word(sp, lv), rw = tok_word(sp, rv);
            if (lw != NONE && c->n_rel < DESIGN_MAX_REL)
                c->rel[c->n_rel++] = lw;
            if (rw != NONE && c->n_rel < DESIGN_MAX_REL)
                c->rel[c->n_rel++] = rw;
            last = rv;
            break;
        }
        /* an I link (after a modal or "to") reaches the verb whatever the
         * dictionary tagged it ("would overlap.n it") */
        char p = sp->p.pos[next];
        if (!strchr("nspjue-", p) || next_label[0] == 'I' ||
            (nw != NONE && grader_design_word_is(d, nw, "to")))
            cur = last = next;
        else
            break;
    }
    return last;
}

/* The passive's agent: "by" linked from the verb group, and its object's
 * noun phrase. */
static void read_agent(struct grader_design *d, const struct seg_parse *sp, size_t chain_end,
                       size_t limit, struct dclause *c)
{
    for (size_t k = 0; k < sp->p.n_links; k++) {
        const struct grader_lg_link *l = &sp->p.link[k];
        if (l->l == GRADER_LG_WALL || l->r == GRADER_LG_WALL || l->r > limit)
            continue;
        size_t by = l->r;
        size_t bw = tok_word(sp, by);
        if (bw == NONE || !grader_design_word_is(d, bw, "by") || by <= chain_end - 0 ||
            !label_is(l, "MV"))
            continue;
        /* its object: the J link from "by" */
        for (size_t m = 0; m < sp->p.n_links; m++) {
            const struct grader_lg_link *j = &sp->p.link[m];
            if (j->l == by && j->r != GRADER_LG_WALL && j->label[0] == 'J' && j->r <= limit) {
                size_t lo = np_start(sp, j->r, j->r + 1);
                c->agent_first = word_from(sp, lo);
                c->agent_last = tok_word(sp, j->r);
                return;
            }
        }
    }
}

/* Reads the clauses of one parsed segment. */
static void read_parse(struct grader_design *d, size_t seg, const struct seg_parse *sp)
{
    const struct dseg *g = &d->g[seg];
    size_t subj[GRADER_LG_MAX_TOKENS], verb[GRADER_LG_MAX_TOKENS];
    bool inverted[GRADER_LG_MAX_TOKENS];
    size_t ns = 0;
    bool question_wall = false;
    for (size_t k = 0; k < sp->p.n_links; k++) {
        const struct grader_lg_link *l = &sp->p.link[k];
        if (l->l == GRADER_LG_WALL && l->label[0] == 'Q')
            question_wall = true;
        if (!subject_link(l) || ns >= GRADER_LG_MAX_TOKENS)
            continue;
        bool inv = label_is(l, "SI") || label_is(l, "SFI");
        size_t sv = inv ? l->l : l->r;
        /* a subject linked to "or"/"and" joining two verb phrases: one
         * clause per verb ("I would overlap it ... or compress the
         * gradients"); VJl and VJr reach the two */
        size_t conj[2] = {NONE, NONE};
        if (sp->p.pos[sv] == 'j')
            for (size_t m = 0; m < sp->p.n_links; m++) {
                const struct grader_lg_link *v = &sp->p.link[m];
                if (label_is(v, "VJl") && v->r == sv && v->l != GRADER_LG_WALL)
                    conj[0] = v->l;
                if (label_is(v, "VJr") && v->l == sv && v->r != GRADER_LG_WALL)
                    conj[1] = v->r;
            }
        for (int j = 0; j < 2 && ns < GRADER_LG_MAX_TOKENS; j++) {
            if (conj[0] == NONE && j == 1)
                break;
            subj[ns] = inv ? l->r : l->l;
            verb[ns] = conj[0] == NONE ? sv : conj[j] != NONE ? conj[j] : sv;
            inverted[ns] = inv;
            ns++;
        }
    }
    /* clauses in order of their verbs */
    for (size_t a = 1; a < ns; a++)
        for (size_t b = a; b > 0 && verb[b - 1] > verb[b]; b--) {
            size_t t = verb[b];
            verb[b] = verb[b - 1];
            verb[b - 1] = t;
            t = subj[b];
            subj[b] = subj[b - 1];
            subj[b - 1] = t;
            bool x = inverted[b];
            inverted[b] = inverted[b - 1];
            inverted[b - 1] = x;
        }
    size_t first_clause = d->n_c;
    size_t seg_last = g->first + g->n - 1;
    if (ns > 0) {
        for (size_t k = 0; k < ns; k++) {
            struct dclause *c = new_clause(d, seg, CL_FULL);
            if (!c)
                return;
            size_t s = subj[k], v = verb[k];
            size_t lo = inverted[k] ? v : np_start(sp, s, v);
            size_t sw = tok_word(sp, s);
            if (sw == NONE) { /* the pronoun put first: a shared subject, or a command */
                c->kind = sp->lead_you ? CL_IMPERATIVE : CL_SHARED;
            } else {
                c->head = sw;
                c->subj_first = word_from(sp, inverted[k] ? s : lo);
                /* a subject starts after a "that" before it ("it is false
                 * that GPUs ...": the subject is GPUs) */
                for (size_t i = c->subj_first; c->subj_first != NONE && i < sw; i++)
                    if (grader_design_word_is(d, i, "that") ||
                        grader_design_word_is(d, i, "whether"))
                        c->subj_first = i + 1;
                c->subj_last = inverted[k] ? sw : sw;
                /* the subject's post-modifiers up to the verb ("the throughput of GPUs") */
                if (!inverted[k] && v > s + 1) {
                    size_t lw = tok_word(sp, v - 1);
                    if (lw != NONE && lw > c->subj_last)
                        c->subj_last = lw;
                }
            }
            c->question = question_wall || d->s[g->sentence].question;
            size_t chain_end = read_chain(d, sp, v, c);
            c->passive = false;
            for (size_t m = 0; m < sp->p.n_links; m++)
                if (label_is(&sp->p.link[m], "Pv") && sp->p.link[m].l != GRADER_LG_WALL &&
                    sp->p.link[m].l >= v && sp->p.link[m].l <= chain_end)
                    c->passive = true;
            /* the object: after the verb group up to the next clause's subject */
            size_t end_tok = sp->n_tok - 1;
            if (k + 1 < ns) {
                size_t nlo = inverted[k + 1] ? verb[k + 1] : np_start(sp, subj[k + 1], verb[k + 1]);
                if (nlo > chain_end && nlo > 0)
                    end_tok = nlo - 1;
                else if (verb[k + 1] > chain_end)
                    end_tok = verb[k + 1] - 1;
            }
            /* the object starts after the first verb that is not an
             * auxiliary ("would use a tile to turn them": a tile is used) */
            size_t obj_tok = chain_end + 1;
            for (size_t r = 0; r < c->n_rel; r++) {
                if (r + 1 < c->n_rel && WORD_IN(d, c->rel[r], AUXILIARY))
                    continue;
                for (size_t t = 0; t < sp->n_tok; t++)
                    if (sp->tok_word[t] == c->rel[r] && t + 1 < obj_tok)
                        obj_tok = t + 1;
                break;
            }
            size_t ow = obj_tok <= end_tok ? word_from(sp, obj_tok) : NONE;
            size_t ol = tok_word(sp, end_tok);
            if (ow != NONE && ol != NONE && ow <= ol) {
                c->obj_first = ow;
                c->obj_last = ol;
            }
            if (c->passive)
                read_agent(d, sp, chain_end, end_tok, c);
            /* a passive's "by" right after its verb group: the agent */
            if (c->passive && c->agent_first == NONE && c->obj_first != NONE) {
                for (size_t i = c->obj_first; i <= c->obj_last && i < c->obj_first + 3; i++)
                    if (grader_design_word_is(d, i, "by") && i + 1 <= c->obj_last) {
                        c->agent_first = i + 1;
                        c->agent_last = c->obj_last;
                        break;
                    }
            }
            size_t fw = c->subj_first != NONE ? c->subj_first : word_from(sp, v);
            c->first = fw;
            c->last = c->obj_last != NONE ? c->obj_last : (c->n_rel ? c->rel[c->n_rel - 1] : fw);
            if (c->first == NONE)
                d->n_c--;
        }
        (void)first_clause;
        return;
    }
    /* No subject: a verb first (an imperative or a shared subject), or a
     * noun with what is said of it. */
    size_t v = NONE;
    for (size_t t = 0; t < sp->n_tok; t++) {
        if (sp->p.pos[t] == 'v') {
            v = t;
            break;
        }
        size_t w = tok_word(sp, t);
        if (sp->p.pos[t] == 'n' || sp->p.pos[t] == '?' || sp->p.pos[t] == 's' ||
            (w != NONE && !WORD_IN(d, w, COORD) &&
             !grader_design_function_word(dw_text(d, w), d->w[w].len)))
            break;
    }
    if (v != NONE) {
        bool initial = g->sep == SEP_SENTENCE;
        struct dclause *c = new_clause(d, seg, initial ? CL_IMPERATIVE : CL_SHARED);
        if (!c)
            return;
        c->question = question_wall;
        size_t chain_end = read_chain(d, sp, v, c);
        size_t ow = word_from(sp, chain_end + 1);
        if (ow != NONE) {
            c->obj_first = ow;
            c->obj_last = seg_last;
        }
        c->first = word_from(sp, v);
        c->last = c->obj_last != NONE ? c->obj_last : c->rel[c->n_rel ? c->n_rel - 1 : 0];
        if (c->first == NONE || c->n_rel == 0)
            d->n_c--;
        return;
    }
    /* a noun, then a participle or adjective that says something of it
     * (not one before another noun): "writes strided", a note */
    for (size_t t = 1; t < sp->n_tok; t++) {
        char p = sp->p.pos[t];
        size_t w = tok_word(sp, t);
        if (w == NONE || (p != 'v' && p != 'a'))
            continue;
        /* "gang scheduling", "bin packing", "data loading": a noun with an
         * -ing word after it names a thing, it says nothing of the noun */
        if (d->w[w].len > 4 && memcmp(dw_text(d, w) + d->w[w].len - 3, "ing", 3) == 0)
            break;
        char pp = sp->p.pos[t - 1];
        if (pp != 'n' && pp != '?' && pp != 's')
            break;
        bool attributive = false;
        for (size_t k = 0; k < sp->p.n_links; k++) {
            const struct grader_lg_link *l = &sp->p.link[k];
            if (l->l == t && l->r != GRADER_LG_WALL && (l->label[0] == 'A' || l->label[0] == 'O'))
                attributive = true; /* "complex cores", a verb with an object */
        }
        if (attributive)
            break;
        size_t nw = word_from(sp, 0);
        if (nw == NONE || nw >= w)
            break;
        struct dclause *c = new_clause(d, seg, CL_NOTE);
        if (!c)
            return;
        c->subj_first = nw;
        c->subj_last = tok_word(sp, t - 1);
        c->head = c->subj_last;
        size_t chain_end = read_chain(d, sp, t, c);
        size_t ow = word_from(sp, chain_end + 1);
        if (ow != NONE) {
            c->obj_first = ow;
            c->obj_last = seg_last;
        }
        c->first = nw;
        c->last = c->obj_last != NONE ? c->obj_last : c->rel[c->n_rel - 1];
        return;
    }
}

/* Does the parse read the segment's first word as a noun that heads a
 * subject (where a verb phrase without a subject would be misread)? */
static const char *const AUX[] = {
    "is",    "are",   "was",    "were",  "has",  "have", "had",   "can",  "cannot",
    "will",  "would", "should", "must",  "does", "do",   "did",   "may",  "might",
    "could", "isn",   "aren",   "doesn", "don",  "can",  "won",   "wasn", "weren",
    "hasn",  "haven", "needs",  "need",  "uses", "use",  "keeps", "keep", "gets"};
/* The pronoun a verb phrase gets for its re-parse: plural verbs "they". */
static const char *lead_pronoun(const struct grader_design *d, size_t w)
{
    static const char *const PLURAL[] = {"are",   "were", "have", "do",  "aren", "weren",
                                         "haven", "don",  "need", "use", "keep"};
    return w != NONE && WORD_IN(d, w, PLURAL) ? "they" : "it";
}

static bool verb_misread(const struct grader_design *d, const struct seg_parse *sp)
{
    if (sp->n_tok < 2 || !sp->p.linked)
        return !sp->p.linked;
    size_t w = sp->tok_word[0];
    if (w == NONE)
        return false;
    bool has_subject = false;
    for (size_t k = 0; k < sp->p.n_links; k++)
        has_subject |= subject_link(&sp->p.link[k]);
    if (!has_subject && WORD_IN(d, w, AUX))
        return true;
    if (d->w[w].len < 3)
        return false;
    const char *s = dw_text(d, w);
    if (s[d->w[w].len - 1] != 's' || sp->p.pos[0] == 'v')
        return false;
    for (size_t k = 0; k < sp->p.n_links; k++)
        if (subject_link(&sp->p.link[k]) && np_start(sp, sp->p.link[k].l, sp->p.link[k].r) == 0)
            return true;
    return false;
}

/* Verbs a design answer commands with ("Use shared memory tiles", "Pad
 * the tile"), which the grammar may take for the subject's noun when they
 * come first. */
static const char *const IMPERATIVE[] = {
    "use",       "map",      "load",       "stage",    "pad",       "tile",       "profile",
    "overlap",   "compress", "shard",      "batch",    "add",       "make",       "put",
    "keep",      "avoid",    "split",      "move",     "replace",   "store",      "read",
    "write",     "copy",     "fuse",       "launch",   "measure",   "check",      "run",
    "try",       "increase", "reduce",     "give",     "let",       "cache",      "prefetch",
    "schedule",  "allocate", "align",      "buy",      "rent",      "reserve",    "scale",
    "quantize",  "quantise", "prune",      "serve",    "route",     "assign",     "send",
    "broadcast", "combine",  "sum",        "average",  "partition", "place",      "build",
    "start",     "time",     "confirm",    "look",     "compare",   "switch",     "lower",
    "raise",     "double",   "halve",      "swap",     "transpose", "coalesce",   "group",
    "merge",     "restart",  "checkpoint", "shuffle",  "iterate",   "repeat",     "limit",
    "isolate",   "share",    "preempt",    "backfill", "queue",     "prioritise", "prioritize",
    "monitor",   "log",      "cap",        "set",      "pick",      "choose",     "plan"};

/* A command read as a noun phrase: the segment starts a sentence with one
 * of IMPERATIVE, and the parse puts that word in a subject. */
static bool imperative_misread(const struct grader_design *d, const struct seg_parse *sp)
{
    if (sp->n_tok < 2 || !sp->p.linked || sp->tok_word[0] == NONE)
        return false;
    size_t w = sp->tok_word[0];
    if (d->g[d->w[w].seg].sep != SEP_SENTENCE || !WORD_IN(d, w, IMPERATIVE))
        return false;
    for (size_t k = 0; k < sp->p.n_links; k++)
        if (subject_link(&sp->p.link[k]) && np_start(sp, sp->p.link[k].l, sp->p.link[k].r) == 0)
            return true;
    return false;
}

/* Parses segment `seg` (words first..first+n-1), putting a pronoun first
 * when `lead` is "it" (the pronoun that suits its verb) or "you". */
static int parse_seg(struct grader_design *d, size_t seg, const char *lead, struct seg_parse *sp,
                     struct core_err *err)
{
    bool lead_it = lead != NULL;
    const struct dseg *g = &d->g[seg];
    char bufs[GRADER_LG_MAX_TOKENS][GRADER_LG_MAX_TOKEN + 2];
    const char *toks[GRADER_LG_MAX_TOKENS];
    memset(sp, 0, sizeof *sp);
    sp->lead_it = lead_it;
    sp->lead_you = lead && strcmp(lead, "you") == 0;
    size_t n = 0, start = g->first;
    /* the words that join it to the clause before ("so", "and", "because",
     * "so that") say how, and are read from the words themselves: the
     * grammar reads the clause better without them */
    while (start + 1 < g->first + g->n && WORD_IN(d, start, LEAD))
        start++;
    if (start > g->first && grader_design_word_is(d, start, "that") && start + 1 < g->first + g->n)
        start++;
    if (lead_it) {
        toks[n] = sp->lead_you ? "you" : lead_pronoun(d, start);
        sp->tok_word[n++] = NONE;
    }
    for (size_t i = start; i < g->first + g->n && n < GRADER_LG_MAX_TOKENS; i++) {
        const char *t = grammar_token(d, i, bufs[n], sizeof bufs[n]);
        if (!t)
            continue;
        /* after the pronoun put first, "Use" is no proper noun */
        if (lead_it && n == 1 && t[0] >= 'A' && t[0] <= 'Z' && t[1] >= 'a' && t[1] <= 'z') {
            if (t != bufs[n])
                snprintf(bufs[n], sizeof bufs[n], "%s", t);
            bufs[n][0] = (char)(bufs[n][0] + 32);
            t = bufs[n];
        }
        toks[n] = t;
        sp->tok_word[n++] = i;
    }
    sp->n_tok = n;
    bool question = d->s[g->sentence].question;
    int rc = grader_lg_parse(toks, n, question, &sp->p, err);
    d->parsed_words += n;
    return rc;
}

/* ---- the answer ----------------------------------------------------------------- */

/* Does word i look like a word of the rubric (known)? Whole, by a stem of
 * 4 letters or more that the word starts with, or misspelt. */
static bool is_term(struct grader_design *d, size_t i, struct grader_design_known *known)
{
    if (!known)
        return false;
    const char *s = dw_text(d, i);
    size_t len = d->w[i].len;
    if (len < 2 || grader_design_function_word(s, len))
        return false;
    if (grader_design_known_has(known, s))
        return true;
    for (size_t k = 0; k < known->n; k++) {
        const char *kw = known->words[k];
        size_t kl = strlen(kw);
        if (len >= kl && memcmp(s, kw, kl) == 0 &&
            (kl >= 4 || strcmp(s + kl, "s") == 0 || strcmp(s + kl, "es") == 0))
            return true;
        if (kl >= 7 && s[0] == kw[0] &&
            core_str_edits(s, len, kw, kl, kl >= 10 ? 2 : 1) <= (kl >= 10 ? 2u : 1u))
            return true;
    }
    return false;
}

/* Is word i part of the question's vocabulary (or the rubric's)? */
static bool in_vocab(struct grader_design *d, size_t i, struct grader_design_known *vocab)
{
    if (!vocab)
        return true;
    if (d->w[i].term)
        return true;
    const char *s = dw_text(d, i);
    size_t len = d->w[i].len;
    if (grader_design_known_has(vocab, s))
        return true;
    /* a plural or a stem: "GPUs" for "GPU", "tiled" for "tile" */
    for (size_t k = 0; k < vocab->n; k++) {
        const char *kw = vocab->words[k];
        size_t kl = strlen(kw), m = 0;
        while (m < kl && m < len && kw[m] == s[m])
            m++;
        if (m >= 5 || (m == kl && kl >= 3 && len <= kl + 3) ||
            (m == len && len >= 3 && kl <= len + 3))
            return true;
    }
    return false;
}

/* Content words of words[a..b] (not function words, not digits-only). */
static bool range_in_vocab(struct grader_design *d, size_t a, size_t b,
                           struct grader_design_known *vocab, bool *any)
{
    if (a == NONE || b == NONE)
        return false;
    bool hit = false;
    for (size_t i = a; i <= b && i < d->n_w; i++) {
        if (d->w[i].len < 3 || grader_design_function_word(dw_text(d, i), d->w[i].len) ||
            WORD_IN(d, i, PRONOUN) || WORD_IN(d, i, PERSON))
            continue;
        *any = true;
        hit |= in_vocab(d, i, vocab);
    }
    return hit;
}

/* The clause before clause k in the same sentence (or in the sentence
 * before, for a pronoun), or NONE. */
static size_t clause_before(const struct grader_design *d, size_t k, bool cross_sentence)
{
    size_t s = d->g[d->c[k].seg].sentence;
    for (size_t j = k; j-- > 0;) {
        size_t sj = d->g[d->c[j].seg].sentence;
        if (sj != s && (!cross_sentence || sj + 1 < s))
            return NONE;
        if (d->c[j].subj_first != NONE || d->c[j].ante_first != NONE)
            return j;
    }
    return NONE;
}

/* Sets clause k's antecedent to what clause j's subject stands for. */
static void take_subject(struct grader_design *d, size_t k, size_t j)
{
    const struct dclause *cj = &d->c[j];
    d->c[k].from = j;
    bool pron = cj->head != NONE && WORD_IN(d, cj->head, PRONOUN) && cj->ante_first != NONE;
    d->c[k].ante_first = pron || cj->subj_first == NONE ? cj->ante_first : cj->subj_first;
    d->c[k].ante_last = pron || cj->subj_first == NONE                   ? cj->ante_last
                        : cj->head != NONE && cj->head >= cj->subj_first ? cj->head
                                                                         : cj->subj_last;
}

/* Words after the clause (in the segment's sentence) up to the next
 * clause: a relative's noun is the last noun before it. */
static size_t last_noun_before(const struct grader_design *d, size_t w)
{
    size_t s = d->w[w].sentence;
    for (size_t i = w; i-- > 0 && d->w[i].sentence == s;)
        if (d->w[i].len >= 3 && !grader_design_function_word(dw_text(d, i), d->w[i].len) &&
            !WORD_IN(d, i, PRONOUN))
            return i;
    return NONE;
}

/* After every segment is read: shared subjects, pronouns, labels, arrows,
 * conditions, governors, padding. */
static void connect(struct grader_design *d, struct grader_design_known *vocab)
{
    /* notes' labels: "GPU: built for throughput" */
    for (size_t gi = 0; gi < d->n_g; gi++) {
        struct dseg *g = &d->g[gi];
        if (g->sep != SEP_SENTENCE || g->n_clauses || g->n > 4 || gi + 1 >= d->n_g)
            continue;
        struct dseg *h = &d->g[gi + 1];
        if (h->sentence != g->sentence || h->sep != SEP_COLON)
            continue;
        for (size_t k = 0; k < d->n_c; k++) {
            struct dclause *c = &d->c[k];
            if (d->g[c->seg].sentence == g->sentence && c->seg > gi && c->subj_first == NONE) {
                c->ante_first = g->first;
                c->ante_last = g->first + g->n - 1;
                if (c->kind == CL_IMPERATIVE)
                    c->kind = CL_SHARED;
            }
        }
    }
    for (size_t k = 0; k < d->n_c; k++) {
        struct dclause *c = &d->c[k];
        if (c->ante_first != NONE)
            continue;
        if (c->kind == CL_SHARED) {
            size_t j = clause_before(d, k, false);
            if (j != NONE)
                take_subject(d, k, j);
        } else if (c->head != NONE && WORD_IN(d, c->head, PRONOUN)) {
            if (WORD_IN(d, c->head, RELATIVE) && c->head == c->subj_first) {
                size_t n = last_noun_before(d, c->head);
                if (n != NONE) {
                    size_t a = n;
                    while (a > 0 && d->w[a - 1].sentence == d->w[n].sentence &&
                           d->w[a - 1].seg == d->w[n].seg && n - a < 3 &&
                           !grader_design_function_word(dw_text(d, a - 1), d->w[a - 1].len))
                        a--;
                    c->ante_first = a;
                    c->ante_last = n;
                }
            } else {
                size_t j = clause_before(d, k, true);
                if (j != NONE)
                    take_subject(d, k, j);
            }
        }
    }
    /* a verb phrase sharing nothing: the student's own ("..., overlap the
     * all-reduce with the backward pass") when nothing else came before or
     * the clause before was */
    for (size_t k = 0; k < d->n_c; k++) {
        struct dclause *c = &d->c[k];
        if (c->kind != CL_SHARED || c->ante_first != NONE)
            continue;
        size_t s = d->g[c->seg].sentence;
        bool before = false, imperative = false;
        for (size_t j = 0; j < k; j++)
            if (d->g[d->c[j].seg].sentence == s) {
                before = true;
                imperative = d->c[j].kind == CL_IMPERATIVE;
            }
        if (!before || imperative)
            c->kind = CL_IMPERATIVE;
    }
    /* a list of terms: most segments of the sentence are no clause; its verb
     * phrases without a subject are terms too ("profiling, overlap
     * communication, tiles") */
    for (size_t s = 0; s < d->n_s; s++) {
        size_t segs = 0, bare = 0;
        bool prose = false; /* a clause of four words or more: the rest elaborates it */
        for (size_t gi = 0; gi < d->n_g; gi++) {
            if (d->g[gi].sentence != s)
                continue;
            segs++;
            bool clause = false;
            for (size_t k = 0; k < d->n_c; k++)
                if (d->c[k].seg == gi) {
                    clause = true;
                    prose |= d->c[k].kind == CL_FULL && d->g[gi].n >= 4;
                }
            bare += !clause;
        }
        if (segs < 3 || bare * 2 <= segs || prose)
            continue;
        d->s[s].list = true;
        for (size_t k = 0; k < d->n_c; k++)
            if (d->g[d->c[k].seg].sentence == s &&
                (d->c[k].kind != CL_FULL || d->g[d->c[k].seg].n <= 3))
                d->c[k].listed = true;
    }
    /* a run of the rubric's terms strung with function words ("the tile
     * of tiles is tiled to tiling"): the grammar may find a clause in it,
     * but it says nothing. Its words are nearly all terms, or one stem
     * comes back three times. */
    for (size_t k = 0; k < d->n_c; k++) {
        struct dclause *c = &d->c[k];
        if (c->first == NONE || c->last == NONE)
            continue;
        size_t content = 0, terms = 0, repeat = 0;
        for (size_t i = c->first; i <= c->last && i < d->n_w; i++) {
            if (d->w[i].len < 3 || grader_design_function_word(dw_text(d, i), d->w[i].len))
                continue;
            content++;
            terms += d->w[i].term;
            size_t same = 0;
            for (size_t j = c->first; j <= c->last && j < d->n_w; j++)
                if (d->w[j].len >= 4 && d->w[i].len >= 4 &&
                    memcmp(dw_text(d, i), dw_text(d, j), 4) == 0)
                    same++;
            if (same > repeat)
                repeat = same;
        }
        if (repeat >= 3)
            c->listed = true;
        /* a subject whose verb comes more than FAR_VERB words after its
         * head: the grammar strung a run of words together */
        if (c->kind == CL_FULL && c->head != NONE && c->n_rel && c->rel[0] > c->head + FAR_VERB)
            c->listed = true;
    }
    /* arrows: "A -> B" where A has no clause, or B none */
    for (size_t gi = 1; gi < d->n_g; gi++) {
        struct dseg *g = &d->g[gi], *a = &d->g[gi - 1];
        if (g->sep != SEP_ARROW || a->sentence != g->sentence)
            continue;
        /* the left side: a's subject when a is a clause, else its words */
        size_t lf = a->first, ll = a->first + a->n - 1;
        for (size_t k = 0; k < d->n_c; k++)
            if (d->c[k].seg == gi - 1 && d->c[k].subj_first != NONE) {
                lf = d->c[k].subj_first;
                ll = d->c[k].subj_last;
                break;
            }
        /* "GPU -> hides latency": the verb phrase's subject is the left side */
        bool shared = false;
        for (size_t k = 0; k < d->n_c; k++)
            if (d->c[k].seg == gi && d->c[k].subj_first == NONE) {
                d->c[k].ante_first = lf;
                d->c[k].ante_last = ll;
                if (d->c[k].kind == CL_IMPERATIVE)
                    d->c[k].kind = CL_SHARED;
                shared = true;
            }
        if (shared || g->n_clauses)
            continue;
        struct dclause *c = new_clause(d, gi, CL_ARROW);
        if (!c)
            return;
        c->subj_first = lf;
        c->subj_last = ll;
        c->head = ll;
        c->obj_first = g->first;
        c->obj_last = g->first + g->n - 1;
        c->first = g->first;
        c->last = c->obj_last;
    }
    /* per clause: conditions, governors, padding */
    for (size_t k = 0; k < d->n_c; k++) {
        struct dclause *c = &d->c[k];
        const struct dseg *g = &d->g[c->seg];
        size_t s = g->sentence;
        /* the words before the clause in its segment, and the segment's first */
        size_t lead = g->first;
        if (WORD_IN(d, lead, HEDGE) ||
            (grader_design_word_is(d, lead, "what") && grader_design_word_is(d, lead + 1, "if")))
            c->hedged = true;
        if (grader_design_word_is(d, lead, "so") && grader_design_word_is(d, lead + 1, "that"))
            c->result = true;
        if (grader_design_word_is(d, lead, "otherwise")) /* what would happen */
            c->result = true;
        if (grader_design_word_is(d, lead, "in") && grader_design_word_is(d, lead + 1, "order"))
            c->result = true;
        /* a counterfactual: a modal in a sentence with a condition says what
         * would happen (credit, never a contradiction: "If instead threadIdx.x
         * indexed the rows, a warp would read down a column") */
        bool cond = false;
        for (size_t gi = 0; gi < d->n_g; gi++)
            if (d->g[gi].sentence == s && WORD_IN(d, d->g[gi].first, HEDGE))
                cond = true;
        if (cond && !c->hedged)
            for (size_t r = 0; r < c->n_rel; r++)
                if (WORD_IN(d, c->rel[r], MODAL))
                    c->result = true;
        /* A clause inside another (its subject after the other's verb, in
         * one segment: "it is a myth that GPUs hide latency", "my cat likes
         * the speedup is 5.5x") says what its governing word makes of it:
         * denied, supposed, or asserted. A relative clause ("cores that run
         * warps") describes, so it asserts; any other governor only reports
         * it. */
        size_t sf = c->subj_first != NONE ? c->subj_first : c->first;
        bool embedded = false;
        for (size_t j = 0; j < k; j++)
            if (d->c[j].seg == c->seg && d->c[j].kind == CL_FULL)
                embedded = true;
        for (size_t i = g->first; sf != NONE && i < sf; i++)
            if (grader_design_word_is(d, i, "that") || grader_design_word_is(d, i, "whether"))
                embedded = true;
        if (sf != NONE && c->kind == CL_FULL && embedded) {
            size_t gov = NONE;
            bool that = false;
            for (size_t i = sf; i-- > g->first;) {
                if (grader_design_word_is(d, i, "that") || grader_design_word_is(d, i, "whether")) {
                    that = true;
                    if (grader_design_word_is(d, i, "whether"))
                        c->hedged = true;
                    continue;
                }
                if (grader_design_function_word(dw_text(d, i), d->w[i].len) &&
                    !WORD_IN(d, i, DENY) && !WORD_IN(d, i, HEDGE) && !WORD_IN(d, i, ASSERT))
                    continue;
                if (WORD_IN(d, i, LEAD))
                    continue;
                gov = i;
                break;
            }
            bool relative =
                c->head != NONE && c->head == c->subj_first && WORD_IN(d, c->head, RELATIVE);
            /* "the stragglers that every iteration waits for": a relative
             * clause whose object is the noun before "that" — it describes,
             * and that noun is its object */
            bool object_relative = false;
            if (gov != NONE && that && sf > 0 && !WORD_IN(d, gov, DENY) &&
                !WORD_IN(d, gov, HEDGE) && !WORD_IN(d, gov, ASSERT) &&
                grader_design_word_is(d, sf - 1, "that") && gov + 1 == sf - 1 &&
                gov_is_noun(d, gov)) {
                object_relative = true;
                c->oref = gov;
            }
            if (gov != NONE && !relative && !object_relative) {
                if (WORD_IN(d, gov, DENY))
                    c->denied = !c->denied;
                else if (WORD_IN(d, gov, HEDGE))
                    c->hedged = true;
                else if (!WORD_IN(d, gov, ASSERT))
                    c->hedged = true; /* reported, not claimed */
            }
            (void)that;
        }
        /* padding: nothing of the question in subject, verb or object (a
         * rubric's verb is the question's: "we shard the keys") */
        bool any = false;
        bool hit = range_in_vocab(d, c->subj_first, c->subj_last, vocab, &any) ||
                   range_in_vocab(d, c->obj_first, c->obj_last, vocab, &any) ||
                   range_in_vocab(d, c->ante_first, c->ante_last, vocab, &any);
        for (size_t r = 0; r < c->n_rel && !hit; r++)
            hit = range_in_vocab(d, c->rel[r], c->rel[r], vocab, &any) && d->w[c->rel[r]].term;
        c->padding = any && !hit;
        bool sany = false;
        bool shit = range_in_vocab(d, c->subj_first, c->subj_last, vocab, &sany) ||
                    range_in_vocab(d, c->ante_first, c->ante_last, vocab, &sany);
        c->subj_off = sany && !shit;
        if (c->padding)
            d->padding_clauses++;
    }
}

#define EXTEND_WORDS 24 /* words an object may grow by after its clause */
#define JOINED_WORDS 8  /* "..., and high memory bandwidth": a short noun phrase */

/* A segment with no clause of its own after one that has (a parenthesis,
 * a list after a colon, an apposition) adds to that clause's object. */
static void extend_objects(struct grader_design *d)
{
    for (size_t gi = 1; gi < d->n_g; gi++) {
        struct dseg *g = &d->g[gi];
        /* "..., and high memory bandwidth": a noun phrase joined by and/or too */
        bool joined =
            g->sep == SEP_WORD && g->n <= JOINED_WORDS &&
            (grader_design_word_is(d, g->first, "and") || grader_design_word_is(d, g->first, "or"));
        /* only what punctuation (or "and") attaches; a run cut for length
         * or a line of its own is no object of anything */
        if (g->n_clauses || g->sep == SEP_SENTENCE || (g->sep == SEP_WORD && !joined) ||
            g->sep == SEP_ARROW || g->sep == SEP_LINE || g->sep == SEP_CUT ||
            d->s[g->sentence].list)
            continue;
        size_t last = NONE;
        for (size_t k = 0; k < d->n_c; k++)
            if (d->g[d->c[k].seg].sentence == g->sentence && d->c[k].seg < gi &&
                d->c[k].kind != CL_ARROW)
                last = k;
        if (last == NONE)
            continue;
        struct dclause *c = &d->c[last];
        size_t own_end = c->obj_last != NONE ? c->obj_last : c->last;
        if (own_end != NONE && g->first + g->n - 1 > own_end + EXTEND_WORDS)
            continue; /* no more than a short list after it */
        if (c->obj_first == NONE)
            c->obj_first = g->first;
        c->obj_last = g->first + g->n - 1;
        c->last = c->obj_last;
    }
}

int grader_design_read(struct grader_design *d, struct grader_design_known *known,
                       struct grader_design_known *vocab, size_t budget, struct core_err *err)
{
    if (d->read)
        return CORE_OK;
    d->read = true;
    for (size_t i = 0; i < d->n_w; i++)
        d->w[i].term = is_term(d, i, known);
    mark_nouns(d, known);
    for (size_t gi = 0; gi < d->n_g && !d->oom; gi++) {
        struct dseg *g = &d->g[gi];
        bool has = false;
        for (size_t i = g->first; i < g->first + g->n; i++)
            has |= d->w[i].term;
        /* a note's label (before a colon) and an arrow's left side are read
         * with what follows them */
        if (!has && gi + 1 < d->n_g && d->g[gi + 1].sentence == g->sentence &&
            (d->g[gi + 1].sep == SEP_COLON || d->g[gi + 1].sep == SEP_ARROW))
            for (size_t i = d->g[gi + 1].first; i < d->g[gi + 1].first + d->g[gi + 1].n; i++)
                has |= d->w[i].term;
        if (!has || g->n < 2) /* one word is a term, never a clause */
            continue;
        if (d->parsed_words + g->n > budget) {
            d->unread_words += g->n;
            continue;
        }
        struct seg_parse sp;
        int rc = parse_seg(d, gi, NULL, &sp, err);
        if (rc)
            return rc;
        /* a verb phrase without a subject, misread ("hides latency" as a
         * plural noun, "Use shared memory" as a subject): parse it again with
         * a subject put first, "it" or "you", and keep that when the pronoun
         * links as the subject without leaving more words out */
        const char *lead = verb_misread(d, &sp) ? "it" : imperative_misread(d, &sp) ? "you" : NULL;
        if (lead && g->n >= 2 && d->parsed_words + g->n <= budget) {
            struct seg_parse sp2;
            rc = parse_seg(d, gi, lead, &sp2, err);
            if (rc)
                return rc;
            bool it_subject = false;
            for (size_t k = 0; k < sp2.p.n_links; k++)
                if (subject_link(&sp2.p.link[k]) && sp2.p.link[k].l == 0)
                    it_subject = true;
            if (sp2.p.linked && it_subject && sp2.p.nulls <= sp.p.nulls)
                sp = sp2;
        }
        /* a name of the rubric spelt with spaces ("the all reduce overlaps
         * ...") the grammar could not read: again with it as one word */
        bool names = false;
        for (size_t i = g->first; i + 1 < g->first + g->n; i++)
            names |= d->w[i].njoin && !hyphen_joined(d, i, i + 1);
        if (names && (!sp.p.linked || sp.p.nulls > 0) && d->parsed_words + g->n <= budget) {
            struct seg_parse sp2;
            d->guard_nouns = true;
            rc = parse_seg(d, gi, NULL, &sp2, err);
            d->guard_nouns = false;
            if (rc)
                return rc;
            if (sp2.p.linked && (!sp.p.linked || sp2.p.nulls < sp.p.nulls))
                sp = sp2;
        }
        g->parsed = true;
        g->linked = sp.p.linked;
        size_t before = d->n_c;
        if (sp.p.linked)
            read_parse(d, gi, &sp);
        g->clause0 = before;
        g->n_clauses = d->n_c - before;
    }
    if (d->oom)
        return CORE_ERR_LIMIT;
    connect(d, vocab);
    extend_objects(d);
    /* a range that ends at a compound's first word (the grammar's one
     * token) ends at its last */
    for (size_t k = 0; k < d->n_c; k++) {
        struct dclause *c = &d->c[k];
        c->subj_last = grader_design_compound_end(d, c->subj_last);
        c->obj_last = grader_design_compound_end(d, c->obj_last);
        c->ante_last = grader_design_compound_end(d, c->ante_last);
        c->agent_last = grader_design_compound_end(d, c->agent_last);
        c->last = grader_design_compound_end(d, c->last);
    }
    /* sentences without a function word (the words of a hyphenated
     * compound do not count: "all-reduce"): a phrase there is named, not
     * claimed (FORMAT.md, rule 2) */
    for (size_t si = 0; si < d->n_s; si++) {
        struct dsentence *s = &d->s[si];
        s->bare = true;
        for (size_t i = s->first; i < s->first + s->n && s->bare; i++) {
            bool compound = (i > s->first && hyphen_joined(d, i - 1, i)) ||
                            (i + 1 < s->first + s->n && hyphen_joined(d, i, i + 1));
            if (!compound && grader_design_function_word(dw_text(d, i), d->w[i].len))
                s->bare = false;
        }
    }
    /* words to clauses; sentences with an asserted clause are claims */
    for (size_t k = 0; k < d->n_c; k++) {
        const struct dclause *c = &d->c[k];
        if (c->first == NONE || c->last == NONE)
            continue;
        for (size_t i = c->first; i <= c->last && i < d->n_w; i++)
            if (d->w[i].clause == NONE || c->kind != CL_ARROW)
                d->w[i].clause = k;
        d->clause_words += c->last - c->first + 1;
        if (!c->question && !c->hedged && !c->padding && !c->listed)
            d->s[d->g[c->seg].sentence].claim = true;
    }
    return d->oom ? CORE_ERR_LIMIT : CORE_OK;
}

/* ---- what was read, for the evidence ------------------------------------------------ */

/* Appends the words a..b as written (joined by single spaces) to buf. */
static void put_words(const struct grader_design *d, size_t a, size_t b, char *buf, size_t n)
{
    size_t len = strlen(buf);
    if (a == NONE || b == NONE || a > b)
        return;
    for (size_t i = a; i <= b && i < d->n_w && len + 1 < n; i++) {
        const struct dword *w = &d->w[i];
        if (len && len + 1 < n)
            buf[len++] = ' ';
        size_t m = w->src_len < n - 1 - len ? w->src_len : n - 1 - len;
        memcpy(buf + len, d->src + w->src_at, m);
        len += m;
        buf[len] = '\0';
    }
}

void grader_design_clause_text(const struct grader_design *d, size_t k,
                               struct grader_design_clause_text *t)
{
    memset(t, 0, sizeof *t);
    const struct dclause *c = &d->c[k];
    if (c->first != NONE && c->last != NONE && c->last < d->n_w) {
        size_t a = d->w[c->first].src_at, b = d->w[c->last].src_at + d->w[c->last].src_len;
        size_t m = b - a < sizeof t->clause - 1 ? b - a : sizeof t->clause - 1;
        memcpy(t->clause, d->src + a, m);
        t->clause[m] = '\0';
        for (char *p = t->clause; *p; p++)
            if (*p == '\n' || *p == '\r' || *p == '\t')
                *p = ' ';
    }
    put_words(d, c->subj_first, c->subj_last, t->subject, sizeof t->subject);
    if (c->ante_first != NONE) {
        if (t->subject[0])
            snprintf(t->subject + strlen(t->subject), sizeof t->subject - strlen(t->subject), " =");
        put_words(d, c->ante_first, c->ante_last, t->subject, sizeof t->subject);
    }
    if (c->kind == CL_ARROW)
        snprintf(t->relation, sizeof t->relation, "->");
    for (size_t r = 0; r < c->n_rel; r++)
        put_words(d, c->rel[r], c->rel[r], t->relation, sizeof t->relation);
    put_words(d, c->obj_first, c->obj_last, t->object, sizeof t->object);
    if (c->subj_first == NONE && c->ante_first != NONE) {
        put_words(d, c->ante_first, c->ante_last, t->lead, sizeof t->lead);
        /* "... should then get close": the shared modal goes with it */
        const struct dclause *f = c->from != NONE ? &d->c[c->from] : NULL;
        for (size_t r = 0; f && r + 1 < f->n_rel; r++)
            if (WORD_IN(d, f->rel[r], MODAL_AUX))
                put_words(d, f->rel[r], f->rel[r], t->lead, sizeof t->lead);
    } else if (c->subj_first == NONE)
        snprintf(t->lead, sizeof t->lead, "you should"); /* an imperative's subject */
}
