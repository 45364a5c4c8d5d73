/* lesson_pack.c — checking a pack (format + self-tests), importing it into
 * the store, and keeping the built-in pack current. */
#include "lessons/lesson.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void lesson_check_fini(struct lesson_check *c)
{
    core_strlist_fini(&c->problems);
    free(c->pack_id);
    free(c->version);
    grader_sweep_fini(&c->sweep);
    memset(c, 0, sizeof *c);
}

/* Every rubric item a question names must be the course's or declared by
 * the pack: a typo would send the question's points to an item nobody
 * sees. */
static void check_rubric(const struct grader_pack_info *info, struct core_strlist *problems)
{
    const struct lesson_rubric_item *items = lesson_rubric_items();
    const char *names[LESSON_RUBRIC_N + 64];
    size_t n_names = 0;
    for (size_t i = 0; i < LESSON_RUBRIC_N; i++)
        names[n_names++] = items[i].id;
    for (size_t i = 0; i < info->n_rubric && n_names < sizeof names / sizeof names[0]; i++)
        names[n_names++] = info->rubric[i];
    for (size_t li = 0; li < info->n_lessons; li++) {
        const struct grader_lesson *l = &info->lessons[li];
        for (size_t qi = 0; qi < l->n_questions; qi++) {
            const struct grader_question *q = &l->questions[qi];
            for (size_t r = 0; r < q->n_rubric; r++) {
                const char *item = q->rubric[r];
                bool known = lesson_rubric_find(item) != NULL;
                for (size_t k = 0; !known && k < info->n_rubric; k++)
                    known = strcmp(info->rubric[k], item) == 0;
                if (known)
                    continue;
                const char *sugg = grader_name_closest(item, names, n_names);
                core_strlist_pushf(problems,
                                   "%s:%d: question %s: unknown rubric item '%s'%s%s%s: use one "
                                   "of the course's items (warpbench selfassess lists them) or "
                                   "declare it in pack { rubric = { ... } }",
                                   q->file, q->line, q->id, item, sugg ? " (did you mean '" : "",
                                   sugg ? sugg : "", sugg ? "'?)" : "");
            }
        }
    }
}

int lesson_pack_check_with(const struct lesson_src *src, size_t variants, struct lesson_check *out,
                           struct grader_pack **pack, struct core_err *err)
{
    return lesson_pack_check_budget(src, variants, LESSON_CHECK_BUDGET_S, out, pack, err);
}

/* When the pack's budget was spent: the questions' own lines that say so
 * (one per job refused after it) give way to one line, first. */
static void budget_problem(struct grader_pack *p, struct core_strlist *problems)
{
    char why[200];
    if (!grader_pack_budget_spent(p, why, sizeof why))
        return;
    struct core_strlist kept;
    core_strlist_init(&kept);
    core_strlist_pushf(&kept, "pack check stopped: %s (pack check --budget SECONDS gives it more)",
                       why);
    for (size_t i = 0; i < problems->n; i++)
        if (!strstr(problems->items[i], GRADER_BUDGET_WORDS))
            core_strlist_push(&kept, problems->items[i]);
    core_strlist_fini(problems);
    *problems = kept;
}

