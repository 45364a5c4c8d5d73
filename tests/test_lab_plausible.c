/*
 * test_lab_plausible.c — the plausibility checks of a submitted lab run
 * (lab_run_plausible, pure): a consistent self-test run passes; a summary
 * edited away from its own samples, samples out of time order, a run that
 * is not done, an Amdahl speedup beyond the recorded machine's cores, and
 * memory figures beyond any core are each caught.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "labs/lab_author.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A complete selftest run: 2 workers, 3 steps (ramp, wave, workers per step). */
static struct db_labsample smp[9];

static struct db_sub_run selftest_run(const char *summary)
{
    for (int s = 1; s <= 3; s++) {
        smp[3 * (s - 1)] = (struct db_labsample){"wave", s, s == 2 ? -0.9 : 0.3, 0.1 * s};
        smp[3 * (s - 1) + 1] = (struct db_labsample){"ramp", s, s / 3.0, 0.1 * s};
        smp[3 * (s - 1) + 2] = (struct db_labsample){"workers", s, 3.0 * s, 0.1 * s + 0.01};
    }
    return (struct db_sub_run){.id = 1,
                               .lab = "selftest",
                               .params_json = "{\"workers\":2,\"steps\":3}",
                               .machine_json = "{\"cores_online\":2}",
                               .summary_json = (char *)summary,
                               .status = "done",
                               .started_at = "2026-01-01T10:00:00.000Z",
                               .ended_at = "2026-01-01T10:00:01.500Z",
                               .samples = smp,
                               .n_samples = 9};
}

#define GOOD                                                                                       \
    "{\"steps\":3,\"wave_peak\":0.9,\"ramp_final\":1,\"worker_total\":18,\"samples\":9,"           \
    "\"elapsed_s\":0.4}"

static size_t problems_of(const struct db_sub_run *r, const char *want)
{
    struct core_strlist l;
    core_strlist_init(&l);
    lab_run_plausible(r, &l);
    bool found = !want;
    for (size_t i = 0; i < l.n; i++)
        found = found || strstr(l.items[i], want) != NULL;
    if (!found)
        fail_msg("no problem mentions '%s' (%zu found%s%s)", want, l.n, l.n ? ": " : "",
                 l.n ? l.items[0] : "");
    size_t n = l.n;
    core_strlist_fini(&l);
    return n;
}

static void test_selftest(void **state)
{
    (void)state;
    struct db_sub_run r = selftest_run(GOOD);
    assert_int_equal(problems_of(&r, NULL), 0);
    r = selftest_run("{\"steps\":3,\"wave_peak\":0.9,\"ramp_final\":1,\"worker_total\":30,"
                     "\"samples\":9}");
    problems_of(&r, "worker_total says 30");
    r = selftest_run("{\"steps\":3,\"wave_peak\":0.9,\"ramp_final\":1,\"worker_total\":18,"
                     "\"samples\":12}");
    problems_of(&r, "samples says 12");
    r = selftest_run(GOOD);
    r.status = "failed";
    problems_of(&r, "not done");
    r = selftest_run(GOOD);
    smp[4].t = 0.05; /* the second step's ramp before the first step's samples */
    problems_of(&r, "before the one recorded before it");
    r = selftest_run(GOOD);
    smp[8].t = 5; /* a sample 5 s into a run of 1.5 s */
    problems_of(&r, "but the run lasted");
    r = selftest_run(GOOD);
    r.ended_at = "2026-01-01T09:59:00.000Z";
    problems_of(&r, "ended before it started");
    r = selftest_run("{\"steps\":3,\"wave_peak\":0.9,\"ramp_final\":1,\"worker_total\":18,"
                     "\"samples\":9,\"elapsed_s\":40}");
    problems_of(&r, "elapsed_s");
    r = selftest_run("not json");
    problems_of(&r, "summary is not a JSON object");
}

