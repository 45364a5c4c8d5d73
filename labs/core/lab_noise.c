/*
 * lab_noise.c — how far a run's numbers can be trusted: the spread of its
 * repeated measurements, and how busy the machine was while it ran.
 *
 * The machine's load is measured, not guessed from the load average: at the
 * start and the end of a run, /proc/stat gives the busy and total ticks of
 * the CPUs this process may run on (its affinity), and getrusage gives the
 * CPU time of this process and its reaped children (lab_run reaps every
 * worker before the end sample). What the CPUs did beyond our own work is
 * other programs' — a build, a browser, another student's job — and that is
 * what makes a speedup or a bandwidth lie. The 1-minute load average is
 * recorded beside it for people (it includes our own workers and lags a
 * minute, so it does not decide anything); steal is recorded where the
 * kernel reports it (a virtual machine whose host is busy).
 *
 * The verdict, lab_noise_assess, is pure: tests drive it with numbers.
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_ISSET */
#include "labs/core/lab_noise.h"

#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

/* ---- sampling ----------------------------------------------------------------- */

static double tv_s(struct timeval t)
{
    return (double)t.tv_sec + (double)t.tv_usec / 1e6;
}

void lab_cpu_sample_take(struct lab_cpu_sample *s)
{
    memset(s, 0, sizeof *s);
    struct rusage self, kids;
    if (getrusage(RUSAGE_SELF, &self) == 0 && getrusage(RUSAGE_CHILDREN, &kids) == 0)
        s->own_s =
            tv_s(self.ru_utime) + tv_s(self.ru_stime) + tv_s(kids.ru_utime) + tv_s(kids.ru_stime);
    cpu_set_t set;
    bool have_set = sched_getaffinity(0, sizeof set, &set) == 0;
    FILE *f = fopen("/proc/stat", "r");
    if (!f)
        return;
    char line[512];
    bool any = false;
    while (fgets(line, sizeof line, f)) {
        int cpu;
        if (strncmp(line, "cpu", 3) != 0 || sscanf(line + 3, "%d", &cpu) != 1)
            continue; /* the "cpu " total line, and the lines after the CPUs */
        if (have_set && (cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &set)))
            continue;
        unsigned long long v[8] = {0};
        const char *p = line + 3;
        while (*p && *p != ' ')
            p++;
        int n = sscanf(p, "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                       &v[4], &v[5], &v[6], &v[7]);
        if (n < 4)
            continue;
        /* user nice system idle iowait irq softirq steal (guest time is
         * already inside user) */
        s->busy += v[0] + v[1] + v[2] + v[5] + v[6];
        s->total += v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
        s->steal += v[7];
        s->has_steal = s->has_steal || n >= 8;
        s->cpus++;
        any = true;
    }
    fclose(f);
    s->ok = any;
}

void lab_noise_cpu(const struct lab_cpu_sample *a, const struct lab_cpu_sample *b,
                   double ticks_per_s, struct lab_noise *n)
{
    n->other_cpu = NAN;
    n->steal = NAN;
    if (!a->ok || !b->ok || b->total <= a->total || !(ticks_per_s > 0))
        return;
    double total = (double)(b->total - a->total);
    double busy = b->busy >= a->busy ? (double)(b->busy - a->busy) : 0;
    double own = (b->own_s - a->own_s) * ticks_per_s;
    if (!(own > 0))
        own = 0;
    double other = (busy - own) / total;
    n->other_cpu = other < 0 ? 0 : other > 1 ? 1 : other;
    if (a->has_steal && b->has_steal) {
        double st = b->steal >= a->steal ? (double)(b->steal - a->steal) : 0;
        n->steal = st / total;
    }
}

/* ---- the verdict ----------------------------------------------------------------- */

void lab_noise_assess(struct lab_noise *n)
{
    bool other = isfinite(n->other_cpu) && n->other_cpu > LAB_NOISE_BUSY;
    bool steal = isfinite(n->steal) && n->steal > LAB_NOISE_STEAL;
    n->busy = other || steal;
    n->wide = isfinite(n->spread) && n->spread > LAB_NOISE_SPREAD;
    n->noisy = n->busy || n->wide;
    char *t = n->text;
    size_t sz = sizeof n->text;
    if (!n->noisy) {
        snprintf(t, sz, "quiet");
        return;
    }
    size_t len = 0;
#define ADD(...)                                                                                   \
    do {                                                                                           \
        if (len < sz) {                                                                            \
            int k_ = snprintf(t + len, sz - len, __VA_ARGS__);                                     \
            len += k_ > 0 ? (size_t)k_ : 0;                                                        \
        }                                                                                          \
    } while (0)
    t[0] = '\0';
    if (n->busy) {
        ADD("measured under load:");
        if (other)
            ADD(" other programs used %.0f%% of the %s", 100 * n->other_cpu,
                n->cpus == 1 ? "CPU it ran on" : "CPUs it ran on");
        if (steal)
            ADD("%s the hypervisor took %.0f%% (steal)", other ? ";" : "", 100 * n->steal);
        if (isfinite(n->loadavg) && n->cores > 0)
            ADD("; load average %.1f on %d core%s", n->loadavg, n->cores, n->cores == 1 ? "" : "s");
    }
    if (n->wide) {
        /* Seconds as people read them, both ends in the unit of the larger:
         * "69.1 to 99.6 µs", not "6.91e-05 to 9.96e-05 s". */
        const char *unit = n->spread_unit;
        double scale = 1;
        if (strcmp(unit, "s") == 0) {
            static const char *const tu[] = {"s", "ms", "µs", "ns"};
            int q = 0;
            double big = fmax(fabs(n->spread_min), fabs(n->spread_max));
            while (big > 0 && big * scale < 0.9995 && q < 3) {
                scale *= 1000;
                q++;
            }
            unit = tu[q];
        }
        char lo[32], hi[32];
        core_num_human(lo, sizeof lo, n->spread_min * scale, NULL, 3, 0);
        core_num_human(hi, sizeof hi, n->spread_max * scale, NULL, 3, 0);
        ADD("%s%s varied by %.0f%% over %d repetitions (%s%s to %s%s%s)",
            n->busy ? "; " : "wide spread: ", n->spread_what, 100 * n->spread, n->spread_n,
            n->spread_trimmed ? "10th to 90th percentile " : "", lo, hi, unit[0] ? " " : "", unit);
    }
#undef ADD
}

