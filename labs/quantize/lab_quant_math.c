/*
 * lab_quant_math.c — the quantize lab's arithmetic: random streams,
 * quantizers, SQNR, the optimal-clip search and the small MLP (see
 * lab_quant.h). Pure: no I/O, no clocks, no globals.
 */
#include "labs/quantize/lab_quant.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- random numbers -------------------------------------------------------------- */

void lab_quant_rng_seed(struct quant_rng *r, uint64_t seed)
{
    r->s = seed ^ 0x5851f42d4c957f2dull;
}

uint64_t lab_quant_rng_next(struct quant_rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

double lab_quant_rng_uniform(struct quant_rng *r)
{
    return (double)(lab_quant_rng_next(r) >> 11) * 0x1.0p-53;
}

double lab_quant_rng_gauss(struct quant_rng *r)
{
    double u = 1.0 - lab_quant_rng_uniform(r); /* (0, 1]: log is finite */
    double v = lab_quant_rng_uniform(r);
    return sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
}

double lab_quant_rng_laplace(struct quant_rng *r)
{
    double u = lab_quant_rng_uniform(r) - 0.5;
    double m = 1.0 - 2.0 * fabs(u); /* (0, 1] */
    if (m <= 0)
        m = 0x1.0p-53;
    /* scale 1/sqrt(2): variance 2·scale² = 1 */
    return (u < 0 ? 1.0 : -1.0) * log(m) / M_SQRT2;
}

/* ---- quantizers ------------------------------------------------------------------- */

double lab_quant_formula_db(int bits)
{
    return 6.02 * bits + 1.76;
}

double lab_quant_sqnr_db(const double *x, const double *y, size_t n)
{
    double s = 0, e = 0;
    for (size_t i = 0; i < n; i++) {
        double d = x[i] - y[i];
        s += x[i] * x[i];
        e += d * d;
    }
    if (!(s > 0))
        return NAN;
    if (!(e > 0))
        return INFINITY;
    return 10.0 * log10(s / e);
}

void lab_quant_ideal(const double *x, double *y, size_t n, int bits, double A)
{
    double half = ldexp(1.0, bits - 1); /* 2^(b-1): levels on each side */
    double step = A / half;
    for (size_t i = 0; i < n; i++) {
        double q = floor(x[i] / step);
        if (q < -half)
            q = -half;
        if (q > half - 1)
            q = half - 1;
        y[i] = (q + 0.5) * step;
    }
}

void lab_quant_sym(const double *x, double *y, size_t n, int bits, double clip)
{
    double L = ldexp(1.0, bits - 1) - 1;
    double s = clip / L;
    for (size_t i = 0; i < n; i++) {
        double q = nearbyint(x[i] / s);
        if (q > L)
            q = L;
        if (q < -L)
            q = -L;
        y[i] = q * s;
    }
}

void lab_quant_asym(const double *x, double *y, size_t n, int bits, double lo, double hi)
{
    double top = ldexp(1.0, bits) - 1;
    double s = (hi - lo) / top;
    double z = nearbyint(-lo / s);
    for (size_t i = 0; i < n; i++) {
        double q = nearbyint(x[i] / s) + z;
        if (q < 0)
            q = 0;
        if (q > top)
            q = top;
        y[i] = (q - z) * s;
    }
}

double lab_quant_absmax(const double *x, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++)
        if (fabs(x[i]) > m)
            m = fabs(x[i]);
    return m;
}

double lab_quant_rms(const double *x, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i] * x[i];
    return n ? sqrt(s / (double)n) : 0;
}

void lab_quant_sym_rows(const double *x, double *y, size_t rows, size_t cols, int bits)
{
    for (size_t r = 0; r < rows; r++) {
        const double *xr = x + r * cols;
        double *yr = y + r * cols;
        double m = lab_quant_absmax(xr, cols);
        if (m > 0)
            lab_quant_sym(xr, yr, cols, bits, m);
        else
            memset(yr, 0, cols * sizeof *yr);
    }
}

static double sqnr_at(const double *x, size_t n, int bits, double clip, double *scratch)
{
    lab_quant_sym(x, scratch, n, bits, clip);
    return lab_quant_sqnr_db(x, scratch, n);
}