static void test_amdahl_and_memory(void **state)
{
    (void)state;
    struct db_labsample s[2] = {{"speedup", 2, 1.8, 0.5}, {"time", 2, 0.25, 0.5}};
    struct db_sub_run r = {.id = 2,
                           .lab = "amdahl",
                           .params_json = "{}",
                           .machine_json = "{\"cores_online\":2}",
                           .summary_json = "{\"P\":2,\"cores\":2,\"speedup_p2\":1.8,"
                                           "\"efficiency_p2\":90,\"t_p2\":0.25}",
                           .status = "done",
                           .started_at = "2026-01-01T10:00:00.000Z",
                           .ended_at = "2026-01-01T10:00:02.000Z",
                           .samples = s,
                           .n_samples = 2};
    assert_int_equal(problems_of(&r, NULL), 0);
    r.summary_json = "{\"P\":2,\"cores\":2,\"speedup_p2\":3.5,\"efficiency_p2\":175}";
    problems_of(&r, "speedup_p2 = 3.5 is more than 2 workers");
    problems_of(&r, "the run's speedup sample at p = 2 is 1.8");
    r.summary_json = "{\"P\":2,\"cores\":8,\"speedup_p2\":1.8}";
    problems_of(&r, "cores says 8, the machine recorded 2");
    struct db_sub_run m = {.id = 3,
                           .lab = "memory",
                           .params_json = "{}",
                           .machine_json = "{}",
                           .summary_json = "{\"gflops_ikj_nmax\":9000,\"gflops_ijk_nmax\":3,"
                                           "\"ratio_ikj_ijk_nmax\":2,\"bw_stride4\":12}",
                           .status = "done",
                           .started_at = "2026-01-01T10:00:00.000Z",
                           .ended_at = "2026-01-01T10:00:02.000Z"};
    problems_of(&m, "beyond one core");
    problems_of(&m, "ratio_ikj_ijk_nmax says 2");
}

/* A coalescing run: GPU figures need a GPU on the recorded machine, and no
 * bandwidth beats the run's own memcpy (a fabricated GPU run). */
static void test_gpu_claims(void **state)
{
    (void)state;
    struct db_sub_run r = {.id = 2,
                           .lab = "coalescing",
                           .params_json = "{\"device\":\"auto\"}",
                           .machine_json = "{\"cores_online\":2,\"gpu\":\"\"}",
                           .summary_json = "{\"device\":\"gpu\",\"gpu_name\":\"NVIDIA H200\","
                                           "\"memcpy_gbs\":4100,\"copy_gbs\":4000}",
                           .status = "done",
                           .started_at = "2026-01-01T10:00:00.000Z",
                           .ended_at = "2026-01-01T10:00:10.000Z"};
    assert_int_equal(problems_of(&r, "records no GPU"), 1);
    r.machine_json = "{\"cores_online\":2,\"gpu\":\"NVIDIA H200 (compute 9.0)\"}";
    assert_int_equal(problems_of(&r, NULL), 0);
    /* A copy faster than the device's own memcpy, and past the datasheet. */
    r.summary_json = "{\"device\":\"gpu\",\"memcpy_gbs\":4100,\"copy_gbs\":9000,"
                     "\"datasheet_gbs\":4800,\"transpose_padded_gbs\":4400}";
    assert_int_equal(problems_of(&r, "copy_gbs 9000 GB/s is above the run's own memcpy"), 1);
    r.summary_json = "{\"device\":\"gpu\",\"memcpy_gbs\":6000,\"copy_gbs\":5900,"
                     "\"datasheet_gbs\":4800}";
    assert_int_equal(problems_of(&r, "above the device's datasheet"), 1);
    /* The CPU analog has no memcpy bound: an honest small run on a busy
     * machine timed its memcpy at 0.99 GB/s on fresh pages and its copy
     * loop at 9.81. */
    r.machine_json = "{\"cores_online\":2,\"gpu\":\"\"}";
    r.summary_json = "{\"device\":\"cpu\",\"cpu_memcpy_gbs\":0.99,\"cpu_copy_gbs\":9.81,"
                     "\"cpu_stride2_gbs\":10.7}";
    assert_int_equal(problems_of(&r, NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_selftest),
        cmocka_unit_test(test_amdahl_and_memory),
        cmocka_unit_test(test_gpu_claims),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
