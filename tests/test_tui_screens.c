/*
 * test_tui_screens.c — the TUI's upper layers without a terminal: the frame
 * (title bar, key footer, help overlay, "terminal too small"), key tables,
 * and every screen's view drawn from a hand-built model into an in-memory
 * canvas and compared as text; plus the pure model helpers (home search,
 * pick answers, the multi-line editor, progress tallies).
 */
#include "tui_test_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- frame ------------------------------------------------------------------ */

enum { ACT_ONE = 1, ACT_TWO, ACT_THREE };
static const struct tui_binding test_keys[] = {
    {'j', TUI_K_DOWN, ACT_ONE, "j/Down", "move", "next thing"},
    {TUI_K_ENTER, 0, ACT_TWO, "Enter", "open", "open the thing"},
    {'x', 0, ACT_THREE, "x", NULL, "a key only the help lists"},
};

static void test_keymap_action(void **state)
{
    (void)state;
    struct tui_keymap km = TUI_KEYMAP(test_keys);
    assert_int_equal(km.n, 3);
    assert_int_equal(tui_keymap_action(km, 'j'), ACT_ONE);
    assert_int_equal(tui_keymap_action(km, TUI_K_DOWN), ACT_ONE);
    assert_int_equal(tui_keymap_action(km, TUI_K_ENTER), ACT_TWO);
    assert_int_equal(tui_keymap_action(km, 'x'), ACT_THREE);
    assert_int_equal(tui_keymap_action(km, 'q'), 0);
    assert_int_equal(tui_keymap_action(km, TUI_K_NONE), 0);
}

static void test_frame(void **state)
{
    (void)state;
    struct tui_canvas c;
    tui_canvas_init(&c, 80, 24, TUI_CS_UTF8);
    struct tui_rect body = tui_view_frame(&c, "lessons", "alice", TUI_KEYMAP(test_keys), "", false);
    assert_int_equal(body.y, 1);
    assert_int_equal(body.h, 22);
    assert_int_equal(body.w, 80);
    ROW(&c, 0, " Warpbench · lessons                                                      alice");
    /* The footer lists labelled keys only, and "? help" at the right. */
    ROW(&c, 23, " j/Down move  Enter open                                                 ? help");
    /* A message replaces the keys until the next key. */
    tui_canvas_clear(&c);
    tui_view_frame(&c, "x", "alice", TUI_KEYMAP(test_keys), "attempt 2 recorded", false);
    ROW(&c, 23, " attempt 2 recorded                                                      ? help");
    /* ASCII: no middle dot. */
    struct tui_canvas a;
    tui_canvas_init(&a, 80, 24, TUI_CS_ASCII);
    tui_view_frame(&a, "lessons", "bob", TUI_KEYMAP(test_keys), NULL, false);
    ROW(&a, 0, " Warpbench - lessons                                                        bob");
    tui_canvas_fini(&a);
    tui_canvas_fini(&c);
}

static void test_too_small(void **state)
{
    (void)state;
    struct tui_canvas c;
    tui_canvas_init(&c, 60, 20, TUI_CS_UTF8);
    tui_view_too_small(&c);
    ROW(&c, 9, "         terminal too small: have 60×20, need 80×24");
    ROW(&c, 10, "        enlarge the window, or press Ctrl-C to quit");
    tui_canvas_fini(&c);
    /* Tiny and ASCII: the message wraps and uses x. */
    tui_canvas_init(&c, 20, 6, TUI_CS_ASCII);
    tui_view_too_small(&c);
    HAS(&c, "terminal too small:");
    HAS(&c, "20x6");
    tui_canvas_fini(&c);
}

static void test_help_overlay(void **state)
{
    (void)state;
    struct tui_canvas c;
    tui_canvas_init(&c, 80, 24, TUI_CS_UTF8);
    tui_view_help(&c, "lessons", TUI_KEYMAP(test_keys));
    HAS(&c, "keys: lessons");
    HAS(&c, "│ j/Down        next thing");
    HAS(&c, "│ x             a key only the help lists");
    HAS(&c, "│ ?             show or hide this help");
    HAS(&c, "│ Ctrl-C        quit Warpbench (in a running lab: cancel it)");
    HAS(&c, "any key closes this help");
    tui_canvas_fini(&c);
}

/* ---- home ------------------------------------------------------------------- */

static void home_add(struct tui_home_model *m, bool pack, const char *lesson, const char *title,
                     int q, int answered, double score, double max, bool cont)
{
    m->items = core_xrealloc(m->items, (m->n + 1) * sizeof *m->items);
    m->items[m->n++] = (struct tui_home_item){pack,
                                              core_xstrdup("core"),
                                              lesson ? core_xstrdup(lesson) : NULL,
                                              core_xstrdup(title),
                                              q,
                                              answered,
                                              score,
                                              max,
                                              cont};
}

static void home_model(struct tui_home_model *m)
{
    tui_home_model_init(m);
    home_add(m, true, NULL, "ML Systems Performance", 6, 3, 2, 6, false);
    home_add(m, false, "amdahl", "Amdahl's law and scalability", 4, 2, 1, 4, true);
    home_add(m, false, "memory", "Memory hierarchy and locality", 2, 1, 1, 2, false);
    home_add(m, false, "gpu", "GPU coalescing", 0, 0, 0, 0, false);
    m->cont_text = core_xstrdup("Amdahl's law and scalability — page 2 of 6");
    tui_home_filter(m);
}

static void test_home_view(void **state)
{
    (void)state;
    struct tui_home_model m;
    home_model(&m);
    struct tui_canvas c;
    tui_canvas_init(&c, 80, 22, TUI_CS_UTF8);
    struct tui_cursor cur = {0};
    tui_view_home(&m, &c, tui_test_full(&c), &cur);
    ROW(&c, 0, " Continue: Amdahl's law and scalability — page 2 of 6                 c: resume");
    ROW(&c, 2, " lesson                                          progress       answered  score");
    ROW(&c, 3, " ML Systems Performance                          ███████░░░░░░░    3/6     33%");
    ROW(&c, 4, "  ▶ Amdahl's law and scalability                 ███████░░░░░░░    2/4     25%");
    ROW(&c, 5, "    Memory hierarchy and locality                ███████░░░░░░░    1/2     50%");
    ROW(&c, 6, "    GPU coalescing                               no questions");
    assert_false(cur.on);
    tui_canvas_fini(&c);
    /* ASCII charset: '>' marks the lesson to continue, bars are '#'. */
    tui_canvas_init(&c, 80, 22, TUI_CS_ASCII);
    tui_view_home(&m, &c, tui_test_full(&c), &cur);
    ROW(&c, 4, "  > Amdahl's law and scalability                 #######.......    2/4     25%");
    tui_canvas_fini(&c);
    tui_home_model_fini(&m);
}

static void test_home_search(void **state)
{
    (void)state;
    struct tui_home_model m;
    home_model(&m);
    /* Selection starts on the first lesson, never on a pack heading. */
    assert_string_equal(tui_home_selected(&m)->lesson_id, "amdahl");
    tui_home_move(&m, 1);
    assert_string_equal(tui_home_selected(&m)->lesson_id, "memory");
    tui_home_move(&m, 10);
    assert_string_equal(tui_home_selected(&m)->lesson_id, "gpu");
    tui_home_move(&m, -100);
    assert_string_equal(tui_home_selected(&m)->lesson_id, "amdahl");
    /* Case-insensitive search on titles and ids; the pack stays as heading. */
    m.searching = true;
    tui_input_set(&m.search, "MEM");
    tui_home_filter(&m);
    assert_int_equal(m.n_shown, 2);
    assert_true(m.items[m.shown[0]].is_pack);
    assert_string_equal(tui_home_selected(&m)->lesson_id, "memory");
    struct tui_canvas c;
    tui_canvas_init(&c, 80, 22, TUI_CS_UTF8);
    struct tui_cursor cur = {0};
    tui_view_home(&m, &c, tui_test_full(&c), &cur);
    ROW(&c, 4, "    Memory hierarchy and locality                ███████░░░░░░░    1/2     50%");
    ROW(&c, 5, "");
    ROW(&c, 21, " / MEM                                                                 1 lesson");
    assert_true(cur.on);
    assert_int_equal(cur.y, 21);
    assert_int_equal(cur.x, 6);
    tui_canvas_fini(&c);
    /* No match: nothing selected, and the view says so. */
    tui_input_set(&m.search, "zzz");
    tui_home_filter(&m);
    assert_int_equal(m.n_shown, 0);
    assert_null(tui_home_selected(&m));
    tui_canvas_init(&c, 80, 22, TUI_CS_UTF8);
    tui_view_home(&m, &c, tui_test_full(&c), &cur);
    HAS(&c, "no lesson matches the search");
    tui_canvas_fini(&c);
    /* Clearing the search keeps the selection where it was last valid. */
    tui_input_set(&m.search, "");
    tui_home_filter(&m);
    assert_int_equal(m.n_shown, 4);
    assert_non_null(tui_home_selected(&m));
    tui_home_model_fini(&m);
}

