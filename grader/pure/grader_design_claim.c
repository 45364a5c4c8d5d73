/*
 * grader_design_claim.c — reading a design answer, part three: a rubric's
 * claims ("who does what": subject, relation, object) looked up in the
 * clauses grader_design_read.c found, and the claims that contradict them.
 *
 * A claim holds in a clause when each slot it gives is found in its role:
 *   - subject: in the clause's subject, or in what a pronoun or a shared
 *     subject stands for; a passive's "by" phrase is the subject and its
 *     grammatical subject the object ("latency is hidden by the GPU");
 *   - relation: in the verb group (verbs, participles, a predicate
 *     adjective); after a bare copula ("the writes are a strided pattern")
 *     also in the rest of the predicate; an arrow ("GPU -> throughput")
 *     stands for any relation, and a claim without an object finds its
 *     relation on the arrow's right side ("writes -> strided");
 *   - object: in the rest of the predicate.
 * A slot not given matches anything, but a claim without a subject does not
 * hold in a clause whose subject is off the question ("My cat profiles the
 * kernel"): the reader marks such clauses as padding.
 *
 * The same declaration gives the contradiction: the claim with its
 * relation negated (the negators before the last matched word, or a
 * predicate that denies the clause: "it is a myth that", "fail to"), with
 * subject and object swapped, or with one slot said by an antonym
 * (`antonyms`: "GPUs are built for latency" against "GPUs are built for
 * throughput"). Each of these flips the claim; two flips cancel ("CPUs are
 * built for latency" says nothing against GPUs, and "GPUs are not built for
 * latency" agrees). A contradiction needs an asserted clause: questions,
 * conditions and counterfactuals, goals and results never contradict.
 *
 * Pure C over the design's words and clauses.
 */
#include "grader_design_internal.h"

#include <string.h>

static const char *const COPULA[] = {"is", "are", "was", "were",   "be",      "been", "being",
                                     "am", "s",   "re",  "remain", "remains", "stay", "stays"};

static const char *const AUXILIARY[] = {
    "is",   "are",   "was", "were",  "be",   "been",   "being", "am",    "has",
    "have", "had",   "do",  "does",  "did",  "will",   "would", "shall", "should",
    "can",  "could", "may", "might", "must", "cannot", "get",   "gets",  "got"};

/* Does one of the slot's phrases occur within words a..b? Returns its first
 * word, or NONE. `skip`: a word the phrase must not start at (the one the
 * relation took). */
static size_t slot_in_n(const struct grader_design *d, const struct grader_claim_slot *sl, size_t a,
                        size_t b, bool fuzzy, struct grader_design_known *known, size_t skip,
                        size_t *words)
{
    if (a == NONE || b == NONE || a > b)
        return NONE;
    for (size_t t = 0; t < sl->n; t++) {
        char buf[GRADER_DESIGN_MAX_PHRASE + DESIGN_MAX_PHRASE_WORDS + 1];
        struct grader_pword pw[DESIGN_MAX_PHRASE_WORDS];
        if (!sl->terms[t] || strlen(sl->terms[t]) > GRADER_DESIGN_MAX_PHRASE)
            continue;
        size_t np = grader_design_phrase_words(sl->terms[t], buf, pw, DESIGN_MAX_PHRASE_WORDS);
        for (size_t i = a; np && i + np - 1 <= b && i < d->n_w; i++) {
            if (i == skip)
                continue;
            size_t k = 0;
            while (k < np && grader_design_word_match(d, i + k, &pw[k], fuzzy, known))
                k++;
            if (k == np) {
                if (words)
                    *words = np;
                return i;
            }
        }
    }
    return NONE;
}

static size_t slot_in(const struct grader_design *d, const struct grader_claim_slot *sl, size_t a,
                      size_t b, bool fuzzy, struct grader_design_known *known, size_t skip)
{
    return slot_in_n(d, sl, a, b, fuzzy, known, skip, NULL);
}

