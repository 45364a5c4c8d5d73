/*
 * grader_number.c — reading a student's numeric answer: the units table, a
 * small safe expression evaluator, unit conversion, and number formatting.
 *
 * The evaluator is a recursive-descent parser that computes as it parses; it
 * never runs code. Grammar (spaces allowed between tokens):
 *
 *   answer  := expr [unit]
 *   expr    := term (('+' | '-') term)*
 *   term    := unary (('*' | '/' | '//') unary)*
 *   unary   := ('+' | '-') unary | power          -2^2 = -(2^2) = -4
 *   power   := primary [('^' | '**') unary]       right-associative
 *   primary := number | '(' expr ')' | const | func '(' expr (',' expr)* ')'
 *
 * Decisions a student meets (each refusal has a `why` saying how to write it):
 *   - Two signs in a row ("--1", "2+-1") are refused as a likely typo; a sign
 *     after '*', '/' or '^' is fine ("2*-3", "2^-1"), and "-(-1)" says it
 *     explicitly.
 *   - A comma is only an argument separator inside min()/max(). Anywhere else
 *     it is a decimal or thousands comma and is refused with the two readings
 *     spelled out, because guessing wrong would grade a wrong number.
 *   - "log" is the natural logarithm (as in Lua and Python); log2 and log10
 *     exist. "**" is accepted for '^'. Functions: sqrt, log = ln, log2,
 *     log10, exp, abs, min, max (two or more values), ceil, floor, round
 *     (halves away from zero, as C's round).
 *   - '/' is real division. "//" is floor division, as in Python and Lua:
 *     (1000+255)//256 = 4, the course's "round n/256 up" written in whole
 *     numbers. The same text is also evaluated with '/' between two whole
 *     numbers truncating, as C's integer division does (`c_value`), so a
 *     question that declares integer semantics can accept the course's
 *     (n + 255) / 256 typed literally, and any question can explain an
 *     answer that is off only by that rounding (grader_number_rounding_note). U+2212 (−) is
 * accepted for '-', and no-break/thin spaces for spaces (copy-paste from lesson text).
 *   - Numbers are checked for shape here (so each refusal can say how to
 *     write it), then converted by core_num_parse, which reads the C locale's
 *     notation whatever the process locale: "nan", "inf", "0x1p3" or a
 *     locale's decimal comma cannot slip through.
 *   - Units: one unit, after the whole expression. A bare number is in the
 *     expected unit. Every unit converts through its dimension's base unit, so
 *     percentages follow from "%" being the ratio 1/100: "56%" is 0.56 against
 *     a plain "" question and 56 against a "%" question; "250%" is 2.5 against
 *     an "x" (×) question and "2.5x" is 250 against a "%" question. Note the
 *     flip side: a bare "0.56" against a "%" question means 0.56 %.
 *   - Unit spellings are case-sensitive (Mb is megabits, MB megabytes); an
 *     unknown spelling that matches known ones ignoring case is answered with
 *     "did you mean ...".
 *
 * Conversions use exact integer ratios (ms = 1/1000 s, Gbps = 125000000 B/s)
 * so a conversion is one correctly rounded multiply or divide when the ratio
 * is a whole number either way: "320 ms" is exactly the double 0.32.
 */
#include "grader_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- units --------------------------------------------------------------- */

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

static const struct grader_unit *unit_findn(const char *s, size_t n)
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
    return unit_findn(spelling, strlen(spelling));
}

/* x in unit `from` expressed in unit `to` (same dimension). One correctly
 * rounded operation when the exact ratio is a whole number either way. */
static double unit_convert(double x, const struct unit_def *from, const struct unit_def *to)
{
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

static const struct unit_def *base_unit(enum grader_dim dim)
{
    for (size_t i = 0; i < N_UNITS; i++)
        if (unit_table[i].u.dim == dim && unit_table[i].num == 1 && unit_table[i].den == 1)
            return &unit_table[i];
    return &unit_table[0];
}

/* "a time", used as "ms is a time". */
static const char *dim_noun(enum grader_dim dim)
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

/* "a time such as 320 ms", used as "expected a time such as 320 ms". */
static const char *expect_phrase(const struct grader_unit *u)
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
    if (strcmp(u->name, "×") == 0)
        return "a ratio such as 2.5x";
    return "a plain number such as 2.5";
}

/* ---- text helpers -------------------------------------------------------- */

#define MAX_CHARS 256  /* longest answer, in characters */
#define MAX_BYTES 1024 /* and in bytes (4 per character at most) */
#define MAX_DEPTH 64   /* brackets, function calls and exponents inside each other */
#define QUOTE_MAX 24   /* bytes of student text quoted back in `why` */

