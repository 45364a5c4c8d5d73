/* An int32 accumulator: the sum of 16 million products overflows. */
#include <stdint.h>

int64_t dot8(int n, const int8_t *a, const int8_t *b)
{
    int32_t s = 0;
    for (int i = 0; i < n; i++)
        s += (uint8_t)a[i] * b[i];
    return s;
}
