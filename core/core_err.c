/* core_err.c — the error report and code names.
 *
 * A message is formatted whole, then made to fit its CORE_ERR_MSG bytes by
 * core_err_fit: the long words (paths, names) are shortened in the middle,
 * the longest first and each no more than the rest needs, so the short
 * words that say what went wrong stay whole. A message that fits (nearly
 * all) is formatted once, straight into the struct. A longer one is
 * formatted on the stack, or in malloc'd memory beyond STACK_FULL bytes;
 * when that allocation fails, the first STACK_FULL bytes are fitted. */
#include "core/core.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ELLIPSIS "\xe2\x80\xa6" /* … */
#define ELLIPSIS_LEN 3
#define LONG_WORD 24 /* a word at least this long may be shortened ... */
#define SHORTEST 20  /* ... to no fewer bytes than this (a path's last part) */
#define AROUND 2     /* quotes and brackets around a path kept, at most, each side */
#define MAX_LONG 64  /* long words shortened; more are left whole */
#define STACK_FULL 4096

/* ---- fitting ------------------------------------------------------------- */

/* A long word of the text, text[at, at + len), and the most bytes it may
 * take (target; len: whole). A path is written as its longest form that
 * fits: whole, $HOME as ~, the head with "/…" and its last components, "…/"
 * and its last component, that component cut in the middle. */
struct word {
    size_t at, len;
    bool path;          /* holds a '/' */
    size_t pre, post;   /* quotes and punctuation around a path, kept */
    size_t home;        /* > 0: the path starts with $HOME/, this long */
    size_t target, min; /* the most bytes it may take; the fewest it can */
};

