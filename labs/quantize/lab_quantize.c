/*
 * lab_quantize.c — lab "quantize": does 6.02·b + 1.76 dB hold? Tensors
 * quantized to b = bits_min..bits_max bits, their signal-to-quantization-
 * noise ratio measured beside the course's formula; a small MLP trained
 * here and evaluated with its weights quantized; and INT8 against FP32
 * matrix-multiply speed on this CPU (ours and oneDNN's) and, where there is
 * one, on the GPU (cuBLAS).
 *
 * Parts (`part`: all, sqnr, model, gemm):
 *  sqnr   n_samples values of each signal, from `seed`:
 *         - a full-scale sine and a full-scale uniform signal through the
 *           ideal b-bit converter (2^b levels over [-A, A)). The formula's
 *           1.76 dB is the sine's: its power A²/2 against the A²/3 of a
 *           uniform signal (10·log10 1.5). The uniform signal gets exactly
 *           6.02·b (the formula minus 1.76); the sine approaches the formula
 *           from below as b grows (its values crowd at the peaks, where the
 *           error is not uniform: about 0.5 dB short at 4 bits, within 0.2
 *           dB from 7 bits);
 *         - Gaussian weights, symmetric INT-b scaled by their largest value
 *           (the formula's assumptions fail: peak/RMS is about 4.9, not √2),
 *           and clipped at the SQNR-optimal threshold (searched);
 *         - Laplace weights in `channels` rows, `outlier_channels` of them
 *           `outlier_scale` times larger: one scale per tensor against one
 *           per channel (row), over the whole tensor and over the ordinary
 *           rows;
 *         - ReLU activations (max(0, N(0,1))): symmetric against asymmetric.
 *  model  an MLP d_in 16 -> hidden -> hidden -> 4 classes trained with SGD
 *         for `epochs` on a deterministic synthetic task, then its test
 *         accuracy with weights quantized per tensor and per channel at
 *         each b (biases stay FP32), and its size at each b.
 *  gemm   C = A·B for n = 64, 128, ... up to gemm_n: our FP32 and INT8
 *         kernels (kernels/kern_gemm.c, single-threaded, the fastest path
 *         this CPU has) and oneDNN's (one thread, and every core at
 *         gemm_n) when the library is there; every INT8 result compared
 *         exactly with our portable path, FP32 to a rounding tolerance.
 *         With a GPU (device auto or gpu): cuBLAS SGEMM against the INT8
 *         GemmEx at gpu_n. Without one the first log line says why, and so
 *         does the figure no_gpu.
 *
 * Summary figures (what ctx.lab.summary holds; the lesson lists them too),
 * for b in {2, 3, 4, 6, 8, 12, 16} within bits_min..bits_max:
 *   formula_bB, sqnr_sine_bB, sqnr_uniform_bB, sqnr_gauss_max_bB,
 *   sqnr_gauss_clip_bB, gauss_gap_bB (formula − max-scaled Gaussian),
 *   clip_sigma_bB (optimal clip / RMS), sqnr_outlier_tensor_bB,
 *   sqnr_outlier_channel_bB, sqnr_ordinary_tensor_bB,
 *   sqnr_ordinary_channel_bB, sqnr_relu_sym_bB, sqnr_relu_asym_bB;
 *   acc_tensor_bB, acc_channel_bB (%), size_bytes_bB, size_ratio_bB
 *   (FP32 size / size, per channel);
 * and sine_max_dev_db, uniform_max_dev_db (largest |measured − formula|
 * over b = 4..12 in range; uniform against 6.02·b), sine_dev_b4, slope_db
 * (least-squares dB per bit of the uniform signal), peak_rms_gauss,
 * clip_gain_b4, outlier_gain_b8, asym_gain_b8; acc_fp32, params, weights,
 * biases (also the number of per-channel scales: one per output row),
 * size_fp32_bytes, acc_drop_b8, acc_drop_b4 (points below FP32, per
 * channel), min_bits_1pct (fewest bits within 1 point of FP32, per
 * channel); gemm_n, cpu_f32_gflops, cpu_s8_gops, cpu_s8_path,
 * cpu_s8_over_f32, cpu_madd_gops (AVX2 pmaddwd when VNNI is the best),
 * dnnl (version or why not), dnnl_f32_gflops, dnnl_s8_gops,
 * dnnl_s8_over_f32, dnnl_threads, dnnl_f32_gflops_all, dnnl_s8_gops_all;
 * device ("gpu" or "cpu"), no_gpu (why), gpu_name, gpu_n, gpu_f32_tflops,
 * gpu_s8_tops, gpu_s8_over_f32.
 *
 * Runs in the lab's own thread (no children). Uses the lab framework
 * (lab_author.h), the pure parts (lab_quant.h) and the kernels module (GEMMs,
 * oneDNN, cuBLAS, the GPU probe).
 */
#include "labs/lab_author.h"
#include "labs/quantize/lab_quant.h"
#include "kernels/kernels.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define QZ_D_IN 16
#define QZ_CLASSES 4
#define QZ_SEARCH_N 65536 /* values the clip search looks at */

struct qz_run {
    struct lab_ctx *cx;
    const struct core_clock *clk;
    uint64_t seed;
    size_t n;
    int bmin, bmax;
    double p_base, p_span; /* this part's share of the progress bar */
};

static double qz_now(const struct qz_run *r)
{
    return r->clk->now(r->clk->ctx);
}

static int qz_cancelled(const struct qz_run *r, struct core_err *err)
{
    return lab_cancelled(r->cx) ? core_err_set(err, CORE_ERR_CANCELLED, "cancelled") : 0;
}

static void qz_progress(struct qz_run *r, double f, const char *what)
{
    lab_progress(r->cx, r->p_base + r->p_span * f, what);
}

/* Whether bits b gets its own summary figures. */
static bool qz_keyed(int b)
{
    return b == 2 || b == 3 || b == 4 || b == 6 || b == 8 || b == 12 || b == 16;
}

static void qz_fig(struct qz_run *r, const char *stem, int b, double v, const char *unit,
                   const char *what)
{
    char key[64], label[160];
    snprintf(key, sizeof key, "%s_b%d", stem, b);
    snprintf(label, sizeof label, "%s at %d bits", what, b);
    lab_figure_num(r->cx, key, v, unit, label);
}