/* ---- lesson ----------------------------------------------------------------- */

static void test_lesson_view(void **state)
{
    (void)state;
    struct tui_lesson_model m = {0};
    m.lesson_title = core_xstrdup("Amdahl's law and scalability");
    m.page = 1;
    m.n_pages = 6;
    tui_md_render("# Amdahl's law\n\nSplit the run time into a **serial** part and a parallel "
                  "part.\n",
                  tui_lesson_doc_width(80), TUI_CS_UTF8, &m.doc);
    m.qs = core_xcalloc(2, sizeof *m.qs);
    m.qs[0] = (struct tui_lesson_q){core_xstrdup("core:a"),
                                    core_xstrdup("Speedup"),
                                    core_xstrdup("numeric"),
                                    2,
                                    1,
                                    1,
                                    true,
                                    false,
                                    false};
    m.qs[1] = (struct tui_lesson_q){core_xstrdup("core:b"),
                                    core_xstrdup("Run time"),
                                    core_xstrdup("numeric"),
                                    0,
                                    0,
                                    2,
                                    false,
                                    false,
                                    false};
    m.n_qs = 2;
    m.qsel = 1;
    struct tui_canvas c;
    tui_canvas_init(&c, 80, 22, TUI_CS_UTF8);
    tui_view_lesson(&m, &c, tui_test_full(&c));
    ROW(&c, 0, " Amdahl's law and scalability                                          page 2/6");
    HAS(&c, "  Amdahl's law");
    HAS(&c, "  Split the run time into a serial part and a parallel part.");
    ROW(&c, 19, " Questions (Tab selects, Enter or 1-9 opens)");
    ROW(&c, 20, " 1  ✓ Speedup                                             numeric   1/1 pt");
    ROW(&c, 21, " 2  · Run time                                            numeric   2 pt");
    assert_int_equal(m.doc_rows, 18);
    tui_canvas_fini(&c);
    tui_lesson_model_fini(&m);
}

static void test_lesson_scroll_marker(void **state)
{
    (void)state;
    struct tui_lesson_model m = {0};
    m.lesson_title = core_xstrdup("Long");
    m.n_pages = 1;
    struct core_buf md;
    core_buf_init(&md);
    for (int i = 1; i <= 40; i++)
        core_buf_printf(&md, "Paragraph %d.\n\n", i);
    tui_md_render(md.data, 60, TUI_CS_UTF8, &m.doc);
    core_buf_fini(&md);
    struct tui_canvas c;
    tui_canvas_init(&c, 80, 22, TUI_CS_UTF8);
    tui_view_lesson(&m, &c, tui_test_full(&c));
    HAS(&c, "page 1/1  top");
    HAS(&c, "Paragraph 1.");
    HAS(&c, "↓");
    /* Scrolled past the end: clamped to the last screen. */
    m.top = 100000;
    tui_canvas_clear(&c);
    tui_view_lesson(&m, &c, tui_test_full(&c));
    HAS(&c, "page 1/1  end");
    HAS(&c, "Paragraph 40.");
    LACKS(&c, "Paragraph 1.");
    tui_canvas_fini(&c);
    tui_lesson_model_fini(&m);
}

/* ---- question --------------------------------------------------------------- */

static void numeric_model(struct tui_question_model *m)
{
    *m = (struct tui_question_model){0};
    m->qid = core_xstrdup("core:amdahl.speedup-worked");
    m->title = core_xstrdup("Speedup with 20% serial on 4 processors");
    m->kind_name = core_xstrdup("numeric");
    m->kind = TUI_QK_LINE;
    m->points = 1;
    m->variant = 1;
    m->prompt = core_xstrdup("What speedup does Amdahl's law give on 4 processors?");
    m->unit_hint = core_xstrdup("(a ratio: write it as 2.5 or 2.5x)");
    m->hints = core_xcalloc(2, sizeof *m->hints);
    m->hints[0] = core_xstrdup("f = 0.2 and p = 4.");
    m->hints[1] = core_xstrdup("The denominator is 0.4.");
    m->n_hints = 2;
    tui_input_init(&m->input);
    tui_editor_init(&m->editor);
    m->mode = TUI_Q_TYPE;
}

static void test_question_numeric(void **state)
{
    (void)state;
    struct tui_question_model m;
    numeric_model(&m);
    tui_input_set(&m.input, "4");
    struct tui_canvas c;
    tui_canvas_init(&c, 80, 22, TUI_CS_UTF8);
    struct tui_cursor cur = {0};
    tui_view_question(&m, &c, tui_test_full(&c), &cur);
    ROW(&c, 0, " Speedup with 20% serial on 4 processors                         numeric · 1 pt");
    ROW(&c, 2, " What speedup does Amdahl's law give on 4 processors?");
    ROW(&c, 3, " (a ratio: write it as 2.5 or 2.5x)");
    ROW(&c, 5, " Answer: 4");
    assert_true(cur.on);
    assert_int_equal(cur.y, 5);
    assert_int_equal(cur.x, 10);
    LACKS(&c, "hint 1");
    /* A wrong answer: verdict, what was read, feedback; the interval stays
     * hidden until the student is right or gives up. */
    m.has_result = m.valid = true;
    m.score = 0;
    m.max = 1;
    m.parsed = core_xstrdup("4 ×");
    m.feedback = core_xstrdup("4 is the ideal, linear speedup.");
    m.accepted = core_xstrdup("2.475 to 2.525 ×");
    m.hints_shown = 1;
    m.attempts = core_xcalloc(2, sizeof *m.attempts);
    m.attempts[0] = (struct tui_q_attempt){.answer = core_xstrdup("4"),
                                           .when = core_xstrdup("2026-11-21 10:00"),
                                           .max = 1,
                                           .valid = true};
    m.n_attempts = 1;
    tui_canvas_clear(&c);
    tui_view_question(&m, &c, tui_test_full(&c), &cur);
    ROW(&c, 5, " hint 1: f = 0.2 and p = 4.");
    ROW(&c, 7, " Answer: 4");
    ROW(&c, 8, " ✎ typing: Enter grades, Tab for commands (hint, give up, next)");
    ROW(&c, 10, " ✗ not right: 0/1 point — you answered 4 ×");
    ROW(&c, 11, "   4 is the ideal, linear speedup.");
    ROW(&c, 13, " Attempts (1)");
    ROW(&c, 14, "   #1   ✗ 0/1       2026-11-21 10:00  4");
    LACKS(&c, "accepted");
    /* An instructor's review: its score, and their words on the next line */
    m.attempts[0].reviewed = true;
    m.attempts[0].score = 1;
    m.attempts[0].correct = true;
    m.attempts[0].review = core_xstrdup("reviewed by prof: Name the\nbound.");
    tui_canvas_clear(&c);
    tui_view_question(&m, &c, tui_test_full(&c), &cur);
    ROW(&c, 14, "   #1   ✓ 1/1       2026-11-21 10:00  4");
    ROW(&c, 15, "          reviewed by prof: Name the bound.");
    m.attempts[0].reviewed = m.attempts[0].correct = false;
    m.attempts[0].score = 0;
    free(m.attempts[0].review);
    m.attempts[0].review = NULL;
    /* Right: the accepted interval shows. */
    m.correct = true;
    m.score = 1;
    free(m.feedback);
    m.feedback = core_xstrdup("Correct.");
    tui_canvas_clear(&c);
    tui_view_question(&m, &c, tui_test_full(&c), &cur);
    ROW(&c, 10, " ✓ correct: 1/1 point — you answered 4 ×");
    ROW(&c, 12, "   accepted: 2.475 to 2.525 ×");
    /* Giving up shows it too, with the reference. */
    m.correct = false;
    m.has_result = false;
    m.gave_up = true;
    m.show_solution = true; /* lessons' view.solution: given up at this variant */
    m.reference = core_xstrdup("2.5");
    tui_canvas_clear(&c);
    tui_view_question(&m, &c, tui_test_full(&c), &cur);
    HAS(&c, "   accepted: 2.475 to 2.525 ×");
    HAS(&c, "   solution: 2.5");
    LACKS(&c, "not right");
    /* An unreadable answer is not scored. */
    m.gave_up = false;
    m.has_result = true;
    m.valid = false;
    tui_canvas_clear(&c);
    tui_view_question(&m, &c, tui_test_full(&c), &cur);
    HAS(&c, "? could not read that answer (not scored, not counted)");
    tui_canvas_fini(&c);
    tui_question_model_fini(&m);
}

