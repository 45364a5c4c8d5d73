/*
 * lab_registry.c — the one table of labs. Adding a lab is one new folder
 * labs/<name>/ whose private header declares its registration, `const
 * struct lab_def lab_<prefix>_def`, plus its include and one row here: the
 * registry is the only file outside a lab's folder that includes the lab's
 * header.
 */
#include "labs/allreduce/lab_allreduce.h"
#include "labs/amdahl/lab_amdahl.h"
#include "labs/coalescing/lab_coalescing.h"
#include "labs/kmeans/lab_kmeans.h"
#include "labs/lab_author.h"
#include "labs/memory/lab_memory.h"
#include "labs/paramserver/lab_ps.h"
#include "labs/quantize/lab_quant.h"
#include "labs/selftest/lab_selftest.h"
#include "labs/serving/lab_serve.h"

#include <string.h>

static const struct lab_def *const table[] = {
    &lab_amdahl_def, &lab_memory_def, &lab_coal_def, &lab_km_def,       &lab_ps_def,
    &lab_quant_def,  &lab_srv_def,    &lab_ar_def,   &lab_selftest_def, &lab_code_roofline_def,
};

const struct lab_def *const *lab_registry(size_t *n)
{
    size_t k = 0;
    while (k < sizeof table / sizeof table[0] && table[k])
        k++;
    *n = k;
    return table;
}

const struct lab_def *lab_find(const char *name)
{
    size_t n;
    const struct lab_def *const *all = lab_registry(&n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(all[i]->name, name) == 0)
            return all[i];
    return NULL;
}

bool lab_series_snapshot(const struct lab_def *lab, const char *series)
{
    for (const char *const *s = lab && series ? lab->snapshot : NULL; s && *s; s++)
        if (strcmp(*s, series) == 0)
            return true;
    return false;
}

bool lab_chart_log_x(const struct lab_def *lab, const char *chart)
{
    const struct lab_chart_def *c = lab_chart_find(lab, chart);
    return c && c->x_log;
}

const struct lab_chart_def *lab_chart_find(const struct lab_def *lab, const char *chart)
{
    for (size_t i = 0; lab && chart && lab->charts && i < lab->n_charts; i++)
        if (lab->charts[i].name && strcmp(lab->charts[i].name, chart) == 0)
            return &lab->charts[i];
    return NULL;
}
