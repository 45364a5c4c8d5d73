/* The whole program of a library linked alone (grader/CMakeLists.txt,
 * wb_grader_*_alone): every object of the library is linked in, so a call
 * it makes to anything but the libraries it links is an undefined
 * reference, and the build fails there. Never run. */
int main(void);
int main(void)
{
    return 0;
}
