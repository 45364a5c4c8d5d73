/* A file compiled as grader/pure/ is that includes the Lua runtime's
 * header, a layer above it: the build must refuse it
 * (tests/check_build_layers_test.sh). */
#include "grader/runtime/grader_runtime.h"

int planted_pure_up(void);
int planted_pure_up(void)
{
    return 0;
}
