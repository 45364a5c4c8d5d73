/*
 * lab.h — labs: real experiments on the student's machine whose numbers feed
 * the lessons and the grader.
 *
 * A lab is a struct lab_def in the one registry (lab_registry.c): its
 * parameters (name, type, default, range, help), the metric series it emits
 * (with units, which chart they share, and which are snapshots: a sample
 * replaces the earlier one at its step), and a run function. lab_run()
 * validates nothing itself: callers build a struct lab_params with
 * lab_params_init/lab_params_set and lab_params_check first, so an impossible
 * value is reported with the parameter's name and range before anything runs.
 *
 * While a lab runs it reports through its struct lab_ctx: samples (series,
 * step, value, time), log lines, progress, and finally named summary figures.
 * Every report goes to the sinks the caller passed (the CLI printer, the TUI
 * model) and, when a store is given, into the store: a lab run row with the
 * parameters and the machine description, samples batched in transactions,
 * and the end status with the summary.
 *
 * Threads: lab_run() may run on any thread; sinks are called on that thread.
 * The store handle given to lab_run() must not be used by another thread while
 * it runs (the TUI opens a second handle for the lab thread). Cancellation is
 * an atomic flag anyone may set; a lab polls it and stops within ~100 ms,
 * and lab_run() then kills and reaps every child, frees shared memory and
 * marks the run "cancelled". Children get SIGKILL when the thread that
 * started them ends (PR_SET_PDEATHSIG), so a lab thread must not end before
 * lab_run() returns — it never does on its own.
 *
 * Uses core (errors, JSON, clocks, samples) and db (recording runs).
 */
#ifndef WB_LAB_H
#define WB_LAB_H

#include "core/core.h"
#include "db/db.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* ---- parameters ---------------------------------------------------------- */

enum lab_ptype {
    LAB_P_INT,  /* integer in [min, max] */
    LAB_P_REAL, /* finite real in [min, max] */
    LAB_P_ENUM, /* one of choices */
    LAB_P_BOOL, /* on/off, true/false, yes/no, 1/0 */
    LAB_P_STR   /* free text (a file name); "" allowed */
};

struct lab_param_def {
    const char *name;
    enum lab_ptype type;
    const char *def;        /* default as text; NULL: computed by def_fn */
    double (*def_fn)(void); /* numeric default computed at run time (e.g. online cores) */
    double min, max;        /* INT, REAL: inclusive */
    const char *choices;    /* ENUM: "sync|async|ssp" */
    const char *unit;       /* shown after the value: "", "s", "KiB" */
    const char *help;       /* one line */
};

/* A metric series: what the lab emits and how the front ends draw it. */
struct lab_series_def {
    const char *name;    /* "speedup" */
    const char *label;   /* legend text: "measured speedup" */
    const char *unit;    /* "×", "s", "GB/s", "" */
    const char *chart;   /* series with the same chart name are drawn together */
    const char *x_label; /* what `step` means on this chart: "p", "stride (B)", "iteration" */
};

/* How one chart (the series sharing a lab_series_def.chart name) is drawn:
 * a title for people, and whether its x axis is logarithmic. A lab lists its
 * charts in lab_def.charts; a chart it does not list is titled by its
 * chart name, with a linear x axis. */
struct lab_chart_def {
    const char *name;  /* the lab_series_def.chart it describes: "stride_bw" */
    const char *title; /* "useful bandwidth against stride" */
    bool x_log;        /* log x axis with ticks at powers of two: the steps span
                          decades (strides, message sizes, n) */
};

struct lab_params;   /* below */
struct lab_shm;      /* opaque: shared mappings of a run */
struct lab_proc_ops; /* below */
struct lab_ctx;      /* opaque: the running lab's handle */

