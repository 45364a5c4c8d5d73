/*
 * grader_eval.c — pack evaluation: running a pack's files and turning what
 * they declare into the model (grader_pack.c).
 *
 * Every .lua file of a pack is compiled once into bytecode (kept for every
 * later render and grading). pack.lua runs first, then each listed lesson
 * file, each in a fresh sandbox whose constructors (grader_decl.c) record
 * every call with its line. After the file has run, C walks the records:
 * field names against the schema (grader_schema.c: unknown field with the
 * closest known name, wrong type, missing required field), ids, kinds,
 * references, examples. A problem does not stop the walk, and a file that
 * fails does not stop the others; every problem is reported as
 * "file:line: message". Questions that pass get the checks that need their
 * code (grader_question_check, grader_selftest.c).
 *
 * Decisions: a .lua file that pack.lua does not list is a problem (there is
 * no `require`, so it could only be a lesson someone forgot to list); other
 * files (README, images) are ignored. Positional entries in a declaration
 * ({ "x" }) are problems, as are unknown fields.
 *
 * Uses the runtime (a file's job and its recorded declarations:
 * grader_rt_eval.c; the readers of a declaration's table), the schema and
 * the model; no Lua stack work of its own.
 */
#include "grader_lua_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- declarations into the model ------------------------------------------------------------- */

/* A policy as one level (pack, lesson, question) declares it: what it
 * leaves unset comes from the level above, then from the kind's default. */
struct policy_decl {
    bool has_tries, has_score; /* has_score: penalty or per_try */
    struct grader_policy p;
};

/* The evaluation of a pack, one file at a time. */
struct grader_eval {
    struct grader_pack *pack;
    struct core_strlist *problems;
    int first_code;
    struct core_buf bad;  /* one byte per question declared, in pack order: 1 = failed */
    struct grader_cx *cx; /* one per calculator declared, in pack order */
    size_t n_cx;
    /* pack.lua */
    int pack_line;
    struct core_strlist lessons;
    bool lessons_known; /* pack{} gave a list: unlisted files can be told */
    /* the file being evaluated */
    size_t file;
    const char *path;
    enum grader_decl_mode mode;
    struct grader_lesson *lesson; /* its lesson, once declared */
    size_t lesson_index;
    char **topics, **rubric; /* the lesson's defaults for its questions */
    size_t n_topics, n_rubric;
    struct policy_decl pack_policy, lesson_policy;
};

