/*
 * test_grader_design.c — the reading of design answers (grader_design.c):
 * sentences, claims and lists of terms, clauses and negation, dismissals,
 * phrases, near groups and misspellings. Pure C: no Lua.
 */
#include "grader/pure/grader_pure.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

static int live;            /* blocks allocated and not freed */
static int fail_after = -1; /* allocations left before one fails; -1: never */

static void *alloc(void *ud, void *p, size_t osize, size_t nsize)
{
    (void)ud;
    (void)osize;
    if (nsize == 0) {
        if (p)
            live--;
        free(p);
        return NULL;
    }
    if (fail_after == 0)
        return NULL;
    if (fail_after > 0)
        fail_after--;
    void *q = realloc(p, nsize);
    if (q && !p)
        live++;
    return q;
}

/* Reads the answer's clauses with every word of it taken for a rubric
 * term, so every segment is parsed (grader_design_read). Returns 0, or the
 * error (CORE_ERR_LIMIT when memory ran out). */
static int read_all(struct grader_design *d, const char *text)
{
    struct grader_design_known k;
    grader_design_known_init(&k, d);
    char word[64];
    size_t n = 0;
    for (const char *c = text;; c++) {
        bool w = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9');
        if (w && n + 1 < sizeof word) {
            word[n++] = (char)(*c >= 'A' && *c <= 'Z' ? *c + 32 : *c);
        } else if (!w && n) {
            word[n] = '\0';
            grader_design_known_add(&k, word);
            n = 0;
        }
        if (!*c)
            break;
    }
    struct core_err err = {0};
    int rc = grader_design_read(d, &k, NULL, GRADER_DESIGN_PARSE_BUDGET, &err);
    grader_design_known_fini(&k);
    return rc;
}

static struct grader_design *read(const char *text)
{
    struct grader_design *d = grader_design_new(text, strlen(text), alloc, NULL);
    assert_non_null(d);
    assert_int_equal(read_all(d, text), 0);
    return d;
}

/* The design grader's rule (grader_wb_design.c): no clause in four words
 * or more is a list of terms. */
static bool is_list(const struct grader_design *d)
{
    struct grader_design_stats st;
    grader_design_stats(d, &st);
    return st.clauses == 0 && st.words >= 4;
}

static enum grader_design_hit hit(const char *text, const char *phrase)
{
    struct grader_design *d = read(text);
    enum grader_design_hit h = grader_design_phrase(d, phrase, true, false, NULL);
    grader_design_free(d);
    return h;
}

/* Sentence i's text. */
static const char *sentence(struct grader_design *d, size_t i)
{
    size_t len;
    return grader_design_sentence(d, i, &len);
}

static void test_sentences(void **state)
{
    (void)state;
    struct grader_design *d =
        read("The speedup is 5.5x, e.g. for p = 8! Is it fine? Yes; it is.\n\n"
             "A new paragraph starts here\n"
             "- a list item follows\n"
             "2) and a numbered one");
    assert_int_equal(grader_design_n_sentences(d), 8);
    assert_string_equal(sentence(d, 0), "the speedup is 5.5x, e.g");
    assert_string_equal(sentence(d, 1), "for p = 8");
    assert_string_equal(sentence(d, 2), "is it fine");
    assert_string_equal(sentence(d, 3), "yes");
    assert_string_equal(sentence(d, 4), "it is");
    assert_string_equal(sentence(d, 5), "a new paragraph starts here");
    assert_string_equal(sentence(d, 6), "a list item follows");
    assert_string_equal(sentence(d, 7), "and a numbered one");
    grader_design_free(d);
    /* \r\n is one line break, not a blank line */
    d = read("The writes are\r\nstrided and slow.\r\n");
    assert_int_equal(grader_design_n_sentences(d), 1);
    assert_string_equal(sentence(d, 0), "the writes are strided and slow");
    grader_design_free(d);
}

