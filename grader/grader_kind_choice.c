/*
 * grader_kind_choice.c — the kinds with a lettered list: choice (one of
 * several), multi (any subset of several) and ordering (put the items in
 * order).
 *
 * A student answers with the letters shown (b, "a c", "a,c", "ac", "(b)"),
 * or for choice and multi with 1-based numbers or a choice's whole text. A
 * multi answer earns (right picks - wrong picks) / right choices; an
 * ordering answer 1 - 2 * inversions / pairs. An ordering question shows its
 * items shuffled by the variant's seed (mixed with a constant, so the order
 * does not depend on what params drew), never in the declared order, and
 * only its letters are read: numbers could mean shown positions or the
 * items' own numbering.
 *
 * Uses the job (grader_grade.c), the field schema (grader_schema.c) and the
 * variant rng.
 */
#include "grader_lua_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ORDER_SALT 0x6f72646572696e67ULL

/* ---- reading picks ---------------------------------------------------------------- */

/* Reads letters (b, "a c", "a,c", "ac", "(b)"), or 1-based numbers, into
 * picks (0-based, in the order written, at most GRADER_MAX_PICKS * 2). Returns the
 * count, or -1 with `why`. */
static int read_picks(const char *ans, size_t n, int *picks, char *why, size_t wn)
{
    static const char seps[] = " ,;/+&>";
    size_t len = strlen(ans);
    char *norm = core_xmalloc(len + 1);
    grader_text_norm(ans, len, norm);
    int count = 0;
    char last = n ? (char)('a' + n - 1) : 'a';
    const char *s = norm;
    for (;;) {
        s += strspn(s, seps);
        if (!*s)
            break;
        size_t tl = strcspn(s, seps);
        char tok[64];
        size_t tn;
        if (tl < sizeof tok) {
            tn = grader_text_norm(s, tl, tok); /* "(b)" "b." "b)" are b */
        } else {
            snprintf(tok, sizeof tok, "%.40s", s);
            tn = SIZE_MAX;
        }
        s += tl;
        if (tn == 0 || (tn != SIZE_MAX && strcmp(tok, "and") == 0))
            continue;
        bool digits = tn != SIZE_MAX, letters = tn != SIZE_MAX;
        for (size_t i = 0; tn != SIZE_MAX && i < tn; i++) {
            digits &= tok[i] >= '0' && tok[i] <= '9';
            letters &= tok[i] >= 'a' && tok[i] <= 'z';
        }
        if (digits && tn <= 3) {
            int k = atoi(tok);
            if (k < 1 || (size_t)k > n) {
                snprintf(why, wn, "There is no choice %d (they are 1 to %zu, or a to %c).", k, n,
                         last);
                free(norm);
                return -1;
            }
            if (count < GRADER_MAX_PICKS * 2)
                picks[count++] = k - 1;
            continue;
        }
        if (letters && tn <= n) {
            for (size_t i = 0; i < tn; i++) {
                if (tok[i] > last) {
                    if (tn == 1)
                        snprintf(why, wn,
                                 "There is no choice %c: answer with letters from a to %c.", tok[i],
                                 last);
                    else
                        snprintf(why, wn,
                                 "Could not read '%s': answer with letters from a to %c, "
                                 "e.g. 'b' or 'a c'.",
                                 tok, last);
                    free(norm);
                    return -1;
                }
            }
            for (size_t i = 0; i < tn && count < GRADER_MAX_PICKS * 2; i++)
                picks[count++] = tok[i] - 'a';
            continue;
        }
        snprintf(why, wn,
                 "Could not read '%.40s': answer with letters from a to %c, e.g. 'b' or "
                 "'a c'.",
                 tok, last);
        free(norm);
        return -1;
    }
    free(norm);
    if (count == 0)
        snprintf(why, wn, "No choice given: answer with letters from a to %c.", last);
    return count ? count : -1;
}

/* The 0-based index of the choice whose text is the whole answer, or -1. */
static int choice_by_text(struct lua_State *L, const char *ans, size_t n)
{
    size_t len = strlen(ans);
    char *a = core_xmalloc(len + 1);
    grader_text_norm(ans, len, a);
    int found = -1;
    for (size_t i = 1; i <= n && found < 0; i++) {
        struct grader_dval d;
        grader_index(L, GRADER_S_CH, (long long)i, &d);
        size_t cn = d.len;
        const char *c = d.str;
        if (d.type == GRADER_LT_STR) {
            char *cc = core_xmalloc(cn + 1);
            grader_text_norm(c, cn, cc);
            if (cc[0] && strcmp(cc, a) == 0 && !(strlen(a) == 1 && a[0] >= 'a' && a[0] <= 'z'))
                found = (int)i - 1;
            free(cc);
        }
    }
    free(a);
    return found;
}