/* Is word w one of the clause's verb group? */
static size_t rel_match(const struct grader_design *d, const struct dclause *c,
                        const struct grader_claim_slot *sl, bool fuzzy,
                        struct grader_design_known *known)
{
    for (size_t r = 0; r < c->n_rel; r++) {
        /* an auxiliary before the verb it helps is not the relation: "are"
         * in "are dominated", "would" in "would hide" */
        if (r + 1 < c->n_rel && DESIGN_WORD_IN(d, AUXILIARY, c->rel[r]))
            continue;
        size_t m = slot_in(d, sl, c->rel[r], c->rel[r], fuzzy, known, NONE);
        if (m != NONE)
            return m;
    }
    /* a phrase of several words over the whole group ("is built"), and on
     * to the end of a hyphenated compound the group ends in: "are
     * memory-bound" is read as the verb "are" and the noun "memory" */
    size_t last = c->n_rel ? c->rel[c->n_rel - 1] : NONE;
    while (last != NONE && last + 1 < d->n_w && d->w[last + 1].seg == d->w[last].seg &&
           d->w[last].src_at + d->w[last].src_len + 1 == d->w[last + 1].src_at &&
           d->src[d->w[last].src_at + d->w[last].src_len] == '-')
        last++;
    if (c->n_rel > 1 || (last != NONE && last > c->rel[c->n_rel - 1])) {
        struct grader_claim_slot multi = {.n = 0};
        for (size_t t = 0; t < sl->n; t++)
            if (sl->terms[t] && strpbrk(sl->terms[t], " -"))
                multi.terms[multi.n++] = sl->terms[t];
        size_t m = slot_in(d, &multi, c->rel[0], last, fuzzy, known, NONE);
        if (m != NONE)
            return m;
    }
    return NONE;
}

/* A copula first and no passive: "X is Y", "GPUs are good at matrix
 * multiplication" say the same read either way round. */
/* Verbs that say the same read either way round: "matrix multiplication
 * suits this design" is "this design suits matrix multiplication". */
static const char *const SYMMETRIC[] = {"suit",  "suits",    "suited",   "fit",
                                        "fits",  "match",    "matches",  "pair",
                                        "pairs", "resemble", "resembles"};

static bool copular(const struct grader_design *d, const struct dclause *c)
{
    return c->n_rel > 0 && !c->passive &&
           (DESIGN_WORD_IN(d, COPULA, c->rel[0]) || DESIGN_WORD_IN(d, SYMMETRIC, c->rel[0]));
}

static bool bare_copula(const struct grader_design *d, const struct dclause *c)
{
    for (size_t r = 0; r < c->n_rel; r++)
        if (!DESIGN_WORD_IN(d, COPULA, c->rel[r]))
            return false;
    return c->n_rel > 0;
}

/* The roles of a clause: where the subject and the object are read. */
struct roles {
    size_t s1a, s1b, s2a, s2b; /* subject: two ranges (as written, and what it stands for) */
    size_t oa, ob, o2a, o2b;   /* object: two ranges (a passive's subject comes second) */
    size_t o3;                 /* a relative clause's own noun */
};

static void clause_roles(const struct grader_design *d, const struct dclause *c, struct roles *r)
{
    /* the subject is its head and what comes before it ("the GPU
     * scheduler"), not its post-modifiers ("the throughput of GPUs", "the
     * neighbour that paints GPUs") */
    r->s1a = c->subj_first;
    r->s1b = c->head != NONE && c->head >= c->subj_first && c->head <= c->subj_last
                 ? grader_design_compound_end(d, c->head)
                 : c->subj_last;
    r->s2a = c->ante_first;
    r->s2b = c->ante_last;
    r->oa = c->obj_first;
    r->ob = c->obj_last;
    r->o2a = r->o2b = NONE;
    r->o3 = c->oref;
    if (c->passive && c->agent_first != NONE) {
        r->s1a = c->agent_first;
        r->s1b = c->agent_last;
        r->s2a = r->s2b = NONE;
        r->o2a = c->subj_first;
        r->o2b = c->subj_last;
        if (c->ante_first != NONE) {
            r->o2a = c->ante_first;
            r->o2b = c->ante_last;
        }
    }
}

