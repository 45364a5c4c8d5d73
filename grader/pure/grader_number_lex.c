/*
 * grader_number_lex.c — the tokens of a numeric answer, for the expression
 * parser of grader_number.c: white space, signs, numbers, and the comma a
 * student may have meant as a decimal point or a thousands separator.
 *
 *   - U+2212 (−) is accepted for '-', and no-break and thin spaces for spaces
 *     (copy-paste from lesson text).
 *   - Numbers are checked for shape here (so each refusal can say how to
 *     write it), then converted by core_num_parse, which reads the C locale's
 *     notation whatever the process locale: "nan", "inf", "0x1p3" or a
 *     locale's decimal comma cannot slip through.
 *   - A comma is a decimal or thousands comma wherever it is not an argument
 *     separator (the parser knows where); grader_numlex_comma refuses it with
 *     the two readings spelled out, because guessing wrong would grade a
 *     wrong number.
 *   - Text quoted back to the student (grader_text_quote) is short, valid
 *     UTF-8 and safe to print.
 *
 * Pure C (grader_pure.h): no Lua, no I/O, no globals.
 */
#include "grader_pure.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define QUOTE_MAX 24 /* bytes of student text quoted back in `why` */

/* ---- text ---------------------------------------------------------------- */

size_t grader_utf8_len(const unsigned char *s, size_t n)
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

