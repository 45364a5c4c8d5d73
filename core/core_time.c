/* core_time.c — clocks. Durations use CLOCK_MONOTONIC; records use the wall
 * clock. The injectable struct core_clock lets tests drive time. */
#include "core/core.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

double core_time_mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double core_time_wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void core_time_iso(double t, char out[32])
{
    time_t secs = (time_t)t;
    int ms = (int)((t - (double)secs) * 1000.0);
    if (ms < 0)
        ms = 0;
    if (ms > 999)
        ms = 999;
    struct tm tm;
    gmtime_r(&secs, &tm);
    /* A wide scratch buffer keeps the compiler's worst-case int widths happy. */
    char tmp[96];
    snprintf(tmp, sizeof tmp, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
             tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms);
    snprintf(out, 32, "%.31s", tmp);
}

double core_time_from_iso(const char *s)
{
    if (!s)
        return NAN;
    struct tm tm = {0};
    double sec = 0;
    int at = 0;
    size_t used; /* the seconds ("05.123") in the C locale's notation */
    if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
               &tm.tm_min, &at) != 5 ||
        at == 0 || core_num_parse(s + at, strlen(s + at), 0, &sec, &used, NULL) != 0)
        return NAN;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    return (double)timegm(&tm) + sec;
}

static double real_now(void *ctx)
{
    (void)ctx;
    return core_time_mono();
}

void core_sleep_until(double t)
{
    if (!(t > 0) || !isfinite(t))
        return; /* NaN, the distant past, or never: no time */
    struct timespec ts;
    ts.tv_sec = (time_t)t;
    ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
    if (ts.tv_nsec >= 1000000000L) { /* rounding */
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ; /* a signal: the deadline stands */
}

void core_sleep(double secs)
{
    if (secs > 0)
        core_sleep_until(core_time_mono() + secs);
}

static void real_sleep(void *ctx, double secs)
{
    (void)ctx;
    core_sleep(secs);
}

const struct core_clock *core_clock_real(void)
{
    static const struct core_clock real = {real_now, real_sleep, NULL};
    return &real;
}
