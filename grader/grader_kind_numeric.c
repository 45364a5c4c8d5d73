/*
 * grader_kind_numeric.c — the numeric question: a number, maybe an
 * expression, maybe with a unit, graded against the reference within a
 * tolerance, with known mistakes (`wrong`) and partial-credit bands.
 *
 * The answer is read by grader_number_parse in the question's unit and
 * compared with grader_tol_*. A known mistake beats partial credit; an
 * answer that misses only by rounding (C's integer division, a value not
 * rounded up) is told so. With integer = true, '/' between whole numbers
 * may be read as C's integer division.
 *
 * Uses the job (grader_grade.c), the field schema (grader_schema.c) and the
 * pure building blocks of grader_pure.h.
 */
#include "grader_lua_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BANDS 16

/* ---- pack check ------------------------------------------------------------------------------ */

static const struct grader_fspec tol_fields[] = {
    {"rel", GRADER_T_NUM}, {"abs", GRADER_T_NUM}, {"sig", GRADER_T_NUM}, {NULL, 0}};

static const struct grader_fspec band_fields[] = {
    {"rel", GRADER_T_NUM},   {"abs", GRADER_T_NUM},      {"sig", GRADER_T_NUM},
    {"score", GRADER_T_NUM}, {"feedback", GRADER_T_STR}, {NULL, 0}};

static const struct grader_fspec wrong_fields[] = {
    {"value", GRADER_T_NUM | GRADER_T_FUN}, {"feedback", GRADER_T_STR}, {NULL, 0}};

/* rel/abs/sig of a tolerance or band table. */
static void check_tol_values(struct grader_vctx *v, int t, const char *what)
{
    struct lua_State *L = v->L;
    double x;
    if (grader_num_field(L, t, "rel", &x) && !(x >= 0 && isfinite(x)))
        grader_vproblem(v, "%s: rel must be a number >= 0", what);
    if (grader_num_field(L, t, "abs", &x) && !(x >= 0 && isfinite(x)))
        grader_vproblem(v, "%s: abs must be a number >= 0", what);
    if (grader_num_field(L, t, "sig", &x) && !(x >= 0 && x <= 15 && x == floor(x)))
        grader_vproblem(v, "%s: sig must be a whole number from 0 to 15", what);
}

static void each_band(struct grader_vctx *v, int t, size_t i, void *ud)
{
    (void)ud;
    struct grader_vctx s;
    grader_vctx_sub(&s, v, ": band %zu", i);
    grader_fields_check(&s, t, band_fields, NULL, 0);
    static const char *const req[] = {"score", NULL};
    grader_fields_require(&s, t, req);
    double x;
    if (grader_num_field(v->L, t, "score", &x) && !(x >= 0 && x <= 1))
        grader_vproblem(&s, "score must be a fraction from 0 to 1");
    check_tol_values(&s, t, "tolerance");
    v->bad |= s.bad;
}

static void each_wrong(struct grader_vctx *v, int t, size_t i, void *ud)
{
    (void)ud;
    struct grader_vctx s;
    grader_vctx_sub(&s, v, ": wrong %zu", i);
    grader_fields_check(&s, t, wrong_fields, NULL, 0);
    static const char *const req[] = {"value", NULL};
    grader_fields_require(&s, t, req);
    double x;
    if (grader_num_field(v->L, t, "value", &x) && !isfinite(x))
        grader_vproblem(&s, "value must be a finite number");
    v->bad |= s.bad;
}

/* The numeric fields: unit, answer, tolerance, bands and wrong. */
static void numeric_check(struct grader_vctx *v, int t, struct grader_question *q)
{
    struct lua_State *L = v->L;
    bool grade = q->has_grade, answer = grader_has_field(L, t, "answer");
    char *unit = grader_str_field(L, t, "unit");
    if (unit) {
        if (!grader_unit_find(unit))
            grader_vproblem(
                v, "unknown unit '%s' (e.g. \"\", \"x\", \"%%\", \"ms\", \"s\", \"GB/s\")", unit);
        free(q->unit);
        q->unit = unit;
    }
    if (!answer && !grade && !q->sealed)
        grader_vproblem(v, "a numeric question needs 'answer' (a number or function(p, ctx)) or a "
                           "custom 'grade'");
    double a;
    if (grader_num_field(L, t, "answer", &a) && !isfinite(a))
        grader_vproblem(v, "answer must be a finite number");
    int tol = grader_tab_open(L, t, "tolerance");
    if (tol) {
        struct grader_vctx s;
        grader_vctx_sub(&s, v, ": tolerance");
        grader_fields_check(&s, tol, tol_fields, NULL, 0);
        check_tol_values(&s, tol, "tolerance");
        v->bad |= s.bad;
    }
    grader_tab_close(L, tol);
    grader_list_check(v, t, "bands", each_band, NULL);
    grader_list_check(v, t, "wrong", each_wrong, NULL);
    bool integer;
    q->integer = grader_bool_field(L, t, "integer", &integer) && integer;
}

