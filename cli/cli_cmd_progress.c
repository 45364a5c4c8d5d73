/* cli_cmd_progress.c — `warpbench progress [PACK]`: the student's standing
 * per lesson, per topic and per course rubric item. Scores are what each
 * question earns under its attempt policy (lesson_progress_load: the best
 * try times what that try could earn; a re-grade counts instead of its
 * original; nothing after a give-up; exam answers count once the exam is
 * submitted). Design answers' automatic points are also shown apart.
 * Then the course's 100-point rubric: the latest self-rating of each item
 * beside its graded score, the calibration gap, totals and levels, and the
 * lessons to study next. For packs with certainty-based marking the CBM
 * mark (from each question's first valid attempt) is shown beside the plain
 * score. The sums are lessons' (lesson_tallies_compute), as every front end
 * shows them. */
#include "cli/cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void print_section(const char *heading, const struct lesson_tally *v, size_t n)
{
    printf("\n%s\n", heading);
    for (size_t i = 0; i < n; i++) {
        const struct lesson_tally *t = &v[i];
        double pct = t->max > 0 ? 100.0 * t->score / t->max : 0;
        printf("  %-28s %3d/%-3d answered  %6.1f/%-6.1f %5.1f%%", cli_tx(t->name), t->answered,
               t->questions, t->score, t->max, pct);
        if (t->lost > 0.005)
            printf("  (%.1f lost to retries)", t->lost);
        if (t->pending)
            printf("  (%d not graded yet: an open exam, or graded work awaiting your "
                   "instructor)",
                   t->pending);
        if (t->cbm)
            printf("  CBM %+.1f/%g over %d answered", t->cbm_mark, t->cbm_max, t->cbm_answered);
        printf("\n");
    }
}

static void json_section(struct core_json *j, const char *key, const struct lesson_tally *v,
                         size_t n)
{
    core_json_key(j, key);
    core_json_arr_begin(j);
    for (size_t i = 0; i < n; i++) {
        const struct lesson_tally *t = &v[i];
        core_json_obj_begin(j);
        core_json_kstr(j, "name", t->name);
        core_json_kint(j, "questions", t->questions);
        core_json_kint(j, "answered", t->answered);
        core_json_knum(j, "score", t->score);
        core_json_knum(j, "max", t->max);
        core_json_knum(j, "lost_to_policy", t->lost);
        core_json_kint(j, "pending_exam", t->pending);
        if (t->cbm) {
            core_json_knum(j, "cbm_mark", t->cbm_mark);
            core_json_knum(j, "cbm_max", t->cbm_max);
            core_json_kint(j, "cbm_answered", t->cbm_answered);
        }
        core_json_obj_end(j);
    }
    core_json_arr_end(j);
}

static const char *lesson_title(const struct db_lesson *ls, size_t n, const char *pack,
                                const char *id)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(ls[i].pack_id, pack) == 0 && strcmp(ls[i].id, id) == 0)
            return ls[i].title;
    return NULL;
}

