/*
 * lab_net_tree.c — tree all-reduce over lab_net_conn links (contract in
 * lab_net.h): a binomial-tree reduce to rank 0, then a binomial-tree
 * broadcast back, each log2(W) steps (rounded up) that move the whole
 * buffer — the course's 2 log2(p) (alpha + M/B).
 *
 * Level L links rank r with r ^ 2^L when r's lower L bits are zero and both
 * ranks exist. Reduce: at level L = 0, 1, ... a rank with bit L set sends
 * its partial sum to r - 2^L and is done; a rank without it adds what
 * r + 2^L sends (when that rank exists). So every element is summed in one
 * fixed order, rank 0 holds the sum, and the broadcast copies it down the
 * same links: every rank ends with the same bits. Each message carries its
 * phase and level (a, b) and its length is checked: a tree wired wrongly
 * fails with a message instead of summing garbage.
 */
#include "labs/transport/lab_net.h"

#include <math.h>
#include <string.h>

static int left_ms(double end)
{
    if (end < 0)
        return -1;
    double l = end - core_time_mono();
    return l <= 0 ? 0 : (int)ceil(l * 1000.0);
}

int lab_net_tree_levels(int W)
{
    int L = 0;
    while ((1 << L) < W)
        L++;
    return L;
}

bool lab_net_tree_linked(int rank, int W, int level)
{
    int mask = 1 << level;
    return (rank & (mask - 1)) == 0 && (rank ^ mask) < W && rank < W;
}

static int check_msg(const struct lab_net_msg *m, int64_t phase, int level, size_t bytes, int rank,
                     int W, struct core_err *err)
{
    if (m->type == LAB_NET_TREE_MSG && m->a == phase && m->b == level && m->len == bytes)
        return 0;
    return core_err_set(err, CORE_ERR_IO,
                        "tree all-reduce (rank %d of %d): expected %s level %d (%zu bytes), got "
                        "type 0x%x phase %lld level %lld (%llu bytes)",
                        rank, W, phase == 0 ? "reduce" : "broadcast", level, bytes,
                        (unsigned)m->type, (long long)m->a, (long long)m->b,
                        (unsigned long long)m->len);
}

int lab_net_tree_allreduce(struct lab_net_conn *const *links, int rank, int W, float *data,
                           size_t n, int timeout_ms, struct core_err *err)
{
    if (W <= 1)
        return 0;
    if (rank < 0 || rank >= W)
        return core_err_set(err, CORE_ERR_INTERNAL, "tree all-reduce: rank %d of %d", rank, W);
    double end = timeout_ms < 0 ? -1 : core_time_mono() + timeout_ms / 1000.0;
    size_t bytes = n * sizeof(float);
    int L = lab_net_tree_levels(W), top = L;
    struct lab_net_part part = {data, bytes};
    /* reduce: up the tree */
    for (int l = 0; l < L; l++) {
        int mask = 1 << l;
        if (rank & mask) {
            int rc = lab_net_send(links[l], LAB_NET_TREE_MSG, 0, l, &part, 1, left_ms(end), err);
            if (rc)
                return core_err_prefix(err, "tree all-reduce (rank %d of %d, reduce level %d)",
                                       rank, W, l);
            top = l; /* this rank's parent link: the broadcast comes down it */
            break;
        }
        if ((rank ^ mask) >= W)
            continue;
        struct lab_net_msg m;
        int rc = lab_net_recv(links[l], &m, left_ms(end), err);
        if (rc)
            return core_err_prefix(err, "tree all-reduce (rank %d of %d, reduce level %d)", rank, W,
                                   l);
        if ((rc = check_msg(&m, 0, l, bytes, rank, W, err)) != 0)
            return rc;
        const float *in = m.data;
        for (size_t i = 0; i < n; i++)
            data[i] = data[i] + in[i]; /* this rank's partial, plus its child's */
    }
    /* broadcast: down the tree, from the parent link to the lower levels */
    if (rank != 0) {
        struct lab_net_msg m;
        int rc = lab_net_recv(links[top], &m, left_ms(end), err);
        if (rc)
            return core_err_prefix(err, "tree all-reduce (rank %d of %d, broadcast level %d)", rank,
                                   W, top);
        if ((rc = check_msg(&m, 1, top, bytes, rank, W, err)) != 0)
            return rc;
        if (bytes > 0)
            memcpy(data, m.data, bytes);
    }
    for (int l = top - 1; l >= 0; l--) {
        if ((rank ^ (1 << l)) >= W)
            continue;
        int rc = lab_net_send(links[l], LAB_NET_TREE_MSG, 1, l, &part, 1, left_ms(end), err);
        if (rc)
            return core_err_prefix(err, "tree all-reduce (rank %d of %d, broadcast level %d)", rank,
                                   W, l);
    }
    return 0;
}