static bool is_cont(unsigned char c)
{
    return (c & 0xC0) == 0x80;
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The length of s[0..n) without a character cut at its end. */
static size_t whole_chars(const char *s, size_t n)
{
    size_t i = n;
    while (i > 0 && n - i < 3 && is_cont((unsigned char)s[i - 1]))
        i--;
    if (i == 0)
        return n;
    unsigned char c = (unsigned char)s[i - 1];
    size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    return i - 1 + need > n ? i - 1 : n;
}

/* Appends n bytes of p at out + *o (out NULL: only counts). */
static void put(char *out, size_t *o, const char *p, size_t n)
{
    if (out)
        memcpy(out + *o, p, n);
    *o += n;
}

/* s[0..n) cut to at most `room` bytes: its start, "…", its end, on
 * character boundaries. */
static void put_cut(char *out, size_t *o, const char *s, size_t n, size_t room)
{
    if (n <= room) {
        put(out, o, s, n);
        return;
    }
    size_t keep = room > ELLIPSIS_LEN + 2 ? room - ELLIPSIS_LEN : 2;
    size_t a = keep / 2, b = n - (keep - keep / 2);
    while (a > 0 && is_cont((unsigned char)s[a]))
        a--;
    while (b < n && is_cont((unsigned char)s[b]))
        b++;
    put(out, o, s, a);
    put(out, o, ELLIPSIS, ELLIPSIS_LEN);
    put(out, o, s + b, n - b);
}

/* Writes word w at out (NULL: measures) in its longest form of at most
 * w->target bytes; returns its length. */
static size_t word_put(const char *text, const struct word *w, char *out)
{
    const char *tok = text + w->at;
    size_t o = 0;
    if (w->target >= w->len) {
        put(out, &o, tok, w->len);
        return o;
    }
    if (!w->path) {
        put_cut(out, &o, tok, w->len, w->target);
        return o;
    }
    const char *core = tok + w->pre, *end = tok + w->len - w->post;
    const char *rest = w->home ? core + w->home : memchr(core, '/', (size_t)(end - core));
    const char *head = w->home ? "~" : core;
    size_t headn = w->home ? 1 : (size_t)(rest - core);
    size_t restn = (size_t)(end - rest), around = w->pre + w->post;
    const char *last = end;
    while (last > rest && last[-1] != '/')
        last--;
    size_t lastn = (size_t)(end - last);
    put(out, &o, tok, w->pre);
    if (around + headn + restn <= w->target) { /* ~ was enough */
        put(out, &o, head, headn);
        put(out, &o, rest, restn);
    } else if (around + headn + 1 + ELLIPSIS_LEN + 1 + lastn <= w->target) {
        /* the head, "/…", and the most trailing components that fit */
        size_t room = w->target - around - headn - 1 - ELLIPSIS_LEN;
        const char *from = last - 1; /* its '/' */
        for (const char *p = from; p > rest;) {
            const char *q = p - 1;
            while (q > rest && *q != '/')
                q--;
            if ((size_t)(end - q) > room)
                break;
            from = p = q;
        }
        put(out, &o, head, headn);
        put(out, &o, "/" ELLIPSIS, 1 + ELLIPSIS_LEN);
        put(out, &o, from, (size_t)(end - from));
    } else {
        /* "…/" and the last component, cut too when it alone is long */
        size_t room =
            w->target > around + ELLIPSIS_LEN + 1 ? w->target - around - ELLIPSIS_LEN - 1 : 1;
        put(out, &o, ELLIPSIS "/", ELLIPSIS_LEN + 1);
        put_cut(out, &o, last, lastn, room);
    }
    put(out, &o, end, w->post);
    return o;
}

/* Finds the long words of text[0..n) into w (at most MAX_LONG). */
static size_t find_words(const char *text, size_t n, struct word *w)
{
    const char *home = getenv("HOME");
    size_t homen = home ? strlen(home) : 0;
    while (homen > 0 && home[homen - 1] == '/')
        homen--;
    size_t nw = 0;
    for (size_t i = 0; i < n && nw < MAX_LONG;) {
        size_t j = i;
        while (j < n && !is_space(text[j]))
            j++;
        if (j - i >= LONG_WORD) {
            struct word *x = &w[nw];
            const char *t = text + i;
            *x = (struct word){.at = i, .len = j - i, .target = j - i};
            while (x->pre < AROUND && strchr("'\"(<[`", t[x->pre]))
                x->pre++;
            while (x->post < AROUND && strchr("'\",.:;)>]`", t[x->len - 1 - x->post]))
                x->post++;
            const char *core = t + x->pre;
            size_t clen = x->len - x->pre - x->post;
            x->path = memchr(core, '/', clen) != NULL;
            if (!x->path)
                x->pre = x->post = 0;
            else if (homen > 0 && clen > homen + 1 && memcmp(core, home, homen) == 0 &&
                     core[homen] == '/')
                x->home = homen;
            /* the fewest bytes: "…/" and a short last part, or a short word */
            x->min = x->path ? x->pre + ELLIPSIS_LEN + 1 + SHORTEST + x->post : SHORTEST;
            if (x->min < x->len)
                nw++;
        }
        i = j < n ? j + 1 : j;
    }
    return nw;
}

/* Bytes [from, to) of the text as the words are cut, at out. */
static void put_range(const char *text, size_t n, const struct word *w, size_t nw, size_t from,
                      size_t to, char *out)
{
    size_t v = 0, o = 0, at = 0; /* v: position in the cut text; at: in text */
    for (size_t k = 0; k <= nw && v < to; k++) {
        size_t plain = (k < nw ? w[k].at : n) - at;
        size_t a = from > v ? from - v : 0, b = to - v < plain ? to - v : plain;
        if (a < b)
            put(out, &o, text + at + a, b - a);
        v += plain;
        if (k == nw)
            break;
        size_t wn = word_put(text, &w[k], NULL);
        a = from > v ? from - v : 0;
        b = to - v < wn ? to - v : wn;
        if (a == 0 && b == wn) {
            o += word_put(text, &w[k], out + o);
        } else if (a < b && w[k].target >= w[k].len) {
            put(out, &o, text + w[k].at + a, b - a);
        } else if (a < b) {
            /* part of a cut word, at the edge of the range: only when the
             * text is still too long, so the word is as short as it goes */
            char tmp[LONG_WORD * 4];
            if (wn <= sizeof tmp) {
                word_put(text, &w[k], tmp);
                put(out, &o, tmp + a, b - a);
            }
        }
        v += wn;
        at = w[k].at + w[k].len;
    }
}

void core_err_fit(const char *text, size_t n, char *out, size_t size)
{
    if (size == 0)
        return;
    if (n < size) {
        memmove(out, text, n);
        out[n] = '\0';
        return;
    }
    struct word w[MAX_LONG];
    size_t nw = find_words(text, n, w);
    const size_t want = size - 1;

    /* cut the longest word, down to the next longest or as far as needed,
     * until the text fits or every word is as short as it goes */
    size_t total = n;
    while (total > want) {
        struct word *big = NULL;
        size_t second = 0;
        for (size_t k = 0; k < nw; k++) {
            if (w[k].target <= w[k].min)
                continue;
            if (!big || w[k].target > big->target) {
                if (big)
                    second = big->target;
                big = &w[k];
            } else if (w[k].target > second) {
                second = w[k].target;
            }
        }
        if (!big)
            break;
        size_t floor = second > big->min ? second : big->min;
        if (floor >= big->target) /* as long as another: take turns */
            floor = big->target - 1;
        size_t over = total - want, cut = big->target - floor;
        if (cut > over)
            cut = over;
        big->target -= cut;
        total -= cut;
    }

    /* a path's form may come out shorter than its target */
    size_t len = n;
    for (size_t k = 0; k < nw; k++)
        len = len - w[k].len + word_put(text, &w[k], NULL);
    if (len <= want) {
        put_range(text, n, w, nw, 0, len, out);
        out[len] = '\0';
        return;
    }
    /* still too long (many long words, or much plain text): keep the start
     * and, longer, the end (where the reason is), and lose the middle */
    size_t tail = (want - ELLIPSIS_LEN) * 2 / 3, head = want - ELLIPSIS_LEN - tail;
    put_range(text, n, w, nw, 0, head, out);
    head = whole_chars(out, head);
    size_t from = len - tail;
    put_range(text, n, w, nw, from, len, out + head + ELLIPSIS_LEN);
    size_t skip = 0;
    while (skip < tail && is_cont((unsigned char)out[head + ELLIPSIS_LEN + skip]))
        skip++;
    memcpy(out + head, ELLIPSIS, ELLIPSIS_LEN);
    memmove(out + head + ELLIPSIS_LEN, out + head + ELLIPSIS_LEN + skip, tail - skip);
    out[head + ELLIPSIS_LEN + tail - skip] = '\0';
}

/* ---- the report ---------------------------------------------------------- */

/* Formats fmt/ap, then ": " and `old` (NULL: nothing), into e->msg, made
 * to fit. */
static void err_vformat(struct core_err *e, const char *fmt, va_list ap, const char *old)
{
    va_list ap2;
    if (!old) { /* the common case: it fits, formatted once */
        va_copy(ap2, ap);
        int r = vsnprintf(e->msg, sizeof e->msg, fmt, ap2);
        va_end(ap2);
        if (r >= 0 && (size_t)r < sizeof e->msg)
            return;
    }
    size_t tn = old ? strlen(old) + 2 : 0;
    va_copy(ap2, ap);
    int r = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    size_t n = r < 0 ? 0 : (size_t)r;
    char stack[STACK_FULL], *buf = stack, *heap = NULL;
    size_t cap = sizeof stack;
    if (n + tn >= cap && (heap = malloc(n + tn + 1)) != NULL) {
        buf = heap;
        cap = n + tn + 1;
    }
    if (n + tn >= cap) /* no memory: the start of the text, then the old message */
        n = cap - 1 - tn;
    va_copy(ap2, ap);
    vsnprintf(buf, n + 1, fmt, ap2);
    va_end(ap2);
    if (old) {
        memcpy(buf + n, ": ", 2);
        memcpy(buf + n + 2, old, tn - 2);
    }
    core_err_fit(buf, n + tn, e->msg, sizeof e->msg);
    free(heap);
}

int core_err_set(struct core_err *e, int code, const char *fmt, ...)
{
    if (e) {
        va_list ap;
        va_start(ap, fmt);
        e->code = code;
        err_vformat(e, fmt, ap, NULL);
        va_end(ap);
    }
    return code;
}

int core_err_prefix(struct core_err *e, const char *fmt, ...)
{
    if (!e)
        return CORE_ERR_INTERNAL;
    char old[sizeof e->msg];
    memcpy(old, e->msg, sizeof old);
    old[sizeof old - 1] = '\0';
    va_list ap;
    va_start(ap, fmt);
    err_vformat(e, fmt, ap, old);
    va_end(ap);
    return e->code;
}

void core_err_clear(struct core_err *e)
{
    if (e) {
        e->code = CORE_OK;
        e->msg[0] = '\0';
    }
}

const char *core_code_name(int code)
{
    switch (code) {
    case CORE_OK:
        return "ok";
    case CORE_ERR_USAGE:
        return "usage";
    case CORE_ERR_INVALID:
        return "invalid";
    case CORE_ERR_NOTFOUND:
        return "not found";
    case CORE_ERR_IO:
        return "i/o";
    case CORE_ERR_STORE:
        return "store";
    case CORE_ERR_LIMIT:
        return "limit";
    case CORE_ERR_SCRIPT:
        return "script";
    case CORE_ERR_CONFLICT:
        return "conflict";
    case CORE_ERR_INTERNAL:
        return "internal";
    case CORE_ERR_CANCELLED:
        return "cancelled";
    }
    return "unknown";
}