/* The mode is always on screen: typing (letters are the answer, also after
 * a right answer), commands, the give-up question; a question with no try
 * left offers no answer line; a give-up shows the way to the solution. */
static void test_question_modes(void **state)
{
    (void)state;
    struct tui_question_model m;
    numeric_model(&m);
    tui_input_set(&m.input, "2.5");
    m.has_result = m.valid = m.correct = true;
    m.score = m.max = 1;
    struct tui_canvas c;
    tui_canvas_init(&c, 80, 22, TUI_CS_UTF8);
    struct tui_cursor cur = {0};
    tui_view_question(&m, &c, tui_test_full(&c), &cur);
    HAS(&c, "✎ typing: Enter grades, Tab for commands");
    assert_true(cur.on);
    m.mode = TUI_Q_KEYS;
    m.has_params = true;
    tui_canvas_clear(&c);
    tui_view_question(&m, &c, tui_test_full(&c), &cur);
    HAS(&c, "commands: i type · h hint · g give up · n next · N unanswered · v new variant");
    m.mode = TUI_Q_CONFIRM;
    tui_canvas_clear(&c);
    tui_view_question(&m, &c, tui_test_full(&c), &cur);
    HAS(&c, "give up and see the solution? y/n");
    /* closed: no answer line; the solution and how to get there */
    m.mode = TUI_Q_KEYS;
    m.closed = true;
    m.has_result = false;
    m.reference = core_xstrdup("2.5");
    m.hints_shown = 0;
    /* A new variant of a closed question is practice: it takes an answer,
     * and its solution waits for it. */
    m.practice = true;
    assert_false(tui_question_locked(&m));
    tui_canvas_clear(&c);
    tui_view_question(&m, &c, tui_test_full(&c), &cur);
    LACKS(&c, "solution: 2.5");
    LACKS(&c, "how to get there:");
    m.practice = false;
    m.show_solution = true; /* the variant answered: its solution */
    assert_true(tui_question_locked(&m));
    tui_canvas_clear(&c);
    tui_view_question(&m, &c, tui_test_full(&c), &cur);
    LACKS(&c, "Answer:");
    HAS(&c, "Closed: no tries left; the solution is below");
    HAS(&c, "commands: n next question · N next unanswered · v new variant (practice)");
    HAS(&c, "solution: 2.5");
    HAS(&c, "how to get there:");
    HAS(&c, "1. f = 0.2 and p = 4.");
    /* an exam answer given (its one try used): recorded, no line, no grade */
    m.closed = true;
    m.exam_open = true;
    m.n_attempts = 0;
    m.attempts = core_xcalloc(1, sizeof *m.attempts);
    m.attempts[0] = (struct tui_q_attempt){.answer = core_xstrdup("2.5"),
                                           .when = core_xstrdup("2026-11-21 10:00"),
                                           .max = 1,
                                           .valid = true,
                                           .hidden = true};
    m.n_attempts = 1;
    assert_true(tui_question_locked(&m));
    tui_canvas_clear(&c);
    tui_view_question(&m, &c, tui_test_full(&c), &cur);
    HAS(&c, "Answered: your answer is recorded; it is graded when you submit the exam");
    LACKS(&c, "Answer:");
    LACKS(&c, "solution:");
    tui_canvas_fini(&c);
    tui_question_model_fini(&m);
}

static void choice_model(struct tui_question_model *m, enum tui_q_kind kind)
{
    numeric_model(m);
    m->kind = kind;
    free(m->unit_hint);
    m->unit_hint = NULL;
    m->n_choices = 3;
    m->choices = core_xcalloc(3, sizeof *m->choices);
    m->choices[0] = core_xstrdup("1/f");
    m->choices[1] = core_xstrdup("p");
    m->choices[2] = core_xstrdup("f·p");
    m->picked = core_xcalloc(3, sizeof *m->picked);
    m->order = core_xcalloc(3, sizeof *m->order);
    for (size_t i = 0; i < 3; i++)
        m->order[i] = i;
    m->mode = TUI_Q_PICK;
}

static void test_question_choices(void **state)
{
    (void)state;
    struct tui_question_model m;
    choice_model(&m, TUI_QK_CHOICE);
    char *ans = tui_question_pick_answer(&m);
    assert_string_equal(ans, "");
    free(ans);
    m.picked[1] = true;
    m.csel = 1;
    ans = tui_question_pick_answer(&m);
    assert_string_equal(ans, "b");
    free(ans);
    struct tui_canvas c;
    tui_canvas_init(&c, 80, 22, TUI_CS_UTF8);
    struct tui_cursor cur = {0};
    tui_view_question(&m, &c, tui_test_full(&c), &cur);
    ROW(&c, 4, "   ( )  a)  1/f");
    ROW(&c, 5, " ▶ (•)  b)  p");
    ROW(&c, 6, "   ( )  c)  f·p");
    assert_false(cur.on);
    tui_canvas_fini(&c);
    tui_question_model_fini(&m);

    choice_model(&m, TUI_QK_MULTI);
    m.picked[0] = m.picked[2] = true;
    ans = tui_question_pick_answer(&m);
    assert_string_equal(ans, "a c");
    free(ans);
    tui_canvas_init(&c, 80, 22, TUI_CS_ASCII);
    tui_view_question(&m, &c, tui_test_full(&c), &cur);
    ROW(&c, 4, " > [x]  a)  1/f");
    ROW(&c, 5, "   [ ]  b)  p");
    tui_canvas_fini(&c);
    tui_question_model_fini(&m);

    /* Ordering: the answer is the letters in the order shown now. */
    choice_model(&m, TUI_QK_ORDER);
    m.order[0] = 2;
    m.order[1] = 0;
    m.order[2] = 1;
    ans = tui_question_pick_answer(&m);
    assert_string_equal(ans, "c a b");
    free(ans);
    m.holding = true;
    tui_canvas_init(&c, 80, 22, TUI_CS_UTF8);
    tui_view_question(&m, &c, tui_test_full(&c), &cur);
    ROW(&c, 4, " ↕ 1.   c)  f·p");
    ROW(&c, 5, "   2.   a)  1/f");
    ROW(&c, 6, "   3.   b)  p");
    tui_canvas_fini(&c);
    tui_question_model_fini(&m);
}

/* The mode a question is left in is settled by its controller
 * (tui_question_settle), never while it is drawn: drawing leaves the model's
 * mode as it was. */
