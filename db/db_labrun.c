/*
 * db_labrun.c — lab run records and their metric samples, and the side file
 * that lets a run be closed with its real reason when the disk is full or
 * the process is gone.
 *
 * A run's side file, "<store>-run<ID>", is created when the run begins and
 * removed when it ends. It holds DB_RUN_RESERVE bytes of disk space set aside
 * (posix_fallocate): when the closing write fails because the disk is full,
 * the space is given back (the file truncated) and the write tried again. If
 * it still fails, or the process must quit at once (a second Ctrl-C), the
 * file instead receives a closing note — "cancelled" or "failed" on the first
 * line, the reason after it — and the next Warpbench that opens the store
 * closes the run with that note rather than as "killed or crashed".
 */
#include "db/db_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DB_RUN_RESERVE (256 * 1024)
#define DB_NOTE_MAX 1024

static const char sql_run_add[] =
    "INSERT INTO lab_runs(user_id, lab, params_json, machine_json, status, started_at, owner) "
    "VALUES (?1, ?2, ?3, ?4, 'running', ?5, ?6)";
static const char sql_run_orphans[] =
    "SELECT id, owner FROM lab_runs WHERE status = 'running' AND owner IS NOT NULL";
static const char sql_run_orphan_end[] =
    "UPDATE lab_runs SET status = ?4, ended_at = ?2, error = ?3 "
    "WHERE id = ?1 AND status = 'running'";
static const char sql_sync_normal[] = "PRAGMA synchronous=NORMAL";
static const char sql_sync_full[] = "PRAGMA synchronous=FULL";
static const char sql_sample_add[] =
    "INSERT INTO lab_samples(run_id, series, step, value, t) VALUES (?1, ?2, ?3, ?4, ?5)";
static const char sql_run_end[] =
    "UPDATE lab_runs SET status = ?2, summary_json = ?3, ended_at = ?4, error = ?5 "
    "WHERE id = ?1 AND status = 'running'";
static const char sql_run_machine[] =
    "UPDATE lab_runs SET machine_json = ?2 WHERE id = ?1 AND status = 'running'";
#define RUN_COLS                                                                                   \
    "SELECT id, user_id, lab, params_json, machine_json, summary_json, status, started_at, "       \
    "ended_at, error FROM lab_runs "
static const char sql_run_latest[] =
    RUN_COLS "WHERE user_id = ?1 AND lab = ?2 AND status = 'done' ORDER BY id DESC LIMIT 1";
static const char sql_run_latest_before[] =
    RUN_COLS "WHERE user_id = ?1 AND lab = ?2 AND status = 'done' AND ended_at <= ?3 "
             "ORDER BY id DESC LIMIT 1";
static const char sql_run_get[] = RUN_COLS "WHERE id = ?1";
static const char sql_run_list[] =
    RUN_COLS "WHERE user_id = ?1 AND (?2 IS NULL OR lab = ?2) ORDER BY id DESC LIMIT ?3";
static const char sql_samples_all[] =
    "SELECT series, step, value, t FROM lab_samples WHERE run_id = ?1 ORDER BY id";
static const char sql_samples_one[] =
    "SELECT series, step, value, t FROM lab_samples WHERE run_id = ?1 AND series = ?2 "
    "ORDER BY id";
static const char sql_series[] =
    "SELECT series, COUNT(*), MIN(id) AS first FROM lab_samples WHERE run_id = ?1 "
    "GROUP BY series ORDER BY first";

/* ---- the side file ----------------------------------------------------- */

static char *side_path(const struct db *db, int64_t run_id)
{
    return core_xasprintf("%s-run%lld", db->path, (long long)run_id);
}

static struct db_run_side *side_find(struct db *db, int64_t run_id)
{
    for (size_t i = 0; i < db->n_sides; i++)
        if (db->sides[i].run_id == run_id)
            return &db->sides[i];
    return NULL;
}

/* Closes a side file's descriptor and forgets it; removes the file unless
 * `keep` (it holds a closing note). */
static void side_drop(struct db *db, struct db_run_side *sd, bool keep)
{
    if (!keep) {
        char *path = side_path(db, sd->run_id);
        unlink(path);
        free(path);
    }
    close(sd->fd);
    *sd = db->sides[--db->n_sides];
}

