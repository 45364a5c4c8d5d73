/*
 * lab_kmeans.h — the k-means lab's parts, private to labs/lab_kmeans*.c and
 * its tests: the resolved configuration, the points (generated or read from
 * a file), the fault schedule, and the MapReduce engine — a master that
 * splits the points into map tasks, hands them to worker processes over
 * their socketpairs, re-runs the tasks of crashed or late workers, and
 * reduces the partial results in task order.
 *
 * Everything big lives in shared memory (lab_shm_alloc) mapped before the
 * workers start: the points (read-only for workers), two centre buffers
 * (the master writes one per pass, alternating, so a late worker still
 * reading the previous pass's centres never sees a half-written set) and
 * the final labels. Commands and results travel over the sockets.
 *
 * Uses the lab framework (lab.h) and the map routine of the kernels module
 * (kern_kmeans_assign), so workers and the GPU check run the same
 * arithmetic.
 */
#ifndef WB_LAB_KMEANS_H
#define WB_LAB_KMEANS_H

#include "kernels/kernels.h"
#include "labs/lab_author.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The lab's definition: one row of the registry (core/lab_registry.c), and
 * the only symbol of this folder the rest of labs/ uses. */
extern const struct lab_def lab_km_def;

#define KM_MAX_N 100000000
#define KM_MAX_WORKERS 64
#define KM_MAX_TASKS 4096
#define KM_REPLY_BYTES 48 /* sizeof(struct km_reply): the header of every map result */

/* ---- configuration ---------------------------------------------------------- */

enum km_format { KM_FMT_CSV, KM_FMT_F32 };
enum km_init { KM_INIT_RANDOM, KM_INIT_FIRST, KM_INIT_FILE };

/* The parameters after the cross-checks: what a run actually uses. Strings
 * are borrowed from the lab_params. */
struct km_cfg {
    size_t n; /* points used */
    int d, k;
    const char *file; /* "" for generated points */
    enum km_format fmt;
    size_t n_file; /* points in the file */
    double spread;
    uint64_t seed;
    enum km_init init;
    const char *init_file;
    enum km_format init_fmt;
    int workers, tasks;
    bool combiner;
    int max_iter;
    double tol;
    double crash;
    struct lab_straggler strag; /* straggler=W:FACTOR (lab_param_straggler) */
    bool gpu;                   /* device=gpu asked for */
    int scale_iters;
    const char *save; /* "" for none */
    bool overwrite;   /* save may replace an existing regular file */
    bool mpi;         /* transport=mpi: the workers are ranks 1..workers of an MPI job */
};

/* Reads and cross-checks the parameters (lab_kmeans_cfg.c): the file's
 * shape (a CSV file is read through, so a bad line is reported before
 * anything runs), k <= n, tasks <= n, init and init_file, the MPI ranks,
 * the straggler, what device=gpu allows, and that the points fit in half of
 * mem_bytes (0: unknown). Errors are CORE_ERR_INVALID naming the parameters
 * (and file and line). */
int lab_km_cfg_resolve(const struct lab_params *p, long mem_bytes, struct km_cfg *c,
                       struct core_err *err);
/* The same for the run: with deep false a CSV file's lines are counted,
 * not parsed (the check parsed them moments ago, and the load reports any
 * change), and a float32 file's values are not read; the count streams the
 * file and gives up with CORE_ERR_CANCELLED when stop(ud) says so (stop may
 * be NULL). */
int lab_km_cfg_read(const struct lab_params *p, long mem_bytes, bool deep, bool (*stop)(void *),
                    void *ud, struct km_cfg *c, struct core_err *err);
/* lab_def.check: lab_km_cfg_resolve with this machine's memory. */
int lab_km_cfg_check(const struct lab_params *p, struct core_err *err);

/* ---- points ----------------------------------------------------------------- */

/* The format of a points file: fmt_param "csv" or "f32", or "auto" (by the
 * name: .csv and .txt are CSV; .f32, .bin and .raw are float32). `what`
 * names the parameter in messages ("file", "init_file"). */
int lab_km_format_pick(const char *path, const char *fmt_param, const char *what,
                       enum km_format *out, struct core_err *err);

