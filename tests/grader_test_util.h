/*
 * grader_test_util.h — what the tests that load a pack from the source tree
 * share (test_grader_reuse.c, test_sealed.c, test_grader_pack.c): every
 * file of a folder below WB_SOURCE_DIR read and opened as one pack, its
 * problems printed, the test failed unless it loads. Header-only (static inline), so each test
 * target includes it without extra sources; uses cmocka for the failures
 * and grader/grader.h for the pack.
 */
#ifndef WB_TESTS_GRADER_TEST_UTIL_H
#define WB_TESTS_GRADER_TEST_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/core.h"
#include "grader/grader.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

#define GRADER_TEST_MAX_FILES 64

/* The pack in folder `rel` of the source tree (every file of it but the
 * hidden ones), opened with the default limits. */
static inline struct grader_pack *grader_test_load_dir(const char *rel)
{
    const char *root = getenv("WB_SOURCE_DIR");
    assert_non_null(root);
    char *dir = core_path_join(root, rel);
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct grader_file files[GRADER_TEST_MAX_FILES];
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        assert_true(n < GRADER_TEST_MAX_FILES);
        char *path = core_path_join(dir, e->d_name);
        char *data;
        size_t len;
        struct core_err err = {0};
        if (core_file_read(path, 1u << 24, &data, &len, &err) == CORE_OK)
            files[n++] = (struct grader_file){core_xstrdup(e->d_name), data, len};
        free(path);
    }
    closedir(d);
    free(dir);
    struct grader_pack *p = NULL;
    struct core_strlist problems;
    core_strlist_init(&problems);
    struct core_err err = {0};
    int rc = grader_pack_new(&p, files, n, NULL, &problems, &err);
    for (size_t i = 0; i < problems.n; i++)
        fprintf(stderr, "  %s\n", problems.items[i]);
    assert_int_equal(rc, CORE_OK);
    core_strlist_fini(&problems);
    for (size_t i = 0; i < n; i++) {
        free((char *)files[i].path);
        free((char *)files[i].data);
    }
    return p;
}

#endif
