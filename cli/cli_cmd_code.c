/* cli_cmd_code.c — `warpbench code list | start QID [--out FILE] [--force] |
 * run QID [FILE] | show QID`: the programming labs. A `code` question (its exercise
 * read by grader/grader_kind_code.c) is turned into the harness's spec
 * (labs/code/), run against this machine's roofline (the "roofline" lab's
 * latest run here, or a new one), printed with live lines while it runs,
 * and recorded as an attempt whose answer is the code itself, its timed
 * calls as a "code" lab run (lab_code_run_recorded) that `code show` reads. */
#include "cli/cli.h"
#include "grader/grader.h"
#include "labs/lab.h"

#include <errno.h>
#include <math.h>
#include <unistd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *figures_json(const struct lab_code_result *r, const struct lab_code_roof *roof);
static char *feedback_text(const struct lab_code_result *r);

static volatile sig_atomic_t code_signal;
static atomic_int code_cancel;

static void on_signal(int sig)
{
    code_signal = sig;
    atomic_store(&code_cancel, 1);
}

static int elem_of(const char *t)
{
    if (!t || strcmp(t, "void") == 0)
        return -1;
    if (strcmp(t, "int8_t") == 0 || strcmp(t, "signed char") == 0)
        return LAB_CODE_I8;
    if (strcmp(t, "int") == 0 || strcmp(t, "int32_t") == 0)
        return LAB_CODE_I32;
    if (strcmp(t, "int64_t") == 0 || strcmp(t, "long") == 0)
        return LAB_CODE_I64;
    if (strcmp(t, "double") == 0)
        return LAB_CODE_F64;
    return LAB_CODE_F32;
}

/* The harness's spec of exercise c (strings borrowed from c). */
static void cli_code_spec(const char *qid, const struct grader_code *c, struct lab_code_spec *s)
{
    memset(s, 0, sizeof *s);
    s->id = qid;
    s->func = c->func;
    s->ret = elem_of(c->ret);
    for (size_t i = 0; i < c->n_params && i < LAB_CODE_MAX_ARGS; i++) {
        struct lab_code_arg *a = &s->args[s->n_args++];
        const struct grader_code_param *p = &c->params[i];
        snprintf(a->name, sizeof a->name, "%s", p->name);
        a->pointer = p->pointer;
        a->output = p->pointer && !p->is_const;
        a->elem = (enum lab_code_elem)elem_of(p->elem);
        snprintf(a->count, sizeof a->count, "%s", p->count ? p->count : "1");
        a->lo = p->lo;
        a->hi = p->hi;
    }
    for (size_t i = 0; i < c->n_sizes && i < LAB_CODE_MAX_SIZES; i++) {
        snprintf(s->size_names[s->n_sizes], sizeof s->size_names[0], "%s", c->size_names[i]);
        s->size_values[s->n_sizes++] = c->size_values[i];
    }
    s->reference = c->reference;
    s->flags = c->flags;
    s->rtol = c->rtol;
    s->atol = c->atol;
    s->mismatch = c->mismatch;
    s->flops = c->flops;
    s->bytes = c->bytes;
    s->threads = c->threads;
    s->reps = c->reps;
    s->timeout_s = c->timeout_s;
    s->mem_mib = c->mem_mib;
    for (size_t i = 0; i < c->n_bands && i < LAB_CODE_MAX_BANDS; i++) {
        s->bands[i].fraction = c->band_fraction[i];
        s->bands[i].score = c->band_score[i];
        s->n_bands++;
    }
    s->correct_share = c->correct_share;
}

/* The code question qid: its view (caller frees) and exercise (borrowed
 * from the session's cached pack). Prints errors; returns an exit code. */
static int find_code(struct cli_ctx *cx, const char *qid, struct lesson_question_view *v,
                     const struct grader_question **gq)
{
    struct core_err e = {0};
    if (lesson_question_show(cx->session, qid, 1, v, &e) != CORE_OK)
        return cli_fail(&e);
    struct grader_pack *gp = NULL;
    if (lesson_session_pack(cx->session, v->q.rev_id, &gp, &e) != CORE_OK) {
        lesson_question_view_fini(v);
        return cli_fail(&e);
    }
    *gq = grader_pack_question(gp, v->q.id);
    if (!*gq || (*gq)->kind != GRADER_CODE || !(*gq)->code) {
        fprintf(stderr, "warpbench: %s is not a code question (see warpbench code list)\n",
                cli_tx1(qid));
        lesson_question_view_fini(v);
        return CLI_EXIT_NOTFOUND;
    }
    return 0;
}

