/*
 * lab_code_child.c — the harness's child: `warpbench __code-child`, exec'd
 * fresh by lab_code_run.c with the shared mapping on descriptor 3. It loads
 * the compiled object (whose ELF was checked: no constructor of the
 * student's runs here), installs its crash handlers, closes every
 * descriptor, sets its rlimits and PR_SET_NO_NEW_PRIVS, installs the
 * seccomp allow-list, and then calls the function whenever the parent
 * says, forever; the parent kills it at the end.
 *
 * The allow-list (default: trap, which the SIGSYS handler reports):
 * memory (mmap up to the exercise's limit, munmap, mremap, mprotect,
 * madvise, brk), futex, the clocks and sleeps, exit, signal masks and
 * returns, sched_yield/getaffinity, getpid/gettid, tgkill of itself
 * (abort), rseq and robust lists, and clone with CLONE_THREAD only when the
 * exercise allows threads. No open, exec, fork, socket, rt_sigaction, read
 * or write: the code has no descriptor to read or write anyway.
 *
 * Uses libseccomp and the shared header of lab_code_internal.h.
 */
#define _GNU_SOURCE /* memfd_create, pipe2, dladdr, REG_RIP, close_range, sigabbrev_np */
#include "labs/code/lab_code_internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

static struct lab_code_shm *H;
static uintptr_t so_base;

static void fail(const char *fmt, const char *a)
{
    if (H) {
        snprintf(H->msg, sizeof H->msg, fmt, a ? a : "");
        atomic_store(&H->state, LAB_CODE_ST_FAILED);
    }
    _exit(3);
}

static uint64_t pc_of(void *uc)
{
    ucontext_t *u = uc;
#if defined(__x86_64__)
    return (uint64_t)u->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    return (uint64_t)u->uc_mcontext.pc;
#else
    (void)u;
    return 0;
#endif
}

/* Fatal signals and refused system calls: say what and where, then die. */
static void on_fatal(int sig, siginfo_t *si, void *uc)
{
    if (sig == SIGSYS) {
        H->trap_sys = si->si_syscall;
#if defined(__x86_64__)
        ucontext_t *u = uc;
        H->trap_arg[0] = (uint64_t)u->uc_mcontext.gregs[REG_RDI];
        H->trap_arg[1] = (uint64_t)u->uc_mcontext.gregs[REG_RSI];
#endif
        atomic_store(&H->state, LAB_CODE_ST_TRAPPED);
        syscall(SYS_exit_group, 4);
    }
    H->crash_sig = sig;
    uint64_t pc = pc_of(uc);
    H->crash_pc = pc >= so_base ? pc - so_base : 0;
    H->crash_addr = (uint64_t)(uintptr_t)si->si_addr;
    syscall(SYS_exit_group, 5);
}

static void install_handlers(void)
{
    static char altstack[64 * 1024];
    stack_t ss = {.ss_sp = altstack, .ss_size = sizeof altstack};
    sigaltstack(&ss, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fatal;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigfillset(&sa.sa_mask);
    int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGSYS, SIGTRAP};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaction(sigs[i], &sa, NULL);
}

static void limits(void)
{
    struct rlimit r;
    r.rlim_cur = r.rlim_max = (rlim_t)(H->cpu_limit_s > 1 ? H->cpu_limit_s : 1);
    setrlimit(RLIMIT_CPU, &r);
    r.rlim_cur = r.rlim_max = 0;
    setrlimit(RLIMIT_FSIZE, &r);
    setrlimit(RLIMIT_CORE, &r);
    if (H->threads <= 1)
        setrlimit(RLIMIT_NPROC, &r);
#ifndef UNDER_ASAN
    /* what is mapped now (the image, the arguments) plus what the code may add */
    long pages = 0, page = sysconf(_SC_PAGESIZE);
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld", &pages) != 1)
            pages = 0;
        fclose(f);
    }
    r.rlim_cur = r.rlim_max =
        (rlim_t)pages * (rlim_t)page + H->mem_limit + (rlim_t)H->threads * (rlim_t)(16u << 20);
    setrlimit(RLIMIT_AS, &r);