void db_labrun_sides_close(struct db *db)
{
    for (size_t i = 0; i < db->n_sides; i++)
        close(db->sides[i].fd);
    free(db->sides);
    db->sides = NULL;
    db->n_sides = db->cap_sides = 0;
}

/* Creates run_id's side file with DB_RUN_RESERVE bytes set aside. A full
 * disk is an error (the run could not be closed properly); a folder that
 * refuses the file (permissions, a file system without the call) leaves the
 * run without a reserve, as before it existed. */
static int side_open(struct db *db, int64_t run_id, struct core_err *err)
{
    char *path = side_path(db, run_id);
    int rc = 0;
    /* O_NOFOLLOW and a regular-file check: a name beside the store that
     * someone made a link or a FIFO is not written through */
    int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    struct stat st;
    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
        close(fd);
        fd = -1;
    }
    if (fd < 0)
        goto out;
    int fe = ftruncate(fd, 0) == 0 ? posix_fallocate(fd, 0, DB_RUN_RESERVE) : errno;
    if (fe == ENOSPC || fe == EDQUOT || fe == EFBIG) {
        close(fd);
        unlink(path);
        rc = core_err_set(err, CORE_ERR_IO,
                          "%s: cannot set aside %d KiB beside the store to record the run's "
                          "end: %s",
                          fe == EFBIG ? "the file size limit was reached (ulimit -f)" : "disk full",
                          DB_RUN_RESERVE / 1024, strerror(fe));
        goto out;
    }
    db->sides = db_grow(db->sides, &db->cap_sides, db->n_sides, sizeof *db->sides);
    db->sides[db->n_sides++] = (struct db_run_side){run_id, fd};
out:
    free(path);
    return rc;
}

int db_labrun_note_fd(struct db *db, int64_t run_id)
{
    struct db_run_side *sd = side_find(db, run_id);
    return sd ? sd->fd : -1;
}

/* Writes a closing note (status line, reason) into the side file, whose
 * reserve was given back, and keeps the file for the next opener. */
static void side_note(struct db *db, struct db_run_side *sd, const char *status, const char *why)
{
    char note[DB_NOTE_MAX];
    int n = snprintf(note, sizeof note, "%s\n%s\n", status, why ? why : "");
    if (n < 0 || (size_t)n >= sizeof note)
        n = (int)sizeof note - 1;
    bool ok =
        ftruncate(sd->fd, 0) == 0 && pwrite(sd->fd, note, (size_t)n, 0) == n && fsync(sd->fd) == 0;
    side_drop(db, sd, ok);
}

/* Reads run_id's closing note, if its side file holds one: *status gets
 * "cancelled" or "failed", *why the reason (both caller-freed). Then the
 * side file is removed either way: its run is being closed. */
static bool side_take_note(struct db *db, int64_t run_id, char **status, char **why)
{
    *status = *why = NULL;
    char *path = side_path(db, run_id), *text = NULL;
    size_t len = 0;
    bool got = false;
    struct stat st;
    if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
        goto out;
    if (core_file_read(path, DB_RUN_RESERVE, &text, &len, NULL) == 0 && len > 0 && text[0]) {
        char *nl = strchr(text, '\n');
        if (nl) {
            *nl = '\0';
            if (strcmp(text, "cancelled") == 0 || strcmp(text, "failed") == 0) {
                size_t wl = strlen(nl + 1);
                while (wl > 0 && nl[1 + wl - 1] == '\n')
                    wl--;
                *status = core_xstrdup(text);
                *why = core_xstrndup(nl + 1, wl);
                got = true;
            }
        }
    }
    unlink(path);
out:
    free(text);
    free(path);
    return got;
}

/* ---- runs ------------------------------------------------------------------ */

