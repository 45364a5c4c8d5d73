/* Distances to all k centroids at once: the centroids transposed (d x k)
 * so the loop over centroids vectorises, ||x||^2 dropped (it does not
 * change the argmin), ||c||^2 computed once per call. */
/* -O2 vectorises only the cheapest loops; this file asks for more. */
#pragma GCC optimize("O3")
#include <stdlib.h>

void assign(int n, int d, int k, const float *x, const float *c, int *label)
{
    float ct[64 * 64], cn[64], dist[64];
    if (k > 64 || d > 64) {
        for (int i = 0; i < n; i++) {
            int best = 0;
            float bd = 3.4e38f;
            for (int j = 0; j < k; j++) {
                float s = 0;
                for (int t = 0; t < d; t++) {
                    float e = x[i * d + t] - c[j * d + t];
                    s += e * e;
                }
                if (s < bd)
                    bd = s, best = j;
            }
            label[i] = best;
        }
        return;
    }
    for (int j = 0; j < k; j++) {
        float s = 0;
        for (int t = 0; t < d; t++) {
            ct[t * k + j] = c[j * d + t];
            s += c[j * d + t] * c[j * d + t];
        }
        cn[j] = s;
    }
    for (int i = 0; i < n; i++) {
        const float *xi = x + (size_t)i * d;
        for (int j = 0; j < k; j++)
            dist[j] = cn[j];
        for (int t = 0; t < d; t++) {
            float m = -2.0f * xi[t];
            for (int j = 0; j < k; j++)
                dist[j] += m * ct[t * k + j];
        }
        int best = 0;
        float bd = dist[0];
        for (int j = 1; j < k; j++)
            if (dist[j] < bd)
                bd = dist[j], best = j;
        label[i] = best;
    }
}
