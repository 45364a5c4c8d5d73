/* cli_cmd_calc.c — `warpbench calc` (list the calculators of the installed
 * packs) and `warpbench calc ID [--set NAME=VALUE]...` (run one: the inputs
 * used and the outputs, numbers with their units, text outputs verbatim). */
#include "cli/cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SETS 64

/* ---- formatting ------------------------------------------------------------ */

static void input_value(const struct grader_calc_input *in, double v, char *buf, size_t n)
{
    char num[64];
    if (in->integer)
        snprintf(num, sizeof num, "%.0f", v);
    else
        snprintf(num, sizeof num, "%.10g", v);
    snprintf(buf, n, "%s%s%s", num, in->unit[0] ? " " : "", in->unit);
}

/* ---- list ---------------------------------------------------------------------- */

/* The id to type: bare when no other pack has a calculator of that id. */
static const char *shown_id(const struct lesson_calc *all, size_t n, size_t i, char *buf, size_t bn)
{
    for (size_t k = 0; k < n; k++) {
        if (k != i && strcmp(all[k].calc->id, all[i].calc->id) == 0) {
            snprintf(buf, bn, "%s:%s", all[i].pack_id, all[i].calc->id);
            return buf;
        }
    }
    return all[i].calc->id;
}

static int list(struct cli_ctx *cx)
{
    struct core_err e = {0};
    struct lesson_calc *all;
    size_t n;
    if (lesson_calc_list(cx->db, cx->session, &all, &n, &e) != CORE_OK)
        return cli_fail(&e);
    if (cx->json) {
        struct core_buf b;
        struct core_json j;
        core_buf_init(&b);
        core_json_init(&j, &b);
        core_json_arr_begin(&j);
        for (size_t i = 0; i < n; i++) {
            const struct grader_calc *c = all[i].calc;
            core_json_obj_begin(&j);
            core_json_kstr(&j, "id", c->id);
            core_json_kstr(&j, "pack", all[i].pack_id);
            core_json_kstr(&j, "lesson", all[i].lesson_id);
            core_json_kstr(&j, "title", c->title);
            core_json_key(&j, "inputs");
            core_json_arr_begin(&j);
            for (size_t k = 0; k < c->n_inputs; k++)
                core_json_str(&j, c->inputs[k].name);
            core_json_arr_end(&j);
            core_json_obj_end(&j);
        }
        core_json_arr_end(&j);
        cli_json_print(&b);
    } else if (n == 0) {
        printf("No calculators in the installed packs.\n");
    } else {
        char buf[200];
        size_t wid = 2, wles = 6;
        for (size_t i = 0; i < n; i++) {
            size_t w = cli_width(shown_id(all, n, i, buf, sizeof buf));
            wid = w > wid ? w : wid;
            w = cli_width(all[i].lesson_id);
            wles = w > wles ? w : wles;
        }
        printf("  ");
        cli_pad("ID", wid + 2);
        cli_pad("LESSON", wles + 2);
        printf("TITLE\n");
        for (size_t i = 0; i < n; i++) {
            printf("  ");
            cli_pad(shown_id(all, n, i, buf, sizeof buf), wid + 2);
            cli_pad(all[i].lesson_id, wles + 2);
            printf("%s\n", cli_tx(all[i].calc->title));
        }
        printf("\nrun one: warpbench calc ID [--set NAME=VALUE]...\n");
    }
    free(all);
    return CLI_EXIT_OK;
}

/* ---- run ------------------------------------------------------------------------ */

static void print_json(const struct lesson_calc_result *r)
{
    const struct grader_calc *c = r->c.calc;
    struct core_buf b;
    struct core_json j;
    cli_json_open(&b, &j);
    core_json_kstr(&j, "id", c->id);
    core_json_kstr(&j, "pack", r->c.pack_id);
    core_json_kstr(&j, "lesson", r->c.lesson_id);
    core_json_kstr(&j, "title", c->title);
    core_json_key(&j, "inputs");
    core_json_arr_begin(&j);
    for (size_t i = 0; i < c->n_inputs; i++) {
        const struct grader_calc_input *in = &c->inputs[i];
        core_json_obj_begin(&j);
        core_json_kstr(&j, "name", in->name);
        core_json_kstr(&j, "label", in->label);
        core_json_kstr(&j, "unit", in->unit);
        core_json_kstr(&j, "help", in->help);
        core_json_knum(&j, "value", r->inputs[i]);
        core_json_kbool(&j, "given", r->given[i]);
        core_json_knum(&j, "default", in->def);
        core_json_knum(&j, "min", in->min); /* null when unbounded */
        core_json_knum(&j, "max", in->max);
        core_json_kbool(&j, "integer", in->integer);
        core_json_obj_end(&j);
    }
    core_json_arr_end(&j);
    core_json_key(&j, "outputs");
    core_json_arr_begin(&j);
    for (size_t i = 0; i < r->n_outputs; i++) {
        const struct grader_calc_output *o = &r->outputs[i];
        core_json_obj_begin(&j);
        core_json_kstr(&j, "label", o->label);
        core_json_knum_if(&j, "value", !o->text, o->value);
        core_json_kstr(&j, "unit", o->unit);
        core_json_kstr(&j, "text", o->text);
        char shown[128];
        if (!o->text)
            lesson_calc_value_format(o->value, o->unit, shown, sizeof shown);
        core_json_kstr(&j, "display", o->text ? NULL : shown);
        core_json_obj_end(&j);
    }
    core_json_arr_end(&j);
    cli_json_close(&b, &j);
}