static size_t in_subject(const struct grader_design *d, const struct roles *r,
                         const struct grader_claim_slot *sl, bool fuzzy,
                         struct grader_design_known *known)
{
    size_t m = slot_in(d, sl, r->s1a, r->s1b, fuzzy, known, NONE);
    return m != NONE ? m : slot_in(d, sl, r->s2a, r->s2b, fuzzy, known, NONE);
}

static size_t in_object(const struct grader_design *d, const struct roles *r,
                        const struct grader_claim_slot *sl, bool fuzzy,
                        struct grader_design_known *known, size_t skip)
{
    size_t m = slot_in(d, sl, r->oa, r->ob, fuzzy, known, skip);
    if (m == NONE)
        m = slot_in(d, sl, r->o2a, r->o2b, fuzzy, known, skip);
    return m != NONE ? m : slot_in(d, sl, r->o3, r->o3, fuzzy, known, skip);
}

/* One reading of a clause against the claim: each given slot found
 * directly (0), by an antonym (1), or not (-1). */
struct reading {
    int flips;   /* antonyms used, plus one when swapped */
    size_t last; /* the last word matched (where negation is counted) */
    bool ok;
    size_t at[3]; /* the first word each slot matched (subject, relation, object), NONE */
};

/* Tries slot `which` (0 subject, 1 relation, 2 object) as written and by
 * its antonyms; returns the word matched or NONE, and adds to flips. */
typedef size_t (*finder)(const struct grader_design *, const struct dclause *, const struct roles *,
                         const struct grader_claim_slot *, bool, struct grader_design_known *,
                         size_t);

static size_t find_subject(const struct grader_design *d, const struct dclause *c,
                           const struct roles *r, const struct grader_claim_slot *sl, bool fuzzy,
                           struct grader_design_known *known, size_t skip)
{
    (void)c;
    (void)skip;
    return in_subject(d, r, sl, fuzzy, known);
}

static size_t find_object(const struct grader_design *d, const struct dclause *c,
                          const struct roles *r, const struct grader_claim_slot *sl, bool fuzzy,
                          struct grader_design_known *known, size_t skip)
{
    (void)c;
    return in_object(d, r, sl, fuzzy, known, skip);
}

static size_t find_relation(const struct grader_design *d, const struct dclause *c,
                            const struct roles *r, const struct grader_claim_slot *sl, bool fuzzy,
                            struct grader_design_known *known, size_t skip)
{
    (void)skip;
    size_t m = rel_match(d, c, sl, fuzzy, known);
    if (m == NONE && bare_copula(d, c) && c->obj_first != NONE) {
        /* after a bare copula the predicate's first word says what the
         * subject is ("the writes are (mostly) strided", "... a strided
         * pattern"), not any word further on */
        size_t end = c->obj_first;
        while (end < c->obj_last && end < d->n_w &&
               (grader_design_function_word(dw_text(d, end), d->w[end].len) ||
                (d->w[end].len > 3 && dw_text(d, end)[d->w[end].len - 2] == 'l' &&
                 dw_text(d, end)[d->w[end].len - 1] == 'y')))
            end++;
        m = slot_in(d, sl, c->obj_first, end, fuzzy, known, NONE);
    }
    return m;
}

static bool try_slot(const struct grader_design *d, const struct dclause *c, const struct roles *r,
                     const struct grader_claim_slot *direct, const struct grader_claim_slot *anti,
                     finder f, bool fuzzy, struct grader_design_known *known, size_t skip,
                     struct reading *rd, size_t *at)
{
    if (direct->n == 0) {
        *at = NONE;
        return true;
    }
    size_t m = f(d, c, r, direct, fuzzy, known, skip);
    if (m == NONE && anti->n) {
        m = f(d, c, r, anti, fuzzy, known, skip);
        if (m != NONE)
            rd->flips++;
    }
    *at = m;
    if (m != NONE && (rd->last == NONE || m > rd->last))
        rd->last = m;
    return m != NONE;
}

