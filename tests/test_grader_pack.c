/*
 * test_grader_pack.c — pack evaluation: the model built from a good pack,
 * one test per class of pack problem (each message must name the right
 * file:line and say what is wrong), problems collected across files, the
 * self-tests (reference answers and examples), the lesson-file slicer, the
 * text helpers, and the built-in pack under lessons/packs/core.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cmocka_skip.h"
#include "grader_test_util.h"

#include "core/core.h"
#include "grader/grader.h"
#include "grader/pure/grader_pure.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char PACK_LUA[] = "pack { id = \"test.pack\", title = \"Pack\", version = \"1.0\",\n"
                               "  description = \"About.\", lessons = { \"a.lua\" } }\n";

/* Loads pack.lua (or `pack_lua`) plus a.lua (`a`) and optional b.lua. */
static int load(const char *pack_lua, const char *a, const char *b, struct grader_pack **p,
                struct core_strlist *problems, struct core_err *err)
{
    struct grader_file files[3];
    size_t n = 0;
    const char *pl = pack_lua ? pack_lua : PACK_LUA;
    files[n++] = (struct grader_file){"pack.lua", pl, strlen(pl)};
    if (a)
        files[n++] = (struct grader_file){"a.lua", a, strlen(a)};
    if (b)
        files[n++] = (struct grader_file){"b.lua", b, strlen(b)};
    return grader_pack_new(p, files, n, NULL, problems, err);
}

/* Expects exactly one problem that contains every one of the NULL-ended strings. */
static void expect_problem(const char *pack_lua, const char *a, ...)
{
    struct grader_pack *p = (struct grader_pack *)1;
    struct core_strlist problems;
    core_strlist_init(&problems);
    struct core_err err = {0};
    int rc = load(pack_lua, a, NULL, &p, &problems, &err);
    bool ok = rc != 0 && p == NULL && problems.n == 1;
    va_list ap;
    va_start(ap, a);
    for (const char *want; ok && (want = va_arg(ap, const char *));)
        ok = strstr(problems.items[0], want) != NULL;
    va_end(ap);
    if (!ok) {
        fprintf(stderr, "rc %d, %zu problem(s):\n", rc, problems.n);
        for (size_t i = 0; i < problems.n; i++)
            fprintf(stderr, "  %s\n", problems.items[i]);
    }
    assert_true(ok);
    assert_string_equal(err.msg, problems.items[0]);
    assert_int_equal(err.code, rc);
    core_strlist_fini(&problems);
}

#define L1 "lesson { id = \"a\", title = \"A\" }\n"

/* ---- the model ----------------------------------------------------------------- */

static void test_model(void **state)
{
    (void)state;
    const char *a = L1
        "page [[\n# Speedup\ntext\n]]\n"                                              /* 2-5 */
        "question { id = \"q1\", kind = \"numeric\", prompt = \"p\", answer = 2.5,\n" /* 6 */
        "  unit = \"x\", hints = { \"h1\", \"h2\" }, examples = { { \"2.5\", 1 } } }\n"
        "page { title = \"Two\", text = \"more\" }\n" /* 8 */
        "question { id = \"q2\", kind = \"choice\", title = \"T\", prompt = \"p\", points = 3,\n"
        "  choices = { \"x\", \"y\", \"z\" }, answer = 1, topics = { \"own\" }, lab = \"amdahl\",\n"
        "  params = function() return {} end }\n";
    const char *b =
        "lesson { id = \"b\", title = \"B\", topics = { \"bt\" }, rubric = { \"theory.b\" } }\n"
        "question { id = \"q3\", kind = \"design\", prompt = \"p\",\n"
        "  concepts = { { name = \"c\", match = { \"c\" } } } }\n";
    const char *pl = "pack { id = \"test.pack\", title = \"Pack\", version = \"1.0\", "
                     "description = \"About.\", lessons = { \"a.lua\", \"b.lua\" } }\n";
    struct grader_file files[] = {{"pack.lua", pl, strlen(pl)},
                                  {"a.lua", a, strlen(a)},
                                  {"b.lua", b, strlen(b)},
                                  {"README.md", "# not lua", 9}};
    struct grader_pack *p;
    struct core_err err = {0};
    struct core_strlist problems;
    core_strlist_init(&problems);
    int rc = grader_pack_new(&p, files, 4, NULL, &problems, &err);
    for (size_t i = 0; i < problems.n; i++)
        fprintf(stderr, "%s\n", problems.items[i]);
    assert_int_equal(rc, 0);
    assert_int_equal(problems.n, 0);
    const struct grader_pack_info *info = grader_pack_info(p);
    assert_string_equal(info->id, "test.pack");
    assert_string_equal(info->title, "Pack");
    assert_string_equal(info->version, "1.0");
    assert_string_equal(info->description, "About.");
    assert_int_equal(info->n_lessons, 2);
    const struct grader_lesson *la = &info->lessons[0];
    assert_string_equal(la->id, "a");
    assert_string_equal(la->title, "A");
    assert_string_equal(la->file, "a.lua");
    assert_int_equal(la->line, 1);
    assert_int_equal(la->n_pages, 2);
    assert_string_equal(la->pages[0].title, "Speedup");
    assert_int_equal(la->pages[0].line, 2);
    assert_string_equal(la->pages[1].title, "Two");
    assert_string_equal(la->pages[1].markdown, "more");
    assert_int_equal(la->n_questions, 2);
    const struct grader_question *q1 = &la->questions[0], *q2 = &la->questions[1];
    assert_string_equal(q1->id, "q1");
    assert_int_equal(q1->kind, GRADER_NUMERIC);
    assert_null(q1->title);
    assert_string_equal(q1->unit, "x");
    assert_true(q1->points == 1);
    assert_int_equal(q1->n_hints, 2);
    assert_int_equal(q1->n_examples, 1);
    assert_int_equal(q1->n_topics, 0);
    assert_false(q1->has_params);
    assert_false(q1->has_grade);
    assert_null(q1->lab);
    assert_string_equal(q1->file, "a.lua");
    assert_int_equal(q1->line, 6);
    assert_int_equal(q1->page_after, 0);
    assert_string_equal(q2->title, "T");
    assert_true(q2->points == 3);
    assert_int_equal(q2->n_choices, 3);
    assert_int_equal(q2->n_topics, 1);
    assert_string_equal(q2->topics[0], "own");
    assert_string_equal(q2->lab, "amdahl");
    assert_true(q2->has_params);
    assert_int_equal(q2->page_after, 1);
    const struct grader_question *q3 = &info->lessons[1].questions[0];
    assert_int_equal(q3->kind, GRADER_DESIGN);
    assert_int_equal(q3->n_topics, 1); /* the lesson's defaults */
    assert_string_equal(q3->topics[0], "bt");
    assert_string_equal(q3->rubric[0], "theory.b");
    assert_int_equal(q3->page_after, -1);
    assert_ptr_equal(grader_pack_question(p, "q3"), q3);
    assert_null(grader_pack_question(p, "q4"));
    grader_pack_free(p);
    grader_pack_free(NULL);
    core_strlist_fini(&problems);
}

