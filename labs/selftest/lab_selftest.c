/*
 * lab_selftest.c — the `selftest` lab: exercises the whole framework in a second
 * or so, so tests and front ends have a lab whose behaviour is known.
 *
 * Every step (1..steps) it emits a wave sample and a ramp sample, then, with
 * workers, sends the step number to each worker process over its socketpair;
 * worker w (1-based) answers w * step over the socket and also writes it into
 * its slot of a shared mapping, and the lab checks both agree and emits their
 * sum. `crash_worker=N` makes worker N SIGKILL itself half-way (the run fails
 * with "worker N (pid P) was killed by signal 9 (Killed)"); `fail_at=K` makes
 * the lab itself fail at step K. Between steps it sleeps interval_ms on the
 * run's clock, watching the cancel flag.
 *
 * Summary figures: steps (completed), wave_peak (largest |wave| sample),
 * ramp_final (last ramp value, 1 when complete), worker_total (sum of all
 * worker answers: workers*(workers+1)/2 * steps*(steps+1)/2 when complete),
 * samples (emitted), elapsed_s, cpu (text: the CPU model).
 */
#include "labs/selftest/lab_selftest.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STEP_STOP INT64_C(-1)
/* How long the lab waits for a worker's answer before calling it stuck. */
#define WORKER_TIMEOUT_MS 10000

static const struct lab_param_def params[] = {
    {"steps", LAB_P_INT, "20", NULL, 1, 1000000, NULL, "", "how many steps to run"},
    {"interval_ms", LAB_P_INT, "50", NULL, 0, 10000, NULL, "ms", "pause between steps"},
    {"workers", LAB_P_INT, "0", NULL, 0, 64, NULL, "", "worker processes answering each step"},
    {"crash_worker", LAB_P_INT, "0", NULL, 0, 64, NULL, "",
     "worker that kills itself half-way (0: none)"},
    {"fail_at", LAB_P_INT, "0", NULL, 0, 1000000, NULL, "",
     "step at which the lab fails (0: never)"},
    {"wave", LAB_P_ENUM, "sine", NULL, 0, 0, "sine|square|triangle", "",
     "shape of the wave series"},
    {"amplitude", LAB_P_REAL, "1", NULL, 0.001, 1e6, NULL, "", "height of the wave"},
    {"verbose", LAB_P_BOOL, "off", NULL, 0, 1, NULL, "", "log every step"},
};

static const struct lab_series_def series[] = {
    {"wave", "wave", "", "signal", "step"},
    {"ramp", "ramp (step / steps)", "", "signal", "step"},
    {"workers", "sum of worker answers", "", "workers", "step"},
};

static int check(const struct lab_params *p, struct core_err *err)
{
    double w = lab_param_num(p, "workers"), c = lab_param_num(p, "crash_worker");
    if (c > w)
        return core_err_set(err, CORE_ERR_INVALID,
                            "selftest: crash_worker (%.0f) must be 0 or a worker from 1 to "
                            "workers (%.0f)",
                            c, w);
    return 0;
}

struct worker_arg {
    int64_t *slots; /* shared: one per worker */
    int index;      /* 1-based */
    int crash_at;   /* step at which to die; 0 never */
};

static int worker_main(int fd, void *varg)
{
    const struct worker_arg *a = varg;
    for (;;) {
        int64_t step;
        if (lab_fd_read(fd, &step, sizeof step, -1, NULL, NULL) != 0 || step == STEP_STOP)
            return 0;
        if (a->crash_at && step >= a->crash_at)
            raise(SIGKILL);
        int64_t answer = a->index * step;
        a->slots[a->index - 1] = answer;
        if (lab_fd_write(fd, &answer, sizeof answer, -1, NULL, NULL) != 0)
            return 1;
    }
}

static double wave_at(const char *shape, int64_t step, double amp)
{
    double ph = (double)(step % 20) / 20.0; /* period: 20 steps */
    if (strcmp(shape, "square") == 0)
        return ph < 0.5 ? amp : -amp;
    if (strcmp(shape, "triangle") == 0)
        return amp * (ph < 0.5 ? 4 * ph - 1 : 3 - 4 * ph);
    return amp * sin(2 * M_PI * ph);
}

/* After a worker's connection broke: the worker's own fate is the better
 * message ("killed by signal 9") when it has one. */
static int worker_failed(struct lab_procs *ps, size_t i, int rc, struct core_err *err)
{
    if (rc == CORE_ERR_CANCELLED)
        return rc;
    struct core_err why = {0};
    if (lab_proc_reap(ps, i, 2000, &why) != 0 && why.code != CORE_ERR_LIMIT) {
        *err = why;
        return why.code;
    }
    return rc;
}

