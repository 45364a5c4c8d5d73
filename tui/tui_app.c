/*
 * tui_app.c — the TUI's main loop, its screen stack and the one table of
 * screens, plus the frame every screen shares: the title bar, the one-line
 * key footer, the `?` help overlay and the "terminal too small" screen.
 *
 * The loop (STYLE 24): wait for a key or the refresh tick -> let the top
 * screen turn it into an action and apply it -> draw the frame into the
 * canvas -> one terminal update. Only tui_term.c talks to curses.
 */
#include "tui/tui.h"
#include "tui/tui_screen.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the registry --------------------------------------------------------- */

static const struct tui_screen *const screens[] = {
    &tui_screen_home,     &tui_screen_lesson,   &tui_screen_question, &tui_screen_lab,
    &tui_screen_progress, &tui_screen_calc,     &tui_screen_review,   &tui_screen_mistakes,
    &tui_screen_search,   &tui_screen_formulas,
};

const struct tui_screen *tui_screen_find(const char *name)
{
    for (size_t i = 0; i < sizeof screens / sizeof screens[0]; i++)
        if (strcmp(screens[i]->name, name) == 0)
            return screens[i];
    return NULL;
}

/* ---- keys ----------------------------------------------------------------- */

int tui_keymap_action(struct tui_keymap m, int key)
{
    if (key == TUI_K_NONE)
        return 0;
    for (size_t i = 0; i < m.n; i++)
        if (m.v[i].key == key || (m.v[i].key2 && m.v[i].key2 == key))
            return m.v[i].action;
    return 0;
}

/* ---- the stack ------------------------------------------------------------ */

int tui_app_push(struct tui_app *a, const char *name, const void *arg)
{
    const struct tui_screen *s = tui_screen_find(name);
    if (!s) {
        tui_app_msg(a, true, "no screen named %s", name);
        return -1;
    }
    if (a->depth >= TUI_STACK_MAX) {
        tui_app_msg(a, true, "too many screens open; go back first");
        return -1;
    }
    void *st = s->enter(a, arg);
    if (!st)
        return -1;
    a->stack[a->depth].s = s;
    a->stack[a->depth].st = st;
    a->depth++;
    return 0;
}

void tui_app_pop(struct tui_app *a)
{
    a->pops++;
}

static void pop_now(struct tui_app *a)
{
    if (a->depth == 0)
        return;
    a->depth--;
    a->stack[a->depth].s->leave(a, a->stack[a->depth].st);
    a->stack[a->depth].st = NULL;
    a->stack[a->depth].s = NULL;
}

static void apply_pops(struct tui_app *a)
{
    bool popped = false;
    while (a->pops > 0 && a->depth > 0) {
        pop_now(a);
        a->pops--;
        popped = true;
    }
    a->pops = 0;
    if (a->depth == 0) {
        a->quit = true;
        return;
    }
    if (popped && a->stack[a->depth - 1].s->resume)
        a->stack[a->depth - 1].s->resume(a, a->stack[a->depth - 1].st);
}

void tui_app_msg(struct tui_app *a, bool bad, const char *fmt, ...)
{
    char line[CORE_ERR_MSG * 2];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    size_t len = n < 0 ? 0 : (size_t)n < sizeof line ? (size_t)n : sizeof line - 1;
    core_err_fit(line, len, a->msg, sizeof a->msg); /* long paths shortened, the reason kept */
    /* One line: the footer has no room for more. */
    for (char *p = a->msg; *p; p++)
        if (*p == '\n' || *p == '\r' || *p == '\t')
            *p = ' ';
    a->msg_bad = bad;
}

/* ---- shared views --------------------------------------------------------- */

const char *tui_glyph(enum tui_charset cs, const char *utf8, const char *ascii)
{
    return cs == TUI_CS_UTF8 ? utf8 : ascii;
}

int tui_view_wrapped(struct tui_canvas *c, struct tui_rect r, int y, const char *text,
                     struct tui_style st, int max_rows)
{
    if (!text || r.w <= 0)
        return 0;
    struct core_strlist l;
    core_strlist_init(&l);
    tui_text_wrap(text, r.w, &l);
    int rows = 0;
    for (size_t i = 0; i < l.n && rows < max_rows; i++, rows++)
        if (y + rows >= 0 && y + rows < r.h)
            tui_canvas_put(c, r.y + y + rows, r.x, l.items[i], st, r.w);
    core_strlist_fini(&l);
    return rows;
}

