/*
 * test_grader_sandbox.c — the grader sandbox seen from outside: every
 * escape attempt fails, every limit stops its script with CORE_ERR_LIMIT and
 * "file:line", the next grading works normally after each, and nothing one
 * grading does is visible to the next.
 *
 * The pack under test has a "probe" question whose custom grade runs the
 * answer text as Lua (through the sandbox's own text-only `load`, in the
 * file's environment) and returns what it returns as feedback: the answers
 * below are the attack scripts. Limits are also tried directly in pack code
 * (params functions) to check the positions they report.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/core.h"
#include "grader/grader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char PACK_LUA[] = "pack { id = \"test.sandbox\", title = \"Sandbox\", version = "
                               "\"1\", lessons = { \"l.lua\" } }\n";

/* Line numbers matter: the limit tests look for them. */
static const char LESSON_LUA[] =
    "lesson { id = \"l\", title = \"L\" }\n"                                               /* 1 */
    "question { id = \"probe\", kind = \"text\", prompt = \"p\", answer = \"return 1\",\n" /* 2 */
    "  grade = function(answer, ctx)\n"                                                    /* 3 */
    "    local f, err = load(answer, \"=probe\")\n"                                        /* 4 */
    "    if not f then return { score = 0, feedback = \"load: \" .. err } end\n"           /* 5 */
    "    return { score = 1, feedback = tostring(f()) }\n"                                 /* 6 */
    "  end }\n"                                                                            /* 7 */
    "question { id = \"spin\", kind = \"numeric\", prompt = \"p\", answer = 1,\n"          /* 8 */
    "  params = function(rng, ctx) if ctx.variant == 99 then while true do end end return {} end "
    "}\n"                                                                                   /* 9 */
    "question { id = \"swallow\", kind = \"numeric\", prompt = \"p\", answer = 1,\n"        /* 10 */
    "  params = function(rng, ctx) if ctx.variant ~= 99 then return {} end\n"               /* 11 */
    "    while true do pcall(function() while true do end end) end end }\n"                 /* 12 */
    "question { id = \"handler\", kind = \"numeric\", prompt = \"p\", answer = 1,\n"        /* 13 */
    "  params = function(rng, ctx) if ctx.variant ~= 99 then return {} end\n"               /* 14 */
    "    for i = 1, 1e9 do xpcall(function() while true do end end,\n"                      /* 15 */
    "      function() while true do end end) end end }\n"                                   /* 16 */
    "question { id = \"tablebomb\", kind = \"numeric\", prompt = \"p\", answer = 1,\n"      /* 17 */
    "  params = function(rng, ctx) if ctx.variant ~= 99 then return {} end\n"               /* 18 */
    "    local t = {} for i = 1, 1e9 do t[i] = i end end }\n"                               /* 19 */
    "question { id = \"repbomb\", kind = \"numeric\", prompt = \"p\", answer = 1,\n"        /* 20 */
    "  params = function(rng, ctx) if ctx.variant ~= 99 then return {} end\n"               /* 21 */
    "    return { s = string.rep(\"x\", 1e9) } end }\n"                                     /* 22 */
    "question { id = \"memswallow\", kind = \"numeric\", prompt = \"p\", answer = 1,\n"     /* 23 */
    "  params = function(rng, ctx) if ctx.variant ~= 99 then return {} end\n"               /* 24 */
    "    while true do pcall(string.rep, \"x\", 1e9) end end }\n"                           /* 25 */
    "question { id = \"pattern\", kind = \"numeric\", prompt = \"p\", answer = 1,\n"        /* 26 */
    "  params = function(rng, ctx) if ctx.variant ~= 99 then return {} end\n"               /* 27 */
    "    local s = string.rep(\"a\", 1e5)\n"                                                /* 28 */
    "    return { x = string.find(s, \".-.-.-.-.-.-b\") } end }\n"                          /* 29 */
    "question { id = \"gmatch\", kind = \"numeric\", prompt = \"p\", answer = 1,\n"         /* 30 */
    "  params = function(rng, ctx) if ctx.variant ~= 99 then return {} end\n"               /* 31 */
    "    local s = (\"a\"):rep(3e4)\n"                                                      /* 32 */
    "    for w in s:gmatch(\".-.-.-.-b\") do end end }\n"                                   /* 33 */
    "question { id = \"pcallpattern\", kind = \"numeric\", prompt = \"p\", answer = 1,\n"   /* 34 */
    "  params = function(rng, ctx) if ctx.variant ~= 99 then return {} end\n"               /* 35 */
    "    while true do pcall(string.find, (\"a\"):rep(1e5), \".-.-.-.-.-.-b\") end end }\n" /* 36 */
    "question { id = \"slowlua\", kind = \"numeric\", prompt = \"p\", answer = 1,\n"        /* 37 */
    "  params = function(rng, ctx) if ctx.variant ~= 99 then return {} end\n"               /* 38 */
    "    local x = 0 while true do x = x + 1 end end }\n"                                   /* 39 */
    "question { id = \"rngmeta\", kind = \"numeric\", prompt = \"{mt} {ud}\", answer = 1,\n" /* 40
                                                                                              */
    "  params = function(rng) return { mt = tostring(getmetatable(rng)),\n"             /* 41 */
    "    ud = type(rng) } end }\n"                                                      /* 42 */
    "question { id = \"filelimit\", kind = \"numeric\", prompt = \"p\", answer = 1 }\n" /* 43 */
    "question { id = \"repcharge\", kind = \"numeric\", prompt = \"p\", answer = 1,\n"  /* 44 */
    "  params = function(rng, ctx) if ctx.variant ~= 99 then return {} end\n"           /* 45 */
    "    for i = 1, 1e9 do local s = (\"x\"):rep(1e5) end end }\n"                      /* 46 */
    "question { id = \"findcharge\", kind = \"numeric\", prompt = \"p\", answer = 1,\n" /* 47 */
    "  params = function(rng, ctx) if ctx.variant ~= 99 then return {} end\n"           /* 48 */
    "    local s = (\"ab\"):rep(5e4) for i = 1, 1e9 do s:find(\"zz\", 1, true) end end }\n"; /* 49
                                                                                              */

