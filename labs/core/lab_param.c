/*
 * lab_param.c — a lab's parameters: defaults, reading values typed by a
 * user, range checks with messages that name the parameter and what it
 * allows, typed reads for the lab, JSON and one-line formatting.
 *
 * Numbers are read and written with the C locale's rules whatever the
 * process locale (core_num_*): "0.5" is one half everywhere.
 */
#include "labs/lab_author.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Longest text a STR parameter takes. */
#define LAB_PARAM_STR_MAX 4096

static const char *type_name(enum lab_ptype t)
{
    switch (t) {
    case LAB_P_INT:
        return "an integer";
    case LAB_P_REAL:
        return "a number";
    case LAB_P_ENUM:
        return "one of";
    case LAB_P_BOOL:
        return "on or off";
    default:
        return "text";
    }
}

/* Writes a number the way a user would type it back: integers without a
 * fraction, others with the fewest figures that read back as the same
 * value, always with '.'. */
static void fmt_num(char *buf, size_t size, double v)
{
    if (fabs(v) < 1e15 && v == floor(v))
        snprintf(buf, size, "%.0f", v);
    else
        core_num_format(buf, size, v, 0);
}

void lab_param_range(const struct lab_param_def *d, char *buf, size_t size)
{
    char lo[32], hi[32];
    switch (d->type) {
    case LAB_P_INT:
    case LAB_P_REAL:
        /* A bound of 1e15 or more is no bound a person types ("0 to 1e+30"). */
        fmt_num(lo, sizeof lo, d->min);
        fmt_num(hi, sizeof hi, d->max);
        if (d->max >= 1e15 && d->min <= -1e15)
            snprintf(buf, size, "any number");
        else if (d->max >= 1e15)
            snprintf(buf, size, "at least %s", lo);
        else if (d->min <= -1e15)
            snprintf(buf, size, "at most %s", hi);
        else
            snprintf(buf, size, "%s to %s", lo, hi);
        break;
    case LAB_P_ENUM:
        snprintf(buf, size, "%s", d->choices ? d->choices : "");
        break;
    case LAB_P_BOOL:
        snprintf(buf, size, "on|off");
        break;
    default:
        snprintf(buf, size, "any text");
        break;
    }
}

/* Index of `s` among the '|'-separated choices, or -1. */
static int choice_index(const char *choices, const char *s)
{
    if (!choices)
        return -1;
    size_t n = strlen(s);
    int k = 0;
    for (const char *c = choices;; k++) {
        const char *bar = strchr(c, '|');
        size_t len = bar ? (size_t)(bar - c) : strlen(c);
        if (len == n && strncmp(c, s, n) == 0)
            return k;
        if (!bar)
            return -1;
        c = bar + 1;
    }
}

/* Reads a whole string as a finite number in the C locale's notation
 * (core_num_parse: no hex, "inf" or "nan"). Leading and trailing blanks are
 * allowed; nothing else. */
static bool read_number(const char *s, double *out)
{
    double v;
    if (core_num_parse(s, strlen(s), CORE_NUM_BLANKS, &v, NULL, NULL) != 0)
        return false;
    *out = v == 0 ? 0.0 : v; /* "-0" is 0, not a -0 shown back as "-0" */
    return true;
}

static bool read_bool(const char *s, double *out)
{
    static const char *const yes[] = {"on", "true", "yes", "1"};
    static const char *const no[] = {"off", "false", "no", "0"};
    for (size_t i = 0; i < 4; i++) {
        if (strcasecmp(s, yes[i]) == 0) {
            *out = 1;
            return true;
        }
        if (strcasecmp(s, no[i]) == 0) {
            *out = 0;
            return true;
        }
    }
    return false;
}

/* Text of a value as a user would type it (no unit). */
static void value_text(const struct lab_value *v, char *buf, size_t size)
{
    switch (v->def->type) {
    case LAB_P_INT:
    case LAB_P_REAL:
        fmt_num(buf, size, v->num);
        break;
    case LAB_P_BOOL:
        snprintf(buf, size, "%s", v->num != 0 ? "on" : "off");
        break;
    default:
        snprintf(buf, size, "%s", v->str ? v->str : "");
        break;
    }
}

