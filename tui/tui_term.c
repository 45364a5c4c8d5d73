/*
 * tui_term.c — the only code that talks to curses (tmux's tty.c layer).
 *
 * Takes the terminal (locale, curses modes, colours), turns curses input into
 * enum tui_key values, copies a canvas to the screen writing only the cells
 * that changed since the previous frame (then wnoutrefresh + one doupdate,
 * so a 10 Hz chart never flickers), and gives the terminal back on exit, on
 * SIGINT/SIGTERM/SIGHUP (through the main loop, which leaves cleanly) and on
 * a crash signal (endwin here, then the signal is raised again).
 *
 * raw() rather than cbreak(): Ctrl-C then arrives as a key, so the lab
 * screen can cancel a run with it and every other screen quits cleanly,
 * and Ctrl-S reaches the design editor instead of freezing the terminal
 * (XON/XOFF). A SIGINT from outside still works: it is turned into the same
 * TUI_K_CTRL_C key.
 */
#include "tui/tui_screen.h"

#include <curses.h>
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>
#include <wchar.h>

static struct {
    bool open;
    bool utf8, color;
    SCREEN *scr;
    struct tui_canvas prev; /* what the screen shows now */
    bool have_prev;
} term;

static volatile sig_atomic_t sig_int, sig_quit;
static const int crash_signals[] = {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL};
static const int quit_signals[] = {SIGTERM, SIGHUP};

static void on_sigint(int sig)
{
    (void)sig;
    sig_int = 1;
}

static void on_sigquit(int sig)
{
    (void)sig;
    sig_quit = 1;
}

/* endwin() is not async-signal-safe, but after a crash the alternative is a
 * terminal left in raw mode without echo; every curses program makes this
 * trade. SA_RESETHAND has put the default action back, so re-raising ends
 * the process the way the crash would have (core dump included). */
static void on_crash(int sig)
{
    if (term.open) {
        term.open = false;
        endwin();
    }
    raise(sig);
}

static void install(int sig, void (*fn)(int), int flags)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = fn;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = flags; /* no SA_RESTART: a signal interrupts the key wait */
    sigaction(sig, &sa, NULL);
}

static void signals_install(void)
{
    install(SIGINT, on_sigint, 0);
    for (size_t i = 0; i < sizeof quit_signals / sizeof quit_signals[0]; i++)
        install(quit_signals[i], on_sigquit, 0);
    for (size_t i = 0; i < sizeof crash_signals / sizeof crash_signals[0]; i++)
        install(crash_signals[i], on_crash, (int)SA_RESETHAND);
}

static void signals_restore(void)
{
    signal(SIGINT, SIG_DFL);
    for (size_t i = 0; i < sizeof quit_signals / sizeof quit_signals[0]; i++)
        signal(quit_signals[i], SIG_DFL);
    for (size_t i = 0; i < sizeof crash_signals / sizeof crash_signals[0]; i++)
        signal(crash_signals[i], SIG_DFL);
}

/* Colour roles -> pairs 1..TUI_C_COUNT-1 (foreground on the default
 * background, so the terminal's own theme shows through). */
static void colors_init(void)
{
    static const short fg[TUI_C_COUNT] = {
        [TUI_C_ACCENT] = COLOR_CYAN, [TUI_C_GOOD] = COLOR_GREEN, [TUI_C_BAD] = COLOR_RED,
        [TUI_C_WARN] = COLOR_YELLOW, [TUI_C_MUTED] = -1,         [TUI_C_CODE] = COLOR_YELLOW,
        [TUI_C_S1] = COLOR_CYAN,     [TUI_C_S2] = COLOR_MAGENTA, [TUI_C_S3] = COLOR_YELLOW,
        [TUI_C_S4] = COLOR_GREEN,    [TUI_C_S5] = COLOR_RED,     [TUI_C_S6] = COLOR_BLUE,
    };
    start_color();
    bool dflt = use_default_colors() == OK;
    for (short i = 1; i < TUI_C_COUNT && i < COLOR_PAIRS; i++)
        init_pair(i, fg[i] < 0 && !dflt ? COLOR_WHITE : fg[i], dflt ? -1 : COLOR_BLACK);
}

