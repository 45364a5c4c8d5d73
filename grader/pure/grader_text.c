/*
 * grader_text.c — text for comparisons: normalised text and words for
 * rubric matching (wb.norm, wb.words, the choice and text kinds), and the
 * well-formedness of a Lua pattern, which Lua itself only checks when a
 * match reaches the bad part (pack check). Pure C (grader_pure.h): no Lua,
 * no I/O, no globals.
 */
#include "grader_pure.h"

#include <stdio.h>
#include <string.h>

static bool is_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static bool is_edge(unsigned char c)
{
    return is_space(c) || (c && strchr(".,;:!?'\"`()[]{}", c));
}

static unsigned char lower(unsigned char c)
{
    return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

size_t grader_text_norm(const char *s, size_t n, char *out)
{
    size_t a = 0, b = n, k = 0;
    while (a < b && is_edge((unsigned char)s[a]))
        a++;
    while (b > a && is_edge((unsigned char)s[b - 1]))
        b--;
    bool gap = false;
    for (size_t i = a; i < b; i++) {
        unsigned char c = (unsigned char)s[i];
        if (is_space(c)) {
            gap = true;
            continue;
        }
        if (gap && k)
            out[k++] = ' ';
        gap = false;
        out[k++] = (char)lower(c);
    }
    out[k] = '\0';
    return k;
}

size_t grader_text_words(const char *s, size_t n, char *out)
{
    size_t k = 0;
    bool gap = false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        unsigned char c1 = i + 1 < n ? (unsigned char)s[i + 1] : 0;
        /* No-break space (U+00A0) and general punctuation (U+2000-U+206F:
         * dashes, quotes, thin spaces) separate words like ASCII ones do. */
        size_t skip = c == 0xC2 && c1 == 0xA0                                ? 1
                      : c == 0xE2 && (c1 == 0x80 || c1 == 0x81) && i + 2 < n ? 2
                                                                             : 0;
        bool word = !skip && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                              (c >= '0' && c <= '9') || c >= 0x80);
        i += skip;
        if (!word) {
            gap = true;
            continue;
        }
        if (gap && k)
            out[k++] = ' ';
        gap = false;
        out[k++] = (char)lower(c);
    }
    out[k] = '\0';
    return k;
}

/* Lua's own rule for a set: the first character after '[' or '[^' is
 * part of the set even when it is ']'; '%' escapes the next one. Returns
 * the index after the closing ']', or 0 when there is none. */
static size_t set_end(const char *p, size_t n, size_t i)
{
    i++; /* past '[' */
    if (i < n && p[i] == '^')
        i++;
    do {
        if (i >= n)
            return 0;
        if (p[i++] == '%' && i < n)
            i++;
    } while (i >= n || p[i] != ']');
    return i + 1;
}

bool grader_pattern_check(const char *p, size_t n, char *why, size_t why_n)
{
    int total = 0, depth = 0, open[32];
    bool closed[33] = {false};
    size_t i = 0;
    while (i < n) {
        char c = p[i];
        if (c == '(') {
            if (total >= 32) {
                snprintf(why, why_n, "too many captures");
                return false;
            }
            total++;
            if (i + 1 < n && p[i + 1] == ')') { /* position capture */
                closed[total] = true;
                i += 2;
            } else {
                open[depth++] = total;
                i++;
            }
        } else if (c == ')') {
            if (depth == 0) {
                snprintf(why, why_n, "invalid pattern capture (a ')' without '(')");
                return false;
            }
            closed[open[--depth]] = true;
            i++;
        } else if (c == '%') {
            if (i + 1 >= n) {
                snprintf(why, why_n, "malformed pattern (ends with '%%')");
                return false;
            }
            char d = p[i + 1];
            if (d == 'b') {
                if (i + 3 >= n) {
                    snprintf(why, why_n, "missing arguments to '%%b'");
                    return false;
                }
                i += 4;
            } else if (d == 'f') {
                i += 2;
                if (i >= n || p[i] != '[') {
                    snprintf(why, why_n, "missing '[' after '%%f' in pattern");
                    return false;
                }
                size_t e = set_end(p, n, i);
                if (!e) {
                    snprintf(why, why_n, "malformed pattern (missing ']')");
                    return false;
                }
                i = e;
            } else if (d >= '0' && d <= '9') {
                int k = d - '0';
                if (k == 0 || k > total || !closed[k]) {
                    snprintf(why, why_n, "invalid capture index %%%c", d);
                    return false;
                }
                i += 2;
            } else {
                i += 2;
            }
        } else if (c == '[') {
            size_t e = set_end(p, n, i);
            if (!e) {
                snprintf(why, why_n, "malformed pattern (missing ']')");
                return false;
            }
            i = e;
        } else {
            i++;
        }
    }
    if (depth) {
        snprintf(why, why_n, "unfinished capture (a '(' without ')')");
        return false;
    }
    return true;
}