int lesson_pack_check_budget(const struct lesson_src *src, size_t variants, double budget_s,
                             struct lesson_check *out, struct grader_pack **pack,
                             struct core_err *err)
{
    memset(out, 0, sizeof *out);
    core_strlist_init(&out->problems);
    if (pack)
        *pack = NULL;
    struct grader_limits lim;
    grader_limits_default(&lim);
    struct grader_pack *p = NULL;
    /* Problems found while loading do not stop the other checks: every
     * problem is reported at once (questions with problems are skipped). */
    struct core_err lerr = {0};
    int rc = grader_pack_new_checked(&p, src->files, src->n, &lim, &out->problems, &lerr);
    if (!p) {
        if (out->problems.n == 0)
            core_strlist_push(&out->problems, lerr.msg[0] ? lerr.msg : "pack could not be loaded");
        if (err)
            *err = lerr;
        return rc;
    }
    const struct grader_pack_info *info = grader_pack_info(p);
    if (rc == CORE_OK || info->id[0]) {
        out->pack_id = core_xstrdup(info->id);
        out->version = core_xstrdup(info->version);
    }
    out->n_lessons = info->n_lessons;
    for (size_t i = 0; i < info->n_lessons; i++) {
        out->n_pages += info->lessons[i].n_pages;
        out->n_questions += info->lessons[i].n_questions;
    }
    check_rubric(info, &out->problems);
    grader_pack_set_budget(p, budget_s);
    grader_pack_selftest(p, &out->problems, &out->n_checks);
    /* the declared assets: sizes and patterns, without reading them */
    lesson_src_assets(src, info->assets, info->n_assets, &out->problems, NULL);
    if (variants != LESSON_NO_SWEEP) {
        out->variants = variants;
        out->swept = true;
        grader_pack_sweep(p, variants, &out->sweep, &out->problems);
        out->n_checks += out->sweep.checks;
    }
    budget_problem(p, &out->problems);
    grader_pack_set_budget(p, 0); /* a pack handed over grades without it */
    if (rc != CORE_OK && err)
        *err = lerr; /* the load's first problem and its code */
    else if (out->problems.n > 0)
        rc = core_err_set(err, CORE_ERR_INVALID, "%s", out->problems.items[0]);
    if (rc == CORE_OK && pack)
        *pack = p;
    else
        grader_pack_free(p);
    return rc;
}

int lesson_pack_check(const struct lesson_src *src, struct lesson_check *out,
                      struct grader_pack **pack, struct core_err *err)
{
    return lesson_pack_check_with(src, GRADER_SWEEP_VARIANTS, out, pack, err);
}

/* Joins a string array with commas (the store keeps tag lists as text). */
static char *join(char **items, size_t n)
{
    struct core_buf b;
    core_buf_init(&b);
    for (size_t i = 0; i < n; i++) {
        if (i)
            core_buf_putc(&b, ',');
        core_buf_puts(&b, items[i]);
    }
    return core_buf_steal(&b);
}

const char *lesson_builtin_id(void)
{
    return WB_BUILTIN_ID;
}

const char *lesson_builtin_version(void)
{
    return WB_BUILTIN_VERSION;
}

bool lesson_id_reserved(const char *id)
{
    size_t n = strlen(LESSON_RESERVED_ID);
    return id && strncmp(id, LESSON_RESERVED_ID, n) == 0 && (id[n] == '\0' || id[n] == '.');
}

/* lesson_pack_import_with; `builtin` lets a reserved id through (the
 * course compiled into this binary). */
static int pack_import(struct db *db, const struct lesson_src *src, bool force, bool builtin,
                       size_t variants, struct lesson_check *check, enum db_import_result *result,
                       struct core_err *err)
{
    struct lesson_check local;
    struct lesson_check *c = check ? check : &local;
    struct grader_pack *p = NULL;
    int rc = lesson_pack_check_with(src, variants, c, &p, err);
    if (rc != CORE_OK)
        goto out;
    const struct grader_pack_info *info = grader_pack_info(p);
    if (!builtin && lesson_id_reserved(info->id)) {
        rc = core_err_set(err, CORE_ERR_CONFLICT,
                          "pack id \"%s\" is reserved for the course built into Warpbench "
                          "(ids \"%s\" and \"%s.*\"): give your pack another id%s",
                          info->id, LESSON_RESERVED_ID, LESSON_RESERVED_ID,
                          strcmp(info->id, WB_BUILTIN_ID) == 0
                              ? "; to bring the built-in course back, run warpbench init "
                                "--restore-course"
                              : "");
        goto out;
    }

    size_t nq = 0, np = 0;
    for (size_t i = 0; i < info->n_lessons; i++) {
        nq += info->lessons[i].n_questions;
        np += info->lessons[i].n_pages;
    }
    /* the assets it declares, read now (checked above) */
    struct lesson_src assets = {0};
    if (lesson_src_assets(src, info->assets, info->n_assets, &c->problems, &assets) > 0) {
        rc = core_err_set(err, CORE_ERR_INVALID, "%s", c->problems.items[c->problems.n - 1]);
        lesson_src_fini(&assets);
        goto out;
    }
    struct db_file_in *files = core_xcalloc(src->n + assets.n + 1, sizeof *files);
    struct db_lesson_in *lessons = core_xcalloc(info->n_lessons + 1, sizeof *lessons);
    struct db_page_in *pages = core_xcalloc(np + 1, sizeof *pages);
    struct db_question_in *qs = core_xcalloc(nq + 1, sizeof *qs);
    char **owned = core_xcalloc(3 * nq + 1, sizeof *owned);
    size_t n_owned = 0;