static void test_claims_and_lists(void **state)
{
    (void)state;
    struct grader_design *d = read("Speedup, efficiency, Karp-Flatt, serial fraction, Nsight.");
    assert_false(grader_design_claim(d, 0)); /* no function word */
    assert_true(is_list(d));
    grader_design_free(d);
    d = read("The speedup, the efficiency, the profile, the all-reduce, the batch.");
    assert_false(grader_design_claim(d, 0)); /* every part is bare: under four words */
    grader_design_free(d);
    d = read("all-reduce in-memory all-to-all"); /* words of compounds are not function words */
    assert_false(grader_design_claim(d, 0));
    grader_design_free(d);
    d = read("I would time each phase: data loading, forward, backward, the gradient all-reduce.");
    assert_true(grader_design_claim(d, 0)); /* an enumeration inside a sentence */
    assert_false(is_list(d));
    grader_design_free(d);
    d = read("Profile it.");
    assert_true(grader_design_claim(d, 0));
    grader_design_free(d);
    /* one term a line is a list; long wrapped lines are prose */
    d = read("the speedup\nthe efficiency\nthe serial fraction\nthe profile\n");
    assert_false(grader_design_claim(d, 0));
    grader_design_free(d);
    d = read("The writes of a warp go to one column of the\noutput, so they are strided.");
    assert_true(grader_design_claim(d, 0));
    grader_design_free(d);
    /* half the words in claims, or more: not a list */
    d = read("The writes are strided. Tile, pad.");
    assert_false(is_list(d));
    grader_design_free(d);
    /* a claim before a list of terms: the terms claim nothing */
    d = read("It is slow. Tile, pad, profile, bank conflicts, copy ceiling, coalescing.");
    assert_false(is_list(d));
    assert_int_equal(grader_design_phrase(d, "bank conflicts", true, false, NULL),
                     GRADER_HIT_UNCLAIMED);
    assert_int_equal(grader_design_phrase(d, "copy ceiling", true, false, NULL),
                     GRADER_HIT_UNCLAIMED);
    grader_design_free(d);
}

static void test_negation(void **state)
{
    (void)state;
    assert_int_equal(hit("The writes are coalesced.", "coalesced"), GRADER_HIT_FOUND);
    assert_int_equal(hit("The writes are not coalesced.", "coalesced"), GRADER_HIT_NEGATED);
    /* the negator inside the phrase belongs to it */
    assert_int_equal(hit("The writes are not coalesced.", "not coalesced"), GRADER_HIT_FOUND);
    assert_int_equal(hit("GPUs have no SIMT.", "simt"), GRADER_HIT_NEGATED);
    assert_int_equal(hit("GPUs don't use SIMT.", "simt"), GRADER_HIT_NEGATED);
    assert_int_equal(hit("GPUs dont use SIMT.", "simt"), GRADER_HIT_NEGATED);
    assert_int_equal(hit("GPUs can\xe2\x80\x99t use SIMT.", "simt"), GRADER_HIT_NEGATED);
    assert_int_equal(hit("It runs without SIMT.", "simt"), GRADER_HIT_NEGATED);
    assert_int_equal(hit("It uses big caches instead of SIMT.", "simt"), GRADER_HIT_NEGATED);
    assert_int_equal(hit("It uses SIMT instead of big caches.", "simt"), GRADER_HIT_FOUND);
    assert_int_equal(hit("It uses not only SIMT but also warps.", "simt"), GRADER_HIT_FOUND);
    /* clauses: the negation ends at a comma or before "and", "but" ... */
    assert_int_equal(hit("It has no big caches, it uses SIMT.", "simt"), GRADER_HIT_FOUND);
    assert_int_equal(hit("It has no big caches and uses SIMT.", "simt"), GRADER_HIT_FOUND);
    assert_int_equal(hit("It has no caches but it uses SIMT.", "simt"), GRADER_HIT_FOUND);
    /* "but SIMT" has no verb of its own: named, not claimed */
    assert_int_equal(hit("It has no caches but SIMT.", "simt"), GRADER_HIT_UNCLAIMED);
    /* two negators cancel */
    assert_int_equal(hit("You cannot coalesce the writes without a tile.", "tile"),
                     GRADER_HIT_FOUND);
    /* dismissals after the term */
    assert_int_equal(hit("Profiling would not help.", "profiling"), GRADER_HIT_NEGATED);
    assert_int_equal(hit("Profiling is useless here.", "profiling"), GRADER_HIT_NEGATED);
    assert_int_equal(hit("Communication is not the bottleneck.", "communication"),
                     GRADER_HIT_NEGATED);
    assert_int_equal(hit("A larger batch changes nothing.", "larger batch"), GRADER_HIT_NEGATED);
    assert_int_equal(hit("Monitoring is overkill.", "monitoring"), GRADER_HIT_NEGATED);
    assert_int_equal(hit("Communication grows, and it does not shrink.", "communication"),
                     GRADER_HIT_FOUND);
    /* only claims count */
    assert_int_equal(hit("Tile, pad, profile.", "tile"), GRADER_HIT_UNCLAIMED);
    assert_int_equal(hit("We tile it.", "stride"), GRADER_HIT_NONE);
}