/* The shown order of an ordering question: shown[k] = declared index. */
void grader_order_shuffle(const struct grader_job *j, size_t n, size_t *shown)
{
    for (size_t i = 0; i < n; i++)
        shown[i] = i;
    if (n < 2)
        return;
    struct grader_rng r;
    grader_rng_init(&r, grader_job_seed(j) ^ ORDER_SALT);
    for (size_t i = n - 1; i > 0; i--) {
        size_t k = (size_t)grader_rng_int(&r, 0, (int64_t)i);
        size_t t = shown[i];
        shown[i] = shown[k];
        shown[k] = t;
    }
    bool identity = true;
    for (size_t i = 0; i < n; i++)
        identity &= shown[i] == i;
    if (identity) { /* never show the answer: rotate by one */
        for (size_t i = 0; i < n; i++)
            shown[i] = (i + 1) % n;
    }
}

/* An answer by item identity (grader_ctx.identity): "#3 #1 #4 #2", the
 * declared numbers (1-based) in the order given, into picks (0-based).
 * Returns the count, or -1 with `why`. */
static int read_identity(const char *ans, size_t n, int *picks, char *why, size_t wn)
{
    int count = 0;
    const char *s = ans;
    for (;;) {
        s += strspn(s, " ,");
        if (!*s)
            break;
        char *end;
        long k = s[0] == '#' ? strtol(s + 1, &end, 10) : 0;
        if (s[0] != '#' || end == s + 1 || k < 1 || (size_t)k > n ||
            (*end && *end != ' ' && *end != ',')) {
            snprintf(why, wn, "'%.40s' is not an answer by item numbers (#1 to #%zu)", ans, n);
            return -1;
        }
        if (count < GRADER_MAX_PICKS * 2)
            picks[count++] = (int)k - 1;
        s = end;
    }
    if (count == 0)
        snprintf(why, wn, "No choice given.");
    return count ? count : -1;
}

/* The declared items (0-based) an answer names, in the order written,
 * checked as its kind requires: one pick for choice, each item exactly
 * once for ordering. choice and multi read letters (shown in declared
 * order), 1-based numbers or a choice's whole text; ordering only the
 * letters of its shuffled view, mapped back to declared items. With
 * j->identity an answer starting with '#' names declared numbers. Returns
 * the count, or -1 with r marked invalid. */
static int read_declared(struct lua_State *L, struct grader_job *j, const char *answer, int *picks)
{
    struct grader_result *r = j->res;
    size_t n = grader_job_n_choices(L);
    char why[200];
    int np;
    bool ordering = j->q->kind == GRADER_ORDERING;
    if (ordering && (n == 0 || n > GRADER_MAX_PICKS))
        grader_job_fail(L, j, "an ordering question needs 2 to 26 items");
    if (j->identity && answer[strspn(answer, " ")] == '#') {
        np = read_identity(answer + strspn(answer, " "), n, picks, why, sizeof why);
    } else if (ordering) {
        /* Numbers would read as shown positions while a student may mean
         * the items' own numbering: only the letters shown are unambiguous. */
        if (strpbrk(answer, "0123456789")) {
            grader_result_invalid(
                r, "Answer with the letters shown (a, b, c, ...) in your order, e.g. 'c a b'.");
            return -1;
        }
        np = read_picks(answer, n, picks, why, sizeof why);
        size_t shown[GRADER_MAX_PICKS];
        grader_order_shuffle(j, n, shown);
        for (int i = 0; i < np; i++)
            picks[i] = (int)shown[picks[i]];
    } else {
        int idx = choice_by_text(L, answer, n);
        if (idx >= 0) {
            picks[0] = idx;
            np = 1;
        } else {
            np = read_picks(answer, n, picks, why, sizeof why);
        }
    }
    if (np < 0) {
        grader_result_invalid(r, why);
        return -1;
    }
    if (j->q->kind == GRADER_CHOICE) {
        for (int i = 1; i < np; i++)
            if (picks[i] != picks[0]) {
                grader_result_invalid(r, "Pick one choice: answer with a single letter, e.g. 'b'.");
                return -1;
            }
        return 1;
    }
    if (ordering) {
        bool seen[GRADER_MAX_PICKS] = {false};
        bool dup = false;
        for (int i = 0; i < np; i++) {
            dup |= seen[picks[i]];
            seen[picks[i]] = true;
        }
        if ((size_t)np != n || dup) {
            char msg[200];
            snprintf(msg, sizeof msg, "Use each of the letters a to %c exactly once, e.g. '%s'.",
                     (char)('a' + n - 1), n >= 3 ? "c a b ..." : "b a");
            grader_result_invalid(r, msg);
            return -1;
        }
    }
    return np;
}