static struct grader_pack *pack;
static struct grader_limits lim;

static int setup(void **state)
{
    (void)state;
    grader_limits_default(&lim);
    lim.mem_bytes = 8u << 20;
    lim.instructions = 2000000;
    lim.cpu_ms =
        500; /* roomy enough that memory-limit cases hit memory first on a loaded machine */
    struct grader_file files[] = {{"pack.lua", PACK_LUA, sizeof PACK_LUA - 1},
                                  {"l.lua", LESSON_LUA, sizeof LESSON_LUA - 1}};
    struct core_strlist problems;
    core_strlist_init(&problems);
    struct core_err err = {0};
    int rc = grader_pack_new(&pack, files, 2, &lim, &problems, &err);
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

static const struct grader_ctx CTX = {.user = "alice", .variant = 1, .lab = NULL};

/* Runs `script` through the probe and returns its feedback (static buffer). */
static const char *probe(const char *script)
{
    static char out[CORE_ERR_MSG + 64];
    struct grader_result r;
    struct core_err err = {0};
    int rc = grader_question_grade(pack, "probe", &CTX, script, &r, &err);
    if (rc != 0) {
        snprintf(out, sizeof out, "ERROR %d: %s", rc, err.msg);
        return out;
    }
    snprintf(out, sizeof out, "%s", r.feedback);
    grader_result_fini(&r);
    return out;
}

static void assert_alive(void)
{
    assert_string_equal(probe("return 'alive' .. (1 + 1)"), "alive2");
}

/* ---- escapes ------------------------------------------------------------------- */

static void test_no_dangerous_globals(void **state)
{
    (void)state;
    const char *r = probe("local t = {} "
                          "for _, n in ipairs{'io','os','package','debug','require','dofile',"
                          "'loadfile','coroutine','warn','loadstring','module','setfenv'} do "
                          "  t[#t + 1] = n .. '=' .. type(_G[n]) .. type(_ENV[n]) "
                          "end return table.concat(t, ',')");
    assert_string_equal(r, "io=nilnil,os=nilnil,package=nilnil,debug=nilnil,require=nilnil,"
                           "dofile=nilnil,loadfile=nilnil,coroutine=nilnil,warn=nilnil,"
                           "loadstring=nilnil,module=nilnil,setfenv=nilnil");
    /* using them fails with Lua's own message, naming the line */
    r = probe("return io.open('/etc/passwd')");
    assert_non_null(strstr(r, "ERROR -7"));
    assert_non_null(strstr(r, "global 'io'"));
    assert_alive();
}

static void test_string_dump_gone(void **state)
{
    (void)state;
    assert_string_equal(probe("return tostring(string.dump) .. tostring(('').dump) .. "
                              "tostring(getmetatable('').__index.dump) .. "
                              "tostring(rawget(getmetatable('').__index, 'dump'))"),
                        "nilnilnilnil");
    /* the methods that remain still work */
    assert_string_equal(probe("return ('abc'):upper() .. string.format('%03d', 7)"), "ABC007");
}

static void test_binary_chunks_refused(void **state)
{
    (void)state;
    /* A binary chunk header (string.dump is gone, so it is typed by hand). */
    const char *bin = "local f, e = load('\\27Lua\\x54\\0\\x19\\x93\\r\\n\\x1a\\n' .. "
                      "string.rep('x', 40)) return tostring(f) .. '|' .. e";
    const char *r = probe(bin);
    assert_non_null(strstr(r, "nil|"));
    assert_non_null(strstr(r, "binary chunk"));
    /* asking for mode "b" does not help */
    r = probe("local f, e = load('\\27Lua\\x54\\0', 'x', 'b') return tostring(f) .. '|' .. e");
    assert_non_null(strstr(r, "nil|"));
    assert_non_null(strstr(r, "binary chunk"));
    /* text chunks load, into the caller's environment */
    assert_string_equal(probe("y = 5 return load('return y * 2')()"), "10");
    assert_string_equal(probe("return load('return _G == _ENV')()"), "true");
}

static void test_gc_metamethod_refused(void **state)
{
    (void)state;
    const char *r = probe("local ok, e = pcall(setmetatable, {}, { __gc = function() end }) "
                          "return tostring(ok) .. '|' .. e");
    assert_non_null(strstr(r, "false|"));
    assert_non_null(strstr(r, "__gc"));
    /* adding __gc after setmetatable does not mark the object (Lua's rule) */
    assert_string_equal(probe("local mt = {} local t = setmetatable({}, mt) "
                              "mt.__gc = function() RAN = true end "
                              "t = nil collectgarbage() collectgarbage() return tostring(RAN)"),
                        "nil");
    /* the rng's metatable cannot be reached to add one */
    struct grader_view v;
    struct core_err err;
    assert_int_equal(grader_question_view(pack, "rngmeta", &CTX, &v, &err), 0);
    assert_string_equal(v.prompt, "false userdata");
    grader_view_fini(&v);
    /* ordinary metatables work, __close and __index included */
    assert_string_equal(
        probe("local t = setmetatable({}, { __index = function(_, k) return k .. '!' "
              "end }) return t.hi"),
        "hi!");
    assert_string_equal(probe("local log = '' do local x <close> = setmetatable({}, { __close = "
                              "function() log = 'closed' end }) end return log"),
                        "closed");
}

static void test_collectgarbage_limited(void **state)
{
    (void)state;
    assert_string_equal(probe("local r = {} for _, o in ipairs{'stop', 'restart', 'generational', "
                              "'incremental', 'setpause', 'setstepmul'} do "
                              "r[#r + 1] = tostring(pcall(collectgarbage, o)) end "
                              "return table.concat(r, ',')"),
                        "false,false,false,false,false,false");
    assert_string_equal(probe("return type(collectgarbage('count')) .. collectgarbage()"),
                        "number0");
}

static void test_no_random(void **state)
{
    (void)state;
    const char *r = probe("local ok, e = pcall(math.random) return tostring(ok) .. '|' .. e");
    assert_non_null(strstr(r, "false|"));
    assert_non_null(strstr(r, "rng"));
    assert_string_equal(probe("return math.floor(math.pi * 100) .. utf8.char(72, 105)"), "314Hi");
}

static void test_env_tricks(void **state)
{
    (void)state;
    /* the sandbox globals are hidden behind the file's environment */
    assert_string_equal(probe("return tostring(getmetatable(_ENV)) .. tostring(getmetatable(_G))"),
                        "falsefalse");
    assert_string_equal(probe("local ok = pcall(setmetatable, _ENV, nil) return tostring(ok)"),
                        "false");
    /* replacing _ENV in a chunk only changes that chunk */
    assert_string_equal(probe("local function f() local _ENV = { x = 1 } return x end "
                              "return f() .. type(string)"),
                        "1table");
    assert_string_equal(probe("print('nothing to see') return 'printed'"), "printed");
}

static void test_no_leak_between_gradings(void **state)
{
    (void)state;
    /* globals stay in the file's environment */
    assert_string_equal(probe("rawset(_G, 'leak1', 1) leak2 = 2 return 'set'"), "set");
    /* what every grading shares cannot be changed at all (each write is an
     * error naming what it tried to change) */
    static const char *const writes[][2] = {
        {"string.leak3 = 3", "cannot set string.leak3"},
        {"getmetatable('').__index = nil", "cannot set getmetatable('').__index"},
        {"wb.leak4 = 4", "cannot set wb.leak4"},
        {"rawset(getmetatable(''), '__index', nil)", "rawset: getmetatable('') is read-only"},
        {"string.upper = function() return 'hacked' end", "cannot set string.upper"},
    };
    for (size_t i = 0; i < sizeof writes / sizeof writes[0]; i++) {
        const char *r = probe(writes[i][0]);
        if (!strstr(r, writes[i][1]))
            fprintf(stderr, "%s: %s\n", writes[i][0], r);
        assert_non_null(strstr(r, "ERROR -7"));
        assert_non_null(strstr(r, writes[i][1]));
        assert_non_null(strstr(r, "probe:1:"));
    }
    assert_string_equal(probe("return tostring(leak1) .. tostring(leak2) .. "
                              "tostring(string.leak3) .. tostring(wb.leak4) .. ('ok'):upper()"),
                        "nilnilnilnilOK");
    assert_string_equal(probe("return ('x'):upper()"), "X");
}

/* ---- limits --------------------------------------------------------------------- */

/* The limit questions misbehave only for variant 99, so the pack loads
 * (pack check renders every question for variant 1). */
#define VARIANT_FIRE 99

struct limit_case {
    const char *qid;
    const char *where; /* "l.lua:N:" in LESSON_LUA numbering */
    const char *what;
};

static const struct limit_case LIMITS[] = {
    {"spin", "l.lua:9:", "instruction limit (2000000 instructions) exceeded"},
    {"swallow", "l.lua:12:", "instruction limit"},
    {"handler", "l.lua:1", "instruction limit"}, /* line 15 or 16: either handler */
    {"tablebomb", "l.lua:19:", "memory limit (8 MiB) exceeded"},
    {"repbomb", "l.lua:22:", "memory limit (8 MiB) exceeded"},
    {"memswallow", "l.lua:25:", "memory limit (8 MiB) exceeded"},
    {"pattern", "l.lua:29:", "time limit (500 ms of CPU) exceeded"},
    {"gmatch", "l.lua:33:", "time limit (500 ms of CPU) exceeded"},
    {"pcallpattern", "l.lua:36:", "time limit (500 ms of CPU) exceeded"},
    /* work in C is charged to the instruction budget: the same limit on
     * every machine and under any load, long before the clock */
    {"repcharge", "l.lua:46:", "instruction limit (2000000 instructions) exceeded"},
    {"findcharge", "l.lua:49:", "instruction limit (2000000 instructions) exceeded"},
};

static void check_limit(struct grader_pack *p, const struct limit_case *c, int variant)
{
    struct grader_ctx ctx = {.user = "alice", .variant = variant};
    struct grader_result r;
    struct core_err err = {0};
    /* (No time is asserted: the backstop counts CPU time, and how long that
     * takes on the wall clock depends on the machine's load.) */
    int rc = grader_question_grade(p, c->qid, &ctx, "1", &r, &err);
    if (rc != CORE_ERR_LIMIT || !strstr(err.msg, c->where) || !strstr(err.msg, c->what))
        fprintf(stderr, "%s: rc %d: %s\n", c->qid, rc, err.msg);
    assert_int_equal(rc, CORE_ERR_LIMIT);
    assert_non_null(strstr(err.msg, c->where));
    assert_non_null(strstr(err.msg, c->what));
    /* the result is zeroed on error */
    assert_null(r.feedback);
}

static void test_limits(void **state)
{
    (void)state;
    struct grader_pack *vp = pack;
    for (size_t i = 0; i < sizeof LIMITS / sizeof LIMITS[0]; i++) {
        check_limit(vp, &LIMITS[i], VARIANT_FIRE);
        /* the next grading, of the same question, works normally */
        struct grader_ctx ctx = {.user = "alice", .variant = 1};
        struct grader_result r;
        struct core_err err = {0};
        assert_int_equal(grader_question_grade(vp, LIMITS[i].qid, &ctx, "1", &r, &err), 0);
        assert_true(r.valid && r.correct);
        grader_result_fini(&r);
    }
    assert_alive();
}

static void test_time_backstop_in_lua(void **state)
{
    (void)state;
    /* With a huge instruction budget, a Lua loop is stopped by the CPU-time backstop. */
    struct grader_limits l2 = lim;
    l2.instructions = UINT64_MAX / 2;
    struct grader_pack *p2;
    const char *src = "lesson { id = \"l\", title = \"L\" }\n"
                      "question { id = \"q\", kind = \"numeric\", prompt = \"p\", answer = 1,\n"
                      "  params = function(rng, ctx) if ctx.variant ~= 99 then return {} end\n"
                      "    local x = 0 while true do x = x + 1 end end }\n";
    struct grader_file files[] = {{"pack.lua", PACK_LUA, sizeof PACK_LUA - 1},
                                  {"l.lua", src, strlen(src)}};
    struct core_err err = {0};
    assert_int_equal(grader_pack_new(&p2, files, 2, &l2, NULL, &err), 0);
    struct limit_case c = {"q", "l.lua:4:", "time limit (500 ms of CPU) exceeded"};
    check_limit(p2, &c, VARIANT_FIRE);
    grader_pack_free(p2);
}

static void test_limits_in_the_probe(void **state)
{
    (void)state;
    /* Limits hit inside a chunk loaded by the grader name the grader's line. */
    const char *r = probe("while true do end");
    assert_non_null(strstr(r, "ERROR -6"));
    assert_non_null(strstr(r, "l.lua:6:"));
    assert_non_null(strstr(r, "instruction limit"));
    assert_alive();
    /* (tables, not strings: building strings is charged to the instruction
     * budget, which this test's small budget would hit first) */
    r = probe("local t = {} while true do t[#t + 1] = { #t } end");
    assert_non_null(strstr(r, "ERROR -6"));
    assert_non_null(strstr(r, "memory limit (8 MiB)"));
    assert_alive();
    r = probe("return ('x'):rep(1e9)");
    assert_non_null(strstr(r, "memory limit"));
    assert_alive();
    /* a runaway recursion is stopped by the memory cap (not the clock) */
    r = probe("local function f() return 1 + f() end return f()");
    assert_non_null(strstr(r, "ERROR -6"));
    assert_non_null(strstr(r, "memory limit"));
    assert_alive();
    /* an error that is not a limit is a script error, with its position */
    r = probe("error('boom')");
    assert_non_null(strstr(r, "ERROR -7"));
    assert_non_null(strstr(r, "probe:1: boom"));
    r = probe("error({})");
    assert_non_null(strstr(r, "ERROR -7"));
    assert_non_null(strstr(r, "error object is a table value"));
    assert_alive();
}

/* The time limit jumps out of a pattern matcher only (grader_sandbox.c,
 * "Time"): pcall and gsub's replacement are wrapped to keep that so, and do
 * what Lua's do; after errors raised inside matchers and replacements, and
 * caught, a pathological pattern is still stopped, by the jump. */
static void test_time_jump_only_in_matchers(void **state)
{
    (void)state;
    /* pcall, through its message handler, gives what Lua's gives */
    assert_string_equal(probe("local a, b, c = pcall(function() return 1, 2 end)\n"
                              "return tostring(a) .. b .. c"),
                        "true12");
    assert_string_equal(probe("local ok, e = pcall(error, 'x', 0) return tostring(ok) .. e"),
                        "falsex");
    assert_string_equal(probe("local ok, e = pcall(error, {}) return tostring(ok) .. type(e)"),
                        "falsetable");
    assert_non_null(
        strstr(probe("local ok, e = pcall(string.find, 'a', '[') return e"), "malformed pattern"));
    const char *r = probe("return pcall()");
    assert_non_null(strstr(r, "ERROR -7"));
    assert_non_null(strstr(r, "bad argument #1 to 'pcall'"));
    /* gsub with a function or a table (and its __index) as before */
    assert_string_equal(probe("return (('hello world'):gsub('%w+', { hello = 'HI' }))"),
                        "HI world");
    assert_string_equal(
        probe("return (('hello'):gsub('(h)(e)', function(a, b) return b .. a end))"), "ehllo");
    assert_string_equal(probe("return (('abc'):gsub('%w', function() return false end))"), "abc");
    assert_string_equal(probe("return (('ab'):gsub('%w', setmetatable({}, { __index =\n"
                              "  function(t, k) return k:upper() end })))"),
                        "AB");
    assert_string_equal(probe("return select(2, ('aaa'):gsub('a', 'b'))"), "3");
    assert_non_null(strstr(probe("return (('a'):gsub('a', function() return {} end))"),
                           "invalid replacement value (a table)"));
    /* a pathological pattern after a caught error in a matcher, after one in
     * a replacement, and inside a replacement: each stopped by the clock */
    static const char *const after[] = {
        "pcall(string.find, 'a', '[')\n",
        "pcall(string.gsub, 'a', 'a', function() error('x') end)\n",
        "local ok = pcall(function() local c <close> = setmetatable({}, { __close =\n"
        "  function() end }) ; string.find('a', '%') end)\n",
        "return (('x'):gsub('x', function()\n",
    };
    static const char *const close[] = {"", "", "", " end))"};
    for (size_t i = 0; i < sizeof after / sizeof after[0]; i++) {
        char script[512];
        snprintf(script, sizeof script, "%sreturn ('a'):rep(1e5):find('.-.-.-.-.-.-b')%s", after[i],
                 close[i]);
        r = probe(script);
        if (!strstr(r, "time limit"))
            fprintf(stderr, "case %zu: %s\n", i, r);
        assert_non_null(strstr(r, "ERROR -6"));
        assert_non_null(strstr(r, "time limit (500 ms of CPU) exceeded"));
        assert_non_null(strstr(r, "l.lua:6:")); /* the pack line that ran the probe */
        assert_alive();
    }
}

static void test_limit_at_load_time(void **state)
{
    (void)state;
    /* A file whose top level loops never loads; the message names the line. */
    const char *src = "lesson { id = \"l\", title = \"L\" }\n"
                      "local n = 0\n"
                      "while true do n = n + 1 end\n";
    struct grader_file files[] = {{"pack.lua", PACK_LUA, sizeof PACK_LUA - 1},
                                  {"l.lua", src, strlen(src)}};
    struct grader_pack *p = NULL;
    struct core_strlist problems;
    core_strlist_init(&problems);
    struct core_err err = {0};
    assert_int_equal(grader_pack_new(&p, files, 2, &lim, &problems, &err), CORE_ERR_LIMIT);
    assert_null(p);
    assert_int_equal(problems.n, 1);
    assert_non_null(strstr(problems.items[0], "l.lua:3:"));
    assert_non_null(strstr(problems.items[0], "instruction limit"));
    assert_string_equal(err.msg, problems.items[0]);
    core_strlist_fini(&problems);
}

static void test_many_gradings_stay_fresh(void **state)
{
    (void)state;
    /* A grading that fills most of its memory does not hurt the next ones. */
    for (int i = 0; i < 20; i++) {
        const char *r = probe("local t = {} for i = 1, 5e4 do t[i] = i end "
                              "G = (G or 0) + 1 return G .. ':' .. #t");
        assert_string_equal(r, "1:50000");
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_dangerous_globals),
        cmocka_unit_test(test_string_dump_gone),
        cmocka_unit_test(test_binary_chunks_refused),
        cmocka_unit_test(test_gc_metamethod_refused),
        cmocka_unit_test(test_collectgarbage_limited),
        cmocka_unit_test(test_no_random),
        cmocka_unit_test(test_env_tricks),
        cmocka_unit_test(test_no_leak_between_gradings),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_time_backstop_in_lua),
        cmocka_unit_test(test_limits_in_the_probe),
        cmocka_unit_test(test_time_jump_only_in_matchers),
        cmocka_unit_test(test_limit_at_load_time),
        cmocka_unit_test(test_many_gradings_stay_fresh),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