    for (size_t i = 0; i < src->n; i++)
        files[i] = (struct db_file_in){src->files[i].path, src->files[i].data, src->files[i].len};
    for (size_t i = 0; i < assets.n; i++)
        files[src->n + i] =
            (struct db_file_in){assets.files[i].path, assets.files[i].data, assets.files[i].len};
    size_t pi = 0, qi = 0;
    for (size_t i = 0; i < info->n_lessons; i++) {
        const struct grader_lesson *l = &info->lessons[i];
        lessons[i] = (struct db_lesson_in){l->id,           l->title,  l->file,  l->exam,
                                           l->time_limit_s, l->graded, l->sealed};
        for (size_t j = 0; j < l->n_pages; j++)
            pages[pi++] = (struct db_page_in){l->id, l->pages[j].title, l->pages[j].markdown};
        for (size_t j = 0; j < l->n_questions; j++) {
            const struct grader_question *q = &l->questions[j];
            char *topics = join(q->topics, q->n_topics);
            char *rubric = join(q->rubric, q->n_rubric);
            char *per_try = lesson_policy_per_try_text(&q->policy);
            owned[n_owned++] = topics;
            owned[n_owned++] = rubric;
            owned[n_owned++] = per_try;
            qs[qi++] = (struct db_question_in){.id = q->id,
                                               .lesson_id = l->id,
                                               .kind = grader_kind_name(q->kind),
                                               .title = q->title,
                                               .prompt = q->prompt,
                                               .points = q->points,
                                               .topics = topics,
                                               .rubric = rubric,
                                               .lab = q->lab,
                                               .file = q->file,
                                               .line = q->line,
                                               .page_after = q->page_after,
                                               .tries = q->policy.tries,
                                               .penalty = q->policy.penalty,
                                               .per_try = per_try};
        }
    }
    struct db_pack_in in = {.id = info->id,
                            .version = info->version,
                            .title = info->title,
                            .description = info->description,
                            .files = files,
                            .n_files = src->n + assets.n,
                            .lessons = lessons,
                            .n_lessons = info->n_lessons,
                            .pages = pages,
                            .n_pages = np,
                            .questions = qs,
                            .n_questions = nq};
    rc = db_pack_import(db, &in, force, result, NULL, err);

    for (size_t i = 0; i < n_owned; i++)
        free(owned[i]);
    free(owned);
    free(qs);
    free(pages);
    free(lessons);
    free(files);
    lesson_src_fini(&assets);
out:
    grader_pack_free(p);
    if (!check)
        lesson_check_fini(&local);
    return rc;
}

int lesson_pack_import_with(struct db *db, const struct lesson_src *src, bool force,
                            size_t variants, struct lesson_check *check,
                            enum db_import_result *result, struct core_err *err)
{
    return pack_import(db, src, force, false, variants, check, result, err);
}

int lesson_pack_import(struct db *db, const struct lesson_src *src, bool force,
                       struct lesson_check *check, enum db_import_result *result,
                       struct core_err *err)
{
    return pack_import(db, src, force, false, GRADER_SWEEP_VARIANTS, check, result, err);
}

/* Compares two version strings part by part ("0.10.0" > "0.9.1"): parts
 * that are both numbers compare as numbers, others as text. */
static int version_cmp(const char *a, const char *b)
{
    while (*a || *b) {
        size_t la = strcspn(a, ".-"), lb = strcspn(b, ".-");
        bool na = la > 0 && strspn(a, "0123456789") >= la;
        bool nb = lb > 0 && strspn(b, "0123456789") >= lb;
        int c;
        if (na && nb) {
            c = (int)(strtoull(a, NULL, 10) > strtoull(b, NULL, 10)) -
                (int)(strtoull(a, NULL, 10) < strtoull(b, NULL, 10));
        } else {
            c = strncmp(a, b, la < lb ? la : lb);
            if (c == 0)
                c = (la > lb) - (la < lb);
        }
        if (c != 0)
            return c;
        a += la + (a[la] != '\0');
        b += lb + (b[lb] != '\0');
    }
    return 0;
}

