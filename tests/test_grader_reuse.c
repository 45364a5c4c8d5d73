/*
 * test_grader_reuse.c — one sandbox grades job after job (grader_sb_run
 * keeps it in the pack's pool), and every job gets exactly what a sandbox
 * of its own would give it.
 *
 * - The built-in course and the example class pack, every question viewed,
 *   recorded and graded with a spread of answers, every calculator run:
 *   in one order and in another with the sandbox reused, and again with a
 *   fresh sandbox per job; each result compared field by field.
 * - A hostile pack tries to carry state from one job to the next: globals,
 *   rawset, the libraries and wb (string.format = ..., math.pi = ...), the
 *   strings' metatable, setmetatable on shared tables, tables reached through
 *   pairs, tables wb returns, load's default environment, declarations,
 *   file-level locals, collectgarbage, and failed jobs (an error, the memory,
 *   instruction and time limits, a memory error caught with pcall). After
 *   each, a fingerprint of everything a grader can read is what it was, and
 *   the pool's counters show whether the sandbox was kept or replaced.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/core.h"
#include "grader/grader.h"
#include "grader/grader_lua_internal.h"
#include "grader_test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- loading packs ------------------------------------------------------------------ */

static struct grader_sb_warm *warm(struct grader_pack *p)
{
    return grader_sb_pool_warm(p->pool);
}

/* ---- the same results, in any order, as in fresh sandboxes -------------------------- */

enum op { OP_VIEW, OP_RECORD, OP_GRADE, OP_CALC };

struct job {
    enum op op;
    const char *id; /* question or calculator (borrowed from the pack) */
    const char *user;
    int variant;
    bool with_lab;
    char *answer;
};

static const struct grader_kv LAB_PARAMS[] = {{.key = "p", .num = 2, .is_num = true}};
static const struct grader_kv LAB_SUMMARY[] = {{.key = "speedup", .num = 1.8, .is_num = true},
                                               {.key = "note", .str = "a run", .is_num = false}};

static void add_job(struct job **jobs, size_t *n, struct job j)
{
    *jobs = core_xrealloc(*jobs, (*n + 1) * sizeof **jobs);
    (*jobs)[(*n)++] = j;
}

/* Every question viewed, recorded and graded with a spread of answers (right,
 * wrong, unreadable, empty, letters, words), every calculator run with its
 * defaults; students, variants and lab runs vary from job to job. */
static struct job *make_jobs(struct grader_pack *p, size_t *n_out)
{
    static const char *const users[] = {"alice", "bob", "s0042"};
    static const char *const answers[] = {"0",
                                          "1",
                                          "2.5",
                                          "1/(0.2+0.8/4)",
                                          "a",
                                          "b d",
                                          "c a d b",
                                          "abc",
                                          "",
                                          "12 GB/s",
                                          "the writes are strided, so "
                                          "each warp touches 32 sectors"};
    const struct grader_pack_info *info = grader_pack_info(p);
    struct job *jobs = NULL;
    size_t n = 0, k = 0;
    for (size_t l = 0; l < info->n_lessons; l++) {
        const struct grader_lesson *les = &info->lessons[l];
        for (size_t q = 0; q < les->n_questions; q++, k++) {
            const struct grader_question *qq = &les->questions[q];
            const char *user = users[k % 3];
            int variant = 1 + (int)(k % 2);
            bool lab = qq->lab && k % 2 == 0;
            add_job(&jobs, &n, (struct job){OP_VIEW, qq->id, user, variant, lab, NULL});
            add_job(&jobs, &n,
                    (struct job){OP_RECORD, qq->id, user, variant, lab, core_xstrdup("1")});
            struct grader_reference ref;
            struct grader_ctx ctx = {.user = user, .variant = variant};
            struct core_err err;
            if (grader_question_reference(p, qq->id, &ctx, &ref, &err) == CORE_OK) {
                if (ref.exact)
                    add_job(&jobs, &n,
                            (struct job){OP_GRADE, qq->id, user, variant, lab,
                                         core_xstrdup(ref.exact)});
                grader_reference_fini(&ref);
            }
            for (size_t a = 0; a < sizeof answers / sizeof answers[0]; a++)
                if ((a + k) % 3 == 0) /* a third of them each, so the run stays short */
                    add_job(&jobs, &n,
                            (struct job){OP_GRADE, qq->id, users[(k + a) % 3], variant, lab,
                                         core_xstrdup(answers[a])});
        }
        for (size_t c = 0; c < les->n_calcs; c++)
            add_job(&jobs, &n, (struct job){OP_CALC, les->calcs[c].id, "alice", 1, false, NULL});
    }
    *n_out = n;
    return jobs;
}

