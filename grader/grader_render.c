/*
 * grader_render.c — a question's text for one variant: the prompt, hints,
 * choices and feedback with their {name} and {name:%.2f} placeholders filled
 * from the variant's params.
 *
 * A placeholder names a field of params; an optional printf conversion
 * (%d %i %f %e %g %s with flags, width and precision) formats it. "{{" is a
 * literal brace. What happens to a placeholder that cannot be filled depends
 * on the text (enum grader_render_mode): the prompt of a question whose
 * params are known refuses it (a pack error), a lab question before the
 * student's run shows "?", and feedback keeps it as written.
 *
 * Uses the job of grader_grade.c (its params and question at fixed stack
 * slots), read and written through the runtime (grader_decl_read.c,
 * grader_call.c); no Lua stack work of its own.
 */
#include "grader_lua_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A printf conversion allowed in a placeholder: %[-+ #0]*[0-9]{0,3}(.[0-9]{0,3})?[dieEfFgGsxX] */
static bool spec_ok(const char *s, size_t n, char *conv)
{
    size_t i = 0;
    if (i >= n || s[i] != '%')
        return false;
    i++;
    while (i < n && strchr("-+ #0", s[i]))
        i++;
    size_t d = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9' && d < 3)
        i++, d++;
    if (i < n && s[i] == '.') {
        i++;
        d = 0;
        while (i < n && s[i] >= '0' && s[i] <= '9' && d < 3)
            i++, d++;
    }
    if (i + 1 != n || !strchr("dieEfFgGsxX", s[i]))
        return false;
    *conv = s[i];
    return true;
}

/* Formats the value d for a placeholder. */
static bool fmt_value(const struct grader_dval *d, const char *spec, size_t spec_n, char *out,
                      size_t n, char *why, size_t wn)
{
    int ty = d->type;
    if (ty != GRADER_LT_NUM && ty != GRADER_LT_STR && ty != GRADER_LT_BOOL) {
        snprintf(why, wn, "is %s; a placeholder needs a number or a string", grader_ltype_name(ty));
        return false;
    }
    char plain[128];
    if (ty == GRADER_LT_NUM && d->integer)
        snprintf(plain, sizeof plain, "%lld", d->i);
    else if (ty == GRADER_LT_NUM)
        grader_number_format(d->num, 6, plain, sizeof plain);
    else if (ty == GRADER_LT_BOOL)
        snprintf(plain, sizeof plain, "%s", d->b ? "true" : "false");
    if (!spec) {
        snprintf(out, n, "%s", ty == GRADER_LT_STR ? d->str : plain);
        return true;
    }
    char conv;
    if (!spec_ok(spec, spec_n, &conv)) {
        snprintf(why, wn,
                 "has the format '%.*s'; use one of %%d %%i %%f %%e %%g %%s with "
                 "flags, width and precision, e.g. %%.2f",
                 (int)spec_n, spec);
        return false;
    }
    char f[32];
    memcpy(f, spec, spec_n - 1); /* all but the conversion */
    f[spec_n - 1] = '\0';
    if (strchr("dixX", conv)) {
        if (ty != GRADER_LT_NUM || !d->isint) {
            snprintf(why, wn, "needs a whole number for %%%c, got %s", conv,
                     ty == GRADER_LT_NUM ? plain : grader_ltype_name(ty));
            return false;
        }
        char ff[40];
        snprintf(ff, sizeof ff, "%sll%c", f, conv == 'i' ? 'd' : conv);
        snprintf(out, n, ff, d->i);
    } else if (conv == 's') {
        char ff[40];
        snprintf(ff, sizeof ff, "%ss", f);
        snprintf(out, n, ff, ty == GRADER_LT_STR ? d->str : plain);
        /* a value cut at the buffer's end must not end inside a character */
        size_t len = strlen(out), k = len;
        while (k > 0 && ((unsigned char)out[k - 1] & 0xC0) == 0x80)
            k--;
        if (k > 0 && (unsigned char)out[k - 1] >= 0xC0) {
            unsigned char lead = (unsigned char)out[k - 1];
            size_t need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2;
            if (len - (k - 1) < need)
                out[k - 1] = '\0';
        }
    } else {
        if (ty != GRADER_LT_NUM) {
            snprintf(why, wn, "needs a number for %%%c, got %s", conv, grader_ltype_name(ty));
            return false;
        }
        char ff[40];
        snprintf(ff, sizeof ff, "%s%c", f, conv);
        snprintf(out, n, ff, d->num);
    }
    return true;
}

/* The string keys of params, for a message (borrowed from the table). */
struct names_walk {
    const char *names[16];
    size_t k;
};

