/*
 * core_jsonread.c — reading the flat JSON objects the store keeps (lab
 * parameters, summaries, machine descriptions) into key/value pairs.
 *
 * A small recursive-descent reader of RFC 8259 JSON. Nested objects flatten
 * to dotted keys ("gpu.name"), array elements to 1-based ones ("speedup.2"),
 * true/false to the numbers 1/0; null members are skipped; a member named
 * twice keeps its first place and its last value. Strings are
 * decoded (escapes, \u with surrogate pairs, to UTF-8). Numbers are read the
 * same way whatever the process locale. Nesting deeper than 64 is refused,
 * so hostile text cannot exhaust the stack.
 */
#include "core/core.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 64

struct reader {
    const char *s;
    size_t at;
    struct core_kv *v;
    size_t n, cap;
    struct core_buf key; /* the dotted key of the current value */
    struct core_err *err;
};

static int fail(struct reader *r, const char *what)
{
    return core_err_set(r->err, CORE_ERR_INVALID, "JSON: %s at byte %zu", what, r->at);
}

static void skip_ws(struct reader *r)
{
    while (r->s[r->at] == ' ' || r->s[r->at] == '\t' || r->s[r->at] == '\n' || r->s[r->at] == '\r')
        r->at++;
}

/* The pair for the current key: a new one at the end, or, for a member
 * named again, the earlier one emptied for the new value. The last value
 * wins, as in every common JSON reader and in the Lua table graders see;
 * keeping both would let `lab show` and a grader read different values. */
static struct core_kv *add(struct reader *r)
{
    const char *key = r->key.data ? r->key.data : "";
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->v[i].key, key) == 0) {
            free(r->v[i].str);
            r->v[i].str = NULL;
            r->v[i].num = 0;
            r->v[i].is_num = false;
            return &r->v[i];
        }
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 8;
        r->v = core_xrealloc(r->v, r->cap * sizeof *r->v);
    }
    struct core_kv *kv = &r->v[r->n++];
    memset(kv, 0, sizeof *kv);
    kv->key = core_xstrdup(key);
    return kv;
}

/* A null member: skipped, and it also drops an earlier member of that name
 * (the last value wins, and the last value is "nothing"). */
static void drop(struct reader *r)
{
    const char *key = r->key.data ? r->key.data : "";
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->v[i].key, key) == 0) {
            free(r->v[i].key);
            free(r->v[i].str);
            memmove(&r->v[i], &r->v[i + 1], (r->n - i - 1) * sizeof *r->v);
            r->n--;
            return;
        }
}

static int hex4(struct reader *r, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = r->s[r->at + (size_t)i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else
            return fail(r, "bad \\u escape");
    }
    r->at += 4;
    *out = v;
    return 0;
}

static void put_utf8(struct core_buf *b, unsigned cp)
{
    char u[4];
    core_buf_append(b, u, core_utf8_encode(u, cp));
}

/* Reads a string (r->at on the opening quote) into out. */
static int read_string(struct reader *r, struct core_buf *out)
{
    r->at++;
    for (;;) {
        unsigned char c = (unsigned char)r->s[r->at];
        if (c == '\0')
            return fail(r, "unterminated string");
        if (c < 0x20)
            return fail(r, "control character in a string");
        if (c == '"') {
            r->at++;
            if (!out->data)
                core_buf_puts(out, "");
            return 0;
        }
        if (c != '\\') {
            core_buf_putc(out, (char)c);
            r->at++;
            continue;
        }
        /* The one-character escapes and what each stands for. */
        static const char esc[] = "\"\\/bfnrt", val[] = "\"\\/\b\f\n\r\t";
        char e = r->s[r->at + 1];
        r->at += 2;
        const char *k = e ? strchr(esc, e) : NULL;
        if (k) {
            core_buf_putc(out, val[k - esc]);
            continue;
        }
        switch (e) {
        case 'u': {
            unsigned cp;
            int rc = hex4(r, &cp);
            if (rc)
                return rc;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                unsigned lo;
                if (r->s[r->at] != '\\' || r->s[r->at + 1] != 'u')
                    return fail(r, "unpaired surrogate in \\u escape");
                r->at += 2;
                if ((rc = hex4(r, &lo)) != 0)
                    return rc;
                if (lo < 0xDC00 || lo > 0xDFFF)
                    return fail(r, "unpaired surrogate in \\u escape");
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                return fail(r, "unpaired surrogate in \\u escape");
            }
            if (cp == 0)
                return fail(r, "\\u0000 in a string");
            put_utf8(out, cp);
            break;
        }
        default:
            r->at -= 1;
            return fail(r, "bad escape in a string");
        }
    }
}

/* One or more digits at s[*i] (a fraction or an exponent), *i moved past
 * them; else "bad number" at *i. */
static int read_digits(struct reader *r, size_t *i)
{
    if (!isdigit((unsigned char)r->s[*i])) {
        r->at = *i;
        return fail(r, "bad number");
    }
    while (isdigit((unsigned char)r->s[*i]))
        (*i)++;
    return 0;
}

/* Reads a number by the JSON grammar, converting it in the C locale's
 * notation whatever LC_NUMERIC says. */