static void test_question_settle(void **state)
{
    (void)state;
    struct tui_question_model m;
    choice_model(&m, TUI_QK_CHOICE);
    struct tui_canvas c;
    tui_canvas_init(&c, 80, 22, TUI_CS_UTF8);
    struct tui_cursor cur = {0};
    m.mode = TUI_Q_KEYS;
    tui_view_question(&m, &c, tui_test_full(&c), &cur);
    assert_int_equal(m.mode, TUI_Q_KEYS); /* drawing changed nothing */
    tui_question_settle(&m);
    assert_int_equal(m.mode, TUI_Q_PICK); /* a pick list has no command mode */
    tui_question_settle(&m);
    assert_int_equal(m.mode, TUI_Q_PICK);
    m.mode = TUI_Q_KEYS; /* closed: the keys, no list to pick from */
    m.closed = true;
    m.show_solution = true;
    assert_true(tui_question_locked(&m));
    tui_question_settle(&m);
    assert_int_equal(m.mode, TUI_Q_KEYS);
    tui_question_model_fini(&m);
    numeric_model(&m); /* an answer line keeps its command mode */
    m.mode = TUI_Q_KEYS;
    tui_question_settle(&m);
    assert_int_equal(m.mode, TUI_Q_KEYS);
    tui_question_model_fini(&m);
    tui_canvas_fini(&c);
}

static void test_question_design(void **state)
{
    (void)state;
    struct tui_question_model m;
    numeric_model(&m);
    m.kind = TUI_QK_DESIGN;
    free(m.kind_name);
    m.kind_name = core_xstrdup("design");
    free(m.unit_hint);
    m.unit_hint = NULL;
    m.mode = TUI_Q_EDIT;
    tui_editor_set(&m.editor, "Shard the parameters\nacross servers.");
    struct tui_canvas c;
    tui_canvas_init(&c, 80, 22, TUI_CS_UTF8);
    struct tui_cursor cur = {0};
    tui_view_question(&m, &c, tui_test_full(&c), &cur);
    HAS(&c, "your answer (Ctrl-S submits)");
    HAS(&c, "│Shard the parameters");
    HAS(&c, "│across servers.");
    assert_true(cur.on);
    tui_canvas_fini(&c);
    /* Self-scoring before the grade. */
    m.n_rubric = 2;
    m.rubric = core_xcalloc(2, sizeof *m.rubric);
    m.rubric[0] = core_xstrdup("sharding");
    m.rubric[1] = core_xstrdup("staleness");
    m.rubric_points = core_xcalloc(2, sizeof *m.rubric_points);
    m.rubric_points[0] = 2;
    m.rubric_points[1] = 1;
    m.self = core_xcalloc(2, sizeof *m.self);
    m.self[0] = 1.5;
    m.mode = TUI_Q_RUBRIC;
    tui_canvas_init(&c, 80, 40, TUI_CS_UTF8);
    tui_view_question(&m, &c, tui_test_full(&c), &cur);
    HAS(&c, "Score your answer on each point before you see the grade:");
    HAS(&c, "    1.5 / 2     sharding");
    HAS(&c, "      0 / 1     staleness");
    tui_canvas_fini(&c);
    tui_question_model_fini(&m);
}

static void test_question_certainty(void **state)
{
    (void)state;
    struct tui_question_model m;
    numeric_model(&m);
    m.cbm = true;
    m.mode = TUI_Q_CERTAINTY;
    struct tui_canvas c;
    tui_canvas_init(&c, 80, 22, TUI_CS_UTF8);
    struct tui_cursor cur = {0};
    tui_view_question(&m, &c, tui_test_full(&c), &cur);
    HAS(&c, "How sure are you?  1 not sure   2 fairly sure   3 very sure");
    /* After grading: the CBM mark as the logic computed it. */
    m.mode = TUI_Q_KEYS;
    m.has_result = m.valid = true;
    m.score = 0;
    m.max = 1;
    m.certainty = 3;
    m.cbm_mark = -6;
    m.feedback = core_xstrdup("No.");
    tui_canvas_clear(&c);
    tui_view_question(&m, &c, tui_test_full(&c), &cur);
    HAS(&c, "certainty 3: mark -6 (of 3)");
    tui_canvas_fini(&c);
    tui_question_model_fini(&m);
}

/* ---- editor ----------------------------------------------------------------- */

static void type(struct tui_editor *e, const char *s)
{
    for (const char *p = s; *p;) {
        size_t len;
        uint32_t cp = tui_utf8_next(p, &len);
        tui_editor_key(e, cp == '\n' ? TUI_K_ENTER : (int)cp);
        p += len;
    }
}

static void test_editor(void **state)
{
    (void)state;
    struct tui_editor e;
    tui_editor_init(&e);
    type(&e, "one two three four\nfünf");
    assert_string_equal(e.text.data, "one two three four\nfünf");
    struct tui_canvas c;
    tui_canvas_init(&c, 12, 4, TUI_CS_UTF8);
    struct tui_cursor cur = {0};
    /* Wrapped on spaces at 11 columns (one column kept for the cursor). */
    tui_editor_draw(&c, tui_test_full(&c), &e, TUI_ST(0, 0), &cur);
    ROW(&c, 0, "one two");
    ROW(&c, 1, "three four");
    ROW(&c, 2, "fünf");
    assert_int_equal(cur.y, 2);
    assert_int_equal(cur.x, 4);
    /* Up keeps the column; Backspace deletes a whole character. */
    tui_editor_key(&e, TUI_K_UP);
    tui_editor_key(&e, TUI_K_BACKSPACE);
    assert_string_equal(e.text.data, "one two thre four\nfünf");
    tui_editor_key(&e, TUI_K_END);
    tui_editor_key(&e, TUI_K_DOWN);
    tui_editor_key(&e, TUI_K_BACKSPACE);
    assert_string_equal(e.text.data, "one two thre four\nfün");
    tui_editor_key(&e, TUI_K_LEFT);
    tui_editor_key(&e, TUI_K_BACKSPACE);
    assert_string_equal(e.text.data, "one two thre four\nfn");
    tui_editor_key(&e, TUI_K_CTRL_U);
    assert_string_equal(e.text.data, "one two thre four\nn");
    tui_editor_key(&e, TUI_K_BACKSPACE);
    assert_string_equal(e.text.data, "one two thre fourn");
    tui_editor_key(&e, TUI_K_HOME);
    tui_editor_key(&e, TUI_K_DELETE);
    assert_string_equal(e.text.data, "ne two thre fourn");
    /* Many lines scroll to keep the cursor in view. */
    tui_editor_set(&e, "");
    type(&e, "1\n2\n3\n4\n5\n6");
    tui_canvas_clear(&c);
    tui_editor_draw(&c, tui_test_full(&c), &e, TUI_ST(0, 0), &cur);
    ROW(&c, 0, "3");
    ROW(&c, 3, "6");
    assert_int_equal(cur.y, 3);
    /* Control codes are not text. */
    assert_false(tui_editor_key(&e, 7));
    tui_canvas_fini(&c);
    tui_editor_fini(&e);
}

/* ---- lab -------------------------------------------------------------------- */

static void lab_model(struct tui_lab_model *m)
{
    *m = (struct tui_lab_model){0};
    tui_input_init(&m->edit);
    m->n_labs = 2;
    m->labs = core_xcalloc(2, sizeof *m->labs);
    m->labs[0] = (struct tui_lab_item){core_xstrdup("amdahl"), core_xstrdup("Amdahl speedup"),
                                       core_xstrdup("serial fraction f, p workers")};
    m->labs[1] =
        (struct tui_lab_item){core_xstrdup("selftest"), core_xstrdup("Framework self-test"),
                              core_xstrdup("a wave and a ramp")};
    m->lsel = 1;
    m->lab_name = core_xstrdup("selftest");
    m->lab_title = core_xstrdup("Framework self-test");
    m->n_fields = 2;
    m->fields = core_xcalloc(2, sizeof *m->fields);
    m->fields[0] = (struct tui_form_field){core_xstrdup("steps"), core_xstrdup("20"),
                                           core_xstrdup("1 to 1000000"),
                                           core_xstrdup("how many steps to run")};
    m->fields[1] = (struct tui_form_field){core_xstrdup("wave"), core_xstrdup("sine"),
                                           core_xstrdup("sine|square|triangle"),
                                           core_xstrdup("shape of the wave series")};
}

