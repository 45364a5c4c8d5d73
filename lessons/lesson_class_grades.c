/*
 * lesson_class_grades.c — each student's standing from the class store,
 * computed the way their own progress is: the instructor's questions
 * (db_progress of nobody gives every question with its policy), the
 * student's re-graded tries in their place, then lesson_progress_apply and
 * lesson_standing_compute. The gradebook and its CSV come from that.
 */
#include "lessons/lesson_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void lesson_class_progress_free(struct lesson_class_progress *p, size_t n)
{
    if (!p)
        return;
    for (size_t i = 0; i < n; i++) {
        struct db_class_student *s = &p[i].student;
        free(s->key);
        free(s->user);
        free(s->student_id);
        free(s->uid);
        free(s->submitted_at);
        free(s->imported_at);
        free(s->file);
        db_progress_free(p[i].rows, p[i].n);
    }
    free(p);
}

static int key_cmp(const char *pa, const char *qa, const char *pb, const char *qb)
{
    int c = strcmp(pa, pb);
    return c ? c : strcmp(qa, qb);
}

/* Template rows ordered by (pack, question), for lookups. */
struct tindex {
    const struct db_progress_row *rows;
    const struct db_progress_row **ord;
    size_t n;
};

static int by_key(const void *a, const void *b)
{
    const struct db_progress_row *x = *(const struct db_progress_row *const *)a;
    const struct db_progress_row *y = *(const struct db_progress_row *const *)b;
    return key_cmp(x->pack_id, x->question_id, y->pack_id, y->question_id);
}

static long tfind(const struct tindex *t, const char *pack, const char *question)
{
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        const struct db_progress_row *r = t->ord[mid];
        if (key_cmp(r->pack_id, r->question_id, pack, question) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < t->n && key_cmp(t->ord[lo]->pack_id, t->ord[lo]->question_id, pack, question) == 0)
        return (long)(t->ord[lo] - t->rows);
    return -1;
}

/* Frees one row's strings (db_progress_free frees whole arrays). */
static void progress_row_free(struct db_progress_row *r)
{
    free(r->pack_id);
    free(r->lesson_id);
    free(r->question_id);
    free(r->topics);
    free(r->rubric);
    free(r->kind);
    free(r->per_try);
    free(r->fracs);
}

static char *dup0(const char *s)
{
    return s ? core_xstrdup(s) : NULL;
}

static void row_copy(struct db_progress_row *d, const struct db_progress_row *s)
{
    *d = *s;
    d->pack_id = dup0(s->pack_id);
    d->lesson_id = dup0(s->lesson_id);
    d->question_id = dup0(s->question_id);
    d->topics = dup0(s->topics);
    d->rubric = dup0(s->rubric);
    d->kind = dup0(s->kind);
    d->per_try = dup0(s->per_try);
    d->fracs = NULL;
    d->n_fracs = 0;
}

static void push_try(struct db_progress_row *r, size_t *cap, double frac, bool helped,
                     int certainty, bool reviewed)
{
    if ((size_t)r->n_fracs == *cap) {
        *cap = *cap ? 2 * *cap : 4;
        r->fracs = core_xrealloc(r->fracs, *cap * sizeof *r->fracs);
    }
    r->fracs[r->n_fracs] = frac < 0 ? 0 : frac > 1 ? 1 : frac;
    if (r->n_fracs == 0)
        r->certainty = certainty;
    if (!helped)
        r->helped_from = r->n_fracs + 1;
    r->reviewed = r->reviewed || reviewed;
    r->n_fracs++;
}

/* The index of student id in p; attempts come grouped by student, so the
 * previous answer (*last) is tried first. */
static long student_index(const struct lesson_class_progress *p, size_t n, int64_t id, long *last)
{
    if (*last >= 0 && (size_t)*last < n && p[*last].student.id == id)
        return *last;
    for (size_t i = 0; i < n; i++)
        if (p[i].student.id == id)
            return *last = (long)i;
    return -1;
}

/* A blocking flag not cleared: does it withhold row r of the student? */
static bool flag_blocks(const struct db_class_flag *f, const struct db_progress_row *r)
{
    if (f->src_attempt)
        return false; /* one attempt: that try is left out instead */
    if (f->pack_id && strcmp(f->pack_id, r->pack_id) != 0)
        return false;
    if (f->question_id)
        return strcmp(f->question_id, r->question_id) == 0;
    if (f->lesson_id)
        return strcmp(f->lesson_id, r->lesson_id) == 0;
    return r->graded; /* the pack's (or, without a pack, all) graded work */
}