/* ---- part 1: SQNR ------------------------------------------------------------- */

struct qz_signals {
    double *sine, *uni, *gauss, *relu, *outl, *y, *scratch;
    size_t rows, cols; /* the outlier tensor */
    bool *outlier_row;
};

static void qz_signals_free(struct qz_signals *s)
{
    free(s->sine), free(s->uni), free(s->gauss), free(s->relu), free(s->outl);
    free(s->y), free(s->scratch), free(s->outlier_row);
}

/* Draws every signal of the SQNR part from the run's seed. */
static void qz_signals_make(struct qz_run *r, const struct lab_params *pp, struct qz_signals *s)
{
    size_t n = r->n;
    struct quant_rng g;
    memset(s, 0, sizeof *s);
    s->sine = core_xmalloc(n * sizeof(double));
    s->uni = core_xmalloc(n * sizeof(double));
    s->gauss = core_xmalloc(n * sizeof(double));
    s->relu = core_xmalloc(n * sizeof(double));
    s->y = core_xmalloc(n * sizeof(double));
    s->scratch = core_xmalloc(n * sizeof(double));
    lab_quant_rng_seed(&g, r->seed);
    /* An irrational frequency: the phases cover the circle evenly. */
    double f = (sqrt(5.0) - 1.0) / 2.0 / 7.0, ph = 2 * M_PI * lab_quant_rng_uniform(&g);
    for (size_t i = 0; i < n; i++) {
        s->sine[i] = sin(2 * M_PI * f * (double)i + ph);
        s->uni[i] = 2.0 * lab_quant_rng_uniform(&g) - 1.0;
        s->gauss[i] = lab_quant_rng_gauss(&g);
        double a = lab_quant_rng_gauss(&g);
        s->relu[i] = a > 0 ? a : 0;
    }
    int ch = (int)lab_param_num(pp, "channels");
    int oc = (int)lab_param_num(pp, "outlier_channels");
    double os = lab_param_num(pp, "outlier_scale");
    s->rows = (size_t)ch;
    s->cols = n / (size_t)ch;
    s->outl = core_xmalloc(s->rows * s->cols * sizeof(double));
    s->outlier_row = core_xcalloc(s->rows, sizeof(bool));
    /* outlier rows spread over the tensor: rows k·ch/oc */
    for (int k = 0; k < oc; k++)
        s->outlier_row[(size_t)k * (size_t)ch / (size_t)oc] = true;
    for (size_t rr = 0; rr < s->rows; rr++)
        for (size_t c = 0; c < s->cols; c++)
            s->outl[rr * s->cols + c] = lab_quant_rng_laplace(&g) * (s->outlier_row[rr] ? os : 1.0);
}

/* SQNR of the rows of x that are (ordinary) or are not outliers. */
static double qz_sqnr_rows(const struct qz_signals *s, const double *y, bool ordinary)
{
    double sig = 0, err = 0;
    for (size_t rr = 0; rr < s->rows; rr++) {
        if (s->outlier_row[rr] == ordinary)
            continue;
        for (size_t c = 0; c < s->cols; c++) {
            double x = s->outl[rr * s->cols + c], d = x - y[rr * s->cols + c];
            sig += x * x;
            err += d * d;
        }
    }
    return sig > 0 && err > 0 ? 10 * log10(sig / err) : NAN;
}

/* One bit count's measurements, kept until the part's figures are set. */
struct qz_bits {
    double formula, sine, uni, gmax, gclip, clip, ot, oc, ordt, ordc, rs, ra;
};

