/*
 * test_lab_noise.c — how a run's noise is judged (labs/core/lab_noise.c): the
 * other programs' share of the run's CPUs from two /proc/stat samples, the
 * hypervisor's steal, the widest spread of the repeated measurements, and
 * the verdict with its words; then a real sample of this machine and a lab
 * run whose summary carries the figures. The CPU arithmetic is driven with
 * numbers here; tests/e2e/test_lab_noise.sh runs a lab beside a real busy
 * loop.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "labs/lab_author.h"
#include "labs/core/lab_noise.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct lab_noise blank(void)
{
    struct lab_noise n = {0};
    n.other_cpu = n.steal = n.loadavg = n.spread = NAN;
    n.cores = n.cpus = 2;
    return n;
}

static void test_cpu_share(void **state)
{
    (void)state;
    /* 2 CPUs, 1 s at 100 ticks/s: 200 ticks; 150 busy, of which 0.5 s ours */
    struct lab_cpu_sample a = {
        .busy = 1000, .total = 5000, .steal = 10, .has_steal = true, .own_s = 2.0, .ok = true};
    struct lab_cpu_sample b = {
        .busy = 1150, .total = 5200, .steal = 30, .has_steal = true, .own_s = 2.5, .ok = true};
    struct lab_noise n = blank();
    lab_noise_cpu(&a, &b, 100, &n);
    assert_float_equal(n.other_cpu, 100.0 / 200, 1e-12); /* 150 - 50 ours */
    assert_float_equal(n.steal, 20.0 / 200, 1e-12);
    /* our own work alone is not load */
    b.busy = 1050;
    lab_noise_cpu(&a, &b, 100, &n);
    assert_float_equal(n.other_cpu, 0, 1e-12);
    /* no steal column, a failed read, or no time passed: unknown */
    a.has_steal = false;
    lab_noise_cpu(&a, &b, 100, &n);
    assert_true(isnan(n.steal));
    b.ok = false;
    lab_noise_cpu(&a, &b, 100, &n);
    assert_true(isnan(n.other_cpu));
    b.ok = true;
    b.total = a.total;
    lab_noise_cpu(&a, &b, 100, &n);
    assert_true(isnan(n.other_cpu));
}

static void test_verdict(void **state)
{
    (void)state;
    struct lab_noise n = blank();
    lab_noise_assess(&n); /* nothing known: nothing to say */
    assert_false(n.noisy);
    assert_string_equal(n.text, "quiet");
    n.other_cpu = 0.10;
    n.steal = 0.01;
    n.spread = 0.05;
    lab_noise_assess(&n);
    assert_false(n.noisy);
    /* busy: another program took half the CPUs */
    n.other_cpu = 0.5;
    n.loadavg = 3.2;
    lab_noise_assess(&n);
    assert_true(n.busy);
    assert_false(n.wide);
    assert_true(n.noisy);
    assert_string_equal(n.text, "measured under load: other programs used 50% of the CPUs it "
                                "ran on; load average 3.2 on 2 cores");
    /* steal alone is load too (a busy host) */
    n.other_cpu = 0;
    n.steal = 0.08;
    n.cpus = 1;
    lab_noise_assess(&n);
    assert_true(n.busy);
    assert_non_null(strstr(n.text, "the hypervisor took 8% (steal)"));
    /* a wide spread on a quiet machine */
    n = blank();
    n.other_cpu = 0;
    n.spread = 0.4;
    snprintf(n.spread_what, sizeof n.spread_what, "time per trial at p = 2");
    snprintf(n.spread_unit, sizeof n.spread_unit, "s");
    n.spread_min = 0.2;
    n.spread_med = 0.25;
    n.spread_max = 0.3;
    n.spread_n = 3;
    lab_noise_assess(&n);
    assert_false(n.busy);
    assert_true(n.wide);
    assert_string_equal(n.text, "wide spread: time per trial at p = 2 varied by 40% over 3 "
                                "repetitions (200 to 300 ms)");
    /* seconds as people read them (issue 26: "6.91e-05 to 9.96e-05 s") */
    n.spread_min = 6.91e-05;
    n.spread_max = 9.96e-05;
    lab_noise_assess(&n);
    assert_non_null(strstr(n.text, "(69.1 to 99.6 µs)"));
    snprintf(n.spread_unit, sizeof n.spread_unit, "GB/s");
    n.spread_min = 12.5;
    n.spread_max = 20;
    lab_noise_assess(&n);
    assert_non_null(strstr(n.text, "(12.5 to 20 GB/s)"));
    /* at the thresholds: not flagged */
    n = blank();
    n.other_cpu = LAB_NOISE_BUSY;
    n.steal = LAB_NOISE_STEAL;
    n.spread = LAB_NOISE_SPREAD;
    lab_noise_assess(&n);
    assert_false(n.noisy);
}