/* ---- the job --------------------------------------------------------------------------------- */

/* A tolerance table at slot t (0: none; defaults for missing parts). */
static void read_tol(struct lua_State *L, int t, struct grader_tol *tol)
{
    grader_tol_default(tol);
    if (!t)
        return;
    double x;
    bool rel = grader_num_field(L, t, "rel", &x);
    if (rel)
        tol->rel = x;
    if (grader_num_field(L, t, "abs", &x)) {
        tol->abs = x;
        /* abs without rel means abs alone, not "abs or 1%" */
        if (!rel)
            tol->rel = 0;
    }
    if (grader_num_field(L, t, "sig", &x))
        tol->sig = (int)x;
}

/* Whether the question says integer = true. */
static bool question_integer(struct lua_State *L)
{
    bool integer;
    return grader_bool_field(L, GRADER_S_Q, "integer", &integer) && integer;
}

/* The question's tolerance: its `tolerance` table, else the default 1%,
 * except that an integer = true question without one is exact: a whole
 * count (7813 blocks) is right or wrong, and 7812 is not "within 1%". */
static void question_tol(struct lua_State *L, struct grader_tol *tol)
{
    int t = grader_tab_open(L, GRADER_S_Q, "tolerance"); /* tol */
    read_tol(L, t, tol);
    grader_tab_close(L, t);
    if (!t && question_integer(L))
        tol->rel = tol->abs = 0, tol->sig = 0;
}

/* The reference: a finite number, or nil when answer gives nothing. */
static void numeric_reference(struct lua_State *L, struct grader_job *j)
{
    int ty = grader_job_push_answer(L, j);
    double v;
    if (ty == GRADER_LT_NUM) {
        grader_number_at(L, -1, &v);
        if (!isfinite(v))
            grader_job_fail(L, j, "the answer is not a finite number");
    } else if (ty != GRADER_LT_NIL) {
        grader_job_fail(L, j, "answer must give a number, got %s", grader_ltype_name(ty));
    }
}

/* Pushes the value of the `wrong` entry on top of the stack (a number, or
 * a function of (p, ctx) giving one or false) and returns its type: *v the
 * number, *off whether it is false (the mistake is not this variant's). */
static int push_wrong_value(struct lua_State *L, struct grader_job *j, double *v, bool *off)
{
    grader_job_push_value(L, j, -1, "value", "a wrong value"); /* e v */
    int ty = grader_number_at(L, -1, v);
    *off = false;
    if (ty == GRADER_LT_BOOL) {
        struct grader_dval d;
        grader_value(L, -1, &d);
        *off = !d.b;
    }
    return ty;
}

/* When v is one of the known mistakes (`wrong`), grades it 0 with that
 * mistake's feedback and returns true. A known mistake beats partial credit. */
static bool numeric_wrong(struct lua_State *L, struct grader_job *j, const struct grader_tol *tol,
                          double v)
{
    struct grader_result *r = j->res;
    bool hit = false;
    int w = grader_tab_open(L, GRADER_S_Q, "wrong"); /* wrong */
    size_t m = w ? grader_len(L, w) : 0;
    for (size_t i = 1; i <= m && !hit; i++) {
        int e = grader_tab_open_at(L, w, (long long)i); /* wrong e */
        if (!e)
            continue;
        double wv;
        bool off;
        int ty = push_wrong_value(L, j, &wv, &off); /* wrong e v */
        if (off) {                                  /* not this variant's mistake */
            grader_tab_close(L, e);
            continue;
        }
        if (ty != GRADER_LT_NUM)
            grader_job_fail(L, j, "wrong %zu: value must be a number (or false), got %s", i,
                            grader_ltype_name(ty));
        if (grader_tol_accepts(tol, wv, v)) {
            struct grader_dval f;
            char num[64];
            size_t len;
            grader_field(L, e, "feedback", &f);
            const char *fb = grader_dval_text(&f, num, sizeof num, &len);
            grader_result_score(r, 0, fb ? fb : "Incorrect.");
            r->mistake = true;
            hit = true;
        }
        grader_tab_close(L, e); /* wrong */
    }
    grader_tab_close(L, w);
    return hit;
}

