/* One float accumulator: past 2^24 every addition rounds, and the sum of
 * 8 million values misses the error bound. */
float sum(int n, const float *x)
{
    float s = 0;
    for (int i = 0; i < n; i++)
        s += x[i];
    return s;
}
