/*
 * test_kern_coalesce_model.c — the warp memory-transaction model, the bank
 * conflict count and the CPU references of the coalescing kernels. Pure
 * functions: every expected number is worked out by hand in a comment, or
 * checked against a brute-force count over many warps.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "kernels/kernels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static struct kern_warp_cost cost(int elem, long long offset, long long stride, int sector,
                                  int line)
{
    struct kern_access a = {elem, 32, offset, stride, sector, line};
    struct kern_warp_cost c;
    struct core_err err;
    if (kern_warp_cost(&a, &c, &err) != 0)
        fail_msg("kern_warp_cost: %s", err.msg);
    return c;
}

static void assert_near(double a, double b, double tol)
{
    if (!(fabs(a - b) <= tol))
        fail_msg("%.17g and %.17g differ by more than %g", a, b, tol);
}

/* The issue's cases, on a GPU: 4-byte floats, 32-byte sectors, 128-byte lines. */
static void test_issue_cases(void **state)
{
    (void)state;
    /* 32 consecutive floats: bytes 0..127, one line, four sectors, all used */
    struct kern_warp_cost c = cost(4, 0, 1, 32, 128);
    assert_int_equal(c.sectors, 4);
    assert_int_equal(c.lines, 1);
    assert_int_equal(c.bytes_used, 128);
    assert_int_equal(c.bytes_moved, 128);
    assert_near(c.efficiency, 1, 0);
    /* stride 2: bytes 0, 8, ..., 248: sectors 0..7 */
    c = cost(4, 0, 2, 32, 128);
    assert_int_equal(c.sectors, 8);
    assert_int_equal(c.lines, 2);
    assert_near(c.efficiency, 0.5, 0);
    /* stride 4: 16 sectors, 4 lines, a quarter used */
    c = cost(4, 0, 4, 32, 128);
    assert_int_equal(c.sectors, 16);
    assert_int_equal(c.lines, 4);
    assert_near(c.efficiency, 0.25, 0);
    /* stride 8 or more: every lane its own sector */
    for (int s = 8; s <= 64; s++) {
        c = cost(4, 0, s, 32, 128);
        assert_int_equal(c.sectors, 32);
        assert_near(c.efficiency, 4.0 / 32, 0);
    }
    assert_int_equal(cost(4, 0, 8, 32, 128).lines, 8);   /* 1024 bytes span */
    assert_int_equal(cost(4, 0, 32, 32, 128).lines, 32); /* one line per lane */
    /* offset 1: bytes 4..131 straddle sector 4 and line 1 */
    c = cost(4, 1, 1, 32, 128);
    assert_int_equal(c.sectors, 5);
    assert_int_equal(c.lines, 2);
    assert_near(c.efficiency, 128.0 / 160, 1e-15);
}

static void test_offsets(void **state)
{
    (void)state;
    /* offset 8 floats = 32 bytes: sector-aligned, still two lines */
    struct kern_warp_cost c = cost(4, 8, 1, 32, 128);
    assert_int_equal(c.sectors, 4);
    assert_int_equal(c.lines, 2);
    /* offset 32 floats = one line: aligned again */
    c = cost(4, 32, 1, 32, 128);
    assert_int_equal(c.sectors, 4);
    assert_int_equal(c.lines, 1);
    /* every offset not a multiple of 8 floats costs the fifth sector */
    for (int o = 0; o <= 32; o++)
        assert_int_equal(cost(4, o, 1, 32, 128).sectors, o % 8 ? 5 : 4);
}

