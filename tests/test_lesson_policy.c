/* Attempt policies: lesson_policy_apply (what a question earns from its
 * tries), the kinds' defaults against the guessing criterion, the policy in
 * words, pack declarations (resolution and refusals), and the exactness of
 * the variant params kept with each attempt. */
#include "lessons/lesson.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static struct grader_policy pen(int tries, double penalty)
{
    struct grader_policy p = {.tries = tries, .penalty = penalty};
    return p;
}

static void test_apply_penalty(void **state)
{
    (void)state;
    struct grader_policy p = pen(3, 1.0 / 3);
    struct lesson_tries t;
    double fr[] = {0, 0.5, 1};
    lesson_policy_apply(&p, fr, 1, 1, false, &t);
    assert_float_equal(t.frac, 0, 1e-12);
    assert_int_equal(t.best_try, 0);
    assert_false(t.closed);
    assert_float_equal(t.next_available, 2.0 / 3, 1e-12);
    lesson_policy_apply(&p, fr, 2, 2, false, &t); /* half right on try 2: 0.5 * 2/3 */
    assert_float_equal(t.frac, 1.0 / 3, 1e-12);
    assert_int_equal(t.best_try, 2);
    lesson_policy_apply(&p, fr, 3, 3, false, &t); /* right on try 3: 1/3 */
    assert_float_equal(t.frac, 1.0 / 3, 1e-12);
    assert_true(t.solved);
    assert_true(t.closed);
    assert_float_equal(t.next_available, 0, 1e-12);
    /* A worse later try never lowers the grade. */
    double down[] = {1, 0};
    lesson_policy_apply(&p, down, 2, 2, false, &t);
    assert_float_equal(t.frac, 1, 1e-12);
    assert_int_equal(t.best_try, 1);
}

static void test_apply_giveup_and_limit(void **state)
{
    (void)state;
    struct grader_policy p = pen(0, 0.1); /* unlimited */
    struct lesson_tries t;
    double fr[] = {0, 1, 1};
    lesson_policy_apply(&p, fr, 3, 1, true, &t); /* tries 2 and 3 came after a give-up */
    assert_float_equal(t.frac, 0, 1e-12);
    assert_false(t.solved);
    assert_true(t.gave_up);
    assert_false(t.closed);
    assert_float_equal(t.next_available, 0, 1e-12);
    lesson_policy_apply(&p, fr, 3, 3, false, &t);
    assert_float_equal(t.frac, 0.9, 1e-12);
    /* Tries beyond the limit (a pack that lowered it) earn nothing. */
    struct grader_policy two = pen(2, 0);
    double late[] = {0, 0, 1};
    lesson_policy_apply(&two, late, 3, 3, false, &t);
    assert_float_equal(t.frac, 0, 1e-12);
    assert_true(t.closed);
}

static void test_per_try_text(void **state)
{
    (void)state;
    struct grader_policy p = {.tries = 3, .per_try = {1, 0.5, 0.25}, .n_per_try = 3};
    char *txt = lesson_policy_per_try_text(&p);
    assert_string_equal(txt, "1 0.5 0.25");
    struct grader_policy back;
    lesson_policy_of(3, 0, txt, &back);
    free(txt);
    assert_int_equal(back.n_per_try, 3);
    assert_float_equal(grader_policy_available(&back, 2), 0.5, 1e-12);
    assert_float_equal(grader_policy_available(&back, 4), 0, 1e-12);
    assert_null(lesson_policy_per_try_text(&(struct grader_policy){.tries = 2, .penalty = 1}));
}

static void test_describe(void **state)
{
    (void)state;
    char buf[160];
    struct grader_policy p = pen(3, 1.0 / 3);
    grader_policy_describe(&p, buf, sizeof buf);
    assert_string_equal(buf, "3 tries; each wrong try costs a third of the points");
    p = pen(2, 1);
    grader_policy_describe(&p, buf, sizeof buf);
    assert_string_equal(buf, "2 tries; only the first earns points");
    p = pen(0, 0);
    grader_policy_describe(&p, buf, sizeof buf);
    assert_string_equal(buf, "unlimited tries; no penalty");
    p = pen(5, 0.1);
    grader_policy_describe(&p, buf, sizeof buf);
    assert_string_equal(buf, "5 tries; each wrong try costs 10% of the points");
    p = pen(1, 0);
    grader_policy_describe(&p, buf, sizeof buf);
    assert_string_equal(buf, "1 try");
}

/* The criterion: answering at random until right is worth no more
 * than one random guess, for every kind with enumerable answers and every
 * size the format allows (up to 8 here). And Moodle's usual 1/(n-1) fails
 * it, which is why it is not the default. */