static void test_repeats(void **state)
{
    (void)state;
    struct lab_repeats *r = lab_repeats_new();
    struct lab_noise n = blank();
    lab_repeats_widest(r, &n);
    assert_true(isnan(n.spread)); /* nothing repeated */
    lab_repeats_add(r, "one value", "s", 1);
    lab_repeats_add(r, "a", "s", 1.0);
    lab_repeats_add(r, "a", "s", 1.1);
    lab_repeats_add(r, "a", "s", 0.9);
    lab_repeats_add(r, "b", "GB/s", 10);
    lab_repeats_add(r, "b", "GB/s", 14);
    lab_repeats_add(r, "b", "GB/s", NAN); /* ignored */
    lab_repeats_widest(r, &n);
    assert_float_equal(n.spread, 4.0 / 12, 1e-12); /* b: (14 - 10) / 12 */
    assert_string_equal(n.spread_what, "b");
    assert_string_equal(n.spread_unit, "GB/s");
    assert_int_equal(n.spread_n, 2);
    assert_false(n.spread_trimmed);
    /* many repetitions: one interruption among twenty does not count */
    for (int i = 0; i < 19; i++)
        lab_repeats_add(r, "many", "s", 1.0 + 0.001 * i);
    lab_repeats_add(r, "many", "s", 50);
    lab_repeats_range(r, "gpu", "ms", 1.0, 1.5, 2.5, 30);
    lab_repeats_widest(r, &n);
    assert_string_equal(n.spread_what, "gpu"); /* (2.5 - 1) / 1.5 = 1 */
    assert_float_equal(n.spread, 1.0, 1e-12);
    assert_int_equal(n.spread_n, 30);
    lab_repeats_free(r);
    lab_repeats_free(NULL);
}

static void test_real_sample(void **state)
{
    (void)state;
    struct lab_cpu_sample s;
    lab_cpu_sample_take(&s);
    if (!s.ok) {
        /* a system without /proc/stat: the verdict says nothing of load */
        assert_int_equal(s.cpus, 0);
        return;
    }
    assert_true(s.cpus >= 1);
    assert_true(s.total >= s.busy);
    assert_true(s.own_s >= 0);
}

/* A run's summary ends with the noise figures. */
static void test_run_figures(void **state)
{
    (void)state;
    const struct lab_def *lab = lab_find("selftest");
    assert_non_null(lab);
    struct lab_params p;
    lab_params_init(&p, lab);
    struct core_err e = {0};
    assert_int_equal(lab_params_set(&p, "steps", "3", &e), 0);
    assert_int_equal(lab_params_set(&p, "interval_ms", "10", &e), 0);
    struct lab_result r;
    assert_int_equal(lab_run(&p, NULL, &r, &e), 0);
    const struct lab_figure *noisy = lab_summary_find(&r.summary, "noisy");
    const struct lab_figure *noise = lab_summary_find(&r.summary, "noise");
    assert_non_null(noisy);
    assert_non_null(noise);
    assert_non_null(noise->str);
    assert_true(noisy->num == 0 || noisy->num == 1);
    assert_true((noisy->num == 0) == (strcmp(noise->str, "quiet") == 0));
    assert_non_null(lab_summary_find(&r.summary, "load_cpus"));
    /* the lab's own figures come first: the key figure stays the lab's */
    assert_string_equal(r.summary.v[0].key, "steps");
    lab_result_fini(&r);
    lab_params_fini(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cpu_share),   cmocka_unit_test(test_verdict),
        cmocka_unit_test(test_repeats),     cmocka_unit_test(test_real_sample),
        cmocka_unit_test(test_run_figures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
