/*
 * lab.h — labs: real experiments on the student's machine whose numbers feed
 * the lessons and the grader. This is the front ends' API (the CLI, the TUI,
 * the class loop's plausibility check): list the labs and describe them, build
 * and check parameters, run a lab with sinks for its reports, cancel it, and
 * read its results. Lab authors write against labs/lab_author.h, which adds the
 * running lab's handle (reporting, processes, shared memory, statistics); the
 * CLI and the TUI never include that one (the build refuses it: see there).
 *
 * A lab is a struct lab_def in the one registry (core/lab_registry.c): its
 * parameters (name, type, default, range, help), the metric series it emits
 * (with units, which chart they share, and which are snapshots: a sample
 * replaces the earlier one at its step), and a run function. lab_run()
 * validates nothing itself: callers build a struct lab_params with
 * lab_params_init/lab_params_set and lab_params_check first, so an impossible
 * value is reported with the parameter's name and range before anything runs.
 *
 * While a lab runs it reports samples (series, step, value, time), log lines,
 * progress, and finally named summary figures. Every report goes to the sinks
 * the caller passed (the CLI printer, the TUI model) and, when a store is
 * given, into the store: a lab run row with the parameters and the machine
 * description, samples batched in transactions, and the end status with the
 * summary.
 *
 * Threads: lab_run() may run on any thread; sinks are called on that thread.
 * The store handle given to lab_run() must not be used by another thread while
 * it runs (the TUI opens a second handle for the lab thread). Cancellation is
 * an atomic flag anyone may set (lab_run_opts.cancel); a lab polls it and
 * stops within ~100 ms, and lab_run() then kills and reaps every child, frees
 * shared memory and marks the run "cancelled". Children get SIGKILL when the
 * thread that started them ends (PR_SET_PDEATHSIG), so a lab thread must not
 * end before lab_run() returns — it never does on its own.
 *
 * Every symbol the labs library exports carries its folder's prefix (lab_ for
 * labs/core, lab_net_ and lab_mpi_ for labs/transport, lab_km_, lab_ps_, ...
 * for the labs: README, "Where things live"); tests/check_lab_symbols.sh holds
 * the library to it.
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
struct lab_proc_ops; /* lab_author.h: how children are started (tests pass their own) */
struct lab_ctx;      /* opaque: the running lab's handle (lab_author.h) */

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
    /* Sets, on the copy of checked parameters that lab_run records and runs
     * (lab_params_resolve), the values the run takes from its input instead
     * of from the user, so the stored and reported parameters say what ran:
     * k-means from a points file sets n and d to the file's. Must not change
     * what the run does; a file it cannot read is left for the run to report.
     * NULL: none. */
    void (*resolve)(struct lab_params *p);
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
/* The values as a JSON object (numbers as numbers, others as strings). */
void lab_params_json(const struct lab_params *p, struct core_json *j);
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
    /* The lab's own input where no parameter can carry it (the code
     * harness's exercise: lab_code_run_recorded), read with lab_ctx_arg.
     * Borrowed; NULL for the registry's labs. */
    const void *arg;
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

/* The figures lab_run() adds to every run's summary (what graders read as
 * ctx.lab.summary, and --json as "figures"):
 *   noisy          1 when the run was measured under load or with a wide spread, else 0
 *   noise          text: "quiet", or why the numbers are doubtful
 *   load_other_pct % of the run's CPUs used by other programs (when /proc/stat was read)
 *   load_avg       1-minute load average at the end;  load_cpus  CPUs the run could use
 *   steal_pct      % stolen by the hypervisor (only where the kernel reports steal)
 *   spread_pct     the widest spread of a repeated measurement, % of its median
 *   spread_of      which one, with its min / median / max */

/* ---- across machines (Open MPI) ---------------------------------------- */

/* The distributed labs (paramserver, kmeans, allreduce) run their processes
 * either on this machine (transport=local) or as the ranks of an Open MPI
 * job (transport=mpi), rank 0 being the master that records and reports.
 * A front end runs such a lab like any other; lab_run then starts Open
 * MPI's own mpirun (across hosts=/hostfile=, or on this machine), reads
 * rank 0's reports back from it (it runs with the relay sink below) and
 * records them; cancelling ends mpirun and every rank. Started by the user
 * under mpirun instead, rank 0 is a normal `lab run` and the other ranks run
 * lab_mpi_rank_run. (The MPI runtime itself is labs/transport/lab_mpi.h.) */

/* This process's rank and the job's size when mpirun started it (from the
 * environment Open MPI gives its processes), else -1. MPI is not touched. */
