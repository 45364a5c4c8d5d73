/*
 * lab_amdahl.c — lab "amdahl": a workload with a serial fraction the student
 * chooses, run on p = 1..P worker processes, measured speedup next to
 * Amdahl's and Gustafson's curves, efficiency and the Karp–Flatt metric.
 *
 * One trial with p workers: the master spins f·W iterations of pure integer
 * arithmetic (the serial phase), then sends (1 − f)·W/p iterations to each
 * of p workers over their socketpairs and waits for every reply (the
 * parallel phase). W is calibrated so that it takes `work_ms` on one core.
 *
 * Workers are processes, not threads: separate address spaces like the
 * distributed labs that follow, nothing shared (no allocator lock, no false
 * sharing), and `ps` shows them. Their start-up cost is kept out of every
 * timing: the pool of P workers starts once, runs one untimed warm-up trial
 * on all P, and idle workers block in poll(), costing nothing.
 *
 * A worker that does not answer (stopped, deadlocked) is ended by the shared
 * hang rule (lab_hang_limit_s: 5 s plus 20 times its calibrated share) and
 * the run fails naming it, instead of waiting for ever.
 *
 * Uses the lab framework (lab_author.h) for parameters, reporting, cancellation and
 * the process helpers; lab_run() kills and reaps whatever is left.
 */
#include "labs/amdahl/lab_amdahl.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define AMD_MAX_P 256
#define AMD_POLL_MS 50   /* cancellation latency while waiting for workers */
#define AMD_CHUNK_S 0.01 /* serial phase spins in chunks this long */
#define AMD_CALIB_S 0.02 /* one calibration measurement */

/* ---- the work unit --------------------------------------------------------- */

/* n steps of xorshift64: pure register arithmetic, no memory traffic, no
 * closed form the compiler could use to skip the loop. */
static uint64_t amd_spin(uint64_t x, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    return x;
}

struct amd_cmd {
    uint64_t iters;
    uint64_t quit; /* non-zero: exit */
};

struct amd_reply {
    uint64_t x; /* the spin's result, so the work cannot be optimised away */
    uint64_t iters;
};

/* A worker: block for a command, spin, reply; exit on quit or when the
 * master's end closes. */
static int amd_worker(int fd, void *arg)
{
    (void)arg;
    uint64_t x = 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid();
    for (;;) {
        struct amd_cmd c;
        struct core_err e;
        if (lab_fd_read(fd, &c, sizeof c, -1, NULL, &e) != 0)
            return 0; /* the master is gone: nothing left to do */
        if (c.quit)
            return 0;
        x = amd_spin(x | 1, c.iters);
        struct amd_reply r = {x, c.iters};
        if (lab_fd_write(fd, &r, sizeof r, -1, NULL, &e) != 0)
            return 1;
    }
}

/* ---- pure arithmetic ------------------------------------------------------- */

static double amd_amdahl(double f, int p)
{
    return 1.0 / (f + (1.0 - f) / p);
}

static double amd_gustafson(double f, int p)
{
    return p - f * (p - 1);
}

static double amd_karp_flatt(double s, int p)
{
    return (1.0 / s - 1.0 / p) / (1.0 - 1.0 / p);
}

/* Least-squares f of Amdahl's model to measured speedups s[p-1], p = 2..P.
 * The model is linear in f in the normalised time 1/S = 1/p + f(1 − 1/p),
 * so the fit is closed-form. Returns NAN when there is nothing to fit. */
static double amd_fit_f(const double *s, int P)
{
    double sxy = 0, sxx = 0;
    for (int p = 2; p <= P; p++) {
        double x = 1.0 - 1.0 / p, y = 1.0 / s[p - 1] - 1.0 / p;
        sxy += x * y;
        sxx += x * x;
    }
    return sxx > 0 ? sxy / sxx : NAN;
}

/* ---- the experiment -------------------------------------------------------- */

struct amd_run {
    struct lab_ctx *cx;
    struct lab_procs *ps;
    const struct core_clock *clk;
    int P;
    size_t idx[AMD_MAX_P];  /* worker w is ps->v[idx[w]] */
    double rate;            /* spin iterations per second on one core */
    double hang_s;          /* hang_timeout_ms set by the user, in s; 0: the shared rule */
    volatile uint64_t sink; /* the master's spin results, so they cannot be dropped */
};

static double amd_now(const struct amd_run *r)
{
    return r->clk->now(r->clk->ctx);
}

/* Turns a failed read from worker w into the most useful message: the
 * signal that killed it, when that is what happened. */