#endif
    r.rlim_cur = r.rlim_max = 0;
    setrlimit(RLIMIT_NOFILE, &r);
}

static void sandbox(void)
{
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        fail("PR_SET_NO_NEW_PRIVS: %s", strerror(errno));
    scmp_filter_ctx c = seccomp_init(SCMP_ACT_TRAP);
    if (!c)
        fail("seccomp_init failed%s", NULL);
    static const char *const calls[] = {"munmap",
                                        "mremap",
                                        "mprotect",
                                        "madvise",
                                        "brk",
                                        "futex",
                                        "futex_waitv",
                                        "clock_gettime",
                                        "clock_getres",
                                        "gettimeofday",
                                        "time",
                                        "nanosleep",
                                        "clock_nanosleep",
                                        "exit",
                                        "exit_group",
                                        "rt_sigreturn",
                                        "rt_sigprocmask",
                                        "sigaltstack",
                                        "sched_yield",
                                        "sched_getaffinity",
                                        "getpid",
                                        "gettid",
                                        "getrusage",
                                        "rseq",
                                        "set_robust_list",
                                        "get_robust_list",
                                        "membarrier",
                                        "getrandom",
                                        "restart_syscall",
                                        "set_tid_address",
                                        "sysinfo",
                                        "getcpu",
                                        "sched_getparam",
                                        "sched_getscheduler",
                                        "arch_prctl",
                                        "uname"};
    int rc = 0;
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        int nr = seccomp_syscall_resolve_name(calls[i]);
        if (nr != __NR_SCMP_ERROR)
            rc |= seccomp_rule_add(c, SCMP_ACT_ALLOW, nr, 0);
    }
    /* mmap within the exercise's limit (the arguments are mapped already) */
    rc |= seccomp_rule_add(c, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 1,
                           SCMP_A1(SCMP_CMP_LE, (scmp_datum_t)H->mem_limit));
    /* glibc's first pthread_create sets the actions of its own two signals
     * (SIGCANCEL, SIGSETXID: 32 and 33); no other handler is allowed */
    rc |= seccomp_rule_add(c, SCMP_ACT_ALLOW, SCMP_SYS(rt_sigaction), 1, SCMP_A0(SCMP_CMP_EQ, 32));
    rc |= seccomp_rule_add(c, SCMP_ACT_ALLOW, SCMP_SYS(rt_sigaction), 1, SCMP_A0(SCMP_CMP_EQ, 33));
    /* abort() signals itself */
    rc |= seccomp_rule_add(c, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 1,
                           SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)getpid()));
    if (H->threads > 1) {
        /* below the harness: when the code's threads and this process want
         * the same cores, the parent is scheduled first, so it sees the
         * return (and stops the child) at once, before a thread left
         * running could finish the outputs */
        if (setpriority(PRIO_PROCESS, 0, 5) != 0)
            fail("setpriority: %s", strerror(errno));
        rc |= seccomp_rule_add(c, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1,
                               SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD));
        /* glibc falls back to clone, whose flags a filter can read */
        rc |= seccomp_rule_add(c, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
    }
    if (rc != 0)
        fail("seccomp: a rule was refused%s", NULL);
    if (seccomp_load(c) != 0)
        fail("seccomp_load failed%s", NULL);
    seccomp_release(c);
}

static void wait_word(_Atomic uint32_t *w, uint32_t old)
{
    syscall(SYS_futex, (uint32_t *)w, FUTEX_WAIT, old, NULL, NULL, 0);
}

static void wake_word(_Atomic uint32_t *w)
{
    syscall(SYS_futex, (uint32_t *)w, FUTEX_WAKE, 1 << 30, NULL, NULL, 0);
}

static inline void relax(void)
{
#if defined(__x86_64__)
    __builtin_ia32_pause();
#endif
}

