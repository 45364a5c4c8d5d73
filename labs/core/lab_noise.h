/*
 * lab_noise.h — private to labs/core: the noise verdict of a run (how busy
 * the machine was, from /proc/stat, and how widely a repeated measurement
 * spread) and the store of a run's repeated measurements (lab_repeat),
 * which lab_run.c owns and lab_noise.c implements. Labs report their
 * repetitions with lab_repeat (lab_author.h); the figures the verdict adds
 * to every summary are listed in lab.h.
 */
#ifndef WB_LAB_NOISE_H
#define WB_LAB_NOISE_H

#include "labs/lab_author.h"

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

struct lab_repeats;

/* An empty store. Caller frees with lab_repeats_free (NULL does nothing). */
struct lab_repeats *lab_repeats_new(void);
void lab_repeats_free(struct lab_repeats *r);
/* Adds one value of measurement `what` (non-finite values are ignored; past
 * the limits of lab_repeat, values are dropped). */
void lab_repeats_add(struct lab_repeats *r, const char *what, const char *unit, double v);
/* Adds a measurement summarised elsewhere (min, median, max of n). */
void lab_repeats_range(struct lab_repeats *r, const char *what, const char *unit, double min,
                       double med, double max, int n);
/* Fills n's spread fields with the widest (max - min) / median over the
 * names with two or more values; spread is NAN when there is none. */
void lab_repeats_widest(const struct lab_repeats *r, struct lab_noise *n);

#endif /* WB_LAB_NOISE_H */
