/*
 * grader_kind_code.c — the `code` question: the student writes a C
 * function, which `warpbench code run` compiles, sandboxes, checks and
 * times (labs/code/). The grader's part is the declaration: it reads the
 * question's `code` table into a struct grader_code and checks it when the
 * pack is evaluated (pack check names the file and line of every problem):
 * the signature parses, every array has a count and every integer is one
 * of the sizes, the work model and bands are there. An answer typed to
 * `warpbench answer` is not a run: it is unreadable, and says how to run.
 *
 * Uses the field schema (grader_schema.c) and the job (grader_grade.c).
 */
#include "grader_lua_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct grader_fspec code_fields[] = {
    {"signature", GRADER_T_STR}, {"sizes", GRADER_T_TAB},
    {"inputs", GRADER_T_TAB},    {"outputs", GRADER_T_TAB},
    {"starter", GRADER_T_STR},   {"reference", GRADER_T_STR},
    {"flags", GRADER_T_STR},     {"tolerance", GRADER_T_TAB},
    {"work", GRADER_T_TAB},      {"bands", GRADER_T_TAB},
    {"correct", GRADER_T_NUM},   {"threads", GRADER_T_NUM},
    {"reps", GRADER_T_NUM},      {"timeout", GRADER_T_NUM},
    {"memory", GRADER_T_NUM},    {NULL, 0}};
static const struct grader_fspec array_fields[] = {{"count", GRADER_T_STR | GRADER_T_NUM},
                                                   {"min", GRADER_T_NUM},
                                                   {"max", GRADER_T_NUM},
                                                   {NULL, 0}};
static const struct grader_fspec tol_fields[] = {
    {"rel", GRADER_T_NUM}, {"abs", GRADER_T_NUM}, {"mismatch", GRADER_T_NUM}, {NULL, 0}};
static const struct grader_fspec work_fields[] = {
    {"flops", GRADER_T_STR | GRADER_T_NUM}, {"bytes", GRADER_T_STR | GRADER_T_NUM}, {NULL, 0}};
static const struct grader_fspec band_fields[] = {
    {"fraction", GRADER_T_NUM}, {"score", GRADER_T_NUM}, {NULL, 0}};

/* The element types a signature may use. */
static const char *const elems[] = {"int8_t", "int32_t",     "int64_t", "int", "float",
                                    "double", "signed char", "long",    NULL};

void grader_code_free(struct grader_code *c)
{
    if (!c)
        return;
    free(c->signature);
    free(c->func);
    free(c->ret);
    for (size_t i = 0; i < c->n_params; i++) {
        free(c->params[i].name);
        free(c->params[i].type);
        free(c->params[i].elem);
        free(c->params[i].count);
    }
    free(c->params);
    for (size_t i = 0; i < c->n_sizes; i++) /* not grader_strv_free: grader_pack.c calls here */
        free(c->size_names[i]);
    free(c->size_names);
    free(c->size_values);
    free(c->starter);
    free(c->reference);
    free(c->flags);
    free(c->flops);
    free(c->bytes);
    free(c->band_fraction);
    free(c->band_score);
    free(c->lesson_lab);
    free(c);
}

static char *dup_range(const char *b, const char *e)
{
    while (b < e && isspace((unsigned char)*b))
        b++;
    while (e > b && isspace((unsigned char)e[-1]))
        e--;
    char *s = core_xmalloc((size_t)(e - b) + 1);
    memcpy(s, b, (size_t)(e - b));
    s[e - b] = '\0';
    /* one space between words */
    char *w = s;
    for (char *r = s; *r; r++)
        if (!(isspace((unsigned char)*r) && (w == s || w[-1] == ' ')))
            *w++ = isspace((unsigned char)*r) ? ' ' : *r;
    *w = '\0';
    return s;
}

static bool elem_known(const char *t)
{
    for (int i = 0; elems[i]; i++)
        if (strcmp(t, elems[i]) == 0)
            return true;
    return false;
}

static bool ident(const char *s)
{
    if (!*s || !(isalpha((unsigned char)*s) || *s == '_'))
        return false;
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_'))
            return false;
    return true;
}

