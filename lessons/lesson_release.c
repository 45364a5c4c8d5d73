/*
 * lesson_release.c — graded work in a class: the student edition of a pack
 * (`pack release`), and the proof that it carries nothing that grades
 * (`pack check --release`).
 *
 * A release is made from a source pack the instructor holds: the source
 * is checked and imported into the instructor's store (the class import
 * grades with it), the release is written into a new folder
 * (grader_pack_release does the rewriting), and the instructor's store
 * records it: its digest, which is what a student's answers name, the
 * source revision, the class salt and how each sealed ordering question's
 * items were reordered. The class salt stays the same from one release of
 * a pack to the next, so a corrected release keeps every student's numbers.
 *
 * The check runs the source's references and rubric against the release:
 * its files, the views of sealed questions for sample students, and every
 * row of a store it is imported into. See lesson_release_check.
 */
#include "lessons/lesson.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void lesson_sealed_user(const char *salt, const char *student_id, char *buf, size_t n)
{
    snprintf(buf, n, "class:%s:%s", salt ? salt : "", student_id ? student_id : "");
}

void lesson_release_report_fini(struct lesson_release_report *r)
{
    if (!r)
        return;
    free(r->pack_id);
    free(r->version);
    free(r->digest);
    free(r->salt);
    core_strlist_fini(&r->notes);
    memset(r, 0, sizeof *r);
}

static bool salt_ok(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n < 16 || n > 64)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return false;
    return true;
}

/* The permutations of sealed ordering questions as JSON: {"q": [2, 0, 1]}. */
static char *perms_json(const struct grader_release *r)
{
    struct core_buf b;
    core_buf_init(&b);
    struct core_json j;
    core_json_init(&j, &b);
    core_json_obj_begin(&j);
    for (size_t i = 0; i < r->n_perms; i++) {
        core_json_key(&j, r->perms[i].qid);
        core_json_arr_begin(&j);
        for (size_t k = 0; k < r->perms[i].n; k++)
            core_json_int(&j, r->perms[i].perm[k]);
        core_json_arr_end(&j);
    }
    core_json_obj_end(&j);
    return core_buf_steal(&b);
}

/* Writes the release's files into dir, a new folder. */
static int write_release(const char *dir, const struct db_file_in *files, size_t n,
                         struct core_err *err)
{
    if (!dir || !*dir)
        return core_err_set(err, CORE_ERR_USAGE, "release needs a folder to write into");
    char *parent = core_xstrdup(dir);
    char *slash = strrchr(parent, '/');
    int rc = CORE_OK;
    if (slash && slash != parent) {
        *slash = '\0';
        rc = core_mkdir_p(parent, err);
    }
    free(parent);
    if (rc != CORE_OK)
        return rc;
    if (mkdir(dir, 0777) != 0)
        return core_err_set(err, errno == EEXIST ? CORE_ERR_CONFLICT : CORE_ERR_IO,
                            "%s: %s (a release is written into a new folder)", dir,
                            errno == EEXIST ? "already exists" : strerror(errno));
    return lesson_files_write(dir, files, n, false, err);
}

int lesson_pack_release(struct db *db, const struct lesson_src *src, const char *dir,
                        const struct lesson_release_opts *o, struct lesson_check *check,
                        struct lesson_release_report *out, struct core_err *err)
{
    static const struct lesson_release_opts none = {0};
    if (!o)
        o = &none;
    memset(out, 0, sizeof *out);
    core_strlist_init(&out->notes);
    struct lesson_check local;
    struct lesson_check *c = check ? check : &local;
    struct grader_pack *p = NULL;
    struct grader_release rel = {0};
    struct lesson_src assets = {0};
    struct db_file_in *files = NULL;
    struct db_release prev = {0};
    char *perms = NULL;
    if (o->salt && !salt_ok(o->salt))
        return core_err_set(err, CORE_ERR_USAGE, "a salt is 16 to 64 lower-case hex digits");
    int rc = lesson_pack_check_with(src, GRADER_SWEEP_VARIANTS, c, &p, err);
    if (rc != CORE_OK)
        goto out;
    const struct grader_pack_info *info = grader_pack_info(p);
    if (info->is_release) {
        rc = core_err_set(err, CORE_ERR_USAGE,
                          "%s is a release already: make a release from the source pack",
                          src->dir ? src->dir : info->id);
        goto out;
    }
    /* The source, held by the instructor's store: the class import grades
     * with it. */
    rc = lesson_pack_import_with(db, src, false, LESSON_NO_SWEEP, NULL, &out->source, err);
    if (rc != CORE_OK) {
        core_err_prefix(err, "importing the source pack into your store");
        goto out;
    }
    struct db_pack mine = {0};
    rc = db_pack_get(db, info->id, &mine, err);
    if (rc != CORE_OK)
        goto out;
    int64_t rev_id = mine.rev_id;
    char source_digest[65];
    snprintf(source_digest, sizeof source_digest, "%s", mine.digest);
    db_pack_fini(&mine);

