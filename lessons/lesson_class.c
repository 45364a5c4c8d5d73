/*
 * lesson_class.c — importing a student's submission into a class store:
 * every answer re-graded on the instructor's side, with the instructor's
 * packs, against the numbers the student was shown, and compared with what
 * the student's machine recorded.
 *
 * What a submission proves depends on what it was graded under. An
 * attempt graded under the very pack revision (same digest) and grader
 * revision the instructor has must get the same grade here: its numbers
 * are drawn again (they are a function of the student, the variant and,
 * for a lab-linked question, the submitted run) and must equal the stored
 * ones, and a different score means the record was changed (tampered).
 * An attempt graded under another version is graded against its stored
 * numbers, and a different score is version skew. Either way the
 * instructor's grade is the one that counts.
 */
#include "lessons/lesson_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SUBMISSION_BYTES (1024u * 1024u * 1024u)

static const struct {
    const char *name;
    bool blocking;
} flag_kinds[LESSON_FLAG_N] = {
    [LESSON_FLAG_TAMPERED] = {"tampered", false},
    [LESSON_FLAG_PARAMS] = {"numbers changed", false},
    [LESSON_FLAG_SKEW] = {"version skew", false},
    [LESSON_FLAG_FAILED] = {"grader failed", false},
    [LESSON_FLAG_SKIPPED] = {"not graded", false},
    [LESSON_FLAG_RELEASE] = {"unknown release", true},
    [LESSON_FLAG_OUTSIDE] = {"answered outside the release", true},
    [LESSON_FLAG_NO_ID] = {"no student id", true},
    [LESSON_FLAG_VARIANT] = {"another variant", true},
    [LESSON_FLAG_NUMBERS] = {"numbers differ", true},
    [LESSON_FLAG_EXAM_TIME] = {"exam time", true},
    [LESSON_FLAG_SITTING] = {"exam sitting", true},
    [LESSON_FLAG_DUPLICATE] = {"duplicate exam answer", true},
    [LESSON_FLAG_TRIES] = {"tries beyond the policy", true},
    [LESSON_FLAG_GAP] = {"attempt gap", true},
    [LESSON_FLAG_FUTURE] = {"future time", true},
    [LESSON_FLAG_EARLY] = {"before the release", true},
    [LESSON_FLAG_RUN] = {"implausible run", true},
    [LESSON_FLAG_IDENTITY] = {"identity", true},
    [LESSON_FLAG_LATE] = {"late", false},
    [LESSON_FLAG_CODE] = {"speed differs", false},
    [LESSON_FLAG_COPIED] = {"copied attempts", true},
};

const char *lesson_flag_name(enum lesson_flag_kind k)
{
    return k >= 0 && k < LESSON_FLAG_N && flag_kinds[k].name ? flag_kinds[k].name : "?";
}

bool lesson_flag_blocking(enum lesson_flag_kind k)
{
    return k >= 0 && k < LESSON_FLAG_N && flag_kinds[k].blocking;
}

void lesson_class_report_fini(struct lesson_class_report *r)
{
    if (!r)
        return;
    free(r->file);
    free(r->uid);
    free(r->user);
    free(r->student_id);
    free(r->key);
    free(r->superseded);
    for (size_t i = 0; i < r->n_flags; i++) {
        free(r->flags[i].pack_id);
        free(r->flags[i].question_id);
        free(r->flags[i].lesson_id);
        free(r->flags[i].reason);
    }
    free(r->flags);
    for (size_t i = 0; i < r->n_runflags; i++) {
        free(r->runflags[i].lab);
        free(r->runflags[i].problems);
    }
    free(r->runflags);
    memset(r, 0, sizeof *r);
}

/* One pack of the submission and the instructor's edition of it. */
struct pack_slot {
    const struct db_sub_pack *sub;
    struct db_pack mine;    /* id NULL when the instructor's store lacks it */
    struct grader_pack *gp; /* borrowed from the session: the current revision, or a
                               release's source */
    int64_t rev;            /* the revision gp is */
    char *why;              /* why its attempts are not graded, or NULL */
    /* The submission's edition is a release the instructor made (its
     * digest is the release's): its practice questions are the source's. */
    bool release;
    bool has_releases; /* the instructor made releases of this pack */
    struct db_release rel;
    char *deadline; /* the class deadline that applies (ISO), NULL: none */
};

/* A release an attempt names by its digest, looked up once per import. */
struct rel_slot {
    char *digest;
    bool found; /* a release of the attempt's pack */
    struct db_release rel;
    struct grader_pack *made_from; /* the source revision it was made from (borrowed) */
};

/* A submitted run as a grading context (ctx.lab). */
struct run_slot {
    const struct db_sub_run *sub;
    struct core_kv *params, *summary;
    size_t n_params, n_summary;
    struct grader_kv *gp, *gs;
    struct grader_lab_run run;
    bool ready, bad;
};

static struct grader_kv *to_gkv(const struct core_kv *kv, size_t n)
{
    struct grader_kv *g = core_xcalloc(n ? n : 1, sizeof *g);
    for (size_t i = 0; i < n; i++)
        g[i] = (struct grader_kv){kv[i].key, kv[i].str, kv[i].num, kv[i].is_num};
    return g;
}

static const struct grader_lab_run *run_ctx(struct run_slot *runs, size_t n, int64_t id)
{
    for (size_t i = 0; i < n; i++) {
        struct run_slot *r = &runs[i];
        if (r->sub->id != id)
            continue;
        if (!r->ready) {
            r->ready = true;
            r->bad = core_json_parse_flat(r->sub->params_json, &r->params, &r->n_params, NULL) !=
                         CORE_OK ||
                     core_json_parse_flat(r->sub->summary_json ? r->sub->summary_json : "{}",
                                          &r->summary, &r->n_summary, NULL) != CORE_OK;
            if (!r->bad) {
                r->gp = to_gkv(r->params, r->n_params);
                r->gs = to_gkv(r->summary, r->n_summary);
                r->run = (struct grader_lab_run){.id = r->sub->id,
                                                 .lab = r->sub->lab,
                                                 .finished_at = r->sub->ended_at,
                                                 .params = r->gp,
                                                 .n_params = r->n_params,
                                                 .summary = r->gs,
                                                 .n_summary = r->n_summary};
            }
        }
        return r->bad ? NULL : &r->run;
    }
    return NULL;
}

