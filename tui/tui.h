/*
 * tui.h — the ncurses front end: home, lesson reader, questions, labs,
 * progress. The only module that includes curses.
 *
 * Layering (tmux's grid -> screen-write -> tty): views draw a model into a
 * struct tui_canvas (cells in memory, no curses); tui_term.c is the only code
 * that copies a canvas to the terminal. Screen logic fills the models from
 * the lessons, db and labs modules; draw code never runs SQL or Lua.
 *
 * Uses lessons (sessions, grading), db (lists, positions, progress), labs
 * (running labs on a worker thread) and core.
 */
#ifndef WB_TUI_H
#define WB_TUI_H

#include "db/db.h"

struct tui_opts {
    const char *db_path; /* the store to open (the TUI opens its own handles) */
    const char *user;
    const char *class_path; /* non-NULL: open the design review queue of this class store
                               (warpbench class review --tui) instead of home */
};

/* Runs the TUI until the student quits. Returns a process exit status:
 * 0, or 6 (store) / 2 (no terminal) after printing why to stderr once the
 * terminal is restored. */
int tui_main(const struct tui_opts *o);

/* Benchmark: draws a lab-screen-like frame `frames` times into a w x h
 * UTF-8 canvas in memory: a header, four braille charts (2 x 2) each with one
 * live series of 600 points that moves every frame and a dashed 600-point
 * reference curve, a progress bar and a boxed log pane. *cpu_ms_per_frame
 * gets the process CPU time (CLOCK_PROCESS_CPUTIME_ID) per frame in
 * milliseconds. Copying to the terminal is not included. With last_frame
 * not NULL, *last_frame gets the last frame drawn as text (one line per row;
 * caller frees), so a test can check what was drawn. Returns 0, or
 * CORE_ERR_USAGE for frames < 1 or a canvas smaller than 20 x 10. */
int tui_bench_lab_frame(int frames, int w, int h, double *cpu_ms_per_frame, char **last_frame);

#endif /* WB_TUI_H */