/* The letter declared item d is shown under in this variant. */
static char letter_of(const struct grader_job *j, size_t n, int d)
{
    if (j->q->kind != GRADER_ORDERING)
        return (char)('a' + d);
    size_t shown[GRADER_MAX_PICKS];
    grader_order_shuffle(j, n, shown);
    for (size_t k = 0; k < n; k++)
        if (shown[k] == (size_t)d)
            return (char)('a' + k);
    return '?';
}

/* Record (grader_question_record): the picks as letters shown (parsed) and
 * as declared numbers (canonical). multi keeps each pick once, in declared
 * order; ordering keeps the order given. */
static void picks_record(struct lua_State *L, struct grader_job *j, const char *answer)
{
    struct grader_result *r = j->res;
    size_t n = grader_job_n_choices(L);
    int picks[GRADER_MAX_PICKS * 2];
    int np = read_declared(L, j, answer, picks);
    if (np < 0)
        return;
    if (j->q->kind == GRADER_MULTI) {
        bool picked[GRADER_MAX_PICKS] = {false};
        for (int i = 0; i < np; i++)
            picked[picks[i]] = true;
        np = 0;
        for (size_t i = 0; i < n; i++)
            if (picked[i])
                picks[np++] = (int)i;
    }
    struct core_buf parsed, canon;
    core_buf_init(&parsed);
    core_buf_init(&canon);
    for (int i = 0; i < np; i++) {
        core_buf_printf(&parsed, "%s%c", i ? " " : "", letter_of(j, n, picks[i]));
        core_buf_printf(&canon, "%s#%d", i ? " " : "", picks[i] + 1);
    }
    r->parsed = core_buf_steal(&parsed);
    r->canonical = core_buf_steal(&canon);
}

/* ---- pack check ---------------------------------------------------------------------- */

/* The name of choice, multi or ordering, from its row below (the kind
 * table, grader_kind.c, is above the rows: they do not call it). */
static const char *choice_kind_name(enum grader_kind k)
{
    return k == GRADER_MULTI      ? grader_kind_multi.name
           : k == GRADER_ORDERING ? grader_kind_ordering.name
                                  : grader_kind_choice.name;
}

/* The entries of `why`, walked: choice numbers 1..nc, each a string. */
struct why_walk {
    struct grader_vctx *v;
    size_t nc;
};

static bool why_entry(const struct grader_dval *key, const struct grader_dval *val, void *ud)
{
    struct why_walk *w = ud;
    long long k = key->type == GRADER_LT_NUM && key->isint ? key->i : 0;
    if (!(key->type == GRADER_LT_NUM && key->isint) || k < 1 || (size_t)k > w->nc)
        grader_vproblem(w->v,
                        "'why' has an entry that is not a choice number from 1 to %zu "
                        "(write why = { [2] = \"...\" })",
                        w->nc);
    else if (val->type != GRADER_LT_STR)
        grader_vproblem(w->v, "why[%lld] must be a string, got %s", k,
                        grader_ltype_name(val->type));
    return true;
}