/* Parses `text` for parameter d into v (replacing what it held). */
static int parse_value(const struct lab_def *lab, const struct lab_param_def *d, const char *text,
                       struct lab_value *v, struct core_err *err)
{
    char range[160];
    lab_param_range(d, range, sizeof range);
    double num = 0;
    switch (d->type) {
    case LAB_P_INT:
    case LAB_P_REAL:
        if (!read_number(text, &num) || (d->type == LAB_P_INT && num != floor(num)))
            return core_err_set(err, CORE_ERR_INVALID,
                                "%s: parameter '%s' must be %s from %s, not '%.40s'", lab->name,
                                d->name, type_name(d->type), range, text);
        if (num < d->min || num > d->max)
            return core_err_set(err, CORE_ERR_INVALID,
                                "%s: parameter '%s' must be %s from %s, not %.40s", lab->name,
                                d->name, type_name(d->type), range, text);
        v->num = num;
        return 0;
    case LAB_P_BOOL:
        if (!read_bool(text, &num))
            return core_err_set(err, CORE_ERR_INVALID,
                                "%s: parameter '%s' must be on or off (also true/false, yes/no, "
                                "1/0), not '%.40s'",
                                lab->name, d->name, text);
        v->num = num;
        return 0;
    case LAB_P_ENUM: {
        int k = choice_index(d->choices, text);
        if (k < 0)
            return core_err_set(err, CORE_ERR_INVALID,
                                "%s: parameter '%s' must be one of %s, not '%.40s'", lab->name,
                                d->name, range, text);
        free(v->str);
        v->str = core_xstrdup(text);
        v->num = k;
        return 0;
    }
    default:
        if (strlen(text) > LAB_PARAM_STR_MAX)
            return core_err_set(err, CORE_ERR_INVALID,
                                "%s: parameter '%s' is longer than %d characters", lab->name,
                                d->name, LAB_PARAM_STR_MAX);
        free(v->str);
        v->str = core_xstrdup(text);
        return 0;
    }
}

void lab_params_init(struct lab_params *p, const struct lab_def *lab)
{
    p->lab = lab;
    p->n = lab->n_params;
    p->v = core_xcalloc(p->n ? p->n : 1, sizeof *p->v);
    for (size_t i = 0; i < p->n; i++) {
        const struct lab_param_def *d = &lab->params[i];
        struct lab_value *v = &p->v[i];
        v->def = d;
        if (d->type == LAB_P_ENUM || d->type == LAB_P_STR) {
            v->str = core_xstrdup(d->def ? d->def : "");
            if (d->type == LAB_P_ENUM) {
                int k = choice_index(d->choices, v->str);
                v->num = k < 0 ? 0 : k;
            }
        } else if (d->def_fn) {
            v->num = d->def_fn();
            if (d->type == LAB_P_INT)
                v->num = floor(v->num);
        } else if (d->def) {
            /* A malformed default is the lab's bug: lab_params_check says so. */
            if (d->type == LAB_P_BOOL) {
                if (!read_bool(d->def, &v->num))
                    v->num = NAN;
            } else if (!read_number(d->def, &v->num)) {
                v->num = NAN;
            }
        }
    }
}

void lab_params_fini(struct lab_params *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->n; i++)
        free(p->v[i].str);
    free(p->v);
    memset(p, 0, sizeof *p);
}

static struct lab_value *find(const struct lab_params *p, const char *name)
{
    for (size_t i = 0; i < p->n; i++)
        if (strcmp(p->v[i].def->name, name) == 0)
            return &p->v[i];
    return NULL;
}

int lab_params_set(struct lab_params *p, const char *key, const char *value, struct core_err *err)
{
    struct lab_value *v = key ? find(p, key) : NULL;
    if (!v) {
        struct core_buf names;
        core_buf_init(&names);
        for (size_t i = 0; i < p->n; i++)
            core_buf_printf(&names, "%s%s", i ? ", " : "", p->v[i].def->name);
        core_err_set(err, CORE_ERR_INVALID, "%s: unknown parameter '%.40s' (%s%s)", p->lab->name,
                     key ? key : "", p->n ? "parameters: " : "it has no parameters",
                     names.data ? names.data : "");
        core_buf_fini(&names);
        return CORE_ERR_INVALID;
    }
    int rc = parse_value(p->lab, v->def, value ? value : "", v, err);
    if (rc == 0)
        v->user_set = true;
    return rc;
}

int lab_params_assign(struct lab_params *p, const char *key_eq_value, struct core_err *err)
{
    const char *eq = key_eq_value ? strchr(key_eq_value, '=') : NULL;
    if (!eq || eq == key_eq_value)
        return core_err_set(err, CORE_ERR_INVALID, "%s: expected NAME=VALUE, not '%.60s'",
                            p->lab->name, key_eq_value ? key_eq_value : "");
    char key[64];
    size_t n = (size_t)(eq - key_eq_value);
    if (n >= sizeof key) {
        /* No parameter has so long a name: report it cut, and never let
         * its first 63 characters match one. */
        memcpy(key, key_eq_value, 36);
        memcpy(key + 36, "...", 4);
        return lab_params_set(p, key, eq + 1, err);
    }
    memcpy(key, key_eq_value, n);
    key[n] = '\0';
    return lab_params_set(p, key, eq + 1, err);
}