static void print_course(const struct lesson_standing *st, const struct db_lesson *ls, size_t nl)
{
    printf("\ncourse rubric (100 points): your self-rating beside your graded score\n"
           "(the gap compares the rating with the questions you answered: \"on answered\")\n");
    printf("  %-22s %7s %8s %9s %8s  %s\n", "item", "self", "graded", "answered", "on ans.", "gap");
    for (int i = 0; i < LESSON_RUBRIC_N; i++) {
        const struct lesson_item_standing *it = &st->items[i];
        char self[32], graded[32], ans[32];
        if (it->rated)
            snprintf(self, sizeof self, "%.1f/%g", it->self, it->item->max);
        else
            snprintf(self, sizeof self, "-");
        char on[32] = "-";
        snprintf(graded, sizeof graded, "%.1f/%g", it->graded, it->item->max);
        snprintf(ans, sizeof ans, "%d/%d", it->answered, it->questions);
        if (it->answered > 0)
            snprintf(on, sizeof on, "%.1f/%g", it->graded_answered, it->item->max);
        printf("  %-22s %7s %8s %9s %8s  ", it->item->id, self, graded, ans, on);
        if (!it->rated)
            printf("not rated\n");
        else if (it->questions == 0)
            printf("%+.1f (no questions evidence this item yet)\n", it->gap);
        else if (it->answered == 0)
            printf("%+.1f (nothing answered yet)\n", it->gap);
        else
            printf("%+.1f %s\n", it->gap, lesson_gap_word(it->gap, it->item->max));
    }
    char self_t[32], graded_t[32];
    if (st->n_rated > 0)
        snprintf(self_t, sizeof self_t, "%.1f/100", st->self_total);
    else
        snprintf(self_t, sizeof self_t, "-");
    snprintf(graded_t, sizeof graded_t, "%.1f/100", st->graded_total);
    printf("  %-22s %7s %8s\n", "total", self_t, graded_t);
    printf("\ngraded total: %.1f/100, level %s: %s\n", st->graded_total, st->graded_level,
           lesson_level_meaning(st->graded_total));
    if (st->self_level)
        printf("self-rated total: %.1f/100, level %s\n", st->self_total, st->self_level);
    else if (st->n_rated > 0)
        printf("self-rated so far: %.1f points over %d of %d items (rate every item for a "
               "level: warpbench selfassess)\n",
               st->self_total, st->n_rated, LESSON_RUBRIC_N);
    else
        printf("no self-assessment yet: rate yourself with warpbench selfassess\n");
    if (st->n_compared > 0) {
        double gap = st->self_compared - st->graded_compared;
        printf("calibration over the %d rated item%s you have answered questions on: self "
               "%.1f, graded %.1f, gap %+.1f: %s\n",
               st->n_compared, st->n_compared == 1 ? "" : "s", st->self_compared,
               st->graded_compared, gap, lesson_gap_word(gap, st->max_compared));
    }
    if (st->n_study == 0) {
        printf("\nstudy next: nothing left to earn in the questions tagged with rubric items\n");
        return;
    }
    printf("\nstudy next (where your answers lost points first, then the most rubric points "
           "still to earn):\n");
    for (size_t i = 0; i < st->n_study; i++) {
        const struct lesson_study *sd = &st->study[i];
        const char *title = lesson_title(ls, nl, sd->pack_id, sd->lesson_id);
        if (sd->lost > 0)
            printf("  %zu. %s:%s%s%s: your answers lost %.1f point%s on %d question%s%s "
                   "(warpbench mistakes)\n",
                   i + 1, cli_tx(sd->pack_id), cli_tx(sd->lesson_id), title ? " " : "",
                   title ? cli_tx(title) : "", sd->lost, fabs(sd->lost - 1) < 0.05 ? "" : "s",
                   sd->missed, sd->missed == 1 ? "" : "s", sd->exam ? " of the exam" : "");
        else
            printf("  %zu. %s:%s%s%s: %.1f point%s to earn, mostly %s (%s)\n", i + 1,
                   cli_tx(sd->pack_id), cli_tx(sd->lesson_id), title ? " " : "",
                   title ? cli_tx(title) : "", sd->unearned,
                   fabs(sd->unearned - 1) < 0.05 ? "" : "s", sd->item->id, sd->item->title);
    }
}

