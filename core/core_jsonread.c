/*
 * core_jsonread.c — reading the flat JSON objects the store keeps (lab
 * parameters, summaries, machine descriptions) into key/value pairs.
 *
 * The text is parsed by jansson (RFC 8259, strict UTF-8, \u0000 refused,
 * objects as hash tables that keep their members' order), and the tree it
 * builds is then flattened here: nested objects to dotted keys
 * ("gpu.name"), array elements to 1-based ones ("speedup.2"), true/false to
 * the numbers 1/0; null members are skipped; a member named twice keeps its
 * first place and its last value (jansson replaces a repeated member in
 * place; a flattened name meeting a literal dotted one is merged the same
 * way, through a hash of the flat keys). Both steps are linear in the
 * text: a summary of 80,000 array elements reads in milliseconds (`bench`
 * prints the rate), where the reader this replaced scanned every earlier
 * key for each new one.
 *
 * Limits, because the text may come from a student's file: at most
 * CORE_JSON_MAX_BYTES of text, CORE_JSON_MAX_DEPTH levels of nesting and
 * CORE_JSON_MAX_MEMBERS flat members. Numbers are read as doubles
 * (JSON_DECODE_INT_AS_REAL: a 30-digit integer reads as the nearest
 * double); jansson converts them with strtod, fixing the decimal point for
 * the process locale, so "0.25" reads as 0.25 under a decimal-comma locale.
 *
 * jansson's types stay in this file: callers see struct core_kv only.
 */
#include "core/core.h"

#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- jansson's memory: an arena per parse ------------------------------- */

/* jansson allocates every value, member and token on its own, and frees
 * them one by one again; for the arrays of numbers a lab summary holds
 * that is most of the time. While core_json_parse_flat runs, this thread's
 * jansson allocations come from an arena of a few growing chunks, and the
 * tree is dropped with the arena instead of value by value. jansson is
 * used nowhere else, and outside a parse (or past MAX_CHUNKS) the plain
 * allocator serves it. One spare chunk (up to SPARE_MAX bytes) is kept
 * between parses, so that parsing many summaries does not map and fault
 * in fresh pages each time. */
#define MAX_CHUNKS 24
#define FIRST_CHUNK (64 * 1024)
#define SPARE_MAX (8 * 1024 * 1024)

struct arena {
    bool on;
    char *chunk[MAX_CHUNKS];
    size_t size[MAX_CHUNKS];
    size_t n, used; /* chunks; bytes used of the last one */
};
static _Thread_local struct arena arena;

static struct {
    pthread_mutex_t mu;
    char *chunk;
    size_t size;
} spare = {PTHREAD_MUTEX_INITIALIZER, NULL, 0};

static void *arena_alloc(size_t n)
{
    struct arena *a = &arena;
    n = (n + 15) & ~(size_t)15;
    if (!a->on)
        return malloc(n);
    if (a->n == 0 || a->used + n > a->size[a->n - 1]) {
        if (a->n == MAX_CHUNKS)
            return malloc(n);
        size_t sz = a->n ? 2 * a->size[a->n - 1] : FIRST_CHUNK;
        while (sz < n)
            sz *= 2;
        a->chunk[a->n] = core_xmalloc(sz);
        a->size[a->n++] = sz;
        a->used = 0;
    }
    void *p = a->chunk[a->n - 1] + a->used;
    a->used += n;
    return p;
}

static void arena_free(void *p)
{
    const struct arena *a = &arena;
    for (size_t i = 0; i < a->n; i++)
        if ((char *)p >= a->chunk[i] && (char *)p < a->chunk[i] + a->size[i])
            return; /* goes with the arena */
    free(p);
}

static void arena_setup(void)
{
    json_set_alloc_funcs(arena_alloc, arena_free);
}

static void arena_begin(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, arena_setup);
    struct arena *a = &arena;
    memset(a, 0, sizeof *a);
    a->on = true;
    pthread_mutex_lock(&spare.mu);
    if (spare.chunk) {
        a->chunk[0] = spare.chunk;
        a->size[0] = spare.size;
        a->n = 1;
        spare.chunk = NULL;
    }
    pthread_mutex_unlock(&spare.mu);
}

/* Drops everything jansson allocated since arena_begin, keeping the
 * largest chunk that is not too large as the spare. */
