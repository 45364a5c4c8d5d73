/*
 * tui_screen.h — the TUI's upper layers, private to tui/ and its tests.
 *
 *   term     tui_term.c, the only curses code: terminal set-up and restore
 *            (also on SIGINT/SIGTERM/SIGHUP and crash signals), keys,
 *            canvas -> screen with one doupdate() per frame
 *   app      tui_app.c: the main loop (keys -> actions -> draw), the screen
 *            stack, the one table of screens, the frame (title bar, key
 *            footer, help overlay, "terminal too small")
 *   screens  tui_screen_<name>.c: each a struct tui_screen (a table of
 *            functions) over a state that owns a model. Screen logic fills
 *            the model from lessons/db/labs on events; the tui_view_*
 *            functions draw a model into a canvas and never call db_,
 *            lesson_, grader_ or lab_ functions, so tests render them from
 *            hand-built models.
 *
 * Uses tui_internal.h (text, canvas, widgets, charts, Markdown), lessons,
 * db and labs.
 */
#ifndef WB_TUI_SCREEN_H
#define WB_TUI_SCREEN_H

#include "db/db.h"
#include "lessons/lesson.h"
#include "tui/tui_internal.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The smallest terminal the screens are laid out for. */
#define TUI_MIN_W 80
#define TUI_MIN_H 24

/* Where the terminal cursor goes after a frame (text entry); off otherwise. */
struct tui_cursor {
    int y, x;
    bool on;
};

/* ---- term (tui_term.c) --------------------------------------------------- */

struct tui_term_info {
    bool utf8;  /* the locale's codeset is UTF-8 */
    bool color; /* colours in use (not NO_COLOR, terminal has them) */
};

/* Takes the terminal: setlocale, UTF-8 detection, curses set-up, colours
 * unless NO_COLOR is set or the terminal has none, signal handlers that
 * restore the terminal. CORE_ERR_IO when stdin/stdout is not a terminal or
 * the terminal type is unknown (nothing to restore then). */
int tui_term_open(struct tui_term_info *info, struct core_err *err);
/* Gives the terminal back (idempotent). */
void tui_term_close(void);
/* The terminal's size now. */
void tui_term_size(int *w, int *h);
/* Waits up to timeout_ms (< 0: 500 ms) for a key: a code point or an enum
 * tui_key. TUI_K_TICK when none came, TUI_K_RESIZE after a resize,
 * TUI_K_CTRL_C also for a SIGINT from outside. */
int tui_term_key(int timeout_ms);
/* Gives the terminal to `editor FILE` (run through /bin/sh, so EDITOR may
 * carry flags) until it exits, then takes it back and redraws everything.
 * Returns the editor's exit status (-1 when it could not run). */
int tui_term_run_editor(const char *editor, const char *file);
/* True once SIGTERM or SIGHUP arrived: the app should leave cleanly. */
bool tui_term_quit_requested(void);
/* Copies the canvas to the screen, writing only cells that changed since the
 * previous frame, then one doupdate(). */
void tui_term_draw(const struct tui_canvas *c, const struct tui_cursor *cur);

/* ---- keys and actions ---------------------------------------------------- */

/* One row of a screen's key table: drives dispatch, the footer and `?`. */
struct tui_binding {
    int key, key2;     /* code point or enum tui_key; key2 0 when unused */
    int action;        /* screen-defined, non-zero */
    const char *keys;  /* as shown: "j/Down" (ASCII, so every locale shows it) */
    const char *label; /* footer word; NULL: listed in the help overlay only */
    const char *help;  /* help overlay line */
};

struct tui_keymap {
    const struct tui_binding *v;
    size_t n;
};
#define TUI_KEYMAP(table) ((struct tui_keymap){(table), sizeof(table) / sizeof((table)[0])})

/* The action key is bound to in m, or 0. */
int tui_keymap_action(struct tui_keymap m, int key);

/* ---- app (tui_app.c) ----------------------------------------------------- */

struct tui_app;

/* A screen: a table of functions over its state (void *st). */
struct tui_screen {
    const char *name;
    /* Creates the state from arg (borrowed; the screen's own arg struct).
     * NULL when it cannot open: it has said why with tui_app_msg. */
    void *(*enter)(struct tui_app *a, const void *arg);
    void (*leave)(struct tui_app *a, void *st);
    /* Back on top after the screen above was closed: refresh the model.
     * May be NULL. */
    void (*resume)(struct tui_app *a, void *st);
    /* Sees every key first (typing modes). True: consumed. May be NULL. */
    bool (*on_key)(struct tui_app *a, void *st, int key);
    void (*on_action)(struct tui_app *a, void *st, int action);
    /* Called on every refresh tick. May be NULL. */
    void (*tick)(struct tui_app *a, void *st);
    /* Refresh interval wanted now in ms; NULL or < 0: idle. */
    int (*interval_ms)(const void *st);
    /* The keys of the screen's current mode. */
    struct tui_keymap (*keymap)(const void *st);
    /* Title bar text. */
    const char *(*title)(const void *st);
    /* Draws into r; sets *cur to place the text cursor. */
    void (*draw)(struct tui_app *a, void *st, struct tui_canvas *c, struct tui_rect r,
                 struct tui_cursor *cur);
};