/* Parses "RET NAME(TYPE NAME, ...)" into c; returns a problem or NULL. */
static const char *parse_signature(struct grader_code *c, const char *sig, char *why, size_t n)
{
    const char *open = strchr(sig, '('), *close = strrchr(sig, ')');
    if (!open || !close || close < open)
        return "the signature must read like \"void f(int n, const float *a, float *b)\"";
    const char *name_end = open;
    while (name_end > sig && isspace((unsigned char)name_end[-1]))
        name_end--;
    const char *name_b = name_end;
    while (name_b > sig && (isalnum((unsigned char)name_b[-1]) || name_b[-1] == '_'))
        name_b--;
    c->func = dup_range(name_b, name_end);
    c->ret = dup_range(sig, name_b);
    if (!ident(c->func))
        return "the signature names no function";
    if (strcmp(c->ret, "void") != 0 && !elem_known(c->ret)) {
        snprintf(why, n,
                 "the return type '%s' is not void or one of int8_t, int32_t, int64_t, "
                 "int, long, float, double",
                 c->ret);
        return why;
    }
    const char *p = open + 1;
    while (p < close) {
        const char *comma = memchr(p, ',', (size_t)(close - p));
        const char *e = comma ? comma : close;
        char *decl = dup_range(p, e);
        p = e + 1;
        if (!*decl && !comma && c->n_params == 0) {
            free(decl);
            break;
        }
        if (c->n_params >= 8) {
            free(decl);
            return "at most 8 parameters";
        }
        struct grader_code_param *q = &c->params[c->n_params];
        memset(q, 0, sizeof *q);
        /* the name is the last word; a '*' before it makes an array */
        char *star = strrchr(decl, '*');
        char *last = decl + strlen(decl);
        while (last > decl && (isalnum((unsigned char)last[-1]) || last[-1] == '_'))
            last--;
        q->name = core_xstrdup(last);
        *last = '\0';
        q->pointer = star != NULL;
        if (star)
            *star = '\0';
        char *t = decl;
        while (*t == ' ')
            t++;
        if (strncmp(t, "const ", 6) == 0) {
            q->is_const = true;
            t += 6;
        }
        char *te = t + strlen(t);
        while (te > t && (te[-1] == ' ' || te[-1] == '*'))
            *--te = '\0';
        if (strstr(t, "restrict") || strstr(t, "const"))
            *strstr(t, strstr(t, "restrict") ? "restrict" : "const") = '\0';
        te = t + strlen(t);
        while (te > t && te[-1] == ' ')
            *--te = '\0';
        q->elem = core_xstrdup(t);
        q->type = core_xstrdup(decl); /* refined below */
        free(q->type);
        char type[96];
        snprintf(type, sizeof type, "%s%s%s", q->is_const ? "const " : "", q->elem,
                 q->pointer ? " *" : "");
        q->type = core_xstrdup(type);
        free(decl);
        c->n_params++;
        if (!ident(q->name)) {
            snprintf(why, n, "parameter %zu has no name", c->n_params);
            return why;
        }
        if (!elem_known(q->elem)) {
            snprintf(why, n,
                     "parameter %s: type '%s' is not one of int8_t, int32_t, int64_t, int, "
                     "long, float, double",
                     q->name, q->elem);
            return why;
        }
        if (!q->pointer && strcmp(q->elem, "int") != 0 && strcmp(q->elem, "long") != 0) {
            snprintf(why, n, "parameter %s: a scalar parameter must be an int (a size)", q->name);
            return why;
        }
    }
    return NULL;
}

