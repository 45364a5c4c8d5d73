/* core_json.c — a streaming JSON writer. Callers say what comes next; the
 * writer places commas and colons. Strings are escaped per RFC 8259, and
 * so is every character core_text_unsafe names (C1 controls, U+2028/9, the
 * bidirectional controls: \u202e), so a value shown raw by a careless
 * reader cannot reorder or break its line; bytes that are not valid UTF-8
 * are replaced by U+FFFD so output always parses.
 *
 * Why ours and not jansson's json_dumps (jansson reads JSON, core_jsonread.c):
 * jansson refuses a string that is not valid UTF-8 (json_string returns
 * NULL), and text from a store or a student's file may hold such bytes; it
 * would also build a tree of every lab sample before writing one line of
 * the live stream, and format numbers with its own precision rather than
 * core_num_format's shortest round trip in the C locale. */
#include "core/core.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void core_json_init(struct core_json *j, struct core_buf *out)
{
    memset(j, 0, sizeof *j);
    j->out = out;
    j->first[0] = true;
}

/* Emits the separator due before a value at the current depth. */
static void before_value(struct core_json *j)
{
    if (j->after_key) {
        j->after_key = false;
        return;
    }
    if (!j->first[j->depth])
        core_buf_putc(j->out, ',');
    j->first[j->depth] = false;
}

static void open(struct core_json *j, char c)
{
    before_value(j);
    core_buf_putc(j->out, c);
    j->depth++;
    j->first[j->depth] = true;
}

static void close_(struct core_json *j, char c)
{
    core_buf_putc(j->out, c);
    if (j->depth > 0)
        j->depth--;
}

void core_json_obj_begin(struct core_json *j)
{
    open(j, '{');
}
void core_json_obj_end(struct core_json *j)
{
    close_(j, '}');
}
void core_json_arr_begin(struct core_json *j)
{
    open(j, '[');
}
void core_json_arr_end(struct core_json *j)
{
    close_(j, ']');
}

void core_json_key(struct core_json *j, const char *key)
{
    before_value(j);
    core_json_quote(j->out, key);
    core_buf_putc(j->out, ':');
    j->after_key = true;
}

void core_json_quote(struct core_buf *b, const char *s)
{
    core_buf_putc(b, '"');
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned char c = *p;
        if (c == '"' || c == '\\') {
            core_buf_putc(b, '\\');
            core_buf_putc(b, (char)c);
            p++;
        } else if (c == '\n') {
            core_buf_puts(b, "\\n");
            p++;
        } else if (c == '\r') {
            core_buf_puts(b, "\\r");
            p++;
        } else if (c == '\t') {
            core_buf_puts(b, "\\t");
            p++;
        } else if (c < 0x20 || c == 0x7F) {
            core_buf_printf(b, "\\u%04x", c);
            p++;
        } else {
            uint32_t cp;
            size_t n = core_utf8_decode((const char *)p, &cp);
            if (n == 0) {
                core_buf_puts(b, "\xEF\xBF\xBD");
                p++;
            } else if (core_text_unsafe(cp)) { /* C1, U+2028/9, bidi controls */
                core_buf_printf(b, "\\u%04x", (unsigned)cp);
                p += n;
            } else {
                core_buf_append(b, p, n);
                p += n;
            }
        }
    }
    core_buf_putc(b, '"');
}

void core_json_str(struct core_json *j, const char *s)
{
    before_value(j);
    if (s)
        core_json_quote(j->out, s);
    else
        core_buf_puts(j->out, "null");
}

void core_json_num(struct core_json *j, double v)
{
    before_value(j);
    if (!isfinite(v)) {
        core_buf_puts(j->out, "null");
        return;
    }
    /* the shortest text that reads back as v, with '.' whatever the locale */
    char tmp[40];
    core_num_format(tmp, sizeof tmp, v, 0);
    core_buf_puts(j->out, tmp);
}

void core_json_int(struct core_json *j, long long v)
{
    before_value(j);
    core_buf_printf(j->out, "%lld", v);
}

void core_json_bool(struct core_json *j, bool v)
{
    before_value(j);
    core_buf_puts(j->out, v ? "true" : "false");
}

void core_json_null(struct core_json *j)
{
    before_value(j);
    core_buf_puts(j->out, "null");
}

void core_json_kstr(struct core_json *j, const char *key, const char *s)
{
    core_json_key(j, key);
    core_json_str(j, s);
}

void core_json_knum(struct core_json *j, const char *key, double v)
{
    core_json_key(j, key);
    core_json_num(j, v);
}

void core_json_kint(struct core_json *j, const char *key, long long v)
{
    core_json_key(j, key);
    core_json_int(j, v);
}

void core_json_kbool(struct core_json *j, const char *key, bool v)
{
    core_json_key(j, key);
    core_json_bool(j, v);
}

void core_json_knum_if(struct core_json *j, const char *key, bool has, double v)
{
    core_json_key(j, key);
    if (has)
        core_json_num(j, v);
    else
        core_json_null(j);
}

void core_json_kint_if(struct core_json *j, const char *key, bool has, long long v)
{
    core_json_key(j, key);
    if (has)
        core_json_int(j, v);
    else
        core_json_null(j);
}

void core_json_kbool_if(struct core_json *j, const char *key, bool has, bool v)
{
    core_json_key(j, key);
    if (has)
        core_json_bool(j, v);
    else
        core_json_null(j);
}