static void test_phrases_and_misspellings(void **state)
{
    (void)state;
    assert_int_equal(hit("We use All-Reduce.", "all reduce"), GRADER_HIT_FOUND);
    assert_int_equal(hit("We use all reduce.", "all-reduce"), GRADER_HIT_FOUND);
    assert_int_equal(hit("It is sharded.", "shard"), GRADER_HIT_NONE);   /* whole words */
    assert_int_equal(hit("It is sharded.", "shard*"), GRADER_HIT_FOUND); /* a prefix */
    /* one edit from a word of 7 letters or more, two from 10 or more */
    assert_int_equal(hit("It hides the latancy.", "latency"), GRADER_HIT_FOUND);
    assert_int_equal(hit("It hides the latnecy.", "latency"), GRADER_HIT_FOUND); /* a swap */
    assert_int_equal(hit("It hides the ltncy.", "latency"), GRADER_HIT_NONE);
    assert_int_equal(hit("We use a tlie.", "tile"), GRADER_HIT_NONE);         /* short: exact */
    assert_int_equal(hit("The states are tiny.", "stages"), GRADER_HIT_NONE); /* 6 letters: exact */
    assert_int_equal(hit("We use sharding.", "shards"), GRADER_HIT_NONE);
    assert_int_equal(hit("We reduce the comunicaton.", "communication"), GRADER_HIT_FOUND);
    assert_int_equal(hit("We use 0.065 of it.", "0.064"), GRADER_HIT_NONE); /* digits: exact */
    assert_int_equal(hit("We use matency.", "latency"), GRADER_HIT_NONE);   /* first letter */
    /* a word of the rubric is never a misspelling of another */
    struct grader_design *d = read("We use shared memory.");
    struct grader_design_known k;
    grader_design_known_init(&k, d);
    assert_int_equal(grader_design_phrase(d, "sharded", true, false, &k), GRADER_HIT_FOUND);
    grader_design_known_add(&k, "shared memory");
    assert_int_equal(grader_design_phrase(d, "sharded", true, false, &k), GRADER_HIT_NONE);
    assert_int_equal(grader_design_phrase(d, "sharded", false, false, NULL), GRADER_HIT_NONE);
    grader_design_known_fini(&k);
    grader_design_free(d);
}

