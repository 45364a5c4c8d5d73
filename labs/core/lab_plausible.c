/*
 * lab_plausible.c — does a submitted lab run hold together? A run arrives
 * in a student's submission as text anyone could have edited: its
 * parameters, the machine it recorded, its summary figures and its samples.
 * These checks find a summary that contradicts the run's own samples and
 * figures no run on the recorded machine could produce. They prove nothing
 * about a consistent forgery; they catch the careless one and the figure
 * that was "improved" by hand. One table row per lab, generic checks for
 * every lab.
 *
 * Every lab:
 *   - the run is "done" (only done runs grade questions);
 *   - every numeric summary figure is finite;
 *   - sample times are finite, not negative, never go back in recorded
 *     order, and lie within the run (ended_at - started_at, plus 2 s);
 *   - elapsed_s, when the summary has it, is not longer than the run.
 * selftest:
 *   - samples = the number of samples recorded, steps = the ramp samples,
 *     ramp_final = the last ramp sample, wave_peak = the largest |wave|,
 *     worker_total = the sum of the "workers" samples, and for a complete
 *     run with W workers and S steps W(W+1)/2 · S(S+1)/2.
 * amdahl:
 *   - speedup_pK equals the "speedup" sample at p = K, efficiency_pK =
 *     100 · speedup_pK / K, t_pK the "time" sample at p = K;
 *   - no measured speedup above min(p, cores recorded) + 10% (the work is
 *     pure arithmetic: nothing superlinear), cores = the machine's cores.
 * memory:
 *   - every GFLOP/s figure at most 300 per core (no core does more in FP64
 *     scalar code), every bandwidth at most 2000 GB/s;
 *   - ratio_ikj_ijk_nmax = gflops_ikj_nmax / gflops_ijk_nmax.
 * kmeans:
 *   - speedup at most min(workers, cores) + 10%; efficiency = 100 ·
 *     speedup / workers.
 * paramserver:
 *   - comm_fraction between 0 and 1.
 * Every lab, GPU figures:
 *   - a run whose summary says it ran on a GPU (device "gpu", a gpu_name,
 *     gpu_* figures) must have a GPU in the machine it recorded.
 * coalescing:
 *   - no GPU bandwidth above the run's own device-to-device memcpy (+10%)
 *     or the device's datasheet (+5%). The CPU analog has no such bound:
 *     its memcpy, timed once on fresh pages, can be ten times slower than
 *     its copy loop in an honest run, and its arrays may sit in the cache.
 */
#include "labs/lab_author.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A run's parts read once. */
struct run_view {
    const struct db_sub_run *run;
    struct core_kv *params, *machine, *summary;
    size_t np, nm, ns;
};

static bool num(const struct core_kv *kv, size_t n, const char *key, double *v)
{
    const struct core_kv *k = core_kv_find(kv, n, key);
    if (!k || !k->is_num)
        return false;
    *v = k->num;
    return true;
}

static bool fig(const struct run_view *v, const char *key, double *out)
{
    return num(v->summary, v->ns, key, out);
}

/* Relative agreement, for figures rounded when written. */
static bool near(double a, double b)
{
    return fabs(a - b) <= 1e-6 * (1 + fabs(a) + fabs(b));
}

/* Seconds between two ISO-8601 UTC times as the store writes them; NaN when
 * either does not read. */
static double span_s(const char *from, const char *to)
{
    if (!from || !to)
        return NAN;
    struct tm a = {0}, b = {0};
    double fa = 0, fb = 0;
    int ms_a = 0, ms_b = 0;
    if (sscanf(from, "%d-%d-%dT%d:%d:%d.%d", &a.tm_year, &a.tm_mon, &a.tm_mday, &a.tm_hour,
               &a.tm_min, &a.tm_sec, &ms_a) < 6 ||
        sscanf(to, "%d-%d-%dT%d:%d:%d.%d", &b.tm_year, &b.tm_mon, &b.tm_mday, &b.tm_hour, &b.tm_min,
               &b.tm_sec, &ms_b) < 6)
        return NAN;
    a.tm_year -= 1900;
    b.tm_year -= 1900;
    a.tm_mon -= 1;
    b.tm_mon -= 1;
    fa = (double)timegm(&a) + ms_a / 1000.0;
    fb = (double)timegm(&b) + ms_b / 1000.0;
    return fb - fa;
}