/* ---- one test per class of problem ----------------------------------------------- */

static void test_unknown_field(void **state)
{
    (void)state;
    expect_problem(
        NULL, L1 "\n\nquestion { id = \"q\", kind = \"numeric\", promt = \"p\", answer = 1 }\n",
        "a.lua:4: question q: unknown field 'promt' (did you mean 'prompt'?)", NULL);
    expect_problem(NULL,
                   L1 "question { id = \"q\", kind = \"numeric\", prompt = \"p\", answer = 1, "
                      "zzzzzz = 1 }\n",
                   "a.lua:2:", "unknown field 'zzzzzz'", NULL);
    expect_problem(NULL, "lesson { id = \"a\", titel = \"A\" }\n",
                   "a.lua:1: lesson a:", "unknown field 'titel' (did you mean 'title'?)", NULL);
    expect_problem("pack { id = \"x\", title = \"X\", version = \"1\", lesson = { \"a.lua\" },\n"
                   "  lessons = { \"a.lua\" } }\n",
                   L1, "pack.lua:1: pack x: unknown field 'lesson' (did you mean 'lessons'?)",
                   NULL);
    /* a field of another kind */
    expect_problem(NULL,
                   L1 "question { id = \"q\", kind = \"numeric\", prompt = \"p\", answer = 1,\n"
                      "  items = { \"a\", \"b\" } }\n",
                   "a.lua:2:", "field 'items' does not apply to a numeric question", "ordering",
                   NULL);
    /* in a nested table */
    expect_problem(NULL,
                   L1 "question { id = \"q\", kind = \"numeric\", prompt = \"p\", answer = 1,\n"
                      "  bands = { { rel = 0.1, scor = 0.5 } } }\n",
                   "a.lua:2: question q: band 1:", "'scor' (did you mean 'score'?)", NULL);
}

static void test_missing_field(void **state)
{
    (void)state;
    expect_problem(NULL, L1 "question { kind = \"numeric\", prompt = \"p\", answer = 1 }\n",
                   "a.lua:2: question: missing required field 'id'", NULL);
    expect_problem(NULL, L1 "question { id = \"q\", kind = \"numeric\", answer = 1 }\n",
                   "a.lua:2: question q: missing required field 'prompt'", NULL);
    expect_problem(NULL, L1 "question { id = \"q\", prompt = \"p\" }\n",
                   "a.lua:2: question q: missing required field 'kind'", NULL);
    expect_problem(NULL, "lesson { id = \"a\" }\n",
                   "a.lua:1: lesson a: missing required field 'title'", NULL);
    expect_problem("pack { id = \"x\", title = \"X\", lessons = { \"a.lua\" } }\n", L1,
                   "pack.lua:1: pack x: missing required field 'version'", NULL);
    expect_problem(NULL,
                   L1 "question { id = \"q\", kind = \"choice\", prompt = \"p\", answer = 1 }\n",
                   "a.lua:2:", "needs 'choices'", NULL);
    expect_problem(NULL, L1 "question { id = \"q\", kind = \"numeric\", prompt = \"p\" }\n",
                   "a.lua:2: question q:", "needs 'answer'", "custom 'grade'", NULL);
    expect_problem(NULL,
                   L1 "question { id = \"q\", kind = \"numeric\", prompt = \"p\",\n"
                      "  answer = 1, examples = { { \"1\" } } }\n",
                   "a.lua:2: question q: example 1:", "expected score", NULL);
}

