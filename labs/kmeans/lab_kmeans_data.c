/*
 * lab_kmeans_data.c — the k-means lab's points: Gaussian blobs generated
 * from a seed, points read from a CSV or raw float32 file (every bad value
 * reported with its file and line, or point), the random initial centres,
 * and writing centres back out as CSV.
 *
 * Numbers are read and written with '.' as the decimal point whatever the
 * locale (core_num_parse / core_num_format).
 */
#include "labs/kmeans/lab_kmeans.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define KM_CSV_MAX_BYTES ((size_t)4 << 30) /* a bigger data set belongs in a float32 file */
#define KM_FIELD_MAX 80                    /* longest number text we read */
#define KM_STOP_WORK ((size_t)1 << 18)     /* coordinates between two looks at `stop` */

/* ---- formats ---------------------------------------------------------------- */

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcasecmp(s + n - m, suffix) == 0;
}

int lab_km_format_pick(const char *path, const char *fmt_param, const char *what,
                       enum km_format *out, struct core_err *err)
{
    if (strcmp(fmt_param, "csv") == 0) {
        *out = KM_FMT_CSV;
        return 0;
    }
    if (strcmp(fmt_param, "f32") == 0) {
        *out = KM_FMT_F32;
        return 0;
    }
    if (ends_with(path, ".csv") || ends_with(path, ".txt")) {
        *out = KM_FMT_CSV;
        return 0;
    }
    if (ends_with(path, ".f32") || ends_with(path, ".bin") || ends_with(path, ".raw")) {
        *out = KM_FMT_F32;
        return 0;
    }
    if (strcmp(what, "file") != 0) /* `format` is the points file's alone */
        return core_err_set(err, CORE_ERR_INVALID,
                            "kmeans: cannot tell the format of %s '%s' from its name: name it "
                            "*.csv (CSV with a header) or *.f32 (raw float32)",
                            what, path);
    return core_err_set(err, CORE_ERR_INVALID,
                        "kmeans: cannot tell the format of %s '%s' from its name (.csv is CSV, "
                        ".f32/.bin/.raw raw float32): set format=csv or format=f32",
                        what, path);
}

double lab_km_coord_limit(int d)
{
    /* |x|, |c| <= L gives (x - c)^2 <= 4 L^2 = FLT_MAX / (4 d) per term:
     * a sum of d terms stays 4 times below FLT_MAX, rounding included. */
    return 0.5 * sqrt((double)FLT_MAX / (4.0 * (double)(d > 0 ? d : 1)));
}

/* Every look at `stop` while reading or generating comes after about
 * KM_STOP_WORK coordinates, whatever d is: that bounds the cancel latency. */
static size_t km_stop_every(int d)
{
    size_t e = KM_STOP_WORK / (size_t)(d > 0 ? d : 1);
    return e > 0 ? e : 1;
}

/* ---- CSV ---------------------------------------------------------------------- */

struct csv {
    const char *path, *what;
    size_t line; /* 1-based number of the line being read */
    int d;       /* columns (0 while reading the header: no size limit) */
};

static bool is_blank(char ch)
{
    return ch == ' ' || ch == '\t';
}

/* Reads one field [s, e) as a finite float. 0, or an error naming the line
 * and column. */
