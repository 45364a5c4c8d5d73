/* The control of tests/check_build_layers_test.sh: a file compiled as db/
 * is that includes what db/ may (core.h, its own db_internal.h) builds. */
#include "core/core.h"
#include "db/db_internal.h"

int planted_db_fine(void);
int planted_db_fine(void)
{
    return 0;
}