static void add_series(struct tui_lab_model *m, const char *name, const char *chart, size_t n)
{
    m->series = core_xrealloc(m->series, (m->n_series + 1) * sizeof *m->series);
    struct tui_lab_series *s = &m->series[m->n_series++];
    *s = (struct tui_lab_series){.name = core_xstrdup(name),
                                 .label = core_xstrdup(name),
                                 .unit = core_xstrdup(""),
                                 .chart = core_xstrdup(chart),
                                 .x_label = core_xstrdup("step")};
    for (size_t i = 0; i < n; i++)
        tui_lab_series_push(s, (double)(i + 1), sin((double)i / 3.0));
}

static void assert_points(const struct tui_lab_series *s, const double *xy, size_t n)
{
    assert_int_equal(s->n, n);
    for (size_t i = 0; i < n; i++) {
        assert_true(s->x[i] == xy[2 * i]);
        assert_true(s->y[i] == xy[2 * i + 1]);
    }
}

/* A snapshot series (bars per worker, a histogram so far) keeps the latest
 * value per step, in step order; a normal one keeps every sample. The model
 * copy (what the UI thread draws) follows the lab thread's series both
 * ways: appended points, and snapshot points changed in place. */
static void test_lab_snapshot_series(void **state)
{
    (void)state;
    struct tui_lab_series snap = {.snapshot = true}, line = {0};
    const double feed[][2] = {{1, 5}, {2, 7}, {1, 9}};
    for (size_t i = 0; i < 3; i++) {
        tui_lab_series_add(&snap, feed[i][0], feed[i][1]);
        tui_lab_series_add(&line, feed[i][0], feed[i][1]);
    }
    assert_points(&snap, (const double[]){1, 9, 2, 7}, 2);
    assert_points(&line, (const double[]){1, 5, 2, 7, 1, 9}, 3);

    /* steps arriving out of order go in their place; the ends too */
    tui_lab_series_add(&snap, 0, 4);
    tui_lab_series_add(&snap, 5, 1);
    tui_lab_series_add(&snap, 3, 6);
    tui_lab_series_add(&snap, 0, 8);
    tui_lab_series_add(&snap, 5, 2);
    assert_points(&snap, (const double[]){0, 8, 1, 9, 2, 7, 3, 6, 5, 2}, 5);

    /* the model copy, brought up to date twice */
    struct tui_lab_series msnap = {.snapshot = true}, mline = {0};
    tui_lab_series_sync(&msnap, &snap);
    tui_lab_series_sync(&mline, &line);
    assert_points(&msnap, (const double[]){0, 8, 1, 9, 2, 7, 3, 6, 5, 2}, 5);
    assert_points(&mline, (const double[]){1, 5, 2, 7, 1, 9}, 3);
    tui_lab_series_add(&snap, 2, 3);
    tui_lab_series_add(&snap, 4, 1);
    tui_lab_series_add(&line, 2, 3);
    tui_lab_series_sync(&msnap, &snap);
    tui_lab_series_sync(&mline, &line);
    assert_points(&msnap, (const double[]){0, 8, 1, 9, 2, 3, 3, 6, 4, 1, 5, 2}, 6);
    assert_points(&mline, (const double[]){1, 5, 2, 7, 1, 9, 2, 3}, 4);
    free(snap.x);
    free(snap.y);
    free(line.x);
    free(line.y);
    free(msnap.x);
    free(msnap.y);
    free(mline.x);
    free(mline.y);
}

static void test_lab_list_form(void **state)
{
    (void)state;
    struct tui_lab_model m;
    lab_model(&m);
    struct tui_canvas c;
    tui_canvas_init(&c, 80, 22, TUI_CS_UTF8);
    struct tui_cursor cur = {0};
    m.phase = TUI_LAB_LIST;
    tui_view_lab(&m, &c, tui_test_full(&c), &cur);
    ROW(&c, 2, "   amdahl         Amdahl speedup");
    ROW(&c, 3, "                  serial fraction f, p workers");
    ROW(&c, 4, " ▶ selftest       Framework self-test");
    m.phase = TUI_LAB_FORM;
    m.fsel = 1;
    tui_canvas_clear(&c);
    tui_view_lab(&m, &c, tui_test_full(&c), &cur);
    ROW(&c, 0, " Framework self-test");
    ROW(&c, 2, "   parameter        value             allowed");
    ROW(&c, 3, "   steps            20                1 to 1000000");
    ROW(&c, 4, " ▶ wave             sine              sine|square|triangle");
    ROW(&c, 5, "   [ start the run ]");
    ROW(&c, 19, " shape of the wave series");
    assert_false(cur.on);
    /* Editing: the input and its cursor; an error replaces the help. */
    m.fsel = 0;
    m.editing = true;
    tui_input_set(&m.edit, "0");
    m.error = core_xstrdup("steps must be from 1 to 1000000");
    tui_canvas_clear(&c);
    tui_view_lab(&m, &c, tui_test_full(&c), &cur);
    ROW(&c, 3, " ▶ steps            0                 1 to 1000000");
    ROW(&c, 19, " steps must be from 1 to 1000000");
    assert_true(cur.on);
    assert_int_equal(cur.y, 3);
    assert_int_equal(cur.x, 21);
    tui_canvas_fini(&c);
    tui_lab_model_fini(&m);
}

static void test_lab_run_done(void **state)
{
    (void)state;
    struct tui_lab_model m;
    lab_model(&m);
    m.phase = TUI_LAB_RUN;
    m.status = core_xstrdup("running");
    m.progress = 0.5;
    m.progress_what = core_xstrdup("step 10 of 20");
    m.elapsed = 1.25;
    struct tui_canvas c;
    tui_canvas_init(&c, 80, 22, TUI_CS_UTF8);
    struct tui_cursor cur = {0};
    tui_view_lab(&m, &c, tui_test_full(&c), &cur);
    HAS(&c, "waiting for the first samples...");
    add_series(&m, "wave", "signal", 10);
    add_series(&m, "ramp", "signal", 10);
    add_series(&m, "workers", "workers", 10);
    m.logs = core_xcalloc(1, sizeof *m.logs);
    m.logs[0] = core_xstrdup("started 2 worker processes");
    m.n_logs = 1;
    tui_canvas_clear(&c);
    tui_view_lab(&m, &c, tui_test_full(&c), &cur);
    ROW(&c, 0, " selftest  running  ██████████░░░░░░░░░░  50%  step 10 of 20              1.2 s");
    HAS(&c, "signal");
    HAS(&c, "workers");
    HAS(&c, "│ started 2 worker processes");
    /* What the run does now, cut with "…" where it meets the time ("copy at
     * the exercise's siz" had no mark). */
    free(m.progress_what);
    m.progress_what = core_xstrdup("copy at the exercise's size, then at four times the LLC");
    tui_canvas_clear(&c);
    tui_view_lab(&m, &c, tui_test_full(&c), &cur);
    ROW(&c, 0, " selftest  running  ██████████░░░░░░░░░░  50%  copy at the exercise's si… 1.2 s");
    free(m.progress_what);
    m.progress_what = core_xstrdup("step 10 of 20");
    tui_canvas_clear(&c);
    tui_view_lab(&m, &c, tui_test_full(&c), &cur);
    /* Two chart groups side by side: both titles on the first chart row. */
    char *r1 = tui_test_row(&c, 1);
    assert_non_null(strstr(r1, "signal"));
    assert_non_null(strstr(r1, "workers"));
    free(r1);
    /* Done: figures and the questions that use the run. */
    m.phase = TUI_LAB_DONE;
    free(m.status);
    m.status = core_xstrdup("done");
    m.progress = 0.8; /* a lab whose last report was 80%: done is 100% */
    m.run_id = 12;
    m.n_figs = 1;
    m.figs = core_xcalloc(1, sizeof *m.figs);
    m.figs[0] = (struct tui_lab_fig){core_xstrdup("steps completed"), core_xstrdup("20")};
    m.n_qs = 1;
    m.qs = core_xcalloc(1, sizeof *m.qs);
    m.qs[0] =
        (struct tui_lab_q){core_xstrdup("core:x"), core_xstrdup("Your measured speedup"), false};
    tui_canvas_clear(&c);
    tui_view_lab(&m, &c, tui_test_full(&c), &cur);
    HAS(&c, " selftest  done (run 12 recorded) ");
    HAS(&c, "████████████████████ 100%");
    HAS(&c, "│ steps completed                          20 │");
    HAS(&c, "│ · Your measured speedup");
    HAS(&c, "questions using this run");
    /* Charts keep a readable height on the summary at 80×24 (22 body rows):
     * the two charts share one row of ten. */
    int plot_rows = 0;
    for (int y = 1; y < 22; y++) {
        char *row = tui_test_row(&c, y);
        plot_rows += strstr(row, "┤") != NULL || strstr(row, "│ ") == row + 3;
        free(row);
    }
    assert_true(plot_rows >= 7);
    tui_canvas_fini(&c);
    tui_lab_model_fini(&m);
}

