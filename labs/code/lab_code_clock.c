/*
 * lab_code_clock.c — the clock the cores run at now, measured: a chain of
 * dependent register-to-register integer adds, one cycle each on every
 * x86-64 and AArch64 core, timed with the monotonic clock on every core at
 * once (the FMA peak it serves as the theory of runs on all of them, and a
 * turbo clock depends on how many cores are busy). The nominal clock
 * /proc/cpuinfo gives is the base clock, not the turbo one the cores run
 * at (2.1 GHz here, against 2.9-3.0 measured).
 *
 * Why register adds: the chain of `add $1, %reg` the textbooks use is
 * folded by newer renamers (Golden Cove and later fuse dependent
 * immediate adds: measured 13-17 "GHz" on this Sapphire/Emerald Rapids
 * VM), while `add %rcx, %rax` with rcx unknown cannot be, and agrees with
 * a chain of `imul` (3 cycles each) to within 2 %.
 *
 * Each core times runs of about a millisecond, on its thread's CPU time
 * (the time it waits for a core does not count), for a few tens of
 * milliseconds of wall time and keeps its fastest: a disturbed run (an
 * interrupt, a virtual CPU its host deschedules, where the guest counts
 * that as running) can only look slower, never faster, so the fastest is
 * the least disturbed.
 *
 * Uses pthreads and the scheduler's affinity calls; nothing of the harness.
 */
#define _GNU_SOURCE /* pthread_setaffinity_np, CPU_SET */
#include "labs/code/lab_code_internal.h"

#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The CPU time of the calling thread: a run is timed on it, so the time
 * the thread waits for a core (a busy machine: a load of 17 on 2 cores
 * left no run of 1 ms undisturbed in 20 ms of wall time) does not count. */
static double cpu_s(void)
{
    struct timespec t;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) != 0)
        return now_s();
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

#define ADDS_PER_ITER 64
#define R8(x) x x x x x x x x

/* One timed run of `iters` x 64 dependent adds: the adds per nanosecond
 * (GHz), 0 where this architecture has no chain here. */
static double chain_ghz(long iters)
{
#if defined(__x86_64__) || defined(__aarch64__)
    long v = 0, k = iters & 1 ? 3 : 5; /* a value the compiler cannot know */
    double t0 = cpu_s();
    for (long i = 0; i < iters; i++) {
#if defined(__x86_64__)
        __asm__ volatile(R8(R8("add %1, %0\n\t")) : "+r"(v) : "r"(k));
#else
        __asm__ volatile(R8(R8("add %0, %0, %1\n\t")) : "+r"(v) : "r"(k));
#endif
    }
    double t = cpu_s() - t0;
    return t > 0 ? (double)iters * ADDS_PER_ITER / t * 1e-9 : 0;
#else
    (void)iters;
    return 0;
#endif
}

struct clock_job {
    int cpu; /* -1: not pinned */
    double budget_s;
    double ghz;
};

static void *clock_main(void *p)
{
    struct clock_job *j = p;
    if (j->cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(j->cpu, &set);
        pthread_setaffinity_np(pthread_self(), sizeof set, &set); /* best effort */
    }
    /* about 1 ms a run at 3 GHz; the first run also wakes the core up */
    const long iters = 50000;
    double end = now_s() + j->budget_s, best = 0;
    int runs = 0;
    while (runs < 3 || (now_s() < end && runs < 1000)) {
        double g = chain_ghz(iters);
        if (g > best)
            best = g;
        runs++;
    }
    j->ghz = best;
    return NULL;
}

double lab_code_clock_ghz(int cores, double budget_s, double *per_core)
{
    if (cores < 1)
        cores = 1;
    if (cores > LAB_CODE_CLOCK_MAX_CORES)
        cores = LAB_CODE_CLOCK_MAX_CORES;
    /* the CPUs this process may run on, one thread on each of the first `cores` */
    cpu_set_t allowed;
    int cpus[LAB_CODE_CLOCK_MAX_CORES], n = 0;
    if (sched_getaffinity(0, sizeof allowed, &allowed) == 0)
        for (int c = 0; c < CPU_SETSIZE && n < cores; c++)
            if (CPU_ISSET(c, &allowed))
                cpus[n++] = c;
    struct clock_job jobs[LAB_CODE_CLOCK_MAX_CORES];
    pthread_t th[LAB_CODE_CLOCK_MAX_CORES];
    bool started[LAB_CODE_CLOCK_MAX_CORES] = {false};
    for (int i = 0; i < cores; i++) {
        jobs[i] = (struct clock_job){.cpu = i < n ? cpus[i] : -1, .budget_s = budget_s};
        if (i > 0)
            started[i] = pthread_create(&th[i], NULL, clock_main, &jobs[i]) == 0;
    }
    /* this thread measures on the first CPU, then returns to where it may run */
    clock_main(&jobs[0]);
    if (n > 0)
        sched_setaffinity(0, sizeof allowed, &allowed);
    double sum = 0;
    int got = 0;
    for (int i = 0; i < cores; i++) {
        if (i > 0 && started[i])
            pthread_join(th[i], NULL);
        else if (i > 0)
            jobs[i].ghz = 0;
        if (per_core)
            per_core[i] = jobs[i].ghz;
        if (jobs[i].ghz > 0) {
            sum += jobs[i].ghz;
            got++;
        }
    }
    return got ? sum / got : 0;
}
