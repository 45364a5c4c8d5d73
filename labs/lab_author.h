/*
 * lab_author.h — the labs' own API, for the code of labs/ and its tests:
 * what a running lab does through its struct lab_ctx (samples, log lines,
 * progress, figures, the cancel flag, its clock), reading its parameters,
 * the machine probe, the statistics and repeated measurements every lab
 * reports with, and worker processes, shared memory and their byte streams.
 * The front ends' half is lab.h, which this includes; the transports
 * (labs/transport/lab_net.h, lab_mpi.h) sit beside it for the distributed
 * labs.
 *
 * Only labs/ (and the tests) may include this header: the front ends drive
 * labs through lab.h alone. The build holds them to it: wb_labs compiles
 * with WB_LAB_AUTHOR defined (PRIVATE, so nothing linking it inherits it),
 * the tests define it for themselves, and any other file that includes this
 * header stops with an #error; scripts/check-layering.sh also refuses the
 * include outside labs/.
 *
 * Uses lab.h, core and db.
 */
#ifndef WB_LAB_AUTHOR_H
#define WB_LAB_AUTHOR_H

#ifndef WB_LAB_AUTHOR
#error "labs/lab_author.h is for labs/ and its tests only; front ends use labs/lab.h"
#endif

#include "labs/lab.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* ---- parameters, as a lab reads them ---------------------------------------- */

/* The value of parameter `name`, or NULL when the lab has none of that name
 * (the shared parameters such as transport or workers are not in every
 * lab). Borrowed from p. */
const struct lab_value *lab_param_value(const struct lab_params *p, const char *name);
/* Whether the user set `name` (lab_params_set) instead of leaving its
 * default; false for a name the lab does not have. */
bool lab_param_user_set(const struct lab_params *p, const char *name);
/* Typed reads; an unknown name is a programming error (aborts). */
double lab_param_num(const struct lab_params *p, const char *name);
const char *lab_param_str(const struct lab_params *p, const char *name);
/* The `straggler` parameter the distributed labs share: "W:FACTOR" makes
 * worker W take FACTOR times as long. Workers are numbered from 1, as every
 * message, log line and per-worker chart numbers them (and as users type
 * them); FACTOR runs from 1 to LAB_STRAGGLER_MAX. "", "none" or "off": no
 * straggler. */
#define LAB_STRAGGLER_MAX 1000
struct lab_straggler {
    int worker;    /* 1..workers; 0: none */
    double factor; /* 1 when none */
};
/* Reads p's "straggler" for a run of `workers` workers into *out.
 * CORE_ERR_INVALID, naming the parameter and what it allows, for text that
 * is not W:FACTOR, a worker outside 1..workers or a factor outside
 * 1..LAB_STRAGGLER_MAX (*out then says none). The factor is read in the C
 * locale's notation whatever the process locale ("2:1.5"). */
int lab_param_straggler(const struct lab_params *p, int workers, struct lab_straggler *out,
                        struct core_err *err);
/* How many times as long the worker at `index` (from 0: the array index,
 * worker index + 1) takes: s->factor for the straggler, else 1. */
double lab_straggler_factor(const struct lab_straggler *s, int index);
/* "name = value unit" for one parameter, for forms and logs; static buffer
 * owned by the caller (at least 64 bytes). */
void lab_param_format(const struct lab_value *v, char *buf, size_t size);
/* ---- the machine --------------------------------------------------------- */

/* Reads the machine description (sysconf, /proc, /sys). Never fails: unknown
 * parts are 0 or "". */
void lab_machine_probe(struct lab_machine *m);
/* This machine's memory in bytes (sysconf), 0 when unknown: what a
 * parameter check weighs a run's memory against without probing the rest. */
long lab_machine_mem_bytes(void);
void lab_machine_json(const struct lab_machine *m, struct core_json *j);

/* ---- reporting while running --------------------------------------------- */

/* For labs. lab_emit: `series` is copied when it is not one of the lab's
 * declared series names; t is taken from the run's clock. lab_figure_*: the
 * first figure set is the run's key figure (shown by `lab runs`); setting a
 * key again replaces its value and keeps its place. */
