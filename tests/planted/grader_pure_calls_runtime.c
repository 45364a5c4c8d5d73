/* A file of grader/pure/ that calls into the Lua runtime, declaring the
 * function itself so that it compiles: linked as the pure layer is linked
 * alone (grader/CMakeLists.txt), every object in, it must fail with an
 * undefined reference (tests/check_build_layers_test.sh). */
struct grader_sb;
void grader_sb_free(struct grader_sb *sb);

void planted_pure_calls_up(void);
void planted_pure_calls_up(void)
{
    grader_sb_free((struct grader_sb *)0);
}