static void test_element_sizes(void **state)
{
    (void)state;
    /* 16-byte elements (float4): 512 bytes, 16 sectors in 4 lines */
    struct kern_warp_cost c = cost(16, 0, 1, 32, 128);
    assert_int_equal(c.sectors, 16);
    assert_int_equal(c.lines, 4);
    assert_near(c.efficiency, 1, 0);
    /* 8-byte elements (double): 256 bytes, 8 sectors in 2 lines */
    c = cost(8, 0, 1, 32, 128);
    assert_int_equal(c.sectors, 8);
    assert_int_equal(c.lines, 2);
    /* doubles at stride 4: 32 bytes apart, one sector each, a quarter used */
    c = cost(8, 0, 4, 32, 128);
    assert_int_equal(c.sectors, 32);
    assert_near(c.efficiency, 0.25, 0);
    /* 1-byte elements: 32 bytes, one sector */
    c = cost(1, 0, 1, 32, 128);
    assert_int_equal(c.sectors, 1);
    assert_int_equal(c.lines, 1);
    /* 16-byte elements at offset 1: bytes 16..527, half a sector off, so
     * sectors 0..16 (17) in lines 0..4 (5) */
    c = cost(16, 1, 1, 32, 128);
    assert_int_equal(c.sectors, 17);
    assert_int_equal(c.lines, 5);
    assert_int_equal(c.bytes_moved, 17 * 32);
    assert_int_equal(c.bytes_used, 512);
}

static void test_cpu_lines_and_broadcast(void **state)
{
    (void)state;
    /* a CPU: 64-byte lines are the unit, sector = line */
    struct kern_warp_cost c = cost(4, 0, 1, 64, 64);
    assert_int_equal(c.sectors, 2);
    assert_int_equal(c.lines, 2);
    c = cost(4, 0, 16, 64, 64);
    assert_int_equal(c.sectors, 32);
    assert_near(c.efficiency, 4.0 / 64, 0);
    /* lines of 128 bytes with 128-byte "sectors": the old 1-vs-32 count */
    assert_int_equal(cost(4, 0, 1, 128, 128).sectors, 1);
    assert_int_equal(cost(4, 0, 32, 128, 128).sectors, 32);
    /* stride 0: every lane the same float, one sector */
    c = cost(4, 5, 0, 32, 128);
    assert_int_equal(c.sectors, 1);
    assert_int_equal(c.bytes_used, 4);
    assert_near(c.efficiency, 4.0 / 32, 0);
}

static void test_bad_access(void **state)
{
    (void)state;
    struct kern_warp_cost c = {0};
    struct core_err err;
    struct kern_access a = kern_access_gpu(0, 1);
    a.elem_bytes = 3;
    assert_int_equal(kern_warp_cost(&a, &c, &err), CORE_ERR_INVALID);
    assert_non_null(strstr(err.msg, "elem_bytes"));
    a = kern_access_gpu(-1, 1);
    assert_int_equal(kern_access_check(&a, &err), CORE_ERR_INVALID);
    assert_non_null(strstr(err.msg, "offset"));
    a = kern_access_gpu(0, -2);
    assert_int_equal(kern_access_check(&a, &err), CORE_ERR_INVALID);
    assert_non_null(strstr(err.msg, "stride"));
    a = kern_access_gpu(0, 1);
    a.sector_bytes = 24;
    assert_int_equal(kern_access_check(&a, &err), CORE_ERR_INVALID);
    assert_non_null(strstr(err.msg, "sector_bytes"));
    a = kern_access_gpu(0, 1);
    a.line_bytes = 48;
    assert_int_equal(kern_access_check(&a, &err), CORE_ERR_INVALID);
    assert_non_null(strstr(err.msg, "line_bytes"));
    a = kern_access_gpu(0, 1);
    a.lanes = 0;
    assert_int_equal(kern_access_check(&a, &err), CORE_ERR_INVALID);
    assert_non_null(strstr(err.msg, "lanes"));
    assert_int_equal(c.sectors, 0); /* untouched */
    a = kern_access_gpu(0, 0);
    assert_true(isnan(kern_stream_bytes(&a)));
    assert_true(isnan(kern_copy_fraction_stream(&a, 1)));
    a = kern_access_gpu(0, 1);
    assert_true(isnan(kern_copy_fraction_stream(&a, -1)));
}

