/* lesson_src.c — pack folders: reading a pack's Lua files, listing the
 * other files and reading the assets the pack declares, the built-in pack
 * compiled into the binary, and writing stored sources back out.
 *
 * A folder is read in two steps so that a big file the pack does not need
 * (a video, a data set, a build folder) is never opened: the walk reads the
 * .lua files and only lists the others with their sizes; once pack.lua has
 * been evaluated, lesson_src_assets reads the files its `assets` patterns
 * match, after checking their sizes against the limits. */
#include "lessons/lesson.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_FILES 512
#define MAX_FILE_BYTES (4u << 20)
#define MAX_OTHERS 10000

extern const struct core_embedded lesson_builtin_files[];

struct file_acc {
    struct grader_file *files;
    size_t n, cap;
    struct lesson_src_other *others;
    size_t n_others, cap_others;
};

static void acc_push(struct file_acc *a, char *path, char *data, size_t len)
{
    if (a->n == a->cap) {
        a->cap = a->cap ? a->cap * 2 : 16;
        a->files = core_xrealloc(a->files, a->cap * sizeof *a->files);
    }
    a->files[a->n++] = (struct grader_file){path, data, len};
}

static void acc_other(struct file_acc *a, char *path, long long size)
{
    if (a->n_others == a->cap_others) {
        a->cap_others = a->cap_others ? a->cap_others * 2 : 16;
        a->others = core_xrealloc(a->others, a->cap_others * sizeof *a->others);
    }
    a->others[a->n_others++] = (struct lesson_src_other){path, size};
}

static bool is_lua(const char *path)
{
    size_t n = strlen(path);
    return n > 4 && strcmp(path + n - 4, ".lua") == 0;
}

/* Walks `dir/rel` depth first: reads every .lua file, lists the others. */
static int walk(const char *dir, const char *rel, struct file_acc *a, struct core_err *err)
{
    char *full = rel[0] ? core_path_join(dir, rel) : core_xstrdup(dir);
    int rc = CORE_OK;
    DIR *d = opendir(full);
    if (!d) {
        rc = core_err_set(err, errno == ENOENT ? CORE_ERR_NOTFOUND : CORE_ERR_IO, "%s: %s", full,
                          strerror(errno));
        goto out;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue; /* hidden files, editors' swap files, . and .. */
        char *child = rel[0] ? core_xasprintf("%s/%s", rel, e->d_name) : core_xstrdup(e->d_name);
        char *child_full = core_path_join(dir, child);
        struct stat st;
        /* lstat: a symbolic link is skipped, never followed, so a shared pack
         * cannot pull files from outside its folder (keys, /proc) into the
         * store, nor walk the whole file system. */
        if (lstat(child_full, &st) != 0) {
            rc = core_err_set(err, CORE_ERR_IO, "%s: %s", child_full, strerror(errno));
        } else if (S_ISLNK(st.st_mode)) {
            /* skipped */
        } else if (S_ISDIR(st.st_mode)) {
            rc = walk(dir, child, a, err);
        } else if (S_ISREG(st.st_mode) && !is_lua(child)) {
            if (a->n_others >= MAX_OTHERS) {
                rc = core_err_set(err, CORE_ERR_INVALID,
                                  "%s: more than %d files that are not lessons in a pack folder",
                                  dir, MAX_OTHERS);
            } else {
                acc_other(a, child, (long long)st.st_size);
                child = NULL; /* owned by the list now */
            }
        } else if (S_ISREG(st.st_mode)) {
            if (a->n >= MAX_FILES) {
                rc = core_err_set(err, CORE_ERR_INVALID, "%s: more than %d .lua files in a pack",
                                  dir, MAX_FILES);
            } else {
                char *data;
                size_t len;
                rc = core_file_read(child_full, MAX_FILE_BYTES, &data, &len, err);
                if (rc == CORE_OK) {
                    acc_push(a, child, data, len);
                    child = NULL; /* owned by the list now */
                }
            }
        }
        free(child);
        free(child_full);
        if (rc != CORE_OK)
            break;
    }
    closedir(d);
out:
    free(full);
    return rc;
}

