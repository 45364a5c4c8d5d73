/*
 * lab_proc.c — the process helpers every multi-process lab shares: workers
 * started with a connected socketpair, anonymous shared memory, reads and
 * writes with timeouts and a cancel flag, reaping that reports how a worker
 * died, and a kill-everything clean-up.
 *
 * Children are started through a table of functions (lab_proc_real uses
 * fork, kill and waitpid) so tests can make spawning fail or drive reaping.
 * A child ignores SIGINT and SIGHUP (Ctrl-C and a closing terminal reach the
 * whole process group; the parent decides what a cancel means), gets SIGKILL
 * when the thread that started it ends (PR_SET_PDEATHSIG: a crashed
 * Warpbench leaves no workers behind), and closes the parent's ends of its
 * siblings' sockets so that a parent closing one connection is seen by that
 * worker alone. Shared memory is an anonymous MAP_SHARED mapping: it has no
 * name, so nothing appears in /dev/shm and nothing is left there whatever
 * happens. One hang rule (lab_hang_limit_s, lab_proc_end_hung) tells every
 * lab when a silent worker is hung rather than slow.
 */
#include "labs/lab_author.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct lab_shm {
    void *p;
    size_t n;
    struct lab_shm *next;
};

/* ---- the real process table --------------------------------------------- */

static pid_t real_spawn(int (*child_main)(int fd, void *arg), void *arg, int fd_child,
                        int fd_parent)
{
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid != 0)
        return pid; /* the parent, or -1 with errno */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sa.sa_handler = SIG_DFL;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGPIPE, &sa, NULL);
    /* A worker runs none of its parent's signal handlers (exec would have
     * dropped them; a fork keeps them): the TUI's crash handler would call
     * endwin() from a crashing worker, on the terminal the TUI still owns,
     * and curses' SIGWINCH/SIGTSTP handlers would act on it too. Back to the
     * default for every caught signal, before anything is unblocked; what is
     * ignored stays ignored. */
    for (int sig = 1; sig < NSIG; sig++) {
        struct sigaction cur;
        if (sig == SIGKILL || sig == SIGSTOP || sigaction(sig, NULL, &cur) != 0)
            continue;
        bool caught =
            (cur.sa_flags & SA_SIGINFO) || (cur.sa_handler != SIG_DFL && cur.sa_handler != SIG_IGN);
        if (caught)
            sigaction(sig, &sa, NULL); /* sa: SIG_DFL */
    }
    /* The TUI's lab thread blocks SIGINT/SIGTERM/SIGHUP/SIGWINCH and a child
     * inherits that mask: unblock everything, so SIGTERM still ends it
     * (those ignored above stay ignored). */
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) /* the parent died before prctl took effect */
        _exit(127);
    if (fd_parent >= 0)
        close(fd_parent);
    _exit(child_main(fd_child, arg) & 0xff);
}

static int real_kill(pid_t pid, int sig)
{
    return kill(pid, sig);
}

static pid_t real_wait(pid_t pid, int *status, int options)
{
    return waitpid(pid, status, options);
}

const struct lab_proc_ops lab_proc_real = {real_spawn, real_kill, real_wait};

/* ---- children ------------------------------------------------------------ */

void lab_procs_init(struct lab_procs *ps, const struct lab_proc_ops *ops)
{
    memset(ps, 0, sizeof *ps);
    ps->ops = ops ? ops : &lab_proc_real;
}

/* What the child runs first: drop the parent's ends of the siblings'
 * sockets (inherited through fork), then the worker itself. */
struct trampoline {
    struct lab_procs *ps;
    int (*child_main)(int fd, void *arg);
    void *arg;
};

static int child_trampoline(int fd, void *arg)
{
    struct trampoline *t = arg;
    for (size_t i = 0; i < t->ps->n; i++)
        if (t->ps->v[i].fd >= 0)
            close(t->ps->v[i].fd);
    return t->child_main(fd, t->arg);
}

int lab_proc_spawn(struct lab_procs *ps, int (*child_main)(int fd, void *arg), void *arg,
                   struct core_err *err)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        return core_err_set(err, CORE_ERR_IO, "cannot create a socket pair for worker %zu: %s",
                            ps->n + 1, strerror(errno));
    if (ps->n == ps->cap) {
        ps->cap = ps->cap ? 2 * ps->cap : 8;
        ps->v = core_xrealloc(ps->v, ps->cap * sizeof *ps->v);
    }
    /* Unflushed stdio output would be written twice (by the parent and
     * again by a child that flushed it); children _exit, but be sure. */
    fflush(NULL);
    struct trampoline t = {ps, child_main, arg};
    pid_t pid = ps->ops->spawn(child_trampoline, &t, sv[1], sv[0]);
    if (pid < 0) {
        int e = errno;
        close(sv[0]);
        close(sv[1]);
        return core_err_set(err, CORE_ERR_IO, "cannot start worker %zu: %s", ps->n + 1,
                            strerror(e));
    }
    close(sv[1]);
    ps->v[ps->n] = (struct lab_child){.pid = pid, .fd = sv[0], .status = 0, .reaped = false};
    return (int)ps->n++;
}