/* Distinct sectors over `warps` consecutive warps, per element. */
static double brute_stream(const struct kern_access *a, int warps)
{
    long long n = (long long)warps * a->lanes;
    long long hi = (a->offset + (n - 1) * a->stride) * a->elem_bytes + a->elem_bytes;
    long long ns = hi / a->sector_bytes + 2;
    unsigned char *seen = calloc((size_t)ns, 1);
    long long count = 0;
    assert_non_null(seen);
    for (long long i = 0; i < n; i++) {
        long long first = (a->offset + i * a->stride) * a->elem_bytes;
        for (long long s = first / a->sector_bytes;
             s <= (first + a->elem_bytes - 1) / a->sector_bytes; s++)
            if (!seen[s]) {
                seen[s] = 1;
                count++;
            }
    }
    free(seen);
    return (double)count * a->sector_bytes / (double)n;
}

static void test_stream_bytes(void **state)
{
    (void)state;
    /* floats: 4 bytes per element up to... stride 8 and beyond: a sector each */
    for (int s = 1; s <= 32; s++) {
        struct kern_access a = kern_access_gpu(0, s);
        assert_near(kern_stream_bytes(&a), s < 8 ? 4.0 * s : 32.0, 0);
    }
    /* the offset changes what one warp touches, not what the run moves */
    struct kern_access a = kern_access_gpu(1, 1);
    assert_near(kern_stream_bytes(&a), 4, 0);
    /* against a brute-force count over 4096 warps, for many patterns */
    static const int elems[] = {1, 2, 4, 8, 16};
    static const int sectors[] = {32, 64};
    for (size_t e = 0; e < 5; e++)
        for (size_t k = 0; k < 2; k++)
            for (int s = 1; s <= 40; s += 3)
                for (int o = 0; o < 5; o += 2) {
                    struct kern_access b = {elems[e], 32, o, s, sectors[k], 128};
                    double exact = kern_stream_bytes(&b), brute = brute_stream(&b, 4096);
                    /* edge sectors of the run: at most two in 4096 warps */
                    if (!(fabs(exact - brute) <= 2.0 * sectors[k] / (4096.0 * 32) + 1e-12))
                        fail_msg("elem %d sector %d stride %d offset %d: model %g, count %g",
                                 elems[e], sectors[k], s, o, exact, brute);
                }
}

static void test_copy_fractions(void **state)
{
    (void)state;
    /* GPU, reads strided, writes coalesced, 4 + 4 useful bytes per element:
     * stride 2 moves 8 + 4 -> 8/12; stride 4: 16 + 4 -> 8/20;
     * stride >= 8: 32 + 4 -> 8/36 */
    struct kern_access a = kern_access_gpu(0, 1);
    assert_near(kern_copy_fraction_stream(&a, 1), 1, 1e-15);
    a.stride = 2;
    assert_near(kern_copy_fraction_stream(&a, 1), 8.0 / 12, 1e-15);
    a.stride = 4;
    assert_near(kern_copy_fraction_stream(&a, 1), 0.4, 1e-15);
    for (int s = 8; s <= 32; s++) {
        a.stride = s;
        assert_near(kern_copy_fraction_stream(&a, 1), 8.0 / 36, 1e-15);
    }
    /* the fraction never rises with the stride */
    for (int s = 2; s <= 32; s++) {
        struct kern_access p = kern_access_gpu(0, s - 1), q = kern_access_gpu(0, s);
        assert_true(kern_copy_fraction_stream(&q, 1) <= kern_copy_fraction_stream(&p, 1));
    }
    /* offset 1: the traffic is unchanged, but each request is 5 sectors
     * where 4 do: (128 + 128) / (160 + 128) */
    a = kern_access_gpu(1, 1);
    assert_near(kern_copy_fraction_stream(&a, 1), 1, 1e-15);
    assert_near(kern_copy_fraction_request(&a, 1), 256.0 / 288, 1e-15);
    a = kern_access_gpu(8, 1);
    assert_near(kern_copy_fraction_request(&a, 1), 1, 1e-15);
    /* a CPU: 64-byte lines, write-allocate (2 bytes moved per byte written):
     * the copy moves 4 + 8; stride 8 reads 32 per element: 12 / 40;
     * stride 16 and beyond a line each: 12 / 72 */
    struct kern_access c = {4, 32, 0, 8, 64, 64};
    assert_near(kern_copy_fraction_stream(&c, 2), 0.3, 1e-15);
    c.stride = 16;
    assert_near(kern_copy_fraction_stream(&c, 2), 12.0 / 72, 1e-15);
    c.stride = 32;
    assert_near(kern_copy_fraction_stream(&c, 2), 12.0 / 72, 1e-15);
    /* write_factor 0: reads only, the useful fraction of what is read */
    c.stride = 4;
    assert_near(kern_copy_fraction_stream(&c, 0), 0.25, 1e-15);
}