/* Reads a points file. CSV: a header line naming the columns (d is their
 * count), then one point per line, numbers separated by commas (spaces
 * around them allowed, blank lines skipped, '.' as the decimal point
 * whatever the locale). f32: raw little-endian float32, d per point, d_in
 * given (the file size must be a whole number of points). Every value must
 * be a finite float within +-lab_km_coord_limit(d). *n_out gets the points in
 * the file, *d_out the dimension. When x is not NULL the first n_take
 * points are stored there (n_take*d floats, caller's memory) and a CSV file
 * is read only that far. With x NULL a CSV file is read through; an f32
 * file's first n_take points are read and checked (n_take 0: its size
 * alone tells). `stop` (may be NULL) is asked after about every 2^18
 * values and ends the read with CORE_ERR_CANCELLED. Errors name the
 * parameter, the file and the line (CSV) or point (f32). */
int lab_km_points_read(const char *path, enum km_format fmt, const char *what, int d_in, float *x,
                       size_t n_take, size_t *n_out, int *d_out, bool (*stop)(void *), void *ud,
                       struct core_err *err);

/* The largest |coordinate| a point or centre may have in d dimensions:
 * then no squared distance (a float sum of d squares) can overflow. */
double lab_km_coord_limit(int d);

/* Fills x (n*d floats) with k Gaussian blobs: blob centres uniform in
 * [-10, 10)^d, every point in a blob drawn at random, coordinates off its
 * blob's centre by normal noise of standard deviation `spread`. A function
 * of (seed, n, d, k, spread) alone. `stop` (may be NULL) is asked after
 * about every 2^18 coordinates; returns false when it said stop. */
bool lab_km_generate(float *x, size_t n, int d, int k, double spread, uint64_t seed,
                     bool (*stop)(void *), void *ud);

/* k distinct indices below n drawn from seed (init=random), in draw order. */
void lab_km_init_random(size_t n, int k, uint64_t seed, size_t *out);

/* Writes k centres as CSV (header x1..xd, floats with 9 significant
 * digits: they read back bit for bit) to a new file at path, through
 * core_file_create: an existing path is refused (CORE_ERR_CONFLICT naming
 * it) unless `overwrite`, and a link, FIFO or device always is. */
#define KM_OVERWRITE_HOW "set overwrite=on"
int lab_km_centres_save(const char *path, const float *c, int k, int d, bool overwrite,
                        struct core_err *err);

/* ---- faults ----------------------------------------------------------------- */

/* A number in [0, 1) fixed by (seed, iteration, task, attempt): attempt
 * `attempt` of map task `task` in iteration `iter` crashes when it is below
 * the crash probability. The same seed replays the same schedule whatever
 * worker runs the attempt. */
double lab_km_fault_u(uint64_t seed, uint32_t iter, uint32_t task, uint32_t attempt);

/* ---- the engine ------------------------------------------------------------- */

enum km_op { KM_OP_MAP = 1, KM_OP_LABEL = 2, KM_OP_QUIT = 3 };

struct km_cmd {
    uint32_t op, pass, iter, task, attempt, buf, faults, pad;
    uint64_t lo, hi;
};

/* The header of every answer; a body follows: with the combiner k*d double
 * sums then k int64 counts; without it `recs` records of 4*(d+2) bytes
 * (int32 cluster, d float32 coordinates, int32 count 1); none for LABEL. */
struct km_reply {
    uint32_t pass, task, attempt, op;
    uint64_t recs, body;
    double sse;
    double map_s; /* the worker's time on the task (compute, and a straggler's wait) */
};

/* The bytes of one record (no combiner): 4 * (d + 2). */
size_t lab_km_rec_bytes(int d);
/* Adds n records at p into the partial sums ps (k*d) and counts pc (k), in
 * record order (so the sums are the same bits whoever reduces them).
 * CORE_ERR_INTERNAL naming worker (from 1) and task (from 0) when a record
 * has a cluster outside 0..k-1 or a count other than 1. */
int lab_km_rec_reduce(const unsigned char *p, size_t n, int k, int d, double *ps, int64_t *pc,
                      int worker, unsigned task, struct core_err *err);

/* What the workers see: set before the first worker starts. */
struct km_shared {
    const float *x; /* n*d points, shared */
    size_t n;
    int d, k;
    float *centres[2]; /* k*d each, shared: pass p uses centres[p % 2] */
    int32_t *labels;   /* n, shared: written by LABEL passes */
    bool combiner;
    double crash;
    uint64_t seed;
};

/* What a worker process is started with. */
struct km_worker_arg {
    const struct km_shared *sh;
    double straggle; /* > 1: this worker is that many times slower */
};

