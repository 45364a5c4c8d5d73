/* core_num.c — numbers read and written the same way whatever the locale.
 *
 * Every module reads numbers a person or a file wrote ("2.5Gbps", a CSV
 * field, a JSON member, a student's answer) and writes numbers something
 * reads back (JSON, a CSV of centres, a form field edited again). All of
 * them mean the C locale's notation: '.' as the decimal point, no grouping.
 * The process locale cannot be trusted for that: a curses front end sets
 * LC_CTYPE from the environment, a library caller may set LC_NUMERIC, and
 * under de_DE.UTF-8 plain strtod("2.5") stops at the '.'.
 *
 * How: the grammar is checked here, by hand, so the caller's flags decide
 * what is a number (blanks, hex, inf/nan) and no locale can widen or narrow
 * it; the checked text is then converted by strtod under a C locale made
 * current for this thread only (uselocale, POSIX.1-2008), and written by
 * snprintf the same way. We keep the C library's conversion on purpose:
 * glibc's strtod rounds correctly for any number of digits (big-number
 * arithmetic), which a short hand-written decimal-to-binary loop does not
 * (summing digit * 10^-k rounds at every step and is off by an ulp or more).
 * uselocale changes only the calling thread, so other threads (the TUI's lab
 * thread) are never affected, and it is restored before returning.
 *
 * The C locale object is made once (pthread_once) and never freed: it is an
 * immutable constant, not state.
 */
#include "core/core.h"

#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;

static void c_locale_make(void)
{
    c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

/* The C locale; aborts like core_xmalloc when it cannot be made (only
 * out of memory can cause that: "C" always exists). */
static locale_t c_locale_get(void)
{
    pthread_once(&c_locale_once, c_locale_make);
    if (!c_locale) {
        fprintf(stderr, "warpbench: out of memory (cannot make the C locale)\n");
        abort();
    }
    return c_locale;
}

/* ---- the grammar ------------------------------------------------------------ */

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

static bool is_dec(char c)
{
    return c >= '0' && c <= '9';
}

static bool is_hex(char c)
{
    return is_dec(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static char lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* True when s[0..n) starts with the lower-case word w, in any case. */
static bool starts_word(const char *s, size_t n, const char *w)
{
    size_t k = strlen(w);
    if (n < k)
        return false;
    for (size_t i = 0; i < k; i++)
        if (lower(s[i]) != w[i])
            return false;
    return true;
}

/* Length of the number at s[0..n) under the flags (0: none). The longest
 * prefix that is a number, as strtod would take it in the C locale: "1e"
 * is "1" followed by "e", "1.5.2" is "1.5" followed by ".2". *word is set
 * when it is "inf", "infinity" or "nan". */
static size_t scan(const char *s, size_t n, unsigned flags, bool *word)
{
    size_t i = 0;
    *word = false;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        i++;
    if (flags & CORE_NUM_NONFINITE) {
        static const char *const words[] = {"infinity", "inf", "nan"};
        for (size_t w = 0; w < 3; w++)
            if (starts_word(s + i, n - i, words[w])) {
                *word = true;
                return i + strlen(words[w]);
            }
    }
    bool hex = false;
    if ((flags & CORE_NUM_HEX) && i + 1 < n && s[i] == '0' && lower(s[i + 1]) == 'x') {
        /* "0x" alone, or "0x" with no hex digit, is the number 0 and then "x" */
        size_t j = i + 2;
        if (j < n && (is_hex(s[j]) || (s[j] == '.' && j + 1 < n && is_hex(s[j + 1])))) {
            hex = true;
            i = j;
        }
    }
    bool (*digit)(char) = hex ? is_hex : is_dec;
    size_t mant = 0;
    while (i < n && digit(s[i]))
        i++, mant++;
    if (i < n && s[i] == '.') {
        size_t j = i + 1, frac = 0;
        while (j < n && digit(s[j]))
            j++, frac++;
        if (mant + frac > 0) {
            i = j;
            mant += frac;
        }
    }
    if (mant == 0)
        return 0;
    char e = hex ? 'p' : 'e';
    if (i < n && lower(s[i]) == e) {
        size_t j = i + 1;
        if (j < n && (s[j] == '+' || s[j] == '-'))
            j++;
        if (j < n && is_dec(s[j])) {
            while (j < n && is_dec(s[j]))
                j++;
            i = j;
        }
    }
    return i;
}

/* ---- conversion -------------------------------------------------------------- */

/* strtod of exactly s[0..n), which scan() accepted, in the C locale. */
static double convert(const char *s, size_t n)
{
    char small[128];
    char *buf = n < sizeof small ? small : core_xmalloc(n + 1);
    memcpy(buf, s, n);
    buf[n] = '\0';
    locale_t old = uselocale(c_locale_get());
    char *end;
    double v = strtod(buf, &end);
    uselocale(old);
    /* scan() and strtod agree on the C locale's grammar; a mismatch is ours */
    if (end != buf + n) {
        fprintf(stderr, "warpbench: internal error: strtod read %td of %zu bytes of '%s'\n",
                end - buf, n, buf);
        abort();
    }
    if (buf != small)
        free(buf);
    return v;
}

int core_num_parse(const char *s, size_t n, unsigned flags, double *out, size_t *used,
                   struct core_err *err)
{
    *out = 0;
    if (used)
        *used = 0;
    size_t a = 0, b = n;
    if (flags & CORE_NUM_BLANKS) {
        while (a < b && is_blank(s[a]))
            a++;
        if (!used)
            while (b > a && is_blank(s[b - 1]))
                b--;
    }
    bool word;
    size_t len = scan(s + a, b - a, flags, &word);
    if (len == 0)
        return core_err_set(err, CORE_ERR_INVALID,
                            a == b ? "expected a number, found nothing"
                                   : "'%.*s' is not a number (write e.g. 2.5, -1e-3 or 1e9)",
                            (int)(b - a > 40 ? 40 : b - a), s + a);
    if (!used && a + len != b)
        return core_err_set(err, CORE_ERR_INVALID, "'%.*s' is not a number: '%.*s' follows '%.*s'",
                            (int)(b - a > 40 ? 40 : b - a), s + a,
                            (int)(b - a - len > 20 ? 20 : b - a - len), s + a + len,
                            (int)(len > 40 ? 40 : len), s + a);
    double v = convert(s + a, len);
    if (isinf(v) && !word) {
        *out = v;
        return core_err_set(err, CORE_ERR_INVALID,
                            "'%.*s' is too large: the largest number is about 1.8e308",
                            (int)(len > 40 ? 40 : len), s + a);
    }
    *out = v;
    if (used)
        *used = a + len;
    return 0;
}

int core_num_format(char *buf, size_t size, double v, int sig)
{
    if (isnan(v))
        return snprintf(buf, size, "nan");
    if (isinf(v))
        return snprintf(buf, size, v < 0 ? "-inf" : "inf");
    if (sig > 17)
        sig = 17;
    locale_t old = uselocale(c_locale_get());
    int len;
    if (sig > 0) {
        len = snprintf(buf, size, "%.*g", sig, v);
    } else {
        /* the fewest significant digits, at least 6 (so whole numbers below
         * a million are written out), that read back as the same double */
        char tmp[40];
        for (sig = 6; sig < 17; sig++) {
            snprintf(tmp, sizeof tmp, "%.*g", sig, v);
            if (strtod(tmp, NULL) == v)
                break;
        }
        len = snprintf(buf, size, "%.*g", sig, v);
    }
    uselocale(old);
    return len;
}
