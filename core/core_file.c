/* core_file.c — whole-file reads, first lines of small files, atomic writes,
 * directory creation. */
#include "core/core.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int core_file_read(const char *path, size_t max_bytes, char **out, size_t *len,
                   struct core_err *err)
{
    *out = NULL;
    if (len)
        *len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return core_err_set(err, errno == ENOENT ? CORE_ERR_NOTFOUND : CORE_ERR_IO,
                            "%s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return core_err_set(err, CORE_ERR_IO, "%s: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return core_err_set(err, CORE_ERR_IO, "%s: %s", path,
                            S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file");
    }
    if ((size_t)st.st_size > max_bytes) {
        close(fd);
        return core_err_set(err, CORE_ERR_INVALID, "%s: %lld bytes, more than the %zu allowed",
                            path, (long long)st.st_size, max_bytes);
    }
    struct core_buf b;
    core_buf_init(&b);
    core_buf_append(&b, "", 0);
    char chunk[65536];
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            close(fd);
            core_buf_fini(&b);
            return core_err_set(err, CORE_ERR_IO, "%s: %s", path, strerror(e));
        }
        if (n == 0)
            break;
        core_buf_append(&b, chunk, (size_t)n);
        if (b.len > max_bytes) {
            close(fd);
            core_buf_fini(&b);
            return core_err_set(err, CORE_ERR_INVALID, "%s: more than the %zu bytes allowed",
                                path, max_bytes);
        }
    }
    close(fd);
    if (len)
        *len = b.len;
    *out = core_buf_steal(&b);
    return CORE_OK;
}

int core_file_write_atomic(const char *path, const void *p, size_t n, struct core_err *err)
{
    char *tmp = core_xasprintf("%s.tmp.%ld", path, (long)getpid());
    int rc = CORE_OK;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        rc = core_err_set(err, CORE_ERR_IO, "%s: %s", path, strerror(errno));
        goto out;
    }
    const char *c = p;
    size_t left = n;
    while (left > 0) {
        ssize_t w = write(fd, c, left);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            rc = core_err_set(err, CORE_ERR_IO, "%s: %s", path, strerror(errno));
            close(fd);
            unlink(tmp);
            goto out;
        }
        c += w;
        left -= (size_t)w;
    }
    if (fsync(fd) != 0 || close(fd) != 0) {
        rc = core_err_set(err, CORE_ERR_IO, "%s: %s", path, strerror(errno));
        unlink(tmp);
        goto out;
    }
    if (rename(tmp, path) != 0) {
        rc = core_err_set(err, CORE_ERR_IO, "%s: %s", path, strerror(errno));
        unlink(tmp);
    }
out:
    free(tmp);
    return rc;
}

int core_mkdir_p(const char *path, struct core_err *err)
{
    if (!path[0])
        return CORE_OK; /* the current directory exists */
    char *p = core_xstrdup(path);
    int rc = CORE_OK;
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(p, 0755) != 0 && errno != EEXIST) {
            rc = core_err_set(err, CORE_ERR_IO, "cannot create %s: %s", p, strerror(errno));
            goto out;
        }
        *s = '/';
    }
    if (mkdir(p, 0755) != 0 && errno != EEXIST)
        rc = core_err_set(err, CORE_ERR_IO, "cannot create %s: %s", p, strerror(errno));
out:
    free(p);
    return rc;
}

char *core_path_join(const char *dir, const char *name)
{
    if (!dir[0])
        return core_xstrdup(name); /* "" is the current directory, never "/" */
    size_t dl = strlen(dir);
    while (dl > 1 && dir[dl - 1] == '/')
        dl--;
    return core_xasprintf("%.*s/%s", (int)dl, dir, name);
}

bool core_file_first_line(const char *path, char *buf, size_t size)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    bool ok = fgets(buf, (int)size, f) != NULL;
    fclose(f);
    if (!ok)
        return false;
    /* fgets keeps the newline */
    size_t n = strlen(buf);
    while (n > 0 && isspace((unsigned char)buf[n - 1]))
        buf[--n] = '\0';
    return true;
}

/* ---- files created new ------------------------------------------------------ */

/* What stands at path: 0 nothing, 1 a regular file (which --force may
 * replace), -1 anything else (a symbolic link, dangling or not, a folder, a
 * device, a FIFO, a socket), which is never replaced. */
static int replaceable(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return 0;
    return S_ISREG(st.st_mode) ? 1 : -1;
}

static int exists_err(const char *path, int kind, struct core_err *err)
{
    if (kind < 0)
        return core_err_set(err, CORE_ERR_CONFLICT,
                            "%s exists and is not a regular file (a link, a folder or a "
                            "device); it is never replaced",
                            path);
    return core_err_set(err, CORE_ERR_CONFLICT,
                        "%s exists; choose another name, or add --force to replace it", path);
}

int core_file_create_excl(const char *path, bool force, int *fd, struct core_err *err)
{
    *fd = -1;
    for (int tries = 0; tries < 3; tries++) {
        int f = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (f >= 0) {
            *fd = f;
            return CORE_OK;
        }
        if (errno != EEXIST)
            return core_err_set(err, errno == ENOENT ? CORE_ERR_NOTFOUND : CORE_ERR_IO,
                                "cannot create %s: %s", path, strerror(errno));
        int kind = replaceable(path);
        if (!force || kind < 0)
            return exists_err(path, kind, err);
        /* Asked to replace a regular file: remove it, then create anew,
         * still exclusively (what appears meanwhile is refused). */
        if (unlink(path) != 0 && errno != ENOENT)
            return core_err_set(err, CORE_ERR_IO, "cannot replace %s: %s", path, strerror(errno));
    }
    return core_err_set(err, CORE_ERR_CONFLICT, "%s keeps appearing while being replaced", path);
}

int core_file_publish(const char *tmp, const char *path, bool force, struct core_err *err)
{
    if (link(tmp, path) == 0) {
        unlink(tmp);
        return CORE_OK;
    }
    int e = errno;
    if (e == EEXIST) {
        int kind = replaceable(path);
        if (!force || kind < 0)
            return exists_err(path, kind, err);
    } else if (e != EPERM && e != ENOTSUP && e != EOPNOTSUPP && e != EXDEV) {
        return core_err_set(err, e == ENOENT ? CORE_ERR_NOTFOUND : CORE_ERR_IO,
                            "cannot create %s: %s", path, strerror(e));
    } else if (!force && replaceable(path) != 0) {
        /* A file system without hard links: rename would replace, so look
         * first (a race with another writer here is the user's own). */
        return exists_err(path, replaceable(path), err);
    }
    if (rename(tmp, path) != 0)
        return core_err_set(err, CORE_ERR_IO, "cannot create %s: %s", path, strerror(errno));
    return CORE_OK;
}
