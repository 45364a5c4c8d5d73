/*
 * lab_mpi.h — the MPI runtime of the distributed labs (private to labs/):
 * one Open MPI job per run, rank 0 the master (it owns the store, the
 * metric stream and the output), every other rank a server shard, a worker
 * or a map worker as rank 0 orders.
 *
 * Life of a job. Every rank calls lab_mpi_init once (MPI_Init_thread with
 * MPI_THREAD_MULTIPLE: a server shard answers its workers from one thread
 * each). Rank 0 sends each other rank an order on the system tag
 * (LAB_MPI_START with the lab's configuration as payload), then every rank
 * calls lab_mpi_sync_clocks (a barrier: each rank's clock base is its
 * monotonic time when it leaves it). Ranks other than 0 run a listener
 * thread that takes rank 0's orders off the system tag: START and RESTART
 * go to lab_mpi_next_order, KILL (the application-level death of a rank:
 * Open MPI 4 cannot survive a real one) bumps the epoch and runs the kill
 * hook, END marks the job ended. Every wait in the MPI transport looks at
 * lab_mpi_ended and lab_mpi_epoch, so an END or a KILL stops a rank that is
 * blocked anywhere. At the end rank 0 sends END to all (lab_mpi_end_all) and
 * every rank calls lab_mpi_finish: pending messages are drained (so no send
 * waits on a peer that stopped reading) and MPI is finalised.
 *
 * A rank whose parent (mpirun, or Open MPI's daemon on a remote host) is gone
 * exits at once: nothing is left on any host when a launcher dies.
 *
 * Tags: LAB_MPI_TAG(kind, gen, index) names one connection; kind says whose
 * (control, parameter-server data, ring, k-means, benchmark), gen the
 * incarnation of a restarted shard, index the pair. The system tag is
 * outside that space.
 *
 * Uses Open MPI (only lab_mpi.c and lab_*_mpi.c include mpi.h; without it
 * lab_nompi.c defines these as "this build has no Open MPI" errors) and core.
 */
#ifndef WB_LAB_MPI_H
#define WB_LAB_MPI_H

#include "core/core.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LAB_MPI_TAG_SYS 0x7e000000
#define LAB_MPI_TAG(kind, gen, index) (((kind) << 24) | ((gen) << 16) | (index))
#define LAB_MPI_MAX_GEN 255
enum {
    LAB_MPI_KIND_CTL = 1,  /* rank 0 <-> rank r: index r */
    LAB_MPI_KIND_DATA = 2, /* worker <-> shard: index w * PS_MAX_SERVERS + s */
    LAB_MPI_KIND_RING = 3, /* worker w -> worker w + 1: index w */
    LAB_MPI_KIND_TREE = 4, /* tree all-reduce: index child rank */
    LAB_MPI_KIND_BENCH = 5 /* the allreduce lab's point-to-point checks */
};

/* Orders from rank 0 (the system tag). */
enum lab_mpi_order_kind { LAB_MPI_START = 1, LAB_MPI_RESTART, LAB_MPI_KILL, LAB_MPI_END };

/* Initialises MPI in this process (once; later calls return 0). Errors:
 * CORE_ERR_INVALID without Open MPI in the build or after
 * lab_mpi_finish, CORE_ERR_IO when MPI_Init_thread fails or gives less than
 * MPI_THREAD_MULTIPLE. */
int lab_mpi_init(struct core_err *err);
/* This process's rank and the job's size (after lab_mpi_init; -1 before). */
int lab_mpi_rank(void);
int lab_mpi_size(void);
/* Collective: a barrier; this rank's start time is its monotonic time as
 * it leaves it, and its clock base (what the delivery times of the MPI
 * connections count from) is 0 when every rank runs on one kernel (they
 * share CLOCK_MONOTONIC exactly), else the start time. Returns 0 or
 * CORE_ERR_IO. */
int lab_mpi_sync_clocks(struct core_err *err);
/* The clock base and the start time set by lab_mpi_sync_clocks (0 before). */
double lab_mpi_t_base(void);
double lab_mpi_t_start(void);

