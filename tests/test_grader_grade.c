/*
 * test_grader_grade.c — rendering and grading: every question kind graded
 * right, wrong, partly right and invalid; numeric units, expressions,
 * tolerances, bands and known mistakes; variants (deterministic, from the
 * documented seed); lab-linked questions with and without a run; custom
 * grade functions; and the wb library itself (C and Lua halves), wb.lab
 * included.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/core.h"
#include "grader/grader.h"
#include "grader/pure/grader_pure.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char PACK_LUA[] =
    "pack { id = \"test.grade\", title = \"Grading\", version = \"1\", lessons = { \"k.lua\" } }\n";

static const char LESSON_LUA[] =
    "lesson { id = \"k\", title = \"Kinds\", topics = { \"t1\" }, rubric = { \"theory.x\" } }\n"
    "page [[\n# First page\nSome text.\n]]\n"
    "question { id = \"num\", kind = \"numeric\", prompt = \"S for f = {f}, p = {p}?\", unit = "
    "\"x\",\n"
    "  hints = { \"f is {f}\", \"plain\" },\n"
    "  params = function(rng) return { f = 0.2, p = 4 } end,\n"
    "  answer = function(p) return wb.amdahl(p.f, p.p) end,\n"
    "  bands = { { rel = 0.05, score = 0.5, feedback = \"Close.\" } },\n"
    "  wrong = { { value = function(p) return p.p end, feedback = \"Linear: {p} is p, {{zz} {{.\" "
    "},\n"
    "            { value = 2.6, feedback = \"Known slip.\" } } }\n"
    "question { id = \"ms\", kind = \"numeric\", prompt = \"t?\", unit = \"ms\", answer = 320 }\n"
    "question { id = \"pct\", kind = \"numeric\", prompt = \"e?\", unit = \"%\", answer = 62.5 }\n"
    "question { id = \"absq\", kind = \"numeric\", prompt = \"?\", answer = 100, tolerance = { abs "
    "= 0.5 } }\n"
    "question { id = \"sigq\", kind = \"numeric\", prompt = \"?\", answer = 2.5,\n"
    "  tolerance = { rel = 0, sig = 2 } }\n"
    "page { title = \"Second\", text = \"More.\" }\n"
    "question { id = \"ch\", kind = \"choice\", prompt = \"?\", points = 2,\n"
    "  choices = { \"p\", \"1/f\", \"f/p\", \"2\" }, answer = 2, why = { [1] = \"No: p is "
    "linear.\" } }\n"
    "question { id = \"mu\", kind = \"multi\", prompt = \"?\", choices = { \"a1\", \"b2\", \"c3\", "
    "\"d4\", \"e5\" },\n"
    "  answer = { 1, 3, 4 }, why = { [2] = \"b is wrong because.\" } }\n"
    "question { id = \"ord\", kind = \"ordering\", prompt = \"?\", items = { \"one\", \"two\", "
    "\"three\", \"four\" } }\n"
    "question { id = \"txt\", kind = \"text\", prompt = \"?\", answer = { \"weak scaling\", "
    "\"weak\" },\n"
    "  patterns = { \"^gustafson\" } }\n"
    "question { id = \"des\", kind = \"design\", prompt = \"?\", model = \"Shard it, go async, "
    "all-reduce.\",\n"
    "  concepts = {\n"
    "    { name = \"sharding\", points = 2, match = { \"shard\", \"partition\" }, feedback = "
    "\"Split the keys.\" },\n"
    "    { name = \"async\", match = { \"asynchronous\" }, patterns = { \"async%w*\" } },\n"
    "    { name = \"all-reduce\", match = { \"all-reduce\" } } } }\n"
    "question { id = \"des2\", kind = \"design\", prompt = \"?\",\n"
    "  concepts = { { name = \"alpha\", match = { \"alpha\" } }, { name = \"beta\", patterns = { "
    "\"bet\" } } } }\n"
    "question { id = \"des3\", kind = \"design\", prompt = \"?\",\n"
    "  concepts = {\n"
    "    { name = \"latency hiding\", match = { \"hide latency\", \"hides latency\", \"occupancy\" "
    "},\n"
    "      near = { { \"switch*\", \"warp*\", within = 4 } },\n"
    "      contradicts = { { match = { \"cannot hide latency\" }, feedback = \"You said GPUs "
    "cannot "
    "hide latency: they hide it by switching warps.\" } } },\n"
    "    { name = \"switching\", near = { { \"switch*\", \"warp*\", \"another\", within = 6 }, "
    "{ \"switch*\", \"warps\", within = 3 } } } } }\n"
    "question { id = \"cus\", kind = \"numeric\", prompt = \"?\", answer = 3,\n"
    "  grade = function(a, ctx)\n"
    "    if a == \"x\" then return { valid = false, feedback = \"Not a number.\" } end\n"
    "    local v = tonumber(a)\n"
    "    if not v then error(\"boom\") end\n"
    "    if v == 7 then return { score = 0.7, feedback = \"table form\" } end\n"
    "    return v / 10, \"fb \" .. ctx.variant .. \" \" .. ctx.reference .. \" \" .. ctx.points\n"
    "  end }\n"
    "question { id = \"labq\", kind = \"numeric\", prompt = \"measured {S} on {p}\", lab = "
    "\"amdahl\",\n"
    "  params = function(rng, ctx) return { p = 2, S = ctx.lab and ctx.lab.summary.s2 } end,\n"
    "  answer = function(p, ctx) return wb.karp_flatt(ctx.lab.summary.s2, 2) end,\n"
    "  examples = { { lab = { summary = { s2 = 1.8 } }, answer = \"0.111\", score = 1 } } }\n"
    "question { id = \"var\", kind = \"numeric\", prompt = \"{a} {b:%.3f} {c:%5d}|{{x} {s:%s}\",\n"
    "  params = function(rng) return { a = rng:int(1, 1000000), b = rng:uniform(),\n"
    "    c = rng:pick({ 10, 20, 30 }), s = \"str\" } end,\n"
    "  answer = function(p) return p.a end }\n"
    "question { id = \"probe\", kind = \"text\", prompt = \"p\", answer = \"return 1\",\n"
    "  grade = function(answer, ctx)\n"
    "    local f, err = load(answer, \"=probe\")\n"
    "    if not f then return { score = 0, feedback = \"load: \" .. err } end\n"
    "    return { score = 1, feedback = tostring(f()) }\n"
    "  end }\n"
    /* a lab question written with the wb.lab helpers, as the lab lessons are */
    "question { id = \"labg\", kind = \"numeric\", prompt = \"S(2) = {s2} in {mode}{note}\",\n"
    "  lab = \"amdahl\", unit = \"%\",\n"
    "  params = function(rng, ctx)\n"
    "    local p = { mode = wb.lab.param(ctx, \"mode\") or wb.lab.text(ctx, \"mode\") }\n"
    "    local s2 = wb.lab.figure(ctx, \"s2\")\n"
    "    if ctx.lab and not s2 then p.note = \"\\n\\n(This run has no S(2).)\"\n"
    "    elseif s2 then p.s2 = s2; p.ref = 50 * s2 end\n"
    "    return wb.lab.blanks(p, { \"s2\", \"mode\" })\n"
    "  end,\n"
    "  answer = function(p) return p.ref end,\n"
    "  grade = function(answer, ctx)\n"
    "    return wb.lab.grade(answer, ctx, { unit = \"%\",\n"
    "      wrong = { { value = function(p) return p.s2 / 2 end, feedback = \"A fraction.\" } },\n"
    "      explain = function(p, c) return \"S/2 = \" .. wb.sig(p.ref, 3) .. \"% (run \" .. "
    "c.lab.id .. \").\" end })\n"
    "  end,\n"
    "  examples = { { lab = { summary = { s2 = 1.8 } }, answer = \"90\", score = 1 },\n"
    "    { lab = { summary = { s2 = 1.8 } }, answer = \"0.9\", score = 0 },\n"
    "    { lab = { summary = { n = 1 } }, answer = \"90\", score = \"invalid\" },\n"
    "    { \"90\", \"invalid\" } } }\n"
    "question { id = \"labbad\", kind = \"numeric\", prompt = \"?\",\n"
    "  grade = function(a, ctx)\n"
    "    if a == \"fig\" then local x = wb.lab.figure(ctx, 5) end -- labbad figure\n"
    "    return wb.lab.grade(a, { params = { ref = 1 } }, { wrong = 5 }) -- labbad call\n"
    "  end }\n"
    "question { id = \"labloop\", kind = \"numeric\", prompt = \"?\",\n"
    "  grade = function(a, ctx)\n"
    "    return wb.lab.grade(a, { params = { ref = 1 } }, { explain = function()\n"
    "      while true do end -- labloop spin\n"
    "    end })\n"
    "  end }\n";