/* Whether an uncleared blocking flag leaves out this attempt. */
static bool attempt_blocked(const struct db_class_flag *f, size_t nf, int64_t student,
                            const struct db_class_attempt *a)
{
    for (size_t i = 0; i < nf; i++)
        if (f[i].student == student && f[i].blocking && !f[i].cleared && f[i].src_attempt &&
            f[i].src_attempt == a->src_id && f[i].pack_id && strcmp(f[i].pack_id, a->pack_id) == 0)
            return true;
    return false;
}

/* Whether the instructor cleared the late flag of this attempt (an
 * extension): it then earns its points as on time. */
static bool late_cleared(const struct db_class_flag *f, size_t nf, int64_t student,
                         const struct db_class_attempt *a)
{
    for (size_t i = 0; i < nf; i++)
        if (f[i].student == student && f[i].cleared && f[i].src_attempt == a->src_id &&
            strcmp(f[i].kind, "late") == 0 && f[i].pack_id && strcmp(f[i].pack_id, a->pack_id) == 0)
            return true;
    return false;
}

int lesson_class_progress_load(struct db *store, struct db *cs, const char *pack_id,
                               const struct lesson_grading *g, struct lesson_class_progress **out,
                               size_t *n, struct core_err *err)
{
    struct db_class_flag *fl = NULL;
    size_t nfl = 0;
    *out = NULL;
    *n = 0;
    struct db_progress_row *tmpl = NULL;
    struct db_class_attempt *att = NULL;
    struct db_class_student *st = NULL;
    struct db_class_mark *gu = NULL, *ex = NULL;
    size_t nt = 0, na = 0, ns = 0, ngu = 0, nex = 0;
    struct lesson_class_progress *p = NULL;
    size_t *caps = NULL;
    struct tindex ti = {0};
    /* Nobody's progress: every question of the instructor's packs with its
     * policy and no tries (user ids start at 1). */
    int rc = db_progress(store, 0, pack_id, &tmpl, &nt, err);
    if (rc == CORE_OK)
        rc = db_class_attempt_list(cs, pack_id, NULL, 0, &att, &na, err);
    if (rc == CORE_OK)
        rc = db_class_students(cs, &st, &ns, err);
    if (rc == CORE_OK)
        rc = db_class_giveups(cs, pack_id, &gu, &ngu, err);
    if (rc == CORE_OK)
        rc = db_class_exams(cs, pack_id, &ex, &nex, err);
    if (rc == CORE_OK && g && g->flags)
        rc = db_class_flags(cs, 0, false, &fl, &nfl, err);
    if (rc != CORE_OK)
        goto out;
    /* Without a pack named: the packs the class answered. */
    if (!pack_id) {
        struct core_strlist used;
        core_strlist_init(&used);
        for (size_t j = 0; j < na; j++) {
            bool known = false;
            for (size_t u = 0; u < used.n && !known; u++)
                known = strcmp(used.items[u], att[j].pack_id) == 0;
            if (!known)
                core_strlist_push(&used, att[j].pack_id);
        }
        size_t k = 0;
        for (size_t i = 0; i < nt; i++) {
            bool keep = false;
            for (size_t u = 0; u < used.n && !keep; u++)
                keep = strcmp(used.items[u], tmpl[i].pack_id) == 0;
            if (keep)
                tmpl[k++] = tmpl[i];
            else
                progress_row_free(&tmpl[i]);
        }
        nt = k;
        core_strlist_fini(&used);
    }
    ti.rows = tmpl;
    ti.n = nt;
    ti.ord = core_xcalloc(nt ? nt : 1, sizeof *ti.ord);
    for (size_t i = 0; i < nt; i++)
        ti.ord[i] = &tmpl[i];
    qsort(ti.ord, nt, sizeof *ti.ord, by_key);

    p = core_xcalloc(ns ? ns : 1, sizeof *p);
    caps = core_xcalloc((ns ? ns : 1) * (nt ? nt : 1), sizeof *caps);
    for (size_t i = 0; i < ns; i++) {
        p[i].student = st[i];
        p[i].rows = core_xcalloc(nt ? nt : 1, sizeof *p[i].rows);
        p[i].n = nt;
        for (size_t k = 0; k < nt; k++)
            row_copy(&p[i].rows[k], &tmpl[k]);
    }
    free(st); /* its strings now belong to p */
    st = NULL;
    long last = -1;
    for (size_t j = 0; j < na; j++) {
        const struct db_class_attempt *a = &att[j];
        long si = student_index(p, ns, a->student, &last);
        long ri = tfind(&ti, a->pack_id, a->question_id);
        bool valid = a->reviewed || (a->graded && a->valid);
        if (si < 0 || ri < 0 || !valid || attempt_blocked(fl, nfl, a->student, a))
            continue;
        double frac = a->reviewed ? (a->rv_max > 0 ? a->rv_score / a->rv_max : 0)
                                  : (a->max > 0 ? a->score / a->max : 0);
        if (g && g->late && !late_cleared(fl, nfl, a->student, a))
            frac *= a->late_factor;
        push_try(&p[si].rows[ri], &caps[(size_t)si * nt + (size_t)ri], frac, a->after_giveup,
                 a->certainty, a->reviewed);
    }
    for (size_t j = 0; j < ngu; j++) {
        long si = student_index(p, ns, gu[j].student, &last);
        long ri = tfind(&ti, gu[j].pack_id, gu[j].id);
        if (si >= 0 && ri >= 0)
            p[si].rows[ri].gave_up = true;
    }
    for (size_t j = 0; j < nex; j++) {
        long si = student_index(p, ns, ex[j].student, &last);
        if (si < 0)
            continue;
        for (size_t k = 0; k < nt; k++) {
            struct db_progress_row *r = &p[si].rows[k];
            if (strcmp(r->pack_id, ex[j].pack_id) == 0 && strcmp(r->lesson_id, ex[j].id) == 0) {
                r->exam_started = true;
                r->exam_over = ex[j].over;
            }
        }
    }
    /* The policy-free figures as db_progress gives them, then the policy. */
    for (size_t i = 0; i < ns; i++) {
        for (size_t k = 0; k < nt; k++) {
            struct db_progress_row *r = &p[i].rows[k];
            r->attempts = r->n_fracs;
            r->answered = r->n_fracs > 0;
            r->first = r->n_fracs ? r->fracs[0] * r->points : 0;
            r->best = 0;
            for (int t = 0; t < r->helped_from; t++)
                if (r->fracs[t] * r->points > r->best)
                    r->best = r->fracs[t] * r->points;
        }
        lesson_progress_apply(p[i].rows, p[i].n);
        for (size_t k = 0; g && k < nt; k++) {
            struct db_progress_row *r = &p[i].rows[k];
            /* An automatic design score is provisional until reviewed. */
            if (!g->count_automatic && r->kind && strcmp(r->kind, "design") == 0 && r->answered &&
                !r->reviewed)
                r->best = 0;
        }
        for (size_t f = 0; f < nfl; f++) {
            if (fl[f].student != p[i].student.id || fl[f].cleared)
                continue;
            p[i].n_flags++;
            if (!fl[f].blocking)
                continue;
            p[i].n_blocking++;
            for (size_t k = 0; k < nt; k++)
                if (flag_blocks(&fl[f], &p[i].rows[k])) {
                    p[i].rows[k].blocked = true;
                    p[i].rows[k].best = 0;
                }
        }
    }
    *out = p;
    *n = ns;
    p = NULL;
out:
    free(caps);
    free((void *)ti.ord);
    db_progress_free(tmpl, nt);
    db_class_attempts_free(att, na);
    db_class_students_free(st, ns);
    db_class_marks_free(gu, ngu);
    db_class_marks_free(ex, nex);
    db_class_flags_free(fl, nfl);
    lesson_class_progress_free(p, ns);
    return rc;
}

