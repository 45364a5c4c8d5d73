/*
 * grader_policy.c — attempt policies: the kinds' defaults, what a try can
 * earn, the policy in words, and the grading engine's revision.
 *
 * Why the defaults are what they are: a question with n options answered
 * at random until right is right on try k with probability 1/n for each
 * k = 1..n, so it is worth (1/n) * sum of available(k). For that to be no
 * more than one random guess (1/n) every try after the first must earn
 * nothing: with scores that never go below zero no gentler penalty makes
 * guessing worthless (penalty 1/(n-1), Moodle's usual choice, leaves a
 * brute force worth 1/2 for every n). So choice, multi and ordering allow a
 * second try for learning from the feedback, for no credit. Numeric and
 * text answers cannot be enumerated; they get a small penalty per wrong
 * try instead. lessons/ checks the guess values (lesson_policy_guess). The
 * numbers are in each kind's row (struct grader_kind_ops: tries, penalty).
 */
#include "grader_lua_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Bump when a change to the grading code (C or wb.lua semantics that the
 * digest does not capture, such as the design rule) can change a score. */
#define GRADER_RULES_REV 2

void grader_policy_default(enum grader_kind k, struct grader_policy *out)
{
    memset(out, 0, sizeof *out);
    if ((unsigned)k < GRADER_KIND_COUNT) { /* the numbers are in the kind's row */
        const struct grader_kind_ops *kind = grader_kind_ops(k);
        out->tries = kind->tries;
        out->penalty = kind->penalty;
    }
}

double grader_policy_available(const struct grader_policy *p, int k)
{
    if (k < 1 || (p->tries > 0 && k > p->tries))
        return 0;
    if (p->n_per_try > 0)
        return k <= p->n_per_try ? p->per_try[k - 1] : 0;
    double a = 1 - (k - 1) * p->penalty;
    return a > 0 ? a : 0;
}

/* "a third", "a quarter", "10%" ... for a fraction of the points. */
static void fraction_words(double f, char *buf, size_t n)
{
    static const struct {
        double v;
        const char *w;
    } named[] = {
        {1, "all"},       {0.5, "half"},           {1.0 / 3, "a third"},    {0.25, "a quarter"},
        {0.2, "a fifth"}, {2.0 / 3, "two thirds"}, {0.75, "three quarters"}};
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
        if (fabs(f - named[i].v) < 1e-9) {
            snprintf(buf, n, "%s", named[i].w);
            return;
        }
    }
    char num[32];
    snprintf(buf, n, "%s%%", grader_number_format(100 * f, 3, num, sizeof num));
}

void grader_policy_describe(const struct grader_policy *p, char *buf, size_t n)
{
    char tries[48];
    if (p->tries == 0)
        snprintf(tries, sizeof tries, "unlimited tries");
    else if (p->tries == 1)
        snprintf(tries, sizeof tries, "1 try");
    else
        snprintf(tries, sizeof tries, "%d tries", p->tries);
    if (p->tries == 1) {
        snprintf(buf, n, "%s", tries);
        return;
    }
    if (p->n_per_try > 0) {
        char list[160] = "";
        size_t len = 0;
        int shown = p->tries > 0 && p->tries < p->n_per_try ? p->tries : p->n_per_try;
        for (int i = 0; i < shown && len < sizeof list - 1; i++) {
            char num[32];
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s%%", i ? ", " : "",
                                    grader_number_format(100 * p->per_try[i], 3, num, sizeof num));
        }
        snprintf(buf, n, "%s; they can earn %s of the points in turn", tries, list);
        return;
    }
    if (p->penalty <= 0) {
        snprintf(buf, n, "%s; no penalty", tries);
    } else if (p->penalty >= 1) {
        snprintf(buf, n, "%s; only the first earns points", tries);
    } else {
        char w[32];
        fraction_words(p->penalty, w, sizeof w);
        snprintf(buf, n, "%s; each wrong try costs %s of the points", tries, w);
    }
}

const char *grader_revision(void)
{
    static char rev[48];
    if (!rev[0]) {
        char digest[65];
        grader_wb_digest(digest);
        snprintf(rev, sizeof rev, "g%d+wb.%.12s", GRADER_RULES_REV, digest);
    }
    return rev;
}