    char salt[65];
    struct core_err e = {0};
    if (o->salt) {
        snprintf(salt, sizeof salt, "%s", o->salt);
    } else if (!o->new_salt && db_release_latest(db, info->id, &prev, &e) == CORE_OK) {
        snprintf(salt, sizeof salt, "%s", prev.salt);
        out->salt_reused = true;
    } else {
        char r[33];
        core_random_hex(r);
        snprintf(salt, sizeof salt, "%s", r);
    }
    char made[32], seed_hex[33];
    core_time_iso(core_time_wall(), made);
    core_random_hex(seed_hex);
    struct grader_release_opts ro = {.salt = salt,
                                     .source = source_digest,
                                     .made = made,
                                     .seed = core_fnv1a(CORE_FNV_OFFSET, seed_hex, 32)};
    rc = grader_pack_release(p, &ro, &rel, err);
    if (rc != CORE_OK)
        goto out;
    for (size_t i = 0; i < rel.notes.n; i++)
        core_strlist_push(&out->notes, rel.notes.items[i]);

    /* The release's files: the rewritten Lua, and the assets as they are. */
    lesson_src_assets(src, info->assets, info->n_assets, &c->problems, &assets);
    files = core_xcalloc(rel.n_files + assets.n + 1, sizeof *files);
    size_t nf = 0;
    for (size_t i = 0; i < rel.n_files; i++)
        files[nf++] = (struct db_file_in){rel.files[i].path, rel.files[i].data, rel.files[i].len};
    for (size_t i = 0; i < assets.n; i++)
        files[nf++] =
            (struct db_file_in){assets.files[i].path, assets.files[i].data, assets.files[i].len};
    /* It must load as the pack a student imports. */
    struct lesson_src as_src = {0};
    as_src.files = core_xcalloc(nf + 1, sizeof *as_src.files);
    as_src.n = nf;
    for (size_t i = 0; i < nf; i++)
        as_src.files[i] = (struct grader_file){files[i].path, files[i].data, files[i].len};
    struct lesson_check rcheck;
    rc = lesson_pack_check_with(&as_src, 20, &rcheck, NULL, err);
    if (rc != CORE_OK) {
        for (size_t i = 0; i < rcheck.problems.n; i++)
            core_strlist_pushf(&c->problems, "release: %s", rcheck.problems.items[i]);
        core_err_prefix(err, "the release does not load (a helper that params needs may have "
                             "been left out)");
    }
    lesson_check_fini(&rcheck);
    free(as_src.files);
    if (rc != CORE_OK)
        goto out;
    char digest[65];
    db_pack_digest(files, nf, digest);
    rc = write_release(dir, files, nf, err);
    if (rc != CORE_OK)
        goto out;
    perms = perms_json(&rel);
    struct db_release_in ri = {.digest = digest,
                               .pack_id = info->id,
                               .rev_id = rev_id,
                               .version = info->version,
                               .salt = salt,
                               .perms_json = perms};
    rc = db_release_add(db, &ri, err);
    if (rc != CORE_OK) {
        core_err_prefix(err, "the release is written to %s but not recorded in your store", dir);
        goto out;
    }
    out->pack_id = core_xstrdup(info->id);
    out->version = core_xstrdup(info->version);
    out->digest = core_xstrdup(digest);
    out->salt = core_xstrdup(salt);
    out->sealed_lessons = rel.sealed_lessons;
    out->sealed_questions = rel.sealed_questions;
    out->dropped_calcs = rel.dropped_calcs;
    out->dropped_hints = rel.dropped_hints;
    out->dropped_defs = rel.dropped_defs;
    out->n_files = nf;
out:
    free(perms);
    db_release_fini(&prev);
    free(files);
    lesson_src_fini(&assets);
    grader_release_fini(&rel);
    grader_pack_free(p);
    if (!check)
        lesson_check_fini(&local);
    if (rc != CORE_OK)
        lesson_release_report_fini(out);
    return rc;
}

