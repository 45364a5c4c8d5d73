/*
 * lab_launch.c — the front end's side of the relay around Open MPI, whether
 * or not this build links it: rank 0 of a job a front end started writes
 * its reports as JSON lines (lab_mpi_rank.c); the front end runs Open
 * MPI's own mpirun, reads them back and records them here. What a rank
 * needs (the MPI environment, the host parameters, dispatching a rank to
 * its lab, rank 0's SIGTERM note and its side of the relay) is in
 * lab_mpi_rank.c, which the runner (labs/core/lab_run.c) calls too: this
 * file calls the runner, so the runner must not call it.
 *
 * The relay. lab_mpi_launch builds
 *     mpirun [--allow-run-as-root] --bind-to none
 *            --mca odls_base_sigkill_timeout 3 -np N
 *            (--host H | --hostfile F | --host localhost:N)
 *            -x WARPBENCH_MPI_RELAY=1 EXE lab run LAB --set transport=mpi
 *            --set NAME=VALUE (every other parameter the user set)
 * and runs it as a child of the run (lab_proc_spawn: it dies with us),
 * mpirun's stdout on the child's socket and its stderr on a pipe. Each
 * stdout line is one report of rank 0 (below), re-emitted here into the
 * run, so the store, the TUI and the CLI see the job like any local lab.
 * stderr lines are Open MPI's (and the other ranks') words: shown as
 * warnings, kept, and searched for "mpirun noticed that process rank N ...
 * exited on signal S": a real rank death, the reason the run failed.
 * Cancel sends mpirun SIGTERM, which ends every rank on every host (Open
 * MPI's daemons kill their processes), and SIGKILL after LAUNCH_TERM_S;
 * ranks whose launcher is gone exit on their own (lab_mpi.c).
 *
 * Report lines (flat JSON objects, one per line):
 *   {"type":"sample","series":S,"step":N,"value":V,"t":T}
 *   {"type":"log","level":"info|warn|error","line":TEXT}
 *   {"type":"progress","fraction":F,"what":TEXT}
 *   {"type":"figure","key":K,"num":V|"str":S,"unit":U,"label":L}
 *   {"type":"hosts","n_hosts":N,"hosts":TEXT,"interconnect":TEXT}
 *   {"type":"end","status":"done|failed|cancelled","error":TEXT|null}
 */
#define _GNU_SOURCE /* pipe2 */
#include "labs/lab_author.h"
#include "labs/transport/lab_mpi.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define LAUNCH_TERM_S 5.0 /* mpirun's time to end the job after SIGTERM */
#define LAUNCH_LINE_MAX 65536
#define LAUNCH_ERR_KEEP 12  /* stderr lines kept for the failure message */
#define LAUNCH_ERR_SHOWN 40 /* stderr lines shown as warnings, then counted */

/* A value as text that reads back the same: a real with all its digits
 * ('.' whatever the locale), the rest as lab_value_text writes them. */
static void value_exact(const struct lab_value *v, char *buf, size_t size)
{
    if (v->def->type != LAB_P_REAL) {
        lab_value_text(v, buf, size);
        return;
    }
    snprintf(buf, size, "%.17g", v->num);
    for (char *c = buf; *c; c++)
        if (*c == ',')
            *c = '.';
}

/* ---- the front end's side ------------------------------------------------------------ */

/* What the reader learnt from rank 0 and from mpirun. */
struct relay_in {
    struct lab_ctx *cx;
    bool ended;
    char status[16];
    char error[256];
    char death[256]; /* "mpirun noticed that process rank 2 ... (Killed)" */
    char err_tail[LAUNCH_ERR_KEEP][200];
    int n_err;
    int shown;
    bool in_banner; /* inside an Open MPI "----" box: its lines are joined */
    struct core_buf banner;
};

static const char *kv_str(const struct core_kv *kv, size_t n, const char *key)
{
    const struct core_kv *v = core_kv_find(kv, n, key);
    return v && v->str ? v->str : "";
}

static double kv_num(const struct core_kv *kv, size_t n, const char *key)
{
    const struct core_kv *v = core_kv_find(kv, n, key);
    return v && v->is_num ? v->num : NAN;
}

/* One line of rank 0's reports. Anything else on stdout (a rank printed
 * there) is shown as a log line. */
