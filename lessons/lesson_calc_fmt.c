/* lesson_calc_fmt.c — how a calculator's numeric outputs, scores and
 * durations are shown, in one place for every front end (`warpbench calc`
 * and the TUI's calculator screen). Numbers with units are core_num_human's,
 * in the calculators' style. Pure: no store, no Lua. */
#include "lessons/lesson.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void lesson_calc_value_format(double v, const char *unit, char *buf, size_t n)
{
    core_num_human(buf, n, v, unit, 4, CORE_HUMAN_TIGHT_X);
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