static int code_list(struct cli_ctx *cx)
{
    struct core_err e = {0};
    struct db_pack *packs = NULL;
    size_t np = 0;
    if (db_pack_list(cx->db, &packs, &np, &e) != CORE_OK)
        return cli_fail(&e);
    struct core_buf b;
    struct core_json j;
    if (cx->json) {
        cli_json_open(&b, &j);
        core_json_key(&j, "exercises");
        core_json_arr_begin(&j);
    }
    int rc = 0, shown = 0;
    for (size_t i = 0; i < np && rc == 0; i++) {
        struct grader_pack *gp = NULL;
        if (lesson_session_pack(cx->session, packs[i].rev_id, &gp, &e) != CORE_OK) {
            rc = cli_fail(&e);
            break;
        }
        const struct grader_pack_info *info = grader_pack_info(gp);
        for (size_t l = 0; l < info->n_lessons; l++)
            for (size_t q = 0; q < info->lessons[l].n_questions; q++) {
                const struct grader_question *gq = &info->lessons[l].questions[q];
                if (gq->kind != GRADER_CODE || !gq->code)
                    continue;
                shown++;
                if (cx->json) {
                    core_json_obj_begin(&j);
                    core_json_kstr(&j, "pack", info->id);
                    core_json_kstr(&j, "question", gq->id);
                    core_json_kstr(&j, "lesson", info->lessons[l].id);
                    core_json_kstr(&j, "title", gq->title);
                    core_json_kstr(&j, "signature", gq->code->signature);
                    core_json_knum(&j, "points", gq->points);
                    core_json_obj_end(&j);
                } else {
                    printf("%-26s %s\n", cli_tx1(gq->id), cli_tx1(gq->title ? gq->title : ""));
                    printf("%-26s %s\n", "", cli_tx1(gq->code->signature));
                }
            }
    }
    for (size_t i = 0; i < np; i++)
        db_pack_fini(&packs[i]);
    free(packs);
    if (cx->json) {
        core_json_arr_end(&j);
        cli_json_close(&b, &j);
    } else if (rc == 0 && shown == 0) {
        printf("no code exercises in the imported packs\n");
    }
    return rc;
}

static const char *default_file(const struct grader_code *c, char *buf, size_t n)
{
    snprintf(buf, n, "%s.c", c->func);
    return buf;
}

static int code_start(struct cli_ctx *cx, const char *qid, const char *out, bool force)
{
    struct lesson_question_view v;
    const struct grader_question *gq;
    int rc = find_code(cx, qid, &v, &gq);
    if (rc != 0)
        return rc;
    char def[96];
    const char *path = out ? out : default_file(gq->code, def, sizeof def);
    struct core_err e = {0};
    const char *st = gq->code->starter ? gq->code->starter : "";
    if (core_file_create(path, st, strlen(st), force, "pass --force", &e) != CORE_OK) {
        lesson_question_view_fini(&v);
        return cli_fail(&e);
    }
    if (cx->json) {
        struct core_buf b;
        struct core_json j;
        cli_json_open(&b, &j);
        core_json_kstr(&j, "question", v.q.id);
        core_json_kstr(&j, "file", path);
        core_json_kstr(&j, "signature", gq->code->signature);
        cli_json_close(&b, &j);
    } else {
        printf("wrote %s: write %s in it, then\n  warpbench code run %s %s\n", cli_tx1(path),
               cli_tx1(gq->code->signature), cli_tx1(v.q.id), cli_tx1(path));
    }
    lesson_question_view_fini(&v);
    return 0;
}

/* Where a run's reports go: with --json, stdout carries one JSON object
 * per line, a {"type":"sample",...} line per timed call's sample as it is
 * measured (cli_json_sample: the shape `lab run --json` streams), then the
 * {"type":"result",...} line; log lines go to stderr. Without --json the
 * calls are lines on stderr and the result is text on stdout. */
struct code_sink {
    bool json;
    bool samples; /* this run's samples (not the roofline's, measured first) */
    struct core_buf line;
};

static void sink_log(void *ud, enum lab_log_level lv, const char *line)
{
    (void)ud;
    fprintf(stderr, "%s%s\n", lv >= LAB_LOG_WARN ? "warning: " : "", cli_tx1(line));
}

