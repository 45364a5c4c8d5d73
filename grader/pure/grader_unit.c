/*
 * grader_unit.c — the units a numeric answer may be written in: their
 * spellings, dimensions and exact scales, and conversion between them.
 *
 *   - Every unit converts through its dimension's base unit, so percentages
 *     follow from "%" being the ratio 1/100: "56%" is 0.56 against a plain ""
 *     question and 56 against a "%" question; "250%" is 2.5 against an "x"
 *     (×) question and "2.5x" is 250 against a "%" question. Note the flip
 *     side: a bare "0.56" against a "%" question means 0.56 %.
 *   - Unit spellings are case-sensitive (Mb is megabits, MB megabytes); an
 *     unknown spelling that matches known ones ignoring case is answered with
 *     "did you mean ..." (grader_unit_suggest).
 *
 * Conversions use exact integer ratios (ms = 1/1000 s, Gbps = 125000000 B/s)
 * so a conversion is one correctly rounded multiply or divide when the ratio
 * is a whole number either way: "320 ms" is exactly the double 0.32.
 *
 * Pure C (grader_pure.h): no Lua, no I/O, no globals but the table.
 */
#include "grader_pure.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A unit with its exact scale as num/den (both exact integers in a double),
 * and its other accepted spellings, space-separated. The grader_unit must be
 * the first member: grader_unit_find hands out pointers to it and unit_def()
 * converts back. */
struct unit_def {
    struct grader_unit u;
    double num, den;
    const char *aliases;
};

