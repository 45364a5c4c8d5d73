/*
 * grader_wb_lab.c — wb.lab, the part of the `wb` library for questions
 * graded against the student's own lab run.
 *
 * ctx is what params, answer and grade receive; ctx.lab is the student's
 * latest completed run of the question's lab (nil before the first). The
 * readers cope with every part missing and return nil for anything missing
 * or of the wrong type, so a prompt still renders for an old run. They are
 * C functions (not wb.lua) so that a grader's `return wb.lab.grade(...)`,
 * a tail call, keeps the grader's frame: luaL_error then names the pack's
 * file and line. Nothing here is Lua code, so it adds no instructions to
 * count and nothing to load per sandbox.
 *
 * Every Lua-callable function is in lab_funcs below; grader_wb_open (in
 * grader_wb.c) sets the table as wb.lab. Misuse raises; an answer that cannot
 * be graded returns { valid = false, feedback }.
 *
 * Also the test of a finite number that wb.finite and the readers share
 * (grader_wb_finite): here, below grader_wb.c, so the two files do not
 * call each other.
 *
 * Uses the pure building blocks of grader_pure.h (numbers, units,
 * tolerance) and the sandbox's no-jump bracket.
 */
#include "grader_runtime.h"

#include <lauxlib.h>
#include <lua.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#define LAB_GRADE "wb.lab.grade(answer, ctx, opts): "
#define LAB_MISSING                                                                                \
    "Your latest run lacks the figure this question needs. Run the lab again with its defaults."

bool grader_wb_finite(struct lua_State *L, int idx)
{
    return lua_type(L, idx) == LUA_TNUMBER && isfinite(lua_tonumber(L, idx));
}

/* Pushes ctx.lab[part][key] (ctx and key at 1 and 2), or nil. */
static void push_run_value(lua_State *L, const char *part, const char *fn)
{
    if (lua_type(L, 2) != LUA_TSTRING)
        luaL_error(L, "wb.lab.%s(ctx, key): key must be a string, got %s", fn, luaL_typename(L, 2));
    lua_settop(L, 2);
    if (lua_type(L, 1) == LUA_TTABLE && lua_getfield(L, 1, "lab") == LUA_TTABLE &&
        lua_getfield(L, -1, part) == LUA_TTABLE) {
        lua_pushvalue(L, 2);
        lua_gettable(L, -2);
    } else {
        lua_pushnil(L);
    }
}

/* wb.lab.figure(ctx, key) -> the summary figure `key` when a finite number */
static int l_lab_figure(lua_State *L)
{
    push_run_value(L, "summary", "figure");
    if (!grader_wb_finite(L, -1))
        lua_pushnil(L);
    return 1;
}

/* wb.lab.text(ctx, key) -> the summary figure `key` when a string */
static int l_lab_text(lua_State *L)
{
    push_run_value(L, "summary", "text");
    if (lua_type(L, -1) != LUA_TSTRING)
        lua_pushnil(L);
    return 1;
}

/* wb.lab.param(ctx, key) -> the run's parameter `key` as set: a string, or a
 * finite number (on/off parameters are 1 and 0) */
static int l_lab_param(lua_State *L)
{
    push_run_value(L, "params", "param");
    if (lua_type(L, -1) != LUA_TSTRING && !grader_wb_finite(L, -1))
        lua_pushnil(L);
    return 1;
}

/* wb.lab.blanks(p, names) -> p, with "?" for every listed name p leaves
 * unset and p.note = "" when unset */
static int l_lab_blanks(lua_State *L)
{
    if (lua_type(L, 1) != LUA_TTABLE || lua_type(L, 2) != LUA_TTABLE)
        return luaL_error(L, "wb.lab.blanks(p, names): the params table and a list of names "
                             "expected");
    lua_settop(L, 2);
    for (lua_Integer i = 1; lua_geti(L, 2, i) != LUA_TNIL; i++) { /* p names n */
        lua_pushvalue(L, -1);                                     /* p names n n */
        if (lua_gettable(L, 1) == LUA_TNIL) {                     /* p names n v */
            lua_pop(L, 1);
            lua_pushliteral(L, "?");
            lua_settable(L, 1); /* p names */
        } else {
            lua_pop(L, 2);
        }
    }
    if (lua_getfield(L, 1, "note") == LUA_TNIL) {
        lua_pushliteral(L, "");
        lua_setfield(L, 1, "note");
    }
    lua_settop(L, 1);
    return 1;
}