/* The digest this build's course would be stored with: with the marker
 * (as stored from now on) or without it (as builds before the marker
 * stored it). */
static void builtin_digest(const struct lesson_src *src, bool with_marker, char out[65])
{
    struct db_file_in *f = core_xcalloc(src->n + 1, sizeof *f);
    size_t n = 0;
    for (size_t i = 0; i < src->n; i++)
        if (with_marker || !lesson_builtin_marker(src->files[i].path))
            f[n++] = (struct db_file_in){src->files[i].path, src->files[i].data, src->files[i].len};
    db_pack_digest(f, n, out);
    free(f);
}

/* Whether the stored revision rev carries the built-in marker. */
static int has_marker(struct db *db, int64_t rev, bool *yes, struct core_err *err)
{
    char sha[65], want[65];
    *yes = false;
    int rc = db_pack_file_sha256(db, rev, LESSON_BUILTIN_MARKER, sha, err);
    if (rc == CORE_ERR_NOTFOUND)
        return CORE_OK;
    if (rc != CORE_OK)
        return rc;
    core_sha256_hex(LESSON_BUILTIN_MARKER_TEXT, strlen(LESSON_BUILTIN_MARKER_TEXT), want);
    *yes = strcmp(sha, want) == 0;
    return CORE_OK;
}

int lesson_builtin_sync(struct db *db, bool restore, struct lesson_builtin_report *rep,
                        struct core_err *err)
{
    struct db_pack have = {0};
    struct lesson_check check = {0};
    struct lesson_src src = {0};
    struct lesson_builtin_report local;
    if (!rep)
        rep = &local;
    memset(rep, 0, sizeof *rep);
    enum db_import_result res;
    int rc = db_pack_get(db, WB_BUILTIN_ID, &have, err);
    bool absent = rc == CORE_ERR_NOTFOUND, marked = false;
    if (rc != CORE_OK && !absent)
        goto out;
    rc = CORE_OK;
    if (!absent) {
        snprintf(rep->found, sizeof rep->found, "%s", have.version);
        if ((rc = has_marker(db, have.rev_id, &marked, err)) != CORE_OK)
            goto out;
    }
    int cmp = absent ? 1 : version_cmp(WB_BUILTIN_VERSION, have.version);
    /* Every command runs this: the common case (this build's course, or a
     * newer build's, stored with the marker) must not load the pack. */
    if (marked && cmp < 0) {
        rep->newer = true;
        goto out;
    }
    if (marked && cmp == 0 && !restore)
        goto out;
    lesson_src_builtin(&src);
    if (absent) {
        rep->action = LESSON_BUILTIN_IMPORTED;
    } else if (cmp > 0) {
        rep->action = LESSON_BUILTIN_UPDATED;
    } else {
        char mine[65];
        builtin_digest(&src, marked, mine);
        if (strcmp(mine, have.digest) == 0)
            /* marked: this build's very content; unmarked: stored by a build
             * from before the marker, which it now gets */
            rep->action = marked ? LESSON_BUILTIN_KEPT : LESSON_BUILTIN_UPDATED;
        else
            rep->action = LESSON_BUILTIN_RESTORED;
        if (rep->action == LESSON_BUILTIN_KEPT)
            goto out;
    }
    /* The built-in pack passes the whole check in the test suite: the
     * first start of every store need not sweep it again. */
    rc = pack_import(db, &src, !absent, true, LESSON_NO_SWEEP, &check, &res, err);
    if (rc != CORE_OK)
        core_err_prefix(err, "built-in pack");
out:
    if (rc != CORE_OK)
        rep->action = LESSON_BUILTIN_KEPT;
    lesson_check_fini(&check);
    lesson_src_fini(&src);
    db_pack_fini(&have);
    return rc;
}

int lesson_builtin_ensure(struct db *db, enum db_import_result *result, struct core_err *err)
{
    struct lesson_builtin_report rep;
    int rc = lesson_builtin_sync(db, false, &rep, err);
    if (result)
        *result = rep.action == LESSON_BUILTIN_KEPT       ? DB_IMPORT_UNCHANGED
                  : rep.action == LESSON_BUILTIN_IMPORTED ? DB_IMPORT_NEW
                                                          : DB_IMPORT_REPLACED;
    return rc;
}
