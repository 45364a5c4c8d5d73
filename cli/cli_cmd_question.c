/* cli_cmd_question.c — `warpbench question QID` (the prompt with this
 * student's numbers), `warpbench answer QID ANSWER [--certainty N]`
 * (grade and record; packs with certainty-based marking need the student's
 * certainty 1..3 with every answer, other packs refuse one) and
 * `warpbench giveup QID` (show the accepted answer and record the give-up,
 * as the TUI's g does). */
#include "cli/cli.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

/* Reads --variant N (default 1). Returns 0 or a usage exit code. */
static int take_variant(const struct cli_command *cmd, struct cli_args *a, int *variant)
{
    const char *v = NULL;
    bool missing = false;
    *variant = 1;
    if (cli_take_flag(a, "--variant", true, &v, &missing) || missing)
        if (missing || !cli_parse_int(v, 1000000, variant))
            return cli_usage(cmd, "--variant needs a whole number from 1 up");
    return 0;
}

/* The policy as JSON: "policy": {tries, penalty, per_try, text}. */
static void json_policy(struct core_json *j, const struct grader_policy *p, const char *text)
{
    core_json_key(j, "policy");
    core_json_obj_begin(j);
    core_json_kint_if(j, "tries", p->tries > 0, p->tries);
    core_json_key(j, "per_try");
    if (p->n_per_try > 0) {
        core_json_arr_begin(j);
        for (int i = 0; i < p->n_per_try; i++)
            core_json_num(j, p->per_try[i]);
        core_json_arr_end(j);
    } else {
        core_json_null(j);
    }
    core_json_knum(j, "penalty", p->n_per_try > 0 ? 0 : p->penalty);
    core_json_kstr(j, "text", text);
    core_json_obj_end(j);
}

/* Where the student stands, as JSON (the same fields for question and
 * answer): tries used and left, the score the question earns now, closed,
 * gave_up. During an open exam the score is null. */
static void json_standing(struct core_json *j, const struct lesson_tries *t, double points,
                          bool hidden)
{
    core_json_kint(j, "tries_used", t->used);
    core_json_kint_if(j, "tries_left", t->limit > 0, t->limit > t->used ? t->limit - t->used : 0);
    core_json_knum_if(j, "question_score", !hidden, t->frac * points);
    core_json_knum_if(j, "next_try_can_earn", !hidden, t->next_available);
    core_json_kbool(j, "closed", t->closed);
    core_json_kbool(j, "gave_up", t->gave_up);
}

/* An attempt's grade as it counts (its latest re-grade instead of it, an
 * instructor's review instead of both). */
static void effective(const struct db_attempt *a, bool *valid, double *score, double *max)
{
    *valid = a->reviewed || (a->regraded ? a->rg_valid : a->valid);
    *score = a->reviewed ? a->rv_score : a->regraded ? a->rg_score : a->score;
    *max = a->reviewed ? a->rv_max : a->regraded ? a->rg_max : a->max;
}

static void json_history(struct core_json *j, const struct db_attempt *h, size_t n, bool hidden)
{
    core_json_key(j, "history");
    core_json_arr_begin(j);
    for (size_t i = 0; i < n; i++) {
        bool valid;
        double score, max;
        effective(&h[i], &valid, &score, &max);
        core_json_obj_begin(j);
        core_json_kint(j, "attempt", h[i].id);
        core_json_kstr(j, "answer", h[i].answer);
        core_json_kstr(j, "parsed", h[i].parsed);
        core_json_kbool(j, "sealed", h[i].sealed);
        core_json_kint(j, "variant", h[i].variant);
        core_json_kbool(j, "valid", valid);
        core_json_knum_if(j, "score", valid && !hidden, score);
        core_json_knum(j, "max", max);
        core_json_kbool(j, "after_giveup", h[i].after_giveup);
        core_json_kbool(j, "regraded", h[i].regraded);
        core_json_kstr(j, "feedback",
                       hidden          ? NULL
                       : h[i].regraded ? h[i].rg_feedback
                                       : h[i].feedback);
        core_json_kbool(j, "reviewed", h[i].reviewed);
        core_json_kstr(j, "review_comment", h[i].reviewed ? h[i].rv_comment : NULL);
        core_json_kstr(j, "at", h[i].created_at);
        core_json_obj_end(j);
    }
    core_json_arr_end(j);
}

