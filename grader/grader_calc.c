/*
 * grader_calc.c — interactive calculators: running a calculator's
 * compute(v) for a set of inputs, checking what it returns, and the
 * calculator self-tests of pack check.
 *
 * A run is a job with the pack's limits, like a grading (grader_sb_run):
 * one C driver (l_calc) under grader_pcall loads the calculator's file cut
 * down to it (grader_slim_cut keeps the one calculator{} statement; the
 * whole file when the cut one does not declare it), runs it with the
 * constructors in grade mode (calculator{} indexes its table by id), and
 * calls compute with a fresh table of the inputs through grader_sb_try, so
 * compute gets its own instruction budget and deadline. The returned table
 * is read raw (no metamethod runs outside that call) and every entry is
 * checked before anything is handed to C: a list of 1..MAX_OUTPUTS tables
 * { label = string, value = finite number | text = string, unit = string }.
 * A broken calculator is a pack error (CORE_ERR_SCRIPT or CORE_ERR_LIMIT)
 * whose message starts with the calculator's "file:line: " and says which
 * inputs it ran with.
 *
 * Inputs are checked in C before any Lua runs: finite, within [min, max],
 * whole where the input says integer = true (CORE_ERR_INVALID, naming the
 * input and its range).
 *
 * Uses the sandbox, the pack model (grader_pack.c) and core.
 */
#include "grader_lua_internal.h"

#include <lauxlib.h>
#include <lua.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_OUTPUTS 64
#define MAX_OUTPUT_TEXT (16u << 10) /* as result texts: longer ones are cut */
#define EXAMPLE_REL 1e-6            /* examples: relative tolerance of a number */

struct cjob {
    struct grader_pack *p;
    struct grader_cx *x;
    const double *inputs;
    bool use_slim;
    bool slim_missing; /* the cut file did not declare it: run the whole file */
    const char *what;  /* the pack code running, for messages */
    char pos[128];     /* "file:line" of the calculator{} call */
    struct grader_calc_output *out;
    size_t n;
};

/* ---- model helpers ------------------------------------------------------------ */

void grader_calc_outputs_free(struct grader_calc_output *o, size_t n)
{
    for (size_t i = 0; o && i < n; i++) {
        free(o[i].label);
        free(o[i].unit);
        free(o[i].text);
    }
    free(o);
}

const struct grader_calc *grader_pack_calc(const struct grader_pack *p, const char *calc_id)
{
    for (size_t i = 0; p && calc_id && i < p->info.n_lessons; i++) {
        const struct grader_lesson *l = &p->info.lessons[i];
        for (size_t k = 0; k < l->n_calcs; k++)
            if (strcmp(l->calcs[k].id, calc_id) == 0)
                return &l->calcs[k];
    }
    return NULL;
}

static struct grader_cx *calc_cx(struct grader_pack *p, const char *calc_id)
{
    for (size_t i = 0; p && calc_id && i < p->n_cx; i++)
        if (p->cx[i].c && strcmp(p->cx[i].c->id, calc_id) == 0)
            return &p->cx[i];
    return NULL;
}

/* "f=0.2, p=4" for messages. */
static void inputs_text(const struct grader_calc *c, const double *v, char *buf, size_t n)
{
    buf[0] = '\0';
    for (size_t i = 0; i < c->n_inputs; i++) {
        size_t len = strlen(buf);
        snprintf(buf + len, n - len, "%s%s=%.10g", i ? ", " : "", c->inputs[i].name, v[i]);
    }
}

/* "from 1 to 100000", "at least 0", "at most 5" or "" for an unbounded input. */
static void range_text(const struct grader_calc_input *in, char *buf, size_t n)
{
    bool lo = isfinite(in->min), hi = isfinite(in->max);
    if (lo && hi)
        snprintf(buf, n, "from %.10g to %.10g", in->min, in->max);
    else if (lo)
        snprintf(buf, n, "at least %.10g", in->min);
    else if (hi)
        snprintf(buf, n, "at most %.10g", in->max);
    else
        snprintf(buf, n, "any number");
}