static void free_jobs(struct job *jobs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(jobs[i].answer);
    free(jobs);
}

static void put_str(struct core_buf *b, const char *name, const char *s)
{
    core_buf_printf(b, "%s=%s\n", name, s ? s : "(null)");
}

/* Everything a job gave, as text: the error, or each field of the result,
 * view or outputs. */
static char *run_job(struct grader_pack *p, const struct job *j)
{
    struct core_buf b;
    core_buf_init(&b);
    struct core_err err = {0};
    struct grader_lab_run run = {.id = 7,
                                 .lab = "lab",
                                 .finished_at = "2026-01-01T00:00:00.000Z",
                                 .params = LAB_PARAMS,
                                 .n_params = 1,
                                 .summary = LAB_SUMMARY,
                                 .n_summary = 2};
    struct grader_ctx ctx = {
        .user = j->user, .variant = j->variant, .lab = j->with_lab ? &run : NULL};
    int rc = 0;
    switch (j->op) {
    case OP_VIEW: {
        struct grader_view v;
        rc = grader_question_view(p, j->id, &ctx, &v, &err);
        if (rc)
            break;
        put_str(&b, "prompt", v.prompt);
        for (size_t i = 0; i < v.n_choices; i++)
            put_str(&b, "choice", v.choices[i]);
        for (size_t i = 0; i < v.n_hints; i++)
            put_str(&b, "hint", v.hints[i]);
        put_str(&b, "unit", v.unit);
        put_str(&b, "needs_lab", v.needs_lab);
        for (size_t i = 0; i < v.n_rubric; i++)
            core_buf_printf(&b, "rubric=%s %.17g\n", v.rubric[i], v.rubric_points[i]);
        put_str(&b, "params", v.params_json);
        put_str(&b, "params_all", v.params_all);
        core_buf_printf(&b, "max_answer=%zu\n", v.max_answer);
        grader_view_fini(&v);
        break;
    }
    case OP_RECORD:
    case OP_GRADE: {
        struct grader_result r;
        rc = j->op == OP_GRADE ? grader_question_grade(p, j->id, &ctx, j->answer, &r, &err)
                               : grader_question_record(p, j->id, &ctx, j->answer, &r, &err);
        if (rc)
            break;
        core_buf_printf(&b,
                        "valid=%d score=%.17g max=%.17g correct=%d value=%.17g/%d "
                        "mistake=%d automatic=%d\n",
                        r.valid, r.score, r.max, r.correct, r.value, r.has_value, r.mistake,
                        r.automatic);
        put_str(&b, "feedback", r.feedback);
        put_str(&b, "parsed", r.parsed);
        put_str(&b, "accepted", r.accepted);
        put_str(&b, "reference", r.reference);
        put_str(&b, "params", r.params_json);
        put_str(&b, "canonical", r.canonical);
        grader_result_fini(&r);
        break;
    }
    case OP_CALC: {
        const struct grader_calc *c = grader_pack_calc(p, j->id);
        assert_non_null(c);
        double in[64];
        for (size_t i = 0; i < c->n_inputs && i < 64; i++)
            in[i] = c->inputs[i].def;
        struct grader_calc_output *o = NULL;
        size_t n = 0;
        rc = grader_calc_run(p, j->id, in, &o, &n, &err);
        for (size_t i = 0; rc == 0 && i < n; i++)
            core_buf_printf(&b, "%s=%.17g %s %s\n", o[i].label, o[i].value, o[i].unit,
                            o[i].text ? o[i].text : "");
        grader_calc_outputs_free(o, n);
        break;
    }
    }
    if (rc)
        core_buf_printf(&b, "ERROR %d: %s\n", rc, err.msg);
    core_buf_putc(&b, '\0');
    return b.data;
}