/* Collective: rank 0's buf[0..n) to every rank (in pieces of at most
 * 1 GiB). Errors: CORE_ERR_IO. */
int lab_mpi_bcast(void *buf, size_t n, struct core_err *err);

/* The allreduce lab's anchors: Open MPI's own operations among the workers,
 * ranks 1..size-1 (rank 0, the master, takes no part). workers_begin is
 * collective over every rank, rank 0 included; workers_end frees the
 * workers' communicator. */
int lab_mpi_workers_begin(struct core_err *err);
void lab_mpi_workers_end(void);
/* MPI_Allreduce (sum, in place) of n floats among the workers. */
int lab_mpi_allreduce(float *buf, size_t n, struct core_err *err);
/* One round trip of n bytes between workers 0 and 1 (MPI_Send/MPI_Recv);
 * the other workers return at once. */
int lab_mpi_pingpong(void *buf, size_t n, struct core_err *err);

/* Rank 0: sends `rank` an order with a and payload[0..n) (may be NULL/0),
 * waiting at most timeout_ms for it to be taken. */
int lab_mpi_order(int rank, int kind, int64_t a, const void *payload, size_t n, int timeout_ms,
                  struct core_err *err);
/* Rank 0: END to every other rank (errors ignored: the job is ending). */
void lab_mpi_end_all(void);

/* An order as a rank other than 0 receives it. */
struct lab_mpi_order {
    int kind;
    int64_t a;
    void *payload; /* owned: lab_mpi_order_fini */
    size_t n;
};
/* Ranks other than 0: waits for rank 0's next START, RESTART or END. */
int lab_mpi_next_order(struct lab_mpi_order *o, struct core_err *err);
void lab_mpi_order_fini(struct lab_mpi_order *o);
/* Whether rank 0 sent END (always false on rank 0). */
bool lab_mpi_ended(void);
/* Incremented by every KILL order (and by lab_mpi_kill_self): connections
 * made in an older epoch are dead. */
int lab_mpi_epoch(void);
/* The application-level death of this rank (an injected fault): bumps the
 * epoch and runs the kill hook, as a KILL order does. */
void lab_mpi_kill_self(void);
/* What a KILL does besides bumping the epoch (the MPI transport sends every
 * live connection's end-of-stream, so peers see the death at once). */
void lab_mpi_set_kill_hook(void (*hook)(void));

/* Rank 0 had SIGTERM: Open MPI is ending the job (a rank died, or mpirun was
 * stopped). lab_mpi_term_noted says so; the masters fail with that reason. */
bool lab_mpi_term_noted(void);

/* One rank of the job, as rank 0 knows it after lab_mpi_hosts. */
struct lab_mpi_rankinfo {
    int pid;
    char host[64];
};

/* Every host of the job, gathered from each rank (collective): "name (CPU,
 * N cores; ranks a-b; its IPv4 addresses)" joined by "; " into hosts, their
 * count, the interconnect Open MPI uses (library, transport components, and
 * which applies within and between hosts), and (rank 0: ranks[0..size),
 * may be NULL) each rank's pid and host. Errors: CORE_ERR_IO. */
int lab_mpi_hosts(char *hosts, size_t hosts_size, int *n_hosts, char *interconnect, size_t ic_size,
                  struct lab_mpi_rankinfo *ranks, struct core_err *err);

/* A send this rank gave up on (req points at its MPI_Request): Open MPI
 * cannot take it back, so lab_mpi_finish completes it (the drain on the
 * other side takes it). Its buffer must live until then. */
void lab_mpi_lose_request(void *req);
/* Frees p after MPI is finalised (a buffer a lost send may still read). */
void lab_mpi_defer_free(void *p);

/* Drains what is still addressed to this rank, waits for every rank to get
 * here, completes the lost sends, finalises MPI and frees the deferred
 * buffers. Idempotent. */
void lab_mpi_finish(void);

/* Waiting without burning a core: spins (yielding: MPI moves a message
 * only while someone calls it) for the first LAB_MPI_SPIN_S, which covers
 * a ring step or a round trip, then sleeps longer and longer, up to 1 ms,
 * so that an idle rank leaves the cores to the others. */