static void sink_sample(void *ud, const struct core_sample *s)
{
    struct code_sink *k = ud;
    if (!k->samples)
        return;
    if (k->json) {
        if (!cli_json_sample_put(&k->line, s) && !code_signal) {
            /* the reader went away (`| head`): stop the run as a cancel */
            code_signal = SIGPIPE;
            atomic_store(&code_cancel, 1);
        }
    } else if (strcmp(s->series, "call_ms") == 0) {
        fprintf(stderr, "  call %lld: %.3f ms\n", s->step, s->value);
    }
}

static void print_roof(const struct lab_code_roof *r, bool measured)
{
    printf("  this machine's roofline (%s run %lld): FMA peak %.1f GFLOP/s on %d core%s; triad "
           "%.1f GB/s at the exercise's size, %.1f GB/s at 4x LLC%s%s\n",
           measured ? "measured now," : "roofline", (long long)r->run_id, r->fma_gflops, r->threads,
           r->threads == 1 ? "" : "s", r->triad_gbs, r->triad_big_gbs, r->noisy ? " — NOISY: " : "",
           r->noisy ? cli_tx1(r->noise) : "");
}

static int code_run(struct cli_ctx *cx, const char *qid, const char *file)
{
    struct lesson_question_view v;
    const struct grader_question *gq;
    int rc = find_code(cx, qid, &v, &gq);
    if (rc != 0)
        return rc;
    const struct grader_code *c = gq->code;
    char def[96];
    const char *path = file ? file : default_file(c, def, sizeof def);
    struct core_err e = {0};
    struct lab_code_spec s;
    cli_code_spec(v.q.id, c, &s);
    char *src = NULL;
    size_t len = 0;
    struct lab_code_result r = {0};
    struct lab_code_roof roof;
    bool measured = false;
    if (core_file_read(path, DB_ANSWER_MAX, &src, &len, &e) != CORE_OK) {
        rc = cli_fail(&e);
        goto out;
    }
    if (lab_code_spec_check(&s, &e) != CORE_OK) {
        rc = CLI_EXIT_PACK;
        fprintf(stderr, "warpbench: %s\n", cli_tx(e.msg));
        goto out;
    }
    double flops = 0, bytes = 0;
    if (lab_code_work(&s, &flops, &bytes, &e) != CORE_OK) {
        rc = CLI_EXIT_PACK;
        fprintf(stderr, "warpbench: %s\n", cli_tx(e.msg));
        goto out;
    }
    code_signal = 0;
    atomic_store(&code_cancel, 0);
    struct sigaction sa, old_int, old_term, old_pipe;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    sa.sa_handler = SIG_IGN; /* a closed stdout is seen by fwrite, not by dying */
    sigaction(SIGPIPE, &sa, &old_pipe);
    struct code_sink ks = {.json = cx->json};
    core_buf_init(&ks.line);
    if (cx->json)
        setvbuf(stdout, NULL, _IOLBF, 0); /* a reader sees each sample as it comes */
    struct lab_sink sink = {.sample = sink_sample, .log = sink_log, .ud = &ks};
    int64_t uid = lesson_session_user_id(cx->session);
    /* the roofline at the exercise's working set (its bytes per call) */
    int lrc = lab_code_roof_get(cx->db, uid, bytes, s.threads > 0 ? s.threads : 1, &sink, 1,
                                &code_cancel, &roof, &measured, &e);
    if (lrc == CORE_OK) {
        struct lab_code_opts o = {.roof = &roof};
        struct lab_run_opts ro = {
            .db = cx->db, .user_id = uid, .sinks = &sink, .n_sinks = 1, .cancel = &code_cancel};
        char question[300];
        snprintf(question, sizeof question, "%s:%s", v.q.pack_id, v.q.id);
        fprintf(stderr, "running %s from %s\n", cli_tx1(v.q.id), cli_tx1(path));
        ks.samples = true;
        lrc = lab_code_run_recorded(&s, question, path, NULL, NULL, &o, &ro, &r, &e);
    }
    core_buf_fini(&ks.line);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGPIPE, &old_pipe, NULL);
    if (lrc == CORE_ERR_CANCELLED) {
        fprintf(stderr, "warpbench: cancelled\n");
        rc = code_signal == SIGTERM || code_signal == SIGPIPE ? 128 + code_signal
                                                              : CLI_EXIT_CANCELLED;
        goto out;
    }
    if (lrc != CORE_OK) {
        rc = cli_fail(&e);
        goto out;
    }
    /* the attempt: the code itself, the figures, the score */
    char *figures = figures_json(&r, &roof);
    char *feedback = feedback_text(&r);
    double pts = v.q.points > 0 ? v.q.points : 1;
    struct db_attempt_in in = {.user_id = uid,
                               .pack_id = v.q.pack_id,
                               .question_id = v.q.id,
                               .variant = 1,
                               .answer = src,
                               .parsed = figures,
                               .value = r.roofline_fraction,
                               .has_value = r.correct,
                               .valid = r.compiled,
                               .score = v.sealed ? 0 : r.score * pts,
                               .max = pts,
                               .correct = !v.sealed && r.correct && r.score >= 1,
                               .feedback = v.sealed ? "" : feedback,
                               .sealed = v.sealed,
                               .rev_id = v.q.rev_id,
                               .params_json = figures,
                               .grader_rev = grader_revision()};
    int64_t attempt = 0;
    struct core_err ae = {0};
    int arc = db_attempt_insert(cx->db, &in, &attempt, &ae);
    if (cx->json) {
        struct core_buf b;
        struct core_json j;
        cli_json_open(&b, &j);
        core_json_kstr(&j, "type", "result");
        core_json_kstr(&j, "question", v.q.id);
        core_json_kstr(&j, "file", path);
        core_json_kint_if(&j, "run", r.run_id != 0, r.run_id);
        core_json_kbool(&j, "compiled", r.compiled);
        core_json_kbool(&j, "correct", r.correct);
        core_json_kstr(&j, "message", r.message);
        core_json_kstr(&j, "first_wrong", r.first_wrong);
        core_json_kstr(&j, "compile_log", r.compile_log);
        core_json_knum(&j, "gflops", r.gflops);
        core_json_knum(&j, "gbs", r.gbs);
        core_json_knum(&j, "roofline_fraction", r.roofline_fraction);
        core_json_knum(&j, "speedup", r.speedup);
        core_json_knum(&j, "score", v.sealed ? 0 : r.score * pts);
        core_json_kbool(&j, "sealed", v.sealed);
        core_json_knum(&j, "max", pts);
        core_json_knum(&j, "seconds", r.t_median_s);
        core_json_knum(&j, "reference_seconds", r.ref_median_s);
        core_json_knum(&j, "spread_pct", r.spread_pct);
        core_json_kbool(&j, "noisy", r.noisy);
        core_json_kstr(&j, "noise", r.noise[0] ? r.noise : NULL);
        core_json_knum(&j, "flops", r.flops);
        core_json_knum(&j, "bytes", r.bytes);
        core_json_knum(&j, "roof_gflops", r.roof_gflops);
        core_json_key(&j, "roofline");
        core_json_obj_begin(&j);
        core_json_kint(&j, "run", roof.run_id);
        core_json_kbool(&j, "measured_now", measured);
        core_json_knum(&j, "fma_gflops", roof.fma_gflops);
        core_json_knum(&j, "triad_gbs", roof.triad_gbs);
        core_json_knum(&j, "copy_gbs", roof.copy_gbs);
        core_json_knum(&j, "triad_big_gbs", roof.triad_big_gbs);
        core_json_knum(&j, "copy_big_gbs", roof.copy_big_gbs);
        core_json_kbool(&j, "noisy", roof.noisy);
        core_json_kstr(&j, "noise", roof.noise);
        core_json_obj_end(&j);
        core_json_kint_if(&j, "attempt", arc == CORE_OK, attempt);
        cli_json_close(&b, &j);
    } else {
        if (r.compile_log && *r.compile_log)
            fputs(cli_tx(r.compile_log), stdout);
        if (!r.compiled) {
            printf("%s: does not compile: %s\n", cli_tx1(v.q.id), cli_tx1(r.message));
        } else if (!r.correct) {
            printf("%s: NOT CORRECT: %s\n", cli_tx1(v.q.id), cli_tx1(r.message));
            if (r.first_wrong)
                printf("  first wrong element: %s\n", cli_tx1(r.first_wrong));
        } else {
            printf("%s: correct (%d calls checked, each with fresh inputs)\n", cli_tx1(v.q.id),
                   r.calls);
            printf("  time     %.4g ms (median of %d; spread %.0f%%)   naive reference %.4g ms\n",
                   r.t_median_s * 1e3, r.calls - 1, r.spread_pct, r.ref_median_s * 1e3);
            printf("  work     %.4g GFLOP/s, %.4g GB/s (intensity %.3g FLOP/byte)\n", r.gflops,
                   r.gbs, r.intensity);
            printf("  roofline %.1f%% of this machine's bound (%.4g GFLOP/s at that intensity)\n",
                   100 * r.roofline_fraction, r.roof_gflops);
            printf("  speedup  %.2fx over the naive reference\n", r.speedup);
        }
        print_roof(&roof, measured);
        if (v.sealed)
            printf("  graded work: recorded ungraded; your instructor re-runs it and grades it\n");
        else
            printf("  score    %.3g / %.3g\n", r.score * pts, pts);
        if (r.noisy)
            printf("  NOISY: %s\n", cli_tx1(r.noise));
        if (arc != CORE_OK)
            printf("  (not recorded: %s)\n", cli_tx1(ae.msg));
        else if (r.run_id)
            printf("  recorded as attempt %lld, its calls as lab run %lld\n", (long long)attempt,
                   (long long)r.run_id);
        else
            printf("  recorded as attempt %lld\n", (long long)attempt);
    }
    free(figures);
    free(feedback);
    if (arc != CORE_OK && rc == 0)
        rc = cli_fail(&ae);
    else
        rc = !r.compiled ? CLI_EXIT_UNREADABLE : r.correct && r.score >= 1 ? 0 : CLI_EXIT_WRONG;