static void runs_fini(struct run_slot *runs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        core_kv_free(runs[i].params, runs[i].n_params);
        core_kv_free(runs[i].summary, runs[i].n_summary);
        free(runs[i].gp);
        free(runs[i].gs);
    }
    free(runs);
}

static void grade_text(bool valid, double score, double max, char *buf, size_t n)
{
    if (!valid) {
        snprintf(buf, n, "unreadable");
        return;
    }
    char s[32], m[32];
    lesson_score_format(score, s, sizeof s);
    lesson_score_format(max, m, sizeof m);
    snprintf(buf, n, "%s/%s", s, m);
}

static struct lesson_class_flag *add_flag(struct lesson_class_report *r, size_t *cap,
                                          enum lesson_flag_kind kind,
                                          const struct db_sub_attempt *a)
{
    if (r->n_flags == *cap) {
        *cap = *cap ? 2 * *cap : 16;
        r->flags = core_xrealloc(r->flags, *cap * sizeof *r->flags);
    }
    struct lesson_class_flag *f = &r->flags[r->n_flags++];
    memset(f, 0, sizeof *f);
    f->kind = kind;
    f->attempt = a->id;
    f->pack_id = core_xstrdup(a->pack_id);
    f->question_id = core_xstrdup(a->question_id);
    f->variant = a->variant;
    f->rec_valid = a->valid;
    f->rec_score = a->score;
    f->max = a->max;
    return f;
}

/* A finding that is not one attempt's re-grade (an integrity check). */
static struct lesson_class_flag *add_check(struct lesson_class_report *r, size_t *cap,
                                           enum lesson_flag_kind kind, const char *pack_id,
                                           const char *lesson_id, const char *question_id,
                                           int64_t attempt, char *reason)
{
    if (r->n_flags == *cap) {
        *cap = *cap ? 2 * *cap : 16;
        r->flags = core_xrealloc(r->flags, *cap * sizeof *r->flags);
    }
    struct lesson_class_flag *f = &r->flags[r->n_flags++];
    memset(f, 0, sizeof *f);
    f->kind = kind;
    f->attempt = attempt;
    f->pack_id = pack_id ? core_xstrdup(pack_id) : NULL;
    f->lesson_id = lesson_id ? core_xstrdup(lesson_id) : NULL;
    f->question_id = question_id ? core_xstrdup(question_id) : NULL;
    f->reason = reason;
    return f;
}

/* Attempts that hold another student's answers at their very millisecond
 * come from a copy of that student's store or file: typing the same answer
 * to the same question in the same millisecond happens by chance, in a
 * large class, about once; at LESSON_TWINS_MIN attempts it does not. A
 * copy holds every attempt of the original, so LESSON_TWINS_PROBES evenly
 * spaced attempts are looked up (each lookup costs about as much as a
 * tenth of a grading), and all of them once a sample finds a copy, for the
 * count. Each pack and other student found is a blocking flag of the
 * pack's graded work, naming the other student (whose own work may be the
 * original). */
#define LESSON_TWINS_MIN 3
#define LESSON_TWINS_PROBES 32
static int check_twins(struct db *cs, struct lesson_class_report *out, size_t *cap,
                       const struct db_submission *sub, struct core_err *err)
{
    struct db_class_twin *tw;
    size_t n, stride = sub->n_attempts / LESSON_TWINS_PROBES;
    int rc = db_class_twins(cs, out->key, sub, stride, &tw, &n, err);
    bool found = false;
    for (size_t i = 0; rc == CORE_OK && i < n; i++)
        found |= tw[i].n >= LESSON_TWINS_MIN;
    if (rc == CORE_OK && found && stride > 1) {
        db_class_twins_free(tw, n);
        rc = db_class_twins(cs, out->key, sub, 1, &tw, &n, err);
    }
    if (rc != CORE_OK)
        return rc;
    for (size_t i = 0; i < n; i++)
        if (tw[i].n >= LESSON_TWINS_MIN)
            add_check(out, cap, LESSON_FLAG_COPIED, tw[i].pack_id, NULL, NULL, 0,
                      core_xasprintf("%d attempts at %s are also in student %s's submission: the "
                                     "same question and answer at the same millisecond, as a "
                                     "copy of their store or file has them",
                                     tw[i].n, tw[i].pack_id, tw[i].other_key));
    db_class_twins_free(tw, n);
    return CORE_OK;
}

static const char *short_digest(const char *d)
{
    static char buf[2][16];
    static int at;
    char *b = buf[at++ & 1];
    snprintf(b, sizeof buf[0], "%.10s", d ? d : "?");
    return b;
}

/* After the student's first give-up at the attempt's question: its id is
 * above the lowest last_attempt of those give-ups (as db_progress says). */
static bool after_giveup(const struct db_submission *s, const struct db_sub_attempt *a)
{
    bool any = false;
    int64_t first = 0;
    for (size_t i = 0; i < s->n_giveups; i++) {
        const struct db_sub_giveup *g = &s->giveups[i];
        if (strcmp(g->pack_id, a->pack_id) != 0 || strcmp(g->question_id, a->question_id) != 0)
            continue;
        if (!any || g->last_attempt < first)
            first = g->last_attempt;
        any = true;
    }
    return any && a->id > first;
}

/* Import state: what is graded and the strings the rows point at. */
/* What one file may make an import grade, so that a flood of answers
 * (a submission may hold 1000 per question) cannot stall the instructor:
 * of a graded lesson's question, the answers past the tries its policy
 * lets count are not graded; of the costly kinds (a design answer is
 * parsed, a code answer compiled and run) only the latest IMPORT_MAX_DESIGN
 * or IMPORT_MAX_CODE answers to one question are. Those left are flagged
 * "not graded" with the reason, and counted in the report. */
enum { IMPORT_MAX_DESIGN = 50, IMPORT_MAX_CODE = 10 };
struct q_budget {
    const struct grader_question *q;
    int tries;    /* the tries that can count; 0: any number */
    size_t cap;   /* the most answers graded; 0: all */
    size_t total; /* answers to it in the file */
    size_t seen;  /* of them, met so far */
    int valid;    /* of them, graded readable so far */
};

