/*
 * grader_grade.c — one question for one student: rendering its prompt,
 * grading an answer, the pack self-tests, and the per-question checks of
 * pack evaluation.
 *
 * Every operation is a job run in a fresh sandbox by one C driver (l_job)
 * under grader_pcall: it loads only the bytecode of the file that declares
 * the question, runs it with the constructors in grade mode (question{}
 * indexes its table by id), builds ctx, draws the variant's params, computes
 * the reference, then renders or grades. Grading is done in C where the
 * format allows (numeric with grader_number_parse and grader_tol_*, choice,
 * multi, ordering); text and design call the private graders of wb.lua
 * (Lua patterns and whole-word phrases); a custom `grade` is called as is.
 * Every call into pack code goes through grader_sb_try with its own
 * instruction budget and deadline; tables of the pack are read raw, so no
 * metamethod runs outside those calls.
 *
 * The variant: grader_rng_seed(pack id, question id, user, variant) seeds the
 * rng handed to params; an ordering question's shuffle uses the same seed
 * mixed with a constant, so it does not depend on what params drew.
 *
 * Uses the sandbox, the wb library, the pack model and the pure building
 * blocks of grader_internal.h.
 */
#include "grader_internal.h"

#include <lauxlib.h>
#include <lua.h>

#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PICKS 26 /* choices are lettered a..z */
#define ORDER_SALT 0x6f72646572696e67ULL
#define EXAMPLE_USER "example"

/* Fixed stack slots of the driver. */
enum { S_Q = 1, S_CTX, S_P, S_REF, S_EX, S_CH, S_TOP = S_CH };

enum job_mode { J_VIEW, J_GRADE, J_EXAMPLE, J_REF, J_CHECK, J_SWEEP, J_SAMPLE };

struct job {
    struct grader_pack *p;
    const struct grader_qx *qx;
    const struct grader_question *q;
    enum job_mode mode;
    const char *user;
    int variant;
    const struct grader_lab_run *lab; /* J_VIEW, J_GRADE */
    const char *params_in;            /* J_VIEW, J_GRADE: stored params, or NULL to draw */
    char *params_out;                 /* the params as JSON, for the view or result */
    const char *answer;               /* J_GRADE */
    size_t example;                   /* J_EXAMPLE, 1-based */
    struct grader_view *view;
    struct grader_result *res;
    /* J_EXAMPLE and J_REF */
    bool skip; /* nothing to check (no reference; a lab question without a pretend run) */
    bool exp_invalid;
    double exp_score;
    char *graded; /* the answer text that was graded */
    /* J_CHECK, J_SWEEP */
    struct core_strlist *problems;
    int n_problems;
    /* J_SWEEP: this variant's params serialised (its identity), and how many
     * of its variant-independent examples ran; J_SAMPLE: the tolerance */
    struct core_buf vkey;
    size_t n_examples_run;
    double tol;
    char role[16];
    /* where we are, for messages */
    const char *what;
    char qpos[128];    /* "file:line" of the question */
    bool no_lab;       /* a lab question and ctx.lab is nil */
    bool use_slim;     /* run the question's slim file */
    bool slim_missing; /* ...which did not declare it: run the full file */
};

/* ---- small helpers ------------------------------------------------------------------ */