static int by_path(const void *a, const void *b)
{
    return strcmp(((const struct grader_file *)a)->path, ((const struct grader_file *)b)->path);
}

static int other_by_path(const void *a, const void *b)
{
    return strcmp(((const struct lesson_src_other *)a)->path,
                  ((const struct lesson_src_other *)b)->path);
}

int lesson_src_read(const char *dir, struct lesson_src *out, struct core_err *err)
{
    memset(out, 0, sizeof *out);
    struct file_acc a = {0};
    int rc = walk(dir, "", &a, err);
    out->files = a.files;
    out->n = a.n;
    out->others = a.others;
    out->n_others = a.n_others;
    out->dir = core_xstrdup(dir);
    if (rc == CORE_OK) {
        if (out->n > 1)
            qsort(out->files, out->n, sizeof *out->files, by_path);
        if (out->n_others > 1) /* (qsort of NULL is undefined even for 0 items) */
            qsort(out->others, out->n_others, sizeof *out->others, other_by_path);
        bool has_pack = false;
        for (size_t i = 0; i < out->n; i++)
            has_pack |= strcmp(out->files[i].path, "pack.lua") == 0;
        if (!has_pack)
            rc = core_err_set(err, CORE_ERR_INVALID, "%s: not a pack folder (no pack.lua)", dir);
    }
    if (rc != CORE_OK)
        lesson_src_fini(out);
    return rc;
}

size_t lesson_src_assets(const struct lesson_src *src, char *const *patterns, size_t n,
                         struct core_strlist *problems, struct lesson_src *into)
{
    if (!src->dir || n == 0)
        return 0;
    size_t bad = 0;
    unsigned long long total = 0;
    bool *matched = core_xcalloc(n, sizeof *matched);
    for (size_t i = 0; i < src->n_others; i++) {
        const struct lesson_src_other *o = &src->others[i];
        bool want = false;
        for (size_t k = 0; k < n; k++)
            if (fnmatch(patterns[k], o->path, FNM_PATHNAME | FNM_PERIOD) == 0)
                want = matched[k] = true;
        if (!want)
            continue; /* not declared: never opened, never stored */
        if (o->size > (long long)LESSON_ASSET_MAX) {
            core_strlist_pushf(problems,
                               "%s: %lld bytes: an asset may have at most %u MiB (declared in "
                               "pack.lua's assets)",
                               o->path, o->size, LESSON_ASSET_MAX >> 20);
            bad++;
            continue;
        }
        total += (unsigned long long)o->size;
        if (!into)
            continue;
        char *full = core_path_join(src->dir, o->path), *data = NULL;
        size_t len = 0;
        struct core_err e;
        if (core_file_read(full, LESSON_ASSET_MAX, &data, &len, &e) != CORE_OK) {
            core_strlist_pushf(problems, "%s: %s", o->path, e.msg);
            bad++;
        } else {
            into->files = core_xrealloc(into->files, (into->n + 1) * sizeof *into->files);
            into->files[into->n++] = (struct grader_file){core_xstrdup(o->path), data, len};
        }
        free(full);
    }
    if (total > LESSON_ASSETS_MAX) {
        core_strlist_pushf(problems,
                           "pack.lua: assets: %llu bytes in all: a pack's assets may have at "
                           "most %u MiB",
                           total, LESSON_ASSETS_MAX >> 20);
        bad++;
    }
    for (size_t k = 0; k < n; k++)
        if (!matched[k]) {
            core_strlist_pushf(problems, "pack.lua: assets: '%s' matches no file of the folder",
                               patterns[k]);
            bad++;
        }
    free(matched);
    return bad;
}

