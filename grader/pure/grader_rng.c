/*
 * grader_rng.c — the variant RNG: xoshiro256** (Blackman and Vigna, 2018)
 * seeded through splitmix64, with a seed hashed from (pack, question, user,
 * variant). Integer arithmetic only up to grader_rng_uniform, so the same
 * seed gives the same numbers on every machine and compiler.
 *
 * Uses core_fnv1a for the seed hash.
 */
#include "grader_pure.h"

#include <stdio.h>
#include <string.h>

uint64_t grader_rng_seed(const char *pack_id, const char *qid, const char *user, int variant)
{
    /* The NUL after each field keeps ("ab","c") apart from ("a","bc"). */
    const char *fields[3] = {pack_id ? pack_id : "", qid ? qid : "", user ? user : ""};
    uint64_t h = CORE_FNV_OFFSET;
    for (int i = 0; i < 3; i++)
        h = core_fnv1a(h, fields[i], strlen(fields[i]) + 1);
    char v[16];
    int len = snprintf(v, sizeof v, "%d", variant); /* %d never groups digits */
    return core_fnv1a(h, v, (size_t)len);
}

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void grader_rng_init(struct grader_rng *r, uint64_t seed)
{
    /* Four consecutive splitmix64 outputs are never all zero (it is a
     * bijection of a counter), so the xoshiro state is never the dead one. */
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t grader_rng_next(struct grader_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double grader_rng_uniform(struct grader_rng *r)
{
    return (double)(grader_rng_next(r) >> 11) * 0x1.0p-53;
}

int64_t grader_rng_int(struct grader_rng *r, int64_t lo, int64_t hi)
{
    if (lo > hi) {
        /* callers validate; swapped so a bad call can neither loop nor crash */
        int64_t t = lo;
        lo = hi;
        hi = t;
    }
    uint64_t span = (uint64_t)hi - (uint64_t)lo; /* hi - lo, without signed overflow */
    uint64_t x;
    if (span == UINT64_MAX) {
        x = grader_rng_next(r);
    } else {
        /* Rejection: draws below 2^64 mod n would make low results more
         * likely, so they are drawn again (at most half of all draws). */
        uint64_t n = span + 1;
        uint64_t floor_ = (0 - n) % n;
        uint64_t d;
        do
            d = grader_rng_next(r);
        while (d < floor_);
        x = d % n;
    }
    uint64_t u = (uint64_t)lo + x;
    /* back to signed without implementation-defined conversion */
    return u <= INT64_MAX ? (int64_t)u : -(int64_t)(UINT64_MAX - u) - 1;
}
