/* Forgets the last column of every row (j < n - 1). */
void matmul(int n, const float *a, const float *b, float *c)
{
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++)
            c[i * n + j] = 0;
        for (int k = 0; k < n; k++)
            for (int j = 0; j < n - 1; j++)
                c[i * n + j] += a[i * n + k] * b[k * n + j];
    }
}