/* Runs every job of `order` (indices into jobs) and files each outcome at
 * its job's index. */
static char **run_all(struct grader_pack *p, const struct job *jobs, size_t n, const size_t *order)
{
    char **out = core_xcalloc(n, sizeof *out);
    for (size_t i = 0; i < n; i++)
        out[order[i]] = run_job(p, &jobs[order[i]]);
    return out;
}

static void free_all(char **out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(out[i]);
    free(out);
}

static size_t compare(const struct job *jobs, size_t n, char **a, char **b, const char *what)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(a[i], b[i]) == 0)
            continue;
        if (bad++ < 5)
            fprintf(stderr, "%s: job %zu (%d %s %s %d '%s') differs:\n--- \n%s--- \n%s", what, i,
                    jobs[i].op, jobs[i].id, jobs[i].user, jobs[i].variant,
                    jobs[i].answer ? jobs[i].answer : "", a[i], b[i]);
    }
    return bad;
}

static void check_pack(const char *dir)
{
    struct grader_pack *p = grader_test_load_dir(dir);
    size_t n;
    struct job *jobs = make_jobs(p, &n);
    assert_true(n > 50);
    size_t *fwd = core_xcalloc(n, sizeof *fwd), *mixed = core_xcalloc(n, sizeof *mixed);
    for (size_t i = 0; i < n; i++)
        fwd[i] = i;
    /* another order: backwards through every 7th job, then the rest in
     * steps of a prime, so neighbours differ from the first run's */
    size_t m = 0;
    for (size_t i = n; i-- > 0;)
        if (i % 7 == 3)
            mixed[m++] = i;
    for (size_t i = 0, k = 0; i < n; i++, k = (k + 101) % n) {
        while (k % 7 == 3 || k >= n)
            k = (k + 1) % n;
        bool seen = false;
        for (size_t t = 0; t < m && !seen; t++)
            seen = mixed[t] == k;
        if (!seen)
            mixed[m++] = k;
    }
    for (size_t k = 0; m < n && k < n; k++) { /* whatever the stepping missed */
        bool seen = false;
        for (size_t t = 0; t < m && !seen; t++)
            seen = mixed[t] == k;
        if (!seen)
            mixed[m++] = k;
    }
    assert_int_equal(m, n);

    struct grader_sb_warm *w = warm(p);
    unsigned long made0 = w->made, reused0 = w->reused;
    char **a = run_all(p, jobs, n, fwd);
    /* one sandbox did nearly all of it (a job that fails, or leaves much
     * memory touched, costs a new one) */
    assert_true(w->reused - reused0 > (n * 3) / 4);
    assert_true(w->made - made0 < n / 4);
    char **b = run_all(p, jobs, n, mixed);
    w->fresh = true;
    made0 = w->made;
    reused0 = w->reused;
    char **c = run_all(p, jobs, n, mixed);
    /* (view, record and grade count one job each; a grading of a cut file that
     * lost its question runs the whole file too) */
    assert_int_equal(w->reused, reused0);
    assert_true(w->made - made0 >= n);
    w->fresh = false;
    size_t bad = compare(jobs, n, a, b, "reused, another order") +
                 compare(jobs, n, a, c, "reused against fresh");
    if (bad)
        fprintf(stderr, "%s: %zu of %zu jobs differ\n", dir, bad, 2 * n);
    assert_int_equal(bad, 0);
    free_all(a, n);
    free_all(b, n);
    free_all(c, n);
    free(fwd);
    free(mixed);
    free_jobs(jobs, n);
    grader_pack_free(p);
}

static void test_builtin_pack_same_results(void **state)
{
    (void)state;
    check_pack("lessons/packs/core");
}