static int check_inputs(const struct grader_calc *c, const double *v, struct core_err *err)
{
    for (size_t i = 0; i < c->n_inputs; i++) {
        const struct grader_calc_input *in = &c->inputs[i];
        char range[96];
        range_text(in, range, sizeof range);
        if (!isfinite(v[i]) || v[i] < in->min || v[i] > in->max)
            return core_err_set(
                err, CORE_ERR_INVALID, "calculator %s: input '%s' (%s) must be %s%s, got %.10g",
                c->id, in->name, in->label, in->integer ? "a whole number " : "", range, v[i]);
        if (in->integer && v[i] != floor(v[i]))
            return core_err_set(err, CORE_ERR_INVALID,
                                "calculator %s: input '%s' (%s) must be a whole number (%s), "
                                "got %.10g",
                                c->id, in->name, in->label, range, v[i]);
    }
    return CORE_OK;
}

/* ---- the job ------------------------------------------------------------------- */

/* Raises a problem of the calculator: "file:line: calculator ID: message". */
static int fail_calc(lua_State *L, struct cjob *j, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail_calc(lua_State *L, struct cjob *j, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    j->what = NULL;
    lua_pushfstring(L, "%s: calculator %s: %s", j->pos, j->x->c->id, buf);
    grader_sb_mark_mapped(L);
    return lua_error(L);
}

/* Calls pack code; on error raises it (the driver stops). */
static void call(lua_State *L, struct cjob *j, const char *what, int nargs, int nres)
{
    j->what = what;
    if (grader_sb_try(L, nargs, nres) != 0)
        lua_error(L);
    j->what = NULL;
}

static char *dup_text(lua_State *L, int idx)
{
    size_t n;
    const char *s = lua_tolstring(L, idx, &n);
    if (n <= MAX_OUTPUT_TEXT)
        return core_xstrndup(s, n);
    size_t k = MAX_OUTPUT_TEXT;
    while (k > 0 && ((unsigned char)s[k] & 0xC0) == 0x80)
        k--; /* do not split a multi-byte character */
    return core_xasprintf("%.*s … (cut at 16 KiB)", (int)k, s);
}

/* Checks and copies one output entry (the table at idx) into j->out[j->n]. */
static void read_output(lua_State *L, struct cjob *j, int idx, size_t i)
{
    if (lua_type(L, idx) != LUA_TTABLE)
        fail_calc(L, j, "output %zu must be a table { label = ..., value = ... }, got %s", i,
                  luaL_typename(L, idx));
    lua_pushnil(L);
    while (lua_next(L, idx)) { /* ... k v */
        const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
        if (!k)
            fail_calc(L, j, "output %zu: unexpected %s key: fields are written name = value", i,
                      luaL_typename(L, -2));
        if (strcmp(k, "label") != 0 && strcmp(k, "value") != 0 && strcmp(k, "text") != 0 &&
            strcmp(k, "unit") != 0)
            fail_calc(L, j,
                      "output %zu: unknown field '%s' (an output has label, value or text, and "
                      "unit)",
                      i, k);
        lua_pop(L, 1); /* ... k */
    }
    int tl = grader_rawfield(L, idx, "label"), tv = grader_rawfield(L, idx, "value"),
        tt = grader_rawfield(L, idx, "text"),
        tu = grader_rawfield(L, idx, "unit"); /* label value text unit */
    if (tl != LUA_TSTRING)
        fail_calc(L, j, "output %zu: label must be a string, got %s", i, lua_typename(L, tl));
    const char *label = lua_tostring(L, -4);
    if (tv != LUA_TNIL && tt != LUA_TNIL)
        fail_calc(L, j, "output %zu ('%s'): gives both value and text: use one", i, label);
    if (tv == LUA_TNIL && tt == LUA_TNIL)
        fail_calc(L, j, "output %zu ('%s'): needs value = a number, or text = a string", i, label);
    if (tv != LUA_TNIL && tv != LUA_TNUMBER)
        fail_calc(L, j, "output %zu ('%s'): value must be a number, got %s", i, label,
                  lua_typename(L, tv));
    if (tt != LUA_TNIL && tt != LUA_TSTRING)
        fail_calc(L, j, "output %zu ('%s'): text must be a string, got %s", i, label,
                  lua_typename(L, tt));
    if (tu != LUA_TNIL && tu != LUA_TSTRING)
        fail_calc(L, j, "output %zu ('%s'): unit must be a string, got %s", i, label,
                  lua_typename(L, tu));
    double v = tv == LUA_TNUMBER ? lua_tonumber(L, -3) : 0;
    if (!isfinite(v))
        fail_calc(L, j, "output %zu ('%s'): value is %s, not a finite number", i, label,
                  isnan(v) ? "NaN"
                  : v > 0  ? "inf"
                           : "-inf");
    struct grader_calc_output *o = &j->out[j->n++];
    o->label = dup_text(L, -4);
    o->value = v;
    o->text = tt == LUA_TSTRING ? dup_text(L, -2) : NULL;
    o->unit = tu == LUA_TSTRING ? dup_text(L, -1) : core_xstrdup("");
    lua_pop(L, 4);
}

/* Checks compute's result (the value at idx) and copies it into j->out. */
static void read_outputs(lua_State *L, struct cjob *j, int idx)
{
    if (lua_type(L, idx) != LUA_TTABLE)
        fail_calc(L, j,
                  "compute must return a list of outputs { { label = ..., value = ... }, ... }, "
                  "got %s",
                  luaL_typename(L, idx));
    size_t n = lua_rawlen(L, idx), count = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) { /* ... k v */
        int isint = 0;
        lua_Integer k = lua_type(L, -2) == LUA_TNUMBER ? lua_tointegerx(L, -2, &isint) : 0;
        if (!isint || k < 1 || (size_t)k > n)
            fail_calc(L, j,
                      "compute must return a list of outputs { { label = ..., value = ... }, "
                      "... } without named entries");
        count++;
        lua_pop(L, 1); /* ... k */
    }
    if (count != n)
        fail_calc(L, j, "compute must return a list of outputs without holes");
    if (n == 0)
        fail_calc(L, j, "compute returned no outputs");
    if (n > MAX_OUTPUTS)
        fail_calc(L, j, "compute returned %zu outputs; at most %d are shown", n, MAX_OUTPUTS);
    j->out = core_xcalloc(n, sizeof *j->out);
    for (size_t i = 1; i <= n; i++) {
        lua_rawgeti(L, idx, (lua_Integer)i); /* ... entry */
        read_output(L, j, lua_gettop(L), i);
        lua_pop(L, 1);
    }
}