/* The value of the last sample of `series` at `step` (or at any step when
 * step < 0: the last one); false when there is none. */
static bool sample_at(const struct db_sub_run *r, const char *series, long long step, double *v)
{
    bool found = false;
    for (size_t i = 0; i < r->n_samples; i++)
        if (strcmp(r->samples[i].series, series) == 0 && (step < 0 || r->samples[i].step == step)) {
            *v = r->samples[i].value;
            found = true;
        }
    return found;
}

static void generic(const struct run_view *v, struct core_strlist *p)
{
    const struct db_sub_run *r = v->run;
    if (strcmp(r->status, "done") != 0)
        core_strlist_pushf(p, "the run is %s, not done", r->status);
    for (size_t i = 0; i < v->ns; i++)
        if (v->summary[i].is_num && !isfinite(v->summary[i].num))
            core_strlist_pushf(p, "summary figure %s is not a finite number", v->summary[i].key);
    double span = span_s(r->started_at, r->ended_at);
    double last = -INFINITY;
    for (size_t i = 0; i < r->n_samples; i++) {
        double t = r->samples[i].t;
        if (!isfinite(t) || t < 0) {
            core_strlist_pushf(p, "sample %zu has time %g", i + 1, t);
            break;
        }
        if (t < last - 1e-9) {
            core_strlist_pushf(p, "sample %zu (%s) is timed before the one recorded before it",
                               i + 1, r->samples[i].series);
            break;
        }
        last = t;
    }
    if (isfinite(span) && span < -1e-3)
        core_strlist_pushf(p, "the run ended before it started");
    if (isfinite(span) && r->n_samples && last > span + 2)
        core_strlist_pushf(p, "samples run to %.3f s, but the run lasted %.3f s", last, span);
    double el;
    if (isfinite(span) && fig(v, "elapsed_s", &el) && el > span + 2)
        core_strlist_pushf(p, "elapsed_s is %.3f s, but the run lasted %.3f s", el, span);
}

static void selftest(const struct run_view *v, struct core_strlist *p)
{
    const struct db_sub_run *r = v->run;
    double samples, steps, ramp_final, peak, total;
    size_t n_ramp = 0;
    double last_ramp = 0, max_wave = 0, sum_workers = 0;
    for (size_t i = 0; i < r->n_samples; i++) {
        const struct db_labsample *s = &r->samples[i];
        if (strcmp(s->series, "ramp") == 0) {
            n_ramp++;
            last_ramp = s->value;
        } else if (strcmp(s->series, "wave") == 0 && fabs(s->value) > max_wave) {
            max_wave = fabs(s->value);
        } else if (strcmp(s->series, "workers") == 0) {
            sum_workers += s->value;
        }
    }
    if (fig(v, "samples", &samples) && !near(samples, (double)r->n_samples))
        core_strlist_pushf(p, "samples says %g, the run recorded %zu", samples, r->n_samples);
    if (fig(v, "steps", &steps) && !near(steps, (double)n_ramp))
        core_strlist_pushf(p, "steps says %g, the run recorded %zu ramp samples", steps, n_ramp);
    if (fig(v, "ramp_final", &ramp_final) && n_ramp && !near(ramp_final, last_ramp))
        core_strlist_pushf(p, "ramp_final says %g, the last ramp sample is %g", ramp_final,
                           last_ramp);
    if (fig(v, "wave_peak", &peak) && !near(peak, max_wave))
        core_strlist_pushf(p, "wave_peak says %g, the largest |wave| sample is %g", peak, max_wave);
    if (fig(v, "worker_total", &total)) {
        if (!near(total, sum_workers))
            core_strlist_pushf(p, "worker_total says %g, the workers samples sum to %g", total,
                               sum_workers);
        double w, want_steps;
        if (num(v->params, v->np, "workers", &w) && num(v->params, v->np, "steps", &want_steps) &&
            fig(v, "steps", &steps) && near(steps, want_steps)) {
            double expect = w * (w + 1) / 2 * steps * (steps + 1) / 2;
            if (!near(total, expect))
                core_strlist_pushf(p,
                                   "worker_total %g is impossible for %g workers over %g "
                                   "steps (it must be %g)",
                                   total, w, steps, expect);
        }
    }
}

