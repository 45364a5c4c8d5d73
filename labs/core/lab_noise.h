/*
 * lab_noise.h — internal to labs/: the store of a run's repeated
 * measurements (lab_repeat), which lab_run.c owns and lab_noise.c
 * implements. The public half (lab_noise, lab_cpu_sample) is in lab.h.
 */
#ifndef WB_LAB_NOISE_H
#define WB_LAB_NOISE_H

#include "labs/lab.h"

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