static void test_wrong_type(void **state)
{
    (void)state;
    expect_problem(NULL,
                   L1 "question { id = \"q\", kind = \"numeric\", prompt = \"p\", answer = 1,\n"
                      "  points = \"two\" }\n",
                   "a.lua:2: question q: field 'points' must be a number, got string", NULL);
    expect_problem(NULL,
                   L1 "question { id = \"q\", kind = \"choice\", prompt = \"p\", answer = 1,\n"
                      "  choices = \"a, b\" }\n",
                   "a.lua:2:", "field 'choices' must be a list of strings, got string", NULL);
    expect_problem(NULL,
                   L1 "question { id = \"q\", kind = \"numeric\", prompt = \"p\", answer = 1,\n"
                      "  hints = { 1, 2 } }\n",
                   "a.lua:2:",
                   "'hints' must be a list of strings (or { text = ..., public = true } "
                   "tables), got number at entry 1",
                   NULL);
    expect_problem(
        NULL, L1 "question { id = \"q\", kind = \"numeric\", prompt = \"p\", answer = \"2.5\" }\n",
        "a.lua:2:", "field 'answer' must be a number or a function, got string", NULL);
    expect_problem(NULL,
                   L1 "question { id = \"q\", kind = \"numeric\", prompt = \"p\", answer = 1,\n"
                      "  points = -1 }\n",
                   "a.lua:2:", "points must be a number > 0", NULL);
    expect_problem(NULL, L1 "page(42)\n", "a.lua:2: page:", "Markdown", "got number", NULL);
    expect_problem(NULL, L1 "question \"q\"\n", "a.lua:2: question:", "expects a table", NULL);
}

static void test_duplicate_id(void **state)
{
    (void)state;
    expect_problem(NULL,
                   L1 "question { id = \"q\", kind = \"numeric\", prompt = \"p\", answer = 1 }\n"
                      "question { id = \"q\", kind = \"numeric\", prompt = \"p\", answer = 2 }\n",
                   "a.lua:3: question q: duplicate question id (first used at a.lua:2)", NULL);
    /* across files, and lesson ids */
    const char *pl =
        "pack { id = \"x\", title = \"X\", version = \"1\", lessons = { \"a.lua\", \"b.lua\" } }\n";
    struct grader_pack *p;
    struct core_strlist problems;
    core_strlist_init(&problems);
    struct core_err err;
    assert_int_equal(
        load(pl, L1 "question { id = \"q\", kind = \"numeric\", prompt = \"p\", answer = 1 }\n",
             "\n" L1 "question { id = \"q\", kind = \"numeric\", prompt = \"p\", answer = 1 }\n",
             &p, &problems, &err),
        CORE_ERR_INVALID);
    assert_int_equal(problems.n, 2);
    assert_non_null(strstr(problems.items[0], "b.lua:3: question q: duplicate question id (first "
                                              "used at a.lua:2)"));
    assert_non_null(strstr(problems.items[1], "b.lua:2: lesson a: duplicate lesson id (first used "
                                              "at a.lua:1)"));
    core_strlist_fini(&problems);
}

static void test_unknown_kind_and_ids(void **state)
{
    (void)state;
    expect_problem(NULL,
                   L1 "question { id = \"q\", kind = \"numerical\", prompt = \"p\", answer = 1 }\n",
                   "a.lua:2: question q: unknown kind 'numerical' (did you mean 'numeric'?", NULL);
    expect_problem(NULL,
                   L1 "question { id = \"Q 1\", kind = \"numeric\", prompt = \"p\", answer = 1 }\n",
                   "a.lua:2: question Q 1: id 'Q 1' is not valid", NULL);
    expect_problem(NULL,
                   L1 "question { id = \"q\", kind = \"numeric\", prompt = \"p\", answer = 1,\n"
                      "  lab = \"Not A Lab\" }\n",
                   "a.lua:2:", "lab 'Not A Lab' is not valid", NULL);
    expect_problem(NULL,
                   L1 "question { id = \"q\", kind = \"numeric\", prompt = \"p\", answer = 1,\n"
                      "  unit = \"furlongs\" }\n",
                   "a.lua:2:", "unknown unit 'furlongs'", NULL);
}

static void test_files(void **state)
{
    (void)state;
    /* listed but missing: the pack{} line */
    expect_problem("-- a comment\n\npack { id = \"x\", title = \"X\", version = \"1\",\n"
                   "  lessons = { \"a.lua\", \"nosuch.lua\" } }\n",
                   L1, "pack.lua:3: lesson file 'nosuch.lua' is listed in lessons but missing",
                   NULL);
    /* a .lua file that is not listed */
    struct grader_file files[] = {{"pack.lua", PACK_LUA, strlen(PACK_LUA)},
                                  {"a.lua", L1, strlen(L1)},
                                  {"extra.lua", "x = 1\n", 6}};
    struct grader_pack *p;
    struct core_strlist problems;
    core_strlist_init(&problems);
    struct core_err err;
    assert_int_equal(grader_pack_new(&p, files, 3, NULL, &problems, &err), CORE_ERR_INVALID);
    assert_int_equal(problems.n, 1);
    assert_non_null(strstr(problems.items[0], "extra.lua:1: this file is not listed"));
    core_strlist_fini(&problems);
    /* no pack.lua at all */
    core_strlist_init(&problems);
    assert_int_equal(grader_pack_new(&p, files + 1, 1, NULL, &problems, &err), CORE_ERR_INVALID);
    assert_non_null(strstr(problems.items[0], "pack.lua: missing"));
    core_strlist_fini(&problems);
    /* pack.lua without pack{}, twice pack{}, constructors in the wrong file */
    expect_problem("x = 1\n", L1, "pack.lua:1: pack.lua must call pack", NULL);
    expect_problem("pack { id = \"x\", title = \"X\", version = \"1\", lessons = { \"a.lua\" } }\n"
                   "pack { id = \"y\", title = \"Y\", version = \"1\", lessons = { \"a.lua\" } }\n",
                   L1, "pack.lua:2: pack: pack{} is called again (first at line 1)", NULL);
    expect_problem(NULL, L1 "pack { id = \"y\" }\n", "a.lua:2: pack: pack{} belongs in pack.lua",
                   NULL);
    expect_problem(NULL,
                   "question { id = \"q\", kind = \"numeric\", prompt = \"p\", answer = 1 }\n" L1,
                   "a.lua:1: question:", "before lesson{}", NULL);
    expect_problem(NULL, L1 "lesson { id = \"b\", title = \"B\" }\n",
                   "a.lua:2: lesson: lesson{} is called again (first at line 1)", NULL);
    expect_problem(NULL, "-- empty\n", "a.lua:1: no lesson", NULL);
    /* syntax and runtime errors at load time */
    expect_problem(NULL, L1 "question { id = \"q\" kind = \"numeric\" }\n", "a.lua:2:", "expected",
                   NULL);
    expect_problem(NULL, L1 "local x = nil + 1\n", "a.lua:2:", "arithmetic", NULL);
}

