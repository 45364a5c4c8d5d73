/* core_mem.c — allocation that aborts on exhaustion, the byte buffer and the
 * string list. Our own code treats out-of-memory as fatal (STYLE rule 17);
 * only the grader's Lua allocator reports it as an error. */
#include "core/core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void oom(size_t n)
{
    fprintf(stderr, "warpbench: out of memory (asked for %zu bytes)\n", n);
    abort();
}

void *core_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        oom(n);
    return p;
}

void *core_xcalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p)
        oom(count * size);
    return p;
}

void *core_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        oom(n);
    return q;
}

char *core_xstrdup(const char *s)
{
    return core_xstrndup(s, strlen(s));
}

char *core_xstrndup(const char *s, size_t n)
{
    char *p = core_xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *core_xasprintf(const char *fmt, ...)
{
    struct core_buf b;
    core_buf_init(&b);
    va_list ap;
    va_start(ap, fmt);
    core_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    return core_buf_steal(&b);
}

/* ---- buffer -------------------------------------------------------------- */

void core_buf_init(struct core_buf *b)
{
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
}

void core_buf_fini(struct core_buf *b)
{
    free(b->data);
    core_buf_init(b);
}

void core_buf_reset(struct core_buf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}

static void reserve(struct core_buf *b, size_t extra)
{
    size_t need = b->len + extra + 1;
    if (need <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need)
        cap *= 2;
    b->data = core_xrealloc(b->data, cap);
    b->cap = cap;
}

void core_buf_append(struct core_buf *b, const void *p, size_t n)
{
    reserve(b, n);
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void core_buf_puts(struct core_buf *b, const char *s)
{
    core_buf_append(b, s, strlen(s));
}

void core_buf_putc(struct core_buf *b, char c)
{
    core_buf_append(b, &c, 1);
}

void core_buf_vprintf(struct core_buf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return;
    reserve(b, (size_t)n);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

void core_buf_printf(struct core_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    core_buf_vprintf(b, fmt, ap);
    va_end(ap);
}

char *core_buf_steal(struct core_buf *b)
{
    char *p = b->data ? b->data : core_xstrdup("");
    core_buf_init(b);
    return p;
}

/* ---- string list --------------------------------------------------------- */

void core_strlist_init(struct core_strlist *l)
{
    l->items = NULL;
    l->n = 0;
    l->cap = 0;
}

void core_strlist_fini(struct core_strlist *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->items[i]);
    free(l->items);
    core_strlist_init(l);
}

static void strlist_take(struct core_strlist *l, char *s)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 8;
        l->items = core_xrealloc(l->items, l->cap * sizeof *l->items);
    }
    l->items[l->n++] = s;
}

void core_strlist_push(struct core_strlist *l, const char *s)
{
    strlist_take(l, core_xstrdup(s));
}

void core_strlist_pushf(struct core_strlist *l, const char *fmt, ...)
{
    struct core_buf b;
    core_buf_init(&b);
    va_list ap;
    va_start(ap, fmt);
    core_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    strlist_take(l, core_buf_steal(&b));
}