static void read_array(struct grader_vctx *v, int t, const char *list, struct grader_code *c,
                       bool want_const)
{
    struct lua_State *L = v->L;
    for (size_t i = 0; i < c->n_params; i++) {
        struct grader_code_param *q = &c->params[i];
        if (!q->pointer || q->is_const != want_const)
            continue;
        int lt = grader_tab_open(L, t, list);
        int a = lt ? grader_tab_open(L, lt, q->name) : 0;
        if (!a) {
            grader_vproblem(v, "code.%s.%s: the %s array %s needs { count = ... }", list, q->name,
                            want_const ? "input" : "output", q->name);
            grader_tab_close(L, lt);
            continue;
        }
        struct grader_vctx s;
        grader_vctx_sub(&s, v, ": code.%s.%s", list, q->name);
        grader_fields_check(&s, a, array_fields, NULL, 0);
        double x;
        if (grader_num_field(L, a, "count", &x)) {
            char b[32];
            snprintf(b, sizeof b, "%.17g", x);
            q->count = core_xstrdup(b);
        } else {
            q->count = grader_str_field(L, a, "count");
        }
        if (!q->count)
            grader_vproblem(&s, "count is missing (an expression over the sizes: \"n*n\")");
        q->lo = -1;
        q->hi = 1;
        grader_num_field(L, a, "min", &q->lo);
        grader_num_field(L, a, "max", &q->hi);
        if (!(q->hi >= q->lo) || !isfinite(q->lo) || !isfinite(q->hi))
            grader_vproblem(&s, "min must be at most max");
        v->bad |= s.bad;
        grader_tab_close(L, lt); /* the array's table and the list */
    }
}

static char *expr_field(struct lua_State *L, int t, const char *name)
{
    double x;
    if (grader_num_field(L, t, name, &x)) {
        char b[32];
        snprintf(b, sizeof b, "%.17g", x);
        return core_xstrdup(b);
    }
    return grader_str_field(L, t, name);
}

/* One entry of sizes = { n = 512 }: a name and a whole number. */
struct size_walk {
    struct grader_vctx *s;
    struct grader_code *c;
};

static bool size_entry(const struct grader_dval *key, const struct grader_dval *val, void *ud)
{
    struct size_walk *w = ud;
    struct grader_code *c = w->c;
    if (key->type != GRADER_LT_STR || val->type != GRADER_LT_NUM || !val->integer || val->i < 1 ||
        val->i > (1 << 30)) {
        grader_vproblem(w->s, "sizes: each must be name = a whole number from 1 to 2^30");
    } else if (c->n_sizes < 6) {
        c->size_names = realloc(c->size_names, (c->n_sizes + 1) * sizeof *c->size_names);
        c->size_values = realloc(c->size_values, (c->n_sizes + 1) * sizeof *c->size_values);
        if (!c->size_names || !c->size_values)
            abort();
        c->size_names[c->n_sizes] = core_xstrdup(key->str);
        c->size_values[c->n_sizes++] = (double)val->i;
    } else {
        grader_vproblem(w->s, "sizes: at most 6");
    }
    return true;
}