struct import {
    struct lesson_session *s;
    struct lesson_grade_cache *cache;
    const struct lesson_class_opts *opts;
    double now;
    const struct db_submission *sub;
    struct pack_slot *packs;
    struct run_slot *runs;
    struct db_class_attempt_in *rows;
    struct grader_result *results;
    char **flags;             /* per attempt, owned */
    char (*shas)[65];         /* per attempt: the answer's SHA-256 (design answers) */
    const char **released_at; /* per attempt: when the release it names was made */
    struct rel_slot *rels;    /* the releases attempts named */
    size_t n_rels;
    struct lesson_class_report *rep;
    size_t cap_flags;
    struct q_budget *budget; /* per question answered (import_budget) */
    size_t n_budget;
    size_t *bq; /* per attempt: its question's budget, or SIZE_MAX */
};

/* The release of pack_id with this digest (an attempt's edition); NULL
 * when the instructor made none such. */
static const struct rel_slot *release_of(struct import *im, const char *pack_id, const char *digest)
{
    if (!digest)
        return NULL;
    for (size_t i = 0; i < im->n_rels; i++)
        if (strcmp(im->rels[i].digest, digest) == 0)
            return im->rels[i].found && strcmp(im->rels[i].rel.pack_id, pack_id) == 0 ? &im->rels[i]
                                                                                      : NULL;
    im->rels = core_xrealloc(im->rels, (im->n_rels + 1) * sizeof *im->rels);
    struct rel_slot *r = &im->rels[im->n_rels++];
    *r = (struct rel_slot){.digest = core_xstrdup(digest)};
    struct core_err e = {0};
    r->found = db_release_get(im->s->db, digest, &r->rel, &e) == CORE_OK;
    if (r->found && lesson_session_pack(im->s, r->rel.rev_id, &r->made_from, &e) != CORE_OK)
        r->made_from = NULL;
    return r->found && strcmp(r->rel.pack_id, pack_id) == 0 ? r : NULL;
}

static struct pack_slot *slot_of(struct import *im, const char *pack_id)
{
    for (size_t i = 0; i < im->sub->n_packs; i++)
        if (strcmp(im->packs[i].sub->id, pack_id) == 0)
            return &im->packs[i];
    return NULL;
}

/* The lesson of question qid of p; NULL when it has none. */
static const struct grader_lesson *lesson_of_question(const struct grader_pack *p, const char *qid)
{
    const struct grader_pack_info *info = grader_pack_info(p);
    for (size_t li = 0; li < info->n_lessons; li++)
        for (size_t qi = 0; qi < info->lessons[li].n_questions; qi++)
            if (strcmp(info->lessons[li].questions[qi].id, qid) == 0)
                return &info->lessons[li];
    return NULL;
}

/* Whether question qid of source p is graded work (a graded or exam lesson). */
static bool lesson_graded(const struct grader_pack *p, const char *qid)
{
    const struct grader_lesson *l = lesson_of_question(p, qid);
    return l && (l->graded || l->exam);
}

/* The index of `text` among the items of question qid of p, or -1. */
static int item_index(const struct grader_pack *p, const char *qid, const char *text)
{
    const struct grader_question *q = p ? grader_pack_question(p, qid) : NULL;
    for (size_t i = 0; q && i < q->n_choices; i++)
        if (strcmp(q->choices[i], text) == 0)
            return (int)i;
    return -1;
}

/* An answer by identity in the release's numbering ("#2 #1 #3") in the
 * current source's: through the release's permutation of question qid's
 * items (perms_json: {"qid": [2, 0, 1]}, release item k is item perm[k] of
 * the source it was made from, `made_from`), then by the item's text to the
 * current source `now` (a version may reorder or reword them). NULL when
 * qid has no permutation, the answer is not such, or an item is gone. */
static char *to_source_items(const char *perms_json, const struct grader_pack *made_from,
                             const struct grader_pack *now, const char *qid, const char *answer)
{
    if (!perms_json || answer[strspn(answer, " ")] != '#')
        return NULL;
    char key[200];
    snprintf(key, sizeof key, "\"%s\"", qid);
    const char *at = strstr(perms_json, key);
    if (!at || !(at = strchr(at + strlen(key), '[')))
        return NULL;
    int perm[26];
    size_t n = 0;
    for (const char *c = at + 1; *c && *c != ']' && n < 26;) {
        char *end;
        long v = strtol(c, &end, 10);
        if (end == c)
            return NULL;
        perm[n++] = (int)v;
        c = end + strspn(end, " ,");
    }
    struct core_buf b;
    core_buf_init(&b);
    for (const char *c = answer; *c;) {
        c += strspn(c, " ,");
        if (*c != '#')
            break;
        char *end;
        long k = strtol(c + 1, &end, 10);
        if (end == c + 1 || k < 1 || (size_t)k > n || perm[k - 1] < 0 || perm[k - 1] >= 26) {
            core_buf_fini(&b);
            return NULL;
        }
        int item = perm[k - 1];
        if (made_from != now) {
            const struct grader_question *oq = grader_pack_question(made_from, qid);
            item =
                oq && (size_t)item < oq->n_choices ? item_index(now, qid, oq->choices[item]) : -1;
        }
        if (item < 0) {
            core_buf_fini(&b);
            return NULL;
        }
        core_buf_printf(&b, "%s#%d", b.len ? " " : "", item + 1);
        c = end;
    }
    return core_buf_steal(&b);
}

/* Whether every value of `shown` (a JSON object: the numbers the student's
 * release showed) is the same in `drawn` (the source's params for the
 * student). Both as grader_params_encode writes them. */
static bool numbers_match(const char *shown, const char *drawn)
{
    struct core_kv *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    bool ok = shown && drawn && core_json_parse_flat(shown, &a, &na, NULL) == CORE_OK &&
              core_json_parse_flat(drawn, &b, &nb, NULL) == CORE_OK;
    for (size_t i = 0; ok && i < na; i++) {
        const struct core_kv *m = core_kv_find(b, nb, a[i].key);
        ok = m && m->is_num == a[i].is_num &&
             (a[i].is_num ? m->num == a[i].num
                          : strcmp(m->str ? m->str : "", a[i].str ? a[i].str : "") == 0);
    }
    core_kv_free(a, na);
    core_kv_free(b, nb);
    return ok;
}

/* A sealed answer: graded with the current source, for the student's own
 * variant drawn again from their id and the salt of the release it was made
 * under (rs); its recorded numbers only compared. */
/* A student's numbers as a flag's reason quotes them: at most SHOWN_PARAMS
 * bytes, cut at the start of a character and marked with "…", so the 1 MiB
 * of numbers a submission may carry cannot flood the report and the class
 * store (shown_len: the bytes to print; shown_more: the mark). */