/* The line of LESSON_LUA (1-based) holding `marker`. */
static int lesson_line(const char *marker)
{
    const char *at = strstr(LESSON_LUA, marker);
    assert_non_null(at);
    int line = 1;
    for (const char *c = LESSON_LUA; c < at; c++)
        line += *c == '\n';
    return line;
}

static struct grader_pack *pack;
static const struct grader_ctx ALICE = {.user = "alice", .variant = 1};

static int setup(void **state)
{
    (void)state;
    struct grader_file files[] = {{"pack.lua", PACK_LUA, sizeof PACK_LUA - 1},
                                  {"k.lua", LESSON_LUA, sizeof LESSON_LUA - 1}};
    struct core_strlist problems;
    core_strlist_init(&problems);
    struct core_err err = {0};
    int rc = grader_pack_new(&pack, files, 2, NULL, &problems, &err);
    for (size_t i = 0; i < problems.n; i++)
        fprintf(stderr, "problem: %s\n", problems.items[i]);
    core_strlist_fini(&problems);
    return rc;
}

static int teardown(void **state)
{
    (void)state;
    grader_pack_free(pack);
    return 0;
}

/* Grades and checks: expected fraction of the points, or < 0 for invalid;
 * `fb` (optional) must appear in the feedback. */
static void expect_ctx(const char *qid, const struct grader_ctx *ctx, const char *answer,
                       double frac, const char *fb)
{
    struct grader_result r;
    struct core_err err = {0};
    int rc = grader_question_grade(pack, qid, ctx, answer, &r, &err);
    if (rc)
        fprintf(stderr, "%s '%s': %s\n", qid, answer, err.msg);
    assert_int_equal(rc, 0);
    bool ok = frac < 0 ? !r.valid : r.valid && fabs(r.score / r.max - frac) < 1e-9;
    if (!ok || (fb && !strstr(r.feedback, fb)))
        fprintf(stderr, "%s '%s': valid %d score %g/%g feedback '%s'\n", qid, answer, r.valid,
                r.score, r.max, r.feedback);
    assert_true(ok);
    assert_non_null(r.feedback);
    assert_non_null(r.reference);
    if (fb)
        assert_non_null(strstr(r.feedback, fb));
    if (frac >= 1 - 1e-12)
        assert_true(r.correct);
    else
        assert_false(r.correct);
    if (frac < 0)
        assert_true(r.score == 0);
    grader_result_fini(&r);
}

static void expect(const char *qid, const char *answer, double frac, const char *fb)
{
    expect_ctx(qid, &ALICE, answer, frac, fb);
}

#define INVALID (-1.0)

static void test_numeric(void **state)
{
    (void)state;
    expect("num", "2.5", 1, "Correct");
    expect("num", "2.5x", 1, NULL);
    expect("num", "2.5 ×", 1, NULL);
    expect("num", "1/(0.2+0.8/4)", 1, NULL);
    expect("num", "2.52", 1, NULL);      /* within 1% */
    expect("num", "2.4", 0.5, "Close."); /* 4% off: the band */
    /* a known mistake; feedback filled like the prompt ({{ is a literal brace:
     * pack check refuses a name params does not set) */
    expect("num", "4", 0, "Linear: 4 is p, {zz} {.");
    expect("num", "2.6", 0, "Known slip."); /* a known mistake beats the band */
    expect("num", "3", 0, "Not within the accepted tolerance (±1%)");
    expect("num", "abc", INVALID, NULL);
    expect("num", "", INVALID, "Empty");
    expect("num", "   ", INVALID, NULL);
    expect("num", "1e999", INVALID, NULL);
    expect("num", "3,5", INVALID, "comma");
    expect("num", "NaN", INVALID, NULL);
    expect("num", "2.5 ms", INVALID, NULL);
    expect("num", "1/0", INVALID, NULL);

    struct grader_result r;
    struct core_err err;
    assert_int_equal(grader_question_grade(pack, "num", &ALICE, "5/2", &r, &err), 0);
    assert_true(r.has_value);
    assert_true(fabs(r.value - 2.5) < 1e-12);
    assert_string_equal(r.parsed, "2.5 ×");
    assert_string_equal(r.reference, "2.5 ×");
    assert_non_null(strstr(r.accepted, "2.475"));
    assert_non_null(strstr(r.accepted, "2.525"));
    assert_true(r.max == 1);
    grader_result_fini(&r);
    /* an invalid answer still says what would have been accepted */
    assert_int_equal(grader_question_grade(pack, "num", &ALICE, "abc", &r, &err), 0);
    assert_false(r.valid);
    assert_non_null(r.accepted);
    assert_string_equal(r.reference, "2.5 ×");
    grader_result_fini(&r);
}

static void test_numeric_units_and_tolerance(void **state)
{
    (void)state;
    expect("ms", "320", 1, NULL);
    expect("ms", "0.32 s", 1, NULL);
    expect("ms", "320000 us", 1, NULL);
    expect("ms", "320 MB", INVALID, NULL);
    expect("pct", "62.5", 1, NULL);
    expect("pct", "62.5%", 1, NULL);
    expect("pct", "0.625", 0, NULL);
    /* abs without rel: exactly +-0.5 (1% of 100 would accept 100.8) */
    expect("absq", "100.4", 1, NULL);
    expect("absq", "99.6", 1, NULL);
    expect("absq", "100.8", 0, NULL);
    /* sig = 2 with rel = 0: rounds to 2.5 */
    expect("sigq", "2.46", 1, NULL);
    expect("sigq", "2.54", 1, NULL);
    expect("sigq", "2.56", 0, NULL);
}

static void test_choice(void **state)
{
    (void)state;
    expect("ch", "b", 1, "Correct");
    expect("ch", "B", 1, NULL);
    expect("ch", "(b)", 1, NULL);
    expect("ch", "b.", 1, NULL);
    expect("ch", "1/f", 1, NULL); /* the text of a choice */
    expect("ch", "a", 0, "No: p is linear.");
    expect("ch", "c", 0, "Incorrect");
    /* "2" is also the text of choice d: the text wins over the number */
    expect("ch", "2", 0, NULL);
    expect("ch", "3", 0, NULL);
    expect("ch", "e", INVALID, "no choice e");
    expect("ch", "9", INVALID, NULL);
    expect("ch", "a b", INVALID, "one");
    expect("ch", "", INVALID, NULL);
    expect("ch", "banana", INVALID, NULL);
    struct grader_result r;
    struct core_err err;
    assert_int_equal(grader_question_grade(pack, "ch", &ALICE, "b", &r, &err), 0);
    assert_true(r.max == 2 && r.score == 2);
    assert_string_equal(r.parsed, "b");
    assert_string_equal(r.reference, "b) 1/f");
    grader_result_fini(&r);
}