/* Partial credit: when v lies in a band, grades it with the best band's
 * score and feedback and returns true. */
static bool numeric_band(struct lua_State *L, struct grader_job *j, const struct grader_tol *tol,
                         double ref, double v)
{
    struct grader_band bands[MAX_BANDS];
    size_t nb = 0;
    bool hit = false;
    int bt = grader_tab_open(L, GRADER_S_Q, "bands"); /* bands */
    if (bt) {
        size_t m = grader_len(L, bt);
        for (size_t i = 1; i <= m && nb < MAX_BANDS; i++) {
            int e = grader_tab_open_at(L, bt, (long long)i); /* bands b */
            if (e) {
                struct grader_band *b = &bands[nb++];
                read_tol(L, e, &b->tol);
                b->score = 0;
                grader_num_field(L, e, "score", &b->score);
                /* the string stays alive: the band table holds it */
                struct grader_dval f;
                b->feedback = grader_field(L, e, "feedback", &f) == GRADER_LT_STR ? f.str : NULL;
            }
            grader_tab_close(L, e); /* bands */
        }
        int bi = -1;
        double s = grader_tol_score(tol, bands, nb, ref, v, &bi);
        if (bi >= 0 && s > 0) {
            char fb[256];
            if (!bands[bi].feedback)
                snprintf(fb, sizeof fb,
                         "Close, but outside the accepted range: partial credit (%g%%).", s * 100);
            grader_result_score(j->res, s, bands[bi].feedback ? bands[bi].feedback : fb);
            hit = true;
        }
    }
    grader_tab_close(L, bt);
    return hit;
}

static void numeric_grade(struct lua_State *L, struct grader_job *j, const char *answer)
{
    double ref;
    if (grader_number_at(L, GRADER_S_REF, &ref) == GRADER_LT_NIL)
        grader_job_fail(L, j, "no reference answer");
    struct grader_result *r = j->res;
    const struct grader_question *q = j->q;
    const char *unit = grader_question_unit(q);
    struct grader_tol tol;
    question_tol(L, &tol);
    /* integer = true: '/' between whole numbers may be C's integer division */
    bool integer = question_integer(L);
    if (integer && !(isfinite(ref) && ref == floor(ref)))
        grader_job_fail(L, j, "integer = true, but the reference %.17g is not a whole number", ref);
    char buf[200];
    grader_tol_describe(&tol, ref, unit, buf, sizeof buf);
    r->accepted = core_xstrdup(buf);

    struct grader_number num;
    if (!grader_number_parse(answer, q->unit, &num)) {
        grader_result_invalid(r, num.why);
        return;
    }
    r->value = num.value;
    r->has_value = true;
    r->parsed = grader_value_text(num.value, unit, 6);
    if (grader_tol_accepts(&tol, ref, num.value)) {
        grader_result_score(r, 1, "Correct.");
        return;
    }
    if (integer && num.c_differs && grader_tol_accepts(&tol, ref, num.c_value)) {
        r->value = num.c_value;
        free(r->parsed);
        r->parsed = grader_value_text(num.c_value, unit, 6);
        grader_result_score(
            r, 1, "Correct: / between whole numbers is read as C's integer division here.");
        return;
    }
    if (numeric_wrong(L, j, &tol, num.value) || numeric_band(L, j, &tol, ref, num.value))
        return;
    char fb[320];
    /* Rounding up or down is told for a whole count only: integer = true,
     * or an absolute tolerance under a half (the course's counts use abs =
     * 0.01); a ratio that happens to be whole (a speedup of 4) is not
     * rounded. C's integer division is told wherever the answer used it. */
    bool count = integer || (tol.rel == 0 && tol.sig == 0 && tol.abs > 0 && tol.abs < 0.5);
    if ((count || num.c_differs) &&
        grader_tol_rounding_note(&tol, ref, answer, &num, q->unit, fb, sizeof fb)) {
        grader_result_score(r, 0, fb);
        return;
    }
    if (!grader_tol_slip(&tol, ref, &num, unit, fb, sizeof fb))
        grader_tol_miss(&tol, ref, unit, fb, sizeof fb);
    grader_result_score(r, 0, fb);
}

bool grader_answer_ambiguous(const struct grader_question *q, const char *answer, char *why,
                             size_t n)
{
    struct grader_number num;
    if (!q || q->kind != GRADER_NUMERIC || !q->unit || strcmp(q->unit, "%") != 0 ||
        !grader_number_parse(answer, q->unit, &num) || num.unit[0] || !(fabs(num.value) > 0) ||
        fabs(num.value) > 1)
        return false;
    char v[40];
    grader_number_format(num.value, 6, v, sizeof v);
    snprintf(why, n,
             "%s on a per-cent question reads as %s %%, which may not be what you mean: write "
             "%s%% if it is, or the per cent (a third is 33.3) if %s is a fraction",
             v, v, v, v);
    return true;
}