/* Reads clause c against the claim, roles as declared (swap false) or
 * subject and object exchanged. */
static struct reading read_clause(const struct grader_design *d, const struct dclause *c,
                                  const struct grader_claim_spec *cs, bool swap, bool fuzzy,
                                  struct grader_design_known *known)
{
    struct reading rd = {swap ? 1 : 0, NONE, false, {NONE, NONE, NONE}};
    struct roles r;
    clause_roles(d, c, &r);
    const struct grader_claim_slot *S = &cs->slot[0], *R = &cs->slot[1], *O = &cs->slot[2];
    const struct grader_claim_slot *aS = &cs->anti[0], *aR = &cs->anti[1], *aO = &cs->anti[2];
    if (swap) {
        if (S->n == 0 || O->n == 0)
            return rd; /* nothing to swap */
        const struct grader_claim_slot *t = S;
        S = O;
        O = t;
        t = aS;
        aS = aO;
        aO = t;
    }
    size_t at_r = NONE, at_s = NONE, at_o = NONE;
    if (c->kind == CL_ARROW) {
        /* the relation is unsaid: with an object, any; without, the right side */
        if (!try_slot(d, c, &r, S, aS, find_subject, fuzzy, known, NONE, &rd, &at_s))
            return rd;
        if (O->n) {
            if (!try_slot(d, c, &r, O, aO, find_object, fuzzy, known, NONE, &rd, &at_o))
                return rd;
        } else if (!try_slot(d, c, &r, R, aR, find_object, fuzzy, known, NONE, &rd, &at_r)) {
            return rd;
        }
        rd.ok = S->n || O->n || R->n;
        rd.at[0] = swap ? at_o : at_s;
        rd.at[1] = at_r;
        rd.at[2] = swap ? at_s : at_o;
        return rd;
    }
    if (!try_slot(d, c, &r, R, aR, find_relation, fuzzy, known, NONE, &rd, &at_r))
        return rd;
    if (!try_slot(d, c, &r, S, aS, find_subject, fuzzy, known, NONE, &rd, &at_s))
        return rd;
    if (!try_slot(d, c, &r, O, aO, find_object, fuzzy, known, at_r, &rd, &at_o))
        return rd;
    /* a claim without a subject: the clause's own subject must be on topic,
     * or the student's ("I", "we", an imperative) */
    rd.ok = cs->slot[0].n || !c->subj_off;
    rd.at[0] = swap ? at_o : at_s;
    rd.at[1] = at_r;
    rd.at[2] = swap ? at_s : at_o;
    return rd;
}

/* Is the clause's reading negated at word w? */
static bool negated(const struct grader_design *d, const struct dclause *c, size_t w)
{
    bool n = w != NONE && d->w[w].negated;
    return n != c->denied;
}

