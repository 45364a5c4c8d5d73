/*
 * lesson_internal.h — what the session's files share (lesson_session.c,
 * lesson_regrade.c, lesson_exam.c), and the name-list walk of the tallies
 * and the rubric roll-up. Never included from outside lessons/.
 */
#ifndef WB_LESSON_INTERNAL_H
#define WB_LESSON_INTERNAL_H

#include "lessons/lesson.h"

struct lesson_session {
    struct db *db;
    char *user;
    int64_t user_id;
    struct cached_pack *cache;
    size_t n_cache;
};

/* A lab-linked question's view of the student's run (ctx.lab): the stored
 * row, and its parameters and summary read into pairs the grader borrows.
 * Lives until lesson_link_fini, after the grader call. */
struct lesson_link {
    struct db_labrun row;
    struct core_kv *params, *summary;
    size_t n_params, n_summary;
    struct grader_kv *gparams, *gsummary;
    struct grader_lab_run run;
};
void lesson_link_fini(struct lesson_link *l);

/* Fills the grading context for user (user_id, user) at `variant`. For a
 * question linked to `lab` it loads the user's latest completed run of that
 * lab (the latest finished by `before`, an ISO time, when given: re-grading
 * uses the run the student answered from); with no such run ctx->lab stays
 * NULL and the question tells the student which lab to run. ctx->params_json
 * is NULL (draw). Free `link` with lesson_link_fini in every case. */
int lesson_ctx_make(struct lesson_session *s, int64_t user_id, const char *user, int variant,
                    const char *lab, const char *before, struct lesson_link *link,
                    struct grader_ctx *ctx, struct core_err *err);

/* Finds question qid and the grader of the pack revision it belongs to.
 * *q needs db_question_fini also after an error; *p is the session's. */
int lesson_question_and_pack(struct lesson_session *s, const char *qid, struct db_question *q,
                             struct grader_pack **p, struct core_err *err);

/* The user's standing on question pack_id:qid under policy p, from the
 * stored attempts and give-ups. */
int lesson_question_tries(struct lesson_session *s, const char *pack_id, const char *qid,
                          const struct grader_policy *p, struct lesson_tries *out,
                          struct core_err *err);

/* What a question's exam allows now: *open (started, not over) and *over
 * (submitted or out of time); both false for a question outside an exam or
 * an exam not started. */
int lesson_exam_state(struct lesson_session *s, const struct db_question *q, bool *open, bool *over,
                      struct core_err *err);

/* The grading user of sealed question q for this session's student:
 * lesson_sealed_user of the release's salt and the user's student id.
 * CORE_ERR_USAGE for a variant other than 1 (a sealed variant is fixed) or
 * a user without a student id. */
int lesson_sealed_ctx(struct lesson_session *s, struct grader_pack *p, const struct db_question *q,
                      int variant, char *user, size_t n, struct core_err *err);

/* Calls fn(name, len, arg) for each name of a comma-separated list (topics,
 * rubric items), spaces around names dropped, empty names skipped. */
void lesson_names_each(const char *list, void (*fn)(const char *name, size_t len, void *arg),
                       void *arg);

/* Grades answer to qid of pack gp (revision rev) for ctx, through cache c
 * (lesson_class_cache.c; NULL: directly): *out points at the result, held
 * by the cache or else in *own (caller finis *own in every case). Only for
 * questions whose grade cannot depend on the student (lesson.h). Errors
 * as grader_question_grade. */
int lesson_grade_cached(struct lesson_grade_cache *c, struct grader_pack *gp, int64_t rev,
                        const char *qid, const struct grader_ctx *ctx, const char *answer,
                        const struct grader_result **out, struct grader_result *own,
                        struct core_err *err);

/* ---- the integrity checks of a class import (lesson_class_checks.c) ---- */

/* A submitted pack as the checks see it. */
struct lesson_checks_pack {
    const char *pack_id;
    const struct grader_pack *src; /* the source of a pack handed out as releases; NULL: not
                                      graded work */
};

/* Receives a finding: its kind, what it is about (pack, lesson, question,
 * the attempt's id in the student's store; NULL/0 for none) and the reason
 * (handed over: the receiver frees it). */
typedef void (*lesson_finding_fn)(void *ctx, enum lesson_flag_kind kind, const char *pack_id,
                                  const char *lesson_id, const char *question_id, int64_t attempt,
                                  char *reason);

/* Runs the integrity checks of graded work on submission s (see the file's
 * comment): released_at[i] (may be NULL) is when the release attempt i
 * names was made (NULL: none known); run_problems[i] (may be NULL) is what
 * the plausibility checks found in s->runs[i]; now the import's clock. */
void lesson_class_checks(const struct db_submission *s, const struct lesson_checks_pack *packs,
                         size_t n_packs, const char *const *released_at,
                         const char *const *run_problems, double now, lesson_finding_fn fn,
                         void *ctx);

#endif /* WB_LESSON_INTERNAL_H */
