/*
 * db_lesson.c — reading the lessons, pages and questions of the current
 * pack revisions.
 */
#include "db/db_internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- existence checks (for CORE_ERR_NOTFOUND on an empty answer) -------- */

static const char sql_pack_known[] = "SELECT 1 FROM packs WHERE id = ?1";
static const char sql_lesson_known[] = "SELECT 1 FROM lessons WHERE pack_id = ?1 AND id = ?2";

/* 0 when the pack (and, when lesson_id is not NULL, its lesson) exists,
 * CORE_ERR_NOTFOUND naming what is missing otherwise. */
static int check_known(struct db *db, const char *pack_id, const char *lesson_id,
                       struct core_err *err)
{
    sqlite3_stmt *st;
    int rc = db_stmt(db, sql_pack_known, &st, err);
    if (rc)
        return rc;
    int src = db_bindf(st, "t", pack_id);
    if (src == SQLITE_OK)
        src = sqlite3_step(st);
    if (src == SQLITE_DONE)
        rc = core_err_set(err, CORE_ERR_NOTFOUND, "no pack '%s'", pack_id);
    else if (src != SQLITE_ROW)
        rc = db_fail(db, err, src, "looking up pack %s", pack_id);
    db_stmt_done(st);
    if (rc || !lesson_id)
        return rc;
    rc = db_stmt(db, sql_lesson_known, &st, err);
    if (rc)
        return rc;
    src = db_bindf(st, "tt", pack_id, lesson_id);
    if (src == SQLITE_OK)
        src = sqlite3_step(st);
    if (src == SQLITE_DONE)
        rc =
            core_err_set(err, CORE_ERR_NOTFOUND, "no lesson '%s' in pack '%s'", lesson_id, pack_id);
    else if (src != SQLITE_ROW)
        rc = db_fail(db, err, src, "looking up lesson %s:%s", pack_id, lesson_id);
    db_stmt_done(st);
    return rc;
}

/* ---- lessons ------------------------------------------------------------- */

static const char sql_lessons[] =
    "SELECT l.pack_id, l.id, l.title, l.ordinal, "
    "  (SELECT count(*) FROM pages p WHERE p.pack_id = l.pack_id AND p.lesson_id = l.id), "
    "  (SELECT count(*) FROM questions q WHERE q.pack_id = l.pack_id AND q.lesson_id = l.id), "
    "  l.exam, l.time_limit_s, l.graded, l.sealed "
    "FROM lessons l WHERE ?1 IS NULL OR l.pack_id = ?1 ORDER BY l.pack_id, l.ordinal";

void db_lessons_free(struct db_lesson *l, size_t n)
{
    if (!l)
        return;
    for (size_t i = 0; i < n; i++) {
        free(l[i].pack_id);
        free(l[i].id);
        free(l[i].title);
    }
    free(l);
}

static void lesson_row(sqlite3_stmt *st, void *elem)
{
    struct db_lesson *l = elem;
    l->pack_id = db_col_dup(st, 0);
    l->id = db_col_dup(st, 1);
    l->title = db_col_dup(st, 2);
    l->ordinal = sqlite3_column_int(st, 3);
    l->n_pages = sqlite3_column_int(st, 4);
    l->n_questions = sqlite3_column_int(st, 5);
    l->exam = sqlite3_column_int(st, 6) != 0;
    l->time_limit_s = sqlite3_column_int(st, 7);
    l->graded = sqlite3_column_int(st, 8) != 0;
    l->sealed = sqlite3_column_int(st, 9) != 0;
}

static void lessons_free_rows(void *l, size_t n)
{
    db_lessons_free(l, n);
}

int db_lesson_list(struct db *db, const char *pack_id, struct db_lesson **out, size_t *n,
                   struct core_err *err)
{
    *out = NULL;
    *n = 0;
    int rc = pack_id ? check_known(db, pack_id, NULL, err) : 0;
    if (rc)
        return rc;
    void *rows;
    rc = db_list(db, sql_lessons, sizeof **out, lesson_row, lessons_free_rows, &rows, n,
                 "listing lessons", err, "t", pack_id);
    *out = rows;
    return rc;
}