/* Reads a tolerance at idx as wb.within does (nil: 1%; a number: rel; a
 * table: rel, abs, sig, abs alone meaning abs alone), raising with `what`
 * named when it or a field has the wrong type. */
static void lab_tol(lua_State *L, int idx, const char *what, struct grader_tol *t)
{
    grader_tol_default(t);
    int ty = lua_type(L, idx);
    if (ty == LUA_TNIL || ty == LUA_TNONE)
        return;
    if (ty == LUA_TNUMBER) {
        t->rel = lua_tonumber(L, idx);
        return;
    }
    if (ty != LUA_TTABLE)
        luaL_error(L, LAB_GRADE "%s must be a number or a tolerance table, got %s", what,
                   lua_typename(L, ty));
    static const char *const field[] = {"rel", "abs", "sig"};
    bool has[3];
    double v[3];
    for (int i = 0; i < 3; i++) {
        int fty = lua_getfield(L, idx, field[i]);
        has[i] = fty != LUA_TNIL;
        if (has[i] && fty != LUA_TNUMBER)
            luaL_error(L, LAB_GRADE "%s.%s must be a number, got %s", what, field[i],
                       lua_typename(L, fty));
        v[i] = lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
    if (has[0])
        t->rel = v[0];
    if (has[1]) {
        t->abs = v[1];
        if (!has[0])
            t->rel = 0;
    }
    if (has[2]) {
        if (!(v[2] == floor(v[2])))
            luaL_error(L, LAB_GRADE "%s.sig must be a whole number", what);
        t->sig = v[2] < 0 ? 0 : v[2] > 64 ? 64 : (int)v[2];
    }
}

/* Stack slots of l_lab_grade. */
enum {
    G_ANSWER = 1,
    G_CTX,
    G_OPTS,
    G_UNIT,
    G_TOL,
    G_EXPLAIN,
    G_MISSING,
    G_WRONG,
    G_BANDS, /* the options, in this order */
    G_P,
    G_HOW,
    G_NOISE,
    G_SLOTS = G_NOISE
};
static const char *const lab_opts[] = {"unit", "tol", "explain", "missing", "wrong", "bands"};

static void expect_type(lua_State *L, int idx, int ty, bool nil_ok, const char *what)
{
    int got = lua_type(L, idx);
    if (got != ty && !(nil_ok && got == LUA_TNIL))
        luaL_error(L, LAB_GRADE "%s must be a %s, got %s", what, lua_typename(L, ty),
                   lua_typename(L, got));
}

/* Checks every option before anything is graded, so that a mistake in them
 * shows on the first answer `pack check` tries. */
static void lab_check_opts(lua_State *L)
{
    expect_type(L, G_UNIT, LUA_TSTRING, true, "unit");
    if (lua_isstring(L, G_UNIT) && !grader_unit_find(lua_tostring(L, G_UNIT)))
        luaL_error(L, LAB_GRADE "unknown unit '%s'", lua_tostring(L, G_UNIT));
    struct grader_tol t;
    lab_tol(L, G_TOL, "tol", &t);
    int ety = lua_type(L, G_EXPLAIN);
    if (ety != LUA_TNIL && ety != LUA_TFUNCTION && ety != LUA_TSTRING)
        luaL_error(L, LAB_GRADE "explain must be a function or a string, got %s",
                   lua_typename(L, ety));
    expect_type(L, G_MISSING, LUA_TSTRING, true, "missing");
    expect_type(L, G_WRONG, LUA_TTABLE, true, "wrong");
    expect_type(L, G_BANDS, LUA_TTABLE, true, "bands");
    char what[48];
    for (lua_Integer i = 1; lua_istable(L, G_WRONG); i++) {
        if (lua_geti(L, G_WRONG, i) == LUA_TNIL) {
            lua_pop(L, 1);
            break;
        }
        snprintf(what, sizeof what, "wrong[%lld]", (long long)i);
        expect_type(L, -1, LUA_TTABLE, false, what);
        int vty = lua_getfield(L, -1, "value");
        if (vty != LUA_TNUMBER && vty != LUA_TFUNCTION)
            luaL_error(L, LAB_GRADE "%s.value must be a number or a function, got %s", what,
                       lua_typename(L, vty));
        lua_getfield(L, -2, "feedback");
        snprintf(what, sizeof what, "wrong[%lld].feedback", (long long)i);
        expect_type(L, -1, LUA_TSTRING, false, what);
        lua_pop(L, 3);
    }
    for (lua_Integer i = 1; lua_istable(L, G_BANDS); i++) {
        if (lua_geti(L, G_BANDS, i) == LUA_TNIL) {
            lua_pop(L, 1);
            break;
        }
        snprintf(what, sizeof what, "bands[%lld]", (long long)i);
        expect_type(L, -1, LUA_TTABLE, false, what);
        lab_tol(L, lua_gettop(L), what, &t);
        lua_getfield(L, -1, "score");
        snprintf(what, sizeof what, "bands[%lld].score", (long long)i);
        expect_type(L, -1, LUA_TNUMBER, false, what);
        lua_getfield(L, -2, "feedback");
        snprintf(what, sizeof what, "bands[%lld].feedback", (long long)i);
        expect_type(L, -1, LUA_TSTRING, true, what);
        lua_pop(L, 3);
    }
}

/* Returns the graded result as a table: { score, feedback, mistake,
 * solution }. The worked answer (G_HOW) is the solution: it follows the
 * feedback only when the answer is right, and otherwise stays for the
 * give-up or the last try (the grader's reference), since a worked answer
 * in a wrong answer's feedback gives the answer away. The noise note
 * (G_NOISE) ends every feedback. */
static int lab_result(lua_State *L, double score, const char *text, bool right, bool mistake)
{
    const char *how = lua_tostring(L, G_HOW);
    const char *noise = lua_tostring(L, G_NOISE);
    lua_createtable(L, 0, 4); /* t */
    if (score == 0 || score == 1)
        lua_pushinteger(L, (lua_Integer)score);
    else
        lua_pushnumber(L, score);
    lua_setfield(L, -2, "score");
    luaL_Buffer b;
    luaL_buffinit(L, &b); /* t buf */
    luaL_addstring(&b, text);
    if (right && how && *how) {
        luaL_addchar(&b, ' ');
        luaL_addstring(&b, how);
    }
    if (noise && *noise) {
        luaL_addchar(&b, ' ');
        luaL_addstring(&b, noise);
    }
    luaL_pushresult(&b); /* t fb */
    lua_setfield(L, -2, "feedback");
    lua_pushboolean(L, mistake);
    lua_setfield(L, -2, "mistake");
    if (how && *how) {
        lua_pushvalue(L, G_HOW);
        lua_setfield(L, -2, "solution");
    }
    return 1;
}

/* Returns { valid = false, feedback = <the string on top> }. */
static int lab_invalid(lua_State *L)
{
    lua_createtable(L, 0, 2); /* fb t */
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "valid");
    lua_insert(L, -2); /* t fb */
    lua_setfield(L, -2, "feedback");
    return 1;
}

