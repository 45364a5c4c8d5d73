/* lesson_calc_fmt.c — how a calculator's numeric outputs are shown, in one
 * place for every front end (`warpbench calc` and the TUI's calculator
 * screen): significant figures, decimal prefixes for base units, and where
 * the unit goes. Pure: no store, no Lua. Uses libc only. */
#include "lessons/lesson.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* v with up to `sig` significant figures, no exponent between 1e-4 and 1e9,
 * trailing zeros trimmed. */
static void fmt_num(double v, int sig, char *buf, size_t n)
{
    double a = fabs(v);
    if (v == 0) {
        snprintf(buf, n, "0");
        return;
    }
    if (a >= 1e9 || a < 1e-4) {
        snprintf(buf, n, "%.*g", sig, v);
        return;
    }
    int digits = sig - 1 - (int)floor(log10(a));
    if (digits < 0)
        digits = 0;
    snprintf(buf, n, "%.*f", digits, v);
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

/* Base units shown with a decimal prefix that fits the value. */
static bool si_unit(const char *u)
{
    static const char *const units[] = {"B",      "B/s",   "bit/s", "bps", "FLOP",
                                        "FLOP/s", "FLOPS", "Hz",    "W",   NULL};
    for (int i = 0; units[i]; i++)
        if (strcmp(units[i], u) == 0)
            return true;
    return false;
}

void lesson_calc_value_format(double v, const char *unit, char *buf, size_t n)
{
    char num[64];
    const char *u = unit ? unit : "";
    char scaled[48];
    double a = fabs(v);
    if (n == 0)
        return;
    if (si_unit(u) && a >= 1e3) {
        static const char pre[] = "kMGTPE";
        int k = -1;
        while (a >= 1e3 && k < 5) {
            a /= 1e3;
            v /= 1e3;
            k++;
        }
        snprintf(scaled, sizeof scaled, "%c%s", pre[k], u);
        u = scaled;
    } else if (strcmp(u, "s") == 0 && a > 0 && a < 1 && a >= 1e-9) {
        static const char *const pre[] = {"ms", "µs", "ns"};
        int k = -1;
        while (a < 1 && k < 2) {
            a *= 1e3;
            v *= 1e3;
            k++;
        }
        u = pre[k];
    }
    fmt_num(v, 4, num, sizeof num);
    bool tight = strcmp(u, "×") == 0 || strcmp(u, "x") == 0 || strcmp(u, "%") == 0;
    snprintf(buf, n, "%s%s%s", num, u[0] && !tight ? " " : "", u);
}

void lesson_score_format(double v, char *buf, size_t n)
{
    if (n == 0)
        return;
    if (!isfinite(v)) {
        snprintf(buf, n, "?");
        return;
    }
    double r = round(v * 100) / 100;
    if (r == 0)
        r = 0; /* -0 */
    char tmp[48];
    core_num_format(tmp, sizeof tmp, r, 0); /* the shortest exact form: "1.33", "2", "0.5" */
    snprintf(buf, n, "%s", tmp);
}

void lesson_duration_format(int seconds, char *buf, size_t n)
{
    if (n == 0)
        return;
    int min = seconds / 60;
    if (seconds % 60 != 0)
        snprintf(buf, n, seconds < 120 ? "%d s" : "%d min %d s", seconds < 120 ? seconds : min,
                 seconds % 60);
    else if (min < 60)
        snprintf(buf, n, "%d minute%s", min, min == 1 ? "" : "s");
    else if (min % 60 == 0)
        snprintf(buf, n, "%d hour%s", min / 60, min == 60 ? "" : "s");
    else
        snprintf(buf, n, "%d h %d min", min / 60, min % 60);
}
