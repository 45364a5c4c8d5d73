/* lesson_coverage.c — how many questions, points and lessons of a pack
 * evidence each rubric item: the numbers behind `pack check --rubric`.
 *
 * Decisions:
 *   - A question counts once per item even when its `rubric` list names the
 *     item twice, as in the progress roll-up (lesson_standing_compute).
 *   - Names that are not course items are kept, in the order first seen, so
 *     a typo ("practice.profilng") shows up as an item of its own instead of
 *     vanishing.
 *   - "Lessons" counts distinct lessons, because an item whose questions all
 *     sit in one lesson is evidenced by one sitting only. */
#include "lessons/lesson.h"

#include <stdlib.h>
#include <string.h>

/* Adds question q of lesson number `lesson` to c. last_lesson (one per
 * count) remembers the last lesson counted, so lessons are counted once:
 * questions arrive lesson by lesson. */
static void count(struct lesson_rubric_count *c, int *last_lesson, int lesson,
                  const struct grader_question *q)
{
    c->questions++;
    c->points += q->points;
    if (*last_lesson != lesson) {
        *last_lesson = lesson;
        c->lessons++;
    }
}

void lesson_rubric_coverage_compute(const struct grader_pack_info *info,
                                    struct lesson_rubric_coverage *out)
{
    memset(out, 0, sizeof *out);
    const struct lesson_rubric_item *items = lesson_rubric_items();
    for (int i = 0; i < LESSON_RUBRIC_N; i++) {
        out->items[i].name = items[i].id;
        out->items[i].item = &items[i];
    }
    if (!info)
        return;
    int last[LESSON_RUBRIC_N];
    for (int i = 0; i < LESSON_RUBRIC_N; i++)
        last[i] = -1;
    int *other_last = NULL;
    size_t cap = 0;
    for (size_t l = 0; l < info->n_lessons; l++) {
        const struct grader_lesson *ls = &info->lessons[l];
        for (size_t k = 0; k < ls->n_questions; k++) {
            const struct grader_question *q = &ls->questions[k];
            for (size_t r = 0; r < q->n_rubric; r++) {
                const char *name = q->rubric[r];
                bool repeated = false;
                for (size_t e = 0; e < r && !repeated; e++)
                    repeated = strcmp(q->rubric[e], name) == 0;
                if (repeated)
                    continue;
                const struct lesson_rubric_item *it = lesson_rubric_find(name);
                if (it) {
                    int i = (int)(it - items);
                    count(&out->items[i], &last[i], (int)l, q);
                    continue;
                }
                size_t o = 0;
                while (o < out->n_other && strcmp(out->other[o].name, name) != 0)
                    o++;
                if (o == out->n_other) {
                    if (out->n_other == cap) {
                        cap = cap ? 2 * cap : 4;
                        out->other = core_xrealloc(out->other, cap * sizeof *out->other);
                        other_last = core_xrealloc(other_last, cap * sizeof *other_last);
                    }
                    memset(&out->other[o], 0, sizeof out->other[o]);
                    out->other[o].name = name;
                    other_last[o] = -1;
                    out->n_other++;
                }
                count(&out->other[o], &other_last[o], (int)l, q);
            }
        }
    }
    free(other_last);
}

void lesson_rubric_coverage_fini(struct lesson_rubric_coverage *c)
{
    if (!c)
        return;
    free(c->other);
    memset(c, 0, sizeof *c);
}
