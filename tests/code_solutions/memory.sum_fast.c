/* 64 independent float partial sums (four AVX-512 or eight AVX registers):
 * the loop vectorises, and each partial sum holds n/64 values, small
 * enough to stay accurate. */
/* -O2 vectorises only the cheapest loops; this file asks for more. */
#pragma GCC optimize("O3")
float sum(int n, const float *x)
{
    float p[64] = {0};
    int i = 0;
    for (; i + 64 <= n; i += 64)
        for (int k = 0; k < 64; k++)
            p[k] += x[i + k];
    double s = 0;
    for (int k = 0; k < 64; k++)
        s += p[k];
    for (; i < n; i++)
        s += x[i];
    return (float)s;
}