#define SHOWN_PARAMS 200
static int shown_len(const char *s)
{
    size_t at = strlen(s);
    if (at <= SHOWN_PARAMS)
        return (int)at;
    at = SHOWN_PARAMS;
    while (at > 0 && ((unsigned char)s[at] & 0xC0) == 0x80)
        at--;
    return (int)at;
}
static const char *shown_more(const char *s)
{
    return strlen(s) > SHOWN_PARAMS ? "…" : "";
}

static void grade_sealed(struct import *im, size_t i, struct pack_slot *ps,
                         const struct rel_slot *rs, const struct grader_question *gq)
{
    const struct db_sub_attempt *a = &im->sub->attempts[i];
    struct db_class_attempt_in *row = &im->rows[i];
    struct lesson_class_report *rep = im->rep;
    if (!a->sealed)
        add_check(rep, &im->cap_flags, LESSON_FLAG_OUTSIDE, a->pack_id, NULL, a->question_id, a->id,
                  core_xasprintf("the student's store graded this answer itself (%s): the "
                                 "question is sealed in the release, so its key was at hand",
                                 a->valid ? "a grade was recorded" : "unreadable"));
    if (!a->valid)
        return; /* a slip the release explained: not a try, not graded */
    const char *sid = im->sub->student_id;
    if (!sid) {
        add_check(rep, &im->cap_flags, LESSON_FLAG_NO_ID, a->pack_id, NULL, a->question_id, a->id,
                  core_xstrdup("graded work needs the student's id: it draws their numbers "
                               "(warpbench init --student-id ID, then submit again)"));
        return;
    }
    if (a->variant != 1)
        add_check(rep, &im->cap_flags, LESSON_FLAG_VARIANT, a->pack_id, NULL, a->question_id, a->id,
                  core_xasprintf("answered under variant %d: a sealed question has one variant "
                                 "per student",
                                 a->variant));
    char user[200];
    lesson_sealed_user(rs->rel.salt, sid, user, sizeof user);
    struct grader_ctx ctx = {.user = user, .variant = 1, .identity = true};
    if (gq->lab && a->lab_run)
        ctx.lab = run_ctx(im->runs, im->sub->n_runs, a->lab_run);
    char *mapped = NULL;
    if (gq->kind == GRADER_ORDERING) {
        mapped =
            to_source_items(rs->rel.perms_json, rs->made_from, ps->gp, a->question_id, a->answer);
        if (!mapped) {
            struct lesson_class_flag *f = add_flag(rep, &im->cap_flags, LESSON_FLAG_SKIPPED, a);
            f->reason = core_xstrdup("its items cannot be matched to the source's (the release "
                                     "or its source revision is gone, or an item was reworded)");
            im->flags[i] = core_xstrdup(f->reason);
            row->flag = im->flags[i];
            rep->n_skipped++;
            return;
        }
    }
    struct core_err e = {0};
    struct grader_result *r = &im->results[i];
    if (grader_question_grade(ps->gp, a->question_id, &ctx, mapped ? mapped : a->answer, r, &e) !=
        CORE_OK) {
        struct lesson_class_flag *f = add_flag(rep, &im->cap_flags, LESSON_FLAG_FAILED, a);
        f->reason = core_xasprintf("the grader failed: %s", e.msg);
        im->flags[i] = core_xstrdup(f->reason);
        row->flag = im->flags[i];
        rep->n_failed++;
        free(mapped);
        return;
    }
    free(mapped);
    if (gq->lab && ctx.lab)
        rep->n_lab_regraded++;
    rep->n_sealed++;
    row->graded = true;
    row->valid = r->valid;
    row->score = r->score;
    row->max = r->max;
    row->correct = r->correct;
    row->parsed = r->parsed;
    row->feedback = r->feedback;
    row->mistake = r->mistake;
    row->params_json = r->params_json;
    row->agree = true; /* nothing was recorded to agree with */
    if (gq->kind == GRADER_DESIGN) {
        core_sha256_hex(a->answer, strlen(a->answer), im->shas[i]);
        row->answer_sha = im->shas[i];
    }
    if (a->params_json && !numbers_match(a->params_json, r->params_json))
        add_check(rep, &im->cap_flags, LESSON_FLAG_NUMBERS, a->pack_id, NULL, a->question_id, a->id,
                  core_xasprintf("the numbers recorded with it, %.*s%s, are not the student's "
                                 "(%s): graded against the student's",
                                 shown_len(a->params_json), a->params_json,
                                 shown_more(a->params_json),
                                 r->params_json ? r->params_json : "?"));
    /* The deadline and the late rule. */
    double due = ps->deadline ? core_time_from_iso(ps->deadline) : NAN;
    double made = core_time_from_iso(a->created_at);
    if (isfinite(due) && isfinite(made) && made > due) {
        const struct grader_pack_info *info = grader_pack_info(ps->gp);
        double days = (made - due) / 86400;
        double factor = info->late == GRADER_LATE_ZERO ? 0
                        : info->late == GRADER_LATE_PER_DAY
                            ? fmax(0, 1 - ceil(days) * info->late_per_day)
                            : 1;
        row->late = true;
        row->late_days = days;
        row->late_factor = factor;
        add_check(rep, &im->cap_flags, LESSON_FLAG_LATE, a->pack_id, NULL, a->question_id, a->id,
                  core_xasprintf("made %s, %.1f day%s after the deadline %s: %s", a->created_at,
                                 days, days >= 0.95 && days < 1.05 ? "" : "s", ps->deadline,
                                 info->late == GRADER_LATE_ZERO ? "it earns nothing"
                                 : info->late == GRADER_LATE_PER_DAY
                                     ? "the late rule takes a part of its points"
                                     : "graded as on time"));
    }
}

/* A code answer: compiled and re-run here, graded by this machine's
 * measurement; the student's recorded speed (the figures kept with the
 * attempt) is flagged when it is more than 2x off. */
