/*
 * lab_mpi_rank.c — what a rank of the distributed labs needs around Open
 * MPI, whether or not this build links it: reading the MPI environment and
 * the host parameters (how many ranks a job has, the workers that gives),
 * dispatching a rank to its lab, rank 0's SIGTERM note, and rank 0's side
 * of the relay: its reports written as JSON lines for the front end that
 * started the job (lab_launch.c reads them back; its file comment has the
 * lines' format). The runner (labs/core/lab_run.c) calls this file; this
 * file calls no part of the runner.
 */
#include "labs/lab_author.h"
#include "labs/transport/lab_mpi.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the environment -------------------------------------------------------- */

static int env_int(const char *const *names)
{
    for (; *names; names++) {
        const char *v = getenv(*names);
        if (!v || !*v)
            continue;
        char *end = NULL;
        long n = strtol(v, &end, 10);
        if (end && *end == '\0' && n >= 0 && n < 1000000)
            return (int)n;
    }
    return -1;
}

int lab_mpi_env_rank(void)
{
    static const char *const names[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", NULL};
    return env_int(names);
}

int lab_mpi_env_size(void)
{
    static const char *const names[] = {"OMPI_COMM_WORLD_SIZE", NULL};
    return env_int(names);
}

const char *lab_mpi_param_text(const struct lab_params *p, const char *name)
{
    const struct lab_value *v = lab_param_value(p, name);
    return v && v->str ? v->str : "";
}

bool lab_mpi_params_use(const struct lab_params *p)
{
    return strcmp(lab_mpi_param_text(p, "transport"), "mpi") == 0 ||
           *lab_mpi_param_text(p, "hosts") || *lab_mpi_param_text(p, "hostfile");
}

/* Slots of "a:3,b:3,c" (a name without :N is one slot). */
static int hosts_slots(const char *s, int *slots, struct core_err *err)
{
    *slots = 0;
    const char *p = s;
    while (*p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *colon = memchr(p, ':', len);
        size_t name_len = colon ? (size_t)(colon - p) : len;
        bool ok = name_len > 0;
        for (size_t i = 0; i < name_len && ok; i++)
            ok = isalnum((unsigned char)p[i]) || p[i] == '.' || p[i] == '-' || p[i] == '_';
        long n = 1;
        if (ok && colon) {
            char num[16];
            size_t nl = len - name_len - 1;
            ok = nl > 0 && nl < sizeof num;
            if (ok) {
                memcpy(num, colon + 1, nl);
                num[nl] = '\0';
                char *e2 = NULL;
                n = strtol(num, &e2, 10);
                ok = *e2 == '\0' && n >= 1 && n <= 4096;
            }
        }
        if (!ok)
            return core_err_set(err, CORE_ERR_INVALID,
                                "parameter 'hosts' = '%s': expected NAME:SLOTS,NAME:SLOTS,... "
                                "(e.g. node1:4,node2:4; a name alone is one slot)",
                                s);
        *slots += (int)n;
        if (!end)
            break;
        p = end + 1;
        if (!*p)
            return core_err_set(err, CORE_ERR_INVALID, "parameter 'hosts' = '%s' ends with a comma",
                                s);
    }
    return 0;
}

/* Slots of an Open MPI hostfile: "name [slots=N] [max_slots=M]" lines,
 * '#' comments. */
static int hostfile_slots(const char *path, int *slots, struct core_err *err)
{
    *slots = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return core_err_set(err, CORE_ERR_INVALID, "parameter 'hostfile': cannot read %s: %s", path,
                            strerror(errno));
    char line[1024];
    int lineno = 0, rc = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *tok = strtok(line, " \t\r\n");
        if (!tok)
            continue;
        int n = 1;
        while ((tok = strtok(NULL, " \t\r\n"))) {
            if (strncmp(tok, "slots=", 6) == 0) {
                char *e2 = NULL;
                long v = strtol(tok + 6, &e2, 10);
                if (*e2 != '\0' || v < 1 || v > 4096) {
                    rc = core_err_set(err, CORE_ERR_INVALID,
                                      "parameter 'hostfile': %s:%d: slots=%s is not a number of "
                                      "slots (1 to 4096)",
                                      path, lineno, tok + 6);
                    goto out;
                }
                n = (int)v;
            }
        }
        *slots += n;
    }
    if (*slots == 0)
        rc = core_err_set(err, CORE_ERR_INVALID, "parameter 'hostfile': %s names no host", path);
out:
    fclose(f);
    return rc;
}

int lab_mpi_ranks_given(const struct lab_params *p, int *ranks, struct core_err *err)
{
    *ranks = 0;
    const char *hosts = lab_mpi_param_text(p, "hosts"),
               *hostfile = lab_mpi_param_text(p, "hostfile");
    if (*hosts && *hostfile)
        return core_err_set(err, CORE_ERR_INVALID,
                            "set 'hosts' or 'hostfile', not both (they both say where the ranks "
                            "run)");
    if ((*hosts || *hostfile) && strcmp(lab_mpi_param_text(p, "transport"), "local") == 0 &&
        lab_param_user_set(p, "transport"))
        return core_err_set(err, CORE_ERR_INVALID,
                            "'%s' runs the lab across machines with Open MPI: it needs "
                            "transport=mpi, not transport=local",
                            *hosts ? "hosts" : "hostfile");
    int env = lab_mpi_env_size();
    if (env > 0) {
        *ranks = env; /* under mpirun: its ranks are what we have */
        return 0;
    }
    if (*hosts)
        return hosts_slots(hosts, ranks, err);
    if (*hostfile)
        return hostfile_slots(hostfile, ranks, err);
    return 0;
}

