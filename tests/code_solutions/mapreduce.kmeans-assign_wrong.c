/* Takes the farthest centroid (max instead of min). */
void assign(int n, int d, int k, const float *x, const float *c, int *label)
{
    for (int i = 0; i < n; i++) {
        int best = 0;
        float bd = -1;
        for (int j = 0; j < k; j++) {
            float s = 0;
            for (int t = 0; t < d; t++) {
                float e = x[i * d + t] - c[j * d + t];
                s += e * e;
            }
            if (s > bd)
                bd = s, best = j;
        }
        label[i] = best;
    }
}
