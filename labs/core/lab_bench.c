/*
 * lab_bench.c — benchmarks of the lab framework itself (contracts in lab.h):
 * how fast the metric stream carries samples into the store and a sink, how
 * much a stream of about 1000 samples/s slows a fixed CPU workload, and the
 * raw socketpair bandwidth the distributed labs' transport is compared
 * with. The CLI's `bench labstream` and `bench paramserver` print these;
 * the labs they run are private to this file (not in the registry).
 */
#include "labs/lab_author.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- the stream ------------------------------------------------------------ */

/* What the benchmark labs do: emit `n` samples as fast as they can, or run
 * `chunks` chunks of the workload emitting one sample after each when
 * `emit` is set. Set before each lab_run. */
static struct {
    long n;
    long chunks;
    long chunk_iters;
    bool emit;
    double work_s;     /* bench_work: the workload's own time, inside the run */
    double work_cpu_s; /* the same in CPU time of the lab's thread */
} ls;

static double thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static volatile double ls_sink; /* keeps the workload from being optimised away */

/* A fixed CPU workload: iters steps of a floating-point recurrence. */
static double work(long iters)
{
    double x = 0.5, y = 0.25;
    for (long i = 0; i < iters; i++) {
        x = x * 3.9 * (1 - x);
        y += x * 1e-3;
    }
    return y;
}

static int bench_flood(struct lab_ctx *cx, struct core_err *err)
{
    static const char *const names[] = {"a", "b", "c", "d"};
    (void)err;
    for (long i = 0; i < ls.n; i++)
        lab_emit(cx, names[i & 3], i, (double)i * 0.5);
    return 0;
}

static int bench_work(struct lab_ctx *cx, struct core_err *err)
{
    (void)err;
    double acc = 0, t0 = core_time_mono(), c0 = thread_cpu();
    for (long c = 0; c < ls.chunks; c++) {
        double v = work(ls.chunk_iters);
        acc += v;
        if (ls.emit)
            lab_emit(cx, "work", c, v);
    }
    ls_sink = acc;
    ls.work_s = core_time_mono() - t0;
    ls.work_cpu_s = thread_cpu() - c0;
    return 0;
}

static const struct lab_def flood_lab = {
    .name = "bench-flood", .title = "", .summary = "", .run = bench_flood};
static const struct lab_def work_lab = {
    .name = "bench-work", .title = "", .summary = "", .run = bench_work};

static int run_one(const struct lab_def *lab, struct db *db, int64_t uid,
                   const struct lab_sink *sink, size_t n_sinks, double *secs, struct core_err *e)
{
    struct lab_params p;
    struct lab_result r;
    lab_params_init(&p, lab);
    struct lab_machine m = {.cpu_model = "bench", .cores_online = 1, .line_bytes = 64};
    struct lab_run_opts o = {
        .db = db, .user_id = uid, .sinks = sink, .n_sinks = n_sinks, .machine = &m};
    double t0 = core_time_mono();
    int rc = lab_run(&p, &o, &r, e);
    *secs = core_time_mono() - t0;
    lab_result_fini(&r);
    lab_params_fini(&p);
    return rc;
}

int lab_bench_stream(struct db *db, int64_t user_id, const struct lab_sink *sink,
                     long flood_samples, struct lab_bench_stream *out, struct core_err *err)
{
    memset(out, 0, sizeof *out);
    out->flood_samples = flood_samples;

    /* 1. Throughput: as fast as the stream goes. */
    ls.n = flood_samples;
    int rc = run_one(&flood_lab, db, user_id, sink, 1, &out->flood_store_s, err);
    if (rc == 0)
        rc = run_one(&flood_lab, NULL, 0, sink, 1, &out->flood_sink_s, err);
    if (rc != 0)
        return rc;

    /* 2. Overhead on a fixed workload: chunks of about 1 ms, so one sample
     * per chunk is about 1000 samples/s. Calibrate, then alternate runs
     * without and with the stream and keep each one's best time (the
     * machine may be shared; the minimum is the least disturbed). The
     * slowdown is read from the lab thread's CPU time, which other
     * processes on a busy machine disturb far less than wall time; both
     * are kept. */
    long iters = 1000;
    for (;;) {
        double t0 = thread_cpu();
        ls_sink = work(iters);
        double dt = thread_cpu() - t0;
        if (dt >= 0.02) {
            iters = (long)((double)iters * 0.001 / dt);
            break;
        }
        iters *= 2;
    }
    ls.chunk_iters = iters > 0 ? iters : 1;
    ls.chunks = 500;
    out->chunks = ls.chunks;
    out->reps = 5;
    out->work_s = out->work_cpu_s = out->stream_s = out->stream_cpu_s = out->run_s = INFINITY;
    for (int i = 0; i < out->reps; i++) {
        double t;
        ls.emit = false;
        if ((rc = run_one(&work_lab, NULL, 0, NULL, 0, &t, err)) != 0)
            return rc;
        out->work_s = fmin(out->work_s, ls.work_s);
        out->work_cpu_s = fmin(out->work_cpu_s, ls.work_cpu_s);
        ls.emit = true;
        if ((rc = run_one(&work_lab, db, user_id, sink, 1, &t, err)) != 0)
            return rc;
        out->stream_s = fmin(out->stream_s, ls.work_s);
        out->stream_cpu_s = fmin(out->stream_cpu_s, ls.work_cpu_s);
        out->run_s = fmin(out->run_s, t - ls.work_s);
    }
    return 0;
}

/* ---- the socketpair ------------------------------------------------------- */

#define SP_CHUNK (4u << 20)

static int sp_reader(int fd, void *arg)
{
    long long left = *(const long long *)arg;
    char *buf = malloc(SP_CHUNK);
    while (buf && left > 0) {
        ssize_t r = read(fd, buf, left < SP_CHUNK ? (size_t)left : SP_CHUNK);
        if (r <= 0)
            break;
        left -= r;
    }
    free(buf);
    char ok = left == 0 ? 'k' : 'x';
    return write(fd, &ok, 1) == 1 && ok == 'k' ? 0 : 1;
}

int lab_bench_socketpair(int mb, double *best_s, struct core_err *err)
{
    long long bytes = (long long)mb << 20;
    char *buf = core_xcalloc(1, SP_CHUNK);
    double best = INFINITY;
    int rc = 0;
    for (int rep = 0; rep < 3 && rc == 0; rep++) {
        struct lab_procs ps;
        lab_procs_init(&ps, NULL);
        int i = lab_proc_spawn(&ps, sp_reader, &bytes, err);
        if (i < 0) {
            rc = i;
            lab_procs_fini(&ps);
            break;
        }
        int fd = ps.v[i].fd;
        double t0 = core_time_mono();
        for (long long left = bytes; left > 0;) {
            ssize_t w = write(fd, buf, left < SP_CHUNK ? (size_t)left : SP_CHUNK);
            if (w <= 0)
                break;
            left -= w;
        }
        char ok = 0;
        ssize_t r = read(fd, &ok, 1);
        double t = core_time_mono() - t0;
        lab_procs_fini(&ps);
        if (r != 1 || ok != 'k')
            rc = core_err_set(err, CORE_ERR_IO, "the socketpair benchmark's reader failed");
        best = fmin(best, t);
    }
    free(buf);
    *best_s = best;
    return rc;
}
