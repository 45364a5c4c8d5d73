/* core_csv.c — CSV fields as RFC 4180 writes them, with the formula guard
 * spreadsheets need. */
#include "core/core.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool core_csv_is_formula(const char *s)
{
    return s && (s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@' || s[0] == '\t' ||
                 s[0] == '\r');
}

void core_csv_field(struct core_buf *b, const char *s, bool guard)
{
    if (!s)
        s = "";
    /* Text from a student's file or a pack: its control characters (a CR
     * that starts a fake row, a U+202E that reverses a name) are escaped
     * visibly, as everywhere else it is shown. */
    char *esc = core_text_clean(s, 0) ? NULL : core_text_safe(s, 0);
    if (esc)
        s = esc;
    bool formula = guard && core_csv_is_formula(s);
    size_t n = strlen(s);
    /* Quoted when it must be (a separator, quote or line break inside: ','
     * and also ';', the separator of spreadsheets in locales with a decimal
     * comma, which would otherwise split the cell), and also around a
     * guarded cell and around leading or trailing blanks, which some
     * importers trim. */
    bool quote =
        formula || strpbrk(s, ",;\"\r\n") != NULL || (n > 0 && (s[0] == ' ' || s[n - 1] == ' '));
    if (!quote) {
        core_buf_append(b, s, n);
        free(esc);
        return;
    }
    core_buf_putc(b, '"');
    if (formula)
        core_buf_putc(b, '\'');
    for (const char *p = s; *p; p++) {
        if (*p == '"')
            core_buf_putc(b, '"');
        core_buf_putc(b, *p);
    }
    core_buf_putc(b, '"');
    free(esc);
}

void core_csv_num(struct core_buf *b, double v)
{
    if (!isfinite(v))
        return; /* an empty cell: no grade */
    char tmp[40];
    /* Two decimals are what gradebooks show; trailing zeros trimmed, and a
     * decimal point in every locale. */
    snprintf(tmp, sizeof tmp, "%.2f", fabs(v) < 0.005 ? 0.0 : v);
    for (char *c = tmp; *c; c++)
        if (*c == ',')
            *c = '.';
    char *dot = strchr(tmp, '.');
    if (dot) {
        char *end = tmp + strlen(tmp) - 1;
        while (end > dot && *end == '0')
            *end-- = '\0';
        if (end == dot)
            *end = '\0';
    }
    core_buf_puts(b, tmp);
}

bool core_csv_read(const char **p, const char *end, bool at_start, struct core_strlist *fields)
{
    core_strlist_fini(fields);
    core_strlist_init(fields);
    const char *s = *p;
    if (at_start && end - s >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0)
        s += 3;
    if (s >= end)
        return false;
    struct core_buf f;
    core_buf_init(&f);
    for (;;) {
        core_buf_reset(&f);
        if (s < end && *s == '"') {
            for (s++; s < end; s++) {
                if (*s == '"' && s + 1 < end && s[1] == '"')
                    core_buf_putc(&f, *s++);
                else if (*s == '"')
                    break;
                else
                    core_buf_putc(&f, *s);
            }
            if (s < end)
                s++; /* the closing quote */
        }
        while (s < end && *s != ',' && *s != '\n' && *s != '\r')
            core_buf_putc(&f, *s++);
        core_buf_putc(&f, '\0');
        core_strlist_push(fields, f.data);
        if (s < end && *s == ',') {
            s++;
            continue;
        }
        if (s < end && *s == '\r')
            s++;
        if (s < end && *s == '\n')
            s++;
        break;
    }
    core_buf_fini(&f);
    *p = s;
    return true;
}