static int csv_number(const struct csv *cv, const char *s, const char *e, int col, float *out,
                      struct core_err *err)
{
    while (s < e && is_blank(*s))
        s++;
    while (e > s && is_blank(e[-1]))
        e--;
    size_t len = (size_t)(e - s);
    char buf[KM_FIELD_MAX + 1];
    if (len == 0)
        return core_err_set(err, CORE_ERR_INVALID,
                            "kmeans: %s '%s' line %zu, column %d: empty field, expected a number",
                            cv->what, cv->path, cv->line, col);
    if (memchr(s, '\0', len))
        return core_err_set(err, CORE_ERR_INVALID,
                            "kmeans: %s '%s' line %zu, column %d: a NUL byte, expected a number "
                            "(is it a UTF-8 text file?)",
                            cv->what, cv->path, cv->line, col);
    if (len > KM_FIELD_MAX)
        return core_err_set(err, CORE_ERR_INVALID,
                            "kmeans: %s '%s' line %zu, column %d: '%.20s...' is too long for a "
                            "number (more than %d characters)",
                            cv->what, cv->path, cv->line, col, s, KM_FIELD_MAX);
    memcpy(buf, s, len);
    buf[len] = '\0';
    double v; /* inf and nan are read, to be refused below as not finite */
    if (core_num_parse(buf, len, CORE_NUM_NONFINITE, &v, NULL, NULL) != 0 && !isinf(v))
        return core_err_set(err, CORE_ERR_INVALID,
                            "kmeans: %s '%s' line %zu, column %d: '%s' is not a number", cv->what,
                            cv->path, cv->line, col, buf);
    if (!isfinite(v) || fabs(v) > FLT_MAX)
        return core_err_set(err, CORE_ERR_INVALID,
                            "kmeans: %s '%s' line %zu, column %d: '%s' is not a finite float32 "
                            "number",
                            cv->what, cv->path, cv->line, col, buf);
    if (cv->d > 0 && fabs(v) > lab_km_coord_limit(cv->d))
        return core_err_set(err, CORE_ERR_INVALID,
                            "kmeans: %s '%s' line %zu, column %d: '%s' is too large: with d = %d "
                            "coordinates must lie within +-%.3g, or squared distances overflow "
                            "float32 (scale the data down)",
                            cv->what, cv->path, cv->line, col, buf, cv->d,
                            lab_km_coord_limit(cv->d));
    *out = (float)v;
    return 0;
}

/* The end of the line that starts at p (at '\n' or end), without a '\r'. */
static const char *line_end(const char *p, const char *end, const char **next)
{
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *e = nl ? nl : end;
    *next = nl ? nl + 1 : end;
    if (e > p && e[-1] == '\r')
        e--;
    return e;
}

static bool line_blank(const char *s, const char *e)
{
    for (; s < e; s++)
        if (!is_blank(*s))
            return false;
    return true;
}

/* The whole file into *out (NUL-terminated, caller frees), read in 1 MiB
 * pieces with a look at `stop` after each: a big file's read can be
 * cancelled. At most KM_CSV_MAX_BYTES. */
static int km_slurp(const char *path, const char *what, bool (*stop)(void *), void *ud, char **out,
                    size_t *len, struct core_err *err)
{
    enum { PIECE = 1 << 20 };
    int rc = 0;
    char *buf = NULL;
    size_t have = 0, cap = 0;
    *out = NULL;
    *len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return core_err_set(err, errno == ENOENT ? CORE_ERR_NOTFOUND : CORE_ERR_IO,
                            "kmeans: %s '%s': %s", what, path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        rc = core_err_set(err, CORE_ERR_IO, "kmeans: %s '%s': %s", what, path, strerror(errno));
        goto out;
    }
    if (!S_ISREG(st.st_mode)) {
        rc = core_err_set(err, CORE_ERR_INVALID, "kmeans: %s '%s' is %s, not a points file", what,
                          path, S_ISDIR(st.st_mode) ? "a directory" : "not a regular file");
        goto out;
    }
    if ((size_t)st.st_size > KM_CSV_MAX_BYTES)
        goto too_big;
    cap = (size_t)st.st_size + PIECE + 1; /* room to see the end of the file in one more read */
    buf = core_xmalloc(cap);
    for (;;) {
        if (have + PIECE + 1 > cap) { /* the file grew while we read it */
            cap = 2 * cap;
            buf = core_xrealloc(buf, cap);
        }
        ssize_t got = read(fd, buf + have, PIECE);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            rc = core_err_set(err, CORE_ERR_IO, "kmeans: %s '%s': %s", what, path, strerror(errno));
            goto out;
        }
        if (got == 0)
            break;
        have += (size_t)got;
        if (have > KM_CSV_MAX_BYTES)
            goto too_big;
        if (stop && stop(ud)) {
            rc = core_err_set(err, CORE_ERR_CANCELLED, "cancelled");
            goto out;
        }
    }
    buf[have] = '\0';
    *out = buf;
    *len = have;
    buf = NULL;
    goto out;
