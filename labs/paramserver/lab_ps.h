/*
 * lab_ps.h — the parameter-server lab's private parts (labs/paramserver/lab_ps*.c and
 * labs/paramserver/lab_paramserver.c only): the run's configuration, the message types
 * on the lab's connections, the model (logistic or linear regression on
 * deterministic synthetic data), the server shard and worker process mains,
 * the pure helpers (spec parsing, the course's communication model) that
 * the tests call directly, and the master's state its files share.
 *
 * Roles. The master is the lab's thread (labs/paramserver/lab_paramserver.c, with its
 * configuration in lab_ps_config.c, its loop in lab_ps_master.c and its
 * summary in lab_ps_summary.c). It starts S server shards and W workers
 * with lab_proc_spawn; each child talks to the master over the socketpair
 * lab_proc_spawn gives it (the control channel, no emulated link). The
 * data connections (worker <-> shard, and worker -> next worker for the
 * ring) are socketpairs the master makes before it forks: a child inherits
 * the whole table and closes every end that is not its own, so a dead
 * process is seen as end-of-file by its peers alone. A shard restarted
 * from its checkpoint gets fresh socketpairs; their worker ends travel to
 * the (running) workers as SCM_RIGHTS over the control channel
 * (PS_MSG_RECONNECT, then one byte carrying the descriptor).
 *
 * Every connection is a struct lab_net_conn (lab_net.h); data connections get
 * the emulated link of the run (`link`, `latency_ms`), one per connection
 * and direction — the course's model, in which a worker's pull and push each
 * cross its own 1 Gbps link.
 *
 * Uses core, labs (process helpers) and lab_net.h (framing, the emulated
 * link, compression, ring all-reduce).
 */
#ifndef WB_LAB_PS_H
#define WB_LAB_PS_H

#include "labs/lab_author.h"
#include "labs/transport/lab_mpi.h"
#include "labs/transport/lab_net.h"

#include <stdbool.h>
#include <stdint.h>

/* The lab's definition: one row of the registry (core/lab_registry.c), and
 * the only symbol of this folder the rest of labs/ uses. */
extern const struct lab_def lab_ps_def;

#define PS_MAX_WORKERS 64
#define PS_MAX_SERVERS 8
#define PS_MAX_CONNS 128 /* workers x servers: two descriptors each in the master */
#define PS_HOT 32        /* features carrying the label's signal (fewer when params < 32) */
#define PS_HIST 65       /* staleness histogram bins: 0..63 and "64 or more" */
#define PS_MAX_NNZ_WORK 20000000.0 /* batch x non-zeros per example, per worker step */

enum ps_mode { PS_SYNC, PS_ASYNC, PS_SSP, PS_ALLREDUCE };
enum ps_model_kind { PS_LOGISTIC, PS_LINEAR };
enum ps_comp { PS_COMP_NONE, PS_COMP_TOPK, PS_COMP_Q8 };

/* Message types (struct lab_net_msg.type); a and b as noted. */
enum {
    PS_MSG_PULL = 1,  /* worker -> shard: a = step */
    PS_MSG_WEIGHTS,   /* shard -> worker: a = version; payload struct ps_pull_hdr + floats */
    PS_MSG_PUSH,      /* worker -> shard: a = step, b = worker; payload: the (encoded) gradient */
    PS_MSG_HELLO,     /* worker -> restarted shard: a = last step pushed to it (-1), b = worker */
    PS_MSG_WELCOME,   /* restarted shard -> worker: a = the step it collects (sync) */
    PS_MSG_BYE,       /* worker -> shard: finished every step */
    PS_MSG_STEP,      /* worker -> master: a = step; payload struct ps_step_report */
    PS_MSG_LOG,       /* child -> master: a = enum lab_log_level, b = worker concerned or -1 */
    PS_MSG_RECONNECT, /* master -> worker: a = shard, b = generation; one SCM_RIGHTS byte follows */
    PS_MSG_STATS,     /* shard -> master: payload struct ps_shard_stats */
    PS_MSG_CKPT,      /* shard -> master: a = step; payload the shard's weights */
    PS_MSG_FINAL,     /* master -> shard: send your weights; shard/worker 1 -> master: them */
    PS_MSG_EXIT,      /* master -> child: exit now */
    PS_MSG_DONE,      /* worker -> master: every step done */
    PS_MSG_ERROR      /* child -> master: payload text; the child then exits 1 */
};

