/*
 * fuzz_answers.c — fuzz target for the answer readers of every kind
 * (numeric, choice, multi, ordering, text, design, and a custom grade
 * function), through grader_question_grade on the example pack
 * (lessons/examples/minimal), which has a question of each.
 *
 * The first input byte picks the question (and the variant), the rest is
 * the student's answer. Checks, besides "no crash": grading never fails for
 * the answer's sake (only a limit may stop a grader, with a message); a
 * result has feedback, a score between 0 and the points when valid, 0 when
 * not; grading the same answer again gives the same result.
 */
#include "lessons/lesson.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FUZZ_PACK_DIR
#define FUZZ_PACK_DIR "lessons/examples/minimal"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct grader_pack *pack;
static const char *qids[64];
static size_t n_qids;

static void load_pack(void)
{
    struct lesson_src src;
    struct core_err err;
    const char *dir = getenv("WB_FUZZ_PACK");
    if (lesson_src_read(dir ? dir : FUZZ_PACK_DIR, &src, &err) != 0) {
        fprintf(stderr, "fuzz_answers: %s\n", err.msg);
        abort();
    }
    struct grader_limits lim;
    grader_limits_default(&lim);
    if (grader_pack_open(&pack, src.files, src.n, &lim, &err) != 0) {
        fprintf(stderr, "fuzz_answers: %s\n", err.msg);
        abort();
    }
    lesson_src_fini(&src);
    const struct grader_pack_info *info = grader_pack_info(pack);
    for (size_t l = 0; l < info->n_lessons; l++)
        for (size_t q = 0; q < info->lessons[l].n_questions && n_qids < 64; q++)
            qids[n_qids++] = info->lessons[l].questions[q].id;
}

static bool same(const struct grader_result *a, const struct grader_result *b)
{
    return a->valid == b->valid && a->score == b->score && a->max == b->max &&
           a->correct == b->correct && strcmp(a->feedback, b->feedback) == 0 &&
           (a->parsed == NULL) == (b->parsed == NULL) &&
           (!a->parsed || strcmp(a->parsed, b->parsed) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!pack)
        load_pack();
    if (size == 0)
        return 0;
    const char *qid = qids[data[0] % n_qids];
    int variant = 1 + (data[0] / (int)n_qids) % 3;
    char *answer = core_xstrndup((const char *)data + 1, size - 1);
    struct grader_ctx ctx = {.user = "fuzz", .variant = variant, .lab = NULL};
    struct grader_result r1, r2;
    struct core_err err;
    int rc = grader_question_grade(pack, qid, &ctx, answer, &r1, &err);
    if (rc != 0) {
        if (rc != CORE_ERR_LIMIT || !err.msg[0])
            abort(); /* an answer must never break a grader */
        free(answer);
        return 0;
    }
    if (!r1.feedback || !(r1.max > 0) || !isfinite(r1.score))
        abort();
    if (r1.valid && (r1.score < 0 || r1.score > r1.max + 1e-9))
        abort();
    if (!r1.valid && r1.score != 0)
        abort();
    if (grader_question_grade(pack, qid, &ctx, answer, &r2, &err) != 0 || !same(&r1, &r2))
        abort();
    grader_result_fini(&r1);
    grader_result_fini(&r2);
    free(answer);
    return 0;
}
