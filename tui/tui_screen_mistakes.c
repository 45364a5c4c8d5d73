/*
 * tui_screen_mistakes.c — the mistakes review (`m` on home and progress):
 * every question answered wrong, given up on or missed in an exam, newest
 * first, with what went wrong; Enter opens one on new numbers, with its
 * solution hidden until the new answer (lessons' practice rule). A right
 * answer clears a question from the list when the screen comes back; `a`
 * shows the cleared ones too.
 */
#include "tui/tui_screen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { A_OPEN = TUI_STUDY_A_OWN, A_ALL };

static const struct tui_binding keys[] = {
    TUI_STUDY_MOVE_KEYS("question"),
    {TUI_K_ENTER, 0, A_OPEN, "Enter", "try again", "open the question on new numbers"},
    {'a', 0, A_ALL, "a", "all", "also list the ones answered right since"},
    TUI_STUDY_BACK_KEY,
};

struct mistakes {
    struct tui_study_list l; /* first: tui_study_screen_draw and _leave */
    bool all;
};

/* "2026-11-21T10:00:00.123Z" -> "2026-11-21 10:00" */
static char *when_text(const char *iso)
{
    char w[24];
    snprintf(w, sizeof w, "%s", iso ? iso : "");
    if (strlen(w) >= 16) {
        w[10] = ' ';
        w[16] = '\0';
    }
    return core_xstrdup(w);
}

void tui_mistakes_items(const struct lesson_mistake *m, size_t n, enum tui_charset cs,
                        struct tui_study_item **out, size_t *nout)
{
    struct tui_study_item *it = core_xcalloc(n ? n : 1, sizeof *it);
    for (size_t i = 0; i < n; i++) {
        const struct lesson_mistake *x = &m[i];
        struct tui_study_item *o = &it[i];
        bool helped = x->kind == LESSON_MISTAKE_GAVE_UP;
        o->mark = core_xstrdup(x->cleared                         ? tui_glyph(cs, "✓", "+")
                               : helped                           ? "h"
                               : x->kind == LESSON_MISTAKE_PARTLY ? "~"
                                                                  : tui_glyph(cs, "✗", "x"));
        o->mark_color = x->cleared ? TUI_C_GOOD : helped ? TUI_C_WARN : TUI_C_BAD;
        o->title = core_xstrdup(x->title);
        o->note = when_text(x->when);
        o->lines[0] = core_xasprintf("%s%s%s", x->lesson_title, x->exam ? " (exam)" : "",
                                     x->cleared ? " - answered right since" : "");
        if (x->answer)
            o->lines[1] = core_xasprintf("you answered %s: %s", x->answer, x->what ? x->what : "");
        else
            o->lines[1] = core_xstrdup(x->what ? x->what : "");
        for (char *p = o->lines[1]; *p; p++) /* one line (a design answer spans lines) */
            if (*p == '\n' || *p == '\t')
                *p = ' ';
        o->target = TUI_TARGET_QUESTION;
        o->pack_id = core_xstrdup(x->pack_id);
        o->lesson_id = core_xstrdup(x->lesson_id);
        o->id = core_xstrdup(x->question_id);
        o->variant = x->retry_variant;
    }
    *out = it;
    *nout = n;
}

static void load(struct tui_app *a, struct mistakes *s)
{
    struct core_err e = {0};
    struct lesson_mistake *m = NULL;
    size_t n = 0;
    if (lesson_mistakes_load(a->sess, NULL, s->all, &m, &n, &e) != CORE_OK) {
        tui_app_msg(a, true, "%s", e.msg);
        return;
    }
    size_t open = 0;
    for (size_t i = 0; i < n; i++)
        open += !m[i].cleared;
    struct tui_study_item *it;
    size_t ni;
    tui_mistakes_items(m, n, a->cs, &it, &ni);
    lesson_mistakes_free(m, n);
    tui_study_list_set(&s->l, it, ni);
    free(s->l.head);
    s->l.head = core_xasprintf("%zu question%s to review, newest first: Enter tries one again on "
                               "new numbers",
                               open, open == 1 ? "" : "s");
}

static void *mistakes_enter(struct tui_app *a, const void *arg)
{
    (void)arg;
    struct mistakes *s = core_xcalloc(1, sizeof *s);
    s->l.empty = core_xstrdup("No mistakes to review: every question you answered is right (an "
                              "exam counts once submitted).");
    load(a, s);
    return s;
}

static void mistakes_resume(struct tui_app *a, void *st)
{
    load(a, st); /* a right answer since clears a question */
}

static void mistakes_action(struct tui_app *a, void *st, int act)
{
    struct mistakes *s = st;
    switch (act) {
    case A_OPEN:
        if (!tui_study_list_selected(&s->l))
            tui_app_msg(a, false, "nothing to open");
        else if (tui_study_open(a, tui_study_list_selected(&s->l), false) &&
                 tui_study_list_selected(&s->l)->variant > 1)
            tui_app_msg(a, false, "new numbers (variant %d): the solution shows after you answer",
                        tui_study_list_selected(&s->l)->variant);
        break;
    case A_ALL:
        s->all = !s->all;
        load(a, s);
        tui_app_msg(a, false,
                    s->all ? "the ones answered right since are listed too (a: hide)"
                           : "only the open ones");
        break;
    default:
        tui_study_list_action(a, &s->l, act);
        break;
    }
}

static struct tui_keymap mistakes_keys(const void *st)
{
    (void)st;
    return TUI_KEYMAP(keys);
}

static const char *mistakes_title(const void *st)
{
    (void)st;
    return "mistakes";
}

const struct tui_screen tui_screen_mistakes = {
    .name = "mistakes",
    .enter = mistakes_enter,
    .leave = tui_study_screen_leave,
    .resume = mistakes_resume,
    .on_action = mistakes_action,
    .keymap = mistakes_keys,
    .title = mistakes_title,
    .draw = tui_study_screen_draw,
};