struct lab_def {
    const char *name;    /* "amdahl" — the id used everywhere */
    const char *title;   /* "Amdahl speedup on your machine" */
    const char *summary; /* one line for `lab list` */
    const struct lab_param_def *params;
    size_t n_params;
    const struct lab_series_def *series;
    size_t n_series;
    /* Cross-parameter checks (k <= n, ...); NULL when none. Returns 0 or
     * CORE_ERR_INVALID with a message naming the parameters. */
    int (*check)(const struct lab_params *p, struct core_err *err);
    /* The experiment. Returns 0 when it finished, CORE_ERR_CANCELLED when it
     * saw the cancel flag, another code with err filled when it failed. */
    int (*run)(struct lab_ctx *cx, struct core_err *err);
    /* The snapshot series, by name, NULL-terminated (NULL: none). In a
     * snapshot series a new sample at a step replaces the earlier one at
     * that step (bars per worker, a histogram so far), so the lab may emit
     * the whole series again and again while it runs. Front ends show the
     * latest value per step, in step order; the store and the CLI's JSON
     * stream keep every sample (the history). A list here, not a flag in
     * lab_series_def: the labs' series tables are positional initialisers,
     * which a new field there would make warn (-Wmissing-field-initializers). */
    const char *const *snapshot;
    /* Titles and axes of the charts (see lab_chart_def); NULL/0: none. */
    const struct lab_chart_def *charts;
    size_t n_charts;
    /* The lab's part on the ranks other than 0 of an Open MPI job
     * (transport=mpi; see lab_mpi_rank_run); NULL: the lab has no MPI transport. */
    int (*rank)(const struct lab_params *p, struct core_err *err);
    /* How many workers an MPI job of `ranks` ranks gives the lab when the
     * user did not set `workers` (lab_run records that number with the run's
     * parameters); NULL with rank. */
    int (*mpi_workers)(const struct lab_params *p, int ranks);
};

/* The lab's definition of chart `chart`, or NULL when it lists none. */
const struct lab_chart_def *lab_chart_find(const struct lab_def *lab, const char *chart);

/* Whether `series` is one of lab's snapshot series (see lab_def.snapshot). */
bool lab_series_snapshot(const struct lab_def *lab, const char *series);
/* Whether the chart named `chart` has a logarithmic x axis (its lab_chart_def.x_log). */
bool lab_chart_log_x(const struct lab_def *lab, const char *chart);

/* The registry, in `lab list` order. */
const struct lab_def *const *lab_registry(size_t *n);
/* Looks a lab up by name; NULL when unknown. */
const struct lab_def *lab_find(const char *name);

struct lab_value {
    const struct lab_param_def *def;
    double num; /* INT, REAL, BOOL (0/1) */
    char *str;  /* ENUM, STR: owned; NULL otherwise */
    bool user_set;
};

struct lab_params {
    const struct lab_def *lab;
    struct lab_value *v; /* one per lab->params, same order */
    size_t n;
};

/* Fills p with every parameter's default. Caller frees with lab_params_fini. */
void lab_params_init(struct lab_params *p, const struct lab_def *lab);
void lab_params_fini(struct lab_params *p);
/* Sets one parameter from text ("key=value" for _assign). Unknown names,
 * unreadable values and values outside the range are CORE_ERR_INVALID with a
 * message naming the parameter and its allowed range or choices. */
int lab_params_set(struct lab_params *p, const char *key, const char *value, struct core_err *err);
int lab_params_assign(struct lab_params *p, const char *key_eq_value, struct core_err *err);
/* Runs the lab's cross-parameter check. */
int lab_params_check(const struct lab_params *p, struct core_err *err);
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
/* The values as a JSON object (numbers as numbers, others as strings). */
void lab_params_json(const struct lab_params *p, struct core_json *j);
/* "name = value unit" for one parameter, for forms and logs; static buffer
 * owned by the caller (at least 64 bytes). */
void lab_param_format(const struct lab_value *v, char *buf, size_t size);
/* The value alone as a user would type it back ("4", "0.25", "on", "sync"). */
void lab_value_text(const struct lab_value *v, char *buf, size_t size);
/* What a parameter allows, for help and forms: "1 to 64", "sync|async|ssp",
 * "on|off", "any text". */
void lab_param_range(const struct lab_param_def *d, char *buf, size_t size);

/* ---- the machine --------------------------------------------------------- */

struct lab_machine {
    char cpu_model[128];
    int cores_online;
    long l1d_bytes, l2_bytes, l3_bytes; /* 0 when unknown */
    long line_bytes;                    /* cache line, 64 when unknown */
    long mem_bytes;
    char gpu[160]; /* "" when no CUDA device was found (kern_probe) */
    /* A run across machines (transport=mpi): every host of the job and the
     * interconnect Open MPI used (lab_ctx_set_hosts); n_hosts 0 otherwise. */
    int n_hosts;
    char hosts[2048];
    char interconnect[320];
};