void lesson_src_builtin(struct lesson_src *out)
{
    memset(out, 0, sizeof *out);
    size_t n = 0;
    while (lesson_builtin_files[n].path)
        n++;
    out->files = core_xcalloc(n + 1, sizeof *out->files);
    out->n = n + 1;
    for (size_t i = 0; i < n; i++) {
        const struct core_embedded *e = &lesson_builtin_files[i];
        out->files[i] = (struct grader_file){core_xstrdup(e->path),
                                             core_xstrndup((const char *)e->data, e->len), e->len};
    }
    out->files[n] = (struct grader_file){core_xstrdup(LESSON_BUILTIN_MARKER),
                                         core_xstrdup(LESSON_BUILTIN_MARKER_TEXT),
                                         strlen(LESSON_BUILTIN_MARKER_TEXT)};
    qsort(out->files, out->n, sizeof *out->files, by_path);
}

void lesson_src_fini(struct lesson_src *src)
{
    for (size_t i = 0; i < src->n; i++) {
        free((char *)src->files[i].path);
        free((char *)src->files[i].data);
    }
    free(src->files);
    for (size_t i = 0; i < src->n_others; i++)
        free(src->others[i].path);
    free(src->others);
    free(src->dir);
    memset(src, 0, sizeof *src);
}

/* Checks a stored path before it is written below an export folder: no
 * absolute paths, no "..", no empty parts. Stored packs came through
 * lesson_src_read, but the database is a file anyone can edit. */
static bool safe_rel_path(const char *p)
{
    if (!p[0] || p[0] == '/')
        return false;
    const char *s = p;
    while (*s) {
        const char *slash = strchr(s, '/');
        size_t n = slash ? (size_t)(slash - s) : strlen(s);
        if (n == 0 || (n == 2 && s[0] == '.' && s[1] == '.') || (n == 1 && s[0] == '.'))
            return false;
        s += n;
        if (*s == '/')
            s++;
    }
    return true;
}

int lesson_files_write(const char *dir, const struct db_file_in *files, size_t n, bool overwrite,
                       struct core_err *err)
{
    /* Every target is checked before the first is written, so a refusal
     * leaves the folder as it was. A folder that does not exist yet has
     * nothing in it to refuse. */
    for (size_t i = 0; i < n; i++) {
        if (!safe_rel_path(files[i].path))
            return core_err_set(err, CORE_ERR_INVALID, "file name \"%s\" is not a safe path",
                                files[i].path);
        if (lesson_builtin_marker(files[i].path))
            continue;
        char *full = core_path_join(dir, files[i].path);
        int rc = core_file_check_new(full, overwrite, "pass --force", err);
        free(full);
        if (rc != CORE_OK && rc != CORE_ERR_NOTFOUND) /* NOTFOUND: its folder is made below */
            return rc;
    }
    int rc = CORE_OK;
    for (size_t i = 0; i < n && rc == CORE_OK; i++) {
        if (lesson_builtin_marker(files[i].path))
            continue;
        char *full = core_path_join(dir, files[i].path);
        char *slash = strrchr(full, '/');
        if (slash) {
            *slash = '\0';
            rc = core_mkdir_p(full, err);
            *slash = '/';
        }
        if (rc == CORE_OK)
            rc =
                core_file_create(full, files[i].data, files[i].len, overwrite, "pass --force", err);
        free(full);
    }
    return rc;
}

int lesson_pack_export(struct db *db, const char *pack_id, const char *dir, bool overwrite,
                       struct core_err *err)
{
    struct db_pack pack = {0};
    struct db_file *files = NULL;
    size_t n = 0;
    if (!dir[0])
        return core_err_set(err, CORE_ERR_USAGE, "export needs a folder to write into");
    int rc = db_pack_get(db, pack_id, &pack, err);
    if (rc == CORE_OK)
        rc = db_pack_files(db, pack.rev_id, &files, &n, err);
    if (rc == CORE_OK) {
        struct db_file_in *in = core_xcalloc(n + 1, sizeof *in);
        for (size_t i = 0; i < n; i++)
            in[i] = (struct db_file_in){files[i].path, files[i].data, files[i].len};
        rc = lesson_files_write(dir, in, n, overwrite, err);
        free(in);
    }
    db_files_free(files, n);
    db_pack_fini(&pack);
    return rc;
}

bool lesson_builtin_marker(const char *path)
{
    return path && strcmp(path, LESSON_BUILTIN_MARKER) == 0;
}