int db_labrun_begin(struct db *db, int64_t user_id, const char *lab, const char *params_json,
                    const char *machine_json, int64_t *run_id, struct core_err *err)
{
    if (!lab || !*lab)
        return core_err_set(err, CORE_ERR_INVALID, "a lab run needs the lab's name");
    sqlite3_stmt *st;
    int rc = db_stmt(db, sql_run_add, &st, err);
    if (rc)
        return rc;
    char now[32], owner[CORE_OWNER_MAX];
    db_now(now);
    core_owner_self(owner);
    rc = db_step_done(db, st,
                      db_bindf(st, "Ittttt", user_id, lab, params_json ? params_json : "{}",
                               machine_json ? machine_json : "{}", now, owner),
                      "starting a lab run record", err);
    if (rc) {
        core_err_prefix(err, "lab %s", lab);
        return rc;
    }
    int64_t id = sqlite3_last_insert_rowid(db->h);
    rc = side_open(db, id, err);
    if (rc) {
        /* the record exists: close it at once, best effort (the disk is
         * full; the next opener closes it otherwise) */
        db_labrun_finish(db, id, "failed", NULL, err->msg, NULL);
        core_err_prefix(err, "lab %s", lab);
        return rc;
    }
    if (run_id)
        *run_id = id;
    return 0;
}

int db_labrun_set_machine(struct db *db, int64_t run_id, const char *machine_json,
                          struct core_err *err)
{
    sqlite3_stmt *st;
    int rc = db_stmt(db, sql_run_machine, &st, err);
    if (rc)
        return rc;
    rc = db_step_done(db, st, db_bindf(st, "It", run_id, machine_json ? machine_json : "{}"),
                      "recording the machines of a lab run", err);
    if (rc == 0 && sqlite3_changes(db->h) != 1)
        rc = core_err_set(err, CORE_ERR_CONFLICT, "lab run %lld is not running", (long long)run_id);
    return rc;
}

/* Reads a run's status into a malloc'd *status; CORE_ERR_NOTFOUND when the
 * run does not exist. */
static int run_status(struct db *db, int64_t run_id, char **status, struct core_err *err)
{
    struct db_labrun r;
    int rc = db_labrun_get(db, run_id, &r, err);
    *status = r.status; /* NULL on an error: db_labrun_get zeroes r first */
    r.status = NULL;
    db_labrun_fini(&r);
    return rc;
}

/* Sets the connection's synchronous mode (outside a transaction). */
static int set_sync(struct db *db, const char *sql, struct core_err *err)
{
    sqlite3_stmt *st;
    int rc = db_stmt(db, sql, &st, err);
    if (rc)
        return rc;
    int src = sqlite3_step(st);
    db_stmt_done(st);
    return src == SQLITE_DONE || src == SQLITE_ROW ? 0 : db_fail(db, err, src, "setting sync mode");
}

/* Samples are a measurement stream, not a student's record: a batch is
 * committed without waiting for the disk (synchronous=NORMAL; in WAL mode a
 * crash or kill -9 still loses nothing committed, a power cut may lose the
 * last batches but never corrupts the store). The run's begin and end rows
 * keep the store's FULL sync. Waiting for fsync four times a second slowed
 * a lab's fixed workload by ~14% on the development machine; without it the
 * stream costs ~1% (warpbench bench labstream). */
int db_labrun_samples(struct db *db, int64_t run_id, const struct core_sample *s, size_t n,
                      struct core_err *err)
{
    if (n == 0)
        return 0;
    int rc = set_sync(db, sql_sync_normal, err);
    if (rc)
        return rc;
    rc = db_tx_begin(db, err);
    if (rc) {
        set_sync(db, sql_sync_full, NULL);
        return rc;
    }
    char *status = NULL;
    rc = run_status(db, run_id, &status, err);
    if (!rc && strcmp(status, "running") != 0)
        rc = core_err_set(err, CORE_ERR_CONFLICT, "lab run %lld has ended (%s)", (long long)run_id,
                          status);
    for (size_t i = 0; i < n && !rc; i++) {
        if (!s[i].series || !*s[i].series) {
            rc = core_err_set(err, CORE_ERR_INVALID, "lab run %lld: sample %zu has no series",
                              (long long)run_id, i + 1);
            break;
        }
        sqlite3_stmt *st;
        rc = db_stmt(db, sql_sample_add, &st, err);
        if (rc)
            break;
        /* A NaN value is stored as NULL (SQLite would do so anyway). */
        int src = db_bindf(st, "ItINd", run_id, s[i].series, (int64_t)s[i].step, s[i].value,
                           isfinite(s[i].t) ? s[i].t : 0.0);
        rc = db_step_done(db, st, src, "storing a lab sample", err);
    }
    free(status);
    rc = db_tx_end(db, rc, err);
    int src = set_sync(db, sql_sync_full, rc ? NULL : err);
    return rc ? rc : src;
}