static void arena_end(void)
{
    struct arena *a = &arena;
    size_t keep = MAX_CHUNKS;
    for (size_t i = 0; i < a->n; i++)
        if (a->size[i] <= SPARE_MAX && (keep == MAX_CHUNKS || a->size[i] > a->size[keep]))
            keep = i;
    pthread_mutex_lock(&spare.mu);
    if (keep < MAX_CHUNKS && (!spare.chunk || spare.size < a->size[keep])) {
        free(spare.chunk);
        spare.chunk = a->chunk[keep];
        spare.size = a->size[keep];
        a->chunk[keep] = NULL;
    }
    pthread_mutex_unlock(&spare.mu);
    for (size_t i = 0; i < a->n; i++)
        free(a->chunk[i]);
    memset(a, 0, sizeof *a);
}

/* ---- flattening ---------------------------------------------------------- */

/* Every flat key of a result lives in one block, in the members' order, NUL
 * after each; v[0].key is its start, which core_kv_free frees. While
 * walking, a member's key is its offset in `keys` (koff; DROPPED: a null
 * took it back). */
#define DROPPED ((size_t)-1)

struct flat {
    struct core_kv *v;
    size_t *koff;
    size_t n, cap;
    char *keys; /* every key so far, NUL after each */
    size_t keys_len, keys_cap;
    char *key; /* the dotted key of the current value, NUL-terminated */
    size_t key_len, key_cap;
    /* Open addressing over v[] by key: index + 1, 0 empty. Rebuilt when
     * half full. A dropped member keeps its slot (matching nothing) until
     * the end, so probing past it still finds the keys beyond. */
    size_t *slots;
    size_t n_slots;
    size_t n_dropped;
    /* Flat keys can meet only when a member name is empty or holds a dot
     * ({"a.b":1,"a":{"b":2}}); until one is seen, keys are appended with no
     * hashing at all (the common case, and the fast one). */
    bool hashed;
    bool ambiguous; /* such a name was seen: walk again, hashed */
    struct core_err *err;
};

static const char *key_of(const struct flat *f, size_t i)
{
    return f->koff[i] == DROPPED ? NULL : f->keys + f->koff[i];
}

/* Room for `more` members and `bytes` more of keys (an array's elements
 * are counted before they are walked, so a long array grows each buffer
 * once instead of doubling it again and again). */
static void reserve(struct flat *f, size_t more, size_t bytes)
{
    if (f->n + more > f->cap) {
        size_t c = f->cap ? f->cap : 8;
        while (c < f->n + more)
            c *= 2;
        f->cap = c;
        f->v = core_xrealloc(f->v, c * sizeof *f->v);
        f->koff = core_xrealloc(f->koff, c * sizeof *f->koff);
    }
    if (f->keys_len + bytes > f->keys_cap) {
        size_t c = f->keys_cap ? f->keys_cap : 256;
        while (c < f->keys_len + bytes)
            c *= 2;
        f->keys_cap = c;
        f->keys = core_xrealloc(f->keys, c);
    }
}