static void grade_code(struct import *im, size_t i, const struct grader_question *gq)
{
    const struct db_sub_attempt *a = &im->sub->attempts[i];
    struct db_class_attempt_in *row = &im->rows[i];
    struct lesson_class_report *rep = im->rep;
    struct grader_result *r = &im->results[i];
    struct core_err e = {0};
    double mine = NAN;
    if (!im->opts || !im->opts->code_rerun ||
        im->opts->code_rerun(im->opts->code_ud, a->pack_id, a->question_id, gq,
                             im->sub->student_id && *im->sub->student_id ? im->sub->student_id
                                                                         : im->sub->user,
                             im->sub->user, a->answer ? a->answer : "", r, &mine, &e) != CORE_OK) {
        struct lesson_class_flag *f = add_flag(rep, &im->cap_flags, LESSON_FLAG_FAILED, a);
        f->reason = im->opts && im->opts->code_rerun
                        ? core_xasprintf("the code could not be re-run: %s", e.msg)
                        : core_xstrdup("a code answer is graded by re-running it, which this "
                                       "import cannot do");
        im->flags[i] = core_xstrdup(f->reason);
        row->flag = im->flags[i];
        rep->n_failed++;
        return;
    }
    row->graded = true;
    row->valid = r->valid;
    row->score = r->score;
    row->max = r->max;
    row->correct = r->correct;
    row->parsed = r->parsed;
    row->feedback = r->feedback;
    row->params_json = r->params_json;
    row->agree = true; /* a speed measured on another machine is not a grade to agree with */
    rep->n_agree++;
    /* the student's figure, as recorded with the attempt */
    struct core_kv *kv = NULL;
    size_t n = 0;
    double theirs = NAN;
    if (a->params_json && core_json_parse_flat(a->params_json, &kv, &n, NULL) == CORE_OK) {
        const struct core_kv *g = core_kv_find(kv, n, "gflops");
        const struct core_kv *ok = core_kv_find(kv, n, "correct");
        if (g && g->is_num && ok && ok->is_num && ok->num != 0)
            theirs = g->num;
        core_kv_free(kv, n);
    }
    /* the re-run's lab run in this store (its calls, machine and noise):
     * named in the flag, so the instructor can read them */
    char where[96] = "";
    if (r->params_json && core_json_parse_flat(r->params_json, &kv, &n, NULL) == CORE_OK) {
        const struct core_kv *run = core_kv_find(kv, n, "run");
        if (run && run->is_num && run->num > 0)
            snprintf(where, sizeof where, " (the re-run's calls: warpbench lab show %lld)",
                     (long long)run->num);
        core_kv_free(kv, n);
    }
    if (isfinite(theirs) && isfinite(mine) && theirs > 0 && mine > 0 &&
        (theirs > 2 * mine || mine > 2 * theirs))
        add_check(rep, &im->cap_flags, LESSON_FLAG_CODE, a->pack_id, NULL, a->question_id, a->id,
                  core_xasprintf("the student's run recorded %.4g GFLOP/s; re-run here it makes "
                                 "%.4g GFLOP/s (%.1fx %s): graded by the measurement here%s",
                                 theirs, mine, theirs > mine ? theirs / mine : mine / theirs,
                                 theirs > mine ? "less" : "more", where));
    else if (isfinite(theirs) && !isfinite(mine))
        add_check(rep, &im->cap_flags, LESSON_FLAG_CODE, a->pack_id, NULL, a->question_id, a->id,
                  core_xasprintf("the student's run recorded a correct result at %.4g GFLOP/s; "
                                 "re-run here it is not correct: %s%s",
                                 theirs, r->feedback ? r->feedback : "?", where));
}

static void grade_answer(struct import *im, size_t i, struct pack_slot *ps,
                         const struct grader_question *gq);

/* Whether q is a question of a graded lesson (not an exam) of pack p. */
static bool in_graded_lesson(const struct grader_pack *p, const struct grader_question *q)
{
    const struct grader_pack_info *info = grader_pack_info(p);
    for (size_t li = 0; li < info->n_lessons; li++) {
        const struct grader_lesson *l = &info->lessons[li];
        if (l->n_questions && q >= l->questions && q < l->questions + l->n_questions)
            return l->graded && !l->exam;
    }
    return false;
}

/* Each attempt's question budget (struct q_budget), before any grading. */
static void import_budget(struct import *im)
{
    size_t n = im->sub->n_attempts;
    im->bq = core_xcalloc(n ? n : 1, sizeof *im->bq);
    for (size_t i = 0; i < n; i++) {
        const struct db_sub_attempt *a = &im->sub->attempts[i];
        struct pack_slot *ps = slot_of(im, a->pack_id);
        const struct grader_question *gq =
            ps && ps->gp ? grader_pack_question(ps->gp, a->question_id) : NULL;
        im->bq[i] = SIZE_MAX;
        if (!gq)
            continue;
        size_t k = 0;
        while (k < im->n_budget && im->budget[k].q != gq)
            k++;
        if (k == im->n_budget) {
            im->budget = core_xrealloc(im->budget, (k + 1) * sizeof *im->budget);
            im->budget[k] = (struct q_budget){
                .q = gq,
                .tries = in_graded_lesson(ps->gp, gq) ? gq->policy.tries : 0,
                .cap = gq->kind == GRADER_DESIGN ? IMPORT_MAX_DESIGN
                       : gq->kind == GRADER_CODE ? IMPORT_MAX_CODE
                                                 : 0,
            };
            im->n_budget++;
        }
        im->budget[k].total++;
        im->bq[i] = k;
    }
}

/* The reason answer i is left ungraded by its question's budget (b, now
 * counting it), or NULL. */
static char *over_budget(struct q_budget *b)
{
    size_t k = b->seen++;
    if (b->tries > 0 && b->valid >= b->tries)
        return core_xasprintf("not graded: a try past the %d this question's policy lets count",
                              b->tries);
    if (b->cap && b->total - k > b->cap)
        return core_xasprintf("not graded: only the latest %zu of the %zu answers this file "
                              "holds to this question are graded here",
                              b->cap, b->total);
    return NULL;
}