/* The closing UPDATE; *full says whether it failed for lack of space. */
static int run_end(struct db *db, int64_t run_id, const char *status, const char *summary_json,
                   const char *error, bool *full, struct core_err *err)
{
    *full = false;
    sqlite3_stmt *st;
    int rc = db_stmt(db, sql_run_end, &st, err);
    if (rc)
        return rc;
    char now[32];
    db_now(now);
    int src = db_bindf(st, "Itttt", run_id, status, summary_json, now, error);
    if (src == SQLITE_OK)
        src = sqlite3_step(st);
    if (src != SQLITE_DONE && src != SQLITE_ROW) {
        *full = db_full_words(db, src, errno) != NULL;
        rc = db_fail(db, err, src, "ending a lab run");
    }
    db_stmt_done(st);
    return rc;
}

int db_labrun_end(struct db *db, int64_t run_id, const char *status, const char *summary_json,
                  struct core_err *err)
{
    return db_labrun_finish(db, run_id, status, summary_json, NULL, err);
}

int db_labrun_finish(struct db *db, int64_t run_id, const char *status, const char *summary_json,
                     const char *error, struct core_err *err)
{
    if (!status || (strcmp(status, "done") != 0 && strcmp(status, "cancelled") != 0 &&
                    strcmp(status, "failed") != 0))
        return core_err_set(err, CORE_ERR_INVALID,
                            "a lab run ends as done, cancelled or failed, not '%s'",
                            status ? status : "(null)");
    struct db_run_side *sd = side_find(db, run_id);
    bool full = false;
    int rc = run_end(db, run_id, status, summary_json, error, &full, err);
    if (rc && full && sd) {
        /* the disk filled up: give back the space set aside, and again */
        if (ftruncate(sd->fd, 0) == 0)
            rc = run_end(db, run_id, status, summary_json, error, &full, err);
    }
    if (sd) {
        if (rc == CORE_OK)
            side_drop(db, sd, false);
        else if (strcmp(status, "done") == 0) /* its figures are lost: a failure */
            side_note(db, sd, "failed", err ? err->msg : "its end could not be recorded");
        else /* the next opener closes it with the real reason */
            side_note(db, sd, status, error ? error : err ? err->msg : NULL);
    }
    if (rc || sqlite3_changes(db->h) == 1)
        return rc;
    /* Nothing changed: say whether the run is unknown or already over. */
    char *cur = NULL;
    rc = run_status(db, run_id, &cur, err);
    if (!rc)
        rc = core_err_set(err, CORE_ERR_CONFLICT, "lab run %lld has already ended (%s)",
                          (long long)run_id, cur);
    free(cur);
    return rc;
}

void db_labrun_fini(struct db_labrun *r)
{
    if (!r)
        return;
    free(r->lab);
    free(r->params_json);
    free(r->machine_json);
    free(r->summary_json);
    free(r->status);
    free(r->started_at);
    free(r->ended_at);
    free(r->error);
    memset(r, 0, sizeof *r);
}

void db_labruns_free(struct db_labrun *r, size_t n)
{
    for (size_t i = 0; i < n; i++)
        db_labrun_fini(&r[i]);
    free(r);
}

static void read_run(sqlite3_stmt *st, struct db_labrun *out)
{
    out->id = sqlite3_column_int64(st, 0);
    out->user_id = sqlite3_column_int64(st, 1);
    out->lab = db_col_dup(st, 2);
    out->params_json = db_col_dup(st, 3);
    out->machine_json = db_col_dup(st, 4);
    out->summary_json = db_col_dup(st, 5);
    out->status = db_col_dup(st, 6);
    out->started_at = db_col_dup(st, 7);
    out->ended_at = db_col_dup(st, 8);
    out->error = db_col_dup(st, 9);
}

