/*
 * db_pack.c — importing packs (revisions, source files, and the lessons,
 * pages and questions they declare), listing them, and reading a revision's
 * files back byte for byte.
 */
#include "db/db_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- validation ---------------------------------------------------------- */

static bool empty(const char *s)
{
    return !s || !*s;
}

/* A pack file path is relative, '/'-separated, without empty, "." or ".."
 * components: export writes it under a folder and must not escape it. */
static bool path_ok(const char *p)
{
    if (empty(p) || p[0] == '/' || strchr(p, '\\'))
        return false;
    const char *s = p;
    for (;;) {
        const char *e = strchr(s, '/');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (n == 0 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
            return false;
        if (!e)
            return true;
        s = e + 1;
    }
}

static int validate(const struct db_pack_in *in, struct core_err *err)
{
    /* ':' separates a pack id from a question id in a qualified id. */
    if (empty(in->id) || strchr(in->id, ':'))
        return core_err_set(err, CORE_ERR_INVALID, "a pack id must be non-empty without ':'");
    if (empty(in->version) || !in->title)
        return core_err_set(err, CORE_ERR_INVALID, "pack %s: a version and a title are required",
                            in->id);
    if ((in->n_files && !in->files) || (in->n_lessons && !in->lessons) ||
        (in->n_pages && !in->pages) || (in->n_questions && !in->questions))
        return core_err_set(err, CORE_ERR_INTERNAL, "pack %s: an array is NULL with a count",
                            in->id);
    for (size_t i = 0; i < in->n_files; i++) {
        const struct db_file_in *f = &in->files[i];
        if (!path_ok(f->path))
            return core_err_set(err, CORE_ERR_INVALID,
                                "pack %s: file path '%s' is not a relative path inside the pack",
                                in->id, f->path ? f->path : "(null)");
        if (!f->data && f->len)
            return core_err_set(err, CORE_ERR_INTERNAL, "pack %s: file %s has no data", in->id,
                                f->path);
    }
    for (size_t i = 0; i < in->n_lessons; i++) {
        const struct db_lesson_in *l = &in->lessons[i];
        if (empty(l->id) || !l->title)
            return core_err_set(err, CORE_ERR_INVALID,
                                "pack %s: lesson %zu needs an id and a title", in->id, i + 1);
    }
    for (size_t i = 0; i < in->n_pages; i++) {
        const struct db_page_in *p = &in->pages[i];
        if (empty(p->lesson_id) || !p->markdown)
            return core_err_set(err, CORE_ERR_INVALID,
                                "pack %s: page %zu needs a lesson and its text", in->id, i + 1);
    }
    for (size_t i = 0; i < in->n_questions; i++) {
        const struct db_question_in *q = &in->questions[i];
        if (empty(q->id) || strchr(q->id, ':'))
            return core_err_set(err, CORE_ERR_INVALID,
                                "pack %s: question %zu needs an id without ':'", in->id, i + 1);
        if (empty(q->lesson_id) || empty(q->kind) || !q->prompt)
            return core_err_set(err, CORE_ERR_INVALID,
                                "pack %s: question %s needs a lesson, a kind and a prompt", in->id,
                                q->id);
        if (!isfinite(q->points) || q->points < 0)
            return core_err_set(err, CORE_ERR_INVALID, "pack %s: question %s has points %g", in->id,
                                q->id, q->points);
        if (q->page_after < -1)
            return core_err_set(err, CORE_ERR_INVALID, "pack %s: question %s has page_after %d",
                                in->id, q->id, q->page_after);
    }
    return 0;
}

/* ---- duplicates ---------------------------------------------------------- */

static int file_cmp(const void *a, const void *b)
{
    const struct db_file_in *fa = *(const struct db_file_in *const *)a;
    const struct db_file_in *fb = *(const struct db_file_in *const *)b;
    return strcmp(fa->path, fb->path);
}

/* ---- import -------------------------------------------------------------- */

static const char sql_current[] =
    "SELECT r.id, r.digest FROM packs p JOIN pack_revs r ON r.id = p.rev_id WHERE p.id = ?1";
static const char sql_pack_exists[] = "SELECT 1 FROM packs WHERE id = ?1";
static const char sql_version_taken[] =
    "SELECT 1 FROM pack_revs WHERE pack_id = ?1 AND version = ?2 AND digest <> ?3 LIMIT 1";
static const char sql_digest_seen[] =
    "SELECT version FROM pack_revs WHERE pack_id = ?1 AND digest = ?2 ORDER BY id DESC LIMIT 1";
static const char sql_pack_add[] =
    "INSERT INTO packs(id, rev_id, created_at) VALUES (?1, NULL, ?2)";
static const char sql_rev_add[] =
    "INSERT INTO pack_revs(pack_id, version, digest, title, description, imported_at) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6)";
static const char sql_file_add[] =
    "INSERT INTO pack_files(rev_id, path, content, sha256) VALUES (?1, ?2, ?3, ?4)";
static const char sql_pack_point[] = "UPDATE packs SET rev_id = ?2 WHERE id = ?1";
static const char sql_questions_drop[] = "DELETE FROM questions WHERE pack_id = ?1";
static const char sql_pages_drop[] = "DELETE FROM pages WHERE pack_id = ?1";
static const char sql_lessons_drop[] = "DELETE FROM lessons WHERE pack_id = ?1";
static const char sql_lesson_add[] =
    "INSERT INTO lessons(pack_id, id, ordinal, title, file, exam, time_limit_s, graded, sealed) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)";
/* Pages and questions are inserted in array order into a pack emptied
 * first, so the lesson's highest ordinal so far, plus one, is the 0-based
 * ordinal. (max() is one index lookup; count(*) would walk the lesson's
 * rows and make importing a lesson of n questions cost n².) */
static const char sql_page_add[] =
    "INSERT INTO pages(pack_id, lesson_id, ordinal, title, markdown) VALUES (?1, ?2, "
    "coalesce((SELECT max(ordinal) FROM pages WHERE pack_id = ?1 AND lesson_id = ?2), -1) + 1, "
    "?3, ?4)";
static const char sql_question_add[] =
    "INSERT INTO questions(pack_id, id, lesson_id, ordinal, kind, title, prompt, points, topics, "
    "rubric, lab, file, line, page_after, tries, penalty, per_try) VALUES (?1, ?2, ?3, "
    "coalesce((SELECT max(ordinal) FROM questions WHERE pack_id = ?1 AND lesson_id = ?3), -1) "
    "+ 1, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)";
static const char sql_page_after_bad[] =
    "SELECT q.id, q.page_after, q.lesson_id, "
    "  (SELECT count(*) FROM pages p WHERE p.pack_id = q.pack_id AND p.lesson_id = q.lesson_id) "
    "  AS n FROM questions q WHERE q.pack_id = ?1 AND q.page_after >= "
    "  (SELECT count(*) FROM pages p WHERE p.pack_id = q.pack_id AND p.lesson_id = q.lesson_id) "
    "ORDER BY q.lesson_id, q.ordinal LIMIT 1";

/* Runs a one-parameter (pack id) statement, for the deletes. */
static int run_on_pack(struct db *db, const char *sql, const char *pack_id, const char *what,
                       struct core_err *err)
{
    sqlite3_stmt *st;
    int rc = db_stmt(db, sql, &st, err);
    if (rc)
        return rc;
    return db_step_done(db, st, db_bindf(st, "t", pack_id), what, err);
}

/* Looks the pack up: *exists, and its current revision and digest when it
 * has one (cur_rev 0 otherwise). */
static int current_rev(struct db *db, const char *id, bool *exists, int64_t *cur_rev,
                       char cur_digest[65], struct core_err *err)
{
    sqlite3_stmt *st;
    *exists = false;
    *cur_rev = 0;
    cur_digest[0] = '\0';
    int rc = db_stmt(db, sql_current, &st, err);
    if (rc)
        return rc;
    int src = db_bindf(st, "t", id);
    if (src == SQLITE_OK)
        src = sqlite3_step(st);
    if (src == SQLITE_ROW) {
        *exists = true;
        *cur_rev = sqlite3_column_int64(st, 0);
        const char *d = db_col_text(st, 1);
        snprintf(cur_digest, 65, "%s", d ? d : "");
    } else if (src != SQLITE_DONE) {
        rc = db_fail(db, err, src, "looking up pack %s", id);
    }
    db_stmt_done(st);
    if (rc || *exists)
        return rc;
    rc = db_stmt(db, sql_pack_exists, &st, err);
    if (rc)
        return rc;
    src = db_bindf(st, "t", id);
    if (src == SQLITE_OK)
        src = sqlite3_step(st);
    if (src == SQLITE_ROW)
        *exists = true;
    else if (src != SQLITE_DONE)
        rc = db_fail(db, err, src, "looking up pack %s", id);
    db_stmt_done(st);
    return rc;
}

/* An earlier revision with exactly this content: *version gets its version
 * (caller frees), NULL when there is none. */
static int digest_seen(struct db *db, const char *pack_id, const char *digest, char **version,
                       struct core_err *err)
{
    sqlite3_stmt *st;
    *version = NULL;
    int rc = db_stmt(db, sql_digest_seen, &st, err);
    if (rc)
        return rc;
    int src = db_bindf(st, "tt", pack_id, digest);
    if (src == SQLITE_OK)
        src = sqlite3_step(st);
    if (src == SQLITE_ROW)
        *version = db_col_dup(st, 0);
    else if (src != SQLITE_DONE)
        rc = db_fail(db, err, src, "looking up earlier revisions of pack %s", pack_id);
    db_stmt_done(st);
    return rc;
}

static int version_taken(struct db *db, const struct db_pack_in *in, const char *digest,
                         bool *taken, struct core_err *err)
{
    sqlite3_stmt *st;
    *taken = false;
    int rc = db_stmt(db, sql_version_taken, &st, err);
    if (rc)
        return rc;
    int src = db_bindf(st, "ttt", in->id, in->version, digest);
    if (src == SQLITE_OK)
        src = sqlite3_step(st);
    if (src == SQLITE_ROW)
        *taken = true;
    else if (src != SQLITE_DONE)
        rc = db_fail(db, err, src, "checking pack %s version %s", in->id, in->version);
    db_stmt_done(st);
    return rc;
}

static int store_revision(struct db *db, const struct db_pack_in *in, bool exists,
                          const char *digest, const struct db_file_in *const *sorted, int64_t *rev,
                          struct core_err *err)
{
    sqlite3_stmt *st;
    char now[32];
    db_now(now);
    int rc;
    if (!exists) {
        rc = db_stmt(db, sql_pack_add, &st, err);
        if (!rc)
            rc = db_step_done(db, st, db_bindf(st, "tt", in->id, now), "adding a pack", err);
        if (rc)
            return rc;
    }
    rc = db_stmt(db, sql_rev_add, &st, err);
    if (!rc)
        rc = db_step_done(
            db, st,
            db_bindf(st, "tttttt", in->id, in->version, digest, in->title, in->description, now),
            "adding a pack revision", err);
    if (rc)
        return rc;
    *rev = sqlite3_last_insert_rowid(db->h);

    for (size_t i = 0; i < in->n_files; i++) {
        const struct db_file_in *f = sorted[i];
        char sha[65];
        core_sha256_hex(f->data ? f->data : "", f->len, sha);
        rc = db_stmt(db, sql_file_add, &st, err);
        if (rc)
            return rc;
        rc = db_step_done(db, st, db_bindf(st, "Itbt", *rev, f->path, f->data, f->len, sha),
                          "storing a pack file", err);
        if (rc) {
            core_err_prefix(err, "file %s", f->path);
            return rc;
        }
    }
    rc = db_stmt(db, sql_pack_point, &st, err);
    if (!rc)
        rc = db_step_done(db, st, db_bindf(st, "tI", in->id, *rev),
                          "pointing a pack at its revision", err);
    return rc;
}

static int store_content(struct db *db, const struct db_pack_in *in, struct core_err *err)
{
    /* Children first: the foreign keys are checked statement by statement. */
    int rc = run_on_pack(db, sql_questions_drop, in->id, "removing old questions", err);
    if (!rc)
        rc = run_on_pack(db, sql_pages_drop, in->id, "removing old pages", err);
    if (!rc)
        rc = run_on_pack(db, sql_lessons_drop, in->id, "removing old lessons", err);
    if (rc)
        return rc;

    sqlite3_stmt *st;
    for (size_t i = 0; i < in->n_lessons; i++) {
        const struct db_lesson_in *l = &in->lessons[i];
        rc = db_stmt(db, sql_lesson_add, &st, err);
        if (rc)
            return rc;
        rc = db_step_done(db, st,
                          db_bindf(st, "ttittiiii", in->id, l->id, (int)i, l->title, l->file,
                                   l->exam ? 1 : 0, l->time_limit_s, l->graded ? 1 : 0,
                                   l->sealed ? 1 : 0),
                          "adding a lesson", err);
        if (rc) {
            core_err_prefix(err, "lesson %s", l->id);
            return rc;
        }
    }
    for (size_t i = 0; i < in->n_pages; i++) {
        const struct db_page_in *p = &in->pages[i];
        rc = db_stmt(db, sql_page_add, &st, err);
        if (rc)
            return rc;
        rc = db_step_done(db, st, db_bindf(st, "tttt", in->id, p->lesson_id, p->title, p->markdown),
                          "adding a page", err);
        if (rc) {
            core_err_prefix(err, "page %zu (lesson %s)", i + 1, p->lesson_id);
            return rc;
        }
    }
    for (size_t i = 0; i < in->n_questions; i++) {
        const struct db_question_in *q = &in->questions[i];
        rc = db_stmt(db, sql_question_add, &st, err);
        if (rc)
            return rc;
        rc = db_step_done(db, st,
                          db_bindf(st, "ttttttdttttiiidt", in->id, q->id, q->lesson_id, q->kind,
                                   q->title, q->prompt, q->points, q->topics ? q->topics : "",
                                   q->rubric ? q->rubric : "", q->lab, q->file, q->line,
                                   q->page_after, q->tries, q->penalty, q->per_try),
                          "adding a question", err);
        if (rc) {
            core_err_prefix(err, "question %s", q->id);
            return rc;
        }
    }

    rc = db_stmt(db, sql_page_after_bad, &st, err);
    if (rc)
        return rc;
    int src = db_bindf(st, "t", in->id);
    if (src == SQLITE_OK)
        src = sqlite3_step(st);
    if (src == SQLITE_ROW)
        rc = core_err_set(err, CORE_ERR_INVALID,
                          "question %s follows page %d but lesson %s has %d page(s)",
                          db_col_text(st, 0), sqlite3_column_int(st, 1) + 1, db_col_text(st, 2),
                          sqlite3_column_int(st, 3));
    else if (src != SQLITE_DONE)
        rc = db_fail(db, err, src, "checking question positions");
    db_stmt_done(st);
    return rc;
}

int db_pack_import(struct db *db, const struct db_pack_in *in, bool force,
                   enum db_import_result *result, int64_t *rev_id, struct core_err *err)
{
    const struct db_file_in **sorted = NULL;
    bool in_tx = false, storing = false;
    enum db_import_result res = DB_IMPORT_NEW;
    int64_t rev = 0;
    char digest[65];

    int rc = validate(in, err);
    if (rc)
        goto out;
    sorted = core_xcalloc(in->n_files ? in->n_files : 1, sizeof *sorted);
    for (size_t i = 0; i < in->n_files; i++)
        sorted[i] = &in->files[i];
    qsort(sorted, in->n_files, sizeof *sorted, file_cmp);
    for (size_t i = 1; i < in->n_files; i++) {
        if (strcmp(sorted[i - 1]->path, sorted[i]->path) == 0) {
            rc = core_err_set(err, CORE_ERR_INVALID, "pack %s: file %s is listed twice", in->id,
                              sorted[i]->path);
            goto out;
        }
    }
    /* See db_digest.c: sorted by path, length-prefixed, so the digest does
     * not depend on how the folder was listed. */
    db_pack_digest(in->files, in->n_files, digest);

    rc = db_tx_begin(db, err);
    if (rc)
        goto out;
    in_tx = true;
    storing = true;

    bool exists;
    char cur_digest[65];
    rc = current_rev(db, in->id, &exists, &rev, cur_digest, err);
    if (rc)
        goto out;
    if (rev && strcmp(cur_digest, digest) == 0) {
        res = DB_IMPORT_UNCHANGED;
        goto out; /* nothing written: the rollback below just ends the read */
    }
    if (!force && exists) {
        /* Importing an older revision again would silently roll the pack
         * back: make that a deliberate act. */
        char *old_version = NULL;
        rc = digest_seen(db, in->id, digest, &old_version, err);
        if (rc)
            goto out;
        if (old_version) {
            rc = core_err_set(err, CORE_ERR_CONFLICT,
                              "pack %s: this content was imported before as version %s and "
                              "has since been replaced; pass --force to go back to it",
                              in->id, old_version);
            free(old_version);
            goto out;
        }
    }
    if (!force) {
        bool taken;
        rc = version_taken(db, in, digest, &taken, err);
        if (rc)
            goto out;
        if (taken) {
            rc = core_err_set(err, CORE_ERR_CONFLICT,
                              "pack %s version %s is already imported with other content; "
                              "raise its version",
                              in->id, in->version);
            goto out;
        }
    }
    res = exists ? DB_IMPORT_REPLACED : DB_IMPORT_NEW;
    rc = store_revision(db, in, exists, digest, sorted, &rev, err);
    if (!rc)
        rc = store_content(db, in, err);
    if (!rc) {
        rc = db_tx_commit(db, err);
        in_tx = false;
    }
out:
    if (in_tx)
        db_tx_rollback(db);
    free(sorted);
    if (rc) {
        if (storing && rc != CORE_ERR_CONFLICT)
            core_err_prefix(err, "importing pack %s", in->id);
        return rc;
    }
    if (result)
        *result = res;
    if (rev_id)
        *rev_id = rev;
    return 0;
}

/* ---- listing ------------------------------------------------------------- */

static const char sql_pack_list[] =
    "SELECT p.id, r.version, r.title, r.description, r.digest, r.imported_at, r.id, "
    "  (SELECT count(*) FROM lessons l WHERE l.pack_id = p.id), "
    "  (SELECT count(*) FROM questions q WHERE q.pack_id = p.id) "
    "FROM packs p JOIN pack_revs r ON r.id = p.rev_id "
    "WHERE ?1 IS NULL OR p.id = ?1 ORDER BY p.id";

static void pack_read(sqlite3_stmt *st, struct db_pack *p)
{
    p->id = db_col_dup(st, 0);
    p->version = db_col_dup(st, 1);
    p->title = db_col_dup(st, 2);
    p->description = db_col_dup(st, 3);
    p->digest = db_col_dup(st, 4);
    p->imported_at = db_col_dup(st, 5);
    p->rev_id = sqlite3_column_int64(st, 6);
    p->n_lessons = sqlite3_column_int(st, 7);
    p->n_questions = sqlite3_column_int(st, 8);
}

void db_pack_fini(struct db_pack *p)
{
    if (!p)
        return;
    free(p->id);
    free(p->version);
    free(p->title);
    free(p->description);
    free(p->digest);
    free(p->imported_at);
    memset(p, 0, sizeof *p);
}

int db_pack_list(struct db *db, struct db_pack **out, size_t *n, struct core_err *err)
{
    *out = NULL;
    *n = 0;
    sqlite3_stmt *st;
    int rc = db_stmt(db, sql_pack_list, &st, err);
    if (rc)
        return rc;
    struct db_pack *arr = NULL;
    size_t cnt = 0, cap = 0;
    int src;
    while ((src = sqlite3_step(st)) == SQLITE_ROW) {
        arr = db_grow(arr, &cap, cnt, sizeof *arr);
        pack_read(st, &arr[cnt++]);
    }
    if (src != SQLITE_DONE) {
        rc = db_fail(db, err, src, "listing packs");
        for (size_t i = 0; i < cnt; i++)
            db_pack_fini(&arr[i]);
        free(arr);
    } else {
        *out = arr;
        *n = cnt;
    }
    db_stmt_done(st);
    return rc;
}

int db_pack_get(struct db *db, const char *id, struct db_pack *out, struct core_err *err)
{
    memset(out, 0, sizeof *out);
    if (!id)
        return core_err_set(err, CORE_ERR_NOTFOUND, "no pack given");
    sqlite3_stmt *st;
    int rc = db_stmt(db, sql_pack_list, &st, err);
    if (rc)
        return rc;
    int src = db_bindf(st, "t", id);
    if (src == SQLITE_OK)
        src = sqlite3_step(st);
    if (src == SQLITE_ROW)
        pack_read(st, out);
    else if (src == SQLITE_DONE)
        rc = core_err_set(err, CORE_ERR_NOTFOUND, "no pack '%s'", id);
    else
        rc = db_fail(db, err, src, "looking up pack %s", id);
    db_stmt_done(st);
    return rc;
}

/* ---- files --------------------------------------------------------------- */

static const char sql_rev_exists[] = "SELECT pack_id FROM pack_revs WHERE id = ?1";
static const char sql_file_sha[] = "SELECT sha256 FROM pack_files WHERE rev_id = ?1 AND path = ?2";
static const char sql_files[] =
    "SELECT path, content, sha256 FROM pack_files WHERE rev_id = ?1 ORDER BY path";

void db_files_free(struct db_file *files, size_t n)
{
    if (!files)
        return;
    for (size_t i = 0; i < n; i++) {
        free(files[i].path);
        free(files[i].data);
    }
    free(files);
}

int db_pack_files(struct db *db, int64_t rev_id, struct db_file **out, size_t *n,
                  struct core_err *err)
{
    *out = NULL;
    *n = 0;
    sqlite3_stmt *st;
    int rc = db_stmt(db, sql_rev_exists, &st, err);
    if (rc)
        return rc;
    int src = db_bindf(st, "I", rev_id);
    if (src == SQLITE_OK)
        src = sqlite3_step(st);
    if (src == SQLITE_DONE)
        rc = core_err_set(err, CORE_ERR_NOTFOUND, "no pack revision %lld", (long long)rev_id);
    else if (src != SQLITE_ROW)
        rc = db_fail(db, err, src, "looking up pack revision %lld", (long long)rev_id);
    db_stmt_done(st);
    if (rc)
        return rc;

    rc = db_stmt(db, sql_files, &st, err);
    if (rc)
        return rc;
    struct db_file *arr = NULL;
    size_t cnt = 0, cap = 0;
    src = db_bindf(st, "I", rev_id);
    while (src == SQLITE_OK && (src = sqlite3_step(st)) == SQLITE_ROW) {
        arr = db_grow(arr, &cap, cnt, sizeof *arr);
        struct db_file *f = &arr[cnt++];
        memset(f, 0, sizeof *f);
        f->path = db_col_dup(st, 0);
        const void *blob = sqlite3_column_blob(st, 1);
        size_t len = (size_t)sqlite3_column_bytes(st, 1);
        f->data = core_xmalloc(len + 1);
        if (len)
            memcpy(f->data, blob, len);
        f->data[len] = '\0';
        f->len = len;
        /* The stored hash guards the bytes we hand back for export. */
        char sha[65];
        core_sha256_hex(f->data, len, sha);
        const char *want = db_col_text(st, 2);
        snprintf(f->sha256, sizeof f->sha256, "%s", sha);
        if (!want || strcmp(want, sha) != 0) {
            rc = core_err_set(err, CORE_ERR_STORE,
                              "pack file %s of revision %lld is damaged (its SHA-256 does not "
                              "match)",
                              f->path, (long long)rev_id);
            break;
        }
        src = SQLITE_OK;
    }
    if (!rc && src != SQLITE_DONE && src != SQLITE_OK)
        rc = db_fail(db, err, src, "reading the files of pack revision %lld", (long long)rev_id);
    db_stmt_done(st);
    if (rc) {
        db_files_free(arr, cnt);
        return rc;
    }
    *out = arr;
    *n = cnt;
    return 0;
}

int db_pack_file_sha256(struct db *db, int64_t rev_id, const char *path, char out[65],
                        struct core_err *err)
{
    out[0] = '\0';
    sqlite3_stmt *st;
    int rc = db_stmt(db, sql_file_sha, &st, err);
    if (rc)
        return rc;
    int src = db_bindf(st, "It", rev_id, path);
    if (src == SQLITE_OK)
        src = sqlite3_step(st);
    if (src == SQLITE_ROW) {
        const char *sha = db_col_text(st, 0);
        snprintf(out, 65, "%s", sha ? sha : "");
    } else if (src == SQLITE_DONE) {
        rc = core_err_set(err, CORE_ERR_NOTFOUND, "pack revision %lld has no file %s",
                          (long long)rev_id, path);
    } else {
        rc = db_fail(db, err, src, "looking up file %s of pack revision %lld", path,
                     (long long)rev_id);
    }
    db_stmt_done(st);
    return rc;
}
