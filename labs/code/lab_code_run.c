/*
 * lab_code_run.c — the harness's parent: compiles the reference and the
 * student's file, starts a runner child for each (lab_code_child.c), and
 * for every call draws fresh inputs, runs the reference for the expected
 * outputs, then the student's code, timed by this process's own clock;
 * checks the inputs unchanged and the outputs against the expected ones;
 * and turns the times into GFLOP/s, GB/s, a fraction of the roofline and a
 * score.
 *
 * The call protocol over the shared header (see lab_code_internal.h):
 * the child is stopped (SIGSTOP) between calls, so nothing of the
 * student's runs while the inputs are written or the outputs checked.
 * Before call k the parent continues it and writes cmd = 2k; the child
 * answers ready = 2k and spins; the parent reads its clock (t0) and writes
 * cmd = 2k+1; the child calls and writes done = k; the parent, spinning
 * for the first milliseconds and then sleeping on the futex, reads its
 * clock (t1) and stops the child at once. Work left running after the
 * return is frozen before the outputs are read, so it cannot finish them.
 *
 * Uses the compile and ELF steps (lab_code_build.c), core, and the sink of
 * lab.h for live samples.
 */
#define _GNU_SOURCE /* memfd_create, pipe2, dladdr, REG_RIP, close_range, sigabbrev_np */
#include "labs/code/lab_code_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static inline void relax(void)
{
#if defined(__x86_64__)
    __builtin_ia32_pause();
#endif
}

/* ---- the layout of the arguments ---------------------------------------------------------- */

struct layout {
    size_t count[LAB_CODE_MAX_ARGS]; /* elements per pointer argument */
    size_t off[LAB_CODE_MAX_ARGS];   /* in the mapping */
    size_t ret_off;
    size_t size; /* of the mapping */
};

static size_t align_page(size_t x)
{
    return (x + 4095) & ~(size_t)4095;
}

static int layout_make(const struct lab_code_spec *s, struct layout *l, struct core_err *err)
{
    memset(l, 0, sizeof *l);
    size_t at = LAB_CODE_HDR;
    for (int i = 0; i < s->n_args; i++) {
        const struct lab_code_arg *a = &s->args[i];
        if (!a->pointer)
            continue;
        double c;
        int rc = lab_code_expr(a->count, s, &c, err);
        if (rc != 0)
            return rc;
        if (!(c >= 1 && c <= 1e10))
            return core_err_set(err, CORE_ERR_INVALID, "%s: argument %s: %g elements", s->id,
                                a->name, c);
        l->count[i] = (size_t)c;
        l->off[i] = at;
        at = align_page(at + l->count[i] * lab_code_elem_size(a->elem));
    }
    l->ret_off = at;
    at = align_page(at + 64);
    l->size = at;
    return 0;
}

static int size_value(const struct lab_code_spec *s, const char *name, long *v)
{
    for (int i = 0; i < s->n_sizes; i++)
        if (strcmp(s->size_names[i], name) == 0) {
            *v = (long)s->size_values[i];
            return 0;
        }
    return -1;
}

int lab_code_spec_check(const struct lab_code_spec *s, struct core_err *err)
{
    if (!s->func || !*s->func)
        return core_err_set(err, CORE_ERR_INVALID, "%s: no function name", s->id);
    if (s->n_args < 0 || s->n_args > LAB_CODE_MAX_ARGS)
        return core_err_set(err, CORE_ERR_INVALID, "%s: %d arguments (at most %d)", s->id,
                            s->n_args, LAB_CODE_MAX_ARGS);
    bool out = s->ret >= 0;
    for (int i = 0; i < s->n_args; i++) {
        long v;
        if (!s->args[i].pointer && size_value(s, s->args[i].name, &v) != 0)
            return core_err_set(err, CORE_ERR_INVALID,
                                "%s: integer argument %s is not one of the sizes", s->id,
                                s->args[i].name);
        out |= s->args[i].output;
    }
    if (!out)
        return core_err_set(err, CORE_ERR_INVALID,
                            "%s: nothing to check: no output argument and "
                            "no return value",
                            s->id);
    struct layout l;
    int rc = layout_make(s, &l, err);
    if (rc != 0)
        return rc;
    double x;
    if ((rc = lab_code_expr(s->flops, s, &x, err)) != 0 ||
        (rc = lab_code_expr(s->bytes, s, &x, err)) != 0)
        return rc;
    for (int i = 1; i < s->n_bands; i++)
        if (!(s->bands[i].fraction > s->bands[i - 1].fraction))
            return core_err_set(err, CORE_ERR_INVALID, "%s: bands must rise in fraction", s->id);
    return 0;
}

int lab_code_work(const struct lab_code_spec *s, double *flops, double *bytes, struct core_err *err)
{
    int rc = lab_code_expr(s->flops, s, flops, err);
    return rc ? rc : lab_code_expr(s->bytes, s, bytes, err);
}

/* What the code may allocate, in bytes. */
static double mem_bytes(const struct lab_code_spec *s)
{
    return (s->mem_mib > 0 ? s->mem_mib : 256) * 1024 * 1024;
}

