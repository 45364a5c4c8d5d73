/* Copies instead of transposing. */
void transpose(int n, const float *a, float *b)
{
    for (long i = 0; i < (long)n * n; i++)
        b[i] = a[i];
}