static int amd_worker_failed(struct amd_run *r, int w, struct core_err *err)
{
    struct core_err e2;
    core_err_clear(&e2);
    int rc = lab_proc_reap(r->ps, r->idx[w], 1000, &e2);
    if (rc != 0 && rc != CORE_ERR_LIMIT) /* it died: say how */
        return core_err_set(err, e2.code, "%s", e2.msg);
    return core_err_prefix(err, "worker %d", w + 1);
}

/* Iterations per second of amd_spin on this core: the fastest of three
 * ~20 ms measurements (the slower ones were interrupted). */
static int amd_calibrate(struct amd_run *r, struct core_err *err)
{
    uint64_t n = 1u << 16, x = 1;
    double t;
    for (;;) {
        double t0 = amd_now(r);
        x = amd_spin(x, n);
        t = amd_now(r) - t0;
        if (t >= AMD_CALIB_S || n >= (1ull << 28)) /* 2^28: half a second on a slow core */
            break;
        n = t > AMD_CALIB_S / 64 ? (uint64_t)((double)n * AMD_CALIB_S * 1.2 / t) : n * 8;
        if (lab_cancelled(r->cx))
            return core_err_set(err, CORE_ERR_CANCELLED, "cancelled");
    }
    double best = t;
    for (int k = 0; k < 3; k++) {
        if (lab_cancelled(r->cx))
            return core_err_set(err, CORE_ERR_CANCELLED, "cancelled");
        double t0 = amd_now(r);
        x = amd_spin(x, n);
        t = amd_now(r) - t0;
        if (t > 0 && t < best)
            best = t;
    }
    if (!(best > 0))
        return core_err_set(err, CORE_ERR_INTERNAL, "the clock did not advance while calibrating");
    r->rate = (double)n / best;
    r->sink ^= x;
    lab_log(r->cx, LAB_LOG_INFO, "calibrated: %.0f million iterations per second", r->rate / 1e6);
    return 0;
}

/* Waits for one reply from each of workers 0..p-1, polling the cancel flag.
 * A worker whose share (expected_s on its core) has not come back within
 * the hang limit is ended and the trial fails (the shared rule, lab_author.h). */
static int amd_wait_replies(struct amd_run *r, int p, double expected_s, struct core_err *err)
{
    struct pollfd pfd[AMD_MAX_P];
    bool got[AMD_MAX_P] = {false};
    int left = p;
    double t0 = amd_now(r);
    double limit = r->hang_s > 0 ? r->hang_s : lab_hang_limit_s(expected_s);
    while (left > 0) {
        if (lab_cancelled(r->cx))
            return core_err_set(err, CORE_ERR_CANCELLED, "cancelled");
        double waited = amd_now(r) - t0;
        if (waited > limit)
            for (int w = 0; w < p; w++)
                if (!got[w])
                    return lab_proc_end_hung(r->ps, r->idx[w], waited, expected_s, err);
        int n = 0, who[AMD_MAX_P];
        for (int w = 0; w < p; w++) {
            if (got[w])
                continue;
            pfd[n].fd = r->ps->v[r->idx[w]].fd;
            pfd[n].events = POLLIN;
            pfd[n].revents = 0;
            who[n++] = w;
        }
        int rc = poll(pfd, (nfds_t)n, AMD_POLL_MS);
        if (rc < 0 && errno == EINTR)
            continue; /* look at the cancel flag again */
        if (rc < 0)
            return core_err_set(err, CORE_ERR_IO, "waiting for the workers: %s", strerror(errno));
        for (int k = 0; k < n; k++) {
            if (!pfd[k].revents)
                continue;
            int w = who[k];
            struct amd_reply rep;
            if (lab_fd_read(pfd[k].fd, &rep, sizeof rep, 1000, NULL, err) != 0)
                return amd_worker_failed(r, w, err);
            got[w] = true;
            left--;
        }
    }
    return 0;
}

/* One timed trial on p workers; *secs is its wall time. */
static int amd_trial(struct amd_run *r, double f, double work, int p, double *secs,
                     struct core_err *err)
{
    uint64_t serial = (uint64_t)llround(f * work);
    uint64_t par = (uint64_t)llround((1.0 - f) * work);
    uint64_t chunk = (uint64_t)(r->rate * AMD_CHUNK_S) + 1;
    uint64_t x = 7;

