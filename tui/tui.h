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
};

/* Runs the TUI until the student quits. Returns a process exit status:
 * 0, or 6 (store) / 2 (no terminal) after printing why to stderr once the
 * terminal is restored. */
int tui_main(const struct tui_opts *o);

#endif /* WB_TUI_H */
