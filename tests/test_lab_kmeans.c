/*
 * test_lab_kmeans.c — the k-means lab's pure parts: the map routine at every
 * vector width against the scalar reference (bit for bit), the CSV and
 * float32 loaders and their error messages (file and line), the straggler
 * syntax, the fault schedule, the reduce (empty clusters keep their
 * centre), the generated points and the random initial centres.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "labs/kmeans/lab_kmeans.h"
#include "lab_test_util.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- helpers ------------------------------------------------------------------ */

static const char *tmp_path; /* the latest tmp_file */

/* A file of the test's own in WB_TEST_TMP, with the given bytes. */
static const char *tmp_file(const char *name, const void *bytes, size_t n)
{
    return tmp_path = lab_test_tmp_file("km", name, bytes, n);
}

static const char *tmp_text(const char *name, const char *text)
{
    return tmp_file(name, text, strlen(text));
}

static uint64_t rng_state = 12345;
static float frand(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (float)((rng_state >> 40) % 20001) / 1000.0f - 10.0f;
}

/* ---- the map routine ---------------------------------------------------------------- */

/* Every width gives the reference's labels, counts, sums and SSE, bit for
 * bit, for dimensions and cluster counts around the vector widths. */
static void test_assign_widths(void **state)
{
    (void)state;
    const int ds[] = {1, 3, 8, 16, 19, 40};
    const int ks[] = {1, 3, 4, 16, 17, 50};
    const size_t n = 1003; /* not a multiple of any width */
    float *x = malloc(n * 40 * sizeof *x), *c = malloc(50 * 40 * sizeof *c);
    int32_t *lab_ref = malloc(n * sizeof *lab_ref), *lab = malloc(n * sizeof *lab);
    double *s_ref = malloc(50 * 40 * sizeof *s_ref), *s = malloc(50 * 40 * sizeof *s);
    int64_t cnt_ref[50], cnt[50];
    for (size_t i = 0; i < n * 40; i++)
        x[i] = frand();
    for (size_t di = 0; di < sizeof ds / sizeof ds[0]; di++)
        for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++) {
            int d = ds[di], k = ks[ki];
            for (int i = 0; i < k * d; i++)
                c[i] = frand();
            memset(s_ref, 0, (size_t)k * (size_t)d * sizeof *s_ref);
            memset(cnt_ref, 0, sizeof cnt_ref);
            double sse_ref = kern_kmeans_assign_lanes(1, x, n, d, c, k, lab_ref, s_ref, cnt_ref);
            const int lanes[] = {4, 8, 16, 0};
            for (int li = 0; li < 4; li++) {
                memset(s, 0, (size_t)k * (size_t)d * sizeof *s);
                memset(cnt, 0, sizeof cnt);
                double sse = li < 3
                                 ? kern_kmeans_assign_lanes(lanes[li], x, n, d, c, k, lab, s, cnt)
                                 : kern_kmeans_assign(x, n, d, c, k, lab, s, cnt);
                if (memcmp(lab, lab_ref, n * sizeof *lab) != 0)
                    fail_msg("labels differ at lanes %d, d %d, k %d", lanes[li], d, k);
                assert_memory_equal(cnt, cnt_ref, (size_t)k * sizeof *cnt);
                assert_memory_equal(s, s_ref, (size_t)k * (size_t)d * sizeof *s);
                assert_memory_equal(&sse, &sse_ref, sizeof sse);
            }
            /* without sums: the same labels and SSE */
            double sse2 = kern_kmeans_assign(x, n, d, c, k, lab, NULL, NULL);
            assert_memory_equal(&sse2, &sse_ref, sizeof sse2);
            assert_memory_equal(lab, lab_ref, n * sizeof *lab);
            int64_t total = 0;
            for (int q = 0; q < k; q++)
                total += cnt_ref[q];
            assert_int_equal(total, (int64_t)n);
        }
    assert_true(kern_kmeans_lanes() == 4 || kern_kmeans_lanes() == 8 || kern_kmeans_lanes() == 16);
    free(x);
    free(c);
    free(lab_ref);
    free(lab);
    free(s_ref);
    free(s);
}

