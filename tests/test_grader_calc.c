/*
 * test_grader_calc.c — calculators and the other pack{}/view additions:
 * the calculator{} model, one test per class of constructor problem (each
 * message must name file:line and say what is wrong), grader_calc_run
 * (outputs, input checks, a broken compute: runaway loop, wrong return
 * shapes, NaN), the calculator self-tests of pack check, the slim cut,
 * pack{ cbm = true }, and a design question's rubric in its view.
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

static const char PACK_LUA[] = "pack { id = \"test.calc\", title = \"Calc\", version = \"1.0\",\n"
                               "  lessons = { \"a.lua\" } }\n";
static const char PACK_LUA2[] = "pack { id = \"test.calc\", title = \"Calc\", version = \"1.0\",\n"
                                "  lessons = { \"a.lua\", \"b.lua\" } }\n";

#define L1 "lesson { id = \"a\", title = \"A\" }\n"

/* The calculator of the team brief, on lines 3-16 of a.lua. */
#define AMDAHL                                                                                     \
    "calculator {\n" /* 3 */                                                                       \
    "  id = \"amdahl-speedup\",\n"                                                                 \
    "  title = \"Amdahl speedup\",\n"                                                              \
    "  inputs = {\n"                                                                               \
    "    { name = \"f\", label = \"serial fraction f\", default = 0.1, min = 0, max = 1 },\n"      \
    "    { name = \"p\", label = \"processors p\", default = 8, min = 1, max = 100000,\n"          \
    "      integer = true, unit = \"GPUs\", help = \"how many\" },\n"                              \
    "  },\n"                                                                                       \
    "  compute = function(v)\n"                                                                    \
    "    return {\n"                                                                               \
    "      { label = \"speedup S(p)\", value = 1 / (v.f + (1 - v.f) / v.p), unit = \"×\" },\n"    \
    "      { label = \"maximum speedup\", value = 1 / v.f, unit = \"×\" },\n"                     \
    "      { label = \"types\", text = math.type(v.f) .. \" \" .. math.type(v.p) },\n"             \
    "    }\n"                                                                                      \
    "  end,\n"                                                                                     \
    "  examples = { { inputs = { f = 0.2, p = 4 }, outputs = { 2.5, 5, \"float integer\" } },\n"   \
    "               { inputs = { f = 0.5 }, outputs = { 16 / 9 } } },\n"                           \
    "}\n"

static int load_files(const char *pack_lua, const char *a, const char *b,
                      const struct grader_limits *lim, struct grader_pack **p,
                      struct core_strlist *problems, struct core_err *err)
{
    struct grader_file files[3];
    size_t n = 0;
    const char *pl = pack_lua ? pack_lua : b ? PACK_LUA2 : PACK_LUA;
    files[n++] = (struct grader_file){"pack.lua", pl, strlen(pl)};
    if (a)
        files[n++] = (struct grader_file){"a.lua", a, strlen(a)};
    if (b)
        files[n++] = (struct grader_file){"b.lua", b, strlen(b)};
    return grader_pack_new(p, files, n, lim, problems, err);
}

/* Loads a pack that must have no problems. */
static struct grader_pack *load_ok(const char *pack_lua, const char *a,
                                   const struct grader_limits *lim)
{
    struct grader_pack *p = NULL;
    struct core_strlist problems;
    core_strlist_init(&problems);
    struct core_err err = {0};
    int rc = load_files(pack_lua, a, NULL, lim, &p, &problems, &err);
    for (size_t i = 0; i < problems.n; i++)
        fprintf(stderr, "unexpected: %s\n", problems.items[i]);
    assert_int_equal(rc, 0);
    assert_non_null(p);
    core_strlist_fini(&problems);
    return p;
}

/* Expects problems (from pack a.lua [+ b.lua]) of which one contains every
 * one of the NULL-ended strings; with `only`, that it is the only problem. */