int lab_mpi_env_rank(void);
int lab_mpi_env_size(void);
/* Whether p asks for the MPI transport (transport=mpi, hosts or hostfile). */
bool lab_mpi_params_use(const struct lab_params *p);
/* The parameters as lab_run records and runs them (caller frees out with
 * lab_params_fini): for a run over MPI, `workers` as its ranks give it
 * (lab_mpi_params_resolve), then the lab's own lab_def.resolve. Front ends
 * that report a run's parameters next to its results (the CLI's --json
 * summary) use this copy too. */
void lab_params_resolve(const struct lab_params *in, struct lab_params *out);
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

/* ---- programming labs: the harness (labs/code/) ---------------------------- */

/* A `code` question gives the student a C function to write. The harness
 * compiles the student's file with the system compiler into a shared
 * object in a private temporary directory, refuses an object with
 * constructors, destructors or IFUNC resolvers (lab_code_elf.c), and runs
 * it in a child: a fresh exec of this binary (lab_code_child_main) that
 * loads the object, closes every descriptor, sets rlimits and
 * PR_SET_NO_NEW_PRIVS and installs a seccomp allow-list (no open, exec,
 * fork, sockets, signal handlers; threads only where the exercise allows)
 * before the first call. The inputs are drawn fresh, from a new seed, for
 * every call; the outputs are poisoned before it; the parent reads the
 * clock, stops the child the moment it answers (so nothing runs after the
 * return), checks the inputs unchanged and the outputs against the
 * reference's, which ran in a child of its own: the expected outputs never
 * enter the student's process. See README, "Programming labs". */

#define LAB_CODE_MAX_ARGS 8
#define LAB_CODE_MAX_SIZES 6
#define LAB_CODE_MAX_BANDS 8
/* The argument that makes `warpbench` the harness's child (lab_code_child_main). */
#define LAB_CODE_CHILD_ARG "__code-child"

enum lab_code_elem { LAB_CODE_I8, LAB_CODE_I32, LAB_CODE_I64, LAB_CODE_F32, LAB_CODE_F64 };

struct lab_code_arg {
    char name[32];
    bool pointer;            /* false: an int, the size of the same name */
    bool output;             /* a pointer to non-const: written by the call */
    enum lab_code_elem elem; /* pointers: the element type */
    char count[96];          /* pointers: the element count, an expression over the sizes */
    double lo, hi;           /* inputs: drawn uniformly from [lo, hi] (integers: whole) */
};

/* Above `fraction` of the roofline a correct run earns `score` (0..1) of
 * the points; the best band reached counts. */
struct lab_code_band {
    double fraction, score;
};

/* One exercise, as the pack declares it (the front ends build it from the
 * question's struct grader_code: cli_cmd_code.c). The
 * strings are borrowed. */
struct lab_code_spec {
    const char *id;   /* the question's id, for messages */
    const char *func; /* the function's name */
    int ret;          /* -1: void, else an enum lab_code_elem returned (an output) */
    struct lab_code_arg args[LAB_CODE_MAX_ARGS];
    int n_args;
    char size_names[LAB_CODE_MAX_SIZES][32];
    double size_values[LAB_CODE_MAX_SIZES];
    int n_sizes;
    const char *reference; /* the naive reference, C source */
    const char *flags;     /* extra compiler flags ("" for none) */
    double rtol, atol;     /* float outputs: |got - want| <= atol + rtol * |want| */
    double mismatch;       /* fraction of output elements that may differ (ties) */
    const char *flops;     /* the work model: FLOP and bytes moved per call, */
    const char *bytes;     /*   expressions over the sizes ("2*n^3") */
    int threads;           /* threads the code may use (1: none started) */
    int reps;              /* timed calls (after one checked warm-up call) */
    double timeout_s;      /* one call's limit */
    double mem_mib;        /* what the code may allocate beyond its arguments */
    struct lab_code_band bands[LAB_CODE_MAX_BANDS];
    int n_bands;
    double correct_share; /* the share of the points a correct run earns at any speed */
};

/* This machine's roofline as measured (lab_code_roof_measure, the
 * "roofline" lab): bandwidths in GB/s (bytes read + written per second),
 * FP32 peak in GFLOP/s on `threads` cores. */
struct lab_code_roof {
    double size_bytes;                  /* the working set the "size" figures were measured at */
    double copy_gbs, triad_gbs;         /* at size_bytes */
    double copy_big_gbs, triad_big_gbs; /* at 4x the last-level cache */
    double fma_gflops;
    int threads;
    bool noisy;
    char noise[160];
    int64_t run_id; /* the lab run it came from, 0 when measured now unrecorded */
};