/* Record: the answer must read as a number in the question's unit; it is
 * recorded as written (integer = true may read '/' as C's division). A bare
 * fraction on a per-cent question is refused as ambiguous: no feedback will
 * follow to say how it was read. */
static void numeric_record(struct lua_State *L, struct grader_job *j, const char *answer)
{
    (void)L;
    struct grader_result *r = j->res;
    struct grader_number num;
    char why[240];
    if (grader_answer_ambiguous(j->q, answer, why, sizeof why)) {
        grader_result_invalid(r, why);
        return;
    }
    if (!grader_number_parse(answer, j->q->unit, &num)) {
        grader_result_invalid(r, num.why);
        return;
    }
    r->value = num.value;
    r->has_value = true;
    r->parsed = grader_value_text(num.value, grader_question_unit(j->q), 6);
}

static char *numeric_reference_text(struct lua_State *L, struct grader_job *j, bool exact)
{
    double v;
    if (grader_number_at(L, GRADER_S_REF, &v) == GRADER_LT_NIL)
        return NULL;
    if (exact) {
        char num[40]; /* read back by the answer parser: '.' whatever the locale */
        core_num_format(num, sizeof num, v, 17);
        return core_xstrdup(num);
    }
    return grader_value_text(v, grader_question_unit(j->q), 6);
}

/* ---- every variant --------------------------------------------------------------------------- */

/* Every `wrong` value: it must give a finite number, and an answer equal
 * to it must not be graded right. */
static void numeric_variant_check(struct lua_State *L, struct grader_job *j)
{
    int w = grader_tab_open(L, GRADER_S_Q, "wrong"); /* wrong */
    if (!w)
        return;
    double ref;
    bool has_ref = grader_number_at(L, GRADER_S_REF, &ref) == GRADER_LT_NUM;
    struct grader_tol tol;
    question_tol(L, &tol);
    const char *unit = grader_question_unit(j->q);
    size_t n = grader_len(L, w);
    for (size_t i = 1; i <= n; i++) {
        int e = grader_tab_open_at(L, w, (long long)i); /* wrong e */
        if (!e)
            continue;
        double wv;
        bool off;
        int ty = push_wrong_value(L, j, &wv, &off); /* wrong e v */
        if (off) {
            /* the function says this mistake does not apply to this variant */
        } else if (ty != GRADER_LT_NUM) {
            grader_job_problem(
                j,
                "wrong %zu: value gives %s, not a number (return false when the mistake "
                "does not apply to this variant)",
                i, grader_ltype_name(ty));
        } else if (!isfinite(wv)) {
            grader_job_problem(j, "wrong %zu: value gives %g, not a finite number", i, wv);
        } else if (has_ref) {
            char a[64], b[64], iv[200];
            grader_number_format(wv, 6, a, sizeof a);
            grader_number_format(ref, 6, b, sizeof b);
            grader_tol_describe(&tol, ref, unit, iv, sizeof iv);
            if (wv == ref)
                grader_job_problem(j, "wrong %zu: value %s equals the reference %s", i, a, b);
            else if (grader_tol_accepts(&tol, ref, wv))
                grader_job_problem(
                    j,
                    "wrong %zu: value %s lies inside the accepted interval %s of the "
                    "reference %s, so it is graded right, never as this mistake "
                    "(tighten the tolerance or drop the entry)",
                    i, a, iv, b);
        }
        grader_tab_close(L, e); /* wrong */
    }
    grader_tab_close(L, w);
}

/* ---- the row --------------------------------------------------------------------------------- */

static const char *const fields[] = {"answer", "tolerance", "bands", "wrong",
                                     "unit",   "integer",   NULL};

const struct grader_kind_ops grader_kind_numeric = {.name = "numeric",
                                                    .fields = fields,
                                                    .answer_types = GRADER_T_NUM | GRADER_T_FUN,
                                                    .max_answer = 1024,
                                                    .tries = 5,
                                                    .penalty = 0.1,
                                                    .needs_reference = true,
                                                    .check = numeric_check,
                                                    .reference = numeric_reference,
                                                    .grade = numeric_grade,
                                                    .record = numeric_record,
                                                    .reference_text = numeric_reference_text,
                                                    .variant_check = numeric_variant_check};