int db_labrun_latest(struct db *db, int64_t user_id, const char *lab, struct db_labrun *out,
                     struct core_err *err)
{
    memset(out, 0, sizeof *out);
    if (!lab)
        return core_err_set(err, CORE_ERR_NOTFOUND, "no lab given");
    sqlite3_stmt *st;
    int rc = db_stmt(db, sql_run_latest, &st, err);
    if (rc)
        return rc;
    int src = db_bindf(st, "It", user_id, lab);
    if (src == SQLITE_OK)
        src = sqlite3_step(st);
    if (src == SQLITE_ROW) {
        read_run(st, out);
    } else if (src == SQLITE_DONE) {
        rc = core_err_set(err, CORE_ERR_NOTFOUND, "no finished run of lab %s", lab);
    } else {
        rc = db_fail(db, err, src, "looking up the latest run of lab %s", lab);
    }
    db_stmt_done(st);
    return rc;
}

int db_labrun_latest_before(struct db *db, int64_t user_id, const char *lab, const char *before,
                            struct db_labrun *out, struct core_err *err)
{
    memset(out, 0, sizeof *out);
    if (!lab || !before)
        return core_err_set(err, CORE_ERR_NOTFOUND, "no lab or time given");
    sqlite3_stmt *st;
    int rc = db_stmt(db, sql_run_latest_before, &st, err);
    if (rc)
        return rc;
    int src = db_bindf(st, "Itt", user_id, lab, before);
    if (src == SQLITE_OK)
        src = sqlite3_step(st);
    if (src == SQLITE_ROW)
        read_run(st, out);
    else if (src == SQLITE_DONE)
        rc = core_err_set(err, CORE_ERR_NOTFOUND, "no run of lab %s finished by %s", lab, before);
    else
        rc = db_fail(db, err, src, "looking up a run of lab %s", lab);
    db_stmt_done(st);
    return rc;
}

int db_labrun_get(struct db *db, int64_t run_id, struct db_labrun *out, struct core_err *err)
{
    memset(out, 0, sizeof *out);
    sqlite3_stmt *st;
    int rc = db_stmt(db, sql_run_get, &st, err);
    if (rc)
        return rc;
    int src = db_bindf(st, "I", run_id);
    if (src == SQLITE_OK)
        src = sqlite3_step(st);
    if (src == SQLITE_ROW)
        read_run(st, out);
    else if (src == SQLITE_DONE)
        rc = core_err_set(err, CORE_ERR_NOTFOUND, "no lab run %lld", (long long)run_id);
    else
        rc = db_fail(db, err, src, "looking up lab run %lld", (long long)run_id);
    db_stmt_done(st);
    return rc;
}

static void run_row(sqlite3_stmt *st, void *r)
{
    read_run(st, r);
}

static void labruns_free_rows(void *r, size_t n)
{
    db_labruns_free(r, n);
}

int db_labrun_list(struct db *db, int64_t user_id, const char *lab, size_t limit,
                   struct db_labrun **out, size_t *n, struct core_err *err)
{
    void *rows;
    int rc =
        db_list(db, sql_run_list, sizeof **out, run_row, labruns_free_rows, &rows, n,
                "listing lab runs", err, "ItI", user_id, lab, limit ? (int64_t)limit : (int64_t)-1);
    *out = rows;
    return rc;
}

void db_labsamples_free(struct db_labsample *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(s[i].series);
    free(s);
}

static void sample_row(sqlite3_stmt *st, void *elem)
{
    struct db_labsample *v = elem;
    v->series = db_col_dup(st, 0);
    v->step = sqlite3_column_int64(st, 1);
    v->value = sqlite3_column_type(st, 2) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 2);
    v->t = sqlite3_column_double(st, 3);
}

static void labsamples_free_rows(void *s, size_t n)
{
    db_labsamples_free(s, n);
}

int db_labrun_samples_read(struct db *db, int64_t run_id, const char *series,
                           struct db_labsample **out, size_t *n, struct core_err *err)
{
    *out = NULL;
    *n = 0;
    sqlite3_stmt *st;
    int rc = db_stmt(db, series ? sql_samples_one : sql_samples_all, &st, err);
    if (rc)
        return rc;
    void *rows;
    rc = db_rows_read(db, st,
                      series ? db_bindf(st, "It", run_id, series) : db_bindf(st, "I", run_id),
                      sizeof **out, sample_row, labsamples_free_rows, &rows, n, err,
                      "reading the samples of lab run %lld", (long long)run_id);
    *out = rows;
    return rc;
}