static void test_bank_ways(void **state)
{
    (void)state;
    /* a column of float tile[32][32]: words 0, 32, 64, ...: all in bank 0 */
    assert_int_equal(kern_bank_ways(32, 32, 32), 32);
    /* tile[32][33]: words 0, 33, 66, ...: banks 0, 1, 2, ... */
    assert_int_equal(kern_bank_ways(33, 32, 32), 1);
    /* a row: consecutive words, 32 banks */
    assert_int_equal(kern_bank_ways(1, 32, 32), 1);
    /* stride s: gcd(s, 32)-way */
    assert_int_equal(kern_bank_ways(2, 32, 32), 2);
    assert_int_equal(kern_bank_ways(4, 32, 32), 4);
    assert_int_equal(kern_bank_ways(6, 32, 32), 2);
    assert_int_equal(kern_bank_ways(16, 32, 32), 16);
    assert_int_equal(kern_bank_ways(3, 32, 32), 1);
    assert_int_equal(kern_bank_ways(64, 32, 32), 32);
    /* every lane the same word: broadcast, no conflict */
    assert_int_equal(kern_bank_ways(0, 32, 32), 1);
    /* half a warp at stride 32: 16-way */
    assert_int_equal(kern_bank_ways(32, 16, 32), 16);
    assert_int_equal(kern_bank_ways(32, 0, 32), 0);
    assert_int_equal(kern_bank_ways(-1, 32, 32), 0);
}

static void test_datasheet(void **state)
{
    (void)state;
    assert_near(kern_datasheet_gbs("NVIDIA H200"), 4800, 0);
    assert_near(kern_datasheet_gbs("NVIDIA H200 NVL"), 4800, 0);
    assert_near(kern_datasheet_gbs("NVIDIA H100 80GB HBM3"), 3350, 0);
    assert_near(kern_datasheet_gbs("NVIDIA GH200 480GB"), 0, 0);
    assert_near(kern_datasheet_gbs("NVIDIA GeForce RTX 4090"), 0, 0);
    assert_near(kern_datasheet_gbs(NULL), 0, 0);
}

static void test_kinds(void **state)
{
    (void)state;
    struct core_err err;
    assert_string_equal(kern_coal_kind_name(KERN_COAL_TRANSPOSE_PADDED), "transpose_padded");
    assert_string_equal(kern_coal_kind_name(KERN_COAL_MEMCPY), "memcpy");
    assert_string_equal(kern_coal_kind_name(99), "?");
    assert_int_equal(kern_coal_param_check(KERN_COAL_OFFSET, 32, &err), 0);
    assert_int_equal(kern_coal_param_check(KERN_COAL_OFFSET, 33, &err), CORE_ERR_INVALID);
    assert_non_null(strstr(err.msg, "offset"));
    assert_non_null(strstr(err.msg, "0 to 32"));
    assert_int_equal(kern_coal_param_check(KERN_COAL_STRIDE, 0, &err), CORE_ERR_INVALID);
    assert_non_null(strstr(err.msg, "1 to 32"));
    assert_int_equal(kern_coal_param_check(KERN_COAL_STRIDE, 32, &err), 0);
    assert_int_equal(kern_coal_param_check(KERN_COAL_COPY, 1, &err), CORE_ERR_INVALID);
    assert_non_null(strstr(err.msg, "'copy'"));
    assert_int_equal(kern_coal_param_check(-1, 0, &err), CORE_ERR_INVALID);
}