static void json_course(struct core_json *j, const struct lesson_standing *st,
                        const struct db_lesson *ls, size_t nl)
{
    core_json_key(j, "course");
    core_json_obj_begin(j);
    core_json_key(j, "items");
    core_json_arr_begin(j);
    for (int i = 0; i < LESSON_RUBRIC_N; i++) {
        const struct lesson_item_standing *it = &st->items[i];
        core_json_obj_begin(j);
        core_json_kstr(j, "item", it->item->id);
        core_json_kstr(j, "area", it->item->area);
        core_json_kstr(j, "title", it->item->title);
        core_json_knum(j, "max", it->item->max);
        core_json_kint(j, "questions", it->questions);
        core_json_kint(j, "answered", it->answered);
        core_json_knum(j, "graded", it->graded);
        core_json_knum(j, "graded_answered", it->graded_answered);
        core_json_knum_if(j, "self", it->rated, it->self);
        core_json_kstr(j, "rated_at", it->rated_at);
        core_json_knum_if(j, "gap", it->rated, it->gap);
        core_json_obj_end(j);
    }
    core_json_arr_end(j);
    core_json_knum(j, "graded_total", st->graded_total);
    core_json_kstr(j, "graded_level", st->graded_level);
    core_json_kint(j, "rated_items", st->n_rated);
    core_json_knum(j, "self_total", st->self_total);
    core_json_kstr(j, "self_level", st->self_level);
    core_json_kint(j, "compared_items", st->n_compared);
    core_json_knum_if(j, "calibration_gap", st->n_compared > 0,
                      st->self_compared - st->graded_compared);
    core_json_key(j, "study_next");
    core_json_arr_begin(j);
    for (size_t i = 0; i < st->n_study; i++) {
        core_json_obj_begin(j);
        core_json_kstr(j, "pack", st->study[i].pack_id);
        core_json_kstr(j, "lesson", st->study[i].lesson_id);
        core_json_kstr(j, "title",
                       lesson_title(ls, nl, st->study[i].pack_id, st->study[i].lesson_id));
        core_json_knum(j, "unearned", st->study[i].unearned);
        core_json_knum(j, "lost", st->study[i].lost);
        core_json_kint(j, "missed", st->study[i].missed);
        core_json_kstr(j, "item", st->study[i].item->id);
        core_json_obj_end(j);
    }
    core_json_arr_end(j);
    core_json_obj_end(j);
}

/* Questions the student gave up on (answered with help: attempts after the
 * give-up earn nothing) and design answers' self-scores beside the
 * automatic score. */
static void print_help(const struct db_progress_row *rows, size_t n,
                       const struct db_selfscore_row *ss, size_t n_ss)
{
    int gave = 0;
    for (size_t i = 0; i < n; i++)
        gave += rows[i].gave_up;
    if (gave) {
        printf("\ngave up on %d question%s (the solution was shown: answers before it keep "
               "what they earned, answers after it earn nothing):\n",
               gave, gave == 1 ? "" : "s");
        for (size_t i = 0; i < n; i++)
            if (rows[i].gave_up)
                printf("  %s:%s  (%s)\n", cli_tx(rows[i].pack_id), cli_tx(rows[i].question_id),
                       lesson_help_text(lesson_help_of(&rows[i])));
    }
    if (n_ss) {
        printf("\ndesign answers, your self-score beside the automatic score (latest):\n");
        for (size_t i = 0; i < n_ss; i++) {
            const struct db_selfscore_row *r = &ss[i];
            char id[160];
            snprintf(id, sizeof id, "%s:%s", r->pack_id, r->question_id);
            char a[32], b[32];
            lesson_score_format(r->self, a, sizeof a);
            lesson_score_format(r->self_max, b, sizeof b);
            printf("  %-30s self %s/%s (%.0f%%)", cli_tx(id), a, b,
                   r->self_max > 0 ? 100 * r->self / r->self_max : 0);
            lesson_score_format(r->score, a, sizeof a);
            lesson_score_format(r->max, b, sizeof b);
            if (r->valid)
                printf("  automatic %s/%s (%.0f%%)\n", a, b,
                       r->max > 0 ? 100 * r->score / r->max : 0);
            else
                printf("  automatic: not read\n");
        }
    }
}

/* Each answered question under its policy: tries used of allowed, what it
 * earns, what the policy took, closed, given up, waiting for an exam. */