static int qz_sqnr(struct qz_run *r, const struct lab_params *pp, struct core_err *err)
{
    struct lab_ctx *cx = r->cx;
    struct qz_signals s;
    struct qz_bits q[QUANT_MAX_BITS + 1];
    size_t n = r->n, nt;
    double dev_sine = 0, dev_uni = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, m = 0;
    int rc = 0;

    qz_progress(r, 0, "drawing the signals");
    qz_signals_make(r, pp, &s);
    nt = s.rows * s.cols;
    double rms_g = lab_quant_rms(s.gauss, n), max_g = lab_quant_absmax(s.gauss, n);
    double max_r = lab_quant_absmax(s.relu, n), max_t = lab_quant_absmax(s.outl, nt);
    lab_log(cx, LAB_LOG_INFO,
            "sqnr: %zu values per signal; Gaussian peak/RMS %.2f (a sine's is 1.41); outlier "
            "tensor %zu x %zu, %d rows x%g",
            n, max_g / rms_g, s.rows, s.cols, (int)lab_param_num(pp, "outlier_channels"),
            lab_param_num(pp, "outlier_scale"));

    for (int b = r->bmin; b <= r->bmax; b++) {
        char what[64];
        struct qz_bits *k = &q[b];
        snprintf(what, sizeof what, "SQNR at %d bits", b);
        qz_progress(r, (double)(b - r->bmin) / (r->bmax - r->bmin + 1), what);
        if ((rc = qz_cancelled(r, err)) != 0)
            goto out;
        k->formula = lab_quant_formula_db(b);
        lab_quant_ideal(s.sine, s.y, n, b, 1.0);
        k->sine = lab_quant_sqnr_db(s.sine, s.y, n);
        lab_quant_ideal(s.uni, s.y, n, b, 1.0);
        k->uni = lab_quant_sqnr_db(s.uni, s.y, n);
        lab_quant_sym(s.gauss, s.y, n, b, max_g);
        k->gmax = lab_quant_sqnr_db(s.gauss, s.y, n);
        k->clip = lab_quant_best_clip(s.gauss, n, QZ_SEARCH_N, b, s.scratch, &k->gclip) / rms_g;
        lab_quant_sym(s.outl, s.y, nt, b, max_t);
        k->ot = lab_quant_sqnr_db(s.outl, s.y, nt);
        k->ordt = qz_sqnr_rows(&s, s.y, true);
        lab_quant_sym_rows(s.outl, s.y, s.rows, s.cols, b);
        k->oc = lab_quant_sqnr_db(s.outl, s.y, nt);
        k->ordc = qz_sqnr_rows(&s, s.y, true);
        lab_quant_sym(s.relu, s.y, n, b, max_r);
        k->rs = lab_quant_sqnr_db(s.relu, s.y, n);
        lab_quant_asym(s.relu, s.y, n, b, 0.0, max_r);
        k->ra = lab_quant_sqnr_db(s.relu, s.y, n);

        lab_emit(cx, "formula", b, k->formula);
        lab_emit(cx, "sine", b, k->sine);
        lab_emit(cx, "uniform", b, k->uni);
        lab_emit(cx, "gauss_max", b, k->gmax);
        lab_emit(cx, "gauss_clip", b, k->gclip);
        lab_emit(cx, "clip_sigma", b, k->clip);
        lab_emit(cx, "outlier_tensor", b, k->ot);
        lab_emit(cx, "outlier_channel", b, k->oc);
        lab_emit(cx, "ordinary_tensor", b, k->ordt);
        lab_emit(cx, "ordinary_channel", b, k->ordc);
        lab_emit(cx, "relu_sym", b, k->rs);
        lab_emit(cx, "relu_asym", b, k->ra);
        lab_log(cx, LAB_LOG_INFO,
                "b = %2d: formula %.2f; sine %.2f, uniform %.2f; Gaussian max %.2f, clipped "
                "%.2f at %.2f sigma; outliers tensor %.2f / channel %.2f; ReLU sym %.2f / asym "
                "%.2f dB",
                b, k->formula, k->sine, k->uni, k->gmax, k->gclip, k->clip, k->ot, k->oc, k->rs,
                k->ra);
        if (b >= 4 && b <= 12) {
            dev_sine = fmax(dev_sine, fabs(k->sine - k->formula));
            dev_uni = fmax(dev_uni, fabs(k->uni - 6.02 * b));
        }
        sx += b, sy += k->uni, sxx += (double)b * b, sxy += b * k->uni, m++;
    }

    /* The figures, the run's key figure first: how far the max-scaled
     * Gaussian misses the formula at 8 bits. */
    if (r->bmin <= 8 && r->bmax >= 8)
        lab_figure_num(cx, "gauss_gap_b8", q[8].formula - q[8].gmax, "dB",
                       "formula minus the max-scaled Gaussian's SQNR at 8 bits");
    for (int b = r->bmin; b <= r->bmax; b++) {
        const struct qz_bits *k = &q[b];
        if (!qz_keyed(b))
            continue;
        qz_fig(r, "gauss_gap", b, k->formula - k->gmax, "dB",
               "formula minus the max-scaled Gaussian's SQNR");
        qz_fig(r, "formula", b, k->formula, "dB", "6.02 b + 1.76");
        qz_fig(r, "sqnr_sine", b, k->sine, "dB", "full-scale sine");
        qz_fig(r, "sqnr_uniform", b, k->uni, "dB", "full-scale uniform signal");
        qz_fig(r, "sqnr_gauss_max", b, k->gmax, "dB", "Gaussian, scaled by its max");
        qz_fig(r, "sqnr_gauss_clip", b, k->gclip, "dB", "Gaussian, optimal clip");
        qz_fig(r, "clip_sigma", b, k->clip, "sigma", "optimal clip / RMS");
        qz_fig(r, "sqnr_outlier_tensor", b, k->ot, "dB", "outlier tensor, per-tensor scale");
        qz_fig(r, "sqnr_outlier_channel", b, k->oc, "dB", "outlier tensor, per-channel scales");
        qz_fig(r, "sqnr_ordinary_tensor", b, k->ordt, "dB",
               "ordinary rows of the outlier tensor, per-tensor scale");
        qz_fig(r, "sqnr_ordinary_channel", b, k->ordc, "dB",
               "ordinary rows of the outlier tensor, per-channel scales");
        qz_fig(r, "sqnr_relu_sym", b, k->rs, "dB", "ReLU activations, symmetric");
        qz_fig(r, "sqnr_relu_asym", b, k->ra, "dB", "ReLU activations, asymmetric");
    }
    if (r->bmin <= 4 && r->bmax >= 4) {
        lab_figure_num(cx, "sine_dev_b4", q[4].formula - q[4].sine, "dB",
                       "how far the sine falls short of the formula at 4 bits");
        lab_figure_num(cx, "clip_gain_b4", q[4].gclip - q[4].gmax, "dB",
                       "optimal clip over max scaling, Gaussian, 4 bits");
    }
    if (r->bmin <= 8 && r->bmax >= 8) {
        lab_figure_num(cx, "outlier_gain_b8", q[8].oc - q[8].ot, "dB",
                       "per-channel over per-tensor, outlier tensor, 8 bits");
        lab_figure_num(cx, "asym_gain_b8", q[8].ra - q[8].rs, "dB",
                       "asymmetric over symmetric, ReLU activations, 8 bits");
    }
    if (r->bmin <= 12 && r->bmax >= 4) {
        lab_figure_num(cx, "sine_max_dev_db", dev_sine, "dB",
                       "largest |sine - formula| over b = 4..12");
        lab_figure_num(cx, "uniform_max_dev_db", dev_uni, "dB",
                       "largest |uniform - 6.02 b| over b = 4..12");
    }
    if (m >= 2)
        lab_figure_num(cx, "slope_db", (m * sxy - sx * sy) / (m * sxx - sx * sx), "dB/bit",
                       "SQNR gained per bit (uniform signal, least squares)");
    lab_figure_num(cx, "peak_rms_gauss", max_g / rms_g, "", "Gaussian peak / RMS");
    lab_figure_num(cx, "n_samples", (double)n, "", "values per signal");
out:
    qz_signals_free(&s);
    return rc;
}

/* ---- part 2: the model ---------------------------------------------------------- */

