/*
 * lab_amdahl.h — the amdahl lab's private header (labs/amdahl/ and its tests):
 * the one file lab_amdahl.c holds the whole lab (definition, workers,
 * calibration, trials, the fit).
 *
 * The folder exports only its registration, lab_amdahl_def; every other symbol
 * it defines is static. Uses lab_author.h.
 */
#ifndef WB_LAB_AMDAHL_H
#define WB_LAB_AMDAHL_H

#include "labs/lab_author.h"

/* The lab's definition: one row of the registry (core/lab_registry.c). */
extern const struct lab_def lab_amdahl_def;

#endif /* WB_LAB_AMDAHL_H */