/* choice and multi: the choices, the answer against them, and `why`. */
static void choices_check(struct grader_vctx *v, int t, struct grader_question *q)
{
    struct lua_State *L = v->L;
    bool grade = q->has_grade, answer = grader_has_field(L, t, "answer");
    bool present;
    size_t nc;
    q->choices = grader_strs_field(L, t, "choices", &nc, &present);
    q->n_choices = nc;
    int list = grader_tab_open(L, t, "choices");
    bool listed = list && grader_is_list_of(L, list, GRADER_LT_STR);
    grader_tab_close(L, list);
    if (!present)
        grader_vproblem(v, "a %s question needs 'choices'", choice_kind_name(q->kind));
    else if (listed && nc < 2)
        grader_vproblem(v, "'choices' needs at least 2 entries");
    else if (nc > 26)
        grader_vproblem(v, "'choices' has %zu entries; at most 26 can be lettered a to z", nc);
    if (!listed) /* the rest would only repeat that */
        return;
    if (!answer && !grade && !q->sealed)
        grader_vproblem(v, "a %s question needs 'answer' (%s) or a custom 'grade'",
                        choice_kind_name(q->kind),
                        q->kind == GRADER_CHOICE ? "the number of the right choice"
                                                 : "the list of the right choices' numbers");
    struct grader_dval a;
    char num[64];
    int ans = grader_tab_open(L, t, "answer");
    if (grader_field(L, t, "answer", &a) == GRADER_LT_NUM && q->kind == GRADER_CHOICE) {
        grader_num_text(&a, num, sizeof num);
        if (!a.isint || a.i < 1 || (size_t)a.i > nc)
            grader_vproblem(v, "answer %s is out of range: there are %zu choices (answer 1 to %zu)",
                            num, nc, nc);
    } else if (ans && q->kind == GRADER_MULTI && grader_is_list_of(L, ans, GRADER_LT_NUM)) {
        size_t n = grader_len(L, ans);
        if (n == 0)
            grader_vproblem(v, "answer is empty: list the numbers of the right choices");
        bool seen[256] = {false};
        for (size_t i = 1; i <= n; i++) {
            struct grader_dval e;
            grader_index(L, ans, (long long)i, &e);
            long long k = e.i;
            grader_num_text(&e, num, sizeof num);
            if (!e.isint || k < 1 || (size_t)k > nc)
                grader_vproblem(v, "answer entry %s is out of range: there are %zu choices", num,
                                nc);
            else if (k < 256 && seen[k])
                grader_vproblem(v, "answer lists choice %lld twice", k);
            else if (k < 256)
                seen[k] = true;
        }
    }
    grader_tab_close(L, ans);
    int why = grader_tab_open(L, t, "why");
    if (why) {
        struct why_walk w = {v, nc};
        grader_pairs(L, why, why_entry, &w);
        grader_tab_close(L, why);
    }
}

/* ordering: the items, in the right order. */
static void ordering_check(struct grader_vctx *v, int t, struct grader_question *q)
{
    struct lua_State *L = v->L;
    bool present;
    size_t ni;
    q->choices = grader_strs_field(L, t, "items", &ni, &present);
    q->n_choices = ni;
    int list = grader_tab_open(L, t, "items");
    bool listed = list && grader_is_list_of(L, list, GRADER_LT_STR);
    grader_tab_close(L, list);
    if (!present)
        grader_vproblem(v, "an ordering question needs 'items' (in the right order)");
    else if (listed && ni < 2)
        grader_vproblem(v, "'items' needs at least 2 entries");
    else if (ni > 26)
        grader_vproblem(v, "'items' has %zu entries; at most 26 can be lettered a to z", ni);
}

/* ---- the job ----------------------------------------------------------------------------- */

/* The number of the right choice, or nil. */
static void choice_reference(struct lua_State *L, struct grader_job *j)
{
    size_t n = grader_job_n_choices(L);
    int ty = grader_job_push_answer(L, j);
    if (ty != GRADER_LT_NIL) {
        struct grader_dval d;
        grader_value(L, -1, &d);
        char num[64];
        if (ty == GRADER_LT_NUM)
            grader_num_text(&d, num, sizeof num);
        if (!(ty == GRADER_LT_NUM && d.isint) || d.i < 1 || (size_t)d.i > n)
            grader_job_fail(L, j, "answer %s is out of range: there are %zu choices",
                            ty == GRADER_LT_NUM ? num : grader_ltype_name(ty), n);
    }
}

/* The list of the right choices' numbers, or nil. */
static void multi_reference(struct lua_State *L, struct grader_job *j)
{
    size_t n = grader_job_n_choices(L);
    int ty = grader_job_push_answer(L, j);
    if (ty == GRADER_LT_TAB) {
        size_t m = grader_len(L, -1);
        if (m == 0)
            grader_job_fail(L, j, "answer is an empty list");
        for (size_t i = 1; i <= m; i++) {
            struct grader_dval d;
            grader_index(L, -1, (long long)i, &d);
            if (!d.isint || d.i < 1 || (size_t)d.i > n)
                grader_job_fail(L, j,
                                "answer entry %zu is not a choice number from 1 "
                                "to %zu",
                                i, n);
        }
    } else if (ty != GRADER_LT_NIL) {
        grader_job_fail(L, j, "answer must give a list of choice numbers, got %s",
                        grader_ltype_name(ty));
    }
}