/* Footer: "key label" pairs while they fit, "? help" always at the right. */
static void draw_footer(struct tui_canvas *c, int y, struct tui_keymap keys, const char *msg,
                        bool msg_bad)
{
    const struct tui_style key_st = TUI_ST(TUI_A_BOLD, TUI_C_ACCENT);
    const struct tui_style lab_st = TUI_ST(0, TUI_C_DEFAULT);
    int right = c->w - 8; /* room for " ? help" */
    int x = 1;
    if (msg && msg[0]) {
        tui_canvas_put(c, y, x, msg, TUI_ST(TUI_A_BOLD, msg_bad ? TUI_C_BAD : TUI_C_GOOD),
                       right - x - 1);
    } else {
        for (size_t i = 0; i < keys.n; i++) {
            const struct tui_binding *b = &keys.v[i];
            if (!b->label)
                continue;
            int need = tui_text_width(b->keys) + 1 + tui_text_width(b->label);
            if (x + need > right)
                break;
            x += tui_canvas_put(c, y, x, b->keys, key_st, -1);
            x += tui_canvas_put(c, y, x, " ", lab_st, -1);
            x += tui_canvas_put(c, y, x, b->label, lab_st, -1);
            x += 2;
        }
    }
    int hx = c->w - 7;
    tui_canvas_put(c, y, hx, "?", key_st, -1);
    tui_canvas_put(c, y, hx + 1, " help", lab_st, -1);
}

struct tui_rect tui_view_frame(struct tui_canvas *c, const char *title, const char *user,
                               struct tui_keymap keys, const char *msg, bool msg_bad)
{
    const struct tui_style bar = TUI_ST(TUI_A_REVERSE, TUI_C_DEFAULT);
    tui_canvas_fill(c, (struct tui_rect){0, 0, 1, c->w}, ' ', bar);
    int x = tui_canvas_put(c, 0, 1, "Warpbench", TUI_ST(TUI_A_REVERSE | TUI_A_BOLD, 0), -1) + 1;
    int uw = user ? tui_text_width(user) : 0;
    int room = c->w - uw - 3 - (x + 3);
    if (title && title[0] && room > 0) {
        x += tui_canvas_put(c, 0, x, tui_glyph(c->cs, " · ", " - "), bar, -1);
        tui_canvas_put(c, 0, x, title, bar, room);
    }
    if (user && uw < c->w / 3)
        tui_canvas_put(c, 0, c->w - uw - 1, user, bar, -1);
    draw_footer(c, c->h - 1, keys, msg, msg_bad);
    return (struct tui_rect){1, 0, c->h - 2, c->w};
}

void tui_view_too_small(struct tui_canvas *c)
{
    tui_canvas_clear(c);
    char line[128];
    snprintf(line, sizeof line, "terminal too small: have %d%s%d, need %d%s%d", c->w,
             tui_glyph(c->cs, "×", "x"), c->h, TUI_MIN_W, tui_glyph(c->cs, "×", "x"), TUI_MIN_H);
    const char *hint = "enlarge the window, or press Ctrl-C to quit";
    struct tui_rect r = {0, 1, c->h, c->w - 2};
    if (r.w < 1)
        return;
    int y = c->h / 2 - 1;
    if (y < 0)
        y = 0;
    int lw = tui_text_width(line);
    if (lw <= r.w) {
        tui_canvas_put(c, y, (c->w - lw) / 2, line, TUI_ST(TUI_A_BOLD, TUI_C_WARN), -1);
        y++;
    } else {
        y += tui_view_wrapped(c, (struct tui_rect){0, 0, c->h, c->w}, y, line,
                              TUI_ST(TUI_A_BOLD, TUI_C_WARN), c->h);
    }
    int hw = tui_text_width(hint);
    if (y < c->h) {
        if (hw <= c->w)
            tui_canvas_put(c, y, (c->w - hw) / 2, hint, TUI_ST(0, TUI_C_MUTED), -1);
        else
            tui_view_wrapped(c, (struct tui_rect){0, 0, c->h, c->w}, y, hint,
                             TUI_ST(0, TUI_C_MUTED), c->h);
    }
}

void tui_view_help(struct tui_canvas *c, const char *title, struct tui_keymap keys)
{
    static const struct tui_binding global[] = {
        {'?', 0, 0, "?", NULL, "show or hide this help"},
        {TUI_K_CTRL_C, 0, 0, "Ctrl-C", NULL, "quit Warpbench (in a running lab: cancel it)"},
    };
    size_t rows = keys.n + 2 + 1; /* keys, globals, a blank */
    int w = c->w - 8 > 72 ? 72 : c->w - 8;
    int h = (int)rows + 4;
    if (h > c->h - 2)
        h = c->h - 2;
    if (w < 20 || h < 5)
        return;
    struct tui_rect box = {(c->h - h) / 2, (c->w - w) / 2, h, w};
    tui_canvas_fill(c, box, ' ', TUI_ST(0, 0));
    char t[96];
    snprintf(t, sizeof t, "keys: %s", title ? title : "");
    tui_canvas_box(c, box, t, TUI_ST(TUI_A_BOLD, TUI_C_ACCENT));
    int y = box.y + 1, kx = box.x + 2, hx = box.x + 16;
    int last = box.y + box.h - 2;
    for (size_t i = 0; i < keys.n + 2 && y < last; i++) {
        if (i == keys.n)
            y++; /* a blank line before the global keys */
        if (y >= last)
            break;
        const struct tui_binding *b = i < keys.n ? &keys.v[i] : &global[i - keys.n];
        tui_canvas_put(c, y, kx, b->keys, TUI_ST(TUI_A_BOLD, TUI_C_ACCENT), hx - kx - 1);
        tui_canvas_put(c, y, hx, b->help ? b->help : b->label, TUI_ST(0, 0), box.x + w - 2 - hx);
        y++;
    }
    tui_canvas_put(c, box.y + box.h - 2, kx, "any key closes this help", TUI_ST(0, TUI_C_MUTED),
                   w - 4);
}