/* The definition: float sums in coordinate order; nearest centre; ties to
 * the lower index; every point's coordinates added to its cluster. */
static void test_assign_semantics(void **state)
{
    (void)state;
    const float x[] = {1, 2, 3};
    const float zero[] = {0, 0, 0};
    assert_true(kern_kmeans_dist(x, zero, 3) == 14.0f);
    /* centres 0 and 2 are the same point: 2 never wins */
    const float c[] = {0, 0, 5, 5, 0, 0};
    const float p[] = {0.5f, 0, 4, 4, 0, 1, 6, 5, 0, 0};
    int32_t lab[5];
    double sums[6] = {0};
    int64_t cnt[3] = {0};
    for (int lanes = 1; lanes <= 16; lanes *= 2) {
        if (lanes == 2)
            continue;
        memset(sums, 0, sizeof sums);
        memset(cnt, 0, sizeof cnt);
        double sse = kern_kmeans_assign_lanes(lanes, p, 5, 2, c, 3, lab, sums, cnt);
        const int32_t want[] = {0, 1, 0, 1, 0};
        assert_memory_equal(lab, want, sizeof want);
        assert_int_equal(cnt[0], 3);
        assert_int_equal(cnt[1], 2);
        assert_int_equal(cnt[2], 0);
        assert_true(sums[0] == 0.5 && sums[1] == 1 && sums[2] == 10 && sums[3] == 9);
        assert_true(sse == 0.25 + 2 + 1 + 1 + 0);
    }
}

/* ---- loading points ------------------------------------------------------------------ */

static int read_csv(const char *text, float *x, size_t take, size_t *n, int *d,
                    struct core_err *err)
{
    const char *path = tmp_text("p.csv", text);
    enum km_format f;
    assert_int_equal(lab_km_format_pick(path, "auto", "file", &f, err), 0);
    assert_int_equal(f, KM_FMT_CSV);
    return lab_km_points_read(path, f, "file", 0, x, take, n, d, NULL, NULL, err);
}

static void test_csv_good(void **state)
{
    (void)state;
    struct core_err err;
    size_t n = 0;
    int d = 0;
    const char *text = "\xef\xbb\xbfx, y\r\n1,2\r\n\r\n 3 , 4.5 \n   \n-1e3,0.125\n";
    assert_int_equal(read_csv(text, NULL, 0, &n, &d, &err), 0);
    assert_int_equal(n, 3);
    assert_int_equal(d, 2);
    float x[6];
    assert_int_equal(read_csv(text, x, 3, &n, &d, &err), 0);
    const float want[] = {1, 2, 3, 4.5f, -1000, 0.125f};
    assert_memory_equal(x, want, sizeof want);
    /* the first n only */
    float y[2];
    assert_int_equal(read_csv(text, y, 1, &n, &d, &err), 0);
    assert_true(y[0] == 1 && y[1] == 2);
    unlink(tmp_path);
}