static void expect_problem_v(const char *pack_lua, const char *a, const char *b, bool only,
                             va_list ap)
{
    struct grader_pack *p = (struct grader_pack *)1;
    struct core_strlist problems;
    core_strlist_init(&problems);
    struct core_err err = {0};
    int rc = load_files(pack_lua, a, b, NULL, &p, &problems, &err);
    const char *want[8];
    size_t n_want = 0;
    for (const char *w; n_want < 8 && (w = va_arg(ap, const char *));)
        want[n_want++] = w;
    bool found = false;
    for (size_t i = 0; i < problems.n && !found; i++) {
        bool all = true;
        for (size_t k = 0; k < n_want; k++)
            all &= strstr(problems.items[i], want[k]) != NULL;
        found = all;
    }
    bool ok = rc != 0 && p == NULL && found && (!only || problems.n == 1);
    if (!ok) {
        fprintf(stderr, "rc %d, %zu problem(s), wanted:", rc, problems.n);
        for (size_t k = 0; k < n_want; k++)
            fprintf(stderr, " [%s]", want[k]);
        fprintf(stderr, "\n");
        for (size_t i = 0; i < problems.n; i++)
            fprintf(stderr, "  %s\n", problems.items[i]);
    }
    assert_true(ok);
    assert_int_equal(err.code, rc);
    core_strlist_fini(&problems);
}

static void expect_one(const char *pack_lua, const char *a, ...)
{
    va_list ap;
    va_start(ap, a);
    expect_problem_v(pack_lua, a, NULL, true, ap);
    va_end(ap);
}

static void expect_some(const char *a, const char *b, ...)
{
    va_list ap;
    va_start(ap, b);
    expect_problem_v(NULL, a, b, false, ap);
    va_end(ap);
}

/* ---- the model -------------------------------------------------------------------- */

static void test_model(void **state)
{
    (void)state;
    const char *a = L1 "page [[\n# P\n]]\n" AMDAHL;
    /* the page is lines 2-4: move the calculator down by one line */
    struct grader_pack *p = load_ok(NULL, a, NULL);
    const struct grader_pack_info *info = grader_pack_info(p);
    assert_false(info->cbm);
    assert_int_equal(info->n_lessons, 1);
    const struct grader_lesson *l = &info->lessons[0];
    assert_int_equal(l->n_calcs, 1);
    assert_int_equal(l->n_questions, 0);
    const struct grader_calc *c = &l->calcs[0];
    assert_string_equal(c->id, "amdahl-speedup");
    assert_string_equal(c->title, "Amdahl speedup");
    assert_string_equal(c->file, "a.lua");
    assert_int_equal(c->line, 5);
    assert_int_equal(c->page_after, 0);
    assert_int_equal(c->n_inputs, 2);
    const struct grader_calc_input *f = &c->inputs[0], *pr = &c->inputs[1];
    assert_string_equal(f->name, "f");
    assert_string_equal(f->label, "serial fraction f");
    assert_string_equal(f->unit, "");
    assert_null(f->help);
    assert_true(f->def == 0.1 && f->min == 0 && f->max == 1);
    assert_false(f->integer);
    assert_string_equal(pr->name, "p");
    assert_string_equal(pr->unit, "GPUs");
    assert_string_equal(pr->help, "how many");
    assert_true(pr->def == 8 && pr->min == 1 && pr->max == 100000);
    assert_true(pr->integer);
    assert_ptr_equal(grader_pack_calc(p, "amdahl-speedup"), c);
    assert_null(grader_pack_calc(p, "nope"));
    assert_null(grader_pack_calc(p, NULL));
    grader_pack_free(p);

    /* optional parts: label defaults to the name, no range means unbounded */
    p = load_ok("pack { id = \"t\", title = \"T\", version = \"1\", lessons = { \"a.lua\" },\n"
                "  cbm = true }\n",
                L1 "calculator { id = \"c\", title = \"C\", inputs = { { name = \"x\", default "
                   "= -3 } },\n"
                   "  compute = function(v) return { { label = \"x\", value = v.x } } end }\n",
                NULL);
    info = grader_pack_info(p);
    assert_true(info->cbm);
    c = grader_pack_calc(p, "c");
    assert_non_null(c);
    assert_int_equal(c->page_after, -1);
    assert_string_equal(c->inputs[0].label, "x");
    assert_true(isinf(c->inputs[0].min) && c->inputs[0].min < 0);
    assert_true(isinf(c->inputs[0].max) && c->inputs[0].max > 0);
    grader_pack_free(p);
}

/* ---- constructor validation ---------------------------------------------------------- */

#define CALC_OK_INPUTS "inputs = { { name = \"x\", default = 1 } }"
#define CALC_OK_COMPUTE "compute = function(v) return { { label = \"x\", value = v.x } } end"