#define TUI_STACK_MAX 16

struct tui_app {
    struct db *db;               /* the UI thread's handle */
    struct lesson_session *sess; /* grading for the user */
    const char *db_path;         /* for the lab thread's own handle */
    const char *user;
    int64_t user_id;
    enum tui_charset cs;
    bool color; /* colours in use (not NO_COLOR): else charts mark series by character */
    bool quit;
    bool help;     /* help overlay shown */
    char msg[256]; /* one-shot footer message; "" none */
    bool msg_bad;
    struct {
        const struct tui_screen *s;
        void *st;
    } stack[TUI_STACK_MAX];
    int depth;
    int pops; /* pops requested by the handler running now */
};

/* Screens' arguments to tui_app_push. */
struct tui_lesson_arg {
    const char *pack_id, *lesson_id;
    const char *question_id; /* optional: select this question */
    int page;                /* optional: open at this page (1-based); 0: where the student was */
};
struct tui_question_arg {
    const char *qid; /* "pack:id" */
    int variant;     /* 1.. */
};
struct tui_lab_arg {
    const char *lab; /* NULL: the list of labs */
};
struct tui_calc_arg {
    const char *calc_id; /* "pack:calc"; NULL: the list of every calculator */
};
struct tui_code_arg {
    const char *qid; /* "pack:id" of a code question */
};
struct tui_review_arg {
    const char *class_path; /* the class store whose design answers are reviewed */
};
struct tui_search_arg {
    const char *text; /* the text to search for first (may be NULL or "") */
};

/* Opens screen `name` from the registry on top of the stack. Returns 0, or
 * -1 when it could not open (a message says why). */
int tui_app_push(struct tui_app *a, const char *name, const void *arg);
/* Closes the top screen once the running handler returns; closing the last
 * one quits. */