static void grade_one(struct import *im, size_t i)
{
    const struct db_sub_attempt *a = &im->sub->attempts[i];
    struct db_class_attempt_in *row = &im->rows[i];
    struct lesson_class_report *rep = im->rep;
    row->sub = a;
    row->after_giveup = after_giveup(im->sub, a);
    struct pack_slot *ps = slot_of(im, a->pack_id);
    const struct grader_question *gq =
        ps && ps->gp ? grader_pack_question(ps->gp, a->question_id) : NULL;
    if (!gq) {
        struct lesson_class_flag *f = add_flag(rep, &im->cap_flags, LESSON_FLAG_SKIPPED, a);
        f->reason = ps && ps->why ? core_xstrdup(ps->why)
                    : ps && ps->mine.id
                        ? core_xasprintf("question %s is not in pack %s version %s", a->question_id,
                                         ps->mine.id, ps->mine.version)
                        : core_xasprintf("pack %s is not in your store", a->pack_id);
        im->flags[i] = core_xstrdup(f->reason);
        row->flag = im->flags[i];
        rep->n_skipped++;
        return;
    }
    struct q_budget *b = im->bq[i] != SIZE_MAX ? &im->budget[im->bq[i]] : NULL;
    char *why = b ? over_budget(b) : NULL;
    if (why) {
        struct lesson_class_flag *f = add_flag(rep, &im->cap_flags, LESSON_FLAG_SKIPPED, a);
        f->reason = why;
        im->flags[i] = core_xstrdup(why);
        row->flag = im->flags[i];
        rep->n_skipped++;
        return;
    }
    grade_answer(im, i, ps, gq);
    if (b && row->graded && row->valid)
        b->valid++;
}

static void grade_answer(struct import *im, size_t i, struct pack_slot *ps,
                         const struct grader_question *gq)
{
    const struct db_sub_attempt *a = &im->sub->attempts[i];
    struct db_class_attempt_in *row = &im->rows[i];
    struct lesson_class_report *rep = im->rep;
    if (gq->kind == GRADER_CODE) {
        grade_code(im, i, gq);
        return;
    }
    if (ps->has_releases && lesson_graded(ps->gp, a->question_id)) {
        /* The instructor hands this pack out as releases: graded work is
         * graded under the release the attempt names; under any other
         * digest it was not answered under one of them. */
        const struct rel_slot *rs = release_of(im, a->pack_id, a->pack_digest);
        if (rs) {
            im->released_at[i] = rs->rel.made_at;
            grade_sealed(im, i, ps, rs, gq);
            return;
        }
        add_check(rep, &im->cap_flags, LESSON_FLAG_RELEASE, a->pack_id, NULL, a->question_id, a->id,
                  core_xasprintf("answered under pack %s %s (digest %s), which is none of the "
                                 "releases you made of it: not graded",
                                 a->pack_id, a->pack_version ? a->pack_version : "?",
                                 short_digest(a->pack_digest)));
        rep->n_skipped++;
        return;
    }
    /* A practice question of a release is the source's, word for word. */
    const char *digest = ps->release ? ps->rel.digest : ps->mine.digest;
    bool same_pack = a->pack_digest && strcmp(a->pack_digest, digest) == 0;
    bool same_grader = a->grader_rev && strcmp(a->grader_rev, grader_revision()) == 0;
    bool verify = same_pack && same_grader;
    struct grader_ctx ctx = {.user = im->sub->user, .variant = a->variant};
    if (gq->lab && a->lab_run)
        ctx.lab = run_ctx(im->runs, im->sub->n_runs, a->lab_run);
    /* Same pack and grader: draw the numbers again, which must be the
     * stored ones; else grade against the stored ones (what was shown). */
    ctx.params_json = verify ? NULL : a->params_json;
    /* An answer whose grade cannot depend on the student is graded once
     * per run of imports (lesson_grade_cache). */
    bool cacheable = !gq->has_params && !gq->lab && gq->kind != GRADER_ORDERING;
    const struct grader_result *r = NULL;
    struct core_err e = {0};
    if (lesson_grade_cached(cacheable ? im->cache : NULL, ps->gp, ps->rev, a->question_id, &ctx,
                            a->answer, &r, &im->results[i], &e) != CORE_OK) {
        struct lesson_class_flag *f = add_flag(rep, &im->cap_flags, LESSON_FLAG_FAILED, a);
        f->reason = core_xasprintf("the grader failed: %s", e.msg);
        im->flags[i] = core_xstrdup(f->reason);
        row->flag = im->flags[i];
        rep->n_failed++;
        return;
    }
    if (gq->lab && ctx.lab)
        rep->n_lab_regraded++;
    row->graded = true;
    row->valid = r->valid;
    row->score = r->score;
    row->max = r->max;
    row->correct = r->correct;
    row->parsed = r->parsed;
    row->feedback = r->feedback;
    row->mistake = r->mistake;
    row->params_json = r->params_json;
    /* The feedback of a right answer tells nothing later (item analysis
     * reads the wrong ones'); a design answer's is shown in review. */
    if (r->correct && gq->kind != GRADER_DESIGN)
        row->feedback = NULL;
    if (gq->kind == GRADER_DESIGN) {
        core_sha256_hex(a->answer, strlen(a->answer), im->shas[i]);
        row->answer_sha = im->shas[i];
    }
    bool numbers_changed =
        verify && a->params_json && r->params_json && strcmp(a->params_json, r->params_json) != 0;
    bool same_grade = r->valid == a->valid &&
                      (!r->valid || fabs(r->score - a->score) <= 1e-9 * (1 + fabs(a->score)));
    row->agree = same_grade && !numbers_changed;
    if (row->agree) {
        rep->n_agree++;
        return;
    }
    rep->n_disagree++;
    char was[80], now[80];
    grade_text(a->valid, a->score, a->max, was, sizeof was);
    grade_text(r->valid, r->score, r->max, now, sizeof now);
    enum lesson_flag_kind kind = numbers_changed ? LESSON_FLAG_PARAMS
                                 : verify        ? LESSON_FLAG_TAMPERED
                                                 : LESSON_FLAG_SKEW;
    struct lesson_class_flag *f = add_flag(rep, &im->cap_flags, kind, a);
    f->new_valid = r->valid;
    f->new_score = r->score;
    f->max = r->max;
    if (kind == LESSON_FLAG_PARAMS)
        f->reason = core_xasprintf("its stored numbers %.*s%s are not the ones pack %s %s draws "
                                   "for %s at variant %d (%s); graded against those: %s -> %s",
                                   shown_len(a->params_json), a->params_json,
                                   shown_more(a->params_json), ps->mine.id, ps->mine.version,
                                   im->sub->user, a->variant, r->params_json, was, now);
    else if (kind == LESSON_FLAG_TAMPERED)
        f->reason = core_xasprintf("the student's store records %s, but the same pack (%s %s) and "
                                   "grader give %s: the record was changed",
                                   was, ps->mine.id, ps->mine.version, now);
    else
        f->reason = core_xasprintf("recorded %s under pack version %s (%s, grader %s); re-graded "
                                   "%s with version %s (%s, grader %s)",
                                   was, a->pack_version, short_digest(a->pack_digest),
                                   a->grader_rev ? a->grader_rev : "unknown", now, ps->mine.version,
                                   short_digest(ps->mine.digest), grader_revision());
    im->flags[i] = core_xstrdup(f->reason);
    row->flag = im->flags[i];
}

