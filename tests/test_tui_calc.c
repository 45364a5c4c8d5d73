/*
 * test_tui_calc.c — the TUI's calculator screen without a terminal: the list
 * and the form (inputs, outputs, a diagram in a box, editing, an error,
 * scrolled outputs, ASCII) drawn from hand-built models into an in-memory
 * canvas and compared as text; the lesson reader's row for a calculator;
 * and the pure helpers (value steps, range text, output formatting).
 */
#include "tui_test_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ---------------------------------------------------------------- */

static void add_field(struct tui_calc_model *m, const char *label, const char *value,
                      const char *range, const char *help)
{
    m->fields = core_xrealloc(m->fields, (m->n_fields + 1) * sizeof *m->fields);
    m->fields[m->n_fields++] =
        (struct tui_form_field){core_xstrdup(label), core_xstrdup(value), core_xstrdup(range),
                                help ? core_xstrdup(help) : NULL};
}

static void add_out(struct tui_calc_model *m, const char *label, const char *value,
                    const char *text)
{
    m->outs = core_xrealloc(m->outs, (m->n_outs + 1) * sizeof *m->outs);
    m->outs[m->n_outs++] = (struct tui_calc_out){
        core_xstrdup(label), value ? core_xstrdup(value) : NULL, text ? core_xstrdup(text) : NULL};
}

/* The Amdahl calculator as the screen fills it for f=0.2, p=4, T(1)=100 s. */
static void amdahl_model(struct tui_calc_model *m)
{
    tui_calc_model_init(m);
    m->phase = TUI_CALC_FORM;
    m->title = core_xstrdup("Amdahl and Gustafson");
    m->where = core_xstrdup("core:amdahl.laws · lesson: Amdahl's law");
    add_field(m, "serial fraction f", "0.2", "0 to 1", "share that cannot run in parallel");
    add_field(m, "processors p", "4", "1 to 100000, whole", NULL);
    add_field(m, "one-processor time T(1)", "100 s", "0 to 1000000000", NULL);
    add_out(m, "Amdahl speedup S(p)", "2.5x", NULL);
    add_out(m, "run time T(p)", "40 s", NULL);
    add_out(m, "faster", NULL, "ring");
    add_out(m, "timeline", NULL, "P1 |ssss|pppp|\nP2 |....|pppp|\n");
}

/* ---- list ------------------------------------------------------------------- */

static void test_list_view(void **state)
{
    (void)state;
    struct tui_calc_model m;
    tui_calc_model_init(&m);
    m.phase = TUI_CALC_LIST;
    const char *t[][2] = {{"Amdahl and Gustafson", "Amdahl's law"},
                          {"Roofline", "Memory hierarchy"},
                          {"KV cache size", "Distributed training"}};
    m.items = core_xcalloc(3, sizeof *m.items);
    for (size_t i = 0; i < 3; i++)
        m.items[m.n_items++] = (struct tui_calc_item){core_xasprintf("core:c%zu", i),
                                                      core_xstrdup(t[i][0]), core_xstrdup(t[i][1])};
    m.isel = 1;
    struct tui_canvas c;
    tui_canvas_init(&c, 80, 22, TUI_CS_UTF8);
    struct tui_cursor cur = {0};
    tui_view_calc(&m, &c, tui_test_full(&c), &cur);
    ROW(&c, 0, " Calculators from the lessons: change the inputs, the outputs follow at once.");
    ROW(&c, 2, "   calculator                            lesson");
    ROW(&c, 3, "   Amdahl and Gustafson                  Amdahl's law");
    ROW(&c, 4, " ▶ Roofline                              Memory hierarchy");
    ROW(&c, 5, "   KV cache size                         Distributed training");
    assert_false(cur.on);
    /* The selection scrolls into view in a short body. */
    m.isel = 2;
    tui_canvas_resize(&c, 80, 5);
    tui_view_calc(&m, &c, tui_test_full(&c), &cur);
    ROW(&c, 3, "   Roofline                              Memory hierarchy");
    ROW(&c, 4, " ▶ KV cache size                         Distributed training");
    assert_int_equal(m.itop, 1);
    tui_canvas_fini(&c);
    tui_calc_model_fini(&m);

    /* No calculators at all. */
    tui_calc_model_init(&m);
    tui_canvas_init(&c, 80, 22, TUI_CS_UTF8);
    tui_view_calc(&m, &c, tui_test_full(&c), &cur);
    HAS(&c, "no calculators in the installed packs");
    tui_canvas_fini(&c);
    tui_calc_model_fini(&m);
}