static void amdahl(const struct run_view *v, struct core_strlist *p)
{
    double cores = 0, P = 0, c;
    num(v->machine, v->nm, "cores_online", &cores);
    if (fig(v, "cores", &c) && cores > 0 && !near(c, cores))
        core_strlist_pushf(p, "cores says %g, the machine recorded %g", c, cores);
    fig(v, "P", &P);
    for (int k = 1; k <= 4096 && k <= (int)P; k++) {
        char key[32];
        double s, sample, e;
        snprintf(key, sizeof key, "speedup_p%d", k);
        bool has = fig(v, key, &s);
        if (has && sample_at(v->run, "speedup", k, &sample) && !near(s, sample))
            core_strlist_pushf(p, "%s says %g, the run's speedup sample at p = %d is %g", key, s, k,
                               sample);
        if (has) {
            double bound = (cores > 0 && cores < k ? cores : k) * 1.1;
            if (s > bound)
                core_strlist_pushf(p, "%s = %g is more than %d worker%s on %g core%s can give", key,
                                   s, k, k == 1 ? "" : "s", cores, cores == 1 ? "" : "s");
            snprintf(key, sizeof key, "efficiency_p%d", k);
            if (fig(v, key, &e) && !near(e, 100.0 * s / k))
                core_strlist_pushf(p, "%s says %g%%, 100 x speedup / p is %g%%", key, e,
                                   100.0 * s / k);
        }
        snprintf(key, sizeof key, "t_p%d", k);
        if (fig(v, key, &s) && sample_at(v->run, "time", k, &sample) && !near(s, sample))
            core_strlist_pushf(p, "%s says %g s, the run's time sample at p = %d is %g s", key, s,
                               k, sample);
    }
}

static void memory(const struct run_view *v, struct core_strlist *p)
{
    for (size_t i = 0; i < v->ns; i++) {
        const struct core_kv *k = &v->summary[i];
        if (!k->is_num)
            continue;
        if (strncmp(k->key, "gflops_", 7) == 0 && k->num > 300)
            core_strlist_pushf(p, "%s = %g GFLOP/s is beyond one core", k->key, k->num);
        if (strncmp(k->key, "bw_stride", 9) == 0 && k->num > 2000)
            core_strlist_pushf(p, "%s = %g GB/s is beyond any memory system", k->key, k->num);
    }
    double ikj, ijk, ratio;
    if (fig(v, "gflops_ikj_nmax", &ikj) && fig(v, "gflops_ijk_nmax", &ijk) && ijk > 0 &&
        fig(v, "ratio_ikj_ijk_nmax", &ratio) && fabs(ratio - ikj / ijk) > 1e-3 * (1 + ratio))
        core_strlist_pushf(p,
                           "ratio_ikj_ijk_nmax says %g, gflops_ikj_nmax / gflops_ijk_nmax is "
                           "%g",
                           ratio, ikj / ijk);
}

static void kmeans(const struct run_view *v, struct core_strlist *p)
{
    double sp, w, cores = 0, e;
    num(v->machine, v->nm, "cores_online", &cores);
    if (!fig(v, "speedup", &sp) || !fig(v, "workers", &w) || w < 1)
        return;
    double bound = (cores > 0 && cores < w ? cores : w) * 1.1;
    if (sp > bound)
        core_strlist_pushf(p, "speedup %g is more than %g workers on %g cores can give", sp, w,
                           cores);
    if (fig(v, "efficiency", &e) && !near(e, 100.0 * sp / w))
        core_strlist_pushf(p, "efficiency says %g%%, 100 x speedup / workers is %g%%", e,
                           100.0 * sp / w);
}