static void test_multi(void **state)
{
    (void)state;
    expect("mu", "a c d", 1, "Correct");
    expect("mu", "a,c,d", 1, NULL);
    expect("mu", "acd", 1, NULL);
    expect("mu", "D C A", 1, NULL);
    expect("mu", "1 3 4", 1, NULL);
    expect("mu", "a, c and d", 1, NULL);
    expect("mu", "a c", 2.0 / 3, NULL);
    expect("mu", "a b c d e", 1.0 / 3, "b is wrong because.");
    expect("mu", "b e", 0, NULL);
    expect("mu", "a a c c d", 1, NULL); /* repeats count once */
    expect("mu", "a z", INVALID, NULL);
    expect("mu", "", INVALID, NULL);
    struct grader_result r;
    struct core_err err;
    assert_int_equal(grader_question_grade(pack, "mu", &ALICE, "d a", &r, &err), 0);
    assert_string_equal(r.parsed, "a, d");
    assert_string_equal(r.reference, "a, c, d");
    grader_result_fini(&r);
}

static void test_ordering(void **state)
{
    (void)state;
    static const char *const items[] = {"one", "two", "three", "four"};
    struct grader_view v;
    struct core_err err;
    assert_int_equal(grader_question_view(pack, "ord", &ALICE, &v, &err), 0);
    assert_int_equal(v.n_choices, 4);
    /* letters of the items in the right order, as this student sees them */
    char right[8], reversed[8], swapped[8];
    bool identity = true;
    for (int i = 0; i < 4; i++) {
        int k = 0;
        while (k < 4 && strcmp(v.choices[k], items[i]) != 0)
            k++;
        assert_true(k < 4);
        identity &= k == i;
        right[2 * i] = (char)('a' + k);
        right[2 * i + 1] = ' ';
    }
    right[7] = '\0';
    assert_false(identity); /* the shown order never gives the answer away */
    for (int i = 0; i < 4; i++) {
        reversed[2 * i] = right[2 * (3 - i)];
        reversed[2 * i + 1] = ' ';
    }
    reversed[7] = '\0';
    memcpy(swapped, right, 8);
    swapped[0] = right[2];
    swapped[2] = right[0];
    grader_view_fini(&v);
    expect("ord", right, 1, "Correct order");
    expect("ord", reversed, 0, NULL);
    expect("ord", swapped, 1 - 2.0 / 6, "5 of 6");
    expect("ord", "a b", INVALID, "exactly once");
    expect("ord", "a a b c", INVALID, "exactly once");
    expect("ord", "a b c z", INVALID, NULL);
    expect("ord", "", INVALID, NULL);
    expect("ord", "1 2 3 4", INVALID, "letters shown"); /* numbers are ambiguous */
    struct grader_result r;
    assert_int_equal(grader_question_grade(pack, "ord", &ALICE, "a b c d", &r, &err), 0);
    assert_string_equal(r.reference, right);
    grader_result_fini(&r);
    /* other students see other orders; each one's reference scores 1 */
    char first[64] = "";
    int distinct = 0;
    for (int u = 0; u < 8; u++) {
        char user[16];
        snprintf(user, sizeof user, "u%d", u);
        struct grader_ctx other = {.user = user, .variant = 1};
        assert_int_equal(grader_question_view(pack, "ord", &other, &v, &err), 0);
        char order[64];
        snprintf(order, sizeof order, "%s%s%s%s", v.choices[0], v.choices[1], v.choices[2],
                 v.choices[3]);
        grader_view_fini(&v);
        if (!first[0])
            snprintf(first, sizeof first, "%s", order);
        else if (strcmp(first, order) != 0)
            distinct++;
        assert_int_equal(grader_question_grade(pack, "ord", &other, "a", &r, &err), 0);
        char ref[16];
        snprintf(ref, sizeof ref, "%s", r.reference);
        grader_result_fini(&r);
        expect_ctx("ord", &other, ref, 1, NULL);
    }
    assert_true(distinct > 0);
}

static void test_text(void **state)
{
    (void)state;
    expect("txt", "weak scaling", 1, NULL);
    expect("txt", "  Weak   Scaling. ", 1, NULL);
    expect("txt", "WEAK", 1, NULL);
    expect("txt", "Gustafson's law", 1, NULL); /* the pattern */
    expect("txt", "strong scaling", 0, NULL);
    /* misspelt (one edit in a word of 7 letters or more) and after a
     * leading article: right, saying so */
    expect("txt", "weak scalingg", 1, "misspelt: it is written \"weak scaling\"");
    expect("txt", "the weak scaling", 1, NULL);
    expect("txt", "waek scaling", 0, NULL); /* a short word only exactly */
    expect("txt", "xeak scaling", 0, NULL);
    expect("txt", "", INVALID, NULL);
    struct grader_result r;
    struct core_err err;
    assert_int_equal(grader_question_grade(pack, "txt", &ALICE, "  Weak  X ", &r, &err), 0);
    assert_string_equal(r.parsed, "weak x");
    assert_string_equal(r.reference, "weak scaling");
    grader_result_fini(&r);
}

static void test_design(void **state)
{
    (void)state;
    expect("des", "We shard the keys, go asynchronously and use All-Reduce.", 1, "Covered");
    expect("des", "We shard the keys.", 0.5, "Missing: async");
    expect("des", "We partitioned the keys.", 0, NULL);             /* whole words only */
    expect("des", "We go async.", 0.25, NULL);                      /* the pattern */
    expect("des", "We use all reduce for everything.", 0.25, NULL); /* punctuation, case */
    expect("des", "It is all\xe2\x80\x94reduce.", 0.25, NULL);      /* an em dash separates words */
    expect("des", "We buy a bigger machine.", 0, "Missing: sharding. Split the keys.");
    expect("des", "", INVALID, NULL);
    /* evidence, not words: a list of terms earns nothing and is told why */
    expect("des", "shard, asynchronous, all-reduce", 0, "list of terms");
    expect("des", "shard\nasync\nall-reduce", 0, "Missing: sharding (named, but not");
    /* a negated clause does not count; the clause after "but" does */
    expect("des", "We do not shard the keys.", 0,
           "Missing: sharding (you mention it only in a negated");
    expect("des", "We never shard, but we go async.", 0.25, NULL);
    /* two negators cancel; a dismissal after the term negates it */
    expect("des", "You cannot scale it without sharding the keys.", 0,
           NULL); /* "shard" != "sharding" */
    expect("des", "You cannot scale it without a shard per server.", 0.5, NULL);
    expect("des", "Sharding the keys would not help here.", 0, NULL);
    expect("des", "A shard per server is useless.", 0, "negated clause");
    struct grader_result r;
    struct core_err err;
    assert_int_equal(grader_question_grade(pack, "des", &ALICE, "shard", &r, &err), 0);
    assert_string_equal(r.reference, "Shard it, go async, all-reduce.");
    assert_true(r.max == 1);
    assert_true(r.automatic); /* a design score is the rubric's reading: automatic */
    assert_non_null(strstr(r.feedback, "Missing: async"));
    assert_non_null(strstr(r.feedback, "Missing: all-reduce"));
    grader_result_fini(&r);
    assert_int_equal(grader_question_grade(pack, "num", &ALICE, "2.5", &r, &err), 0);
    assert_false(r.automatic);
    grader_result_fini(&r);
}

