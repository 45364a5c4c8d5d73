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
 * Uses the sandbox, the runtime's readers and calls (grader_decl_read.c,
 * grader_call.c), the pack model (grader_pack.c) and core; no Lua stack
 * work of its own.
 */
#include "grader_lua_internal.h"

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
static int fail_calc(struct lua_State *L, struct cjob *j, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail_calc(struct lua_State *L, struct cjob *j, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    j->what = NULL;
    return grader_raise_mapped(L, "%s: calculator %s: %s", j->pos, j->x->c->id, buf);
}

/* Calls pack code; on error raises it (the driver stops). */
static void call(struct lua_State *L, struct cjob *j, const char *what, int nargs, int nres)
{
    j->what = what;
    if (grader_sb_try(L, nargs, nres) != 0)
        grader_raise(L);
    j->what = NULL;
}

static char *dup_text(const struct grader_dval *d)
{
    if (d->len <= MAX_OUTPUT_TEXT)
        return core_xstrndup(d->str, d->len);
    size_t k = MAX_OUTPUT_TEXT;
    while (k > 0 && ((unsigned char)d->str[k] & 0xC0) == 0x80)
        k--; /* do not split a multi-byte character */
    return core_xasprintf("%.*s … (cut at 16 KiB)", (int)k, d->str);
}

/* The fields of an output entry, walked: only label, value, text and unit. */
struct output_walk {
    struct lua_State *L;
    struct cjob *j;
    size_t i;
};

static bool output_field(const struct grader_dval *key, const struct grader_dval *val, void *ud)
{
    (void)val;
    struct output_walk *w = ud;
    if (key->type != GRADER_LT_STR)
        fail_calc(w->L, w->j, "output %zu: unexpected %s key: fields are written name = value",
                  w->i, grader_ltype_name(key->type));
    const char *k = key->str;
    if (strcmp(k, "label") != 0 && strcmp(k, "value") != 0 && strcmp(k, "text") != 0 &&
        strcmp(k, "unit") != 0)
        fail_calc(w->L, w->j,
                  "output %zu: unknown field '%s' (an output has label, value or text, and "
                  "unit)",
                  w->i, k);
    return true;
}

/* Checks and copies output entry i of the list at `list` into j->out[j->n]. */
static void read_output(struct lua_State *L, struct cjob *j, int list, size_t i)
{
    int idx = grader_tab_open_at(L, list, (long long)i);
    if (!idx) {
        struct grader_dval d;
        grader_index(L, list, (long long)i, &d);
        fail_calc(L, j, "output %zu must be a table { label = ..., value = ... }, got %s", i,
                  grader_ltype_name(d.type));
    }
    struct output_walk w = {L, j, i};
    grader_pairs(L, idx, output_field, &w);
    struct grader_dval dl, dv, dt, du;
    int tl = grader_field(L, idx, "label", &dl), tv = grader_field(L, idx, "value", &dv),
        tt = grader_field(L, idx, "text", &dt), tu = grader_field(L, idx, "unit", &du);
    if (tl != GRADER_LT_STR)
        fail_calc(L, j, "output %zu: label must be a string, got %s", i, grader_ltype_name(tl));
    const char *label = dl.str;
    if (tv != GRADER_LT_NIL && tt != GRADER_LT_NIL)
        fail_calc(L, j, "output %zu ('%s'): gives both value and text: use one", i, label);
    if (tv == GRADER_LT_NIL && tt == GRADER_LT_NIL)
        fail_calc(L, j, "output %zu ('%s'): needs value = a number, or text = a string", i, label);
    if (tv != GRADER_LT_NIL && tv != GRADER_LT_NUM)
        fail_calc(L, j, "output %zu ('%s'): value must be a number, got %s", i, label,
                  grader_ltype_name(tv));
    if (tt != GRADER_LT_NIL && tt != GRADER_LT_STR)
        fail_calc(L, j, "output %zu ('%s'): text must be a string, got %s", i, label,
                  grader_ltype_name(tt));
    if (tu != GRADER_LT_NIL && tu != GRADER_LT_STR)
        fail_calc(L, j, "output %zu ('%s'): unit must be a string, got %s", i, label,
                  grader_ltype_name(tu));
    double v = tv == GRADER_LT_NUM ? dv.num : 0;
    if (!isfinite(v))
        fail_calc(L, j, "output %zu ('%s'): value is %s, not a finite number", i, label,
                  isnan(v) ? "NaN"
                  : v > 0  ? "inf"
                           : "-inf");
    struct grader_calc_output *o = &j->out[j->n++];
    o->label = dup_text(&dl);
    o->value = v;
    o->text = tt == GRADER_LT_STR ? dup_text(&dt) : NULL;
    o->unit = tu == GRADER_LT_STR ? dup_text(&du) : core_xstrdup("");
    grader_tab_close(L, idx);
}

/* Checks compute's result (the value at idx) and copies it into j->out. */
static void read_outputs(struct lua_State *L, struct cjob *j, int idx)
{
    if (grader_type(L, idx) != GRADER_LT_TAB)
        fail_calc(L, j,
                  "compute must return a list of outputs { { label = ..., value = ... }, ... }, "
                  "got %s",
                  grader_ltype_name(grader_type(L, idx)));
    size_t n = grader_len(L, idx);
    if (!grader_list_keys(L, idx))
        fail_calc(L, j,
                  "compute must return a list of outputs { { label = ..., value = ... }, "
                  "... } without named entries");
    if (grader_count(L, idx) != n)
        fail_calc(L, j, "compute must return a list of outputs without holes");
    if (n == 0)
        fail_calc(L, j, "compute returned no outputs");
    if (n > MAX_OUTPUTS)
        fail_calc(L, j, "compute returned %zu outputs; at most %d are shown", n, MAX_OUTPUTS);
    j->out = core_xcalloc(n, sizeof *j->out);
    for (size_t i = 1; i <= n; i++)
        read_output(L, j, idx, i);
}

/* Entry i of compute's v: the input's name and value, an integer when the
 * input says integer = true and the value is exact as one. */
static void input_entry(size_t i, const char **name, double *v, bool *integer, void *ud)
{
    const struct cjob *j = ud;
    const struct grader_calc_input *in = &j->x->c->inputs[i];
    *name = in->name;
    *v = j->inputs[i];
    *integer = in->integer && fabs(*v) < 9007199254740992.0; /* 2^53: exact */
}

static int l_calc(struct lua_State *L)
{
    struct cjob *j = grader_sb_job_start(L);
    const struct grader_calc *c = j->x->c;
    const struct grader_pfile *f = &j->p->files[j->x->file];
    grader_sb_set_fallback(L, j->pos);
    grader_sb_load_mapped(L, j->use_slim ? &j->x->slim : &f->bc, f->chunkname,
                          j->use_slim ? &j->x->map : NULL); /* chunk */
    call(L, j, "the file", 0, 0);
    grader_decl_push_calc(L, c->id); /* C */
    if (grader_type(L, 1) != GRADER_LT_TAB && j->use_slim) {
        j->slim_missing = true;
        return 0;
    }
    if (grader_type(L, 1) != GRADER_LT_TAB)
        fail_calc(L, j, "it is not declared when its file runs again (is the file deterministic?)");
    if (grader_rawfield(L, 1, "compute") != GRADER_LT_FUN) /* C compute */
        fail_calc(L, j, "compute must be a function(v)");
    grader_push_record(L, c->n_inputs, input_entry, j); /* C compute v */
    call(L, j, "compute", 1, 1);                        /* C result */
    read_outputs(L, j, 2);
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
