/*
 * test_tui_chart.c — line charts drawn into an in-memory canvas: braille,
 * quadrant blocks and ASCII; axes, tick labels with SI prefixes, the log2 x
 * axis, legends, dashed reference curves, empty data, single points,
 * constant series, NaN gaps, tiny rectangles; and the lab-frame benchmark.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tui/tui.h"
#include "tui/tui_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *draw(int w, int h, enum tui_charset cs, bool blocks, const struct tui_chart *ch)
{
    struct tui_canvas c;
    tui_canvas_init(&c, w, h, cs);
    tui_chart_draw(&c, (struct tui_rect){0, 0, h, w}, ch, blocks);
    char *t = tui_canvas_text(&c);
    tui_canvas_fini(&c);
    return t;
}

static void check(const char *got, const char *want, int line)
{
    if (strcmp(got, want))
        fail_msg("line %d: chart is\n%s\n--- want\n%s\n---", line, got, want);
}
#define CHART(w, h, cs, blocks, ch, want)                                                          \
    do {                                                                                           \
        char *t_ = draw((w), (h), (cs), (blocks), (ch));                                           \
        check(t_, (want), __LINE__);                                                               \
        free(t_);                                                                                  \
    } while (0)

static void test_line_20x6(void **state)
{
    (void)state;
    static const double x[] = {0, 1}, y[] = {0, 1};
    struct tui_series s = {NULL, x, y, 2, 0, false};
    struct tui_chart ch = {NULL, NULL, NULL, &s, 1, false, false, false};
    /* 16 x 4 cells = 32 x 16 dots: the line climbs one dot every two */
    CHART(20, 6, TUI_CS_UTF8, false, &ch,
          "1.0┤            ⣀⠤⠒⠉\n"
          "0.5┤        ⣀⠤⠒⠉\n"
          "   │    ⣀⠤⠒⠉\n"
          "  0┤⣀⠤⠒⠉\n"
          "   └┬───────┬──────┬\n"
          "    0      0.5   1.0");
    CHART(20, 6, TUI_CS_UTF8, true, &ch,
          "1.0┤            ▗▄▞▀\n"
          "0.5┤        ▄▄▀▀▘\n"
          "   │   ▗▄▄▀▀\n"
          "  0┤▄▞▀▘\n"
          "   └┬───────┬──────┬\n"
          "    0      0.5   1.0");
    CHART(20, 6, TUI_CS_ASCII, false, &ch,
          "1.0+             ***\n"
          "0.5+        *****\n"
          "   |   *****\n"
          "  0+***\n"
          "   ++-------+------+\n"
          "    0      0.5   1.0");
}