static void test_unknown_field(void **state)
{
    (void)state;
    expect_one(NULL,
               L1 "\ncalculator { id = \"c\", title = \"C\", " CALC_OK_INPUTS ", " CALC_OK_COMPUTE
                  ", exmaples = {} }\n",
               "a.lua:3: calculator c: unknown field 'exmaples' (did you mean 'examples'?)", NULL);
    expect_one(NULL,
               L1 "calculator { id = \"c\", title = \"C\", " CALC_OK_COMPUTE ",\n"
                  "  inputs = { { name = \"x\", default = 1, lable = \"X\" } } }\n",
               "a.lua:2: calculator c: input 'x': unknown field 'lable' (did you mean 'label'?)",
               NULL);
    expect_one(NULL,
               L1 "calculator { id = \"c\", title = \"C\", " CALC_OK_INPUTS ", " CALC_OK_COMPUTE
                  ",\n  examples = { { inputs = { x = 2 }, outputs = { 2 }, score = 1 } } }\n",
               "a.lua:2: calculator c: example 1: unknown field 'score'", NULL);
    expect_one("pack { id = \"t\", title = \"T\", version = \"1\", lessons = { \"a.lua\" },\n"
               "  cmb = true }\n",
               L1, "pack.lua:1: pack t: unknown field 'cmb' (did you mean 'cbm'?)", NULL);
}

static void test_missing_field(void **state)
{
    (void)state;
    expect_one(NULL, L1 "calculator { title = \"C\", " CALC_OK_INPUTS ", " CALC_OK_COMPUTE " }\n",
               "a.lua:2: calculator: missing required field 'id'", NULL);
    expect_one(NULL, L1 "calculator { id = \"c\", " CALC_OK_INPUTS ", " CALC_OK_COMPUTE " }\n",
               "a.lua:2: calculator c: missing required field 'title'", NULL);
    expect_one(NULL, L1 "calculator { id = \"c\", title = \"C\", " CALC_OK_COMPUTE " }\n",
               "a.lua:2: calculator c: missing required field 'inputs'", NULL);
    expect_one(NULL, L1 "calculator { id = \"c\", title = \"C\", " CALC_OK_INPUTS " }\n",
               "a.lua:2: calculator c: missing required field 'compute'", NULL);
    expect_one(NULL,
               L1 "calculator { id = \"c\", title = \"C\", " CALC_OK_COMPUTE ",\n"
                  "  inputs = { { label = \"x\", default = 1 } } }\n",
               "a.lua:2: calculator c: input 1: missing required field 'name'", NULL);
    expect_one(NULL,
               L1 "calculator { id = \"c\", title = \"C\", " CALC_OK_COMPUTE ",\n"
                  "  inputs = { { name = \"x\" } } }\n",
               "a.lua:2: calculator c: input 'x': missing required field 'default'", NULL);
    expect_one(NULL,
               L1 "calculator { id = \"c\", title = \"C\", " CALC_OK_COMPUTE ", inputs = {} }\n",
               "a.lua:2: calculator c:", "'inputs' is empty", NULL);
    expect_one(NULL,
               L1 "calculator { id = \"c\", title = \"C\", " CALC_OK_INPUTS ", " CALC_OK_COMPUTE
                  ",\n  examples = { { inputs = { x = 2 } } } }\n",
               "a.lua:2: calculator c: example 1: missing required field 'outputs'", NULL);
}

static void test_ranges(void **state)
{
    (void)state;
    expect_one(NULL,
               L1 "calculator { id = \"c\", title = \"C\", " CALC_OK_COMPUTE ",\n"
                  "  inputs = { { name = \"x\", default = 2, min = 0, max = 1 } } }\n",
               "a.lua:2: calculator c: input 'x': default 2 is outside its range [0, 1]", NULL);
    expect_one(NULL,
               L1 "calculator { id = \"c\", title = \"C\", " CALC_OK_COMPUTE ",\n"
                  "  inputs = { { name = \"x\", default = -1, min = 0 } } }\n",
               "a.lua:2: calculator c: input 'x': default -1 is outside its range [0, inf]", NULL);
    /* min > max is reported once, not also as a default outside the range */
    expect_one(NULL,
               L1 "calculator { id = \"c\", title = \"C\", " CALC_OK_COMPUTE ",\n"
                  "  inputs = { { name = \"x\", default = 1, min = 3, max = 2 } } }\n",
               "a.lua:2: calculator c: input 'x': min 3 is greater than max 2", NULL);
    expect_one(NULL,
               L1 "calculator { id = \"c\", title = \"C\", " CALC_OK_COMPUTE ",\n"
                  "  inputs = { { name = \"x\", default = 1.5, integer = true } } }\n",
               "a.lua:2: calculator c: input 'x': default 1.5 is not a whole number", NULL);
    expect_one(NULL,
               L1 "calculator { id = \"c\", title = \"C\", " CALC_OK_COMPUTE ",\n"
                  "  inputs = { { name = \"x\", default = 0/0 } } }\n",
               "a.lua:2: calculator c: input 'x': default must be a finite number", NULL);
    expect_one(NULL,
               L1 "calculator { id = \"c\", title = \"C\", " CALC_OK_COMPUTE ",\n"
                  "  inputs = { { name = \"x\", default = 1, max = math.huge } } }\n",
               "a.lua:2: calculator c: input 'x': max must be a finite number", NULL);
}