static void test_near(void **state)
{
    (void)state;
    const char *terms[] = {"warp*", "switch*"};
    struct grader_design *d = read("When one stalls, the scheduler switches to another warp.");
    assert_int_equal(grader_design_near(d, terms, 2, 5, true, false, NULL), GRADER_HIT_FOUND);
    assert_int_equal(grader_design_near(d, terms, 2, 2, true, false, NULL), GRADER_HIT_NONE);
    grader_design_free(d);
    /* both terms, but in two sentences */
    d = read("The scheduler switches. The warp waits.");
    assert_int_equal(grader_design_near(d, terms, 2, 10, true, false, NULL), GRADER_HIT_NONE);
    grader_design_free(d);
    /* negated in its clause */
    d = read("The scheduler never switches to another warp.");
    assert_int_equal(grader_design_near(d, terms, 2, 5, true, false, NULL), GRADER_HIT_NEGATED);
    grader_design_free(d);
    /* the best window wins among many occurrences */
    d = read("A warp waits. When one stalls, the scheduler switches to one more warp.");
    assert_int_equal(grader_design_near(d, terms, 2, 4, true, false, NULL), GRADER_HIT_FOUND);
    assert_int_equal(grader_design_near(d, terms, 2, 3, true, false, NULL), GRADER_HIT_NONE);
    grader_design_free(d);
}

/* How claim {subject = {subj}, relation = {rel}} is found in text, the
 * subject kept whole as a noun the way the grader keeps it
 * (grader_design_known_add_noun); *contra: an asserted clause says the
 * opposite. */
static enum grader_design_hit claim_hit(const char *text, const char *subj, const char *rel,
                                        bool *contra)
{
    struct grader_design *d = grader_design_new(text, strlen(text), alloc, NULL);
    assert_non_null(d);
    struct grader_design_known k;
    grader_design_known_init(&k, d);
    grader_design_known_add_noun(&k, subj);
    grader_design_known_add(&k, rel);
    struct core_err err = {0};
    assert_int_equal(grader_design_read(d, &k, NULL, GRADER_DESIGN_PARSE_BUDGET, &err), 0);
    struct grader_claim_spec cs;
    memset(&cs, 0, sizeof cs);
    cs.slot[0].terms[0] = subj;
    cs.slot[0].n = 1;
    cs.slot[1].terms[0] = rel;
    cs.slot[1].n = 1;
    struct grader_claim_result r;
    grader_design_claim_find(d, &cs, true, &k, &r);
    grader_design_known_fini(&k);
    grader_design_free(d);
    *contra = r.contradicted;
    return r.hit;
}

/* A subject of several words holds in either spelling, hyphen or space,
 * whatever the grammar makes of the words; negated, it does not. */
static void test_claim_compound_subject(void **state)
{
    (void)state;
    static const char *const SAID[] = {"The all-reduce overlaps the backward pass.",
                                       "The All Reduce overlaps the backward pass.",
                                       "The all reduce overlaps the backward pass."};
    static const char *const TERMS[] = {"all-reduce", "all reduce"};
    bool contra;
    for (size_t t = 0; t < sizeof TERMS / sizeof TERMS[0]; t++)
        for (size_t i = 0; i < 3; i++) {
            assert_int_equal(claim_hit(SAID[i], TERMS[t], "overlap*", &contra), GRADER_HIT_FOUND);
            assert_false(contra);
        }
    static const char *const DENIED[] = {"The all-reduce does not overlap the backward pass.",
                                         "The all reduce does not overlap the backward pass.",
                                         "The all-reduce never overlaps the backward pass."};
    for (size_t i = 0; i < 3; i++) {
        assert_int_not_equal(claim_hit(DENIED[i], "all-reduce", "overlap*", &contra),
                             GRADER_HIT_FOUND);
        assert_true(contra);
    }
    /* the words of the term apart are not the term */
    assert_int_not_equal(
        claim_hit("All of it is to reduce what overlaps.", "all-reduce", "overlap*", &contra),
        GRADER_HIT_FOUND);
    /* the term as the object, not the subject: no claim about it */
    assert_int_not_equal(
        claim_hit("The backward pass overlaps the all-reduce.", "all-reduce", "overlap*", &contra),
        GRADER_HIT_FOUND);
}