#define LAB_MPI_SPIN_S 0.002
struct lab_mpi_backoff {
    int n;
    double t0;
};
void lab_mpi_backoff_start(struct lab_mpi_backoff *b);
void lab_mpi_backoff_wait(struct lab_mpi_backoff *b);

/* ---- a job's start (lab_mpi_job.c, built always) ------------------------------ */

struct lab_ctx;
/* Rank 0 starts the job of a run: refuses a job of other than `ranks` ranks
 * (CORE_ERR_INVALID "the MPI job has N ranks; " then `needs`, which says
 * what the run needs: "2 workers need 3 (rank 0 is the master)"), sends
 * every other rank r its START order, whose payload (start_size bytes) fill
 * writes (fill(r, buf, ud)), aligns the clocks (lab_mpi_sync_clocks),
 * gathers the hosts into the run's machine record (lab_ctx_set_hosts) and
 * logs them and the interconnect. rankinfo (may be NULL): each rank's pid
 * and host, as lab_mpi_hosts gives them. Errors name the rank ("starting
 * rank 2: ..."). The other ranks take their START (lab_mpi_next_order)
 * and call lab_mpi_job_started. */
int lab_mpi_job_start(struct lab_ctx *cx, int ranks, const char *needs,
                      void (*fill)(int rank, void *buf, void *ud), size_t start_size, void *ud,
                      struct lab_mpi_rankinfo *rankinfo, struct core_err *err);
/* A rank other than 0, once it took its START order: the other half of
 * lab_mpi_job_start (the clocks aligned, this rank's host sent). */
int lab_mpi_job_started(struct core_err *err);
/* The whole life of a rank other than 0 in a lab whose ranks start once
 * (kmeans, allreduce): MPI up (lab_mpi_init), rank 0's first START of
 * start_size bytes taken (other orders, and STARTs after it, are passed
 * over), lab_mpi_job_started, then serve(start, ud) runs this rank's part
 * (it returns when rank 0 ends the connection or the job); then it waits
 * for END and finalises MPI (lab_mpi_finish). Returns 0 or the first error
 * (serve's included). */
int lab_mpi_job_serve(size_t start_size, int (*serve)(const void *start, void *ud), void *ud,
                      struct core_err *err);

/* ---- the launcher and the relay (lab_launch.c, built always) -------------------- */

struct lab_machine;
struct lab_params;
/* How many ranks the job has or will have: under mpirun its size; else the
 * slots of hosts= ("a:3,b:3") or of the hostfile ("name slots=N" lines; a
 * line without slots counts 1); 0 when none is given (the launcher starts
 * what the lab needs on this machine). Errors: CORE_ERR_INVALID naming the
 * parameter (a bad host list, an unreadable hostfile). */
int lab_mpi_ranks_given(const struct lab_params *p, int *ranks, struct core_err *err);
/* The text parameter `name` of p, "" when unset or when p's lab has no such
 * parameter (lab_mpi_rank.c). Borrowed from p. */
const char *lab_mpi_param_text(const struct lab_params *p, const char *name);
/* A copy of in (caller frees with lab_params_fini) in which, for a run over
 * MPI whose ranks are known (lab_mpi_ranks_given) and whose `workers` the
 * user left out, `workers` is what the ranks give (lab_def.mpi_workers);
 * otherwise the same values. lab_run runs and records this copy, so the
 * stored parameters say how many workers ran. */
void lab_mpi_params_resolve(const struct lab_params *in, struct lab_params *out);
/* Rank 0 of a job a front end started (lab_mpi_relayed): sends the hosts of
 * the run to the front end through the relay sink. Nothing otherwise. */
void lab_mpi_relay_note_hosts(const struct lab_machine *m);
/* Runs the lab of cx as an Open MPI job (mpirun over hosts=,
 * hostfile= or this machine), relaying rank 0's reports into cx, until it
 * ends; cancel ends mpirun and every rank. ranks: the job's size. */
int lab_mpi_launch(struct lab_ctx *cx, int ranks, struct core_err *err);

#endif /* WB_LAB_MPI_H */
