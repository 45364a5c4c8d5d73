/*
 * grader_wb.c — the C half of the `wb` Lua library graders call: answer
 * parsing (grader_number_parse), tolerance (grader_tol_*), rounding and
 * significant figures, text normalisation for rubric matching, and the
 * variant rng object, wb.finite, and wb.lab: reading the student's lab run
 * (ctx.lab) and grading a number against the reference it gives. The Lua
 * half, lua/wb.lua (phrase and concept matching, the scaling formulas, and
 * the private text/design graders), is embedded in the binary, compiled
 * once per process and loaded as bytecode into each sandbox.
 *
 * Every Lua-callable function is in wb_funcs, lab_funcs or rng_methods below. Misuse
 * (a wrong argument type, an unknown unit) raises; an unreadable answer is
 * an expected failure and returns nil, why.
 *
 * Uses the pure building blocks of grader_internal.h and the sandbox's
 * no-jump bracket around code that may take libc locks.
 */
#include "grader_internal.h"

#include <lauxlib.h>
#include <lua.h>

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

extern const struct core_embedded grader_embedded_lua[];

static const char GRADERS_KEY = 'g'; /* registry: wb.lua's private graders */
#define RNG_TYPE "wb.rng"

/* ---- text ----------------------------------------------------------------- */

static bool is_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static bool is_edge(unsigned char c)
{
    return is_space(c) || (c && strchr(".,;:!?'\"`()[]{}", c));
}

static unsigned char lower(unsigned char c)
{
    return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

size_t grader_text_norm(const char *s, size_t n, char *out)
{
    size_t a = 0, b = n, k = 0;
    while (a < b && is_edge((unsigned char)s[a]))
        a++;
    while (b > a && is_edge((unsigned char)s[b - 1]))
        b--;
    bool gap = false;
    for (size_t i = a; i < b; i++) {
        unsigned char c = (unsigned char)s[i];
        if (is_space(c)) {
            gap = true;
            continue;
        }
        if (gap && k)
            out[k++] = ' ';
        gap = false;
        out[k++] = (char)lower(c);
    }
    out[k] = '\0';
    return k;
}

size_t grader_text_words(const char *s, size_t n, char *out)
{
    size_t k = 0;
    bool gap = false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        unsigned char c1 = i + 1 < n ? (unsigned char)s[i + 1] : 0;
        /* No-break space (U+00A0) and general punctuation (U+2000-U+206F:
         * dashes, quotes, thin spaces) separate words like ASCII ones do. */
        size_t skip = c == 0xC2 && c1 == 0xA0                                ? 1
                      : c == 0xE2 && (c1 == 0x80 || c1 == 0x81) && i + 2 < n ? 2
                                                                             : 0;
        bool word = !skip && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                              (c >= '0' && c <= '9') || c >= 0x80);
        i += skip;
        if (!word) {
            gap = true;
            continue;
        }
        if (gap && k)
            out[k++] = ' ';
        gap = false;
        out[k++] = (char)lower(c);
    }
    out[k] = '\0';
    return k;
}

/* Lua's own rule for a set: the first character after '[' or '[^' is
 * part of the set even when it is ']'; '%' escapes the next one. Returns
 * the index after the closing ']', or 0 when there is none. */
static size_t set_end(const char *p, size_t n, size_t i)
{
    i++; /* past '[' */
    if (i < n && p[i] == '^')
        i++;
    do {
        if (i >= n)
            return 0;
        if (p[i++] == '%' && i < n)
            i++;
    } while (i >= n || p[i] != ']');
    return i + 1;
}