too_big:
    rc = core_err_set(err, CORE_ERR_INVALID,
                      "kmeans: %s '%s' has more than the %zu bytes a CSV file may have (write a "
                      "big data set as raw float32)",
                      what, path, KM_CSV_MAX_BYTES);
out:
    free(buf);
    close(fd);
    return rc;
}

static int csv_read(const char *path, const char *what, float *x, size_t n_take, size_t *n_out,
                    int *d_out, bool (*stop)(void *), void *ud, struct core_err *err)
{
    char *buf = NULL;
    size_t len = 0, n = 0;
    int d = 0, rc;
    struct csv cv = {path, what, 1, 0};

    if ((rc = km_slurp(path, what, stop, ud, &buf, &len, err)) != 0)
        goto out;
    const char *p = buf, *end = buf + len, *next;
    if (len >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0) /* a UTF-8 byte order mark */
        p += 3;
    const char *le = line_end(p, end, &next);
    if (line_blank(p, le)) {
        rc = core_err_set(err, CORE_ERR_INVALID,
                          "kmeans: %s '%s' line 1: expected a header line naming the columns "
                          "(such as x1,x2,x3), found %s",
                          what, path, len == 0 ? "an empty file" : "an empty line");
        goto out;
    }
    /* The header: its fields count the columns. All-numeric fields mean
     * the header is missing, and the first point would be lost. */
    bool all_numbers = true;
    d = 1;
    for (const char *s = p; s < le; s++)
        d += *s == ',';
    for (const char *s = p; s <= le && all_numbers;) {
        const char *comma = memchr(s, ',', (size_t)(le - s));
        const char *fe = comma ? comma : le;
        float v;
        struct core_err ignore;
        all_numbers = csv_number(&cv, s, fe, 1, &v, &ignore) == 0;
        s = fe + 1;
    }
    if (all_numbers) {
        rc = core_err_set(err, CORE_ERR_INVALID,
                          "kmeans: %s '%s' line 1: the first line must be a header naming the "
                          "columns, but it holds numbers (add a line such as x1,x2,...)",
                          what, path);
        goto out;
    }
    if (d > KERN_KM_MAX_D) {
        rc = core_err_set(err, CORE_ERR_INVALID,
                          "kmeans: %s '%s' line 1: the header names %d columns; at most %d "
                          "dimensions are allowed",
                          what, path, d, KERN_KM_MAX_D);
        goto out;
    }
    cv.d = d; /* from here on numbers must also be small enough */
    const size_t every = km_stop_every(d);
    for (p = next; p < end && !(x && n >= n_take); p = next) {
        cv.line++;
        le = line_end(p, end, &next);
        if (line_blank(p, le))
            continue;
        if (stop && n % every == 0 && stop(ud)) {
            rc = core_err_set(err, CORE_ERR_CANCELLED, "cancelled");
            goto out;
        }
        int col = 0;
        for (const char *s = p; s <= le; col++) {
            const char *comma = memchr(s, ',', (size_t)(le - s));
            const char *fe = comma ? comma : le;
            if (col >= d) {
                int found = col + 1;
                for (const char *q = fe; q < le; q++)
                    found += *q == ',';
                rc = core_err_set(err, CORE_ERR_INVALID,
                                  "kmeans: %s '%s' line %zu: expected %d numbers (the header "
                                  "names %d columns), found %d",
                                  what, path, cv.line, d, d, found);
                goto out;
            }
            float v;
            if ((rc = csv_number(&cv, s, fe, col + 1, &v, err)) != 0)
                goto out;
            if (x)
                x[n * (size_t)d + (size_t)col] = v;
            s = fe + 1;
        }
        if (col < d) {
            rc = core_err_set(err, CORE_ERR_INVALID,
                              "kmeans: %s '%s' line %zu: expected %d numbers (the header names "
                              "%d columns), found %d",
                              what, path, cv.line, d, d, col);
            goto out;
        }
        n++;
    }
    if (n == 0) {
        rc = core_err_set(err, CORE_ERR_INVALID, "kmeans: %s '%s' has no points after its header",
                          what, path);
        goto out;
    }
    if (x && n < n_take) {
        rc = core_err_set(err, CORE_ERR_INVALID, "kmeans: %s '%s' has %zu points, fewer than %zu",
                          what, path, n, n_take);
        goto out;
    }
    *n_out = n;
    *d_out = d;
    rc = 0;
out:
    free(buf);
    return rc;
}