/* ---- form ------------------------------------------------------------------- */

static void test_form_view(void **state)
{
    (void)state;
    struct tui_calc_model m;
    amdahl_model(&m);
    struct tui_canvas c;
    tui_canvas_init(&c, 80, 22, TUI_CS_UTF8);
    struct tui_cursor cur = {0};
    tui_view_calc(&m, &c, tui_test_full(&c), &cur);
    ROW(&c, 0, " Amdahl and Gustafson");
    ROW(&c, 1, " core:amdahl.laws · lesson: Amdahl's law");
    ROW(&c, 3, "   input                    value         allowed");
    ROW(&c, 4, " ▶ serial fraction f        0.2           0 to 1");
    ROW(&c, 5, "   processors p             4             1 to 100000, whole");
    ROW(&c, 6, "   one-processor time T(1)  100 s         0 to 1000000000");
    ROW(&c, 7, "   share that cannot run in parallel");
    ROW(&c, 9, " Outputs");
    ROW(&c, 10, "   Amdahl speedup S(p)  2.5x");
    ROW(&c, 11, "   run time T(p)        40 s");
    ROW(&c, 12, "   faster               ring");
    ROW(&c, 13, "   ┌─ timeline ─────┐");
    ROW(&c, 14, "   │ P1 |ssss|pppp| │");
    ROW(&c, 15, "   │ P2 |....|pppp| │");
    ROW(&c, 16, "   └────────────────┘");
    ROW(&c, 17, "");
    LACKS(&c, "more:");
    assert_false(cur.on);
    assert_int_equal(m.out_rows, 12);

    /* Another input selected: its (absent) help leaves the row empty. */
    m.fsel = 1;
    tui_canvas_clear(&c);
    tui_view_calc(&m, &c, tui_test_full(&c), &cur);
    ROW(&c, 4, "   serial fraction f        0.2           0 to 1");
    ROW(&c, 5, " ▶ processors p             4             1 to 100000, whole");
    ROW(&c, 7, "");
    tui_canvas_fini(&c);
    tui_calc_model_fini(&m);
}

static void test_form_editing(void **state)
{
    (void)state;
    struct tui_calc_model m;
    amdahl_model(&m);
    m.fsel = 1;
    m.editing = true;
    tui_input_set(&m.edit, "8");
    struct tui_canvas c;
    tui_canvas_init(&c, 80, 22, TUI_CS_UTF8);
    struct tui_cursor cur = {0};
    tui_view_calc(&m, &c, tui_test_full(&c), &cur);
    ROW(&c, 5, " ▶ processors p             8             1 to 100000, whole");
    ROW(&c, 7, "   outputs follow as you type; Enter keeps the value, Esc the old one");
    assert_true(cur.on);
    assert_int_equal(cur.y, 5);
    assert_int_equal(cur.x, 29); /* after the "8" typed at column 28 */
    tui_canvas_fini(&c);
    tui_calc_model_fini(&m);
}

static void test_form_error(void **state)
{
    (void)state;
    struct tui_calc_model m;
    amdahl_model(&m);
    tui_calc_model_clear_outs(&m);
    assert_null(m.outs);
    m.error = core_xstrdup("the calculator failed: amdahl.lua:30: attempt to divide");
    struct tui_canvas c;
    tui_canvas_init(&c, 80, 22, TUI_CS_UTF8);
    struct tui_cursor cur = {0};
    tui_view_calc(&m, &c, tui_test_full(&c), &cur);
    ROW(&c, 9, " Outputs");
    ROW(&c, 10, "   the calculator failed: amdahl.lua:30: attempt to divide");
    LACKS(&c, "2.5x");
    tui_canvas_fini(&c);
    tui_calc_model_fini(&m);
}

