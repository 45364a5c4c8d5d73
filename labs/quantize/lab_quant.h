/*
 * lab_quant.h — the quantize lab's pure parts (labs/quantize/lab_quant_math.c),
 * shared by labs/quantize/lab_quantize.c and the tests: a seeded random stream, the
 * quantizers, the signal-to-quantization-noise ratio, the search for the
 * SQNR-optimal clipping threshold, and a small MLP the lab trains and then
 * evaluates with quantized weights. No I/O, no globals, no clocks:
 * everything here is arithmetic, the same on every run with the same seed.
 *
 * Quantizers (b bits, 2 <= b <= 16):
 *   ideal      the textbook converter: 2^b levels over [-A, A), step
 *              Δ = 2A / 2^b, each value to the middle of its step (mid-rise).
 *              What the formula 6.02·b + 1.76 dB is derived for.
 *   symmetric  the usual INT-b weight format: integers -L..L with
 *              L = 2^(b-1) - 1 (zero exact, one code unused), scale
 *              s = clip / L, q = clamp(round(x / s)); per tensor (one clip
 *              for all) or per channel (each row its own).
 *   asymmetric integers 0..2^b - 1 over [lo, hi]: s = (hi - lo) / (2^b - 1),
 *              zero point z = round(-lo / s), q = clamp(round(x / s) + z).
 *
 * Uses core (errors, allocation).
 */
#ifndef WB_LAB_QUANT_H
#define WB_LAB_QUANT_H

#include "core/core.h"
#include "labs/lab_author.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The lab's definition: one row of the registry (core/lab_registry.c), and
 * the only symbol of this folder the rest of labs/ uses. */
extern const struct lab_def lab_quant_def;

#define QUANT_MIN_BITS 2
#define QUANT_MAX_BITS 16

/* ---- random numbers (splitmix64) ------------------------------------------- */

struct quant_rng {
    uint64_t s;
};
void lab_quant_rng_seed(struct quant_rng *r, uint64_t seed);
uint64_t lab_quant_rng_next(struct quant_rng *r);
double lab_quant_rng_uniform(struct quant_rng *r); /* [0, 1) */
double lab_quant_rng_gauss(struct quant_rng *r);   /* N(0, 1), Box–Muller */
double lab_quant_rng_laplace(struct quant_rng *r); /* Laplace with variance 1 */

/* ---- quantizers and the noise they make ------------------------------------- */

/* The course's formula, 6.02·b + 1.76 dB, as written. */
double lab_quant_formula_db(int bits);
/* 10·log10(Σ x² / Σ (x - y)²) over n values; +INFINITY when y == x
 * everywhere, NAN when x is all zero. */
double lab_quant_sqnr_db(const double *x, const double *y, size_t n);
/* The ideal mid-rise quantizer at full scale A (see above). y may be x. */
void lab_quant_ideal(const double *x, double *y, size_t n, int bits, double A);
/* Symmetric with the given clip (> 0): values beyond ±clip saturate. */
void lab_quant_sym(const double *x, double *y, size_t n, int bits, double clip);
/* Asymmetric over [lo, hi] (lo < hi). */
void lab_quant_asym(const double *x, double *y, size_t n, int bits, double lo, double hi);
/* Symmetric per channel: each of the `rows` rows of `cols` values clipped
 * at its own largest |value| (a zero row stays zero). */
void lab_quant_sym_rows(const double *x, double *y, size_t rows, size_t cols, int bits);
/* The largest |x|, and the root mean square. */
double lab_quant_absmax(const double *x, size_t n);
double lab_quant_rms(const double *x, size_t n);

/* The clip threshold in (0, max|x|] with the highest SQNR for the symmetric
 * quantizer: a 48-point logarithmic grid from max/64 to max, then a
 * golden-section search between the best point's neighbours. Evaluated on
 * the first min(n, search_n) values (search_n 0: all). *sqnr gets the SQNR
 * at the clip found, over all n values. scratch holds n values. */
double lab_quant_best_clip(const double *x, size_t n, size_t search_n, int bits, double *scratch,
                           double *sqnr);

/* ---- the small MLP ------------------------------------------------------------ */

/* d_in -> hidden -> hidden -> classes, ReLU, softmax cross-entropy. Layer l
 * has weights w[l] (rows[l] × cols[l], out × in, row-major) and biases
 * b[l] (rows[l]). */
#define QUANT_LAYERS 3
struct quant_mlp {
    int d_in, hidden, classes;
    int rows[QUANT_LAYERS], cols[QUANT_LAYERS];
    float *w[QUANT_LAYERS], *b[QUANT_LAYERS];
};

/* The data set: x ~ N(0, I) in d_in dimensions; the class is the argmax of
 * a fixed random teacher network (d_in -> 32 -> classes, tanh), so the
 * classes are separable by a nonlinear boundary. Deterministic in seed.
 * x: n × d_in floats, y: n labels, both caller-owned. */
void lab_quant_data_make(uint64_t seed, int n, int d_in, int classes, float *x, int32_t *y);

/* He-initialised from seed. Caller frees with lab_quant_mlp_fini. */
void lab_quant_mlp_init(struct quant_mlp *m, int d_in, int hidden, int classes, uint64_t seed);
void lab_quant_mlp_fini(struct quant_mlp *m);
/* A copy of src's shape and values. */
void lab_quant_mlp_copy(struct quant_mlp *dst, const struct quant_mlp *src);
/* Parameter counts: weights and biases. */
size_t lab_quant_mlp_weights(const struct quant_mlp *m);
size_t lab_quant_mlp_biases(const struct quant_mlp *m);

/* One epoch of minibatch SGD (batch rows, learning rate lr) over the n
 * examples in the order of a seeded shuffle. Returns the mean training
 * loss. Deterministic. */
double lab_quant_mlp_epoch(struct quant_mlp *m, const float *x, const int32_t *y, int n, int batch,
                           double lr, uint64_t shuffle_seed);
/* The fraction of the n examples classified right, in [0, 1]. */
double lab_quant_mlp_accuracy(const struct quant_mlp *m, const float *x, const int32_t *y, int n);
/* Replaces every weight of m (biases stay FP32) by its symmetric b-bit
 * value: one scale per layer, or one per output channel (row). */
void lab_quant_mlp_quantize(struct quant_mlp *m, int bits, bool per_channel);
/* Bytes of the model stored with b-bit weights (packed), FP32 biases and
 * FP32 scales (one per layer or one per row); bits 32 is plain FP32. */
double lab_quant_mlp_bytes(const struct quant_mlp *m, int bits, bool per_channel);

#endif /* WB_LAB_QUANT_H */