/* None: the declared order is the reference. */
static void ordering_reference(struct lua_State *L, struct grader_job *j)
{
    (void)j;
    grader_push_nil(L);
}

static void choice_grade(struct lua_State *L, struct grader_job *j, const char *answer)
{
    struct grader_result *r = j->res;
    int picks[GRADER_MAX_PICKS * 2];
    if (read_declared(L, j, answer, picks) < 0)
        return;
    int idx = picks[0];
    r->parsed = core_xasprintf("%c", (char)('a' + idx));
    struct grader_dval ref, why;
    grader_value(L, GRADER_S_REF, &ref);
    bool right = ref.isint && (long long)idx + 1 == ref.i;
    const char *note = NULL;
    int w = grader_tab_open(L, GRADER_S_Q, "why");
    if (w && grader_index(L, w, idx + 1, &why) == GRADER_LT_STR)
        note = why.str; /* held by Q.why until set_score copies it */
    char fb[600];
    snprintf(fb, sizeof fb, "%s%s%s", right ? "Correct." : "Incorrect.", note ? " " : "",
             note ? note : "");
    grader_result_score(r, right ? 1 : 0, fb);
    r->mistake = !right && note;
    grader_tab_close(L, w);
}

static void multi_grade(struct lua_State *L, struct grader_job *j, const char *answer)
{
    struct grader_result *r = j->res;
    size_t n = grader_job_n_choices(L);
    int picks[GRADER_MAX_PICKS * 2];
    int np = read_declared(L, j, answer, picks);
    if (np < 0)
        return;
    bool right[GRADER_MAX_PICKS] = {false}, picked[GRADER_MAX_PICKS] = {false};
    size_t m = grader_len(L, GRADER_S_REF), n_right = 0;
    for (size_t i = 1; i <= m; i++) {
        struct grader_dval d;
        grader_index(L, GRADER_S_REF, (long long)i, &d);
        long long k = d.isint ? d.i : 0;
        if (k >= 1 && (size_t)k <= n && !right[k - 1]) {
            right[k - 1] = true;
            n_right++;
        }
    }
    for (int i = 0; i < np; i++)
        picked[picks[i]] = true;
    int good = 0, bad = 0;
    struct core_buf parsed, notes;
    core_buf_init(&parsed);
    core_buf_init(&notes);
    int why = grader_tab_open(L, GRADER_S_Q, "why");
    for (size_t i = 0; i < n; i++) {
        if (picked[i])
            core_buf_printf(&parsed, "%s%c", parsed.len ? ", " : "", (char)('a' + i));
        if (picked[i] && right[i])
            good++;
        if (picked[i] != right[i]) {
            if (picked[i])
                bad++;
            struct grader_dval d;
            if (why && grader_index(L, why, (long long)i + 1, &d) == GRADER_LT_STR)
                core_buf_printf(&notes, " (%c) %s", (char)('a' + i), d.str);
        }
    }
    grader_tab_close(L, why);
    r->parsed = core_buf_steal(&parsed);
    double frac = n_right ? ((double)good - bad) / (double)n_right : 0;
    char *fb;
    if (frac >= 1 && bad == 0)
        fb = core_xstrdup("Correct.");
    else
        fb = core_xasprintf("%d of %zu right choices picked, %d wrong.%s", good, n_right, bad,
                            notes.data ? notes.data : "");
    bool explained = notes.len > 0;
    core_buf_fini(&notes);
    grader_result_score(r, frac, fb);
    r->mistake = !r->correct && explained;
    free(fb);
}

static void ordering_grade(struct lua_State *L, struct grader_job *j, const char *answer)
{
    struct grader_result *r = j->res;
    size_t n = grader_job_n_choices(L);
    int picks[GRADER_MAX_PICKS * 2];
    if (read_declared(L, j, answer, picks) < 0)
        return;
    struct core_buf parsed;
    core_buf_init(&parsed);
    for (size_t i = 0; i < n; i++)
        core_buf_printf(&parsed, "%s%c", i ? " " : "", letter_of(j, n, picks[i]));
    r->parsed = core_buf_steal(&parsed);
    size_t inv = 0, pairs = n * (n - 1) / 2;
    for (size_t a = 0; a < n; a++)
        for (size_t b = a + 1; b < n; b++)
            inv += picks[a] > picks[b];
    double frac = inv == 0 ? 1 : 1 - 2.0 * (double)inv / (double)pairs;
    char fb[200];
    if (inv == 0)
        snprintf(fb, sizeof fb, "Correct order.");
    else
        snprintf(fb, sizeof fb, "%zu of %zu pairs are in the right order.", pairs - inv, pairs);
    grader_result_score(r, frac, fb);
}