static void test_form_scroll(void **state)
{
    (void)state;
    struct tui_calc_model m;
    amdahl_model(&m);
    /* A diagram of 12 lines: 14 rows of box under 7 rows of outputs. */
    struct core_buf d;
    core_buf_init(&d);
    for (int i = 1; i <= 12; i++)
        core_buf_printf(&d, "P%-2d|..|pp|\n", i);
    add_out(&m, "schedule", NULL, d.data);
    core_buf_fini(&d);
    struct tui_canvas c;
    tui_canvas_init(&c, 80, 22, TUI_CS_UTF8);
    struct tui_cursor cur = {0};
    tui_view_calc(&m, &c, tui_test_full(&c), &cur);
    ROW(&c, 9, " Outputs                                                           ↓ more: PgDn");
    ROW(&c, 10, "   Amdahl speedup S(p)  2.5x");
    HAS(&c, "P3 |..|pp|");
    LACKS(&c, "P12");
    /* Past the end: clamped so the last row is the box's bottom. */
    m.otop = 1000;
    tui_canvas_clear(&c);
    tui_view_calc(&m, &c, tui_test_full(&c), &cur);
    assert_int_equal(m.otop, 21 - 12); /* 7 + 14 rows of outputs, 12 shown */
    ROW(&c, 9, " Outputs                                                           ↑ more: PgUp");
    ROW(&c, 20, "   │ P12|..|pp| │");
    ROW(&c, 21, "   └────────────┘");
    LACKS(&c, "2.5x");
    /* In the middle: both ways. */
    m.otop = 3;
    tui_canvas_clear(&c);
    tui_view_calc(&m, &c, tui_test_full(&c), &cur);
    ROW(&c, 9, " Outputs                                                     ↑↓ more: PgUp/PgDn");
    ROW(&c, 10, "   ┌─ timeline ─────┐");
    tui_canvas_fini(&c);
    tui_calc_model_fini(&m);
}

static void test_form_ascii(void **state)
{
    (void)state;
    struct tui_calc_model m;
    amdahl_model(&m);
    struct tui_canvas c;
    tui_canvas_init(&c, 80, 22, TUI_CS_ASCII);
    struct tui_cursor cur = {0};
    tui_view_calc(&m, &c, tui_test_full(&c), &cur);
    ROW(&c, 4, " > serial fraction f        0.2           0 to 1");
    ROW(&c, 13, "   +- timeline -----+");
    ROW(&c, 14, "   | P1 |ssss|pppp| |");
    ROW(&c, 16, "   +----------------+");
    char *all = tui_canvas_text(&c);
    for (const char *p = all; *p; p++)
        if ((unsigned char)*p >= 0x80)
            fail_msg("non-ASCII byte in the ASCII canvas at %td", p - all);
    free(all);
    tui_canvas_fini(&c);
    tui_calc_model_fini(&m);
}

/* ---- the lesson reader's row for a calculator ---------------------------------- */

static void test_lesson_calc_row(void **state)
{
    (void)state;
    struct tui_lesson_model m = {0};
    m.lesson_title = core_xstrdup("Amdahl's law");
    m.n_pages = 2;
    tui_md_render("Text.\n", tui_lesson_doc_width(80), TUI_CS_UTF8, &m.doc);
    m.qs = core_xcalloc(2, sizeof *m.qs);
    m.qs[0] = (struct tui_lesson_q){.qid = core_xstrdup("core:a"),
                                    .title = core_xstrdup("Speedup"),
                                    .kind = core_xstrdup("numeric"),
                                    .points = 1};
    m.qs[1] = (struct tui_lesson_q){.qid = core_xstrdup("core:amdahl.laws"),
                                    .title = core_xstrdup("Amdahl and Gustafson"),
                                    .kind = core_xstrdup(TUI_LESSON_CALC)};
    m.n_qs = 2;
    m.qsel = 1;
    assert_false(tui_lesson_q_is_calc(&m.qs[0]));
    assert_true(tui_lesson_q_is_calc(&m.qs[1]));
    struct tui_canvas c;
    tui_canvas_init(&c, 80, 22, TUI_CS_UTF8);
    tui_view_lesson(&m, &c, tui_test_full(&c));
    ROW(&c, 19, " Questions and calculators (Tab selects, Enter or 1-9 opens)");
    ROW(&c, 20, " 1  · Speedup                                             numeric   1 pt");
    ROW(&c, 21, " 2  = Amdahl and Gustafson                                calculator");
    /* Only calculators after the page. */
    free(m.qs[0].qid);
    free(m.qs[0].title);
    free(m.qs[0].kind);
    m.qs[0] = m.qs[1];
    m.n_qs = 1;
    m.qsel = 0;
    tui_canvas_clear(&c);
    tui_view_lesson(&m, &c, tui_test_full(&c));
    ROW(&c, 20, " Calculators (Tab selects, Enter or 1-9 opens)");
    ROW(&c, 21, " 1  = Amdahl and Gustafson                                calculator");
    tui_canvas_fini(&c);
    tui_lesson_model_fini(&m);
}

/* ---- pure helpers ------------------------------------------------------------ */

