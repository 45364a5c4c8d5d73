/*
 * test_lab_code.c — the pure parts of the programming labs' harness
 * (labs/code/): the score by correctness and bands, the roofline's bound,
 * the sizes' arithmetic and the spec's checks; the clock estimate's
 * range; and the ELF check on objects the system compiler builds (skipped,
 * saying so, without a compiler).
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_EQUAL */
#include "tests/cmocka_skip.h"

#include "labs/code/lab_code_internal.h"

#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void spec_scale(struct lab_code_spec *s)
{
    memset(s, 0, sizeof *s);
    s->id = "t.scale";
    s->func = "scale";
    s->ret = -1;
    snprintf(s->size_names[0], sizeof s->size_names[0], "n");
    s->size_values[0] = 512;
    s->n_sizes = 1;
    s->n_args = 3;
    snprintf(s->args[0].name, 32, "n");
    snprintf(s->args[1].name, 32, "x");
    s->args[1].pointer = true;
    s->args[1].elem = LAB_CODE_F32;
    snprintf(s->args[1].count, 96, "n*n");
    snprintf(s->args[2].name, 32, "y");
    s->args[2].pointer = true;
    s->args[2].output = true;
    s->args[2].elem = LAB_CODE_F32;
    snprintf(s->args[2].count, 96, "n*n");
    s->flops = "2*n^3";
    s->bytes = "3*4*n^2";
    s->correct_share = 0.3;
    s->bands[0] = (struct lab_code_band){0.1, 0.5};
    s->bands[1] = (struct lab_code_band){0.5, 1};
    s->n_bands = 2;
}

static void test_score(void **state)
{
    (void)state;
    struct lab_code_spec s;
    spec_scale(&s);
    assert_true(lab_code_score(&s, false, 0.9) == 0);             /* the gate */
    assert_true(fabs(lab_code_score(&s, true, 0) - 0.3) < 1e-12); /* correct only */
    assert_true(fabs(lab_code_score(&s, true, 0.05) - (0.3 + 0.7 * 0.25)) < 1e-12); /* below */
    assert_true(fabs(lab_code_score(&s, true, 0.1) - (0.3 + 0.7 * 0.5)) < 1e-12);   /* at a band */
    assert_true(fabs(lab_code_score(&s, true, 0.3) - (0.3 + 0.7 * 0.75)) < 1e-12);  /* between */
    assert_true(fabs(lab_code_score(&s, true, 0.5) - 1) < 1e-12);
    assert_true(fabs(lab_code_score(&s, true, 3) - 1) < 1e-12); /* never above 1 */
    s.n_bands = 0;
    assert_true(lab_code_score(&s, true, 0) == 1); /* no bands: correctness is all */
}

static void test_bound(void **state)
{
    (void)state;
    struct lab_code_roof r = {.fma_gflops = 100, .triad_gbs = 10};
    assert_true(fabs(lab_code_roof_bound(&r, 1) - 10) < 1e-12);   /* memory bound */
    assert_true(fabs(lab_code_roof_bound(&r, 50) - 100) < 1e-12); /* compute bound */
    assert_true(fabs(lab_code_roof_bound(&r, 10) - 100) < 1e-12); /* the ridge */
    assert_true(lab_code_roof_bound(&r, 0) == 0);                 /* no FLOP */
}

static void test_expr(void **state)
{
    (void)state;
    struct lab_code_spec s;
    spec_scale(&s);
    struct core_err e;
    double v;
    assert_int_equal(lab_code_expr("2*n^3", &s, &v, &e), 0);
    assert_true(v == 2.0 * 512 * 512 * 512);
    assert_int_equal(lab_code_expr("4*(n*n + n) - -1", &s, &v, &e), 0);
    assert_true(v == 4.0 * (512 * 512 + 512) + 1);
    assert_int_equal(lab_code_expr("2^3^2", &s, &v, &e), 0); /* right-associative */
    assert_true(v == 512);
    assert_int_equal(lab_code_expr("m*2", &s, &v, &e), CORE_ERR_INVALID);
    assert_non_null(strstr(e.msg, "unknown size 'm'"));
    assert_int_equal(lab_code_expr("(n", &s, &v, &e), CORE_ERR_INVALID);
    assert_int_equal(lab_code_expr("n n", &s, &v, &e), CORE_ERR_INVALID);
    assert_int_equal(lab_code_expr("1/0", &s, &v, &e), CORE_ERR_INVALID);
}