static void test_references_and_placeholders(void **state)
{
    (void)state;
    expect_problem(NULL,
                   L1 "question { id = \"q\", kind = \"choice\", prompt = \"p\",\n"
                      "  choices = { \"a\", \"b\" }, answer = 3 }\n",
                   "a.lua:2: question q: answer 3 is out of range: there are 2 choices", NULL);
    expect_problem(NULL,
                   L1 "question { id = \"q\", kind = \"multi\", prompt = \"p\",\n"
                      "  choices = { \"a\", \"b\" }, answer = { 1, 1 } }\n",
                   "a.lua:2:", "answer lists choice 1 twice", NULL);
    /* a function answer out of range is found by running it */
    expect_problem(NULL,
                   L1 "question { id = \"q\", kind = \"choice\", prompt = \"p\",\n"
                      "  choices = { \"a\", \"b\" }, answer = function() return 5 end }\n",
                   "a.lua:2: question q:", "answer 5 is out of range", NULL);
    expect_problem(NULL,
                   L1 "question { id = \"q\", kind = \"numeric\", prompt = \"p\",\n"
                      "  answer = function() return \"x\" end }\n",
                   "a.lua:2: question q:", "answer must give a number, got string", NULL);
    expect_problem(NULL,
                   L1 "question { id = \"q\", kind = \"numeric\", prompt = \"f = {f}, g = {g}\",\n"
                      "  params = function(rng) return { f = 1, p = 2 } end, answer = 1 }\n",
                   "a.lua:2: question q: variant 1 (f=1, p=2): prompt uses {g}, which params "
                   "does not set (it sets f, p)",
                   NULL);
    expect_problem(NULL,
                   L1 "question { id = \"q\", kind = \"numeric\", prompt = \"{f:%d}\",\n"
                      "  params = function(rng) return { f = 0.5 } end, answer = 1 }\n",
                   "a.lua:2: question q: variant 1 (f=0.5): prompt placeholder {f:%d} needs a "
                   "whole number",
                   NULL);
    expect_problem(NULL,
                   L1 "question { id = \"q\", kind = \"numeric\", prompt = \"{f:%q}\",\n"
                      "  params = function(rng) return { f = 0.5 } end, answer = 1 }\n",
                   "a.lua:2: question q: variant 1 (f=0.5): prompt placeholder {f:%q} has the "
                   "format",
                   NULL);
    expect_problem(NULL,
                   L1 "question { id = \"q\", kind = \"numeric\", prompt = \"p\",\n"
                      "  hints = { \"{nope}\" }, answer = 1 }\n",
                   "a.lua:2: question q: hint 1 uses {nope}", NULL);
    /* params that errors: its own line, and which question */
    expect_problem(NULL,
                   L1 "question { id = \"q\", kind = \"numeric\", prompt = \"p\", answer = 1,\n"
                      "  params = function(rng)\n"
                      "    return { f = nil + 1 }\n"
                      "  end }\n",
                   "a.lua:2: question q: variant 1: a.lua:4: attempt to perform arithmetic on a "
                   "nil value",
                   "params of question q", NULL);
    expect_problem(NULL,
                   L1 "question { id = \"q\", kind = \"numeric\", prompt = \"p\", answer = 1,\n"
                      "  params = function(rng) return 5 end }\n",
                   "a.lua:2: question q: variant 1: params must return a table", NULL);
    /* patterns are checked up front */
    expect_problem(NULL,
                   L1 "question { id = \"q\", kind = \"text\", prompt = \"p\", answer = \"x\",\n"
                      "  patterns = { \"ok\", \"[a-z\" } }\n",
                   "a.lua:2: question q: pattern 2 ('[a-z'): malformed pattern (missing ']')",
                   NULL);
    expect_problem(NULL,
                   L1 "question { id = \"q\", kind = \"design\", prompt = \"p\",\n"
                      "  concepts = { { name = \"c\", patterns = { \"a%\" } } } }\n",
                   "a.lua:2: question q: concept 1: pattern 1 ('a%'):", "ends with '%'", NULL);
    expect_problem(NULL,
                   L1 "question { id = \"q\", kind = \"design\", prompt = \"p\",\n"
                      "  concepts = { { name = \"c\" } } }\n",
                   "a.lua:2: question q: concept 1:",
                   "give 'claims' (who does what), 'match' phrases, 'patterns' or 'near' groups",
                   NULL);
    expect_problem(NULL,
                   L1 "question { id = \"q\", kind = \"choice\", prompt = \"p\",\n"
                      "  choices = { \"a\", \"b\" }, answer = 1, why = { [3] = \"x\" } }\n",
                   "a.lua:2:", "'why' has an entry that is not a choice number", NULL);
}