out:
    free(src);
    lab_code_result_fini(&r);
    lesson_question_view_fini(&v);
    return rc;
}

/* The figures an attempt keeps (its parsed text and params_json). */
static char *figures_json(const struct lab_code_result *r, const struct lab_code_roof *roof)
{
    struct core_buf fig;
    struct core_json fj;
    core_buf_init(&fig);
    core_json_init(&fj, &fig);
    core_json_obj_begin(&fj);
    core_json_kbool(&fj, "correct", r->correct);
    core_json_knum(&fj, "gflops", r->gflops);
    core_json_knum(&fj, "gbs", r->gbs);
    core_json_knum(&fj, "roofline_fraction", r->roofline_fraction);
    core_json_knum(&fj, "speedup", r->speedup);
    core_json_knum(&fj, "seconds", r->t_min_s);
    core_json_knum(&fj, "reference_seconds", r->ref_min_s);
    core_json_knum(&fj, "roof_gflops", r->roof_gflops);
    core_json_knum(&fj, "fma_gflops", roof->fma_gflops);
    core_json_knum(&fj, "triad_gbs", roof->triad_gbs);
    core_json_kint(&fj, "roofline_run", roof->run_id);
    core_json_kbool(&fj, "noisy", roof->noisy || r->noisy || r->spread_pct > 20);
    /* the "code" lab run holding each timed call's samples */
    core_json_kint_if(&fj, "run", r->run_id != 0, r->run_id);
    core_json_obj_end(&fj);
    return core_buf_steal(&fig);
}

