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

static bool two_digits(const char *s, int *v)
{
    if (!(s[0] >= '0' && s[0] <= '9' && s[1] >= '0' && s[1] <= '9'))
        return false;
    *v = (s[0] - '0') * 10 + (s[1] - '0');
    return true;
}

/* Whether y-mo-d is a day of the proleptic Gregorian calendar. */
static bool valid_date(int y, int mo, int d)
{
    static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return mo >= 1 && mo <= 12 && d >= 1 && d <= mdays[mo - 1] && !(mo == 2 && d == 29 && !leap);
}

/* Seconds from 1970-01-01T00:00:00Z to the start of UTC day y-mo-d (a
 * valid date): days counted in 400-year eras, as timegm gives them, without
 * timegm's reading of the time zone on every call. */
static double utc_day_start(int y, int mo, int d)
{
    y -= mo <= 2;
    long era = (y >= 0 ? y : y - 399) / 400;
    long yoe = y - era * 400;
    long doy = (153L * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return (double)(era * 146097 + doe - 719468) * 86400.0;
}

double core_time_from_iso(const char *s)
{
    if (!s)
        return NAN;
    int y = 0, mo, d, h, mi, sec;
    for (int i = 0; i < 4; i++) {
        if (!(s[i] >= '0' && s[i] <= '9'))
            return NAN;
        y = y * 10 + (s[i] - '0');
    }
    if (s[4] != '-' || !two_digits(s + 5, &mo) || s[7] != '-' || !two_digits(s + 8, &d) ||
        s[10] != 'T' || !two_digits(s + 11, &h) || s[13] != ':' || !two_digits(s + 14, &mi) ||
        s[16] != ':' || !two_digits(s + 17, &sec) || !valid_date(y, mo, d) || h > 23 || mi > 59 ||
        sec > 60)
        return NAN;
    double frac = 0; /* what follows the fraction ("Z") is not read */
    if (s[19] == '.') {
        double unit = 0.1;
        for (const char *p = s + 20; *p >= '0' && *p <= '9'; p++, unit /= 10)
            frac += (*p - '0') * unit;
    }
    return utc_day_start(y, mo, d) + h * 3600.0 + mi * 60.0 + sec + frac;
}

double core_time_parse(const char *s)
{
    if (!s)
        return NAN;
    int y = 0, mo, d, h = 23, mi = 59, sec = 59;
    double frac = 0;
    for (int i = 0; i < 4; i++) {
        if (!(s[i] >= '0' && s[i] <= '9'))
            return NAN;
        y = y * 10 + (s[i] - '0');
    }
    if (s[4] != '-' || !two_digits(s + 5, &mo) || s[7] != '-' || !two_digits(s + 8, &d))
        return NAN;
    const char *p = s + 10;
    if (*p == 'T' || *p == ' ') {
        if (!two_digits(p + 1, &h) || p[3] != ':' || !two_digits(p + 4, &mi))
            return NAN;
        p += 6;
        sec = 0;
        if (*p == ':') {
            if (!two_digits(p + 1, &sec))
                return NAN;
            p += 3;
            if (*p == '.') {
                double unit = 0.1;
                for (p++; *p >= '0' && *p <= '9'; p++, unit /= 10)
                    frac += (*p - '0') * unit;
            }
        }
    }
    int offset = 0;
    if (*p == 'Z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        int oh, om = 0;
        int sign = *p == '-' ? -1 : 1;
        if (!two_digits(p + 1, &oh))
            return NAN;
        p += 3;
        if (*p == ':')
            p++;
        if (two_digits(p, &om))
            p += 2;
        if (oh > 23 || om > 59)
            return NAN;
        offset = sign * (oh * 3600 + om * 60);
    }
    if (*p || !valid_date(y, mo, d) || h > 23 || mi > 59 || sec > 60)
        return NAN;
    return utc_day_start(y, mo, d) + h * 3600.0 + mi * 60.0 + sec - offset + frac;
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