static const double PI = 3.14159265358979323846;
static const double EULER = 2.71828182845904523536;

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 when invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    if (n == 0)
        return 0;
    unsigned c = s[0];
    size_t len;
    unsigned min;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        len = 2;
        min = 0x80;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        min = 0x800;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        min = 0x10000;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    unsigned cp = c & (0x3fu >> (len - 1));
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return len;
}

/* Copies s[0..n) into out as printable text for a message: control bytes and
 * invalid UTF-8 become '?', and long text is cut at a character boundary with
 * "…", so a `why` is always short, valid UTF-8 and safe to print. */
static void quote(const char *s, size_t n, char *out, size_t outn)
{
    size_t o = 0, i = 0;
    while (i < n && o + 5 < outn) {
        const unsigned char *u = (const unsigned char *)s + i;
        size_t len = utf8_len(u, n - i);
        if (i + len > QUOTE_MAX || o + len + 4 >= outn) {
            memcpy(out + o, "…", 3);
            o += 3;
            break;
        }
        if (len == 0 || (len == 1 && (u[0] < 0x20 || u[0] == 0x7f))) {
            out[o++] = '?';
            i += len ? len : 1;
        } else {
            memcpy(out + o, u, len);
            o += len;
            i += len;
        }
    }
    out[o] = '\0';
}