/* Every bad file says which file, which line and what is wrong. */
static void test_csv_errors(void **state)
{
    (void)state;
    struct {
        const char *text, *want1, *want2;
    } cases[] = {
        {"a,b\n1,2\n1,2,3\n", "line 3: expected 2 numbers", "found 3"},
        {"a,b\n1,2\n4\n", "line 3: expected 2 numbers", "found 1"},
        {"a,b\n1,abc\n", "line 2, column 2: 'abc' is not a number", "p.csv"},
        {"a,b\n1,\n", "line 2, column 2: empty field", "p.csv"},
        {"a,b\n\n\n1,2 3\n", "line 4, column 2: '2 3' is not a number", "p.csv"},
        {"a,b\n1,inf\n", "line 2, column 2: 'inf' is not a finite float32 number", "p.csv"},
        {"a,b\n1,1e39\n", "line 2, column 2: '1e39' is not a finite float32", "p.csv"},
        {"a,b\n1,nan\n", "line 2, column 2: 'nan' is not a finite", "p.csv"},
        {"a,b\n", "has no points after its header", "p.csv"},
        {"1,2\n3,4\n", "line 1: the first line must be a header", "x1,x2"},
        {"", "line 1: expected a header line", "empty file"},
        {"\n1,2\n", "line 1: expected a header line", "empty line"},
        /* finite, but its square would overflow float32 */
        {"a,b\n1,2\n1e30,1\n", "line 3, column 1: '1e30' is too large", "with d = 2"},
        {"a,b\n1,0."
         "000000000000000000000000000000000000000000000000000000000000000000000000000000001\n",
         "line 2, column 2: '0.000000000000000000...' is too long", "more than 80 characters"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct core_err err;
        size_t n;
        int d;
        core_err_clear(&err);
        if (read_csv(cases[i].text, NULL, 0, &n, &d, &err) == 0)
            fail_msg("case %zu was accepted", i);
        assert_int_equal(err.code, CORE_ERR_INVALID);
        assert_contains(err.msg, "kmeans: file '");
        assert_contains(err.msg, cases[i].want1);
        assert_contains(err.msg, cases[i].want2);
    }
    unlink(tmp_path);
    struct core_err err;
    size_t n;
    int d;
    /* a NUL byte is not the end of a number: "1\0junk" is not 1 */
    const char nul[] = "a,b\n1\0junk,2\n";
    const char *path = tmp_file("nul.csv", nul, sizeof nul - 1);
    assert_int_equal(
        lab_km_points_read(path, KM_FMT_CSV, "file", 0, NULL, 0, &n, &d, NULL, NULL, &err),
        CORE_ERR_INVALID);
    assert_contains(err.msg, "line 2, column 1: a NUL byte");
    unlink(path);
    /* the largest coordinate allowed still gives finite squared distances */
    for (int dd = 1; dd <= KERN_KM_MAX_D; dd *= 2) {
        float a[KERN_KM_MAX_D], b[KERN_KM_MAX_D];
        for (int j = 0; j < dd; j++) {
            a[j] = (float)lab_km_coord_limit(dd);
            b[j] = -a[j];
        }
        assert_true(isfinite(kern_kmeans_dist(a, b, dd)));
    }
    assert_int_not_equal(lab_km_points_read("/nonexistent/dir/p.csv", KM_FMT_CSV, "file", 0, NULL,
                                            0, &n, &d, NULL, NULL, &err),
                         0);
    assert_contains(err.msg, "/nonexistent/dir/p.csv");
    enum km_format f;
    assert_int_equal(lab_km_format_pick("data.xyz", "auto", "file", &f, &err), CORE_ERR_INVALID);
    assert_contains(err.msg, "format=csv or format=f32");
    /* `format` is for file only: init_file is told to use a known name */
    assert_int_equal(lab_km_format_pick("c.dat", "auto", "init_file", &f, &err), CORE_ERR_INVALID);
    assert_contains(err.msg, "init_file 'c.dat'");
    assert_contains(err.msg, "name it *.csv");
    assert_true(strstr(err.msg, "format=") == NULL);
    assert_int_equal(lab_km_format_pick("data.xyz", "f32", "file", &f, &err), 0);
    assert_int_equal(f, KM_FMT_F32);
    assert_int_equal(lab_km_format_pick("DATA.F32", "auto", "file", &f, &err), 0);
    assert_int_equal(f, KM_FMT_F32);
}

/* CSV files use '.' whatever the locale: the reader must not follow
 * LC_NUMERIC (the TUI calls setlocale). Tried in a decimal-comma locale
 * when the machine has one. */
static void test_csv_locale(void **state)
{
    (void)state;
    const char *comma[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8", "nl_NL.UTF-8"};
    bool set = false;
    for (size_t i = 0; i < sizeof comma / sizeof comma[0] && !set; i++)
        set = setlocale(LC_NUMERIC, comma[i]) != NULL;
    if (!set)
        printf("note: no decimal-comma locale installed; checked in the C locale only\n");
    struct core_err err;
    size_t n;
    int d;
    float x[2];
    assert_int_equal(read_csv("a,b\n0.5,1.25\n", x, 1, &n, &d, &err), 0);
    assert_true(x[0] == 0.5f && x[1] == 1.25f);
    setlocale(LC_NUMERIC, "C");
    unlink(tmp_path);
}

static void test_f32(void **state)
{
    (void)state;
    struct core_err err;
    size_t n;
    int d;
    const float pts[] = {1, 2, 3, 4, 5, 6};
    char good[512];
    snprintf(good, sizeof good, "%s", tmp_file("p.f32", pts, sizeof pts));
    const char *path = good;
    assert_int_equal(
        lab_km_points_read(path, KM_FMT_F32, "file", 3, NULL, 0, &n, &d, NULL, NULL, &err), 0);
    assert_int_equal(n, 2);
    assert_int_equal(d, 3);
    float x[6];
    assert_int_equal(
        lab_km_points_read(path, KM_FMT_F32, "file", 3, x, 2, &n, &d, NULL, NULL, &err), 0);
    assert_memory_equal(x, pts, sizeof pts);
    /* 24 bytes are not whole points of d = 4 */
    assert_int_equal(
        lab_km_points_read(path, KM_FMT_F32, "file", 4, NULL, 0, &n, &d, NULL, NULL, &err),
        CORE_ERR_INVALID);
    assert_contains(err.msg, "24 bytes, not a whole number of points of d = 4");
    /* more points asked for than there are */
    assert_int_equal(
        lab_km_points_read(path, KM_FMT_F32, "file", 3, x, 3, &n, &d, NULL, NULL, &err),
        CORE_ERR_INVALID);
    assert_contains(err.msg, "has 2 points, fewer than 3");
    /* a NaN names its point and coordinate */
    unlink(good);
    float bad[] = {1, 2, 3, 4, NAN, 6};
    path = tmp_file("bad.f32", bad, sizeof bad);
    assert_int_equal(
        lab_km_points_read(path, KM_FMT_F32, "file", 3, x, 2, &n, &d, NULL, NULL, &err),
        CORE_ERR_INVALID);
    assert_contains(err.msg, "point 2 (byte offset 16), coordinate 2, is not a finite number");
    /* checked without storing: x NULL and n_take points */
    assert_int_equal(
        lab_km_points_read(path, KM_FMT_F32, "file", 3, NULL, 2, &n, &d, NULL, NULL, &err),
        CORE_ERR_INVALID);
    assert_contains(err.msg, "point 2 (byte offset 16), coordinate 2, is not a finite number");
    assert_int_equal(
        lab_km_points_read(path, KM_FMT_F32, "file", 3, NULL, 1, &n, &d, NULL, NULL, &err),
        0); /* the bad value is past the points asked for */
    assert_int_equal(n, 2);
    unlink(path);
    float huge[] = {1, 2, 3, 4, 5, 3e37f};
    path = tmp_file("huge.f32", huge, sizeof huge);
    assert_int_equal(
        lab_km_points_read(path, KM_FMT_F32, "file", 3, NULL, 2, &n, &d, NULL, NULL, &err),
        CORE_ERR_INVALID);
    assert_contains(err.msg, "point 2 (byte offset 20), coordinate 3, is too large");
    unlink(path);
    path = tmp_file("empty.f32", "", 0);
    assert_int_equal(
        lab_km_points_read(path, KM_FMT_F32, "init_file", 3, NULL, 0, &n, &d, NULL, NULL, &err),
        CORE_ERR_INVALID);
    assert_contains(err.msg, "kmeans: init_file '");
    assert_contains(err.msg, "is empty");
    unlink(path);
}

/* Centres written by save read back bit for bit. */
static void test_save_roundtrip(void **state)
{
    (void)state;
    struct core_err err;
    float c[6];
    for (int i = 0; i < 6; i++)
        c[i] = frand() / 3.0f;
    const char *path = tmp_text("c.csv", "");
    char keep[512];
    snprintf(keep, sizeof keep, "%s", path);
    assert_int_equal(lab_km_centres_save(keep, c, 2, 3, true, &err), 0);
    float back[6];
    size_t n;
    int d;
    assert_int_equal(
        lab_km_points_read(keep, KM_FMT_CSV, "file", 0, back, 2, &n, &d, NULL, NULL, &err), 0);
    assert_int_equal(d, 3);
    assert_memory_equal(back, c, sizeof c);
    unlink(keep);
}

/* ---- configuration pieces ------------------------------------------------------------ */

/* The same key gives the same number; the numbers look uniform. */
static void test_fault_schedule(void **state)
{
    (void)state;
    double sum = 0;
    int below = 0;
    for (uint32_t it = 1; it <= 10; it++)
        for (uint32_t t = 0; t < 100; t++)
            for (uint32_t a = 1; a <= 10; a++) {
                double u = lab_km_fault_u(7, it, t, a);
                assert_true(u >= 0 && u < 1);
                assert_true(u == lab_km_fault_u(7, it, t, a));
                sum += u;
                below += u < 0.1;
            }
    assert_true(fabs(sum / 10000 - 0.5) < 0.02);
    assert_true(below > 800 && below < 1200);
    assert_true(lab_km_fault_u(7, 1, 0, 1) != lab_km_fault_u(8, 1, 0, 1));
    assert_true(lab_km_fault_u(7, 1, 0, 1) != lab_km_fault_u(7, 1, 0, 2));
    assert_true(lab_km_fault_u(7, 1, 0, 1) != lab_km_fault_u(7, 2, 0, 1));
    assert_true(lab_km_fault_u(7, 1, 0, 1) != lab_km_fault_u(7, 1, 1, 1));
}

/* Partials added in task order; an empty cluster keeps its centre. */
static void test_reduce(void **state)
{
    (void)state;
    /* T = 2 tasks, k = 3, d = 1 */
    const double psum[] = {1, 10, 0, 2, 20, 0};
    const int64_t pcnt[] = {1, 2, 0, 1, 2, 0};
    const double psse[] = {0.5, 0.25};
    float centres[] = {0, 0, 7};
    double sums[3];
    int64_t cnt[3];
    double shift;
    int empty, first;
    double sse =
        lab_km_reduce(psum, pcnt, psse, 2, 3, 1, centres, sums, cnt, &shift, &empty, &first);
    assert_true(sse == 0.75);
    assert_true(centres[0] == 1.5f && centres[1] == 7.5f && centres[2] == 7.0f);
    assert_int_equal(empty, 1);
    assert_int_equal(first, 2);
    assert_true(shift == 7.5);
    /* nothing moves: shift 0 */
    lab_km_reduce(psum, pcnt, psse, 2, 3, 1, centres, sums, cnt, &shift, &empty, &first);
    assert_true(shift == 0);
}

static void test_generate(void **state)
{
    (void)state;
    const size_t n = 3000;
    const int d = 5, k = 4;
    float *a = malloc(n * d * sizeof *a), *b = malloc(n * d * sizeof *b);
    assert_true(lab_km_generate(a, n, d, k, 1.0, 42, NULL, NULL));
    assert_true(lab_km_generate(b, n, d, k, 1.0, 42, NULL, NULL));
    assert_memory_equal(a, b, n * d * sizeof *a);
    assert_true(lab_km_generate(b, n, d, k, 1.0, 43, NULL, NULL));
    assert_memory_not_equal(a, b, n * d * sizeof *a);
    /* spread 0: every point is one of the k blob centres */
    assert_true(lab_km_generate(b, n, d, k, 0.0, 42, NULL, NULL));
    int distinct = 0;
    for (size_t i = 0; i < n && distinct <= k; i++) {
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = memcmp(b + i * d, b + j * d, d * sizeof *b) == 0;
        distinct += !seen;
    }
    assert_true(distinct >= 1 && distinct <= k);
    for (size_t i = 0; i < n * d; i++)
        assert_true(isfinite(b[i]) && b[i] >= -10 && b[i] < 10);
    free(a);
    free(b);
}

static void test_init_random(void **state)
{
    (void)state;
    size_t idx[64];
    for (int trial = 0; trial < 3; trial++) {
        size_t n = trial == 0 ? 64 : trial == 1 ? 100 : 1000000;
        lab_km_init_random(n, 64, (uint64_t)trial, idx);
        for (int i = 0; i < 64; i++) {
            assert_true(idx[i] < n);
            for (int j = 0; j < i; j++)
                assert_true(idx[i] != idx[j]);
        }
    }
    size_t again[64];
    lab_km_init_random(1000000, 64, 2, again);
    assert_memory_equal(idx, again, sizeof idx);
}

/* ---- cancelling a read or the generation ------------------------------------------------ */

static int stop_calls;
static bool count_stop(void *ud)
{
    (void)ud;
    stop_calls++;
    return false;
}

static bool stop_now(void *ud)
{
    (void)ud;
    return true;
}

/* `stop` is asked after every 2^18 values or so, whatever d is, while
 * reading a CSV file (also while its bytes come in) and while generating:
 * a wide data set is cancelled as quickly as a narrow one. */
static void test_stop_granularity(void **state)
{
    (void)state;
    struct core_err err;
    size_t n;
    int d;
    /* 3000 points of d = 256: 768000 values */
    struct core_buf b;
    core_buf_init(&b);
    for (int j = 0; j < 256; j++)
        core_buf_printf(&b, "%sx%d", j ? "," : "", j);
    core_buf_putc(&b, '\n');
    for (int i = 0; i < 3000; i++) {
        for (int j = 0; j < 256; j++)
            core_buf_printf(&b, "%s%d", j ? "," : "", (i + j) % 10);
        core_buf_putc(&b, '\n');
    }
    char path[512];
    snprintf(path, sizeof path, "%s", tmp_file("wide.csv", b.data, b.len));
    core_buf_fini(&b);
    float *x = malloc(3000 * 256 * sizeof *x);
    stop_calls = 0;
    assert_int_equal(
        lab_km_points_read(path, KM_FMT_CSV, "file", 0, x, 3000, &n, &d, count_stop, NULL, &err),
        0);
    assert_int_equal(d, 256);
    assert_true(stop_calls >= 3000 * 256 / (1 << 18));
    assert_int_equal(
        lab_km_points_read(path, KM_FMT_CSV, "file", 0, x, 3000, &n, &d, stop_now, NULL, &err),
        CORE_ERR_CANCELLED);
    unlink(path);
    /* a file of a few long lines: its bytes are read piece by piece */
    size_t big = (size_t)3 << 20;
    char *text = malloc(big);
    memset(text, ' ', big);
    memcpy(text, "a,b\n", 4);
    for (size_t at = (size_t)1 << 20; at < big; at += (size_t)1 << 20)
        memcpy(text + at - 5, "1,2\n", 4);
    snprintf(path, sizeof path, "%s", tmp_file("long.csv", text, big));
    free(text);
    stop_calls = 0;
    assert_int_equal(
        lab_km_points_read(path, KM_FMT_CSV, "file", 0, x, 2, &n, &d, count_stop, NULL, &err), 0);
    assert_true(stop_calls >= 3);
    unlink(path);
    /* generating 3000 points of d = 256: 768000 coordinates */
    stop_calls = 0;
    assert_true(lab_km_generate(x, 3000, 256, 4, 1.0, 1, count_stop, NULL));
    assert_true(stop_calls >= 2);
    free(x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_assign_widths),  cmocka_unit_test(test_assign_semantics),
        cmocka_unit_test(test_csv_good),       cmocka_unit_test(test_csv_errors),
        cmocka_unit_test(test_csv_locale),     cmocka_unit_test(test_f32),
        cmocka_unit_test(test_save_roundtrip), cmocka_unit_test(test_fault_schedule),
        cmocka_unit_test(test_reduce),         cmocka_unit_test(test_generate),
        cmocka_unit_test(test_init_random),    cmocka_unit_test(test_stop_granularity),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