bool grader_pattern_check(const char *p, size_t n, char *why, size_t why_n)
{
    int total = 0, depth = 0, open[32];
    bool closed[33] = {false};
    size_t i = 0;
    while (i < n) {
        char c = p[i];
        if (c == '(') {
            if (total >= 32) {
                snprintf(why, why_n, "too many captures");
                return false;
            }
            total++;
            if (i + 1 < n && p[i + 1] == ')') { /* position capture */
                closed[total] = true;
                i += 2;
            } else {
                open[depth++] = total;
                i++;
            }
        } else if (c == ')') {
            if (depth == 0) {
                snprintf(why, why_n, "invalid pattern capture (a ')' without '(')");
                return false;
            }
            closed[open[--depth]] = true;
            i++;
        } else if (c == '%') {
            if (i + 1 >= n) {
                snprintf(why, why_n, "malformed pattern (ends with '%%')");
                return false;
            }
            char d = p[i + 1];
            if (d == 'b') {
                if (i + 3 >= n) {
                    snprintf(why, why_n, "missing arguments to '%%b'");
                    return false;
                }
                i += 4;
            } else if (d == 'f') {
                i += 2;
                if (i >= n || p[i] != '[') {
                    snprintf(why, why_n, "missing '[' after '%%f' in pattern");
                    return false;
                }
                size_t e = set_end(p, n, i);
                if (!e) {
                    snprintf(why, why_n, "malformed pattern (missing ']')");
                    return false;
                }
                i = e;
            } else if (d >= '0' && d <= '9') {
                int k = d - '0';
                if (k == 0 || k > total || !closed[k]) {
                    snprintf(why, why_n, "invalid capture index %%%c", d);
                    return false;
                }
                i += 2;
            } else {
                i += 2;
            }
        } else if (c == '[') {
            size_t e = set_end(p, n, i);
            if (!e) {
                snprintf(why, why_n, "malformed pattern (missing ']')");
                return false;
            }
            i = e;
        } else {
            i++;
        }
    }
    if (depth) {
        snprintf(why, why_n, "unfinished capture (a '(' without ')')");
        return false;
    }
    return true;
}

/* ---- wb functions ---------------------------------------------------------------- */

/* wb.number(text [, unit]) -> value | nil, why */
static int l_number(lua_State *L)
{
    size_t n;
    const char *s = luaL_checklstring(L, 1, &n);
    const char *unit = luaL_optstring(L, 2, "");
    if (!grader_unit_find(unit))
        return luaL_error(L, "wb.number: unknown unit '%s'", unit);
    if (strlen(s) != n) {
        lua_pushnil(L);
        lua_pushliteral(L, "the answer contains a NUL byte");
        return 2;
    }
    struct grader_number num;
    grader_sb_nojump_begin(L);
    bool ok = grader_number_parse(s, unit, &num);
    grader_sb_nojump_end(L);
    if (ok) {
        lua_pushnumber(L, num.value);
        return 1;
    }
    lua_pushnil(L);
    lua_pushstring(L, num.why);
    return 2;
}

/* Reads a tolerance: nil (default), a number (rel) or {rel=, abs=, sig=}. */
static void check_tol(lua_State *L, int idx, struct grader_tol *t)
{
    grader_tol_default(t);
    int ty = lua_type(L, idx);
    if (ty == LUA_TNONE || ty == LUA_TNIL)
        return;
    if (ty == LUA_TNUMBER) {
        t->rel = lua_tonumber(L, idx);
        return;
    }
    luaL_argexpected(L, ty == LUA_TTABLE, idx, "nil, number or tolerance table");
    bool has_rel = lua_getfield(L, idx, "rel") != LUA_TNIL;
    if (has_rel)
        t->rel = luaL_checknumber(L, -1);
    if (lua_getfield(L, idx, "abs") != LUA_TNIL) {
        t->abs = luaL_checknumber(L, -1);
        if (!has_rel) /* as a question's `tolerance`: abs alone, not "abs or 1%" */
            t->rel = 0;
    }
    if (lua_getfield(L, idx, "sig") != LUA_TNIL)
        t->sig = (int)luaL_checkinteger(L, -1);
    lua_pop(L, 3);
}

/* wb.close(a, b [, rel]) -> a within rel (default 1%) of the reference b */
static int l_close(lua_State *L)
{
    double a = luaL_checknumber(L, 1), b = luaL_checknumber(L, 2);
    struct grader_tol t;
    grader_tol_default(&t);
    t.rel = luaL_optnumber(L, 3, t.rel);
    lua_pushboolean(L, grader_tol_accepts(&t, b, a));
    return 1;
}

/* wb.within(v, ref [, tol]) -> v accepted against ref under a tolerance */
static int l_within(lua_State *L)
{
    double v = luaL_checknumber(L, 1), ref = luaL_checknumber(L, 2);
    struct grader_tol t;
    check_tol(L, 3, &t);
    lua_pushboolean(L, grader_tol_accepts(&t, ref, v));
    return 1;
}

/* wb.interval(ref [, tol [, unit]]) -> "lo to hi unit", as students see it */
static int l_interval(lua_State *L)
{
    double ref = luaL_checknumber(L, 1);
    struct grader_tol t;
    check_tol(L, 2, &t);
    const char *unit = luaL_optstring(L, 3, "");
    char buf[160];
    grader_sb_nojump_begin(L);
    grader_tol_describe(&t, ref, unit, buf, sizeof buf);
    grader_sb_nojump_end(L);
    lua_pushstring(L, buf);
    return 1;
}