/* A finding of the integrity checks, into the report. */
static void finding(void *ctx, enum lesson_flag_kind kind, const char *pack_id,
                    const char *lesson_id, const char *question_id, int64_t attempt, char *reason)
{
    struct import *im = ctx;
    add_check(im->rep, &im->cap_flags, kind, pack_id, lesson_id, question_id, attempt, reason);
}

/* Grades and stores a read submission (handed over: finied here). */
static int import_sub(struct lesson_session *s, struct db *cs, const char *path, const char *digest,
                      struct db_submission *subp, const struct lesson_class_opts *opts,
                      struct lesson_class_report *out, struct core_err *err)
{
    struct db_submission sub = *subp;
    memset(subp, 0, sizeof *subp);
    struct import im = {.s = s,
                        .cache = opts->cache,
                        .opts = opts,
                        .now = opts->now > 0 ? opts->now : core_time_wall(),
                        .sub = &sub,
                        .rep = out};
    struct db_class_run_in *runs_in = NULL;
    char **problems = NULL;
    int rc = CORE_OK;
    out->uid = core_xstrdup(sub.uid);
    out->user = core_xstrdup(sub.user);
    out->student_id = sub.student_id ? core_xstrdup(sub.student_id) : NULL;
    out->key = core_xstrdup(sub.student_id ? sub.student_id : sub.user);
    out->n_attempts = sub.n_attempts;
    out->n_runs = sub.n_runs;
    int seen = 0;
    rc = db_class_submission_seen(cs, sub.uid, digest, &seen, err);
    if (rc != CORE_OK)
        goto out;
    if (seen < 0) {
        rc = core_err_set(err, CORE_ERR_CONFLICT,
                          "%s: submission %s was imported before with other content; a "
                          "submission file is never changed once written",
                          path, sub.uid);
        goto out;
    }
    if (seen > 0 && !opts->force) {
        out->result = DB_CLASS_UNCHANGED;
        goto out;
    }

    /* The deadline: this import's, else the one the class keeps from an
     * earlier import, else each pack's own. */
    char *kept_deadline = NULL;
    if (!opts->deadline) {
        rc = db_class_setting(cs, "deadline", &kept_deadline, err);
        if (rc != CORE_OK)
            goto out;
    }
    /* The instructor's edition of each submitted pack. */
    im.packs = core_xcalloc(sub.n_packs ? sub.n_packs : 1, sizeof *im.packs);
    for (size_t i = 0; i < sub.n_packs; i++) {
        struct pack_slot *ps = &im.packs[i];
        ps->sub = &sub.packs[i];
        struct core_err e = {0};
        if (db_pack_get(s->db, ps->sub->id, &ps->mine, &e) != CORE_OK) {
            ps->why = core_xasprintf("pack %s is not in your store (warpbench pack import DIR)",
                                     ps->sub->id);
            continue;
        }
        ps->rev = ps->mine.rev_id;
        /* A release of the instructor's: its sealed answers are graded with the
         * current source (a grader fix applies to every release), for the
         * numbers drawn with the release's salt; the source it was made from
         * says what its ordering items were. */
        struct db_release any = {0};
        ps->has_releases = db_release_latest(s->db, ps->sub->id, &any, &e) == CORE_OK;
        db_release_fini(&any);
        if (db_release_get(s->db, ps->sub->digest, &ps->rel, &e) == CORE_OK &&
            strcmp(ps->rel.pack_id, ps->sub->id) == 0)
            ps->release = true;
        if (lesson_session_pack(s, ps->rev, &ps->gp, &e) != CORE_OK) {
            ps->gp = NULL;
            ps->why = core_xasprintf("your pack %s does not load: %s", ps->sub->id, e.msg);
            continue;
        }
        const char *dl = opts->deadline  ? opts->deadline
                         : kept_deadline ? kept_deadline
                                         : grader_pack_info(ps->gp)->deadline;
        ps->deadline = dl ? core_xstrdup(dl) : NULL;
    }
    free(kept_deadline);
    im.runs = core_xcalloc(sub.n_runs ? sub.n_runs : 1, sizeof *im.runs);
    for (size_t i = 0; i < sub.n_runs; i++)
        im.runs[i].sub = &sub.runs[i];
    size_t na = sub.n_attempts ? sub.n_attempts : 1;
    im.rows = core_xcalloc(na, sizeof *im.rows);
    im.results = core_xcalloc(na, sizeof *im.results);
    im.flags = core_xcalloc(na, sizeof *im.flags);
    im.shas = core_xcalloc(na, sizeof *im.shas);
    im.released_at = core_xcalloc(na, sizeof *im.released_at);
    import_budget(&im);
    for (size_t i = 0; i < sub.n_attempts; i++)
        grade_one(&im, i);

    /* Lab runs: do their figures hold together? */
    runs_in = core_xcalloc(sub.n_runs ? sub.n_runs : 1, sizeof *runs_in);
    problems = core_xcalloc(sub.n_runs ? sub.n_runs : 1, sizeof *problems);
    for (size_t i = 0; i < sub.n_runs; i++) {
        runs_in[i].sub = &sub.runs[i];
        if (!opts->run_check)
            continue;
        struct core_strlist l;
        core_strlist_init(&l);
        opts->run_check(&sub.runs[i], &l);
        if (l.n) {
            struct core_buf b;
            core_buf_init(&b);
            for (size_t k = 0; k < l.n; k++)
                core_buf_printf(&b, "%s%s", k ? "; " : "", l.items[k]);
            problems[i] = core_buf_steal(&b);
            runs_in[i].problems = problems[i];
            out->runflags =
                core_xrealloc(out->runflags, (out->n_runflags + 1) * sizeof *out->runflags);
            out->runflags[out->n_runflags++] =
                (struct lesson_class_runflag){.run = sub.runs[i].id,
                                              .lab = core_xstrdup(sub.runs[i].lab),
                                              .problems = core_xstrdup(problems[i])};
        }
        core_strlist_fini(&l);
    }
    out->n_runs_flagged = out->n_runflags;

