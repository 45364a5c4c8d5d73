/*
 * lab_ps_spec.c — the parameter-server lab's small text formats
 * (compress "topk:F", faults "N@STEP"; the straggler is lab_param.c's) and the
 * course's communication arithmetic, as pure functions with messages that
 * name the parameter and what it allows.
 */
#include "labs/paramserver/lab_ps.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static bool is_none(const char *s)
{
    while (*s && isspace((unsigned char)*s))
        s++;
    return *s == '\0' || strcasecmp(s, "none") == 0 || strcasecmp(s, "off") == 0;
}

/* A whole-string integer. */
static bool read_int(const char *s, const char *end, long *out)
{
    if (s == end)
        return false;
    char *e;
    errno = 0;
    long v = strtol(s, &e, 10);
    if (errno || e != end)
        return false;
    *out = v;
    return true;
}

/* A whole-string finite number ('.' decimal point whatever the locale:
 * digits, sign, one point and an exponent only). */
static bool read_num(const char *s, double *out)
{
    return core_num_parse(s, strlen(s), 0, out, NULL, NULL) == 0;
}

int lab_ps_compress_parse(const char *s, int *comp, double *frac, struct core_err *err)
{
    *comp = PS_COMP_NONE;
    *frac = 1;
    if (is_none(s))
        return 0;
    if (strcasecmp(s, "q8") == 0) {
        *comp = PS_COMP_Q8;
        return 0;
    }
    double f;
    if (strncasecmp(s, "topk:", 5) == 0 && read_num(s + 5, &f)) {
        if (!(f > 0 && f <= 1))
            return core_err_set(err, CORE_ERR_INVALID,
                                "parameter 'compress': topk:F keeps the fraction F of the "
                                "gradient's entries; F must be above 0 and at most 1, not %g",
                                f);
        *comp = PS_COMP_TOPK;
        *frac = f;
        return 0;
    }
    return core_err_set(err, CORE_ERR_INVALID,
                        "parameter 'compress' must be none, q8 (8-bit quantisation) or topk:F "
                        "(keep the fraction F of the largest entries, e.g. topk:0.01), not \"%s\"",
                        s);
}

int lab_ps_kill_parse(const char *s, const char *what, int count, int64_t steps, int *who,
                      int *step, struct core_err *err)
{
    *who = -1;
    *step = -1;
    if (is_none(s))
        return 0;
    const char *at = strchr(s, '@');
    long k, t;
    const char *noun = strstr(what, "server") ? "shard" : "worker";
    if (!at || !read_int(s, at, &k) || !read_int(at + 1, at + strlen(at), &t))
        return core_err_set(err, CORE_ERR_INVALID,
                            "parameter '%s' must be N@STEP (e.g. 2@10: %s 2 at step 10) or "
                            "none, not \"%s\"",
                            what, noun, s);
    if (k < 1 || k > count)
        return core_err_set(err, CORE_ERR_INVALID, "parameter '%s' names %s %ld, but %s = %d", what,
                            noun, k, strcmp(noun, "shard") == 0 ? "servers" : "workers", count);
    if (steps < 2)
        return core_err_set(err, CORE_ERR_INVALID,
                            "parameter '%s': with steps = %lld there is no step between the "
                            "first and the last to fail at; a fault needs steps >= 2",
                            what, (long long)steps);
    if (t < 1 || t >= steps)
        return core_err_set(err, CORE_ERR_INVALID,
                            "parameter '%s': the step must be from 1 to steps - 1 = %lld, not %ld "
                            "(a fault before the first or after the last step shows nothing)",
                            what, (long long)(steps - 1), t);
    *who = (int)k - 1;
    *step = (int)t;
    return 0;
}

double lab_ps_predict_comm_s(int64_t params, double link_Bps)
{
    return link_Bps > 0 ? 2.0 * 4.0 * (double)params / link_Bps : 0;
}

double lab_ps_predict_ring_s(int64_t params, int workers, double link_Bps)
{
    if (!(link_Bps > 0) || workers < 2)
        return 0;
    return 2.0 * (workers - 1) / workers * 4.0 * (double)params / link_Bps;
}

double lab_ps_busbw(double algbw, int workers)
{
    return workers > 0 ? algbw * 2.0 * (workers - 1) / workers : 0;
}

double lab_ps_step_link_s(const struct ps_cfg *c)
{
    double B = c->link.bytes_per_s;
    if (!(B > 0))
        return 0;
    if (c->mode == PS_ALLREDUCE) {
        if (c->workers < 2)
            return 0;
        double chunk = 4.0 * ceil((double)c->params / c->workers) + LAB_NET_HDR_BYTES;
        return 2.0 * (c->workers - 1) * chunk / B;
    }
    double n = ceil((double)c->params / (c->servers > 0 ? c->servers : 1));
    double reply = LAB_NET_HDR_BYTES + (double)sizeof(struct ps_pull_hdr) + 4.0 * n;
    if (c->server_nic_shared)
        reply *= c->workers;
    double push = 4.0 * n;
    if (c->comp == PS_COMP_Q8)
        push = 8 + 4 * ceil(n / PS_Q8_BLOCK) + n;
    else if (c->comp == PS_COMP_TOPK)
        push = 8 + 8 * fmax(1, round(c->topk_frac * n));
    return (LAB_NET_HDR_BYTES + reply + LAB_NET_HDR_BYTES + push) / B;
}