/* wb.round(x [, digits]) -> x rounded to digits decimals (an integer when
 * digits <= 0 and it fits) */
static int l_round(lua_State *L)
{
    double x = luaL_checknumber(L, 1);
    lua_Integer d = luaL_optinteger(L, 2, 0);
    if (d > 15)
        d = 15;
    if (d < -15)
        d = -15;
    double p = pow(10.0, (double)d);
    double r = isfinite(x * p) ? round(x * p) / p : x;
    if (d <= 0 && isfinite(r) && fabs(r) < 9.0e15)
        lua_pushinteger(L, (lua_Integer)r);
    else
        lua_pushnumber(L, r);
    return 1;
}

/* wb.sig(x [, n]) -> x as text with n (default 3) significant figures */
static int l_sig(lua_State *L)
{
    double x = luaL_checknumber(L, 1);
    lua_Integer n = luaL_optinteger(L, 2, 3);
    if (n < 1)
        n = 1;
    if (n > 17)
        n = 17;
    char buf[64];
    grader_sb_nojump_begin(L);
    grader_number_format(x, (int)n, buf, sizeof buf);
    grader_sb_nojump_end(L);
    lua_pushstring(L, buf);
    return 1;
}

static int push_text(lua_State *L, size_t (*fn)(const char *, size_t, char *))
{
    size_t n;
    const char *s = luaL_checklstring(L, 1, &n);
    luaL_Buffer b;
    char *out = luaL_buffinitsize(L, &b, n + 1);
    size_t k = fn(s, n, out);
    luaL_pushresultsize(&b, k);
    grader_sb_charge(L, 1 + (n + k) / 2); /* C work, charged like a library call's */
    return 1;
}

/* wb.norm(text) -> lower case, spaces folded, surrounding punctuation gone */
static int l_norm(lua_State *L)
{
    return push_text(L, grader_text_norm);
}

/* wb.words(text) -> lower-case words separated by single spaces */
static int l_words(lua_State *L)
{
    return push_text(L, grader_text_words);
}

/* wb.finite(x) -> true when x is a number, neither NaN nor infinite */
static bool finite_at(lua_State *L, int idx)
{
    return lua_type(L, idx) == LUA_TNUMBER && isfinite(lua_tonumber(L, idx));
}

static int l_finite(lua_State *L)
{
    lua_pushboolean(L, finite_at(L, 1));
    return 1;
}

/* ---- design answers: the concept judge --------------------------------------------- */

static const char FIND_KEY = 'f'; /* registry: the guarded string.find, taken before pack code */

#define JUDGE_RETRIES 8 /* negated matches of one pattern skipped per sentence */

/* Pushes t[name] (raw) and returns its type. */
static int raw_field(lua_State *L, int t, const char *name)
{
    lua_pushstring(L, name);
    return lua_rawget(L, t < 0 ? t - 1 : t);
}

static enum grader_design_hit best(enum grader_design_hit a, enum grader_design_hit b)
{
    return a > b ? a : b;
}

/* Adds the words of every string in list t[name] (and of the strings in
 * its sub-tables, for `near` and `contradicts`) to k. */
static void known_from(lua_State *L, int t, const char *name, struct grader_design_known *k,
                       int depth)
{
    if (raw_field(L, t, name) == LUA_TTABLE) { /* list */
        size_t n = lua_rawlen(L, -1);
        for (size_t i = 1; i <= n && i <= 256; i++) {
            int ty = lua_rawgeti(L, -1, (lua_Integer)i); /* list e */
            if (ty == LUA_TSTRING)
                grader_design_known_add(k, lua_tostring(L, -1));
            else if (ty == LUA_TTABLE && depth < 2) {
                int e = lua_gettop(L);
                size_t m = lua_rawlen(L, e);
                for (size_t j = 1; j <= m && j <= 32; j++) {
                    if (lua_rawgeti(L, e, (lua_Integer)j) == LUA_TSTRING) /* list e s */
                        grader_design_known_add(k, lua_tostring(L, -1));
                    lua_pop(L, 1);
                }
                known_from(L, e, "match", k, depth + 1);
                known_from(L, e, "near", k, depth + 1);
            }
            lua_pop(L, 1); /* list */
        }
    }
    lua_pop(L, 1);
}

/* Looks a Lua pattern up in every sentence: found in a claim and not
 * negated, negated, or only outside claims. The guarded string.find does
 * the matching, so its work is charged like any library call. */