static int l_calc(lua_State *L)
{
    struct cjob *j = lua_touserdata(L, 1);
    const struct grader_calc *c = j->x->c;
    const struct grader_pfile *f = &j->p->files[j->x->file];
    grader_sb_enter_c(L);
    lua_settop(L, 0);
    grader_sb_set_fallback(L, j->pos);
    grader_sb_load_mapped(L, j->use_slim ? &j->x->slim : &f->bc, f->chunkname,
                          j->use_slim ? &j->x->map : NULL); /* chunk */
    call(L, j, "the file", 0, 0);
    grader_decl_push_calc(L, c->id); /* C */
    if (lua_type(L, 1) != LUA_TTABLE && j->use_slim) {
        j->slim_missing = true;
        return 0;
    }
    if (lua_type(L, 1) != LUA_TTABLE)
        fail_calc(L, j, "it is not declared when its file runs again (is the file deterministic?)");
    if (grader_rawfield(L, 1, "compute") != LUA_TFUNCTION) /* C compute */
        fail_calc(L, j, "compute must be a function(v)");
    lua_createtable(L, 0, (int)c->n_inputs); /* C compute v */
    for (size_t i = 0; i < c->n_inputs; i++) {
        double v = j->inputs[i];
        lua_pushstring(L, c->inputs[i].name);
        if (c->inputs[i].integer && fabs(v) < 9007199254740992.0) /* 2^53: exact */
            lua_pushinteger(L, (lua_Integer)v);
        else
            lua_pushnumber(L, v);
        lua_rawset(L, -3);
    }
    call(L, j, "compute", 1, 1); /* C result */
    read_outputs(L, j, 2);
    lua_settop(L, 0);
    return 0;
}