static bool collect_name(const struct grader_dval *key, const struct grader_dval *val, void *ud)
{
    (void)val;
    struct names_walk *w = ud;
    if (key->type == GRADER_LT_STR && w->k < 16)
        w->names[w->k++] = key->str;
    return true;
}

/* The names params set, for a message: "f, p". */
static void param_names(struct lua_State *L, char *buf, size_t n)
{
    struct names_walk w = {.k = 0};
    grader_pairs(L, GRADER_S_P, collect_name, &w);
    const char **names = w.names;
    size_t k = w.k;
    for (size_t a = 1; a < k; a++)
        for (size_t b = a; b > 0 && strcmp(names[b - 1], names[b]) > 0; b--) {
            const char *t = names[b];
            names[b] = names[b - 1];
            names[b - 1] = t;
        }
    buf[0] = '\0';
    for (size_t i = 0; i < k; i++) {
        size_t len = strlen(buf);
        snprintf(buf + len, n - len, "%s%s", i ? ", " : "", names[i]);
    }
    if (!k)
        snprintf(buf, n, "nothing");
}

/* A rendered text: in `local` while it fits, on the heap beyond. */
struct rtext {
    char *p;
    size_t len, cap;
    char local[1024];
};

static void rtext_init(struct rtext *b)
{
    b->p = b->local;
    b->len = 0;
    b->cap = sizeof b->local;
}