    /* The integrity checks of graded work, and the student's identity. */
    struct lesson_checks_pack *cp = core_xcalloc(sub.n_packs ? sub.n_packs : 1, sizeof *cp);
    for (size_t i = 0; i < sub.n_packs; i++)
        cp[i] = (struct lesson_checks_pack){sub.packs[i].id,
                                            im.packs[i].has_releases ? im.packs[i].gp : NULL};
    lesson_class_checks(&sub, cp, sub.n_packs, im.released_at, (const char *const *)problems,
                        im.now, finding, &im);
    free(cp);
    int others = 0;
    rc = db_class_other_stores(cs, out->key, sub.store_uid, sub.uid, &others, err);
    if (rc != CORE_OK)
        goto out;
    if (others > 0)
        add_check(out, &im.cap_flags, LESSON_FLAG_IDENTITY, NULL, NULL, NULL, 0,
                  core_xasprintf("%d other submission%s of %s came from another store (%s here): "
                                 "two people, or one person with two stores, claim this student",
                                 others, others == 1 ? "" : "s", out->key,
                                 sub.store_uid ? sub.store_uid : "?"));
    rc = check_twins(cs, out, &im.cap_flags, &sub, err);
    if (rc != CORE_OK)
        goto out;
    /* Every finding, stored as a flag with a key that names it across imports. */
    struct db_class_flag_in *fl = core_xcalloc(out->n_flags ? out->n_flags : 1, sizeof *fl);
    char **keys = core_xcalloc(out->n_flags ? out->n_flags : 1, sizeof *keys);
    for (size_t i = 0; i < out->n_flags; i++) {
        const struct lesson_class_flag *f = &out->flags[i];
        keys[i] = core_xasprintf("%s|%s|%s|%s|%lld", lesson_flag_name(f->kind),
                                 f->pack_id ? f->pack_id : "", f->lesson_id ? f->lesson_id : "",
                                 f->question_id ? f->question_id : "", (long long)f->attempt);
        fl[i] = (struct db_class_flag_in){.key = keys[i],
                                          .kind = lesson_flag_name(f->kind),
                                          .pack_id = f->pack_id,
                                          .lesson_id = f->lesson_id,
                                          .question_id = f->question_id,
                                          .src_attempt = f->attempt,
                                          .blocking = lesson_flag_blocking(f->kind),
                                          .reason = f->reason ? f->reason : ""};
        out->n_blocking += fl[i].blocking;
    }

    const char **versions = core_xcalloc(sub.n_packs ? sub.n_packs : 1, sizeof *versions);
    for (size_t i = 0; i < sub.n_packs; i++)
        versions[i] = im.packs[i].gp ? im.packs[i].mine.version : NULL;
    struct db_class_import_in in = {.file = path,
                                    .digest = digest,
                                    .sub = &sub,
                                    .key = out->key,
                                    .attempts = im.rows,
                                    .runs = runs_in,
                                    .graded_versions = versions,
                                    .grader_rev = grader_revision(),
                                    .n_agree = (int)out->n_agree,
                                    .n_disagree = (int)out->n_disagree,
                                    .n_lab_regraded = (int)out->n_lab_regraded,
                                    .n_runs_flagged = (int)out->n_runs_flagged,
                                    .n_failed = (int)out->n_failed,
                                    .n_skipped = (int)out->n_skipped,
                                    .flags = fl,
                                    .n_flags = out->n_flags,
                                    .before_commit = opts->before_commit,
                                    .hook_ctx = opts->hook_ctx};
    rc = db_class_import(cs, &in, opts->force, &out->result, &out->superseded, err);
    free(versions);
    for (size_t i = 0; i < out->n_flags; i++)
        free(keys[i]);
    free(keys);
    free(fl);
out:
    for (size_t i = 0; im.results && i < sub.n_attempts; i++) {
        grader_result_fini(&im.results[i]);
        free(im.flags[i]);
    }
    free(im.results);
    free(im.flags);
    free(im.shas);
    free(im.released_at);
    free(im.budget);
    free(im.bq);
    for (size_t i = 0; i < im.n_rels; i++) {
        free(im.rels[i].digest);
        if (im.rels[i].found)
            db_release_fini(&im.rels[i].rel);
    }
    free(im.rels);
    free(im.rows);
    for (size_t i = 0; im.packs && i < sub.n_packs; i++) {
        if (im.packs[i].mine.id)
            db_pack_fini(&im.packs[i].mine);
        db_release_fini(&im.packs[i].rel);
        free(im.packs[i].why);
        free(im.packs[i].deadline);
    }
    free(im.packs);
    if (im.runs)
        runs_fini(im.runs, sub.n_runs);
    for (size_t i = 0; problems && i < sub.n_runs; i++)
        free(problems[i]);
    free(problems);
    free(runs_in);
    db_submission_fini(&sub);
    return rc;
}

int lesson_class_import(struct lesson_session *s, struct db *cs, const char *path,
                        const struct lesson_class_opts *opts, struct lesson_class_report *out,
                        struct core_err *err)
{
    static const struct lesson_class_opts none = {0};
    if (!opts)
        opts = &none;
    memset(out, 0, sizeof *out);
    out->file = core_xstrdup(path);
    struct db_submission sub;
    int rc = db_submission_read(path, &sub, err);
    if (rc != CORE_OK)
        return rc;
    char digest[65];
    char *bytes = NULL;
    size_t len = 0;
    rc = core_file_read(path, MAX_SUBMISSION_BYTES, &bytes, &len, err);
    if (rc == CORE_OK) {
        core_sha256_hex(bytes, len, digest);
        free(bytes);
        rc = import_sub(s, cs, path, digest, &sub, opts, out, err);
    }
    db_submission_fini(&sub);
    return rc;
}

int lesson_class_import_stored(struct lesson_session *s, struct db *cs, struct db_class_stored *st,
                               const struct lesson_class_opts *opts,
                               struct lesson_class_report *out, struct core_err *err)
{
    struct lesson_class_opts o = opts ? *opts : (struct lesson_class_opts){0};
    o.force = true; /* its rows are replaced */
    memset(out, 0, sizeof *out);
    out->file = core_xstrdup(st->file ? st->file : "");
    return import_sub(s, cs, st->file ? st->file : "", st->digest, &st->sub, &o, out, err);
}
