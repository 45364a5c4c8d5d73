/*
 * lab_selftest.h — the selftest lab's private header (labs/selftest/ and its
 * tests): the one file lab_selftest.c holds the whole lab.
 *
 * The folder exports only its registration, lab_selftest_def; every other
 * symbol it defines is static. Uses lab_author.h.
 */
#ifndef WB_LAB_SELFTEST_H
#define WB_LAB_SELFTEST_H

#include "labs/lab_author.h"

/* The lab's definition: one row of the registry (core/lab_registry.c). */
extern const struct lab_def lab_selftest_def;

#endif /* WB_LAB_SELFTEST_H */