static void print_history(const struct db_attempt *h, size_t n, bool hidden)
{
    if (n == 0)
        return;
    printf("\nyour attempts:\n");
    for (size_t i = 0; i < n; i++) {
        bool valid;
        double score, max;
        effective(&h[i], &valid, &score, &max);
        char sc[32], mx[32];
        lesson_score_format(score, sc, sizeof sc);
        lesson_score_format(max, mx, sizeof mx);
        /* a sealed answer is stored by item identity: show it as read */
        printf("  %zu. %-24s ", i + 1,
               cli_tx(h[i].sealed && h[i].parsed ? h[i].parsed : h[i].answer));
        if (!valid)
            printf("could not be read (not a try)");
        else if (hidden)
            printf("recorded");
        else
            printf("%s/%s", sc, mx);
        if (h[i].after_giveup)
            printf("  (after give-up: earns nothing)");
        if (h[i].reviewed)
            printf("  (reviewed by %s%s%s)",
                   h[i].rv_reviewer ? cli_tx1(h[i].rv_reviewer) : "your instructor",
                   h[i].rv_comment && *h[i].rv_comment ? ": " : "", cli_tx1(h[i].rv_comment));
        else if (h[i].regraded)
            printf("  (re-graded)");
        printf("\n");
    }
}

static void print_policy(const struct lesson_question_view *v)
{
    const struct lesson_tries *t = &v->tries;
    if (v->sealed) {
        printf("\ngraded work: your answers are recorded, not graded here; your instructor "
               "grades them (%s)\n",
               v->exam ? "an exam: one answer per question" : v->policy_text);
        if (v->exam && !v->exam_over)
            printf("  submit the exam when done: warpbench exam submit %s\n", v->q.lesson_id);
        return;
    }
    if (v->exam) {
        if (v->exam_over)
            printf("\nexam '%s': over; your answer's grade is below and in progress\n",
                   v->q.lesson_id);
        else
            printf("\nexam '%s': one try; graded when you submit the exam (warpbench exam "
                   "submit %s)\n",
                   v->q.lesson_id, v->q.lesson_id);
        return;
    }
    printf("\npolicy: %s", v->policy_text);
    if (t->used > 0) {
        char sc[32], pts[32];
        lesson_score_format(t->frac * v->q.points, sc, sizeof sc);
        lesson_score_format(v->q.points, pts, sizeof pts);
        printf("\nso far: %d tr%s used%s, scoring %s/%s", t->used, t->used == 1 ? "y" : "ies",
               t->limit > 0 ? (t->used >= t->limit ? " (none left)" : "") : "", sc, pts);
        if (t->limit > t->used)
            printf("; %d left", t->limit - t->used);
        if (t->gave_up)
            printf("; you gave up on it, so answers now earn nothing");
        else if (!t->closed && t->next_available < 1)
            printf("; the next can earn %.0f%% of the points", 100 * t->next_available);
    }
    printf("\n");
}