/* contradicts, near groups and misspellings */
static void test_design_evidence(void **state)
{
    (void)state;
    expect("des3", "The GPU hides latency by switching between warps.", 1, "Covered");
    expect("des3", "The scheduler switches to a warp that is ready.", 0.5, NULL); /* one group */
    expect("des3", "Switching is slow in general, so there is only a single warp.", 0,
           NULL); /* too far apart */
    expect("des3", "GPUs have no SIMT and cannot hide latency.", 0,
           "Contradicted: latency hiding. You said GPUs cannot hide latency");
    expect("des3", "It is not true that GPUs cannot hide latency: they do it by switching warps.",
           1, NULL); /* a negated contradiction is no contradiction */
    /* misspellings: one edit in 7+ letters, two in 10+; short words exact */
    expect("des3", "The schedular switches warps to hide the latancy.", 1, NULL);
    expect("des3", "The GPU hides latnecy by switching warps.", 1, NULL); /* a swap */
    expect("des3", "The GPU hides the lag well.", 0, NULL); /* "lag" is not "latency" */
    expect("des3", "Its occupancy is high.", 0.5, NULL);
    expect("des3", "Its ocupancy is high.", 0.5, NULL);
    expect("des3", "Its ocupncy is high.", 0, NULL); /* two edits in 9 letters */
    expect("des3", "It has high occupanc and nothing else.", 0.5, NULL);
}

static void test_design_without_model(void **state)
{
    (void)state;
    expect("des2", "It is alpha!", 0.5, "Missing: beta.");
    expect("des2", "It is an alphabet.", 0.5, NULL); /* the pattern, not the whole word */
    struct grader_result r;
    struct core_err err;
    assert_int_equal(grader_question_grade(pack, "des2", &ALICE, "x", &r, &err), 0);
    assert_string_equal(r.reference, "A good answer covers: alpha, beta.");
    grader_result_fini(&r);
}

static void test_custom_grade(void **state)
{
    (void)state;
    expect("cus", "5", 0.5, "fb 1 3 1");
    expect("cus", "7", 0.7, "table form");
    expect("cus", "x", INVALID, "Not a number.");
    expect("cus", "", INVALID, NULL);
    struct grader_result r;
    struct core_err err;
    assert_int_equal(grader_question_grade(pack, "cus", &ALICE, "zz", &r, &err), CORE_ERR_SCRIPT);
    assert_non_null(strstr(err.msg, "k.lua:"));
    assert_non_null(strstr(err.msg, "boom"));
    assert_non_null(strstr(err.msg, "grade of question cus"));
    assert_null(r.feedback);
    assert_int_equal(grader_question_grade(pack, "cus", &ALICE, "15", &r, &err), CORE_ERR_SCRIPT);
    assert_non_null(strstr(err.msg, "grade returned 1.5"));
    assert_int_equal(grader_question_grade(pack, "nope", &ALICE, "1", &r, &err), CORE_ERR_NOTFOUND);
}

static void test_lab_question(void **state)
{
    (void)state;
    struct grader_view v;
    struct core_err err;
    assert_int_equal(grader_question_view(pack, "labq", &ALICE, &v, &err), 0);
    assert_non_null(v.needs_lab);
    assert_string_equal(v.needs_lab, "run the lab 'amdahl' first (warpbench lab run amdahl)");
    assert_string_equal(v.prompt, "measured ? on 2");
    grader_view_fini(&v);
    expect("labq", "0.111", INVALID, "amdahl");

    struct grader_kv summary[] = {{.key = "s2", .num = 1.8, .is_num = true},
                                  {.key = "note", .str = "ok", .is_num = false}};
    struct grader_lab_run run = {.id = 12,
                                 .lab = "amdahl",
                                 .finished_at = "2026-01-01T00:00:00Z",
                                 .summary = summary,
                                 .n_summary = 2};
    struct grader_ctx ctx = {.user = "alice", .variant = 1, .lab = &run};
    assert_int_equal(grader_question_view(pack, "labq", &ctx, &v, &err), 0);
    assert_null(v.needs_lab);
    assert_string_equal(v.prompt, "measured 1.8 on 2");
    grader_view_fini(&v);
    expect_ctx("labq", &ctx, "0.111", 1, NULL);
    expect_ctx("labq", &ctx, "1/9", 1, NULL);
    expect_ctx("labq", &ctx, "0.2", 0, NULL);
}

static void test_view(void **state)
{
    (void)state;
    struct grader_view v;
    struct core_err err;
    assert_int_equal(grader_question_view(pack, "num", &ALICE, &v, &err), 0);
    assert_string_equal(v.prompt, "S for f = 0.2, p = 4?");
    assert_int_equal(v.n_hints, 2);
    assert_string_equal(v.hints[0], "f is 0.2");
    assert_string_equal(v.hints[1], "plain");
    assert_string_equal(v.unit, "x");
    assert_int_equal(v.n_choices, 0);
    assert_null(v.needs_lab);
    grader_view_fini(&v);
    assert_int_equal(grader_question_view(pack, "ch", &ALICE, &v, &err), 0);
    assert_int_equal(v.n_choices, 4);
    assert_string_equal(v.choices[0], "p");
    assert_string_equal(v.choices[3], "2");
    grader_view_fini(&v);
    assert_int_equal(grader_question_view(pack, "nope", &ALICE, &v, &err), CORE_ERR_NOTFOUND);
}

static void test_variants(void **state)
{
    (void)state;
    /* The prompt is exactly what the documented seed gives. */
    struct grader_rng r;
    grader_rng_init(&r, grader_rng_seed("test.grade", "var", "alice", 1));
    long long a = grader_rng_int(&r, 1, 1000000);
    double b = grader_rng_uniform(&r);
    static const int cs[] = {10, 20, 30};
    int c = cs[grader_rng_int(&r, 1, 3) - 1];
    char want[128];
    snprintf(want, sizeof want, "%lld %.3f %5d|{x} str", a, b, c);
    struct grader_view v1, v2, v3;
    struct core_err err;
    assert_int_equal(grader_question_view(pack, "var", &ALICE, &v1, &err), 0);
    assert_string_equal(v1.prompt, want);
    assert_int_equal(grader_question_view(pack, "var", &ALICE, &v2, &err), 0);
    assert_string_equal(v1.prompt, v2.prompt);
    struct grader_ctx next = {.user = "alice", .variant = 2};
    assert_int_equal(grader_question_view(pack, "var", &next, &v3, &err), 0);
    assert_string_not_equal(v1.prompt, v3.prompt);
    grader_view_fini(&v3);
    struct grader_ctx bob = {.user = "bob", .variant = 1};
    assert_int_equal(grader_question_view(pack, "var", &bob, &v3, &err), 0);
    assert_string_not_equal(v1.prompt, v3.prompt);
    grader_view_fini(&v3);
    /* grading uses the same numbers */
    char ans[32];
    snprintf(ans, sizeof ans, "%lld", a);
    expect("var", ans, 1, NULL);
    snprintf(ans, sizeof ans, "%lld", a * 2);
    expect("var", ans, 0, NULL);
    grader_view_fini(&v1);
    grader_view_fini(&v2);
}

static const char *probe(const char *script)
{
    static char out[CORE_ERR_MSG + 64];
    struct grader_result r;
    struct core_err err = {0};
    if (grader_question_grade(pack, "probe", &ALICE, script, &r, &err) != 0) {
        snprintf(out, sizeof out, "ERROR: %s", err.msg);
        return out;
    }
    snprintf(out, sizeof out, "%s", r.feedback);
    grader_result_fini(&r);
    return out;
}