static void test_all_problems_collected(void **state)
{
    (void)state;
    const char *pl = "pack { id = \"x\", title = \"X\", version = \"1\",\n"
                     "  lessons = { \"a.lua\", \"b.lua\", \"c.lua\" } }\n";
    const char *a =
        L1 "question { id = \"q1\", kind = \"numeric\", prompt = \"p\" }\n"
           "question { id = \"q2\", kind = \"numeric\", prompt = \"p\", answer = 1, pts = 2 }\n";
    const char *b = "lesson { id = \"b\", title = \"B\" }\nerror('broken')\n";
    const char *c = "lesson { id = \"c\", title = \"C\" }\n"
                    "question { id = \"q3\", kind = \"numeric\", prompt = \"p\", answer = 1 }\n"
                    "question { id = \"q4\", kind = \"numeric\", prompt = \"{x}\", answer = 1 }\n";
    struct grader_file files[] = {{"pack.lua", pl, strlen(pl)},
                                  {"a.lua", a, strlen(a)},
                                  {"b.lua", b, strlen(b)},
                                  {"c.lua", c, strlen(c)}};
    struct grader_pack *p;
    struct core_strlist problems;
    core_strlist_init(&problems);
    core_strlist_push(&problems, "an earlier item stays");
    struct core_err err;
    assert_int_equal(grader_pack_new(&p, files, 4, NULL, &problems, &err), CORE_ERR_INVALID);
    assert_int_equal(problems.n, 5);
    assert_string_equal(problems.items[0], "an earlier item stays");
    assert_non_null(strstr(problems.items[1], "a.lua:2: question q1:"));
    assert_non_null(strstr(problems.items[2], "a.lua:3: question q2: unknown field 'pts'"));
    assert_non_null(strstr(problems.items[3], "b.lua:2: broken"));
    assert_non_null(strstr(problems.items[4], "c.lua:3: question q4: prompt uses {x}"));
    assert_string_equal(err.msg, problems.items[1]);
    core_strlist_fini(&problems);
    /* problems may be NULL: the first still reaches err */
    assert_int_equal(grader_pack_new(&p, files, 4, NULL, NULL, &err), CORE_ERR_INVALID);
    assert_non_null(strstr(err.msg, "a.lua:2: question q1:"));
}

/* ---- self-tests -------------------------------------------------------------------- */

static void test_selftest(void **state)
{
    (void)state;
    const char *a = L1
        "question { id = \"good\", kind = \"numeric\", prompt = \"{p}\", unit = \"x\",\n" /* 2 */
        "  params = function(rng) return { p = rng:int(2, 8) } end,\n"
        "  answer = function(p) return wb.amdahl(0.2, p.p) end,\n"
        "  examples = { { answer = function(p) return string.format('%.4f', wb.amdahl(0.2, p.p)) "
        "end, score = 1 },\n"
        "    { params = { p = 4 }, answer = \"2.5\", score = 1 }, { \"abc\", \"invalid\" },\n"
        "    { answer = 1e6, score = 0 } } }\n"
        "question { id = \"bad\", kind = \"numeric\", prompt = \"p\", answer = 2.5,\n" /* 8 */
        "  examples = { { \"2.5\", 1 }, { \"4\", 1 }, { \"abc\", 0 }, { \"2.5\", \"invalid\" } } "
        "}\n"
        "question { id = \"stingy\", kind = \"text\", prompt = \"p\", answer = \"yes\",\n" /* 10 */
        "  grade = function(a) return 0.5 end }\n"
        "question { id = \"oops\", kind = \"numeric\", prompt = \"p\", answer = 1,\n" /* 12 */
        "  examples = { { answer = function() error('no') end, score = 1 } } }\n"
        "question { id = \"lab\", kind = \"numeric\", prompt = \"p\", lab = \"amdahl\",\n" /* 14 */
        "  answer = function(p, ctx) return ctx.lab.summary.s end,\n"
        "  examples = { { lab = { summary = { s = 3 } }, answer = \"3\", score = 1 },\n"
        "    { answer = \"3\", score = \"invalid\" } } }\n"
        "question { id = \"ord\", kind = \"ordering\", prompt = \"p\", items = { \"x\", \"y\", "
        "\"z\" } }\n";
    struct grader_pack *p;
    struct core_strlist problems;
    core_strlist_init(&problems);
    struct core_err err;
    assert_int_equal(load(NULL, a, NULL, &p, &problems, &err), 0);
    size_t runs = 0;
    int failures = grader_pack_selftest(p, &problems, &runs);
    for (size_t i = 0; i < problems.n; i++)
        fprintf(stderr, "  %s\n", problems.items[i]);
    /* good: ref + 4; bad: ref + 4; stingy: ref; oops: ref + 1; lab: ref + 2; ord: ref */
    assert_int_equal(runs, 5 + 5 + 1 + 2 + 3 + 1);
    assert_int_equal(failures, 5);
    assert_int_equal(problems.n, 5);
    assert_string_equal(problems.items[0],
                        "a.lua:8: question bad: example 2 ('4'): expected 1, got 0 (Not within the "
                        "accepted tolerance (±1%). Check the formula and the arithmetic.)");
    assert_non_null(strstr(problems.items[1],
                           "a.lua:8: question bad: example 3 ('abc'): expected 0, "
                           "got invalid ("));
    assert_string_equal(
        problems.items[2],
        "a.lua:8: question bad: example 4 ('2.5'): expected invalid, got 1 (Correct.)");
    assert_string_equal(problems.items[3], "a.lua:10: question stingy: the reference answer 'yes' "
                                           "scores 0.5, expected full marks (Incorrect.)");
    assert_non_null(strstr(problems.items[4], "a.lua:12: question oops: example 1: a.lua:13: no"));
    core_strlist_fini(&problems);
    grader_pack_free(p);
}