static void test_class_pack_same_results(void **state)
{
    (void)state;
    check_pack("lessons/examples/class");
}

/* ---- a hostile pack --------------------------------------------------------------- */

static const char PACK_LUA[] = "pack { id = \"test.reuse\", title = \"Reuse\", version = \"1\", "
                               "lessons = { \"l.lua\" } }\n";

/* probe: runs the answer as Lua (the sandbox's text-only load, in the
 * file's environment) and returns what it returns. counter: how often its
 * file-level local and a global were counted in this job. */
static const char LESSON_LUA[] =
    "lesson { id = \"l\", title = \"L\" }\n"
    "local calls = 0\n"
    "question { id = \"probe\", kind = \"text\", prompt = \"p\", answer = \"x\",\n"
    "  grade = function(answer, ctx)\n"
    "    local f, err = load(answer, \"=probe\")\n"
    "    if not f then return { score = 0, feedback = \"load: \" .. err } end\n"
    "    return { score = 1, feedback = tostring(f()) }\n"
    "  end }\n"
    "question { id = \"counter\", kind = \"text\", prompt = \"p\", answer = \"x\",\n"
    "  grade = function(answer, ctx)\n"
    "    calls = calls + 1 COUNT = (COUNT or 0) + 1\n"
    "    return { score = 1, feedback = calls .. '/' .. COUNT .. '/' .. tostring(LEAK) }\n"
    "  end }\n"
    /* z2 is z2 only after z1: its cut file declares z1 instead, and the
     * whole file runs in a second job */
    "local n = 0\n"
    "local function id() n = n + 1 return 'z' .. n end\n"
    "question { id = id(), kind = 'text', prompt = 'p', answer = 'x',\n"
    "  grade = function() return 1, 'z1' end }\n"
    "question { id = id(), kind = 'text', prompt = 'p', answer = 'x',\n"
    "  grade = function() SEEN = (SEEN or 0) + 1 return 1, 'z2 seen ' .. SEEN end }\n";

static struct grader_pack *hostile;

static int setup_hostile(void **state)
{
    (void)state;
    struct grader_limits lim;
    grader_limits_default(&lim);
    lim.mem_bytes = 8u << 20;
    lim.instructions = 2000000;
    lim.cpu_ms = 200;
    struct grader_file files[] = {{"pack.lua", PACK_LUA, sizeof PACK_LUA - 1},
                                  {"l.lua", LESSON_LUA, sizeof LESSON_LUA - 1}};
    struct core_err err = {0};
    return grader_pack_new(&hostile, files, 2, &lim, NULL, &err);
}

static int teardown_hostile(void **state)
{
    (void)state;
    grader_pack_free(hostile);
    return 0;
}

/* Runs `script` through the probe: its feedback, or "ERROR <code>: msg". */
static char *probe(const char *qid, const char *script)
{
    static const struct grader_ctx ctx = {.user = "alice", .variant = 1};
    struct grader_result r;
    struct core_err err = {0};
    int rc = grader_question_grade(hostile, qid, &ctx, script, &r, &err);
    if (rc)
        return core_xasprintf("ERROR %d: %s", rc, err.msg);
    char *out = core_xstrdup(r.feedback);
    grader_result_fini(&r);
    return out;
}

/* Everything shared a grader can read, as text: the globals a job could have
 * left, the libraries' behaviour and every key they hold (through pairs,
 * next, rawget and rawlen), wb and wb.lab, the strings' metatable, what wb
 * returns. */