int lab_params_check(const struct lab_params *p, struct core_err *err)
{
    /* Values set by hand were checked on the way in; defaults (some computed
     * on this machine) are checked here, so a run never sees a bad value. */
    for (size_t i = 0; i < p->n; i++) {
        const struct lab_value *v = &p->v[i];
        const struct lab_param_def *d = v->def;
        char range[160], text[64];
        lab_param_range(d, range, sizeof range);
        value_text(v, text, sizeof text);
        bool bad = false;
        if (d->type == LAB_P_INT || d->type == LAB_P_REAL)
            bad = !isfinite(v->num) || v->num < d->min || v->num > d->max;
        else if (d->type == LAB_P_ENUM)
            bad = choice_index(d->choices, v->str ? v->str : "") < 0;
        else if (d->type == LAB_P_BOOL)
            bad = !(v->num == 0 || v->num == 1);
        if (bad)
            return core_err_set(err, CORE_ERR_INVALID,
                                "%s: parameter '%s' is %s, outside %s (its default on this "
                                "machine: set it with --set %s=VALUE)",
                                p->lab->name, d->name, text, range, d->name);
    }
    if (p->lab->check)
        return p->lab->check(p, err);
    return 0;
}

const struct lab_value *lab_param_value(const struct lab_params *p, const char *name)
{
    return find(p, name);
}

bool lab_param_user_set(const struct lab_params *p, const char *name)
{
    const struct lab_value *v = find(p, name);
    return v && v->user_set;
}

double lab_param_num(const struct lab_params *p, const char *name)
{
    const struct lab_value *v = find(p, name);
    if (!v) {
        fprintf(stderr, "warpbench: lab %s has no parameter '%s' (a bug)\n", p->lab->name, name);
        abort();
    }
    return v->num;
}

const char *lab_param_str(const struct lab_params *p, const char *name)
{
    const struct lab_value *v = find(p, name);
    if (!v || !(v->def->type == LAB_P_ENUM || v->def->type == LAB_P_STR)) {
        fprintf(stderr, "warpbench: lab %s has no text parameter '%s' (a bug)\n", p->lab->name,
                name);
        abort();
    }
    return v->str ? v->str : "";
}

int lab_param_straggler(const struct lab_params *p, int workers, struct lab_straggler *out,
                        struct core_err *err)
{
    const char *s = lab_param_str(p, "straggler"), *lab = p->lab->name;
    out->worker = 0;
    out->factor = 1;
    const char *t = s;
    while (isspace((unsigned char)*t))
        t++;
    if (*t == '\0' || strcasecmp(t, "none") == 0 || strcasecmp(t, "off") == 0)
        return 0;
    const char *colon = strchr(s, ':');
    char *end = NULL;
    errno = 0;
    long w = colon ? strtol(s, &end, 10) : 0;
    double f = 0;
    bool f_ok = colon && core_num_parse(colon + 1, strlen(colon + 1), 0, &f, NULL, NULL) == 0;
    if (!colon || end == s || end != colon || errno != 0 || (!f_ok && !isinf(f)))
        return core_err_set(err, CORE_ERR_INVALID,
                            "%s: parameter 'straggler' must be W:FACTOR (worker W, numbered from "
                            "1, takes FACTOR times as long: e.g. 2:5) or none, not '%.40s'",
                            lab, s);
    if (w < 1 || w > workers)
        return core_err_set(err, CORE_ERR_INVALID,
                            "%s: parameter 'straggler' names worker %ld, but workers = %d (workers "
                            "are numbered from 1 to %d)",
                            lab, w, workers, workers);
    if (!(f >= 1 && f <= LAB_STRAGGLER_MAX))
        return core_err_set(err, CORE_ERR_INVALID,
                            "%s: parameter 'straggler': FACTOR must be from 1 to %d (how many "
                            "times as long worker %ld takes), not %g",
                            lab, LAB_STRAGGLER_MAX, w, f);
    out->worker = (int)w;
    out->factor = f;
    return 0;
}

double lab_straggler_factor(const struct lab_straggler *s, int index)
{
    return s->worker > 0 && index + 1 == s->worker ? s->factor : 1.0;
}

void lab_params_json(const struct lab_params *p, struct core_json *j)
{
    core_json_obj_begin(j);
    for (size_t i = 0; i < p->n; i++) {
        const struct lab_value *v = &p->v[i];
        core_json_key(j, v->def->name);
        switch (v->def->type) {
        case LAB_P_INT:
            core_json_int(j, (long long)v->num);
            break;
        case LAB_P_REAL:
            core_json_num(j, v->num);
            break;
        case LAB_P_BOOL:
            core_json_bool(j, v->num != 0);
            break;
        default:
            core_json_str(j, v->str ? v->str : "");
            break;
        }
    }
    core_json_obj_end(j);
}

void lab_param_format(const struct lab_value *v, char *buf, size_t size)
{
    char text[96];
    value_text(v, text, sizeof text);
    const char *unit = v->def->unit ? v->def->unit : "";
    snprintf(buf, size, "%s = %s%s%s", v->def->name, text, *unit ? " " : "", unit);
}

void lab_value_text(const struct lab_value *v, char *buf, size_t size)
{
    value_text(v, buf, size);
}