static void code_check(struct grader_vctx *v, int t, struct grader_question *q)
{
    struct lua_State *L = v->L;
    int ct = grader_tab_open(L, t, "code");
    if (!ct) {
        grader_vproblem(v, "a code question needs 'code' = { signature = ..., sizes = ..., "
                           "reference = ..., ... }");
        return;
    }
    struct grader_vctx s;
    grader_vctx_sub(&s, v, ": code");
    grader_fields_check(&s, ct, code_fields, NULL, 0);
    static const char *const req[] = {"signature", "sizes", "starter", "reference", "work", NULL};
    grader_fields_require(&s, ct, req);
    struct grader_code *c = core_xcalloc(1, sizeof *c);
    q->code = c;
    c->params = core_xcalloc(8, sizeof *c->params);
    c->signature = grader_str_field(L, ct, "signature");
    char why[200];
    const char *bad = c->signature ? parse_signature(c, c->signature, why, sizeof why) : NULL;
    if (bad)
        grader_vproblem(&s, "signature: %s", bad);
    /* sizes = { n = 512 } */
    int st = grader_tab_open(L, ct, "sizes");
    if (st) {
        struct size_walk w = {&s, c};
        grader_pairs(L, st, size_entry, &w);
        grader_tab_close(L, st);
    }
    for (size_t i = 0; !bad && i < c->n_params; i++) {
        if (c->params[i].pointer)
            continue;
        bool found = false;
        for (size_t k = 0; k < c->n_sizes; k++)
            found |= strcmp(c->size_names[k], c->params[i].name) == 0;
        if (!found)
            grader_vproblem(&s, "the integer parameter %s must be one of the sizes",
                            c->params[i].name);
    }
    if (!bad) {
        read_array(&s, ct, "inputs", c, true);
        read_array(&s, ct, "outputs", c, false);
        bool out = strcmp(c->ret, "void") != 0;
        for (size_t i = 0; i < c->n_params; i++)
            out |= c->params[i].pointer && !c->params[i].is_const;
        if (!out)
            grader_vproblem(&s, "nothing to check: no output array (a pointer to non-const) and "
                                "no return value");
    }
    c->starter = grader_str_field(L, ct, "starter");
    c->reference = grader_str_field(L, ct, "reference");
    c->flags = grader_str_field(L, ct, "flags");
    if (!c->flags)
        c->flags = core_xstrdup("");
    for (const char *f = c->flags; *f; f++)
        if (!(isalnum((unsigned char)*f) || strchr(" -=_.,+", *f))) {
            grader_vproblem(&s, "flags: only compiler flags (letters, digits, - = _ . , +)");
            break;
        }
    c->rtol = 1e-5;
    c->atol = 1e-6;
    int tt = grader_tab_open(L, ct, "tolerance");
    if (tt) {
        grader_fields_check(&s, tt, tol_fields, NULL, 0);
        grader_num_field(L, tt, "rel", &c->rtol);
        grader_num_field(L, tt, "abs", &c->atol);
        grader_num_field(L, tt, "mismatch", &c->mismatch);
        if (!(c->rtol >= 0 && c->atol >= 0 && c->mismatch >= 0 && c->mismatch < 1))
            grader_vproblem(&s, "tolerance: rel and abs >= 0, mismatch from 0 to below 1");
        grader_tab_close(L, tt);
    }
    int wt = grader_tab_open(L, ct, "work");
    if (wt) {
        grader_fields_check(&s, wt, work_fields, NULL, 0);
        c->flops = expr_field(L, wt, "flops");
        c->bytes = expr_field(L, wt, "bytes");
        if (!c->flops || !c->bytes)
            grader_vproblem(&s, "work needs flops and bytes (expressions over the sizes)");
        grader_tab_close(L, wt);
    }
    int bt = grader_tab_open(L, ct, "bands");
    if (bt) {
        size_t n = grader_len(L, bt);
        c->band_fraction = core_xcalloc(n + 1, sizeof(double));
        c->band_score = core_xcalloc(n + 1, sizeof(double));
        for (size_t i = 1; i <= n && i <= 8; i++) {
            int e = grader_tab_open_at(L, bt, (long long)i);
            if (!e) {
                grader_vproblem(&s, "bands: entry %zu must be { fraction = ..., score = ... }", i);
                continue;
            }
            grader_fields_check(&s, e, band_fields, NULL, 0);
            double f = -1, sc = -1;
            grader_num_field(L, e, "fraction", &f);
            grader_num_field(L, e, "score", &sc);
            if (!(f > 0 && f <= 10 && sc >= 0 && sc <= 1))
                grader_vproblem(&s, "bands: entry %zu: fraction > 0 and score from 0 to 1", i);
            else if (c->n_bands > 0 && !(f > c->band_fraction[c->n_bands - 1]))
                grader_vproblem(&s, "bands: fractions must rise");
            c->band_fraction[c->n_bands] = f;
            c->band_score[c->n_bands++] = sc;
            grader_tab_close(L, e);
        }
        grader_tab_close(L, bt);
    }
    c->correct_share = 0.3;
    grader_num_field(L, ct, "correct", &c->correct_share);
    if (!(c->correct_share >= 0 && c->correct_share <= 1))
        grader_vproblem(&s, "correct must be a fraction from 0 to 1");
    double x = 1;
    grader_num_field(L, ct, "threads", &x);
    c->threads = (int)x;
    if (!(x >= 1 && x <= 256 && x == floor(x)))
        grader_vproblem(&s, "threads must be a whole number from 1 to 256");
    x = 3;
    grader_num_field(L, ct, "reps", &x);
    c->reps = (int)x;
    if (!(x >= 1 && x <= 100 && x == floor(x)))
        grader_vproblem(&s, "reps must be a whole number from 1 to 100");
    c->timeout_s = 10;
    grader_num_field(L, ct, "timeout", &c->timeout_s);
    if (!(c->timeout_s > 0 && c->timeout_s <= 600))
        grader_vproblem(&s, "timeout must be seconds from above 0 to 600");
    c->mem_mib = 256;
    grader_num_field(L, ct, "memory", &c->mem_mib);
    if (!(c->mem_mib >= 1 && c->mem_mib <= 65536))
        grader_vproblem(&s, "memory must be MiB from 1 to 65536");
    grader_tab_close(L, ct);
    v->bad |= s.bad;
}