int cli_cmd_question(struct cli_ctx *cx, struct cli_args *a)
{
    const struct cli_command *cmd = cli_command_find("question");
    int variant, hints = 0;
    const char *hv = NULL;
    bool missing = false;
    int rc = take_variant(cmd, a, &variant);
    if (rc != 0)
        return rc;
    if (cli_take_flag(a, "--hints", true, &hv, &missing) || missing)
        if (missing || !cli_parse_int(hv, 100, &hints))
            return cli_usage(cmd, "--hints needs how many hints to reveal (1, 2, ...)");
    rc = cli_begin(cx, cmd, a, 1, 1, CLI_NEED_SESSION);
    if (rc != 0)
        return rc;
    struct core_err e = {0};
    struct lesson_question_view v;
    if (lesson_question_show(cx->session, a->argv[0], variant, &v, &e) != CORE_OK)
        return cli_fail(&e);
    size_t shown = (size_t)hints < v.v.n_hints ? (size_t)hints : v.v.n_hints;
    /* The pack is loaded already (cached by the session): asking is cheap. */
    bool cbm = false;
    if (lesson_question_cbm(cx->session, a->argv[0], &cbm, &e) != CORE_OK) {
        lesson_question_view_fini(&v);
        return cli_fail(&e);
    }
    const char *cbm_hint = cbm ? " --certainty N" : "";
    /* The history of attempts, and the solution once no try is left (or
     * after a give-up), unless an exam still keeps it. */
    struct db_attempt *hist = NULL;
    size_t n_hist = 0;
    char *sol_acc = NULL, *sol_ref = NULL;
    if (db_attempt_list(cx->db, lesson_session_user_id(cx->session), v.q.pack_id, v.q.id, &hist,
                        &n_hist, &e) != CORE_OK ||
        (v.solution && lesson_question_solution(cx->session, a->argv[0], variant, &sol_acc,
                                                &sol_ref, &e) != CORE_OK)) {
        db_attempts_free(hist, n_hist);
        lesson_question_view_fini(&v);
        return cli_fail(&e);
    }
    if (cx->json) {
        struct core_buf b;
        struct core_json j;
        cli_json_open(&b, &j);
        core_json_kstr(&j, "question", v.q.id);
        core_json_kstr(&j, "pack", v.q.pack_id);
        core_json_kstr(&j, "lesson", v.q.lesson_id);
        core_json_kstr(&j, "kind", v.q.kind);
        core_json_kstr(&j, "title", v.q.title);
        core_json_kint(&j, "variant", variant);
        core_json_knum(&j, "points", v.q.points);
        core_json_kstr(&j, "prompt", v.v.prompt);
        core_json_kstr(&j, "unit", v.v.unit);
        core_json_key(&j, "choices");
        core_json_arr_begin(&j);
        for (size_t i = 0; i < v.v.n_choices; i++)
            core_json_str(&j, v.v.choices[i]);
        core_json_arr_end(&j);
        core_json_kint(&j, "hints_total", (long long)v.v.n_hints);
        core_json_key(&j, "hints");
        core_json_arr_begin(&j);
        for (size_t i = 0; i < shown; i++)
            core_json_str(&j, v.v.hints[i]);
        core_json_arr_end(&j);
        core_json_kstr(&j, "needs_lab", v.v.needs_lab);
        core_json_kint(&j, "max_answer", (long long)v.v.max_answer);
        core_json_kbool(&j, "cbm", cbm);
        json_policy(&j, &v.policy, v.policy_text);
        json_standing(&j, &v.tries, v.q.points, v.exam_open || v.sealed);
        core_json_kbool(&j, "sealed", v.sealed);
        core_json_key(&j, "exam");
        if (v.exam) {
            core_json_obj_begin(&j);
            core_json_kstr(&j, "lesson", v.q.lesson_id);
            core_json_kbool(&j, "open", v.exam_open);
            core_json_kbool(&j, "over", v.exam_over);
            core_json_obj_end(&j);
        } else {
            core_json_null(&j);
        }
        json_history(&j, hist, n_hist, v.exam_open || v.sealed);
        core_json_kstr(&j, "solution_accepted", sol_acc);
        core_json_kstr(&j, "solution", sol_ref);
        core_json_kbool(&j, "practice", v.practice);
        cli_json_close(&b, &j);
    } else {
        printf("%s:%s  (%s, %g point%s, variant %d)\n", v.q.pack_id, v.q.id, v.q.kind, v.q.points,
               v.q.points == 1 ? "" : "s", variant);
        if (v.q.title)
            printf("%s\n", cli_tx(v.q.title));
        printf("\n%s\n", cli_tx(v.v.prompt));
        for (size_t i = 0; i < v.v.n_choices; i++)
            printf("  %c) %s\n", i < 26 ? (char)('a' + i) : '?', cli_tx(v.v.choices[i]));
        if (v.v.unit && (strcmp(v.v.unit, "x") == 0 || strcmp(v.v.unit, "×") == 0))
            printf("\n(a ratio: write it as 2.5 or 2.5x)\n");
        else if (v.v.unit && strcmp(v.v.unit, "%") == 0)
            printf("\n(in per cent: write 56 or 56%%)\n");
        else if (v.v.unit && v.v.unit[0])
            printf("\n(answer in %s; other units of the same kind are converted)\n",
                   cli_tx(v.v.unit));
        if (v.v.max_answer % 1024 == 0)
            printf("\n(answers up to %zu KiB are graded)\n", v.v.max_answer / 1024);
        else
            printf("\n(answers up to %zu bytes are graded)\n", v.v.max_answer);
        if (v.v.needs_lab)
            printf("\nThis question uses your own measurements: %s\n", cli_tx(v.v.needs_lab));
        for (size_t i = 0; i < shown; i++)
            printf("\nhint %zu: %s\n", i + 1, cli_tx(v.v.hints[i]));
        if (shown < v.v.n_hints)
            printf("\n%zu hint%s available: add --hints %zu\n", v.v.n_hints - shown,
                   v.v.n_hints - shown == 1 ? "" : "s", shown + 1);
        print_policy(&v);
        print_history(hist, n_hist, v.exam_open || v.sealed);
        if (sol_acc || sol_ref) {
            printf("\n%s\n", v.exam_over      ? "the exam is submitted. The solution:"
                             : v.tries.closed ? "closed: no tries left. The solution:"
                                              : "the solution (you gave up on it):");
            if (sol_acc)
                printf("  accepted: %s\n", cli_tx(sol_acc));
            if (sol_ref)
                printf("  solution: %s\n", cli_tx(sol_ref));
        }
        if (cbm)
            printf("\nThis pack marks by certainty: say how sure you are with --certainty 1, 2 or "
                   "3.\nRight answers score 1, 2 or 3 times the points, wrong ones 0, -2 or -6 "
                   "times:\nbelow about 67%% sure use 1, up to about 80%% use 2, above that 3.\n");
        if (v.practice)
            printf("\npractice: new numbers for a question you are done with; an answer is "
                   "graded and kept, earns nothing, and then shows this variant's solution\n"
                   "answer: warpbench answer %s:%s 'YOUR ANSWER' --variant %d%s\n",
                   v.q.pack_id, v.q.id, variant, cbm_hint);
        else if (v.tries.closed || (v.exam && v.exam_over))
            printf("\nnew numbers to practise on: warpbench question %s:%s --variant %d\n",
                   v.q.pack_id, v.q.id, variant + 1);
        else if (variant != 1)
            printf("\nanswer: warpbench answer %s:%s 'YOUR ANSWER' --variant %d%s\n", v.q.pack_id,
                   v.q.id, variant, cbm_hint);
        else
            printf("\nanswer: warpbench answer %s:%s 'YOUR ANSWER'%s\n", v.q.pack_id, v.q.id,
                   cbm_hint);
    }
    db_attempts_free(hist, n_hist);
    free(sol_acc);
    free(sol_ref);
    lesson_question_view_fini(&v);
    return CLI_EXIT_OK;
}