void tui_app_pop(struct tui_app *a);
/* Shows a one-line message in the footer until the next key. */
void tui_app_msg(struct tui_app *a, bool bad, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The registry: every screen, in one table. */
extern const struct tui_screen tui_screen_home, tui_screen_lesson, tui_screen_question,
    tui_screen_lab, tui_screen_progress, tui_screen_calc, tui_screen_review, tui_screen_mistakes,
    tui_screen_search, tui_screen_formulas, tui_screen_code;
const struct tui_screen *tui_screen_find(const char *name);

/* ---- shared view helpers (tui_app.c) ------------------------------------- */

/* utf8 under TUI_CS_UTF8, ascii otherwise. */
const char *tui_glyph(enum tui_charset cs, const char *utf8, const char *ascii);
#define TUI_ST(a, c) ((struct tui_style){(uint8_t)(a), (uint8_t)(c)})

/* The whole frame: title bar (row 0), body drawn by the caller, key footer
 * (last row) showing msg when non-empty. Returns the body rectangle. */
struct tui_rect tui_view_frame(struct tui_canvas *c, const char *title, const char *user,
                               struct tui_keymap keys, const char *msg, bool msg_bad);
/* The "terminal too small: have W×H, need 80×24" screen. */
void tui_view_too_small(struct tui_canvas *c);
/* The help overlay: a box over the body listing keys and the global keys. */
void tui_view_help(struct tui_canvas *c, const char *title, struct tui_keymap keys);
/* Writes wrapped text into rows [y, y + max_rows) of r, returns rows used. */
int tui_view_wrapped(struct tui_canvas *c, struct tui_rect r, int y, const char *text,
                     struct tui_style st, int max_rows);

/* ---- form rows (tui_form.c) ---------------------------------------------- */

/* One row of a parameter or input form (labs, calculators). */
struct tui_form_field {
    char *label; /* the parameter or input name */
    char *value; /* as shown: "0.2", "100 s", "sine" */
    char *range; /* "0 to 1", "sync|async", "on/off" */
    char *help;  /* or NULL */
};
/* Frees n fields and their strings; NULL does nothing. */
void tui_form_fields_free(struct tui_form_field *f, size_t n);

/* The value cell of a form row at (y, x), w columns: `value` in style st, or
 * while `editing` the input `in` underlined with *cur placed in it. All
 * pointers borrowed; cur is written only while editing. */
void tui_view_form_value(struct tui_canvas *c, int y, int x, int w, const char *value,
                         struct tui_style st, struct tui_input *in, bool editing,
                         struct tui_cursor *cur);

/* ---- home (tui_screen_home.c) -------------------------------------------- */

struct tui_home_item {
    bool is_pack; /* a pack heading; else a lesson */
    char *pack_id;
    char *lesson_id; /* NULL for a pack */
    char *title;
    int questions, answered;
    double score, max;
    bool cont; /* the lesson to continue */
};

struct tui_home_model {
    struct tui_home_item *items;
    size_t n;
    size_t *shown; /* indices of items passing the search, in order */
    size_t n_shown;
    size_t sel;     /* index into shown (always a lesson when any) */
    size_t top;     /* first row of shown drawn */
    bool searching; /* the search line has the keys */
    struct tui_input search;
    /* Lessons whose pages, questions or calculators hold the search text
     * ("pack:lesson"; the screen searches, lessons' lesson_search_run), and
     * how many places in all: they show too, and Tab lists the places. */
    char **hit_lessons;
    size_t n_hit_lessons, n_hits;
    char *cont_text; /* "Amdahl's law ... — page 2 of 7", or NULL */
    size_t n_labs;
};
void tui_home_model_init(struct tui_home_model *m);
void tui_home_model_fini(struct tui_home_model *m);
/* Recomputes `shown` from the search text (case-insensitive, on lesson and
 * pack titles and ids, or a lesson in hit_lessons; a pack shows when any of
 * its lessons does) and keeps the selection on a lesson. */
void tui_home_filter(struct tui_home_model *m);
/* Moves the selection by delta lessons. */
void tui_home_move(struct tui_home_model *m, int delta);
/* The selected lesson item or NULL. */
const struct tui_home_item *tui_home_selected(const struct tui_home_model *m);
void tui_view_home(struct tui_home_model *m, struct tui_canvas *c, struct tui_rect r,
                   struct tui_cursor *cur);

/* ---- lesson reader (tui_screen_lesson.c) --------------------------------- */

struct tui_lesson_q {
    char *qid; /* "pack:id" */
    char *title;
    char *kind; /* the question kind, or TUI_LESSON_CALC for a calculator */
    int attempts;
    double best, points;
    bool answered;
    bool hidden; /* answered in an exam not yet submitted */
    bool helped; /* given up on, and no try before the give-up earned anything: the
                    solution was shown (lesson_help_of: with help, or not answered) */
};

/* The kind of a tui_lesson_q that is a calculator ("pack:calc"), opened on
 * the calculator screen; it has no points. */
#define TUI_LESSON_CALC "calculator"
bool tui_lesson_q_is_calc(const struct tui_lesson_q *q);

struct tui_lesson_model {
    char *lesson_title;
    char *exam_line; /* an exam lesson: its state ("exam: 3 of 23 answered ..."), else NULL */
    bool exam_open;  /* started or not, not yet submitted: answers show no grade */
    int page, n_pages;
    struct tui_doc doc;      /* the page rendered at doc.width */
    size_t top;              /* first doc line shown */
    int doc_rows;            /* rows the last draw gave the page (for paging) */
    struct tui_lesson_q *qs; /* questions following this page */
    size_t n_qs;
    size_t qsel;
};
void tui_lesson_model_fini(struct tui_lesson_model *m);
void tui_view_lesson(struct tui_lesson_model *m, struct tui_canvas *c, struct tui_rect r);
/* The width pages are rendered at for a body of width w. */
int tui_lesson_doc_width(int w);

/* ---- multi-line editor (tui_editor.c) ------------------------------------ */

struct tui_editor {
    struct core_buf text; /* UTF-8 */
    size_t cursor;        /* byte offset on a character boundary */
    int top;              /* first display row shown */
    int width;            /* wrap width of the last draw (for Up/Down) */
    int want_col;         /* column kept across Up/Down; -1 none */
};
void tui_editor_init(struct tui_editor *e);
void tui_editor_fini(struct tui_editor *e);
void tui_editor_set(struct tui_editor *e, const char *s);
/* Applies an editing key (printable, Enter, Backspace, Delete, arrows,
 * Home/End, PgUp/PgDn, Ctrl-U). True when consumed. */
bool tui_editor_key(struct tui_editor *e, int key);
/* Draws the text wrapped at r.w into r, scrolled to keep the cursor in
 * view; sets *cur. */
void tui_editor_draw(struct tui_canvas *c, struct tui_rect r, struct tui_editor *e,
                     struct tui_style st, struct tui_cursor *cur);

/* ---- question (tui_screen_question*.c) ----------------------------------- */

enum tui_q_mode {
    TUI_Q_TYPE,      /* the answer line has the keys */
    TUI_Q_KEYS,      /* single-letter commands */
    TUI_Q_PICK,      /* choice/multi/ordering list has the keys */
    TUI_Q_EDIT,      /* design: the editor has the keys */
    TUI_Q_RUBRIC,    /* design: scoring oneself on each rubric item */
    TUI_Q_CERTAINTY, /* CBM: how sure (1..3) before grading */
    TUI_Q_CONFIRM    /* "give up and see the solution? y/n" */
};

enum tui_q_kind { TUI_QK_LINE, TUI_QK_CHOICE, TUI_QK_MULTI, TUI_QK_ORDER, TUI_QK_DESIGN };

struct tui_q_attempt {
    char *answer;
    char *when; /* "2026-11-21 10:00" */
    double score, max;
    bool valid, correct;
    bool after_giveup; /* made after a give-up on this question */
    bool hidden;       /* an exam answer before the exam is submitted: no grade shown */
    bool reviewed;     /* an instructor's review replaced the grade (score, max) */
    char *review;      /* "reviewed by NAME: COMMENT" when reviewed, else NULL */
};

struct tui_question_model {
    char *qid;
    char *title;
    char *kind_name;
    enum tui_q_kind kind;
    double points;
    int variant;
    char *prompt;
    char *unit_hint; /* "(answer in s; ...)" or NULL */
    char *needs_lab; /* or NULL */
    /* choice / multi / ordering */
    char **choices; /* as shown (ordering: in the view's shuffled order) */
    size_t n_choices;
    bool *picked;  /* choice/multi */
    size_t *order; /* ordering: current order, indices into choices */
    size_t csel;
    bool holding; /* ordering: the selected item moves with Up/Down */
    /* hints */
    char **hints;
    size_t n_hints, hints_shown;
    /* answer entry */
    struct tui_input input;
    struct tui_editor editor;
    /* design self-scoring */
    char **rubric;
    double *rubric_points;
    double *self; /* the student's score per rubric item */
    size_t n_rubric, rsel;
    bool self_done;
    /* CBM */
    bool cbm;
    int certainty;   /* 0 unset, 1..3 */
    double cbm_mark; /* points × lesson_cbm_fraction(score, certainty) */
    /* the last grade */
    bool has_result, valid, correct, gave_up;
    bool after_giveup; /* the last grade came after a give-up: it earns nothing */
    double score, max;
    char *parsed, *feedback, *accepted, *reference;
    int attempt_no;
    bool hidden;      /* an exam answer: recorded, graded on submission */
    char *tries_line; /* what the last try earned under the policy, or NULL */
    char *headline;   /* the last grade's verdict (lesson_answer_headline), or NULL */
    /* the attempt policy and exam mode */
    struct grader_policy policy; /* what each try can earn (the attempt list shows it) */
    char *policy_line;           /* "policy: 3 tries; ... · 1 of 3 used", or the exam's rule */
    bool closed;          /* no try left (or the exam's one answer given, or the exam over) */
    bool exam_open;       /* an exam not yet submitted: grades are withheld */
    bool sealed;          /* graded work of a class: recorded ungraded, variant fixed, no give-up */
    bool has_params;      /* draws numbers per variant: v shows a new variant */
    bool exam;            /* the question is part of an exam lesson */
    bool show_solution;   /* the solution is shown at this variant (lessons' view.solution: it
                             was answered or given up on here, and no graded answer is left) */
    bool practice;        /* this variant is practice (lessons' view.practice): it takes one
                             answer, earning nothing, and then shows its solution */
    bool result_practice; /* the last grade was a practice answer */
    enum tui_q_mode before_confirm; /* the mode to go back to from TUI_Q_CONFIRM */
    /* history */
    struct tui_q_attempt *attempts;
    size_t n_attempts;
    size_t n_giveups; /* stored give-ups at this question */
    enum tui_q_mode mode;
    size_t top;  /* scroll (rows) */
    bool follow; /* keep the answer area in view */
};
void tui_question_model_fini(struct tui_question_model *m);
/* Whether the question takes no more answers (no try left: also an exam
 * question once its one answer is given, or the exam is over), unless this
 * variant is practice: no answer line or pick list is offered, only the
 * keys. */
bool tui_question_locked(const struct tui_question_model *m);
/* The answer text for the picked choices / current order: "b", "a c",
 * "c a d b". Caller frees. */
char *tui_question_pick_answer(const struct tui_question_model *m);
/* Free the last grade's texts / the attempt history and clear them. */
void tui_question_result_free(struct tui_question_model *m);
void tui_question_attempts_free(struct tui_question_model *m);
/* The line under the prompt: the policy in words (policy) and where the
 * student stands (t), or the exam's rule; sets m->closed. */
void tui_question_set_policy(struct tui_question_model *m, const char *policy,
                             const struct lesson_tries *t, bool exam, bool exam_over);
/* The last grade from lessons' result: score, feedback, accepted answer,
 * what the try earned under the policy (policy: its words; exam: the
 * question is in an exam). certainty: 1..3 stated, 0 none. */
void tui_question_set_result(struct tui_question_model *m, const struct lesson_answer_result *res,
                             int certainty, const char *policy, bool exam);
/* What to say about a unit: a hint for ratios and per cents, else NULL.
 * Static. */
const char *tui_question_unit_hint(const char *unit);
/* The answer entry of a question kind ("choice", "design", ...; NULL: a
 * line), and the mode a question opens in. */
enum tui_q_kind tui_question_kind_of(const char *kind);
enum tui_q_mode tui_question_start_mode(const struct tui_question_model *m);
/* The mode after a change, settled by the controller (never while
 * drawing): a pick list has no separate command mode unless the question
 * is closed, so TUI_Q_KEYS becomes TUI_Q_PICK there. */
void tui_question_settle(struct tui_question_model *m);
/* The pick list: move the selection by d (-1, 1; a held ordering item moves
 * with it); Space (choice: this one; multi: toggle; ordering: hold). */
void tui_question_move(struct tui_question_model *m, int d);
void tui_question_pick(struct tui_question_model *m);
/* The self-score of the selected rubric item, clamped to 0..its points. */
void tui_question_self_set(struct tui_question_model *m, double v);
/* Draws the model (tui_screen_question_view.c); changes only the scroll
 * state (m->top and m->follow: the answer area kept in view, and the
 * editor's top row). */
void tui_view_question(struct tui_question_model *m, struct tui_canvas *c, struct tui_rect r,
                       struct tui_cursor *cur);

/* ---- lab (tui_screen_lab*.c) --------------------------------------------- */

enum tui_lab_phase { TUI_LAB_LIST, TUI_LAB_FORM, TUI_LAB_RUN, TUI_LAB_DONE };

struct tui_lab_item {
    char *name, *title, *summary;
};

/* One metric series as the screen keeps it (x = step). A snapshot series
 * (lab_def.snapshot) keeps one point per step, the latest, sorted by step. */
struct tui_lab_series {
    char *name, *label, *unit, *chart, *x_label;
    char *chart_title; /* the chart's title for people (lab_chart_def), or NULL: chart */
    bool x_log;        /* the chart's x axis is logarithmic (lab_chart_def.x_log) */
    double *x, *y;
    size_t n, cap;
    bool snapshot;
};

struct tui_lab_fig {
    char *label, *value;
};

struct tui_lab_q {
    char *qid, *title;
    bool answered;
};

struct tui_lab_model {
    enum tui_lab_phase phase;
    /* list */
    struct tui_lab_item *labs;
    size_t n_labs, lsel;
    /* form */
    char *lab_name, *lab_title;
    struct tui_form_field *fields;
    size_t n_fields, fsel; /* fsel == n_fields: the start row */
    bool editing;
    struct tui_input edit;
    char *error;
    /* run */
    struct tui_lab_series *series;
    size_t n_series;
    char **logs; /* the last lines, oldest first */
    size_t n_logs;
    double progress;
    char *progress_what;
    char *status;        /* "running", "done", "cancelled", "failed: ..." */
    double elapsed;      /* seconds */
    bool blocks;         /* block characters instead of braille */
    size_t chart_page;   /* charts shown: page * per page on (views clamp it) */
    size_t per_page;     /* charts per page of the last draw (0: TUI_LAB_CHARTS_PER_PAGE); a
                            draw that changes it keeps the first chart shown */
    char *note;          /* the run's LAB_LOG_NOTE (the CPU analog and why), shown under the
                            header; NULL none */
    bool confirm_cancel; /* q was pressed while running: "cancel the run? y/n" */
    /* done */
    struct tui_lab_fig *figs;
    size_t n_figs;
    size_t ftop;      /* first result row shown */
    int fig_rows;     /* result rows the last draw had room for (for paging) */
    bool focus_qs;    /* Up/Down move in the questions, else they scroll the results */
    char *noise;      /* the run was noisy: why (the summary's "noise"), else NULL */
    long long run_id; /* the stored run, 0 when unknown */
    struct tui_lab_q *qs;
    size_t n_qs, qsel;
};
/* ---- the model (tui_screen_lab_model.c, pure) ---- */
void tui_lab_model_fini(struct tui_lab_model *m);
/* Frees and clears the run part (series, logs, progress, figures). */
void tui_lab_model_clear_run(struct tui_lab_model *m);
/* Replaces the log lines / figures with copies of logs[0..n) / figs[0..n). */
void tui_lab_model_set_logs(struct tui_lab_model *m, char *const *logs, size_t n);
void tui_lab_model_set_figs(struct tui_lab_model *m, const struct tui_lab_fig *figs, size_t n);
/* Appends a copy of series s without its points. */
void tui_lab_model_add_series(struct tui_lab_model *m, const struct tui_lab_series *s);
/* Free n elements and the array; NULL does nothing. */
void tui_lab_series_free(struct tui_lab_series *s, size_t n);
void tui_lab_figs_free(struct tui_lab_fig *f, size_t n);
void tui_lab_qs_free(struct tui_lab_q *q, size_t n);
void tui_lab_series_push(struct tui_lab_series *s, double x, double y);
/* Adds a sample as the series keeps them: appended, or in a snapshot series
 * replacing the point at step x (inserted in step order when new). */
void tui_lab_series_add(struct tui_lab_series *s, double x, double y);
/* Brings dst's points up to src's (same series, src only ever added to):
 * appends what is new, or copies every point of a snapshot series (whose
 * points change in place). */
void tui_lab_series_sync(struct tui_lab_series *dst, const struct tui_lab_series *src);
/* Charts are drawn in pages of up to TUI_LAB_CHARTS_PER_PAGE (2×2) where
 * each keeps TUI_LAB_CHART_MIN_H rows, else two side by side (the summary
 * at 80×24). The chart groups (series sharing lab_series_def.chart, in
 * series order) the current phase draws: while running every group, on the
 * summary only those with samples; and the pages they fill (at least 1). */
#define TUI_LAB_CHARTS_PER_PAGE 4
#define TUI_LAB_CHART_MIN_H 8
size_t tui_lab_chart_count(const struct tui_lab_model *m);
size_t tui_lab_chart_pages(const struct tui_lab_model *m);
/* ---- the views (tui_screen_lab_view.c) ---- */
void tui_view_lab(struct tui_lab_model *m, struct tui_canvas *c, struct tui_rect r,
                  struct tui_cursor *cur);

/* ---- a run on its own thread (tui_screen_lab_live.c) ---- */
struct lab_def;
struct lab_params;
struct tui_lab_live;
/* Starts lab def with params (borrowed: unchanged and alive until the run
 * is joined) on a thread of its own, which opens the store at db_path
 * (borrowed likewise) and records the run as user_id. The series of def
 * come first, in its order. NULL when no thread could be started. */
struct tui_lab_live *tui_lab_live_start(const struct lab_def *def, const struct lab_params *params,
                                        const char *db_path, int64_t user_id);
/* Copies into m what the run added since the last copy: series, log,
 * progress, note, noise, figures. True once the run has finished. */
bool tui_lab_live_sync(struct tui_lab_live *lv, struct tui_lab_model *m);
/* Asks the run to stop (returns at once). */
void tui_lab_live_cancel(struct tui_lab_live *lv);
/* Waits for the run's thread, copies what is left into m and sets
 * m->status: "done", "cancelled" or "failed: <why>". */
void tui_lab_live_join(struct tui_lab_live *lv, struct tui_lab_model *m);
/* Cancels and joins a run not joined yet, then frees; NULL does nothing. */
void tui_lab_live_free(struct tui_lab_live *lv);

/* ---- progress (tui_screen_progress.c) ------------------------------------ */

/* One item of the course rubric (lessons' lesson_standing). */
struct tui_prog_item {
    char *id, *title;
    double max;    /* 10 or 5 */
    double graded; /* on the item's scale, over all its questions */
    int questions, answered;
    bool rated;
    double self;            /* the latest self-rating, on the item's scale */
    char *gap;              /* "well calibrated", "over-confident", ... or NULL: self against
                               graded_answered, the score on the questions answered */
    double graded_answered; /* on the item's scale, over the questions answered */
};

/* One question of the questions tab: answered, given up on or pending. */
struct tui_prog_q {
    char *pack_id, *id, *title, *lesson; /* lesson: its title */
    double score, points;
    int tries;
    bool gave_up;
    bool pending; /* an exam not submitted, or graded work awaiting its grade */
};

/* The tabs of the progress screen. */
enum {
    TUI_PROG_LESSONS,
    TUI_PROG_TOPICS,
    TUI_PROG_RUBRIC,
    TUI_PROG_QUESTIONS,
    TUI_PROG_STUDY,
    TUI_PROG_TABS
};

struct tui_progress_model {
    struct lesson_tally_list lessons, topics; /* lessons named by their titles */
    char **lesson_keys;                       /* "pack:lesson" of each lessons entry */
    struct tui_prog_item *items;
    size_t n_items;
    struct tui_prog_q *qs; /* the questions answered or given up on, in course order */
    size_t n_qs;
    int n_gave_up; /* of them given up on */
    int questions, answered;
    double score, max;   /* over all questions */
    double course;       /* graded total on the 100-point course rubric */
    char *level;         /* "review", "beginner+", ..., "expert" */
    char *level_meaning; /* one line */
    int n_rated;         /* rubric items with a self-rating */
    double self_total;
    char *self_level; /* NULL unless every item is rated */
    int n_compared;   /* rated items with answered questions */
    double self_compared, graded_compared, max_compared;
    char *calibration; /* gap word over the compared items, or NULL */
    char **study;      /* "what to study next" lines */
    char **study_keys; /* "pack:lesson" of each */
    size_t n_study;
    int tab;      /* TUI_PROG_* */
    bool rating;  /* rating oneself on the rubric items */
    double *rate; /* per item while rating */
    size_t rsel;
    size_t sel; /* the selected row of the tab's list (not the rubric's) */
    size_t top; /* its first row shown */
    int rows;   /* list rows of the last draw (for paging) */
};
void tui_progress_model_fini(struct tui_progress_model *m);
/* Tallies progress rows per lesson (named by the lesson titles in ls when
 * found, else "pack:lesson") and per topic, and the totals, as
 * lesson_tallies_compute sums them; and lists the questions answered or
 * given up on (titles from qs, nq of them). Pure. */
void tui_progress_tally(struct tui_progress_model *m, const struct db_progress_row *rows, size_t n,
                        const struct db_lesson *ls, size_t nl);
void tui_progress_questions(struct tui_progress_model *m, const struct db_progress_row *rows,
                            size_t n, const struct db_question *qs, size_t nq,
                            const struct db_lesson *ls, size_t nl);
/* How many rows the current tab's list has (for moving the selection). */
size_t tui_progress_rows(const struct tui_progress_model *m);
/* A topic as people read it: "training-memory" -> "Training memory".
 * Writes at most n bytes. Pure. */
void tui_topic_name(const char *tag, char *buf, size_t n);
void tui_view_progress(struct tui_progress_model *m, struct tui_canvas *c, struct tui_rect r);

/* ---- the study lists (tui_study_list.c): mistakes, search, formulas ------- */

enum tui_target_kind { TUI_TARGET_NONE, TUI_TARGET_QUESTION, TUI_TARGET_LESSON, TUI_TARGET_CALC };

#define TUI_STUDY_LINES 3 /* detail lines under an entry's title */

/* One entry: a title line (mark, title, a note at the right) and up to
 * TUI_STUDY_LINES detail lines (NULL: none), and what Enter opens. Owns its
 * strings. */
struct tui_study_item {
    char *mark; /* one glyph, or NULL */
    uint8_t mark_color;
    char *title;
    char *note; /* at the right of the title line ("2026-11-21 10:00"), or NULL */
    char *lines[TUI_STUDY_LINES];
    bool line0_plain; /* the first detail line in the normal colour (a formula) */
    enum tui_target_kind target;
    char *pack_id, *lesson_id;
    char *id;      /* question or calculator id (bare) */
    int page;      /* TUI_TARGET_LESSON: 0-based page */
    int variant;   /* TUI_TARGET_QUESTION: the variant to open (1..) */
    char *calc_id; /* a second target: the calculator (bare id), or NULL */
};
void tui_study_items_free(struct tui_study_item *it, size_t n);

struct tui_study_list {
    struct tui_study_item *items;
    size_t n, sel, top;
    size_t shown; /* entries the last draw showed: a page for PgUp/PgDn */
    char *head;   /* the line above the list, or NULL */
    char *empty;  /* what an empty list says */
};
void tui_study_list_fini(struct tui_study_list *l);
/* Takes items (ownership) in place of the list's, keeping the selection in
 * range. */
void tui_study_list_set(struct tui_study_list *l, struct tui_study_item *items, size_t n);
void tui_study_list_move(struct tui_study_list *l, long d);
const struct tui_study_item *tui_study_list_selected(const struct tui_study_list *l);
/* Draws the list into r: the head, then entries from `top` with the
 * selection kept in view, "N more above/below" where entries are out of
 * view, every text cut with "…". Changes only l->top and l->shown. */
void tui_view_study_list(struct tui_study_list *l, struct tui_canvas *c, struct tui_rect r);

/* The actions every study screen has, in its key table under these
 * numbers; a screen's own actions are numbered from TUI_STUDY_A_OWN. */
enum tui_study_action {
    TUI_STUDY_A_UP = 1,
    TUI_STUDY_A_DOWN,
    TUI_STUDY_A_PGUP,
    TUI_STUDY_A_PGDN,
    TUI_STUDY_A_BACK,
    TUI_STUDY_A_OWN
};
/* The movement keys of a study screen whose letters are keys (formulas,
 * mistakes; search takes letters as its text): rows of a struct
 * tui_binding table, `what` naming an entry ("formula"). */
/* clang-format off */
#define TUI_STUDY_MOVE_KEYS(what)                                                 \
    {TUI_K_DOWN, 'j', TUI_STUDY_A_DOWN, "j/Down", "move", "next " what},          \
    {TUI_K_UP, 'k', TUI_STUDY_A_UP, "k/Up", NULL, "previous " what},              \
    {TUI_K_PGDN, ' ', TUI_STUDY_A_PGDN, "PgDn", NULL, "a page down"},             \
    {TUI_K_PGUP, 'b', TUI_STUDY_A_PGUP, "PgUp", NULL, "a page up"}
#define TUI_STUDY_BACK_KEY {'q', TUI_K_ESC, TUI_STUDY_A_BACK, "q", "back", "back"}
/* clang-format on */
/* Does a shared action: moves the selection by one or by a page (the
 * entries the last draw showed), or closes the screen. False, doing
 * nothing, for any other action (the screen's own). */
bool tui_study_list_action(struct tui_app *a, struct tui_study_list *l, int act);
/* For a study screen whose state is a heap struct that begins with its
 * struct tui_study_list and owns nothing else (formulas, mistakes): its
 * draw (the list over the whole body) and its leave (frees the list and
 * the state). */
void tui_study_screen_draw(struct tui_app *a, void *st, struct tui_canvas *c, struct tui_rect r,
                           struct tui_cursor *cur);
void tui_study_screen_leave(struct tui_app *a, void *st);
/* Opens it's target (calc: its second target, the calculator) on a new
 * screen. False when it has none or it could not open (a message says why). */
bool tui_study_open(struct tui_app *a, const struct tui_study_item *it, bool calc);

/* The lists of the study screens from lessons' records (pure, for tests):
 * mistakes (tui_screen_mistakes.c), search hits (tui_screen_search.c) and
 * the formula sheet (tui_screen_formulas.c). *out is the caller's
 * (tui_study_items_free, or tui_study_list_set). */
void tui_mistakes_items(const struct lesson_mistake *m, size_t n, enum tui_charset cs,
                        struct tui_study_item **out, size_t *nout);
void tui_search_items(const struct lesson_hit *h, size_t n, enum tui_charset cs,
                      struct tui_study_item **out, size_t *nout);
void tui_formula_items(const struct lesson_formula *fs, size_t n, enum tui_charset cs,
                       struct tui_study_item **out, size_t *nout);

/* ---- calculator (tui_screen_calc.c) -------------------------------------- */

enum tui_calc_phase { TUI_CALC_LIST, TUI_CALC_FORM };

struct tui_calc_item {
    char *id; /* "pack:calc" */
    char *title;
    char *lesson; /* the lesson's title */
};

/* One output as shown: a formatted number (value) or a text (text). */
struct tui_calc_out {
    char *label;
    char *value; /* "2.5x", "320 ms" (lesson_calc_value_format); NULL for a text */
    char *text;  /* verbatim; one with several lines is drawn in a box */
};

struct tui_calc_model {
    enum tui_calc_phase phase;
    /* list */
    struct tui_calc_item *items;
    size_t n_items, isel, itop;
    /* form */
    char *title;
    char *where; /* "warpbench.core:amdahl.laws · lesson Amdahl's law" */
    struct tui_form_field *fields;
    size_t n_fields, fsel;
    bool editing;
    struct tui_input edit;
    struct tui_calc_out *outs;
    size_t n_outs;
    char *error;  /* compute failed: shown instead of the outputs; or NULL */
    char *stale;  /* while editing: why the field's text is not the value the outputs
                     are for ("'0,11' is not a number ..."), shown instead of them; or NULL */
    size_t otop;  /* first output row shown */
    int out_rows; /* output rows the last draw had room for (for paging) */
};
void tui_calc_model_init(struct tui_calc_model *m);
void tui_calc_model_fini(struct tui_calc_model *m);
/* Frees and clears the outputs and the error. */
void tui_calc_model_clear_outs(struct tui_calc_model *m);
/* The next value when stepping v by dir (+1/-1) within [min, max]: integers
 * by 1; reals by a tenth of v's leading decade (0.2 -> 0.21, 100 -> 110;
 * going down from a power of ten the step is the next smaller one, so every
 * step can be undone), from 0 by a hundredth of the range's decade (or 1
 * when unbounded). Clamped to the range; returns v unchanged at a bound.
 * Pure. */
double tui_calc_step(double v, int dir, double min, double max, bool integer);
/* The range of an input as shown: "0 to 1", "1 to 100000, whole",
 * "at least 0", "at most 5", "any number". Pure. */
void tui_calc_range_text(double min, double max, bool integer, char *buf, size_t n);
void tui_view_calc(struct tui_calc_model *m, struct tui_canvas *c, struct tui_rect r,
                   struct tui_cursor *cur);

/* ---- design review (tui_screen_review.c) --------------------------------- */

/* One rubric concept of the answer under review. */
struct tui_review_concept {
    char *label;
    double points;
    double self;  /* the student's self-score, NaN when none */
    double score; /* the reviewer's, being set */
};

/* One design answer of the class (lessons' lesson_review_item, as shown). */
struct tui_review_entry {
    int64_t attempt; /* class store id */
    char *student;   /* "key (user)" */
    char *question;  /* "pack:question" and the title */
    char *prompt, *answer;
    double points;
    bool auto_valid;
    double auto_score; /* out of points */
    char *auto_feedback;
    bool has_self;
    double self_score; /* out of points */
    bool reviewed;
    double rv_score; /* out of points */
    struct tui_review_concept *concepts;
    size_t n_concepts;
    struct tui_input comment;
    bool dirty;            /* scores or comment changed since loaded or saved */
    bool sealed;           /* graded work: the review is its grade */
    int64_t superseded_by; /* a later answer of the student's to it (class id), 0: none */
    /* What the automatic grader reads in the answer, concept by concept
     * (read.claims: the clause, subject, relation and object), read when
     * the answer is first shown (lesson_review_read); `read_error` says why
     * it could not be. */
    bool has_read;
    struct grader_result read;
    char *read_error;
};

struct tui_review_model {
    struct tui_review_entry *items;
    size_t n, sel;   /* the answer shown */
    size_t csel;     /* the rubric concept selected */
    bool commenting; /* the comment line has the keys */
    int confirm;     /* an action waiting for "save, discard or stay?" (unsaved work); 0: none */
    bool all;        /* reviewed answers too */
    size_t top;      /* first row of the answer text shown */
    int answer_rows; /* rows the last draw gave the answer (for paging) */
};
void tui_review_model_fini(struct tui_review_model *m);
/* The reviewer's total for entry e: its points times the concept scores
 * over the concept points. Pure. */
double tui_review_total(const struct tui_review_entry *e);
void tui_view_review(struct tui_review_model *m, struct tui_canvas *c, struct tui_rect r,
                     struct tui_cursor *cur);

#endif /* WB_TUI_SCREEN_H */