void grader_text_quote(const char *s, size_t n, char *out, size_t outn)
{
    size_t o = 0, i = 0;
    while (i < n && o + 5 < outn) {
        const unsigned char *u = (const unsigned char *)s + i;
        size_t len = grader_utf8_len(u, n - i);
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

bool grader_numlex_digit(int c)
{
    return c >= '0' && c <= '9';
}

bool grader_numlex_alpha(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

size_t grader_text_space_at(const char *s, size_t n)
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

/* ---- tokens ---------------------------------------------------------------- */

void grader_numlex_fail(struct grader_numlex *p, const char *fmt, ...)
{
    if (p->failed)
        return; /* the first problem is the one worth reporting */
    p->failed = true;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->why, p->why_n, fmt, ap);
    va_end(ap);
}

void grader_numlex_skip_spaces(struct grader_numlex *p)
{
    size_t w;
    while (p->i < p->n && (w = grader_text_space_at(p->s + p->i, p->n - p->i)) > 0)
        p->i += w;
}

int grader_numlex_peek(const struct grader_numlex *p)
{
    return p->i < p->n ? (unsigned char)p->s[p->i] : 0;
}

size_t grader_numlex_minus_at(const struct grader_numlex *p, size_t i)
{
    if (i < p->n && p->s[i] == '-')
        return 1;
    if (i + 3 <= p->n && memcmp(p->s + i, "\xe2\x88\x92", 3) == 0)
        return 3;
    return 0;
}

static bool sign_at(const struct grader_numlex *p, size_t i)
{
    return (i < p->n && p->s[i] == '+') || grader_numlex_minus_at(p, i) > 0;
}

void grader_numlex_no_second_sign(struct grader_numlex *p, size_t start)
{
    grader_numlex_skip_spaces(p);
    if (sign_at(p, p->i)) {
        char q[64];
        size_t w = grader_numlex_minus_at(p, p->i);
        grader_text_quote(p->s + start, p->i + (w ? w : 1) - start, q, sizeof q);
        grader_numlex_fail(p,
                           "\"%s\" has two signs in a row: write it with brackets, like -(-1), "
                           "or drop one",
                           q);
    }
}

void grader_numlex_comma(struct grader_numlex *p, size_t c)
{
    size_t a = c, b = c + 1;
    while (a > 0 && (grader_numlex_digit(p->s[a - 1]) || p->s[a - 1] == '.'))
        a--;
    /* take in further ",ddd" groups: "1,000,000" */
    size_t commas = 1;
    bool grouped = true;
    for (;;) {
        size_t g = b;
        while (b < p->n && grader_numlex_digit(p->s[b]))
            b++;
        if (b - g != 3)
            grouped = false;
        if (b + 1 < p->n && p->s[b] == ',' && grader_numlex_digit(p->s[b + 1]) && grouped) {
            b++;
            commas++;
            continue;
        }
        break;
    }
    if (a == c || b == c + 1) {
        grader_numlex_fail(p, "a comma can only separate the values inside min(...) or max(...); "
                              "write decimals with a point, like 3.5");
        return;
    }
    char num[40], point[40], whole[40];
    size_t len = b - a;
    if (len >= sizeof num - 1) {
        grader_numlex_fail(p, "the answer has a comma: write decimals with a point, like 3.5, and "
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
        grader_numlex_fail(p, "\"%s\" has commas: write %s, with no thousands separators", num,
                           whole);
    else if (grouped)
        grader_numlex_fail(
            p,
            "\"%s\" has a comma: write %s (no thousands separator), or %s if you meant "
            "a decimal",
            num, whole, point);
    else
        grader_numlex_fail(p, "\"%s\" has a comma: write decimals with a point, like %s", num,
                           point);
}

/* Reads a number whose shape was checked: digits with at most one point and
 * an optional exponent, in the C locale's notation whatever LC_NUMERIC says
 * (core_num_parse). */
static double convert_number(struct grader_numlex *p, const char *tok, size_t len)
{
    double v;
    int rc = core_num_parse(tok, len, 0, &v, NULL, NULL);
    if (rc != 0 && !isinf(v)) {
        char q[64];
        grader_text_quote(tok, len, q, sizeof q);
        grader_numlex_fail(p, "could not read \"%s\" as a number", q);
        return 0;
    }
    if (rc != 0) {
        char q[64];
        grader_text_quote(tok, len, q, sizeof q);
        grader_numlex_fail(p, "\"%s\" is too large: the largest number accepted is about 1e308", q);
        return 0;
    }
    return v;
}

double grader_numlex_number(struct grader_numlex *p)
{
    size_t start = p->i, j = p->i;
    size_t int_digits = 0, frac_digits = 0;
    while (j < p->n && grader_numlex_digit(p->s[j]))
        j++, int_digits++;
    if (j < p->n && p->s[j] == '.') {
        j++;
        while (j < p->n && grader_numlex_digit(p->s[j]))
            j++, frac_digits++;
    }
    if (int_digits + frac_digits == 0) {
        char q[64];
        grader_text_quote(p->s + start, j - start, q, sizeof q);
        grader_numlex_fail(p, "could not read \"%s\" as a number", q);
        return 0;
    }
    if (j - start == 1 && p->s[start] == '0' && j < p->n && (p->s[j] == 'x' || p->s[j] == 'X') &&
        j + 1 < p->n && (grader_numlex_digit(p->s[j + 1]) || strchr("abcdefABCDEF", p->s[j + 1]))) {
        grader_numlex_fail(p, "write the number in decimal: hexadecimal like 0x10 is not accepted");
        return 0;
    }
    if (j < p->n && p->s[j] == '.') {
        char q[64];
        size_t e = j;
        while (e < p->n && (grader_numlex_digit(p->s[e]) || p->s[e] == '.'))
            e++;
        grader_text_quote(p->s + start, e - start, q, sizeof q);
        grader_numlex_fail(p, "\"%s\" has more than one decimal point", q);
        return 0;
    }
    if (j < p->n && (p->s[j] == 'e' || p->s[j] == 'E')) {
        size_t k = j + 1;
        if (k < p->n && (p->s[k] == '+' || p->s[k] == '-'))
            k++;
        if (k < p->n && grader_numlex_digit(p->s[k])) {
            while (k < p->n && grader_numlex_digit(p->s[k]))
                k++;
            j = k;
        } else if (k > j + 1) {
            /* "1e+" or "1e-": a sign promises an exponent */
            char q[64];
            grader_text_quote(p->s + start, k - start, q, sizeof q);
            grader_numlex_fail(
                p, "the exponent in \"%s\" is incomplete: write it like 6.02e23 or 1e-3", q);
            return 0;
        }
        /* a lone "e" after a number is left for the unit check to explain */
    }
    p->i = j;
    return convert_number(p, p->s + start, j - start);
}