void grader_code_lua(struct core_buf *b, const struct grader_code *c,
                     void (*quote)(struct core_buf *b, const char *s))
{
    core_buf_puts(b, "  code = {\n    signature = ");
    quote(b, c->signature);
    core_buf_puts(b, ",\n    sizes = {");
    for (size_t i = 0; i < c->n_sizes; i++)
        core_buf_printf(b, " %s = %.0f,", c->size_names[i], c->size_values[i]);
    for (int out = 0; out < 2; out++) {
        core_buf_printf(b, " },\n    %s = {", out ? "outputs" : "inputs");
        for (size_t i = 0; i < c->n_params; i++) {
            const struct grader_code_param *p = &c->params[i];
            if (!p->pointer || p->is_const == (out == 1))
                continue;
            core_buf_printf(b, " %s = { count = ", p->name);
            quote(b, p->count ? p->count : "1");
            core_buf_printf(b, ", min = %.17g, max = %.17g },", p->lo, p->hi);
        }
    }
    core_buf_printf(b, " },\n    tolerance = { rel = %.17g, abs = %.17g, mismatch = %.17g },\n",
                    c->rtol, c->atol, c->mismatch);
    core_buf_puts(b, "    work = { flops = ");
    quote(b, c->flops);
    core_buf_puts(b, ", bytes = ");
    quote(b, c->bytes);
    core_buf_puts(b, " },\n    bands = {");
    for (size_t i = 0; i < c->n_bands; i++)
        core_buf_printf(b, " { fraction = %.17g, score = %.17g },", c->band_fraction[i],
                        c->band_score[i]);
    core_buf_printf(b,
                    " },\n    correct = %.17g, threads = %d, reps = %d, timeout = %.17g, "
                    "memory = %.17g,\n    flags = ",
                    c->correct_share, c->threads, c->reps, c->timeout_s, c->mem_mib);
    quote(b, c->flags);
    core_buf_puts(b, ",\n    starter = ");
    quote(b, c->starter);
    core_buf_puts(b, ",\n    reference = ");
    quote(b, c->reference);
    core_buf_puts(b, ",\n  },\n");
}

static void code_reference(struct lua_State *L, struct grader_job *j)
{
    (void)j;
    grader_push_nil(L);
}

static void code_grade(struct lua_State *L, struct grader_job *j, const char *answer)
{
    (void)L;
    (void)answer;
    grader_result_invalid(j->res, "a code question is answered by running your file: "
                                  "warpbench code start QID, then warpbench code run QID FILE");
}

/* No answer text scores: a code question's answer is a run. */
static char *code_reference_text(struct lua_State *L, struct grader_job *j, bool exact)
{
    (void)L;
    (void)j;
    (void)exact;
    return NULL;
}

static const char *const fields[] = {"code", NULL};

const struct grader_kind_ops grader_kind_code = {.name = "code",
                                                 .fields = fields,
                                                 .max_answer = 65536,
                                                 .tries = 0,
                                                 .penalty = 0,
                                                 .check = code_check,
                                                 .reference = code_reference,
                                                 .grade = code_grade,
                                                 .record = code_grade,
                                                 .reference_text = code_reference_text};