/* A run's configuration, read from the lab parameters by the master and
 * inherited by every child through fork (plain data, no pointers). */
struct ps_cfg {
    int mode, model, comp;
    int workers, servers;
    int64_t params, nnz, steps;
    int hot; /* min(PS_HOT, params) */
    int batch;
    double lr;
    double compute_s; /* extra compute per step */
    double topk_frac; /* PS_COMP_TOPK */
    struct lab_net_link_cfg link;
    int staleness;
    struct lab_straggler straggler;    /* straggler=W:FACTOR (lab_param_straggler) */
    int kill_worker, kill_worker_step; /* -1: none */
    int kill_server, kill_server_step; /* -1: none */
    int stop_worker, stop_worker_step; /* -1: none; SIGSTOP (a hang) instead of SIGKILL */
    int stop_server, stop_server_step; /* -1: none */
    int checkpoint_every;              /* 0: never */
    bool recover;
    bool trace;
    uint64_t seed;
    double t0;              /* the master's CLOCK_MONOTONIC at the start: reports are relative */
    int sync_timeout_ms;    /* the hang timeout: a worker silent this long in a sync step is
                             * dropped by the shards; an async/ssp worker (the slowest) or a
                             * shard silent this long is ended by the master */
    bool server_nic_shared; /* a shard's connections share one outgoing link (its NIC) */
    bool mpi;               /* transport=mpi: the children are ranks of an Open MPI job */
};

/* Shard s holds keys [lo, hi): the params split into S near-equal ranges. */
void lab_ps_shard_range(int64_t params, int servers, int s, int64_t *lo, int64_t *hi);

/* Before the floats of a PS_MSG_WEIGHTS reply. */
struct ps_pull_hdr {
    int64_t version; /* updates applied (sync: the step) */
    int64_t gap;     /* staleness: this step minus the slowest live worker's clock */
    double wait_s;   /* how long the shard held the pull (barrier, staleness bound) */
    double t_sent;   /* when the shard began sending this reply (seconds since cfg.t0) */
};

/* One worker step, as the worker reports it to the master. Times are
 * seconds since cfg.t0 on CLOCK_MONOTONIC (shared by every process). */
struct ps_step_report {
    int32_t worker, step;
    double loss;
    double t_begin, t_pull_end, t_push_begin, t_end;
    double compute_s;    /* gradient + emulated compute (+ straggler) */
    double wait_s;       /* held by the shards (max over shards) */
    double comm_s;       /* pull + push, or the all-reduce */
    double xfer_s;       /* the pull replies' transfer: from each shard starting to
                          * send its reply to the worker holding all of it, summed */
    uint64_t xfer_bytes; /* those replies' bytes, frames included (0 in allreduce) */
    int64_t gap;         /* staleness of this step's weights (max over shards) */
    uint64_t bytes;      /* bytes this step moved on the data connections, both ways */
};

/* What a shard reports about itself, every ~250 ms and with its weights. */
struct ps_shard_stats {
    int32_t shard;
    int32_t live_workers;
    int64_t version;
    int64_t updates; /* gradients applied */
    uint64_t bytes_in, bytes_out;
    double wire_s; /* time its links spent serialising */
};

/* ---- the model ------------------------------------------------------------- */

/* Non-zero features per example: max(hot, round((1 - sparsity) * params)). */
int64_t lab_ps_model_nnz(int64_t params, double sparsity);
/* Loss at w over worker `worker`'s batch of step `step` (examples
 * ((step * W) + worker) * batch + j), and its gradient written densely into
 * grad[0..params) (cleared first). The data are a function of (seed, example
 * index) alone: the same on every machine and in every process. */
double lab_ps_model_grad(const struct ps_cfg *c, const float *w, int64_t step, int worker,
                         float *grad);
/* w[i] -= scale * g[i] for i < n. Every update of the lab goes through
 * this one function, so the single-process reference matches sync mode
 * bit for bit. */
void lab_ps_model_apply(float *w, const float *g, size_t n, float scale);
/* The loss at w = 0: ln 2 (logistic) or the labels' mean square / 2. */
double ps_model_loss0(const struct ps_cfg *c);
/* FNV-1a of the weights' bytes, as 16 hex digits (what the lab reports as
 * weights_fnv). */
void lab_ps_weights_fnv(const float *w, size_t n, char out[17]);

