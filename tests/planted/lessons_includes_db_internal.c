/* A file compiled as lessons/ is that includes db/'s private header: the
 * build must refuse it (tests/check_build_layers_test.sh). */
#include "db/db_internal.h"

int planted_lessons_inner(void);
int planted_lessons_inner(void)
{
    return 0;
}