static char *feedback_text(const struct lab_code_result *r)
{
    struct core_buf fb;
    core_buf_init(&fb);
    if (!r->compiled)
        core_buf_printf(&fb, "does not compile: %s", r->message ? r->message : "");
    else if (!r->correct)
        core_buf_printf(&fb, "%s", r->message ? r->message : "wrong");
    else
        core_buf_printf(&fb,
                        "correct; %.3g GFLOP/s, %.3g GB/s, %.1f%% of the roofline, %.2fx the "
                        "naive reference",
                        r->gflops, r->gbs, 100 * r->roofline_fraction, r->speedup);
    return core_buf_steal(&fb);
}

/* The samples of one series of a "code" run, in step order, as a JSON
 * array or a line of text. */
static void calls_of(struct cli_ctx *cx, int64_t run, const char *series, struct core_json *j,
                     struct core_buf *text)
{
    struct db_labsample *sm = NULL;
    size_t n = 0;
    struct core_err e = {0};
    if (run > 0 && db_labrun_samples_read(cx->db, run, series, &sm, &n, &e) != CORE_OK)
        n = 0;
    if (j)
        core_json_arr_begin(j);
    for (size_t i = 0; i < n; i++) {
        if (j)
            core_json_num(j, sm[i].value);
        if (text)
            core_buf_printf(text, "%s%.4g", i ? " " : "", sm[i].value);
    }
    if (j)
        core_json_arr_end(j);
    db_labsamples_free(sm, n);
}