/* ---- specs and the course's model -------------------------------------------- */

/* "none", "q8" or "topk:F" (0 < F <= 1). */
int lab_ps_compress_parse(const char *s, int *comp, double *frac, struct core_err *err);
/* "N@STEP" (N from 1, STEP from 0) into a 0-based index; "" or "none" is
 * none (*who = -1). `what` names the parameter in messages (a name with
 * "server" in it counts shards, else workers). */
int lab_ps_kill_parse(const char *s, const char *what, int count, int64_t steps, int *who,
                      int *step, struct core_err *err);
/* The course's estimate for a parameter server: pull + push of the whole
 * model, t = 2 * 4 * params / link (seconds). 0 when the link is off. */
double lab_ps_predict_comm_s(int64_t params, double link_Bps);
/* The same for a ring all-reduce of the gradient: 2 (W-1)/W * 4 params / link. */
double lab_ps_predict_ring_s(int64_t params, int workers, double link_Bps);
/* nccl-tests' bus bandwidth: algbw * 2 (W-1) / W. */
double lab_ps_busbw(double algbw, int workers);
/* The emulated link time of one step on the busiest connection: a pull (the
 * request, then the shard's reply, which with server_nic=shared queues
 * behind the other workers' replies on the shard's one link) and a push of
 * one shard's slice (compressed when asked), or the 2 (W-1) chunks of a
 * ring all-reduce; latency left out. 0 with the link off. The lab refuses
 * a configuration above PS_MAX_STEP_LINK_S before it runs. */
#define PS_MAX_STEP_LINK_S 60.0
double lab_ps_step_link_s(const struct ps_cfg *c);

/* ---- the processes ------------------------------------------------------------ */

/* Everything a child needs, inherited through fork. Descriptor tables
 * hold -1 where there is none. */
struct ps_child {
    const struct ps_cfg *cfg;
    int role;            /* 0 shard, 1 worker */
    int index;           /* shard or worker number, from 0 */
    const int *data_fds; /* every data descriptor the master holds (close all but ours) */
    size_t n_data_fds;
    int own[PS_MAX_WORKERS]; /* shard: one per worker; worker: one per shard, or [0] left, [1] right
                              */
    /* A restarted shard: its weights (a copy of the checkpoint) and what
     * the master knows of the workers. */
    bool restored;
    int64_t restored_step;
    const float *restored_w;
    bool live[PS_MAX_WORKERS];
    int64_t clock[PS_MAX_WORKERS]; /* steps each worker has reported */
    /* transport=mpi: own[k] is then the peer's rank and tag[k] the
     * connection's tag; the control connection is rank 0 on ctl_tag. */
    bool mpi;
    int tag[PS_MAX_WORKERS];
    int ctl_tag;
};

/* The child mains for lab_proc_spawn (arg: struct ps_child). */
int lab_ps_server_main(int ctl_fd, void *arg);
int lab_ps_worker_main(int ctl_fd, void *arg);

/* Closes every descriptor of ch->data_fds except ch->own[0..n_own). */
void lab_ps_child_close_others(const struct ps_child *ch, int n_own);

/* The child's connections, whatever the transport: the control channel
 * (local: ctl_fd), and own[k] with the run's link (local: the descriptor;
 * mpi: the rank and tag; -1: a closed connection). */
void lab_ps_child_ctl(const struct ps_child *ch, int ctl_fd, struct lab_net_conn *c);
void lab_ps_child_conn(const struct ps_child *ch, int k, const struct lab_net_link_cfg *link,
                       struct lab_net_conn *c);
/* The faults, whatever the transport. Local: SIGKILL (does not return) and
 * SIGSTOP (returns if the process is continued). mpi, where Open MPI cannot
 * survive a dead rank: the rank leaves the run at the application level —
 * every connection ends, as a dead process's would (lab_ps_child_die returns at
 * once; the caller goes on and fails on its dead connections) — or stops
 * answering until rank 0's KILL order ends it the same way
 * (lab_ps_child_hang). */
void lab_ps_child_die(const struct ps_child *ch);
void lab_ps_child_hang(const struct ps_child *ch);
/* A worker's connection to the restarted shard s (generation gen): local,
 * the descriptor rank 0 passes next on ctl; mpi, a new tag. */
int lab_ps_child_reconnect(const struct ps_child *ch, struct lab_net_conn *ctl, int s, int gen,
                           struct lab_net_conn *out, struct core_err *err);