static int qz_model(struct qz_run *r, const struct lab_params *pp, struct core_err *err)
{
    struct lab_ctx *cx = r->cx;
    int hidden = (int)lab_param_num(pp, "hidden");
    int epochs = (int)lab_param_num(pp, "epochs");
    int n_train = (int)lab_param_num(pp, "n_train");
    int n_test = n_train / 2 > 512 ? n_train / 2 : 512;
    float *x = core_xmalloc((size_t)(n_train + n_test) * QZ_D_IN * sizeof *x);
    int32_t *y = core_xmalloc((size_t)(n_train + n_test) * sizeof *y);
    struct quant_mlp m;
    double best_acc = 0, acc_fp32;
    int rc = 0, min_bits = 0;

    qz_progress(r, 0, "making the data set");
    lab_quant_data_make(r->seed, n_train + n_test, QZ_D_IN, QZ_CLASSES, x, y);
    const float *xt = x + (size_t)n_train * QZ_D_IN;
    const int32_t *yt = y + n_train;
    lab_quant_mlp_init(&m, QZ_D_IN, hidden, QZ_CLASSES, r->seed);
    lab_log(cx, LAB_LOG_INFO,
            "model: MLP %d -> %d -> %d -> %d (%zu weights, %zu biases), %d training and %d test "
            "examples, %d epochs of SGD",
            QZ_D_IN, hidden, hidden, QZ_CLASSES, lab_quant_mlp_weights(&m),
            lab_quant_mlp_biases(&m), n_train, n_test, epochs);
    for (int e = 1; e <= epochs; e++) {
        char what[64];
        snprintf(what, sizeof what, "training: epoch %d of %d", e, epochs);
        qz_progress(r, 0.6 * (e - 1) / epochs, what);
        if ((rc = qz_cancelled(r, err)) != 0)
            goto out;
        double lr = 0.05 * (e <= epochs / 2 ? 1.0 : 0.3);
        double loss =
            lab_quant_mlp_epoch(&m, x, y, n_train, 32, lr, r->seed * 1000003u + (uint64_t)e);
        double acc = lab_quant_mlp_accuracy(&m, xt, yt, n_test);
        lab_emit(cx, "train_loss", e, loss);
        lab_emit(cx, "test_acc", e, 100 * acc);
        best_acc = acc > best_acc ? acc : best_acc;
        lab_log(cx, LAB_LOG_INFO, "epoch %d: training loss %.4f, test accuracy %.2f%%", e, loss,
                100 * acc);
    }
    acc_fp32 = lab_quant_mlp_accuracy(&m, xt, yt, n_test);
    double fp32_bytes = lab_quant_mlp_bytes(&m, 32, false);
    lab_figure_num(cx, "acc_fp32", 100 * acc_fp32, "%", "test accuracy with FP32 weights");
    lab_figure_num(cx, "params", (double)(lab_quant_mlp_weights(&m) + lab_quant_mlp_biases(&m)), "",
                   "parameters of the MLP");
    lab_figure_num(cx, "weights", (double)lab_quant_mlp_weights(&m), "", "weights of the MLP");
    lab_figure_num(cx, "biases", (double)lab_quant_mlp_biases(&m), "",
                   "biases of the MLP (one per output channel; kept in FP32)");
    lab_figure_num(cx, "size_fp32_bytes", fp32_bytes, "B", "the MLP in FP32");
    lab_figure_num(cx, "n_test", n_test, "", "test examples");

    for (int b = r->bmin; b <= r->bmax; b++) {
        char what[64];
        snprintf(what, sizeof what, "accuracy with %d-bit weights", b);
        qz_progress(r, 0.6 + 0.4 * (b - r->bmin) / (r->bmax - r->bmin + 1), what);
        if ((rc = qz_cancelled(r, err)) != 0)
            goto out;
        double acc[2];
        for (int pc = 0; pc < 2; pc++) {
            struct quant_mlp q;
            lab_quant_mlp_copy(&q, &m);
            lab_quant_mlp_quantize(&q, b, pc == 1);
            acc[pc] = lab_quant_mlp_accuracy(&q, xt, yt, n_test);
            lab_quant_mlp_fini(&q);
        }
        double bytes = lab_quant_mlp_bytes(&m, b, true);
        lab_emit(cx, "acc_tensor", b, 100 * acc[0]);
        lab_emit(cx, "acc_channel", b, 100 * acc[1]);
        lab_emit(cx, "acc_fp32", b, 100 * acc_fp32);
        lab_emit(cx, "size_kib", b, bytes / 1024);
        lab_emit(cx, "size_fp32_kib", b, fp32_bytes / 1024);
        lab_log(
            cx, LAB_LOG_INFO,
            "b = %2d: accuracy %.2f%% per tensor, %.2f%% per channel (FP32 %.2f%%); %.0f bytes, "
            "%.2fx smaller",
            b, 100 * acc[0], 100 * acc[1], 100 * acc_fp32, bytes, fp32_bytes / bytes);
        if (!min_bits && 100 * (acc_fp32 - acc[1]) <= 1.0)
            min_bits = b;
        if (qz_keyed(b)) {
            qz_fig(r, "acc_tensor", b, 100 * acc[0], "%", "test accuracy, per-tensor weights");
            qz_fig(r, "acc_channel", b, 100 * acc[1], "%", "test accuracy, per-channel weights");
            qz_fig(r, "size_bytes", b, bytes, "B", "model size, per-channel scales");
            qz_fig(r, "size_ratio", b, fp32_bytes / bytes, "x", "FP32 size / size");
        }
        if (b == 8 || b == 4) {
            char key[32];
            snprintf(key, sizeof key, "acc_drop_b%d", b);
            lab_figure_num(cx, key, 100 * (acc_fp32 - acc[1]), "points",
                           b == 8 ? "FP32 accuracy minus 8-bit (per channel)"
                                  : "FP32 accuracy minus 4-bit (per channel)");
        }
    }
    if (min_bits)
        lab_figure_num(cx, "min_bits_1pct", min_bits, "bits",
                       "fewest bits within 1 point of FP32 accuracy (per channel)");
out:
    lab_quant_mlp_fini(&m);
    free(x);
    free(y);
    return rc;
}

/* ---- part 3: INT8 against FP32 matrix multiply ------------------------------------- */

struct qz_mats {
    int n;
    float *af, *bf, *cf, *rf;
    int8_t *a8, *b8;
    int32_t *c32, *r32;
};

/* Seconds of the fastest of the repetitions of fn: repeated until min_s
 * passed and at least two were timed, after one untimed warm-up. */
typedef int (*qz_gemm_fn)(struct qz_mats *mt, void *arg, struct core_err *err);
static int qz_time(struct qz_run *r, double min_s, qz_gemm_fn fn, struct qz_mats *mt, void *arg,
                   double *best, struct core_err *err)
{
    int rc = fn(mt, arg, err);
    if (rc != 0)
        return rc;
    double spent = 0, t = INFINITY;
    for (int runs = 0; spent < min_s || runs < 2; runs++) {
        if ((rc = qz_cancelled(r, err)) != 0)
            return rc;
        double t0 = qz_now(r);
        if ((rc = fn(mt, arg, err)) != 0)
            return rc;
        double d = qz_now(r) - t0;
        spent += d;
        if (d > 0 && d < t)
            t = d;
    }
    *best = t;
    return 0;
}