/* ---- the check ------------------------------------------------------------------------ */

void lesson_release_check_fini(struct lesson_release_check *c)
{
    if (!c)
        return;
    core_strlist_fini(&c->problems);
    free(c->pack_id);
    free(c->source_digest);
    memset(c, 0, sizeof *c);
}

/* Sample students the check draws every sealed question for. */
#define PROBE_STUDENTS 12

/* A secret of a sealed question. Where it is searched depends on how
 * much it says: a number with 3 significant figures or more, or a text of
 * six words or more, everywhere (files, views, a store's rows); a shorter
 * text (an accepted answer, a rubric phrase, a feedback line) only in what
 * the question itself gives a student beyond its prompt: its hints and
 * every value its params compute, since short words also stand in honest
 * teaching text. */
struct secret {
    char *text;    /* lower-cased, spaces folded */
    bool token;    /* a number: it must stand alone (not inside a longer number) */
    bool anywhere; /* searched everywhere, not only in the question's own hints and params */
    const char *qid;
    const char *what; /* "reference", "model answer", "rubric phrase", ... */
};

struct secrets {
    struct secret *v;
    size_t n, cap;
};

static void secrets_fini(struct secrets *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i].text);
    free(s->v);
    memset(s, 0, sizeof *s);
}

/* Lower case, white space folded: how texts are compared. */
static char *fold(const char *s, size_t n)
{
    char *o = core_xmalloc(n + 1);
    size_t k = 0;
    bool space = false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (isspace(c)) {
            space = k > 0;
            continue;
        }
        if (space)
            o[k++] = ' ';
        space = false;
        o[k++] = (char)tolower(c);
    }
    o[k] = '\0';
    return o;
}

static size_t words(const char *s)
{
    size_t n = 0;
    for (bool in = false; *s; s++) {
        bool w = isalnum((unsigned char)*s);
        n += w && !in;
        in = w;
    }
    return n;
}

static void secret_add(struct secrets *s, const char *text, bool token, bool anywhere,
                       const char *qid, const char *what)
{
    char *t = fold(text, strlen(text));
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->v[i].text, t) == 0 && strcmp(s->v[i].qid, qid) == 0) {
            s->v[i].anywhere |= anywhere;
            free(t);
            return;
        }
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        s->v = core_xrealloc(s->v, s->cap * sizeof *s->v);
    }
    s->v[s->n++] = (struct secret){t, token, anywhere, qid, what};
}

/* A number as it might be written: with 3 to 6 significant figures (a 4 or
 * a 0.5 stands in any text, so fewer are not searched as text). */
static void number_secrets(struct secrets *s, double v, const char *qid)
{
    if (!isfinite(v) || v == 0)
        return;
    for (int sig = 3; sig <= 6; sig++) {
        char num[64];
        snprintf(num, sizeof num, "%.*g", sig, v);
        if (strchr(num, 'e'))
            continue;
        size_t digits = 0;
        bool lead = true;
        for (const char *c = num; *c; c++) {
            if (*c >= '1' && *c <= '9')
                lead = false;
            if (*c >= '0' && *c <= '9' && !lead)
                digits++;
        }
        while (strchr(num, '.') && num[strlen(num) - 1] == '0')
            num[strlen(num) - 1] = '\0';
        if (num[strlen(num) - 1] == '.')
            num[strlen(num) - 1] = '\0';
        if (digits >= 3)
            secret_add(s, num, true, true, qid, "reference");
    }
}

/* Does hay hold needle (both folded)? A token must not touch a digit or a
 * point on either side. */