static void print_text(const struct lesson_calc_result *r)
{
    const struct grader_calc *c = r->c.calc;
    printf("%s  (%s:%s, lesson %s)\n", cli_tx(c->title), cli_tx(r->c.pack_id), cli_tx(c->id),
           cli_tx(r->c.lesson_id));
    size_t wn = 0, wv = 0, wl = 0;
    char val[96];
    for (size_t i = 0; i < c->n_inputs; i++) {
        input_value(&c->inputs[i], r->inputs[i], val, sizeof val);
        wn = cli_width(c->inputs[i].name) > wn ? cli_width(c->inputs[i].name) : wn;
        wv = cli_width(val) > wv ? cli_width(val) : wv;
        wl = cli_width(c->inputs[i].label) > wl ? cli_width(c->inputs[i].label) : wl;
    }
    printf("\ninputs:\n");
    for (size_t i = 0; i < c->n_inputs; i++) {
        const struct grader_calc_input *in = &c->inputs[i];
        input_value(in, r->inputs[i], val, sizeof val);
        printf("  ");
        cli_pad(in->name, wn);
        printf(" = ");
        cli_pad(val, wv + 2);
        cli_pad(in->label, wl + 2);
        printf("%s\n", r->given[i] ? "(set)" : "(default)");
    }
    size_t wo = 0;
    for (size_t i = 0; i < r->n_outputs; i++)
        if (!r->outputs[i].text || !strchr(r->outputs[i].text, '\n'))
            wo = cli_width(r->outputs[i].label) > wo ? cli_width(r->outputs[i].label) : wo;
    printf("\noutputs:\n");
    for (size_t i = 0; i < r->n_outputs; i++) {
        const struct grader_calc_output *o = &r->outputs[i];
        if (o->text && strchr(o->text, '\n')) { /* a diagram: verbatim, below its label */
            printf("  %s:\n%s", cli_tx(o->label), cli_tx(o->text));
            if (o->text[strlen(o->text) - 1] != '\n')
                putchar('\n');
            continue;
        }
        printf("  ");
        cli_pad(o->label, wo + 2);
        if (o->text) {
            printf("%s\n", cli_tx(o->text));
        } else {
            lesson_calc_value_format(o->value, o->unit, val, sizeof val);
            printf("%s\n", cli_tx(val));
        }
    }
    size_t unset = 0;
    while (unset < c->n_inputs && r->given[unset])
        unset++;
    if (unset < c->n_inputs)
        printf("\nchange an input: warpbench calc %s:%s --set %s=VALUE\n", cli_tx(r->c.pack_id),
               cli_tx(c->id), cli_tx(c->inputs[unset].name));
}

/* Reads NAME=VALUE. Returns 0, or a usage exit code with the message printed. */
static int parse_set(const struct cli_command *cmd, const char *arg, struct lesson_calc_set *set,
                     char **name)
{
    const char *eq = arg ? strchr(arg, '=') : NULL;
    if (!eq || eq == arg)
        return cli_usage(cmd, "--set needs NAME=VALUE (e.g. --set p=8), got \"%s\"",
                         arg ? cli_tx(arg) : "");
    const char *v = eq + 1;
    double x;
    if (core_num_parse(v, strlen(v), CORE_NUM_BLANKS, &x, NULL, NULL) != 0)
        return cli_usage(cmd, "--set %.*s: '%s' is not a number (write e.g. 0.25, 8 or 1e9)",
                         (int)(eq - arg), arg, cli_tx(v));
    *name = core_xstrndup(arg, (size_t)(eq - arg));
    set->name = *name;
    set->value = x;
    return 0;
}

int cli_cmd_calc(struct cli_ctx *cx, struct cli_args *a)
{
    const struct cli_command *cmd = cli_command_find("calc");
    struct lesson_calc_set sets[MAX_SETS];
    char *names[MAX_SETS];
    size_t n_sets = 0;
    int rc = 0;
    const char *v;
    bool missing = false;
    while (rc == 0 && cli_take_flag(a, "--set", true, &v, &missing)) {
        if (missing || !v)
            rc = cli_usage(cmd, "--set needs NAME=VALUE (e.g. --set p=8)");
        else if (n_sets == MAX_SETS)
            rc = cli_usage(cmd, "at most %d --set options", MAX_SETS);
        else if ((rc = parse_set(cmd, v, &sets[n_sets], &names[n_sets])) == 0)
            n_sets++;
    }
    if (rc == 0 && missing)
        rc = cli_usage(cmd, "--set needs NAME=VALUE (e.g. --set p=8)");
    if (rc == 0)
        rc = cli_begin(cx, cmd, a, 0, 1, CLI_NEED_SESSION);
    if (rc == 0 && a->argc == 0 && n_sets > 0)
        rc = cli_usage(cmd, "--set needs a calculator: warpbench calc ID --set NAME=VALUE");
    if (rc != 0)
        goto out;
    if (a->argc == 0) {
        rc = list(cx);
        goto out;
    }
    struct core_err e = {0};
    struct lesson_calc_result r;
    if (lesson_calc_run(cx->db, cx->session, a->argv[0], sets, n_sets, &r, &e) != CORE_OK) {
        rc = cli_fail(&e);
        goto out;
    }
    if (cx->json)
        print_json(&r);
    else
        print_text(&r);
    lesson_calc_result_fini(&r);
    rc = CLI_EXIT_OK;
out:
    for (size_t i = 0; i < n_sets; i++)
        free(names[i]);
    return rc;
}