static int run(struct lab_ctx *cx, struct core_err *err)
{
    const struct lab_params *p = lab_ctx_params(cx);
    int64_t steps = (int64_t)lab_param_num(p, "steps");
    double interval = lab_param_num(p, "interval_ms") / 1000.0;
    int workers = (int)lab_param_num(p, "workers");
    int crash = (int)lab_param_num(p, "crash_worker");
    int64_t fail_at = (int64_t)lab_param_num(p, "fail_at");
    const char *shape = lab_param_str(p, "wave");
    double amp = lab_param_num(p, "amplitude");
    bool verbose = lab_param_num(p, "verbose") != 0;
    struct lab_procs *ps = lab_ctx_procs(cx);
    atomic_int *cancel = lab_ctx_cancel_flag(cx);
    struct worker_arg *args = NULL;
    int64_t done = 0, total = 0;
    size_t emitted = 0;
    double peak = 0, ramp = 0;
    int rc = 0;

    if (workers > 0) {
        int64_t *slots = lab_shm_alloc(ps, (size_t)workers * sizeof *slots, err);
        if (!slots)
            return err ? err->code : CORE_ERR_IO;
        args = core_xcalloc((size_t)workers, sizeof *args);
        for (int w = 0; w < workers; w++) {
            args[w] = (struct worker_arg){
                slots, w + 1, w + 1 == crash ? (int)(steps / 2 > 0 ? steps / 2 : 1) : 0};
            int idx = lab_proc_spawn(ps, worker_main, &args[w], err);
            if (idx < 0) {
                rc = idx;
                goto out;
            }
        }
        lab_log(cx, LAB_LOG_INFO, "started %d worker process%s", workers, workers == 1 ? "" : "es");
    }

    for (int64_t s = 1; s <= steps; s++) {
        if (lab_cancelled(cx)) {
            rc = CORE_ERR_CANCELLED;
            goto out;
        }
        if (fail_at && s == fail_at) {
            rc = core_err_set(err, CORE_ERR_INTERNAL,
                              "selftest: failing at step %lld as asked "
                              "(fail_at)",
                              (long long)s);
            goto out;
        }
        double wv = wave_at(shape, s, amp);
        ramp = (double)s / (double)steps;
        lab_emit(cx, "wave", s, wv);
        lab_emit(cx, "ramp", s, ramp);
        emitted += 2;
        if (fabs(wv) > peak)
            peak = fabs(wv);
        if (workers > 0) {
            for (int w = 0; w < workers && !rc; w++) {
                rc = lab_fd_write(ps->v[w].fd, &s, sizeof s, WORKER_TIMEOUT_MS, cancel, err);
                if (rc)
                    rc = worker_failed(ps, (size_t)w, rc, err);
            }
            int64_t sum = 0;
            for (int w = 0; w < workers && !rc; w++) {
                int64_t answer = 0;
                rc = lab_fd_read(ps->v[w].fd, &answer, sizeof answer, WORKER_TIMEOUT_MS, cancel,
                                 err);
                if (rc) {
                    rc = worker_failed(ps, (size_t)w, rc, err);
                    break;
                }
                int64_t shared = args[0].slots[w];
                if (answer != (int64_t)(w + 1) * s || shared != answer) {
                    rc = core_err_set(err, CORE_ERR_INTERNAL,
                                      "selftest: worker %d answered %lld (shared memory: %lld) "
                                      "for step %lld, expected %lld",
                                      w + 1, (long long)answer, (long long)shared, (long long)s,
                                      (long long)((w + 1) * s));
                    break;
                }
                sum += answer;
            }
            if (rc)
                goto out;
            total += sum;
            lab_emit(cx, "workers", s, (double)sum);
            emitted++;
        }
        done = s;
        if (verbose)
            lab_log(cx, LAB_LOG_INFO, "step %lld: wave %.3f ramp %.3f", (long long)s, wv, ramp);
        char what[64];
        snprintf(what, sizeof what, "step %lld of %lld", (long long)s, (long long)steps);
        lab_progress(cx, ramp, what);
        if (s < steps && interval > 0 && !lab_sleep(cx, interval)) {
            rc = CORE_ERR_CANCELLED;
            goto out;
        }
    }

    /* Tell the workers to stop and check that each exits cleanly. */
    for (int w = 0; w < workers && !rc; w++) {
        int64_t stop = STEP_STOP;
        rc = lab_fd_write(ps->v[w].fd, &stop, sizeof stop, WORKER_TIMEOUT_MS, cancel, err);
        if (rc == 0)
            rc = lab_proc_reap(ps, (size_t)w, WORKER_TIMEOUT_MS, err);
    }

out:
    lab_figure_num(cx, "steps", (double)done, "", "steps completed");
    lab_figure_num(cx, "wave_peak", peak, "", "largest |wave| sample");
    lab_figure_num(cx, "ramp_final", ramp, "", "last ramp value (1 when complete)");
    lab_figure_num(cx, "worker_total", (double)total, "", "sum of all worker answers");
    lab_figure_num(cx, "samples", (double)emitted, "", "samples emitted");
    lab_figure_num(cx, "elapsed_s", lab_ctx_elapsed(cx), "s", "time the steps took");
    lab_figure_str(cx, "cpu", lab_ctx_machine(cx)->cpu_model, "CPU model");
    free(args);
    return rc;
}

const struct lab_def lab_selftest_def = {
    .name = "selftest",
    .title = "Framework self-test",
    .summary = "a wave, a ramp and optional worker processes: checks that labs run, stream, "
               "record and cancel",
    .params = params,
    .n_params = sizeof params / sizeof params[0],
    .series = series,
    .n_series = sizeof series / sizeof series[0],
    .check = check,
    .run = run,
};
