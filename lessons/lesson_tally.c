/*
 * lesson_tally.c — progress summed over groups of questions, in one way for
 * every front end: `warpbench progress` and `lessons`, the TUI's home,
 * lesson list and progress screens, and an exam's own questions.
 *
 * A tally adds lesson_progress_load's rows as they are: each row's score is
 * already what its question earns under its policy, and an exam answer not
 * yet submitted earns nothing yet (it is counted apart as pending). Points
 * the policy's penalties took from the best try before any give-up are
 * counted as lost; certainty-based marks are counted for the rows the
 * caller marks as coming from a CBM pack (lesson_progress_cbm).
 *
 * Pure: no store, no Lua, no globals. Uses core only.
 */
#include "lessons/lesson_internal.h"

#include <stdlib.h>
#include <string.h>

#define DESIGN_KIND "design (automatic, provisional)"
#define AUTO_KIND "auto-graded"

void lesson_names_each(const char *list, void (*fn)(const char *name, size_t len, void *arg),
                       void *arg)
{
    const char *s = list ? list : "";
    while (*s) {
        const char *comma = strchr(s, ',');
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        const char *b = s, *e = s + len;
        while (b < e && *b == ' ')
            b++;
        while (e > b && e[-1] == ' ')
            e--;
        if (e > b)
            fn(b, (size_t)(e - b), arg);
        s += len + (comma ? 1 : 0);
    }
}

void lesson_tally_add(struct lesson_tally *t, const struct db_progress_row *r, bool cbm)
{
    t->questions++;
    t->answered += r->answered;
    t->score += r->best;
    t->max += r->points;
    bool pending =
        (r->exam && !r->exam_over) || (r->sealed && (!r->has_official || r->official_pending));
    t->pending += pending && r->answered;
    if (!pending) {
        double raw = 0; /* the best try before any give-up, no penalty */
        for (int k = 0; k < r->helped_from && k < r->n_fracs; k++)
            raw = r->fracs[k] > raw ? r->fracs[k] : raw;
        if (raw * r->points > r->best + 1e-9)
            t->lost += raw * r->points - r->best;
    }
    if (!cbm)
        return;
    t->cbm = true;
    if (r->answered && r->certainty > 0 && r->points > 0) {
        t->cbm_answered++;
        t->cbm_mark += r->points * lesson_cbm_fraction(r->first / r->points, r->certainty);
        t->cbm_max += 3 * r->points;
    }
}

/* The tally named name[0..len) (a "pack:lesson" when pack != NULL), or NULL. */
static struct lesson_tally *find(const struct lesson_tally_list *l, const char *pack,
                                 const char *name, size_t len)
{
    size_t pl = pack ? strlen(pack) : 0;
    for (size_t i = 0; i < l->n; i++) {
        const char *t = l->v[i].name;
        if (pack) {
            if (strncmp(t, pack, pl) != 0 || t[pl] != ':')
                continue;
            t += pl + 1;
        }
        if (strlen(t) == len && strncmp(t, name, len) == 0)
            return &l->v[i];
    }
    return NULL;
}

struct lesson_tally *lesson_tally_get(struct lesson_tally_list *l, const char *name, size_t len)
{
    struct lesson_tally *t = find(l, NULL, name, len);
    if (t)
        return t;
    l->v = core_xrealloc(l->v, (l->n + 1) * sizeof *l->v);
    l->v[l->n] = (struct lesson_tally){.name = core_xstrndup(name, len)};
    return &l->v[l->n++];
}

void lesson_tally_list_fini(struct lesson_tally_list *l)
{
    for (size_t i = 0; l && i < l->n; i++)
        free(l->v[i].name);
    if (l) {
        free(l->v);
        l->v = NULL;
        l->n = 0;
    }
}

struct list_arg {
    struct lesson_tally_list *l;
    const struct db_progress_row *r;
};

static void add_named(const char *name, size_t len, void *arg)
{
    struct list_arg *a = arg;
    lesson_tally_add(lesson_tally_get(a->l, name, len), a->r, false);
}

void lesson_tallies_compute(const struct db_progress_row *rows, size_t n, const bool *cbm,
                            struct lesson_tallies *out)
{
    memset(out, 0, sizeof *out);
    out->total.name = core_xstrdup("total");
    for (size_t i = 0; i < n; i++) {
        const struct db_progress_row *r = &rows[i];
        bool c = cbm && cbm[i];
        lesson_tally_add(&out->total, r, c);
        lesson_tally_add(lesson_tally_get(&out->packs, r->pack_id, strlen(r->pack_id)), r, c);
        char *key = core_xasprintf("%s:%s", r->pack_id, r->lesson_id);
        lesson_tally_add(lesson_tally_get(&out->lessons, key, strlen(key)), r, c);
        free(key);
        struct list_arg topics = {&out->topics, r}, rubric = {&out->rubric, r};
        lesson_names_each(r->topics, add_named, &topics);
        lesson_names_each(r->rubric, add_named, &rubric);
        /* Design answers are graded automatically but provisionally (a
         * person's rubric score may differ): their points are also shown
         * apart from the rest. */
        const char *kind = r->kind && strcmp(r->kind, "design") == 0 ? DESIGN_KIND : AUTO_KIND;
        lesson_tally_add(lesson_tally_get(&out->kinds, kind, strlen(kind)), r, false);
    }
}

void lesson_tallies_fini(struct lesson_tallies *t)
{
    if (!t)
        return;
    free(t->total.name);
    lesson_tally_list_fini(&t->packs);
    lesson_tally_list_fini(&t->lessons);
    lesson_tally_list_fini(&t->topics);
    lesson_tally_list_fini(&t->rubric);
    lesson_tally_list_fini(&t->kinds);
    memset(t, 0, sizeof *t);
}

const struct lesson_tally *lesson_tallies_lesson(const struct lesson_tallies *t,
                                                 const char *pack_id, const char *lesson_id)
{
    return find(&t->lessons, pack_id, lesson_id, strlen(lesson_id));
}

const struct lesson_tally *lesson_tallies_pack(const struct lesson_tallies *t, const char *pack_id)
{
    return find(&t->packs, NULL, pack_id, strlen(pack_id));
}