    double t0 = amd_now(r);
    for (uint64_t done = 0; done < serial;) {
        uint64_t n = serial - done < chunk ? serial - done : chunk;
        x = amd_spin(x, n);
        done += n;
        if (lab_cancelled(r->cx))
            return core_err_set(err, CORE_ERR_CANCELLED, "cancelled");
    }
    for (int w = 0; w < p; w++) {
        /* the remainder goes to the first workers, one iteration each */
        struct amd_cmd c = {par / (uint64_t)p + ((uint64_t)w < par % (uint64_t)p), 0};
        if (lab_fd_write(r->ps->v[r->idx[w]].fd, &c, sizeof c, 1000, NULL, err) != 0)
            return amd_worker_failed(r, w, err);
    }
    /* a worker's share on its own core; more workers than cores share them */
    int cores = lab_ctx_machine(r->cx)->cores_online;
    double share_s = (double)(par / (uint64_t)p + 1) / r->rate;
    if (cores > 0 && p > cores)
        share_s *= (double)((p + cores - 1) / cores);
    int rc = amd_wait_replies(r, p, share_s, err);
    if (rc != 0)
        return rc;
    *secs = amd_now(r) - t0;
    r->sink ^= x;
    return 0;
}

/* Ends the pool politely; lab_run() kills whatever does not exit. */
static void amd_pool_stop(struct amd_run *r, int started)
{
    for (int w = 0; w < started; w++) {
        struct amd_cmd c = {0, 1};
        struct core_err e;
        if (r->ps->v[r->idx[w]].reaped)
            continue;
        lab_fd_write(r->ps->v[r->idx[w]].fd, &c, sizeof c, 100, NULL, &e);
    }
    for (int w = 0; w < started; w++) {
        struct core_err e;
        if (!r->ps->v[r->idx[w]].reaped)
            lab_proc_reap(r->ps, r->idx[w], 1000, &e);
    }
}

/* Per-p summary figures: small p, powers of two and P itself. */
static bool amd_figure_p(int p, int P)
{
    return p <= 16 || (p & (p - 1)) == 0 || p == P;
}

static void amd_summary(struct amd_run *r, double f, double work_ms, int reps, const double *t,
                        const double *s)
{
    struct lab_ctx *cx = r->cx;
    int P = r->P;
    char key[64], label[128];

    lab_figure_num(cx, "f_set", f, "", "serial fraction you set");
    lab_figure_num(cx, "P", P, "", "largest number of workers");
    lab_figure_num(cx, "work_ms", work_ms, "ms", "one-core work per trial");
    lab_figure_num(cx, "reps", reps, "", "repetitions per p (median taken)");
    lab_figure_num(cx, "cores", lab_ctx_machine(cx)->cores_online, "", "online CPU cores");

    double smax = 0;
    int pmax = 1;
    for (int p = 1; p <= P; p++) {
        if (s[p - 1] > smax) {
            smax = s[p - 1];
            pmax = p;
        }
        if (!amd_figure_p(p, P))
            continue;
        snprintf(key, sizeof key, "t_p%d", p);
        snprintf(label, sizeof label, "median time with %d worker%s", p, p > 1 ? "s" : "");
        lab_figure_num(cx, key, t[p - 1], "s", label);
        if (p < 2)
            continue;
        snprintf(key, sizeof key, "speedup_p%d", p);
        snprintf(label, sizeof label, "measured speedup at p=%d", p);
        lab_figure_num(cx, key, s[p - 1], "×", label);
        snprintf(key, sizeof key, "efficiency_p%d", p);
        snprintf(label, sizeof label, "efficiency at p=%d", p);
        lab_figure_num(cx, key, 100.0 * s[p - 1] / p, "%", label);
        snprintf(key, sizeof key, "karp_flatt_p%d", p);
        snprintf(label, sizeof label, "Karp–Flatt serial fraction at p=%d", p);
        lab_figure_num(cx, key, amd_karp_flatt(s[p - 1], p), "", label);
    }
    /* The same figures under names that do not depend on P, for graders. */
    lab_figure_num(cx, "t_pmax", t[P - 1], "s", "median time at p=P");
    lab_figure_num(cx, "speedup_pmax", s[P - 1], "×", "measured speedup at p=P");
    lab_figure_num(cx, "efficiency_pmax", 100.0 * s[P - 1] / P, "%", "efficiency at p=P");
    if (P >= 2)
        lab_figure_num(cx, "karp_flatt_pmax", amd_karp_flatt(s[P - 1], P), "",
                       "Karp–Flatt serial fraction at p=P");
    lab_figure_num(cx, "amdahl_pmax", amd_amdahl(f, P), "×", "Amdahl's speedup at p=P for f_set");
    lab_figure_num(cx, "gustafson_pmax", amd_gustafson(f, P), "×",
                   "Gustafson's scaled speedup at p=P for f_set");
    lab_figure_num(cx, "speedup_max_measured", smax, "×", "largest measured speedup");
    lab_figure_num(cx, "p_at_speedup_max", pmax, "", "p of the largest measured speedup");

    double ff = amd_fit_f(s, P);
    if (isnan(ff)) {
        lab_log(cx, LAB_LOG_INFO, "P = 1: no speedups to fit a serial fraction to");
        return;
    }
    double raw = ff;
    if (ff < 0)
        ff = 0;
    if (ff > 1)
        ff = 1;
    lab_figure_num(cx, "fitted_f_raw", raw, "", "least-squares serial fraction, unclamped");
    lab_figure_num(cx, "fitted_f", ff, "", "serial fraction fitted to the measured speedups");
    if (ff > 0)
        lab_figure_num(cx, "max_speedup_bound", 1.0 / ff, "×",
                       "Amdahl's ceiling 1/f for the fitted f");
    lab_log(cx, LAB_LOG_INFO, "fitted serial fraction %.4f (you set %.4f)%s", ff, f,
            ff > 0 ? "" : ": no measurable serial part, no finite ceiling");
}