static void test_wb_library(void **state)
{
    (void)state;
    assert_string_equal(probe("return wb.number('56%', '')"), "0.56");
    assert_string_equal(probe("return wb.number('56%', '%')"), "56.0");
    assert_string_equal(probe("return wb.number('0.32 s', 'ms')"), "320.0");
    assert_string_equal(probe("local v, why = wb.number('abc') return tostring(v) .. '|' .. "
                              "tostring(why ~= nil)"),
                        "nil|true");
    assert_string_equal(probe("local v, why = wb.number('3,5') return why"),
                        probe("local n, w = wb.number('3,5', '') return w"));
    assert_non_null(strstr(probe("return pcall(wb.number, '1', 'furlongs')"), "false"));
    assert_string_equal(probe("return tostring(wb.close(1.005, 1)) .. tostring(wb.close(1.02, 1)) "
                              ".. tostring(wb.close(1.02, 1, 0.05))"),
                        "truefalsetrue");
    assert_string_equal(probe("return tostring(wb.within(100.4, 100, { abs = 0.5 })) .. "
                              "tostring(wb.within(2.46, 2.5, { rel = 0, sig = 2 }))"),
                        "truetrue");
    /* abs alone means abs alone, as in a question's tolerance */
    assert_string_equal(probe("return tostring(wb.within(100.9, 100, { abs = 0.5 }))"), "false");
    assert_non_null(strstr(probe("return wb.interval(100, { abs = 0.5 })"), "99.5"));
    assert_non_null(strstr(probe("return wb.interval(2.5)"), "2.475"));
    assert_string_equal(probe("return wb.round(2.346, 2) .. ' ' .. wb.round(2.5) .. ' ' .. "
                              "math.type(wb.round(7.2))"),
                        "2.35 3 integer");
    assert_string_equal(probe("return wb.sig(1234.5, 2) .. ' ' .. wb.sig(0.012345, 3)"),
                        "1200 0.0123");
    assert_string_equal(probe("return '[' .. wb.norm('  Hello,   World!! ') .. ']'"),
                        "[hello, world]");
    assert_string_equal(probe("return wb.words('All-Reduce, NCCL; 5.5x')"), "all reduce nccl 5 5x");
    assert_string_equal(probe("return tostring(wb.has('We use all-reduce.', 'all reduce')) .. "
                              "tostring(wb.has('partitioned', 'partition')) .. "
                              "tostring(wb.has('a partition b', 'PARTITION'))"),
                        "truefalsetrue");
    assert_string_equal(probe("local s, missed, found = wb.concepts('we shard it', {\n"
                              "  { name = 'sharding', points = 3, match = { 'shard' } },\n"
                              "  { name = 'async', patterns = { 'asyn' } } })\n"
                              "return s .. ' ' .. table.concat(missed, ',') .. ' ' .. "
                              "table.concat(found, ',')"),
                        "0.75 async sharding");
    /* wb.concepts follows the design rule: a list of terms earns nothing,
     * a negated mention does not count, and the 4th result says why */
    assert_string_equal(probe("local s, missed, found, how = wb.concepts('shard, async, "
                              "replicas, caches', {\n"
                              "  { name = 'sharding', match = { 'shard' } },\n"
                              "  { name = 'async', patterns = { 'asyn' } } })\n"
                              "return s .. ' ' .. #found .. ' ' .. tostring(how.list) .. ' ' .. "
                              "how.status[1]"),
                        "0.0 0 true unclaimed");
    assert_string_equal(
        probe("local s, missed, found, how = wb.concepts('We do not shard it, "
              "but it runs async.', {\n"
              "  { name = 'sharding', match = { 'shard' } },\n"
              "  { name = 'async', patterns = { 'asyn' } } })\n"
              "return s .. ' ' .. table.concat(found, ',') .. ' ' .. how.status[1]"),
        "0.5 async negated");
    assert_string_equal(probe("return wb.amdahl(0.2, 4) .. ' ' .. wb.gustafson(0.2, 4) .. ' ' .. "
                              "string.format('%.4f', wb.karp_flatt(3, 5))"),
                        "2.5 3.4 0.1667");
}

static void test_wb_finite_and_lab_readers(void **state)
{
    (void)state;
    assert_string_equal(
        probe("local r = '' for _, x in ipairs({ 1, 0.5, math.maxinteger, 0/0, 1/0, "
              "-1/0, '1', true }) do r = r .. (wb.finite(x) and 'T' or 'F') end "
              "return r .. (wb.finite(nil) and 'T' or 'F')"),
        "TTTFFFFFF");
    static const char RUN[] =
        "local c = { lab = { summary = { a = 2, n = 0/0, i = -1/0, s = 'gpu' },\n"
        "  params = { f = 0.1, m = 'sync', x = 1/0, b = true } } }\n";
    char script[1024];
    /* figures: finite numbers only; text: strings only; params: both */
    snprintf(
        script, sizeof script,
        "%sreturn table.concat({ tostring(wb.lab.figure(c, 'a')), tostring(wb.lab.figure(c, 'n')),"
        " tostring(wb.lab.figure(c, 'i')), tostring(wb.lab.figure(c, 's')),"
        " tostring(wb.lab.figure(c, 'zz')), tostring(wb.lab.text(c, 's')),"
        " tostring(wb.lab.text(c, 'a')), tostring(wb.lab.param(c, 'f')),"
        " tostring(wb.lab.param(c, 'm')), tostring(wb.lab.param(c, 'x')),"
        " tostring(wb.lab.param(c, 'b')), tostring(wb.lab.param(c, 'a')) }, ' ')",
        RUN);
    assert_string_equal(probe(script), "2 nil nil nil nil gpu nil 0.1 sync nil nil nil");
    /* no run, no ctx, a run without a summary: nil, never an error */
    assert_string_equal(
        probe("return tostring(wb.lab.figure(nil, 'a')) .. tostring(wb.lab.figure({}, "
              "'a')) .. tostring(wb.lab.text({ lab = {} }, 'a')) .. "
              "tostring(wb.lab.param({ lab = { params = 3 } }, 'a'))"),
        "nilnilnilnil");
    assert_non_null(strstr(probe("return select(2, pcall(wb.lab.figure, {}, 1))"),
                           "wb.lab.figure(ctx, key): key must be a string, got number"));
    /* blanks: "?" for unset names, note "" unless set; the same table back */
    assert_string_equal(
        probe("local p = { a = 1, note = 'N' } local q = wb.lab.blanks(p, { 'a', 'b' })\n"
              "local r = wb.lab.blanks({}, {})\n"
              "return tostring(p == q) .. ' ' .. p.a .. p.b .. p.note .. '[' .. r.note .. ']'"),
        "true 1?N[]");
    assert_non_null(
        strstr(probe("return select(2, pcall(wb.lab.blanks, nil, {}))"), "wb.lab.blanks"));
}

/* wb.lab.grade(answer, {params = P}, OPTS) -> "score|feedback[|solution]"
 * or "invalid|feedback" */
static const char *lab_grade(const char *answer, const char *params, const char *opts)
{
    char script[1024];
    snprintf(script, sizeof script,
             "local s = wb.lab.grade('%s', { params = %s }, %s)\n"
             "if s.valid == false then return 'invalid|' .. s.feedback end\n"
             "return s.score .. '|' .. s.feedback .. (s.solution and '|' .. s.solution or '')",
             answer, params, opts);
    return probe(script);
}

