/* A front end's file (as cli/ and tui/ compile) that includes the lab authors'
 * header: the build must refuse it (tests/check_lab_author_test.sh). Built
 * only by that test, never by the default build. */
#include "labs/lab_author.h"

int planted_front(void);
int planted_front(void)
{
    return lab_hang_limit_s(1.0) > 0;
}