static void test_step(void **state)
{
    (void)state;
    const double inf = INFINITY;
    /* Integers by one, clamped. */
    assert_true(tui_calc_step(4, 1, 1, 100000, true) == 5);
    assert_true(tui_calc_step(4, -1, 1, 100000, true) == 3);
    assert_true(tui_calc_step(1, -1, 1, 100000, true) == 1);
    /* Reals by a tenth of the leading decade; every step undoes. */
    assert_true(tui_calc_step(0.2, 1, 0, 1, false) == 0.21);
    assert_true(tui_calc_step(0.21, -1, 0, 1, false) == 0.2);
    assert_true(tui_calc_step(100, 1, 0, 1e9, false) == 110);
    assert_true(tui_calc_step(100, -1, 0, 1e9, false) == 99);
    assert_true(tui_calc_step(99, 1, 0, 1e9, false) == 100);
    assert_true(tui_calc_step(1, -1, 0, inf, false) == 0.99);
    assert_true(tui_calc_step(0.99, 1, 0, inf, false) == 1);
    assert_true(tui_calc_step(0.3, 1, 0, 1, false) == 0.31); /* no 0.31000000000000005 */
    assert_true(tui_calc_step(-1, 1, -inf, inf, false) == -0.99);
    /* From zero: a hundredth of the range's decade, or 1 when unbounded. */
    assert_true(tui_calc_step(0, 1, 0, 1, false) == 0.01);
    assert_true(tui_calc_step(0, 1, -inf, inf, false) == 1);
    /* Clamped at a bound; unchanged there. */
    assert_true(tui_calc_step(0.995, 1, 0, 1, false) == 1);
    assert_true(tui_calc_step(1, 1, 0, 1, false) == 1);
    assert_true(tui_calc_step(0, -1, 0, 1, false) == 0);
}

static void test_range_text(void **state)
{
    (void)state;
    char b[64];
    tui_calc_range_text(0, 1, false, b, sizeof b);
    assert_string_equal(b, "0 to 1");
    tui_calc_range_text(1, 100000, true, b, sizeof b);
    assert_string_equal(b, "1 to 100000, whole");
    tui_calc_range_text(0, INFINITY, false, b, sizeof b);
    assert_string_equal(b, "at least 0");
    tui_calc_range_text(-INFINITY, 5, true, b, sizeof b);
    assert_string_equal(b, "at most 5, whole");
    tui_calc_range_text(-INFINITY, INFINITY, false, b, sizeof b);
    assert_string_equal(b, "any number");
    tui_calc_range_text(1e-9, 1e12, false, b, sizeof b);
    assert_string_equal(b, "1e-09 to 1e+12");
}

/* The output formatting the screen shares with `warpbench calc`. */
static void test_value_format(void **state)
{
    (void)state;
    char b[64];
    lesson_calc_value_format(1 / (0.2 + 0.8 / 4), "x", b, sizeof b);
    assert_string_equal(b, "2.5x");
    lesson_calc_value_format(1 / (0.2 + 0.8 / 8), "×", b, sizeof b);
    assert_string_equal(b, "3.333×");
    lesson_calc_value_format(100.0 * 2.5 / 6, "%", b, sizeof b);
    assert_string_equal(b, "41.67%");
    lesson_calc_value_format(40, "s", b, sizeof b);
    assert_string_equal(b, "40 s");
    lesson_calc_value_format(0.012, "s", b, sizeof b);
    assert_string_equal(b, "12 ms");
    lesson_calc_value_format(1.5e12, "B/s", b, sizeof b);
    assert_string_equal(b, "1.5 TB/s");
    lesson_calc_value_format(350e9, "B", b, sizeof b);
    assert_string_equal(b, "350 GB");
    lesson_calc_value_format(1e6 / 8760, NULL, b, sizeof b);
    assert_string_equal(b, "114.2");
    lesson_calc_value_format(-0.00001, "", b, sizeof b);
    assert_string_equal(b, "-1e-05");
    lesson_calc_value_format(2.5, "x", b, 3); /* cut, still terminated */
    assert_string_equal(b, "2.");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_list_view),       cmocka_unit_test(test_form_view),
        cmocka_unit_test(test_form_editing),    cmocka_unit_test(test_form_error),
        cmocka_unit_test(test_form_scroll),     cmocka_unit_test(test_form_ascii),
        cmocka_unit_test(test_lesson_calc_row), cmocka_unit_test(test_step),
        cmocka_unit_test(test_range_text),      cmocka_unit_test(test_value_format),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