static void test_names_and_types(void **state)
{
    (void)state;
    expect_one(NULL,
               L1 "calculator { id = \"c\", title = \"C\", " CALC_OK_COMPUTE ",\n"
                  "  inputs = { { name = \"serial fraction\", default = 1 } } }\n",
               "a.lua:2: calculator c: input 'serial fraction': name 'serial fraction' is not "
               "valid",
               NULL);
    expect_one(NULL,
               L1 "calculator { id = \"c\", title = \"C\", " CALC_OK_COMPUTE ",\n"
                  "  inputs = { { name = \"x\", default = 1 }, { name = \"x\", default = 2 } } }\n",
               "a.lua:2: calculator c: input 'x': input name 'x' is used twice", NULL);
    expect_one(NULL,
               L1 "calculator { id = \"Bad Id\", title = \"C\", " CALC_OK_INPUTS
                  ", " CALC_OK_COMPUTE " }\n",
               "a.lua:2: calculator Bad Id: id 'Bad Id' is not valid", NULL);
    expect_one(NULL,
               L1 "calculator { id = \"c\", title = \"C\", " CALC_OK_INPUTS ", compute = 3 }\n",
               "a.lua:2: calculator c: field 'compute' must be a function, got number", NULL);
    expect_one(NULL,
               L1 "calculator { id = \"c\", title = \"C\", " CALC_OK_COMPUTE ",\n"
                  "  inputs = { { name = \"x\", default = 1, integer = \"yes\" } } }\n",
               "a.lua:2: calculator c: input 'x': field 'integer' must be true or false, got "
               "string",
               NULL);
    expect_one(NULL,
               L1 "calculator { id = \"c\", title = \"C\", " CALC_OK_COMPUTE ",\n"
                  "  inputs = { 5 } }\n",
               "a.lua:2: calculator c: inputs 1 must be a table, got number", NULL);
    expect_one(NULL, L1 "calculator \"c\"\n", "a.lua:2: calculator: calculator expects a table",
               NULL);
    expect_one("pack { id = \"t\", title = \"T\", version = \"1\", lessons = { \"a.lua\" },\n"
               "  cbm = \"yes\" }\n",
               L1, "pack.lua:1: pack t: field 'cbm' must be true or false, got string", NULL);
    /* examples: an unknown input, a value that is not a number, outputs not a list */
    expect_one(NULL,
               L1 "calculator { id = \"c\", title = \"C\", " CALC_OK_INPUTS ", " CALC_OK_COMPUTE
                  ",\n  examples = { { inputs = { y = 2 }, outputs = { 2 } } } }\n",
               "a.lua:2: calculator c: example 1: unknown input 'y' (the inputs are: x)", NULL);
    expect_one(NULL,
               L1 "calculator { id = \"c\", title = \"C\", " CALC_OK_INPUTS ", " CALC_OK_COMPUTE
                  ",\n  examples = { { inputs = { x = \"2\" }, outputs = { 2 } } } }\n",
               "a.lua:2: calculator c: example 1: input 'x' must be a finite number, got string",
               NULL);
    expect_one(NULL,
               L1 "calculator { id = \"c\", title = \"C\", " CALC_OK_INPUTS ", " CALC_OK_COMPUTE
                  ",\n  examples = { { outputs = { a = 2 } } } }\n",
               "a.lua:2: calculator c: example 1: outputs must be a list", NULL);
}