static int amd_run_lab(struct lab_ctx *cx, struct core_err *err)
{
    const struct lab_params *pp = lab_ctx_params(cx);
    const struct lab_machine *m = lab_ctx_machine(cx);
    double f = lab_param_num(pp, "f");
    int P = (int)lab_param_num(pp, "P");
    double work_ms = lab_param_num(pp, "work_ms");
    int reps = (int)lab_param_num(pp, "reps");
    struct amd_run r = {.cx = cx,
                        .ps = lab_ctx_procs(cx),
                        .clk = lab_ctx_clock(cx),
                        .P = P,
                        .hang_s = lab_param_num(pp, "hang_timeout_ms") / 1000.0};
    double t[AMD_MAX_P] = {0}, s[AMD_MAX_P] = {0}, trial[20] = {0};
    int started = 0, rc;

    if (!r.clk)
        r.clk = core_clock_real();
    if (m->cores_online > 0 && P > m->cores_online)
        lab_log(cx, LAB_LOG_WARN,
                "P = %d is more than the %d online cores: from p = %d on, workers share cores "
                "(oversubscription), so the speedup cannot keep growing",
                P, m->cores_online, m->cores_online + 1);

    lab_progress(cx, 0, "calibrating the work unit");
    rc = amd_calibrate(&r, err);
    if (rc != 0)
        goto out;
    double work = r.rate * work_ms / 1000.0;

    lab_progress(cx, 0, "starting the worker processes");
    for (; started < P; started++) {
        int i = lab_proc_spawn(r.ps, amd_worker, NULL, err);
        if (i < 0) {
            rc = i;
            core_err_prefix(err, "starting worker %d of %d", started + 1, P);
            goto out;
        }
        r.idx[started] = (size_t)i;
        if (lab_cancelled(cx)) {
            rc = core_err_set(err, CORE_ERR_CANCELLED, "cancelled");
            goto out;
        }
    }
    /* W as people read it: "114 million iterations", not "1.14e+08". */
    lab_log(cx, LAB_LOG_INFO,
            "%d worker processes started; W = %.3g%s iterations (%g ms on one core)", P,
            work >= 1e9   ? work / 1e9
            : work >= 1e6 ? work / 1e6
                          : work,
            work >= 1e9   ? " billion"
            : work >= 1e6 ? " million"
                          : "",
            work_ms);

    /* One untimed trial on every worker first: a worker's first share runs
     * on a core that may have been idle (low clock) with nothing of it in
     * cache, and with reps = 1 or 2 that first, slower T(1) trial would set
     * every speedup. The master is warm already: it just calibrated. */
    lab_progress(cx, 0, "warming up the workers");
    double warm_secs;
    rc = amd_trial(&r, f, work, P, &warm_secs, err);
    if (rc != 0)
        goto out;

    /* progress weights: a trial with p workers costs about f + (1 − f)/p */
    double total = 0, done = 0;
    for (int p = 1; p <= P; p++)
        total += reps * (f + (1 - f) / p);

    for (int p = 1; p <= P; p++) {
        for (int k = 0; k < reps; k++) {
            char what[96];
            snprintf(what, sizeof what, "p = %d of %d, repetition %d of %d", p, P, k + 1, reps);
            lab_progress(cx, done / total, what);
            if (lab_cancelled(cx)) {
                rc = core_err_set(err, CORE_ERR_CANCELLED, "cancelled");
                goto out;
            }
            rc = amd_trial(&r, f, work, p, &trial[k], err);
            if (rc != 0)
                goto out;
            char rep[48];
            snprintf(rep, sizeof rep, "time per trial at p = %d", p);
            lab_repeat(cx, rep, "s", trial[k]);
            done += f + (1 - f) / p;
        }
        double lo = trial[0], hi = trial[0];
        for (int k = 1; k < reps; k++) {
            lo = trial[k] < lo ? trial[k] : lo;
            hi = trial[k] > hi ? trial[k] : hi;
        }
        t[p - 1] = lab_stats_median(trial, (size_t)reps);
        s[p - 1] = t[0] / t[p - 1];
        lab_emit(cx, "time", p, t[p - 1]);
        lab_emit(cx, "speedup", p, s[p - 1]);
        lab_emit(cx, "amdahl", p, amd_amdahl(f, p));
        lab_emit(cx, "gustafson", p, amd_gustafson(f, p));
        lab_emit(cx, "efficiency", p, 100.0 * s[p - 1] / p);
        if (p >= 2) {
            lab_emit(cx, "karp_flatt", p, amd_karp_flatt(s[p - 1], p));
            lab_emit(cx, "f_set", p, f);
        }
        lab_log(cx, LAB_LOG_INFO, "p = %d: %.4f s (%.4f .. %.4f), speedup %.3f, Amdahl %.3f", p,
                t[p - 1], lo, hi, s[p - 1], amd_amdahl(f, p));
    }
    lab_progress(cx, 1, "done");
    amd_summary(&r, f, work_ms, reps, t, s);
    rc = 0;
out:
    amd_pool_stop(&r, rc == 0 ? started : 0);
    return rc;
}

