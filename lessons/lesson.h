/*
 * lesson.h — lesson packs as the rest of Warpbench sees them: reading a pack
 * folder, checking it (format + self-tests), importing it into the store with
 * its sources, exporting the stored sources byte for byte, the built-in pack,
 * and a study session that renders and grades questions for one user and
 * records every attempt.
 *
 * Invariants: graders always run from the sources stored in the database
 * (the revision a question belongs to), never from a working folder, so a
 * grade can be reproduced later. An attempt is committed before
 * lesson_answer() returns.
 *
 * Uses core, db (the store) and grader (the Lua sandbox and pack model).
 */
#ifndef WB_LESSON_H
#define WB_LESSON_H

#include "core/core.h"
#include "db/db.h"
#include "grader/grader.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- pack folders -------------------------------------------------------- */

/* A pack's files as read from a folder. Owns everything it points to. */
struct lesson_src {
    struct grader_file *files; /* path relative to the folder, '/'-separated */
    size_t n;
};

/* Reads every regular file below `dir` (hidden files and folders and
 * symbolic links skipped, sorted by path; at most 512 files of at most
 * 4 MiB each). A folder without
 * pack.lua is CORE_ERR_INVALID. Caller frees with lesson_src_fini(). */
int lesson_src_read(const char *dir, struct lesson_src *out, struct core_err *err);

/* Wraps the built-in pack compiled into the binary (borrowed data). */
void lesson_src_builtin(struct lesson_src *out);
void lesson_src_fini(struct lesson_src *src);

/* The outcome of checking a pack. */
struct lesson_check {
    struct core_strlist problems; /* "file:line: message", in the order found */
    char *pack_id;                /* NULL when pack.lua could not be read */
    char *version;
    size_t n_lessons;
    size_t n_pages;
    size_t n_questions;
    size_t n_checks;              /* self-test checks run */
};
void lesson_check_fini(struct lesson_check *c);

/* Loads `src` in the sandbox, validates it and runs every question's
 * reference answer and examples. Returns 0 when there are no problems,
 * CORE_ERR_INVALID when there are (listed in out->problems; err has the
 * first). With `pack` non-NULL, a successfully loaded pack handle is handed
 * over (caller frees with grader_pack_free), else freed. */
int lesson_pack_check(const struct lesson_src *src, struct lesson_check *out,
                      struct grader_pack **pack, struct core_err *err);

/* Checks then imports `src` (sources, lessons, pages, questions) in one
 * transaction. A pack with problems is refused (CORE_ERR_INVALID, details in
 * `check` when given). See db_pack_import for versions and `force`. */
int lesson_pack_import(struct db *db, const struct lesson_src *src, bool force,
                       struct lesson_check *check, enum db_import_result *result,
                       struct core_err *err);

/* Writes the stored sources of pack `pack_id` (current revision) into `dir`,
 * creating it; refuses (CORE_ERR_CONFLICT) to overwrite an existing file. */
int lesson_pack_export(struct db *db, const char *pack_id, const char *dir, struct core_err *err);

/* Imports the built-in pack when the store lacks it or holds other content
 * (a newer binary). *result (optional) says what happened. */
int lesson_builtin_ensure(struct db *db, enum db_import_result *result, struct core_err *err);

/* ---- study session ------------------------------------------------------- */

struct lesson_session;

/* Opens a session for `user` (created when new) on an open store. Keeps a
 * cache of loaded pack revisions. Caller frees with lesson_session_free();
 * the store stays the caller's. */
int lesson_session_new(struct lesson_session **out, struct db *db, const char *user,
                       struct core_err *err);
void lesson_session_free(struct lesson_session *s);
int64_t lesson_session_user_id(const struct lesson_session *s);

/* A question shown to this user. */
struct lesson_question_view {
    struct db_question q;  /* the stored question row */
    struct grader_view v;  /* prompt with numbers, choices, hints, unit */
    int variant;
};
void lesson_question_view_fini(struct lesson_question_view *v);

/* Renders question `qid` ("pack:id" or a bare id) at `variant` (1-based). */
int lesson_question_show(struct lesson_session *s, const char *qid, int variant,
                         struct lesson_question_view *out, struct core_err *err);

/* The outcome of answering. */
struct lesson_answer_result {
    struct grader_result r;
    char *pack_id;
    char *question_id;
    int variant;
    int64_t attempt_id; /* the stored attempt */
    int attempt_no;     /* how many valid attempts the user has made at it, this one included */
};
void lesson_answer_result_fini(struct lesson_answer_result *a);

/* Grades `answer` and appends the attempt (valid or not) to the store,
 * committed before returning. Errors: CORE_ERR_NOTFOUND (question),
 * CORE_ERR_SCRIPT/LIMIT (the grader is broken: nothing recorded),
 * CORE_ERR_STORE. */
int lesson_answer(struct lesson_session *s, const char *qid, int variant, const char *answer,
                  struct lesson_answer_result *out, struct core_err *err);

/* Re-grades every stored attempt of `pack_id` with its current revision and
 * appends the new grades as re-grade attempts in one transaction.
 * *n_done (optional) receives how many were re-graded. */
int lesson_regrade(struct lesson_session *s, const char *pack_id, size_t *n_done,
                   struct core_err *err);

/* The loaded (cached) pack for revision rev_id. Borrowed; valid until the
 * session is freed. */
int lesson_session_pack(struct lesson_session *s, int64_t rev_id, struct grader_pack **out,
                        struct core_err *err);

#endif /* WB_LESSON_H */