/* Calls the function on top with (p, ctx), leaving one result. */
static void call_with_p_ctx(lua_State *L)
{
    lua_pushvalue(L, G_P);
    lua_pushvalue(L, G_CTX);
    lua_call(L, 2, 1);
}

/* Pushes ctx.params into G_P (an empty table without one) and reads its
 * `ref` into *ref. Without a finite reference, pushes what the student is
 * told instead (the run's note, opts.missing or LAB_MISSING) and returns
 * false. */
static bool lab_reference(lua_State *L, double *ref)
{
    if (!(lua_type(L, G_CTX) == LUA_TTABLE && lua_getfield(L, G_CTX, "params") == LUA_TTABLE)) {
        lua_settop(L, G_BANDS);
        lua_newtable(L);
    }
    lua_getfield(L, G_P, "ref");
    if (!grader_wb_finite(L, -1)) {
        size_t n = 0;
        const char *note =
            lua_getfield(L, G_P, "note") == LUA_TSTRING ? lua_tolstring(L, -1, &n) : NULL;
        size_t at = 0; /* past leading white space (written for the end of a prompt) */
        while (note && at < n && (note[at] == ' ' || (note[at] >= '\t' && note[at] <= '\r')))
            at++;
        if (note && at < n)
            lua_pushlstring(L, note + at, n - at);
        else if (lua_isstring(L, G_MISSING))
            lua_pushvalue(L, G_MISSING);
        else
            lua_pushliteral(L, LAB_MISSING);
        return false;
    }
    *ref = lua_tonumber(L, -1);
    lua_settop(L, G_P);
    return true;
}