static bool is_digit(int c)
{
    return c >= '0' && c <= '9';
}
static bool is_alpha(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/* Width of a space at s (ASCII white space, U+00A0, U+2009, U+202F), or 0. */
static size_t space_at(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    if (n >= 1 && (u[0] == ' ' || u[0] == '\t' || u[0] == '\n' || u[0] == '\r' || u[0] == '\v' ||
                   u[0] == '\f'))
        return 1;
    if (n >= 2 && u[0] == 0xc2 && u[1] == 0xa0)
        return 2;
    if (n >= 3 && u[0] == 0xe2 && u[1] == 0x80 && (u[2] == 0x89 || u[2] == 0xaf))
        return 3;
    return 0;
}

/* ---- the parser ---------------------------------------------------------- */

struct parser {
    const char *s; /* the answer, not NUL-terminated at n */
    size_t n;
    size_t i; /* next byte */
    int depth;
    bool c_div;      /* '/' between whole numbers truncates, as in C */
    bool c_div_seen; /* a '/' between whole numbers whose quotient is not whole */
    bool failed;
    char *why;
    size_t why_n;
};

static void fail(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(struct parser *p, const char *fmt, ...)
{
    if (p->failed)
        return; /* the first problem is the one worth reporting */
    p->failed = true;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->why, p->why_n, fmt, ap);
    va_end(ap);
}

static void skip_spaces(struct parser *p)
{
    size_t w;
    while (p->i < p->n && (w = space_at(p->s + p->i, p->n - p->i)) > 0)
        p->i += w;
}

static int peek(const struct parser *p)
{
    return p->i < p->n ? (unsigned char)p->s[p->i] : 0;
}

/* Width of a '-' at i: ASCII or U+2212 MINUS SIGN; 0 when none. */
static size_t minus_at(const struct parser *p, size_t i)
{
    if (i < p->n && p->s[i] == '-')
        return 1;
    if (i + 3 <= p->n && memcmp(p->s + i, "\xe2\x88\x92", 3) == 0)
        return 3;
    return 0;
}

static bool sign_at(const struct parser *p, size_t i)
{
    return (i < p->n && p->s[i] == '+') || minus_at(p, i) > 0;
}

/* After a sign at [start, p->i): refuses a second sign ("--1", "2+-1"). */
static void no_second_sign(struct parser *p, size_t start)
{
    skip_spaces(p);
    if (sign_at(p, p->i)) {
        char q[64];
        size_t w = minus_at(p, p->i);
        quote(p->s + start, p->i + (w ? w : 1) - start, q, sizeof q);
        fail(p,
             "\"%s\" has two signs in a row: write it with brackets, like -(-1), "
             "or drop one",
             q);
    }
}

/* The comma problem at byte c: a decimal comma or a thousands separator. */
static void fail_comma(struct parser *p, size_t c)
{
    size_t a = c, b = c + 1;
    while (a > 0 && (is_digit(p->s[a - 1]) || p->s[a - 1] == '.'))
        a--;
    /* take in further ",ddd" groups: "1,000,000" */
    size_t commas = 1;
    bool grouped = true;
    for (;;) {
        size_t g = b;
        while (b < p->n && is_digit(p->s[b]))
            b++;
        if (b - g != 3)
            grouped = false;
        if (b + 1 < p->n && p->s[b] == ',' && is_digit(p->s[b + 1]) && grouped) {
            b++;
            commas++;
            continue;
        }
        break;
    }
    if (a == c || b == c + 1) {
        fail(p, "a comma can only separate the values inside min(...) or max(...); "
                "write decimals with a point, like 3.5");
        return;
    }
    char num[40], point[40], whole[40];
    size_t len = b - a;
    if (len >= sizeof num - 1) {
        fail(p, "the answer has a comma: write decimals with a point, like 3.5, and "
                "no thousands separators");
        return;
    }
    memcpy(num, p->s + a, len);
    num[len] = '\0';
    size_t w = 0;
    for (size_t k = 0; k < len; k++)
        if (num[k] != ',')
            whole[w++] = num[k];
    whole[w] = '\0';
    memcpy(point, num, len + 1);
    point[c - a] = '.';
    grouped = grouped && c - a <= 3 && num[0] != '0' && memchr(num, '.', c - a) == NULL;
    if (grouped && commas > 1)
        fail(p, "\"%s\" has commas: write %s, with no thousands separators", num, whole);
    else if (grouped)
        fail(p,
             "\"%s\" has a comma: write %s (no thousands separator), or %s if you meant "
             "a decimal",
             num, whole, point);
    else
        fail(p, "\"%s\" has a comma: write decimals with a point, like %s", num, point);
}

/* Reads a number whose shape was checked: digits with at most one point and
 * an optional exponent, in the C locale's notation whatever LC_NUMERIC says
 * (core_num_parse). */
static double convert_number(struct parser *p, const char *tok, size_t len)
{
    double v;
    int rc = core_num_parse(tok, len, 0, &v, NULL, NULL);
    if (rc != 0 && !isinf(v)) {
        char q[64];
        quote(tok, len, q, sizeof q);
        fail(p, "could not read \"%s\" as a number", q);
        return 0;
    }
    if (rc != 0) {
        char q[64];
        quote(tok, len, q, sizeof q);
        fail(p, "\"%s\" is too large: the largest number accepted is about 1e308", q);
        return 0;
    }
    return v;
}

static double read_number(struct parser *p)
{
    size_t start = p->i, j = p->i;
    size_t int_digits = 0, frac_digits = 0;
    while (j < p->n && is_digit(p->s[j]))
        j++, int_digits++;
    if (j < p->n && p->s[j] == '.') {
        j++;
        while (j < p->n && is_digit(p->s[j]))
            j++, frac_digits++;
    }
    if (int_digits + frac_digits == 0) {
        char q[64];
        quote(p->s + start, j - start, q, sizeof q);
        fail(p, "could not read \"%s\" as a number", q);
        return 0;
    }
    if (j - start == 1 && p->s[start] == '0' && j < p->n && (p->s[j] == 'x' || p->s[j] == 'X') &&
        j + 1 < p->n && (is_digit(p->s[j + 1]) || strchr("abcdefABCDEF", p->s[j + 1]))) {
        fail(p, "write the number in decimal: hexadecimal like 0x10 is not accepted");
        return 0;
    }
    if (j < p->n && p->s[j] == '.') {
        char q[64];
        size_t e = j;
        while (e < p->n && (is_digit(p->s[e]) || p->s[e] == '.'))
            e++;
        quote(p->s + start, e - start, q, sizeof q);
        fail(p, "\"%s\" has more than one decimal point", q);
        return 0;
    }
    if (j < p->n && (p->s[j] == 'e' || p->s[j] == 'E')) {
        size_t k = j + 1;
        if (k < p->n && (p->s[k] == '+' || p->s[k] == '-'))
            k++;
        if (k < p->n && is_digit(p->s[k])) {
            while (k < p->n && is_digit(p->s[k]))
                k++;
            j = k;
        } else if (k > j + 1) {
            /* "1e+" or "1e-": a sign promises an exponent */
            char q[64];
            quote(p->s + start, k - start, q, sizeof q);
            fail(p, "the exponent in \"%s\" is incomplete: write it like 6.02e23 or 1e-3", q);
            return 0;
        }
        /* a lone "e" after a number is left for the unit check to explain */
    }
    p->i = j;
    return convert_number(p, p->s + start, j - start);
}

static double parse_expr(struct parser *p);
static double parse_unary(struct parser *p);

static bool enter(struct parser *p)
{
    if (++p->depth > MAX_DEPTH) {
        fail(p,
             "the answer is nested too deeply (more than %d brackets or powers inside "
             "each other)",
             MAX_DEPTH);
        return false;
    }
    return true;
}

/* Checks a finished value; names the operation when it went wrong. */
static double checked(struct parser *p, double v, const char *what)
{
    if (p->failed)
        return 0;
    if (isnan(v)) {
        fail(p, "%s has no real value", what);
        return 0;
    }
    if (!isfinite(v)) {
        fail(p, "the result is too large: the largest number accepted is about 1e308");
        return 0;
    }
    return v;
}

enum fn {
    FN_SQRT,
    FN_LN,
    FN_LOG2,
    FN_LOG10,
    FN_EXP,
    FN_ABS,
    FN_MIN,
    FN_MAX,
    FN_CEIL,
    FN_FLOOR,
    FN_ROUND
};

static const struct {
    const char *name;
    enum fn fn;
} functions[] = {
    {"sqrt", FN_SQRT},   {"log", FN_LN},    {"ln", FN_LN},       {"log2", FN_LOG2},
    {"log10", FN_LOG10}, {"exp", FN_EXP},   {"abs", FN_ABS},     {"min", FN_MIN},
    {"max", FN_MAX},     {"ceil", FN_CEIL}, {"floor", FN_FLOOR}, {"round", FN_ROUND},
};

static bool word_is(const char *w, size_t n, const char *name)
{
    if (strlen(name) != n)
        return false;
    for (size_t i = 0; i < n; i++) {
        int c = (unsigned char)w[i];
        if (c >= 'A' && c <= 'Z')
            c += 32;
        if (c != name[i])
            return false;
    }
    return true;
}

static double call_function(struct parser *p, const char *name, enum fn fn)
{
    /* at '(' */
    if (!enter(p))
        return 0;
    p->i++;
    double x = parse_expr(p);
    for (;;) {
        if (p->failed)
            return 0;
        skip_spaces(p);
        if (peek(p) != ',')
            break;
        if (fn != FN_MIN && fn != FN_MAX) {
            fail(p, "%s takes one value; if you wrote a decimal comma, use a point, like 3.5",
                 name);
            return 0;
        }
        p->i++;
        double y = parse_expr(p);
        if (!p->failed)
            x = (fn == FN_MIN) == (y < x) ? y : x;
    }
    if (peek(p) != ')') {
        fail(p, "a \")\" is missing after the value of %s(...)", name);
        return 0;
    }
    p->i++;
    p->depth--;
    switch (fn) {
    case FN_SQRT:
        if (x < 0) {
            fail(p, "sqrt of a negative number has no real value");
            return 0;
        }
        return sqrt(x);
    case FN_LN:
    case FN_LOG2:
    case FN_LOG10:
        if (x <= 0) {
            fail(p, "the logarithm of zero or a negative number has no value");
            return 0;
        }
        return fn == FN_LN ? log(x) : fn == FN_LOG2 ? log2(x) : log10(x);
    case FN_EXP:
        return checked(p, exp(x), "exp");
    case FN_ABS:
        return fabs(x);
    case FN_CEIL:
        return ceil(x);
    case FN_FLOOR:
        return floor(x);
    case FN_ROUND:
        return round(x);
    case FN_MIN:
    case FN_MAX:
        return x;
    }
    return 0;
}

/* True when the rest of the answer, from byte j, is exactly a unit. */
static bool rest_is_unit(const struct parser *p, size_t j)
{
    return j < p->n && unit_findn(p->s + j, p->n - j) != NULL;
}

/* Explains why the text at p->i cannot start a value. */
static void fail_no_value(struct parser *p)
{
    size_t j = p->i;
    /* the previous non-space character, to say what the value was missing after */
    size_t b = j;
    while (b > 0 && (p->s[b - 1] == ' ' || p->s[b - 1] == '\t'))
        b--;
    if (j >= p->n) {
        if (b == 0) {
            fail(p, "the answer is empty: type a number such as 2.5");
        } else {
            size_t a = b - 1;
            while (a > 0 && ((unsigned char)p->s[a] & 0xc0) == 0x80)
                a--;
            char q[64];
            quote(p->s + a, b - a, q, sizeof q);
            fail(p, "the answer ends too early: a number is missing after \"%s\"", q);
        }
        return;
    }
    int c = peek(p);
    if (c == ')') {
        fail(p, "a number is missing before \")\"");
        return;
    }
    if (c == ',') {
        fail_comma(p, j);
        return;
    }
    /* a unit with no number before it: "ms", "%" */
    if (rest_is_unit(p, j)) {
        char q[64];
        quote(p->s + j, p->n - j, q, sizeof q);
        fail(p, "a number is missing before \"%s\"", q);
        return;
    }
    size_t len = utf8_len((const unsigned char *)p->s + j, p->n - j);
    char q[64];
    quote(p->s + j, len ? len : 1, q, sizeof q);
    if (c == '*' || c == '/' || c == '^')
        fail(p, "a number is missing before \"%s\"", q);
    else if (c == '.')
        fail(p, "a point must be followed by digits, like .5");
    else
        fail(p, "\"%s\" cannot be used in a numeric answer", q);
}

static double parse_primary(struct parser *p)
{
    skip_spaces(p);
    int c = peek(p);
    if (is_digit(c) || (c == '.' && p->i + 1 < p->n && is_digit(p->s[p->i + 1])))
        return read_number(p);
    if (c == '(') {
        if (!enter(p))
            return 0;
        p->i++;
        double v = parse_expr(p);
        if (p->failed)
            return 0;
        skip_spaces(p);
        if (peek(p) == ',') {
            fail_comma(p, p->i);
            return 0;
        }
        if (peek(p) != ')') {
            if (p->i >= p->n)
                fail(p, "a \")\" is missing: every \"(\" needs a matching \")\"");
            else if (is_alpha(peek(p)) || peek(p) >= 0x80 || peek(p) == '%')
                fail(p, "a unit can only be written once, at the end of the answer, "
                        "like (1+2)*3 ms");
            else {
                char q[64];
                quote(p->s + p->i, 1, q, sizeof q);
                fail(p, "a \")\" is missing before \"%s\"", q);
            }
            return 0;
        }
        p->i++;
        p->depth--;
        return v;
    }
    if (rest_is_unit(p, p->i)) {
        fail_no_value(p); /* "ms", "min", "%": a unit with no number */
        return 0;
    }
    if (p->i + 2 <= p->n && memcmp(p->s + p->i, "\xcf\x80", 2) == 0) { /* π */
        p->i += 2;
        return PI;
    }
    if (!is_alpha(c)) {
        fail_no_value(p);
        return 0;
    }
    size_t a = p->i, b = p->i;
    while (b < p->n && (is_alpha(p->s[b]) || is_digit(p->s[b])))
        b++;
    const char *w = p->s + a;
    size_t wn = b - a;
    if (word_is(w, wn, "pi")) {
        p->i = b;
        return PI;
    }
    if (wn == 1 && w[0] == 'e') {
        p->i = b;
        return EULER;
    }
    for (size_t k = 0; k < sizeof functions / sizeof functions[0]; k++) {
        if (!word_is(w, wn, functions[k].name))
            continue;
        p->i = b;
        skip_spaces(p);
        if (peek(p) != '(') {
            fail(p, "%s needs brackets, like %s(2)", functions[k].name, functions[k].name);
            return 0;
        }
        return call_function(p, functions[k].name, functions[k].fn);
    }
    char q[64];
    quote(w, wn, q, sizeof q);
    if (word_is(w, wn, "nan") || word_is(w, wn, "inf") || word_is(w, wn, "infinity")) {
        fail(p, "\"%s\" is not a number you can answer with: give a value such as 2.5", q);
        return 0;
    }
    bool digits = false;
    for (size_t k = 0; k < p->n && !digits; k++)
        digits = is_digit(p->s[k]);
    if (!digits) {
        /* no number anywhere: "abc", "many", "fast" */
        size_t s0 = 0;
        while (s0 < p->n && space_at(p->s + s0, p->n - s0))
            s0 += space_at(p->s + s0, p->n - s0);
        char all[64];
        quote(p->s + s0, p->n - s0, all, sizeof all);
        fail(p, "could not read \"%s\" as a number", all);
    } else {
        fail(p,
             "\"%s\" is not a number, function or constant I know (functions: sqrt, "
             "log, log2, exp, abs, min, max, ceil, floor, round; constants: pi, e)",
             q);
    }
    return 0;
}

static double parse_power(struct parser *p)
{
    double base = parse_primary(p);
    if (p->failed)
        return 0;
    skip_spaces(p);
    size_t op = 0;
    if (peek(p) == '^')
        op = 1;
    else if (p->i + 2 <= p->n && p->s[p->i] == '*' && p->s[p->i + 1] == '*')
        op = 2;
    if (!op)
        return base;
    if (!enter(p))
        return 0;
    p->i += op;
    double ex = parse_unary(p); /* right-assoc: 2^3^2 = 2^(3^2) */
    if (p->failed)
        return 0;
    p->depth--;
    if (base == 0 && ex < 0) {
        fail(p, "division by zero (0 to a negative power)");
        return 0;
    }
    if (base < 0 && ex != floor(ex)) {
        fail(p, "a negative number to a fractional power has no real value");
        return 0;
    }
    return checked(p, pow(base, ex), "the power");
}

static double parse_unary(struct parser *p)
{
    skip_spaces(p);
    size_t w = minus_at(p, p->i);
    if (w || peek(p) == '+') {
        size_t start = p->i;
        p->i += w ? w : 1;
        no_second_sign(p, start);
        if (p->failed)
            return 0;
        if (!enter(p))
            return 0;
        double v = parse_unary(p);
        p->depth--;
        return w ? -v : v;
    }
    return parse_power(p);
}

/* A whole number a double holds exactly, as C's integers would be. */
static bool is_whole(double x)
{
    return isfinite(x) && x == trunc(x) && fabs(x) < 9007199254740992.0; /* 2^53 */
}

/* a // b: floor(a / b), exact for whole numbers (no rounding of a / b first). */
static double floor_div(double a, double b)
{
    if (!is_whole(a) || !is_whole(b))
        return floor(a / b);
    double rem = fmod(a, b);  /* exact, with the sign of a */
    double q = (a - rem) / b; /* exact: a whole multiple of b */
    if (rem != 0 && (rem < 0) != (b < 0))
        q -= 1;
    return q;
}

static double parse_term(struct parser *p)
{
    double v = parse_unary(p);
    while (!p->failed) {
        skip_spaces(p);
        int c = peek(p);
        if (c != '*' && c != '/')
            break;
        if (c == '*' && p->i + 1 < p->n && p->s[p->i + 1] == '*')
            break; /* "**" is a power, handled below us */
        bool floor_op = c == '/' && p->i + 1 < p->n && p->s[p->i + 1] == '/';
        p->i += floor_op ? 2 : 1;
        double r = parse_unary(p);
        if (p->failed)
            break;
        if (c == '*') {
            v = checked(p, v * r, "the product");
        } else if (r == 0) {
            fail(p, "division by zero");
        } else if (floor_op) {
            v = checked(p, floor_div(v, r), "the quotient");
        } else if (is_whole(v) && is_whole(r) && fmod(v, r) != 0) {
            p->c_div_seen = true;
            /* C truncates; v - fmod(v, r) is an exact multiple of r */
            v = p->c_div ? (v - fmod(v, r)) / r : checked(p, v / r, "the quotient");
        } else {
            v = checked(p, v / r, "the quotient");
        }
    }
    return p->failed ? 0 : v;
}

static double parse_expr(struct parser *p)
{
    double v = parse_term(p);
    while (!p->failed) {
        skip_spaces(p);
        size_t w = minus_at(p, p->i);
        if (!w && peek(p) != '+')
            break;
        size_t start = p->i;
        p->i += w ? w : 1;
        no_second_sign(p, start);
        if (p->failed)
            break;
        double r = parse_term(p);
        if (p->failed)
            break;
        v = checked(p, w ? v - r : v + r, "the sum");
    }
    return p->failed ? 0 : v;
}

/* Explains text after the expression that is not a unit we know. */
/* `u` is the raw rest of the answer, `norm` the same with spaces around '/'
 * dropped (as looked up). */
static void fail_unit(struct parser *p, const char *u, size_t n, const char *norm, size_t norm_n)
{
    char q[64];
    quote(u, n, q, sizeof q);
    int c = (unsigned char)u[0];
    if (c == ')') {
        fail(p, "a \")\" has no matching \"(\"");
        return;
    }
    if (c == ',') {
        fail_comma(p, (size_t)(u - p->s));
        return;
    }
    if (c < 0x80 && !is_alpha(c) && !is_digit(c) && c != '.' && c != '(' && c != '%') {
        fail(p, "\"%c\" cannot be used in a numeric answer", c >= 0x20 && c < 0x7f ? c : '?');
        return;
    }
    if (is_digit(c) || c == '.' || c == '(') {
        fail(p, "two values with nothing between them (\"%s\"): use * to multiply", q);
        return;
    }
    /* "2x3", "2 × 3": × is the ratio unit, not multiplication */
    size_t xw = (c == 'x' || c == 'X') ? 1 : (n >= 2 && memcmp(u, "×", 2) == 0) ? 2 : 0;
    if (xw) {
        size_t k = xw;
        while (k < n && space_at(u + k, n - k))
            k += space_at(u + k, n - k);
        if (k < n && (is_digit(u[k]) || u[k] == '(' || u[k] == '.')) {
            fail(p, "write multiplication with *, like 2*3 (x and × mean a ratio, like 2.5x)");
            return;
        }
    }
    if (n == 1 && (c == 'e' || c == 'E')) {
        fail(p, "the exponent is missing after \"e\": write it like 6.02e23");
        return;
    }
    if (is_alpha(c)) {
        size_t b = 0;
        while (b < n && (is_alpha(u[b]) || is_digit(u[b])))
            b++;
        for (size_t k = 0; k < sizeof functions / sizeof functions[0]; k++)
            if (word_is(u, b, functions[k].name) && b < n && u[b] == '(') {
                fail(p, "use * before %s, like 2*%s(3)", functions[k].name, functions[k].name);
                return;
            }
        if (word_is(u, b, "pi")) {
            fail(p, "use * to multiply by a constant, like 2*pi");
            return;
        }
    }
    for (size_t k = 0; k < n; k++) {
        if (is_digit(u[k])) {
            fail(p, "a unit can only be written once, at the end of the answer, like 3.2 GB/s");
            return;
        }
        if (u[k] == '+' || u[k] == '*' || u[k] == '/' || u[k] == '^' || u[k] == '-') {
            size_t nx = k + 1;
            while (nx < n && space_at(u + nx, n - nx))
                nx += space_at(u + nx, n - nx);
            if (u[k] == '/' && nx < n && is_alpha(u[nx]))
                continue; /* part of "GB/s" or "GB / s" */
            fail(p, "a unit can only be written once, at the end of the answer, like (1+2)*3 ms");
            return;
        }
    }
    /* suggestions: spellings equal to u ignoring ASCII case */
    char sugg[96] = "";
    size_t found = 0;
    for (size_t i = 0; i < N_UNITS && found < 3; i++) {
        if (unit_spelled(&unit_table[i], norm, norm_n, true)) {
            size_t len = strlen(sugg);
            snprintf(sugg + len, sizeof sugg - len, "%s%s", found ? " or " : "",
                     unit_table[i].u.name);
            found++;
        }
    }
    if (found > 1)
        fail(p,
             "\"%s\" is not a unit I know; did you mean %s? (case matters: B is bytes, "
             "b is bits)",
             q, sugg);
    else if (found)
        fail(p, "\"%s\" is not a unit I know; did you mean %s? (case matters)", q, sugg);
    else
        fail(p, "\"%s\" is not a unit I know (for example: ms, MB, GB/s, Gbps, TFLOP/s, x, %%)", q);
}

/* ---- parse entry --------------------------------------------------------- */

static bool refuse(struct grader_number *out, const char *why)
{
    snprintf(out->why, sizeof out->why, "%s", why);
    return false;
}

bool grader_number_parse(const char *text, const char *expected, struct grader_number *out)
{
    if (!out)
        return false;
    memset(out, 0, sizeof *out);
    if (!text)
        text = "";
    if (!expected)
        expected = "";

    const struct grader_unit *exp_unit = grader_unit_find(expected);
    if (!exp_unit) {
        char q[64];
        quote(expected, strnlen(expected, 64), q, sizeof q);
        snprintf(out->why, sizeof out->why,
                 "this question's unit \"%s\" is not one the grader knows (a pack error)", q);
        return false;
    }

    /* length first, so nothing below walks an unbounded string */
    size_t n = 0, chars = 0;
    while (text[n] && n <= MAX_BYTES) {
        if (((unsigned char)text[n] & 0xc0) != 0x80)
            chars++;
        n++;
    }
    if (n > MAX_BYTES || chars > MAX_CHARS)
        return refuse(out, "the answer is too long (over 256 characters): give one number, "
                           "such as 2.5 or 1/(0.2+0.8/4)");

    struct parser p = {.s = text, .n = n, .why = out->why, .why_n = sizeof out->why};
    skip_spaces(&p);
    if (p.i >= p.n)
        return refuse(out, "the answer is empty: type a number such as 2.5");
    size_t end = n;
    while (end > p.i) {
        /* trailing spaces, including the multi-byte ones */
        size_t w = 0;
        for (size_t k = 1; k <= 3 && k <= end - p.i && !w; k++)
            if (space_at(text + end - k, k) == k)
                w = k;
        if (!w)
            break;
        end -= w;
    }
    p.n = end;

    size_t expr_start = p.i;
    double v = parse_expr(&p);
    if (p.failed)
        return false;
    /* The C reading, when it differs: '/' between whole numbers truncating.
     * It fails on its own (a truncated divisor of 0) without refusing the
     * answer, which is read with real division. */
    double cv = v;
    if (p.c_div_seen) {
        char scratch[sizeof out->why];
        struct parser c = {.s = text,
                           .n = end,
                           .i = expr_start,
                           .c_div = true,
                           .why = scratch,
                           .why_n = sizeof scratch};
        double w = parse_expr(&c);
        if (!c.failed && c.i == p.i)
            cv = w;
    }
    skip_spaces(&p);

    const struct grader_unit *u = exp_unit;
    bool wrote_unit = false;
    if (p.i < p.n) {
        /* the unit: the rest, with spaces around '/' dropped ("GB / s") */
        char ubuf[32];
        size_t un = 0;
        bool too_long = false;
        for (size_t k = p.i; k < p.n; k++) {
            size_t w = space_at(text + k, p.n - k);
            if (w) {
                size_t nx = k + w;
                while (nx < p.n && space_at(text + nx, p.n - nx))
                    nx += space_at(text + nx, p.n - nx);
                if ((un > 0 && ubuf[un - 1] == '/') || (nx < p.n && text[nx] == '/')) {
                    k = nx - 1;
                    continue;
                }
            }
            if (un + 1 >= sizeof ubuf) {
                too_long = true;
                break;
            }
            ubuf[un++] = text[k];
        }
        ubuf[un] = '\0';
        u = too_long ? NULL : unit_findn(ubuf, un);
        if (!u) {
            fail_unit(&p, text + p.i, p.n - p.i, ubuf, too_long ? 0 : un);
            return false;
        }
        wrote_unit = true;
    }

    if (u->dim != exp_unit->dim) {
        snprintf(out->why, sizeof out->why, "expected %s, but %s is %s", expect_phrase(exp_unit),
                 u->name, dim_noun(u->dim));
        return false;
    }
    double value = unit_convert(v, unit_def(u), unit_def(exp_unit));
    double base = unit_convert(v, unit_def(u), base_unit(u->dim));
    if (!isfinite(value) || !isfinite(base))
        return refuse(out, "the result is too large once converted to the question's unit");
    double c_value = unit_convert(cv, unit_def(u), unit_def(exp_unit));
    if (cv != v && isfinite(c_value)) {
        out->c_differs = true;
        out->c_value = c_value == 0 ? 0.0 : c_value;
    } else {
        out->c_value = value == 0 ? 0.0 : value;
    }
    out->ok = true;
    out->value = value == 0 ? 0.0 : value; /* no "-0" in stored answers */
    out->base = base == 0 ? 0.0 : base;
    snprintf(out->unit, sizeof out->unit, "%s", wrote_unit ? u->name : "");
    return true;
}

/* ---- formatting ---------------------------------------------------------- */

char *grader_number_format(double v, int sig, char *buf, size_t n)
{
    if (!buf || n == 0)
        return buf;
    if (sig < 1)
        sig = 1;
    if (sig > 17)
        sig = 17;
    if (isnan(v)) {
        snprintf(buf, n, "nan");
        return buf;
    }
    if (isinf(v)) {
        snprintf(buf, n, v < 0 ? "-inf" : "inf");
        return buf;
    }
    if (v == 0) {
        snprintf(buf, n, "0");
        return buf;
    }
    /* Round once with %e, then lay the digits out ourselves: the result
     * never depends on the locale's decimal point. */
    char e[64];
    snprintf(e, sizeof e, "%.*e", sig - 1, fabs(v));
    char d[24];
    int nd = 0, ex = 0;
    const char *q = e;
    for (; *q && *q != 'e'; q++)
        if (is_digit(*q) && nd < (int)sizeof d - 1)
            d[nd++] = *q;
    if (*q == 'e') {
        q++;
        int neg = *q == '-';
        if (*q == '-' || *q == '+')
            q++;
        for (; is_digit(*q); q++)
            ex = ex * 10 + (*q - '0');
        if (neg)
            ex = -ex;
    }
    while (nd > 1 && d[nd - 1] == '0')
        nd--;
    d[nd] = '\0';

    char out[96];
    size_t o = 0;
    if (v < 0)
        out[o++] = '-';
    if (ex < -4 || ex >= 9) {
        out[o++] = d[0];
        if (nd > 1) {
            out[o++] = '.';
            memcpy(out + o, d + 1, (size_t)nd - 1);
            o += (size_t)nd - 1;
        }
        o += (size_t)snprintf(out + o, sizeof out - o, "e%d", ex);
    } else if (ex >= 0) {
        for (int k = 0; k <= ex; k++)
            out[o++] = k < nd ? d[k] : '0';
        if (nd > ex + 1) {
            out[o++] = '.';
            memcpy(out + o, d + ex + 1, (size_t)(nd - ex - 1));
            o += (size_t)(nd - ex - 1);
        }
        out[o] = '\0';
    } else {
        out[o++] = '0';
        out[o++] = '.';
        for (int k = 0; k < -ex - 1; k++)
            out[o++] = '0';
        memcpy(out + o, d, (size_t)nd);
        o += (size_t)nd;
        out[o] = '\0';
    }
    snprintf(buf, n, "%s", out);
    return buf;
}