static void relay_line(struct relay_in *in, const char *line)
{
    struct core_kv *kv = NULL;
    size_t n = 0;
    if (line[0] != '{' || core_json_parse_flat(line, &kv, &n, NULL) != 0) {
        if (*line)
            lab_log(in->cx, LAB_LOG_INFO, "%s", line);
        return;
    }
    const char *type = kv_str(kv, n, "type");
    struct lab_ctx *cx = in->cx;
    if (strcmp(type, "sample") == 0) {
        lab_emit(cx, kv_str(kv, n, "series"), (int64_t)kv_num(kv, n, "step"),
                 kv_num(kv, n, "value"));
    } else if (strcmp(type, "log") == 0) {
        const char *lv = kv_str(kv, n, "level");
        lab_log(cx,
                strcmp(lv, "error") == 0  ? LAB_LOG_ERROR
                : strcmp(lv, "warn") == 0 ? LAB_LOG_WARN
                                          : LAB_LOG_INFO,
                "%s", kv_str(kv, n, "line"));
    } else if (strcmp(type, "progress") == 0) {
        lab_progress(cx, kv_num(kv, n, "fraction"), kv_str(kv, n, "what"));
    } else if (strcmp(type, "figure") == 0) {
        const struct core_kv *sv = core_kv_find(kv, n, "str");
        if (sv && sv->str)
            lab_figure_str(cx, kv_str(kv, n, "key"), sv->str, kv_str(kv, n, "label"));
        else
            lab_figure_num(cx, kv_str(kv, n, "key"), kv_num(kv, n, "num"), kv_str(kv, n, "unit"),
                           kv_str(kv, n, "label"));
    } else if (strcmp(type, "hosts") == 0) {
        lab_ctx_set_hosts(cx, (int)kv_num(kv, n, "n_hosts"), kv_str(kv, n, "hosts"),
                          kv_str(kv, n, "interconnect"));
    } else if (strcmp(type, "end") == 0) {
        in->ended = true;
        snprintf(in->status, sizeof in->status, "%s", kv_str(kv, n, "status"));
        snprintf(in->error, sizeof in->error, "%s", kv_str(kv, n, "error"));
    }
    core_kv_free(kv, n);
}

/* A message of mpirun's (or of a rank's stderr): kept for the failure
 * message, shown as a warning, and read for a rank's death. */
static void error_line_text(struct relay_in *in, const char *text)
{
    if (strstr(text, "mpirun noticed that process rank") && !in->death[0])
        snprintf(in->death, sizeof in->death, "%s", text);
    snprintf(in->err_tail[in->n_err % LAUNCH_ERR_KEEP], sizeof in->err_tail[0], "%s", text);
    in->n_err++;
    if (in->shown < LAUNCH_ERR_SHOWN)
        lab_log(in->cx, LAB_LOG_WARN, "mpirun: %s", text);
    else if (in->shown == LAUNCH_ERR_SHOWN)
        lab_log(in->cx, LAB_LOG_WARN, "mpirun: (more output not shown)");
    in->shown++;
}

/* One line of mpirun's stderr. Open MPI writes its messages in boxes of
 * dashes; a box becomes one log line. */
static void error_line(struct relay_in *in, const char *line)
{
    bool dashes = *line == '-';
    for (const char *p = line; *p && dashes; p++)
        dashes = *p == '-';
    if (dashes) {
        if (in->in_banner && in->banner.len > 0) {
            error_line_text(in, in->banner.data);
            core_buf_reset(&in->banner);
        }
        in->in_banner = !in->in_banner;
        return;
    }
    if (in->in_banner) {
        if (in->banner.len > 0)
            core_buf_putc(&in->banner, ' ');
        core_buf_puts(&in->banner, line);
        return;
    }
    if (*line)
        error_line_text(in, line);
}

/* Splits what came on fd into lines for fn; false at end of file (or an
 * error). */
static bool read_lines(int fd, struct core_buf *acc, struct relay_in *in,
                       void (*fn)(struct relay_in *, const char *))
{
    char buf[16384];
    ssize_t r = read(fd, buf, sizeof buf);
    if (r < 0 && (errno == EINTR || errno == EAGAIN))
        return true;
    if (r <= 0) {
        if (acc->len > 0)
            fn(in, acc->data);
        core_buf_reset(acc);
        return false;
    }
    for (ssize_t i = 0; i < r; i++) {
        if (buf[i] == '\n') {
            fn(in, acc->len ? acc->data : "");
            core_buf_reset(acc);
        } else if (acc->len < LAUNCH_LINE_MAX) {
            core_buf_putc(acc, buf[i]);
        }
    }
    return true;
}

