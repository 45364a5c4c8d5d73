/* core_file.c — whole-file reads, first lines of small files, the files a
 * user names (created new, never written through a link or into a device),
 * directory creation. */
#include "core/core.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
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
        return core_err_set(err, errno == ENOENT ? CORE_ERR_NOTFOUND : CORE_ERR_IO, "%s: %s", path,
                            strerror(errno));
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
            return core_err_set(err, CORE_ERR_INVALID, "%s: more than the %zu bytes allowed", path,
                                max_bytes);
        }
    }
    close(fd);
    if (len)
        *len = b.len;
    *out = core_buf_steal(&b);
    return CORE_OK;
}

/* ---- files the user names ------------------------------------------------ */

/* The folder part of path ("." when none) and its last component; *base is
 * "" when path ends in '/'. Caller frees *dir. */
static void split_path(const char *path, char **dir, const char **base)
{
    const char *slash = strrchr(path, '/');
    if (!slash) {
        *dir = core_xstrdup(".");
        *base = path;
    } else {
        *dir = slash == path ? core_xstrdup("/") : core_xstrndup(path, (size_t)(slash - path));
        *base = slash + 1;
    }
}

/* Opens the folder that will hold path. Directories on the way are followed
 * even when they are symbolic links: they are how the user names a folder. */
static int open_parent(const char *path, const char *dir, struct core_err *err)
{
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0)
        return dfd;
    int e = errno;
    if (e == ENOENT || e == ENOTDIR)
        return core_err_set(err, CORE_ERR_NOTFOUND, "%s: its directory %s does not exist", path,
                            dir);
    return core_err_set(err, CORE_ERR_IO, "%s: cannot open its directory %s: %s", path, dir,
                        strerror(e));
}

/* Whether the entry `base` of the open folder dfd may be written: absent,
 * or (overwrite) a regular file that is not a symbolic link. */
static int check_entry(int dfd, const char *path, const char *base, bool overwrite, const char *how,
                       struct core_err *err)
{
    struct stat st;
    if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno == ENOENT)
            return CORE_OK;
        return core_err_set(err, CORE_ERR_IO, "%s: %s", path, strerror(errno));
    }
    if (S_ISDIR(st.st_mode))
        return core_err_set(err, CORE_ERR_INVALID,
                            "%s: it is a directory: name a file in it (e.g. %s/out.csv)", path,
                            path);
    if (S_ISLNK(st.st_mode))
        return core_err_set(err, CORE_ERR_CONFLICT,
                            "%s is a symbolic link: Warpbench does not write through links; "
                            "name the file itself",
                            path);
    if (!S_ISREG(st.st_mode))
        return core_err_set(err, CORE_ERR_CONFLICT,
                            "%s is not a regular file (%s): Warpbench writes only files it "
                            "creates",
                            path,
                            S_ISFIFO(st.st_mode)                         ? "a FIFO"
                            : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                            : S_ISSOCK(st.st_mode)                       ? "a socket"
                                                                         : "of another kind");
    if (!overwrite)
        return core_err_set(err, CORE_ERR_CONFLICT, "%s already exists: not replaced%s%s%s", path,
                            how ? " (" : "", how ? how : "", how ? " to replace it)" : "");
    return CORE_OK;
}

int core_file_check_new(const char *path, bool overwrite, const char *how, struct core_err *err)
{
    if (!path || !path[0])
        return core_err_set(err, CORE_ERR_USAGE, "no file name given");
    char *dir;
    const char *base;
    split_path(path, &dir, &base);
    int rc;
    if (!base[0] || strcmp(base, ".") == 0 || strcmp(base, "..") == 0) {
        rc = core_err_set(err, CORE_ERR_INVALID,
                          "%s: it is a directory: name a file in it (e.g. centres.csv)", path);
        goto out;
    }
    int dfd = open_parent(path, dir, err);
    if (dfd < 0) {
        rc = dfd;
        goto out;
    }
    rc = check_entry(dfd, path, base, overwrite, how, err);
    close(dfd);
out:
    free(dir);
    return rc;
}

/* Writes all n bytes to fd, then fsyncs it. */
static int write_all(int fd, const char *path, const void *p, size_t n, struct core_err *err)
{
    const char *c = p;
    while (n > 0) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return core_err_set(err, CORE_ERR_IO, "%s: %s", path,
                                w < 0 ? strerror(errno) : "nothing written");
        c += w;
        n -= (size_t)w;
    }
    if (fsync(fd) != 0)
        return core_err_set(err, CORE_ERR_IO, "%s: %s", path, strerror(errno));
    return CORE_OK;
}