static char *choice_reference_text(struct lua_State *L, struct grader_job *j, bool exact)
{
    (void)j;
    struct grader_dval ref, c;
    if (grader_value(L, GRADER_S_REF, &ref) == GRADER_LT_NIL)
        return NULL;
    long long k = ref.isint ? ref.i : 0;
    if (exact)
        return core_xasprintf("%c", (char)('a' + k - 1));
    grader_index(L, GRADER_S_CH, k, &c);
    char num[64];
    if (c.type == GRADER_LT_NUM)
        grader_num_text(&c, num, sizeof num);
    return core_xasprintf("%c) %s", (char)('a' + k - 1),
                          c.type == GRADER_LT_STR   ? c.str
                          : c.type == GRADER_LT_NUM ? num
                                                    : "");
}

static char *multi_reference_text(struct lua_State *L, struct grader_job *j, bool exact)
{
    (void)j;
    if (grader_type(L, GRADER_S_REF) == GRADER_LT_NIL)
        return NULL;
    size_t n = grader_job_n_choices(L);
    bool right[GRADER_MAX_PICKS] = {false};
    size_t m = grader_len(L, GRADER_S_REF);
    for (size_t i = 1; i <= m; i++) {
        struct grader_dval d;
        grader_index(L, GRADER_S_REF, (long long)i, &d);
        long long k = d.isint ? d.i : 0;
        if (k >= 1 && k <= GRADER_MAX_PICKS)
            right[k - 1] = true;
    }
    struct core_buf b;
    core_buf_init(&b);
    for (size_t i = 0; i < n && i < GRADER_MAX_PICKS; i++)
        if (right[i])
            core_buf_printf(&b, "%s%c", b.len ? (exact ? " " : ", ") : "", (char)('a' + i));
    return core_buf_steal(&b);
}

/* The letters of the declared order as this variant shows the items. */
static char *ordering_reference_text(struct lua_State *L, struct grader_job *j, bool exact)
{
    (void)exact;
    size_t n = grader_job_n_choices(L);
    if (n == 0 || n > GRADER_MAX_PICKS)
        return NULL;
    size_t shown[GRADER_MAX_PICKS];
    grader_order_shuffle(j, n, shown);
    struct core_buf b;
    core_buf_init(&b);
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < n; k++)
            if (shown[k] == i)
                core_buf_printf(&b, "%s%c", i ? " " : "", (char)('a' + k));
    return core_buf_steal(&b);
}

/* ---- the rows -------------------------------------------------------------------------------- */

static const char *const choice_fields[] = {"answer", "choices", "why", NULL};
static const char *const ordering_fields[] = {"items", NULL};

const struct grader_kind_ops grader_kind_choice = {.name = "choice",
                                                   .fields = choice_fields,
                                                   .answer_types = GRADER_T_NUM | GRADER_T_FUN,
                                                   .list = "choices",
                                                   .list_item = "choice",
                                                   .max_answer = 1024,
                                                   .tries = 2,
                                                   .penalty = 1,
                                                   .check = choices_check,
                                                   .reference = choice_reference,
                                                   .grade = choice_grade,
                                                   .record = picks_record,
                                                   .reference_text = choice_reference_text};

const struct grader_kind_ops grader_kind_multi = {.name = "multi",
                                                  .fields = choice_fields,
                                                  .answer_types = GRADER_T_NUMS | GRADER_T_FUN,
                                                  .list = "choices",
                                                  .list_item = "choice",
                                                  .max_answer = 1024,
                                                  .tries = 2,
                                                  .penalty = 1,
                                                  .check = choices_check,
                                                  .reference = multi_reference,
                                                  .grade = multi_grade,
                                                  .record = picks_record,
                                                  .reference_text = multi_reference_text};

const struct grader_kind_ops grader_kind_ordering = {.name = "ordering",
                                                     .fields = ordering_fields,
                                                     .list = "items",
                                                     .list_item = "item",
                                                     .shuffled = true,
                                                     .max_answer = 1024,
                                                     .tries = 2,
                                                     .penalty = 1,
                                                     .check = ordering_check,
                                                     .reference = ordering_reference,
                                                     .grade = ordering_grade,
                                                     .record = picks_record,
                                                     .reference_text = ordering_reference_text};