static size_t hash_key(const char *s)
{
    size_t h = 1469598103934665603u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

static void rehash(struct flat *f)
{
    size_t n = f->n_slots ? f->n_slots * 2 : 64;
    free(f->slots);
    f->slots = core_xcalloc(n, sizeof *f->slots);
    f->n_slots = n;
    for (size_t i = 0; i < f->n; i++) {
        const char *k = key_of(f, i);
        if (!k)
            continue;
        size_t at = hash_key(k) & (n - 1);
        while (f->slots[at])
            at = (at + 1) & (n - 1);
        f->slots[at] = i + 1;
    }
}

/* The slot of key: the one holding it, or the empty one where it goes. */
static size_t *slot_of(struct flat *f, const char *key)
{
    size_t at = hash_key(key) & (f->n_slots - 1);
    for (;;) {
        size_t *s = &f->slots[at];
        const char *k = *s ? key_of(f, *s - 1) : NULL;
        if (!*s || (k && strcmp(k, key) == 0))
            return s;
        at = (at + 1) & (f->n_slots - 1);
    }
}

static const char *cur_key(const struct flat *f)
{
    return f->key ? f->key : "";
}

/* The pair for the current key: a new one at the end, or, for a key seen
 * before, the earlier one emptied for the new value. The last value wins,
 * as in every common JSON reader and in the Lua table graders see;
 * keeping both would let `lab show` and a grader read different values.
 * NULL when there are too many members (f->err set). */
static struct core_kv *add(struct flat *f)
{
    size_t *s = NULL;
    if (f->hashed) {
        if (2 * (f->n + 1) > f->n_slots)
            rehash(f);
        s = slot_of(f, cur_key(f));
    }
    if (s && *s) {
        struct core_kv *kv = &f->v[*s - 1];
        free(kv->str);
        kv->str = NULL;
        kv->num = 0;
        kv->is_num = false;
        return kv;
    }
    if (f->n - f->n_dropped >= CORE_JSON_MAX_MEMBERS) {
        core_err_set(f->err, CORE_ERR_INVALID, "JSON: more than %d members", CORE_JSON_MAX_MEMBERS);
        return NULL;
    }
    reserve(f, 1, f->key_len + 1);
    f->koff[f->n] = f->keys_len;
    memcpy(f->keys + f->keys_len, cur_key(f), f->key_len + 1); /* with its NUL */
    f->keys_len += f->key_len + 1;
    struct core_kv *kv = &f->v[f->n++];
    memset(kv, 0, sizeof *kv);
    if (s)
        *s = f->n;
    return kv;
}

/* A null member: skipped, and it also drops an earlier member of that name
 * (the last value wins, and the last value is "nothing"). */
static void drop(struct flat *f)
{
    if (!f->hashed || !f->n_slots)
        return; /* unhashed, every flat key is new: nothing to drop */
    size_t *s = slot_of(f, cur_key(f));
    if (!*s)
        return;
    struct core_kv *kv = &f->v[*s - 1];
    free(kv->str);
    memset(kv, 0, sizeof *kv);
    f->koff[*s - 1] = DROPPED;
    f->n_dropped++;
}

/* Appends ".part" (or "part" at the top) to the current key; returns the
 * length to cut back to afterwards. */
static size_t key_push(struct flat *f, const char *part, size_t n)
{
    size_t old = f->key_len;
    size_t need = old + (old > 0) + n + 1;
    if (need > f->key_cap) {
        f->key_cap = need * 2;
        f->key = core_xrealloc(f->key, f->key_cap);
    }
    if (old > 0)
        f->key[f->key_len++] = '.';
    memcpy(f->key + f->key_len, part, n);
    f->key_len += n;
    f->key[f->key_len] = '\0';
    return old;
}

static void key_pop(struct flat *f, size_t old)
{
    f->key_len = old;
    if (f->key)
        f->key[old] = '\0';
}

static int walk(struct flat *f, json_t *v, int depth)
{
    if (depth > CORE_JSON_MAX_DEPTH)
        return core_err_set(f->err, CORE_ERR_INVALID,
                            "JSON: nested too deeply (more than %d levels)", CORE_JSON_MAX_DEPTH);
    struct core_kv *kv;
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        const char *name;
        json_t *m;
        /* jansson iterates in the members' order (a repeated member in its
         * first place); names hold no NUL (\u0000 is refused) */
        json_object_foreach(v, name, m)
        {
            size_t len = strlen(name);
            if (!f->hashed && (len == 0 || memchr(name, '.', len))) {
                f->ambiguous = true;
                return CORE_ERR_INVALID; /* not an error: walked again, hashed */
            }
            size_t old = key_push(f, name, len);
            int rc = walk(f, m, depth + 1);
            key_pop(f, old);
            if (rc)
                return rc;
        }
        return 0;
    }
    case JSON_ARRAY: {
        size_t k;
        json_t *e;
        /* its elements' keys: this key, a dot, up to 20 digits */
        reserve(f, json_array_size(v), json_array_size(v) * (f->key_len + 22));
        json_array_foreach(v, k, e)
        {
            char idx[24];
            size_t at = sizeof idx;
            for (size_t x = k + 1; x; x /= 10) /* snprintf's %zu, without its cost */
                idx[--at] = (char)('0' + x % 10);
            size_t old = key_push(f, idx + at, sizeof idx - at);
            int rc = walk(f, e, depth + 1);
            key_pop(f, old);
            if (rc)
                return rc;
        }
        return 0;
    }
    case JSON_STRING:
        if (!(kv = add(f)))
            return CORE_ERR_INVALID;
        kv->str = core_xstrndup(json_string_value(v), json_string_length(v));
        return 0;
    case JSON_REAL:
    case JSON_INTEGER:
    case JSON_TRUE:
    case JSON_FALSE:
        if (!(kv = add(f)))
            return CORE_ERR_INVALID;
        kv->is_num = true;
        kv->num = json_is_true(v) ? 1 : json_is_number(v) ? json_number_value(v) : 0;
        return 0;
    case JSON_NULL:
        drop(f);
        return 0;
    }
    return core_err_set(f->err, CORE_ERR_INTERNAL, "JSON: a value of an unknown type");
}