static void jproblem(struct job *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void jproblem(struct job *j, const char *fmt, ...)
{
    char buf[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if ((j->mode == J_SWEEP || j->mode == J_CHECK) && j->q->has_params && j->vkey.len)
        core_strlist_pushf(j->problems, "%s: question %s: variant %d (%.150s): %s", j->qpos,
                           j->q->id, j->variant, j->vkey.data ? j->vkey.data : "", buf);
    else
        core_strlist_pushf(j->problems, "%s: question %s: %s", j->qpos, j->q->id, buf);
    j->n_problems++;
}

/* Raises the error message on top of the stack (from grader_sb_try). */
static int fail(lua_State *L)
{
    return lua_error(L);
}

/* Raises a problem of the pack found while grading:
 * "file:line: question ID: message". */
static int fail_pack(lua_State *L, struct job *j, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail_pack(lua_State *L, struct job *j, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    j->what = NULL;
    lua_pushfstring(L, "%s: question %s: %s", j->qpos, j->q->id, buf);
    grader_sb_mark_mapped(L);
    return lua_error(L);
}

/* Pushes t[name] (raw) and returns its type. */
static int rawfield(lua_State *L, int t, const char *name)
{
    lua_pushstring(L, name);
    return lua_rawget(L, t < 0 ? t - 1 : t);
}

/* Calls pack code; on error raises it (the driver stops). */
static void call(lua_State *L, struct job *j, const char *what, int nargs, int nres)
{
    j->what = what;
    if (grader_sb_try(L, nargs, nres) != 0)
        fail(L);
    j->what = NULL;
}

static char *dup_lua(lua_State *L, int idx)
{
    size_t n;
    const char *s = lua_tolstring(L, idx, &n);
    return core_xstrndup(s ? s : "", s ? n : 0);
}

/* ---- ctx, params, reference -------------------------------------------------------- */

static void push_kv(lua_State *L, const struct grader_kv *kv, size_t n)
{
    lua_createtable(L, 0, (int)n);
    for (size_t i = 0; i < n; i++) {
        if (!kv[i].key)
            continue;
        if (kv[i].is_num)
            lua_pushnumber(L, kv[i].num);
        else
            lua_pushstring(L, kv[i].str ? kv[i].str : "");
        lua_setfield(L, -2, kv[i].key);
    }
}

static void push_lab(lua_State *L, const struct grader_lab_run *run)
{
    lua_createtable(L, 0, 5);
    lua_pushinteger(L, run->id);
    lua_setfield(L, -2, "id");
    lua_pushstring(L, run->lab ? run->lab : "");
    lua_setfield(L, -2, "lab");
    if (run->finished_at) {
        lua_pushstring(L, run->finished_at);
        lua_setfield(L, -2, "finished_at");
    }
    push_kv(L, run->params, run->n_params);
    lua_setfield(L, -2, "params");
    push_kv(L, run->summary, run->n_summary);
    lua_setfield(L, -2, "summary");
}

/* A pretend run from an example: its table, with the missing parts filled. */
static void fill_pretend_lab(lua_State *L, int t, const struct grader_question *q)
{
    static const char *const tabs[] = {"params", "summary"};
    for (int i = 0; i < 2; i++) {
        if (rawfield(L, t, tabs[i]) != LUA_TTABLE) {
            lua_pushstring(L, tabs[i]);
            lua_newtable(L);
            lua_rawset(L, t);
        }
        lua_pop(L, 1);
    }
    if (rawfield(L, t, "id") == LUA_TNIL) {
        lua_pushliteral(L, "id");
        lua_pushinteger(L, 0);
        lua_rawset(L, t);
    }
    lua_pop(L, 1);
    if (rawfield(L, t, "lab") == LUA_TNIL) {
        lua_pushliteral(L, "lab");
        lua_pushstring(L, q->lab ? q->lab : "");
        lua_rawset(L, t);
    }
    lua_pop(L, 1);
    if (rawfield(L, t, "finished_at") == LUA_TNIL) {
        lua_pushliteral(L, "finished_at");
        lua_pushliteral(L, "1970-01-01T00:00:00.000Z"); /* a fixed, obviously pretend time */
        lua_rawset(L, t);
    }
    lua_pop(L, 1);
}

/* Pushes the first example's pretend run, or nil. */
static void push_first_example_lab(lua_State *L)
{
    int top = lua_gettop(L);
    if (rawfield(L, S_Q, "examples") == LUA_TTABLE) { /* exs */
        size_t n = lua_rawlen(L, top + 1);
        for (size_t i = 1; i <= n; i++) {
            if (lua_rawgeti(L, top + 1, (lua_Integer)i) == LUA_TTABLE && /* exs ex */
                rawfield(L, -1, "lab") == LUA_TTABLE) {                  /* exs ex lab */
                lua_replace(L, top + 1);                                 /* lab ex */
                lua_settop(L, top + 1);                                  /* lab */
                return;
            }
            lua_settop(L, top + 1);
        }
    }
    lua_settop(L, top);
    lua_pushnil(L);
}

static void build_ctx(lua_State *L, struct job *j)
{
    lua_createtable(L, 0, 6); /* ctx */
    lua_pushinteger(L, j->variant);
    lua_setfield(L, -2, "variant");
    lua_pushnumber(L, j->q->points);
    lua_setfield(L, -2, "points");
    lua_replace(L, S_CTX);
    if (!j->q->lab)
        return; /* only lab-linked questions see a run */
    switch (j->mode) {
    case J_VIEW:
    case J_GRADE:
        if (j->lab)
            push_lab(L, j->lab);
        else
            lua_pushnil(L);
        break;
    case J_EXAMPLE:
        if (lua_type(L, S_EX) == LUA_TTABLE)
            rawfield(L, S_EX, "lab");
        else
            lua_pushnil(L);
        break;
    default:
        push_first_example_lab(L);
        break;
    }
    if (lua_type(L, -1) == LUA_TTABLE) {
        if (j->mode != J_VIEW && j->mode != J_GRADE)
            fill_pretend_lab(L, lua_gettop(L), j->q);
        lua_setfield(L, S_CTX, "lab");
    } else {
        lua_pop(L, 1);
        j->no_lab = true;
    }
}

static uint64_t variant_seed(const struct job *j)
{
    return grader_rng_seed(j->p->info.id, j->q->id, j->user, j->variant);
}

static void draw_params(lua_State *L, struct job *j)
{
    if (j->params_in && (j->mode == J_VIEW || j->mode == J_GRADE)) { /* as stored */
        if (!grader_params_decode(L, j->params_in))                  /* p */
            fail_pack(L, j, "the stored variant parameters are not readable JSON");
        lua_replace(L, S_P);
    } else if (j->mode == J_EXAMPLE && lua_type(L, S_EX) == LUA_TTABLE &&
               rawfield(L, S_EX, "params") == LUA_TTABLE) { /* fixed numbers */
        lua_replace(L, S_P);
    } else {
        if (j->mode == J_EXAMPLE && lua_type(L, S_EX) == LUA_TTABLE)
            lua_pop(L, 1);
        if (rawfield(L, S_Q, "params") == LUA_TFUNCTION) { /* params */
            grader_wb_push_rng(L, variant_seed(j));        /* params rng */
            lua_pushvalue(L, S_CTX);                       /* params rng ctx */
            call(L, j, "params", 2, 1);                    /* p */
            if (lua_type(L, -1) != LUA_TTABLE)
                fail_pack(L, j, "params must return a table of numbers, got %s",
                          luaL_typename(L, -1));
        } else {
            lua_pop(L, 1);
            lua_newtable(L);
        }
        lua_replace(L, S_P);
    }
    lua_pushvalue(L, S_P);
    lua_setfield(L, S_CTX, "params");
    if (j->mode == J_VIEW || j->mode == J_GRADE) { /* before graders can change p */
        free(j->params_out);
        j->params_out = grader_params_encode(L, S_P);
    }
}

/* Pushes Q.answer, calling it with (p, ctx) when it is a function. */
static int push_answer_value(lua_State *L, struct job *j)
{
    int ty = rawfield(L, S_Q, "answer");
    if (ty == LUA_TFUNCTION) {
        lua_pushvalue(L, S_P);
        lua_pushvalue(L, S_CTX);
        call(L, j, "answer", 2, 1);
        ty = lua_type(L, -1);
    }
    return ty;
}

static size_t n_choices(lua_State *L)
{
    return lua_type(L, S_CH) == LUA_TTABLE ? lua_rawlen(L, S_CH) : 0;
}

/* Computes the reference into S_REF (nil when there is none) and ctx.reference. */
static void compute_reference(lua_State *L, struct job *j)
{
    const struct grader_question *q = j->q;
    size_t n = n_choices(L);
    switch (q->kind) {
    case GRADER_NUMERIC: {
        int ty = push_answer_value(L, j);
        if (ty == LUA_TNUMBER) {
            if (!isfinite(lua_tonumber(L, -1)))
                fail_pack(L, j, "the answer is not a finite number");
        } else if (ty != LUA_TNIL) {
            fail_pack(L, j, "answer must give a number, got %s", luaL_typename(L, -1));
        }
        break;
    }
    case GRADER_CHOICE: {
        int ty = push_answer_value(L, j);
        if (ty != LUA_TNIL) {
            int isint = 0;
            lua_Integer k = ty == LUA_TNUMBER ? lua_tointegerx(L, -1, &isint) : 0;
            if (!isint || k < 1 || (size_t)k > n)
                fail_pack(L, j, "answer %s is out of range: there are %zu choices",
                          ty == LUA_TNUMBER ? lua_tostring(L, -1) : luaL_typename(L, -1), n);
        }
        break;
    }
    case GRADER_MULTI: {
        int ty = push_answer_value(L, j);
        if (ty == LUA_TTABLE) {
            size_t m = lua_rawlen(L, -1);
            if (m == 0)
                fail_pack(L, j, "answer is an empty list");
            for (size_t i = 1; i <= m; i++) {
                lua_rawgeti(L, -1, (lua_Integer)i);
                int isint = 0;
                lua_Integer k = lua_tointegerx(L, -1, &isint);
                if (!isint || k < 1 || (size_t)k > n)
                    fail_pack(L, j,
                              "answer entry %zu is not a choice number from 1 "
                              "to %zu",
                              i, n);
                lua_pop(L, 1);
            }
        } else if (ty != LUA_TNIL) {
            fail_pack(L, j, "answer must give a list of choice numbers, got %s",
                      luaL_typename(L, -1));
        }
        break;
    }
    case GRADER_TEXT: {
        int ty = push_answer_value(L, j);
        if (ty == LUA_TSTRING || ty == LUA_TNUMBER) {
            lua_createtable(L, 1, 0); /* s list */
            lua_insert(L, -2);        /* list s */
            lua_rawseti(L, -2, 1);    /* list */
        } else if (ty == LUA_TTABLE) {
            size_t m = lua_rawlen(L, -1);
            if (m == 0)
                fail_pack(L, j, "answer is an empty list");
            for (size_t i = 1; i <= m; i++) {
                if (lua_rawgeti(L, -1, (lua_Integer)i) != LUA_TSTRING)
                    fail_pack(L, j, "answer entry %zu must be a string", i);
                lua_pop(L, 1);
            }
        } else if (ty != LUA_TNIL) {
            fail_pack(L, j, "answer must give a string or a list of strings, got %s",
                      luaL_typename(L, -1));
        }
        break;
    }
    case GRADER_DESIGN:
        if (rawfield(L, S_Q, "model") != LUA_TSTRING) {
            lua_pop(L, 1);
            lua_pushnil(L);
        }
        break;
    case GRADER_ORDERING:
        lua_pushnil(L);
        break;
    }
    lua_pushvalue(L, -1);
    lua_setfield(L, S_CTX, "reference");
    lua_replace(L, S_REF);
}

/* ---- rendering ------------------------------------------------------------------------ */

/* A printf conversion allowed in a placeholder: %[-+ #0]*[0-9]{0,3}(.[0-9]{0,3})?[dieEfFgGsxX] */
static bool spec_ok(const char *s, size_t n, char *conv)
{
    size_t i = 0;
    if (i >= n || s[i] != '%')
        return false;
    i++;
    while (i < n && strchr("-+ #0", s[i]))
        i++;
    size_t d = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9' && d < 3)
        i++, d++;
    if (i < n && s[i] == '.') {
        i++;
        d = 0;
        while (i < n && s[i] >= '0' && s[i] <= '9' && d < 3)
            i++, d++;
    }
    if (i + 1 != n || !strchr("dieEfFgGsxX", s[i]))
        return false;
    *conv = s[i];
    return true;
}

/* Formats the value on top of the stack for a placeholder. */
static bool fmt_value(lua_State *L, const char *spec, size_t spec_n, char *out, size_t n, char *why,
                      size_t wn)
{
    int ty = lua_type(L, -1);
    if (ty != LUA_TNUMBER && ty != LUA_TSTRING && ty != LUA_TBOOLEAN) {
        snprintf(why, wn, "is %s; a placeholder needs a number or a string", luaL_typename(L, -1));
        return false;
    }
    char plain[128];
    if (ty == LUA_TNUMBER && lua_isinteger(L, -1))
        snprintf(plain, sizeof plain, "%lld", (long long)lua_tointeger(L, -1));
    else if (ty == LUA_TNUMBER)
        grader_number_format(lua_tonumber(L, -1), 6, plain, sizeof plain);
    else if (ty == LUA_TBOOLEAN)
        snprintf(plain, sizeof plain, "%s", lua_toboolean(L, -1) ? "true" : "false");
    if (!spec) {
        snprintf(out, n, "%s", ty == LUA_TSTRING ? lua_tostring(L, -1) : plain);
        return true;
    }
    char conv;
    if (!spec_ok(spec, spec_n, &conv)) {
        snprintf(why, wn,
                 "has the format '%.*s'; use one of %%d %%i %%f %%e %%g %%s with "
                 "flags, width and precision, e.g. %%.2f",
                 (int)spec_n, spec);
        return false;
    }
    char f[32];
    memcpy(f, spec, spec_n - 1); /* all but the conversion */
    f[spec_n - 1] = '\0';
    if (strchr("dixX", conv)) {
        int isint = 0;
        lua_Integer k = lua_tointegerx(L, -1, &isint);
        if (ty != LUA_TNUMBER || !isint) {
            snprintf(why, wn, "needs a whole number for %%%c, got %s", conv,
                     ty == LUA_TNUMBER ? plain : luaL_typename(L, -1));
            return false;
        }
        char ff[40];
        snprintf(ff, sizeof ff, "%sll%c", f, conv == 'i' ? 'd' : conv);
        snprintf(out, n, ff, (long long)k);
    } else if (conv == 's') {
        char ff[40];
        snprintf(ff, sizeof ff, "%ss", f);
        snprintf(out, n, ff, ty == LUA_TSTRING ? lua_tostring(L, -1) : plain);
        /* a value cut at the buffer's end must not end inside a character */
        size_t len = strlen(out), k = len;
        while (k > 0 && ((unsigned char)out[k - 1] & 0xC0) == 0x80)
            k--;
        if (k > 0 && (unsigned char)out[k - 1] >= 0xC0) {
            unsigned char lead = (unsigned char)out[k - 1];
            size_t need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2;
            if (len - (k - 1) < need)
                out[k - 1] = '\0';
        }
    } else {
        if (ty != LUA_TNUMBER) {
            snprintf(why, wn, "needs a number for %%%c, got %s", conv, luaL_typename(L, -1));
            return false;
        }
        char ff[40];
        snprintf(ff, sizeof ff, "%s%c", f, conv);
        snprintf(out, n, ff, lua_tonumber(L, -1));
    }
    return true;
}

/* The names params set, for a message: "f, p". */
static void param_names(lua_State *L, char *buf, size_t n)
{
    const char *names[16];
    size_t k = 0;
    lua_pushnil(L);
    while (lua_next(L, S_P)) {
        if (lua_type(L, -2) == LUA_TSTRING && k < 16)
            names[k++] = lua_tostring(L, -2); /* alive: the key stays in p */
        lua_pop(L, 1);
    }
    for (size_t a = 1; a < k; a++)
        for (size_t b = a; b > 0 && strcmp(names[b - 1], names[b]) > 0; b--) {
            const char *t = names[b];
            names[b] = names[b - 1];
            names[b - 1] = t;
        }
    buf[0] = '\0';
    for (size_t i = 0; i < k; i++) {
        size_t len = strlen(buf);
        snprintf(buf + len, n - len, "%s%s", i ? ", " : "", names[i]);
    }
    if (!k)
        snprintf(buf, n, "nothing");
}

/* How render treats a placeholder it cannot fill. */
enum render_mode {
    R_STRICT,  /* an error (the prompt of a question whose params are known) */
    R_LENIENT, /* "?" (a lab question before the student's run) */
    R_KEEP     /* left as written (feedback, where braces may be literal) */
};

/* Renders template s with the params at S_P: pushes the text and returns
 * true, or returns false with `why` and pushes nothing (R_STRICT only). */
static bool render(lua_State *L, const char *s, enum render_mode mode, char *why, size_t wn)
{
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    const char *p = s;
    while (*p) {
        if (p[0] == '{' && p[1] == '{') {
            luaL_addchar(&b, '{');
            p += 2;
            continue;
        }
        const char *q = p + 1;
        if (p[0] != '{' || !((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || *q == '_')) {
            luaL_addchar(&b, *p++);
            continue;
        }
        const char *name = q;
        while ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9') ||
               *q == '_')
            q++;
        size_t name_n = (size_t)(q - name);
        const char *spec = NULL;
        size_t spec_n = 0;
        if (*q == ':') {
            spec = q + 1;
            const char *e = strchr(spec, '}');
            if (!e || e - spec > 24) {
                luaL_addchar(&b, *p++);
                continue;
            }
            spec_n = (size_t)(e - spec);
            q = e;
        }
        if (*q != '}') {
            luaL_addchar(&b, *p++);
            continue;
        }
        lua_pushlstring(L, name, name_n);
        int ty = lua_rawget(L, S_P); /* value */
        char out[512], w[200];
        if (ty == LUA_TNIL && mode == R_KEEP) {
            lua_pop(L, 1);
            luaL_addchar(&b, *p++);
            continue;
        }
        if (ty == LUA_TNIL) {
            lua_pop(L, 1);
            if (mode == R_LENIENT) {
                luaL_addchar(&b, '?');
                p = q + 1;
                continue;
            }
            char names[200];
            param_names(L, names, sizeof names);
            snprintf(why, wn, "uses {%.*s}, which params does not set (it sets %s)", (int)name_n,
                     name, names);
            luaL_pushresult(&b);
            lua_pop(L, 1);
            return false;
        }
        if (!spec && lua_type(L, -1) == LUA_TSTRING) {
            luaL_addvalue(&b); /* a plain string goes in whole, however long */
            p = q + 1;
            continue;
        }
        bool ok = fmt_value(L, spec, spec_n, out, sizeof out, w, sizeof w);
        lua_pop(L, 1);
        if (!ok && mode == R_KEEP) {
            luaL_addchar(&b, *p++);
            continue;
        }
        if (!ok) {
            snprintf(why, wn, "placeholder {%.*s%s%.*s} %s", (int)name_n, name, spec ? ":" : "",
                     (int)spec_n, spec ? spec : "", w);
            luaL_pushresult(&b);
            lua_pop(L, 1);
            return false;
        }
        luaL_addstring(&b, out);
        p = q + 1;
    }
    luaL_pushresult(&b);
    return true;
}

/* Renders a template or stops: in J_CHECK a problem is recorded and false
 * returned; elsewhere the pack error is raised. Pushes the text on success. */
static bool render_or_fail(lua_State *L, struct job *j, const char *tmpl, const char *field_name)
{
    char why[400];
    if (render(L, tmpl, j->no_lab ? R_LENIENT : R_STRICT, why, sizeof why))
        return true;
    if (j->mode == J_CHECK || j->mode == J_SWEEP) {
        jproblem(j, "%s %s", field_name, why);
        return false;
    }
    fail_pack(L, j, "%s %s", field_name, why);
    return false;
}

/* Renders the choices (choice, multi) or items (ordering) into S_CH. */
static void render_choices(lua_State *L, struct job *j)
{
    const char *name = j->q->kind == GRADER_ORDERING ? "items" : "choices";
    if (j->q->kind != GRADER_CHOICE && j->q->kind != GRADER_MULTI && j->q->kind != GRADER_ORDERING)
        return;
    if (rawfield(L, S_Q, name) != LUA_TTABLE) { /* list */
        lua_pop(L, 1);
        return;
    }
    size_t n = lua_rawlen(L, -1);
    lua_createtable(L, (int)n, 0); /* list out */
    for (size_t i = 1; i <= n; i++) {
        if (lua_rawgeti(L, -2, (lua_Integer)i) != LUA_TSTRING) /* list out s */
            fail_pack(L, j, "%s %zu is not a string", name, i);
        const char *tmpl = lua_tostring(L, -1);
        char label[32];
        snprintf(label, sizeof label, "%s %zu", j->q->kind == GRADER_ORDERING ? "item" : "choice",
                 i);
        if (render_or_fail(L, j, tmpl, label)) { /* list out s text */
            lua_remove(L, -2);
        } /* else: list out s (kept as written) */
        lua_rawseti(L, -2, (lua_Integer)i);
    }
    lua_replace(L, S_CH);
    lua_pop(L, 1);
}

/* The shown order of an ordering question: shown[k] = declared index. */
static void shuffle(const struct job *j, size_t n, size_t *shown)
{
    for (size_t i = 0; i < n; i++)
        shown[i] = i;
    if (n < 2)
        return;
    struct grader_rng r;
    grader_rng_init(&r, variant_seed(j) ^ ORDER_SALT);
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

/* ---- reading picks ------------------------------------------------------------------------ */

/* Reads letters (b, "a c", "a,c", "ac", "(b)"), or 1-based numbers, into
 * picks (0-based, in the order written, at most MAX_PICKS * 2). Returns the
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
            if (count < MAX_PICKS * 2)
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
            for (size_t i = 0; i < tn && count < MAX_PICKS * 2; i++)
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
static int choice_by_text(lua_State *L, const char *ans, size_t n)
{
    size_t len = strlen(ans);
    char *a = core_xmalloc(len + 1);
    grader_text_norm(ans, len, a);
    int found = -1;
    for (size_t i = 1; i <= n && found < 0; i++) {
        lua_rawgeti(L, S_CH, (lua_Integer)i);
        size_t cn;
        const char *c = lua_tolstring(L, -1, &cn);
        if (c) {
            char *cc = core_xmalloc(cn + 1);
            grader_text_norm(c, cn, cc);
            if (cc[0] && strcmp(cc, a) == 0 && !(strlen(a) == 1 && a[0] >= 'a' && a[0] <= 'z'))
                found = (int)i - 1;
            free(cc);
        }
        lua_pop(L, 1);
    }
    free(a);
    return found;
}

/* ---- results ------------------------------------------------------------------------------- */

static void set_invalid(struct grader_result *r, const char *why)
{
    r->valid = false;
    r->score = 0;
    r->correct = false;
    free(r->feedback);
    r->feedback = core_xstrdup(why);
}

static void set_score(struct grader_result *r, double frac, const char *feedback)
{
    if (frac < 0)
        frac = 0;
    if (frac > 1)
        frac = 1;
    r->valid = true;
    r->score = frac * r->max;
    r->correct = frac >= 1 - 1e-12;
    if (r->correct)
        r->score = r->max;
    free(r->feedback);
    r->feedback = core_xstrdup(feedback && feedback[0] ? feedback
                               : r->correct            ? "Correct."
                                                       : "Incorrect.");
}

static const char *unit_name(const struct grader_question *q)
{
    const struct grader_unit *u = grader_unit_find(q->unit ? q->unit : "");
    return u ? u->name : "";
}

static char *value_text(double v, const char *unit, int sig)
{
    char num[64];
    grader_number_format(v, sig, num, sizeof num);
    if (!unit[0])
        return core_xstrdup(num);
    if (strcmp(unit, "%") == 0)
        return core_xasprintf("%s%%", num);
    return core_xasprintf("%s %s", num, unit);
}

/* The reference as a student reads it (display) or as an answer that must
 * score full marks (exact). NULL when there is none. */
static char *reference_text(lua_State *L, struct job *j, bool exact)
{
    const struct grader_question *q = j->q;
    size_t n = n_choices(L);
    if (q->kind == GRADER_ORDERING) {
        if (n == 0 || n > MAX_PICKS)
            return NULL;
        size_t shown[MAX_PICKS];
        shuffle(j, n, shown);
        struct core_buf b;
        core_buf_init(&b);
        for (size_t i = 0; i < n; i++)
            for (size_t k = 0; k < n; k++)
                if (shown[k] == i)
                    core_buf_printf(&b, "%s%c", i ? " " : "", (char)('a' + k));
        return core_buf_steal(&b);
    }
    if (lua_isnil(L, S_REF)) {
        if (q->kind != GRADER_DESIGN || exact)
            return NULL;
        /* a design question without a model: name what a good answer covers */
        int top = lua_gettop(L);
        if (rawfield(L, S_Q, "concepts") != LUA_TTABLE) { /* concepts */
            lua_settop(L, top);
            return NULL;
        }
        struct core_buf b;
        core_buf_init(&b);
        core_buf_puts(&b, "A good answer covers: ");
        size_t m = lua_rawlen(L, top + 1);
        for (size_t i = 1; i <= m; i++) {
            if (lua_rawgeti(L, top + 1, (lua_Integer)i) == LUA_TTABLE && /* concepts c */
                rawfield(L, -1, "name") == LUA_TSTRING)                  /* concepts c name */
                core_buf_printf(&b, "%s%s", i > 1 ? ", " : "", lua_tostring(L, -1));
            lua_settop(L, top + 1); /* concepts */
        }
        lua_settop(L, top);
        core_buf_puts(&b, ".");
        return core_buf_steal(&b);
    }
    switch (q->kind) {
    case GRADER_NUMERIC: {
        double v = lua_tonumber(L, S_REF);
        if (exact) {
            char num[40]; /* read back by the answer parser: '.' whatever the locale */
            core_num_format(num, sizeof num, v, 17);
            return core_xstrdup(num);
        }
        return value_text(v, unit_name(q), 6);
    }
    case GRADER_CHOICE: {
        lua_Integer k = lua_tointeger(L, S_REF);
        if (exact)
            return core_xasprintf("%c", (char)('a' + k - 1));
        lua_rawgeti(L, S_CH, k);
        char *s = core_xasprintf("%c) %s", (char)('a' + k - 1),
                                 lua_tostring(L, -1) ? lua_tostring(L, -1) : "");
        lua_pop(L, 1);
        return s;
    }
    case GRADER_MULTI: {
        bool right[MAX_PICKS] = {false};
        size_t m = lua_rawlen(L, S_REF);
        for (size_t i = 1; i <= m; i++) {
            lua_rawgeti(L, S_REF, (lua_Integer)i);
            lua_Integer k = lua_tointeger(L, -1);
            if (k >= 1 && k <= MAX_PICKS)
                right[k - 1] = true;
            lua_pop(L, 1);
        }
        struct core_buf b;
        core_buf_init(&b);
        for (size_t i = 0; i < n && i < MAX_PICKS; i++)
            if (right[i])
                core_buf_printf(&b, "%s%c", b.len ? (exact ? " " : ", ") : "", (char)('a' + i));
        return core_buf_steal(&b);
    }
    case GRADER_TEXT:
        lua_rawgeti(L, S_REF, 1);
        char *s = dup_lua(L, -1);
        lua_pop(L, 1);
        return s;
    case GRADER_DESIGN:
        return dup_lua(L, S_REF);
    default:
        return NULL;
    }
}

/* ---- grading per kind ------------------------------------------------------------------ */

static void read_tol(lua_State *L, int t, struct grader_tol *tol)
{
    grader_tol_default(tol);
    if (lua_type(L, t) != LUA_TTABLE)
        return;
    if (rawfield(L, t, "rel") == LUA_TNUMBER)
        tol->rel = lua_tonumber(L, -1);
    if (rawfield(L, t, "abs") == LUA_TNUMBER) {
        tol->abs = lua_tonumber(L, -1);
        /* abs without rel means abs alone, not "abs or 1%" */
        if (lua_type(L, -2) != LUA_TNUMBER)
            tol->rel = 0;
    }
    if (rawfield(L, t, "sig") == LUA_TNUMBER)
        tol->sig = (int)lua_tonumber(L, -1);
    lua_pop(L, 3);
}

#define MAX_BANDS 16

static void grade_numeric(lua_State *L, struct job *j, const char *answer)
{
    struct grader_result *r = j->res;
    const struct grader_question *q = j->q;
    const char *unit = unit_name(q);
    double ref = lua_tonumber(L, S_REF);
    struct grader_tol tol;
    rawfield(L, S_Q, "tolerance");
    read_tol(L, lua_gettop(L), &tol);
    lua_pop(L, 1);
    /* integer = true: '/' between whole numbers may be C's integer division */
    bool integer = rawfield(L, S_Q, "integer") == LUA_TBOOLEAN && lua_toboolean(L, -1);
    lua_pop(L, 1);
    if (integer && !(isfinite(ref) && ref == floor(ref)))
        fail_pack(L, j, "integer = true, but the reference %.17g is not a whole number", ref);
    char buf[200];
    grader_tol_describe(&tol, ref, unit, buf, sizeof buf);
    r->accepted = core_xstrdup(buf);

    struct grader_number num;
    if (!grader_number_parse(answer, q->unit, &num)) {
        set_invalid(r, num.why);
        return;
    }
    r->value = num.value;
    r->has_value = true;
    r->parsed = value_text(num.value, unit, 6);
    if (grader_tol_accepts(&tol, ref, num.value)) {
        set_score(r, 1, "Correct.");
        return;
    }
    if (integer && num.c_differs && grader_tol_accepts(&tol, ref, num.c_value)) {
        r->value = num.c_value;
        free(r->parsed);
        r->parsed = value_text(num.c_value, unit, 6);
        set_score(r, 1, "Correct: / between whole numbers is read as C's integer division here.");
        return;
    }
    /* A known mistake beats partial credit. */
    if (rawfield(L, S_Q, "wrong") == LUA_TTABLE) { /* wrong */
        int w = lua_gettop(L);
        size_t m = lua_rawlen(L, w);
        for (size_t i = 1; i <= m; i++) {
            if (lua_rawgeti(L, w, (lua_Integer)i) != LUA_TTABLE) { /* wrong e */
                lua_pop(L, 1);
                continue;
            }
            int ty = rawfield(L, -1, "value"); /* wrong e v */
            if (ty == LUA_TFUNCTION) {
                lua_pushvalue(L, S_P);
                lua_pushvalue(L, S_CTX);
                call(L, j, "a wrong value", 2, 1);
                ty = lua_type(L, -1);
            }
            if (ty == LUA_TBOOLEAN && !lua_toboolean(L, -1)) { /* not this variant's mistake */
                lua_settop(L, w);
                continue;
            }
            if (ty != LUA_TNUMBER)
                fail_pack(L, j, "wrong %zu: value must be a number (or false), got %s", i,
                          luaL_typename(L, -1));
            double wv = lua_tonumber(L, -1);
            if (grader_tol_accepts(&tol, wv, num.value)) {
                rawfield(L, -2, "feedback");
                set_score(r, 0, lua_tostring(L, -1) ? lua_tostring(L, -1) : "Incorrect.");
                r->mistake = true;
                lua_settop(L, w - 1);
                return;
            }
            lua_settop(L, w);
        }
    }
    lua_pop(L, 1);
    struct grader_band bands[MAX_BANDS];
    size_t nb = 0;
    if (rawfield(L, S_Q, "bands") == LUA_TTABLE) { /* bands */
        int bt = lua_gettop(L);
        size_t m = lua_rawlen(L, bt);
        for (size_t i = 1; i <= m && nb < MAX_BANDS; i++) {
            if (lua_rawgeti(L, bt, (lua_Integer)i) == LUA_TTABLE) { /* bands b */
                struct grader_band *b = &bands[nb++];
                read_tol(L, lua_gettop(L), &b->tol);
                b->score = 0;
                if (rawfield(L, -1, "score") == LUA_TNUMBER)
                    b->score = lua_tonumber(L, -1);
                lua_pop(L, 1);
                /* the string stays alive: the band table holds it */
                b->feedback =
                    rawfield(L, -1, "feedback") == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
                lua_pop(L, 1);
            }
            lua_pop(L, 1);
        }
        int bi = -1;
        double s = grader_tol_score(&tol, bands, nb, ref, num.value, &bi);
        if (bi >= 0 && s > 0) {
            char fb[256];
            if (!bands[bi].feedback)
                snprintf(fb, sizeof fb,
                         "Close, but outside the accepted range: partial credit (%g%%).", s * 100);
            set_score(r, s, bands[bi].feedback ? bands[bi].feedback : fb);
            lua_pop(L, 1);
            return;
        }
    }
    lua_pop(L, 1);
    char fb[320];
    if (grader_tol_rounding_note(&tol, ref, answer, &num, q->unit, fb, sizeof fb)) {
        set_score(r, 0, fb);
        return;
    }
    /* Say how close counts, not where the answer lies. */
    int at = snprintf(fb, sizeof fb, "Not within the accepted tolerance (");
    if (tol.rel > 0)
        at += snprintf(fb + at, sizeof fb - (size_t)at, "±%g%%", tol.rel * 100);
    if (tol.abs > 0)
        at += snprintf(fb + at, sizeof fb - (size_t)at, "%s±%g%s%s", tol.rel > 0 ? " or " : "",
                       tol.abs, q->unit && q->unit[0] ? " " : "", q->unit ? q->unit : "");
    if (tol.sig > 0)
        at += snprintf(fb + at, sizeof fb - (size_t)at, "%s%d significant figures",
                       tol.rel > 0 || tol.abs > 0 ? ", or the same " : "the same ", tol.sig);
    if (!(tol.rel > 0) && !(tol.abs > 0) && tol.sig <= 0) /* see grader_tol_interval */
        at += snprintf(fb + at, sizeof fb - (size_t)at, "%s",
                       ref == 0 ? "±1e-09" : "the exact value only");
    snprintf(fb + at, sizeof fb - (size_t)at, "). Check the formula and the arithmetic.");
    set_score(r, 0, fb);
}

static void grade_choice(lua_State *L, struct job *j, const char *answer)
{
    struct grader_result *r = j->res;
    size_t n = n_choices(L);
    int picks[MAX_PICKS * 2];
    char why[200];
    int idx = choice_by_text(L, answer, n);
    if (idx < 0) {
        int np = read_picks(answer, n, picks, why, sizeof why);
        if (np < 0) {
            set_invalid(r, why);
            return;
        }
        for (int i = 1; i < np; i++)
            if (picks[i] != picks[0]) {
                set_invalid(r, "Pick one choice: answer with a single letter, e.g. 'b'.");
                return;
            }
        idx = picks[0];
    }
    r->parsed = core_xasprintf("%c", (char)('a' + idx));
    bool right = (lua_Integer)idx + 1 == lua_tointeger(L, S_REF);
    const char *note = NULL;
    if (rawfield(L, S_Q, "why") == LUA_TTABLE && lua_rawgeti(L, -1, idx + 1) == LUA_TSTRING)
        note = lua_tostring(L, -1); /* alive on the stack until set_score copies it */
    char fb[600];
    snprintf(fb, sizeof fb, "%s%s%s", right ? "Correct." : "Incorrect.", note ? " " : "",
             note ? note : "");
    set_score(r, right ? 1 : 0, fb);
    r->mistake = !right && note;
    lua_settop(L, S_TOP);
}

static void grade_multi(lua_State *L, struct job *j, const char *answer)
{
    struct grader_result *r = j->res;
    size_t n = n_choices(L);
    int picks[MAX_PICKS * 2];
    char why[200];
    int np;
    int idx = choice_by_text(L, answer, n);
    if (idx >= 0) {
        picks[0] = idx;
        np = 1;
    } else {
        np = read_picks(answer, n, picks, why, sizeof why);
        if (np < 0) {
            set_invalid(r, why);
            return;
        }
    }
    bool right[MAX_PICKS] = {false}, picked[MAX_PICKS] = {false};
    size_t m = lua_rawlen(L, S_REF), n_right = 0;
    for (size_t i = 1; i <= m; i++) {
        lua_rawgeti(L, S_REF, (lua_Integer)i);
        lua_Integer k = lua_tointeger(L, -1);
        if (k >= 1 && (size_t)k <= n && !right[k - 1]) {
            right[k - 1] = true;
            n_right++;
        }
        lua_pop(L, 1);
    }
    for (int i = 0; i < np; i++)
        picked[picks[i]] = true;
    int good = 0, bad = 0;
    struct core_buf parsed, notes;
    core_buf_init(&parsed);
    core_buf_init(&notes);
    rawfield(L, S_Q, "why"); /* why */
    bool has_why = lua_type(L, -1) == LUA_TTABLE;
    for (size_t i = 0; i < n; i++) {
        if (picked[i])
            core_buf_printf(&parsed, "%s%c", parsed.len ? ", " : "", (char)('a' + i));
        if (picked[i] && right[i])
            good++;
        if (picked[i] != right[i]) {
            if (picked[i])
                bad++;
            if (has_why && lua_rawgeti(L, -1, (lua_Integer)i + 1) == LUA_TSTRING)
                core_buf_printf(&notes, " (%c) %s", (char)('a' + i), lua_tostring(L, -1));
            if (has_why)
                lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
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
    set_score(r, frac, fb);
    r->mistake = !r->correct && explained;
    free(fb);
}

static void grade_ordering(lua_State *L, struct job *j, const char *answer)
{
    struct grader_result *r = j->res;
    size_t n = n_choices(L);
    if (n == 0 || n > MAX_PICKS)
        fail_pack(L, j, "an ordering question needs 2 to 26 items");
    int picks[MAX_PICKS * 2];
    char why[200];
    /* Numbers would read as shown positions while a student may mean the
     * items' own numbering: only the letters shown are unambiguous. */
    if (strpbrk(answer, "0123456789")) {
        set_invalid(r, "Answer with the letters shown (a, b, c, ...) in your order, e.g. 'c a b'.");
        return;
    }
    int np = read_picks(answer, n, picks, why, sizeof why);
    if (np < 0) {
        set_invalid(r, why);
        return;
    }
    bool seen[MAX_PICKS] = {false};
    bool dup = false;
    for (int i = 0; i < np; i++) {
        dup |= seen[picks[i]];
        seen[picks[i]] = true;
    }
    if ((size_t)np != n || dup) {
        char msg[200];
        snprintf(msg, sizeof msg, "Use each of the letters a to %c exactly once, e.g. '%s'.",
                 (char)('a' + n - 1), n >= 3 ? "c a b ..." : "b a");
        set_invalid(r, msg);
        return;
    }
    size_t shown[MAX_PICKS], order[MAX_PICKS];
    shuffle(j, n, shown);
    struct core_buf parsed;
    core_buf_init(&parsed);
    for (size_t i = 0; i < n; i++) {
        order[i] = shown[picks[i]];
        core_buf_printf(&parsed, "%s%c", i ? " " : "", (char)('a' + picks[i]));
    }
    r->parsed = core_buf_steal(&parsed);
    size_t inv = 0, pairs = n * (n - 1) / 2;
    for (size_t a = 0; a < n; a++)
        for (size_t b = a + 1; b < n; b++)
            inv += order[a] > order[b];
    double frac = inv == 0 ? 1 : 1 - 2.0 * (double)inv / (double)pairs;
    char fb[200];
    if (inv == 0)
        snprintf(fb, sizeof fb, "Correct order.");
    else
        snprintf(fb, sizeof fb, "%zu of %zu pairs are in the right order.", pairs - inv, pairs);
    set_score(r, frac, fb);
}

/* Calls a private grader of wb.lua: graders[name](args...) -> score [, feedback]. */
static void grade_lua(lua_State *L, struct job *j, const char *name, int nargs)
{
    grader_wb_push_graders(L); /* args graders */
    lua_getfield(L, -1, name); /* args graders fn */
    lua_remove(L, -2);         /* args fn */
    lua_insert(L, -nargs - 1); /* fn args */
    call(L, j, j->q->kind == GRADER_TEXT ? "text matching" : "concept matching", nargs, 2);
    double s = lua_tonumber(L, -2);
    set_score(j->res, s, lua_tostring(L, -1));
    lua_pop(L, 2);
}

static void grade_text(lua_State *L, struct job *j, const char *answer)
{
    size_t len = strlen(answer);
    char *norm = core_xmalloc(len + 1);
    grader_text_norm(answer, len, norm);
    j->res->parsed = norm;
    lua_pushvalue(L, S_REF);
    rawfield(L, S_Q, "patterns");
    lua_pushstring(L, answer);
    grade_lua(L, j, "text", 3);
}

static void grade_design(lua_State *L, struct job *j, const char *answer)
{
    rawfield(L, S_Q, "concepts");
    lua_pushstring(L, answer);
    grade_lua(L, j, "design", 2);
}

/* A custom grade(answer, ctx): a fraction [, feedback], or a table
 * { score =, feedback =, valid = }. */
static void grade_custom(lua_State *L, struct job *j, const char *answer)
{
    struct grader_result *r = j->res;
    rawfield(L, S_Q, "grade");
    lua_pushstring(L, answer);
    lua_pushvalue(L, S_CTX);
    call(L, j, "grade", 2, 3); /* s fb m */
    bool mistake = lua_toboolean(L, -1);
    lua_pop(L, 1); /* s fb */
    if (lua_type(L, -2) == LUA_TTABLE) {
        int t = lua_gettop(L) - 1;
        rawfield(L, t, "mistake");
        mistake = mistake || lua_toboolean(L, -1);
        lua_pop(L, 1);
        rawfield(L, t, "valid");
        bool valid = lua_type(L, -1) == LUA_TNIL || lua_toboolean(L, -1);
        lua_pop(L, 1);
        rawfield(L, t, "feedback");
        const char *fb = lua_tostring(L, -1);
        if (!valid) {
            set_invalid(r, fb ? fb : "The answer could not be read.");
            lua_pop(L, 3);
            return;
        }
        rawfield(L, t, "score"); /* s fb fbt score */
        lua_replace(L, t);       /* score fb fbt */
        lua_replace(L, t + 1);   /* score fbt */
    }
    if (lua_type(L, -2) != LUA_TNUMBER)
        fail_pack(L, j,
                  "grade must return a fraction from 0 to 1 (or a table "
                  "{ score = ..., feedback = ..., valid = ... }), got %s",
                  luaL_typename(L, -2));
    double s = lua_tonumber(L, -2);
    if (!(s >= 0 && s <= 1))
        fail_pack(L, j, "grade returned %g; a score is a fraction from 0 to 1", s);
    set_score(r, s, lua_tostring(L, -1));
    r->mistake = mistake && !r->correct;
    lua_pop(L, 2);
}

static bool blank(const char *s)
{
    for (; *s; s++)
        if (!strchr(" \t\r\n\f\v", *s))
            return false;
    return true;
}

/* Feedback may use the prompt's {name} placeholders ("at p = {p} the
 * speedup is ..."): fill them from this variant's params. A name params does
 * not set, or a value that does not format, stays as written. */
static void fill_feedback(lua_State *L, struct grader_result *r)
{
    if (!r->feedback || !strchr(r->feedback, '{'))
        return;
    char why[8];
    render(L, r->feedback, R_KEEP, why, sizeof why); /* text */
    free(r->feedback);
    r->feedback = core_xstrdup(lua_tostring(L, -1));
    lua_pop(L, 1);
}

static void grade_answer_raw(lua_State *L, struct job *j, const char *answer);

static void grade_answer(lua_State *L, struct job *j, const char *answer)
{
    grade_answer_raw(L, j, answer);
    fill_feedback(L, j->res);
}

static void grade_answer_raw(lua_State *L, struct job *j, const char *answer)
{
    struct grader_result *r = j->res;
    const struct grader_question *q = j->q;
    r->max = q->points;
    free(r->reference);
    r->reference = reference_text(L, j, false);
    if (!r->reference)
        r->reference = core_xstrdup("");
    if (j->no_lab) {
        char msg[200];
        snprintf(msg, sizeof msg,
                 "Run the lab '%s' first (warpbench lab run %s): this question "
                 "is graded against your own measurements.",
                 q->lab, q->lab);
        set_invalid(r, msg);
        return;
    }
    if (blank(answer)) {
        set_invalid(r, "Empty answer.");
        return;
    }
    size_t len = strlen(answer);
    if (len > q->max_answer) {
        char msg[160];
        snprintf(msg, sizeof msg,
                 "The answer is too long: %zu bytes, and this question grades at most %zu. "
                 "Shorten it.",
                 len, q->max_answer);
        set_invalid(r, msg);
        return;
    }
    /* A design answer's score is the rubric's reading of it: automatic,
     * provisional until a person's score stands beside it. */
    r->automatic = q->kind == GRADER_DESIGN;
    if (q->has_grade) {
        grade_custom(L, j, answer);
        return;
    }
    switch (q->kind) {
    case GRADER_NUMERIC:
        if (lua_isnil(L, S_REF))
            fail_pack(L, j, "no reference answer");
        grade_numeric(L, j, answer);
        break;
    case GRADER_CHOICE:
        grade_choice(L, j, answer);
        break;
    case GRADER_MULTI:
        grade_multi(L, j, answer);
        break;
    case GRADER_ORDERING:
        grade_ordering(L, j, answer);
        break;
    case GRADER_TEXT:
        grade_text(L, j, answer);
        break;
    case GRADER_DESIGN:
        grade_design(L, j, answer);
        break;
    }
}

/* ---- the jobs ----------------------------------------------------------------------- */

static void view_fill(lua_State *L, struct job *j)
{
    struct grader_view *v = j->view;
    const struct grader_question *q = j->q;
    render_or_fail(L, j, q->prompt, "prompt");
    v->prompt = dup_lua(L, -1);
    lua_pop(L, 1);
    if (rawfield(L, S_Q, "hints") == LUA_TTABLE) { /* hints */
        size_t n = lua_rawlen(L, -1);
        v->hints = n ? core_xcalloc(n, sizeof *v->hints) : NULL;
        for (size_t i = 1; i <= n; i++) {
            lua_rawgeti(L, -1, (lua_Integer)i);
            const char *h = lua_tostring(L, -1);
            char label[32];
            snprintf(label, sizeof label, "hint %zu", i);
            render_or_fail(L, j, h ? h : "", label);
            v->hints[v->n_hints++] = dup_lua(L, -1);
            lua_pop(L, 2);
        }
    }
    lua_pop(L, 1);
    size_t n = n_choices(L);
    if (n) {
        v->choices = core_xcalloc(n, sizeof *v->choices);
        size_t shown[MAX_PICKS];
        bool ord = q->kind == GRADER_ORDERING && n <= MAX_PICKS;
        if (ord)
            shuffle(j, n, shown);
        for (size_t i = 0; i < n; i++) {
            lua_rawgeti(L, S_CH, (lua_Integer)(ord ? shown[i] : i) + 1);
            v->choices[v->n_choices++] = dup_lua(L, -1);
            lua_pop(L, 1);
        }
    }
    v->unit = core_xstrdup(q->unit ? q->unit : "");
    v->max_answer = q->max_answer;
    if (q->kind == GRADER_DESIGN)
        rawfield(L, S_Q, "concepts"); /* concepts */
    else
        lua_pushnil(L);
    if (lua_type(L, -1) == LUA_TTABLE) {
        /* The concepts a student scores a design answer on (checked at load:
         * a list of tables with a string name and points > 0, default 1). */
        size_t nc = lua_rawlen(L, -1);
        v->rubric = nc ? core_xcalloc(nc, sizeof *v->rubric) : NULL;
        v->rubric_points = nc ? core_xcalloc(nc, sizeof *v->rubric_points) : NULL;
        for (size_t i = 1; i <= nc; i++) {
            if (lua_rawgeti(L, -1, (lua_Integer)i) != LUA_TTABLE) { /* concepts c */
                lua_pop(L, 1);
                continue;
            }
            rawfield(L, -1, "name");   /* concepts c name */
            rawfield(L, -2, "points"); /* concepts c name points */
            v->rubric[v->n_rubric] =
                lua_type(L, -2) == LUA_TSTRING ? dup_lua(L, -2) : core_xstrdup("");
            v->rubric_points[v->n_rubric] =
                lua_type(L, -1) == LUA_TNUMBER ? lua_tonumber(L, -1) : 1;
            v->n_rubric++;
            lua_pop(L, 3); /* concepts */
        }
    }
    lua_pop(L, 1);
    if (j->no_lab)
        v->needs_lab =
            core_xasprintf("run the lab '%s' first (warpbench lab run %s)", q->lab, q->lab);
}

static void sweep_feedback(lua_State *L, struct job *j);
static void sweep_wrong(lua_State *L, struct job *j);

/* J_CHECK: what the static checks could not see. Problems that leave the
 * rest checkable are recorded; others are raised. */
static void check_fill(lua_State *L, struct job *j)
{
    const struct grader_question *q = j->q;
    if (render_or_fail(L, j, q->prompt, "prompt"))
        lua_pop(L, 1);
    if (rawfield(L, S_Q, "hints") == LUA_TTABLE) {
        size_t n = lua_rawlen(L, -1);
        for (size_t i = 1; i <= n; i++) {
            lua_rawgeti(L, -1, (lua_Integer)i);
            char label[32];
            snprintf(label, sizeof label, "hint %zu", i);
            if (render_or_fail(L, j, lua_tostring(L, -1) ? lua_tostring(L, -1) : "", label))
                lua_pop(L, 1);
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
    if ((q->kind == GRADER_CHOICE || q->kind == GRADER_MULTI || q->kind == GRADER_ORDERING) &&
        n_choices(L) > MAX_PICKS)
        jproblem(j, "has %zu %s; at most %d can be lettered a to z", n_choices(L),
                 q->kind == GRADER_ORDERING ? "items" : "choices", MAX_PICKS);
    if (j->no_lab)
        return; /* its numbers need a run: checked by the examples that bring one */
    if (q->kind == GRADER_NUMERIC && !q->has_grade && lua_isnil(L, S_REF))
        jproblem(j, "answer gives nothing: a numeric question needs a reference");
    /* What the sweep checks on every variant, for this one (a question
     * without params has no other: the sweep then adds nothing); its
     * examples are the self-tests' to run. */
    sweep_feedback(L, j);
    lua_settop(L, S_TOP);
    sweep_wrong(L, j);
}

/* ---- the variant sweep (J_SWEEP) and graded samples (J_SAMPLE) -------------------------- */

/* A number as short as it can be written and still read back exactly. */
static void key_number(lua_State *L, int idx, struct core_buf *b)
{
    if (lua_isinteger(L, idx)) {
        core_buf_printf(b, "%lld", (long long)lua_tointeger(L, idx));
        return;
    }
    double v = lua_tonumber(L, idx);
    char num[40];
    snprintf(num, sizeof num, "%.15g", v);
    if (strtod(num, NULL) != v)
        snprintf(num, sizeof num, "%.17g", v);
    core_buf_puts(b, num);
}

static int cmp_cstr(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Writes the table at idx as "k=v, k=v" with keys sorted (tables nested as
 * {...}): the same params always give the same text, which is what tells
 * two variants apart. */
static void key_table(lua_State *L, int idx, struct core_buf *b, int depth)
{
    idx = lua_absindex(L, idx);
    enum { MAX_KEYS = 64 };
    const char *keys[MAX_KEYS];
    size_t n = 0;
    lua_createtable(L, 0, 0); /* names: keeps the key texts alive */
    int names = lua_gettop(L);
    lua_pushnil(L);
    while (n < MAX_KEYS && lua_next(L, idx)) { /* names k v */
        lua_pop(L, 1);                         /* names k */
        lua_pushvalue(L, -1);                  /* names k k */
        const char *t = lua_type(L, -1) == LUA_TNUMBER ? NULL : lua_tostring(L, -1);
        if (!t) {
            struct core_buf kb;
            core_buf_init(&kb);
            if (lua_type(L, -1) == LUA_TNUMBER)
                key_number(L, -1, &kb);
            else
                core_buf_printf(&kb, "(%s)", luaL_typename(L, -1));
            lua_pop(L, 1);
            lua_pushstring(L, kb.data ? kb.data : ""); /* names k ktext */
            core_buf_fini(&kb);
        }
        keys[n] = lua_tostring(L, -1);
        lua_rawseti(L, names, (lua_Integer)n + 1); /* names k */
        n++;
    }
    if (n == MAX_KEYS)
        lua_pop(L, 1); /* the key lua_next left */
    qsort(keys, n, sizeof *keys, cmp_cstr);
    for (size_t i = 0; i < n; i++) {
        core_buf_printf(b, "%s%s=", i ? ", " : "", keys[i]);
        lua_pushstring(L, keys[i]);  /* names ktext */
        int ty = lua_rawget(L, idx); /* names v */
        if (ty == LUA_TNIL) {        /* a number key: look it up as a number */
            lua_pop(L, 1);
            lua_pushnumber(L, strtod(keys[i], NULL));
            if (lua_isinteger(L, -1) || lua_tonumber(L, -1) == (lua_Integer)lua_tonumber(L, -1)) {
                lua_Integer k = (lua_Integer)lua_tonumber(L, -1);
                lua_pop(L, 1);
                lua_pushinteger(L, k);
            }
            ty = lua_rawget(L, idx);
        }
        if (ty == LUA_TNUMBER)
            key_number(L, -1, b);
        else if (ty == LUA_TSTRING)
            core_buf_printf(b, "\"%s\"", lua_tostring(L, -1));
        else if (ty == LUA_TBOOLEAN)
            core_buf_puts(b, lua_toboolean(L, -1) ? "true" : "false");
        else if (ty == LUA_TTABLE && depth < 3) {
            core_buf_putc(b, '{');
            key_table(L, -1, b, depth + 1);
            core_buf_putc(b, '}');
        } else
            core_buf_printf(b, "(%s)", luaL_typename(L, -1));
        lua_pop(L, 1); /* names */
    }
    lua_settop(L, names - 1);
}

/* Checks that every {name} of a feedback text is set by this variant's
 * params (render's strict rule). */
static void sweep_text(lua_State *L, struct job *j, const char *text, const char *label)
{
    char why[400];
    if (!text || !strchr(text, '{'))
        return;
    if (render(L, text, R_STRICT, why, sizeof why))
        lua_pop(L, 1);
    else
        jproblem(j, "%s %s", label, why);
}

/* Feedback texts of the list Q[list], each entry's field `name` (or the
 * entry itself when it is a string and name is NULL). */
static void sweep_texts(lua_State *L, struct job *j, int t, const char *list, const char *name,
                        const char *label)
{
    if (rawfield(L, t, list) != LUA_TTABLE) { /* list */
        lua_pop(L, 1);
        return;
    }
    int lt = lua_gettop(L);
    size_t n = lua_rawlen(L, lt);
    for (size_t i = 1; i <= n; i++) {
        char lab[96];
        snprintf(lab, sizeof lab, "%s %zu feedback", label, i);
        int ty = lua_rawgeti(L, lt, (lua_Integer)i); /* list e */
        if (ty == LUA_TTABLE && name && rawfield(L, -1, name) == LUA_TSTRING)
            sweep_text(L, j, lua_tostring(L, -1), lab);
        else if (ty == LUA_TSTRING && !name)
            sweep_text(L, j, lua_tostring(L, -1), lab);
        lua_settop(L, lt);
    }
    lua_pop(L, 1);
}

/* Placeholders in every feedback text. */
static void sweep_feedback(lua_State *L, struct job *j)
{
    sweep_texts(L, j, S_Q, "wrong", "feedback", "wrong");
    sweep_texts(L, j, S_Q, "bands", "feedback", "band");
    if (rawfield(L, S_Q, "why") == LUA_TTABLE) { /* why */
        size_t n = n_choices(L);
        for (size_t i = 1; i <= n; i++) {
            char lab[48];
            snprintf(lab, sizeof lab, "why[%zu]", i);
            if (lua_rawgeti(L, -1, (lua_Integer)i) == LUA_TSTRING) /* why s */
                sweep_text(L, j, lua_tostring(L, -1), lab);
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
    if (rawfield(L, S_Q, "concepts") == LUA_TTABLE) { /* concepts */
        int ct = lua_gettop(L);
        size_t n = lua_rawlen(L, ct);
        for (size_t i = 1; i <= n; i++) {
            if (lua_rawgeti(L, ct, (lua_Integer)i) == LUA_TTABLE) { /* concepts c */
                char lab[64];
                snprintf(lab, sizeof lab, "concept %zu feedback", i);
                if (rawfield(L, -1, "feedback") == LUA_TSTRING)
                    sweep_text(L, j, lua_tostring(L, -1), lab);
                lua_pop(L, 1);
                snprintf(lab, sizeof lab, "concept %zu: contradicts", i);
                sweep_texts(L, j, lua_gettop(L), "contradicts", "feedback", lab);
            }
            lua_settop(L, ct);
        }
    }
    lua_pop(L, 1);
}

/* Every `wrong` value: it must give a finite number, and an answer equal
 * to it must not be graded right. */
static void sweep_wrong(lua_State *L, struct job *j)
{
    if (j->q->kind != GRADER_NUMERIC || rawfield(L, S_Q, "wrong") != LUA_TTABLE) {
        lua_settop(L, S_TOP);
        return;
    }
    int w = lua_gettop(L);
    bool has_ref = lua_type(L, S_REF) == LUA_TNUMBER;
    double ref = lua_tonumber(L, S_REF);
    struct grader_tol tol;
    rawfield(L, S_Q, "tolerance");
    read_tol(L, lua_gettop(L), &tol);
    lua_settop(L, w);
    const char *unit = unit_name(j->q);
    size_t n = lua_rawlen(L, w);
    for (size_t i = 1; i <= n; i++) {
        if (lua_rawgeti(L, w, (lua_Integer)i) != LUA_TTABLE) { /* wrong e */
            lua_settop(L, w);
            continue;
        }
        int ty = rawfield(L, -1, "value"); /* wrong e v */
        if (ty == LUA_TFUNCTION) {
            lua_pushvalue(L, S_P);
            lua_pushvalue(L, S_CTX);
            call(L, j, "a wrong value", 2, 1);
            ty = lua_type(L, -1);
        }
        if (ty == LUA_TBOOLEAN && !lua_toboolean(L, -1)) {
            /* the function says this mistake does not apply to this variant */
        } else if (ty != LUA_TNUMBER) {
            jproblem(j,
                     "wrong %zu: value gives %s, not a number (return false when the mistake "
                     "does not apply to this variant)",
                     i, luaL_typename(L, -1));
        } else if (!isfinite(lua_tonumber(L, -1))) {
            jproblem(j, "wrong %zu: value gives %g, not a finite number", i, lua_tonumber(L, -1));
        } else if (has_ref) {
            double wv = lua_tonumber(L, -1);
            char a[64], b[64], iv[200];
            grader_number_format(wv, 6, a, sizeof a);
            grader_number_format(ref, 6, b, sizeof b);
            grader_tol_describe(&tol, ref, unit, iv, sizeof iv);
            if (wv == ref)
                jproblem(j, "wrong %zu: value %s equals the reference %s", i, a, b);
            else if (grader_tol_accepts(&tol, ref, wv))
                jproblem(j,
                         "wrong %zu: value %s lies inside the accepted interval %s of the "
                         "reference %s, so it is graded right, never as this mistake "
                         "(tighten the tolerance or drop the entry)",
                         i, a, iv, b);
        }
        lua_settop(L, w);
    }
    lua_settop(L, S_TOP);
}

static void example_answer(lua_State *L, struct job *j);

/* The examples that hold for every variant: an answer computed from p
 * (a function) without fixed params or a pretend run. */
static void sweep_examples(lua_State *L, struct job *j)
{
    if (rawfield(L, S_Q, "examples") != LUA_TTABLE) { /* exs */
        lua_settop(L, S_TOP);
        return;
    }
    int exs = lua_gettop(L);
    size_t n = lua_rawlen(L, exs);
    for (size_t e = 1; e <= n; e++) {
        if (lua_rawgeti(L, exs, (lua_Integer)e) != LUA_TTABLE) { /* exs ex */
            lua_settop(L, exs);
            continue;
        }
        int ex = lua_gettop(L);
        bool fixed = rawfield(L, ex, "params") != LUA_TNIL || rawfield(L, ex, "lab") != LUA_TNIL;
        int at =
            lua_rawgeti(L, ex, 1) == LUA_TFUNCTION || rawfield(L, ex, "answer") == LUA_TFUNCTION;
        lua_settop(L, ex);
        if (fixed || !at) {
            lua_settop(L, exs);
            continue;
        }
        lua_replace(L, S_EX); /* exs */
        j->example = e;
        free(j->graded);
        j->graded = NULL;
        j->exp_invalid = false;
        example_answer(L, j);
        struct grader_result res;
        memset(&res, 0, sizeof res);
        struct grader_result *keep = j->res;
        j->res = &res;
        grade_answer(L, j, j->graded);
        j->res = keep;
        j->n_examples_run++;
        bool ok = j->exp_invalid ? !res.valid
                                 : res.valid && res.max > 0 &&
                                       fabs(res.score / res.max - j->exp_score) <= 1e-9;
        if (!ok) {
            char want[32], got[32];
            if (j->exp_invalid)
                snprintf(want, sizeof want, "invalid");
            else
                snprintf(want, sizeof want, "%.6g", j->exp_score);
            if (!res.valid)
                snprintf(got, sizeof got, "invalid");
            else
                snprintf(got, sizeof got, "%.6g", res.max > 0 ? res.score / res.max : 0);
            jproblem(j, "example %zu ('%.40s'): expected %s, got %s (%.100s)", e,
                     j->graded ? j->graded : "", want, got, res.feedback ? res.feedback : "");
        }
        grader_result_fini(&res);
        lua_pushnil(L);
        lua_replace(L, S_EX);
        lua_settop(L, exs);
    }
    lua_settop(L, S_TOP);
}

/* J_SWEEP: everything one variant can get wrong. */
static void sweep_fill(lua_State *L, struct job *j)
{
    if (render_or_fail(L, j, j->q->prompt, "prompt"))
        lua_pop(L, 1);
    if (rawfield(L, S_Q, "hints") == LUA_TTABLE) { /* hints */
        size_t n = lua_rawlen(L, -1);
        for (size_t i = 1; i <= n; i++) {
            lua_rawgeti(L, -1, (lua_Integer)i); /* hints h */
            char label[32];
            snprintf(label, sizeof label, "hint %zu", i);
            if (lua_type(L, -1) == LUA_TSTRING && render_or_fail(L, j, lua_tostring(L, -1), label))
                lua_pop(L, 1);
            lua_pop(L, 1);
        }
    }
    lua_settop(L, S_TOP);
    if (j->no_lab)
        return; /* its numbers need a run: the examples that bring one check them */
    sweep_feedback(L, j);
    lua_settop(L, S_TOP);
    sweep_wrong(L, j);
    sweep_examples(L, j);
}

/* J_SAMPLE: a design question's graded sample: its answer, the score a
 * person gave it and the tolerance. */
static void sample_answer(lua_State *L, struct job *j)
{
    if (rawfield(L, S_EX, "answer") != LUA_TSTRING)
        fail_pack(L, j, "sample %zu: the answer must be a string", j->example);
    j->graded = dup_lua(L, -1);
    lua_pop(L, 1);
    j->exp_score = rawfield(L, S_EX, "score") == LUA_TNUMBER ? lua_tonumber(L, -1) : 0;
    lua_pop(L, 1);
    j->tol = rawfield(L, S_EX, "tol") == LUA_TNUMBER ? lua_tonumber(L, -1) : GRADER_SAMPLE_TOL;
    lua_pop(L, 1);
    j->role[0] = '\0';
    if (rawfield(L, S_EX, "role") == LUA_TSTRING)
        snprintf(j->role, sizeof j->role, "%s", lua_tostring(L, -1));
    lua_pop(L, 1);
}

/* An ordering example's `order` (declared item numbers, e.g. {1, 2, 3} for
 * the right order) as the letters this example student would type for the
 * shuffled display. Pushes the answer text. */
static void push_order_letters(lua_State *L, struct job *j, int order_idx)
{
    size_t n = n_choices(L);
    size_t shown[MAX_PICKS];
    if (n == 0 || n > MAX_PICKS)
        fail_pack(L, j, "example %zu: `order` needs an ordering question", j->example);
    shuffle(j, n, shown);
    char letters[2 * MAX_PICKS + 1];
    size_t m = lua_rawlen(L, order_idx), at = 0;
    for (size_t i = 1; i <= m && i <= MAX_PICKS; i++) {
        lua_Integer d = lua_rawgeti(L, order_idx, (lua_Integer)i) == LUA_TNUMBER
                            ? lua_tointeger(L, -1)
                            : 0; /* order d */
        lua_pop(L, 1);
        size_t k = 0;
        while (k < n && (lua_Integer)shown[k] + 1 != d)
            k++;
        if (k == n)
            fail_pack(L, j, "example %zu: `order` entry %zu is not an item number (1..%zu)",
                      j->example, i, n);
        letters[at++] = (char)('a' + k);
        letters[at++] = ' ';
    }
    letters[at ? at - 1 : 0] = '\0';
    lua_pushstring(L, letters); /* answer */
}

/* Reads an example's answer (text, number, function(p, ctx), or for an
 * ordering question `order`) into j->graded. */
static void example_answer(lua_State *L, struct job *j)
{
    if (lua_rawgeti(L, S_EX, 1) == LUA_TNIL) {
        lua_pop(L, 1);
        rawfield(L, S_EX, "answer");
    }
    if (lua_type(L, -1) == LUA_TNIL && rawfield(L, S_EX, "order") == LUA_TTABLE) {
        if (j->q->kind != GRADER_ORDERING)
            fail_pack(L, j, "example %zu: `order` is only for ordering questions", j->example);
        push_order_letters(L, j, lua_gettop(L));
        lua_replace(L, -3); /* drop nil and the order table under the letters */
        lua_pop(L, 1);
    } else if (lua_type(L, -1) == LUA_TNIL) {
        lua_pop(L, 1); /* the absent `order` */
    }
    if (lua_type(L, -1) == LUA_TFUNCTION) {
        lua_pushvalue(L, S_P);
        lua_pushvalue(L, S_CTX);
        call(L, j, "the example's answer", 2, 1);
    }
    if (lua_type(L, -1) != LUA_TSTRING && lua_type(L, -1) != LUA_TNUMBER)
        fail_pack(L, j, "example %zu: the answer must be a string or a number, got %s", j->example,
                  luaL_typename(L, -1));
    j->graded = dup_lua(L, -1);
    lua_pop(L, 1);
    if (lua_rawgeti(L, S_EX, 2) == LUA_TNIL) {
        lua_pop(L, 1);
        rawfield(L, S_EX, "score");
    }
    if (lua_type(L, -1) == LUA_TSTRING && strcmp(lua_tostring(L, -1), "invalid") == 0)
        j->exp_invalid = true;
    else if (lua_type(L, -1) == LUA_TNUMBER)
        j->exp_score = lua_tonumber(L, -1);
    else
        fail_pack(L, j, "example %zu: the expected score must be a fraction or \"invalid\"",
                  j->example);
    lua_pop(L, 1);
}

static int l_job(lua_State *L)
{
    struct job *j = lua_touserdata(L, 1);
    const struct grader_question *q = j->q;
    const struct grader_pfile *f = &j->p->files[j->qx->file];
    grader_sb_enter_c(L);
    lua_settop(L, 0);
    grader_sb_set_fallback(L, j->qpos);
    grader_sb_load_mapped(L, j->use_slim ? &j->qx->slim : &f->bc, f->chunkname,
                          j->use_slim ? &j->qx->map : NULL); /* chunk */
    call(L, j, "the file", 0, 0);
    grader_decl_push_question(L, q->id); /* Q */
    if (lua_type(L, S_Q) != LUA_TTABLE && j->use_slim) {
        j->slim_missing = true;
        return 0;
    }
    if (lua_type(L, S_Q) != LUA_TTABLE)
        fail_pack(L, j,
                  "it is not declared when its file runs again (is the file "
                  "deterministic?)");
    lua_settop(L, S_TOP);
    if (j->mode == J_EXAMPLE || j->mode == J_SAMPLE) {
        const char *list = j->mode == J_SAMPLE ? "samples" : "examples";
        if (rawfield(L, S_Q, list) != LUA_TTABLE ||
            lua_rawgeti(L, -1, (lua_Integer)j->example) != LUA_TTABLE)
            fail_pack(L, j, "%s %zu is not a table", j->mode == J_SAMPLE ? "sample" : "example",
                      j->example);
        lua_replace(L, S_EX);
        lua_settop(L, S_TOP);
    }
    build_ctx(L, j);
    assert(lua_gettop(L) == S_TOP);
    draw_params(L, j);
    assert(lua_gettop(L) == S_TOP);
    if (j->mode == J_SWEEP || j->mode == J_CHECK) { /* the variant's identity, for messages */
        core_buf_reset(&j->vkey);
        key_table(L, S_P, &j->vkey, 0);
        core_buf_putc(&j->vkey, '\0');
        j->vkey.len--;
    }
    render_choices(L, j);
    assert(lua_gettop(L) == S_TOP);
    if (!j->no_lab) /* without the run, the reference cannot be known */
        compute_reference(L, j);
    assert(lua_gettop(L) == S_TOP);
    switch (j->mode) {
    case J_VIEW:
        view_fill(L, j);
        break;
    case J_CHECK:
        check_fill(L, j);
        break;
    case J_SWEEP:
        sweep_fill(L, j);
        break;
    case J_SAMPLE:
        sample_answer(L, j);
        grade_answer(L, j, j->graded);
        break;
    case J_GRADE:
        grade_answer(L, j, j->answer);
        break;
    case J_EXAMPLE:
        example_answer(L, j);
        grade_answer(L, j, j->graded);
        break;
    case J_REF:
        if (j->no_lab) {
            j->skip = true;
            break;
        }
        j->graded = reference_text(L, j, true);
        if (!j->graded) {
            j->skip = true;
            break;
        }
        grade_answer(L, j, j->graded);
        break;
    }
    assert(lua_gettop(L) == S_TOP || j->skip);
    return 0;
}

/* Runs a job in a fresh sandbox. On error `err` says "file:line: ..." and
 * names the question and what was running. */
static int run_job(struct job *j, struct core_err *err)
{
    const struct grader_question *q = j->q;
    snprintf(j->qpos, sizeof j->qpos, "%s:%d", q->file, q->line);
    if (j->qx->file == SIZE_MAX)
        return core_err_set(err, CORE_ERR_INTERNAL, "%s: question %s has no file", j->qpos, q->id);
    j->what = NULL;
    grader_qx_slim(j->p, &j->p->qx[j->qx - j->p->qx]);
    j->use_slim = j->qx->has_slim;
    j->slim_missing = false;
    int rc = grader_sb_run(&j->p->lim, j->p->pool, l_job, j, err);
    if (rc == 0 && j->slim_missing) { /* the cut file lost the question: the whole file */
        j->use_slim = false;
        rc = grader_sb_run(&j->p->lim, j->p->pool, l_job, j, err);
    }
    if (rc && err && j->what) {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        core_err_set(err, rc, "%s (in %s of question %s)", msg, j->what, q->id);
    }
    return rc;
}

/* ---- public API --------------------------------------------------------------------- */

void grader_view_fini(struct grader_view *v)
{
    if (!v)
        return;
    free(v->prompt);
    for (size_t i = 0; i < v->n_choices; i++)
        free(v->choices[i]);
    free(v->choices);
    for (size_t i = 0; i < v->n_hints; i++)
        free(v->hints[i]);
    free(v->hints);
    free(v->unit);
    free(v->needs_lab);
    for (size_t i = 0; i < v->n_rubric; i++)
        free(v->rubric[i]);
    free(v->rubric);
    free(v->rubric_points);
    free(v->params_json);
    memset(v, 0, sizeof *v);
}

void grader_result_fini(struct grader_result *r)
{
    if (!r)
        return;
    free(r->feedback);
    free(r->parsed);
    free(r->accepted);
    free(r->reference);
    free(r->params_json);
    memset(r, 0, sizeof *r);
}

/* Result texts are stored with every attempt: a grader that returns
 * megabytes of feedback must not grow the store by megabytes per answer. */
#define MAX_RESULT_TEXT (16u << 10)

/* Cuts s to MAX_RESULT_TEXT bytes at a UTF-8 character boundary, saying so. */
static void cap_text(char **s)
{
    if (!*s || strlen(*s) <= MAX_RESULT_TEXT)
        return;
    size_t n = MAX_RESULT_TEXT;
    while (n > 0 && ((unsigned char)(*s)[n] & 0xC0) == 0x80)
        n--; /* do not split a multi-byte character */
    char *cut = core_xasprintf("%.*s … (cut at 16 KiB)", (int)n, *s);
    free(*s);
    *s = cut;
}

/* Sets up a job for question qid of p as seen by ctx; CORE_ERR_NOTFOUND
 * for an unknown question. */
static int job_for(struct grader_pack *p, const char *qid, const struct grader_ctx *ctx,
                   enum job_mode mode, struct job *j, struct core_err *err)
{
    const struct grader_qx *x = grader_pack_qx(p, qid);
    if (!x)
        return core_err_set(err, CORE_ERR_NOTFOUND, "no question '%s' in pack %s", qid ? qid : "",
                            p ? p->info.id : "?");
    *j = (struct job){.p = p,
                      .qx = x,
                      .q = x->q,
                      .mode = mode,
                      .user = ctx && ctx->user ? ctx->user : "",
                      .variant = ctx ? ctx->variant : 1,
                      .lab = ctx ? ctx->lab : NULL,
                      .params_in = ctx ? ctx->params_json : NULL};
    return CORE_OK;
}

int grader_question_view(struct grader_pack *p, const char *qid, const struct grader_ctx *ctx,
                         struct grader_view *out, struct core_err *err)
{
    memset(out, 0, sizeof *out);
    struct job j;
    int rc = job_for(p, qid, ctx, J_VIEW, &j, err);
    if (rc)
        return rc;
    j.view = out;
    rc = run_job(&j, err);
    out->params_json = j.params_out;
    if (rc)
        grader_view_fini(out);
    return rc;
}

int grader_question_grade(struct grader_pack *p, const char *qid, const struct grader_ctx *ctx,
                          const char *answer, struct grader_result *out, struct core_err *err)
{
    memset(out, 0, sizeof *out);
    struct job j;
    int rc = job_for(p, qid, ctx, J_GRADE, &j, err);
    if (rc)
        return rc;
    j.answer = answer ? answer : "";
    j.res = out;
    rc = run_job(&j, err);
    out->params_json = j.params_out;
    if (rc) {
        grader_result_fini(out);
        return rc;
    }
    if (!out->feedback)
        out->feedback = core_xstrdup("");
    cap_text(&out->feedback);
    cap_text(&out->parsed);
    cap_text(&out->reference);
    return rc;
}

/* Pushes "file:line: question ID: [label: ]msg", without saying the first
 * part twice when msg already starts with it. */
static void push_problem(struct core_strlist *problems, const struct grader_question *q,
                         const char *label, const char *msg)
{
    char prefix[200];
    snprintf(prefix, sizeof prefix, "%s:%d: question %s: ", q->file, q->line, q->id);
    grader_problem_push(problems, prefix, NULL, label, msg);
}

void grader_problem_push(struct core_strlist *problems, const char *prefix, const char *also,
                         const char *label, const char *msg)
{
    size_t pn = strlen(prefix);
    if (strncmp(msg, prefix, pn) == 0)
        msg += pn;
    if (also && strncmp(msg, also, strlen(also)) == 0)
        msg += strlen(also);
    core_strlist_pushf(problems, "%s%s%s%s", prefix, label ? label : "", label ? ": " : "", msg);
}

int grader_question_check(struct grader_pack *p, size_t qi, struct core_strlist *problems,
                          int *first_code)
{
    const struct grader_qx *x = &p->qx[qi];
    struct job j = {.p = p,
                    .qx = x,
                    .q = x->q,
                    .mode = J_CHECK,
                    .user = EXAMPLE_USER,
                    .variant = 1,
                    .problems = problems};
    core_buf_init(&j.vkey);
    struct core_err err;
    int rc = run_job(&j, &err);
    if (rc && x->q->has_params) { /* name the variant, as the sweep does */
        char label[200];
        if (j.vkey.len)
            snprintf(label, sizeof label, "variant 1 (%.150s): ", j.vkey.data);
        else
            snprintf(label, sizeof label, "variant 1: ");
        char prefix[200];
        snprintf(prefix, sizeof prefix, "%s:%d: question %s: ", x->q->file, x->q->line, x->q->id);
        struct core_buf b;
        core_buf_init(&b);
        core_buf_puts(&b, label);
        core_buf_puts(&b, strncmp(err.msg, prefix, strlen(prefix)) == 0 ? err.msg + strlen(prefix)
                                                                        : err.msg);
        snprintf(err.msg, sizeof err.msg, "%s", b.data);
        core_buf_fini(&b);
    }
    core_buf_fini(&j.vkey);
    if (j.slim_missing) { /* grade from the whole file from now on */
        struct grader_qx *mx = &p->qx[qi];
        mx->has_slim = false;
        core_buf_reset(&mx->slim);
        grader_linemap_fini(&mx->map);
    }
    if (rc) {
        push_problem(problems, x->q, NULL, err.msg);
        j.n_problems++;
        if (first_code && !*first_code)
            *first_code = rc;
    }
    if (j.n_problems && first_code && !*first_code)
        *first_code = CORE_ERR_INVALID;
    return j.n_problems;
}

/* The first line of a feedback, shortened, for a one-line message. */
static void short_feedback(const char *fb, char *out, size_t n)
{
    size_t k = 0;
    for (; fb && fb[k] && fb[k] != '\n' && k + 1 < n && k < 100; k++)
        out[k] = fb[k];
    out[k] = '\0';
    if (fb && fb[k] && fb[k] != '\n' && k >= 100)
        snprintf(out + k, n - k, "...");
}

int grader_variant_check(struct grader_pack *p, size_t qi, int variant,
                         struct core_strlist *problems, char **key, size_t *examples_run)
{
    const struct grader_qx *x = &p->qx[qi];
    struct job j = {.p = p,
                    .qx = x,
                    .q = x->q,
                    .mode = J_SWEEP,
                    .user = EXAMPLE_USER,
                    .variant = variant,
                    .problems = problems};
    core_buf_init(&j.vkey);
    struct core_err err;
    int rc = run_job(&j, &err);
    if (rc) {
        char prefix[300];
        snprintf(prefix, sizeof prefix, "%s:%d: question %s: ", x->q->file, x->q->line, x->q->id);
        char label[200];
        if (j.vkey.len)
            snprintf(label, sizeof label, "variant %d (%.150s)", variant, j.vkey.data);
        else
            snprintf(label, sizeof label, "variant %d", variant);
        grader_problem_push(problems, prefix, NULL, label, err.msg);
        j.n_problems++;
    }
    *key = rc == 0 || j.vkey.len ? core_xstrdup(j.vkey.data ? j.vkey.data : "") : NULL;
    if (examples_run)
        *examples_run = j.n_examples_run;
    core_buf_fini(&j.vkey);
    free(j.graded);
    return j.n_problems;
}

int grader_sample_grade(struct grader_pack *p, size_t qi, size_t k, struct grader_sample_out *out,
                        struct core_err *err)
{
    const struct grader_qx *x = &p->qx[qi];
    memset(out, 0, sizeof *out);
    struct grader_result res;
    memset(&res, 0, sizeof res);
    struct job j = {.p = p,
                    .qx = x,
                    .q = x->q,
                    .mode = J_SAMPLE,
                    .user = EXAMPLE_USER,
                    .variant = 1,
                    .example = k,
                    .res = &res};
    int rc = run_job(&j, err);
    if (rc == 0) {
        out->valid = res.valid;
        out->got = res.valid && res.max > 0 ? res.score / res.max : 0;
        out->want = j.exp_score;
        out->tol = j.tol;
        char fb[128];
        short_feedback(res.feedback, fb, sizeof fb);
        out->feedback = core_xstrdup(fb);
        out->answer = j.graded;
        j.graded = NULL;
        memcpy(out->role, j.role, sizeof out->role);
    }
    free(j.graded);
    grader_result_fini(&res);
    return rc;
}

static void outcome_text(const struct grader_result *r, char *buf, size_t n)
{
    if (!r->valid)
        snprintf(buf, n, "invalid");
    else
        snprintf(buf, n, "%.6g", r->max > 0 ? r->score / r->max : 0);
}

int grader_pack_selftest(struct grader_pack *p, struct core_strlist *problems, size_t *n_run)
{
    struct core_strlist local;
    core_strlist_init(&local);
    if (!problems)
        problems = &local;
    int failures = 0;
    size_t runs = 0;
    for (size_t i = 0; p && i < p->n_qx; i++) {
        const struct grader_qx *x = &p->qx[i];
        if (x->bad || x->file == SIZE_MAX)
            continue;
        const struct grader_question *q = x->q;
        for (size_t e = 0; e <= q->n_examples; e++) {
            struct grader_result res;
            memset(&res, 0, sizeof res);
            struct job j = {.p = p,
                            .qx = x,
                            .q = q,
                            .mode = e == 0 ? J_REF : J_EXAMPLE,
                            .user = EXAMPLE_USER,
                            .variant = 1,
                            .example = e,
                            .res = &res};
            struct core_err err;
            int rc = run_job(&j, &err);
            char label[64];
            if (e == 0)
                snprintf(label, sizeof label, "reference answer");
            else
                snprintf(label, sizeof label, "example %zu", e);
            if (rc) {
                runs++;
                failures++;
                push_problem(problems, q, label, err.msg);
            } else if (!j.skip) {
                runs++;
                char got[32], fb[128];
                outcome_text(&res, got, sizeof got);
                short_feedback(res.feedback, fb, sizeof fb);
                if (e == 0) {
                    if (!res.valid || !res.correct) {
                        failures++;
                        core_strlist_pushf(problems,
                                           "%s:%d: question %s: the reference answer '%.60s' "
                                           "scores %s, expected full marks (%s)",
                                           q->file, q->line, q->id, j.graded ? j.graded : "", got,
                                           fb);
                    }
                } else {
                    bool ok = j.exp_invalid ? !res.valid
                                            : res.valid && res.max > 0 &&
                                                  fabs(res.score / res.max - j.exp_score) <= 1e-9;
                    if (!ok) {
                        failures++;
                        char want[32];
                        if (j.exp_invalid)
                            snprintf(want, sizeof want, "invalid");
                        else
                            snprintf(want, sizeof want, "%.6g", j.exp_score);
                        core_strlist_pushf(problems,
                                           "%s:%d: question %s: example %zu ('%.40s'): expected "
                                           "%s, got %s (%s)",
                                           q->file, q->line, q->id, e, j.graded ? j.graded : "",
                                           want, got, fb);
                    }
                }
            }
            free(j.graded);
            grader_result_fini(&res);
        }
    }
    failures += grader_calc_selftest(p, problems, &runs);
    if (n_run)
        *n_run = runs;
    core_strlist_fini(&local);
    return failures;
}
