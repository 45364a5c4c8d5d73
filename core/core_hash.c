/* core_hash.c — SHA-256 (FIPS 180-4) for pack digests, FNV-1a for stable
 * variant seeds (both written from their specifications), and random ids.
 *
 * SHA-256 runs on the x86 SHA extensions where the processor has them
 * (checked once with cpuid): about ten times the portable code's speed,
 * which a class import feels, since it hashes every submission file whole.
 * Both paths give the same digests (test_core checks the FIPS vectors and
 * a long input fed in odd pieces). */
#include "core/core.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static uint32_t rotr(uint32_t x, int n)
{
    return (x >> n) | (x << (32 - n));
}

static void compress(uint32_t h[8], const unsigned char *blk)
{
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)blk[4 * i] << 24 | (uint32_t)blk[4 * i + 1] << 16 |
               (uint32_t)blk[4 * i + 2] << 8 | blk[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 =
            k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
        uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        k = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += k;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>
#define SHA_NI_BUILD 1

/* Whether this processor has the SHA extensions and the SSSE3 and SSE4.1
 * they are used with. */
static bool sha_ni_present(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 9)) || !(c & (1u << 19)))
        return false;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
        return false;
    return (b & (1u << 29)) != 0;
}

/* FIPS 180-4's compression of n_blocks 64-byte blocks with the SHA
 * extensions: the state held as ABEF and CDGH, four rounds per group of
 * message words, each group after the fourth made from the four before. */
__attribute__((target("sha,ssse3,sse4.1"))) static void
compress_ni(uint32_t h[8], const unsigned char *in, size_t n_blocks)
{
    const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    __m128i tmp = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&h[0]), 0xB1); /* CDAB */
    __m128i st1 = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&h[4]), 0x1B); /* EFGH */
    __m128i st0 = _mm_alignr_epi8(tmp, st1, 8);                                     /* ABEF */
    st1 = _mm_blend_epi16(st1, tmp, 0xF0);                                          /* CDGH */
    for (; n_blocks > 0; n_blocks--, in += 64) {
        __m128i abef = st0, cdgh = st1, w[4];
#pragma GCC unroll 16 /* the groups' indices constants: w stays in registers */
        for (int g = 0; g < 16; g++) {
            if (g < 4) {
                w[g] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(in + 16 * g)), bswap);
            } else {
                __m128i t = _mm_alignr_epi8(w[(g + 3) & 3], w[(g + 2) & 3], 4);
                __m128i m = _mm_add_epi32(_mm_sha256msg1_epu32(w[g & 3], w[(g + 1) & 3]), t);
                w[g & 3] = _mm_sha256msg2_epu32(m, w[(g + 3) & 3]);
            }
            __m128i msg = _mm_add_epi32(w[g & 3], _mm_loadu_si128((const __m128i *)&K[4 * g]));
            st1 = _mm_sha256rnds2_epu32(st1, st0, msg);
            st0 = _mm_sha256rnds2_epu32(st0, st1, _mm_shuffle_epi32(msg, 0x0E));
        }
        st0 = _mm_add_epi32(st0, abef);
        st1 = _mm_add_epi32(st1, cdgh);
    }
    tmp = _mm_shuffle_epi32(st0, 0x1B);    /* FEBA */
    st1 = _mm_shuffle_epi32(st1, 0xB1);    /* DCHG */
    st0 = _mm_blend_epi16(tmp, st1, 0xF0); /* DCBA */
    st1 = _mm_alignr_epi8(st1, tmp, 8);    /* HGFE */
    _mm_storeu_si128((__m128i *)&h[0], st0);
    _mm_storeu_si128((__m128i *)&h[4], st1);
}
#endif

/* The compression of n_blocks whole blocks, on whichever path this
 * processor takes. */
static void compress_blocks(uint32_t h[8], const unsigned char *in, size_t n_blocks)
{
#ifdef SHA_NI_BUILD
    static int ni = -1; /* not asked yet; the answer is the same in every thread */
    if (ni < 0)
        ni = sha_ni_present() && !getenv("WB_SHA256_PORTABLE");
    if (ni) {
        compress_ni(h, in, n_blocks);
        return;
    }
#endif
    for (; n_blocks > 0; n_blocks--, in += 64)
        compress(h, in);
}

void core_sha256_init(struct core_sha256 *s)
{
    static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(s->h, iv, sizeof iv);
    s->len = 0;
    s->fill = 0;
}

void core_sha256_update(struct core_sha256 *s, const void *p, size_t n)
{
    const unsigned char *in = p;
    s->len += n;
    if (s->fill > 0) { /* complete the block begun before */
        size_t take = 64 - s->fill;
        if (take > n)
            take = n;
        memcpy(s->block + s->fill, in, take);
        s->fill += take;
        in += take;
        n -= take;
        if (s->fill < 64)
            return;
        compress_blocks(s->h, s->block, 1);
        s->fill = 0;
    }
    compress_blocks(s->h, in, n / 64); /* whole blocks straight from the input */
    in += n / 64 * 64;
    n %= 64;
    memcpy(s->block, in, n);
    s->fill = n;
}

void core_sha256_final_hex(struct core_sha256 *s, char out[65])
{
    uint64_t bits = s->len * 8;
    unsigned char pad = 0x80;
    core_sha256_update(s, &pad, 1);
    unsigned char zero = 0;
    while (s->fill != 56)
        core_sha256_update(s, &zero, 1);
    unsigned char lenbe[8];
    for (int i = 0; i < 8; i++)
        lenbe[i] = (unsigned char)(bits >> (56 - 8 * i));
    core_sha256_update(s, lenbe, 8);
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 4; j++) {
            unsigned char byte = (unsigned char)(s->h[i] >> (24 - 8 * j));
            out[8 * i + 2 * j] = hex[byte >> 4];
            out[8 * i + 2 * j + 1] = hex[byte & 15];
        }
    out[64] = '\0';
}

void core_sha256_hex(const void *p, size_t n, char out[65])
{
    struct core_sha256 s;
    core_sha256_init(&s);
    core_sha256_update(&s, p, n);
    core_sha256_final_hex(&s, out);
}

uint64_t core_fnv1a(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

void core_random_hex(char out[33])
{
    unsigned char b[16];
    ssize_t got = getrandom(b, sizeof b, GRND_NONBLOCK);
    if (got != (ssize_t)sizeof b) {
        char seed[96];
        snprintf(seed, sizeof seed, "%.9f|%ld|%p", core_time_wall(), (long)getpid(), (void *)seed);
        char hex[65];
        core_sha256_hex(seed, strlen(seed), hex);
        memcpy(out, hex, 32);
        out[32] = '\0';
        return;
    }
    for (size_t i = 0; i < sizeof b; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
}