typedef long A;
#define CALL(T, f, n, v)                                                                           \
    (n == 0   ? ((T(*)(void))f)()                                                                  \
     : n == 1 ? ((T(*)(A))f)(v[0])                                                                 \
     : n == 2 ? ((T(*)(A, A))f)(v[0], v[1])                                                        \
     : n == 3 ? ((T(*)(A, A, A))f)(v[0], v[1], v[2])                                               \
     : n == 4 ? ((T(*)(A, A, A, A))f)(v[0], v[1], v[2], v[3])                                      \
     : n == 5 ? ((T(*)(A, A, A, A, A))f)(v[0], v[1], v[2], v[3], v[4])                             \
     : n == 6 ? ((T(*)(A, A, A, A, A, A))f)(v[0], v[1], v[2], v[3], v[4], v[5])                    \
     : n == 7 ? ((T(*)(A, A, A, A, A, A, A))f)(v[0], v[1], v[2], v[3], v[4], v[5], v[6])           \
              : ((T(*)(A, A, A, A, A, A, A, A))f)(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]))

/* One call of the student's function with the arguments in the mapping. */
static void call_once(void *fn, char *base)
{
    A v[LAB_CODE_MAX_ARGS];
    int n = H->n_args;
    for (int i = 0; i < n; i++)
        v[i] = H->args[i].pointer ? (A)(uintptr_t)(base + H->args[i].off) : (A)H->args[i].ival;
    void *r = base + H->ret_off;
    switch (H->ret_elem) {
    case LAB_CODE_F32:
        *(float *)r = CALL(float, fn, n, v);
        break;
    case LAB_CODE_F64:
        *(double *)r = CALL(double, fn, n, v);
        break;
    case LAB_CODE_I32:
        *(int32_t *)r = CALL(int32_t, fn, n, v);
        break;
    case LAB_CODE_I64:
        *(int64_t *)r = CALL(int64_t, fn, n, v);
        break;
    case LAB_CODE_I8:
        *(int8_t *)r = CALL(int8_t, fn, n, v);
        break;
    default:
        CALL(void, fn, n, v);
        break;
    }
}

_Noreturn void lab_code_child_main(void)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    struct stat st;
    if (fstat(3, &st) != 0 || st.st_size < (off_t)sizeof(struct lab_code_shm))
        _exit(2);
    char *base = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, 3, 0);
    if (base == MAP_FAILED)
        _exit(2);
    H = (struct lab_code_shm *)base;
    if (H->magic != LAB_CODE_MAGIC)
        _exit(2);
    H->trap_sys = -1;
    void *so = dlopen(H->so_path, RTLD_NOW | RTLD_LOCAL);
    if (!so)
        fail("loading the compiled code: %s", dlerror());
    dlerror();
    void *fn = dlsym(so, H->func);
    if (!fn)
        fail("the code does not define the function %s", H->func);
    Dl_info di;
    if (dladdr(fn, &di) && di.dli_fbase)
        so_base = (uintptr_t)di.dli_fbase;
    install_handlers();
    limits();
    /* no descriptor but the mapping (which needs none once mapped) */
    if (syscall(SYS_close_range, 0u, ~0u, 0u) != 0)
        for (int fd = 0; fd < 65536; fd++)
            close(fd);
    sandbox();
    atomic_store(&H->state, LAB_CODE_ST_READY);
    wake_word(&H->state);
    for (uint32_t k = 1;; k++) {
        /* wait for "are you running?" (2k) and answer it, then spin for "go" (2k+1) */
        for (;;) {
            uint32_t c = atomic_load(&H->cmd);
            if (c == 2 * k + 1)
                break;
            if (c == 2 * k && atomic_load(&H->ready) != 2 * k) {
                atomic_store(&H->ready, 2 * k);
                wake_word(&H->ready);
                for (long spin = 0; spin < 50000000L && atomic_load(&H->cmd) == 2 * k; spin++)
                    relax();
                continue;
            }
            wait_word(&H->cmd, c);
        }
        call_once(fn, base);
        atomic_store(&H->done, k);
        wake_word(&H->done);
    }
}
