/* Tiled transpose: a 32x32 tile of a and of b both fit in L1. */
/* -O2 vectorises only the cheapest loops; this file asks for more. */
#pragma GCC optimize("O3")
#define TB 32

void transpose(int n, const float *a, float *b)
{
    for (int ii = 0; ii < n; ii += TB)
        for (int jj = 0; jj < n; jj += TB)
            for (int i = ii; i < ii + TB && i < n; i++)
                for (int j = jj; j < jj + TB && j < n; j++)
                    b[(long)j * n + i] = a[(long)i * n + j];
}