static bool holds(const char *hay, const char *needle, bool token)
{
    size_t n = strlen(needle);
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) {
        if (!token)
            return true;
        char before = p > hay ? p[-1] : ' ', after = p[n];
        bool bad = isdigit((unsigned char)before) || before == '.' ||
                   isdigit((unsigned char)after) ||
                   (after == '.' && isdigit((unsigned char)p[n + 1]));
        if (!bad)
            return true;
    }
    return false;
}

struct haystack {
    char *where;     /* a file path, "a student's store (table X)", "the view of ..." */
    char *text;      /* folded */
    const char *qid; /* what only this question gives (its hints, its params): NULL for all */
};

struct haystacks {
    struct haystack *v;
    size_t n, cap;
};

static void hay_add(struct haystacks *h, const char *where, const char *text, size_t len,
                    const char *qid)
{
    if (h->n == h->cap) {
        h->cap = h->cap ? 2 * h->cap : 32;
        h->v = core_xrealloc(h->v, h->cap * sizeof *h->v);
    }
    h->v[h->n++] = (struct haystack){core_xstrdup(where), fold(text, len), qid};
}

static void hay_fini(struct haystacks *h)
{
    for (size_t i = 0; i < h->n; i++) {
        free(h->v[i].where);
        free(h->v[i].text);
    }
    free(h->v);
    memset(h, 0, sizeof *h);
}

static void search(struct lesson_release_check *out, const struct secrets *s,
                   const struct haystacks *h)
{
    for (size_t i = 0; i < s->n; i++) {
        const struct secret *x = &s->v[i];
        for (size_t k = 0; k < h->n; k++) {
            const struct haystack *y = &h->v[k];
            bool own = y->qid && strcmp(y->qid, x->qid) == 0;
            if (!(x->anywhere && !y->qid) && !own)
                continue;
            if (holds(y->text, x->text, x->token)) {
                core_strlist_pushf(&out->problems,
                                   "%s: the %s of sealed question %s ('%.60s') appears in it",
                                   y->where, x->what, x->qid, x->text);
                break;
            }
        }
    }
}

/* The secrets of one sealed question: its accepted texts, model and sample
 * answers, rubric phrases the prompt does not use, feedback; and, for each
 * sample student, the source's reference (refs[k], NaN when none). */
static void question_secrets(struct grader_pack *src, const struct grader_question *q,
                             const char *salt, struct secrets *s, double *refs,
                             struct lesson_release_check *out)
{
    char *prompt = fold(q->prompt, strlen(q->prompt));
    for (int k = 0; k < PROBE_STUDENTS; k++) {
        refs[k] = NAN;
        char sid[32], user[160];
        snprintf(sid, sizeof sid, "probe-%d", k + 1);
        lesson_sealed_user(salt, sid, user, sizeof user);
        struct grader_ctx ctx = {.user = user, .variant = 1};
        struct grader_reference ref;
        struct core_err e = {0};
        if (grader_question_reference(src, q->id, &ctx, &ref, &e) != CORE_OK) {
            if (k == 0)
                core_strlist_pushf(&out->problems, "source %s:%d: question %s: %s", q->file,
                                   q->line, q->id, e.msg);
            break;
        }
        if (ref.has_value) {
            refs[k] = ref.value;
            number_secrets(s, ref.value, q->id);
            out->searched_values++;
        }
        if (k == 0) {
            for (size_t i = 0; i < ref.texts.n; i++) {
                const char *t = ref.texts.items[i];
                if (strlen(t) >= 4)
                    secret_add(s, t, false, words(t) >= 6, q->id,
                               q->kind == GRADER_DESIGN ? "model or sample answer"
                                                        : "accepted answer");
            }
            for (size_t i = 0; i < ref.phrases.n; i++) {
                char *ph = fold(ref.phrases.items[i], strlen(ref.phrases.items[i]));
                /* a rubric phrase the prompt itself uses tells nothing */
                if (strlen(ph) >= 4 && !strchr(ph, '*') && !strstr(prompt, ph))
                    secret_add(s, ph, false, false, q->id, "rubric phrase");
                free(ph);
            }
            for (size_t i = 0; i < ref.feedback.n; i++)
                if (words(ref.feedback.items[i]) >= 4)
                    secret_add(s, ref.feedback.items[i], false, words(ref.feedback.items[i]) >= 6,
                               q->id, "feedback");
        }
        grader_reference_fini(&ref);
    }
    free(prompt);
}