static int run_once(struct cjob *j, struct core_err *err)
{
    j->what = NULL;
    j->slim_missing = false;
    return grader_sb_run(&j->p->lim, j->p->pool, l_calc, j, err);
}

/* Runs x for inputs (already checked). On success j->out / j->n hold the
 * outputs (the caller's). */
static int run_cx(struct grader_pack *p, struct grader_cx *x, const double *inputs, struct cjob *j,
                  struct core_err *err)
{
    *j = (struct cjob){.p = p, .x = x, .inputs = inputs};
    snprintf(j->pos, sizeof j->pos, "%s:%d", x->c->file, x->c->line);
    if (x->file == SIZE_MAX)
        return core_err_set(err, CORE_ERR_INTERNAL, "%s: calculator %s has no file", j->pos,
                            x->c->id);
    /* The cut-down file, prepared on first use. */
    grader_slim_prepare(p, x->file, x->c->line, &x->slim_tried, &x->has_slim, &x->slim, &x->map);
    j->use_slim = x->has_slim;
    int rc = run_once(j, err);
    if (rc == 0 && j->slim_missing) { /* the cut file lost it: the whole file from now on */
        x->has_slim = false;
        core_buf_reset(&x->slim);
        grader_linemap_fini(&x->map);
        j->use_slim = false;
        rc = run_once(j, err);
    }
    if (rc && err) {
        char msg[sizeof err->msg], with[160];
        snprintf(msg, sizeof msg, "%s", err->msg);
        inputs_text(x->c, inputs, with, sizeof with);
        if (j->what)
            core_err_set(err, rc, "%s (in %s of calculator %s, with %s)", msg, j->what, x->c->id,
                         with);
        else
            core_err_set(err, rc, "%s (with %s)", msg, with);
    }
    if (rc) {
        grader_calc_outputs_free(j->out, j->n);
        j->out = NULL;
        j->n = 0;
    }
    return rc;
}

int grader_calc_run(struct grader_pack *p, const char *calc_id, const double *inputs,
                    struct grader_calc_output **out, size_t *n, struct core_err *err)
{
    *out = NULL;
    *n = 0;
    struct grader_cx *x = calc_cx(p, calc_id);
    if (!x)
        return core_err_set(err, CORE_ERR_NOTFOUND, "no calculator '%s' in pack %s",
                            calc_id ? calc_id : "", p ? p->info.id : "?");
    if (x->bad)
        return core_err_set(err, CORE_ERR_INVALID, "%s:%d: calculator %s did not pass its checks",
                            x->c->file, x->c->line, x->c->id);
    int rc = check_inputs(x->c, inputs, err);
    if (rc)
        return rc;
    struct cjob j;
    rc = run_cx(p, x, inputs, &j, err);
    if (rc)
        return rc;
    *out = j.out;
    *n = j.n;
    return CORE_OK;
}

/* ---- self-tests ------------------------------------------------------------------- */

/* Pushes "file:line: calculator ID: label: msg", without saying the first
 * part twice when msg already starts with it. */
static void push_problem(struct core_strlist *problems, const struct grader_calc *c,
                         const char *label, const char *msg)
{
    char prefix[200], own[160]; /* check_inputs names the calculator itself */
    snprintf(prefix, sizeof prefix, "%s:%d: calculator %s: ", c->file, c->line, c->id);
    snprintf(own, sizeof own, "calculator %s: ", c->id);
    grader_problem_push(problems, prefix, own, label, msg);
}

