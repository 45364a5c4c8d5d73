/*
 * core_typo.c — the one edit distance of the project: "did you mean" for the
 * front ends' suggestions (unknown question and lesson ids, unknown pack
 * fields and kinds), and the misspellings a design answer is forgiven
 * (grader_design.c).
 */
#include "core/core.h"

#include <string.h>

#define TYPO_MAX 64

size_t core_str_edits(const char *a, size_t na, const char *b, size_t nb, size_t max)
{
    if ((na > nb ? na - nb : nb - na) > max || na > TYPO_MAX || nb > TYPO_MAX)
        return max + 1;
    /* Three rows of the optimal string alignment table: two back for a swap. */
    size_t prev2[TYPO_MAX + 1], prev[TYPO_MAX + 1], cur[TYPO_MAX + 1];
    for (size_t j = 0; j <= nb; j++)
        prev[j] = j;
    for (size_t i = 1; i <= na; i++) {
        cur[0] = i;
        size_t row_min = cur[0];
        for (size_t j = 1; j <= nb; j++) {
            size_t v = prev[j - 1] + (a[i - 1] != b[j - 1]);
            if (prev[j] + 1 < v)
                v = prev[j] + 1;
            if (cur[j - 1] + 1 < v)
                v = cur[j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                prev2[j - 2] + 1 < v)
                v = prev2[j - 2] + 1; /* two neighbours swapped */
            cur[j] = v;
            if (v < row_min)
                row_min = v;
        }
        if (row_min > max) /* every later row is at least as far */
            return max + 1;
        memcpy(prev2, prev, (nb + 1) * sizeof *prev);
        memcpy(prev, cur, (nb + 1) * sizeof *cur);
    }
    return prev[nb] > max ? max + 1 : prev[nb];
}

size_t core_str_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > TYPO_MAX || lb > TYPO_MAX)
        return 99;
    return core_str_edits(a, la, b, lb, 98);
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