#define MAX_ANSWER_BYTES (64u << 10)

/* Reads all of stdin (for `answer QID -`: design answers span lines).
 * NULL when it is longer than MAX_ANSWER_BYTES or holds a NUL byte. */
static char *read_stdin(void)
{
    struct core_buf b;
    core_buf_init(&b);
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, stdin)) > 0) {
        if (b.len + n > MAX_ANSWER_BYTES || memchr(chunk, '\0', n)) {
            core_buf_fini(&b);
            return NULL;
        }
        core_buf_append(&b, chunk, n);
    }
    return core_buf_steal(&b);
}

/* Reads --certainty N (0 when absent). Returns 0 or a usage exit code. */
static int take_certainty(const struct cli_command *cmd, struct cli_args *a, int *certainty)
{
    const char *v = NULL;
    bool missing = false;
    *certainty = 0;
    if (cli_take_flag(a, "--certainty", true, &v, &missing) || missing)
        if (missing || !cli_parse_int(v, 3, certainty))
            return cli_usage(cmd,
                             "--certainty needs 1 (unsure), 2 (fairly sure) or 3 (quite sure)");
    return 0;
}

/* A string of the evidence, null when the grader found none. */
static void kstr_or_null(struct core_json *j, const char *key, const char *s)
{
    core_json_kstr(j, key, s && *s ? s : NULL);
}

void cli_json_claims(struct core_json *j, const struct grader_claim_evidence *c, size_t n)
{
    core_json_key(j, "claims");
    core_json_arr_begin(j);
    for (size_t i = 0; i < n; i++) {
        core_json_obj_begin(j);
        core_json_kstr(j, "concept", c[i].concept);
        core_json_knum(j, "points", c[i].points);
        core_json_knum(j, "earned", strcmp(c[i].status, "found") == 0 ? c[i].points : 0);
        core_json_kstr(j, "status", c[i].status);
        kstr_or_null(j, "how", c[i].how);
        kstr_or_null(j, "clause", c[i].clause);
        kstr_or_null(j, "subject", c[i].subject);
        kstr_or_null(j, "relation", c[i].relation);
        kstr_or_null(j, "object", c[i].object);
        core_json_obj_end(j);
    }
    core_json_arr_end(j);
}

