/*
 * lab_kmeans.h — the k-means lab's parts, private to labs/kmeans/lab_kmeans*.c and
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
 * Uses the lab framework (lab_author.h) and the map routine of the kernels module
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
#define KM_REC_CHUNK 4096 /* records per read (and, locally, per socket write) */

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
/* lab_def.resolve: for a run from a points file, n and d become the
 * points the run uses and the file's dimension (its shape, counted as the
 * run counts it), so the recorded and reported parameters are the run's,
 * not the generator's defaults. A file that cannot be read leaves p as it
 * is (the run reports it). */
void lab_km_cfg_params_resolve(struct lab_params *p);

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
struct lab_net_msg;

/* ---- the engine's transports --------------------------------------------------
 *
 * The scheduler (lab_kmeans_mr.c) decides what runs where: the queue of map
 * tasks, backups of late tasks, the hang rule, re-running a lost worker's
 * task, accepting each task's first result. How commands and results reach
 * the workers is a table of functions, as the distributed labs' connections
 * are (lab_net_ops): the local transport (lab_kmeans_local.c: worker
 * processes over their socketpairs, the points and centres in shared memory)
 * and MPI (lab_kmeans_ranks.c: the ranks of an Open MPI job, the points
 * broadcast once, the centres sent with each command). Results are the same
 * bits either way: the reduce adds the tasks' partials in task order.
 *
 * Functions that move data return 0, KM_GONE when the worker is gone (its
 * process died or its connection closed: the scheduler calls `lost`), or a
 * negative error with err filled (CORE_ERR_CANCELLED "cancelled" when the
 * run's cancel flag was seen). */
#define KM_GONE 1    /* the worker of the slot is gone */
#define KM_CRASHED 2 /* recv: the worker reports an injected crash (no body) */

struct km_engine;
struct km_transport {
    const char *name; /* "local", "mpi" */
    /* Starts a worker on every slot (their idx >= 0 after). */
    int (*start)(struct km_engine *e, struct core_err *err);
    /* Puts a new worker on slot s, whose worker is gone: 0, or KM_GONE when
     * this transport cannot (an MPI rank is not replaced), or an error. */
    int (*revive)(struct km_engine *e, int s, struct core_err *err);
    /* Sends slot s command c (the centres of pass buffer c->buf with it, or
     * in shared memory). */
    int (*send)(struct km_engine *e, int s, const struct km_cmd *c, struct core_err *err);
    /* Waits at most ms for slots that have a result to read or whose worker
     * ended; puts them in ready (KM_MAX_WORKERS room) and returns how many
     * (0: none in time), or a negative error. */
    int (*wait)(struct km_engine *e, int ms, int *ready, struct core_err *err);
    /* Reads the header of slot s's next result into *r: 0, KM_GONE,
     * KM_CRASHED (*r names the attempt), or an error (a message that is not
     * a result). */
    int (*recv)(struct km_engine *e, int s, struct km_reply *r, struct core_err *err);
    /* Reads the next n bytes of that result's body into buf (NULL: dropped). */
    int (*body)(struct km_engine *e, int s, void *buf, size_t n, struct core_err *err);
    /* Slot s's worker is gone, or hung (then the transport ends it: SIGKILL,
     * or rank 0's KILL order); frees the slot (idx -1) and says who it was
     * ("pid 1234", "rank 3") and how it ended ("was killed by signal 9
     * (Killed)", "closed its connection"; hung: "killed", "ended"). */
    void (*lost)(struct km_engine *e, int s, bool hung, char *who, size_t who_n, char *how,
                 size_t how_n);
    /* The end of the run: idle workers are asked to leave; what is left is
     * the run's (lab_run kills and reaps it). */
    void (*stop)(struct km_engine *e);
    size_t frame_bytes; /* bytes on the wire per result besides header and body */
    bool labels_sent;   /* LABEL results carry the labels (else the workers write them
                           into sh->labels, shared memory) */
    bool replaces;      /* a lost worker gets a successor on its slot (revive) */
    bool crash_kills;   /* an injected crash kills the worker (else it says so: KM_CRASHED) */
};
extern const struct km_transport lab_km_transport_local;
extern const struct km_transport lab_km_transport_mpi;