#define U(name, dim, num, den, aliases)                                                            \
    {                                                                                              \
        {name, GRADER_DIM_##dim, (double)(num) / (den)}, num, den, aliases                         \
    }

static const struct unit_def unit_table[] = {
    U("", NONE, 1, 1, NULL),
    U("×", NONE, 1, 1, "x X"),
    U("%", NONE, 1, 100, NULL),
    /* Arithmetic intensity, the course's FLOP per byte: a ratio of counts,
     * so "153 FLOP/B" is 153 against a plain-number question too. */
    U("FLOP/B", NONE, 1, 1, "FLOP/byte FLOPs/B FLOPs/byte flop/B flop/byte FLOP/Byte"),

    U("s", TIME, 1, 1, "sec secs second seconds"),
    U("ms", TIME, 1, 1000, "msec millisecond milliseconds"),
    U("µs", TIME, 1, 1000000, "us μs usec microsecond microseconds"), /* U+00B5, U+03BC */
    U("ns", TIME, 1, 1000000000, "nsec nanosecond nanoseconds"),
    U("min", TIME, 60, 1, "mins minute minutes"),
    U("h", TIME, 3600, 1, "hr hrs hour hours"),

    U("B", BYTES, 1, 1, "byte bytes"),
    U("KB", BYTES, 1000, 1, "kB"),
    U("MB", BYTES, 1000000, 1, NULL),
    U("GB", BYTES, 1000000000, 1, NULL),
    U("TB", BYTES, 1000000000000, 1, NULL),
    U("PB", BYTES, 1000000000000000, 1, NULL),
    U("KiB", BYTES, 1024, 1, NULL),
    U("MiB", BYTES, 1048576, 1, NULL),
    U("GiB", BYTES, 1073741824, 1, NULL),
    U("TiB", BYTES, 1099511627776, 1, NULL),
    U("bit", BYTES, 1, 8, "bits b"),
    U("Kb", BYTES, 125, 1, "kb Kbit kbit"),
    U("Mb", BYTES, 125000, 1, "Mbit"),
    U("Gb", BYTES, 125000000, 1, "Gbit"),
    U("Tb", BYTES, 125000000000, 1, "Tbit"),

    U("B/s", BANDWIDTH, 1, 1, "Bps"),
    U("KB/s", BANDWIDTH, 1000, 1, "kB/s KBps kBps"),
    U("MB/s", BANDWIDTH, 1000000, 1, "MBps"),
    U("GB/s", BANDWIDTH, 1000000000, 1, "GBps"),
    U("TB/s", BANDWIDTH, 1000000000000, 1, "TBps"),
    U("KiB/s", BANDWIDTH, 1024, 1, NULL),
    U("MiB/s", BANDWIDTH, 1048576, 1, NULL),
    U("GiB/s", BANDWIDTH, 1073741824, 1, NULL),
    U("TiB/s", BANDWIDTH, 1099511627776, 1, NULL),
    U("bps", BANDWIDTH, 1, 8, "b/s bit/s"),
    U("Kbps", BANDWIDTH, 125, 1, "kbps Kb/s kb/s Kbit/s kbit/s"),
    U("Mbps", BANDWIDTH, 125000, 1, "Mb/s Mbit/s"),
    U("Gbps", BANDWIDTH, 125000000, 1, "Gb/s Gbit/s"),
    U("Tbps", BANDWIDTH, 125000000000, 1, "Tb/s Tbit/s"),

    U("FLOP", FLOP, 1, 1, "flop"),
    U("MFLOP", FLOP, 1000000, 1, NULL),
    U("GFLOP", FLOP, 1000000000, 1, NULL),
    U("TFLOP", FLOP, 1000000000000, 1, NULL),
    U("PFLOP", FLOP, 1000000000000000, 1, NULL),

    U("FLOP/s", FLOPS, 1, 1, "FLOPS flop/s"),
    U("MFLOP/s", FLOPS, 1000000, 1, "MFLOPS"),
    U("GFLOP/s", FLOPS, 1000000000, 1, "GFLOPS"),
    U("TFLOP/s", FLOPS, 1000000000000, 1, "TFLOPS"),
    U("PFLOP/s", FLOPS, 1000000000000000, 1, "PFLOPS"),
};
#undef U

#define N_UNITS (sizeof unit_table / sizeof unit_table[0])

static const struct unit_def *unit_def(const struct grader_unit *u)
{
    return (const struct unit_def *)u; /* u is the first member of a table row */
}

static bool same_spelling(const char *a, size_t an, const char *b, size_t bn, bool fold)
{
    if (an != bn)
        return false;
    for (size_t i = 0; i < an; i++) {
        unsigned char x = (unsigned char)a[i], y = (unsigned char)b[i];
        if (fold) {
            x = (x >= 'A' && x <= 'Z') ? (unsigned char)(x + 32) : x;
            y = (y >= 'A' && y <= 'Z') ? (unsigned char)(y + 32) : y;
        }
        if (x != y)
            return false;
    }
    return true;
}

/* True when s[0..n) spells unit d (its name or an alias); `fold` ignores
 * ASCII case, for suggestions only. */
static bool unit_spelled(const struct unit_def *d, const char *s, size_t n, bool fold)
{
    if (same_spelling(d->u.name, strlen(d->u.name), s, n, fold))
        return true;
    for (const char *a = d->aliases; a && *a;) {
        const char *sp = strchr(a, ' ');
        size_t len = sp ? (size_t)(sp - a) : strlen(a);
        if (same_spelling(a, len, s, n, fold))
            return true;
        if (!sp)
            break;
        a = sp + 1;
    }
    return false;
}

const struct grader_unit *grader_unit_findn(const char *s, size_t n)
{
    for (size_t i = 0; i < N_UNITS; i++)
        if (unit_spelled(&unit_table[i], s, n, false))
            return &unit_table[i].u;
    return NULL;
}

const struct grader_unit *grader_unit_find(const char *spelling)
{
    if (!spelling)
        return NULL;
    return grader_unit_findn(spelling, strlen(spelling));
}

double grader_unit_convert(double x, const struct grader_unit *ufrom, const struct grader_unit *uto)
{
    const struct unit_def *from = unit_def(ufrom), *to = unit_def(uto);
    double n = from->num * to->den; /* exact: every product stays below 2^53 */
    double d = from->den * to->num;
    if (n == d)
        return x;
    if (fmod(n, d) == 0)
        return x * (n / d);
    if (fmod(d, n) == 0)
        return x / (d / n);
    return x * n / d;
}

const struct grader_unit *grader_unit_base(enum grader_dim dim)
{
    for (size_t i = 0; i < N_UNITS; i++)
        if (unit_table[i].u.dim == dim && unit_table[i].num == 1 && unit_table[i].den == 1)
            return &unit_table[i].u;
    return &unit_table[0].u;
}

const char *grader_dim_noun(enum grader_dim dim)
{
    switch (dim) {
    case GRADER_DIM_TIME:
        return "a time";
    case GRADER_DIM_BYTES:
        return "a size";
    case GRADER_DIM_BANDWIDTH:
        return "a bandwidth";
    case GRADER_DIM_FLOP:
        return "an operation count";
    case GRADER_DIM_FLOPS:
        return "a compute rate";
    case GRADER_DIM_NONE:
        break;
    }
    return "a ratio";
}

const char *grader_unit_phrase(const struct grader_unit *u)
{
    switch (u->dim) {
    case GRADER_DIM_TIME:
        return "a time such as 320 ms";
    case GRADER_DIM_BYTES:
        return "a size such as 4 MB";
    case GRADER_DIM_BANDWIDTH:
        return "a bandwidth such as 900 GB/s";
    case GRADER_DIM_FLOP:
        return "an operation count such as 2 GFLOP";
    case GRADER_DIM_FLOPS:
        return "a compute rate such as 10 TFLOP/s";
    case GRADER_DIM_NONE:
        break;
    }
    if (strcmp(u->name, "%") == 0)
        return "a percentage such as 56%";
    if (strcmp(u->name, "FLOP/B") == 0)
        return "an arithmetic intensity such as 150 FLOP/B";
    if (strcmp(u->name, "×") == 0)
        return "a ratio such as 2.5x";
    return "a plain number such as 2.5";
}

size_t grader_unit_suggest(const char *s, size_t n, char *buf, size_t bufn)
{
    size_t found = 0;
    if (bufn)
        buf[0] = '\0';
    for (size_t i = 0; i < N_UNITS && found < 3; i++) {
        if (unit_spelled(&unit_table[i], s, n, true)) {
            size_t len = strlen(buf);
            snprintf(buf + len, bufn - len, "%s%s", found ? " or " : "", unit_table[i].u.name);
            found++;
        }
    }
    return found;
}