static const char FINGERPRINT[] =
    "local out = {}\n"
    "local function add(...)\n"
    "  for i = 1, select('#', ...) do out[#out + 1] = tostring((select(i, ...))) end\n"
    "end\n"
    "add(LEAK, rawget(_G, 'LEAK'), ITER, tostring == nil)\n"
    "add(string.format('%05.1f', 2.25), ('x'):upper(), ('abc'):rep(2, '-'),\n"
    "    math.floor(math.pi * 1000), math.huge, table.concat({1, 2, 3}, ','),\n"
    "    utf8.char(72, 105), #utf8.charpattern)\n"
    "add(wb.number('2.5 GB/s', 'GB/s'), wb.amdahl(0.2, 4), wb.sig(1234.5, 2),\n"
    "    wb.has('a b c', 'b c'))\n"
    "add(wb.lab.figure({ lab = { summary = { s = 3 } } }, 's'))\n"
    "local s, missed, found, d =\n"
    "  wb.concepts('The cache is warm.', { { name = 'c', match = { 'cache' } } })\n"
    "add(s, #missed, found[1], d.status[1])\n"
    "local mt = getmetatable('')\n"
    "add(mt.__index == string, rawequal(mt.__index, string), getmetatable(string),\n"
    "    mt.__metatable == mt)\n"
    "for _, name in ipairs({ 'string', 'table', 'math', 'utf8', 'wb' }) do\n"
    "  local t, keys = _ENV[name], {}\n"
    "  for k, v in pairs(t) do\n"
    "    keys[#keys + 1] = k .. ':' .. type(v) .. ':' .. tostring(rawget(t, k) == v)\n"
    "  end\n"
    "  table.sort(keys)\n"
    "  add(name, #keys, table.concat(keys, ' '), next(t) ~= nil, rawlen(t), #t)\n"
    "end\n"
    "local lk = {} for k in pairs(wb.lab) do lk[#lk + 1] = k end table.sort(lk)\n"
    "add(table.concat(lk, ' '), type(coroutine), type(debug), type(io), type(os))\n"
    "return table.concat(out, '|')\n";

static char *clean; /* the fingerprint in a fresh sandbox */

struct attack {
    const char *script;
    const char *expect; /* in its outcome (an error or what it returns) */
    bool fails;         /* the job fails: the sandbox is replaced */
};