struct qz_ours {
    struct kern_gemm_b b;
};

static int run_ours_f32(struct qz_mats *mt, void *arg, struct core_err *err)
{
    (void)err;
    kern_gemm_f32(&((struct qz_ours *)arg)->b, mt->af, mt->n, (size_t)mt->n, mt->cf, (size_t)mt->n);
    return 0;
}

static int run_ours_s8(struct qz_mats *mt, void *arg, struct core_err *err)
{
    (void)err;
    kern_gemm_s8(&((struct qz_ours *)arg)->b, mt->a8, mt->n, (size_t)mt->n, mt->c32, (size_t)mt->n);
    return 0;
}

static int run_dnnl_f32(struct qz_mats *mt, void *arg, struct core_err *err)
{
    return kern_dnnl_gemm_f32(*(int *)arg, mt->af, mt->bf, mt->cf, mt->n, mt->n, mt->n, err);
}

static int run_dnnl_s8(struct qz_mats *mt, void *arg, struct core_err *err)
{
    return kern_dnnl_gemm_s8(*(int *)arg, mt->a8, mt->b8, mt->c32, mt->n, mt->n, mt->n, err);
}

/* The INT8 result in c32 against the reference r32, exactly; the FP32 one
 * in cf against rf within a rounding tolerance. */
static int qz_verify(const struct qz_mats *mt, bool s8, const char *who, struct core_err *err)
{
    size_t nn = (size_t)mt->n * (size_t)mt->n;
    for (size_t i = 0; i < nn; i++) {
        if (s8 && mt->c32[i] != mt->r32[i])
            return core_err_set(err, CORE_ERR_INTERNAL,
                                "%s INT8 product differs at n = %d, element %zu: %d, not %d", who,
                                mt->n, i, (int)mt->c32[i], (int)mt->r32[i]);
        /* |a|, |b| <= 1: the sum of n products is off by at most ~n·2^-23 */
        if (!s8 && !(fabsf(mt->cf[i] - mt->rf[i]) <= 1e-5f * (float)mt->n + 1e-5f))
            return core_err_set(err, CORE_ERR_INTERNAL,
                                "%s FP32 product differs at n = %d, element %zu: %g, not %g", who,
                                mt->n, i, (double)mt->cf[i], (double)mt->rf[i]);
    }
    return 0;
}

static void qz_mats_free(struct qz_mats *mt)
{
    free(mt->af), free(mt->bf), free(mt->cf), free(mt->rf);
    free(mt->a8), free(mt->b8), free(mt->c32), free(mt->r32);
    memset(mt, 0, sizeof *mt);
}

/* Measures one size: ours (FP32, INT8 best, and INT8 pmaddwd when the best
 * is VNNI, at the largest size) and oneDNN at one thread (and all cores at
 * the largest). g[0..3]: ours f32, ours s8, dnnl f32, dnnl s8 in G ops/s
 * (0 when not measured). */
static int qz_gemm_size(struct qz_run *r, int n, bool last, double min_s, bool dnnl, double g[4],
                        double *madd, struct core_err *err)
{
    struct qz_mats mt = {.n = n};
    struct qz_ours of = {0}, o8 = {0}, ref = {0};
    size_t nn = (size_t)n * (size_t)n;
    double ops = 2.0 * n * (double)n * (double)n, t;
    int one = 1, all = 0, rc;
    struct quant_rng rg;

    memset(g, 0, 4 * sizeof *g);
    mt.af = core_xmalloc(nn * sizeof(float)), mt.bf = core_xmalloc(nn * sizeof(float));
    mt.cf = core_xmalloc(nn * sizeof(float)), mt.rf = core_xmalloc(nn * sizeof(float));
    mt.a8 = core_xmalloc(nn), mt.b8 = core_xmalloc(nn);
    mt.c32 = core_xmalloc(nn * sizeof(int32_t)), mt.r32 = core_xmalloc(nn * sizeof(int32_t));
    lab_quant_rng_seed(&rg, r->seed + (uint64_t)n);
    for (size_t i = 0; i < nn; i++) {
        mt.a8[i] = (int8_t)((int)(lab_quant_rng_next(&rg) % 255) - 127);
        mt.b8[i] = (int8_t)((int)(lab_quant_rng_next(&rg) % 255) - 127);
        mt.af[i] = mt.a8[i] / 127.0f;
        mt.bf[i] = mt.b8[i] / 127.0f;
    }
    /* the references: our portable path (exact for INT8) */
    if ((rc = kern_gemm_b_pack_s8(&ref.b, KERN_GEMM_PORTABLE, mt.b8, n, n, (size_t)n, 1, err)) != 0)
        goto out;
    kern_gemm_s8(&ref.b, mt.a8, n, (size_t)n, mt.r32, (size_t)n);
    kern_gemm_b_fini(&ref.b);
    if ((rc = kern_gemm_b_pack_f32(&ref.b, KERN_GEMM_PORTABLE, mt.bf, n, n, (size_t)n, 1, err)) !=
        0)
        goto out;
    kern_gemm_f32(&ref.b, mt.af, n, (size_t)n, mt.rf, (size_t)n);

    if ((rc = kern_gemm_b_pack_f32(&of.b, kern_gemm_best(false), mt.bf, n, n, (size_t)n, 1, err)) ||
        (rc = qz_time(r, min_s, run_ours_f32, &mt, &of, &t, err)) ||
        (rc = qz_verify(&mt, false, "our", err)))
        goto out;
    g[0] = ops / t / 1e9;
    if ((rc = kern_gemm_b_pack_s8(&o8.b, kern_gemm_best(true), mt.b8, n, n, (size_t)n, 1, err)) ||
        (rc = qz_time(r, min_s, run_ours_s8, &mt, &o8, &t, err)) ||
        (rc = qz_verify(&mt, true, "our", err)))
        goto out;
    g[1] = ops / t / 1e9;
    if (last && o8.b.path == KERN_GEMM_VNNI) {
        kern_gemm_b_fini(&o8.b);
        if ((rc = kern_gemm_b_pack_s8(&o8.b, KERN_GEMM_AVX2, mt.b8, n, n, (size_t)n, 1, err)) ||
            (rc = qz_time(r, min_s, run_ours_s8, &mt, &o8, &t, err)) ||
            (rc = qz_verify(&mt, true, "our pmaddwd", err)))
            goto out;
        *madd = ops / t / 1e9;
    }
    if (dnnl) {
        if ((rc = qz_time(r, min_s, run_dnnl_f32, &mt, &one, &t, err)) ||
            (rc = qz_verify(&mt, false, "oneDNN", err)))
            goto out;
        g[2] = ops / t / 1e9;
        if ((rc = qz_time(r, min_s, run_dnnl_s8, &mt, &one, &t, err)) ||
            (rc = qz_verify(&mt, true, "oneDNN", err)))
            goto out;
        g[3] = ops / t / 1e9;
        long cores = lab_ctx_machine(r->cx)->cores_online;
        if (last && cores > 1) {
            double tf, t8;
            if ((rc = qz_time(r, min_s, run_dnnl_f32, &mt, &all, &tf, err)) ||
                (rc = qz_time(r, min_s, run_dnnl_s8, &mt, &all, &t8, err)))
                goto out;
            lab_figure_num(r->cx, "dnnl_threads", (double)cores, "", "oneDNN threads (all cores)");
            lab_figure_num(r->cx, "dnnl_f32_gflops_all", ops / tf / 1e9, "GFLOP/s",
                           "oneDNN FP32 on every core");
            lab_figure_num(r->cx, "dnnl_s8_gops_all", ops / t8 / 1e9, "GOP/s",
                           "oneDNN INT8 on every core");
        }
    }
out:
    kern_gemm_b_fini(&of.b);
    kern_gemm_b_fini(&o8.b);
    kern_gemm_b_fini(&ref.b);
    qz_mats_free(&mt);
    return rc;
}