/* How a reaped child ended, as an error (0 for a clean exit). */
static int child_verdict(const struct lab_procs *ps, size_t i, struct core_err *err)
{
    const struct lab_child *c = &ps->v[i];
    int st = c->status;
    if (WIFSIGNALED(st)) {
        int sig = WTERMSIG(st);
        const char *name = strsignal(sig);
        return core_err_set(err, CORE_ERR_INTERNAL,
                            "worker %zu (pid %d) was killed by signal %d (%s)", i + 1, (int)c->pid,
                            sig, name ? name : "unknown");
    }
    if (WIFEXITED(st) && WEXITSTATUS(st) != 0)
        return core_err_set(err, CORE_ERR_INTERNAL, "worker %zu (pid %d) exited with status %d",
                            i + 1, (int)c->pid, WEXITSTATUS(st));
    return 0;
}

static void close_fd(struct lab_child *c)
{
    if (c->fd >= 0) {
        close(c->fd);
        c->fd = -1;
    }
}

int lab_proc_reap(struct lab_procs *ps, size_t i, int timeout_ms, struct core_err *err)
{
    if (i >= ps->n)
        return core_err_set(err, CORE_ERR_INTERNAL, "no worker %zu", i + 1);
    struct lab_child *c = &ps->v[i];
    if (c->reaped)
        return child_verdict(ps, i, err);
    double end = core_time_mono() + timeout_ms / 1000.0;
    double pause = 0.0005;
    for (;;) {
        int st = 0;
        pid_t r = ps->ops->wait(c->pid, &st, timeout_ms < 0 ? 0 : WNOHANG);
        if (r == c->pid) {
            c->status = st;
            c->reaped = true;
            close_fd(c);
            return child_verdict(ps, i, err);
        }
        if (r < 0 && errno != EINTR) {
            /* Not our child any more (reaped elsewhere): nothing to wait for. */
            c->reaped = true;
            close_fd(c);
            return core_err_set(err, CORE_ERR_INTERNAL, "worker %zu (pid %d): %s", i + 1,
                                (int)c->pid, strerror(errno));
        }
        if (timeout_ms >= 0 && core_time_mono() >= end)
            return core_err_set(err, CORE_ERR_LIMIT,
                                "worker %zu (pid %d) did not exit within %d ms", i + 1, (int)c->pid,
                                timeout_ms);
        if (r == 0) {
            core_sleep(pause);
            if (pause < 0.01)
                pause *= 2;
        }
    }
}

void lab_procs_kill_all(struct lab_procs *ps)
{
    for (size_t i = 0; i < ps->n; i++) {
        struct lab_child *c = &ps->v[i];
        close_fd(c);
        if (c->reaped)
            continue;
        ps->ops->kill(c->pid, SIGKILL);
        int st = 0;
        pid_t r;
        do
            r = ps->ops->wait(c->pid, &st, 0);
        while (r < 0 && errno == EINTR);
        c->status = r == c->pid ? st : 0;
        c->reaped = true;
    }
}

/* ---- the hang rule ------------------------------------------------------- */

double lab_hang_limit_s(double expected_s)
{
    if (!(expected_s > 0)) /* NaN, negative: nothing known beyond the floor */
        expected_s = 0;
    return LAB_HANG_FLOOR_S + LAB_HANG_FACTOR * expected_s;
}