void lab_emit(struct lab_ctx *cx, const char *series, int64_t step, double value);
void lab_log(struct lab_ctx *cx, enum lab_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void lab_progress(struct lab_ctx *cx, double fraction, const char *what);
/* A figure's unit "yes/no" marks a yes-or-no figure (1 or 0), shown as
 * "yes" or "no". */
void lab_figure_num(struct lab_ctx *cx, const char *key, double v, const char *unit,
                    const char *label);
void lab_figure_str(struct lab_ctx *cx, const char *key, const char *s, const char *label);
bool lab_cancelled(const struct lab_ctx *cx);
const struct lab_params *lab_ctx_params(const struct lab_ctx *cx);
const struct lab_machine *lab_ctx_machine(const struct lab_ctx *cx);
const struct core_clock *lab_ctx_clock(const struct lab_ctx *cx);
const struct lab_proc_ops *lab_ctx_proc(const struct lab_ctx *cx);
/* Children and shared memory created through these are owned by the run:
 * lab_run() kills, reaps and unmaps whatever is left when the lab returns. */
struct lab_procs *lab_ctx_procs(struct lab_ctx *cx);
/* The run's cancel flag (NULL when the caller gave none), for lab_fd_read/
 * lab_fd_write. A store that failed mid-run is seen by lab_cancelled(), not
 * here. */
atomic_int *lab_ctx_cancel_flag(struct lab_ctx *cx);
/* lab_run_opts.arg (NULL when the caller gave none). */
const void *lab_ctx_arg(const struct lab_ctx *cx);
/* Seconds since the run started, on the run's clock. */
double lab_ctx_elapsed(const struct lab_ctx *cx);
/* A run across machines: records every host and the interconnect in the
 * run's machine description (the store's copy too, and what
 * lab_ctx_machine returns). A store that fails stops the run as failed. */
void lab_ctx_set_hosts(struct lab_ctx *cx, int n_hosts, const char *hosts,
                       const char *interconnect);
/* Sleeps `secs` on the run's clock in slices of at most 50 ms, returning
 * false as soon as lab_cancelled() turns true (true when the time passed). */
bool lab_sleep(struct lab_ctx *cx, double secs);

/* ---- statistics (lab_stats.c) --------------------------------------------
 *
 * The one definition of the median, quantiles, min, max and mean that every
 * lab reports its repeated measurements with. Pure (no I/O, no globals).
 * NaN sorts after every number; min, max and mean return NaN when a value
 * is NaN; every function returns NaN for n = 0. */

/* Sorts v ascending, in place. */
void lab_stats_sort(double *v, size_t n);
/* The median of v sorted ascending: the middle value, or the mean of the
 * two middle ones. */
double lab_stats_median_sorted(const double *v, size_t n);
/* The q-quantile (q in [0, 1], clamped) of v sorted ascending, linear
 * between the two nearest ranks: position q·(n−1) (q = 0.5: the median;
 * 0.99 of 1..5: 4.96). */
double lab_stats_quantile_sorted(const double *v, size_t n, double q);
/* The same of an unsorted v, which they sort in place. */
double lab_stats_median(double *v, size_t n);
double lab_stats_quantile(double *v, size_t n, double q);
/* The median of v, which is left as it is (a sorted copy). */
double lab_stats_median_of(const double *v, size_t n);
double lab_stats_min(const double *v, size_t n);
double lab_stats_max(const double *v, size_t n);
double lab_stats_mean(const double *v, size_t n);

/* ---- noise: can the run's numbers be trusted? (lab_noise.c) -------------
 *
 * Every run records how much its repeated measurements spread and how busy
 * the machine was while it ran, and lab_run() adds the verdict to the
 * summary (figures below), so a number measured on a busy machine says so
 * in the CLI, the TUI, --json and to the graders. */

/* Records one value of a repeated measurement named `what` ("time per
 * trial at p = 2"): the values of one name are the repetitions of one
 * measurement (at most 4096 kept per name, 64 names per run). At the end
 * the run reports the widest relative spread, (max - min) / median, over
 * the names with two or more values (with ten or more, the 10th to the
 * 90th percentile instead of min to max). `unit` is the values' unit for the
 * summary text ("s", "GB/s"); the first call of a name sets it. */
void lab_repeat(struct lab_ctx *cx, const char *what, const char *unit, double value);
/* The same for a measurement summarised elsewhere (a GPU's timed launches):
 * its min, median and max over n repetitions. */
void lab_repeat_range(struct lab_ctx *cx, const char *what, const char *unit, double min,
                      double median, double max, int n);

/* ---- processes ----------------------------------------------------------- */

/* How children are started, signalled and reaped. The real table uses fork,
 * kill and waitpid; tests pass their own to drive failures. spawn returns the
 * child's pid (or -1 with errno); it runs child_main(fd_child, arg) only in a
 * new process, which closes fd_parent first. */
struct lab_proc_ops {
    pid_t (*spawn)(int (*child_main)(int fd, void *arg), void *arg, int fd_child, int fd_parent);
    int (*kill)(pid_t pid, int sig);
    pid_t (*wait)(pid_t pid, int *status, int options);
};
extern const struct lab_proc_ops lab_proc_real;

struct lab_child {
    pid_t pid;
    int fd;     /* parent's end of the socketpair; -1 once closed */
    int status; /* waitpid status once reaped */
    bool reaped;
};

struct lab_procs {
    const struct lab_proc_ops *ops;
    struct lab_child *v;
    size_t n, cap;
    struct lab_shm *shm; /* mappings to unmap at the end */
};

/* An empty set of children using ops (NULL: lab_proc_real). */
void lab_procs_init(struct lab_procs *ps, const struct lab_proc_ops *ops);
/* lab_procs_kill_all, then unmaps every lab_shm_alloc mapping and frees the
 * arrays; ps can be used again (same ops). lab_run does this for a run's own
 * set; labs call it only for sets they made themselves. */
void lab_procs_fini(struct lab_procs *ps);

/* Starts a child running child_main(fd, arg) with a connected SOCK_STREAM
 * socketpair (fd is its end; it does not inherit its siblings' sockets); the
 * child ignores SIGINT and SIGHUP (the parent decides), runs none of the
 * parent's signal handlers (caught signals are back to their defaults, none
 * blocked), dies with its parent
 * (PR_SET_PDEATHSIG), and _exits with child_main's return (stdio is flushed
 * before the fork, so nothing is written twice). Returns the child's index in
 * ps->v, or a negative error (CORE_ERR_IO "cannot start worker N: ..."). */
int lab_proc_spawn(struct lab_procs *ps, int (*child_main)(int fd, void *arg), void *arg,
                   struct core_err *err);
/* Waits for child i to exit (up to timeout_ms; -1 forever). A child killed by
 * a signal is CORE_ERR_INTERNAL "worker 3 (pid 1234) was killed by signal 9
 * (Killed)"; a non-zero exit likewise names the status. Workers are numbered
 * from 1 in messages (index i is "worker i+1"). A child still running after
 * the timeout is CORE_ERR_LIMIT and stays in the set (kill_all ends it).
 * Reaping a reaped child again returns the same verdict. */
int lab_proc_reap(struct lab_procs *ps, size_t i, int timeout_ms, struct core_err *err);
/* SIGKILLs and reaps every child still running. Idempotent. */
void lab_procs_kill_all(struct lab_procs *ps);

/* The hang rule every lab shares. A worker given work expected to take
 * expected_s seconds (measured or declared by the lab: a calibrated share,
 * a step's compute and transfer) that has not answered within
 * lab_hang_limit_s(expected_s) = LAB_HANG_FLOOR_S + LAB_HANG_FACTOR ×
 * expected_s is hung: the lab ends it with lab_proc_end_hung and fails the
 * run, or re-runs its work elsewhere. The floor and the factor are wide on
 * purpose: a loaded machine (other jobs, more workers than cores) slows a
 * worker by a few times, never by twenty, so the rule catches a stopped or
 * deadlocked worker and never a slow one. A lab may let the user set the
 * limit (parameter hang_timeout_ms, 0 meaning this rule). */
#define LAB_HANG_FLOOR_S 5.0
#define LAB_HANG_FACTOR 20.0
double lab_hang_limit_s(double expected_s);

/* Ends child i, which did not answer within waited_s (its work should have
 * taken expected_s): SIGKILL and reap, then CORE_ERR_LIMIT "worker N (pid P)
 * did not answer within X s (its work should take about Y s): it is stopped
 * (SIGSTOP or a debugger) | it was running; it was ended". A child that
 * died meanwhile is reported as lab_proc_reap does. */
int lab_proc_end_hung(struct lab_procs *ps, size_t i, double waited_s, double expected_s,
                      struct core_err *err);

/* Shared memory visible to children started after it: an anonymous shared
 * mapping (nothing appears in /dev/shm). Unmapped by lab_procs_kill_all's
 * caller, lab_run, at the end. */
void *lab_shm_alloc(struct lab_procs *ps, size_t bytes, struct core_err *err);

/* Writes/reads exactly n bytes, waiting at most timeout_ms (-1 forever) and
 * returning early with CORE_ERR_CANCELLED when *cancel becomes non-zero
 * (looked at every 50 ms; cancel may be NULL). Running out of time is
 * CORE_ERR_LIMIT. A closed peer is CORE_ERR_IO "worker closed its connection".
 * Never raises SIGPIPE on a socket. */
int lab_fd_write(int fd, const void *buf, size_t n, int timeout_ms, atomic_int *cancel,
                 struct core_err *err);
int lab_fd_read(int fd, void *buf, size_t n, int timeout_ms, atomic_int *cancel,
                struct core_err *err);

/* ---- across machines ----------------------------------------------------- */

/* Whether this build carries the MPI transport (Open MPI at build time). */
bool lab_mpi_built(void);
#endif /* WB_LAB_AUTHOR_H */
