/*
 * grader_internal.h — pure building blocks of the grader, used by the
 * sandbox and the `wb` Lua library. Never included from outside grader/.
 *
 * Everything here is pure C: no Lua, no I/O, no globals, so it is tested
 * directly with cmocka and fuzzed. Units (grader_number.c), tolerance and
 * partial-credit bands (grader_tol.c), and the variant RNG (grader_rng.c).
 */
#ifndef WB_GRADER_INTERNAL_H
#define WB_GRADER_INTERNAL_H

#include "core/core.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- units --------------------------------------------------------------- */

/* Physical dimension of a unit. Values are held in the base unit of their
 * dimension: seconds, bytes, bytes per second, FLOP, FLOP per second, and a
 * plain ratio for NONE ("x", "×" and "%" are ratios: 25% = 0.25, 2.5x = 2.5). */
enum grader_dim {
    GRADER_DIM_NONE = 0,
    GRADER_DIM_TIME,
    GRADER_DIM_BYTES,
    GRADER_DIM_BANDWIDTH, /* bytes/s; Gbps = 1e9 bits/s = 1.25e8 B/s */
    GRADER_DIM_FLOP,
    GRADER_DIM_FLOPS
};

struct grader_unit {
    const char *name;   /* canonical spelling: "ms", "GB/s", "%", "×" */
    enum grader_dim dim;
    double scale;       /* value in base unit = number × scale */
};

/* Looks up a unit by spelling. Accepts s ms us µs ns min h; B KB MB GB TB
 * KiB MiB GiB TiB, bits b Kb Mb Gb; B/s KB/s MB/s GB/s TB/s KiB/s MiB/s GiB/s
 * and the "Bps" forms; bps Kbps Mbps Gbps Tbps (bits); FLOP GFLOP TFLOP PFLOP;
 * FLOP/s GFLOP/s TFLOP/s PFLOP/s and FLOPS GFLOPS TFLOPS PFLOPS; x X × %.
 * Case matters where it means something (Mb ≠ MB). "" is the plain number
 * (dim NONE, scale 1). Returns NULL for an unknown spelling. Static storage. */
const struct grader_unit *grader_unit_find(const char *spelling);

/* ---- numbers ------------------------------------------------------------- */

/* The outcome of reading a numeric answer. */
struct grader_number {
    bool ok;
    double value;      /* in the expected unit (see grader_number_parse) */
    double base;       /* in the base unit of its dimension */
    char unit[16];     /* the unit the student wrote, canonical spelling, "" if none */
    char why[200];     /* when !ok: what is wrong and how to write it, for the student */
};

/* Reads `text` as a numeric answer expected in unit `expected` (a spelling
 * grader_unit_find knows; "" for a plain number):
 *   - numbers: 12, -3.5, .5, 6.02e23, 1E-3, with optional spaces around;
 *   - arithmetic: + - * / ^ (right-assoc), parentheses, unary minus, and
 *     sqrt log ln log2 log10 exp abs min max, constants pi and e — evaluated
 *     safely (no code runs), depth-limited, e.g. "1/(0.2+0.8/4)";
 *   - an optional unit after the expression ("320 ms", "2.5x", "56 %",
 *     "4.8 TB/s"), converted to `expected`; a bare number is taken to be
 *     in `expected` already;
 *   - "%" on a NONE answer means per cent: "56%" against expected "" is 0.56,
 *     against expected "%" is 56.
 * Refused, with `why` saying so: empty text; words that are not numbers
 * ("abc"); a comma ("3,5": "use a decimal point"); NaN or infinite results
 * ("1e999": "too large"); division by zero; a unit of another dimension
 * ("expected a time such as 320 ms, got MB"); an unknown unit; trailing junk.
 * Never crashes on any input (fuzzed). Returns out->ok. */
bool grader_number_parse(const char *text, const char *expected, struct grader_number *out);

/* Formats v with `sig` significant figures (trailing zeros trimmed, no
 * exponent between 1e-4 and 1e9) into buf. Returns buf. */
char *grader_number_format(double v, int sig, char *buf, size_t n);

/* ---- tolerance ----------------------------------------------------------- */

/* How close counts as right. Defaults (grader_tol_default): rel = 0.01 (1%),
 * abs = 0, sig = 0. With sig > 0 the answer is right when it rounds to the
 * same `sig` significant figures as the reference, or lies inside the
 * rel/abs interval. When both rel and abs are given, the wider interval
 * wins. A reference of exactly 0 with abs 0 uses abs = 1e-9. */
struct grader_tol {
    double rel;
    double abs;
    int sig;
};
void grader_tol_default(struct grader_tol *t);

/* The accepted interval [lo, hi] around `ref`. */
void grader_tol_interval(const struct grader_tol *t, double ref, double *lo, double *hi);

/* True when `v` is accepted against `ref` under t. */
bool grader_tol_accepts(const struct grader_tol *t, double ref, double v);

/* Writes the accepted interval as text, e.g. "2.475 to 2.525 ×" (unit
 * appended when not empty; 4 significant figures, more when needed to tell
 * the ends apart). Returns buf. */
char *grader_tol_describe(const struct grader_tol *t, double ref, const char *unit, char *buf,
                          size_t n);

/* A partial-credit band: an answer outside the tolerance but within this
 * band's (wider) tolerance earns `score` (a fraction of the points). */
struct grader_band {
    struct grader_tol tol;
    double score;          /* 0..1 */
    const char *feedback;  /* borrowed, may be NULL */
};

/* Scores v against ref: 1 inside `tol`; else the highest band score whose
 * interval holds v (the band's index in *band, -1 when none); else 0. */
double grader_tol_score(const struct grader_tol *tol, const struct grader_band *bands,
                        size_t n_bands, double ref, double v, int *band);

/* ---- variant RNG --------------------------------------------------------- */

/* xoshiro256** seeded through splitmix64: the same numbers on every machine
 * for the same seed. */
struct grader_rng {
    uint64_t s[4];
};

/* Seed for (pack, question, user, variant): FNV-1a over the four fields
 * separated by NUL bytes (variant as decimal text). */
uint64_t grader_rng_seed(const char *pack_id, const char *qid, const char *user, int variant);
void grader_rng_init(struct grader_rng *r, uint64_t seed);
uint64_t grader_rng_next(struct grader_rng *r);
/* Uniform in [0, 1) with 53 random bits. */
double grader_rng_uniform(struct grader_rng *r);
/* Uniform integer in [lo, hi] (inclusive, lo <= hi), unbiased. */
int64_t grader_rng_int(struct grader_rng *r, int64_t lo, int64_t hi);

#endif /* WB_GRADER_INTERNAL_H */
