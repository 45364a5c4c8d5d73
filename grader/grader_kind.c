/*
 * grader_kind.c — the question kinds: one table, one row per kind, saying
 * everything a kind means to the grader (struct grader_kind_ops: its name,
 * its own fields, its static checks, how its reference is computed and
 * shown, how an answer is graded). Each row is defined beside its functions:
 * numeric in grader_kind_numeric.c; choice, multi and ordering in
 * grader_kind_choice.c; text and design in grader_kind_text.c. Adding a kind
 * is one enum value in grader.h, one row there and one entry here.
 *
 * Uses nothing but the rows.
 */
#include "grader_lua_internal.h"

#include <stdio.h>
#include <string.h>

static const struct grader_kind_ops *const kinds[GRADER_KIND_COUNT] = {
    [GRADER_NUMERIC] = &grader_kind_numeric, [GRADER_CHOICE] = &grader_kind_choice,
    [GRADER_MULTI] = &grader_kind_multi,     [GRADER_ORDERING] = &grader_kind_ordering,
    [GRADER_TEXT] = &grader_kind_text,       [GRADER_DESIGN] = &grader_kind_design,
    [GRADER_CODE] = &grader_kind_code};

const struct grader_kind_ops *grader_kind_ops(enum grader_kind k)
{
    return (unsigned)k < GRADER_KIND_COUNT ? kinds[k] : kinds[GRADER_NUMERIC];
}

const char *grader_kind_name(enum grader_kind k)
{
    return (unsigned)k < GRADER_KIND_COUNT ? kinds[k]->name : "?";
}

int grader_kind_find(const char *name)
{
    for (int k = 0; k < GRADER_KIND_COUNT; k++)
        if (name && strcmp(name, kinds[k]->name) == 0)
            return k;
    return -1;
}

size_t grader_kind_max_answer(enum grader_kind k)
{
    return grader_kind_ops(k)->max_answer;
}

/* Whether kind k lists question field `name` among its own. */
static bool lists(int k, const char *name)
{
    for (const char *const *f = kinds[k]->fields; f && *f; f++)
        if (strcmp(*f, name) == 0)
            return true;
    return false;
}

bool grader_kind_field_applies(int kind, const char *name, char *buf, size_t n)
{
    bool listed = false, mine = false;
    if (n)
        buf[0] = '\0';
    for (int k = 0; k < GRADER_KIND_COUNT; k++) {
        if (!lists(k, name))
            continue;
        size_t len = strlen(buf);
        snprintf(buf + len, n - len, "%s%s", len ? ", " : "", kinds[k]->name);
        listed = true;
        mine |= k == kind;
    }
    return !listed || mine;
}
