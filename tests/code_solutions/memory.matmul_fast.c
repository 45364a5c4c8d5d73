/* Blocked i-k-j matrix multiply: a tile of b stays in L2, the inner j loop
 * over a row of c vectorises (-O2 -march=native). */
/* -O2 vectorises only the cheapest loops; this file asks for more. */
#pragma GCC optimize("O3")
#include <string.h>

#define BK 128
#define BJ 256

void matmul(int n, const float *a, const float *b, float *c)
{
    memset(c, 0, sizeof(float) * (size_t)n * (size_t)n);
    for (int kk = 0; kk < n; kk += BK)
        for (int jj = 0; jj < n; jj += BJ) {
            int ke = kk + BK < n ? kk + BK : n, je = jj + BJ < n ? jj + BJ : n;
            for (int i = 0; i < n; i++) {
                float *restrict ci = c + (size_t)i * n;
                for (int k = kk; k < ke; k++) {
                    float aik = a[(size_t)i * n + k];
                    const float *restrict bk = b + (size_t)k * n;
#pragma GCC ivdep
                    for (int j = jj; j < je; j++)
                        ci[j] += aik * bk[j];
                }
            }
        }
}