/* ---- the gradebook --------------------------------------------------------------------- */

void lesson_gradebook_fini(struct lesson_gradebook *gb)
{
    if (!gb)
        return;
    for (size_t i = 0; i < gb->n_lessons; i++) {
        free(gb->lessons[i].pack_id);
        free(gb->lessons[i].lesson_id);
        free(gb->lessons[i].title);
    }
    free(gb->lessons);
    for (size_t i = 0; i < gb->n_items; i++)
        free(gb->items[i].name);
    free(gb->items);
    for (size_t i = 0; i < gb->n_rows; i++) {
        struct lesson_gb_row *r = &gb->rows[i];
        free(r->key);
        free(r->user);
        free(r->student_id);
        free(r->submitted_at);
        free(r->name);
        free(r->email);
        free(r->section);
        free(r->login);
        free(r->lessons);
        free(r->items);
    }
    free(gb->rows);
    core_strlist_fini(&gb->warnings);
    memset(gb, 0, sizeof *gb);
}

static size_t lesson_col(const struct lesson_gradebook *gb, const char *pack, const char *lesson)
{
    for (size_t i = 0; i < gb->n_lessons; i++)
        if (strcmp(gb->lessons[i].pack_id, pack) == 0 &&
            strcmp(gb->lessons[i].lesson_id, lesson) == 0)
            return i;
    return gb->n_lessons;
}