/* The graded answer as one JSON object. */
static void json_answer(const struct lesson_answer_result *res, const char *answer, int certainty,
                        double mark)
{
    const struct grader_result *r = &res->r;
    const struct lesson_tries *t = &res->tries;
    bool show_solution = (t->closed || res->practice) && !res->hidden;
    struct core_buf b;
    struct core_json j;
    cli_json_open(&b, &j);
    core_json_kstr(&j, "question", res->question_id);
    core_json_kstr(&j, "pack", res->pack_id);
    core_json_kint(&j, "variant", res->variant);
    core_json_kstr(&j, "answer", answer);
    core_json_kbool(&j, "valid", r->valid);
    core_json_kbool(&j, "hidden", res->hidden);
    /* graded work of a class: recorded ungraded, no score exists here */
    core_json_kbool(&j, "sealed", res->sealed);
    core_json_knum_if(&j, "score", r->valid && !res->hidden, r->score);
    core_json_knum(&j, "max", r->max);
    core_json_kbool_if(&j, "correct", !res->hidden, r->correct);
    /* a design answer's score: the concept rubric's, provisional until an
     * instructor reviews it */
    core_json_kbool(&j, "automatic", r->automatic);
    core_json_kstr(&j, "feedback", r->feedback);
    /* what the grader read for each concept: a design answer's, once its
     * grade may be shown */
    if (r->automatic && r->valid && !res->hidden && !res->sealed)
        cli_json_claims(&j, r->claims, r->n_claims);
    core_json_kstr(&j, "parsed", r->parsed);
    core_json_knum_if(&j, "value", r->has_value, r->value);
    /* The accepted interval and reference are revealed once right or
     * once no try is left. */
    bool reveal = (r->correct || show_solution) && !res->hidden;
    core_json_kstr(&j, "accepted", reveal ? r->accepted : NULL);
    core_json_kstr(&j, "reference", reveal ? r->reference : NULL);
    core_json_kint(&j, "attempt", res->attempt_id);
    core_json_kint(&j, "attempts", res->attempt_no);
    core_json_kint_if(&j, "try", r->valid, res->attempt_no);
    core_json_knum_if(&j, "available", r->valid && !res->hidden, res->available);
    core_json_knum_if(&j, "earned", r->valid && !res->hidden, res->earned * r->max);
    core_json_kbool(&j, "after_giveup", res->after_giveup);
    core_json_kbool(&j, "practice", res->practice);
    core_json_kstr(&j, "policy_text", res->policy_text);
    json_standing(&j, t, r->max, res->hidden);
    core_json_kint_if(&j, "certainty", certainty != 0, certainty);
    core_json_knum_if(&j, "cbm_mark", certainty != 0 && r->valid && !res->hidden, mark);
    cli_json_close(&b, &j);
}

/* The graded answer for people: the grade, feedback, what the try earns
 * under the policy, the question's score, the CBM mark. */
static void print_answer(const struct lesson_answer_result *res, int certainty, double mark)
{
    const struct grader_result *r = &res->r;
    const struct lesson_tries *t = &res->tries;
    /* The solution: once no try is left, or with a practice answer (its
     * variant is done with). */
    bool show_solution = (t->closed || res->practice) && !res->hidden;
    if (!r->valid) {
        printf("? could not read that answer: %s\n  (nothing was scored and it is not a try; "
               "try again)\n",
               cli_tx(r->feedback));
    } else if (res->sealed) {
        printf("• recorded%s%s\n  %s\n  answer %d recorded (%s); your instructor grades it\n",
               r->parsed ? " — you answered " : "", cli_tx(r->parsed), cli_tx(r->feedback),
               res->attempt_no, res->policy_text);
    } else if (res->hidden) {
        printf("• recorded%s%s\n  %s\n  exam answer %d recorded\n",
               r->parsed ? " — you answered " : "", cli_tx(r->parsed), cli_tx(r->feedback),
               res->attempt_no);
    } else {
        char head[200], note[200], qs[32], mx[32];
        lesson_answer_headline(res, head, sizeof head, note, sizeof note);
        lesson_score_format(t->frac * r->max, qs, sizeof qs);
        lesson_score_format(r->max, mx, sizeof mx);
        printf("%s %s%s%s\n",
               r->correct     ? "✓"
               : r->score > 0 ? "~"
                              : "✗",
               head, r->parsed ? " — you answered " : "", cli_tx(r->parsed));
        if (r->automatic)
            printf("  (an automatic, provisional score from the concept rubric: an "
                   "instructor's review replaces it)\n");
        if (r->feedback && r->feedback[0])
            cli_print_indented("  ", r->feedback);
        if ((r->correct || show_solution) && r->accepted)
            printf("  accepted: %s\n", cli_tx(r->accepted));
        if (show_solution && r->reference && r->reference[0])
            printf("  solution: %s\n", cli_tx(r->reference));
        if (res->practice) {
            printf("  %s\n  practice answer recorded (it earns nothing)\n", note);
            goto cbm;
        }
        if (note[0] && !t->closed)
            printf("  %s\n", note);
        printf("  question score %s/%s (%s)", qs, mx, res->policy_text);
        if (t->closed)
            printf("; no tries left: it is closed");
        else if (t->frac >= 1 - 1e-9)
            printf("; full marks");
        else if (t->limit > 0)
            printf("; %d tr%s left", t->limit - t->used, t->limit - t->used == 1 ? "y" : "ies");
        printf("\n");
        printf("  try %d recorded\n", res->attempt_no);
    cbm:
        if (certainty)
            printf("  CBM mark at certainty %d: %+g (wrong %+g, right %+g)%s\n", certainty, mark,
                   r->max * lesson_cbm_fraction(0, certainty),
                   r->max * lesson_cbm_fraction(1, certainty),
                   res->attempt_no > 1 ? "; progress counts the certainty of your first attempt"
                                       : "");
    }
}