static void test_wb_lab_grade(void **state)
{
    (void)state;
    static const char OPTS[] =
        "{ unit = 'x', explain = function(p) return 'E ' .. p.ref .. '.' end,\n"
        "  wrong = { { value = function(p) return p.ref * 2 end, feedback = 'Doubled.' },\n"
        "            { value = function(p) return nil end, feedback = 'never' },\n"
        "            { value = 4, feedback = 'Four.' } },\n"
        "  bands = { { rel = 0.1, score = 0.5, feedback = 'Close.' }, { rel = 0.05, score = 0.8 } "
        "} }";
    /* right within the default 1%, with the worked answer after; the
     * worked answer is the solution too */
    assert_string_equal(lab_grade("2.5", "{ ref = 2.5 }", OPTS), "1|Right. E 2.5.|E 2.5.");
    assert_string_equal(lab_grade("2.52x", "{ ref = 2.5 }", OPTS), "1|Right. E 2.5.|E 2.5.");
    assert_string_equal(lab_grade("1/(0.2+0.8/4)", "{ ref = 2.5 }", OPTS),
                        "1|Right. E 2.5.|E 2.5.");
    /* known mistakes, a value function given (p, ctx) or a number; nil
     * skipped. A wrong answer's feedback never holds the worked answer nor
     * the accepted range: they give the answer away (it stays the solution,
     * shown at a give-up or the last try) */
    assert_string_equal(lab_grade("5", "{ ref = 2.5 }", OPTS), "0|Doubled.|E 2.5.");
    assert_string_equal(lab_grade("4", "{ ref = 2.5 }", OPTS), "0|Four.|E 2.5.");
    assert_string_equal(probe("return tostring(wb.lab.grade('5', { params = { ref = 2.5 } },"
                              " { wrong = { { value = 5, feedback = 'W.' } } }).mistake)"),
                        "true");
    /* partial credit: the best band that holds the answer; a known mistake wins over a band */
    assert_string_equal(lab_grade("2.6", "{ ref = 2.5 }", OPTS),
                        "0.8|Close, but outside the accepted range: partial credit (80%).|E 2.5.");
    assert_string_equal(lab_grade("2.7", "{ ref = 2.5 }", OPTS), "0.5|Close.|E 2.5.");
    assert_string_equal(lab_grade("2.7", "{ ref = 2.5 }",
                                  "{ bands = { { rel = 0.1, score = 0.5 } },"
                                  " wrong = { { value = 2.7, feedback = 'W.' } } }"),
                        "0|W.");
    /* anything else: how close counts, not where the answer lies */
    assert_string_equal(lab_grade("3", "{ ref = 2.5 }", OPTS),
                        "0|Not within the accepted tolerance (±1%). Check the formula and the "
                        "arithmetic.|E 2.5.");
    /* a slip of form is named, without the reference */
    assert_string_equal(lab_grade("2500", "{ ref = 2.5 }", "{}"),
                        "0|That is 1000 times too large: a slip of units or prefixes (ms and s, "
                        "MB and GB)?");
    /* tol: a table (abs alone is abs alone) or a number (rel), also for wrong values */
    assert_string_equal(lab_grade("100.4", "{ ref = 100 }", "{ tol = { abs = 0.5 } }"), "1|Right.");
    assert_string_equal(lab_grade("100.9", "{ ref = 100 }", "{ tol = { abs = 0.5 } }"),
                        "0|Not within the accepted tolerance (±0.5). Check the formula and the "
                        "arithmetic.");
    assert_string_equal(lab_grade("104", "{ ref = 100 }", "{ tol = 0.05 }"), "1|Right.");
    assert_string_equal(lab_grade("207", "{ ref = 100 }",
                                  "{ tol = 0.05, wrong = { { value = 200, feedback = 'W.' } } }"),
                        "0|W.");
    /* units as wb.number reads them; no unit means a plain number */
    assert_string_equal(lab_grade("0.32 s", "{ ref = 320 }", "{ unit = 'ms' }"), "1|Right.");
    assert_string_equal(lab_grade("56%", "{ ref = 0.56 }", "nil"), "1|Right.");
    /* unreadable: invalid with wb.number's reason */
    assert_non_null(strstr(lab_grade("abc", "{ ref = 1 }", "{}"), "invalid|Could not read that: "));
    assert_non_null(
        strstr(lab_grade("2 GB", "{ ref = 1 }", "{ unit = 'x' }"), "invalid|Could not read"));
    /* no finite reference: explained, not graded: the note (leading blank
     * lines dropped), else `missing`, else the default */
    assert_string_equal(lab_grade("1", "{ note = '\\n\\n(Run P=2.)' }", OPTS),
                        "invalid|(Run P=2.)");
    assert_string_equal(lab_grade("1", "{ ref = 0/0, note = '' }", "{ missing = 'M.' }"),
                        "invalid|M.");
    assert_string_equal(lab_grade("1", "{ ref = '?', note = '  ' }", "{}"),
                        "invalid|Your latest run lacks the figure this question needs. Run the lab "
                        "again with its defaults.");
    assert_string_equal(
        probe("return wb.lab.grade('1', {}).feedback"),
        "Your latest run lacks the figure this question needs. Run the lab again with "
        "its defaults.");
    /* a pack cannot replace wb.within or wb.number (the library is shared by
     * every grading, so it is read-only); wb.lab.grade reads and compares
     * answers itself anyway */
    assert_non_null(strstr(probe("wb.within = function() return true end"),
                           "cannot set wb.within: wb is read-only"));
    assert_string_equal(probe("local ok = pcall(function() wb.number = function() return 2.5 "
                              "end end)\n"
                              "local s = wb.lab.grade('7', { params = { ref = 2.5 } })\n"
                              "return tostring(ok) .. '|' .. s.score .. '|' .. s.feedback"),
                        "false|0|Not within the accepted tolerance (±1%). Check the formula and "
                        "the arithmetic.");
    /* misuse raises, naming what is wrong, whatever the answer */
    assert_non_null(strstr(lab_grade("1", "{ ref = 1 }", "{ wrong = 5 }"),
                           "wrong must be a table, got number"));
    assert_non_null(strstr(lab_grade("1", "{}", "{ wrong = { { value = 2 } } }"),
                           "wrong[1].feedback must be a string"));
    assert_non_null(
        strstr(lab_grade("1", "{ ref = 1 }", "{ wrong = { { value = '2', feedback = 'x' } } }"),
               "wrong[1].value must be a number or a function, got string"));
    assert_non_null(strstr(lab_grade("1", "{ ref = 1 }", "{ explain = 3 }"), "explain must be"));
    assert_non_null(strstr(lab_grade("1", "{ ref = 1 }", "{ explain = function() return 3 end }"),
                           "explain returned a number, not a string"));
    assert_non_null(strstr(lab_grade("1", "{ ref = 1 }", "{ tol = 'x' }"), "tol must be"));
    assert_non_null(strstr(lab_grade("1", "{ ref = 1 }", "{ tol = { rel = '1%' } }"),
                           "tol.rel must be a number, got string"));
    assert_non_null(strstr(lab_grade("1", "{ ref = 1 }", "{ bands = { { rel = 0.1 } } }"),
                           "bands[1].score must be a number"));
    assert_non_null(strstr(lab_grade("1", "{ ref = 1 }", "{ unit = 5 }"), "unit must be a string"));
    assert_non_null(
        strstr(probe("return select(2, pcall(wb.lab.grade, '1', { params = { ref = 1 } },"
                     " { unit = 'furlongs' }))"),
               "unknown unit"));
}