struct launch_arg {
    char **argv;
    int err_fd;
};

/* The child: mpirun's stdout on the run's socket, stderr on the pipe. */
static int launch_child(int fd, void *arg)
{
    const struct launch_arg *a = arg;
    int nul = open("/dev/null", O_RDONLY);
    if (nul >= 0)
        dup2(nul, STDIN_FILENO);
    dup2(fd, STDOUT_FILENO);
    dup2(a->err_fd, STDERR_FILENO);
    execvp(a->argv[0], a->argv);
    fprintf(stderr, "cannot run %s: %s (is Open MPI's openmpi-bin installed?)\n", a->argv[0],
            strerror(errno));
    return 127;
}

/* mpirun's command line for the run of p on `ranks` ranks. */
static int launch_argv(const struct lab_params *p, int ranks, struct core_strlist *l,
                       struct core_err *err)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return core_err_set(err, CORE_ERR_IO, "cannot find this program's path: %s",
                            strerror(errno));
    exe[n] = '\0';
    const char *mpirun = getenv("WARPBENCH_MPIRUN");
    core_strlist_pushf(l, "%s", mpirun && *mpirun ? mpirun : "mpirun");
    if (geteuid() == 0)
        core_strlist_pushf(l, "--allow-run-as-root"); /* Open MPI refuses root without it */
    core_strlist_pushf(l, "--bind-to");
    core_strlist_pushf(l, "none"); /* a shard's threads need more than one core */
    /* after a rank's death, time for the others to end cleanly on SIGTERM
     * before Open MPI's SIGKILL (default 1 s) */
    core_strlist_pushf(l, "--mca");
    core_strlist_pushf(l, "odls_base_sigkill_timeout");
    core_strlist_pushf(l, "3");
    core_strlist_pushf(l, "-np");
    core_strlist_pushf(l, "%d", ranks);
    const char *hosts = lab_mpi_param_text(p, "hosts"),
               *hostfile = lab_mpi_param_text(p, "hostfile");
    if (*hosts) {
        core_strlist_pushf(l, "--host");
        core_strlist_pushf(l, "%s", hosts);
    } else if (*hostfile) {
        core_strlist_pushf(l, "--hostfile");
        core_strlist_pushf(l, "%s", hostfile);
    } else {
        core_strlist_pushf(l, "--host");
        core_strlist_pushf(l, "localhost:%d", ranks);
    }
    core_strlist_pushf(l, "-x");
    core_strlist_pushf(l, "WARPBENCH_MPI_RELAY=1");
    core_strlist_pushf(l, "%s", exe);
    core_strlist_pushf(l, "lab");
    core_strlist_pushf(l, "run");
    core_strlist_pushf(l, "%s", p->lab->name);
    core_strlist_pushf(l, "--set");
    core_strlist_pushf(l, "transport=mpi");
    for (size_t i = 0; i < p->n; i++) {
        const struct lab_value *v = &p->v[i];
        const char *name = v->def->name;
        if (!v->user_set || strcmp(name, "hosts") == 0 || strcmp(name, "hostfile") == 0 ||
            strcmp(name, "transport") == 0)
            continue;
        char text[1024];
        value_exact(v, text, sizeof text);
        core_strlist_pushf(l, "--set");
        core_strlist_pushf(l, "%s=%s", name, text);
    }
    return 0;
}