struct lab_code_result {
    bool compiled; /* false: *compile_log says why */
    bool correct;
    char *compile_log; /* the compiler's messages (caller frees), NULL when none */
    char *message;     /* why the run failed or was refused (caller frees), NULL when correct */
    char *first_wrong; /* "c[17] = 3.5, expected 2.25" (caller frees), NULL when none */
    int calls;         /* calls checked */
    double t_median_s, t_min_s, spread_pct; /* the timed calls */
    double ref_median_s, ref_min_s;
    double flops, bytes, intensity; /* the work model at the exercise's sizes */
    double gflops, gbs;             /* at the best (least disturbed) timed call */
    double roof_gflops;             /* the roofline's bound at that intensity */
    double roofline_fraction;       /* gflops / roof_gflops */
    double speedup;                 /* over the naive reference */
    double score;                   /* 0..1 of the points: correctness gate, then bands */
    /* lab_code_run_recorded only: */
    int64_t run_id;  /* the "code" lab run holding the samples, 0 when not recorded */
    bool noisy;      /* the run's noise verdict (load, steal, the calls' spread) */
    char noise[400]; /* ... as text */
};
void lab_code_result_fini(struct lab_code_result *r);

struct lab_code_opts {
    const struct lab_code_roof *roof; /* NULL: no roofline figures, score from correctness */
    /* live samples per timed call k (step k): "call_ms", "gflops", "gbs"
     * (when the work model moves bytes), "reference_ms"; and log lines.
     * May be NULL. */
    const struct lab_sink *sink;
    atomic_int *cancel;         /* may be NULL */
    bool skip_reference_timing; /* time the reference once only (bench) */
    /* Our own kernels (the roofline, the benchmarks): the spec's reference
     * is the code itself, so it is not run and the outputs are not compared
     * (the inputs are still checked). Never for a student's file. */
    bool no_reference;
    /* Called after each checked call of the code with its time and its
     * outputs (outs[i] for argument i, NULL for an input; outs[n_args]
     * the return value), borrowed for the call: the benchmarks read what
     * their kernels report. May be NULL. */
    void (*on_call)(void *ud, int call, double secs, const void *const *outs);
    void *ud;
};

/* Checks a spec for what would make every run fail (no function name, an
 * argument count that does not evaluate, bands out of order). */
int lab_code_spec_check(const struct lab_code_spec *s, struct core_err *err);

/* Compiles, checks and times the file at student_path for spec s. Returns
 * 0 when the run was carried out (correct or not: *out says, with the
 * reason), CORE_ERR_CANCELLED, or an error when the harness itself failed
 * (no compiler, no memory). Caller frees *out with lab_code_result_fini. */
int lab_code_run(const struct lab_code_spec *s, const char *student_path,
                 const struct lab_code_opts *o, struct lab_code_result *out, struct core_err *err);

/* lab_code_run as a lab run of its own, "code" (no registry lists it),
 * recorded like every lab run when ro->db is set: parameters "question"
 * (the exercise's id as given, else s->id), "file", and for `class
 * import`'s re-run of a submission "student" (its student id, else its
 * user name) and "student_user" (both NULL or "" for one's own run:
 * stored empty); the machine's
 * description; per timed call k = 1..reps the samples "call_ms" (its time,
 * ms), "gflops", "gbs", and "reference_ms" (the naive reference's call);
 * the summary: compiled, correct, message, first_wrong, calls, gflops,
 * gbs, roofline_fraction, speedup, score (0..1), seconds, median_seconds,
 * reference_seconds, and the noise figures every run gets (lab_run). The
 * sinks of ro see the samples as they are measured (ro->cancel cancels;
 * o->sink and o->cancel are replaced). out->run_id is the run (0 when not
 * recorded), out->noisy/noise its verdict. Returns as lab_code_run, or
 * the store's error. Caller frees *out with lab_code_result_fini. */
int lab_code_run_recorded(const struct lab_code_spec *s, const char *question, const char *path,
                          const char *student, const char *student_user,
                          const struct lab_code_opts *o, const struct lab_run_opts *ro,
                          struct lab_code_result *out, struct core_err *err);

/* The work model at the spec's sizes: FLOP and bytes per call. */
int lab_code_work(const struct lab_code_spec *s, double *flops, double *bytes,
                  struct core_err *err);

/* The score of a result as a fraction of the points: 0 unless correct,
 * else correct_share plus the rest by the best band the fraction reaches
 * (linear between bands). Pure. */
double lab_code_score(const struct lab_code_spec *s, bool correct, double roofline_fraction);

/* The roofline's bound in GFLOP/s at `intensity` FLOP/byte for a working
 * set of `bytes`: min(fma peak, intensity * bandwidth), the bandwidth
 * being the triad's at the exercise's size. Pure. */
double lab_code_roof_bound(const struct lab_code_roof *r, double intensity);