/* ---- raw float32 ----------------------------------------------------------------- */

/* The values v[0..cnt), coordinates i0.. of the file, are finite and small
 * enough; an error names the point and the coordinate. */
static int f32_values_ok(const char *path, const char *what, int d, const float *v, size_t cnt,
                         size_t i0, struct core_err *err)
{
    const double lim = lab_km_coord_limit(d);
    for (size_t q = 0; q < cnt; q++) {
        if (isfinite(v[q]) && fabs((double)v[q]) <= lim)
            continue;
        size_t i = i0 + q;
        if (!isfinite(v[q]))
            return core_err_set(err, CORE_ERR_INVALID,
                                "kmeans: %s '%s': point %zu (byte offset %zu), coordinate %zu, is "
                                "not a finite number (%g)",
                                what, path, i / (size_t)d + 1, i * 4, i % (size_t)d + 1,
                                (double)v[q]);
        return core_err_set(err, CORE_ERR_INVALID,
                            "kmeans: %s '%s': point %zu (byte offset %zu), coordinate %zu, is "
                            "too large (%g): with d = %d coordinates must lie within +-%.3g, or "
                            "squared distances overflow float32 (scale the data down)",
                            what, path, i / (size_t)d + 1, i * 4, i % (size_t)d + 1, (double)v[q],
                            d, lim);
    }
    return 0;
}

static int f32_read(const char *path, const char *what, int d, float *x, size_t n_take,
                    size_t *n_out, int *d_out, bool (*stop)(void *), void *ud, struct core_err *err)
{
    int rc = 0;
    float *scratch = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return core_err_set(err, errno == ENOENT ? CORE_ERR_NOTFOUND : CORE_ERR_IO,
                            "kmeans: %s '%s': %s", what, path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        rc = core_err_set(err, CORE_ERR_INVALID, "kmeans: %s '%s' is not a regular file", what,
                          path);
        goto out;
    }
    size_t pb = 4 * (size_t)d, size = (size_t)st.st_size;
    if (size == 0) {
        rc = core_err_set(err, CORE_ERR_INVALID, "kmeans: %s '%s' is empty: it has no points", what,
                          path);
        goto out;
    }
    if (size % pb != 0) {
        rc = core_err_set(err, CORE_ERR_INVALID,
                          "kmeans: %s '%s' has %zu bytes, not a whole number of points of d = "
                          "%d float32 values (%zu bytes each): is d right?",
                          what, path, size, d, pb);
        goto out;
    }
    size_t n = size / pb;
    if (x || n_take > 0) {
        if (n_take > n) {
            rc = core_err_set(err, CORE_ERR_INVALID,
                              "kmeans: %s '%s' has %zu points, fewer than %zu", what, path, n,
                              n_take);
            goto out;
        }
        /* Into x, or (x NULL: checking only) through a scratch buffer, in
         * whole points; every chunk is checked as it arrives. */
        const size_t chunk_pts = km_stop_every(d);
        if (!x)
            scratch = core_xmalloc(chunk_pts * pb);
        for (size_t i0 = 0; i0 < n_take; i0 += chunk_pts) {
            size_t cnt = n_take - i0 < chunk_pts ? n_take - i0 : chunk_pts;
            float *dst = x ? x + i0 * (size_t)d : scratch;
            size_t want = cnt * pb, got = 0;
            while (got < want) {
                ssize_t r = read(fd, (char *)dst + got, want - got);
                if (r < 0 && errno == EINTR)
                    continue;
                if (r <= 0) {
                    rc = core_err_set(err, CORE_ERR_IO, "kmeans: %s '%s': %s", what, path,
                                      r < 0 ? strerror(errno) : "ended early");
                    goto out;
                }
                got += (size_t)r;
            }
            if ((rc = f32_values_ok(path, what, d, dst, cnt * (size_t)d, i0 * (size_t)d, err)) != 0)
                goto out;
            if (stop && stop(ud)) {
                rc = core_err_set(err, CORE_ERR_CANCELLED, "cancelled");
                goto out;
            }
        }
    }
    *n_out = n;
    *d_out = d;
out:
    free(scratch);
    close(fd);
    return rc;
}

