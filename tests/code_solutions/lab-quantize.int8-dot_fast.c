/* Blocks of 2^15 products accumulated in int32 lanes (which vectorise:
 * widening multiply-adds), each block added into an int64. */
/* -O2 vectorises only the cheapest loops; this file asks for more. */
#pragma GCC optimize("O3")
#include <stdint.h>

int64_t dot8(int n, const int8_t *a, const int8_t *b)
{
    int64_t s = 0;
    for (int i = 0; i < n; i += 32768) {
        int e = i + 32768 < n ? i + 32768 : n;
        int32_t acc = 0;
        for (int j = i; j < e; j++)
            acc += (int16_t)a[j] * (int16_t)b[j];
        s += acc;
    }
    return s;
}