void lab_mpi_params_resolve(const struct lab_params *in, struct lab_params *out)
{
    lab_params_init(out, in->lab);
    for (size_t i = 0; i < in->n && i < out->n; i++) { /* the values as they are */
        out->v[i].num = in->v[i].num;
        free(out->v[i].str);
        out->v[i].str = in->v[i].str ? core_xstrdup(in->v[i].str) : NULL;
        out->v[i].user_set = in->v[i].user_set;
    }
    const struct lab_value *wv = lab_param_value(in, "workers");
    int ranks = 0;
    struct core_err e;
    if (!in->lab->mpi_workers || !wv || wv->user_set || !lab_mpi_params_use(in) ||
        lab_mpi_ranks_given(in, &ranks, &e) != 0 || ranks <= 0)
        return;
    int w = in->lab->mpi_workers(in, ranks);
    char text[32];
    snprintf(text, sizeof text, "%d", w);
    if (w >= 1)
        lab_params_set(out, "workers", text, &e); /* (out of range: left as it was) */
}

int lab_mpi_rank_run(const struct lab_params *p, struct core_err *err)
{
    if (!p->lab->rank)
        return core_err_set(err, CORE_ERR_INVALID, "lab %s has no MPI transport", p->lab->name);
    if (!lab_mpi_built())
        return core_err_set(err, CORE_ERR_INVALID, "this build has no Open MPI");
    return p->lab->rank(p, err);
}

/* ---- rank 0's SIGTERM ---------------------------------------------------------- */

static volatile sig_atomic_t term_noted;

void lab_mpi_note_term(void)
{
    term_noted = 1;
}

bool lab_mpi_term_noted(void)
{
    return term_noted != 0;
}

bool lab_mpi_relayed(void)
{
    const char *v = getenv("WARPBENCH_MPI_RELAY");
    return v && strcmp(v, "1") == 0 && lab_mpi_env_rank() == 0;
}

/* ---- the relay sink (rank 0) ------------------------------------------------------- */

struct relay_out {
    FILE *f;
    struct core_buf line;
};

static struct relay_out *relay_active; /* the sink lab_mpi_relay_note_hosts writes to */

static void relay_write(struct relay_out *o, struct core_json *j)
{
    core_json_obj_end(j);
    core_buf_putc(&o->line, '\n');
    fwrite(o->line.data, 1, o->line.len, o->f);
    fflush(o->f);
}

static struct core_json *relay_begin(struct relay_out *o, struct core_json *j, const char *type)
{
    core_buf_reset(&o->line);
    core_json_init(j, &o->line);
    core_json_obj_begin(j);
    core_json_kstr(j, "type", type);
    return j;
}

static void relay_sample(void *ud, const struct core_sample *s)
{
    struct relay_out *o = ud;
    struct core_json j;
    relay_begin(o, &j, "sample");
    core_json_kstr(&j, "series", s->series);
    core_json_kint(&j, "step", s->step);
    core_json_knum(&j, "value", s->value);
    core_json_knum(&j, "t", s->t);
    relay_write(o, &j);
}

static void relay_log(void *ud, enum lab_log_level level, const char *line)
{
    struct relay_out *o = ud;
    struct core_json j;
    relay_begin(o, &j, "log");
    core_json_kstr(&j, "level",
                   level == LAB_LOG_ERROR  ? "error"
                   : level == LAB_LOG_WARN ? "warn"
                                           : "info");
    core_json_kstr(&j, "line", line);
    relay_write(o, &j);
}

static void relay_progress(void *ud, double fraction, const char *what)
{
    struct relay_out *o = ud;
    struct core_json j;
    relay_begin(o, &j, "progress");
    core_json_knum(&j, "fraction", fraction);
    core_json_kstr(&j, "what", what);
    relay_write(o, &j);
}

static void relay_summary(void *ud, const struct lab_summary *s)
{
    struct relay_out *o = ud;
    for (size_t i = 0; i < s->n; i++) {
        const struct lab_figure *f = &s->v[i];
        struct core_json j;
        relay_begin(o, &j, "figure");
        core_json_kstr(&j, "key", f->key);
        if (f->str)
            core_json_kstr(&j, "str", f->str);
        else
            core_json_knum(&j, "num", f->num);
        core_json_kstr(&j, "unit", f->unit ? f->unit : "");
        core_json_kstr(&j, "label", f->label ? f->label : f->key);
        relay_write(o, &j);
    }
}

void lab_mpi_relay_sink_init(struct lab_sink *s, FILE *f)
{
    struct relay_out *o = core_xcalloc(1, sizeof *o);
    o->f = f;
    core_buf_init(&o->line);
    *s = (struct lab_sink){relay_sample, relay_log, relay_progress, relay_summary, o};
    relay_active = o;
}

void lab_mpi_relay_sink_fini(struct lab_sink *s)
{
    struct relay_out *o = s->ud;
    if (!o)
        return;
    if (relay_active == o)
        relay_active = NULL;
    core_buf_fini(&o->line);
    free(o);
    s->ud = NULL;
}

void lab_mpi_relay_sink_end(struct lab_sink *s, const char *status, const char *error)
{
    struct relay_out *o = s->ud;
    if (!o)
        return;
    struct core_json j;
    relay_begin(o, &j, "end");
    core_json_kstr(&j, "status", status);
    core_json_kstr(&j, "error", error);
    relay_write(o, &j);
}

void lab_mpi_relay_note_hosts(const struct lab_machine *m)
{
    struct relay_out *o = relay_active;
    if (!o)
        return;
    struct core_json j;
    relay_begin(o, &j, "hosts");
    core_json_kint(&j, "n_hosts", m->n_hosts);
    core_json_kstr(&j, "hosts", m->hosts);
    core_json_kstr(&j, "interconnect", m->interconnect);
    relay_write(o, &j);
}