struct item_walk {
    struct lesson_gradebook *gb;
    const struct db_progress_row *r;
    double *earned; /* NULL: count the maxima */
};

static void item_add(const char *name, size_t len, void *arg)
{
    struct item_walk *w = arg;
    struct lesson_gradebook *gb = w->gb;
    size_t k = 0;
    while (k < gb->n_items &&
           !(strlen(gb->items[k].name) == len && strncmp(gb->items[k].name, name, len) == 0))
        k++;
    if (k == gb->n_items) {
        if (w->earned)
            return;
        gb->items = core_xrealloc(gb->items, (k + 1) * sizeof *gb->items);
        char *nm = core_xstrndup(name, len);
        gb->items[k] = (struct lesson_gb_item){nm, 0, lesson_rubric_find(nm) != NULL};
        gb->n_items++;
    }
    if (w->earned)
        w->earned[k] += w->r->best;
    else
        gb->items[k].max += w->r->points;
}

/* A row counts in the gradebook when its lesson is a column. */
static bool counted(const struct lesson_gradebook *gb, const struct db_progress_row *r)
{
    return lesson_col(gb, r->pack_id, r->lesson_id) < gb->n_lessons;
}

int lesson_gradebook_load(struct db *store, struct db *cs, const char *pack_id,
                          bool count_automatic, struct lesson_gradebook *out, struct core_err *err)
{
    memset(out, 0, sizeof *out);
    core_strlist_init(&out->warnings);
    struct lesson_class_progress *p = NULL;
    size_t np = 0, nl = 0, nr = 0;
    struct db_lesson *ls = NULL;
    struct db_roster_entry *roster = NULL;
    const struct lesson_grading g = {
        .flags = true, .late = true, .count_automatic = count_automatic};
    int rc = lesson_class_progress_load(store, cs, pack_id, &g, &p, &np, err);
    if (rc == CORE_OK)
        rc = db_lesson_list(store, pack_id, &ls, &nl, err);
    if (rc == CORE_OK)
        rc = db_roster_list(cs, &roster, &nr, err);
    if (rc != CORE_OK)
        goto out;
    /* Columns: the graded lessons of the questions the gradebook covers,
     * in order (every student has the same rows); every lesson when none
     * is graded. */
    struct db_progress_row *rows0 = np ? p[0].rows : NULL;
    size_t n0 = np ? p[0].n : 0;
    for (size_t k = 0; k < n0; k++)
        out->graded_only |= rows0[k].graded;
    for (size_t k = 0; k < n0; k++) {
        if (out->graded_only && !rows0[k].graded)
            continue;
        size_t c = lesson_col(out, rows0[k].pack_id, rows0[k].lesson_id);
        if (c == out->n_lessons) {
            out->lessons = core_xrealloc(out->lessons, (c + 1) * sizeof *out->lessons);
            const char *title = rows0[k].lesson_id;
            for (size_t i = 0; i < nl; i++)
                if (strcmp(ls[i].pack_id, rows0[k].pack_id) == 0 &&
                    strcmp(ls[i].id, rows0[k].lesson_id) == 0)
                    title = ls[i].title;
            out->lessons[c] =
                (struct lesson_gb_lesson){core_xstrdup(rows0[k].pack_id),
                                          core_xstrdup(rows0[k].lesson_id), core_xstrdup(title), 0};
            out->n_lessons++;
        }
        out->lessons[c].max += rows0[k].points;
        struct item_walk w = {out, &rows0[k], NULL};
        lesson_names_each(rows0[k].rubric, item_add, &w);
    }
    out->rows = core_xcalloc(np ? np : 1, sizeof *out->rows);
    out->n_rows = np;
    for (size_t i = 0; i < np; i++) {
        struct lesson_gb_row *gr = &out->rows[i];
        const struct db_class_student *s = &p[i].student;
        gr->key = core_xstrdup(s->key);
        gr->user = core_xstrdup(s->user);
        gr->student_id = dup0(s->student_id);
        gr->submitted_at = dup0(s->submitted_at);
        gr->n_flags = p[i].n_flags;
        gr->n_blocking = p[i].n_blocking;
        gr->lessons = core_xcalloc(out->n_lessons ? out->n_lessons : 1, sizeof *gr->lessons);
        gr->items = core_xcalloc(out->n_items ? out->n_items : 1, sizeof *gr->items);
        for (size_t k = 0; k < p[i].n; k++) {
            const struct db_progress_row *r = &p[i].rows[k];
            size_t c = lesson_col(out, r->pack_id, r->lesson_id);
            if (c == out->n_lessons)
                continue;
            gr->lessons[c] += r->best;
            gr->points += r->best;
            gr->max += r->points;
            struct item_walk w = {out, r, gr->items};
            lesson_names_each(r->rubric, item_add, &w);
            if (counted(out, r) && r->kind && strcmp(r->kind, "design") == 0 && r->answered &&
                !r->reviewed)
                gr->design_pending += r->points;
        }
        gr->percent = gr->max > 0 ? 100 * gr->points / gr->max : 0;
        gr->level = lesson_level_name(gr->percent);
        for (size_t k = 0; s->student_id && k < nr; k++)
            if (strcmp(roster[k].student_id, s->student_id) == 0) {
                gr->name = dup0(roster[k].name);
                gr->email = dup0(roster[k].email);
                gr->section = dup0(roster[k].section);
                gr->login = dup0(roster[k].login);
            }
        if (nr && !gr->name && !gr->email && !gr->section && !gr->login)
            core_strlist_pushf(&out->warnings, "student %s (%s) is not on the roster", gr->key,
                               gr->user);
    }
out:
    lesson_class_progress_free(p, np);
    db_lessons_free(ls, nl);
    db_roster_free(roster, nr);
    if (rc != CORE_OK)
        lesson_gradebook_fini(out);
    return rc;
}