struct km_engine {
    struct lab_ctx *cx;
    const struct km_transport *tr;
    const struct core_clock *clk;
    atomic_int *cancel;
    struct km_shared *sh;
    int P; /* worker slots */
    struct km_slot slot[KM_MAX_WORKERS];
    double strag[KM_MAX_WORKERS];
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
    unsigned char *tstate; /* T: enum km_tstate */
    uint32_t *tattempts;   /* T: attempts started */
    int *tlive;            /* T: attempts running */
    int *queue;            /* T: pending tasks, a ring */
    int qhead, qn;         /* its first entry and length */
    double *tdur;          /* durations of this pass's accepted tasks */
    /* the local transport: slot s's worker is procs->v[slot[s].idx] */
    struct lab_procs *ps;
    struct km_worker_arg warg[KM_MAX_WORKERS];
    /* the MPI transport: slot s is rank s + 1, reached over conn[s] (its idx
     * is s while it serves, -1 once it was ended); msg[s] is the result
     * being read, at[s] how far */
    struct lab_net_conn *conn;
    struct lab_net_msg *msg;
    size_t *at;
};

/* Sets e up for P worker slots and T tasks over sh->n points on transport tr
 * (nothing is started). Caller frees with lab_km_engine_fini. */
void lab_km_engine_init(struct km_engine *e, struct lab_ctx *cx, struct km_shared *sh, int P, int T,
                        const double *straggle, const struct km_transport *tr);
void lab_km_engine_fini(struct km_engine *e);

/* Starts the worker of every slot (the transport's start: MPI also orders
 * every rank to serve, aligns the clocks, records the hosts and sends the
 * points to every rank). */
int lab_km_engine_start(struct km_engine *e, struct core_err *err);

/* One pass of `op` over every task on slots 0..p_use-1 with the centres in
 * sh->centres[buf] (the caller wrote them; buf = the pass number after this
 * call, mod 2: see lab_km_engine_next_buf). With faults, crashes (sh->crash)
 * and the straggler apply. MAP results land in e->psum/pcnt/psse. A lost
 * worker's task runs again (locally a new worker takes its slot; an MPI
 * rank's slot is not used again); late tasks get a backup copy on an idle
 * worker; a worker silent for longer than the labs' hang rule allows is
 * ended. Returns 0, CORE_ERR_CANCELLED, or an error. */
int lab_km_engine_pass(struct km_engine *e, enum km_op op, int p_use, bool faults, uint32_t iter,
                       struct km_pass_stats *st, struct core_err *err);
/* The centre buffer the next pass reads: write the centres there first. */
int lab_km_engine_next_buf(const struct km_engine *e);

/* Asks idle workers to leave (the transport's stop). */
void lab_km_engine_stop(struct km_engine *e);

/* What one attempt of a task computes, whoever runs it (the local worker
 * process and an MPI rank alike): the assignment of points x[0..m) to the
 * nearest of the k centres cen, into *r (sse, recs, body) and, for MAP with
 * the combiner, sums (k*d) and cnt (k), zeroed first; otherwise the labels
 * (m). An injected crash (faults on, km_fault_u below crash) does half the
 * work and returns true: the attempt's output is lost. */
bool lab_km_map(const struct km_cmd *c, const float *x, size_t m, int d, const float *cen, int k,
                bool combiner, double crash, uint64_t seed, struct km_reply *r, double *sums,
                int64_t *cnt, int32_t *labels);
/* Writes the records of points i0 .. i0+n (labels lab, coordinates x, both
 * indexed from the task's first point) at out: n * lab_km_rec_bytes(d). */
void lab_km_rec_fill(unsigned char *out, const float *x, const int32_t *lab, size_t i0, size_t n,
                     int d);
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