static void test_placement_and_duplicates(void **state)
{
    (void)state;
    const char *calc =
        "calculator { id = \"c\", title = \"C\", " CALC_OK_INPUTS ", " CALC_OK_COMPUTE " }\n";
    char a[512], b[512];
    snprintf(a, sizeof a, L1 "%s", calc);
    snprintf(b, sizeof b, "lesson { id = \"b\", title = \"B\" }\n\n%s", calc);
    expect_some(a, b, "b.lua:3: calculator c: duplicate calculator id (first used at a.lua:2)",
                NULL);
    snprintf(a, sizeof a, "%s" L1, calc);
    expect_one(NULL, a, "a.lua:1: calculator: calculator before lesson{}", NULL);
    expect_one("pack { id = \"t\", title = \"T\", version = \"1\", lessons = { \"a.lua\" } }\n"
               "calculator { id = \"c\" }\n",
               L1, "pack.lua:2: calculator: calculator{} belongs in a lesson file", NULL);
    /* a calculator may share its id with a question: they are different things */
    snprintf(a, sizeof a,
             L1 "%squestion { id = \"c\", kind = \"numeric\", prompt = \"p\", answer = 1 }\n",
             calc);
    grader_pack_free(load_ok(NULL, a, NULL));
}

/* ---- running ------------------------------------------------------------------------ */

static void test_run(void **state)
{
    (void)state;
    struct grader_pack *p = load_ok(NULL, L1 "\n" AMDAHL, NULL);
    struct grader_calc_output *o;
    size_t n;
    struct core_err err = {0};
    double in[2] = {0.2, 4};
    assert_int_equal(grader_calc_run(p, "amdahl-speedup", in, &o, &n, &err), 0);
    assert_int_equal(n, 3);
    assert_string_equal(o[0].label, "speedup S(p)");
    assert_string_equal(o[0].unit, "×");
    assert_null(o[0].text);
    assert_true(fabs(o[0].value - 2.5) < 1e-12);
    assert_true(fabs(o[1].value - 5) < 1e-12);
    assert_string_equal(o[2].label, "types");
    assert_string_equal(o[2].unit, "");
    assert_string_equal(o[2].text, "float integer"); /* integer inputs arrive as integers */
    grader_calc_outputs_free(o, n);
    grader_calc_outputs_free(NULL, 0);

    /* inputs are checked before any Lua runs */
    double out_of_range[2] = {1.5, 4};
    o = (struct grader_calc_output *)1;
    assert_int_equal(grader_calc_run(p, "amdahl-speedup", out_of_range, &o, &n, &err),
                     CORE_ERR_INVALID);
    assert_null(o);
    assert_int_equal(n, 0);
    assert_non_null(strstr(err.msg, "input 'f' (serial fraction f) must be from 0 to 1, got 1.5"));
    double not_whole[2] = {0.5, 2.5};
    assert_int_equal(grader_calc_run(p, "amdahl-speedup", not_whole, &o, &n, &err),
                     CORE_ERR_INVALID);
    assert_non_null(strstr(err.msg, "input 'p' (processors p) must be a whole number"));
    double below[2] = {0.5, 0};
    assert_int_equal(grader_calc_run(p, "amdahl-speedup", below, &o, &n, &err), CORE_ERR_INVALID);
    assert_non_null(strstr(err.msg, "from 1 to 100000, got 0"));
    double nan_in[2] = {NAN, 4};
    assert_int_equal(grader_calc_run(p, "amdahl-speedup", nan_in, &o, &n, &err), CORE_ERR_INVALID);
    assert_int_equal(grader_calc_run(p, "nope", in, &o, &n, &err), CORE_ERR_NOTFOUND);
    assert_non_null(strstr(err.msg, "no calculator 'nope'"));

    /* a division by zero in compute is a pack error naming the calculator's line */
    double zero[2] = {0, 4};
    assert_int_equal(grader_calc_run(p, "amdahl-speedup", zero, &o, &n, &err), CORE_ERR_SCRIPT);
    assert_null(o);
    assert_non_null(strstr(err.msg, "a.lua:3: calculator amdahl-speedup: output 2 "
                                    "('maximum speedup'): value is inf, not a finite number"));
    assert_non_null(strstr(err.msg, "with f=0, p=4"));

    /* runs are independent: many in a row give the same answer */
    for (int i = 0; i < 50; i++) {
        assert_int_equal(grader_calc_run(p, "amdahl-speedup", in, &o, &n, &err), 0);
        assert_true(fabs(o[0].value - 2.5) < 1e-12);
        grader_calc_outputs_free(o, n);
    }
    grader_pack_free(p);
}

/* Loads a calculator `c` whose compute body is `body` and runs it with
 * x = 1; returns the code, err filled. */
