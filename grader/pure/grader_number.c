/*
 * grader_number.c — reading a student's numeric answer: a small safe
 * expression evaluator over the tokens of grader_number_lex.c, the unit
 * after it (grader_unit.c), and number formatting.
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
 *     it is a decimal or thousands comma and is refused (grader_numlex_comma).
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
 *     answer that is off only by that rounding (grader_tol_rounding_note).
 *   - Units: one unit, after the whole expression. A bare number is in the
 *     expected unit; the rest of the unit rules are in grader_unit.c.
 */
#include "grader_pure.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAX_CHARS 256  /* longest answer, in characters */
#define MAX_BYTES 1024 /* and in bytes (4 per character at most) */
#define MAX_DEPTH 64   /* brackets, function calls and exponents inside each other */

static const double PI = 3.14159265358979323846;
static const double EULER = 2.71828182845904523536;

/* ---- the parser ---------------------------------------------------------- */

static double parse_expr(struct grader_numlex *p);
static double parse_unary(struct grader_numlex *p);

static bool enter(struct grader_numlex *p)
{
    if (++p->depth > MAX_DEPTH) {
        grader_numlex_fail(
            p,
            "the answer is nested too deeply (more than %d brackets or powers inside "
            "each other)",
            MAX_DEPTH);
        return false;
    }
    return true;
}