double lab_quant_best_clip(const double *x, size_t n, size_t search_n, int bits, double *scratch,
                           double *sqnr)
{
    enum { GRID = 48, GOLDEN_STEPS = 30 };
    size_t m = search_n && search_n < n ? search_n : n;
    double top = lab_quant_absmax(x, n);
    if (!(top > 0)) {
        *sqnr = NAN;
        return 0;
    }
    double grid[GRID], val[GRID];
    int best = 0;
    for (int t = 0; t < GRID; t++) {
        grid[t] = top * exp2(-6.0 * (GRID - 1 - t) / (GRID - 1)); /* max/64 .. max */
        val[t] = sqnr_at(x, m, bits, grid[t], scratch);
        if (val[t] > val[best])
            best = t;
    }
    /* golden section on [left neighbour, right neighbour] of the best point */
    double a = grid[best > 0 ? best - 1 : 0], b = grid[best < GRID - 1 ? best + 1 : GRID - 1];
    const double g = 0.6180339887498949;
    double c = b - g * (b - a), d = a + g * (b - a);
    double fc = sqnr_at(x, m, bits, c, scratch), fd = sqnr_at(x, m, bits, d, scratch);
    for (int k = 0; k < GOLDEN_STEPS; k++) {
        if (fc >= fd) {
            b = d;
            d = c;
            fd = fc;
            c = b - g * (b - a);
            fc = sqnr_at(x, m, bits, c, scratch);
        } else {
            a = c;
            c = d;
            fc = fd;
            d = a + g * (b - a);
            fd = sqnr_at(x, m, bits, d, scratch);
        }
    }
    double clip = fc >= fd ? c : d;
    if ((fc >= fd ? fc : fd) < val[best]) /* the grid point was better after all */
        clip = grid[best];
    *sqnr = sqnr_at(x, n, bits, clip, scratch);
    return clip;
}

/* ---- the MLP ------------------------------------------------------------------------ */

void lab_quant_data_make(uint64_t seed, int n, int d_in, int classes, float *x, int32_t *y)
{
    enum { TH = 32 };
    struct quant_rng r;
    lab_quant_rng_seed(&r, seed * 0x9e3779b97f4a7c15ull + 17);
    double *t1 = core_xmalloc(sizeof *t1 * (size_t)TH * (size_t)d_in);
    double *t2 = core_xmalloc(sizeof *t2 * (size_t)classes * TH);
    for (size_t i = 0; i < (size_t)TH * (size_t)d_in; i++)
        t1[i] = lab_quant_rng_gauss(&r) * 1.5 / sqrt((double)d_in);
    for (size_t i = 0; i < (size_t)classes * TH; i++)
        t2[i] = lab_quant_rng_gauss(&r) / sqrt((double)TH);
    for (size_t e = 0; e < (size_t)n; e++) {
        float *xe = x + e * (size_t)d_in;
        double h[TH];
        for (int j = 0; j < d_in; j++)
            xe[j] = (float)lab_quant_rng_gauss(&r);
        for (int i = 0; i < TH; i++) {
            double s = 0;
            for (int j = 0; j < d_in; j++)
                s += t1[(size_t)i * (size_t)d_in + (size_t)j] * xe[j];
            h[i] = tanh(s);
        }
        int best = 0;
        double bv = -INFINITY;
        for (int c = 0; c < classes; c++) {
            double s = 0;
            for (int i = 0; i < TH; i++)
                s += t2[(size_t)c * TH + (size_t)i] * h[i];
            if (s > bv) {
                bv = s;
                best = c;
            }
        }
        y[e] = best;
    }
    free(t1);
    free(t2);
}

void lab_quant_mlp_init(struct quant_mlp *m, int d_in, int hidden, int classes, uint64_t seed)
{
    struct quant_rng r;
    lab_quant_rng_seed(&r, seed * 0xd1b54a32d192ed03ull + 5);
    memset(m, 0, sizeof *m);
    m->d_in = d_in;
    m->hidden = hidden;
    m->classes = classes;
    int ins[QUANT_LAYERS] = {d_in, hidden, hidden}, outs[QUANT_LAYERS] = {hidden, hidden, classes};
    for (int l = 0; l < QUANT_LAYERS; l++) {
        m->rows[l] = outs[l];
        m->cols[l] = ins[l];
        size_t nw = (size_t)outs[l] * (size_t)ins[l];
        m->w[l] = core_xmalloc(nw * sizeof *m->w[l]);
        m->b[l] = core_xcalloc((size_t)outs[l], sizeof *m->b[l]);
        double sd = sqrt(2.0 / ins[l]);
        for (size_t i = 0; i < nw; i++)
            m->w[l][i] = (float)(lab_quant_rng_gauss(&r) * sd);
    }
}