/* The finished run at 80×24 and 200×50: forty results scroll in a table
 * whose box says which rows show, long labels end with "…", values are the
 * model's (formatted for people by the screen); a noisy run and the CPU
 * analog say so under the header. */
static void test_lab_results_table(void **state)
{
    (void)state;
    struct tui_lab_model m;
    lab_model(&m);
    m.phase = TUI_LAB_DONE;
    m.status = core_xstrdup("done");
    m.progress = 1;
    add_series(&m, "speedup", "speedup", 4);
    free(m.series[0].chart_title);
    m.series[0].chart_title = core_xstrdup("speedup against workers p");
    enum { N = 40 };
    m.n_figs = N;
    m.figs = core_xcalloc(N, sizeof *m.figs);
    for (int i = 0; i < N; i++) {
        char l[96], v[32];
        snprintf(l, sizeof l,
                 i == 0 ? "L1 data cache of the first core, as the kernel reports it"
                        : "figure number %d",
                 i + 1);
        snprintf(v, sizeof v, i == 0 ? "32 KiB" : "%d.5 ×", i + 1);
        m.figs[i] = (struct tui_lab_fig){core_xstrdup(l), core_xstrdup(v)};
    }
    m.note = core_xstrdup("no GPU: no CUDA device found — running the model and the CPU analog");
    m.noise = core_xstrdup("measured under load: other programs used 48% of the CPUs it ran on");
    struct tui_canvas c;
    tui_canvas_init(&c, 80, 22, TUI_CS_UTF8);
    struct tui_cursor cur = {0};
    tui_view_lab(&m, &c, tui_test_full(&c), &cur);
    HAS(&c, "⚠ no GPU: no CUDA device found — running the model and the CPU analog");
    HAS(&c, "⚠ r runs it again — measured under load");
    HAS(&c, "speedup against workers p");
    LACKS(&c, "speedup (");
    HAS(&c, "│ L1 data cache of the first core, as… 32 KiB │");
    HAS(&c, "results 1–");
    LACKS(&c, "figure number 40");
    /* scrolled to the end: the last rows, and where they are */
    int rows = m.fig_rows;
    assert_true(rows >= 4);
    m.ftop = 1000; /* clamped */
    tui_canvas_clear(&c);
    tui_view_lab(&m, &c, tui_test_full(&c), &cur);
    assert_int_equal(m.ftop, N - rows);
    HAS(&c, "40.5 × │");
    HAS(&c, "│ figure number 40");
    char want[48];
    snprintf(want, sizeof want, "results %d–40 of 40", N - rows + 1);
    HAS(&c, want);
    LACKS(&c, "L1 data cache");
    /* 200×50: the whole page of charts and many more rows */
    tui_canvas_fini(&c);
    tui_canvas_init(&c, 200, 48, TUI_CS_UTF8);
    m.ftop = 0;
    tui_view_lab(&m, &c, tui_test_full(&c), &cur);
    assert_true(m.fig_rows >= 18);
    HAS(&c, "L1 data cache of the first core, as the kernel reports it");
    tui_canvas_fini(&c);
    tui_lab_model_fini(&m);
}

/* Seven chart groups (the paramserver lab's): four to a page, a line saying
 * which, the page clamped to the last; on the summary only groups with
 * samples count. */
static void test_lab_chart_pages(void **state)
{
    (void)state;
    static const char *const charts[] = {
        "loss vs steps",       "loss vs wall time",   "time per step", "updates per second",
        "wire MB/s per shard", "staleness histogram", "per worker"};
    struct tui_lab_model m;
    lab_model(&m);
    m.phase = TUI_LAB_RUN;
    m.status = core_xstrdup("running");
    m.progress_what = core_xstrdup("step 3 of 30");
    for (size_t i = 0; i < 7; i++)
        add_series(&m, charts[i], charts[i], i == 5 ? 0 : 12); /* no staleness yet */
    add_series(&m, "comm", "time per step", 12);               /* a second line, same chart */
    assert_int_equal(tui_lab_chart_count(&m), 7);
    assert_int_equal(tui_lab_chart_pages(&m), 2);
    struct tui_canvas c;
    tui_canvas_init(&c, 80, 22, TUI_CS_UTF8);
    struct tui_cursor cur = {0};
    tui_view_lab(&m, &c, tui_test_full(&c), &cur);
    char *r1 = tui_test_row(&c, 1);
    assert_non_null(strstr(r1, "charts 1–4 of 7 · ] next"));
    free(r1);
    for (size_t i = 0; i < 7; i++)
        tui_test_check_has(&c, charts[i], i < 4, __LINE__);
    /* The first row of charts under the page line: two titles side by side. */
    char *r2 = tui_test_row(&c, 2);
    assert_non_null(strstr(r2, "loss vs steps"));
    assert_non_null(strstr(r2, "loss vs wall time"));
    free(r2);

    m.chart_page = 1;
    tui_canvas_clear(&c);
    tui_view_lab(&m, &c, tui_test_full(&c), &cur);
    r1 = tui_test_row(&c, 1);
    assert_non_null(strstr(r1, "charts 5–7 of 7 · [ prev"));
    assert_null(strstr(r1, "next"));
    free(r1);
    for (size_t i = 0; i < 7; i++)
        tui_test_check_has(&c, charts[i], i >= 4, __LINE__);
    HAS(&c, "waiting for data"); /* the staleness histogram, empty while running */

    /* A page past the end draws the last one. */
    m.chart_page = 9;
    tui_canvas_clear(&c);
    tui_view_lab(&m, &c, tui_test_full(&c), &cur);
    HAS(&c, "charts 5–7 of 7");

    /* Summary: the empty group is left out, 6 charts remain; ASCII glyphs. */
    m.phase = TUI_LAB_DONE;
    free(m.status);
    m.status = core_xstrdup("done");
    assert_int_equal(tui_lab_chart_count(&m), 6);
    tui_canvas_fini(&c);
    tui_canvas_init(&c, 80, 22, TUI_CS_ASCII);
    m.chart_page = 1;
    tui_view_lab(&m, &c, tui_test_full(&c), &cur);
    HAS(&c, "charts 5-6 of 6 - [ prev");
    HAS(&c, "wire MB/s per shard");
    HAS(&c, "per worker");
    LACKS(&c, "staleness histogram");
    LACKS(&c, "loss vs steps");
    /* Three on a page with more after: both directions. */
    for (size_t i = 0; i < 3; i++) {
        char name[16];
        snprintf(name, sizeof name, "extra %zu", i + 1);
        add_series(&m, name, name, 4);
    }
    /* The summary at 80×24 shows two charts a page (to keep them tall),
     * starting from the first chart that was shown. */
    tui_canvas_clear(&c);
    tui_view_lab(&m, &c, tui_test_full(&c), &cur);
    assert_int_equal(m.per_page, 2);
    HAS(&c, "charts 5-6 of 9 - [ prev  ] next");
    m.chart_page = 4;
    tui_canvas_clear(&c);
    tui_view_lab(&m, &c, tui_test_full(&c), &cur);
    HAS(&c, "chart 9 of 9 - [ prev");
    HAS(&c, "extra 3");
    tui_canvas_fini(&c);
    tui_lab_model_fini(&m);
}