static int qz_gemm(struct qz_run *r, const struct lab_params *pp, bool gpu, struct core_err *err)
{
    struct lab_ctx *cx = r->cx;
    int nmax = (int)lab_param_num(pp, "gemm_n");
    double min_s = lab_param_num(pp, "min_ms") / 1000.0, madd = 0, g[4] = {0};
    char ver[160];
    bool dnnl = kern_dnnl_probe(ver, sizeof ver);
    int sizes[16], ns = 0, rc;

    for (int n = 64; n < nmax && ns < 15; n *= 2)
        sizes[ns++] = n;
    sizes[ns++] = nmax;
    lab_figure_str(cx, "dnnl", ver, "the oneDNN library (or why it is missing)");
    lab_log(cx, dnnl ? LAB_LOG_INFO : LAB_LOG_WARN, "gemm: %s; our INT8 path: %s, FP32: %s", ver,
            kern_gemm_path_name(kern_gemm_best(true)), kern_gemm_path_name(kern_gemm_best(false)));
    for (int s = 0; s < ns; s++) {
        char what[64];
        int n = sizes[s];
        snprintf(what, sizeof what, "matrix multiply n = %d", n);
        qz_progress(r, gpu ? 0.7 * s / ns : (double)s / ns, what);
        if ((rc = qz_gemm_size(r, n, s == ns - 1, min_s, dnnl, g, &madd, err)) != 0)
            return rc;
        lab_emit(cx, "gemm_ours_f32", n, g[0]);
        lab_emit(cx, "gemm_ours_s8", n, g[1]);
        if (dnnl) {
            lab_emit(cx, "gemm_dnnl_f32", n, g[2]);
            lab_emit(cx, "gemm_dnnl_s8", n, g[3]);
        }
        lab_log(cx, LAB_LOG_INFO, "n = %4d: ours FP32 %.1f GFLOP/s, INT8 %.1f GOP/s (%.2fx)%s", n,
                g[0], g[1], g[1] / g[0], dnnl ? "; oneDNN (1 thread) follows" : "");
        if (dnnl)
            lab_log(cx, LAB_LOG_INFO, "          oneDNN FP32 %.1f GFLOP/s, INT8 %.1f GOP/s (%.2fx)",
                    g[2], g[3], g[3] / g[2]);
    }
    lab_figure_num(cx, "gemm_n", nmax, "", "matrix size n (n x n x n)");
    lab_figure_num(cx, "cpu_f32_gflops", g[0], "GFLOP/s", "our FP32 GEMM, one thread");
    lab_figure_num(cx, "cpu_s8_gops", g[1], "GOP/s", "our INT8 GEMM, one thread");
    lab_figure_str(cx, "cpu_s8_path", kern_gemm_path_name(kern_gemm_best(true)),
                   "instructions of our INT8 GEMM");
    lab_figure_num(cx, "cpu_s8_over_f32", g[1] / g[0], "x", "our INT8 / our FP32 speed");
    if (madd > 0)
        lab_figure_num(cx, "cpu_madd_gops", madd, "GOP/s", "our INT8 GEMM through pmaddwd (AVX2)");
    if (dnnl) {
        lab_figure_num(cx, "dnnl_f32_gflops", g[2], "GFLOP/s", "oneDNN FP32, one thread");
        lab_figure_num(cx, "dnnl_s8_gops", g[3], "GOP/s", "oneDNN INT8, one thread");
        lab_figure_num(cx, "dnnl_s8_over_f32", g[3] / g[2], "x", "oneDNN INT8 / FP32 speed");
    }
    if (!gpu)
        return 0;

    int gn = (int)lab_param_num(pp, "gpu_n");
    struct kern_gemm_gpu_meas gm;
    struct kern_device d;
    qz_progress(r, 0.75, "GPU: cuBLAS SGEMM against INT8 GemmEx");
    if ((rc = kern_gemm_gpu_measure(gn, (int)lab_param_num(pp, "gpu_reps"), r->seed,
                                    (bool (*)(void *))lab_cancelled, cx, &gm, err)) != 0)
        return rc == CORE_ERR_CANCELLED ? rc : core_err_prefix(err, "GPU GEMM");
    if (kern_probe(&d, NULL) == 0)
        lab_figure_str(cx, "gpu_name", d.name, "the GPU");
    lab_figure_num(cx, "gpu_n", gn, "", "GPU matrix size n");
    lab_figure_num(cx, "gpu_f32_tflops", gm.f32_tflops, "TFLOP/s", "cuBLAS SGEMM");
    lab_figure_num(cx, "gpu_s8_tops", gm.s8_tops, "TOP/s", "cuBLAS INT8 GemmEx");
    lab_figure_num(cx, "gpu_s8_over_f32", gm.f32_ms / gm.s8_ms, "x", "GPU INT8 / FP32 speed");
    lab_log(cx, LAB_LOG_INFO,
            "GPU n = %d: SGEMM %.3f ms (%.1f TFLOP/s), INT8 GemmEx %.3f ms (%.1f TOP/s): %.2fx; "
            "%lld INT8 results checked exactly",
            gn, gm.f32_ms, gm.f32_tflops, gm.s8_ms, gm.s8_tops, gm.f32_ms / gm.s8_ms, gm.checked);
    return 0;
}