int core_file_create(const char *path, const void *p, size_t n, bool overwrite, const char *how,
                     struct core_err *err)
{
    int rc = core_file_check_new(path, overwrite, how, err);
    if (rc != CORE_OK)
        return rc;
    char *dir, *tmp = NULL;
    const char *base;
    split_path(path, &dir, &base);
    int fd = -1, dfd = open_parent(path, dir, err);
    if (dfd < 0) {
        rc = dfd;
        goto out;
    }
    struct stat st;
    bool replace = overwrite && fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0;
    if (!replace) {
        /* O_EXCL with O_CREAT never follows a link and fails on anything
         * that exists, whatever appeared since the check. */
        fd = openat(dfd, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0) {
            int e = errno;
            if (e != EEXIST && e != ELOOP)
                rc = core_err_set(err, CORE_ERR_IO, "%s: %s", path, strerror(e));
            else if ((rc = check_entry(dfd, path, base, false, how, err)) == CORE_OK)
                rc = core_err_set(err, CORE_ERR_CONFLICT, "%s appeared meanwhile: not replaced",
                                  path);
            goto out;
        }
        rc = write_all(fd, path, p, n, err);
        if (close(fd) != 0 && rc == CORE_OK)
            rc = core_err_set(err, CORE_ERR_IO, "%s: %s", path, strerror(errno));
        fd = -1;
        if (rc != CORE_OK)
            unlinkat(dfd, base, 0); /* ours: created above */
    } else {
        /* Replace a regular file (checked above) whole: a new file beside it,
         * renamed over it, so a reader sees the old or the new content. The
         * rename replaces the entry, never writes through whatever it is. */
        for (int tries = 0; fd < 0 && tries < 100; tries++) {
            free(tmp);
            tmp = core_xasprintf(".%s.%ld.%d.tmp", base, (long)getpid(), tries);
            fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                        st.st_mode & 0777);
            if (fd < 0 && errno != EEXIST) {
                rc = core_err_set(err, CORE_ERR_IO, "%s: cannot create a file beside it: %s", path,
                                  strerror(errno));
                goto out;
            }
        }
        if (fd < 0) {
            rc = core_err_set(err, CORE_ERR_IO, "%s: cannot create a file beside it", path);
            goto out;
        }
        rc = write_all(fd, path, p, n, err);
        if (close(fd) != 0 && rc == CORE_OK)
            rc = core_err_set(err, CORE_ERR_IO, "%s: %s", path, strerror(errno));
        fd = -1;
        if (rc == CORE_OK && renameat(dfd, tmp, dfd, base) != 0)
            rc = core_err_set(err, CORE_ERR_IO, "%s: %s", path, strerror(errno));
        if (rc != CORE_OK)
            unlinkat(dfd, tmp, 0);
    }
    /* the new name itself survives a power cut */
    if (rc == CORE_OK && fsync(dfd) != 0 && errno != EINVAL)
        rc = core_err_set(err, CORE_ERR_IO, "%s: syncing its directory: %s", path, strerror(errno));
out:
    if (fd >= 0)
        close(fd);
    if (dfd >= 0)
        close(dfd);
    free(tmp);
    free(dir);
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

int core_file_build(const char *path, bool force,
                    int (*write)(const char *tmp, void *ctx, struct core_err *err), void *ctx,
                    struct core_err *err)
{
    unsigned char r[6] = {0};
    if (getrandom(r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
        uint64_t h = core_fnv1a(CORE_FNV_OFFSET, path, strlen(path));
        double t = core_time_wall();
        h = core_fnv1a(h, &t, sizeof t);
        pid_t pid = getpid();
        h = core_fnv1a(h, &pid, sizeof pid);
        memcpy(r, &h, sizeof r);
    }
    char *tmp =
        core_xasprintf("%s.tmp-%02x%02x%02x%02x%02x%02x", path, r[0], r[1], r[2], r[3], r[4], r[5]);
    int rc = core_file_create(tmp, "", 0, false, NULL, err); /* nothing of anyone's is opened */
    if (rc == CORE_OK) {
        rc = write(tmp, ctx, err);
        if (rc == CORE_OK)
            rc = core_file_publish(tmp, path, force, err);
        if (rc != CORE_OK) {
            unlink(tmp);
            char *journal = core_xasprintf("%s-journal", tmp);
            unlink(journal);
            free(journal);
        }
    }
    free(tmp);
    return rc;
}
