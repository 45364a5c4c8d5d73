/*
 * db_guard.c — noticing a store that was not closed cleanly, and not
 * writing to one that is damaged.
 *
 * A damaged page in a part of the store nothing reads (old lab samples)
 * goes unnoticed while new attempts keep being written to the file. SQLite
 * cannot tell a clean close from a crash, so a guard file beside the store,
 * "<store>-open", does: every handle holds a shared flock(2) on it while
 * open. (flock, not fcntl: closing our own descriptor must never drop the
 * POSIX locks SQLite holds on its files, and flock locks are separate from
 * them.) The first handle to open a store that no other process has open
 * (an exclusive lock is free) and that still has a write-ahead log was
 * preceded by an unclean close (a kill -9, a crash, a power cut): it runs
 * PRAGMA quick_check before anything else touches the file. The last
 * handle to close removes the guard file, unless the store is damaged: then
 * the file keeps the verdict, so every later open checks again (and clears
 * it once the store is whole).
 *
 * A damaged store is opened read-only (PRAGMA query_only): what can be read
 * is shown, and every write is refused with a message that says so;
 * db_recover_command gives the command that copies what it holds into a new
 * store.
 */
#include "db/db_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define GUARD_DAMAGED "damaged\n"

static char *guard_path(const struct db *db)
{
    return core_xasprintf("%s-open", db->path);
}

/* Whether a file exists (a link counts: it is not followed). */
static bool exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

void db_guard_open(struct db *db, bool *check)
{
    *check = false;
    db->guard_fd = -1;
    char *gp = guard_path(db), *wal = core_xasprintf("%s-wal", db->path);
    /* best effort: a folder we may not write in has no guard (and the store
     * will be read-only there anyway) */
    int fd = open(gp, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    struct stat st;
    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
        close(fd);
        fd = -1;
    }
    if (fd < 0)
        goto out;
    char head[sizeof GUARD_DAMAGED] = "";
    ssize_t n = pread(fd, head, sizeof head - 1, 0);
    bool noted = n == (ssize_t)sizeof head - 1 && memcmp(head, GUARD_DAMAGED, sizeof head - 1) == 0;
    bool alone = flock(fd, LOCK_EX | LOCK_NB) == 0;
    *check = noted || (alone && exists(wal));
    /* shared from now on: others see the store is open (a conversion may
     * briefly drop the lock; another opener then only checks once more) */
    while (flock(fd, LOCK_SH) != 0 && errno == EINTR)
        ;
    db->guard_fd = fd;
out:
    free(wal);
    free(gp);
}

void db_guard_close(struct db *db)
{
    if (db->guard_fd < 0)
        return;
    /* the last one out removes the guard, unless it holds a verdict */
    if (!db->damaged && flock(db->guard_fd, LOCK_EX | LOCK_NB) == 0) {
        char *gp = guard_path(db);
        unlink(gp);
        free(gp);
    }
    close(db->guard_fd);
    db->guard_fd = -1;
}

int db_guard_check(struct db *db, bool check, struct core_err *err)
{
    if (!check)
        return 0;
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db->h, "PRAGMA quick_check(3)", -1, &st, NULL);
    char verdict[200] = "";
    while (rc == SQLITE_OK || rc == SQLITE_ROW) {
        rc = sqlite3_step(st);
        if (rc != SQLITE_ROW)
            break;
        const char *line = (const char *)sqlite3_column_text(st, 0);
        if (line && strcmp(line, "ok") != 0 && !verdict[0])
            snprintf(verdict, sizeof verdict, "%s", line);
    }
    if (rc != SQLITE_DONE && !verdict[0]) {
        int prim = rc & 0xff;
        if (prim == SQLITE_CORRUPT || prim == SQLITE_NOTADB)
            snprintf(verdict, sizeof verdict, "%s", sqlite3_errmsg(db->h));
        else
            rc = db_fail(db, err, rc, "store %s: checking it after an unclean close", db->path);
    }
    sqlite3_finalize(st);
    if (!verdict[0]) {
        if (rc != SQLITE_DONE)
            return rc; /* the check could not run (db_fail filled err) */
        /* whole (again): no verdict to keep */
        if (db->guard_fd >= 0 && ftruncate(db->guard_fd, 0) != 0)
            core_err_clear(err); /* best effort: the next open checks once more */
        return 0;
    }
    db->damaged = core_xstrdup(verdict);
    if (db->guard_fd >= 0) {
        char *note = core_xasprintf(GUARD_DAMAGED "%s\n", verdict);
        if (ftruncate(db->guard_fd, 0) == 0) {
            ssize_t w = pwrite(db->guard_fd, note, strlen(note), 0);
            (void)w;
        }
        free(note);
    }
    if (sqlite3_exec(db->h, "PRAGMA query_only = 1", NULL, NULL, NULL) != SQLITE_OK)
        return core_err_set(err, CORE_ERR_STORE,
                            "store %s is damaged (%s) and cannot be made read-only", db->path,
                            verdict);
    return 0;
}

const char *db_damaged(const struct db *db)
{
    return db ? db->damaged : NULL;
}

/* s in single quotes for a POSIX shell. */
static void shell_quote(struct core_buf *b, const char *s)
{
    core_buf_putc(b, '\'');
    for (; *s; s++) {
        if (*s == '\'')
            core_buf_puts(b, "'\\''");
        else
            core_buf_putc(b, *s);
    }
    core_buf_putc(b, '\'');
}

char *db_recover_command(const char *path, const char *to)
{
    /* .dump (not .recover: Debian's sqlite3 is built without the page
     * access .recover needs) writes every row it can read; after an error
     * it ends with ROLLBACK, which would throw the copy away, so that is
     * made a COMMIT. The store's identity pragmas are not in a dump. */
    struct core_buf b;
    core_buf_init(&b);
    core_buf_puts(&b, "(sqlite3 ");
    shell_quote(&b, path);
    core_buf_printf(&b,
                    " .dump | sed 's/^ROLLBACK; -- due to errors$/COMMIT;/'; "
                    "echo 'PRAGMA application_id = %d; PRAGMA user_version = %d;') | sqlite3 ",
                    DB_APPLICATION_ID, DB_SCHEMA_VERSION);
    shell_quote(&b, to);
    return core_buf_steal(&b);
}