static void test_lab_question_with_wb_lab(void **state)
{
    (void)state;
    struct grader_kv params[] = {{.key = "mode", .str = "sync", .is_num = false}};
    struct grader_kv summary[] = {{.key = "s2", .num = 1.8, .is_num = true}};
    struct grader_lab_run run = {.id = 7,
                                 .lab = "amdahl",
                                 .finished_at = "2026-01-01T00:00:00Z",
                                 .params = params,
                                 .n_params = 1,
                                 .summary = summary,
                                 .n_summary = 1};
    struct grader_ctx ctx = {.user = "alice", .variant = 1, .lab = &run};
    struct grader_view v;
    struct core_err err;
    assert_int_equal(grader_question_view(pack, "labg", &ctx, &v, &err), 0);
    assert_string_equal(v.prompt, "S(2) = 1.8 in sync");
    grader_view_fini(&v);
    expect_ctx("labg", &ctx, "90", 1, "Right. S/2 = 90% (run 7).");
    /* a wrong answer: its feedback, never the worked answer; that is the
     * reference, shown with a give-up or the last try */
    expect_ctx("labg", &ctx, "0.9", 0, "A fraction.");
    expect_ctx("labg", &ctx, "80", 0, "Not within the accepted tolerance (±1%)");
    struct grader_result wr;
    assert_int_equal(grader_question_grade(pack, "labg", &ctx, "80", &wr, &err), 0);
    assert_null(strstr(wr.feedback, "90"));
    assert_string_equal(wr.reference, "S/2 = 90% (run 7).");
    grader_result_fini(&wr);
    expect_ctx("labg", &ctx, "ninety", INVALID, "Could not read that");
    /* a run without the figure: the prompt renders, grading explains */
    struct grader_kv other[] = {{.key = "mode", .str = "async", .is_num = false}};
    struct grader_lab_run old = {.id = 8, .lab = "amdahl", .summary = other, .n_summary = 1};
    struct grader_ctx ctx2 = {.user = "alice", .variant = 1, .lab = &old};
    assert_int_equal(grader_question_view(pack, "labg", &ctx2, &v, &err), 0);
    assert_string_equal(v.prompt, "S(2) = ? in async\n\n(This run has no S(2).)");
    grader_view_fini(&v);
    expect_ctx("labg", &ctx2, "90", INVALID, "(This run has no S(2).)");
    /* before any run: the grader asks for one, wb.lab is not reached */
    expect("labg", "90", INVALID, "Run the lab 'amdahl' first");

    /* misuse is a pack error at the line that called wb.lab.grade */
    struct grader_result r;
    char where[32];
    assert_int_equal(grader_question_grade(pack, "labbad", &ALICE, "1", &r, &err), CORE_ERR_SCRIPT);
    snprintf(where, sizeof where, "k.lua:%d:", lesson_line("labbad call"));
    assert_non_null(strstr(err.msg, where));
    assert_non_null(
        strstr(err.msg, "wb.lab.grade(answer, ctx, opts): wrong must be a table, got number"));
    assert_int_equal(grader_question_grade(pack, "labbad", &ALICE, "fig", &r, &err),
                     CORE_ERR_SCRIPT);
    snprintf(where, sizeof where, "k.lua:%d:", lesson_line("labbad figure"));
    assert_non_null(strstr(err.msg, where));
    assert_non_null(strstr(err.msg, "wb.lab.figure(ctx, key): key must be a string, got number"));
    /* the sandbox's limits hold inside wb.lab.grade's callbacks, named where they hit */
    assert_int_equal(grader_question_grade(pack, "labloop", &ALICE, "1", &r, &err), CORE_ERR_LIMIT);
    snprintf(where, sizeof where, "k.lua:%d:", lesson_line("labloop spin"));
    assert_non_null(strstr(err.msg, where));
    assert_non_null(strstr(err.msg, "limit"));
}

static void test_kind_names(void **state)
{
    (void)state;
    assert_string_equal(grader_kind_name(GRADER_NUMERIC), "numeric");
    assert_string_equal(grader_kind_name(GRADER_CHOICE), "choice");
    assert_string_equal(grader_kind_name(GRADER_MULTI), "multi");
    assert_string_equal(grader_kind_name(GRADER_ORDERING), "ordering");
    assert_string_equal(grader_kind_name(GRADER_TEXT), "text");
    assert_string_equal(grader_kind_name(GRADER_DESIGN), "design");
}

static void test_never_crashes(void **state)
{
    (void)state;
    /* Odd answers to every kind: graded or invalid, never an error. */
    static const char *const qids[] = {"num", "ms", "pct", "ch", "mu", "ord", "txt", "des"};
    static const char *const answers[] = {
        "((((((((((1))))))))))",
        "-",
        "+",
        "%",
        "x",
        "×",
        "1e-400",
        "0x10",
        "inf",
        "-nan",
        "\xff\xfe",
        "a\tb\nc",
        "🙂",
        "a,,,,b",
        "((",
        "{}",
        "[[",
        "%b()",
        "1 2 3 4 5 6 7 8 9",
        "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"};
    for (size_t q = 0; q < sizeof qids / sizeof qids[0]; q++) {
        for (size_t a = 0; a < sizeof answers / sizeof answers[0]; a++) {
            struct grader_result r;
            struct core_err err;
            assert_int_equal(grader_question_grade(pack, qids[q], &ALICE, answers[a], &r, &err), 0);
            assert_non_null(r.feedback);
            assert_true(r.score >= 0 && r.score <= r.max);
            grader_result_fini(&r);
        }
    }
    /* a very long answer is invalid, not graded */
    size_t n = 70000;
    char *big = malloc(n + 1);
    memset(big, 'a', n);
    big[n] = '\0';
    expect("des", big, INVALID, "too long");
    free(big);
    struct grader_result r;
    struct core_err err;
    assert_int_equal(grader_question_grade(pack, "num", &ALICE, NULL, &r, &err), 0);
    assert_false(r.valid);
    grader_result_fini(&r);
}

/* Every form a custom grade may return, read as the driver reads it: a
 * third result marks a mistake (never on a right answer), a table's
 * `mistake`, `solution` (the result's reference), a number as feedback (as
 * tostring writes it), valid = false with or without feedback, and a score
 * that is not a number (the error names its type). Its own small pack. */