static void test_defaults_make_guessing_worthless(void **state)
{
    (void)state;
    const enum grader_kind kinds[] = {GRADER_CHOICE, GRADER_MULTI, GRADER_ORDERING};
    for (size_t k = 0; k < 3; k++) {
        struct grader_policy p;
        grader_policy_default(kinds[k], &p);
        for (int n = 2; n <= 8; n++) {
            double single, brute;
            lesson_policy_guess(kinds[k], n, kinds[k] == GRADER_MULTI ? (n + 1) / 2 : 1, &p,
                                &single, &brute);
            if (brute > single + 1e-9)
                fail_msg("%s with %d options: brute force %.4f > one guess %.4f",
                         grader_kind_name(kinds[k]), n, brute, single);
            assert_true(single > 0);
        }
    }
    struct grader_policy moodle = pen(0, 1.0 / 2); /* 3 options */
    double single, brute;
    lesson_policy_guess(GRADER_CHOICE, 3, 1, &moodle, &single, &brute);
    assert_float_equal(single, 1.0 / 3, 1e-12);
    assert_float_equal(brute, 0.5, 1e-12);
    /* The default for numeric answers: a small penalty, several tries. */
    struct grader_policy num;
    grader_policy_default(GRADER_NUMERIC, &num);
    assert_true(num.tries >= 3 && num.penalty > 0 && num.penalty <= 0.2);
}

/* ---- declarations --------------------------------------------------------- */

static int check_pack(const char *pack_lua, const char *lesson_lua, struct lesson_check *c,
                      struct grader_pack **p)
{
    struct grader_file files[] = {{"pack.lua", pack_lua, strlen(pack_lua)},
                                  {"l.lua", lesson_lua, strlen(lesson_lua)}};
    struct lesson_src src = {.files = files, .n = 2};
    struct core_err e = {0};
    return lesson_pack_check(&src, c, p, &e);
}

static const char *find_problem(const struct lesson_check *c, const char *needle)
{
    for (size_t i = 0; i < c->problems.n; i++)
        if (strstr(c->problems.items[i], needle))
            return c->problems.items[i];
    return NULL;
}

static void test_declarations_resolve(void **state)
{
    (void)state;
    const char *pack = "pack { id = 't.p', title = 'T', version = '1', lessons = { 'l.lua' },\n"
                       "  policy = { penalty = 0.25 } }\n";
    const char *lesson =
        "lesson { id = 'l', title = 'L', policy = { tries = 4 } }\n"
        "question { id = 'a', kind = 'numeric', prompt = '?', answer = 1 }\n"
        "question { id = 'b', kind = 'choice', prompt = '?', choices = { 'x', 'y' }, answer = 1,\n"
        "  policy = { tries = 1 } }\n"
        "question { id = 'c', kind = 'numeric', prompt = '?', answer = 1,\n"
        "  policy = { per_try = { 1, 0.3 } } }\n";
    struct lesson_check c;
    struct grader_pack *p = NULL;
    assert_int_equal(check_pack(pack, lesson, &c, &p), 0);
    const struct grader_question *a = grader_pack_question(p, "a");
    assert_int_equal(a->policy.tries, 4);               /* the lesson's */
    assert_float_equal(a->policy.penalty, 0.25, 1e-12); /* the pack's */
    const struct grader_question *b = grader_pack_question(p, "b");
    assert_int_equal(b->policy.tries, 1); /* its own */
    assert_float_equal(b->policy.penalty, 0.25, 1e-12);
    const struct grader_question *q = grader_pack_question(p, "c");
    assert_int_equal(q->policy.n_per_try, 2);
    assert_int_equal(q->policy.tries, 2); /* the list's length */
    grader_pack_free(p);
    lesson_check_fini(&c);

    /* An exam lesson allows one try whatever the policy says. */
    const char *exam = "lesson { id = 'l', title = 'L', exam = { minutes = 30 } }\n"
                       "question { id = 'a', kind = 'numeric', prompt = '?', answer = 1,\n"
                       "  policy = { tries = 5 } }\n";
    p = NULL;
    assert_int_equal(check_pack(pack, exam, &c, &p), 0);
    assert_int_equal(grader_pack_question(p, "a")->policy.tries, 1);
    assert_true(grader_pack_info(p)->lessons[0].exam);
    assert_int_equal(grader_pack_info(p)->lessons[0].time_limit_s, 1800);
    grader_pack_free(p);
    lesson_check_fini(&c);
}