/* The answer's text: the words after the question id (`answer q a c` means
 * "a c"), or standard input for "-". NULL (usage said why) when standard
 * input is too long or not text. */
static char *answer_text(const struct cli_command *cmd, const struct cli_args *a)
{
    if (a->argc == 2 && strcmp(a->argv[1], "-") == 0) {
        char *answer = read_stdin();
        if (!answer)
            cli_usage(cmd,
                      "the answer on standard input is longer than %u KiB or is "
                      "not text",
                      MAX_ANSWER_BYTES >> 10);
        return answer;
    }
    struct core_buf b;
    core_buf_init(&b);
    for (int i = 1; i < a->argc; i++) {
        if (i > 1)
            core_buf_putc(&b, ' ');
        core_buf_puts(&b, a->argv[i]);
    }
    return core_buf_steal(&b);
}

/* Before grading: a certainty exactly where the pack marks by certainty,
 * and for a question graded against the student's own lab run, a run
 * (not an unreadable answer: its own message and exit code). Returns 0
 * or the exit code. */
static int answer_precheck(struct cli_ctx *cx, const struct cli_command *cmd, const char *qid,
                           int variant, int certainty)
{
    struct core_err e = {0};
    bool cbm = false;
    if (lesson_question_cbm(cx->session, qid, &cbm, &e) != CORE_OK)
        return cli_fail(&e);
    if (cbm && !certainty)
        return cli_usage(cmd,
                         "%s is marked by certainty: add --certainty 1, 2 or 3 for how sure "
                         "you are (right scores 1, 2 or 3 times the points, wrong 0, -2 or "
                         "-6 times)",
                         qid);
    if (!cbm && certainty)
        return cli_usage(cmd, "%s is not marked by certainty: answer without --certainty", qid);
    struct lesson_question_view v;
    if (lesson_question_show(cx->session, qid, variant, &v, &e) != CORE_OK)
        return cli_fail(&e);
    int rc = 0;
    if (v.v.needs_lab) {
        if (cx->json) {
            struct core_buf b;
            struct core_json j;
            cli_json_open(&b, &j);
            core_json_kstr(&j, "question", v.q.id);
            core_json_kstr(&j, "pack", v.q.pack_id);
            core_json_kstr(&j, "lab", v.q.lab);
            core_json_kstr(&j, "needs_lab", v.v.needs_lab);
            core_json_kbool(&j, "recorded", false);
            cli_json_close(&b, &j);
        }
        fprintf(stderr,
                "warpbench: %s:%s is graded against your own run of the lab '%s', and you have "
                "none yet: %s. Nothing was recorded.\n",
                v.q.pack_id, v.q.id, v.q.lab ? v.q.lab : "?", cli_tx(v.v.needs_lab));
        rc = CLI_EXIT_NO_LAB_RUN;
    }
    lesson_question_view_fini(&v);
    return rc;
}

