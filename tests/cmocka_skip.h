/*
 * cmocka_skip.h — a cmocka case that cannot run here reports as skipped to
 * ctest, never as passed. cmocka's skip() alone exits 0, so ctest counted
 * such a case green. A case calls WB_SKIP("why") instead; main runs the group
 * through wb_run_tests, which returns SKIP_RETURN_CODE (77) when a case
 * skipped and none failed. A test file with a case that may skip registers
 * it apart (wb_add_unit_test's SKIPPABLE, tests/CMakeLists.txt): the whole
 * file runs without it, and the case runs alone as a ctest test of its own
 * that ctest shows as skipped where it cannot run. Header-only.
 */
#ifndef WB_TESTS_CMOCKA_SKIP_H
#define WB_TESTS_CMOCKA_SKIP_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#define WB_SKIP_RC 77

static int wb_skipped;

/* Says why (printf-style) on stdout, counts the case skipped, ends it. */
#define WB_SKIP(...)                                                                               \
    do {                                                                                           \
        printf("SKIP: ");                                                                          \
        printf(__VA_ARGS__);                                                                       \
        printf("\n");                                                                              \
        wb_skipped++;                                                                              \
        skip();                                                                                    \
    } while (0)

/* Runs tests[0..n): all of them; with argv[1] a case's name, that case
 * alone; with "--without NAME", all but that one. Returns the number of
 * failed cases, or WB_SKIP_RC when none failed and one was skipped. */
static inline int wb_run_tests(const char *group, const struct CMUnitTest *tests, size_t n,
                               int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--without") == 0)
        cmocka_set_skip_filter(argv[2]);
    else if (argc == 2)
        cmocka_set_test_filter(argv[1]);
    int failed = _cmocka_run_group_tests(group, tests, n, NULL, NULL);
    return failed == 0 && wb_skipped > 0 ? WB_SKIP_RC : failed;
}

#endif