/* ---- repeated measurements ---------------------------------------------------------- */

#define REPEAT_NAMES 64
#define REPEAT_VALUES 4096

struct lab_repeats {
    struct {
        char *what;
        char *unit;
        double *v;
        size_t n;
        bool ranged; /* given as min, median, max of n_range (lab_repeats_range) */
        double min, med, max;
        int n_range;
    } name[REPEAT_NAMES];
    size_t n;
};

struct lab_repeats *lab_repeats_new(void)
{
    return core_xcalloc(1, sizeof(struct lab_repeats));
}

void lab_repeats_free(struct lab_repeats *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n; i++) {
        free(r->name[i].what);
        free(r->name[i].unit);
        free(r->name[i].v);
    }
    free(r);
}

/* The entry of `what`, added when new; -1 when the store is full. */
static int slot(struct lab_repeats *r, const char *what, const char *unit)
{
    size_t i = 0;
    while (i < r->n && strcmp(r->name[i].what, what) != 0)
        i++;
    if (i == r->n) {
        if (r->n == REPEAT_NAMES)
            return -1;
        r->name[i].what = core_xstrdup(what);
        r->name[i].unit = core_xstrdup(unit ? unit : "");
        r->name[i].v = core_xcalloc(REPEAT_VALUES, sizeof(double));
        r->n++;
    }
    return (int)i;
}

void lab_repeats_add(struct lab_repeats *r, const char *what, const char *unit, double v)
{
    if (!r || !what || !isfinite(v))
        return;
    int i = slot(r, what, unit);
    if (i >= 0 && !r->name[i].ranged && r->name[i].n < REPEAT_VALUES)
        r->name[i].v[r->name[i].n++] = v;
}

void lab_repeats_range(struct lab_repeats *r, const char *what, const char *unit, double min,
                       double med, double max, int n)
{
    if (!r || !what || !isfinite(min) || !isfinite(med) || !isfinite(max) || n < 2)
        return;
    int i = slot(r, what, unit);
    if (i < 0)
        return;
    r->name[i].ranged = true;
    r->name[i].min = min;
    r->name[i].med = med;
    r->name[i].max = max;
    r->name[i].n_range = n;
}

void lab_repeats_widest(const struct lab_repeats *r, struct lab_noise *n)
{
    n->spread = NAN;
    n->spread_what[0] = n->spread_unit[0] = '\0';
    n->spread_n = 0;
    for (size_t i = 0; r && i < r->n; i++) {
        size_t k = r->name[i].n;
        double lo, med, hi;
        bool trimmed = false;
        if (r->name[i].ranged) {
            lo = r->name[i].min;
            med = r->name[i].med;
            hi = r->name[i].max;
            k = (size_t)r->name[i].n_range;
        } else {
            if (k < 2)
                continue;
            double *v = core_xmalloc(k * sizeof *v);
            memcpy(v, r->name[i].v, k * sizeof *v);
            lab_stats_sort(v, k);
            /* Many repetitions: the 10th to the 90th percentile, so that one
             * interruption among hundreds of short products does not call
             * the whole run noisy (the median already ignores it). */
            size_t cut = k >= 10 ? k / 10 : 0;
            lo = v[cut];
            hi = v[k - 1 - cut];
            med = lab_stats_median_sorted(v, k);
            trimmed = cut > 0;
            free(v);
        }
        double sp = med != 0 ? (hi - lo) / fabs(med) : NAN;
        if (isfinite(sp) && (!isfinite(n->spread) || sp > n->spread)) {
            n->spread = sp;
            n->spread_min = lo;
            n->spread_med = med;
            n->spread_max = hi;
            n->spread_n = (int)k;
            n->spread_trimmed = trimmed;
            snprintf(n->spread_what, sizeof n->spread_what, "%s", r->name[i].what);
            snprintf(n->spread_unit, sizeof n->spread_unit, "%s", r->name[i].unit);
        }
    }
}