int lab_km_points_read(const char *path, enum km_format fmt, const char *what, int d_in, float *x,
                       size_t n_take, size_t *n_out, int *d_out, bool (*stop)(void *), void *ud,
                       struct core_err *err)
{
    if (fmt == KM_FMT_CSV)
        return csv_read(path, what, x, n_take, n_out, d_out, stop, ud, err);
    return f32_read(path, what, d_in, x, n_take, n_out, d_out, stop, ud, err);
}

/* ---- generated points -------------------------------------------------------------- */

static uint64_t km_mix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double km_u01(uint64_t *s)
{
    return (double)(km_mix(s) >> 11) * 0x1.0p-53;
}

bool lab_km_generate(float *x, size_t n, int d, int k, double spread, uint64_t seed,
                     bool (*stop)(void *), void *ud)
{
    const double two_pi = 6.283185307179586;
    double *blob = core_xmalloc((size_t)k * (size_t)d * sizeof *blob);
    uint64_t s = seed ^ 0x626c6f6263656e74ull; /* "blobcent": a stream of its own */
    for (size_t q = 0; q < (size_t)k * (size_t)d; q++)
        blob[q] = -10.0 + 20.0 * km_u01(&s);
    bool done = true;
    const size_t every = km_stop_every(d);
    for (size_t i = 0; i < n; i++) {
        if (i % every == 0 && i > 0 && stop && stop(ud)) {
            done = false;
            break;
        }
        /* every point from its own stream: the data set does not depend on
         * how it is produced */
        uint64_t ps = seed * 0xd1342543de82ef95ull + i * 0x9e3779b97f4a7c15ull + 1;
        km_mix(&ps);
        int b = (int)(km_mix(&ps) % (uint64_t)k);
        const double *c = blob + (size_t)b * (size_t)d;
        float *p = x + i * (size_t)d;
        for (int j = 0; j < d; j += 2) {
            double u1 = 1.0 - km_u01(&ps), u2 = km_u01(&ps); /* u1 in (0, 1] */
            double r = sqrt(-2.0 * log(u1));
            p[j] = (float)(c[j] + spread * r * cos(two_pi * u2));
            if (j + 1 < d)
                p[j + 1] = (float)(c[j + 1] + spread * r * sin(two_pi * u2));
        }
    }
    free(blob);
    return done;
}

void lab_km_init_random(size_t n, int k, uint64_t seed, size_t *out)
{
    /* Floyd's sampling: k distinct values below n in k draws. */
    uint64_t s = seed ^ 0x696e697469616c73ull; /* "initials" */
    int m = 0;
    for (size_t j = n - (size_t)k; j < n; j++) {
        size_t t = (size_t)(km_mix(&s) % (uint64_t)(j + 1));
        bool seen = false;
        for (int q = 0; q < m && !seen; q++)
            seen = out[q] == t;
        out[m++] = seen ? j : t;
    }
}

int lab_km_centres_save(const char *path, const float *c, int k, int d, bool overwrite,
                        struct core_err *err)
{
    struct core_buf b;
    core_buf_init(&b);
    for (int j = 0; j < d; j++)
        core_buf_printf(&b, "%sx%d", j ? "," : "", j + 1);
    core_buf_putc(&b, '\n');
    for (int i = 0; i < k; i++) {
        for (int j = 0; j < d; j++) {
            char num[32]; /* 9 digits read back as the same float32 */
            core_num_format(num, sizeof num, c[(size_t)i * (size_t)d + (size_t)j], 9);
            core_buf_printf(&b, "%s%s", j ? "," : "", num);
        }
        core_buf_putc(&b, '\n');
    }
    int rc = core_file_create(path, b.data, b.len, overwrite, KM_OVERWRITE_HOW, err);
    if (rc != 0)
        core_err_prefix(err, "kmeans: save");
    core_buf_fini(&b);
    return rc;
}