/* Flattens root into *out, *n (see core_json_parse_flat). */
static int flatten(json_t *root, bool hashed, struct core_kv **out, size_t *n, bool *ambiguous,
                   struct core_err *err)
{
    struct flat f = {.err = err, .hashed = hashed};
    int rc = walk(&f, root, 1);
    free(f.key);
    free(f.slots);
    *ambiguous = f.ambiguous;
    size_t k = 0;
    if (rc == 0 && f.n > f.n_dropped) {
        /* the keys into one block in the members' order (a fresh one when
         * members were dropped, so that the first key is its start) */
        char *block;
        if (f.n_dropped == 0) {
            block = f.keys;
            f.keys = NULL;
        } else {
            struct core_buf b;
            core_buf_init(&b);
            for (size_t i = 0; i < f.n; i++)
                if (f.koff[i] != DROPPED) {
                    size_t off = b.len;
                    core_buf_append(&b, key_of(&f, i), strlen(key_of(&f, i)) + 1);
                    f.koff[i] = off;
                }
            block = core_buf_steal(&b);
        }
        for (size_t i = 0; i < f.n; i++)
            if (f.koff[i] != DROPPED) {
                f.v[k] = f.v[i];
                f.v[k++].key = block + f.koff[i];
            }
    } else {
        for (size_t i = 0; i < f.n; i++)
            free(f.v[i].str);
        free(f.v);
        f.v = NULL;
    }
    free(f.keys);
    free(f.koff);
    *out = f.v;
    *n = k;
    return rc;
}

int core_json_parse_flat(const char *json, struct core_kv **out, size_t *n, struct core_err *err)
{
    *out = NULL;
    *n = 0;
    if (!json)
        return core_err_set(err, CORE_ERR_INVALID, "JSON: no text at byte 0");
    size_t len = strlen(json);
    if (len > CORE_JSON_MAX_BYTES)
        return core_err_set(err, CORE_ERR_INVALID,
                            "JSON: %zu bytes of text at byte 0, more than the %d read", len,
                            CORE_JSON_MAX_BYTES);
    arena_begin();
    json_error_t je;
    /* Integers are read as integers (strtoll) and only an integer beyond
     * 64 bits sends the text through again with every number a double,
     * which is slower (jansson's strtod looks the locale up each time). */
    json_t *root = json_loadb(json, len, 0, &je);
    if (!root && strstr(je.text, "too big"))
        root = json_loadb(json, len, JSON_DECODE_INT_AS_REAL, &je);
    int rc;
    if (!root) {
        /* jansson's own limit on nesting (2048) is reached before ours
         * is seen on text nested deeper than it */
        bool deep = strstr(je.text, "depth") != NULL;
        rc = core_err_set(err, CORE_ERR_INVALID, "JSON: %s at byte %d",
                          deep ? "nested too deeply" : je.text, je.position);
    } else if (!json_is_object(root)) {
        rc = core_err_set(err, CORE_ERR_INVALID, "JSON: expected an object at byte 0");
    } else {
        bool ambiguous;
        rc = flatten(root, false, out, n, &ambiguous, err);
        if (ambiguous)
            rc = flatten(root, true, out, n, &ambiguous, err);
    }
    arena_end(); /* the tree goes with it: no json_decref */
    return rc;
}

void core_kv_free(struct core_kv *v, size_t n)
{
    if (!v)
        return;
    if (n > 0)
        free(v[0].key); /* the block every key lives in */
    for (size_t i = 0; i < n; i++)
        free(v[i].str);
    free(v);
}

const struct core_kv *core_kv_find(const struct core_kv *v, size_t n, const char *key)
{
    if (!key)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i].key, key) == 0)
            return &v[i];
    return NULL;
}
