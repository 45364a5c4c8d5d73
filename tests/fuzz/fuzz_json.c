/*
 * fuzz_json.c — fuzz target for the JSON reader (core_json_parse_flat), which
 * reads lab parameters, summaries and machine descriptions back from the
 * store, where anyone may have edited them.
 *
 * Checks, besides "no crash": a refusal has a message; an accepted object's
 * members have keys, and a string or a number. Written back as a flat object
 * with the JSON writer (when every number is finite: the writer writes null
 * for the others) it reads again, and writing that gives the same text: the
 * writer's output soon is a fixed point (the reader refuses invalid UTF-8
 * and the writer never writes it; the first round may still merge keys that
 * became equal when flattened; never more members than before).
 */
#include "core/core.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The members as one flat JSON object. Caller frees. */
static char *flat_text(const struct core_kv *kv, size_t n)
{
    struct core_buf b;
    struct core_json j;
    core_buf_init(&b);
    core_json_init(&j, &b);
    core_json_obj_begin(&j);
    for (size_t i = 0; i < n; i++) {
        if (kv[i].is_num)
            core_json_knum(&j, kv[i].key, kv[i].num);
        else
            core_json_kstr(&j, kv[i].key, kv[i].str);
    }
    core_json_obj_end(&j);
    return core_buf_steal(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = core_xstrndup((const char *)data, size);
    struct core_kv *kv = NULL, *back = NULL;
    size_t n = 0, nb = 0;
    struct core_err err;
    core_err_clear(&err);
    int rc = core_json_parse_flat(text, &kv, &n, &err);
    if (rc != 0) {
        if (!err.msg[0] || kv)
            abort();
        free(text);
        return 0;
    }
    bool finite = true;
    for (size_t i = 0; i < n; i++) {
        if (!kv[i].key || (kv[i].is_num == (kv[i].str != NULL)))
            abort();
        finite &= !kv[i].is_num || isfinite(kv[i].num);
    }
    if (finite) {
        /* round 1 makes strings valid UTF-8, round 2 merges the keys that
         * became equal; from then on nothing changes */
        char *t2 = flat_text(kv, n);
        if (core_json_parse_flat(t2, &back, &nb, &err) != 0 || nb > n)
            abort();
        char *t3 = flat_text(back, nb);
        struct core_kv *kv3 = NULL;
        size_t n3 = 0;
        if (core_json_parse_flat(t3, &kv3, &n3, &err) != 0 || n3 > nb)
            abort();
        char *t4 = flat_text(kv3, n3);
        if (strcmp(t3, t4) != 0)
            abort();
        core_kv_free(kv3, n3);
        free(t2);
        free(t3);
        free(t4);
    }
    core_kv_free(kv, n);
    core_kv_free(back, nb);
    free(text);
    return 0;
}