/* ---- transport=mpi (lab_ps_ranks.c) ---------------------------------------------- */

/* Rank of shard s (role 0) or worker w (role 1): 1..S, then S+1..S+W. */
int lab_ps_rank_of(const struct ps_cfg *c, int role, int index);
/* Master (rank 0): orders every rank to start as its shard or worker,
 * aligns the clocks (c->t0 becomes this rank's clock base), gathers the
 * hosts (the machine record: lab_ctx_set_hosts), fills ranks[0..size) (pid
 * and host of each) and opens each child's control connection (watching
 * cancel). Errors name the rank. */
int lab_ps_mpi_master_start(struct lab_ctx *cx, struct ps_cfg *c, struct lab_net_conn *srv_ctl,
                            struct lab_net_conn *wrk_ctl, struct lab_mpi_rankinfo *ranks,
                            struct core_err *err);
/* Master: orders shard s's rank to start again from a checkpoint (a->
 * restored_*, a->live, a->clock) as generation gen, and opens its new
 * control connection. */
int lab_ps_mpi_master_restart(struct lab_ctx *cx, const struct ps_cfg *c, const struct ps_child *a,
                              int gen, size_t n_weights, struct lab_net_conn *ctl,
                              struct core_err *err);
/* Master: the application-level end of a hung rank (see lab_ps_child_hang). */
void lab_ps_mpi_master_kill(const struct ps_cfg *c, int role, int index);
/* A rank other than 0 (lab_def.rank of the lab): takes rank 0's orders and
 * runs the shard or worker they name until END. */
int lab_ps_mpi_rank_main(const struct lab_params *p, struct core_err *err);

/* Sends a message on the control channel that carries no link; errors are
 * ignored when the master is gone (the child dies with it). */