static void print_tries(const struct db_progress_row *rows, size_t n)
{
    bool header = false;
    for (size_t i = 0; i < n; i++) {
        const struct db_progress_row *r = &rows[i];
        if (!r->answered && !r->gave_up)
            continue;
        if (!header)
            printf("\nquestions answered (tries used; the score under each question's policy):\n");
        header = true;
        struct lesson_tries t;
        lesson_progress_tries(r, &t);
        char id[160], sc[32], pts[32];
        snprintf(id, sizeof id, "%s:%s", r->pack_id, r->question_id);
        lesson_score_format(r->best, sc, sizeof sc);
        lesson_score_format(r->points, pts, sizeof pts);
        printf("  %-34s ", cli_tx(id));
        if (t.limit > 0)
            printf("%d/%d tries", t.used, t.limit);
        else
            printf("%d tr%s   ", t.used, t.used == 1 ? "y" : "ies");
        if (r->exam && !r->exam_over) {
            printf("  exam: graded when submitted\n");
            continue;
        }
        printf("  %s/%s", sc, pts);
        if (t.best_try > 1)
            printf("  (best on try %d)", t.best_try);
        if (t.closed && !t.solved)
            printf("  closed");
        if (t.gave_up)
            printf("  gave up: %s", lesson_help_text(lesson_help_of(r)));
        printf("\n");
    }
}

static void json_tries(struct core_json *j, const struct db_progress_row *rows, size_t n)
{
    core_json_key(j, "questions");
    core_json_arr_begin(j);
    for (size_t i = 0; i < n; i++) {
        const struct db_progress_row *r = &rows[i];
        if (!r->answered && !r->gave_up)
            continue;
        struct lesson_tries t;
        lesson_progress_tries(r, &t);
        bool pending =
            (r->exam && !r->exam_over) || (r->sealed && (!r->has_official || r->official_pending));
        core_json_obj_begin(j);
        core_json_kstr(j, "pack", r->pack_id);
        core_json_kstr(j, "question", r->question_id);
        core_json_kstr(j, "kind", r->kind);
        /* graded work: the instructor's official grade, or pending */
        core_json_kbool(j, "sealed", r->sealed);
        core_json_kbool(j, "official", r->has_official && !r->official_pending);
        core_json_kstr(j, "official_status", r->official_status);
        core_json_kint(j, "tries_used", t.used);
        core_json_kint_if(j, "tries_limit", t.limit > 0, t.limit);
        core_json_knum_if(j, "score", !pending, r->best);
        core_json_knum(j, "points", r->points);
        core_json_kint_if(j, "best_try", t.best_try > 0 && !pending, t.best_try);
        core_json_kbool(j, "closed", t.closed);
        core_json_kbool(j, "gave_up", t.gave_up);
        core_json_kbool(j, "pending_exam", r->exam && !r->exam_over);
        core_json_kbool(j, "pending", pending);
        core_json_obj_end(j);
    }
    core_json_arr_end(j);
}

static void json_help(struct core_json *j, const struct db_progress_row *rows, size_t n,
                      const struct db_selfscore_row *ss, size_t n_ss)
{
    core_json_key(j, "gave_up");
    core_json_arr_begin(j);
    for (size_t i = 0; i < n; i++) {
        if (!rows[i].gave_up)
            continue;
        core_json_obj_begin(j);
        core_json_kstr(j, "pack", rows[i].pack_id);
        core_json_kstr(j, "question", rows[i].question_id);
        core_json_kbool(j, "answered", rows[i].answered);
        enum lesson_help h = lesson_help_of(&rows[i]);
        core_json_kstr(j, "standing", lesson_help_name(h));
        core_json_kbool(j, "counts",
                        h == LESSON_HELP_RIGHT_BEFORE || h == LESSON_HELP_PARTLY_BEFORE);
        core_json_obj_end(j);
    }
    core_json_arr_end(j);
    core_json_key(j, "self_scores");
    core_json_arr_begin(j);
    for (size_t i = 0; i < n_ss; i++) {
        core_json_obj_begin(j);
        core_json_kstr(j, "pack", ss[i].pack_id);
        core_json_kstr(j, "question", ss[i].question_id);
        core_json_kint(j, "attempt", ss[i].attempt_id);
        core_json_knum(j, "self", ss[i].self);
        core_json_knum(j, "self_max", ss[i].self_max);
        core_json_knum_if(j, "score", ss[i].valid, ss[i].score);
        core_json_knum(j, "max", ss[i].max);
        core_json_obj_end(j);
    }
    core_json_arr_end(j);
}