void grader_design_claim_find(const struct grader_design *d, const struct grader_claim_spec *cs,
                              bool fuzzy, struct grader_design_known *known,
                              struct grader_claim_result *out)
{
    memset(out, 0, sizeof *out);
    out->hit = GRADER_HIT_NONE;
    out->clause = out->contra_clause = NONE;
    out->at[0] = out->at[1] = out->at[2] = NONE;
    for (size_t k = 0; k < d->n_c; k++) {
        const struct dclause *c = &d->c[k];
        if (c->first == NONE)
            continue;
        bool direct = false; /* read as declared: then the same clause read the other way
                                round says nothing more (subject and object lists overlap) */
        for (int swap = 0; swap < 2; swap++) {
            struct reading rd = read_clause(d, c, cs, swap == 1, fuzzy, known);
            if (!rd.ok)
                continue;
            if (swap == 0)
                direct = true;
            else if (direct)
                continue;
            bool neg = negated(d, c, rd.last);
            int flips = rd.flips + (neg ? 1 : 0);
            /* "X is Y" read both ways round is the same claim */
            if (swap && copular(d, c))
                continue;
            bool asserted = !c->question && !c->hedged && !c->padding && !c->listed;
            /* a negated antonym says the claim ("the stores are not
             * coalesced" for "the writes are strided") */
            bool same = swap == 0 && ((rd.flips == 0 && !neg) || (rd.flips == 1 && neg));
            if (same && rd.flips == 1) {
                if (asserted && out->hit < GRADER_HIT_FOUND) {
                    out->hit = GRADER_HIT_FOUND;
                    out->clause = k;
                    memcpy(out->at, rd.at, sizeof out->at);
                }
                continue;
            }
            if (flips % 2 == 1) {
                if (asserted && !c->result && !out->contradicted) {
                    out->contradicted = true;
                    out->contra_clause = k;
                    out->contra_why = neg && rd.flips == 0 ? GRADER_CLAIM_NEGATED
                                      : swap               ? GRADER_CLAIM_SWAPPED
                                                           : GRADER_CLAIM_ANTONYM;
                }
                if (rd.flips == 0 && swap == 0 && out->hit < GRADER_HIT_NEGATED && asserted) {
                    out->hit = GRADER_HIT_NEGATED;
                    out->clause = k;
                }
                continue;
            }
            if (rd.flips != 0)
                continue; /* two flips: agrees, but says something else */
            if (asserted) {
                if (out->hit < GRADER_HIT_FOUND) {
                    out->hit = GRADER_HIT_FOUND;
                    out->clause = k;
                    memcpy(out->at, rd.at, sizeof out->at);
                }
            } else if (out->hit < GRADER_HIT_UNCLAIMED) {
                out->hit = GRADER_HIT_UNCLAIMED;
                out->clause = k;
                out->unclaimed_why = c->question ? GRADER_CLAIM_QUESTION
                                     : c->hedged ? GRADER_CLAIM_HEDGED
                                     : c->listed ? GRADER_CLAIM_LISTED
                                                 : GRADER_CLAIM_PADDING;
            }
        }
    }
}

size_t grader_design_clause_of(const struct grader_design *d, size_t sentence, size_t offset)
{
    if (sentence >= d->n_s)
        return NONE;
    const struct dsentence *s = &d->s[sentence];
    for (size_t k = s->first; k < s->first + s->n; k++)
        if (d->w[k].norm_end > offset)
            return d->w[k].clause;
    return NONE;
}

size_t grader_design_phrase_clause(const struct grader_design *d, const char *phrase, bool fuzzy,
                                   struct grader_design_known *known)
{
    char buf[GRADER_DESIGN_MAX_PHRASE + DESIGN_MAX_PHRASE_WORDS + 1];
    struct grader_pword pw[DESIGN_MAX_PHRASE_WORDS];
    if (strlen(phrase) > GRADER_DESIGN_MAX_PHRASE)
        return NONE;
    size_t np = grader_design_phrase_words(phrase, buf, pw, DESIGN_MAX_PHRASE_WORDS);
    size_t fallback = NONE;
    for (size_t i = 0; np && i + np <= d->n_w; i++) {
        size_t k = 0;
        while (k < np && d->w[i + k].sentence == d->w[i].sentence &&
               grader_design_word_match(d, i + k, &pw[k], fuzzy, known))
            k++;
        if (k != np || d->w[i].clause == NONE)
            continue;
        const struct dclause *c = &d->c[d->w[i].clause];
        if (!c->question && !c->hedged && !c->padding && !c->listed && !d->w[i].negated &&
            !c->denied)
            return d->w[i].clause;
        if (fallback == NONE)
            fallback = d->w[i].clause;
    }
    return fallback;
}

void grader_design_stats(const struct grader_design *d, struct grader_design_stats *st)
{
    memset(st, 0, sizeof *st);
    st->words = d->n_w;
    st->clause_words = d->clause_words;
    st->clauses = d->n_c;
    st->padding = d->padding_clauses;
    st->parsed_words = d->parsed_words;
    st->unread_words = d->unread_words;
}

const char *grader_design_word_src(const struct grader_design *d, size_t i, size_t *len)
{
    if (i >= d->n_w) {
        *len = 0;
        return "";
    }
    *len = d->w[i].src_len;
    return d->src + d->w[i].src_at;
}
