/* core_err.c — the error report and code names. */
#include "core/core.h"

#include <stdio.h>
#include <string.h>

int core_err_set(struct core_err *e, int code, const char *fmt, ...)
{
    if (e) {
        va_list ap;
        va_start(ap, fmt);
        e->code = code;
        vsnprintf(e->msg, sizeof e->msg, fmt, ap);
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
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    /* Append ": <old>" by hand, truncating; the message must stay bounded. */
    size_t at = n < 0 ? 0 : (size_t)n;
    const char *tail[2] = {": ", old};
    for (int k = 0; k < 2; k++)
        for (const char *c = tail[k]; *c && at + 1 < sizeof e->msg; c++)
            e->msg[at++] = *c;
    if (at < sizeof e->msg)
        e->msg[at] = '\0';
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