/* Measures the roofline: copy and triad at `size_bytes` and at 4x the
 * last-level cache, FMA peak on `threads` cores, each through the harness
 * (compiled with the system compiler as student code is). */
int lab_code_roof_measure(double size_bytes, int threads, struct lab_code_roof *out,
                          struct core_err *err);
/* Reads a roofline from a "roofline" lab run's summary figures. */
void lab_code_roof_from_summary(const struct lab_summary *s, struct lab_code_roof *out);

/* This machine's roofline for an exercise of working set size_bytes on
 * `threads` cores: the latest done "roofline" run of user_id on this
 * machine (same CPU model and cores) measured at that size and thread
 * count, else a new run of the roofline lab, recorded (and flagged when
 * noisy) like any lab run, reporting to sinks. *measured says which. */
int lab_code_roof_get(struct db *db, int64_t user_id, double size_bytes, int threads,
                      const struct lab_sink *sinks, size_t n_sinks, atomic_int *cancel,
                      struct lab_code_roof *out, bool *measured, struct core_err *err);

/* One size of `warpbench bench code`'s copy comparison: bytes counted
 * alike (read + write), best calls and medians. */
struct lab_code_bench_copy {
    double bytes;                         /* moved per call (the working set) */
    double copy_gbs, copy_median_gbs;     /* the roofline's copy kernel, through the harness */
    double memcpy_harness_gbs,            /* memcpy through the harness, the same buffers */
        memcpy_harness_median_gbs;        /* ... */
    double memcpy_gbs, memcpy_median_gbs; /* memcpy in this process, buffers rewritten each call */
};

/* What `warpbench bench code` measures. */
struct lab_code_bench {
    double size_bytes;
    struct lab_code_bench_copy at_size;   /* at size_bytes */
    struct lab_code_bench_copy at_big;    /* at 4x the last-level cache (at most 512 MiB) */
    double fma_gflops, fma_theory_gflops; /* measured vs cores x units x lanes x 2 x clock */
    int cores, units, lanes;
    bool units_assumed;                     /* no CPUID leaf says: 2 a core, assumed */
    double clock_ghz;                       /* measured (lab_code_clock_ghz), all cores at once, */
    bool clock_measured;                    /* ... else the nominal one */
    double clock_nominal_ghz;               /* /proc/cpuinfo's or cpufreq's, shown beside */
    double fma1_gflops, fma1_theory_gflops; /* the same on one core */
    double clock1_ghz;                      /* measured with one core busy */
    double kernel_s;                        /* a ~1 ms kernel: its own time (median) */
    double overhead_s;        /* the harness's time less the kernel's own: least over the calls */
    double overhead_median_s; /* ... and the median */
};
int lab_code_bench_run(double size_bytes, struct lab_code_bench *out, struct core_err *err);

/* The child's entry: `warpbench __code-child` with the shared mapping on
 * descriptor 3. Never returns. main() calls it first thing. */
_Noreturn void lab_code_child_main(void);

/* The "roofline" lab (registered in labs/core/lab_registry.c). */
extern const struct lab_def lab_code_roofline_def;

/* ---- benchmarks of the framework (core/lab_bench.c) ------------------------ */

/* What `warpbench bench labstream` measures, against the caller's store (a
 * temporary one) and sink: the metric stream's throughput (flood_samples
 * samples emitted as fast as a lab can, into the store and the sink, then
 * into the sink alone), and how much a stream of about 1000 samples/s slows
 * a fixed CPU workload: `reps` alternating runs of `chunks` chunks of about
 * 1 ms without and with the stream, the best of each (the minimum is the
 * least disturbed on a shared machine), in wall and in the lab thread's CPU
 * time. */
struct lab_bench_stream {
    long flood_samples;
    double flood_store_s, flood_sink_s; /* the flood into store and sink, sink only */
    double work_s, work_cpu_s;          /* the workload alone: wall, CPU */
    double stream_s, stream_cpu_s;      /* the workload streaming a sample per chunk */
    double run_s;                       /* once per run: opening and closing the record */
    long chunks;
    int reps;
};
/* Runs the stream benchmark; 0, or the error of a run that failed. */
int lab_bench_stream(struct db *db, int64_t user_id, const struct lab_sink *sink,
                     long flood_samples, struct lab_bench_stream *out, struct core_err *err);
/* The ceiling the distributed labs' transport is compared with: plain
 * blocking write()/read() of 4 MiB chunks of `mb` MiB through a Unix
 * socketpair to a forked reader (lab_proc_spawn), one direction, best of
 * three, into *best_s. CORE_ERR_IO when the reader failed. */
int lab_bench_socketpair(int mb, double *best_s, struct core_err *err);

#endif /* WB_LAB_H */