/* ---- CPU references ----------------------------------------------------------- */

static void test_ref_gather(void **state)
{
    (void)state;
    float in[200], out[40];
    for (int i = 0; i < 200; i++)
        in[i] = (float)i;
    /* offset 3, stride 2: 3, 5, 7, ... */
    kern_coal_ref_gather(in, out, 0, 40, 3, 2);
    for (int i = 0; i < 40; i++)
        assert_near(out[i], 3 + 2 * i, 0);
    assert_int_equal(kern_coal_ref_gather_diff(in, out, 40, 3, 2), -1);
    out[17] = -1;
    assert_int_equal(kern_coal_ref_gather_diff(in, out, 40, 3, 2), 17);
    out[17] = NAN;
    assert_int_equal(kern_coal_ref_gather_diff(in, out, 40, 3, 2), 17);
    /* a range: only [10, 20) is written */
    for (int i = 0; i < 40; i++)
        out[i] = -5;
    kern_coal_ref_gather(in, out, 10, 20, 0, 4);
    assert_near(out[9], -5, 0);
    assert_near(out[10], 40, 0);
    assert_near(out[19], 76, 0);
    assert_near(out[20], -5, 0);
}

static void test_ref_transpose(void **state)
{
    (void)state;
    enum { W = 70 }; /* not a multiple of the tile: ragged edges */
    static float in[W * W], a[W * W], b[W * W];
    for (int i = 0; i < W * W; i++)
        in[i] = (float)i;
    kern_coal_ref_transpose(in, a, W, 0, W);
    /* out[r][c] = in[c][r] = c * W + r */
    assert_near(a[1 * W + 2], 2 * W + 1, 0);
    assert_near(a[69 * W + 0], 69, 0);
    assert_int_equal(kern_coal_ref_transpose_diff(in, a, W, 0, W), -1);
    for (int t = 1; t <= 40; t += 13) {
        memset(b, 0, sizeof b);
        /* in two bands of rows, as the lab does it */
        kern_coal_ref_transpose_blocked(in, b, W, t, 0, 35);
        kern_coal_ref_transpose_blocked(in, b, W, t, 35, W);
        assert_memory_equal(a, b, sizeof a);
    }
    b[5 * W + 7] += 1;
    assert_int_equal(kern_coal_ref_transpose_diff(in, b, W, 0, W), 5 * W + 7);
    assert_int_equal(kern_coal_ref_transpose_diff(in, b, W, 0, 5), -1); /* rows before it */
    assert_int_equal(kern_coal_ref_transpose_diff(in, b, W, 5, 6), 5 * W + 7);
    /* a transposed twice is in again */
    kern_coal_ref_transpose(a, b, W, 0, W);
    assert_memory_equal(in, b, sizeof in);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_issue_cases),    cmocka_unit_test(test_offsets),
        cmocka_unit_test(test_element_sizes),  cmocka_unit_test(test_cpu_lines_and_broadcast),
        cmocka_unit_test(test_bad_access),     cmocka_unit_test(test_stream_bytes),
        cmocka_unit_test(test_copy_fractions), cmocka_unit_test(test_bank_ways),
        cmocka_unit_test(test_datasheet),      cmocka_unit_test(test_kinds),
        cmocka_unit_test(test_ref_gather),     cmocka_unit_test(test_ref_transpose),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
