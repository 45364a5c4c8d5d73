/*
 * core_typo.c — "did you mean": the distance between two short names and
 * the closest of a list, for the front ends' suggestions (unknown question
 * and lesson ids, unknown pack fields and kinds).
 */
#include "core/core.h"

#include <string.h>

#define TYPO_MAX 64

size_t core_str_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > TYPO_MAX || lb > TYPO_MAX)
        return 99;
    size_t d[TYPO_MAX + 1][TYPO_MAX + 1];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++) {
        for (size_t j = 1; j <= lb; j++) {
            size_t c = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            size_t x = d[i - 1][j] + 1, y = d[i][j - 1] + 1;
            d[i][j] = c < x ? (c < y ? c : y) : (x < y ? x : y);
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < d[i][j])
                d[i][j] = d[i - 2][j - 2] + 1; /* two letters swapped */
        }
    }
    return d[la][lb];
}

const char *core_str_closest(const char *s, const char *const *names, size_t n)
{
    const char *best = NULL;
    size_t bd = 99, len = strlen(s);
    size_t lim = len <= 4 ? 1 : len <= 8 ? 2 : 3;
    for (size_t i = 0; i < n; i++) {
        if (!names[i])
            continue;
        size_t d = core_str_distance(s, names[i]);
        if (d < bd) {
            bd = d;
            best = names[i];
        }
    }
    return bd <= lim ? best : NULL;
}