/* params values a question computes but does not show that equal its
 * reference: the student's own Lua would hand them the answer. */
static bool hidden_reference(const struct grader_view *v, double ref,
                             const struct grader_question *q, const char *sid,
                             struct lesson_release_check *out)
{
    bool hit = false;
    struct core_kv *all = NULL, *shown = NULL;
    size_t na = 0, ns = 0;
    if (!isfinite(ref) || !v->params_all ||
        core_json_parse_flat(v->params_all, &all, &na, NULL) != CORE_OK)
        return false;
    if (v->params_json)
        core_json_parse_flat(v->params_json, &shown, &ns, NULL);
    for (size_t i = 0; i < na; i++) {
        if (!all[i].is_num || core_kv_find(shown, ns, all[i].key))
            continue;
        if (fabs(all[i].num - ref) <= 1e-9 * fmax(1, fabs(ref))) {
            core_strlist_pushf(&out->problems,
                               "%s:%d: question %s: its params compute the reference (%.6g for "
                               "student %s) as '%s', which the prompt does not show: a student "
                               "running the release's Lua reads the answer there",
                               q->file, q->line, q->id, ref, sid, all[i].key);
            hit = true;
            break;
        }
    }
    core_kv_free(all, na);
    core_kv_free(shown, ns);
    return hit;
}

struct store_scan {
    struct haystacks *h;
};

static void scan_row(const char *table, const char *text, size_t len, void *ctx)
{
    struct store_scan *sc = ctx;
    char where[96];
    snprintf(where, sizeof where, "a student's store (table %s)", table);
    hay_add(sc->h, where, text, len, NULL);
}

/* Imports the release into a new store in a temporary folder, records an
 * answer to every sealed question for a sample student, and adds every
 * text of that store to the haystacks. */
static int store_rows(const struct lesson_src *release, const struct grader_pack_info *info,
                      struct haystacks *h, struct lesson_release_check *out, struct core_err *err)
{
    const char *tmpdir = getenv("TMPDIR");
    char *tmpl = core_xasprintf("%s/warpbench-release-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
    if (!mkdtemp(tmpl)) {
        int rc =
            core_err_set(err, CORE_ERR_IO, "cannot make a temporary folder: %s", strerror(errno));
        free(tmpl);
        return rc;
    }
    char *path = core_path_join(tmpl, "student.db");
    struct db *db = NULL;
    struct lesson_session *s = NULL;
    int rc = db_open(&db, path, err);
    enum db_import_result res;
    if (rc == CORE_OK)
        rc = lesson_pack_import_with(db, release, false, LESSON_NO_SWEEP, NULL, &res, err);
    if (rc == CORE_OK)
        rc = lesson_session_new(&s, db, "probe", err);
    if (rc == CORE_OK)
        rc = db_user_set_student_id(db, lesson_session_user_id(s), "probe-1", err);
    for (size_t li = 0; rc == CORE_OK && li < info->n_lessons; li++) {
        const struct grader_lesson *l = &info->lessons[li];
        if (l->sealed && l->exam && l->time_limit_s > 0) {
            struct lesson_exam x;
            char ref[200];
            snprintf(ref, sizeof ref, "%s:%s", info->id, l->id);
            struct core_err e = {0};
            if (lesson_exam_start(s, ref, &x, &e) == CORE_OK)
                lesson_exam_fini(&x);
        }
        for (size_t qi = 0; l->sealed && qi < l->n_questions; qi++) {
            const struct grader_question *q = &l->questions[qi];
            if (q->lab)
                continue; /* needs a run: its views are searched */
            char qref[200], order[80] = "";
            snprintf(qref, sizeof qref, "%s:%s", info->id, q->id);
            const char *probe = q->kind == GRADER_NUMERIC                             ? "1"
                                : q->kind == GRADER_CHOICE || q->kind == GRADER_MULTI ? "a"
                                                                                      : "an answer";
            if (q->kind == GRADER_ORDERING) {
                for (size_t k = 0; k < q->n_choices && k < 26; k++)
                    snprintf(order + strlen(order), sizeof order - strlen(order), "%s%c",
                             k ? " " : "", (char)('a' + k));
                probe = order;
            }
            struct lesson_answer_result r;
            struct core_err e = {0};
            if (lesson_answer_certain(s, qref, 1, probe, info->cbm ? 1 : 0, &r, &e) != CORE_OK)
                core_strlist_pushf(&out->problems,
                                   "release %s:%d: question %s: recording an answer failed: %s",
                                   q->file, q->line, q->id, e.msg);
            lesson_answer_result_fini(&r);
        }
    }
    struct store_scan sc = {h};
    if (rc == CORE_OK)
        rc = db_text_each(db, scan_row, &sc, err);
    lesson_session_free(s);
    db_close(db);
    static const char *const suffixes[] = {"", "-wal", "-shm", "-journal", "-open"};
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        char *f = core_xasprintf("%s%s", path, suffixes[i]);
        unlink(f);
        free(f);
    }
    rmdir(tmpl);
    free(path);
    free(tmpl);
    return rc;
}