static void rtext_add(struct rtext *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap * 2;
        while (b->len + n + 1 > cap)
            cap *= 2;
        char *p = core_xmalloc(cap);
        memcpy(p, b->p, b->len);
        if (b->p != b->local)
            free(b->p);
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void rtext_fini(struct rtext *b)
{
    if (b->p != b->local)
        free(b->p);
}

/* Renders template s with the params at GRADER_S_P into *b (initialised
 * here; the caller finis it either way): true, or false with `why`
 * (GRADER_R_STRICT only). */
static bool render_text(struct lua_State *L, const char *s, enum grader_render_mode mode,
                        struct rtext *b, char *why, size_t wn)
{
    rtext_init(b);
    rtext_add(b, "", 0);
    const char *p = s;
    while (*p) {
        if (p[0] == '{' && p[1] == '{') {
            rtext_add(b, "{", 1);
            p += 2;
            continue;
        }
        const char *q = p + 1;
        if (p[0] != '{' || !((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || *q == '_')) {
            rtext_add(b, p++, 1);
            continue;
        }
        const char *name = q;
        while ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9') ||
               *q == '_')
            q++;
        size_t name_n = (size_t)(q - name);
        const char *spec = NULL;
        size_t spec_n = 0;
        if (*q == ':') {
            spec = q + 1;
            const char *e = strchr(spec, '}');
            if (!e || e - spec > 24) {
                rtext_add(b, p++, 1);
                continue;
            }
            spec_n = (size_t)(e - spec);
            q = e;
        }
        if (*q != '}') {
            rtext_add(b, p++, 1);
            continue;
        }
        struct grader_dval d;
        int ty = grader_field_n(L, GRADER_S_P, name, name_n, &d);
        char out[512], w[200];
        if (ty == GRADER_LT_NIL && mode == GRADER_R_KEEP) {
            rtext_add(b, p++, 1);
            continue;
        }
        if (ty == GRADER_LT_NIL) {
            if (mode == GRADER_R_LENIENT) {
                rtext_add(b, "?", 1);
                p = q + 1;
                continue;
            }
            char names[200];
            param_names(L, names, sizeof names);
            snprintf(why, wn, "uses {%.*s}, which params does not set (it sets %s)", (int)name_n,
                     name, names);
            return false;
        }
        if (!spec && ty == GRADER_LT_STR) {
            rtext_add(b, d.str, d.len); /* a plain string goes in whole, however long */
            p = q + 1;
            continue;
        }
        bool ok = fmt_value(&d, spec, spec_n, out, sizeof out, w, sizeof w);
        if (!ok && mode == GRADER_R_KEEP) {
            rtext_add(b, p++, 1);
            continue;
        }
        if (!ok) {
            snprintf(why, wn, "placeholder {%.*s%s%.*s} %s", (int)name_n, name, spec ? ":" : "",
                     (int)spec_n, spec ? spec : "", w);
            return false;
        }
        rtext_add(b, out, strlen(out));
        p = q + 1;
    }
    return true;
}

/* Renders template s with the params at GRADER_S_P: pushes the text and returns
 * true, or returns false with `why` and pushes nothing (GRADER_R_STRICT only). */
bool grader_render(struct lua_State *L, const char *s, enum grader_render_mode mode, char *why,
                   size_t wn)
{
    struct rtext b;
    bool ok = render_text(L, s, mode, &b, why, wn);
    if (ok)
        grader_push_string(L, b.p, b.len);
    rtext_fini(&b);
    return ok;
}

/* render_text or stops: in GRADER_J_CHECK and GRADER_J_SWEEP a problem is
 * recorded and false returned; elsewhere the pack error is raised. */
static bool render_or_fail(struct lua_State *L, struct grader_job *j, const char *tmpl,
                           const char *field_name, struct rtext *b)
{
    char why[400];
    if (render_text(L, tmpl, j->no_lab ? GRADER_R_LENIENT : GRADER_R_STRICT, b, why, sizeof why))
        return true;
    rtext_fini(b);
    rtext_init(b);
    if (j->mode == GRADER_J_CHECK || j->mode == GRADER_J_SWEEP) {
        grader_job_problem(j, "%s %s", field_name, why);
        return false;
    }
    grader_job_fail(L, j, "%s %s", field_name, why);
    return false;
}

bool grader_render_or_fail(struct lua_State *L, struct grader_job *j, const char *tmpl,
                           const char *field_name)
{
    struct rtext b;
    bool ok = render_or_fail(L, j, tmpl, field_name, &b);
    if (ok)
        grader_push_string(L, b.p, b.len);
    rtext_fini(&b);
    return ok;
}

/* Renders the choices (choice, multi) or items (ordering) into GRADER_S_CH. */
void grader_render_choices(struct lua_State *L, struct grader_job *j)
{
    const struct grader_kind_ops *kind = grader_kind_ops(j->q->kind);
    const char *name = kind->list;
    if (!name)
        return;
    int list = grader_tab_open(L, GRADER_S_Q, name);
    if (!list)
        return;
    size_t n = grader_len(L, list);
    char **texts = core_xcalloc(n ? n : 1, sizeof *texts);
    size_t *lens = core_xcalloc(n ? n : 1, sizeof *lens);
    for (size_t i = 1; i <= n; i++) {
        struct grader_dval d;
        if (grader_index(L, list, (long long)i, &d) != GRADER_LT_STR) {
            grader_strv_free(texts, i - 1);
            free(lens);
            grader_job_fail(L, j, "%s %zu is not a string", name, i);
        }
        char label[32], why[400];
        snprintf(label, sizeof label, "%s %zu", kind->list_item, i);
        struct rtext b;
        bool ok = render_text(L, d.str, j->no_lab ? GRADER_R_LENIENT : GRADER_R_STRICT, &b, why,
                              sizeof why);
        texts[i - 1] = ok ? core_xstrndup(b.p, b.len) : core_xstrndup(d.str, d.len);
        lens[i - 1] = ok ? b.len : d.len; /* else kept as written */
        rtext_fini(&b);
        if (!ok && j->mode != GRADER_J_CHECK && j->mode != GRADER_J_SWEEP) {
            grader_strv_free(texts, i);
            free(lens);
            grader_job_fail(L, j, "%s %s", label, why);
        }
        if (!ok)
            grader_job_problem(j, "%s %s", label, why);
    }
    grader_tab_close(L, list);
    grader_slot_set_strs(L, GRADER_S_CH, (const char *const *)texts, lens, n);
    grader_strv_free(texts, n);
    free(lens);
}

void grader_hint_push(struct lua_State *L, int t, size_t i)
{
    struct grader_dval d;
    int h = grader_tab_open_at(L, t, (long long)i);
    if (h) {
        grader_field(L, h, "text", &d);
        grader_tab_close(L, h); /* the string stays referenced by t */
    } else {
        grader_index(L, t, (long long)i, &d);
    }
    if (d.type == GRADER_LT_STR)
        grader_push_string(L, d.str, d.len);
    else
        grader_push_string(L, "", 0);
}

void grader_render_names(const char *s, struct core_strlist *out)
{
    for (const char *p = s; p && *p; p++) {
        if (p[0] == '{' && p[1] == '{') {
            p++;
            continue;
        }
        const char *q = p + 1;
        if (p[0] != '{' || !((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || *q == '_'))
            continue;
        const char *name = q;
        while ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9') ||
               *q == '_')
            q++;
        if (*q != '}' && *q != ':')
            continue;
        char buf[128];
        size_t n = (size_t)(q - name) < sizeof buf ? (size_t)(q - name) : sizeof buf - 1;
        memcpy(buf, name, n);
        buf[n] = '\0';
        core_strlist_push(out, buf);
    }
}