void lab_quant_mlp_fini(struct quant_mlp *m)
{
    if (!m)
        return;
    for (int l = 0; l < QUANT_LAYERS; l++) {
        free(m->w[l]);
        free(m->b[l]);
    }
    memset(m, 0, sizeof *m);
}

void lab_quant_mlp_copy(struct quant_mlp *dst, const struct quant_mlp *src)
{
    *dst = *src;
    for (int l = 0; l < QUANT_LAYERS; l++) {
        size_t nw = (size_t)src->rows[l] * (size_t)src->cols[l];
        dst->w[l] = core_xmalloc(nw * sizeof *dst->w[l]);
        memcpy(dst->w[l], src->w[l], nw * sizeof *dst->w[l]);
        dst->b[l] = core_xmalloc((size_t)src->rows[l] * sizeof *dst->b[l]);
        memcpy(dst->b[l], src->b[l], (size_t)src->rows[l] * sizeof *dst->b[l]);
    }
}

size_t lab_quant_mlp_weights(const struct quant_mlp *m)
{
    size_t n = 0;
    for (int l = 0; l < QUANT_LAYERS; l++)
        n += (size_t)m->rows[l] * (size_t)m->cols[l];
    return n;
}

size_t lab_quant_mlp_biases(const struct quant_mlp *m)
{
    size_t n = 0;
    for (int l = 0; l < QUANT_LAYERS; l++)
        n += (size_t)m->rows[l];
    return n;
}

/* out[o] = b[o] + Σ w[o][i]·in[i], ReLU when relu. */
static void layer_fwd(const struct quant_mlp *m, int l, const float *in, float *out, bool relu)
{
    int R = m->rows[l], C = m->cols[l];
    for (int o = 0; o < R; o++) {
        const float *w = m->w[l] + (size_t)o * (size_t)C;
        float s = m->b[l][o];
        for (int i = 0; i < C; i++)
            s += w[i] * in[i];
        out[o] = relu && s < 0 ? 0 : s;
    }
}

/* The largest layer width, for scratch sizes. */
static int widest(const struct quant_mlp *m)
{
    int w = m->d_in;
    if (m->hidden > w)
        w = m->hidden;
    if (m->classes > w)
        w = m->classes;
    return w;
}

double lab_quant_mlp_accuracy(const struct quant_mlp *m, const float *x, const int32_t *y, int n)
{
    int W = widest(m);
    float *h1 = core_xmalloc((size_t)W * sizeof *h1), *h2 = core_xmalloc((size_t)W * sizeof *h2);
    float *o = core_xmalloc((size_t)W * sizeof *o);
    int right = 0;
    for (int e = 0; e < n; e++) {
        layer_fwd(m, 0, x + (size_t)e * (size_t)m->d_in, h1, true);
        layer_fwd(m, 1, h1, h2, true);
        layer_fwd(m, 2, h2, o, false);
        int best = 0;
        for (int c = 1; c < m->classes; c++)
            if (o[c] > o[best])
                best = c;
        right += best == y[e];
    }
    free(h1);
    free(h2);
    free(o);
    return n > 0 ? (double)right / n : 0;
}