/* Reads the machine description (sysconf, /proc, /sys). Never fails: unknown
 * parts are 0 or "". */
void lab_machine_probe(struct lab_machine *m);
/* This machine's memory in bytes (sysconf), 0 when unknown: what a
 * parameter check weighs a run's memory against without probing the rest. */
long lab_machine_mem_bytes(void);
void lab_machine_json(const struct lab_machine *m, struct core_json *j);

/* ---- reporting while running --------------------------------------------- */

/* LAB_LOG_NOTE is a warning about the whole run, such as what ran instead
 * of the GPU and why: front ends show it as a warning and keep it in the
 * run's header, where a scrolling log cannot lose it. */
enum lab_log_level { LAB_LOG_INFO, LAB_LOG_WARN, LAB_LOG_ERROR, LAB_LOG_NOTE };

/* A named figure closing the run. */
struct lab_figure {
    char *key;   /* "speedup_p2", "fitted_f" — what graders read in ctx.lab.summary */
    char *label; /* "measured speedup at p=2" */
    char *unit;
    double num;
    char *str; /* non-NULL: a text figure (num unused) */
};

struct lab_summary {
    struct lab_figure *v;
    size_t n;
};
void lab_summary_fini(struct lab_summary *s);
/* The figures as one flat JSON object {key: number or string}: what the
 * store keeps and graders read as ctx.lab.summary. */
void lab_summary_json(const struct lab_summary *s, struct core_json *j);
/* The figure named key, or NULL. Borrowed from s. */
const struct lab_figure *lab_summary_find(const struct lab_summary *s, const char *key);

/* Where reports go. Every callback may be NULL. Called on the lab's thread. */
struct lab_sink {
    void (*sample)(void *ud, const struct core_sample *s);
    void (*log)(void *ud, enum lab_log_level level, const char *line);
    void (*progress)(void *ud, double fraction, const char *what);
    void (*summary)(void *ud, const struct lab_summary *s);
    void *ud;
};

/* For labs. lab_emit: `series` is copied when it is not one of the lab's
 * declared series names; t is taken from the run's clock. lab_figure_*: the
 * first figure set is the run's key figure (shown by `lab runs`); setting a
 * key again replaces its value and keeps its place. */