static int run_body(const char *body, const struct grader_limits *lim, struct core_err *err)
{
    char a[1024];
    snprintf(a, sizeof a,
             L1 "local function helper() return 1 end\n"
                "calculator { id = \"c\", title = \"C\", " CALC_OK_INPUTS ",\n"
                "  compute = function(v)\n"
                "    %s\n"
                "  end }\n",
             body);
    struct grader_pack *p = load_ok(NULL, a, lim);
    struct grader_calc_output *o = (struct grader_calc_output *)1;
    size_t n = 9;
    double x = 1;
    int rc = grader_calc_run(p, "c", &x, &o, &n, err);
    if (rc) {
        assert_null(o);
        assert_int_equal(n, 0);
    } else {
        grader_calc_outputs_free(o, n);
    }
    grader_pack_free(p);
    return rc;
}

static void expect_compute_error(const char *body, int code, const char *want)
{
    struct grader_limits lim;
    grader_limits_default(&lim);
    lim.instructions = 2000000; /* a runaway loop stops sooner */
    lim.mem_bytes = 8u << 20;   /* a memory bomb too */
    lim.cpu_ms = 10000;         /* the clock must not win under a sanitizer */
    struct core_err err = {0};
    int rc = run_body(body, &lim, &err);
    if (rc != code || !strstr(err.msg, want))
        fprintf(stderr, "body %s: rc %d, msg: %s\nwanted %d: %s\n", body, rc, err.msg, code, want);
    assert_int_equal(rc, code);
    assert_non_null(strstr(err.msg, want));
}

static void test_compute_errors(void **state)
{
    (void)state;
    /* limits: a runaway loop, pcall cannot swallow it; memory */
    expect_compute_error("while true do end", CORE_ERR_LIMIT,
                         "a.lua:5: instruction limit (2000000 instructions) exceeded (in compute "
                         "of calculator c, with x=1)");
    expect_compute_error("pcall(function() while true do end end) return {}", CORE_ERR_LIMIT,
                         "instruction limit");
    expect_compute_error("local t = {} for i = 1, 1e9 do t[i] = { i, i, i, i } end", CORE_ERR_LIMIT,
                         "a.lua:5: memory limit (8 MiB) exceeded");
    /* a Lua error */
    expect_compute_error("error('boom')", CORE_ERR_SCRIPT, "a.lua:5: boom");
    /* wrong return shapes */
    expect_compute_error("return 5", CORE_ERR_SCRIPT,
                         "a.lua:3: calculator c: compute must return a list of outputs");
    expect_compute_error("return nil", CORE_ERR_SCRIPT, "got nil");
    expect_compute_error("return {}", CORE_ERR_SCRIPT, "compute returned no outputs");
    expect_compute_error("return { a = { label = 'x', value = 1 } }", CORE_ERR_SCRIPT,
                         "without named entries");
    expect_compute_error("return { 'x' }", CORE_ERR_SCRIPT,
                         "output 1 must be a table { label = ..., value = ... }, got string");
    expect_compute_error("return { { value = 1 } }", CORE_ERR_SCRIPT,
                         "output 1: label must be a string, got nil");
    expect_compute_error("return { { label = 'x' } }", CORE_ERR_SCRIPT,
                         "output 1 ('x'): needs value = a number, or text = a string");
    expect_compute_error("return { { label = 'x', value = 1, text = 't' } }", CORE_ERR_SCRIPT,
                         "output 1 ('x'): gives both value and text");
    expect_compute_error("return { { label = 'x', value = '1' } }", CORE_ERR_SCRIPT,
                         "output 1 ('x'): value must be a number, got string");
    expect_compute_error("return { { label = 'x', text = 5 } }", CORE_ERR_SCRIPT,
                         "output 1 ('x'): text must be a string, got number");
    expect_compute_error("return { { label = 'x', value = 1, unit = 5 } }", CORE_ERR_SCRIPT,
                         "output 1 ('x'): unit must be a string");
    expect_compute_error("return { { label = 'x', value = 1, colour = 'red' } }", CORE_ERR_SCRIPT,
                         "output 1: unknown field 'colour'");
    expect_compute_error("return { { label = 'x', value = 0/0 } }", CORE_ERR_SCRIPT,
                         "a.lua:3: calculator c: output 1 ('x'): value is NaN, not a finite "
                         "number (with x=1)");
    expect_compute_error("return { { label = 'x', value = -math.huge } }", CORE_ERR_SCRIPT,
                         "value is -inf");
    expect_compute_error("local t = {} for i = 1, 65 do t[i] = { label = 'x', value = i } end "
                         "return t",
                         CORE_ERR_SCRIPT, "compute returned 65 outputs; at most 64");
    /* a metatable on the result is not consulted: the table is read raw */
    expect_compute_error("return setmetatable({}, { __index = function() error('meta') end, "
                         "__len = function() return 1 end })",
                         CORE_ERR_SCRIPT, "compute returned no outputs");
    /* a long text is cut, not refused */
    struct core_err err = {0};
    assert_int_equal(run_body("return { { label = 'x', text = ('ab'):rep(20000) } }", NULL, &err),
                     0);
}

