/*
 * grader_calc_decl.c — the static checks of a calculator{} declaration: its
 * fields, its inputs (names compute() can read, ranges, defaults) and its
 * examples, read into the model (struct grader_calc) and the private
 * calculator data (struct grader_cx: the examples pack check runs). Running
 * calculators: grader_calc.c.
 *
 * Uses the field schema (grader_schema.c) and the runtime's readers of a
 * declaration (grader_decl_read.c).
 */
#include "grader_lua_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const struct grader_fspec calc_fields[] = {
    {"id", GRADER_T_STR},      {"title", GRADER_T_STR},    {"inputs", GRADER_T_TAB},
    {"compute", GRADER_T_FUN}, {"examples", GRADER_T_TAB}, {NULL, 0}};

static const struct grader_fspec calc_input_fields[] = {
    {"name", GRADER_T_STR}, {"label", GRADER_T_STR}, {"default", GRADER_T_NUM},
    {"min", GRADER_T_NUM},  {"max", GRADER_T_NUM},   {"integer", GRADER_T_BOOL},
    {"unit", GRADER_T_STR}, {"help", GRADER_T_STR},  {NULL, 0}};

static const struct grader_fspec calc_example_fields[] = {
    {"inputs", GRADER_T_TAB}, {"outputs", GRADER_T_TAB}, {NULL, 0}};

/* What the entries of a calculator's lists are added to. */
struct calc_build {
    struct grader_calc *c;
    struct grader_cx *x;
};

/* An input name is what compute() reads as v.NAME and what `--set NAME=`
 * names: a Lua identifier, not a keyword. */
static bool input_name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 32 || (s[0] >= '0' && s[0] <= '9'))
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_'))
            return false;
    }
    static const char *const kw[] = {"and",   "break", "do",       "else",  "elseif", "end",
                                     "false", "for",   "function", "goto",  "if",     "in",
                                     "local", "nil",   "not",      "or",    "repeat", "return",
                                     "then",  "true",  "until",    "while", NULL};
    for (int k = 0; kw[k]; k++)
        if (strcmp(kw[k], s) == 0)
            return false;
    return true;
}

static void input_names(const struct grader_calc *c, char *buf, size_t n)
{
    buf[0] = '\0';
    for (size_t i = 0; i < c->n_inputs; i++) {
        size_t len = strlen(buf);
        snprintf(buf + len, n - len, "%s%s", i ? ", " : "", c->inputs[i].name);
    }
}

static void each_calc_input(struct grader_vctx *v, int t, size_t i, void *ud)
{
    struct lua_State *L = v->L;
    struct calc_build *b = ud;
    struct grader_calc *c = b->c;
    struct grader_calc_input in = {0};
    in.name = grader_str_field(L, t, "name");
    struct grader_vctx s;
    if (in.name)
        grader_vctx_sub(&s, v, ": input '%s'", in.name);
    else
        grader_vctx_sub(&s, v, ": input %zu", i);
    grader_fields_check(&s, t, calc_input_fields, NULL, 0);
    static const char *const req[] = {"name", "default", NULL};
    grader_fields_require(&s, t, req);
    if (in.name && !input_name_ok(in.name))
        grader_vproblem(
            &s,
            "name '%s' is not valid: use up to 32 letters, digits and '_', not starting "
            "with a digit (compute reads it as v.NAME)",
            in.name);
    for (size_t k = 0; in.name && k < c->n_inputs; k++)
        if (strcmp(c->inputs[k].name, in.name) == 0)
            grader_vproblem(&s, "input name '%s' is used twice", in.name);
    in.label = grader_str_field(L, t, "label");
    in.unit = grader_str_field(L, t, "unit");
    in.help = grader_str_field(L, t, "help");
    in.min = -HUGE_VAL;
    in.max = HUGE_VAL;
    bool has_min = grader_num_field(L, t, "min", &in.min),
         has_max = grader_num_field(L, t, "max", &in.max);
    bool has_def = grader_num_field(L, t, "default", &in.def);
    grader_bool_field(L, t, "integer", &in.integer);
    if (has_min && !isfinite(in.min))
        grader_vproblem(&s, "min must be a finite number");
    if (has_max && !isfinite(in.max))
        grader_vproblem(&s, "max must be a finite number");
    bool range_ok = !(has_min && has_max && in.min > in.max);
    if (!range_ok)
        grader_vproblem(&s, "min %g is greater than max %g", in.min, in.max);
    if (has_def && !isfinite(in.def))
        grader_vproblem(&s, "default must be a finite number");
    else if (has_def && range_ok && (in.def < in.min || in.def > in.max))
        grader_vproblem(&s, "default %g is outside its range [%g, %g]", in.def, in.min, in.max);
    else if (has_def && in.integer && in.def != floor(in.def))
        grader_vproblem(&s, "default %g is not a whole number, but the input has integer = true",
                        in.def);
    if (!has_def || !isfinite(in.def))
        in.def = 0;
    if (!in.name)
        in.name = core_xasprintf("input%zu", i);
    if (!in.label)
        in.label = core_xstrdup(in.name);
    if (!in.unit)
        in.unit = core_xstrdup("");
    c->inputs = grader_grow(c->inputs, c->n_inputs, sizeof *c->inputs);
    c->inputs[c->n_inputs++] = in;
    v->bad |= s.bad;
}