static int read_number(struct reader *r, double *out)
{
    size_t start = r->at;
    const char *s = r->s;
    size_t i = start;
    if (s[i] == '-')
        i++;
    if (s[i] == '0')
        i++;
    else if (s[i] >= '1' && s[i] <= '9')
        while (isdigit((unsigned char)s[i]))
            i++;
    else
        return fail(r, "bad number");
    int rc;
    if (s[i] == '.') {
        i++;
        if ((rc = read_digits(r, &i)) != 0)
            return rc;
    }
    if (s[i] == 'e' || s[i] == 'E') {
        i++;
        if (s[i] == '+' || s[i] == '-')
            i++;
        if ((rc = read_digits(r, &i)) != 0)
            return rc;
    }
    double v;
    if (core_num_parse(s + start, i - start, 0, &v, NULL, NULL) != 0)
        return fail(r, "number out of range"); /* the grammar was checked above */
    *out = v;
    r->at = i;
    return 0;
}

static int read_value(struct reader *r, int depth);

/* Appends ".part" (or "part" at the top) to the current key; returns the
 * length to cut back to afterwards. */
static size_t key_push(struct reader *r, const char *part, size_t n)
{
    size_t old = r->key.len;
    if (old > 0)
        core_buf_putc(&r->key, '.');
    core_buf_append(&r->key, part, n);
    return old;
}

static void key_pop(struct reader *r, size_t old)
{
    r->key.len = old;
    if (r->key.data)
        r->key.data[old] = '\0';
}

/* After a member or an element: skips white space, then a ',' (returns 1:
 * another follows) or the closing `close` (returns 0: the end); anything
 * else fails "expected ',' or '<close>'". */
static int read_sep(struct reader *r, char close)
{
    skip_ws(r);
    if (r->s[r->at] == ',') {
        r->at++;
        return 1;
    }
    if (r->s[r->at] == close) {
        r->at++;
        return 0;
    }
    return fail(r, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
}

static int read_object(struct reader *r, int depth)
{
    r->at++; /* { */
    skip_ws(r);
    if (r->s[r->at] == '}') {
        r->at++;
        return 0;
    }
    struct core_buf name;
    core_buf_init(&name);
    int rc = 0;
    for (;;) {
        skip_ws(r);
        if (r->s[r->at] != '"') {
            rc = fail(r, "expected a member name");
            break;
        }
        core_buf_reset(&name);
        if ((rc = read_string(r, &name)) != 0)
            break;
        skip_ws(r);
        if (r->s[r->at] != ':') {
            rc = fail(r, "expected ':'");
            break;
        }
        r->at++;
        size_t old = key_push(r, name.data, name.len);
        rc = read_value(r, depth + 1);
        key_pop(r, old);
        if (rc)
            break;
        int more = read_sep(r, '}');
        if (more > 0)
            continue;
        rc = more;
        break;
    }
    core_buf_fini(&name);
    return rc;
}

static int read_array(struct reader *r, int depth)
{
    r->at++; /* [ */
    skip_ws(r);
    if (r->s[r->at] == ']') {
        r->at++;
        return 0;
    }
    for (size_t k = 1;; k++) {
        char idx[32];
        int len = snprintf(idx, sizeof idx, "%zu", k);
        size_t old = key_push(r, idx, (size_t)len);
        int rc = read_value(r, depth + 1);
        key_pop(r, old);
        if (rc)
            return rc;
        int more = read_sep(r, ']');
        if (more <= 0)
            return more;
    }
}

static int read_value(struct reader *r, int depth)
{
    if (depth > MAX_DEPTH)
        return fail(r, "nested too deeply");
    skip_ws(r);
    char c = r->s[r->at];
    if (c == '{')
        return read_object(r, depth);
    if (c == '[')
        return read_array(r, depth);
    if (c == '"') {
        struct core_buf b;
        core_buf_init(&b);
        int rc = read_string(r, &b);
        if (rc == 0)
            add(r)->str = core_buf_steal(&b);
        core_buf_fini(&b);
        return rc;
    }
    if (strncmp(r->s + r->at, "true", 4) == 0) {
        r->at += 4;
        struct core_kv *kv = add(r);
        kv->num = 1;
        kv->is_num = true;
        return 0;
    }
    if (strncmp(r->s + r->at, "false", 5) == 0) {
        r->at += 5;
        struct core_kv *kv = add(r);
        kv->is_num = true;
        return 0;
    }
    if (strncmp(r->s + r->at, "null", 4) == 0) {
        r->at += 4;
        drop(r);
        return 0;
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
        double v = 0;
        int rc = read_number(r, &v);
        if (rc == 0) {
            struct core_kv *kv = add(r);
            kv->num = v;
            kv->is_num = true;
        }
        return rc;
    }
    return fail(r, c ? "unexpected character" : "unexpected end");
}

int core_json_parse_flat(const char *json, struct core_kv **out, size_t *n, struct core_err *err)
{
    *out = NULL;
    *n = 0;
    struct reader r = {.s = json ? json : "", .err = err};
    core_buf_init(&r.key);
    int rc;
    skip_ws(&r);
    if (r.s[r.at] != '{') {
        rc = fail(&r, "expected an object");
        goto out;
    }
    rc = read_object(&r, 1);
    if (rc == 0) {
        skip_ws(&r);
        if (r.s[r.at] != '\0')
            rc = fail(&r, "text after the object");
    }
out:
    core_buf_fini(&r.key);
    if (rc != 0) {
        core_kv_free(r.v, r.n);
        return rc;
    }
    *out = r.v;
    *n = r.n;
    return 0;
}

void core_kv_free(struct core_kv *v, size_t n)
{
    if (!v)
        return;
    for (size_t i = 0; i < n; i++) {
        free(v[i].key);
        free(v[i].str);
    }
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