double lab_quant_mlp_epoch(struct quant_mlp *m, const float *x, const int32_t *y, int n, int batch,
                           double lr, uint64_t shuffle_seed)
{
    int W = widest(m);
    int *order = core_xmalloc((size_t)n * sizeof *order);
    struct quant_rng r;
    lab_quant_rng_seed(&r, shuffle_seed);
    for (int i = 0; i < n; i++)
        order[i] = i;
    for (int i = n - 1; i > 0; i--) { /* Fisher–Yates */
        int j = (int)(lab_quant_rng_next(&r) % (uint64_t)(i + 1));
        int t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    float *gw[QUANT_LAYERS], *gb[QUANT_LAYERS];
    for (int l = 0; l < QUANT_LAYERS; l++) {
        gw[l] = core_xmalloc((size_t)m->rows[l] * (size_t)m->cols[l] * sizeof *gw[l]);
        gb[l] = core_xmalloc((size_t)m->rows[l] * sizeof *gb[l]);
    }
    float *h1 = core_xmalloc((size_t)W * sizeof(float)),
          *h2 = core_xmalloc((size_t)W * sizeof(float));
    float *o = core_xmalloc((size_t)W * sizeof(float)),
          *d3 = core_xmalloc((size_t)W * sizeof(float));
    float *d2 = core_xmalloc((size_t)W * sizeof(float)),
          *d1 = core_xmalloc((size_t)W * sizeof(float));
    double loss = 0;

    for (int b0 = 0; b0 < n; b0 += batch) {
        int bn = n - b0 < batch ? n - b0 : batch;
        for (int l = 0; l < QUANT_LAYERS; l++) {
            memset(gw[l], 0, (size_t)m->rows[l] * (size_t)m->cols[l] * sizeof *gw[l]);
            memset(gb[l], 0, (size_t)m->rows[l] * sizeof *gb[l]);
        }
        for (int k = 0; k < bn; k++) {
            int e = order[b0 + k];
            const float *xe = x + (size_t)e * (size_t)m->d_in;
            layer_fwd(m, 0, xe, h1, true);
            layer_fwd(m, 1, h1, h2, true);
            layer_fwd(m, 2, h2, o, false);
            /* softmax cross-entropy: d3 = p - onehot */
            float mx = o[0];
            for (int c = 1; c < m->classes; c++)
                mx = o[c] > mx ? o[c] : mx;
            double z = 0;
            for (int c = 0; c < m->classes; c++)
                z += exp((double)(o[c] - mx));
            for (int c = 0; c < m->classes; c++)
                d3[c] = (float)(exp((double)(o[c] - mx)) / z) - (c == y[e]);
            loss += -((double)(o[y[e]] - mx) - log(z));
            /* back through the layers: dW += d·inᵀ, d_in = Wᵀ·d (masked by ReLU) */
            const float *ins[QUANT_LAYERS] = {xe, h1, h2};
            float *ds[QUANT_LAYERS] = {d1, d2, d3};
            for (int l = QUANT_LAYERS - 1; l >= 0; l--) {
                int R = m->rows[l], C = m->cols[l];
                const float *in = ins[l];
                float *d = ds[l];
                for (int oo = 0; oo < R; oo++) {
                    float *g = gw[l] + (size_t)oo * (size_t)C;
                    for (int i = 0; i < C; i++)
                        g[i] += d[oo] * in[i];
                    gb[l][oo] += d[oo];
                }
                if (l == 0)
                    break;
                float *dprev = ds[l - 1];
                for (int i = 0; i < C; i++)
                    dprev[i] = 0;
                for (int oo = 0; oo < R; oo++) {
                    const float *w = m->w[l] + (size_t)oo * (size_t)C;
                    for (int i = 0; i < C; i++)
                        dprev[i] += w[i] * d[oo];
                }
                for (int i = 0; i < C; i++)
                    if (!(in[i] > 0)) /* ReLU'(h) = 0 where h was clipped */
                        dprev[i] = 0;
            }
        }
        float step = (float)(lr / bn);
        for (int l = 0; l < QUANT_LAYERS; l++) {
            size_t nw = (size_t)m->rows[l] * (size_t)m->cols[l];
            for (size_t i = 0; i < nw; i++)
                m->w[l][i] -= step * gw[l][i];
            for (int i = 0; i < m->rows[l]; i++)
                m->b[l][i] -= step * gb[l][i];
        }
    }
    for (int l = 0; l < QUANT_LAYERS; l++) {
        free(gw[l]);
        free(gb[l]);
    }
    free(h1), free(h2), free(o), free(d1), free(d2), free(d3);
    free(order);
    return n > 0 ? loss / n : 0;
}

void lab_quant_mlp_quantize(struct quant_mlp *m, int bits, bool per_channel)
{
    for (int l = 0; l < QUANT_LAYERS; l++) {
        size_t R = (size_t)m->rows[l], C = (size_t)m->cols[l];
        double *v = core_xmalloc(R * C * sizeof *v);
        for (size_t i = 0; i < R * C; i++)
            v[i] = m->w[l][i];
        if (per_channel) {
            lab_quant_sym_rows(v, v, R, C, bits);
        } else {
            double mx = lab_quant_absmax(v, R * C);
            if (mx > 0)
                lab_quant_sym(v, v, R * C, bits, mx);
        }
        for (size_t i = 0; i < R * C; i++)
            m->w[l][i] = (float)v[i];
        free(v);
    }
}

double lab_quant_mlp_bytes(const struct quant_mlp *m, int bits, bool per_channel)
{
    double nw = (double)lab_quant_mlp_weights(m), nb = (double)lab_quant_mlp_biases(m);
    if (bits >= 32)
        return 4.0 * (nw + nb);
    double scales = 0;
    for (int l = 0; l < QUANT_LAYERS; l++)
        scales += per_channel ? m->rows[l] : 1;
    return ceil(nw * bits / 8.0) + 4.0 * nb + 4.0 * scales;
}