/* Records a problem ("file:line: ..."); the first code is the pack's. */
static void grader_eval_problem(struct grader_eval *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void grader_eval_problem(struct grader_eval *e, int code, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    core_strlist_push(e->problems, buf);
    if (!e->first_code)
        e->first_code = code;
}

/* Reads t.policy into *d (unset parts stay unset), reporting bad values. */
static void read_policy(struct grader_vctx *v, int t, struct policy_decl *d)
{
    struct lua_State *L = v->L;
    memset(d, 0, sizeof *d);
    int pt = grader_tab_open(L, t, "policy");
    if (!pt)
        return;
    struct grader_vctx s;
    grader_vctx_sub(&s, v, ": policy");
    grader_fields_check(&s, pt, grader_policy_fields, NULL, 0);
    double x;
    if (grader_num_field(L, pt, "tries", &x)) {
        if (!(x >= 0 && x <= 1000 && x == floor(x)))
            grader_vproblem(&s, "tries must be a whole number from 1 to 1000 (0: unlimited)");
        else
            d->has_tries = true, d->p.tries = (int)x;
    }
    bool pen = grader_num_field(L, pt, "penalty", &x);
    if (pen) {
        if (!(x >= 0 && x <= 1))
            grader_vproblem(&s,
                            "penalty must be a fraction of the points from 0 to 1 (1/3: a third "
                            "lost per wrong try)");
        else
            d->has_score = true, d->p.penalty = x;
    }
    int pp = grader_tab_open(L, pt, "per_try");
    if (pp && grader_is_list_of(L, pp, GRADER_LT_NUM)) {
        size_t n = grader_len(L, pp);
        if (pen)
            grader_vproblem(&s, "give either penalty or per_try, not both");
        else if (n == 0 || n > GRADER_PER_TRY_MAX)
            grader_vproblem(&s, "per_try needs 1 to %d fractions (what try 1, 2, ... can earn)",
                            GRADER_PER_TRY_MAX);
        for (size_t i = 1; i <= n && i <= GRADER_PER_TRY_MAX && !pen; i++) {
            struct grader_dval e;
            grader_index(L, pp, (long long)i, &e);
            double f = e.num;
            if (!(f >= 0 && f <= 1))
                grader_vproblem(&s, "per_try[%zu] must be a fraction from 0 to 1", i);
            d->p.per_try[i - 1] = f;
        }
        if (!pen && n > 0 && n <= GRADER_PER_TRY_MAX) {
            d->has_score = true, d->p.n_per_try = (int)n;
            if (!d->has_tries) /* as many tries as the list has entries, unless told */
                d->has_tries = true, d->p.tries = (int)n;
        }
    }
    grader_tab_close(L, pp);
    v->bad |= s.bad;
    grader_tab_close(L, pt);
}

/* `over` on top of `base`, field by field. */
static void policy_over(struct policy_decl *base, const struct policy_decl *over)
{
    if (over->has_tries)
        base->has_tries = true, base->p.tries = over->p.tries;
    if (over->has_score) {
        base->has_score = true;
        base->p.penalty = over->p.penalty;
        base->p.n_per_try = over->p.n_per_try;
        memcpy(base->p.per_try, over->p.per_try, sizeof base->p.per_try);
    }
}

/* pack{ release = { salt = ..., source = ..., made = ... } }: written by
 * `pack release`, which the checks here mirror. */
static void check_release(struct grader_vctx *v, int t, struct grader_pack_info *info)
{
    struct lua_State *L = v->L;
    int rt = grader_tab_open(L, t, "release");
    if (!rt)
        return;
    struct grader_vctx s;
    grader_vctx_sub(&s, v, ": release");
    grader_fields_check(&s, rt, grader_release_fields, NULL, 0);
    info->is_release = true;
    info->release_salt = grader_str_field(L, rt, "salt");
    info->release_source = grader_str_field(L, rt, "source");
    info->release_made = grader_str_field(L, rt, "made");
    const char *salt = info->release_salt;
    bool hex = salt && strlen(salt) >= 16 && strlen(salt) <= 64;
    for (const char *c = salt; hex && *c; c++)
        hex = (*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'f');
    if (!hex)
        grader_vproblem(&s, "salt must be 16 to 64 lower-case hex digits (pack release writes it)");
    if (!info->release_source || !info->release_source[0])
        grader_vproblem(&s, "source must name the digest of the source pack (pack release "
                            "writes it)");
    v->bad |= s.bad;
    grader_tab_close(L, rt);
}

/* pack{ class = { deadline = "...", late = "none" | "zero" | { per_day = f } } }. */
static void check_class(struct grader_vctx *v, int t, struct grader_pack_info *info)
{
    struct lua_State *L = v->L;
    int ct = grader_tab_open(L, t, "class");
    if (!ct)
        return;
    struct grader_vctx s;
    grader_vctx_sub(&s, v, ": class");
    grader_fields_check(&s, ct, grader_class_fields, NULL, 0);
    char *dl = grader_str_field(L, ct, "deadline");
    if (dl) {
        double when = core_time_parse(dl);
        if (isnan(when)) {
            grader_vproblem(&s,
                            "deadline '%s' is not a time: write \"2026-12-01\" (the end of that "
                            "day, UTC), \"2026-12-01 23:59\" or \"2026-12-01T23:59+01:00\"",
                            dl);
        } else {
            char iso[32];
            core_time_iso(when, iso);
            info->deadline = core_xstrdup(iso);
        }
        free(dl);
    }
    struct grader_dval ld;
    int ty = grader_field(L, ct, "late", &ld);
    if (ty == GRADER_LT_STR) {
        const char *late = ld.str;
        if (strcmp(late, "none") == 0)
            info->late = GRADER_LATE_NONE;
        else if (strcmp(late, "zero") == 0)
            info->late = GRADER_LATE_ZERO;
        else
            grader_vproblem(&s, "late must be \"none\", \"zero\" or { per_day = 0.1 }, not '%s'",
                            late);
    } else if (ty == GRADER_LT_TAB) {
        int lt = grader_tab_open(L, ct, "late");
        struct grader_vctx ls;
        grader_vctx_sub(&ls, &s, ": late");
        grader_fields_check(&ls, lt, grader_late_fields, NULL, 0);
        double f;
        if (!grader_num_field(L, lt, "per_day", &f) || !(f > 0 && f <= 1))
            grader_vproblem(&ls, "per_day must be the fraction of the points lost per day late, "
                                 "above 0 and at most 1");
        else
            info->late = GRADER_LATE_PER_DAY, info->late_per_day = f;
        s.bad |= ls.bad;
        grader_tab_close(L, lt);
    }
    v->bad |= s.bad;
    grader_tab_close(L, ct);
}

static void check_pack(struct grader_eval *e, struct grader_vctx *v, int t)
{
    struct lua_State *L = v->L;
    struct grader_pack *p = e->pack;
    struct grader_dval id;
    if (grader_field(L, t, "id", &id) == GRADER_LT_STR)
        snprintf(v->label, sizeof v->label, "pack %s", id.str);
    grader_fields_check(v, t, grader_pack_fields, NULL, 0);
    static const char *const req[] = {"id", "title", "version", "lessons", NULL};
    grader_fields_require(v, t, req);
    p->info.id = grader_str_field(L, t, "id");
    p->info.title = grader_str_field(L, t, "title");
    p->info.version = grader_str_field(L, t, "version");
    p->info.description = grader_str_field(L, t, "description");
    grader_bool_field(L, t, "cbm", &p->info.cbm);
    read_policy(v, t, &e->pack_policy);
    grader_id_check(v, "id", p->info.id);
    p->info.rubric = grader_strs_field(L, t, "rubric", &p->info.n_rubric, NULL);
    for (size_t i = 0; i < p->info.n_rubric; i++)
        grader_id_check(v, "rubric item", p->info.rubric[i]);
    size_t n;
    char **lessons = grader_strs_field(L, t, "lessons", &n, NULL);
    int lt = grader_tab_open(L, t, "lessons");
    bool listed = lt && grader_is_list_of(L, lt, GRADER_LT_STR);
    grader_tab_close(L, lt);
    if (listed)
        e->lessons_known = true;
    if (listed && n == 0)
        grader_vproblem(v, "'lessons' is empty: list the lesson files in teaching order");
    for (size_t i = 0; i < n; i++) {
        bool dup = false;
        for (size_t k = 0; k < e->lessons.n; k++)
            dup |= strcmp(e->lessons.items[k], lessons[i]) == 0;
        if (dup)
            grader_vproblem(v, "lesson file '%s' is listed twice", lessons[i]);
        else
            core_strlist_push(&e->lessons, lessons[i]);
    }
    grader_strv_free(lessons, n);
    check_release(v, t, &p->info);
    check_class(v, t, &p->info);
    /* assets: patterns relative to the pack folder (matched in lessons/,
     * which reads the folder); a pattern that could leave it is refused */
    p->info.assets = grader_strs_field(L, t, "assets", &p->info.n_assets, NULL);
    for (size_t i = 0; i < p->info.n_assets; i++) {
        const char *a = p->info.assets[i];
        bool up = strcmp(a, "..") == 0 || strncmp(a, "../", 3) == 0 || strstr(a, "/../") ||
                  (strlen(a) >= 3 && strcmp(a + strlen(a) - 3, "/..") == 0);
        if (!a[0] || a[0] == '/' || up)
            grader_vproblem(v,
                            "assets: '%s' must be a pattern of files inside the pack folder "
                            "(like \"img/*.png\")",
                            a);
    }
}

static struct grader_lesson *add_lesson(struct grader_pack *p)
{
    p->info.lessons = grader_grow(p->info.lessons, p->info.n_lessons, sizeof *p->info.lessons);
    struct grader_lesson *l = &p->info.lessons[p->info.n_lessons++];
    memset(l, 0, sizeof *l);
    return l;
}

static void check_lesson(struct grader_eval *e, struct grader_vctx *v, int t)
{
    struct lua_State *L = v->L;
    struct grader_dval id;
    if (grader_field(L, t, "id", &id) == GRADER_LT_STR)
        snprintf(v->label, sizeof v->label, "lesson %s", id.str);
    grader_fields_check(v, t, grader_lesson_fields, NULL, 0);
    static const char *const req[] = {"id", "title", NULL};
    grader_fields_require(v, t, req);
    struct grader_lesson *l = add_lesson(e->pack);
    e->lesson_index = e->pack->info.n_lessons - 1;
    e->lesson = l;
    l->id = grader_str_field(L, t, "id");
    l->title = grader_str_field(L, t, "title");
    l->file = core_xstrdup(e->path);
    l->line = v->line;
    grader_id_check(v, "id", l->id);
    if (!l->id)
        l->id = core_xstrdup("");
    if (!l->title)
        l->title = core_xstrdup("");
    e->topics = grader_strs_field(L, t, "topics", &e->n_topics, NULL);
    e->rubric = grader_strs_field(L, t, "rubric", &e->n_rubric, NULL);
    e->lesson_policy = e->pack_policy;
    struct policy_decl own;
    read_policy(v, t, &own);
    policy_over(&e->lesson_policy, &own);
    struct grader_dval exam;
    int ty = grader_field(L, t, "exam", &exam);
    if (ty == GRADER_LT_BOOL) {
        l->exam = exam.b;
    } else if (ty == GRADER_LT_TAB) {
        int xt = grader_tab_open(L, t, "exam");
        struct grader_vctx s;
        grader_vctx_sub(&s, v, ": exam");
        grader_fields_check(&s, xt, grader_exam_fields, NULL, 0);
        l->exam = true;
        double m;
        if (grader_num_field(L, xt, "minutes", &m)) {
            if (!(m > 0 && m <= 7 * 24 * 60))
                grader_vproblem(&s, "minutes must be a time limit above 0 (at most a week)");
            else
                l->time_limit_s = (int)ceil(m * 60);
        }
        v->bad |= s.bad;
        grader_tab_close(L, xt);
    }
    grader_bool_field(L, t, "graded", &l->graded);
    l->sealed = e->pack->info.is_release && (l->graded || l->exam);
}

/* The first "# " heading of a page, or NULL. */
static char *heading(const char *md)
{
    const char *s = md;
    while (*s) {
        const char *eol = strchr(s, '\n');
        size_t len = eol ? (size_t)(eol - s) : strlen(s);
        const char *t = s;
        while (t < s + len && (*t == ' ' || *t == '\t'))
            t++;
        if (t + 1 < s + len && t[0] == '#' && t[1] == ' ') {
            t += 2;
            const char *end = s + len;
            while (t < end && *t == ' ')
                t++;
            while (end > t && (end[-1] == ' ' || end[-1] == '\r' || end[-1] == '#'))
                end--;
            return core_xstrndup(t, (size_t)(end - t));
        }
        if (!eol)
            break;
        s = eol + 1;
    }
    return NULL;
}

static void check_page(struct grader_eval *e, struct grader_vctx *v, int t)
{
    struct lua_State *L = v->L;
    char *title = NULL, *text = NULL;
    struct grader_dval page;
    int ty = grader_value(L, t, &page);
    if (ty == GRADER_LT_STR) {
        text = core_xstrdup(page.str);
    } else if (ty == GRADER_LT_TAB) {
        grader_fields_check(v, t, grader_page_fields, NULL, 0);
        static const char *const req[] = {"text", NULL};
        grader_fields_require(v, t, req);
        title = grader_str_field(L, t, "title");
        text = grader_str_field(L, t, "text");
    } else {
        grader_vproblem(
            v,
            "page expects Markdown text: page [[ ... ]] or page { title = ..., text = ... }, "
            "got %s",
            grader_ltype_name(ty));
        return;
    }
    if (!text)
        text = core_xstrdup("");
    if (!title)
        title = heading(text);
    struct grader_lesson *l = e->lesson;
    l->pages = grader_grow(l->pages, l->n_pages, sizeof *l->pages);
    struct grader_page *pg = &l->pages[l->n_pages++];
    pg->title = title;
    pg->markdown = text;
    pg->line = v->line;
}

/* Reports an unknown kind, with the closest known one and the list. */
static void unknown_kind(struct grader_vctx *v, const char *kind_s)
{
    const char *names[GRADER_KIND_COUNT];
    char list[96] = "";
    for (int k = 0; k < GRADER_KIND_COUNT; k++) {
        names[k] = grader_kind_name((enum grader_kind)k);
        size_t len = strlen(list);
        snprintf(list + len, sizeof list - len, "%s%s", k ? ", " : "", names[k]);
    }
    const char *sugg = grader_name_closest(kind_s, names, GRADER_KIND_COUNT);
    char dym[64] = "";
    if (sugg)
        snprintf(dym, sizeof dym, "did you mean '%s'? ", sugg);
    grader_vproblem(v, "unknown kind '%s' (%sthe kinds are %s)", kind_s, dym, list);
}

/* hints = { "a nudge", { text = "the method", public = true }, ... }. */
static void read_hints(struct grader_vctx *v, int t, struct grader_question *q)
{
    struct lua_State *L = v->L;
    int ht = grader_tab_open(L, t, "hints");
    if (!ht)
        return;
    size_t n = grader_len(L, ht), count = grader_count(L, ht);
    if (count != n)
        grader_vproblem(v, "'hints' must be a list: { \"a hint\", { text = \"...\", public = "
                           "true }, ... }");
    bool bad_entry = false;
    q->hints = n ? core_xcalloc(n, sizeof *q->hints) : NULL;
    q->hint_public = n ? core_xcalloc(n, sizeof *q->hint_public) : NULL;
    for (size_t i = 1; i <= n; i++) {
        struct grader_dval h;
        int ty = grader_index(L, ht, (long long)i, &h);
        char *text = NULL;
        if (ty == GRADER_LT_STR) {
            text = core_xstrndup(h.str, h.len);
        } else if (ty == GRADER_LT_TAB) {
            int hi = grader_tab_open_at(L, ht, (long long)i);
            struct grader_vctx s;
            grader_vctx_sub(&s, v, ": hint %zu", i);
            grader_fields_check(&s, hi, grader_hint_fields, NULL, 0);
            text = grader_str_field(L, hi, "text");
            if (!text)
                grader_vproblem(&s, "a hint table needs its text: { text = \"...\", public = "
                                    "true }");
            bool pub = false;
            q->hint_public[i - 1] = grader_bool_field(L, hi, "public", &pub) && pub;
            grader_tab_close(L, hi);
            v->bad |= s.bad;
        } else if (!bad_entry) {
            grader_vproblem(v,
                            "'hints' must be a list of strings (or { text = ..., public = true "
                            "} tables), got %s at entry %zu",
                            grader_ltype_name(ty), i);
            bad_entry = true;
        }
        q->hints[q->n_hints++] = text ? text : core_xstrdup("");
    }
    grader_tab_close(L, ht);
}

/* What a sealed question of a release may hold: what a student needs to
 * answer. Everything that grades or reveals stays with the instructor. */
static const char *const sealed_fields[] = {"id",         "kind",    "title",   "prompt", "points",
                                            "topics",     "rubric",  "hints",   "lab",    "params",
                                            "unit",       "integer", "choices", "items",  "policy",
                                            "max_answer", "code", /* a code exercise: what the
                                                                     student writes and runs (its
                                                                     grade is a run) */
                                            NULL};

static bool sealed_entry(const struct grader_dval *key, const struct grader_dval *val, void *ud)
{
    struct grader_vctx *v = ud;
    (void)val;
    if (key->type != GRADER_LT_STR)
        return true;
    const char *k = key->str;
    bool ok = false;
    for (size_t i = 0; sealed_fields[i] && !ok; i++)
        ok = strcmp(sealed_fields[i], k) == 0;
    if (!ok)
        grader_vproblem(v,
                        "a sealed question of a release carries '%s': a release holds "
                        "nothing that grades or reveals (make it again with warpbench pack "
                        "release)",
                        k);
    return true;
}

static void check_sealed(struct grader_vctx *v, int t)
{
    grader_pairs(v->L, t, sealed_entry, v);
}

/* The static checks of a question; fills the model entry q. */
static void check_question(struct grader_eval *e, struct grader_vctx *v, int t,
                           struct grader_question *q)
{
    struct lua_State *L = v->L;
    q->file = core_xstrdup(e->path);
    q->line = v->line;
    q->points = 1;
    q->page_after = (int)e->lesson->n_pages - 1;
    q->id = grader_str_field(L, t, "id");
    if (q->id) {
        snprintf(v->label, sizeof v->label, "question %s", q->id);
        grader_id_check(v, "id", q->id);
    }
    int kind = -1;
    char *kind_s = grader_str_field(L, t, "kind");
    if (kind_s) {
        kind = grader_kind_find(kind_s);
        if (kind < 0)
            unknown_kind(v, kind_s);
    }
    free(kind_s);
    q->kind = kind < 0 ? GRADER_NUMERIC : (enum grader_kind)kind;
    /* With an unknown kind, kind-specific fields cannot be judged: check
     * only the names. */
    struct grader_fields_kind own = {kind, grader_kind_name(q->kind),
                                     grader_kind_ops(q->kind)->answer_types,
                                     grader_kind_field_applies};
    grader_fields_check(v, t, grader_question_fields, kind >= 0 ? &own : NULL, 0);
    static const char *const req[] = {"id", "kind", "prompt", NULL};
    grader_fields_require(v, t, req);
    q->title = grader_str_field(L, t, "title");
    q->prompt = grader_str_field(L, t, "prompt");
    if (!q->prompt)
        q->prompt = core_xstrdup("");
    double pts;
    if (grader_num_field(L, t, "points", &pts)) {
        if (!(pts > 0 && isfinite(pts)))
            grader_vproblem(v, "points must be a number > 0");
        else
            q->points = pts;
    }
    bool present;
    q->topics = grader_strs_field(L, t, "topics", &q->n_topics, &present);
    if (!present) {
        q->topics = grader_strv_dup(e->topics, e->n_topics);
        q->n_topics = e->n_topics;
    }
    q->rubric = grader_strs_field(L, t, "rubric", &q->n_rubric, &present);
    if (!present) {
        q->rubric = grader_strv_dup(e->rubric, e->n_rubric);
        q->n_rubric = e->n_rubric;
    }
    q->lab = grader_str_field(L, t, "lab");
    grader_id_check(v, "lab", q->lab);
    q->sealed = e->lesson->sealed;
    read_hints(v, t, q);
    if (q->sealed)
        check_sealed(v, t);
    q->has_params = grader_has_field(L, t, "params");
    q->has_grade = grader_has_field(L, t, "grade");
    int ex = grader_tab_open(L, t, "examples");
    if (ex) {
        q->n_examples = grader_len(L, ex);
        grader_tab_close(L, ex);
    }
    q->unit = core_xstrdup("");
    q->max_answer = grader_kind_max_answer(q->kind);
    double ma;
    if (grader_num_field(L, t, "max_answer", &ma)) {
        if (!(ma >= 1 && ma <= GRADER_MAX_ANSWER && ma == floor(ma)))
            grader_vproblem(v, "max_answer must be a whole number of bytes from 1 to %d",
                            GRADER_MAX_ANSWER);
        else
            q->max_answer = (size_t)ma;
    }
    if (kind < 0) {
        v->bad = true;
        return;
    }
    grader_kind_ops(q->kind)->check(v, t, q);
    grader_list_check(v, t, "examples", grader_example_check, NULL);
}

/* The question's policy: its own, over the lesson's (which is over the
 * pack's), over the kind's default; exam mode allows one try. */
static void resolve_policy(struct grader_eval *e, struct grader_vctx *v, int t,
                           struct grader_question *q)
{
    struct policy_decl d = {0}, own;
    grader_policy_default(q->kind, &d.p);
    policy_over(&d, &e->lesson_policy);
    read_policy(v, t, &own);
    policy_over(&d, &own);
    if (e->lesson && e->lesson->exam)
        d.p.tries = 1;
    q->policy = d.p;
}

/* ---- running a file -------------------------------------------------------------------------- */

/* Lua-callable driver: runs one file and turns its declarations into the
 * model. Runs under grader_pcall; problems go to the eval. */
static int l_eval(struct lua_State *L)
{
    struct grader_eval *e = grader_sb_job_start(L);
    struct grader_pfile *f = &e->pack->files[e->file];
    char where[160];
    snprintf(where, sizeof where, "%s:1", e->path);
    grader_sb_set_fallback(L, where);
    grader_decl_set_mode(L, e->mode);
    grader_sb_load(L, &f->bc, f->chunkname); /* chunk */
    if (grader_sb_try(L, 0, 0) != 0) {       /* msg */
        char *msg = grader_lua_strdup(L, -1);
        grader_eval_problem(e, CORE_ERR_SCRIPT, "%s", msg);
        free(msg);
        return 0;
    }
    size_t n;
    int decls = grader_decl_records_open(L, &n);
    int first_line[GRADER_D_N] = {0};
    struct grader_pack *p = e->pack;
    for (size_t i = 1; i <= n; i++) {
        int kind, line;
        int val = grader_decl_record_open(L, decls, i, &kind, &line);
        int vty = grader_type(L, val);
        struct grader_vctx v = {.problems = e->problems,
                                .first_code = &e->first_code,
                                .path = e->path,
                                .L = L,
                                .line = line};
        snprintf(v.label, sizeof v.label, "%s", grader_decl_name(kind));
        if (kind != GRADER_D_PAGE && kind != GRADER_D_LESSON && vty != GRADER_LT_TAB) {
            grader_vproblem(&v, "%s expects a table: %s { ... }, got %s", grader_decl_name(kind),
                            grader_decl_name(kind), grader_ltype_name(vty));
        } else if (kind == GRADER_D_FORMULAS) {
            grader_formulas_check(&v, val, p, e->mode == GRADER_DECL_PACK ? NULL : e->lesson,
                                  e->path);
        } else if (e->mode == GRADER_DECL_PACK) {
            if (kind != GRADER_D_PACK)
                grader_vproblem(&v, "%s{} belongs in a lesson file, not in pack.lua",
                                grader_decl_name(kind));
            else if (first_line[GRADER_D_PACK])
                grader_vproblem(&v, "pack{} is called again (first at line %d)",
                                first_line[GRADER_D_PACK]);
            else {
                first_line[GRADER_D_PACK] = line;
                e->pack_line = line;
                check_pack(e, &v, val);
            }
        } else if (kind == GRADER_D_PACK) {
            grader_vproblem(&v, "pack{} belongs in pack.lua, not in a lesson file");
        } else if (kind == GRADER_D_LESSON) {
            if (first_line[GRADER_D_LESSON])
                grader_vproblem(&v,
                                "lesson{} is called again (first at line %d): one lesson per file",
                                first_line[GRADER_D_LESSON]);
            else if (vty != GRADER_LT_TAB)
                grader_vproblem(&v,
                                "lesson expects a table: lesson { id = ..., title = ... }, got %s",
                                grader_ltype_name(vty));
            else {
                first_line[GRADER_D_LESSON] = line;
                check_lesson(e, &v, val);
            }
        } else if (!e->lesson) {
            grader_vproblem(&v,
                            "%s before lesson{}: a lesson file starts with lesson { id = ..., "
                            "title = ... }",
                            grader_decl_name(kind));
        } else if (kind == GRADER_D_PAGE) {
            check_page(e, &v, val);
        } else if (kind == GRADER_D_CALC) {
            struct grader_lesson *l = &p->info.lessons[e->lesson_index];
            l->calcs = grader_grow(l->calcs, l->n_calcs, sizeof *l->calcs);
            struct grader_calc *c = &l->calcs[l->n_calcs++];
            memset(c, 0, sizeof *c);
            e->cx = grader_grow(e->cx, e->n_cx, sizeof *e->cx);
            struct grader_cx *x = &e->cx[e->n_cx++];
            memset(x, 0, sizeof *x);
            core_buf_init(&x->slim);
            e->lesson = l;
            c->file = core_xstrdup(e->path);
            c->line = v.line;
            c->page_after = (int)e->lesson->n_pages - 1;
            grader_calc_check(&v, val, c, x);
            if (!c->id)
                c->id = core_xstrdup("");
            if (!c->title)
                c->title = core_xstrdup("");
            x->bad = v.bad;
        } else {
            struct grader_lesson *l = &p->info.lessons[e->lesson_index];
            l->questions = grader_grow(l->questions, l->n_questions, sizeof *l->questions);
            struct grader_question *q = &l->questions[l->n_questions++];
            memset(q, 0, sizeof *q);
            e->lesson = l;
            check_question(e, &v, val, q);
            resolve_policy(e, &v, val, q);
            if (!q->id)
                q->id = core_xstrdup("");
            core_buf_putc(&e->bad, v.bad ? 1 : 0);
        }
        grader_tab_close(L, val);
    }
    if (e->mode == GRADER_DECL_PACK && !first_line[GRADER_D_PACK])
        grader_eval_problem(e, CORE_ERR_INVALID,
                            "%s:1: pack.lua must call pack { id = ..., title = ..., "
                            "version = ..., lessons = { ... } } once",
                            e->path);
    if (e->mode == GRADER_DECL_LESSON && !first_line[GRADER_D_LESSON] && n == 0)
        grader_eval_problem(e, CORE_ERR_INVALID,
                            "%s:1: no lesson { id = ..., title = ... } in this file", e->path);
    return 0;
}

/* Runs one file in a fresh sandbox. */
static void eval_file(struct grader_eval *e)
{
    struct core_err err;
    size_t declared = e->bad.len, calcs = e->n_cx;
    bool made;
    if (grader_sb_run_own(&e->pack->lim, e->pack->pool, l_eval, e, &made, &err) != 0) {
        if (!made) { /* no sandbox: nothing ran */
            grader_eval_problem(e, err.code, "%s:1: %s", e->path, err.msg);
            return;
        }
        grader_eval_problem(e, err.code, "%s", err.msg);
        /* a limit in the middle of the walk: what it had declared is suspect */
        for (size_t i = declared; i < e->bad.len; i++)
            e->bad.data[i] = 1;
        for (size_t i = calcs; i < e->n_cx; i++)
            e->cx[i].bad = true;
    }
    grader_strv_free(e->topics, e->n_topics);
    grader_strv_free(e->rubric, e->n_rubric);
    e->topics = e->rubric = NULL;
    e->n_topics = e->n_rubric = 0;
}

/* ---- the pack -------------------------------------------------------------------------------- */

static size_t find_file(const struct grader_pack *p, const char *path)
{
    for (size_t i = 0; i < p->n_files; i++)
        if (strcmp(p->files[i].path, path) == 0)
            return i;
    return SIZE_MAX;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* The private question table and the id index. */
static void build_index(struct grader_pack *p, struct grader_eval *e)
{
    size_t total = 0;
    for (size_t i = 0; i < p->info.n_lessons; i++)
        total += p->info.lessons[i].n_questions;
    grader_pack_index_init(p, total);
    for (size_t li = 0; li < p->info.n_lessons; li++) {
        struct grader_lesson *l = &p->info.lessons[li];
        for (size_t qi = 0; qi < l->n_questions; qi++) {
            struct grader_question *q = &l->questions[qi];
            struct grader_qx *x = &p->qx[p->n_qx];
            x->q = q;
            x->file = find_file(p, q->file);
            x->bad = p->n_qx < e->bad.len && e->bad.data[p->n_qx];
            if (!q->id[0]) {
                x->bad = true;
                p->n_qx++;
                continue;
            }
            const struct grader_qx *first = grader_pack_qx(p, q->id);
            if (first) {
                grader_eval_problem(
                    e, CORE_ERR_INVALID,
                    "%s:%d: question %s: duplicate question id (first used at %s:%d)", q->file,
                    q->line, q->id, first->q->file, first->q->line);
                x->bad = true;
                p->n_qx++;
                continue;
            }
            grader_pack_index_add(p, p->n_qx++);
        }
    }
    for (size_t i = 0; i < p->info.n_lessons; i++) {
        for (size_t k = 0; k < i; k++) {
            struct grader_lesson *a = &p->info.lessons[k], *b = &p->info.lessons[i];
            if (a->id[0] && strcmp(a->id, b->id) == 0)
                grader_eval_problem(e, CORE_ERR_INVALID,
                                    "%s:%d: lesson %s: duplicate lesson id (first used "
                                    "at %s:%d)",
                                    b->file, b->line, b->id, a->file, a->line);
        }
    }
}

/* The private calculator table, in pack order, and duplicate ids. */
static void build_calcs(struct grader_pack *p, struct grader_eval *e)
{
    p->cx = e->cx;
    p->n_cx = e->n_cx;
    e->cx = NULL;
    e->n_cx = 0;
    size_t k = 0;
    for (size_t li = 0; li < p->info.n_lessons; li++) {
        const struct grader_lesson *l = &p->info.lessons[li];
        for (size_t ci = 0; ci < l->n_calcs && k < p->n_cx; ci++) {
            const struct grader_calc *c = &l->calcs[ci];
            struct grader_cx *x = &p->cx[k++];
            x->c = c;
            x->file = find_file(p, c->file);
            if (!c->id[0] || x->file == SIZE_MAX)
                x->bad = true;
            for (size_t j = 0; c->id[0] && j + 1 < k; j++) {
                const struct grader_calc *first = p->cx[j].c;
                if (strcmp(first->id, c->id) == 0) {
                    grader_eval_problem(
                        e, CORE_ERR_INVALID,
                        "%s:%d: calculator %s: duplicate calculator id (first used at "
                        "%s:%d)",
                        c->file, c->line, c->id, first->file, first->line);
                    x->bad = true;
                    break;
                }
            }
        }
    }
}

/* Loads a pack; with `check`, also runs every question's per-question
 * checks (params, references, placeholders) — the part a stored revision,
 * already checked at import, can skip. */
static int pack_build(struct grader_pack **out, const struct grader_file *files, size_t n,
                      const struct grader_limits *lim, struct core_strlist *problems, bool check,
                      bool keep, struct core_err *err)
{
    *out = NULL;
    struct core_strlist local;
    core_strlist_init(&local);
    if (!problems)
        problems = &local;
    size_t start = problems->n;
    struct grader_pack *p = core_xcalloc(1, sizeof *p);
    if (lim)
        p->lim = *lim;
    else
        grader_limits_default(&p->lim);
    p->pool = grader_sb_pool_new(p->lim.mem_bytes);
    p->files = n ? core_xcalloc(n, sizeof *p->files) : NULL;
    p->n_files = n;
    struct grader_eval e = {.pack = p, .problems = problems};
    core_strlist_init(&e.lessons);
    core_buf_init(&e.bad);

    /* Compile every .lua file once; the bytecode serves every later run. */
    for (size_t i = 0; i < n; i++) {
        struct grader_pfile *f = &p->files[i];
        f->path = core_xstrdup(files[i].path);
        f->data = core_xstrndup(files[i].data ? files[i].data : "", files[i].len);
        f->len = files[i].len;
        f->chunkname = core_xasprintf("@%s", f->path);
        f->is_lua = ends_with(f->path, ".lua");
        core_buf_init(&f->bc);
        if (!f->is_lua)
            continue;
        struct core_err cerr;
        if (grader_compile(f->data, f->len, f->chunkname, &f->bc, &cerr) == 0)
            f->compiled = true;
        else
            grader_eval_problem(&e, cerr.code, "%s", cerr.msg);
    }

    size_t pf = find_file(p, "pack.lua");
    if (pf == SIZE_MAX) {
        grader_eval_problem(
            &e, CORE_ERR_INVALID,
            "pack.lua: missing (a pack is a folder with pack.lua and its lesson files)");
    } else if (p->files[pf].compiled) {
        e.file = pf;
        e.path = p->files[pf].path;
        e.mode = GRADER_DECL_PACK;
        eval_file(&e);
    }
    if (!p->info.id)
        p->info.id = core_xstrdup("");
    if (!p->info.title)
        p->info.title = core_xstrdup("");
    if (!p->info.version)
        p->info.version = core_xstrdup("");

    for (size_t i = 0; i < e.lessons.n; i++) {
        const char *path = e.lessons.items[i];
        size_t fi = find_file(p, path);
        if (fi == SIZE_MAX || !p->files[fi].is_lua || strcmp(path, "pack.lua") == 0) {
            grader_eval_problem(&e, CORE_ERR_INVALID,
                                "pack.lua:%d: lesson file '%s' is listed in lessons but %s",
                                e.pack_line, path,
                                fi == SIZE_MAX        ? "missing"
                                : p->files[fi].is_lua ? "is pack.lua"
                                                      : "not a .lua file");
            continue;
        }
        if (!p->files[fi].compiled)
            continue;
        e.file = fi;
        e.path = p->files[fi].path;
        e.mode = GRADER_DECL_LESSON;
        e.lesson = NULL;
        eval_file(&e);
    }
    for (size_t i = 0; i < n && e.lessons_known; i++) {
        const struct grader_pfile *f = &p->files[i];
        if (!f->is_lua || strcmp(f->path, "pack.lua") == 0)
            continue;
        bool listed = false;
        for (size_t k = 0; k < e.lessons.n; k++)
            listed |= strcmp(e.lessons.items[k], f->path) == 0;
        if (!listed)
            grader_eval_problem(
                &e, CORE_ERR_INVALID,
                "%s:1: this file is not listed in pack.lua's lessons (list it, or remove it)",
                f->path);
    }

    build_index(p, &e);
    build_calcs(p, &e);
    grader_formulas_resolve(p, e.problems, &e.first_code);
    for (size_t i = 0; i < p->n_qx && check; i++) {
        if (p->qx[i].bad || p->qx[i].file == SIZE_MAX)
            continue;
        int code = 0;
        if (grader_question_check(p, i, problems, &code) > 0) {
            p->qx[i].bad = true;
            if (!e.first_code)
                e.first_code = code;
        }
    }
    core_strlist_fini(&e.lessons);
    core_buf_fini(&e.bad);

    if (problems->n > start) {
        int code = e.first_code ? e.first_code : CORE_ERR_INVALID;
        core_err_set(err, code, "%s", problems->items[start]);
        core_strlist_fini(&local);
        if (keep) { /* the caller runs the rest on the questions without problems */
            *out = p;
            return code;
        }
        /* One typo must not hide the rest: the questions that passed still
         * run their self-tests, so the instructor sees every problem at once. */
        if (check && problems != &local)
            grader_pack_selftest(p, problems, NULL);
        grader_pack_free(p);
        return code;
    }
    core_strlist_fini(&local);
    *out = p;
    return 0;
}

int grader_pack_new(struct grader_pack **out, const struct grader_file *files, size_t n,
                    const struct grader_limits *lim, struct core_strlist *problems,
                    struct core_err *err)
{
    return pack_build(out, files, n, lim, problems, true, false, err);
}

int grader_pack_new_checked(struct grader_pack **out, const struct grader_file *files, size_t n,
                            const struct grader_limits *lim, struct core_strlist *problems,
                            struct core_err *err)
{
    return pack_build(out, files, n, lim, problems, true, true, err);
}

int grader_pack_open(struct grader_pack **out, const struct grader_file *files, size_t n,
                     const struct grader_limits *lim, struct core_err *err)
{
    return pack_build(out, files, n, lim, NULL, false, false, err);
}