/* ---- the slicer and the text helpers --------------------------------------------------- */

/* The cut of src at keep_line (NULL when it cannot be cut), with its map. */
static char *cut(const char *src, int keep_line, struct grader_linemap *map)
{
    struct grader_slim_plan *pl = grader_slim_plan_new(src, strlen(src));
    size_t len;
    char *s = grader_slim_cut(pl, src, keep_line, &len, map);
    if (s)
        assert_int_equal(strlen(s), len);
    grader_slim_plan_free(pl);
    return s;
}

/* The line of the cut on which `needle` starts. */
static int line_of(const char *s, const char *needle)
{
    const char *at = strstr(s, needle);
    assert_non_null(at);
    int line = 1;
    for (const char *p = s; p < at; p++)
        line += *p == '\n';
    return line;
}

static void test_slim(void **state)
{
    (void)state;
    const char *src = "lesson { id = 'a', title = 'A' }\n"                             /* 1 */
                      "local function helper(x) return x * 2 end\n"                    /* 2 */
                      "page [==[\n]] question { id = 'fake' }\n]==]\n"                 /* 3-5 */
                      "question { id = 'q1', prompt = \"}\\\"{\", x = { [[ } ]] } }\n" /* 6 */
                      "-- question { id = 'comment' }\n"                               /* 7 */
                      "--[[ multi\nline ]] question({ id = 'q2',\n"                    /* 8-9 */
                      "  f = function() if x then return { } end end })\n"             /* 10 */
                      "local q = question { id = 'q3' }\n"                             /* 11 */
                      "do question { id = 'q4' } end\n"                                /* 12 */
                      "page { text = 'x' } question { id = 'q5' }\n";                  /* 13 */
    struct grader_linemap map;
    char *s = cut(src, 9, &map);
    assert_non_null(s);
    assert_true(strlen(s) < strlen(src)); /* the cut is smaller, not blanked */
    assert_non_null(strstr(s, "lesson { id = 'a'"));
    assert_non_null(strstr(s, "local function helper"));
    assert_null(strstr(s, "page [==["));
    assert_null(strstr(s, "'q1'"));
    assert_non_null(strstr(s, "question({ id = 'q2',"));
    assert_null(strstr(s, "-- question { id = 'comment' }"));       /* a gap of comments only */
    assert_non_null(strstr(s, "local q = question { id = 'q3' }")); /* not a statement call */
    assert_non_null(strstr(s, "do question { id = 'q4' } end"));    /* inside a block */
    assert_null(strstr(s, "'q5'"));
    assert_null(strstr(s, "text = 'x'"));
    /* every line of the cut maps back to its line in the file */
    assert_int_equal(grader_linemap_orig(&map, line_of(s, "lesson {")), 1);
    assert_int_equal(grader_linemap_orig(&map, line_of(s, "local function helper")), 2);
    assert_int_equal(grader_linemap_orig(&map, line_of(s, "question({ id = 'q2'")), 9);
    assert_int_equal(grader_linemap_orig(&map, line_of(s, "  f = function()")), 10);
    assert_int_equal(grader_linemap_orig(&map, line_of(s, "local q = question")), 11);
    assert_int_equal(grader_linemap_orig(&map, line_of(s, "do question")), 12);
    grader_linemap_fini(&map);
    free(s);
    s = cut(src, 6, &map);
    assert_non_null(s);
    assert_non_null(strstr(s, "'q1'"));
    assert_null(strstr(s, "'q2'"));
    assert_int_equal(grader_linemap_orig(&map, line_of(s, "question { id = 'q1'")), 6);
    grader_linemap_fini(&map);
    free(s);
    /* questions not at top level: the caller keeps the whole file */
    assert_null(cut(src, 11, &map));
    assert_null(cut(src, 12, &map));
    assert_null(cut(src, 4, &map)); /* inside a long string */
    assert_null(cut("question { 'x' ", 1, &map));
    assert_null(grader_slim_plan_new("question { 'x' ", 15));
}

