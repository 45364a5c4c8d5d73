/* A file compiled as db/ is (tests/build_layers.cmake) that includes a
 * module above it: the build must refuse it, since lessons/lesson.h is not on
 * db/'s include path (tests/check_build_layers_test.sh). Built only by that
 * test. */
#include "lessons/lesson.h"

int planted_db_up(void);
int planted_db_up(void)
{
    return 0;
}