static const struct attack ATTACKS[] = {
    /* globals and the file's environment */
    {"LEAK = 1 _G.LEAK = 1 rawset(_G, 'LEAK', 1) _ENV.LEAK = 1 return LEAK", "1", false},
    {"load('LEAK = 1')() ITER = ('a b'):gmatch('%a') return LEAK", "1", false},
    {"tostring = nil return 'gone'", "gone", false},
    {"return pcall(setmetatable, _ENV, nil)", "false", false},
    /* the libraries, wb, wb.lab */
    {"string.format = function() return 'X' end", "cannot set string.format: string is read-only",
     true},
    {"math.pi = 3", "cannot set math.pi: math is read-only", true},
    {"math.huge = 1", "cannot set math.huge", true},
    {"table.concat = nil", "cannot set table.concat: table is read-only", true},
    {"utf8.char = nil", "cannot set utf8.char", true},
    {"string.LEAK = 1", "cannot set string.LEAK", true},
    {"wb.number = function() return 0 end", "cannot set wb.number: wb is read-only", true},
    {"wb.lab = {}", "cannot set wb.lab", true},
    {"wb.lab.figure = nil", "cannot set wb.lab.figure: wb.lab is read-only", true},
    {"table.insert(string, 'x')", "string is read-only", true},
    {"table.sort(wb, function() return true end) return 'sorted'", "sorted", false},
    {"rawset(string, 'LEAK', 1)", "rawset: string is read-only", true},
    {"rawset(wb.lab, 'LEAK', 1)", "rawset: wb.lab is read-only", true},
    {"setmetatable(string, { __index = function() return 'X' end })",
     "setmetatable: string is read-only", true},
    {"setmetatable(math, nil)", "setmetatable: math is read-only", true},
    /* the strings' metatable */
    {"getmetatable('').__index = { upper = function() return 'X' end }",
     "cannot set getmetatable('').__index", true},
    {"getmetatable('').__index.upper = nil", "cannot set string.upper", true},
    {"getmetatable('').__add = function() return 1 end", "cannot set getmetatable('').__add", true},
    {"rawset(getmetatable(''), '__index', {})", "rawset: getmetatable('') is read-only", true},
    {"setmetatable(getmetatable(''), {})", "setmetatable: getmetatable('') is read-only", true},
    /* caught writes: the job goes on and succeeds, and the sandbox is kept */
    {"local n = 0 for _, f in ipairs({ function() string.rep = nil end, function() "
     "math.LEAK = 1 end, function() rawset(string, 'LEAK', 1) end, function() "
     "getmetatable('').__index = {} end, function() wb.lab.LEAK = 1 end }) do "
     "if not pcall(f) then n = n + 1 end end return n",
     "5", false},
    /* tables reached through pairs and next: proxies too */
    {"local n = 0 for _, t in ipairs({ string, wb, getmetatable(''), math, table, utf8 }) do "
     "for k, v in pairs(t) do if type(v) == 'table' and pcall(rawset, v, 'LEAK', 1) then "
     "n = n + 1 end end "
     "local k, v = next(t) while k do if type(v) == 'table' and pcall(function() v.LEAK = 1 "
     "end) then n = n + 1 end k, v = next(t, k) end end return n",
     "0", false},
    {"local f, t = pairs(string) return tostring(f == next) .. tostring(t == string)", "truetrue",
     false},
    /* what wb returns is the caller's own */
    {"local s, missed, found, d = wb.concepts('The cache is warm.', { { name = 'c', match = { "
     "'cache' } } }) found[1] = 'HACK' d.status[1] = 'HACK' missed[1] = 'HACK' return found[1]",
     "HACK", false},
    /* the declarations */
    {"question { id = 'counter', kind = 'text', prompt = 'p', answer = 'x', grade = function() "
     "return 0, 'hijacked' end } return 'declared'",
     "declared", false},
    /* the collector: only what does not change it is offered */
    {"collectgarbage() collectgarbage('step', 100) return tostring(pcall(collectgarbage, "
     "'stop')) .. tostring(pcall(collectgarbage, 'generational'))",
     "falsefalse", false},
    /* no coroutine to leave suspended, no debug to reach an upvalue */
    {"return type(coroutine) .. type(debug)", "nilnil", false},
    /* failed jobs */
    {"error('boom')", "ERROR -7: probe:1: boom", true},
    {"while true do end", "instruction limit", true},
    {"local t = {} while true do t[#t + 1] = { #t } end", "memory limit (8 MiB)", true},
    {"local ok = pcall(string.rep, 'x', 1e9) return 'survived'", "memory limit", true},
    {"local ok = pcall(function() local t = {} while true do t[#t + 1] = {} end end) "
     "return 'survived'",
     "memory limit", true},
    {"return string.find(('a'):rep(1e5), '.-.-.-.-.-.-b')", "time limit (200 ms of CPU)", true},
    /* much memory used and given back: fine, and nothing carries over */
    {"local t = {} for i = 1, 4e4 do t[i] = { i } end t = nil collectgarbage() return 'big'", "big",
     false},
};

static void test_hostile_pack_cannot_carry_state(void **state)
{
    (void)state;
    struct grader_sb_warm *w = warm(hostile);
    w->fresh = true;
    clean = probe("probe", FINGERPRINT);
    char *counter = probe("counter", "go");
    w->fresh = false;
    assert_null(strstr(clean, "ERROR"));
    assert_string_equal(counter, "1/1/nil");
    free(counter);
    /* the fingerprint is what a fresh sandbox gives, job after job */
    for (int i = 0; i < 3; i++) {
        char *f = probe("probe", FINGERPRINT);
        assert_string_equal(f, clean);
        free(f);
    }
    for (size_t i = 0; i < sizeof ATTACKS / sizeof ATTACKS[0]; i++) {
        const struct attack *a = &ATTACKS[i];
        unsigned long made = w->made, reused = w->reused;
        char *r = probe("probe", a->script);
        if (!strstr(r, a->expect) || (strncmp(r, "ERROR", 5) == 0) != a->fails)
            fprintf(stderr, "attack %zu: %s\n  -> %s\n", i, a->script, r);
        assert_non_null(strstr(r, a->expect));
        assert_int_equal(strncmp(r, "ERROR", 5) == 0, a->fails);
        free(r);
        /* the attack ran in the kept sandbox */
        assert_int_equal(w->made, made);
        assert_int_equal(w->reused, reused + 1);
        /* a sandbox that failed a job is never used again */
        assert_true(a->fails ? w->sb == NULL : w->sb != NULL);
        char *f = probe("probe", FINGERPRINT);
        if (strcmp(f, clean) != 0)
            fprintf(stderr, "after attack %zu (%s):\n  %s\n  %s\n", i, a->script, f, clean);
        assert_string_equal(f, clean);
        free(f);
        assert_int_equal(w->made, made + (a->fails ? 1 : 0));
        char *c = probe("counter", "go");
        assert_string_equal(c, "1/1/nil");
        free(c);
    }
    free(clean);
}