void lab_emit(struct lab_ctx *cx, const char *series, int64_t step, double value);
void lab_log(struct lab_ctx *cx, enum lab_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void lab_progress(struct lab_ctx *cx, double fraction, const char *what);
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

/* The CPU time of a set of CPUs as /proc/stat counts it, in clock ticks. */
struct lab_cpu_sample {
    unsigned long long busy;  /* user + nice + system + irq + softirq */
    unsigned long long total; /* busy + idle + iowait + steal */
    unsigned long long steal; /* taken by the hypervisor for other guests */
    bool has_steal;           /* the kernel reports steal */
    int cpus;                 /* CPUs counted (those this process may run on) */
    double own_s;             /* this process's CPU seconds and its reaped children's */
    bool ok;                  /* /proc/stat was read */
};

/* Reads /proc/stat for the CPUs this process may run on (its affinity)
 * and this process's CPU time (getrusage, self and children). Never fails:
 * ok is false when /proc/stat could not be read. */
void lab_cpu_sample_take(struct lab_cpu_sample *s);

/* What the run saw, and the verdict. Fill the inputs, then
 * lab_noise_assess(). */
struct lab_noise {
    /* inputs; NAN where unknown */
    double other_cpu; /* fraction of the run's CPU capacity used by other programs, 0..1 */
    double steal;     /* fraction of the run's CPU capacity stolen by the hypervisor */
    double loadavg;   /* 1-minute load average at the end */
    int cores;        /* CPUs online */
    int cpus;         /* CPUs the run could use */
    double spread;    /* widest (max - min) / median of a repeated measurement */
    char spread_what[96];
    char spread_unit[16];
    double spread_min, spread_med, spread_max;
    int spread_n;        /* its repetitions */
    bool spread_trimmed; /* min and max are the 10th and 90th percentiles (10 or more values) */
    /* the verdict */
    bool busy;      /* other programs or the hypervisor took a noticeable share */
    bool wide;      /* a repeated measurement varied widely */
    bool noisy;     /* busy or wide: the numbers deserve a second run */
    char text[320]; /* "quiet", or what was wrong, for people */
};

/* Thresholds of the verdict: busy when other programs used more than
 * LAB_NOISE_BUSY of the CPUs the run could use, or the hypervisor stole more
 * than LAB_NOISE_STEAL of them; wide when a repeated measurement spread by
 * more than LAB_NOISE_SPREAD of its median. */
#define LAB_NOISE_BUSY 0.25
#define LAB_NOISE_STEAL 0.05
#define LAB_NOISE_SPREAD 0.25

/* The CPU part of n from two samples taken at the start and the end of a
 * run: other_cpu = (busy ticks - this process's) / total ticks, steal
 * likewise; both NAN when either sample failed or no time passed. Pure. */
void lab_noise_cpu(const struct lab_cpu_sample *a, const struct lab_cpu_sample *b,
                   double ticks_per_s, struct lab_noise *n);

/* Sets busy, wide, noisy and text from the inputs. Pure. */
void lab_noise_assess(struct lab_noise *n);

/* The figures lab_run() adds to every run's summary (what graders read as
 * ctx.lab.summary, and --json as "figures"):
 *   noisy          1 when the run was measured under load or with a wide spread, else 0
 *   noise          text: "quiet", or why the numbers are doubtful
 *   load_other_pct % of the run's CPUs used by other programs (when /proc/stat was read)
 *   load_avg       1-minute load average at the end;  load_cpus  CPUs the run could use
 *   steal_pct      % stolen by the hypervisor (only where the kernel reports steal)
 *   spread_pct     the widest spread of a repeated measurement, % of its median
 *   spread_of      which one, with its min / median / max */

/* ---- running ------------------------------------------------------------- */

struct lab_run_opts {
    struct db *db;   /* NULL: not recorded */
    int64_t user_id; /* with db */
    const struct lab_sink *sinks;
    size_t n_sinks;
    atomic_int *cancel;                /* set non-zero to cancel; may be NULL */
    const struct core_clock *clock;    /* NULL: the real monotonic clock */
    const struct lab_proc_ops *proc;   /* NULL: real fork/kill/waitpid */
    const struct lab_machine *machine; /* NULL: probed */
    /* When non-NULL: once the run is recorded, lab_run stores here the
     * descriptor a signal handler may write the run's closing note to (see
     * db_labrun_note_fd), and -1 again before it closes the run itself. A
     * process that must quit at once (a second Ctrl-C) writes "cancelled"
     * and its reason there, and the next Warpbench closes the run so. */
    volatile sig_atomic_t *note_fd;
};

struct lab_result {
    int64_t run_id;             /* 0 when not recorded */
    char status[16];            /* "done", "cancelled", "failed" */
    struct lab_summary summary; /* figures set before the end, also when cancelled */
    size_t n_samples;           /* emitted: what the sinks saw */
    size_t n_recorded;          /* committed to the store (0 when not recorded): fewer than
                                   n_samples when the store failed during the run */
    char *error;                /* why it was cancelled or failed; NULL when done */
};
void lab_result_fini(struct lab_result *r);

/* Runs `p->lab` with checked parameters. Returns 0 when done,
 * CORE_ERR_CANCELLED when cancelled (also when the lab failed after the
 * cancel flag was set: a signal to the process group kills workers too),
 * CORE_ERR_STORE when recording failed (a full disk: the lab is stopped),
 * the lab's error when it failed; in every
 * case the run is closed in the store (when recorded) and *out says how it
 * ended (caller frees with lab_result_fini, also after a failure). Leaves no
 * child process, shared mapping or temporary file behind.
 *
 * Sinks see every sample at once, in emit order; the store gets them in
 * transactions of up to 256 samples or 250 ms of the run's clock, and the
 * rest at the end. Each sink's summary callback runs once, before the run is
 * closed, with whatever figures were set (also for cancelled and failed
 * runs). The error text of a cancelled or failed run is stored with it
 * (lab_runs.error) and also sent to the sinks' log at LAB_LOG_WARN (cancel)
 * or LAB_LOG_ERROR. Fails before running (nothing recorded) only when the
 * store cannot start the record. */
int lab_run(const struct lab_params *p, const struct lab_run_opts *o, struct lab_result *out,
            struct core_err *err);

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

/* ---- across machines (Open MPI) ---------------------------------------- */

/* The distributed labs (paramserver, kmeans, allreduce) run their processes
 * either on this machine (transport=local) or as the ranks of an Open MPI
 * job (transport=mpi), rank 0 being the master that records and reports.
 * A front end runs such a lab like any other; lab_run then starts Open
 * MPI's own mpirun (across hosts=/hostfile=, or on this machine), reads
 * rank 0's reports back from it (it runs with lab_relay_sink) and records
 * them; cancelling ends mpirun and every rank. Started by the user under
 * mpirun instead, rank 0 is a normal `lab run` and the other ranks run
 * lab_mpi_rank_run. */

/* Whether this build carries the MPI transport (Open MPI at build time). */
bool lab_mpi_built(void);
/* This process's rank and the job's size when mpirun started it (from the
 * environment Open MPI gives its processes), else -1. MPI is not touched. */
int lab_mpi_env_rank(void);
int lab_mpi_env_size(void);
/* Whether p asks for the MPI transport (transport=mpi, hosts or hostfile). */
bool lab_mpi_params_use(const struct lab_params *p);
/* How many ranks the job has or will have: under mpirun its size; else the
 * slots of hosts= ("a:3,b:3") or of the hostfile ("name slots=N" lines; a
 * line without slots counts 1); 0 when none is given (the launcher starts
 * what the lab needs on this machine). Errors: CORE_ERR_INVALID naming the
 * parameter (a bad host list, an unreadable hostfile). */
int lab_mpi_ranks_given(const struct lab_params *p, int *ranks, struct core_err *err);
/* A copy of in (caller frees with lab_params_fini) in which, for a run over
 * MPI whose ranks are known (lab_mpi_ranks_given) and whose `workers` the
 * user left out, `workers` is what the ranks give (lab_def.mpi_workers);
 * otherwise the same values. lab_run runs and records this copy, so the
 * stored parameters say how many workers ran. */
void lab_mpi_params_resolve(const struct lab_params *in, struct lab_params *out);
/* Runs this process's part of an MPI lab on a rank other than 0 (a server
 * shard, a worker, a map worker, as rank 0 orders) until rank 0 ends the
 * job: no store, no output but errors on stderr. CORE_ERR_INVALID when the
 * lab has no MPI transport. */
int lab_mpi_rank_run(const struct lab_params *p, struct core_err *err);
/* Async-signal-safe, for rank 0's SIGTERM handler: Open MPI is ending the
 * job (a rank died, or mpirun was told to stop). The masters then fail the
 * run with that reason instead of calling it cancelled. */
void lab_mpi_note_term(void);
/* Whether this process is rank 0 of a job a Warpbench front end started
 * (hosts=, hostfile=): it records nothing and reports through
 * lab_relay_sink on stdout, which the front end records. */
bool lab_mpi_relayed(void);
/* A sink writing every report (samples, log lines, progress, figures, the
 * hosts) as one JSON line each on f, flushed, for the front end's reader.
 * Caller frees with lab_mpi_relay_sink_fini. */
void lab_mpi_relay_sink_init(struct lab_sink *s, FILE *f);
void lab_mpi_relay_sink_fini(struct lab_sink *s);
/* The last line: how the run ended (status "done", "failed", "cancelled";
 * error NULL when done). */
void lab_mpi_relay_sink_end(struct lab_sink *s, const char *status, const char *error);

/* ---- plausibility of a submitted run (lab_plausible.c) -------------------- */

/* Checks a lab run as it arrives in a student's submission (parameters,
 * machine, summary, samples: text anyone could edit) and pushes each
 * problem found to `problems`: a run that is not done, figures that are not
 * finite, samples out of time order or outside the run, a summary that
 * contradicts the run's own samples, and figures the recorded machine
 * cannot produce (the checks per lab are listed in lab_plausible.c and the
 * README). Nothing found: nothing pushed. The signature of
 * lesson_run_check_fn. */
void lab_run_plausible(const struct db_sub_run *run, struct core_strlist *problems);

#endif /* WB_LAB_H */
