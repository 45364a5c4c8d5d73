/*
 * lab_memory.h — the memory lab's private header (labs/memory/ and its tests):
 * the one file lab_memory.c holds the whole lab (the loop orders of matmul and
 * the stride sweep).
 *
 * The folder exports only its registration, lab_memory_def; every other symbol
 * it defines is static. Uses lab_author.h.
 */
#ifndef WB_LAB_MEMORY_H
#define WB_LAB_MEMORY_H

#include "labs/lab_author.h"

/* The lab's definition: one row of the registry (core/lab_registry.c). */
extern const struct lab_def lab_memory_def;

#endif /* WB_LAB_MEMORY_H */