struct km_slot {
    int idx; /* index in procs->v, -1 when none */
    bool busy;
    uint32_t pass, task, attempt, iter;
    uint32_t op;     /* enum km_op of the attempt */
    double t0;       /* when the attempt was sent */
    double straggle; /* > 1: this worker is that many times slower */
    long tasks_done, attempts;
};

/* Figures of one map pass. Times in seconds of the master's clock. */
struct km_pass_stats {
    double wall_s;    /* the whole pass: send, wait, receive */
    double shuffle_s; /* reading the results off the sockets */
    double reduce_s;  /* adding records into partials (no combiner) */
    double map_cpu_s; /* worker time of the accepted attempts, summed */
    uint64_t bytes;   /* bytes received, headers and bodies, duplicates too */
    uint64_t records; /* records received by accepted results */
    int reexec;       /* attempts beyond the first, per task, summed */
    int crashes;      /* workers that died during the pass */
    int speculative;  /* backup attempts started for late tasks */
    int timeouts;     /* workers killed for not answering */
    int respawns;     /* workers started to replace dead ones */
    int tasks_by_slot[KM_MAX_WORKERS];
};

struct lab_net_conn;

struct km_engine {
    struct lab_ctx *cx;
    struct lab_procs *ps;
    const struct core_clock *clk;
    atomic_int *cancel;
    struct km_shared *sh;
    int P; /* worker slots */
    struct km_slot slot[KM_MAX_WORKERS];
    double strag[KM_MAX_WORKERS];
    struct km_worker_arg warg[KM_MAX_WORKERS];
    int T;
    size_t *bounds;      /* T + 1 */
    double *psum;        /* T*k*d partial sums */
    int64_t *pcnt;       /* T*k */
    double *psse;        /* T */
    uint32_t pass;       /* number of the pass running or last run */
    double typical_s;    /* median task time of the last pass (0: none yet) */
    unsigned char *rbuf; /* receive buffer */
    size_t rbuf_cap;
    int fault_logs_left; /* fault log lines still allowed */
    /* per pass */
    unsigned char *tstate; /* T: 0 pending, 1 running, 2 done */
    uint32_t *tattempts;   /* T: attempts started */
    int *tlive;            /* T: attempts running */
    int *queue;            /* T: pending tasks, a ring */
    int qhead, qn;         /* its first entry and length */
    double *tdur;          /* durations of this pass's accepted tasks */
    /* transport=mpi (lab_kmeans_ranks.c): slot s is rank s + 1, reached
     * over conn[s]; its idx is s while it serves, -1 once it was ended */
    bool mpi;
    struct lab_net_conn *conn;
};

/* Sets e up for P worker slots and T tasks over sh->n points (nothing is
 * started). Caller frees with lab_km_engine_fini. */
void lab_km_engine_init(struct km_engine *e, struct lab_ctx *cx, struct km_shared *sh, int P, int T,
                        const double *straggle);
void lab_km_engine_fini(struct km_engine *e);

/* Starts the worker of every slot. */
int lab_km_engine_start(struct km_engine *e, struct core_err *err);

/* One pass of `op` over every task on slots 0..p_use-1 with the centres in
 * sh->centres[buf] (the caller wrote them; buf = the pass number after this
 * call, mod 2: see lab_km_engine_next_buf). With faults, crashes (sh->crash)
 * and the straggler apply. MAP results land in e->psum/pcnt/psse. Dead
 * workers are replaced, their tasks re-run; late tasks get a backup copy on
 * an idle worker. Returns 0, CORE_ERR_CANCELLED, or an error. */
int lab_km_engine_pass(struct km_engine *e, enum km_op op, int p_use, bool faults, uint32_t iter,
                       struct km_pass_stats *st, struct core_err *err);
/* The centre buffer the next pass reads: write the centres there first. */
int lab_km_engine_next_buf(const struct km_engine *e);

/* Asks idle workers to exit and reaps them; busy ones are left to lab_run. */
void lab_km_engine_stop(struct km_engine *e);

/* transport=mpi (lab_kmeans_ranks.c): lab_km_engine_start, _pass and _stop of
 * an engine whose slots are the ranks of an Open MPI job. Start orders
 * every rank to serve, aligns the clocks, records the hosts and sends the
 * points to every rank (they then hold a copy: the map reads it). A pass
 * sends each command with the centres; an injected crash (crash=) drops
 * the task's output (a rank cannot die: Open MPI would end the job) and the
 * task runs again; a rank silent too long is ended at the application level
 * and its slot is not used again. */