/* Whether pid is stopped (state T or t in /proc/PID/stat). */
static bool proc_stopped(pid_t pid)
{
    char path[64], line[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    if (!core_file_first_line(path, line, sizeof line))
        return false;
    const char *paren = strrchr(line, ')'); /* the command name may hold spaces */
    return paren && (paren[1] == ' ') && (paren[2] == 'T' || paren[2] == 't');
}

int lab_proc_end_hung(struct lab_procs *ps, size_t i, double waited_s, double expected_s,
                      struct core_err *err)
{
    if (i >= ps->n)
        return core_err_set(err, CORE_ERR_INTERNAL, "no worker %zu", i + 1);
    struct lab_child *c = &ps->v[i];
    if (c->reaped)
        return child_verdict(ps, i, err);
    /* How it is hanging, asked before it is killed: a stop is reported by
     * waitpid once (WUNTRACED), later only /proc shows it. */
    int st = 0;
    bool stopped = false;
    pid_t r = ps->ops->wait(c->pid, &st, WNOHANG | WUNTRACED);
    if (r == c->pid && !WIFSTOPPED(st)) { /* it died meanwhile: say how */
        c->status = st;
        c->reaped = true;
        close_fd(c);
        return child_verdict(ps, i, err);
    }
    stopped = (r == c->pid && WIFSTOPPED(st)) || proc_stopped(c->pid);
    ps->ops->kill(c->pid, SIGKILL); /* a stopped process dies of SIGKILL too */
    struct core_err e2;
    lab_proc_reap(ps, i, -1, &e2);
    return core_err_set(err, CORE_ERR_LIMIT,
                        "worker %zu (pid %d) did not answer within %.1f s (its work should take "
                        "about %.2g s): %s; it was ended",
                        i + 1, (int)c->pid, waited_s, expected_s,
                        stopped ? "it is stopped (SIGSTOP or a debugger)" : "it hangs");
}

void lab_procs_fini(struct lab_procs *ps)
{
    if (!ps)
        return;
    lab_procs_kill_all(ps);
    for (struct lab_shm *m = ps->shm, *next; m; m = next) {
        next = m->next;
        munmap(m->p, m->n);
        free(m);
    }
    free(ps->v);
    const struct lab_proc_ops *ops = ps->ops;
    memset(ps, 0, sizeof *ps);
    ps->ops = ops;
}

void *lab_shm_alloc(struct lab_procs *ps, size_t bytes, struct core_err *err)
{
    if (bytes == 0)
        bytes = 1;
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        core_err_set(err, CORE_ERR_IO, "cannot map %zu bytes of shared memory: %s", bytes,
                     strerror(errno));
        return NULL;
    }
    struct lab_shm *m = core_xmalloc(sizeof *m);
    *m = (struct lab_shm){p, bytes, ps->shm};
    ps->shm = m;
    return p;
}

/* ---- reading and writing with timeouts ----------------------------------- */

/* Waits until fd is ready for `events`, at most until `end` (monotonic
 * seconds, or < 0 for no limit), looking at *cancel every 50 ms. With
 * neither a limit nor a flag it blocks in poll: an idle worker waiting for
 * its next command must not wake 20 times a second (with 256 of them that
 * is CPU taken from the trial being timed). */
static int wait_ready(int fd, short events, double end, atomic_int *cancel, int timeout_ms,
                      struct core_err *err)
{
    for (;;) {
        if (cancel && atomic_load(cancel))
            return core_err_set(err, CORE_ERR_CANCELLED, "cancelled");
        int slice = cancel || end >= 0 ? 50 : -1;
        if (end >= 0) {
            double left = end - core_time_mono();
            if (left <= 0)
                return core_err_set(err, CORE_ERR_LIMIT, "a worker did not answer within %d ms",
                                    timeout_ms);
            if (left * 1000 < slice)
                slice = (int)(left * 1000) + 1;
        }
        struct pollfd pfd = {fd, events, 0};
        int r = poll(&pfd, 1, slice);
        if (r > 0)
            return 0; /* ready, or hung up: the read/write says which */
        if (r < 0 && errno != EINTR)
            return core_err_set(err, CORE_ERR_IO, "poll: %s", strerror(errno));
    }
}

int lab_fd_write(int fd, const void *buf, size_t n, int timeout_ms, atomic_int *cancel,
                 struct core_err *err)
{
    const char *p = buf;
    double end = timeout_ms < 0 ? -1 : core_time_mono() + timeout_ms / 1000.0;
    while (n > 0) {
        int rc = wait_ready(fd, POLLOUT, end, cancel, timeout_ms, err);
        if (rc)
            return rc;
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w < 0 && errno == ENOTSOCK)
            w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)
                continue;
            if (errno == EPIPE || errno == ECONNRESET)
                return core_err_set(err, CORE_ERR_IO, "worker closed its connection");
            return core_err_set(err, CORE_ERR_IO, "write to a worker: %s", strerror(errno));
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int lab_fd_read(int fd, void *buf, size_t n, int timeout_ms, atomic_int *cancel,
                struct core_err *err)
{
    char *p = buf;
    double end = timeout_ms < 0 ? -1 : core_time_mono() + timeout_ms / 1000.0;
    while (n > 0) {
        int rc = wait_ready(fd, POLLIN, end, cancel, timeout_ms, err);
        if (rc)
            return rc;
        ssize_t r = recv(fd, p, n, MSG_DONTWAIT);
        if (r < 0 && errno == ENOTSOCK)
            r = read(fd, p, n);
        if (r == 0)
            return core_err_set(err, CORE_ERR_IO, "worker closed its connection");
        if (r < 0) {
            if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)
                continue;
            if (errno == ECONNRESET)
                return core_err_set(err, CORE_ERR_IO, "worker closed its connection");
            return core_err_set(err, CORE_ERR_IO, "read from a worker: %s", strerror(errno));
        }
        p += r;
        n -= (size_t)r;
    }
    return 0;
}
