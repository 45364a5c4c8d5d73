/*
 * lab_allreduce.h — the allreduce lab's private header (labs/allreduce/ and
 * its tests): the one file lab_allreduce.c holds the whole lab (the master,
 * its workers over the local or the MPI transport).
 *
 * The folder exports only its registration, lab_ar_def; every other symbol it
 * defines is static. Uses lab_author.h.
 */
#ifndef WB_LAB_ALLREDUCE_H
#define WB_LAB_ALLREDUCE_H

#include "labs/lab_author.h"

/* The lab's definition: one row of the registry (core/lab_registry.c). */
extern const struct lab_def lab_ar_def;

#endif /* WB_LAB_ALLREDUCE_H */