int db_labrun_series(struct db *db, int64_t run_id, char ***names, int64_t **counts, size_t *n,
                     struct core_err *err)
{
    *names = NULL;
    *counts = NULL;
    *n = 0;
    sqlite3_stmt *st;
    int rc = db_stmt(db, sql_series, &st, err);
    if (rc)
        return rc;
    char **nv = NULL;
    int64_t *cv = NULL;
    size_t cnt = 0, cap = 0, cap2 = 0;
    int src = db_bindf(st, "I", run_id);
    while (src == SQLITE_OK && (src = sqlite3_step(st)) == SQLITE_ROW) {
        nv = db_grow(nv, &cap, cnt, sizeof *nv);
        cv = db_grow(cv, &cap2, cnt, sizeof *cv);
        nv[cnt] = db_col_dup(st, 0);
        cv[cnt] = sqlite3_column_int64(st, 1);
        cnt++;
        src = SQLITE_OK;
    }
    if (src != SQLITE_DONE) {
        rc = db_fail(db, err, src, "counting the samples of lab run %lld", (long long)run_id);
        for (size_t i = 0; i < cnt; i++)
            free(nv[i]);
        free(nv);
        free(cv);
    } else {
        *names = nv;
        *counts = cv;
        *n = cnt;
    }
    db_stmt_done(st);
    return rc;
}

struct orphan {
    int64_t id;
    char *owner;
};

static void orphan_row(sqlite3_stmt *st, void *elem)
{
    struct orphan *o = elem;
    o->id = sqlite3_column_int64(st, 0);
    const unsigned char *t = sqlite3_column_text(st, 1);
    o->owner = t ? core_xstrdup((const char *)t) : NULL;
}

static void orphans_free(void *arr, size_t n)
{
    struct orphan *o = arr;
    for (size_t i = 0; i < n; i++)
        free(o[i].owner);
    free(o);
}

int db_labrun_close_orphans(struct db *db, size_t *closed, struct core_err *err)
{
    *closed = 0;
    sqlite3_stmt *st;
    int rc = db_stmt(db, sql_run_orphans, &st, err);
    if (rc)
        return rc;
    void *arr = NULL;
    size_t n = 0;
    rc = db_rows_read(db, st, SQLITE_OK, sizeof(struct orphan), orphan_row, orphans_free, &arr, &n,
                      err, "reading running lab runs");
    if (rc)
        return rc;
    struct orphan *o = arr;
    for (size_t i = 0; i < n && !rc; i++) {
        if (core_owner_alive(o[i].owner) != 0)
            continue; /* alive, or this machine cannot tell: leave it */
        /* "host|boot|pid|start": the pid follows the second bar */
        const char *bar = strchr(o[i].owner, '|');
        bar = bar ? strchr(bar + 1, '|') : NULL;
        long pid = bar ? strtol(bar + 1, NULL, 10) : 0;
        char why[160], now[32];
        snprintf(why, sizeof why,
                 "the process running this lab (pid %ld) ended without closing the run: it "
                 "was killed or crashed",
                 pid);
        /* what the process wrote down before it went (a full disk, a
         * second Ctrl-C): its status and reason, not "killed or crashed" */
        char *nstatus = NULL, *nwhy = NULL;
        bool noted = side_take_note(db, o[i].id, &nstatus, &nwhy);
        db_now(now);
        sqlite3_stmt *up;
        rc = db_stmt(db, sql_run_orphan_end, &up, err);
        if (!rc)
            rc = db_step_done(
                db, up,
                db_bindf(up, "Ittt", o[i].id, now, noted ? nwhy : why, noted ? nstatus : "failed"),
                "closing an abandoned lab run", err);
        if (!rc && sqlite3_changes(db->h) == 1)
            (*closed)++;
        free(nstatus);
        free(nwhy);
    }
    orphans_free(arr, n);
    return rc;
}
