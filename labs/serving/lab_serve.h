/*
 * lab_serve.h — the serving lab's private parts (labs/serving/lab_serve_*.c and
 * labs/serving/lab_serving.c only), split out so the tests can drive them directly:
 *
 *  - the books (lab_serve_book.c): one record per request (arrival,
 *    dispatch into a batch, answer), kept by the dispatcher as events
 *    happen. They refuse an unknown id, a second answer to one request and
 *    an answer to a request never dispatched, and integrate the number in
 *    the system and in the queue over time as they go, so every statistic
 *    the lab reports — percentiles, throughput, mean queue, Little's law —
 *    comes from these same records;
 *  - the arrival schedule (Poisson: exponential gaps from a seeded stream)
 *    and the inputs of each request (a pure function of seed and id, so the
 *    dispatcher can recompute any request's answer to check it);
 *  - the model (an MLP d -> hidden -> d, ReLU) on the CPU with
 *    our packed GEMM (kernels.h), used by the workers and by the check;
 *  - the wire messages between the dispatcher, the load generator and the
 *    workers;
 *  - the run's state the lab's files share: lab_serving.c (definition,
 *    parameters, the sweeps), lab_serve_front.c (the front end and the
 *    calibration) and lab_serve_procs.c (generator, workers, GPU thread).
 *
 * Uses core, kernels (the GEMM) and the lab framework (lab_author.h).
 */
#ifndef WB_LAB_SERVE_H
#define WB_LAB_SERVE_H

#include "core/core.h"
#include "kernels/kernels.h"
#include "labs/lab_author.h"

#include <pthread.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The lab's definition: one row of the registry (core/lab_registry.c), and
 * the only symbol of this folder the rest of labs/ uses. */
extern const struct lab_def lab_srv_def;

#define SRV_MAX_WORKERS 16
#define SRV_MAX_BATCH 256

/* ---- the books ---------------------------------------------------------------- */

struct srv_rec {
    double arrive;   /* when the dispatcher received it */
    double dispatch; /* when its batch left for a worker; < 0 before */
    double done;     /* when its answer came back; < 0 before */
    int32_t batch;   /* size of its batch */
    int32_t answers; /* answers received: 1 when all is well */
};

struct srv_book {
    struct srv_rec *v; /* indexed by request id */
    size_t n, cap;     /* requests arrived (ids 0..n-1) */
    size_t dispatched, answered;
    size_t in_system, in_queue;
    double t0;                      /* the first arrival; the window starts there */
    double t_last;                  /* time of the latest event */
    double area_sys;                /* ∫ number in system dt since t0 */
    double area_queue;              /* ∫ number in queue dt since t0 */
    size_t batches;                 /* batches answered */
    size_t batch_sum;               /* their sizes added */
    size_t hist[SRV_MAX_BATCH + 1]; /* batches answered by size */
};

void lab_srv_book_init(struct srv_book *b);
void lab_srv_book_fini(struct srv_book *b);
/* Request `id` arrived at t (ids arrive as 0, 1, 2, ...: anything else is
 * CORE_ERR_INTERNAL "request 7 arrived out of order, expected 5"). Times
 * must not go backwards (CORE_ERR_INTERNAL). */
int lab_srv_book_arrive(struct srv_book *b, uint64_t id, double t, struct core_err *err);
/* Request `id` left the queue in a batch of `size` at t. CORE_ERR_INTERNAL
 * for an unknown id or one dispatched already. */
int lab_srv_book_dispatch(struct srv_book *b, uint64_t id, double t, int size,
                          struct core_err *err);
/* Request `id` was answered at t. CORE_ERR_INTERNAL for an unknown id, one
 * never dispatched, or a second answer ("request 3 answered twice"). */
int lab_srv_book_done(struct srv_book *b, uint64_t id, double t, struct core_err *err);
/* A whole batch of `size` was answered (for the batch-size histogram). */
void lab_srv_book_batch(struct srv_book *b, int size);

/* Statistics over the books at time t_end (every request answered, or the
 * open ones counted as still in the system). */