/* The source a release was made from, from the store by its digest. */
static int source_from_store(struct db *db, const char *pack_id, const char *digest,
                             struct lesson_src *out, struct core_err *err)
{
    memset(out, 0, sizeof *out);
    int64_t rev = 0;
    int rc = db_pack_rev_by_digest(db, pack_id, digest, &rev, NULL, err);
    if (rc == CORE_ERR_NOTFOUND)
        return core_err_set(err, CORE_ERR_NOTFOUND,
                            "your store does not hold the source this release was made from "
                            "(pack %s, digest %.12s): pass --source DIR",
                            pack_id, digest);
    struct db_file *files = NULL;
    size_t n = 0;
    if (rc == CORE_OK)
        rc = db_pack_files(db, rev, &files, &n, err);
    if (rc != CORE_OK)
        return rc;
    out->files = core_xcalloc(n + 1, sizeof *out->files);
    for (size_t i = 0; i < n; i++) {
        out->files[out->n++] = (struct grader_file){files[i].path, files[i].data, files[i].len};
        files[i].path = files[i].data = NULL; /* handed over */
    }
    db_files_free(files, n);
    return CORE_OK;
}

int lesson_release_check(struct db *db, const struct lesson_src *release,
                         const struct lesson_src *source, struct lesson_release_check *out,
                         struct core_err *err)
{
    memset(out, 0, sizeof *out);
    core_strlist_init(&out->problems);
    struct grader_limits lim;
    grader_limits_default(&lim);
    struct grader_pack *rel = NULL, *src = NULL;
    struct lesson_src from_store = {0};
    struct secrets sec = {0};
    struct haystacks hay = {0};
    /* A release must load, in release mode: a sealed question that carries
     * anything that grades is refused right there. */
    int rc = grader_pack_new(&rel, release->files, release->n, &lim, &out->problems, err);
    if (rc != CORE_OK)
        goto out;
    const struct grader_pack_info *ri = grader_pack_info(rel);
    out->pack_id = core_xstrdup(ri->id);
    if (!ri->is_release) {
        rc = core_err_set(err, CORE_ERR_INVALID,
                          "%s is not a release (pack.lua has no release = { ... }): make one "
                          "with warpbench pack release",
                          release->dir ? release->dir : ri->id);
        core_strlist_push(&out->problems, err ? err->msg : "not a release");
        goto out;
    }
    out->source_digest = core_xstrdup(ri->release_source);
    if (!source) {
        rc = source_from_store(db, ri->id, ri->release_source, &from_store, err);
        if (rc != CORE_OK)
            goto out;
        source = &from_store;
    }
    rc = grader_pack_new(&src, source->files, source->n, &lim, &out->problems, err);
    if (rc != CORE_OK) {
        core_err_prefix(err, "the source pack");
        goto out;
    }
    const struct grader_pack_info *si = grader_pack_info(src);
    for (size_t i = 0; i < release->n; i++)
        hay_add(&hay, release->files[i].path, release->files[i].data, release->files[i].len, NULL);
    /* Every graded or exam question of the source is sealed in the release;
     * its secrets are searched for. */
    for (size_t li = 0; li < si->n_lessons; li++) {
        const struct grader_lesson *l = &si->lessons[li];
        for (size_t qi = 0; (l->graded || l->exam) && qi < l->n_questions; qi++) {
            const struct grader_question *q = &l->questions[qi];
            const struct grader_question *rq = grader_pack_question(rel, q->id);
            if (!rq || !rq->sealed) {
                core_strlist_pushf(&out->problems,
                                   "%s:%d: question %s is graded in the source but %s in the "
                                   "release",
                                   q->file, q->line, q->id, rq ? "not sealed" : "missing");
                continue;
            }
            out->sealed_questions++;
            double refs[PROBE_STUDENTS];
            question_secrets(src, q, ri->release_salt, &sec, refs, out);
            /* What each sample student gets of it. */
            bool hidden_hit = false;
            for (int k = 0; k < PROBE_STUDENTS; k++) {
                char sid[32], user[160];
                snprintf(sid, sizeof sid, "probe-%d", k + 1);
                lesson_sealed_user(ri->release_salt, sid, user, sizeof user);
                struct grader_ctx ctx = {.user = user, .variant = 1};
                struct grader_view v;
                struct core_err e = {0};
                if (grader_question_view(rel, q->id, &ctx, &v, &e) != CORE_OK) {
                    core_strlist_pushf(&out->problems, "%s:%d: question %s: %s", rq->file, rq->line,
                                       q->id, e.msg);
                    break;
                }
                if (!hidden_hit)
                    hidden_hit = hidden_reference(&v, refs[k], rq, sid, out);
                char where[200];
                snprintf(where, sizeof where, "the view of %s for student %s", q->id, sid);
                struct core_buf pub, own;
                core_buf_init(&pub);
                core_buf_init(&own);
                core_buf_printf(&pub, "%s\n", v.prompt);
                for (size_t c = 0; c < v.n_choices; c++)
                    core_buf_printf(&pub, "%s\n", v.choices[c]);
                for (size_t h = 0; h < v.n_hints; h++)
                    core_buf_printf(&own, "%s\n", v.hints[h]);
                core_buf_printf(&own, "%s\n", v.params_all ? v.params_all : "");
                hay_add(&hay, where, pub.data ? pub.data : "", pub.len, NULL);
                hay_add(&hay, where, own.data ? own.data : "", own.len, q->id);
                core_buf_fini(&pub);
                core_buf_fini(&own);
                grader_view_fini(&v);
                out->students = PROBE_STUDENTS;
            }
        }
    }
    rc = store_rows(release, ri, &hay, out, err);
    if (rc != CORE_OK) {
        core_err_prefix(err, "importing the release into a store");
        goto out;
    }
    search(out, &sec, &hay);
    /* Calculators that compute a sealed answer from its numbers. */
    for (size_t li = 0; li < ri->n_lessons; li++) {
        const struct grader_lesson *l = &ri->lessons[li];
        for (size_t ci = 0; ci < l->n_calcs; ci++) {
            for (size_t lj = 0; lj < si->n_lessons; lj++) {
                const struct grader_lesson *sl = &si->lessons[lj];
                for (size_t qi = 0; (sl->graded || sl->exam) && qi < sl->n_questions; qi++) {
                    char *why = NULL;
                    if (grader_calc_reveals(rel, l->calcs[ci].id, src, sl->questions[qi].id, &why) >
                        0)
                        core_strlist_pushf(&out->problems, "%s:%d: %s", l->calcs[ci].file,
                                           l->calcs[ci].line, why);
                    free(why);
                }
            }
        }
    }
    if (out->problems.n)
        rc = core_err_set(err, CORE_ERR_INVALID, "%s", out->problems.items[0]);
out:
    hay_fini(&hay);
    secrets_fini(&sec);
    lesson_src_fini(&from_store);
    grader_pack_free(rel);
    grader_pack_free(src);
    return rc;
}