/* ---- pages --------------------------------------------------------------- */

static const char sql_pages[] = "SELECT ordinal, title, markdown FROM pages "
                                "WHERE pack_id = ?1 AND lesson_id = ?2 ORDER BY ordinal";

void db_pages_free(struct db_page *p, size_t n)
{
    if (!p)
        return;
    for (size_t i = 0; i < n; i++) {
        free(p[i].title);
        free(p[i].markdown);
    }
    free(p);
}

static void page_row(sqlite3_stmt *st, void *elem)
{
    struct db_page *p = elem;
    p->ordinal = sqlite3_column_int(st, 0);
    p->title = db_col_dup(st, 1);
    p->markdown = db_col_dup(st, 2);
}

static void pages_free_rows(void *p, size_t n)
{
    db_pages_free(p, n);
}

int db_page_list(struct db *db, const char *pack_id, const char *lesson_id, struct db_page **out,
                 size_t *n, struct core_err *err)
{
    *out = NULL;
    *n = 0;
    if (!pack_id || !lesson_id)
        return core_err_set(err, CORE_ERR_NOTFOUND, "no lesson given");
    int rc = check_known(db, pack_id, lesson_id, err);
    if (rc)
        return rc;
    sqlite3_stmt *st;
    rc = db_stmt(db, sql_pages, &st, err);
    if (rc)
        return rc;
    void *rows;
    rc = db_rows_read(db, st, db_bindf(st, "tt", pack_id, lesson_id), sizeof **out, page_row,
                      pages_free_rows, &rows, n, err, "listing the pages of %s:%s", pack_id,
                      lesson_id);
    *out = rows;
    return rc;
}

/* ---- questions ----------------------------------------------------------- */

#define QUESTION_COLUMNS                                                                           \
    "SELECT q.pack_id, q.id, q.lesson_id, q.ordinal, q.kind, q.title, q.prompt, q.points, "        \
    "q.topics, q.rubric, q.lab, q.file, q.line, q.page_after, p.rev_id, q.tries, q.penalty, "      \
    "q.per_try, l.exam, l.time_limit_s, l.graded, l.sealed "                                       \
    "FROM questions q JOIN lessons l ON l.pack_id = q.pack_id AND l.id = q.lesson_id "             \
    "JOIN packs p ON p.id = q.pack_id "

static const char sql_questions[] =
    QUESTION_COLUMNS "WHERE (?1 IS NULL OR q.pack_id = ?1) AND (?2 IS NULL OR q.lesson_id = ?2) "
                     "ORDER BY q.pack_id, l.ordinal, q.ordinal";
static const char sql_question_find[] =
    QUESTION_COLUMNS "WHERE q.id = ?2 AND (?1 IS NULL OR q.pack_id = ?1) ORDER BY q.pack_id";

static void question_read(sqlite3_stmt *st, struct db_question *q)
{
    q->pack_id = db_col_dup(st, 0);
    q->id = db_col_dup(st, 1);
    q->lesson_id = db_col_dup(st, 2);
    q->ordinal = sqlite3_column_int(st, 3);
    q->kind = db_col_dup(st, 4);
    q->title = db_col_dup(st, 5);
    q->prompt = db_col_dup(st, 6);
    q->points = sqlite3_column_double(st, 7);
    q->topics = db_col_dup(st, 8);
    q->rubric = db_col_dup(st, 9);
    q->lab = db_col_dup(st, 10);
    q->file = db_col_dup(st, 11);
    q->line = sqlite3_column_int(st, 12);
    q->page_after = sqlite3_column_int(st, 13);
    q->rev_id = sqlite3_column_int64(st, 14);
    q->tries = sqlite3_column_int(st, 15);
    q->penalty = sqlite3_column_double(st, 16);
    q->per_try = db_col_dup(st, 17);
    q->exam = sqlite3_column_int(st, 18) != 0;
    q->time_limit_s = sqlite3_column_int(st, 19);
    q->graded = sqlite3_column_int(st, 20) != 0;
    q->sealed = sqlite3_column_int(st, 21) != 0;
}