/* ---- the run ------------------------------------------------------------------------ */

/* The values the SQNR part holds at once: seven arrays of n doubles. */
static int qz_fits(const struct lab_params *p, const struct lab_machine *m, struct core_err *err)
{
    double need = 7.0 * 8.0 * lab_param_num(p, "n_samples");
    if (m->mem_bytes > 0 && need > (double)m->mem_bytes / 4)
        return core_err_set(err, CORE_ERR_INVALID,
                            "quantize: parameter 'n_samples' (%.0f) needs %.0f MiB, more than a "
                            "quarter of this machine's memory (%.0f MiB)",
                            lab_param_num(p, "n_samples"), need / 1048576,
                            (double)m->mem_bytes / 1048576);
    return 0;
}

static int qz_check_with(const struct lab_params *p, const struct lab_machine *m,
                         struct core_err *err)
{
    int bmin = (int)lab_param_num(p, "bits_min"), bmax = (int)lab_param_num(p, "bits_max");
    if (bmin > bmax)
        return core_err_set(err, CORE_ERR_INVALID,
                            "quantize: parameter 'bits_min' (%d) must not be larger than "
                            "'bits_max' (%d)",
                            bmin, bmax);
    int ch = (int)lab_param_num(p, "channels"), oc = (int)lab_param_num(p, "outlier_channels");
    if (oc >= ch)
        return core_err_set(err, CORE_ERR_INVALID,
                            "quantize: parameter 'outlier_channels' (%d) must be fewer than "
                            "'channels' (%d): some rows must be ordinary",
                            oc, ch);
    double n = lab_param_num(p, "n_samples");
    if (n / ch < 16)
        return core_err_set(err, CORE_ERR_INVALID,
                            "quantize: parameter 'n_samples' (%.0f) gives fewer than 16 values per "
                            "channel with channels = %d",
                            n, ch);
    int gn = (int)lab_param_num(p, "gpu_n");
    if (gn % 16 != 0)
        return core_err_set(err, CORE_ERR_INVALID,
                            "quantize: parameter 'gpu_n' (%d) must be a multiple of 16 (cuBLAS's "
                            "INT8 product wants leading dimensions in multiples of 4)",
                            gn);
    const char *device = lab_param_str(p, "device");
    struct core_err why;
    core_err_clear(&why);
    if (strcmp(device, "gpu") == 0 && kern_probe(NULL, &why) != 0)
        return core_err_set(err, CORE_ERR_INVALID,
                            "quantize: parameter 'device' is gpu, but %s (use device=auto or "
                            "device=cpu)",
                            why.msg);
    if (strcmp(device, "gpu") == 0 && !kern_built_with_cublas())
        return core_err_set(err, CORE_ERR_INVALID,
                            "quantize: parameter 'device' is gpu, but this build has no cuBLAS");
    return qz_fits(p, m, err);
}

static int qz_check(const struct lab_params *p, struct core_err *err)
{
    struct lab_machine m;
    lab_machine_probe(&m);
    return qz_check_with(p, &m, err);
}

static int qz_run_lab(struct lab_ctx *cx, struct core_err *err)
{
    const struct lab_params *pp = lab_ctx_params(cx);
    const char *part = lab_param_str(pp, "part"), *device = lab_param_str(pp, "device");
    struct qz_run r = {.cx = cx, .clk = lab_ctx_clock(cx)};
    int rc;

    if (!r.clk)
        r.clk = core_clock_real();
    if ((rc = qz_check_with(pp, lab_ctx_machine(cx), err)) != 0)
        return rc;
    r.seed = (uint64_t)lab_param_num(pp, "seed");
    r.n = (size_t)lab_param_num(pp, "n_samples");
    r.bmin = (int)lab_param_num(pp, "bits_min");
    r.bmax = (int)lab_param_num(pp, "bits_max");
    bool all = strcmp(part, "all") == 0;
    bool do_sqnr = all || strcmp(part, "sqnr") == 0, do_model = all || strcmp(part, "model") == 0;
    bool do_gemm = all || strcmp(part, "gemm") == 0;

    /* The header: whether a GPU takes part, and if not, why. */
    struct core_err why;
    core_err_clear(&why);
    bool gpu = false;
    if (strcmp(device, "cpu") == 0) {
        lab_log(cx, LAB_LOG_INFO, "device=cpu: the GPU comparison is not run");
    } else if (kern_probe(NULL, &why) != 0) {
        lab_log(cx, LAB_LOG_WARN,
                "%s — the GPU INT8/FP32 comparison is skipped; everything "
                "else runs on the CPU",
                why.msg);
    } else if (!kern_built_with_cublas()) {
        snprintf(
            why.msg, sizeof why.msg,
            "no cuBLAS: this build has CUDA but no cuBLAS (not in the toolkit, or WB_CUBLAS=OFF)");
        lab_log(cx, LAB_LOG_WARN, "%s — the GPU comparison is skipped", why.msg);
    } else {
        gpu = do_gemm;
    }

    int parts = do_sqnr + do_model + do_gemm, done = 0;
    r.p_span = 1.0 / parts;
    if (do_sqnr) {
        r.p_base = (double)done++ / parts;
        if ((rc = qz_sqnr(&r, pp, err)) != 0)
            return rc;
    }
    if (do_model) {
        r.p_base = (double)done++ / parts;
        if ((rc = qz_model(&r, pp, err)) != 0)
            return rc;
    }
    if (do_gemm) {
        r.p_base = (double)done++ / parts;
        if ((rc = qz_gemm(&r, pp, gpu, err)) != 0)
            return rc;
    }
    lab_figure_str(cx, "device", gpu ? "gpu" : "cpu", "where the INT8/FP32 comparison ran");
    if (!gpu && strcmp(device, "cpu") != 0 && why.msg[0])
        lab_figure_str(cx, "no_gpu", why.msg, "why the GPU part did not run");
    lab_progress(cx, 1, "done");
    return 0;
}