/* ---- the definition -------------------------------------------------------- */

static double amd_default_P(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        n = 1;
    return n > AMD_MAX_P ? AMD_MAX_P : (double)n;
}

static const struct lab_param_def amd_params[] = {
    {"f", LAB_P_REAL, "0.1", NULL, 0, 1, NULL, "",
     "serial fraction of the one-core work (0 = all parallel, 1 = all serial)"},
    {"P", LAB_P_INT, NULL, amd_default_P, 1, AMD_MAX_P, NULL, "",
     "run p = 1..P workers (default: online cores; more oversubscribes)"},
    {"work_ms", LAB_P_INT, "400", NULL, 10, 10000, NULL, "ms",
     "total work of one trial, as time on one core"},
    {"reps", LAB_P_INT, "3", NULL, 1, 20, NULL, "", "repetitions per p; the median counts"},
    {"hang_timeout_ms", LAB_P_REAL, "0", NULL, 0, 3600000, NULL, "ms",
     "a worker silent this long is ended and the run fails (0: 5 s + 20 x its share)"},
};

static const struct lab_series_def amd_series[] = {
    {"time", "median time per trial", "s", "time", "p"},
    {"speedup", "measured speedup T(1)/T(p)", "×", "speedup", "p"},
    {"amdahl", "Amdahl 1/(f+(1-f)/p)", "×", "speedup", "p"},
    {"gustafson", "Gustafson p-f(p-1) (weak scaling)", "×", "speedup", "p"},
    {"efficiency", "efficiency S(p)/p", "%", "efficiency", "p"},
    {"karp_flatt", "Karp-Flatt serial fraction e(p)", "", "karp_flatt", "p"},
    {"f_set", "the f you set", "", "karp_flatt", "p"},
};

static const struct lab_chart_def amd_charts[] = {
    {"time", "time per trial against p", false},
    {"speedup", "speedup against p", false},
    {"efficiency", "efficiency S(p)/p", false},
    {"karp_flatt", "Karp-Flatt serial fraction", false},
};

const struct lab_def lab_amdahl_def = {
    .name = "amdahl",
    .title = "Amdahl speedup on your machine",
    .summary = "serial fraction f, p = 1..P worker processes: measured vs Amdahl/Gustafson, "
               "Karp-Flatt",
    .params = amd_params,
    .n_params = sizeof amd_params / sizeof amd_params[0],
    .series = amd_series,
    .n_series = sizeof amd_series / sizeof amd_series[0],
    .check = NULL,
    .run = amd_run_lab,
    .charts = amd_charts,
    .n_charts = sizeof amd_charts / sizeof amd_charts[0],
};