struct srv_stats {
    size_t requests, answered;
    double span;                        /* t_end - t0 */
    double lambda;                      /* requests / span: the measured arrival rate */
    double throughput;                  /* answered / span */
    double w_mean;                      /* mean time in system of the answered, s */
    double wq_mean;                     /* mean time in the queue, s */
    double l_mean;                      /* time-averaged number in system over the span */
    double q_mean;                      /* time-averaged queue length */
    double little_lw;                   /* lambda * w_mean */
    double little_err;                  /* |l_mean - little_lw| / l_mean (0 when l_mean is 0) */
    double p50, p95, p99, w_min, w_max; /* time in system, s */
    double batch_mean;                  /* requests per answered batch */
};
/* Fills *s from the books, closing the integrals at t_end (>= the last
 * event). With every request answered and t_end the last answer, L = λ·W
 * holds exactly (up to rounding): both are Σ time in system / span. */
void lab_srv_book_stats(const struct srv_book *b, double t_end, struct srv_stats *s);

/* The time-averaged number in the system over [ta, tb] (tb > ta): the
 * part of each request's stay (arrival to answer, or to tb when still
 * open) inside the window, added up, over tb - ta. */
double lab_srv_book_window_l(const struct srv_book *b, double ta, double tb);

/* ---- arrivals and inputs ----------------------------------------------------------- */

struct srv_rng {
    uint64_t s;
};
void lab_srv_rng_seed(struct srv_rng *r, uint64_t seed);
/* The next gap of a Poisson process of `rate` per second: exponential with
 * mean 1/rate. */
double lab_srv_rng_gap(struct srv_rng *r, double rate);
/* Request id's input: d floats in [-1, 1), a function of (seed, id). */
void lab_srv_input(uint64_t seed, uint64_t id, int d, float *x);
/* Least-squares t = t0 + c·B over n points (B[i], t[i]). */
void lab_srv_fit_line(const double *B, const double *t, int n, double *t0, double *c);

/* ---- the model ----------------------------------------------------------------------- */

struct srv_model_dims {
    int d, hidden;
};
/* Parameters of the MLP d -> hidden -> d (weights and biases). */
size_t lab_srv_model_params(struct srv_model_dims m);
/* Fills w (lab_srv_model_params floats: W1 hidden×d, b1, W2 d×hidden, b2, in
 * that order, each W out×in) from seed, He-scaled. */
void lab_srv_model_init(struct srv_model_dims m, uint64_t seed, float *w);

/* The model packed for our GEMM (every layer's weights as B = in × out). */
struct srv_mlp {
    struct srv_model_dims dims;
    struct kern_gemm_b w[2];
    const float *bias[2]; /* borrowed from the weights given to _open */
    float *h;             /* scratch for max_batch rows */
    int max_batch;
};
/* Packs the weights w (layout of lab_srv_model_init; borrowed, must outlive the
 * model) for batches of up to max_batch rows. 0 or the packer's error. */
int lab_srv_mlp_open(struct srv_mlp *m, struct srv_model_dims dims, const float *w, int max_batch,
                     struct core_err *err);
void lab_srv_mlp_close(struct srv_mlp *m);
/* y (batch × d) = the MLP of x (batch × d), 1 <= batch <= max_batch. Each
 * row's result does not depend on the others in the batch, bit for bit. */
void lab_srv_mlp_forward(struct srv_mlp *m, const float *x, int batch, float *y);

/* ---- messages --------------------------------------------------------------------------- */

/* dispatcher -> load generator: send requests at `rate` for `duration`
 * seconds from monotonic time t0 (gaps from seed), then an end marker; or
 * quit. */
struct srv_gen_cmd {
    double t0, rate, duration;
    uint64_t seed;
    uint32_t quit, d;
};
/* load generator -> dispatcher: a request (its input follows: d floats), or
 * the end marker (id SRV_END, count = requests sent, no input). */
#define SRV_END UINT64_MAX
struct srv_req_msg {
    uint64_t id;
    double t_sched; /* when the schedule said to send it */
    uint64_t count;
};
/* dispatcher -> worker: a batch of n requests (n ids, then n × d floats),
 * or quit (n = 0). */
struct srv_batch_msg {
    uint64_t batch_id;
    uint32_t n, quit;
};
/* worker -> dispatcher: the answers to a batch (n ids, then n × d floats)
 * and the worker's own time for the forward pass. */