static void test_declarations_forgotten(void **state)
{
    (void)state;
    /* z2's cut file would declare z1 in its place, so z2 runs the whole
     * file, job after job in the kept sandbox: each grading sees its own
     * file environment, never one an earlier grading counted in. */
    for (int i = 0; i < 3; i++) {
        char *r = probe("z2", "go");
        assert_string_equal(r, "z2 seen 1");
        free(r);
    }
}

static void test_memory_counted_as_fresh(void **state)
{
    (void)state;
    /* A job that needs nearly all of its 8 MiB passes in a kept sandbox as in
     * a fresh one, however many ran before it; one that needs more fails in
     * both. (Each job keeps its table until it returns.) */
    static const char fits[] = "local t = {} for i = 1, 2e5 do t[i] = i end return #t";
    static const char too_big[] = "local t = {} for i = 1, 3e5 do t[i] = i end return #t";
    struct grader_sb_warm *w = warm(hostile);
    for (int mode = 0; mode < 2; mode++) {
        w->fresh = mode == 1;
        for (int i = 0; i < 5; i++) {
            char *r = probe("probe", "local t = {} for i = 1, 2e4 do t[i] = { i } end return 1");
            assert_string_equal(r, "1");
            free(r);
            r = probe("probe", fits);
            assert_string_equal(r, "200000");
            free(r);
            r = probe("probe", too_big);
            assert_non_null(strstr(r, "memory limit (8 MiB)"));
            free(r);
        }
    }
    w->fresh = false;
}

static void test_kept_between_packs_calcs_and_checks(void **state)
{
    (void)state;
    /* pack check's self-tests run through the same path */
    struct grader_pack *p = grader_test_load_dir("lessons/examples/class");
    struct grader_sb_warm *w = warm(p);
    unsigned long reused = w->reused;
    struct core_strlist problems;
    core_strlist_init(&problems);
    size_t runs = 0;
    assert_int_equal(grader_pack_selftest(p, &problems, &runs), 0);
    assert_true(runs > 0);
    assert_true(w->reused > reused);
    core_strlist_fini(&problems);
    /* changed limits: the kept sandbox is not used for them */
    struct grader_limits lim = p->lim;
    p->lim.instructions = lim.instructions / 2;
    unsigned long made = w->made;
    const struct grader_pack_info *info = grader_pack_info(p);
    struct grader_result r;
    struct core_err err;
    struct grader_ctx ctx = {.user = "alice", .variant = 1};
    assert_int_equal(
        grader_question_record(p, info->lessons[0].questions[0].id, &ctx, "1", &r, &err), CORE_OK);
    grader_result_fini(&r);
    assert_int_equal(w->made, made + 1);
    p->lim = lim;
    grader_pack_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_builtin_pack_same_results),
        cmocka_unit_test(test_class_pack_same_results),
        cmocka_unit_test_setup_teardown(test_hostile_pack_cannot_carry_state, setup_hostile,
                                        teardown_hostile),
        cmocka_unit_test_setup_teardown(test_declarations_forgotten, setup_hostile,
                                        teardown_hostile),
        cmocka_unit_test_setup_teardown(test_memory_counted_as_fresh, setup_hostile,
                                        teardown_hostile),
        cmocka_unit_test(test_kept_between_packs_calcs_and_checks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