/* Errors and limits in a cut file name the line of the full file. */
static void test_slim_positions(void **state)
{
    (void)state;
    const char *a =
        L1 "page [[\n\n\n]]\n"                                                     /* 2-5 */
           "question { id = 'a', kind = 'numeric', prompt = 'p', answer = 1 }\n"   /* 6 */
           "\n\n"                                                                  /* 7-8 */
           "question { id = 'b', kind = 'numeric', prompt = 'p',\n"                /* 9 */
           "  grade = function(ans)\n"                                             /* 10 */
           "    if ans == 'loop' then while true do end end\n"                     /* 11 */
           "    if ans == 'deep' then error('deep') end\n"                         /* 12 */
           "    return nil + 1\n"                                                  /* 13 */
           "  end }\n"                                                             /* 14 */
           "question { id = 'c', kind = 'numeric', prompt = 'p',\n"                /* 15 */
           "  answer = function(p, c) return c.variant == 2 and 'x' or 1 end }\n"; /* 16 */
    struct grader_pack *p;
    struct core_err err;
    assert_int_equal(load(NULL, a, NULL, &p, NULL, &err), 0);
    struct grader_ctx ctx = {.user = "u", .variant = 1};
    struct grader_result r;
    assert_int_equal(grader_question_grade(p, "b", &ctx, "x", &r, &err), CORE_ERR_SCRIPT);
    assert_non_null(strstr(err.msg, "a.lua:13:"));
    assert_int_equal(grader_question_grade(p, "b", &ctx, "deep", &r, &err), CORE_ERR_SCRIPT);
    assert_non_null(strstr(err.msg, "a.lua:12: deep"));
    assert_int_equal(grader_question_grade(p, "b", &ctx, "loop", &r, &err), CORE_ERR_LIMIT);
    assert_non_null(strstr(err.msg, "a.lua:11:"));
    /* a problem our C code words from the model keeps the model's line */
    struct grader_ctx ctx2 = {.user = "u", .variant = 2};
    assert_int_equal(grader_question_grade(p, "c", &ctx2, "1", &r, &err), CORE_ERR_SCRIPT);
    assert_non_null(strstr(err.msg, "a.lua:15: question c: answer must give a number"));
    grader_pack_free(p);
}

static void test_slim_fallback(void **state)
{
    (void)state;
    /* Questions made in a loop cannot be sliced; they still grade. */
    const char *a = L1 "for i = 1, 3 do\n"
                       "  question { id = 'q' .. i, kind = 'numeric', prompt = 'p', answer = i,\n"
                       "    examples = { { tostring(i), 1 } } }\n"
                       "end\n"
                       "local n = 0\n"
                       "local function id() n = n + 1 return 'z' .. n end\n"
                       "question { id = id(), kind = 'numeric', prompt = 'p', answer = 1 }\n"
                       "question { id = id(), kind = 'numeric', prompt = 'p', answer = 2 }\n";
    struct grader_pack *p;
    struct core_err err;
    assert_int_equal(load(NULL, a, NULL, &p, NULL, &err), 0);
    struct core_strlist problems;
    core_strlist_init(&problems);
    size_t runs;
    assert_int_equal(grader_pack_selftest(p, &problems, &runs), 0);
    assert_int_equal(runs, 3 * 2 + 2);
    struct grader_ctx ctx = {.user = "u", .variant = 1};
    struct grader_result r;
    assert_int_equal(grader_question_grade(p, "q2", &ctx, "2", &r, &err), 0);
    assert_true(r.correct);
    grader_result_fini(&r);
    /* z2 is only z2 when z1 was declared before it: the whole file again */
    assert_int_equal(grader_question_grade(p, "z2", &ctx, "2", &r, &err), 0);
    assert_true(r.correct);
    grader_result_fini(&r);
    core_strlist_fini(&problems);
    grader_pack_free(p);
}

/* A code question's declaration read into the model, and its problems. The
 * `code` table is read field by field (sizes walked, arrays, tolerance,
 * work, bands); a missing inputs list once popped the code table with the
 * problem and crashed pack check. */
#define CODE_Q(inputs, sizes, bands)                                                               \
    L1 "question { id = \"q\", kind = \"code\", prompt = \"p\", code = {\n"                        \
       "  signature = \"void scale(int n, const float *x, float *y)\",\n"                          \
       "  sizes = " sizes ",\n" inputs "  outputs = { y = { count = 8 } },\n"                      \
       "  tolerance = { rel = 1e-4, mismatch = 0.01 },\n"                                          \
       "  work = { flops = \"n\", bytes = 8 },\n"                                                  \
       "  bands = " bands ",\n"                                                                    \
       "  threads = 2, reps = 5, timeout = 3, memory = 64, flags = \"-O2\",\n"                     \
       "  starter = \"s\", reference = \"r\" } }\n"
#define CODE_IN "  inputs = { x = { count = \"n\", min = -4, max = 4 } },\n"
#define CODE_BANDS "{ { fraction = 0.05, score = 0.5 }, { fraction = 0.5, score = 1 } }"