static void test_declarations_refused(void **state)
{
    (void)state;
    const char *pack = "pack { id = 't.p', title = 'T', version = '1', lessons = { 'l.lua' } }\n";
    const char *lesson = "lesson { id = 'l', title = 'L', exam = { minute = 3 } }\n"
                         "question { id = 'a', kind = 'numeric', prompt = '?', answer = 1,\n"
                         "  policy = { tries = 1.5, penalty = 2 } }\n"
                         "question { id = 'b', kind = 'numeric', prompt = '?', answer = 1,\n"
                         "  policy = { penalty = 0.5, per_try = { 1 } } }\n"
                         "question { id = 'c', kind = 'numeric', prompt = '?', answer = 1,\n"
                         "  policy = { tries = 2, penalti = 0.5 } }\n";
    struct lesson_check c;
    assert_int_not_equal(check_pack(pack, lesson, &c, NULL), 0);
    assert_non_null(find_problem(&c, "l.lua:1: lesson l: exam: unknown field 'minute' (did you "
                                     "mean 'minutes'?)"));
    assert_non_null(find_problem(&c, "l.lua:2: question a: policy: tries must be a whole number"));
    assert_non_null(find_problem(&c, "question a: policy: penalty must be a fraction"));
    assert_non_null(find_problem(&c, "l.lua:4: question b: policy: give either penalty or "
                                     "per_try, not both"));
    assert_non_null(find_problem(&c, "l.lua:6: question c: policy: unknown field 'penalti' (did "
                                     "you mean 'penalty'?)"));
    lesson_check_fini(&c);
}

/* ---- the variant params a re-grade depends on ------------------------------ */

static void test_params_json_exact(void **state)
{
    (void)state;
    /* Integers stay integers, floats stay floats and read back exactly,
     * strings keep their bytes: the prompt shows the same text after a
     * round trip through the stored JSON. */
    const char *pack = "pack { id = 't.p', title = 'T', version = '1', lessons = { 'l.lua' } }\n";
    const char *lesson =
        "lesson { id = 'l', title = 'L' }\n"
        "question { id = 'a', kind = 'numeric',\n"
        "  prompt = '{n} {x} {big} {whole} {s} {t} {list} {ty}',\n"
        "  params = function(rng) return { n = 3, x = 0.1 + 0.2, big = 2^60, whole = 4.0,\n"
        "    s = 'caf\\xc3\\xa9 \"q\" \\\\ \\1', t = true, l = { 1, 2.5, 'x' },\n"
        "    list = rng:int(1, 1000000), ty = math.type(4.0) } end,\n"
        "  answer = function(p) return p.x * p.l[2] end }\n";
    struct lesson_check c;
    struct grader_pack *p = NULL;
    assert_int_equal(check_pack(pack, lesson, &c, &p), 0);
    struct grader_ctx ctx = {.user = "u", .variant = 7};
    struct grader_view v1, v2;
    struct core_err e = {0};
    assert_int_equal(grader_question_view(p, "a", &ctx, &v1, &e), 0);
    assert_non_null(v1.params_json);
    assert_non_null(strstr(v1.params_json, "\"n\":3,"));
    assert_non_null(strstr(v1.params_json, "\"whole\":4.0"));
    assert_non_null(strstr(v1.params_json, "\"x\":0.30000000000000004"));
    assert_non_null(strstr(v1.params_json, "\"l\":[1,2.5,\"x\"]"));
    /* Another user draws other numbers; with the stored JSON the view is
     * the first one's, to the byte. */
    struct grader_ctx other = {.user = "someone else", .variant = 7, .params_json = v1.params_json};
    assert_int_equal(grader_question_view(p, "a", &other, &v2, &e), 0);
    assert_string_equal(v2.prompt, v1.prompt);
    assert_string_equal(v2.params_json, v1.params_json);
    grader_view_fini(&v2);
    /* And grading against it uses those numbers. */
    struct grader_result r;
    char ans[64];
    snprintf(ans, sizeof ans, "%.17g", (0.1 + 0.2) * 2.5);
    assert_int_equal(grader_question_grade(p, "a", &other, ans, &r, &e), 0);
    assert_true(r.correct);
    grader_result_fini(&r);
    /* Unreadable stored params are the grader's error, not a silent redraw. */
    struct grader_ctx bad = {.user = "u", .variant = 7, .params_json = "{\"n\":"};
    assert_int_not_equal(grader_question_grade(p, "a", &bad, "1", &r, &e), 0);
    assert_non_null(strstr(e.msg, "stored variant parameters"));
    grader_view_fini(&v1);
    grader_pack_free(p);
    lesson_check_fini(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_apply_penalty),
        cmocka_unit_test(test_apply_giveup_and_limit),
        cmocka_unit_test(test_per_try_text),
        cmocka_unit_test(test_describe),
        cmocka_unit_test(test_defaults_make_guessing_worthless),
        cmocka_unit_test(test_declarations_resolve),
        cmocka_unit_test(test_declarations_refused),
        cmocka_unit_test(test_params_json_exact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