/* Checks a finished value; names the operation when it went wrong. */
static double checked(struct grader_numlex *p, double v, const char *what)
{
    if (p->failed)
        return 0;
    if (isnan(v)) {
        grader_numlex_fail(p, "%s has no real value", what);
        return 0;
    }
    if (!isfinite(v)) {
        grader_numlex_fail(p,
                           "the result is too large: the largest number accepted is about 1e308");
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

static double call_function(struct grader_numlex *p, const char *name, enum fn fn)
{
    /* at '(' */
    if (!enter(p))
        return 0;
    p->i++;
    double x = parse_expr(p);
    for (;;) {
        if (p->failed)
            return 0;
        grader_numlex_skip_spaces(p);
        if (grader_numlex_peek(p) != ',')
            break;
        if (fn != FN_MIN && fn != FN_MAX) {
            grader_numlex_fail(
                p, "%s takes one value; if you wrote a decimal comma, use a point, like 3.5", name);
            return 0;
        }
        p->i++;
        double y = parse_expr(p);
        if (!p->failed)
            x = (fn == FN_MIN) == (y < x) ? y : x;
    }
    if (grader_numlex_peek(p) != ')') {
        grader_numlex_fail(p, "a \")\" is missing after the value of %s(...)", name);
        return 0;
    }
    p->i++;
    p->depth--;
    switch (fn) {
    case FN_SQRT:
        if (x < 0) {
            grader_numlex_fail(p, "sqrt of a negative number has no real value");
            return 0;
        }
        return sqrt(x);
    case FN_LN:
    case FN_LOG2:
    case FN_LOG10:
        if (x <= 0) {
            grader_numlex_fail(p, "the logarithm of zero or a negative number has no value");
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
static bool rest_is_unit(const struct grader_numlex *p, size_t j)
{
    return j < p->n && grader_unit_findn(p->s + j, p->n - j) != NULL;
}

/* Explains why the text at p->i cannot start a value. */
static void fail_no_value(struct grader_numlex *p)
{
    size_t j = p->i;
    /* the previous non-space character, to say what the value was missing after */
    size_t b = j;
    while (b > 0 && (p->s[b - 1] == ' ' || p->s[b - 1] == '\t'))
        b--;
    if (j >= p->n) {
        if (b == 0) {
            grader_numlex_fail(p, "the answer is empty: type a number such as 2.5");
        } else {
            size_t a = b - 1;
            while (a > 0 && ((unsigned char)p->s[a] & 0xc0) == 0x80)
                a--;
            char q[64];
            grader_text_quote(p->s + a, b - a, q, sizeof q);
            grader_numlex_fail(p, "the answer ends too early: a number is missing after \"%s\"", q);
        }
        return;
    }
    int c = grader_numlex_peek(p);
    if (c == ')') {
        grader_numlex_fail(p, "a number is missing before \")\"");
        return;
    }
    if (c == ',') {
        grader_numlex_comma(p, j);
        return;
    }
    /* a unit with no number before it: "ms", "%" */
    if (rest_is_unit(p, j)) {
        char q[64];
        grader_text_quote(p->s + j, p->n - j, q, sizeof q);
        grader_numlex_fail(p, "a number is missing before \"%s\"", q);
        return;
    }
    size_t len = grader_utf8_len((const unsigned char *)p->s + j, p->n - j);
    char q[64];
    grader_text_quote(p->s + j, len ? len : 1, q, sizeof q);
    if (c == '*' || c == '/' || c == '^')
        grader_numlex_fail(p, "a number is missing before \"%s\"", q);
    else if (c == '.')
        grader_numlex_fail(p, "a point must be followed by digits, like .5");
    else
        grader_numlex_fail(p, "\"%s\" cannot be used in a numeric answer", q);
}

static double parse_primary(struct grader_numlex *p)
{
    grader_numlex_skip_spaces(p);
    int c = grader_numlex_peek(p);
    if (grader_numlex_digit(c) ||
        (c == '.' && p->i + 1 < p->n && grader_numlex_digit(p->s[p->i + 1])))
        return grader_numlex_number(p);
    if (c == '(') {
        if (!enter(p))
            return 0;
        p->i++;
        double v = parse_expr(p);
        if (p->failed)
            return 0;
        grader_numlex_skip_spaces(p);
        if (grader_numlex_peek(p) == ',') {
            grader_numlex_comma(p, p->i);
            return 0;
        }
        if (grader_numlex_peek(p) != ')') {
            if (p->i >= p->n)
                grader_numlex_fail(p, "a \")\" is missing: every \"(\" needs a matching \")\"");
            else if (grader_numlex_alpha(grader_numlex_peek(p)) || grader_numlex_peek(p) >= 0x80 ||
                     grader_numlex_peek(p) == '%')
                grader_numlex_fail(p, "a unit can only be written once, at the end of the answer, "
                                      "like (1+2)*3 ms");
            else {
                char q[64];
                grader_text_quote(p->s + p->i, 1, q, sizeof q);
                grader_numlex_fail(p, "a \")\" is missing before \"%s\"", q);
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
    if (!grader_numlex_alpha(c)) {
        fail_no_value(p);
        return 0;
    }
    size_t a = p->i, b = p->i;
    while (b < p->n && (grader_numlex_alpha(p->s[b]) || grader_numlex_digit(p->s[b])))
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
        grader_numlex_skip_spaces(p);
        if (grader_numlex_peek(p) != '(') {
            grader_numlex_fail(p, "%s needs brackets, like %s(2)", functions[k].name,
                               functions[k].name);
            return 0;
        }
        return call_function(p, functions[k].name, functions[k].fn);
    }
    char q[64];
    grader_text_quote(w, wn, q, sizeof q);
    if (word_is(w, wn, "nan") || word_is(w, wn, "inf") || word_is(w, wn, "infinity")) {
        grader_numlex_fail(
            p, "\"%s\" is not a number you can answer with: give a value such as 2.5", q);
        return 0;
    }
    bool digits = false;
    for (size_t k = 0; k < p->n && !digits; k++)
        digits = grader_numlex_digit(p->s[k]);
    if (!digits) {
        /* no number anywhere: "abc", "many", "fast" */
        size_t s0 = 0;
        while (s0 < p->n && grader_text_space_at(p->s + s0, p->n - s0))
            s0 += grader_text_space_at(p->s + s0, p->n - s0);
        char all[64];
        grader_text_quote(p->s + s0, p->n - s0, all, sizeof all);
        grader_numlex_fail(p, "could not read \"%s\" as a number", all);
    } else {
        grader_numlex_fail(p,
                           "\"%s\" is not a number, function or constant I know (functions: sqrt, "
                           "log, log2, exp, abs, min, max, ceil, floor, round; constants: pi, e)",
                           q);
    }
    return 0;
}

static double parse_power(struct grader_numlex *p)
{
    double base = parse_primary(p);
    if (p->failed)
        return 0;
    grader_numlex_skip_spaces(p);
    size_t op = 0;
    if (grader_numlex_peek(p) == '^')
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
        grader_numlex_fail(p, "division by zero (0 to a negative power)");
        return 0;
    }
    if (base < 0 && ex != floor(ex)) {
        grader_numlex_fail(p, "a negative number to a fractional power has no real value");
        return 0;
    }
    return checked(p, pow(base, ex), "the power");
}

static double parse_unary(struct grader_numlex *p)
{
    grader_numlex_skip_spaces(p);
    size_t w = grader_numlex_minus_at(p, p->i);
    if (w || grader_numlex_peek(p) == '+') {
        size_t start = p->i;
        p->i += w ? w : 1;
        grader_numlex_no_second_sign(p, start);
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

static double parse_term(struct grader_numlex *p)
{
    double v = parse_unary(p);
    while (!p->failed) {
        grader_numlex_skip_spaces(p);
        int c = grader_numlex_peek(p);
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
            grader_numlex_fail(p, "division by zero");
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

static double parse_expr(struct grader_numlex *p)
{
    double v = parse_term(p);
    while (!p->failed) {
        grader_numlex_skip_spaces(p);
        size_t w = grader_numlex_minus_at(p, p->i);
        if (!w && grader_numlex_peek(p) != '+')
            break;
        size_t start = p->i;
        p->i += w ? w : 1;
        grader_numlex_no_second_sign(p, start);
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
static void fail_unit(struct grader_numlex *p, const char *u, size_t n, const char *norm,
                      size_t norm_n)
{
    char q[64];
    grader_text_quote(u, n, q, sizeof q);
    int c = (unsigned char)u[0];
    if (c == ')') {
        grader_numlex_fail(p, "a \")\" has no matching \"(\"");
        return;
    }
    if (c == ',') {
        grader_numlex_comma(p, (size_t)(u - p->s));
        return;
    }
    if (c < 0x80 && !grader_numlex_alpha(c) && !grader_numlex_digit(c) && c != '.' && c != '(' &&
        c != '%') {
        grader_numlex_fail(p, "\"%c\" cannot be used in a numeric answer",
                           c >= 0x20 && c < 0x7f ? c : '?');
        return;
    }
    if (grader_numlex_digit(c) || c == '.' || c == '(') {
        grader_numlex_fail(p, "two values with nothing between them (\"%s\"): use * to multiply",
                           q);
        return;
    }
    /* "2x3", "2 × 3": × is the ratio unit, not multiplication */
    size_t xw = (c == 'x' || c == 'X') ? 1 : (n >= 2 && memcmp(u, "×", 2) == 0) ? 2 : 0;
    if (xw) {
        size_t k = xw;
        while (k < n && grader_text_space_at(u + k, n - k))
            k += grader_text_space_at(u + k, n - k);
        if (k < n && (grader_numlex_digit(u[k]) || u[k] == '(' || u[k] == '.')) {
            grader_numlex_fail(
                p, "write multiplication with *, like 2*3 (x and × mean a ratio, like 2.5x)");
            return;
        }
    }
    if (n == 1 && (c == 'e' || c == 'E')) {
        grader_numlex_fail(p, "the exponent is missing after \"e\": write it like 6.02e23");
        return;
    }
    if (grader_numlex_alpha(c)) {
        size_t b = 0;
        while (b < n && (grader_numlex_alpha(u[b]) || grader_numlex_digit(u[b])))
            b++;
        for (size_t k = 0; k < sizeof functions / sizeof functions[0]; k++)
            if (word_is(u, b, functions[k].name) && b < n && u[b] == '(') {
                grader_numlex_fail(p, "use * before %s, like 2*%s(3)", functions[k].name,
                                   functions[k].name);
                return;
            }
        if (word_is(u, b, "pi")) {
            grader_numlex_fail(p, "use * to multiply by a constant, like 2*pi");
            return;
        }
    }
    for (size_t k = 0; k < n; k++) {
        if (grader_numlex_digit(u[k])) {
            grader_numlex_fail(
                p, "a unit can only be written once, at the end of the answer, like 3.2 GB/s");
            return;
        }
        if (u[k] == '+' || u[k] == '*' || u[k] == '/' || u[k] == '^' || u[k] == '-') {
            size_t nx = k + 1;
            while (nx < n && grader_text_space_at(u + nx, n - nx))
                nx += grader_text_space_at(u + nx, n - nx);
            if (u[k] == '/' && nx < n && grader_numlex_alpha(u[nx]))
                continue; /* part of "GB/s" or "GB / s" */
            grader_numlex_fail(
                p, "a unit can only be written once, at the end of the answer, like (1+2)*3 ms");
            return;
        }
    }
    /* suggestions: spellings equal to u ignoring ASCII case */
    char sugg[96];
    size_t found = grader_unit_suggest(norm, norm_n, sugg, sizeof sugg);
    if (found > 1)
        grader_numlex_fail(
            p,
            "\"%s\" is not a unit I know; did you mean %s? (case matters: B is bytes, "
            "b is bits)",
            q, sugg);
    else if (found)
        grader_numlex_fail(p, "\"%s\" is not a unit I know; did you mean %s? (case matters)", q,
                           sugg);
    else
        grader_numlex_fail(
            p, "\"%s\" is not a unit I know (for example: ms, MB, GB/s, Gbps, TFLOP/s, x, %%)", q);
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
        grader_text_quote(expected, strnlen(expected, 64), q, sizeof q);
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

    struct grader_numlex p = {.s = text, .n = n, .why = out->why, .why_n = sizeof out->why};
    grader_numlex_skip_spaces(&p);
    if (p.i >= p.n)
        return refuse(out, "the answer is empty: type a number such as 2.5");
    size_t end = n;
    while (end > p.i) {
        /* trailing spaces, including the multi-byte ones */
        size_t w = 0;
        for (size_t k = 1; k <= 3 && k <= end - p.i && !w; k++)
            if (grader_text_space_at(text + end - k, k) == k)
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
        struct grader_numlex c = {.s = text,
                                  .n = end,
                                  .i = expr_start,
                                  .c_div = true,
                                  .why = scratch,
                                  .why_n = sizeof scratch};
        double w = parse_expr(&c);
        if (!c.failed && c.i == p.i)
            cv = w;
    }
    grader_numlex_skip_spaces(&p);

    const struct grader_unit *u = exp_unit;
    bool wrote_unit = false;
    if (p.i < p.n) {
        /* the unit: the rest, with spaces around '/' dropped ("GB / s") */
        char ubuf[32];
        size_t un = 0;
        bool too_long = false;
        for (size_t k = p.i; k < p.n; k++) {
            size_t w = grader_text_space_at(text + k, p.n - k);
            if (w) {
                size_t nx = k + w;
                while (nx < p.n && grader_text_space_at(text + nx, p.n - nx))
                    nx += grader_text_space_at(text + nx, p.n - nx);
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
        u = too_long ? NULL : grader_unit_findn(ubuf, un);
        if (!u) {
            fail_unit(&p, text + p.i, p.n - p.i, ubuf, too_long ? 0 : un);
            return false;
        }
        wrote_unit = true;
    }

    if (u->dim != exp_unit->dim) {
        snprintf(out->why, sizeof out->why, "expected %s, but %s is %s",
                 grader_unit_phrase(exp_unit), u->name, grader_dim_noun(u->dim));
        return false;
    }
    double value = grader_unit_convert(v, u, exp_unit);
    double base = grader_unit_convert(v, u, grader_unit_base(u->dim));
    if (!isfinite(value) || !isfinite(base))
        return refuse(out, "the result is too large once converted to the question's unit");
    double c_value = grader_unit_convert(cv, u, exp_unit);
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

/* s (len bytes) into buf of n > 0 bytes, cut as snprintf cuts: the
 * grader formats numbers on every grading, and snprintf("%s") costs more
 * than the number. */
static char *copy_out(char *buf, size_t n, const char *s, size_t len)
{
    if (len >= n)
        len = n - 1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    return buf;
}

char *grader_number_format(double v, int sig, char *buf, size_t n)
{
    if (!buf || n == 0)
        return buf;
    if (sig < 1)
        sig = 1;
    if (sig > 17)
        sig = 17;
    if (isnan(v))
        return copy_out(buf, n, "nan", 3);
    if (isinf(v))
        return v < 0 ? copy_out(buf, n, "-inf", 4) : copy_out(buf, n, "inf", 3);
    if (v == 0)
        return copy_out(buf, n, "0", 1);
    /* Round once with %e, then lay the digits out ourselves: the result
     * never depends on the locale's decimal point. */
    char e[64];
    snprintf(e, sizeof e, "%.*e", sig - 1, fabs(v));
    char d[24];
    int nd = 0, ex = 0;
    const char *q = e;
    for (; *q && *q != 'e'; q++)
        if (grader_numlex_digit(*q) && nd < (int)sizeof d - 1)
            d[nd++] = *q;
    if (*q == 'e') {
        q++;
        int neg = *q == '-';
        if (*q == '-' || *q == '+')
            q++;
        for (; grader_numlex_digit(*q); q++)
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
    return copy_out(buf, n, out, o);
}