static double fig(const struct core_kv *kv, size_t n, const char *key)
{
    const struct core_kv *f = core_kv_find(kv, n, key);
    return f && f->is_num ? f->num : NAN;
}

/* `code show QID`: the user's runs of the exercise, oldest first: what
 * each earned and the time of every timed call (its "code" lab run). */
static int code_show(struct cli_ctx *cx, const char *qid)
{
    struct lesson_question_view v;
    const struct grader_question *gq;
    int rc = find_code(cx, qid, &v, &gq);
    if (rc != 0)
        return rc;
    struct core_err e = {0};
    struct db_attempt *at = NULL;
    size_t n = 0;
    if (db_attempt_list(cx->db, lesson_session_user_id(cx->session), v.q.pack_id, v.q.id, &at, &n,
                        &e) != CORE_OK) {
        lesson_question_view_fini(&v);
        return cli_fail(&e);
    }
    struct core_buf b;
    struct core_json j;
    if (cx->json) {
        cli_json_open(&b, &j);
        core_json_kstr(&j, "question", v.q.id);
        core_json_key(&j, "attempts");
        core_json_arr_begin(&j);
    } else if (n == 0) {
        printf("%s: no runs yet (warpbench code run %s FILE)\n", cli_tx1(v.q.id), cli_tx1(v.q.id));
    }
    for (size_t i = 0; i < n; i++) {
        struct core_kv *kv = NULL;
        size_t nk = 0;
        if (!at[i].params_json || core_json_parse_flat(at[i].params_json, &kv, &nk, NULL) != 0)
            nk = 0;
#define FIG(key) fig(kv, nk, key)
        int64_t run = isfinite(FIG("run")) ? (int64_t)FIG("run") : 0;
        if (cx->json) {
            core_json_obj_begin(&j);
            core_json_kint(&j, "attempt", at[i].id);
            core_json_kstr(&j, "created_at", at[i].created_at);
            core_json_kbool(&j, "compiled", at[i].valid);
            core_json_kbool(&j, "correct", at[i].has_value);
            core_json_knum(&j, "score", at[i].score);
            core_json_knum(&j, "max", at[i].max);
            core_json_kbool(&j, "sealed", at[i].sealed);
            core_json_knum(&j, "gflops", FIG("gflops"));
            core_json_knum(&j, "gbs", FIG("gbs"));
            core_json_knum(&j, "roofline_fraction", FIG("roofline_fraction"));
            core_json_knum(&j, "speedup", FIG("speedup"));
            core_json_kint_if(&j, "run", run > 0, run);
            core_json_key(&j, "calls_ms");
            calls_of(cx, run, "call_ms", &j, NULL);
            core_json_key(&j, "reference_ms");
            calls_of(cx, run, "reference_ms", &j, NULL);
            core_json_obj_end(&j);
        } else {
            printf("attempt %lld  %s  %s", (long long)at[i].id, cli_tx1(at[i].created_at),
                   !at[i].valid      ? "does not compile"
                   : at[i].has_value ? "correct"
                                     : "NOT CORRECT");
            if (at[i].has_value)
                printf("  %.4g GFLOP/s  %.4g GB/s  %.1f%% of the roofline  %.2fx", FIG("gflops"),
                       FIG("gbs"), 100 * FIG("roofline_fraction"), FIG("speedup"));
            printf("  score %.3g / %.3g%s\n", at[i].score, at[i].max,
                   at[i].sealed ? " (sealed)" : "");
            struct core_buf t;
            core_buf_init(&t);
            calls_of(cx, run, "call_ms", NULL, &t);
            if (t.len)
                printf("  calls (ms, lab run %lld): %s\n", (long long)run, t.data);
            core_buf_fini(&t);
        }
#undef FIG
        core_kv_free(kv, nk);
    }
    if (cx->json) {
        core_json_arr_end(&j);
        cli_json_close(&b, &j);
    }
    db_attempts_free(at, n);
    lesson_question_view_fini(&v);
    return 0;
}