/* Eight shards on one chart: every one in the legend (colours cycle). */
static void test_lab_chart_many_series(void **state)
{
    (void)state;
    struct tui_lab_model m;
    lab_model(&m);
    m.phase = TUI_LAB_DONE;
    m.status = core_xstrdup("done");
    for (int i = 1; i <= 8; i++) {
        char name[16];
        snprintf(name, sizeof name, "s%d", i);
        add_series(&m, name, "wire", 6);
    }
    add_series(&m, "s9", "wire", 0); /* a shard the run did not have */
    assert_int_equal(tui_lab_chart_pages(&m), 1);
    struct tui_canvas c;
    tui_canvas_init(&c, 160, 40, TUI_CS_UTF8);
    struct tui_cursor cur = {0};
    tui_view_lab(&m, &c, tui_test_full(&c), &cur);
    HAS(&c, "s1");
    HAS(&c, "s8");
    LACKS(&c, "s9");
    LACKS(&c, "of 1"); /* one page: no page line */
    tui_canvas_fini(&c);
    tui_lab_model_fini(&m);
}

/* ---- progress --------------------------------------------------------------- */

static struct db_progress_row prow(const char *lesson, const char *topics, double pts, double best,
                                   bool answered)
{
    return (struct db_progress_row){.pack_id = (char *)"core",
                                    .lesson_id = (char *)lesson,
                                    .question_id = (char *)"q",
                                    .topics = (char *)topics,
                                    .rubric = (char *)"",
                                    .points = pts,
                                    .attempts = answered,
                                    .best = best,
                                    .answered = answered};
}

static void test_progress_tally(void **state)
{
    (void)state;
    struct db_progress_row rows[] = {
        prow("amdahl", "amdahl, speedup", 1, 1, true),
        prow("amdahl", "amdahl", 2, 0.5, true),
        prow("memory", "cache", 1, 0, false),
    };
    struct db_lesson ls[] = {{.pack_id = (char *)"core",
                              .id = (char *)"amdahl",
                              .title = (char *)"Amdahl's law",
                              .n_pages = 1,
                              .n_questions = 2}};
    struct tui_progress_model m = {0};
    tui_progress_tally(&m, rows, 3, ls, 1);
    assert_int_equal(m.questions, 3);
    assert_int_equal(m.answered, 2);
    assert_true(fabs(m.score - 1.5) < 1e-9);
    assert_true(fabs(m.max - 4) < 1e-9);
    assert_int_equal(m.lessons.n, 2);
    assert_string_equal(m.lessons.v[0].name, "Amdahl's law");
    assert_string_equal(m.lessons.v[1].name, "core:memory"); /* no title known */
    assert_int_equal(m.lessons.v[0].questions, 2);
    assert_int_equal(m.lessons.v[0].answered, 2);
    assert_int_equal(m.topics.n, 3);
    assert_string_equal(m.topics.v[0].name, "amdahl");
    assert_int_equal(m.topics.v[0].questions, 2);
    assert_string_equal(m.topics.v[1].name, "speedup"); /* spaces around names trimmed */
    assert_string_equal(m.topics.v[2].name, "cache");

    m.course = 42.5;
    m.level = core_xstrdup("review");
    m.level_meaning = core_xstrdup("review the course material before going on");
    struct tui_canvas c;
    tui_canvas_init(&c, 80, 22, TUI_CS_UTF8);
    tui_view_progress(&m, &c, tui_test_full(&c));
    ROW(&c, 0, " Course rubric: 42.5 / 100   level: review");
    ROW(&c, 1, "   (review the course material before going on)");
    ROW(&c, 2, " 2 of 3 questions answered · score 1.5 of 4.0 (38%)");
    ROW(&c, 3, " No self-assessment yet: press s to rate yourself on the rubric.");
    HAS(&c, " 1 lessons ");
    HAS(&c, " ▶ Amdahl's law                           2/2      1.5/3.0    █████░░░░░   50%");
    HAS(&c, "50%");
    /* The rubric tab with a self-rating against the graded score. */
    m.tab = 2;
    m.n_items = 1;
    m.items = core_xcalloc(1, sizeof *m.items);
    m.items[0] = (struct tui_prog_item){core_xstrdup("theory.parallel"),
                                        core_xstrdup("distributed training"),
                                        10,
                                        4,
                                        3,
                                        2,
                                        true,
                                        8,
                                        core_xstrdup("over-confident"),
                                        6};
    m.n_rated = 1;
    m.n_compared = 1;
    m.self_compared = 8;
    m.graded_compared = 4;
    m.max_compared = 10;
    m.calibration = core_xstrdup("over-confident");
    tui_canvas_clear(&c);
    tui_view_progress(&m, &c, tui_test_full(&c));
    HAS(&c, "Self-rated 8.0, graded 4.0 of 10 on the 1 item you answered: over-confident");
    HAS(&c, " distributed training");
    HAS(&c, " 4.0/10");
    /* the calibration reads against the score on what was answered (6/10),
     * shown beside the score over all the item's questions (4/10) */
    HAS(&c, "4.0/10     6.0/10      8/10 over-confident");
    LACKS(&c, "…");
    /* Rating: an item never rated is not pre-filled with the graded score. */
    m.rating = true;
    m.items[0].rated = false;
    m.rate = core_xcalloc(1, sizeof *m.rate);
    m.rate[0] = NAN;
    tui_canvas_clear(&c);
    tui_view_progress(&m, &c, tui_test_full(&c));
    HAS(&c, "◀    -/10   ▶");
    LACKS(&c, "◀    4/10");
    /* while rating, the graded scores are out of sight (no anchoring) */
    LACKS(&c, "4.0/10");
    LACKS(&c, "graded 4.0");
    LACKS(&c, "42.5");
    tui_canvas_fini(&c);
    tui_progress_model_fini(&m);
}

/* The design review view from a hand-built model: the answer, the rubric
 * with self and reviewer scores, the totals, the comment line. */