int cli_cmd_answer(struct cli_ctx *cx, struct cli_args *a)
{
    const struct cli_command *cmd = cli_command_find("answer");
    int variant, certainty;
    int rc = take_variant(cmd, a, &variant);
    if (rc == 0)
        rc = take_certainty(cmd, a, &certainty);
    if (rc == 0)
        rc = cli_check_args(cmd, a, 2, 1000);
    if (rc != 0)
        return rc;
    char *answer = answer_text(cmd, a);
    if (!answer)
        return CLI_EXIT_USAGE;
    rc = cli_open_session(cx);
    if (rc == 0)
        rc = answer_precheck(cx, cmd, a->argv[0], variant, certainty);
    struct core_err e = {0};
    struct lesson_answer_result res;
    if (rc == 0 && lesson_answer_certain(cx->session, a->argv[0], variant, answer, certainty, &res,
                                         &e) != CORE_OK)
        rc = cli_fail(&e);
    if (rc != 0) {
        free(answer);
        return rc;
    }
    /* Fault injection for the durability test: die the hardest way right
     * after the attempt was recorded, before anything is closed. */
    const char *fault = getenv("WARPBENCH_FAULT");
    if (fault && strcmp(fault, "kill-after-answer") == 0)
        raise(SIGKILL);
    const struct grader_result *r = &res.r;
    double mark = r->max > 0 ? r->max * lesson_cbm_fraction(r->score / r->max, certainty) : 0;
    if (cx->json)
        json_answer(&res, answer, certainty, mark);
    else
        print_answer(&res, certainty, mark);
    /* 0: right and it counts; during an exam, any readable answer (its
     * grade is not told yet). */
    rc = !r->valid                      ? CLI_EXIT_UNREADABLE
         : res.hidden                   ? CLI_EXIT_OK
         : r->correct && res.earned > 0 ? CLI_EXIT_OK
                                        : CLI_EXIT_WRONG;
    free(answer);
    lesson_answer_result_fini(&res);
    return rc;
}

int cli_cmd_giveup(struct cli_ctx *cx, struct cli_args *a)
{
    const struct cli_command *cmd = cli_command_find("giveup");
    int variant;
    int rc = take_variant(cmd, a, &variant);
    if (rc != 0)
        return rc;
    rc = cli_begin(cx, cmd, a, 1, 1, CLI_NEED_SESSION);
    if (rc != 0)
        return rc;
    struct core_err e = {0};
    struct lesson_giveup_result g;
    if (lesson_giveup(cx->session, a->argv[0], variant, &g, &e) != CORE_OK)
        return cli_fail(&e);
    /* The worked way to the solution: the question's hints, which go from
     * a nudge to the method (as the TUI shows them). */
    struct lesson_question_view v;
    bool have_view = lesson_question_show(cx->session, a->argv[0], variant, &v, &e) == CORE_OK;
    if (cx->json) {
        struct core_buf b;
        struct core_json j;
        cli_json_open(&b, &j);
        core_json_kstr(&j, "question", g.question_id);
        core_json_kstr(&j, "pack", g.pack_id);
        core_json_kint(&j, "variant", g.variant);
        core_json_kstr(&j, "accepted", g.accepted);
        core_json_kstr(&j, "reference", g.reference);
        core_json_kint(&j, "giveup", g.giveup_id);
        core_json_key(&j, "how");
        core_json_arr_begin(&j);
        for (size_t i = 0; have_view && i < v.v.n_hints; i++)
            core_json_str(&j, v.v.hints[i]);
        core_json_arr_end(&j);
        cli_json_close(&b, &j);
    } else {
        printf("gave up on %s:%s (variant %d)\n", g.pack_id, g.question_id, g.variant);
        if (g.accepted)
            printf("  accepted: %s\n", cli_tx(g.accepted));
        if (g.reference)
            printf("  solution: %s\n", cli_tx(g.reference));
        if (!g.accepted && !g.reference)
            printf("  this question has no single answer to show\n");
        if (have_view && v.v.n_hints) {
            printf("  how to get there:\n");
            for (size_t i = 0; i < v.v.n_hints; i++)
                printf("    %zu. %s\n", i + 1, cli_tx(v.v.hints[i]));
        }
        printf("  recorded: later attempts at it are marked as after a give-up and earn "
               "nothing in progress\n");
    }
    if (have_view)
        lesson_question_view_fini(&v);
    lesson_giveup_result_fini(&g);
    return CLI_EXIT_OK;
}
