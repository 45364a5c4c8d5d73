/*
 * grader_tol.c — how close counts as right: tolerance intervals, their text
 * for the student, and partial-credit bands.
 *
 * Decisions:
 *   - Tolerance fields come from instructor Lua, so they are cleaned rather
 *     than trusted: a negative or NaN rel/abs counts as 0, sig is clamped to
 *     0..15 (a double holds no more than 15 reliable decimal figures).
 *   - Significant figures: the reference is rounded to `sig` figures, R; an
 *     answer is accepted when it lies within half a unit in the last place of
 *     R, ends included ("2.5" with sig 2 accepts 2.45 ... 2.55). When R is a
 *     power of ten the figures below it are one place finer (R = 10 with sig
 *     2 accepts 9.95 ... 10.5), because 9.96 also rounds to 10. The ends are
 *     computed as the correctly rounded double of a decimal (2.45 is read as
 *     the same double the student's "2.45" parses to).
 *   - Acceptance adds a slack of 1e-12 relative to the interval's ends, so an
 *     answer typed exactly as a printed end ("2.475") is inside even when
 *     ref*(1-rel) rounds a hair above it.
 *   - The description starts at 4 significant figures and adds figures until
 *     the two ends print differently from each other and from the reference;
 *     a zero-width interval reads "exactly X" with the fewest figures that
 *     read back as X.
 */
#include "grader_pure.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define SIG_MAX 15
#define ZERO_ABS 1e-9 /* the contract's abs for a reference of exactly 0 */
#define SLACK 1e-12   /* relative slack at the ends, see above */

void grader_tol_default(struct grader_tol *t)
{
    t->rel = 0.01;
    t->abs = 0;
    t->sig = 0;
}

static double clean(double x)
{
    return x >= 0 && isfinite(x) ? x : 0;
}

static int clean_sig(int sig)
{
    return sig < 0 ? 0 : sig > SIG_MAX ? SIG_MAX : sig;
}

/* 10^k, exact for |k| <= 22. */
static double p10(int k)
{
    return pow(10.0, k);
}

/* num × 10^k ÷ den, with one rounding in the usual cases (num and den exact). */
static double scaled(double num, int k, double den)
{
    return k >= 0 ? num * p10(k) / den : num / (den * p10(-k));
}

/* The sig-figure interval of a > 0 (see the file comment). */
static void sig_interval(double a, int sig, double *lo, double *hi)
{
    char e[64];
    snprintf(e, sizeof e, "%.*e", sig - 1, a);
    double m = 0;
    int ex = 0;
    const char *q = e;
    for (; *q && *q != 'e'; q++)
        if (*q >= '0' && *q <= '9')
            m = m * 10 + (*q - '0'); /* at most 15 digits: exact */
    if (*q == 'e') {
        q++;
        int neg = *q == '-';
        if (*q == '-' || *q == '+')
            q++;
        for (; *q >= '0' && *q <= '9'; q++)
            ex = ex * 10 + (*q - '0');
        if (neg)
            ex = -ex;
    }
    int k = ex - sig + 1; /* R = m × 10^k */
    *hi = scaled(2 * m + 1, k, 2);
    if (m == p10(sig - 1))
        *lo = scaled(20 * m - 1, k, 20); /* R is a power of ten */
    else
        *lo = scaled(2 * m - 1, k, 2);
}

void grader_tol_interval(const struct grader_tol *t, double ref, double *lo, double *hi)
{
    struct grader_tol dflt;
    if (!t) {
        grader_tol_default(&dflt);
        t = &dflt;
    }
    *lo = *hi = ref;
    if (!isfinite(ref))
        return;
    double rel = clean(t->rel), abs_ = clean(t->abs);
    int sig = clean_sig(t->sig);
    if (ref == 0 && abs_ == 0)
        abs_ = ZERO_ABS;
    double w = fmax(rel * fabs(ref), abs_);
    *lo = ref - w;
    *hi = ref + w;
    if (sig > 0 && ref != 0) {
        double slo, shi;
        sig_interval(fabs(ref), sig, &slo, &shi);
        if (ref < 0) {
            double t0 = slo;
            slo = -shi;
            shi = -t0;
        }
        /* both intervals hold ref, so their union is the hull */
        *lo = fmin(*lo, slo);
        *hi = fmax(*hi, shi);
    }
}