/* ---- the definition ------------------------------------------------------------------- */

static const struct lab_param_def qz_params[] = {
    {"part", LAB_P_ENUM, "all", NULL, 0, 0, "all|sqnr|model|gemm", "", "which experiments to run"},
    {"bits_min", LAB_P_INT, "2", NULL, QUANT_MIN_BITS, QUANT_MAX_BITS, NULL, "bits", "fewest bits"},
    {"bits_max", LAB_P_INT, "16", NULL, QUANT_MIN_BITS, QUANT_MAX_BITS, NULL, "bits", "most bits"},
    {"n_samples", LAB_P_INT, "262144", NULL, 1024, 16777216, NULL, "",
     "values in each signal of the SQNR part"},
    {"seed", LAB_P_INT, "1", NULL, 0, 2147483647, NULL, "", "of every random value in the run"},
    {"channels", LAB_P_INT, "64", NULL, 2, 4096, NULL, "",
     "rows (output channels) of the outlier tensor"},
    {"outlier_channels", LAB_P_INT, "2", NULL, 0, 4095, NULL, "",
     "rows of the outlier tensor that are outlier_scale times larger"},
    {"outlier_scale", LAB_P_REAL, "20", NULL, 1, 1000, NULL, "x",
     "how much larger the outlier rows are"},
    {"hidden", LAB_P_INT, "64", NULL, 4, 512, NULL, "", "width of the MLP's two hidden layers"},
    {"epochs", LAB_P_INT, "8", NULL, 1, 200, NULL, "", "training epochs of the MLP"},
    {"n_train", LAB_P_INT, "8192", NULL, 256, 262144, NULL, "",
     "training examples (the test set is half as many, at least 512)"},
    {"gemm_n", LAB_P_INT, "512", NULL, 16, 4096, NULL, "",
     "largest CPU matrix size (n x n times n x n); sizes 64, 128, ... up to it"},
    {"min_ms", LAB_P_INT, "150", NULL, 1, 10000, NULL, "ms",
     "repeat each CPU product this long; the fastest counts"},
    {"device", LAB_P_ENUM, "auto", NULL, 0, 0, "auto|gpu|cpu", "",
     "auto: the GPU comparison when there is a GPU; gpu: fail without one"},
    {"gpu_n", LAB_P_INT, "4096", NULL, 16, 16384, NULL, "", "GPU matrix size (a multiple of 16)"},
    {"gpu_reps", LAB_P_INT, "20", NULL, 1, 1000, NULL, "", "GPU: timed products (the median)"},
};

static const struct lab_series_def qz_series[] = {
    {"formula", "6.02 b + 1.76 (the course)", "dB", "SQNR against bits", "bits"},
    {"sine", "full-scale sine", "dB", "SQNR against bits", "bits"},
    {"uniform", "full-scale uniform", "dB", "SQNR against bits", "bits"},
    {"gauss_max", "Gaussian, scaled by max", "dB", "SQNR against bits", "bits"},
    {"gauss_clip", "Gaussian, optimal clip", "dB", "SQNR against bits", "bits"},
    {"clip_sigma", "optimal clip / RMS", "sigma", "optimal clip", "bits"},
    {"outlier_tensor", "all rows, per-tensor scale", "dB", "outlier channels", "bits"},
    {"outlier_channel", "all rows, per-channel", "dB", "outlier channels", "bits"},
    {"ordinary_tensor", "ordinary rows, per-tensor", "dB", "outlier channels", "bits"},
    {"ordinary_channel", "ordinary rows, per-channel", "dB", "outlier channels", "bits"},
    {"relu_sym", "ReLU output, symmetric", "dB", "symmetric vs asymmetric", "bits"},
    {"relu_asym", "ReLU output, asymmetric", "dB", "symmetric vs asymmetric", "bits"},
    {"train_loss", "training loss", "", "MLP training", "epoch"},
    {"test_acc", "test accuracy", "%", "MLP test accuracy", "epoch"},
    {"acc_tensor", "per-tensor weights", "%", "accuracy against bits", "bits"},
    {"acc_channel", "per-channel weights", "%", "accuracy against bits", "bits"},
    {"acc_fp32", "FP32 weights", "%", "accuracy against bits", "bits"},
    {"size_kib", "b-bit weights", "KiB", "model size", "bits"},
    {"size_fp32_kib", "FP32", "KiB", "model size", "bits"},
    {"gemm_ours_f32", "ours FP32", "GOP/s", "GEMM speed (1 thread)", "n"},
    {"gemm_ours_s8", "ours INT8", "GOP/s", "GEMM speed (1 thread)", "n"},
    {"gemm_dnnl_f32", "oneDNN FP32", "GOP/s", "GEMM speed (1 thread)", "n"},
    {"gemm_dnnl_s8", "oneDNN INT8", "GOP/s", "GEMM speed (1 thread)", "n"},
};

/* The GEMM sizes double: a log x axis. */
static const struct lab_chart_def qz_charts[] = {{"GEMM speed (1 thread)", NULL, true}};

const struct lab_def lab_quant_def = {
    .name = "quantize",
    .title = "Quantization: bits, noise, accuracy, speed",
    .summary = "SQNR at 2..16 bits against 6.02 b + 1.76 dB (sine, uniform, Gaussian, clipping, "
               "outlier channels, asymmetric), an MLP's accuracy against bits, INT8 vs FP32 GEMM",
    .params = qz_params,
    .n_params = sizeof qz_params / sizeof qz_params[0],
    .series = qz_series,
    .n_series = sizeof qz_series / sizeof qz_series[0],
    .check = qz_check,
    .run = qz_run_lab,
    .charts = qz_charts,
    .n_charts = sizeof qz_charts / sizeof qz_charts[0],
};
