/*
 * lab_net_ring.c — ring all-reduce over lab_net_conn links (contract in
 * lab_net.h): reduce-scatter, then all-gather, W-1 lab_net_sendrecv steps each.
 *
 * data[0..n) is cut into W chunks, chunk c of n/W values plus one for the
 * first n%W chunks (some are empty when n < W; they still travel, as empty
 * messages, so every rank takes the same steps). In reduce-scatter step s
 * rank r sends chunk (r-s) mod W to the right and adds chunk (r-s-1) mod W
 * from the left; after W-1 steps rank r owns the whole sum of chunk
 * (r+1) mod W, summed in ring order starting at rank c, by one rank only.
 * All-gather then copies each owned chunk around the ring unchanged, so
 * every rank ends with the same bits. Each message carries its step and
 * chunk number (a, b) and is checked on arrival: a ring wired wrongly fails
 * with a message instead of summing garbage.
 *
 * Bytes each rank sends: 2 (W-1)/W * 4n, the figure bus bandwidth is built
 * on (nccl-tests: busbw = algbw * 2(W-1)/W).
 */
#include "labs/transport/lab_net.h"

#include <math.h>
#include <string.h>

static void chunk_of(size_t n, int W, int c, size_t *off, size_t *len)
{
    size_t base = n / (size_t)W, rem = n % (size_t)W;
    size_t uc = (size_t)c;
    *off = uc * base + (uc < rem ? uc : rem);
    *len = base + (uc < rem ? 1 : 0);
}

static int mod(int a, int W)
{
    return ((a % W) + W) % W;
}

int lab_net_ring_allreduce(struct lab_net_conn *left, struct lab_net_conn *right, int rank, int W,
                           float *data, size_t n, float *scratch, int timeout_ms,
                           struct core_err *err)
{
    (void)scratch; /* the local transport receives into the connection's buffer */
    if (W <= 1)
        return 0;
    if (rank < 0 || rank >= W)
        return core_err_set(err, CORE_ERR_INTERNAL, "ring all-reduce: rank %d of %d", rank, W);
    double end = timeout_ms < 0 ? -1 : core_time_mono() + timeout_ms / 1000.0;
    for (int phase = 0; phase < 2; phase++) {
        for (int s = 0; s < W - 1; s++) {
            int send_c = phase == 0 ? mod(rank - s, W) : mod(rank + 1 - s, W);
            int recv_c = phase == 0 ? mod(rank - s - 1, W) : mod(rank - s, W);
            size_t so, sl, ro, rl;
            chunk_of(n, W, send_c, &so, &sl);
            chunk_of(n, W, recv_c, &ro, &rl);
            int64_t step = (int64_t)phase * W + s;
            int left_ms = -1;
            if (end >= 0) {
                double l = end - core_time_mono();
                left_ms = l <= 0 ? 0 : (int)ceil(l * 1000.0);
            }
            struct lab_net_msg m;
            int rc = lab_net_sendrecv(right, LAB_NET_RING_MSG, step, send_c, data + so,
                                      sl * sizeof(float), left, &m, left_ms, err);
            if (rc) {
                if (err)
                    core_err_prefix(err, "ring all-reduce (rank %d of %d, %s step %d)", rank, W,
                                    phase == 0 ? "reduce-scatter" : "all-gather", s + 1);
                return rc;
            }
            if (m.type != LAB_NET_RING_MSG || m.a != step || m.b != recv_c ||
                m.len != rl * sizeof(float))
                return core_err_set(err, CORE_ERR_IO,
                                    "ring all-reduce (rank %d of %d): out of step: expected step "
                                    "%lld chunk %d (%zu bytes), got type 0x%x step %lld chunk "
                                    "%lld (%llu bytes)",
                                    rank, W, (long long)step, recv_c, rl * sizeof(float),
                                    (unsigned)m.type, (long long)m.a, (long long)m.b,
                                    (unsigned long long)m.len);
            const float *in = m.data;
            float *dst = data + ro;
            if (phase == 0)
                for (size_t i = 0; i < rl; i++)
                    dst[i] = in[i] + dst[i]; /* the partial sum so far, plus this rank */
            else if (rl > 0)
                memcpy(dst, in, rl * sizeof(float));
        }
    }
    return 0;
}