int lab_mpi_launch(struct lab_ctx *cx, int ranks, struct core_err *err)
{
    const struct lab_params *p = lab_ctx_params(cx);
    struct lab_procs *ps = lab_ctx_procs(cx);
    struct core_strlist args;
    core_strlist_init(&args);
    struct relay_in in = {.cx = cx};
    struct core_buf out_acc, err_acc, shown;
    core_buf_init(&out_acc);
    core_buf_init(&err_acc);
    core_buf_init(&shown);
    core_buf_init(&in.banner);
    int pipe_fd[2] = {-1, -1};
    char **argv = NULL;
    int rc = launch_argv(p, ranks, &args, err);
    if (rc)
        goto out;
    argv = core_xcalloc(args.n + 1, sizeof *argv);
    for (size_t i = 0; i < args.n; i++) {
        argv[i] = args.items[i];
        core_buf_printf(&shown, "%s%s", i ? " " : "", args.items[i]);
    }
    lab_log(cx, LAB_LOG_INFO, "starting %d ranks: %s", ranks, shown.data);
    if (pipe2(pipe_fd, O_CLOEXEC) != 0) {
        rc = core_err_set(err, CORE_ERR_IO, "pipe: %s", strerror(errno));
        goto out;
    }
    struct launch_arg la = {argv, pipe_fd[1]};
    int idx = lab_proc_spawn(ps, launch_child, &la, err);
    close(pipe_fd[1]);
    pipe_fd[1] = -1;
    if (idx < 0) {
        rc = idx;
        goto out;
    }
    pid_t pid = ps->v[idx].pid;
    int out_fd = ps->v[idx].fd, err_fd = pipe_fd[0];
    bool cancelled = false, killed = false;
    double term_at = 0;
    while (out_fd >= 0 || err_fd >= 0) {
        if (!cancelled && lab_cancelled(cx)) {
            cancelled = true;
            term_at = core_time_mono();
            ps->ops->kill(pid, SIGTERM); /* mpirun ends every rank on every host */
        }
        if (cancelled && !killed && core_time_mono() - term_at > LAUNCH_TERM_S) {
            killed = true;
            ps->ops->kill(pid, SIGKILL);
        }
        struct pollfd pf[2];
        nfds_t k = 0;
        int which[2];
        if (out_fd >= 0) {
            pf[k] = (struct pollfd){out_fd, POLLIN, 0};
            which[k++] = 0;
        }
        if (err_fd >= 0) {
            pf[k] = (struct pollfd){err_fd, POLLIN, 0};
            which[k++] = 1;
        }
        int pr = poll(pf, k, 50);
        if (pr < 0 && errno != EINTR) {
            rc = core_err_set(err, CORE_ERR_IO, "poll: %s", strerror(errno));
            break;
        }
        for (nfds_t q = 0; pr > 0 && q < k; q++) {
            if (!pf[q].revents)
                continue;
            if (which[q] == 0 && !read_lines(out_fd, &out_acc, &in, relay_line))
                out_fd = -1;
            else if (which[q] == 1 && !read_lines(err_fd, &err_acc, &in, error_line))
                err_fd = -1;
        }
    }
    if (in.in_banner && in.banner.len > 0)
        error_line_text(&in, in.banner.data);
    struct core_err re;
    int status_rc = lab_proc_reap(ps, (size_t)idx, cancelled ? 2000 : 30000, &re);
    const struct lab_child *lc = &ps->v[idx];
    if (rc)
        goto out;
    if (cancelled) {
        rc = core_err_set(err, CORE_ERR_CANCELLED, "cancelled");
    } else if (in.death[0]) {
        rc = core_err_set(err, CORE_ERR_INTERNAL,
                          "%.180s — a dead rank ends the whole Open MPI job", in.death);
    } else if (in.ended && strcmp(in.status, "done") == 0 && status_rc == 0) {
        rc = 0;
    } else if (in.ended && in.error[0]) {
        rc = core_err_set(err, CORE_ERR_INTERNAL, "%s", in.error);
    } else {
        const char *last = in.n_err > 0 ? in.err_tail[(in.n_err - 1) % LAUNCH_ERR_KEEP] : "";
        if (lc->reaped && WIFSIGNALED(lc->status))
            rc = core_err_set(err, CORE_ERR_INTERNAL, "mpirun was killed by signal %d%s%.150s",
                              WTERMSIG(lc->status), *last ? ": " : "", last);
        else
            rc = core_err_set(err, CORE_ERR_INTERNAL,
                              "mpirun exited with status %d without rank 0's report%s%.150s",
                              lc->reaped && WIFEXITED(lc->status) ? WEXITSTATUS(lc->status) : -1,
                              *last ? ": " : "", last);
    }
out:
    if (pipe_fd[0] >= 0)
        close(pipe_fd[0]);
    if (pipe_fd[1] >= 0)
        close(pipe_fd[1]);
    free(argv);
    core_strlist_fini(&args);
    core_buf_fini(&out_acc);
    core_buf_fini(&err_acc);
    core_buf_fini(&shown);
    core_buf_fini(&in.banner);
    return rc;
}