static bool close_enough(double got, double want)
{
    double d = fabs(got - want);
    return d <= EXAMPLE_REL * fabs(want) || d <= 1e-12;
}

/* Compares example ex's expected outputs with what the run gave. Returns
 * the number of mismatches, each pushed to problems. */
static int compare(const struct grader_calc *c, size_t ei, const struct grader_calc_example *ex,
                   const struct grader_calc_output *o, size_t n, struct core_strlist *problems)
{
    char with[160], label[200];
    inputs_text(c, ex->inputs, with, sizeof with);
    snprintf(label, sizeof label, "example %zu (%s)", ei, with);
    if (ex->n_outputs > n) {
        char msg[128];
        snprintf(msg, sizeof msg, "expects %zu outputs, compute returned %zu", ex->n_outputs, n);
        push_problem(problems, c, label, msg);
        return 1;
    }
    int bad = 0;
    for (size_t k = 0; k < ex->n_outputs; k++) {
        char msg[512];
        if (ex->texts[k]) {
            if (o[k].text && strcmp(o[k].text, ex->texts[k]) == 0)
                continue;
            if (o[k].text)
                snprintf(msg, sizeof msg,
                         "output %zu ('%.60s'): expected the text '%.80s', got '%.80s'", k + 1,
                         o[k].label, ex->texts[k], o[k].text);
            else
                snprintf(msg, sizeof msg,
                         "output %zu ('%.60s'): expected the text '%.80s', got the number %.10g",
                         k + 1, o[k].label, ex->texts[k], o[k].value);
        } else {
            if (!o[k].text && close_enough(o[k].value, ex->values[k]))
                continue;
            if (o[k].text)
                snprintf(msg, sizeof msg,
                         "output %zu ('%.60s'): expected %.10g, got the text '%.80s'", k + 1,
                         o[k].label, ex->values[k], o[k].text);
            else
                snprintf(msg, sizeof msg, "output %zu ('%.60s'): expected %.10g, got %.10g", k + 1,
                         o[k].label, ex->values[k], o[k].value);
        }
        push_problem(problems, c, label, msg);
        bad++;
    }
    return bad;
}

int grader_calc_selftest(struct grader_pack *p, struct core_strlist *problems, size_t *n_run)
{
    int failures = 0;
    size_t runs = 0;
    for (size_t i = 0; p && i < p->n_cx; i++) {
        struct grader_cx *x = &p->cx[i];
        if (x->bad || !x->c || x->file == SIZE_MAX)
            continue;
        const struct grader_calc *c = x->c;
        double *defs = core_xcalloc(c->n_inputs ? c->n_inputs : 1, sizeof *defs);
        for (size_t k = 0; k < c->n_inputs; k++)
            defs[k] = c->inputs[k].def;
        for (size_t e = 0; e <= x->n_examples; e++) {
            const struct grader_calc_example *ex = e ? &x->examples[e - 1] : NULL;
            const double *in = ex ? ex->inputs : defs;
            struct core_err err = {0};
            struct cjob j;
            char label[64]; /* the message of a failed run says which inputs */
            if (ex)
                snprintf(label, sizeof label, "example %zu", e);
            else
                snprintf(label, sizeof label, "with the default inputs");
            runs++;
            int rc = check_inputs(c, in, &err);
            if (rc == 0)
                rc = run_cx(p, x, in, &j, &err);
            if (rc) {
                failures++;
                push_problem(problems, c, label, err.msg);
                continue;
            }
            if (ex && compare(c, e, ex, j.out, j.n, problems) > 0)
                failures++;
            grader_calc_outputs_free(j.out, j.n);
        }
        free(defs);
    }
    if (n_run)
        *n_run += runs;
    return failures;
}