static void test_review_view(void **state)
{
    (void)state;
    struct tui_review_model m = {0};
    m.n = 2;
    m.items = core_xcalloc(2, sizeof *m.items);
    for (size_t i = 0; i < 2; i++) {
        struct tui_review_entry *e = &m.items[i];
        e->attempt = 7 + (int64_t)i;
        e->student = core_xstrdup(i ? "s2 (bea)" : "s1 (al)");
        e->question = core_xstrdup("p:design  Scale it");
        e->prompt = core_xstrdup("How would you make a parameter server scale?");
        e->answer = core_xstrdup("Shard the keys across servers.");
        e->points = 2;
        e->auto_valid = true;
        e->auto_score = 1;
        e->auto_feedback = core_xstrdup("Covered: sharding.");
        e->has_self = true;
        e->self_score = 1.5;
        e->reviewed = i == 1;
        e->rv_score = 2;
        e->n_concepts = 2;
        e->concepts = core_xcalloc(2, sizeof *e->concepts);
        e->concepts[0] = (struct tui_review_concept){core_xstrdup("sharding"), 1, 1, 1};
        e->concepts[1] = (struct tui_review_concept){core_xstrdup("asynchrony"), 1, NAN, 0.5};
        tui_input_init(&e->comment);
        tui_input_set(&e->comment, "Good start.");
    }
    assert_true(fabs(tui_review_total(&m.items[0]) - 1.5) < 1e-12);
    struct tui_canvas c;
    tui_canvas_init(&c, 80, 22, TUI_CS_UTF8);
    struct tui_cursor cur = {0};
    tui_view_review(&m, &c, tui_test_full(&c), &cur);
    ROW(&c, 0, " answer 1 of 2 (1 waiting) · p:design  Scale it");
    ROW(&c, 1, " student s1 (al), attempt 7");
    HAS(&c, " question  How would you make a parameter server scale?");
    HAS(&c, " answer    Shard the keys across servers.");
    HAS(&c, " ▶ sharding                                            1      1         1");
    HAS(&c, "   asynchrony                                          1       -      0.5");
    HAS(&c, "   total: yours 1.5 / automatic 1 / self 1.5  (of 2 points)");
    HAS(&c, "   comment: Good start.");
    assert_false(cur.on);
    m.commenting = true;
    m.sel = 1;
    tui_canvas_clear(&c);
    tui_view_review(&m, &c, tui_test_full(&c), &cur);
    HAS(&c, "student s2 (bea), attempt 8  [reviewed]");
    HAS(&c, "saved: 2");
    assert_true(cur.on); /* the cursor in the comment line */
    LACKS(&c, "▶");      /* no concept selected while commenting */
    /* What the grader read: a tag per concept, the selected one's clause
     * and roles below the rubric (in place of the feedback line). */
    struct tui_review_entry *e = &m.items[0];
    e->has_read = true;
    e->read.valid = true;
    e->read.n_claims = 2;
    e->read.claims = core_xcalloc(2, sizeof *e->read.claims);
    e->read.claims[0] = (struct grader_claim_evidence){
        core_xstrdup("sharding"),     1,
        core_xstrdup("contradicted"), core_xstrdup("no servers hold the keys"),
        core_xstrdup("no servers"),   core_xstrdup("hold"),
        core_xstrdup("the keys"),     core_xstrdup("roles swapped")};
    e->read.claims[1] = (struct grader_claim_evidence){
        core_xstrdup("asynchrony"), 1,
        core_xstrdup("unclaimed"),  core_xstrdup("workers went async"),
        core_xstrdup("workers"),    core_xstrdup("went"),
        core_xstrdup("async"),      core_xstrdup("a condition")};
    m.commenting = false;
    m.sel = 0;
    m.csel = 0;
    tui_canvas_clear(&c);
    tui_view_review(&m, &c, tui_test_full(&c), &cur);
    HAS(&c, " ▶ sharding                          contradicted      1      1         1");
    HAS(&c, "   asynchrony                        hedged            1       -      0.5");
    HAS(&c, "   read, sharding: contradicted (roles swapped) — \"no servers hold the keys\"");
    HAS(&c, "     subject \"no servers\"  relation \"hold\"  object \"the keys\"");
    LACKS(&c, "automatic feedback:");
    m.csel = 1;
    tui_canvas_clear(&c);
    tui_view_review(&m, &c, tui_test_full(&c), &cur);
    HAS(&c, "   read, asynchrony: hedged (a condition) — \"workers went async\"");
    tui_review_model_fini(&m);
    tui_canvas_clear(&c);
    tui_view_review(&m, &c, tui_test_full(&c), &cur);
    HAS(&c, "No design answers are waiting for review.");
    tui_canvas_fini(&c);
}

/* The study list (mistakes, search, formulas) from hand-built mistakes:
 * the head, each entry's mark, title, date and detail lines, a long title
 * cut with "…", "N more below/above" as the selection moves, a page of
 * PgDn being the entries the last draw showed; ASCII marks under LANG=C. */
static void test_study_list(void **state)
{
    (void)state;
    enum { N = 8 };
    struct lesson_mistake m[N];
    memset(m, 0, sizeof m);
    char title[N][128];
    for (int i = 0; i < N; i++) {
        snprintf(title[i], sizeof title[i], "Question %d%s", i + 1,
                 i == 1 ? " with a title far too long for one row of the list at eighty "
                          "columns, so it is cut"
                        : "");
        m[i].pack_id = "p";
        m[i].lesson_id = "l";
        m[i].question_id = "q";
        m[i].title = title[i];
        m[i].lesson_title = "Amdahl's law";
        m[i].kind = i == 2 ? LESSON_MISTAKE_GAVE_UP : LESSON_MISTAKE_WRONG;
        m[i].when = "2026-11-21T10:00:00.123Z";
        m[i].answer = i == 0 ? "0.3" : NULL;
        m[i].what = i == 0 ? "Incorrect." : "gave up";
        m[i].retry_variant = 2;
        m[i].exam = i == 3;
        m[i].cleared = i == 4;
    }
    struct tui_study_list l = {0};
    struct tui_study_item *it;
    size_t n;
    tui_mistakes_items(m, N, TUI_CS_UTF8, &it, &n);
    assert_int_equal(n, N);
    tui_study_list_set(&l, it, n);
    l.head = core_xstrdup("7 questions to review");
    struct tui_canvas c;
    tui_canvas_init(&c, 80, 22, TUI_CS_UTF8);
    tui_view_study_list(&l, &c, tui_test_full(&c));
    ROW(&c, 0, " 7 questions to review");
    ROW(&c, 2, " ▶ ✗ Question 1                                                2026-11-21 10:00");
    ROW(&c, 3, "     Amdahl's law");
    ROW(&c, 4, "     you answered 0.3: Incorrect.");
    HAS(&c, "   ✗ Question 2 with a title far too long for one row of the…  2026-11-21 10:00");
    HAS(&c, "   h Question 3");
    HAS(&c, "     Amdahl's law (exam)");
    HAS(&c, "more below (j/k, PgDn)");
    LACKS(&c, "more above");
    assert_true(l.shown >= 3 && l.shown < N);
    size_t page = l.shown;
    assert_true(tui_study_list_action(NULL, &l, TUI_STUDY_A_PGDN));
    assert_int_equal(l.sel, page);
    assert_true(tui_study_list_action(NULL, &l, TUI_STUDY_A_DOWN));
    assert_int_equal(l.sel, page + 1);
    assert_false(tui_study_list_action(NULL, &l, TUI_STUDY_A_OWN));
    for (int i = 0; i < 20; i++)
        tui_study_list_action(NULL, &l, TUI_STUDY_A_DOWN);
    assert_int_equal(l.sel, N - 1);
    tui_canvas_clear(&c);
    tui_view_study_list(&l, &c, tui_test_full(&c));
    HAS(&c, "more above");
    LACKS(&c, "more below");
    HAS(&c, "▶ ✗ Question 8");
    HAS(&c, "   ✓ Question 5");
    HAS(&c, "     Amdahl's law - answered right since");
    tui_study_list_action(NULL, &l, TUI_STUDY_A_PGUP);
    assert_int_equal(l.sel, N - 1 - l.shown);

    /* LANG=C: ASCII marks and arrows */
    tui_mistakes_items(m, N, TUI_CS_ASCII, &it, &n);
    tui_study_list_set(&l, it, n);
    l.sel = l.top = 0;
    tui_canvas_fini(&c);
    tui_canvas_init(&c, 80, 22, TUI_CS_ASCII);
    tui_view_study_list(&l, &c, tui_test_full(&c));
    ROW(&c, 2, " > x Question 1                                                2026-11-21 10:00");
    char more[64];
    snprintf(more, sizeof more, "v %zu more below (j/k, PgDn)", N - l.shown);
    HAS(&c, more);
    HAS(&c, "...");
    tui_study_list_fini(&l);

    /* empty: what the list says */
    l.empty = core_xstrdup("No mistakes to review.");
    tui_canvas_clear(&c);
    tui_view_study_list(&l, &c, tui_test_full(&c));
    ROW(&c, 0, "  No mistakes to review.");
    assert_int_equal(l.shown, 0);
    tui_study_list_fini(&l);
    tui_canvas_fini(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keymap_action),
        cmocka_unit_test(test_frame),
        cmocka_unit_test(test_too_small),
        cmocka_unit_test(test_help_overlay),
        cmocka_unit_test(test_home_view),
        cmocka_unit_test(test_home_search),
        cmocka_unit_test(test_lesson_view),
        cmocka_unit_test(test_lesson_scroll_marker),
        cmocka_unit_test(test_question_numeric),
        cmocka_unit_test(test_question_modes),
        cmocka_unit_test(test_question_choices),
        cmocka_unit_test(test_question_settle),
        cmocka_unit_test(test_question_design),
        cmocka_unit_test(test_question_certainty),
        cmocka_unit_test(test_editor),
        cmocka_unit_test(test_lab_list_form),
        cmocka_unit_test(test_lab_run_done),
        cmocka_unit_test(test_lab_results_table),
        cmocka_unit_test(test_lab_chart_pages),
        cmocka_unit_test(test_lab_chart_many_series),
        cmocka_unit_test(test_lab_snapshot_series),
        cmocka_unit_test(test_progress_tally),
        cmocka_unit_test(test_review_view),
        cmocka_unit_test(test_study_list),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