int lab_km_mpi_start(struct km_engine *e, struct core_err *err);
int lab_km_mpi_pass(struct km_engine *e, enum km_op op, int p_use, bool faults, uint32_t iter,
                    struct km_pass_stats *st, struct core_err *err);
void lab_km_mpi_stop(struct km_engine *e);
/* A rank other than 0 (lab_def.rank). */
int lab_km_mpi_rank_main(const struct lab_params *p, struct core_err *err);

/* The reduce: adds the T partials in task order, then moves every centre
 * with points to their mean (rounded to float); an empty cluster keeps its
 * centre. Returns the summed SSE; *shift is the largest distance a centre
 * moved, *empty the number of empty clusters and *first_empty the first
 * (or -1). sums/cnt: k*d and k scratch. Pure. */
double lab_km_reduce(const double *psum, const int64_t *pcnt, const double *psse, int T, int k,
                     int d, float *centres, double *sums, int64_t *cnt, double *shift, int *empty,
                     int *first_empty);

/* ---- the run (lab_kmeans.c, lab_kmeans_loop.c, lab_kmeans_summary.c) -------- */

/* What one loop of iterations measured. */
struct km_loop {
    int iters;
    bool converged;
    double *iter_s; /* per iteration */
    double med_s;   /* median of iter_s */
    double sum_map_s, sum_shuffle_s, sum_reduce_s, sum_map_cpu_s;
    double sse_first, shift_last;
    uint64_t bytes, records;
    int reexec, crashes, speculative, timeouts, respawns, empty;
    long tasks_by_slot[KM_MAX_WORKERS];
};

struct km_run {
    struct lab_ctx *cx;
    struct km_cfg cfg;
    const struct core_clock *clk;
    struct km_shared sh;
    struct km_engine eng;
    bool have_engine;
    struct kern_km_gpu *gpu;
    struct kern_device dev;
    float *c0, *cur;
    double *rsum; /* reduce scratch */
    int64_t *rcnt;
    double *gsum, *gsse; /* GPU per-task partials */
    int64_t *gcnt;
    size_t *bounds; /* the GPU's copy of the task split */
    float *snap;    /* centres after snap_iters iterations of p = 1 */
    int snap_iters;
    bool snap_checked;
    int empty_logs;
    double *gpu_ks; /* kernel time of each GPU map step (the median is reported) */
    int gpu_steps, gpu_ks_cap;
    double gpu_check_bad, gpu_check_rel; /* the iteration 1 check's findings */
    /* what the run found, for the summary */
    bool use_gpu;             /* the map ran on the GPU */
    int P;                    /* workers of the main run (1 with the GPU) */
    struct km_loop main_loop; /* the main run */
    struct km_loop *scale;    /* the speedup passes, p = 1 .. p_scale */
    int n_scale, p_scale;     /* passes run, passes planned */
    struct km_pass_stats lst; /* the final assignment */
    double final_sse;
    int32_t *labels; /* the final labels, in shared memory */
    bool mpi_up;     /* lab_mpi_init was called */
};

/* Whether the run was cancelled: lab_cancelled(ud), ud a struct lab_ctx. */
bool lab_km_run_stop(void *ud);
/* Generates or reads the points into r->sh.x, logging where they came
 * from. CORE_ERR_CANCELLED, or the loader's error naming file and line. */
int lab_km_points(struct km_run *r, struct core_err *err);
/* The initial centres into r->c0: init=file's, k random points, or the
 * first k. */
int lab_km_init_centres(struct km_run *r, struct core_err *err);
/* One map step on the GPU into r->gsum/gcnt/gsse (labels: NULL, or where
 * the final labels go); the times as a pass's. */
int lab_km_gpu_step(struct km_run *r, int32_t *labels, struct km_pass_stats *st,
                    struct core_err *err);
/* Runs iterations from the initial centres on p_use workers (or the GPU)
 * until converged or max_iter, into *L (caller frees L->iter_s). main: the
 * reported run (faults, series, logs, the GPU check, the determinism check
 * against r->snap); otherwise a timed pass for the speedup. */
int lab_km_iterate(struct km_run *r, int p_use, bool use_gpu, int max_iter, bool main,
                   struct km_loop *L, struct core_err *err);
/* The summary figures and the closing log line of a finished run. */
void lab_km_summary(struct km_run *r);

#endif /* WB_LAB_KMEANS_H */