/* The most CPU time the runner may use answering the ping (from its
 * SIGCONT to the start of the call) for that time not to count in the
 * call. */
#define LAB_CODE_READY_MAX_S 200e-6

/* The CPU time the child (all its threads) has used, as the kernel counts
 * it: nothing in the child can forge it. NaN when it cannot be read. */
static double child_cpu_s(pid_t pid)
{
    clockid_t c;
    struct timespec ts;
    if (clock_getcpuclockid(pid, &c) != 0 || clock_gettime(c, &ts) != 0)
        return NAN;
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- a runner child ----------------------------------------------------------------------- */

struct runner {
    pid_t pid;
    int fd;
    char *base;
    struct lab_code_shm *h;
    size_t size;
    uint32_t k;    /* calls made */
    bool stopped;  /* SIGSTOPped between calls */
    double last_s; /* the last call's time */
    const char *so_path;
    int status; /* the wait status once dead */
    bool dead;
};

static void runner_kill(struct runner *r)
{
    if (r->pid > 0) {
        kill(r->pid, SIGKILL);
        if (!r->dead)
            while (waitpid(r->pid, &r->status, 0) < 0 && errno == EINTR)
                ;
        r->dead = true;
        r->pid = 0;
    }
    if (r->base && r->base != MAP_FAILED)
        munmap(r->base, r->size);
    r->base = NULL;
    if (r->fd >= 0)
        close(r->fd);
    r->fd = -1;
}

/* Whether the child died (reaps it). */
static bool runner_dead(struct runner *r)
{
    if (r->dead)
        return true;
    int st;
    pid_t p = waitpid(r->pid, &st, WNOHANG | WUNTRACED);
    if (p == r->pid && (WIFEXITED(st) || WIFSIGNALED(st))) {
        r->status = st;
        r->dead = true;
    }
    return r->dead;
}

static void futex_wait_ms(_Atomic uint32_t *w, uint32_t old, long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    syscall(SYS_futex, (uint32_t *)w, FUTEX_WAIT, old, &ts, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *w)
{
    syscall(SYS_futex, (uint32_t *)w, FUTEX_WAKE, 1 << 30, NULL, NULL, 0);
}

/* The reason a dead or refused child gives, as a sentence (caller frees). */
static char *runner_why(struct runner *r, const struct lab_code_spec *s, const char *src_path)
{
    struct core_buf b;
    core_buf_init(&b);
    uint32_t st = atomic_load(&r->h->state);
    if (st == LAB_CODE_ST_TRAPPED && r->h->trap_sys >= 0) {
        char name[64];
        const char *m = lab_code_syscall_meaning(r->h->trap_sys, name, sizeof name);
        core_buf_printf(&b, "refused by the sandbox: %s (system call %s)", m, name);
        if (strcmp(name, "mmap") == 0)
            core_buf_printf(&b, ": %.1f GiB asked for, %.0f MiB allowed",
                            (double)r->h->trap_arg[1] / (1024.0 * 1024 * 1024),
                            s->mem_mib > 0 ? s->mem_mib : 256);
    } else if (st == LAB_CODE_ST_FAILED) {
        r->h->msg[sizeof r->h->msg - 1] = '\0';
        core_buf_printf(&b, "%s", r->h->msg);
    } else if (r->h->crash_sig > 0) {
        const char *ab = sigabbrev_np(r->h->crash_sig);
        core_buf_printf(&b, "crashed with SIG%s (%s)", ab ? ab : "?", strsignal(r->h->crash_sig));
        if (r->h->crash_sig == SIGSEGV || r->h->crash_sig == SIGBUS)
            core_buf_printf(&b, " at address %#llx", (unsigned long long)r->h->crash_addr);
        if (r->h->crash_pc) {
            /* under -g the line: addr2line on the object */
            char cmd[1400];
            snprintf(cmd, sizeof cmd, "addr2line -e '%s' %#llx 2>/dev/null", r->so_path,
                     (unsigned long long)r->h->crash_pc);
            FILE *p = strchr(r->so_path, '\'') ? NULL : popen(cmd, "r");
            char line[1024] = "";
            if (p) {
                if (!fgets(line, sizeof line, p))
                    line[0] = '\0';
                pclose(p);
                line[strcspn(line, "\n")] = '\0';
            }
            line[strcspn(line, " ")] = '\0'; /* "file:7 (discriminator 3)" */
            if (line[0] && line[0] != '?') {
                const char *colon = strrchr(line, ':');
                core_buf_printf(&b, ", in %s line %s", src_path, colon ? colon + 1 : line);
            }
        }
    } else if (r->dead && WIFSIGNALED(r->status)) {
        int sig = WTERMSIG(r->status);
        if (sig == SIGXCPU)
            core_buf_printf(&b, "stopped: it used more CPU time than the exercise allows");
        else if (sig == SIGSYS)
            /* a trap while SIGSYS was blocked: the kernel kills outright.
             * glibc blocks every signal only around clone: pthread_create,
             * posix_spawn */
            core_buf_printf(&b, "refused by the sandbox: starting a process or a thread "
                                "(pthread_create, posix_spawn) beyond what the exercise allows "
                                "(glibc blocks every signal around it, so the process was "
                                "killed outright)");
        else
            core_buf_printf(&b, "killed by signal %d (%s)", sig, strsignal(sig));
    } else if (r->dead && WIFEXITED(r->status)) {
        core_buf_printf(&b, "the process exited (status %d) instead of returning",
                        WEXITSTATUS(r->status));
    } else {
        core_buf_printf(&b, "stopped for an unknown reason");
    }
    return core_buf_steal(&b);
}

/* Starts a runner for the object at so_path. */
static int runner_start(struct runner *r, const struct lab_code_spec *s, const struct layout *l,
                        const char *so_path, struct core_err *err)
{
    memset(r, 0, sizeof *r);
    r->fd = -1;
    r->so_path = so_path;
    r->size = l->size;
    r->fd = memfd_create("wb-code", MFD_CLOEXEC);
    if (r->fd < 0)
        return core_err_set(err, CORE_ERR_IO, "memfd_create: %s", strerror(errno));
    if (ftruncate(r->fd, (off_t)l->size) != 0) {
        int e = errno;
        close(r->fd);
        r->fd = -1;
        return core_err_set(err, CORE_ERR_IO, "shared memory of %zu bytes: %s", l->size,
                            strerror(e));
    }
    r->base = mmap(NULL, l->size, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
    if (r->base == MAP_FAILED) {
        r->base = NULL;
        runner_kill(r);
        return core_err_set(err, CORE_ERR_IO, "mapping %zu bytes: %s", l->size, strerror(errno));
    }
    struct lab_code_shm *h = r->h = (struct lab_code_shm *)r->base;
    h->magic = LAB_CODE_MAGIC;
    h->trap_sys = -1;
    snprintf(h->so_path, sizeof h->so_path, "%s", so_path);
    snprintf(h->func, sizeof h->func, "%s", s->func);
    h->n_args = s->n_args;
    for (int i = 0; i < s->n_args; i++) {
        h->args[i].pointer = s->args[i].pointer;
        if (s->args[i].pointer) {
            h->args[i].off = l->off[i];
        } else {
            long v = 0;
            size_value(s, s->args[i].name, &v);
            h->args[i].ival = v;
        }
    }
    h->ret_elem = s->ret;
    h->ret_off = l->ret_off;
    h->threads = s->threads > 0 ? s->threads : 1;
    h->mem_limit = (uint64_t)mem_bytes(s);
    double calls = 2.0 * (s->reps > 0 ? s->reps : 3) + 4;
    h->cpu_limit_s = calls * (s->timeout_s > 0 ? s->timeout_s : 10) * h->threads + 5;
    h->size = l->size;
    char threads[32];
    snprintf(threads, sizeof threads, "OMP_NUM_THREADS=%d", h->threads);
    char *envp[] = {"OMP_WAIT_POLICY=passive", threads, "LC_ALL=C",
                    "ASAN_OPTIONS=detect_leaks=0:handle_segv=0:handle_sigbus=0:handle_sigfpe=0:"
                    "handle_abort=0:allocator_may_return_null=1",
                    NULL};
    pid_t pid = fork();
    if (pid < 0)
        return core_err_set(err, CORE_ERR_IO, "fork: %s", strerror(errno));
    if (pid == 0) {
        /* on descriptor 3 without close-on-exec (dup2 onto itself keeps the flag) */
        if (r->fd == 3 ? fcntl(3, F_SETFD, 0) < 0 : dup2(r->fd, 3) < 0)
            _exit(2);
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, 0);
            dup2(null, 1);
            dup2(null, 2);
        }
        char *argv[] = {"warpbench", LAB_CODE_CHILD_ARG, NULL};
        execve("/proc/self/exe", argv, envp);
        _exit(2);
    }
    r->pid = pid;
    /* until it is ready, failed, or dead */
    double deadline = now_s() + 30;
    for (;;) {
        uint32_t st = atomic_load(&h->state);
        if (st == LAB_CODE_ST_READY)
            return 0;
        if (st != LAB_CODE_ST_LOADING || runner_dead(r))
            return CORE_ERR_INVALID; /* the caller asks runner_why */
        if (now_s() > deadline) {
            kill(pid, SIGKILL);
            return core_err_set(err, CORE_ERR_IO, "the runner did not start within 30 s");
        }
        futex_wait_ms(&h->state, st, 10);
    }
}

enum call_end { CALL_OK, CALL_DIED, CALL_TIMEOUT, CALL_CANCELLED };

/* One call, timed by this process. Leaves the child stopped after it. */
static enum call_end runner_call(struct runner *r, double timeout_s, atomic_int *cancel,
                                 double *secs)
{
    struct lab_code_shm *h = r->h;
    uint32_t k = ++r->k;
    double cpu0 = child_cpu_s(r->pid);
    if (r->stopped) {
        kill(r->pid, SIGCONT);
        r->stopped = false;
    }
    double start = now_s();
    atomic_store(&h->cmd, 2 * k);
    futex_wake(&h->cmd);
    while (atomic_load(&h->ready) != 2 * k) {
        if (runner_dead(r))
            return CALL_DIED;
        if (now_s() - start > 30)
            return CALL_TIMEOUT;
        futex_wait_ms(&h->ready, atomic_load(&h->ready), 5);
    }
    /* spin without yielding for 50 us only: on a machine with fewer free
     * cores than the code's threads plus this one, a longer spin takes a
     * core from the code (measured: a 1 ms kernel then took 3x longer).
     * Nor may the parent spin for the ready answer above, or the whole call:
     * a child woken by this process is placed on its core (wake-affine), and
     * waits there while the parent spins (measured under a load of 15 on 2
     * cores: the harness's copy at 0.07x memcpy, against 0.64x this way) */
    const double spin_s = 50e-6;
    double cpu1 = child_cpu_s(r->pid);
    double t0 = now_s();
    atomic_store(&h->cmd, 2 * k + 1);
    double t1;
    for (long spin = 0;; spin++) {
        if (atomic_load(&h->done) == k) {
            t1 = now_s();
            break;
        }
        if ((spin & 255) == 0) {
            double t = now_s();
            /* after 50 us, give the core to whoever needs it (the child's
             * threads, on a busy machine) between looks */
            if (t - t0 > spin_s)
                sched_yield();
            if (t - t0 > 0.005) {
                if (runner_dead(r))
                    return CALL_DIED;
                if (t - t0 > timeout_s)
                    return CALL_TIMEOUT;
                if (cancel && atomic_load(cancel))
                    return CALL_CANCELLED;
                futex_wait_ms(&h->done, atomic_load(&h->done), 10);
            }
        }
        relax();
    }
    /* freeze it: nothing of the code's runs until the next call */
    kill(r->pid, SIGSTOP);
    int st;
    while (waitpid(r->pid, &st, WUNTRACED) < 0 && errno == EINTR)
        ;
    if (WIFEXITED(st) || WIFSIGNALED(st)) {
        r->status = st;
        r->dead = true;
        return CALL_DIED;
    }
    r->stopped = true;
    /* The inputs are in the mapping from the ping on: a runner slow to
     * answer it may be working on them before the clock starts (code that
     * never returned, having written `done` itself, resumes at SIGCONT
     * where it was), so a slow answer counts in the time. Slow is judged by
     * the CPU time the child used from before its SIGCONT to the start of
     * the call, which the kernel counts and the child cannot forge: a
     * runner that is merely waiting for a core (a busy machine: tens of
     * milliseconds at a load of 10 per core) uses microseconds of it, and
     * that wait is the machine's, not the code's. */
    bool slow = !(cpu1 - cpu0 <= LAB_CODE_READY_MAX_S);
    *secs = slow ? t1 - start : t1 - t0;
    r->last_s = *secs;
    return CALL_OK;
}

/* Threads of the child now (from /proc). */
static int runner_threads(const struct runner *r)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", (int)r->pid);
    DIR *d = opendir(path);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* ---- inputs and checks -------------------------------------------------------------------- */

static uint64_t mix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void fill(void *p, size_t n, const struct lab_code_arg *a, uint64_t *seed)
{
    double lo = a->lo, hi = a->hi;
    if (!(hi > lo))
        lo = -1, hi = 1;
    for (size_t i = 0; i < n; i++) {
        double u = (double)(mix(seed) >> 11) * 0x1.0p-53;
        double v = lo + u * (hi - lo);
        switch (a->elem) {
        case LAB_CODE_F32:
            ((float *)p)[i] = (float)v;
            break;
        case LAB_CODE_F64:
            ((double *)p)[i] = v;
            break;
        case LAB_CODE_I8:
            ((int8_t *)p)[i] = (int8_t)floor(lo + u * (hi - lo + 1));
            break;
        case LAB_CODE_I32:
            ((int32_t *)p)[i] = (int32_t)floor(lo + u * (hi - lo + 1));
            break;
        case LAB_CODE_I64:
            ((int64_t *)p)[i] = (int64_t)floor(lo + u * (hi - lo + 1));
            break;
        }
    }
}

static void poison(void *p, size_t n, enum lab_code_elem e)
{
    if (e == LAB_CODE_F32) {
        uint32_t x = 0x7fa5a5a5u;
        for (size_t i = 0; i < n; i++)
            memcpy((char *)p + 4 * i, &x, 4);
    } else if (e == LAB_CODE_F64) {
        uint64_t x = 0x7ff4a5a5a5a5a5a5ull;
        for (size_t i = 0; i < n; i++)
            memcpy((char *)p + 8 * i, &x, 8);
    } else {
        memset(p, 0xa5, n * lab_code_elem_size(e));
    }
}

static double elem_get(const void *p, size_t i, enum lab_code_elem e)
{
    switch (e) {
    case LAB_CODE_F32:
        return ((const float *)p)[i];
    case LAB_CODE_F64:
        return ((const double *)p)[i];
    case LAB_CODE_I8:
        return ((const int8_t *)p)[i];
    case LAB_CODE_I32:
        return ((const int32_t *)p)[i];
    case LAB_CODE_I64:
        return (double)((const int64_t *)p)[i];
    }
    return 0;
}

static bool is_poison(const void *p, size_t i, enum lab_code_elem e)
{
    size_t w = lab_code_elem_size(e);
    unsigned char want[8];
    poison(want, 1, e);
    return memcmp((const char *)p + i * w, want, w) == 0;
}

static bool close_enough(const struct lab_code_spec *s, enum lab_code_elem e, double got,
                         double want)
{
    if (e != LAB_CODE_F32 && e != LAB_CODE_F64)
        return got == want;
    if (isnan(want))
        return isnan(got);
    return isfinite(got) && fabs(got - want) <= s->atol + s->rtol * fabs(want);
}

/* Compares one output (got at p, want at w, n elements). Returns the index
 * of the first element beyond the allowed mismatches, or (size_t)-1. */
static size_t compare(const struct lab_code_spec *s, enum lab_code_elem e, const void *p,
                      const void *w, size_t n)
{
    size_t allowed = (size_t)floor((s->mismatch > 0 ? s->mismatch : 0) * (double)n);
    size_t bad = 0, first = (size_t)-1;
    for (size_t i = 0; i < n; i++)
        if (is_poison(p, i, e) || !close_enough(s, e, elem_get(p, i, e), elem_get(w, i, e))) {
            if (first == (size_t)-1)
                first = i;
            if (++bad > allowed || is_poison(p, i, e))
                return first;
        }
    return (size_t)-1;
}

static void fmt_elem(char *buf, size_t n, const void *p, size_t i, enum lab_code_elem e)
{
    if (is_poison(p, i, e))
        snprintf(buf, n, "never written");
    else if (e == LAB_CODE_F32 || e == LAB_CODE_F64)
        snprintf(buf, n, "%.9g", elem_get(p, i, e));
    else
        snprintf(buf, n, "%.0f", elem_get(p, i, e));
}

/* ---- the run ------------------------------------------------------------------------------ */

struct job {
    const struct lab_code_spec *s;
    const struct lab_code_opts *o;
    struct layout l;
    char dir[256];
    char ref_so[320], stu_so[320], ref_c[320];
    struct runner ref, stu;
    void *in[LAB_CODE_MAX_ARGS];       /* this call's inputs, private */
    void *want[LAB_CODE_MAX_ARGS + 1]; /* the expected outputs, private (last: return) */
    void *prev[LAB_CODE_MAX_ARGS + 1]; /* the call before's */
    double run_t0;
};

static void emit(const struct job *j, const char *series, long long step, double v)
{
    const struct lab_sink *k = j->o ? j->o->sink : NULL;
    if (k && k->sample) {
        struct core_sample smp = {
            .series = series, .step = step, .value = v, .t = now_s() - j->run_t0};
        k->sample(k->ud, &smp);
    }
}

static void log_line(const struct job *j, enum lab_log_level lv, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void log_line(const struct job *j, enum lab_log_level lv, const char *fmt, ...)
{
    const struct lab_sink *k = j->o ? j->o->sink : NULL;
    if (!k || !k->log)
        return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    k->log(k->ud, lv, line);
}

static size_t out_bytes(const struct job *j, int i)
{
    return i == j->s->n_args ? lab_code_elem_size((enum lab_code_elem)j->s->ret)
                             : j->l.count[i] * lab_code_elem_size(j->s->args[i].elem);
}

static bool is_out(const struct job *j, int i)
{
    return i == j->s->n_args ? j->s->ret >= 0 : j->s->args[i].pointer && j->s->args[i].output;
}

static char *out_ptr(const struct job *j, const struct runner *r, int i)
{
    return r->base + (i == j->s->n_args ? j->l.ret_off : j->l.off[i]);
}

/* Writes this call's inputs into r's mapping and poisons its outputs. */
static void load(struct job *j, struct runner *r)
{
    for (int i = 0; i <= j->s->n_args; i++) {
        if (i < j->s->n_args && j->s->args[i].pointer && !j->s->args[i].output)
            memcpy(r->base + j->l.off[i], j->in[i], out_bytes(j, i));
        else if (is_out(j, i))
            poison(out_ptr(j, r, i), i == j->s->n_args ? 1 : j->l.count[i],
                   i == j->s->n_args ? (enum lab_code_elem)j->s->ret : j->s->args[i].elem);
    }
}

static void job_fini(struct job *j)
{
    runner_kill(&j->ref);
    runner_kill(&j->stu);
    for (int i = 0; i <= LAB_CODE_MAX_ARGS; i++) {
        if (i < LAB_CODE_MAX_ARGS)
            free(j->in[i]);
        free(j->want[i]);
        free(j->prev[i]);
    }
    if (j->dir[0]) {
        DIR *d = opendir(j->dir);
        if (d) {
            struct dirent *e;
            while ((e = readdir(d)))
                if (e->d_name[0] != '.') {
                    char p[600];
                    snprintf(p, sizeof p, "%s/%s", j->dir, e->d_name);
                    unlink(p);
                }
            closedir(d);
        }
        rmdir(j->dir);
    }
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double lab_code_score(const struct lab_code_spec *s, bool correct, double f)
{
    if (!correct)
        return 0;
    double base = s->correct_share >= 0 && s->correct_share <= 1 ? s->correct_share : 0;
    if (s->n_bands == 0)
        return 1;
    /* the best band reached, linear between bands, 0 below the first */
    double got = 0;
    for (int i = 0; i < s->n_bands; i++) {
        if (f >= s->bands[i].fraction) {
            got = s->bands[i].score;
            if (i + 1 < s->n_bands && f < s->bands[i + 1].fraction) {
                double a = s->bands[i].fraction, b = s->bands[i + 1].fraction;
                got += (s->bands[i + 1].score - s->bands[i].score) * (f - a) / (b - a);
            }
        } else if (i == 0) {
            got = s->bands[0].fraction > 0 ? s->bands[0].score * f / s->bands[0].fraction : 0;
            break;
        }
    }
    if (got > 1)
        got = 1;
    return base + (1 - base) * got;
}

/* The roofline bound at an intensity (here, beside its one caller in this
 * file, so the run and the roofline lab call in one direction only). */
double lab_code_roof_bound(const struct lab_code_roof *r, double intensity)
{
    double mem = intensity * r->triad_gbs;
    return r->fma_gflops < mem || intensity <= 0 ? (intensity <= 0 ? 0 : r->fma_gflops) : mem;
}

void lab_code_result_fini(struct lab_code_result *r)
{
    if (!r)
        return;
    free(r->compile_log);
    free(r->message);
    free(r->first_wrong);
    memset(r, 0, sizeof *r);
}

/* Sets the result's message (takes ownership of msg). */
static void set_msg(struct lab_code_result *out, char *msg)
{
    free(out->message);
    out->message = msg;
}

/* Writes src to a new file at path. */
static int write_file(const char *path, const char *src, struct core_err *err)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return core_err_set(err, CORE_ERR_IO, "%s: %s", path, strerror(errno));
    size_t n = strlen(src);
    bool ok = write(fd, src, n) == (ssize_t)n;
    close(fd);
    return ok ? 0 : core_err_set(err, CORE_ERR_IO, "%s: write failed", path);
}

/* Checks the student's call `call` (1-based) against j->want. 0 when right. */
static int check_call(struct job *j, int call, bool inputs_only, struct lab_code_result *out)
{
    const struct lab_code_spec *s = j->s;
    /* inputs unchanged */
    for (int i = 0; i < s->n_args; i++) {
        if (!s->args[i].pointer || s->args[i].output)
            continue;
        const char *now = j->stu.base + j->l.off[i];
        if (memcmp(now, j->in[i], out_bytes(j, i)) != 0) {
            size_t w = lab_code_elem_size(s->args[i].elem), e = 0;
            while (e < j->l.count[i] && memcmp(now + e * w, (char *)j->in[i] + e * w, w) == 0)
                e++;
            char got[48], was[48];
            fmt_elem(got, sizeof got, now, e, s->args[i].elem);
            fmt_elem(was, sizeof was, j->in[i], e, s->args[i].elem);
            set_msg(out, core_xasprintf("call %d modified its input: %s[%zu] is %s, was given %s "
                                        "(inputs are const: the harness checks them after every "
                                        "call)",
                                        call, s->args[i].name, e, got, was));
            return -1;
        }
    }
    for (int i = 0; !inputs_only && i <= s->n_args; i++) {
        if (!is_out(j, i))
            continue;
        enum lab_code_elem e = i == s->n_args ? (enum lab_code_elem)s->ret : s->args[i].elem;
        size_t n = i == s->n_args ? 1 : j->l.count[i];
        const char *got = out_ptr(j, &j->stu, i);
        size_t bad = compare(s, e, got, j->want[i], n);
        if (bad == (size_t)-1)
            continue;
        char g[48], w[48], where[64];
        fmt_elem(g, sizeof g, got, bad, e);
        fmt_elem(w, sizeof w, j->want[i], bad, e);
        if (i == s->n_args)
            snprintf(where, sizeof where, "the return value");
        else
            snprintf(where, sizeof where, "%s[%zu]", s->args[i].name, bad);
        free(out->first_wrong);
        struct core_buf b;
        core_buf_init(&b);
        core_buf_printf(&b, "%s = %s, expected %s", where, g, w);
        out->first_wrong = core_buf_steal(&b);
        /* why, when we can tell */
        const char *why = "";
        if (call > 1 && j->prev[i] && compare(s, e, got, j->prev[i], n) == (size_t)-1)
            why = " — it is the answer of the call before: outputs cached across calls (every "
                  "call gets fresh inputs)";
        else if (is_poison(got, bad, e))
            why = " — the output was not written before the function returned (work left "
                  "running after the return is stopped before the check)";
        set_msg(out, core_xasprintf("wrong result on call %d: %s%s", call, out->first_wrong, why));
        return -1;
    }
    return 0;
}

int lab_code_run(const struct lab_code_spec *s, const char *student_path,
                 const struct lab_code_opts *o, struct lab_code_result *out, struct core_err *err)
{
    memset(out, 0, sizeof *out);
    struct job j;
    memset(&j, 0, sizeof j);
    j.s = s;
    j.o = o;
    j.ref.fd = j.stu.fd = -1;
    j.run_t0 = now_s();
    int rc = lab_code_spec_check(s, err);
    if (rc != 0)
        return rc;
    layout_make(s, &j.l, err);
    lab_code_expr(s->flops, s, &out->flops, err);
    lab_code_expr(s->bytes, s, &out->bytes, err);
    out->intensity = out->bytes > 0 ? out->flops / out->bytes : 0;
    if (access(student_path, R_OK) != 0)
        return core_err_set(err, CORE_ERR_NOTFOUND, "%s: %s", student_path, strerror(errno));

    const char *tmp = getenv("TMPDIR");
    snprintf(j.dir, sizeof j.dir, "%s/wb-code.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(j.dir)) {
        j.dir[0] = '\0';
        return core_err_set(err, CORE_ERR_IO, "a private temporary directory: %s", strerror(errno));
    }
    snprintf(j.ref_c, sizeof j.ref_c, "%s/reference.c", j.dir);
    snprintf(j.ref_so, sizeof j.ref_so, "%s/reference.so", j.dir);
    snprintf(j.stu_so, sizeof j.stu_so, "%s/code.so", j.dir);
    char *log = NULL;
    bool noref = o && o->no_reference;
    if (noref)
        goto compile_student;
    if ((rc = write_file(j.ref_c, s->reference ? s->reference : "", err)) != 0)
        goto out;
    rc = lab_code_compile(j.ref_c, j.ref_so, s->flags, &log, err);
    if (rc == 0)
        rc = lab_code_elf_check(j.ref_so, mem_bytes(s), err);
    if (rc != 0) {
        if (log)
            core_err_set(err, rc, "%s: the exercise's reference does not build: %s", s->id, log);
        else
            core_err_set(err, rc, "%s: the exercise's reference: %s", s->id, err->msg);
        free(log);
        goto out;
    }
    free(log);
    log = NULL;
compile_student:;
    struct core_err ce = {0};
    log_line(&j, LAB_LOG_INFO, "compiling %s", student_path);
    int crc = lab_code_compile(student_path, j.stu_so, s->flags, &out->compile_log, &ce);
    if (crc == CORE_ERR_INVALID) {
        set_msg(out, core_xstrdup(ce.msg));
        rc = 0;
        goto out;
    }
    if (crc != 0) {
        *err = ce;
        rc = crc;
        goto out;
    }
    out->compiled = true;
    if (lab_code_elf_check(j.stu_so, mem_bytes(s), &ce) != 0) {
        set_msg(out, core_xstrdup(ce.msg));
        goto out;
    }

    if (!noref && (rc = runner_start(&j.ref, s, &j.l, j.ref_so, err)) != 0) {
        if (rc == CORE_ERR_INVALID) {
            char *why = runner_why(&j.ref, s, j.ref_c);
            core_err_set(err, CORE_ERR_INVALID, "%s: the reference's runner: %s", s->id, why);
            free(why);
        }
        goto out;
    }
    if ((rc = runner_start(&j.stu, s, &j.l, j.stu_so, err)) != 0) {
        if (rc == CORE_ERR_INVALID) {
            char *why = runner_why(&j.stu, s, student_path);
            set_msg(out, why);
            rc = 0;
        }
        goto out;
    }

    uint64_t seed = 0;
    if (getrandom(&seed, sizeof seed, 0) != sizeof seed)
        seed = (uint64_t)(now_s() * 1e9) ^ (uint64_t)getpid();
    for (int i = 0; i < s->n_args; i++)
        if (s->args[i].pointer && !s->args[i].output)
            j.in[i] = core_xmalloc(out_bytes(&j, i));
    for (int i = 0; i <= s->n_args; i++)
        if (is_out(&j, i)) {
            j.want[i] = core_xmalloc(out_bytes(&j, i));
            j.prev[i] = core_xmalloc(out_bytes(&j, i));
        }
    int reps = s->reps > 0 ? s->reps : 3;
    double timeout = s->timeout_s > 0 ? s->timeout_s : 10;
    double *ts = core_xmalloc(sizeof(double) * (size_t)reps);
    double *rs = core_xmalloc(sizeof(double) * (size_t)reps);
    int nt = 0, nr = 0;
    for (int call = 1; call <= reps + 1; call++) {
        if (o && o->cancel && atomic_load(o->cancel)) {
            rc = core_err_set(err, CORE_ERR_CANCELLED, "cancelled");
            break;
        }
        /* fresh inputs */
        for (int i = 0; i < s->n_args; i++)
            if (j.in[i])
                fill(j.in[i], j.l.count[i], &s->args[i], &seed);
        for (int i = 0; i <= s->n_args; i++)
            if (j.want[i])
                memcpy(j.prev[i], j.want[i], out_bytes(&j, i));
        /* the reference's answer */
        double t = 0;
        enum call_end e = CALL_OK;
        if (!noref) {
            load(&j, &j.ref);
            e = runner_call(&j.ref, timeout * 100, o ? o->cancel : NULL, &t);
        }
        if (e != CALL_OK) {
            char *why = e == CALL_DIED ? runner_why(&j.ref, s, j.ref_c) : strdup("too slow");
            rc = e == CALL_CANCELLED ? core_err_set(err, CORE_ERR_CANCELLED, "cancelled")
                                     : core_err_set(err, CORE_ERR_INVALID,
                                                    "%s: the reference failed: %s", s->id, why);
            free(why);
            break;
        }
        if (!noref && call > 1 && !(o && o->skip_reference_timing && nr > 0)) {
            rs[nr++] = t;
            emit(&j, "reference_ms", call - 1, t * 1e3);
        }
        for (int i = 0; !noref && i <= s->n_args; i++)
            if (j.want[i])
                memcpy(j.want[i], out_ptr(&j, &j.ref, i), out_bytes(&j, i));
        /* the student's */
        load(&j, &j.stu);
        e = runner_call(&j.stu, timeout, o ? o->cancel : NULL, &t);
        if (e == CALL_CANCELLED) {
            rc = core_err_set(err, CORE_ERR_CANCELLED, "cancelled");
            break;
        }
        if (e == CALL_TIMEOUT) {
            set_msg(out,
                    core_xasprintf("call %d did not return within %g s (an endless loop?): stopped",
                                   call, timeout));
            break;
        }
        if (e == CALL_DIED) {
            char *why = runner_why(&j.stu, s, student_path);
            set_msg(out, core_xasprintf("call %d: %s", call, why));
            free(why);
            break;
        }
        int threads = runner_threads(&j.stu);
        if (threads > (s->threads > 0 ? s->threads : 1)) {
            set_msg(out, core_xasprintf("call %d left %d threads behind; the exercise allows %d",
                                        call, threads, s->threads > 0 ? s->threads : 1));
            break;
        }
        if (check_call(&j, call, noref, out) != 0)
            break;
        out->calls = call;
        if (o && o->on_call) {
            const void *outs[LAB_CODE_MAX_ARGS + 1] = {0};
            for (int i = 0; i <= s->n_args; i++)
                if (is_out(&j, i))
                    outs[i] = out_ptr(&j, &j.stu, i);
            o->on_call(o->ud, call, t, outs);
        }
        if (call > 1) {
            ts[nt++] = t;
            emit(&j, "call_ms", call - 1, t * 1e3);
            if (t > 0)
                emit(&j, "gflops", call - 1, out->flops / t * 1e-9);
            if (t > 0 && out->bytes > 0)
                emit(&j, "gbs", call - 1, out->bytes / t * 1e-9);
        }
        if (o && o->sink && o->sink->progress)
            o->sink->progress(o->sink->ud, (double)call / (reps + 1), "timed calls");
    }
    if (rc == 0 && !out->message && nt == reps) {
        out->correct = true;
        qsort(ts, (size_t)nt, sizeof *ts, cmp_d);
        qsort(rs, (size_t)nr, sizeof *rs, cmp_d);
        out->t_median_s = ts[nt / 2];
        out->t_min_s = ts[0];
        out->spread_pct = ts[nt / 2] > 0 ? 100 * (ts[nt - 1] - ts[0]) / ts[nt / 2] : 0;
        out->ref_median_s = nr ? rs[nr / 2] : 0;
        /* the best call counts: on a shared machine the least disturbed
         * call is the closest to what the code can do (the median and the
         * spread are reported beside it) */
        double t = out->t_min_s > 0 ? out->t_min_s : out->t_median_s;
        out->gflops = out->flops / t * 1e-9;
        out->gbs = out->bytes / t * 1e-9;
        out->ref_min_s = nr ? rs[0] : 0;
        out->speedup = out->ref_min_s > 0 ? out->ref_min_s / t : 0;
        const struct lab_code_roof *roof = o ? o->roof : NULL;
        if (roof) {
            double peak = roof->fma_gflops * 1e9, bw = roof->triad_gbs * 1e9;
            double t_roof = fmax(peak > 0 ? out->flops / peak : 0, bw > 0 ? out->bytes / bw : 0);
            out->roofline_fraction = t_roof / t;
            out->roof_gflops = lab_code_roof_bound(roof, out->intensity);
        }
        out->score = lab_code_score(s, true, out->roofline_fraction);
    }
    free(ts);
    free(rs);
out:
    job_fini(&j);
    return rc;
}
