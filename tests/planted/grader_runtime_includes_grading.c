/* A file compiled as grader/runtime/ is that includes the header of packs
 * and grading, the layer above it: the build must refuse it
 * (tests/check_build_layers_test.sh). */
#include "grader/grader_lua_internal.h"

int planted_runtime_up(void);
int planted_runtime_up(void)
{
    return 0;
}