static enum grader_design_hit judge_pattern(lua_State *L, const struct grader_design *d,
                                            const char *pat, bool any)
{
    enum grader_design_hit hit = GRADER_HIT_NONE;
    for (size_t i = 0; i < grader_design_n_sentences(d) && hit != GRADER_HIT_FOUND; i++) {
        size_t len;
        const char *text = grader_design_sentence(d, i, &len);
        bool claim = grader_design_claim(d, i);
        lua_Integer init = 1;
        for (int tries = 0; tries < JUDGE_RETRIES && init <= (lua_Integer)len + 1; tries++) {
            lua_rawgetp(L, LUA_REGISTRYINDEX, &FIND_KEY); /* find */
            lua_pushlstring(L, text, len);
            lua_pushstring(L, pat);
            lua_pushinteger(L, init);
            lua_call(L, 3, 1); /* start|nil */
            if (lua_isnil(L, -1)) {
                lua_pop(L, 1);
                break;
            }
            lua_Integer at = lua_tointeger(L, -1);
            lua_pop(L, 1);
            if (!claim) {
                hit = best(hit, GRADER_HIT_UNCLAIMED);
                break;
            }
            if (any || !grader_design_negated_at(d, i, (size_t)(at - 1))) {
                hit = GRADER_HIT_FOUND;
                break;
            }
            hit = best(hit, GRADER_HIT_NEGATED);
            init = at + 1;
        }
    }
    return hit;
}

/* The near groups of list t.near: { "warp", "switch*", within = 5 }. */
static enum grader_design_hit judge_near(lua_State *L, int t, const struct grader_design *d,
                                         bool fuzzy, bool any, struct grader_design_known *k)
{
    enum grader_design_hit hit = GRADER_HIT_NONE;
    if (raw_field(L, t, "near") == LUA_TTABLE) { /* near */
        int nt = lua_gettop(L);
        size_t n = lua_rawlen(L, nt);
        for (size_t i = 1; i <= n && hit != GRADER_HIT_FOUND; i++) {
            if (lua_rawgeti(L, nt, (lua_Integer)i) != LUA_TTABLE) { /* near g */
                lua_pop(L, 1);
                continue;
            }
            int g = lua_gettop(L);
            const char *terms[32];
            size_t m = 0, gn = lua_rawlen(L, g);
            for (size_t j = 1; j <= gn && m < 32; j++) {
                lua_rawgeti(L, g, (lua_Integer)j); /* near g s (kept: g holds it) */
                if (lua_type(L, -1) == LUA_TSTRING)
                    terms[m++] = lua_tostring(L, -1);
                lua_pop(L, 1);
            }
            size_t within = 5;
            if (raw_field(L, g, "within") == LUA_TNUMBER && lua_tonumber(L, -1) >= 0)
                within = (size_t)lua_tonumber(L, -1);
            lua_pop(L, 1);
            hit = best(hit, grader_design_near(d, terms, m, within, fuzzy, any, k));
            lua_pop(L, 1); /* near */
        }
    }
    lua_pop(L, 1);
    return hit;
}

/* Whether the phrases (t.match), patterns (t.patterns) and near groups
 * (t.near) of table t are found. */