/* ---- CSV ---------------------------------------------------------------------------------- */

static void field(struct core_buf *b, const char *s, bool first)
{
    if (!first)
        core_buf_putc(b, ',');
    core_csv_field(b, s ? s : "", true); /* controls escaped visibly, formulas guarded */
}

static void num(struct core_buf *b, double v)
{
    core_buf_putc(b, ',');
    core_csv_num(b, v);
}

void lesson_gradebook_csv(const struct lesson_gradebook *gb, enum lesson_csv_format fmt,
                          struct core_buf *out)
{
    core_buf_puts(out, "\xEF\xBB\xBF"); /* UTF-8, said so for spreadsheets (Excel) */
    char head[600];
    if (fmt == LESSON_CSV_MOODLE) {
        core_buf_puts(out, "ID number,Email address,Username,Full name");
        for (size_t i = 0; i < gb->n_lessons; i++) {
            snprintf(head, sizeof head, "%s (%s:%s)", gb->lessons[i].title, gb->lessons[i].pack_id,
                     gb->lessons[i].lesson_id);
            field(out, head, false);
        }
        core_buf_puts(out, ",Total\r\n");
        for (size_t i = 0; i < gb->n_rows; i++) {
            const struct lesson_gb_row *r = &gb->rows[i];
            field(out, r->student_id, true);
            field(out, r->email, false);
            field(out, r->login ? r->login : r->user, false);
            field(out, r->name ? r->name : r->user, false);
            for (size_t k = 0; k < gb->n_lessons; k++)
                num(out, r->lessons[k]);
            num(out, r->points);
            core_buf_puts(out, "\r\n");
        }
        return;
    }
    /* Canvas: its identity columns in its order, an assignment per lesson,
     * then information it must not take for assignments. */
    core_buf_puts(out, "Student,ID,SIS User ID,SIS Login ID,Section");
    for (size_t i = 0; i < gb->n_lessons; i++) {
        snprintf(head, sizeof head, "%s (%s:%s) [/%g]", gb->lessons[i].title,
                 gb->lessons[i].pack_id, gb->lessons[i].lesson_id, gb->lessons[i].max);
        field(out, head, false);
    }
    core_buf_puts(out, ",Total,Flags,Design points pending review\r\n");
    core_buf_puts(out, "Points Possible,,,,");
    for (size_t i = 0; i < gb->n_lessons; i++)
        num(out, gb->lessons[i].max);
    core_buf_puts(out, ",(read only),(read only),(read only)\r\n");
    for (size_t i = 0; i < gb->n_rows; i++) {
        const struct lesson_gb_row *r = &gb->rows[i];
        field(out, r->name ? r->name : r->user, true);
        core_buf_putc(out, ','); /* ID: Canvas's own user id, unknown here */
        field(out, r->student_id, false);
        field(out, r->login ? r->login : r->user, false);
        field(out, r->section, false);
        for (size_t k = 0; k < gb->n_lessons; k++)
            num(out, r->lessons[k]);
        num(out, r->points);
        core_buf_printf(out, ",%d", r->n_flags);
        num(out, r->design_pending);
        core_buf_puts(out, "\r\n");
    }
}