struct srv_reply_msg {
    uint64_t batch_id;
    uint32_t n, pad;
    double service_s;
};

/* ---- the lab's run (lab_serving.c, lab_serve_front.c, lab_serve_procs.c) ---- */

#define SV_MAX_LOADS 16
#define SV_LIVE_S 0.1          /* live samples every 100 ms */
#define SV_HIST_S 0.5          /* the batch-size histogram every 500 ms */
#define SV_WORKER_TIMEOUT 30.0 /* a batch unanswered this long (s) means a hung worker */
#define SV_MAX_REQUESTS 5e6    /* per point: rate × duration */

/* What the children share (inherited through fork). */
struct sv_shared {
    struct srv_model_dims dims;
    const float *w; /* the weights, in shared memory */
    int max_batch;
};

/* The GPU worker: a thread of the lab's process, at the end of a socketpair,
 * speaking the workers' protocol (CUDA does not survive fork()). */
struct sv_gpu {
    int fd;
    const struct sv_shared *sh;
    struct kern_mlp_gpu *g;
    pthread_t thread;
    bool started;
};

/* A worker as the front end sees it. */
struct sv_worker {
    int fd;
    bool busy;
    uint64_t batch_id;
    int n;
    double sent, busy_s;
    size_t proc; /* index in the run's procs; SIZE_MAX for the GPU thread */
};

/* The front end: the lab's thread, between the load generator and the
 * workers. */
struct sv_run {
    struct lab_ctx *cx;
    struct lab_procs *ps;
    atomic_int *cancel;
    struct sv_shared sh;
    int workers, check_every;
    double sample_s;
    uint64_t seed;
    bool gpu;
    struct sv_worker w[SRV_MAX_WORKERS];
    int gen_fd;
    size_t gen_proc;
    struct sv_gpu gthread;
    struct srv_mlp ref; /* the front end's own model, for the checks */
    /* the queue: ids and inputs, a ring */
    uint64_t *qid;
    float *qx;
    size_t qcap, qhead, qlen;
    /* scratch for one batch */
    uint64_t *bid;
    float *bx, *by, *rx, *ry;
    uint64_t next_batch;
    /* run totals */
    size_t requests, answered, checked;
    double max_diff, lat_min;
    double svc_sum; /* this point: the workers' forward-pass times, added */
    int point;      /* points so far: each gets its own input seed */
};

/* One point of a sweep: what it ran at, and what its books say. */
struct sv_point {
    double rate, duration, max_wait;
    int max_batch;
    struct srv_stats st;
    double l_window;  /* time-averaged number in system while requests arrive */
    double l_sampled; /* the same from samples every sample_ms */
    double little_err, little_identity, util;
    double svc_ms; /* mean forward pass per batch */
    bool stable;   /* kept up: answered at 95% of the rate set or more */
};

/* The calibration: the fit t(B) = t0 + c·B of the round trip, capacities,
 * round trips and forward passes at batch 1 and max_batch. */
struct sv_calib {
    double t0, c, cap_b1, cap_bmax, rt_b1, rt_bmax, sv_b1, sv_bmax;
};

/* Starts the load generator and the workers (or the GPU thread). */
int lab_srv_start(struct sv_run *r, struct core_err *err);
/* Ends the children politely (lab_run() kills whatever does not exit) and
 * the GPU thread. */
void lab_srv_stop(struct sv_run *r);
/* One point: requests at pt->rate for pt->duration, served with the
 * batching rule, until every request is answered; its figures into *pt. */
int lab_srv_run_point(struct sv_run *r, struct sv_point *pt, struct core_err *err);
/* Batches of 1, 2, 4, ... max_batch through worker 1: series, log lines
 * and *cal. */
int lab_srv_calibrate(struct sv_run *r, int max_batch, struct sv_calib *cal, struct core_err *err);
/* The batch sizes the lab tries: 1, 2, 4, ... and max_batch itself; past
 * max_batch when bsz is max_batch. */
int lab_srv_next_batch(int bsz, int max_batch);

#endif /* WB_LAB_SERVE_H */