/* An example's inputs = { name = value, ... }, walked. */
struct example_inputs {
    struct grader_vctx *s;
    const struct grader_calc *c;
    struct grader_calc_example *ex;
};

static bool each_example_input(const struct grader_dval *key, const struct grader_dval *val,
                               void *ud)
{
    struct example_inputs *w = ud;
    const struct grader_calc *c = w->c;
    const char *name = key->type == GRADER_LT_STR ? key->str : NULL;
    size_t k = 0;
    while (name && k < c->n_inputs && strcmp(c->inputs[k].name, name) != 0)
        k++;
    if (!name) {
        grader_vproblem(w->s, "inputs are written name = value");
    } else if (k == c->n_inputs) {
        char names[256];
        input_names(c, names, sizeof names);
        grader_vproblem(w->s, "unknown input '%s' (the inputs are: %s)", name, names);
    } else if (val->type != GRADER_LT_NUM || !isfinite(val->num)) {
        grader_vproblem(w->s, "input '%s' must be a finite number, got %s", name,
                        grader_ltype_name(val->type));
    } else {
        w->ex->inputs[k] = val->num;
    }
    return true;
}

static void each_calc_example(struct grader_vctx *v, int t, size_t i, void *ud)
{
    struct lua_State *L = v->L;
    struct calc_build *b = ud;
    const struct grader_calc *c = b->c;
    struct grader_vctx s;
    grader_vctx_sub(&s, v, ": example %zu", i);
    grader_fields_check(&s, t, calc_example_fields, NULL, 0);
    static const char *const req[] = {"outputs", NULL};
    grader_fields_require(&s, t, req);
    struct grader_calc_example ex = {0};
    ex.inputs = core_xcalloc(c->n_inputs ? c->n_inputs : 1, sizeof *ex.inputs);
    for (size_t k = 0; k < c->n_inputs; k++)
        ex.inputs[k] = c->inputs[k].def;
    int in = grader_tab_open(L, t, "inputs");
    if (in) {
        struct example_inputs w = {&s, c, &ex};
        grader_pairs(L, in, each_example_input, &w);
        grader_tab_close(L, in);
    }
    int out = grader_tab_open(L, t, "outputs");
    if (out) {
        size_t n = grader_len(L, out);
        /* numbers, texts or a mix of them, in a list */
        bool list = grader_is_list(L, out);
        struct grader_dval d;
        for (size_t k = 0; list && k < n; k++) {
            int ty = grader_index(L, out, (long long)k + 1, &d);
            list = ty == GRADER_LT_NUM || ty == GRADER_LT_STR;
        }
        if (!list)
            grader_vproblem(&s,
                            "outputs must be a list of the expected values (numbers, or texts for "
                            "text outputs), in the order compute returns them");
        else if (n == 0)
            grader_vproblem(&s, "outputs is empty: list the expected values");
        if (list && n > 0) {
            ex.n_outputs = n;
            ex.values = core_xcalloc(n, sizeof *ex.values);
            ex.texts = core_xcalloc(n, sizeof *ex.texts);
            for (size_t k = 0; k < n; k++) {
                if (grader_index(L, out, (long long)k + 1, &d) == GRADER_LT_STR)
                    ex.texts[k] = core_xstrdup(d.str);
                else if (!isfinite(ex.values[k] = d.num))
                    grader_vproblem(&s, "output %zu must be a finite number", k + 1);
            }
        }
        grader_tab_close(L, out);
    }
    struct grader_cx *x = b->x;
    x->examples = grader_grow(x->examples, x->n_examples, sizeof *x->examples);
    x->examples[x->n_examples++] = ex;
    v->bad |= s.bad;
}

void grader_calc_check(struct grader_vctx *v, int t, struct grader_calc *c, struct grader_cx *x)
{
    struct lua_State *L = v->L;
    c->id = grader_str_field(L, t, "id");
    if (c->id) {
        snprintf(v->label, sizeof v->label, "calculator %s", c->id);
        grader_id_check(v, "id", c->id);
    }
    grader_fields_check(v, t, calc_fields, NULL, 0);
    static const char *const req[] = {"id", "title", "inputs", "compute", NULL};
    grader_fields_require(v, t, req);
    c->title = grader_str_field(L, t, "title");
    int in = grader_tab_open(L, t, "inputs");
    if (in && grader_len(L, in) == 0)
        grader_vproblem(v, "'inputs' is empty: a calculator needs at least one input");
    grader_tab_close(L, in);
    struct calc_build b = {c, x};
    grader_list_check(v, t, "inputs", each_calc_input, &b);
    grader_list_check(v, t, "examples", each_calc_example, &b);
}