static void test_spec_check(void **state)
{
    (void)state;
    struct lab_code_spec s;
    struct core_err e;
    spec_scale(&s);
    assert_int_equal(lab_code_spec_check(&s, &e), 0);
    s.args[2].output = false; /* nothing to check */
    assert_int_equal(lab_code_spec_check(&s, &e), CORE_ERR_INVALID);
    assert_non_null(strstr(e.msg, "nothing to check"));
    spec_scale(&s);
    snprintf(s.args[0].name, 32, "k"); /* an int that is no size */
    assert_int_equal(lab_code_spec_check(&s, &e), CORE_ERR_INVALID);
    spec_scale(&s);
    s.bands[1].fraction = 0.05; /* bands must rise */
    assert_int_equal(lab_code_spec_check(&s, &e), CORE_ERR_INVALID);
}

/* Compiles src with the harness's compile step; returns its check. */
static int build_and_check(const char *src, char *why, size_t n)
{
    char dir[] = "/tmp/wb-test-code.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char c[64], so[64];
    snprintf(c, sizeof c, "%s/f.c", dir);
    snprintf(so, sizeof so, "%s/f.so", dir);
    FILE *f = fopen(c, "w");
    assert_non_null(f);
    fputs(src, f);
    fclose(f);
    char *log = NULL;
    struct core_err e = {0};
    int rc = lab_code_compile(c, so, "", &log, &e);
    if (rc == 0)
        rc = lab_code_elf_check(so, 64.0 * 1024 * 1024, &e);
    struct core_buf b;
    core_buf_init(&b);
    core_buf_printf(&b, "%s%s%s", e.msg, log ? ": " : "", log ? log : "");
    snprintf(why, n, "%.*s", (int)(n - 1), b.data);
    core_buf_fini(&b);
    free(log);
    unlink(c);
    unlink(so);
    rmdir(dir);
    return rc;
}

static void test_elf(void **state)
{
    (void)state;
    if (system("cc --version >/dev/null 2>&1") != 0)
        WB_SKIP("no C compiler (cc)");
    char why[1024];
    int rc = build_and_check("int f(int n) { return n + 1; }\n", why, sizeof why);
    if (rc != 0)
        fail_msg("a plain function refused: %s", why);
    assert_int_equal(
        build_and_check(
            "volatile int v;\n__attribute__((constructor)) static void g(void) { v = 1; }\n"
            "int f(int n) { return n; }\n",
            why, sizeof why),
        CORE_ERR_INVALID);
    assert_non_null(strstr(why, "constructor"));
    assert_int_equal(
        build_and_check(
            "volatile int v;\n__attribute__((destructor)) static void g(void) { v = 1; }\n"
            "int f(int n) { return n; }\n",
            why, sizeof why),
        CORE_ERR_INVALID);
    assert_int_equal(build_and_check("#include <stdlib.h>\nvoid *malloc(size_t n) { (void)n; "
                                     "return 0; }\n",
                                     why, sizeof why),
                     CORE_ERR_INVALID);
    assert_non_null(strstr(why, "defines malloc"));
    /* a static helper of any name is the student's own */
    assert_int_equal(build_and_check("static int memcpy2(int n) { return n; }\n"
                                     "int f(int n) { return memcpy2(n); }\n",
                                     why, sizeof why),
                     0);
}

/* The clock estimate (lab_code_clock.c): a sane figure on every core at
 * once and on one, each core's within the range, and the affinity of the
 * calling thread as it was. A range, not a speed: preemption only lowers
 * it, and no core of this century runs dependent adds below 0.5 or above
 * 6 GHz (the chain of immediate adds, folded by newer cores, read 13-17). */
static void test_clock(void **state)
{
    (void)state;
#if defined(__x86_64__) || defined(__aarch64__)
    cpu_set_t before, after;
    assert_int_equal(sched_getaffinity(0, sizeof before, &before), 0);
    double per[2] = {0, 0};
    double all = lab_code_clock_ghz(2, 0.02, per);
    assert_true(all > 0.5 && all < 6);
    for (int i = 0; i < 2; i++)
        assert_true(per[i] > 0.5 && per[i] < 6);
    assert_true(fabs(all - (per[0] + per[1]) / 2) < 1e-9);
    double one = lab_code_clock_ghz(1, 0.02, NULL);
    assert_true(one > 0.5 && one < 6);
    assert_int_equal(sched_getaffinity(0, sizeof after, &after), 0);
    assert_true(CPU_EQUAL(&before, &after));
#else
    skip();
#endif
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_score), cmocka_unit_test(test_bound),
        cmocka_unit_test(test_expr),  cmocka_unit_test(test_spec_check),
        cmocka_unit_test(test_elf),   cmocka_unit_test(test_clock),
    };
    return wb_run_tests("lab_code", tests, sizeof tests / sizeof tests[0], argc, argv);
}