int cli_code_rerun(void *ud, const char *pack_id, const char *qid, const struct grader_question *gq,
                   const char *student, const char *user, const char *code,
                   struct grader_result *res, double *gflops, struct core_err *err)
{
    struct cli_ctx *cx = ud;
    memset(res, 0, sizeof *res);
    *gflops = NAN;
    if (!gq->code)
        return core_err_set(err, CORE_ERR_INVALID, "%s is not a code question", qid);
    struct lab_code_spec s;
    cli_code_spec(qid, gq->code, &s);
    double flops = 0, bytes = 0;
    int rc = lab_code_work(&s, &flops, &bytes, err);
    if (rc != CORE_OK)
        return rc;
    /* the student's file, in a private directory of its own */
    const char *tmp = getenv("TMPDIR");
    char dir[256], path[320];
    snprintf(dir, sizeof dir, "%s/wb-class-code.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir))
        return core_err_set(err, CORE_ERR_IO, "a temporary directory: %s", strerror(errno));
    snprintf(path, sizeof path, "%s/%s.c", dir, gq->code->func);
    struct lab_code_roof roof;
    bool measured;
    struct lab_code_result r = {0};
    rc = core_file_create(path, code, strlen(code), false, NULL, err);
    if (rc == CORE_OK)
        rc = lab_code_roof_get(cx->db, lesson_session_user_id(cx->session), bytes,
                               s.threads > 0 ? s.threads : 1, NULL, 0, NULL, &roof, &measured, err);
    struct lab_code_opts o = {.roof = &roof};
    /* recorded in the instructor's store as `code run` records a
     * student's own: a "code" lab run with each timed call's samples, the
     * machine and the noise verdict, its parameters naming the student
     * and the question; the class attempt's figures name it ("run") */
    struct lab_run_opts ro = {.db = cx->db, .user_id = lesson_session_user_id(cx->session)};
    char question[300];
    snprintf(question, sizeof question, "%s:%s", pack_id ? pack_id : "", qid);
    if (rc == CORE_OK)
        rc = lab_code_run_recorded(&s, question, path, student, user, &o, &ro, &r, err);
    unlink(path);
    rmdir(dir);
    if (rc != CORE_OK) {
        lab_code_result_fini(&r);
        return rc;
    }
    double pts = gq->points > 0 ? gq->points : 1;
    res->valid = r.compiled;
    res->score = r.score * pts;
    res->max = pts;
    res->correct = r.correct && r.score >= 1;
    res->feedback = feedback_text(&r);
    res->parsed = figures_json(&r, &roof);
    res->params_json = core_xstrdup(res->parsed);
    res->value = r.roofline_fraction;
    res->has_value = r.correct;
    if (r.correct)
        *gflops = r.gflops;
    lab_code_result_fini(&r);
    return CORE_OK;
}

int cli_cmd_code(struct cli_ctx *cx, struct cli_args *a)
{
    const struct cli_command *cmd = cli_command_find("code");
    const char *out = NULL;
    bool missing = false;
    bool has_out = cli_take_flag(a, "--out", true, &out, &missing);
    bool force = cli_take_flag(a, "--force", false, NULL, NULL);
    if (missing)
        return cli_usage(cmd, "--out needs a file name");
    if (a->argc < 1)
        return cli_usage(cmd, "say list, start, run or show");
    const char *sub = a->argv[0];
    a->argc--;
    a->argv++;
    if (strcmp(sub, "list") == 0) {
        int rc = cli_begin(cx, cmd, a, 0, 0, CLI_NEED_SESSION);
        return rc ? rc : code_list(cx);
    }
    if (strcmp(sub, "start") == 0) {
        int rc = cli_begin(cx, cmd, a, 1, 1, CLI_NEED_SESSION);
        return rc ? rc : code_start(cx, a->argv[0], has_out ? out : NULL, force);
    }
    if (strcmp(sub, "show") == 0) {
        int rc = cli_begin(cx, cmd, a, 1, 1, CLI_NEED_SESSION);
        return rc ? rc : code_show(cx, a->argv[0]);
    }
    if (strcmp(sub, "run") == 0) {
        if (has_out)
            return cli_usage(cmd, "--out is for code start");
        int rc = cli_begin(cx, cmd, a, 1, 2, CLI_NEED_SESSION);
        return rc ? rc : code_run(cx, a->argv[0], a->argc > 1 ? a->argv[1] : NULL);
    }
    return cli_usage(cmd, "unknown subcommand %s (list, start, run or show)", cli_tx1(sub));
}