bool grader_tol_accepts(const struct grader_tol *t, double ref, double v)
{
    if (!isfinite(ref) || !isfinite(v))
        return false;
    double lo, hi;
    grader_tol_interval(t, ref, &lo, &hi);
    double slack = SLACK * fmax(fabs(lo), fabs(hi));
    return v >= lo - slack && v <= hi + slack;
}

char *grader_tol_describe(const struct grader_tol *t, double ref, const char *unit, char *buf,
                          size_t n)
{
    if (!buf || n == 0)
        return buf;
    const char *sep = unit && *unit ? " " : "";
    if (!unit)
        unit = "";
    double lo, hi;
    grader_tol_interval(t, ref, &lo, &hi);
    char a[48], b[48];
    if (lo == hi) {
        /* the fewest figures that read back as ref: "exactly 0.1" */
        for (int sig = 1; sig <= 17; sig++) {
            struct grader_number r;
            grader_number_format(ref, sig, a, sizeof a);
            if (grader_number_parse(a, "", &r) && r.value == ref)
                break;
        }
        snprintf(buf, n, "exactly %s%s%s", a, sep, unit);
        return buf;
    }
    /* enough figures that the ends differ from each other and from ref, so
     * 100 ± 0.0001 reads "99.9999 to 100.0001", not "99.9999 to 100" */
    for (int sig = 4; sig <= 17; sig++) {
        char r[48];
        grader_number_format(lo, sig, a, sizeof a);
        grader_number_format(hi, sig, b, sizeof b);
        grader_number_format(ref, sig, r, sizeof r);
        if (strcmp(a, b) != 0 && (lo == ref || strcmp(a, r) != 0) &&
            (hi == ref || strcmp(b, r) != 0))
            break;
    }
    snprintf(buf, n, "%s to %s%s%s", a, b, sep, unit);
    return buf;
}

double grader_tol_score(const struct grader_tol *tol, const struct grader_band *bands,
                        size_t n_bands, double ref, double v, int *band)
{
    if (band)
        *band = -1;
    if (!isfinite(ref) || !isfinite(v))
        return 0;
    if (grader_tol_accepts(tol, ref, v))
        return 1;
    double best = 0;
    int best_i = -1;
    for (size_t i = 0; bands && i < n_bands; i++) {
        if (!grader_tol_accepts(&bands[i].tol, ref, v))
            continue;
        double s = bands[i].score >= 0 ? fmin(bands[i].score, 1) : 0; /* NaN -> 0 */
        if (best_i < 0 || s > best) {
            best = s;
            best_i = (int)i;
        }
    }
    if (band)
        *band = best_i;
    return best;
}

/* ---- off only by rounding ---------------------------------------------------- */

bool grader_tol_rounding_note(const struct grader_tol *tol, double ref, const char *text,
                              const struct grader_number *num, const char *unit, char *buf,
                              size_t n)
{
    if (!num->ok || !isfinite(ref) || ref != floor(ref) || n == 0)
        return false;
    double v = num->value;
    /* right: accepted, and the whole number nearest to it is the reference */
#define HITS(x) (grader_tol_accepts(tol, ref, (x)) && fabs((x)-ref) < 0.5)
    if (HITS(v))
        return false;
    const char *sp = unit && unit[0] ? " " : "";
    const char *un = unit ? unit : "";
    char got[40];
    grader_number_format(v, 6, got, sizeof got);
    if (num->c_differs && HITS(num->c_value)) {
        /* the student's text quoted back only when short, printable ASCII */
        char said[64] = "your expression";
        size_t len = text ? strlen(text) : 0;
        bool plain = len > 0 && len + 3 < sizeof said;
        for (size_t i = 0; plain && i < len; i++)
            plain = text[i] >= 0x20 && text[i] < 0x7f;
        if (plain)
            snprintf(said, sizeof said, "\"%s\"", text);
        snprintf(buf, n,
                 "%s is %s%s%s with real division, which is how / is read here; C's "
                 "integer division would truncate it to a whole number. To divide as C does, "
                 "write // (it rounds down, as in Python): (n + 255)//256; or round up with "
                 "ceil(n/256).",
                 said, got, sp, un);
        return true;
    }
    if (v == floor(v))
        return false;
    bool up = HITS(ceil(v)), down = !up && HITS(floor(v));
#undef HITS
    if (!up && !down)
        return false;
    /* The rounded value itself is not written: it is the answer. */
    snprintf(buf, n,
             "%s%s%s is not a whole number, and the answer is a whole count: round it %s "
             "(%s(%s)). Whole numbers n/d rounded %s: %s.",
             got, sp, un, up ? "up" : "down", up ? "ceil" : "floor", got, up ? "up" : "down",
             up ? "ceil(n/d), or (n + d - 1)//d" : "floor(n/d), or n//d");
    return true;
}