int tui_term_open(struct tui_term_info *info, struct core_err *err)
{
    if (term.open)
        return 0;
    /* Only the character set comes from the environment: numbers keep the
     * C locale's '.' (LC_NUMERIC stays "C"), so what the screens print is
     * what the commands print and what every reader takes back. */
    setlocale(LC_CTYPE, "");
    const char *cs = nl_langinfo(CODESET);
    term.utf8 = cs && (strcasecmp(cs, "UTF-8") == 0 || strcasecmp(cs, "utf8") == 0);
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
        return core_err_set(err, CORE_ERR_IO,
                            "the terminal UI needs a terminal; use the commands (warpbench "
                            "--help) from scripts");
    /* Our handlers go in first: curses then leaves SIGINT/SIGTERM alone. */
    signals_install();
    set_escdelay(25);
    term.scr = newterm(NULL, stdout, stdin);
    if (!term.scr) {
        signals_restore();
        const char *t = getenv("TERM");
        return core_err_set(err, CORE_ERR_IO, "cannot use terminal type '%s'", t ? t : "(unset)");
    }
    set_term(term.scr);
    term.open = true;
    raw();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    intrflush(stdscr, FALSE);
    meta(stdscr, TRUE);
    leaveok(stdscr, FALSE);
    curs_set(0);
    const char *nc = getenv("NO_COLOR");
    term.color = !(nc && nc[0]) && has_colors();
    if (term.color)
        colors_init();
    term.have_prev = false;
    sig_int = sig_quit = 0;
    if (info) {
        info->utf8 = term.utf8;
        info->color = term.color;
    }
    return 0;
}

void tui_term_close(void)
{
    if (!term.open)
        return;
    term.open = false;
    curs_set(1);
    endwin();
    delscreen(term.scr);
    term.scr = NULL;
    if (term.have_prev)
        tui_canvas_fini(&term.prev);
    term.have_prev = false;
    signals_restore();
}

void tui_term_size(int *w, int *h)
{
    int y, x;
    getmaxyx(stdscr, y, x);
    *w = x;
    *h = y;
}