static void test_series_legend_dashed(void **state)
{
    (void)state;
    static const double x[] = {0, 1, 2, 3, 4}, y[] = {0, 1, 2, 3, 4}, r[] = {2, 2, 2, 2, 2};
    struct tui_series s[2] = {{"data", x, y, 5, TUI_C_S1, false}, {"ref", x, r, 5, TUI_C_S2, true}};
    struct tui_chart ch = {"Time", "n", "s", s, 2, false, false, false};
    CHART(30, 8, TUI_CS_UTF8, false, &ch,
          "Time (s)       ── data  ┄┄ ref\n"
          "4┤                       ⣀⠤⠔⠒⠉\n"
          " │                ⢀⣀⡠⠤⠒⠊⠉\n"
          "2┤⠂⠐⠂⠐⠂⠐⠂⠂⠐⠂⢐⣂⠴⠖⠒⠙⠃⠐⠂⠐⠒⠂⠐⠂⠐⠂⠐⠂\n"
          " │     ⣀⡠⠤⠒⠊⠁\n"
          "0┤⣀⠤⠔⠊⠉\n"
          " └┬──────┬──────┬─────┬──────┬\n"
          "  0      1      2     3   4  n");
    CHART(30, 8, TUI_CS_ASCII, false, &ch,
          "Time (s)         * data  . ref\n"
          "4+                        ****\n"
          " |                 *******\n"
          "2+...........******...........\n"
          " |    *******\n"
          "0+****\n"
          " ++------+------+-----+------+\n"
          "  0      1      2     3   4  n");

    /* colours: the data wins the cells it shares with the reference */
    struct tui_canvas c;
    tui_canvas_init(&c, 30, 8, TUI_CS_UTF8);
    tui_chart_draw(&c, (struct tui_rect){0, 0, 8, 30}, &ch, false);
    assert_int_equal(c.cells[1 * 30 + 29].st.color, TUI_C_S1);   /* data, top right */
    assert_int_equal(c.cells[3 * 30 + 2].st.color, TUI_C_S2);    /* reference only */
    assert_int_equal(c.cells[3 * 30 + 13].st.color, TUI_C_S1);   /* both */
    assert_int_equal(c.cells[0].st.attr, TUI_A_BOLD);            /* the title */
    assert_int_equal(c.cells[1 * 30 + 0].st.color, TUI_C_MUTED); /* a tick label */
    tui_canvas_fini(&c);

    /* a legend that does not fit the title row gets its own row */
    struct tui_chart wide = ch;
    wide.title = "A rather long chart title";
    char *t = draw(30, 8, TUI_CS_UTF8, false, &wide);
    const char *last = strrchr(t, '\n');
    assert_non_null(last);
    assert_string_equal(last + 1, "── data  ┄┄ ref");
    assert_true(!strncmp(t, "A rather long chart title (s)\n", 30));
    free(t);
}