int cli_cmd_progress(struct cli_ctx *cx, struct cli_args *a)
{
    int rc = cli_begin(cx, cli_command_find("progress"), a, 0, 1, CLI_NEED_SESSION);
    if (rc != 0)
        return rc;
    const char *pack = a->argc ? a->argv[0] : NULL;
    struct core_err e = {0};
    struct db_progress_row *rows = NULL;
    struct db_selfassess *self = NULL;
    struct db_lesson *ls = NULL;
    struct db_selfscore_row *ss = NULL;
    size_t n = 0, n_self = 0, nl = 0, n_ss = 0;
    int64_t uid = lesson_session_user_id(cx->session);
    if (pack) {
        struct db_pack p = {0};
        if (db_pack_get(cx->db, pack, &p, &e) != CORE_OK)
            return cli_fail(&e);
        db_pack_fini(&p);
    }
    if (lesson_progress_load(cx->db, uid, pack, &rows, &n, &e) != CORE_OK ||
        db_selfassess_latest(cx->db, uid, &self, &n_self, &e) != CORE_OK ||
        db_lesson_list(cx->db, pack, &ls, &nl, &e) != CORE_OK ||
        db_selfscore_summary(cx->db, uid, pack, &ss, &n_ss, &e) != CORE_OK) {
        rc = cli_fail(&e);
        goto out;
    }
    bool *cbm = lesson_progress_cbm(cx->session, rows, n);
    struct lesson_tallies t;
    lesson_tallies_compute(rows, n, cbm, &t);
    free(cbm);
    size_t n_total = n ? 1 : 0; /* no "total" line without questions */
    struct lesson_standing st;
    lesson_standing_compute(rows, n, self, n_self, &st);
    if (cx->json) {
        struct core_buf b;
        struct core_json j;
        cli_json_open(&b, &j);
        core_json_kstr(&j, "user", cx->user);
        json_section(&j, "total", &t.total, n_total);
        json_section(&j, "lessons", t.lessons.v, t.lessons.n);
        json_section(&j, "topics", t.topics.v, t.topics.n);
        json_section(&j, "rubric", t.rubric.v, t.rubric.n);
        json_section(&j, "kinds", t.kinds.v, t.kinds.n);
        json_course(&j, &st, ls, nl);
        json_help(&j, rows, n, ss, n_ss);
        json_tries(&j, rows, n);
        cli_reviews_print(cx, pack, &j);
        cli_officials_print(cx, pack, &j);
        cli_json_close(&b, &j);
    } else {
        printf("progress of %s\n", cli_tx(cx->user));
        print_section("lessons", t.lessons.v, t.lessons.n);
        print_section("topics", t.topics.v, t.topics.n);
        print_section("course rubric items", t.rubric.v, t.rubric.n);
        print_section("overall", &t.total, n_total);
        print_section("by how it is graded", t.kinds.v, t.kinds.n);
        print_course(&st, ls, nl);
        print_help(rows, n, ss, n_ss);
        print_tries(rows, n);
        cli_reviews_print(cx, pack, NULL);
        cli_officials_print(cx, pack, NULL);
    }
    lesson_standing_fini(&st);
    lesson_tallies_fini(&t);
    rc = CLI_EXIT_OK;
out:
    db_progress_free(rows, n);
    db_selfassess_free(self, n_self);
    db_lessons_free(ls, nl);
    db_selfscore_rows_free(ss, n_ss);
    return rc;
}