/* A phrase, a near group or a pattern in a sentence without a function
 * word is named, not claimed (FORMAT.md, rule 2), even where the grammar
 * reads a note ("warp switching"); a claim of the rubric may still hold
 * in such a note. */
static void test_bare_phrases(void **state)
{
    (void)state;
    assert_int_equal(hit("warp switching", "warp switching"), GRADER_HIT_UNCLAIMED);
    assert_int_equal(hit("warp switching, throughput.", "warp switching"), GRADER_HIT_UNCLAIMED);
    assert_int_equal(hit("Warp switching.", "warp switching"), GRADER_HIT_UNCLAIMED);
    assert_int_equal(hit("It hides latency by warp switching.", "warp switching"),
                     GRADER_HIT_FOUND);
    const char *terms[] = {"switch*", "warp*"};
    static const char *const BARE[] = {"warps switching", "warp switching, throughput.",
                                       "switching warps"};
    for (size_t i = 0; i < sizeof BARE / sizeof BARE[0]; i++) {
        struct grader_design *d = read(BARE[i]);
        assert_int_equal(grader_design_near(d, terms, 2, 5, true, false, NULL),
                         GRADER_HIT_UNCLAIMED);
        size_t len;
        const char *text = grader_design_sentence(d, 0, &len);
        assert_int_equal(grader_design_hit_at(d, 0, (size_t)(strstr(text, "switch") - text), false),
                         GRADER_HIT_UNCLAIMED);
        grader_design_free(d);
    }
    struct grader_design *d = read("The scheduler switches warps.");
    assert_int_equal(grader_design_near(d, terms, 2, 5, true, false, NULL), GRADER_HIT_FOUND);
    grader_design_free(d);
    /* the words of a hyphenated compound are no function words */
    assert_int_equal(hit("all-to-all switching", "switching"), GRADER_HIT_UNCLAIMED);
}

/* Out of memory at every allocation in turn: NULL, nothing leaked. */
static void test_out_of_memory(void **state)
{
    (void)state;
    const char *text = "The writes are strided. We tile it, pad it and profile it.\n- one\n- two";
    for (int n = 0; n < 40; n++) {
        live = 0;
        fail_after = n;
        struct grader_design *d = grader_design_new(text, strlen(text), alloc, NULL);
        fail_after = -1;
        if (d) {
            int rc = read_all(d, text);
            assert_true(rc == 0 || rc == CORE_ERR_LIMIT);
            assert_true(rc != 0 || is_list(d) || !is_list(d));
            grader_design_free(d);
        }
        assert_int_equal(live, 0);
    }
}

/* Long answers: every byte value, very long words and sentences. */
static void test_hostile_text(void **state)
{
    (void)state;
    char *text = malloc(20001);
    for (int i = 0; i < 20000; i++)
        text[i] = (char)(i * 7919 % 256 ? i * 7919 % 256 : 'a');
    text[20000] = '\0';
    struct grader_design *d = grader_design_new(text, 20000, alloc, NULL);
    assert_non_null(d);
    (void)grader_design_phrase(d, "latency", true, false, NULL);
    grader_design_free(d);
    memset(text, 'a', 20000);
    d = grader_design_new(text, 20000, alloc, NULL);
    assert_int_equal(grader_design_n_words(d), 1);
    assert_int_equal(grader_design_phrase(d, "aaaaaaaa", true, false, NULL), GRADER_HIT_NONE);
    grader_design_free(d);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sentences),    cmocka_unit_test(test_claims_and_lists),
        cmocka_unit_test(test_negation),     cmocka_unit_test(test_phrases_and_misspellings),
        cmocka_unit_test(test_near),         cmocka_unit_test(test_claim_compound_subject),
        cmocka_unit_test(test_bare_phrases), cmocka_unit_test(test_out_of_memory),
        cmocka_unit_test(test_hostile_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