static void test_empty_and_degenerate(void **state)
{
    (void)state;
    struct tui_chart empty = {"Empty", "p", "×", NULL, 0, false, false, false};
    CHART(30, 8, TUI_CS_UTF8, false, &empty,
          "Empty (×)\n"
          "│\n"
          "│\n"
          "│      waiting for data\n"
          "│\n"
          "│\n"
          "└─────────────────────────────\n"
          "                             p");
    /* all NaN, or no points at all, is empty too */
    static const double nx[] = {0, 1}, ny[] = {NAN, NAN};
    struct tui_series ns[2] = {{"a", nx, ny, 2, 0, false}, {"b", nx, ny, 0, 0, false}};
    struct tui_chart nan_ch = {NULL, NULL, NULL, ns, 2, false, false, false};
    char *t = draw(30, 8, TUI_CS_ASCII, false, &nan_ch);
    assert_non_null(strstr(t, "waiting for data"));
    free(t);

    /* one point: both ranges are widened around it */
    static const double px[] = {3}, py[] = {5};
    struct tui_series one = {"one", px, py, 1, 0, false};
    struct tui_chart och = {"One", NULL, NULL, &one, 1, false, false, false};
    CHART(20, 6, TUI_CS_UTF8, false, &och,
          "One           ── one\n"
          "6┤\n"
          " │         ⠂\n"
          "4┤\n"
          " └─────────┬────────\n"
          "          3.0");

    /* a constant series */
    static const double cx[] = {0, 1, 2, 3}, cy[] = {7, 7, 7, 7};
    struct tui_series cs = {NULL, cx, cy, 4, 0, false};
    struct tui_chart cch = {NULL, NULL, NULL, &cs, 1, false, false, false};
    CHART(20, 6, TUI_CS_UTF8, false, &cch,
          "8┤\n"
          "7┤⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀⣀\n"
          " │\n"
          "6┤\n"
          " └┬──────────┬──────\n"
          "  0          2");
    /* ... from zero; all zeros */
    cch.y_from_zero = true;
    t = draw(20, 6, TUI_CS_ASCII, false, &cch);
    assert_true(!strncmp(t, "10+", 3)); /* 0..7 at steps of 5 */
    assert_non_null(strstr(t, "0+"));
    free(t);
    static const double zy[] = {0, 0, 0, 0};
    cs.y = zy;
    t = draw(20, 6, TUI_CS_ASCII, false, &cch);
    assert_true(!strncmp(t, "1.0+", 4));
    free(t);

    /* NaN makes a gap; infinities and NULL arrays are skipped */
    static const double gx[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    static const double gy[] = {1, 1, 1, 1, NAN, NAN, 1, 1, 1, INFINITY};
    struct tui_series gs[2] = {{NULL, gx, gy, 10, 0, false}, {NULL, NULL, NULL, 5, 0, false}};
    struct tui_chart gch = {NULL, NULL, NULL, gs, 2, false, false, false};
    CHART(20, 6, TUI_CS_ASCII, false, &gch,
          "1.1+\n"
          "   |\n"
          "1.0+*******    *****\n"
          "0.9+\n"
          "   ++--------+------\n"
          "    0        5");
}

static void test_axis_labels(void **state)
{
    (void)state;
    /* log2 x: powers of two, binary suffixes; the x label keeps its place */
    double lx[11], ly[11];
    for (int i = 0; i < 11; i++) {
        lx[i] = ldexp(1, i);
        ly[i] = i;
    }
    struct tui_series ls = {NULL, lx, ly, 11, 0, false};
    struct tui_chart lch = {"Stride", "stride (B)", NULL, &ls, 1, true, true, false};
    CHART(40, 6, TUI_CS_ASCII, false, &lch,
          "Stride\n"
          "10+                           **********\n"
          "  |         ******************\n"
          " 0+*********\n"
          "  ++------+------+-------+------+------+\n"
          "   1      4      16      64   stride (B)");
    lch.x_label = NULL;
    char *t = draw(40, 6, TUI_CS_ASCII, false, &lch);
    assert_non_null(strstr(t, "\n   1      4      16      64    256    1K"));
    free(t);
    /* x <= 0 cannot sit on a log axis: skipped */
    lx[0] = 0;
    lx[1] = -4;
    t = draw(40, 6, TUI_CS_ASCII, false, &lch);
    assert_non_null(strstr(t, "\n   4        16       64      256      1K"));
    free(t);

    /* y labels: SI prefixes where the unit takes them */
    static const double bx[] = {0, 1, 2};
    double by[3] = {0.5e9, 1.5e9, 2e9};
    struct tui_series bs = {NULL, bx, by, 3, 0, false};
    struct tui_chart bch = {"BW", NULL, "B/s", &bs, 1, true, false, false};
    CHART(30, 8, TUI_CS_ASCII, false, &bch,
          "BW (B/s)\n"
          "2G+                    *******\n"
          "  |          **********\n"
          "1G+    ******\n"
          "  |****\n"
          " 0+\n"
          "  ++------------+------------+\n"
          "   0            1            2");
    /* a prefixed unit gets none */
    bch.y_unit = "GB/s";
    by[0] = 500, by[1] = 1500, by[2] = 2000;
    t = draw(30, 8, TUI_CS_ASCII, false, &bch);
    assert_true(!strncmp(t, "BW (GB/s)\n2000+", 15));
    assert_non_null(strstr(t, "\n1000+"));
    free(t);
    /* seconds: milli */
    bch.y_unit = "s";
    by[0] = 0.001, by[1] = 0.0025, by[2] = 0.004;
    t = draw(30, 8, TUI_CS_ASCII, false, &bch);
    assert_non_null(strstr(t, "\n4m+"));
    assert_non_null(strstr(t, "\n2m+"));
    free(t);
    /* a ratio: decimals, not "500m" */
    bch.y_unit = "×";
    by[0] = 0.1, by[1] = 0.3, by[2] = 0.5;
    t = draw(30, 8, TUI_CS_UTF8, false, &bch);
    assert_non_null(strstr(t, "\n0.5┤"));
    assert_null(strstr(t, "500m"));
    free(t);
    /* half steps: 1.5k */
    bch.y_unit = NULL;
    by[0] = 0, by[1] = 1200, by[2] = 2900;
    t = draw(30, 16, TUI_CS_ASCII, false, &bch);
    assert_non_null(strstr(t, "\n3.0k+"));
    assert_non_null(strstr(t, "\n1.5k+"));
    assert_non_null(strstr(t, "\n0.5k+"));
    assert_non_null(strstr(t, "\n   0+"));
    free(t);
    /* negative values */
    bch.y_from_zero = false;
    by[0] = -5, by[1] = 3, by[2] = 12;
    t = draw(30, 8, TUI_CS_ASCII, false, &bch);
    assert_non_null(strstr(t, "-20+"));
    assert_non_null(strstr(t, "\n 20+"));
    free(t);
}

static void test_small_rects(void **state)
{
    (void)state;
    static const double x[] = {0, 1, 2, 3}, y[] = {1, 3, 2, 4};
    struct tui_series s[2] = {{"a", x, y, 4, 0, false}, {"b", x, x, 4, 0, true}};
    struct tui_chart ch = {"Title", "x", "u", s, 2, false, false, false};
    struct tui_canvas c;
    /* every size draws inside its rectangle and nowhere else */
    for (int cs = 0; cs < 2; cs++) {
        for (int h = 0; h <= 9; h++) {
            for (int w = 0; w <= 24; w++) {
                tui_canvas_init(&c, 30, 13, cs == 0 ? TUI_CS_UTF8 : TUI_CS_ASCII);
                tui_canvas_fill(&c, (struct tui_rect){0, 0, 13, 30}, '@', (struct tui_style){0, 0});
                for (int b = 0; b < 2; b++)
                    tui_chart_draw(&c, (struct tui_rect){2, 3, h, w}, &ch, b);
                for (int yy = 0; yy < 13; yy++)
                    for (int xx = 0; xx < 30; xx++) {
                        bool inside = yy >= 2 && yy < 2 + h && xx >= 3 && xx < 3 + w;
                        if (!inside && c.cells[yy * 30 + xx].cp != '@')
                            fail_msg("%dx%d: drew outside at (%d, %d)", w, h, yy, xx);
                    }
                tui_canvas_fini(&c);
            }
        }
    }
    /* a rectangle hanging off the canvas is clipped */
    tui_canvas_init(&c, 10, 5, TUI_CS_UTF8);
    tui_chart_draw(&c, (struct tui_rect){-3, -4, 12, 30}, &ch, false);
    tui_chart_draw(&c, (struct tui_rect){3, 5, 12, 30}, &ch, false);
    tui_canvas_fini(&c);
}

static void test_many_points(void **state)
{
    (void)state;
    /* 600 noisy points into 20 columns: the merged columns still reach the
     * extremes of each column */
    enum { N = 600 };
    static double x[N], y[N];
    for (int i = 0; i < N; i++) {
        x[i] = i;
        y[i] = i % 2 ? 10 : 0;
    }
    struct tui_series s = {NULL, x, y, N, 0, false};
    struct tui_chart ch = {NULL, NULL, NULL, &s, 1, true, false, false};
    struct tui_canvas c;
    tui_canvas_init(&c, 22, 6, TUI_CS_ASCII);
    tui_chart_draw(&c, (struct tui_rect){0, 0, 6, 22}, &ch, false);
    /* plot rows 0..3, columns 3..21: every cell is drawn */
    for (int yy = 0; yy < 4; yy++)
        for (int xx = 3; xx < 22; xx++)
            assert_int_equal(c.cells[yy * 22 + xx].cp, '*');
    tui_canvas_fini(&c);
}

/* A lab's stride sweep (4 B to 4 KiB) on a log axis: ticks at powers of
 * two with binary suffixes, evenly spaced, the step at 64 B mid-chart. */
static void test_log_axis_ticks(void **state)
{
    (void)state;
    double x[11], y[11];
    for (int i = 0; i < 11; i++) {
        x[i] = 4 << i; /* 4 .. 4096 */
        y[i] = x[i] < 64 ? 10 : 1;
    }
    struct tui_series s = {"bw", x, y, 11, 0, false};
    struct tui_chart ch = {"bandwidth", "stride (B)", "GB/s", &s, 1, true, true, true};
    char *t = draw(60, 8, TUI_CS_ASCII, false, &ch);
    const char *labels = strrchr(t, '\n') + 1;
    /* every other power of two fits: 4 16 64 256 1K, left to right (the
     * axis name takes the place of the last, 4K) */
    const char *want[] = {"4", "16", "64", "256", "1K"};
    const char *at = labels;
    for (int i = 0; i < 5; i++) {
        char tok[16];
        snprintf(tok, sizeof tok, " %s ", want[i]);
        const char *f = strstr(at, tok);
        if (!f)
            fail_msg("tick %s missing or out of order in\n%s", want[i], t);
        at = f + 1;
    }
    /* the drop from 32 B to 64 B sits 30% along the plot (log2 5 of 2..12),
     * not in its first columns as on a linear axis */
    struct tui_canvas c;
    tui_canvas_init(&c, 60, 8, TUI_CS_ASCII);
    tui_chart_draw(&c, (struct tui_rect){0, 0, 8, 60}, &ch, false);
    int last_high = -1;
    for (int xx = 0; xx < 60; xx++)
        if (c.cells[1 * 60 + xx].cp == '*')
            last_high = xx;
    assert_in_range(last_high, 18, 22);
    tui_canvas_fini(&c);
    free(t);

    /* half the 80x24 lab summary (38 columns) with "1.0" y labels: every
     * other power of two still has its label ("16 256" alone was shown
     * when a tick per 7 columns was the rule) */
    for (int i = 0; i < 11; i++)
        y[i] = x[i] < 64 ? 0.9 : 0.2;
    t = draw(38, 8, TUI_CS_UTF8, false, &ch);
    labels = strrchr(t, '\n') + 1;
    if (!strstr(labels, " 4 ") || !strstr(labels, " 16 ") || !strstr(labels, " 64 ") ||
        !strstr(labels, " 256 "))
        fail_msg("ticks 4 16 64 256 not all labelled:\n%s", t);
    free(t);

    /* a message-size sweep, 4 KiB to 256 MiB: K and M suffixes */
    double mx[17], my[17];
    for (int i = 0; i < 17; i++) {
        mx[i] = ldexp(4096, i);
        my[i] = i;
    }
    struct tui_series ms = {"busbw", mx, my, 17, 0, false};
    struct tui_chart mch = {"all-reduce", NULL, "GB/s", &ms, 1, true, true, true};
    t = draw(80, 8, TUI_CS_UTF8, false, &mch);
    assert_non_null(strstr(t, "4K"));
    assert_non_null(strstr(t, "1M"));
    assert_non_null(strstr(t, "256M"));
    free(t);
}

/* Steps are whole numbers: no tick at p = 1.5; one point has neighbours. */
static void test_whole_steps(void **state)
{
    (void)state;
    static const double x[] = {1, 2}, y[] = {1, 1.8};
    struct tui_series s = {"S", x, y, 2, 0, false};
    struct tui_chart ch = {"speedup", "p", "×", &s, 1, true, false, true};
    char *t = draw(40, 8, TUI_CS_ASCII, false, &ch);
    const char *labels = strrchr(t, '\n') + 1;
    assert_null(strstr(labels, "."));
    assert_non_null(strstr(labels, "1"));
    assert_non_null(strstr(labels, "2"));
    free(t);
    static const double one_x[] = {1}, one_y[] = {1};
    struct tui_series o = {"S", one_x, one_y, 1, 0, false};
    struct tui_chart och = {"speedup", "p", "×", &o, 1, true, false, true};
    CHART(30, 6, TUI_CS_ASCII, false, &och,
          "speedup (x)                * S\n"
          "1+                           *\n"
          " |\n"
          "0+\n"
          " ++--------------------------+\n"
          "  0                       1  p");
    /* Karp-Flatt measured at p = 2 only (P = 2): the axis ends at 2, not 3
     * (issue 26) */
    static const double two_x[] = {2}, two_y[] = {0.1};
    struct tui_series k = {"e", two_x, two_y, 1, 0, false};
    struct tui_chart kch = {"Karp-Flatt", "p", "", &k, 1, true, false, true};
    t = draw(30, 6, TUI_CS_ASCII, false, &kch);
    labels = strrchr(t, '\n') + 1;
    assert_non_null(strstr(labels, "2"));
    assert_null(strstr(labels, "3"));
    free(t);
}

/* Without colour (NO_COLOR) and in ASCII each series has its own
 * character, on the plot and in the legend; a legend wider than the chart
 * wraps onto rows of its own and no entry is cut. */
static void test_markers_and_legend(void **state)
{
    (void)state;
    static const double x[] = {1, 2, 3, 4}, a[] = {1, 2, 3, 4}, b[] = {4, 3, 2, 1},
                        m[] = {2, 2, 2, 2};
    struct tui_series s[3] = {{"measured speedup", x, a, 4, TUI_C_S1, false},
                              {"other workers", x, b, 4, TUI_C_S2, false},
                              {"Amdahl 1/(f+(1-f)/p)", x, m, 4, TUI_C_S3, true}};
    struct tui_chart ch = {"speedup against workers p", "p", "×", s, 3, true, false, true};
    /* ASCII: * o . on the plot and in the legend */
    char *t = draw(40, 12, TUI_CS_ASCII, false, &ch);
    assert_non_null(strstr(t, "* measured speedup"));
    assert_non_null(strstr(t, "o other workers"));
    assert_non_null(strstr(t, ". Amdahl 1/(f+(1-f)/p)"));
    int stars = 0, os = 0;
    for (const char *p = t; *p; p++) {
        stars += *p == '*';
        os += *p == 'o';
    }
    assert_true(stars > 2); /* the legend's one and the plot's */
    assert_true(os > 3);    /* "other workers" has one, "o" and the plot */
    free(t);
    /* UTF-8 without colour: braille lines with each series' mark on its
     * points, and the legend shows the marks */
    struct tui_canvas c;
    tui_canvas_init(&c, 40, 12, TUI_CS_UTF8);
    c.mono = true;
    tui_chart_draw(&c, (struct tui_rect){0, 0, 12, 40}, &ch, false);
    t = tui_canvas_text(&c);
    assert_non_null(strstr(t, "─* measured speedup"));
    assert_non_null(strstr(t, "─o other workers"));
    assert_non_null(strstr(t, "┄. Amdahl 1/(f+(1-f)/p)"));
    int plot_o = 0, plot_star = 0;
    for (int yy = 1; yy < 8; yy++)
        for (int xx = 0; xx < 40; xx++) {
            plot_o += c.cells[yy * 40 + xx].cp == 'o';
            plot_star += c.cells[yy * 40 + xx].cp == '*';
        }
    assert_int_equal(plot_o, 4);
    assert_int_equal(plot_star, 4);
    free(t);
    tui_canvas_fini(&c);
    /* with colour: no marks, the legend has plain lines */
    t = draw(40, 12, TUI_CS_UTF8, false, &ch);
    assert_non_null(strstr(t, "── measured speedup"));
    assert_null(strstr(t, "─o"));
    /* the legend took two rows, each entry whole */
    assert_non_null(strstr(t, "┄┄ Amdahl 1/(f+(1-f)/p)"));
    free(t);
}

/* Charts side by side (the lab summary's 2×2 page at 200×50): every cell
 * inside the rectangle, none overlapping, columns TUI_CHART_GAP_W blank
 * columns apart and the last one to the right edge, a blank row between
 * rows only where each chart keeps min_h rows. */
static void test_grid_cells(void **state)
{
    (void)state;
    struct tui_rect a = tui_chart_grid_cell((struct tui_rect){2, 0, 23, 200}, 2, 2, 8, 0);
    struct tui_rect b = tui_chart_grid_cell((struct tui_rect){2, 0, 23, 200}, 2, 2, 8, 1);
    struct tui_rect d = tui_chart_grid_cell((struct tui_rect){2, 0, 23, 200}, 2, 2, 8, 3);
    assert_int_equal(a.y, 2), assert_int_equal(a.x, 0), assert_int_equal(a.h, 11);
    assert_int_equal(a.w, 98);
    assert_int_equal(b.y, 2), assert_int_equal(b.x, 101), assert_int_equal(b.w, 99);
    assert_int_equal(d.y, 14), assert_int_equal(d.x, 101), assert_int_equal(d.h, 11);
    /* 80x16 keeps 8 rows each only without the blank row */
    struct tui_rect e = tui_chart_grid_cell((struct tui_rect){0, 0, 16, 80}, 2, 2, 8, 2);
    assert_int_equal(e.y, 8), assert_int_equal(e.h, 8), assert_int_equal(e.w, 38);
    /* one chart: the whole rectangle */
    struct tui_rect one = tui_chart_grid_cell((struct tui_rect){3, 4, 10, 50}, 1, 1, 8, 0);
    assert_int_equal(one.y, 3), assert_int_equal(one.x, 4);
    assert_int_equal(one.h, 10), assert_int_equal(one.w, 50);

    for (int w = 1; w <= 220; w++)
        for (int h = 1; h <= 60; h++)
            for (int cols = 1; cols <= 2; cols++)
                for (int rows = 1; rows <= 2; rows++) {
                    struct tui_rect r = {1, 2, h, w}, cell[4];
                    int n = cols * rows;
                    for (int i = 0; i < n; i++) {
                        cell[i] = tui_chart_grid_cell(r, cols, rows, 8, i);
                        struct tui_rect c = cell[i];
                        assert_true(c.w >= 0 && c.h >= 0);
                        if (!c.w || !c.h)
                            continue;
                        assert_true(c.x >= r.x && c.x + c.w <= r.x + r.w);
                        assert_true(c.y >= r.y && c.y + c.h <= r.y + r.h);
                    }
                    if (cols == 2 && cell[0].w && cell[1].w) {
                        assert_int_equal(cell[1].x - (cell[0].x + cell[0].w), TUI_CHART_GAP_W);
                        assert_int_equal(cell[1].x + cell[1].w, r.x + r.w);
                        assert_true(cell[1].w - cell[0].w <= 1); /* halves, give or take one */
                    }
                    if (rows == 2 && cell[0].h && cell[cols].h) {
                        int gap = cell[cols].y - (cell[0].y + cell[0].h);
                        assert_true(gap == 0 || gap == 1);
                        assert_true(gap == 0 || cell[0].h >= 8);
                        assert_true(gap == 1 || (h - 1) / 2 < 8);
                        assert_int_equal(cell[cols].y + cell[cols].h, r.y + r.h);
                    }
                }
}

/* Two charts with their legends on the title row, side by side at 200
 * columns: the left one's legend (at its right edge) stays apart from the
 * right one's title ("── median time per trial speedup against p" read on
 * at 200×50, issue 26), and no row of either chart reaches into the gap. */
static void test_grid_legend_apart(void **state)
{
    (void)state;
    static const double x[] = {1, 2}, t[] = {0.03, 0.02}, sp[] = {1, 1.5}, am[] = {1, 1.8};
    struct tui_series left_s = {"median time per trial", x, t, 2, TUI_C_S1, false};
    struct tui_series right_s[2] = {{"measured", x, sp, 2, TUI_C_S1, false},
                                    {"Amdahl", x, am, 2, TUI_C_S2, true}};
    struct tui_chart left = {"time per trial against p", "p", "s", &left_s, 1, true, false, true};
    struct tui_chart right = {"speedup against p", "p", "×", right_s, 2, true, false, true};
    for (int cs = 0; cs < 2; cs++) {
        struct tui_canvas c;
        tui_canvas_init(&c, 200, 23, cs ? TUI_CS_ASCII : TUI_CS_UTF8);
        struct tui_rect r = {0, 0, 23, 200};
        for (int i = 0; i < 4; i++)
            tui_chart_draw(&c, tui_chart_grid_cell(r, 2, 2, 8, i), i % 2 ? &right : &left, false);
        char *all = tui_canvas_text(&c);
        if (!strstr(all, "median time per trial   speedup against p ("))
            fail_msg("the legend runs on into the next title:\n%s", all);
        struct tui_rect rc = tui_chart_grid_cell(r, 2, 2, 8, 1);
        for (int y = 0; y < 23; y++)
            for (int gx = rc.x - TUI_CHART_GAP_W; gx < rc.x; gx++)
                if (c.cells[y * 200 + gx].cp != ' ')
                    fail_msg("row %d, column %d of the gap is drawn on:\n%s", y, gx, all);
        free(all);
        tui_canvas_fini(&c);
    }
}

/* The benchmark's frame is the lab screen it claims to time: the last of
 * three frames at 80x24 holds the header at its step, the four charts, a
 * full progress bar, the log box with its newest line, and the footer. */
static void test_bench(void **state)
{
    (void)state;
    double ms = -1;
    char *frame = NULL;
    assert_int_equal(tui_bench_lab_frame(3, 80, 24, &ms, &frame), 0);
    assert_true(isfinite(ms));
    assert_non_null(frame);
    int rows = 1, braille = 0;
    for (const unsigned char *p = (const unsigned char *)frame; *p; p++) {
        rows += *p == '\n';
        braille += p[0] == 0xe2 && p[1] >= 0xa0 && p[1] <= 0xa3; /* U+2800..U+28FF */
    }
    assert_int_equal(rows, 24);
    assert_true(braille > 100); /* the four charts' dots */
    assert_non_null(strstr(frame, " warpbench · lab amdahl · running · step 602"));
    for (int k = 0; k < 4; k++) {
        static const char *titles[4] = {"Speedup", "Bandwidth", "Step time", "Efficiency"};
        assert_non_null(strstr(frame, titles[k]));
    }
    assert_non_null(strstr(frame, "100% "));
    assert_non_null(strstr(frame, "   0.2 s"));
    assert_non_null(strstr(frame, "─ log "));
    assert_non_null(strstr(frame, "step    602  p=3  speedup "));
    assert_non_null(strstr(frame, "q stop  ? help  tab next chart  s save"));
    free(frame);
    assert_int_equal(tui_bench_lab_frame(2, 200, 50, &ms, NULL), 0);
    assert_int_equal(tui_bench_lab_frame(0, 80, 24, &ms, NULL), CORE_ERR_USAGE);
    assert_int_equal(tui_bench_lab_frame(1, 10, 5, &ms, NULL), CORE_ERR_USAGE);
}

/* `test_tui_chart bench` prints the lab-frame figures instead of testing. */
static int bench(void)
{
    static const int sizes[][3] = {{80, 24, 2000}, {120, 40, 1000}, {200, 50, 1000}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        double ms;
        if (tui_bench_lab_frame(sizes[i][2], sizes[i][0], sizes[i][1], &ms, NULL))
            return 1;
        printf("lab frame %dx%d: %.4f ms CPU per frame (%d frames)\n", sizes[i][0], sizes[i][1], ms,
               sizes[i][2]);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "bench"))
        return bench();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_line_20x6),
        cmocka_unit_test(test_series_legend_dashed),
        cmocka_unit_test(test_empty_and_degenerate),
        cmocka_unit_test(test_axis_labels),
        cmocka_unit_test(test_small_rects),
        cmocka_unit_test(test_many_points),
        cmocka_unit_test(test_log_axis_ticks),
        cmocka_unit_test(test_whole_steps),
        cmocka_unit_test(test_markers_and_legend),
        cmocka_unit_test(test_grid_cells),
        cmocka_unit_test(test_grid_legend_apart),
        cmocka_unit_test(test_bench),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