static enum grader_design_hit judge_one(lua_State *L, int t, const struct grader_design *d,
                                        bool fuzzy, bool any, struct grader_design_known *k)
{
    enum grader_design_hit hit = GRADER_HIT_NONE;
    if (raw_field(L, t, "match") == LUA_TTABLE) { /* match */
        size_t n = lua_rawlen(L, -1);
        for (size_t i = 1; i <= n && hit != GRADER_HIT_FOUND; i++) {
            int ty = lua_rawgeti(L, -1, (lua_Integer)i); /* match s */
            if (ty == LUA_TSTRING || ty == LUA_TNUMBER)
                hit = best(hit, grader_design_phrase(d, lua_tostring(L, -1), fuzzy, any, k));
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
    if (hit != GRADER_HIT_FOUND) {
        if (raw_field(L, t, "patterns") == LUA_TTABLE) { /* pats */
            int pt = lua_gettop(L);
            size_t n = lua_rawlen(L, pt);
            for (size_t i = 1; i <= n && hit != GRADER_HIT_FOUND; i++) {
                if (lua_rawgeti(L, pt, (lua_Integer)i) == LUA_TSTRING) /* pats p */
                    hit = best(hit, judge_pattern(L, d, lua_tostring(L, -1), any));
                lua_pop(L, 1);
            }
        }
        lua_pop(L, 1);
    }
    if (hit != GRADER_HIT_FOUND)
        hit = best(hit, judge_near(L, t, d, fuzzy, any, k));
    return hit;
}

/* The first entry of concept c's `contradicts` found in a claim, not
 * negated (0: none). An entry is a phrase, or a table { match, patterns,
 * near, feedback }. */
static size_t judge_contradicts(lua_State *L, int c, const struct grader_design *d, bool fuzzy,
                                struct grader_design_known *k)
{
    size_t found = 0;
    if (raw_field(L, c, "contradicts") == LUA_TTABLE) { /* list */
        int lt = lua_gettop(L);
        size_t n = lua_rawlen(L, lt);
        for (size_t i = 1; i <= n && !found; i++) {
            int ty = lua_rawgeti(L, lt, (lua_Integer)i); /* list e */
            /* a contradiction is a claim too: negated ("it is not true that
             * GPUs cannot hide latency") it does not count */
            if (ty == LUA_TSTRING)
                found = grader_design_phrase(d, lua_tostring(L, -1), fuzzy, false, k) ==
                                GRADER_HIT_FOUND
                            ? i
                            : 0;
            else if (ty == LUA_TTABLE)
                found = judge_one(L, lua_gettop(L), d, fuzzy, false, k) == GRADER_HIT_FOUND ? i : 0;
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
    return found;
}

/* judge(text, concepts) -> score, list, status, contra
 * The design rule (grader_design.c): status[i] is "found", "missing",
 * "negated" (only in negated clauses), "unclaimed" (only outside
 * sentences) or "contradicted"; contra[i] the index of the `contradicts`
 * entry that cancelled concept i. A list of terms scores 0. Private: wb.lua
 * takes it before pack code runs and removes it from wb. */
static int l_judge(lua_State *L)
{
    size_t n;
    const char *text = luaL_checklstring(L, 1, &n);
    luaL_checktype(L, 2, LUA_TTABLE);
    luaL_checkstack(L, 48, "design rubric"); /* the nested lists below */
    /* Its memory is the sandbox's: counted against the cap, and dropped
     * with the state if a limit (or a bad pattern) ends the call half-way. */
    void *ud;
    lua_Alloc alloc = lua_getallocf(L, &ud);
    struct grader_design *d = grader_design_new(text, n, alloc, ud);
    if (!d)
        return luaL_error(L, "not enough memory");
    struct grader_design_known k;
    grader_design_known_init(&k, d);
    size_t nc = lua_rawlen(L, 2);
    for (size_t i = 1; i <= nc; i++) {
        if (lua_rawgeti(L, 2, (lua_Integer)i) == LUA_TTABLE) { /* c */
            known_from(L, -1, "match", &k, 0);
            known_from(L, -1, "near", &k, 0);
            known_from(L, -1, "contradicts", &k, 0);
        }
        lua_pop(L, 1);
    }
    if (grader_design_oom(d))
        return luaL_error(L, "not enough memory");
    /* The work is words x phrases: charge it like a library call's bytes. */
    uint64_t words = grader_design_n_words(d);
    grader_sb_charge(L, 1 + n / 16 + words * (k.n + nc) / 16);
    lua_createtable(L, (int)nc, 0); /* status */
    lua_createtable(L, 0, 0);       /* status contra */
    int st = lua_gettop(L) - 1, ct = st + 1;
    double total = 0, got = 0;
    bool list = grader_design_is_list(d);
    static const char *const names[] = {"missing", "unclaimed", "negated", "found"};
    for (size_t i = 1; i <= nc; i++) {
        if (lua_rawgeti(L, 2, (lua_Integer)i) != LUA_TTABLE) { /* c */
            lua_pop(L, 1);
            lua_pushliteral(L, "missing");
            lua_rawseti(L, st, (lua_Integer)i);
            continue;
        }
        int c = lua_gettop(L);
        double pts = 1;
        if (raw_field(L, c, "points") == LUA_TNUMBER)
            pts = lua_tonumber(L, -1);
        lua_pop(L, 1);
        bool fuzzy = raw_field(L, c, "fuzzy") != LUA_TBOOLEAN || lua_toboolean(L, -1);
        lua_pop(L, 1);
        total += pts;
        enum grader_design_hit hit = judge_one(L, c, d, fuzzy, false, &k);
        size_t contra = judge_contradicts(L, c, d, fuzzy, &k);
        if (grader_design_oom(d))
            return luaL_error(L, "not enough memory");
        if (contra) {
            lua_pushliteral(L, "contradicted");
            lua_pushinteger(L, (lua_Integer)contra);
            lua_rawseti(L, ct, (lua_Integer)i);
        } else {
            lua_pushstring(L, names[hit]);
            if (hit == GRADER_HIT_FOUND && !list)
                got += pts;
        }
        lua_rawseti(L, st, (lua_Integer)i); /* c */
        lua_pop(L, 1);
    }
    grader_design_known_fini(&k);
    grader_design_free(d);
    lua_pushnumber(L, total > 0 ? got / total : 0); /* status contra score */
    lua_insert(L, st);                              /* score status contra */
    lua_pushboolean(L, list);                       /* score status contra list */
    lua_insert(L, st + 1);                          /* score list status contra */
    return 4;
}

static const luaL_Reg wb_funcs[] = {
    {"number", l_number}, {"close", l_close},  {"within", l_within}, {"interval", l_interval},
    {"round", l_round},   {"sig", l_sig},      {"norm", l_norm},     {"words", l_words},
    {"finite", l_finite}, {"_judge", l_judge}, {NULL, NULL}};

/* ---- wb.lab: questions graded against the student's own lab run ------------------ */

/* ctx is what params, answer and grade receive; ctx.lab is the student's
 * latest completed run of the question's lab (nil before the first). The
 * readers cope with every part missing and return nil for anything missing
 * or of the wrong type, so a prompt still renders for an old run. They are
 * C functions (not wb.lua) so that a grader's `return wb.lab.grade(...)`,
 * a tail call, keeps the grader's frame: luaL_error then names the pack's
 * file and line. Nothing here is Lua code, so it adds no instructions to
 * count and nothing to load per sandbox. */

#define LAB_GRADE "wb.lab.grade(answer, ctx, opts): "
#define LAB_MISSING                                                                                \
    "Your latest run lacks the figure this question needs. Run the lab again with its defaults."

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
    if (!finite_at(L, -1))
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
    if (lua_type(L, -1) != LUA_TSTRING && !finite_at(L, -1))
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
    G_SLOTS = G_HOW
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

/* Pushes `text`, then the worked answer (G_HOW) after a space when there is one. */
static void push_with_how(lua_State *L, const char *text)
{
    const char *how = lua_tostring(L, G_HOW);
    if (how && *how)
        lua_pushfstring(L, "%s %s", text, how);
    else
        lua_pushstring(L, text);
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

/* wb.lab.grade(answer, ctx, opts) -> score, feedback [, true for a `wrong` value]
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
    if (!(lua_type(L, G_CTX) == LUA_TTABLE && lua_getfield(L, G_CTX, "params") == LUA_TTABLE)) {
        lua_settop(L, G_BANDS);
        lua_newtable(L);
    }
    lua_getfield(L, G_P, "ref");
    if (!finite_at(L, -1)) {
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
        return lab_invalid(L);
    }
    double ref = lua_tonumber(L, -1);
    lua_settop(L, G_P);

    size_t alen;
    const char *answer = lua_tolstring(L, G_ANSWER, &alen);
    struct grader_number num;
    bool ok = false;
    if (strlen(answer) == alen) {
        grader_sb_nojump_begin(L);
        ok = grader_number_parse(answer, unit, &num);
        grader_sb_nojump_end(L);
    } else {
        snprintf(num.why, sizeof num.why, "the answer contains a NUL byte");
    }
    if (!ok) {
        lua_pushfstring(L, "Could not read that: %s.", num.why);
        return lab_invalid(L);
    }

    /* the worked answer, added to every graded feedback */
    lua_pushvalue(L, G_EXPLAIN);
    if (lua_isfunction(L, -1))
        call_with_p_ctx(L);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        lua_pushliteral(L, "");
    }
    if (lua_type(L, -1) != LUA_TSTRING)
        return luaL_error(L, LAB_GRADE "explain returned a %s, not a string", luaL_typename(L, -1));
    /* A run the lab flagged as noisy (labs/lab.h: noisy, noise) says so. */
    lua_pushcfunction(L, l_lab_figure);
    lua_pushvalue(L, G_CTX);
    lua_pushliteral(L, "noisy");
    lua_call(L, 2, 1); /* how noisy */
    bool noisy = lua_tonumber(L, -1) == 1;
    lua_pop(L, 1); /* how */
    if (noisy) {
        lua_pushcfunction(L, l_lab_text);
        lua_pushvalue(L, G_CTX);
        lua_pushliteral(L, "noise");
        lua_call(L, 2, 1); /* how noise */
        const char *why = lua_tostring(L, -1);
        lua_pushfstring(
            L,
            "%s%sNote: your run was flagged (%s), so its numbers may be off; run the lab "
            "again on a quieter machine.",
            lua_tostring(L, -2), lua_rawlen(L, -2) ? " " : "",
            why ? why : "noisy"); /* how noise how' */
        lua_replace(L, -3);
        lua_pop(L, 1); /* how' */
    }
    /* G_HOW */

    if (grader_tol_accepts(&tol, ref, num.value)) {
        lua_pushinteger(L, 1);
        push_with_how(L, "Right.");
        return 2;
    }
    /* known mistakes beat partial credit */
    for (lua_Integer i = 1; lua_istable(L, G_WRONG) && lua_geti(L, G_WRONG, i) == LUA_TTABLE; i++) {
        int vty = lua_getfield(L, -1, "value"); /* w v */
        if (vty == LUA_TFUNCTION)
            call_with_p_ctx(L);
        if (finite_at(L, -1) && grader_tol_accepts(&tol, lua_tonumber(L, -1), num.value)) {
            if (lua_getfield(L, -2, "feedback") != LUA_TSTRING)
                return luaL_error(L, LAB_GRADE "wrong[%I].feedback must be a string", i);
            lua_pushinteger(L, 0);
            push_with_how(L, lua_tostring(L, -2));
            lua_pushboolean(L, 1); /* a declared mistake (grader_result.mistake) */
            return 3;
        }
        lua_pop(L, 2);
    }
    lua_settop(L, G_HOW);
    /* partial credit: the best band holding the answer, as a numeric question's */
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
        if (grader_tol_accepts(&bt, ref, num.value) && (best_i == 0 || sc > best)) {
            best = sc;
            best_i = i;
        }
        lua_pop(L, 2);
    }
    lua_settop(L, G_HOW);
    if (best_i > 0 && best > 0) {
        lua_geti(L, G_BANDS, best_i);
        lua_pushnumber(L, best);
        if (lua_getfield(L, -2, "feedback") == LUA_TSTRING) {
            push_with_how(L, lua_tostring(L, -1));
        } else {
            char fb[96];
            snprintf(fb, sizeof fb, "Close, but outside the accepted range: partial credit (%g%%).",
                     best * 100);
            push_with_how(L, fb);
        }
        lua_remove(L, -2);
        return 2;
    }
    char range[160], fb[200];
    grader_sb_nojump_begin(L);
    grader_tol_describe(&tol, ref, unit, range, sizeof range);
    snprintf(fb, sizeof fb, "Not quite: the accepted range is %s.", range);
    grader_sb_nojump_end(L);
    lua_pushinteger(L, 0);
    push_with_how(L, fb);
    return 2;
}

static const luaL_Reg lab_funcs[] = {{"figure", l_lab_figure}, {"text", l_lab_text},
                                     {"param", l_lab_param},   {"blanks", l_lab_blanks},
                                     {"grade", l_lab_grade},   {NULL, NULL}};

/* ---- rng ---------------------------------------------------------------------------- */

/* rng:int(lo, hi) -> an integer in [lo, hi] */
static int l_rng_int(lua_State *L)
{
    struct grader_rng *r = luaL_checkudata(L, 1, RNG_TYPE);
    lua_Integer lo = luaL_checkinteger(L, 2), hi = luaL_checkinteger(L, 3);
    if (lo > hi)
        return luaL_error(L, "rng:int(lo, hi): lo (%I) is greater than hi (%I)", lo, hi);
    lua_pushinteger(L, (lua_Integer)grader_rng_int(r, lo, hi));
    return 1;
}

/* rng:uniform([lo, hi]) -> a float in [lo, hi), default [0, 1) */
static int l_rng_uniform(lua_State *L)
{
    struct grader_rng *r = luaL_checkudata(L, 1, RNG_TYPE);
    double lo = luaL_optnumber(L, 2, 0), hi = luaL_optnumber(L, 3, 1);
    if (!(lo <= hi))
        return luaL_error(L, "rng:uniform(lo, hi): lo is greater than hi");
    lua_pushnumber(L, lo + (hi - lo) * grader_rng_uniform(r));
    return 1;
}

/* rng:pick(list) -> one element of a non-empty list */
static int l_rng_pick(lua_State *L)
{
    struct grader_rng *r = luaL_checkudata(L, 1, RNG_TYPE);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_Integer n = (lua_Integer)lua_rawlen(L, 2);
    if (n < 1)
        return luaL_error(L, "rng:pick(list): the list is empty");
    lua_rawgeti(L, 2, (lua_Integer)grader_rng_int(r, 1, n));
    return 1;
}

static const luaL_Reg rng_methods[] = {
    {"int", l_rng_int}, {"uniform", l_rng_uniform}, {"pick", l_rng_pick}, {NULL, NULL}};

void grader_wb_push_rng(lua_State *L, uint64_t seed)
{
    struct grader_rng *r = lua_newuserdatauv(L, sizeof *r, 0); /* rng */
    grader_rng_init(r, seed);
    if (luaL_newmetatable(L, RNG_TYPE)) { /* rng mt */
        luaL_newlib(L, rng_methods);      /* rng mt methods */
        lua_setfield(L, -2, "__index");
        lua_pushboolean(L, 0); /* hidden from getmetatable: no __gc can be added */
        lua_setfield(L, -2, "__metatable");
    }
    lua_setmetatable(L, -2); /* rng */
}

/* ---- opening -------------------------------------------------------------------------- */

static pthread_once_t wb_once = PTHREAD_ONCE_INIT;
static struct core_buf wb_bytecode; /* immutable once compiled */
static struct core_err wb_compile_err;

static int dump_writer(lua_State *L, const void *p, size_t n, void *ud)
{
    (void)L;
    core_buf_append(ud, p, n);
    return 0;
}

/* Compiles wb.lua once per process. The bytecode is stripped of debug
 * information, which makes it about half the size every sandbox loads (a
 * tenth less work per graded answer); no position inside the library is
 * ever shown: its misuse errors name the pack's line, and the sandbox looks
 * past frames without a line for the position of a kill or an error. */
static void wb_compile(void)
{
    core_buf_init(&wb_bytecode);
    const struct core_embedded *e = grader_embedded_lua;
    while (e->path && strcmp(e->path, "wb.lua") != 0)
        e++;
    if (!e->path) {
        core_err_set(&wb_compile_err, CORE_ERR_INTERNAL, "wb.lua is not embedded");
        return;
    }
    lua_State *L = luaL_newstate(); /* our own trusted source: no sandbox needed */
    if (!L) {
        core_err_set(&wb_compile_err, CORE_ERR_INTERNAL, "out of memory compiling wb.lua");
        return;
    }
    if (luaL_loadbufferx(L, (const char *)e->data, e->len, "=wb", "t") == LUA_OK)
        lua_dump(L, dump_writer, &wb_bytecode, 1);
    else
        core_err_set(&wb_compile_err, CORE_ERR_INTERNAL, "%s", lua_tostring(L, -1));
    lua_close(L);
}

void grader_wb_digest(char out[65])
{
    const struct core_embedded *e = grader_embedded_lua;
    while (e->path && strcmp(e->path, "wb.lua") != 0)
        e++;
    struct core_sha256 h;
    core_sha256_init(&h);
    if (e->path)
        core_sha256_update(&h, e->data, e->len);
    core_sha256_final_hex(&h, out);
}

void grader_wb_open(lua_State *L, int g)
{
    pthread_once(&wb_once, wb_compile);
    if (wb_compile_err.code)
        luaL_error(L, "cannot load wb.lua: %s", wb_compile_err.msg);
    lua_getfield(L, g, "string"); /* string (guarded: opened before wb) */
    lua_getfield(L, -1, "find");  /* string find */
    lua_rawsetp(L, LUA_REGISTRYINDEX, &FIND_KEY);
    lua_pop(L, 1);
    luaL_newlib(L, wb_funcs);  /* wb */
    luaL_newlib(L, lab_funcs); /* wb lab */
    lua_setfield(L, -2, "lab");
    lua_pushvalue(L, -1);
    lua_setfield(L, g, "wb");
    if (luaL_loadbufferx(L, wb_bytecode.data, wb_bytecode.len, "=wb", "b") != LUA_OK)
        lua_error(L);                                /* wb chunk */
    lua_insert(L, -2);                               /* chunk wb */
    lua_call(L, 1, 1);                               /* graders */
    lua_rawsetp(L, LUA_REGISTRYINDEX, &GRADERS_KEY); /* */
}

void grader_wb_push_graders(lua_State *L)
{
    lua_rawgetp(L, LUA_REGISTRYINDEX, &GRADERS_KEY);
}