/* Reads the answer (G_ANSWER) in `unit`; false with num->why when it cannot. */
static bool lab_read_answer(lua_State *L, const char *unit, struct grader_number *num)
{
    size_t alen;
    const char *answer = lua_tolstring(L, G_ANSWER, &alen);
    if (strlen(answer) != alen) {
        snprintf(num->why, sizeof num->why, "the answer contains a NUL byte");
        return false;
    }
    grader_sb_nojump_begin(L);
    bool ok = grader_number_parse(answer, unit, num);
    grader_sb_nojump_end(L);
    return ok;
}

/* Pushes the worked answer (G_HOW): what opts.explain gives; then the
 * note for a run the lab flagged as noisy (labs/lab.h: noisy, noise), or
 * "" (G_NOISE). */
static void lab_push_how(lua_State *L)
{
    lua_pushvalue(L, G_EXPLAIN);
    if (lua_isfunction(L, -1))
        call_with_p_ctx(L);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        lua_pushliteral(L, "");
    }
    if (lua_type(L, -1) != LUA_TSTRING)
        luaL_error(L, LAB_GRADE "explain returned a %s, not a string", luaL_typename(L, -1));
    lua_pushcfunction(L, l_lab_figure);
    lua_pushvalue(L, G_CTX);
    lua_pushliteral(L, "noisy");
    lua_call(L, 2, 1); /* how noisy */
    bool noisy = lua_tonumber(L, -1) == 1;
    lua_pop(L, 1); /* how */
    if (!noisy) {
        lua_pushliteral(L, ""); /* how noise */
        return;
    }
    lua_pushcfunction(L, l_lab_text);
    lua_pushvalue(L, G_CTX);
    lua_pushliteral(L, "noise");
    lua_call(L, 2, 1); /* how why */
    const char *why = lua_tostring(L, -1);
    lua_pushfstring(L,
                    "Note: your run was flagged (%s), so its numbers may be off; run the lab "
                    "again on a quieter machine.",
                    why ? why : "noisy"); /* how why noise */
    lua_remove(L, -2);                    /* how noise */
}

/* The first `wrong` value the answer v matches: pushes 0, its feedback and
 * true, and returns 3; 0 with the stack as it was when none matches. Known
 * mistakes beat partial credit. */
static int lab_wrong(lua_State *L, const struct grader_tol *tol, double v)
{
    for (lua_Integer i = 1; lua_istable(L, G_WRONG) && lua_geti(L, G_WRONG, i) == LUA_TTABLE; i++) {
        int vty = lua_getfield(L, -1, "value"); /* w v */
        if (vty == LUA_TFUNCTION)
            call_with_p_ctx(L);
        if (grader_wb_finite(L, -1) && grader_tol_accepts(tol, lua_tonumber(L, -1), v)) {
            if (lua_getfield(L, -2, "feedback") != LUA_TSTRING)
                return luaL_error(L, LAB_GRADE "wrong[%I].feedback must be a string", i);
            /* a declared mistake (grader_result.mistake) */
            return lab_result(L, 0, lua_tostring(L, -1), false, true);
        }
        lua_pop(L, 2);
    }
    lua_settop(L, G_NOISE);
    return 0;
}

/* Partial credit: the best band holding v, as a numeric question's. Pushes
 * the score and its feedback and returns 2; 0 when no band holds v. */
