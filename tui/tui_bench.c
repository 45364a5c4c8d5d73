/*
 * tui_bench.c — the cost of drawing a lab screen, for `warpbench bench tui`.
 *
 * Draws what the lab screen draws while a lab runs (header, four live
 * charts, a progress bar, a log pane, a key footer) into an in-memory canvas
 * and measures process CPU time per frame. Terminal output is not included:
 * that is curses' diff of the canvas, which depends on the terminal.
 */
#include "tui/tui_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define POINTS 600

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int tui_bench_lab_frame(int frames, int w, int h, double *cpu_ms_per_frame, char **last_frame)
{
    if (frames < 1 || w < 20 || h < 10)
        return CORE_ERR_USAGE;
    static const char *titles[4] = {"Speedup", "Bandwidth", "Step time", "Efficiency"};
    static const char *units[4] = {"×", "B/s", "s", "%"};
    static const double scale[4] = {8, 2e9, 0.004, 100};
    size_t n = (size_t)frames + POINTS;
    double *x = core_xmalloc(n * sizeof *x);
    double *live[4], *model[4];
    uint64_t seed = 0x9E3779B97F4A7C15ULL;
    for (size_t i = 0; i < n; i++)
        x[i] = (double)i;
    for (int k = 0; k < 4; k++) {
        live[k] = core_xmalloc(n * sizeof *live[k]);
        model[k] = core_xmalloc(n * sizeof *model[k]);
        for (size_t i = 0; i < n; i++) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            double noise = (double)(seed >> 11) / 9007199254740992.0 - 0.5;
            double base = 0.6 + 0.3 * sin((double)i / (25.0 + 10 * k));
            model[k][i] = base * scale[k];
            live[k][i] = (base + 0.08 * noise) * scale[k];
        }
    }

    struct tui_canvas c;
    tui_canvas_init(&c, w, h, TUI_CS_UTF8);
    const struct tui_style head = {TUI_A_REVERSE | TUI_A_BOLD, TUI_C_ACCENT};
    const struct tui_style plain = {0, 0}, muted = {0, TUI_C_MUTED};
    const struct tui_style good = {0, TUI_C_GOOD};
    int log_h = h / 4 < 4 ? 4 : h / 4;
    int charts_h = h - 1 - 1 - log_h - 1; /* header, progress, log, footer */
    const struct tui_rect charts = {1, 0, charts_h, w};

    double t0 = cpu_seconds();
    for (int f = 0; f < frames; f++) {
        tui_canvas_clear(&c);
        struct tui_rect top = {0, 0, 1, w};
        tui_canvas_fill(&c, top, ' ', head);
        tui_canvas_printf(&c, 0, 1, head, w - 2, "warpbench · lab amdahl · running · step %d",
                          f + POINTS);
        for (int k = 0; k < 4; k++) {
            size_t off = (size_t)f;
            struct tui_series s[2] = {
                {"measured", x + off, live[k] + off, POINTS, (uint8_t)(TUI_C_S1 + k), false},
                {"model", x + off, model[k] + off, POINTS, TUI_C_MUTED, true},
            };
            struct tui_chart ch = {titles[k], "step", units[k], s, 2, k != 1, false, true};
            tui_chart_draw(&c, tui_chart_grid_cell(charts, 2, 2, 8, k), &ch, false);
        }
        int py = 1 + charts_h;
        double frac = (double)(f + 1) / frames;
        int n_pct = tui_canvas_printf(&c, py, 0, plain, -1, "%3.0f%% ", frac * 100);
        tui_bar_draw(&c, py, n_pct, w - n_pct - 12, frac, good);
        tui_canvas_printf(&c, py, w - 11, muted, 11, "%6.1f s", f * 0.1);
        struct tui_rect lr = {py + 1, 0, log_h, w};
        tui_canvas_box(&c, lr, "log", muted);
        for (int i = 0; i < log_h - 2; i++) {
            int step = f + POINTS - (log_h - 3) + i;
            tui_canvas_printf(&c, py + 2 + i, 2, plain, w - 4,
                              "step %6d  p=%d  speedup %.3f×  bandwidth %.2f GB/s", step,
                              1 + step % 8, live[0][(size_t)f + POINTS - 1],
                              live[1][(size_t)f + POINTS - 1] / 1e9);
        }
        tui_canvas_put(&c, h - 1, 0, "q stop  ? help  tab next chart  s save", muted, w);
    }
    double t1 = cpu_seconds();
    *cpu_ms_per_frame = (t1 - t0) * 1e3 / frames;
    if (last_frame)
        *last_frame = tui_canvas_text(&c);

    tui_canvas_fini(&c);
    for (int k = 0; k < 4; k++) {
        free(live[k]);
        free(model[k]);
    }
    free(x);
    return 0;
}