/* ---- self-tests (pack check) ------------------------------------------------------- */

static void test_examples(void **state)
{
    (void)state;
    struct grader_pack *p = load_ok(NULL, L1 "\n" AMDAHL, NULL);
    struct core_strlist problems;
    core_strlist_init(&problems);
    size_t runs = 0;
    assert_int_equal(grader_pack_selftest(p, &problems, &runs), 0);
    assert_int_equal(problems.n, 0);
    assert_int_equal(runs, 3); /* the defaults and two examples */
    grader_pack_free(p);

    /* wrong expectations: a number, a text, too many outputs, an input out
     * of range, and defaults that break compute */
    const char *a = L1
        "calculator { id = \"c\", title = \"C\",\n" /* 2 */
        "  inputs = { { name = \"x\", default = 0, min = 0, max = 10 } },\n"
        "  compute = function(v)\n"
        "    return { { label = \"half\", value = 1 / v.x }, { label = \"t\", text = \"hi\" } }\n"
        "  end,\n"
        "  examples = {\n"
        "    { inputs = { x = 4 }, outputs = { 0.25, \"hi\" } },\n" /* right */
        "    { inputs = { x = 4 }, outputs = { 0.2501 } },\n"       /* 4e-4 off */
        "    { inputs = { x = 4 }, outputs = { 0.25, \"ho\" } },\n"
        "    { inputs = { x = 4 }, outputs = { 0.25, \"hi\", 3 } },\n"
        "    { inputs = { x = 40 }, outputs = { 0.025 } },\n"
        "    { inputs = { x = 4 }, outputs = { \"0.25\" } },\n"
        "  },\n"
        "}\n";
    p = load_ok(NULL, a, NULL);
    runs = 0;
    int failures = grader_pack_selftest(p, &problems, &runs);
    for (size_t i = 0; failures != 6 && i < problems.n; i++)
        fprintf(stderr, "  %s\n", problems.items[i]);
    assert_int_equal(runs, 7);
    assert_int_equal(failures, 6);
    assert_int_equal(problems.n, 6);
    assert_non_null(strstr(problems.items[0],
                           "a.lua:2: calculator c: with the default inputs: output 1 ('half'): "
                           "value is inf"));
    assert_non_null(strstr(problems.items[1], "a.lua:2: calculator c: example 2 (x=4): output 1 "
                                              "('half'): expected 0.2501, got 0.25"));
    assert_non_null(strstr(problems.items[2],
                           "example 3 (x=4): output 2 ('t'): expected the text 'ho', got 'hi'"));
    assert_non_null(
        strstr(problems.items[3], "example 4 (x=4): expects 3 outputs, compute returned 2"));
    assert_non_null(strstr(problems.items[4], "a.lua:2: calculator c: example 5: input 'x' (x) "
                                              "must be from 0 to 10, got 40"));
    assert_non_null(strstr(problems.items[5], "example 6 (x=4): output 1 ('half'): expected the "
                                              "text '0.25', got the number 0.25"));
    grader_pack_free(p);
    core_strlist_fini(&problems);

    /* with another problem in the pack, the calculator's examples still run */
    struct grader_pack *none = NULL;
    core_strlist_init(&problems);
    struct core_err err = {0};
    const char *b =
        L1 "question { id = \"q\", kind = \"numeric\", prompt = \"p\", answr = 1 }\n"
           "calculator { id = \"c\", title = \"C\", " CALC_OK_INPUTS ", " CALC_OK_COMPUTE ",\n"
           "  examples = { { inputs = { x = 2 }, outputs = { 3 } } } }\n";
    assert_int_equal(load_files(NULL, b, NULL, NULL, &none, &problems, &err), CORE_ERR_INVALID);
    bool typo = false, example = false;
    for (size_t i = 0; i < problems.n; i++) {
        typo |= strstr(problems.items[i], "a.lua:2: question q: unknown field 'answr'") != NULL;
        example |= strstr(problems.items[i], "a.lua:3: calculator c: example 1 (x=2): output 1 "
                                             "('x'): expected 3, got 2") != NULL;
    }
    assert_true(typo);
    assert_true(example);
    core_strlist_fini(&problems);
}

