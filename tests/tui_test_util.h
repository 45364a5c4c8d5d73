/*
 * tui_test_util.h — canvas checks shared by the TUI screen tests
 * (test_tui_screens.c, test_tui_calc.c): a canvas row as text, ROW/HAS/LACKS
 * assertions that report the caller's line and dump the whole canvas on a
 * mismatch, and the canvas's full rectangle. Header-only (static inline), so
 * each test target includes it without extra sources; uses cmocka for the
 * failures and tui/tui_screen.h for the canvas.
 */
#ifndef WB_TESTS_TUI_TEST_UTIL_H
#define WB_TESTS_TUI_TEST_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tui/tui_screen.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Row y of the canvas as text, trailing spaces trimmed. Caller frees. */
static inline char *tui_test_row(const struct tui_canvas *c, int y)
{
    char *all = tui_canvas_text(c);
    char *p = all;
    for (int i = 0; i < y && p; i++) {
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    char *out;
    if (!p) {
        out = core_xstrdup("");
    } else {
        char *nl = strchr(p, '\n');
        out = nl ? core_xstrndup(p, (size_t)(nl - p)) : core_xstrdup(p);
    }
    free(all);
    return out;
}

/* Fails the test (reporting `line`) unless row y of c is exactly `want`. */
static inline void tui_test_check_row(const struct tui_canvas *c, int y, const char *want, int line)
{
    char *got = tui_test_row(c, y);
    if (strcmp(got, want)) {
        char *all = tui_canvas_text(c);
        /* cmocka cuts long messages: the canvas goes to stderr whole. */
        fprintf(stderr, "canvas:\n%s\n", all);
        fail_msg("line %d: row %d is\n[%s]\nwant\n[%s]", line, y, got, want);
    }
    free(got);
}
#define ROW(c, y, want) tui_test_check_row((c), (y), (want), __LINE__)

/* Fails the test (reporting `line`) unless c contains `want` (has) or lacks it. */
static inline void tui_test_check_has(const struct tui_canvas *c, const char *want, bool has,
                                      int line)
{
    char *all = tui_canvas_text(c);
    bool found = strstr(all, want) != NULL;
    if (found != has) {
        fprintf(stderr, "canvas:\n%s\n", all);
        fail_msg("line %d: canvas %s '%s'", line, has ? "lacks" : "has", want);
    }
    free(all);
}
#define HAS(c, want) tui_test_check_has((c), (want), true, __LINE__)
#define LACKS(c, want) tui_test_check_has((c), (want), false, __LINE__)

/* The whole canvas as a rectangle, for drawing a view into all of it. */
static inline struct tui_rect tui_test_full(const struct tui_canvas *c)
{
    return (struct tui_rect){0, 0, c->h, c->w};
}

#endif
