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
 *
 * Numbers for people (core_num_human: "32 KiB", "1.5 TB/s", "450 µs") are
 * written here too, in one way for every front end, with the rounding and
 * the prefixes chosen together.
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
            len = snprintf(tmp, sizeof tmp, "%.*g", sig, v);
            if (strtod(tmp, NULL) == v)
                break;
        }
        /* the digits found, not formatted again (every params encoding
         * comes here); 17 digits always read back */
        if (sig == 17)
            len = snprintf(tmp, sizeof tmp, "%.*g", sig, v);
        if (size > 0) {
            size_t k = (size_t)len < size ? (size_t)len : size - 1;
            memcpy(buf, tmp, k);
            buf[k] = '\0';
        }
    }
    uselocale(old);
    return len;
}

/* ---- numbers for people ------------------------------------------------------ */

/* v with `sig` significant digits in the C locale's notation, trailing
 * zeros trimmed, never "-0"; no exponent between 1e-4 and 1e9; with `whole`
 * a whole number below 1e9 in full. */
static void human_digits(char *buf, size_t n, double v, int sig, bool whole)
{
    double a = fabs(v);
    if (a == 0) {
        snprintf(buf, n, "0");
        return;
    }
    if (whole && a < 1e9 && v == floor(v)) {
        core_num_format(buf, n, v, 17); /* below 1e9: every digit, no exponent */
        return;
    }
    if (a >= 1e9 || a < 1e-4) {
        core_num_format(buf, n, v, sig);
        return;
    }
    int digits = sig - 1 - (int)floor(log10(a));
    if (digits < 0)
        digits = 0;
    locale_t old = uselocale(c_locale_get());
    snprintf(buf, n, "%.*f", digits, v);
    uselocale(old);
    if (strchr(buf, '.')) {
        size_t len = strlen(buf);
        while (len > 0 && buf[len - 1] == '0')
            buf[--len] = '\0';
        if (len > 0 && buf[len - 1] == '.')
            buf[--len] = '\0';
    }
    if (strcmp(buf, "-0") == 0)
        snprintf(buf, n, "0");
}

/* A unit that takes decimal prefixes, as a base and a power of 1000: the
 * base itself (power 0) or, with `prefixed`, the base after one of k M G T
 * P E ("GB/s": "B/s", 3). False for any other unit. */
static bool decimal_unit(const char *unit, bool prefixed, const char **base, int *pow1000)
{
    static const char *const bases[] = {"B/s",   "B",   "FLOP/s", "FLOPS", "FLOP",
                                        "bit/s", "bps", "Hz",     "W",     NULL};
    static const char pre[] = "kMGTPE";
    size_t ul = strlen(unit);
    for (int i = 0; bases[i]; i++) {
        if (strcmp(unit, bases[i]) == 0) {
            *base = bases[i];
            *pow1000 = 0;
            return true;
        }
        const char *at = unit[0] ? strchr(pre, unit[0]) : NULL;
        if (prefixed && at && ul == strlen(bases[i]) + 1 && strcmp(unit + 1, bases[i]) == 0) {
            *base = bases[i];
            *pow1000 = (int)(at - pre) + 1;
            return true;
        }
    }
    return false;
}

void core_num_human(char *buf, size_t n, double v, const char *unit, int sig, unsigned flags)
{
    if (n == 0)
        return;
    if (!isfinite(v)) {
        snprintf(buf, n, "n/a");
        return;
    }
    if (sig < 1)
        sig = 1;
    const char *u = unit ? unit : "";
    char num[48];
    bool whole = flags & CORE_HUMAN_WHOLE;
    /* Where rounding to sig digits carries into the next prefix: 999.5 at
     * 3 digits is "1 k", not "1000"; 0.9995 s is "1 s", not "1000 ms". */
    double up = 1000 - 0.5 * pow(10, 3 - sig), down = 1 - 0.5 * pow(10, -sig);
    if (flags & CORE_HUMAN_BINARY) {
        static const char *const bin[] = {"B", "KiB", "MiB", "GiB", "TiB"};
        for (int k = 0; k < 5; k++) {
            if (strcmp(u, bin[k]) != 0)
                continue;
            double bytes = v * pow(1024, k);
            if (fabs(bytes) >= 1024 && fmod(bytes, 1024) == 0) {
                int p = 0;
                while (fabs(bytes) >= 1024 && p < 4) {
                    bytes /= 1024;
                    p++;
                }
                human_digits(num, sizeof num, bytes, sig, whole);
                snprintf(buf, n, "%s %s", num, bin[p]);
                return;
            }
            v = bytes; /* other sizes: decimal prefixes of B */
            u = "B";
            break;
        }
    }
    const char *base;
    int p;
    if (decimal_unit(u, flags & CORE_HUMAN_PREFIXED, &base, &p)) {
        static const char *const pre[] = {"", "k", "M", "G", "T", "P", "E"};
        double x = v * pow(1000, p);
        int q = 0;
        while (fabs(x) >= up && q < 6) {
            x /= 1000;
            q++;
        }
        human_digits(num, sizeof num, x, sig, whole);
        snprintf(buf, n, "%s %s%s", num, pre[q], base);
        return;
    }
    bool ms = (flags & CORE_HUMAN_PREFIXED) && strcmp(u, "ms") == 0;
    if ((strcmp(u, "s") == 0 || ms) && v != 0) {
        static const char *const tu[] = {"s", "ms", "µs", "ns"};
        double x = ms ? v / 1000 : v;
        int q = 0;
        while (fabs(x) < down && q < 3) {
            x *= 1000;
            q++;
        }
        human_digits(num, sizeof num, x, sig, whole);
        snprintf(buf, n, "%s %s", num, tu[q]);
        return;
    }
    human_digits(num, sizeof num, v, sig, whole);
    bool tight = strcmp(u, "%") == 0 ||
                 ((flags & CORE_HUMAN_TIGHT_X) && (strcmp(u, "×") == 0 || strcmp(u, "x") == 0));
    snprintf(buf, n, "%s%s%s", num, u[0] && !tight ? " " : "", u);
}