/* The feedback of a miss: how close counts, not where the answer lies. */
void grader_tol_miss(const struct grader_tol *tol, double ref, const char *unit, char *fb, size_t n)
{
    int at = snprintf(fb, n, "Not within the accepted tolerance (");
    if (tol->rel > 0)
        at += snprintf(fb + at, n - (size_t)at, "±%g%%", tol->rel * 100);
    if (tol->abs > 0)
        at += snprintf(fb + at, n - (size_t)at, "%s±%g%s%s", tol->rel > 0 ? " or " : "", tol->abs,
                       unit && unit[0] ? " " : "", unit ? unit : "");
    if (tol->sig > 0)
        at += snprintf(fb + at, n - (size_t)at, "%s%d significant figures",
                       tol->rel > 0 || tol->abs > 0 ? ", or the same " : "the same ", tol->sig);
    if (!(tol->rel > 0) && !(tol->abs > 0) && tol->sig <= 0) /* see grader_tol_interval */
        at += snprintf(fb + at, n - (size_t)at, "%s", ref == 0 ? "±1e-09" : "the exact value only");
    snprintf(fb + at, n - (size_t)at, "). Check the formula and the arithmetic.");
}

/* A slip of form rather than of method: the answer times 1000, 100 or a
 * million (or divided by them) would be right. Writes feedback naming the
 * slip, never the reference, and returns true. */
bool grader_tol_slip(const struct grader_tol *tol, double ref, const struct grader_number *num,
                     const char *unit, char *fb, size_t n)
{
    static const double factors[] = {1000, 100, 1000000};
    if (!unit)
        unit = "";
    bool pct = strcmp(unit, "%") == 0;
    for (size_t i = 0; i < sizeof factors / sizeof factors[0]; i++) {
        double f = factors[i];
        bool small = grader_tol_accepts(tol, ref, num->value * f);
        bool big = !small && grader_tol_accepts(tol, ref, num->value / f);
        if (!small && !big)
            continue;
        const char *how = small ? "small" : "large";
        if (f == 100 && pct && small)
            snprintf(fb, n,
                     "That is 100 times too small: a fraction where per cent is asked? (A bare "
                     "number here is read as per cent.)");
        else if (f == 100 && pct)
            snprintf(fb, n, "That is 100 times too large: per cent counted twice?");
        else if (f == 100)
            snprintf(fb, n,
                     "That is 100 times too %s: a slip between a fraction and per cent? (56%% "
                     "is 0.56 here.)",
                     how);
        else if (num->unit[0])
            snprintf(fb, n,
                     "That is %g times too %s: a slip of units? (It was read as written, in "
                     "%s%s%s.)",
                     f, how, num->unit, unit[0] ? ", and converted to " : "", unit);
        else
            snprintf(fb, n,
                     "That is %g times too %s: a slip of units or prefixes (ms and s, MB and "
                     "GB)?%s%s%s",
                     f, how, unit[0] ? " A bare number is read in " : "", unit, unit[0] ? "." : "");
        return true;
    }
    return false;
}