static int lab_band(lua_State *L, double ref, double v)
{
    double best = 0;
    lua_Integer best_i = 0;
    for (lua_Integer i = 1; lua_istable(L, G_BANDS) && lua_geti(L, G_BANDS, i) == LUA_TTABLE; i++) {
        char what[32];
        snprintf(what, sizeof what, "bands[%lld]", (long long)i);
        struct grader_tol bt;
        lab_tol(L, lua_gettop(L), what, &bt);
        lua_getfield(L, -1, "score");
        double sc = lua_tonumber(L, -1);
        sc = isfinite(sc) && sc > 0 ? fmin(sc, 1) : 0;
        if (grader_tol_accepts(&bt, ref, v) && (best_i == 0 || sc > best)) {
            best = sc;
            best_i = i;
        }
        lua_pop(L, 2);
    }
    lua_settop(L, G_NOISE);
    if (!(best_i > 0 && best > 0))
        return 0;
    lua_geti(L, G_BANDS, best_i);
    if (lua_getfield(L, -1, "feedback") == LUA_TSTRING)
        return lab_result(L, best, lua_tostring(L, -1), false, false);
    char fb[96];
    snprintf(fb, sizeof fb, "Close, but outside the accepted range: partial credit (%g%%).",
             best * 100);
    return lab_result(L, best, fb, false, false);
}

/* wb.lab.grade(answer, ctx, opts) -> { score, feedback, mistake, solution }
 *                                    | { valid = false, feedback }:
 * grades the number in `answer` against ctx.params.ref (see lessons/FORMAT.md). */
static int l_lab_grade(lua_State *L)
{
    if (lua_type(L, G_ANSWER) != LUA_TSTRING)
        return luaL_error(L, LAB_GRADE "answer must be a string, got %s",
                          luaL_typename(L, G_ANSWER));
    lua_settop(L, G_OPTS);
    if (lua_isnil(L, G_OPTS)) {
        lua_newtable(L);
        lua_replace(L, G_OPTS);
    }
    expect_type(L, G_OPTS, LUA_TTABLE, false, "opts");
    luaL_checkstack(L, G_SLOTS + 8, NULL);
    for (size_t i = 0; i < sizeof lab_opts / sizeof lab_opts[0]; i++)
        lua_getfield(L, G_OPTS, lab_opts[i]); /* G_UNIT .. G_BANDS */
    lab_check_opts(L);
    if (lua_isnil(L, G_UNIT)) {
        lua_pushliteral(L, "");
        lua_replace(L, G_UNIT);
    }
    const char *unit = lua_tostring(L, G_UNIT); /* the slot keeps it alive */
    struct grader_tol tol;
    lab_tol(L, G_TOL, "tol", &tol);

    /* p: the params; without a finite reference, explain instead of grading */
    double ref;
    if (!lab_reference(L, &ref))
        return lab_invalid(L);
    struct grader_number num;
    if (!lab_read_answer(L, unit, &num)) {
        lua_pushfstring(L, "Could not read that: %s.", num.why);
        return lab_invalid(L);
    }
    lab_push_how(L); /* G_HOW G_NOISE */

    if (grader_tol_accepts(&tol, ref, num.value))
        return lab_result(L, 1, "Right.", true, false);
    int n = lab_wrong(L, &tol, num.value);
    if (n == 0)
        n = lab_band(L, ref, num.value);
    if (n > 0)
        return n;
    /* Neither the accepted range nor the worked answer: either gives the
     * answer away. How close counts is said; a slip of form is named. */
    char fb[240];
    grader_sb_nojump_begin(L);
    if (!grader_tol_slip(&tol, ref, &num, unit, fb, sizeof fb))
        grader_tol_miss(&tol, ref, unit, fb, sizeof fb);
    grader_sb_nojump_end(L);
    return lab_result(L, 0, fb, false, false);
}

static const luaL_Reg lab_funcs[] = {{"figure", l_lab_figure}, {"text", l_lab_text},
                                     {"param", l_lab_param},   {"blanks", l_lab_blanks},
                                     {"grade", l_lab_grade},   {NULL, NULL}};

void grader_wb_lab_push(lua_State *L)
{
    luaL_newlib(L, lab_funcs); /* lab */
}