/* ---- the loop ------------------------------------------------------------- */

static void draw_frame(struct tui_app *a, struct tui_canvas *c, struct tui_cursor *cur)
{
    tui_canvas_clear(c);
    *cur = (struct tui_cursor){0};
    if (c->w < TUI_MIN_W || c->h < TUI_MIN_H) {
        tui_view_too_small(c);
        return;
    }
    const struct tui_screen *s = a->stack[a->depth - 1].s;
    void *st = a->stack[a->depth - 1].st;
    struct tui_keymap km = s->keymap(st);
    const char *title = s->title(st);
    struct tui_rect body = tui_view_frame(c, title, a->user, km, a->msg, a->msg_bad);
    s->draw(a, st, c, body, cur);
    if (a->help) {
        tui_view_help(c, title, km);
        cur->on = false;
    }
}

static void dispatch(struct tui_app *a, int key, bool too_small)
{
    const struct tui_screen *s = a->stack[a->depth - 1].s;
    void *st = a->stack[a->depth - 1].st;
    if (key == TUI_K_TICK) {
        if (s->tick)
            s->tick(a, st);
        return;
    }
    if (key == TUI_K_RESIZE || key == TUI_K_NONE)
        return;
    if (a->help) {
        a->help = false;
        if (key != TUI_K_CTRL_C)
            return;
    }
    /* Below the minimum size nothing is visible to act on, except leaving
     * (a running lab still cancels: its screen sees Ctrl-C first). */
    if (too_small && key != TUI_K_CTRL_C)
        return;
    a->msg[0] = '\0';
    if (s->on_key && s->on_key(a, st, key))
        return;
    if (key == '?') {
        a->help = true;
        return;
    }
    int act = tui_keymap_action(s->keymap(st), key);
    if (act) {
        s->on_action(a, st, act);
        return;
    }
    if (key == TUI_K_CTRL_C)
        a->quit = true;
}

static int loop(struct tui_app *a)
{
    struct tui_canvas c;
    int w, h;
    tui_term_size(&w, &h);
    tui_canvas_init(&c, w, h, a->cs);
    c.mono = !a->color;
    while (!a->quit && a->depth > 0) {
        tui_term_size(&w, &h);
        if (w != c.w || h != c.h)
            tui_canvas_resize(&c, w, h);
        struct tui_cursor cur;
        draw_frame(a, &c, &cur);
        tui_term_draw(&c, &cur);
        const struct tui_screen *s = a->stack[a->depth - 1].s;
        int ms = s->interval_ms ? s->interval_ms(a->stack[a->depth - 1].st) : -1;
        int key = tui_term_key(ms);
        if (tui_term_quit_requested())
            break;
        dispatch(a, key, w < TUI_MIN_W || h < TUI_MIN_H);
        apply_pops(a);
    }
    tui_canvas_fini(&c);
    return 0;
}

int tui_main(const struct tui_opts *o)
{
    struct core_err e = {0};
    struct tui_app a = {0};
    int rc = 0;
    a.db_path = o->db_path;
    a.user = o->user;
    if (db_open(&a.db, o->db_path, &e) != CORE_OK ||
        lesson_session_new(&a.sess, a.db, o->user, &e) != CORE_OK) {
        fprintf(stderr, "warpbench: %s\n", e.msg);
        rc = 6;
        goto out;
    }
    a.user_id = lesson_session_user_id(a.sess);
    struct tui_term_info ti;
    if (tui_term_open(&ti, &e) != CORE_OK) {
        fprintf(stderr, "warpbench: %s\n", e.msg);
        rc = 2;
        goto out;
    }
    a.cs = ti.utf8 ? TUI_CS_UTF8 : TUI_CS_ASCII;
    a.color = ti.color;
    struct tui_review_arg review = {o->class_path};
    if (tui_app_push(&a, o->class_path ? "review" : "home", o->class_path ? &review : NULL) != 0) {
        tui_term_close();
        fprintf(stderr, "warpbench: %s\n", a.msg[0] ? a.msg : "cannot open the home screen");
        rc = 6;
        goto out;
    }
    loop(&a);
    /* Leaving closes every screen: a running lab is cancelled and joined. */
    while (a.depth > 0)
        pop_now(&a);
    tui_term_close();
out:
    lesson_session_free(a.sess);
    db_close(a.db);
    return rc;
}