static void paramserver(const struct run_view *v, struct core_strlist *p)
{
    double f;
    if (fig(v, "comm_fraction", &f) && (f < 0 || f > 1))
        core_strlist_pushf(p, "comm_fraction %g is not a fraction", f);
}

/* A run that says it used a GPU must have recorded one. */
static void gpu_claims(const struct run_view *v, struct core_strlist *p)
{
    const struct core_kv *dev = core_kv_find(v->summary, v->ns, "device");
    const struct core_kv *gpu = core_kv_find(v->machine, v->nm, "gpu");
    bool has_gpu = gpu && !gpu->is_num && gpu->str && gpu->str[0];
    const char *claim = NULL;
    if (dev && !dev->is_num && dev->str && strcmp(dev->str, "gpu") == 0)
        claim = "device gpu";
    for (size_t i = 0; !claim && i < v->ns; i++)
        if (strncmp(v->summary[i].key, "gpu_", 4) == 0)
            claim = v->summary[i].key;
    if (claim && !has_gpu)
        core_strlist_pushf(p,
                           "its figures are a GPU's (%s), but the machine it ran on records "
                           "no GPU",
                           claim);
}

static void coalescing(const struct run_view *v, struct core_strlist *p)
{
    double ceiling, sheet = NAN;
    fig(v, "datasheet_gbs", &sheet);
    if (!fig(v, "memcpy_gbs", &ceiling) || !(ceiling > 0))
        return;
    for (size_t i = 0; i < v->ns; i++) {
        const struct core_kv *k = &v->summary[i];
        size_t n = strlen(k->key);
        bool gbs = n > 4 && strcmp(k->key + n - 4, "_gbs") == 0;
        if (!gbs || !k->is_num || strncmp(k->key, "cpu_", 4) == 0 || strstr(k->key, "memcpy") ||
            strstr(k->key, "datasheet") || strstr(k->key, "peak"))
            continue;
        if (k->num > ceiling * 1.1)
            core_strlist_pushf(p, "%s %g GB/s is above the run's own memcpy (%g GB/s)", k->key,
                               k->num, ceiling);
        else if (sheet > 0 && k->num > sheet * 1.05)
            core_strlist_pushf(p, "%s %g GB/s is above the device's datasheet (%g GB/s)", k->key,
                               k->num, sheet);
    }
}

static const struct {
    const char *lab;
    void (*check)(const struct run_view *v, struct core_strlist *p);
} checks[] = {
    {"selftest", selftest}, {"amdahl", amdahl},           {"memory", memory},
    {"kmeans", kmeans},     {"paramserver", paramserver}, {"coalescing", coalescing},
};

void lab_run_plausible(const struct db_sub_run *run, struct core_strlist *problems)
{
    struct run_view v = {.run = run};
    if (core_json_parse_flat(run->params_json ? run->params_json : "{}", &v.params, &v.np, NULL) !=
        CORE_OK)
        core_strlist_pushf(problems, "its parameters are not a JSON object");
    if (core_json_parse_flat(run->machine_json ? run->machine_json : "{}", &v.machine, &v.nm,
                             NULL) != CORE_OK)
        core_strlist_pushf(problems, "its machine is not a JSON object");
    if (core_json_parse_flat(run->summary_json ? run->summary_json : "{}", &v.summary, &v.ns,
                             NULL) != CORE_OK)
        core_strlist_pushf(problems, "its summary is not a JSON object");
    generic(&v, problems);
    gpu_claims(&v, problems);
    for (size_t i = 0; i < sizeof checks / sizeof checks[0]; i++)
        if (strcmp(checks[i].lab, run->lab) == 0)
            checks[i].check(&v, problems);
    core_kv_free(v.params, v.np);
    core_kv_free(v.machine, v.nm);
    core_kv_free(v.summary, v.ns);
}