int tui_term_run_editor(const char *editor, const char *file)
{
    def_prog_mode();
    endwin();
    int st = -1;
    pid_t pid = fork();
    if (pid == 0) {
        /* through the environment, so neither is parsed by the shell but as
         * EDITOR's words */
        setenv("WB_EDITOR", editor, 1);
        setenv("WB_FILE", file, 1);
        execl("/bin/sh", "sh", "-c", "exec $WB_EDITOR \"$WB_FILE\"", "sh", (char *)NULL);
        _exit(127);
    }
    if (pid > 0)
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
            ;
    reset_prog_mode();
    /* everything is drawn anew: the screen holds the editor's last frame */
    if (term.have_prev)
        tui_canvas_clear(&term.prev);
    clearok(curscr, TRUE);
    refresh();
    return pid < 0 ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

bool tui_term_quit_requested(void)
{
    return sig_quit != 0;
}

static int map_code(int k)
{
    switch (k) {
    case KEY_UP:
        return TUI_K_UP;
    case KEY_DOWN:
        return TUI_K_DOWN;
    case KEY_LEFT:
        return TUI_K_LEFT;
    case KEY_RIGHT:
        return TUI_K_RIGHT;
    case KEY_HOME:
    case KEY_A1:
        return TUI_K_HOME;
    case KEY_END:
    case KEY_C1:
        return TUI_K_END;
    case KEY_PPAGE:
    case KEY_A3:
        return TUI_K_PGUP;
    case KEY_NPAGE:
    case KEY_C3:
        return TUI_K_PGDN;
    case KEY_ENTER:
        return TUI_K_ENTER;
    case KEY_BTAB:
        return TUI_K_BTAB;
    case KEY_BACKSPACE:
        return TUI_K_BACKSPACE;
    case KEY_DC:
        return TUI_K_DELETE;
    case KEY_RESIZE:
        return TUI_K_RESIZE;
    default:
        return TUI_K_NONE;
    }
}

static int map_char(wint_t c)
{
    switch (c) {
    case '\r':
    case '\n':
        return TUI_K_ENTER;
    case '\t':
        return TUI_K_TAB;
    case 27:
        return TUI_K_ESC;
    case 127:
    case 8:
        return TUI_K_BACKSPACE;
    case 21:
        return TUI_K_CTRL_U;
    case 3:
        return TUI_K_CTRL_C;
    case 4:
        return TUI_K_CTRL_D;
    case 19:
        return TUI_K_CTRL_S;
    default:
        return (int)c; /* printable, or another control code as itself */
    }
}

int tui_term_key(int timeout_ms)
{
    if (sig_int) {
        sig_int = 0;
        return TUI_K_CTRL_C;
    }
    if (sig_quit)
        return TUI_K_TICK;
    wtimeout(stdscr, timeout_ms < 0 ? 500 : timeout_ms);
    wint_t c;
    int r = wget_wch(stdscr, &c);
    if (sig_int) {
        sig_int = 0;
        return TUI_K_CTRL_C;
    }
    if (r == KEY_CODE_YES) {
        int k = map_code((int)c);
        return k == TUI_K_NONE ? TUI_K_TICK : k;
    }
    if (r == OK)
        return map_char(c);
    return TUI_K_TICK; /* timeout or EINTR */
}

static attr_t attrs_of(struct tui_style st)
{
    attr_t a = A_NORMAL;
    if (st.attr & TUI_A_BOLD)
        a |= A_BOLD;
    if (st.attr & TUI_A_DIM)
        a |= A_DIM;
    if (st.attr & TUI_A_UNDER)
        a |= A_UNDERLINE;
    if (st.attr & TUI_A_REVERSE)
        a |= A_REVERSE;
#ifdef A_ITALIC
    if (st.attr & TUI_A_ITALIC)
        a |= A_ITALIC;
#endif
    /* Muted text is the terminal's own colour, dimmed: readable on dark
     * and light themes alike, and still secondary without colours. */
    if (st.color == TUI_C_MUTED)
        a |= A_DIM;
    return a;
}

static bool cell_eq(const struct tui_cell *a, const struct tui_cell *b)
{
    return a->cp == b->cp && a->st.attr == b->st.attr && a->st.color == b->st.color;
}

static void put_cell(int y, int x, const struct tui_cell *cell)
{
    wchar_t wc[2] = {L' ', 0};
    uint32_t cp = cell->cp;
    if (cp < 32 || cp == 127 || (cp >= 0x80 && cp < 0xa0))
        cp = ' ';
    else if (!term.utf8 && cp > 127)
        cp = '?';
    wc[0] = (wchar_t)cp;
    cchar_t cc;
    short pair = term.color && cell->st.color < TUI_C_COUNT ? (short)cell->st.color : 0;
    setcchar(&cc, wc, attrs_of(cell->st), pair, NULL);
    mvwadd_wch(stdscr, y, x, &cc);
}

void tui_term_draw(const struct tui_canvas *c, const struct tui_cursor *cur)
{
    int sw, sh;
    tui_term_size(&sw, &sh);
    bool full = !term.have_prev || term.prev.w != c->w || term.prev.h != c->h;
    if (full) {
        if (term.have_prev)
            tui_canvas_fini(&term.prev);
        tui_canvas_init(&term.prev, c->w, c->h, c->cs);
        term.have_prev = true;
        werase(stdscr);
        clearok(stdscr, TRUE); /* after a resize the old picture is not to be trusted */
    }
    for (int y = 0; y < c->h && y < sh; y++) {
        for (int x = 0; x < c->w && x < sw; x++) {
            const struct tui_cell *cell = &c->cells[(size_t)y * (size_t)c->w + (size_t)x];
            struct tui_cell *old = &term.prev.cells[(size_t)y * (size_t)c->w + (size_t)x];
            if (!full && cell_eq(cell, old))
                continue;
            *old = *cell;
            if (cell->cp == 0) {
                /* The right half of a wide character: curses fills it when
                 * the left half is written; alone it becomes a space. */
                if (x == 0 ||
                    tui_cp_width(c->cells[(size_t)y * (size_t)c->w + (size_t)x - 1].cp) != 2) {
                    struct tui_cell sp = {' ', cell->st};
                    put_cell(y, x, &sp);
                }
                continue;
            }
            /* A wide character at the right edge does not fit. */
            if (x == sw - 1 && tui_cp_width(cell->cp) == 2) {
                struct tui_cell sp = {' ', cell->st};
                put_cell(y, x, &sp);
                continue;
            }
            put_cell(y, x, cell);
        }
    }
    if (cur && cur->on && cur->y >= 0 && cur->y < sh && cur->x >= 0 && cur->x < sw) {
        wmove(stdscr, cur->y, cur->x);
        curs_set(1);
    } else {
        curs_set(0);
    }
    wnoutrefresh(stdscr);
    doupdate();
}