static void test_code_decl(void **state)
{
    (void)state;
    struct grader_pack *p;
    struct core_err err = {0};
    const char *a = CODE_Q(CODE_IN, "{ n = 512 }", CODE_BANDS);
    assert_int_equal(load(NULL, a, NULL, &p, NULL, &err), 0);
    const struct grader_code *c = grader_pack_info(p)->lessons[0].questions[0].code;
    assert_non_null(c);
    assert_string_equal(c->func, "scale");
    assert_int_equal(c->n_params, 3);
    assert_int_equal(c->n_sizes, 1);
    assert_string_equal(c->size_names[0], "n");
    assert_true(c->size_values[0] == 512);
    assert_string_equal(c->params[1].count, "n");
    assert_true(c->params[1].lo == -4 && c->params[1].hi == 4);
    assert_string_equal(c->params[2].count, "8");
    assert_true(c->params[2].lo == -1 && c->params[2].hi == 1); /* the defaults */
    assert_true(c->rtol == 1e-4 && c->atol == 1e-6 && c->mismatch == 0.01);
    assert_string_equal(c->flops, "n");
    assert_string_equal(c->bytes, "8");
    assert_int_equal(c->n_bands, 2);
    assert_true(c->band_fraction[1] == 0.5 && c->band_score[0] == 0.5);
    assert_int_equal(c->threads, 2);
    assert_int_equal(c->reps, 5);
    assert_true(c->timeout_s == 3 && c->mem_mib == 64 && c->correct_share == 0.3);
    assert_string_equal(c->flags, "-O2");
    assert_string_equal(c->starter, "s");
    assert_string_equal(c->reference, "r");
    grader_pack_free(p);

    expect_problem(NULL, CODE_Q("", "{ n = 512 }", CODE_BANDS),
                   "a.lua:2: question q: code: code.inputs.x: the input array x needs { count = "
                   "... }",
                   NULL);
    expect_problem(NULL, CODE_Q("  inputs = { x = 5 },\n", "{ n = 512 }", CODE_BANDS),
                   "a.lua:2: question q: code: code.inputs.x: the input array x needs", NULL);
    expect_problem(NULL, CODE_Q("  inputs = {},\n", "{ n = 512 }", CODE_BANDS),
                   "a.lua:2: question q: code: code.inputs.x: the input array x needs", NULL);
    expect_problem(NULL, CODE_Q(CODE_IN, "{ n = 512, 3 }", CODE_BANDS),
                   "a.lua:2: question q: code: sizes: each must be name = a whole number", NULL);
    expect_problem(NULL, CODE_Q(CODE_IN, "{ n = 512, m = 2.0 }", CODE_BANDS),
                   "a.lua:2: question q: code: sizes: each must be name = a whole number", NULL);
    /* which of seven sizes is the one too many goes by the table's order:
     * when it is n, n is also reported missing */
    struct core_strlist problems;
    core_strlist_init(&problems);
    p = NULL;
    assert_int_not_equal(
        load(NULL,
             CODE_Q(CODE_IN, "{ n = 1, a = 1, b = 1, c = 1, d = 1, e = 1, f = 1 }", CODE_BANDS),
             NULL, &p, &problems, &err),
        0);
    assert_null(p);
    assert_true(problems.n >= 1 && problems.n <= 2);
    assert_string_equal(problems.items[0], "a.lua:2: question q: code: sizes: at most 6");
    core_strlist_fini(&problems);
    expect_problem(NULL, CODE_Q(CODE_IN, "{ n = 512 }", "{ { fraction = 0.5, score = 1 }, 7 }"),
                   "a.lua:2: question q: code: bands: entry 2 must be { fraction = ..., score = "
                   "... }",
                   NULL);
    expect_problem(NULL,
                   CODE_Q(CODE_IN, "{ n = 512 }",
                          "{ { fraction = 0.5, score = 1 }, "
                          "{ fraction = 0.1, score = 1 } }"),
                   "a.lua:2: question q: code: bands: fractions must rise", NULL);
}

static void test_text_helpers(void **state)
{
    (void)state;
    char out[128];
    const char *in = "  Weak   Scaling. ";
    assert_int_equal(grader_text_norm(in, strlen(in), out), 12);
    assert_string_equal(out, "weak scaling");
    in = "\"(b)\"";
    grader_text_norm(in, strlen(in), out);
    assert_string_equal(out, "b");
    in = "-5 %";
    grader_text_norm(in, strlen(in), out);
    assert_string_equal(out, "-5 %");
    in = "...";
    assert_int_equal(grader_text_norm(in, strlen(in), out), 0);
    in = "All-Reduce, NCCL; 5.5x ÜBER";
    grader_text_words(in, strlen(in), out);
    assert_string_equal(out, "all reduce nccl 5 5x \xc3\x9c"
                             "ber");
    char why[128];
    static const char *const good[] = {
        "abc", "^weak%s*%-?%s*scal", "[]]", "[^%]]", "%bxy", "%f[%a]x", "(a)%1", "()x", "a*b+c-d?"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        assert_true(grader_pattern_check(good[i], strlen(good[i]), why, sizeof why));
    static const char *const bad[] = {"[a", "a%", "%b", "%bx",   "%fx",
                                      "(a", "a)", "%1", "(a%1)", "[%"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_false(grader_pattern_check(bad[i], strlen(bad[i]), why, sizeof why));
}

/* ---- the built-in pack ----------------------------------------------------------------- */

static void test_builtin_pack(void **state)
{
    (void)state;
    const char *root = getenv("WB_SOURCE_DIR");
    if (!root)
        WB_SKIP("WB_SOURCE_DIR is not set: the built-in pack's folder is unknown");
    struct grader_pack *p = grader_test_load_dir("lessons/packs/core");
    struct core_strlist problems;
    core_strlist_init(&problems);
    size_t runs;
    int failures = grader_pack_selftest(p, &problems, &runs);
    for (size_t i = 0; i < problems.n; i++)
        fprintf(stderr, "  %s\n", problems.items[i]);
    assert_int_equal(failures, 0);
    assert_true(runs > 0);
    grader_pack_free(p);
    core_strlist_fini(&problems);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_model),
        cmocka_unit_test(test_unknown_field),
        cmocka_unit_test(test_missing_field),
        cmocka_unit_test(test_wrong_type),
        cmocka_unit_test(test_duplicate_id),
        cmocka_unit_test(test_unknown_kind_and_ids),
        cmocka_unit_test(test_files),
        cmocka_unit_test(test_references_and_placeholders),
        cmocka_unit_test(test_all_problems_collected),
        cmocka_unit_test(test_selftest),
        cmocka_unit_test(test_slim),
        cmocka_unit_test(test_slim_positions),
        cmocka_unit_test(test_slim_fallback),
        cmocka_unit_test(test_code_decl),
        cmocka_unit_test(test_text_helpers),
        cmocka_unit_test(test_builtin_pack),
    };
    return wb_run_tests("test_grader_pack", tests, sizeof tests / sizeof tests[0], argc, argv);
}