void lab_ps_child_log(struct lab_net_conn *ctl, int level, int worker, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Descriptor passing over a Unix socket: one byte carrying fd. */
int lab_ps_fd_send(int sock, int fd, struct core_err *err);
/* Receives that byte and its descriptor within timeout_ms. */
int lab_ps_fd_recv(int sock, int timeout_ms, int *fd, struct core_err *err);

/* Seconds since cfg->t0 on CLOCK_MONOTONIC. */
double lab_ps_now(const struct ps_cfg *c);

/* ---- the master (lab_paramserver.c, lab_ps_config.c, lab_ps_master.c,
 * lab_ps_summary.c) ------------------------------------------------------- */

/* A child's state, as the master sees it. */
enum { PSM_CH_RUNNING, PSM_CH_DONE, PSM_CH_DEAD };

struct psm_child {
    size_t idx; /* in the run's lab_procs */
    pid_t pid;
    struct lab_net_conn ctl; /* a dup of the procs' descriptor */
    int state;
    bool dropped;  /* a shard dropped it from a sync barrier: the master ended it */
    double heard;  /* the run's clock at its last message (or its start) */
    double hung_s; /* > 0: silent this long, so the master ended it */
};

struct psm_step {
    double loss, compute, wait, comm;
    int n;
};

struct psm {
    struct lab_ctx *cx;
    struct lab_procs *ps;
    struct ps_cfg cfg;
    int W, S;
    struct psm_child srv[PS_MAX_SERVERS], wrk[PS_MAX_WORKERS];
    /* checkpoints, kept by the master */
    float *ckpt[PS_MAX_SERVERS];
    int64_t ckpt_step[PS_MAX_SERVERS];
    bool has_ckpt[PS_MAX_SERVERS]; /* the shard sent one (else restarts begin from zero) */
    int n_ckpt;
    int restarts, gen[PS_MAX_SERVERS];
    /* steps */
    struct psm_step *agg;
    int64_t reported[PS_MAX_WORKERS];
    int64_t next_emit;
    double *loss_by_step;
    double last_loss[PS_MAX_WORKERS]; /* each worker's latest step's loss */
    bool has_loss[PS_MAX_WORKERS];
    int since_loss_time; /* worker steps reported since loss_time's last point */
    double initial_loss;
    /* per worker, timed steps */
    double sum_step[PS_MAX_WORKERS], sum_compute[PS_MAX_WORKERS], sum_wait[PS_MAX_WORKERS],
        sum_comm[PS_MAX_WORKERS], sum_xfer[PS_MAX_WORKERS];
    uint64_t xfer_bytes[PS_MAX_WORKERS]; /* pull replies' bytes in sum_xfer's time */
    int64_t n_timed[PS_MAX_WORKERS];
    uint64_t hist[PS_HIST];
    int64_t max_gap;
    int64_t updates;
    double t_first, t_last; /* first step's start, last step's end (lab_ps_now) */
    int workers_lost;
    /* live rates */
    double tick_at;
    int64_t tick_updates;
    uint64_t shard_base[PS_MAX_SERVERS]; /* bytes of shards that died, carried on */
    uint64_t shard_bytes[PS_MAX_SERVERS];
    uint64_t tick_bytes[PS_MAX_SERVERS];
    int64_t snap_updates; /* updates when the snapshot series were last sent */
    /* final */
    float *final_w;
    /* transport=mpi: the job's ranks (pid and host of each) */
    struct lab_mpi_rankinfo *ranks;
};

/* "sync", "async", "ssp" or "allreduce". */
const char *lab_ps_mode_name(int mode);
/* Reads and cross-checks every parameter into c (t0 and the timeout are
 * left for the run); CORE_ERR_INVALID naming the parameters. lab_ps_check is
 * the lab's lab_def.check. */
int lab_ps_cfg(const struct lab_params *p, struct ps_cfg *c, struct core_err *err);
int lab_ps_check(const struct lab_params *p, struct core_err *err);
/* For the run: sets c->sync_timeout_ms (hang_timeout_ms, or the shared hang
 * rule over a step's expected time) and logs the run's outline and the
 * parameters its mode ignores. */
void lab_ps_cfg_run(struct lab_ctx *cx, struct ps_cfg *c);

/* Makes the data connections and starts the shards and the workers (or
 * takes the MPI job's ranks). */
int lab_ps_start(struct psm *r, struct core_err *err);
/* Gathers the children's reports until no worker is running: live series,
 * deaths and hangs (a worker dropped, a shard restarted or the run
 * stopped), divergence. CORE_ERR_CANCELLED when cancelled. */
int lab_ps_loop(struct psm *r, struct core_err *err);
/* The trained weights into r->final_w: every shard's slice, or a worker's
 * copy in allreduce. */
int lab_ps_final(struct psm *r, struct core_err *err);
/* Tells every child still there to exit, and reaps them. */
void lab_ps_stop_children(struct psm *r);
/* The snapshot series: per-worker means and the staleness histogram so far. */
void lab_ps_emit_snapshots(struct psm *r);
/* The summary figures and the closing log line (also of a run that failed
 * after some steps: what was measured). */
void lab_ps_summary(struct psm *r);

/* ---- gradient compression (lab_ps_compress.c) ------------------------------ */

/* Top-k sparsification: keeps the max(1, round(frac * n)) entries of largest
 * magnitude (ties: lower index first; NaN counts as the largest; a NaN frac
 * keeps 1, frac >= 1 keeps all, n = 0 keeps none) as (u32 index, f32 value)
 * pairs sorted by index; n < 2^32. Encoded size 8 + 8k bytes. The caller
 * keeps the error-feedback residual (g minus what was sent) if it wants one. */
void lab_ps_topk_encode(const float *g, size_t n, double frac, struct core_buf *out);
/* Adds the decoded entries into acc[0..n) (acc is not cleared). A malformed
 * buffer or an index >= n is CORE_ERR_INVALID. */
int lab_ps_topk_decode_add(const void *data, size_t len, float *acc, size_t n,
                           struct core_err *err);

/* 8-bit quantisation: blocks of PS_Q8_BLOCK values, each a f32 scale
 * (max |x| / 127, rounded up to a float so that no value is clipped; 0 for
 * an all-zero block, NaN for a block holding inf or NaN, which then decodes
 * to NaN) and one int8 per value (round to nearest). Encoded size
 * 8 + 4 * ceil(n / B) + n bytes; each decoded value is within scale / 2 of
 * the original (the stated error bound; plus one float rounding of
 * q * scale, a few 1e-6 of scale), subnormal values included. */
#define PS_Q8_BLOCK 256
void lab_ps_q8_encode(const float *g, size_t n, struct core_buf *out);
int lab_ps_q8_decode_add(const void *data, size_t len, float *acc, size_t n, struct core_err *err);

#endif /* WB_LAB_PS_H */