static void test_custom_grade_forms(void **state)
{
    (void)state;
    static const char pack_lua[] =
        "pack { id = \"test.cus\", title = \"C\", version = \"1\", lessons = { \"c.lua\" } }\n";
    static const char lesson_lua[] =
        "lesson { id = \"c\", title = \"Custom\", topics = { \"t\" } }\n"
        "question { id = \"forms\", kind = \"numeric\", prompt = \"?\", answer = 1,\n"
        "  grade = function(a, ctx)\n"
        "    if a == \"m\" then return 0.5, \"half\", true end\n"
        "    if a == \"full\" then return 1, \"ok\", true end\n"
        "    if a == \"mt\" then return { score = 0, feedback = \"t\", mistake = true } end\n"
        "    if a == \"n\" then return { score = 0.25, feedback = 42 } end\n"
        "    if a == \"s\" then return { score = 1, solution = \"the way\" } end\n"
        "    if a == \"iv\" then return { valid = false, feedback = 7 } end\n"
        "    if a == \"ivn\" then return { valid = false } end\n"
        "    if a == \"str\" then return \"0.5\" end\n"
        "    if a == \"tn\" then return { feedback = \"no score\" } end\n"
        "    return 0\n"
        "  end }\n";
    struct grader_file files[] = {{"pack.lua", pack_lua, sizeof pack_lua - 1},
                                  {"c.lua", lesson_lua, sizeof lesson_lua - 1}};
    struct core_strlist problems;
    core_strlist_init(&problems);
    struct core_err err = {0};
    struct grader_pack *cp = NULL;
    assert_int_equal(grader_pack_new(&cp, files, 2, NULL, &problems, &err), 0);
    core_strlist_fini(&problems);
    struct grader_result r;

    assert_int_equal(grader_question_grade(cp, "forms", &ALICE, "m", &r, &err), 0);
    assert_true(r.valid && !r.correct && r.mistake && r.score == 0.5 * r.max);
    assert_string_equal(r.feedback, "half");
    grader_result_fini(&r);
    assert_int_equal(grader_question_grade(cp, "forms", &ALICE, "full", &r, &err), 0);
    assert_true(r.correct && !r.mistake);
    grader_result_fini(&r);
    assert_int_equal(grader_question_grade(cp, "forms", &ALICE, "mt", &r, &err), 0);
    assert_true(r.valid && r.mistake && r.score == 0);
    assert_string_equal(r.feedback, "t");
    grader_result_fini(&r);
    assert_int_equal(grader_question_grade(cp, "forms", &ALICE, "n", &r, &err), 0);
    assert_true(r.valid && !r.mistake && r.score == 0.25 * r.max);
    assert_string_equal(r.feedback, "42");
    grader_result_fini(&r);
    assert_int_equal(grader_question_grade(cp, "forms", &ALICE, "s", &r, &err), 0);
    assert_true(r.correct);
    assert_string_equal(r.feedback, "Correct.");
    assert_string_equal(r.reference, "the way");
    grader_result_fini(&r);
    assert_int_equal(grader_question_grade(cp, "forms", &ALICE, "iv", &r, &err), 0);
    assert_false(r.valid);
    assert_string_equal(r.feedback, "7");
    grader_result_fini(&r);
    assert_int_equal(grader_question_grade(cp, "forms", &ALICE, "ivn", &r, &err), 0);
    assert_false(r.valid);
    assert_string_equal(r.feedback, "The answer could not be read.");
    grader_result_fini(&r);
    assert_int_equal(grader_question_grade(cp, "forms", &ALICE, "str", &r, &err), CORE_ERR_SCRIPT);
    assert_non_null(strstr(err.msg, "c.lua:2: question forms: grade must return a fraction"));
    assert_non_null(strstr(err.msg, "got string"));
    assert_int_equal(grader_question_grade(cp, "forms", &ALICE, "tn", &r, &err), CORE_ERR_SCRIPT);
    assert_non_null(strstr(err.msg, "got nil"));
    grader_pack_free(cp);
}

/* A whole-count answer written as the course writes it: with integer =
 * true, '/' between whole numbers may be C's integer division, so the
 * cheatsheet's (n + 255) / 256 typed literally is right; without it, the
 * same text is wrong and the feedback says why; answers off only by
 * rounding say which way to round. Its own small pack, checked by
 * grader_pack_new's self-tests (the examples). */
static void test_numeric_integer(void **state)
{
    (void)state;
    static const char pack_lua[] =
        "pack { id = \"test.int\", title = \"I\", version = \"1\", lessons = { \"i.lua\" } }\n";
    static const char lesson_lua[] =
        "lesson { id = \"i\", title = \"Integers\", topics = { \"t\" } }\n"
        "question { id = \"blocks\", kind = \"numeric\", integer = true,\n"
        "  prompt = \"Blocks of 256 threads for n = {n}?\",\n"
        "  params = function(rng) return { n = 1000 } end,\n"
        "  answer = function(p) return math.ceil(p.n / 256) end,\n"
        "  examples = { { \"(1000 + 255) / 256\", 1 }, { \"ceil(1000/256)\", 1 },\n"
        "    { \"(1000+255)//256\", 1 }, { \"1000/256\", 0 }, { \"4.9\", 0 } } }\n"
        "question { id = \"real\", kind = \"numeric\", prompt = \"?\", answer = 4,\n"
        "  examples = { { \"(1000 + 255) / 256\", 0 }, { \"ceil(1000/256)\", 1 } } }\n"
        "question { id = \"half\", kind = \"numeric\", integer = true, prompt = \"?\", answer = "
        "2.5 }\n";
    struct grader_file files[] = {{"pack.lua", pack_lua, sizeof pack_lua - 1},
                                  {"i.lua", lesson_lua, sizeof lesson_lua - 1}};
    struct core_strlist problems;
    core_strlist_init(&problems);
    struct core_err err = {0};
    struct grader_pack *ip = NULL;
    assert_int_equal(grader_pack_new(&ip, files, 2, NULL, &problems, &err), 0);
    /* pack check: the examples all pass; the only problem is "half"'s reference */
    assert_int_equal(grader_pack_selftest(ip, &problems, NULL), 1);
    for (size_t i = 0; i < problems.n; i++)
        fprintf(stderr, "problem: %s\n", problems.items[i]);
    assert_int_equal(problems.n, 1);
    assert_non_null(strstr(problems.items[0], "half"));
    assert_non_null(strstr(problems.items[0], "integer = true, but the reference 2.5 is not a "
                                              "whole number"));
    core_strlist_fini(&problems);
    struct grader_result r;
    assert_int_equal(grader_question_grade(ip, "blocks", &ALICE, "(1000 + 255) / 256", &r, &err),
                     0);
    assert_true(r.correct && r.value == 4);
    assert_non_null(strstr(r.feedback, "C's integer division"));
    grader_result_fini(&r);
    assert_int_equal(grader_question_grade(ip, "blocks", &ALICE, "1000/256", &r, &err), 0);
    assert_true(r.valid && !r.correct && r.score == 0);
    assert_non_null(strstr(r.feedback, "3.90625 is not a whole number"));
    assert_non_null(strstr(r.feedback, "round it up"));
    grader_result_fini(&r);
    assert_int_equal(grader_question_grade(ip, "blocks", &ALICE, "4.9", &r, &err), 0);
    assert_non_null(strstr(r.feedback, "round it down"));
    grader_result_fini(&r);
    assert_int_equal(grader_question_grade(ip, "real", &ALICE, "(1000 + 255) / 256", &r, &err), 0);
    assert_true(r.valid && !r.correct && r.value == 1255.0 / 256);
    assert_non_null(strstr(r.feedback, "is 4.90234 with real division"));
    assert_non_null(strstr(r.feedback, "C's integer division would truncate it"));
    grader_result_fini(&r);
    assert_int_equal(grader_question_grade(ip, "real", &ALICE, "(1000+255)//256", &r, &err), 0);
    assert_true(r.correct);
    grader_result_fini(&r);
    grader_pack_free(ip);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numeric_integer),
        cmocka_unit_test(test_numeric),
        cmocka_unit_test(test_numeric_units_and_tolerance),
        cmocka_unit_test(test_choice),
        cmocka_unit_test(test_multi),
        cmocka_unit_test(test_ordering),
        cmocka_unit_test(test_text),
        cmocka_unit_test(test_design),
        cmocka_unit_test(test_design_evidence),
        cmocka_unit_test(test_design_without_model),
        cmocka_unit_test(test_custom_grade),
        cmocka_unit_test(test_custom_grade_forms),
        cmocka_unit_test(test_lab_question),
        cmocka_unit_test(test_view),
        cmocka_unit_test(test_variants),
        cmocka_unit_test(test_wb_library),
        cmocka_unit_test(test_wb_finite_and_lab_readers),
        cmocka_unit_test(test_wb_lab_grade),
        cmocka_unit_test(test_lab_question_with_wb_lab),
        cmocka_unit_test(test_kind_names),
        cmocka_unit_test(test_never_crashes),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