/* ---- slim files ------------------------------------------------------------------- */

static void test_slim(void **state)
{
    (void)state;
    const char *src = L1                                                             /* 1 */
        "calculator { id = \"c\", title = \"C\", inputs = {}, compute = print }\n"   /* 2 */
        "question { id = \"q\", kind = \"numeric\", prompt = \"p\", answer = 1 }\n"; /* 3 */
    size_t len = strlen(src);
    /* grading the question drops the calculator, and the other way round */
    struct grader_slim_plan *pl = grader_slim_plan_new(src, len);
    struct grader_linemap map;
    size_t cn;
    char *s = grader_slim_cut(pl, src, 3, &cn, &map);
    assert_non_null(s);
    assert_null(strstr(s, "calculator"));
    assert_non_null(strstr(s, "question {"));
    assert_non_null(strstr(s, "lesson {"));
    int qline = 1; /* the cut's line of the question: line 3 of the file */
    for (const char *c = s; c < strstr(s, "question {"); c++)
        qline += *c == '\n';
    assert_int_equal(grader_linemap_orig(&map, qline), 3);
    grader_linemap_fini(&map);
    free(s);
    s = grader_slim_cut(pl, src, 2, &cn, &map);
    assert_non_null(s);
    assert_non_null(strstr(s, "calculator {"));
    assert_null(strstr(s, "question"));
    assert_int_equal(strlen(s), cn);
    grader_linemap_fini(&map);
    free(s);
    grader_slim_plan_free(pl);

    /* a calculator made by a helper runs from the whole file */
    const char *a =
        L1 "local function mk(id)\n"
           "  calculator { id = id, title = \"C\", " CALC_OK_INPUTS ", " CALC_OK_COMPUTE " }\n"
           "end\n"
           "mk(\"c\")\n";
    struct grader_pack *p = load_ok(NULL, a, NULL);
    struct core_strlist problems;
    core_strlist_init(&problems);
    size_t runs = 0;
    assert_int_equal(grader_pack_selftest(p, &problems, &runs), 0);
    assert_int_equal(runs, 1);
    struct grader_calc_output *o;
    size_t n;
    struct core_err err = {0};
    double x = 7;
    assert_int_equal(grader_calc_run(p, "c", &x, &o, &n, &err), 0);
    assert_true(o[0].value == 7);
    grader_calc_outputs_free(o, n);
    grader_pack_free(p);
    core_strlist_fini(&problems);
}

/* ---- a design question's rubric in its view ---------------------------------------------- */

static void test_view_rubric(void **state)
{
    (void)state;
    struct grader_pack *p =
        load_ok(NULL,
                L1 "question { id = \"d\", kind = \"design\", prompt = \"p\",\n"
                   "  concepts = { { name = \"sharding\", points = 2, match = { \"shard\" } },\n"
                   "               { name = \"overlap\", match = { \"overlap\" } } } }\n"
                   "question { id = \"n\", kind = \"numeric\", prompt = \"p\", answer = 1 }\n",
                NULL);
    struct grader_ctx ctx = {.user = "u", .variant = 1};
    struct grader_view v;
    struct core_err err = {0};
    assert_int_equal(grader_question_view(p, "d", &ctx, &v, &err), 0);
    assert_int_equal(v.n_rubric, 2);
    assert_string_equal(v.rubric[0], "sharding");
    assert_true(v.rubric_points[0] == 2);
    assert_string_equal(v.rubric[1], "overlap");
    assert_true(v.rubric_points[1] == 1);
    grader_view_fini(&v);
    assert_null(v.rubric);
    assert_int_equal(v.n_rubric, 0);
    assert_int_equal(grader_question_view(p, "n", &ctx, &v, &err), 0);
    assert_int_equal(v.n_rubric, 0);
    assert_null(v.rubric);
    grader_view_fini(&v);
    grader_pack_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_model),
        cmocka_unit_test(test_unknown_field),
        cmocka_unit_test(test_missing_field),
        cmocka_unit_test(test_ranges),
        cmocka_unit_test(test_names_and_types),
        cmocka_unit_test(test_placement_and_duplicates),
        cmocka_unit_test(test_run),
        cmocka_unit_test(test_compute_errors),
        cmocka_unit_test(test_examples),
        cmocka_unit_test(test_slim),
        cmocka_unit_test(test_view_rubric),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