void db_question_fini(struct db_question *q)
{
    if (!q)
        return;
    free(q->pack_id);
    free(q->id);
    free(q->lesson_id);
    free(q->kind);
    free(q->title);
    free(q->prompt);
    free(q->topics);
    free(q->rubric);
    free(q->lab);
    free(q->file);
    free(q->per_try);
    memset(q, 0, sizeof *q);
}

void db_questions_free(struct db_question *q, size_t n)
{
    if (!q)
        return;
    for (size_t i = 0; i < n; i++)
        db_question_fini(&q[i]);
    free(q);
}

static void question_row(sqlite3_stmt *st, void *q)
{
    question_read(st, q);
}

static void questions_free_rows(void *q, size_t n)
{
    db_questions_free(q, n);
}

int db_question_list(struct db *db, const char *pack_id, const char *lesson_id,
                     struct db_question **out, size_t *n, struct core_err *err)
{
    *out = NULL;
    *n = 0;
    int rc = 0;
    if (pack_id)
        rc = check_known(db, pack_id, lesson_id, err);
    if (rc)
        return rc;
    void *rows;
    rc = db_list(db, sql_questions, sizeof **out, question_row, questions_free_rows, &rows, n,
                 "listing questions", err, "tt", pack_id, lesson_id);
    *out = rows;
    return rc;
}

int db_question_find(struct db *db, const char *qid, struct db_question *out, struct core_err *err)
{
    memset(out, 0, sizeof *out);
    if (!qid || !*qid)
        return core_err_set(err, CORE_ERR_NOTFOUND, "no question id given");
    char *pack = NULL;
    const char *id = qid;
    const char *colon = strchr(qid, ':');
    if (colon) {
        pack = core_xstrndup(qid, (size_t)(colon - qid));
        id = colon + 1;
        if (!*pack || !*id || strchr(id, ':')) {
            free(pack);
            return core_err_set(err, CORE_ERR_NOTFOUND,
                                "no question '%s' (write PACK:QUESTION or QUESTION)", qid);
        }
    }
    sqlite3_stmt *st;
    int rc = db_stmt(db, sql_question_find, &st, err);
    if (rc) {
        free(pack);
        return rc;
    }
    int src = db_bindf(st, "tt", pack, id);
    if (src == SQLITE_OK)
        src = sqlite3_step(st);
    if (src == SQLITE_ROW) {
        question_read(st, out);
        src = sqlite3_step(st);
        if (src == SQLITE_ROW) {
            /* The same bare id in several packs: name them all. */
            struct core_buf packs;
            core_buf_init(&packs);
            core_buf_puts(&packs, out->pack_id);
            do {
                core_buf_puts(&packs, ", ");
                core_buf_puts(&packs, db_col_text(st, 0));
            } while ((src = sqlite3_step(st)) == SQLITE_ROW);
            rc = core_err_set(err, CORE_ERR_USAGE,
                              "question id '%s' is in several packs (%s); write PACK:%s", id,
                              packs.data, id);
            core_buf_fini(&packs);
            db_question_fini(out);
        } else if (src != SQLITE_DONE) {
            rc = db_fail(db, err, src, "looking up question %s", qid);
            db_question_fini(out);
        }
    } else if (src == SQLITE_DONE) {
        if (pack)
            rc = core_err_set(err, CORE_ERR_NOTFOUND, "no question '%s' in pack '%s'", id, pack);
        else
            rc = core_err_set(err, CORE_ERR_NOTFOUND, "no question '%s'", id);
    } else {
        rc = db_fail(db, err, src, "looking up question %s", qid);
    }
    db_stmt_done(st);
    free(pack);
    return rc;
}
