/*
 * lab_code_build.c — from a student's C file to a shared object the
 * harness may load: the compile (the system `cc`, or $WARPBENCH_CC, with
 * the harness's flags and the exercise's), the check of what the source
 * may include, the check of the compiled ELF for code that would run
 * before the sandbox is up or outside the timed call, the sizes'
 * arithmetic, and what a refused system call means.
 *
 * The compiler runs on the student's text; it must not read files the
 * student names, since on the instructor's machine those could be anyone's,
 * nor stall or exhaust that machine. So it runs confined (see "running the
 * compiler, confined": its own process group, rlimits, namespaces, a
 * scratch directory, a cleared environment, Landlock where the kernel has
 * it), and the preprocessor's own list of what the file includes (-MD)
 * must hold only headers from the system's include directories, and the
 * preprocessed text must not embed a file (.incbin).
 *
 * Uses core (errors, buffers) and the spec types of lab.h.
 */
#define _GNU_SOURCE /* pipe2, memmem, unshare, CLONE_NEWUSER */
#include "labs/code/lab_code_internal.h"

#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <math.h>
#include <poll.h>
#include <seccomp.h>
#include <signal.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

size_t lab_code_elem_size(enum lab_code_elem e)
{
    switch (e) {
    case LAB_CODE_I8:
        return 1;
    case LAB_CODE_I32:
        return 4;
    case LAB_CODE_I64:
        return 8;
    case LAB_CODE_F32:
        return 4;
    case LAB_CODE_F64:
        return 8;
    }
    return 1;
}

/* ---- sizes' arithmetic -------------------------------------------------------------------- */

struct ex {
    const char *s, *p;
    const struct lab_code_spec *spec;
    char why[128];
};

static double ex_sum(struct ex *x);

static void ex_space(struct ex *x)
{
    while (isspace((unsigned char)*x->p))
        x->p++;
}

static double ex_atom(struct ex *x)
{
    ex_space(x);
    if (*x->p == '(') {
        x->p++;
        double v = ex_sum(x);
        ex_space(x);
        if (*x->p != ')' && !x->why[0])
            snprintf(x->why, sizeof x->why, "')' expected at \"%s\"", x->p);
        else
            x->p++;
        return v;
    }
    if (*x->p == '-') {
        x->p++;
        return -ex_atom(x);
    }
    if (isdigit((unsigned char)*x->p) || *x->p == '.') {
        char *end;
        double v = strtod(x->p, &end);
        x->p = end;
        return v;
    }
    if (isalpha((unsigned char)*x->p) || *x->p == '_') {
        const char *b = x->p;
        while (isalnum((unsigned char)*x->p) || *x->p == '_')
            x->p++;
        size_t n = (size_t)(x->p - b);
        for (int i = 0; x->spec && i < x->spec->n_sizes; i++)
            if (strlen(x->spec->size_names[i]) == n && strncmp(x->spec->size_names[i], b, n) == 0)
                return x->spec->size_values[i];
        if (!x->why[0])
            snprintf(x->why, sizeof x->why, "unknown size '%.*s'", (int)n, b);
        return 0;
    }
    if (!x->why[0])
        snprintf(x->why, sizeof x->why, "a number or a size expected at \"%s\"", x->p);
    return 0;
}

static double ex_pow(struct ex *x)
{
    double b = ex_atom(x);
    ex_space(x);
    if (*x->p == '^') {
        x->p++;
        return pow(b, ex_pow(x));
    }
    return b;
}

static double ex_prod(struct ex *x)
{
    double v = ex_pow(x);
    for (;;) {
        ex_space(x);
        if (*x->p == '*')
            x->p++, v *= ex_pow(x);
        else if (*x->p == '/')
            x->p++, v /= ex_pow(x);
        else
            return v;
    }
}

static double ex_sum(struct ex *x)
{
    double v = ex_prod(x);
    for (;;) {
        ex_space(x);
        if (*x->p == '+')
            x->p++, v += ex_prod(x);
        else if (*x->p == '-')
            x->p++, v -= ex_prod(x);
        else
            return v;
    }
}

int lab_code_expr(const char *expr, const struct lab_code_spec *s, double *out,
                  struct core_err *err)
{
    struct ex x = {.s = expr ? expr : "", .p = expr ? expr : "", .spec = s};
    double v = ex_sum(&x);
    ex_space(&x);
    if (!x.why[0] && *x.p)
        snprintf(x.why, sizeof x.why, "unexpected \"%s\"", x.p);
    if (!x.why[0] && !isfinite(v))
        snprintf(x.why, sizeof x.why, "not a finite number");
    if (x.why[0])
        return core_err_set(err, CORE_ERR_INVALID, "%s: expression \"%s\": %s", s ? s->id : "?",
                            x.s, x.why);
    *out = v;
    return 0;
}

/* ---- running the compiler, confined ------------------------------------------------------- */

/* The compiler reads the student's text, which on the instructor's machine
 * (class import) is anyone's: it must neither read what the student names
 * nor stall or exhaust the machine. So it runs in a child of its own:
 *   - a process group of its own, killed whole at the wall-clock limit (cc
 *     starts cc1, as and ld: killing cc alone would leave them running);
 *   - rlimits on CPU time, address space, file size, core files, and
 *     processes (counted in a user namespace of its own, so the count is
 *     the compiler's processes, not the user's);
 *   - a user and a network namespace of its own where the kernel allows
 *     (no network);
 *   - a scratch directory as its working and temporary directory, and an
 *     environment of a fixed PATH, LC_ALL=C, TMPDIR and HOME only;
 *   - where the kernel has Landlock: files readable only under the system's
 *     directories (/usr, /lib, ...), the source file itself and the scratch
 *     directory (writable), so `#include "/etc/shadow"` or "/dev/zero" fails
 *     to open and is refused naming the file (see include_refused). */

/* The wall-clock and CPU limit of one compiler step, in seconds:
 * $WARPBENCH_CC_TIMEOUT (tests) or `def`. */
static double cc_limit(double def)
{
    const char *s = getenv("WARPBENCH_CC_TIMEOUT");
    double v = s && *s ? atof(s) : 0;
    return v > 0 && v < def ? v : def;
}

#define CC_MEM_BYTES (1ull << 30)    /* address space of each compiler process */
#define CC_FILE_BYTES (256ull << 20) /* the largest file it may write (.i, .so) */
#define CC_PROCS 64                  /* processes in its user namespace */

#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
#endif
#define LL_READ                                                                                    \
    (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)
#define LL_FILE_READ (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE)

/* Adds a rule: `access` under path (a file gets only the file rights). A
 * path that does not exist is skipped. */
static void ll_allow(int rs, const char *path, uint64_t access, uint64_t handled)
{
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0)
        return;
    struct stat st;
    if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode))
        access &= LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |
                  LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE |
                  LANDLOCK_ACCESS_FS_IOCTL_DEV;
    struct landlock_path_beneath_attr pb = {.allowed_access = access & handled, .parent_fd = fd};
    syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
    close(fd);
}

/* A Landlock ruleset for one compile (an fd, -1 where the kernel has no
 * Landlock: then the -MD check below is what stops a file being read, after
 * the fact). */
static int ll_ruleset(const char *exe, const char *src, const char *scratch)
{
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    if (abi < 1 || getenv("WARPBENCH_CC_NO_LANDLOCK"))
        return -1;
    uint64_t handled = LL_READ | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
                       LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |
                       LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
                       LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |
                       LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM;
    if (abi >= 2)
        handled |= LANDLOCK_ACCESS_FS_REFER;
    if (abi >= 3)
        handled |= LANDLOCK_ACCESS_FS_TRUNCATE;
    if (abi >= 5)
        handled |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
    struct landlock_ruleset_attr attr = {.handled_access_fs = handled};
    int rs = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
    if (rs < 0)
        return -1;
    fcntl(rs, F_SETFD, FD_CLOEXEC);
    /* the compiler, its tools, libraries and the system's headers */
    static const char *const ro[] = {
        "/usr", "/lib",  "/lib64",           "/lib32",           "/libx32",
        "/bin", "/sbin", "/etc/ld.so.cache", "/etc/alternatives"};
    for (size_t i = 0; i < sizeof ro / sizeof ro[0]; i++)
        ll_allow(rs, ro[i], LL_READ, handled);
    char real[4096];
    if (realpath(exe, real))
        ll_allow(rs, real, LL_FILE_READ, handled);
    ll_allow(rs, src, LANDLOCK_ACCESS_FS_READ_FILE, handled);
    ll_allow(rs, "/dev/null", LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE,
             handled);
    ll_allow(rs, scratch, handled, handled);
    return rs;
}

/* The compiler's full path: $WARPBENCH_CC or cc, looked up in PATH here,
 * since the child's PATH is a fixed one. */
static int compiler_path(char *out, size_t n, struct core_err *err)
{
    const char *cc = getenv("WARPBENCH_CC");
    if (!cc || !*cc)
        cc = "cc";
    if (strchr(cc, '/')) {
        snprintf(out, n, "%s", cc);
        return 0;
    }
    const char *path = getenv("PATH");
    char dirs[4096];
    snprintf(dirs, sizeof dirs, "%s", path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
    for (char *save = NULL, *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        snprintf(out, n, "%s/%s", *d ? d : ".", cc);
        if (access(out, X_OK) == 0)
            return 0;
    }
    return core_err_set(err, CORE_ERR_IO,
                        "cannot run %s: not found in PATH (is a C compiler "
                        "installed?)",
                        cc);
}

struct cc_jail {
    char exe[1024];     /* the compiler */
    char scratch[1100]; /* its working directory */
    int ruleset;        /* Landlock, or -1 */
};

/* The child's side: confine, then exec. Only async-signal-safe calls. */
static _Noreturn void tool_child(char *const argv[], const struct cc_jail *jl, int out_fd,
                                 double limit_s, char *const envp[])
{
    setpgid(0, 0);
    int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null < 0 || dup2(null, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(out_fd, 2) < 0)
        _exit(126);
    if (chdir(jl->scratch) != 0)
        _exit(126);
    bool userns = unshare(CLONE_NEWUSER | CLONE_NEWNET) == 0 || unshare(CLONE_NEWUSER) == 0;
    struct rlimit cpu = {(rlim_t)ceil(limit_s), (rlim_t)ceil(limit_s) + 1};
    struct rlimit as = {CC_MEM_BYTES, CC_MEM_BYTES};
    struct rlimit fsz = {CC_FILE_BYTES, CC_FILE_BYTES};
    struct rlimit zero = {0, 0};
    struct rlimit procs = {CC_PROCS, CC_PROCS};
    setrlimit(RLIMIT_CPU, &cpu);
    setrlimit(RLIMIT_AS, &as);
    setrlimit(RLIMIT_FSIZE, &fsz);
    setrlimit(RLIMIT_CORE, &zero);
    /* outside a namespace of its own the count would be all of this
     * user's processes */
    if (userns)
        setrlimit(RLIMIT_NPROC, &procs);
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        _exit(126);
    if (jl->ruleset >= 0 && syscall(SYS_landlock_restrict_self, jl->ruleset, 0) != 0)
        _exit(126);
    syscall(SYS_close_range, 3u, ~0u, 0u);
    execve(jl->exe, argv, envp);
    _exit(127);
}

/* Runs argv (argv[0] is jl->exe) confined, with stdout and stderr into
 * *log; its exit status in *status, -1 when it ran past limit_s and was
 * killed. */
static int run_tool(char *const argv[], const struct cc_jail *jl, double limit_s, char **log,
                    int *status, struct core_err *err)
{
    char env_tmp[1200], env_home[1200];
    snprintf(env_tmp, sizeof env_tmp, "TMPDIR=%s", jl->scratch);
    snprintf(env_home, sizeof env_home, "HOME=%s", jl->scratch);
    char *envp[] = {"PATH=/usr/local/bin:/usr/bin:/bin", "LC_ALL=C", env_tmp, env_home, NULL};
    int fd[2];
    if (pipe2(fd, O_CLOEXEC) != 0)
        return core_err_set(err, CORE_ERR_IO, "pipe: %s", strerror(errno));
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return core_err_set(err, CORE_ERR_IO, "fork: %s", strerror(errno));
    }
    if (pid == 0)
        tool_child(argv, jl, fd[1], limit_s, envp);
    setpgid(pid, pid); /* also here: no race with the kill below */
    close(fd[1]);
    struct core_buf b;
    core_buf_init(&b);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    fcntl(fd[0], F_SETFL, O_NONBLOCK);
    bool killed = false;
    for (;;) {
        char chunk[4096];
        ssize_t n = read(fd[0], chunk, sizeof chunk);
        if (n > 0) {
            if (b.len < (1u << 20))
                core_buf_append(&b, chunk, (size_t)n);
            continue;
        }
        if (n == 0)
            break;
        if (errno != EAGAIN && errno != EINTR)
            break;
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        if (!killed && (t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) * 1e-9 > limit_s) {
            kill(-pid, SIGKILL);
            killed = true;
        }
        struct pollfd pf = {.fd = fd[0], .events = POLLIN};
        poll(&pf, 1, 20);
    }
    close(fd[0]);
    /* whatever of the group is left (the leader is not reaped yet, so the
     * group's id is still ours) */
    kill(-pid, SIGKILL);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (WIFEXITED(st) && WEXITSTATUS(st) == 127 && b.len == 0)
        core_buf_printf(&b, "%s: cannot be run\n", jl->exe);
    *status = killed ? -1 : st;
    *log = core_buf_steal(&b);
    return 0;
}

/* Whether a path the preprocessor opened is one of the system's headers. */
static bool system_header(const char *p)
{
    static const char *const dirs[] = {"/usr/include/", "/usr/lib/gcc/", "/usr/lib/llvm",
                                       "/usr/local/cuda/", "/usr/lib/clang/"};
    if (strstr(p, "/../") || strstr(p, "/./"))
        return false;
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
        if (strncmp(p, dirs[i], strlen(dirs[i])) == 0)
            return true;
    return false;
}

/* Checks the dependency file cc -MD wrote: every prerequisite but the
 * student's own file is a system header. */
static int check_deps(const char *deps_path, const char *src, struct core_err *err)
{
    char *text = NULL;
    size_t len = 0;
    struct core_err e2;
    if (core_file_read(deps_path, 1 << 22, &text, &len, &e2) != 0)
        return core_err_set(err, CORE_ERR_IO, "reading the compiler's list of includes: %s",
                            e2.msg);
    int rc = 0;
    char *colon = strstr(text, ": ");
    char *p = colon ? colon + 2 : text;
    bool first = true;
    while (*p && rc == 0) {
        while (*p == ' ' || *p == '\\' || *p == '\n')
            p++;
        if (!*p)
            break;
        char tok[4096];
        size_t n = 0;
        while (*p && *p != ' ' && *p != '\n' && n + 1 < sizeof tok) {
            if (*p == '\\' && p[1] == ' ')
                p++;
            else if (*p == '\\' && p[1] == '\n')
                break;
            tok[n++] = *p++;
        }
        tok[n] = '\0';
        if (first) { /* the source itself */
            first = false;
            continue;
        }
        char real[4096];
        const char *path = realpath(tok, real) ? real : tok;
        if (!system_header(path))
            rc = core_err_set(err, CORE_ERR_INVALID,
                              "%s includes %s: only the system's headers may be included "
                              "(#include <...>), not other files",
                              src, tok);
    }
    free(text);
    return rc;
}

/* Whether the preprocessed text embeds a file: ".incbin", also when it is
 * spelt in pieces that the compiler joins (".inc" "bin"). */
static bool embeds_file(const char *text)
{
    size_t n = strlen(text);
    char *flat = core_xmalloc(n + 1);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (text[i] == '"') { /* drop a closing quote, blanks, and the next opening quote */
            size_t j = i + 1;
            while (j < n && isspace((unsigned char)text[j]))
                j++;
            if (j < n && text[j] == '"') {
                i = j;
                continue;
            }
        }
        flat[k++] = (char)tolower((unsigned char)text[i]);
    }
    flat[k] = '\0';
    bool bad = strstr(flat, "incbin") != NULL;
    free(flat);
    return bad;
}

/* The name in the compiler's "fatal error: NAME: Permission denied" (gcc)
 * or "cannot open file 'NAME': Permission denied" (clang): a file the
 * confinement kept it from opening. Caller frees; NULL when none. */
static char *include_refused(const char *log)
{
    for (const char *p = log; p && *p;) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        const char *fe = memmem(p, len, "fatal error: ", 13);
        const char *pd = memmem(p, len, ": Permission denied", 19);
        if (fe && pd && pd > fe + 13) {
            const char *b = fe + 13, *e = pd;
            if ((size_t)(e - b) > 17 && strncmp(b, "cannot open file ", 17) == 0)
                b += 17;
            if (e - b >= 2 && (*b == '\'' || *b == '"') && e[-1] == *b)
                b++, e--;
            return core_xasprintf("%.*s", (int)(e - b), b);
        }
        p = eol ? eol + 1 : NULL;
    }
    return NULL;
}

/* What stopped the compiler, when a limit did: a sentence, or "". */
static const char *limit_hit(int st, const char *log, double limit_s, char *buf, size_t n)
{
    buf[0] = '\0';
    if (st == -1)
        snprintf(buf, n, " (the compiler ran for over %g s: stopped)", limit_s);
    else if ((WIFSIGNALED(st) && WTERMSIG(st) == SIGXFSZ) ||
             (log && strstr(log, "File size limit exceeded")))
        snprintf(buf, n, " (the compiler's output went over %llu MiB: stopped)",
                 (unsigned long long)(CC_FILE_BYTES >> 20));
    else if ((WIFSIGNALED(st) && WTERMSIG(st) == SIGXCPU) ||
             (log && (strstr(log, "CPU time limit exceeded"))))
        snprintf(buf, n, " (the compiler used over %g s of CPU time: stopped)", limit_s);
    else if (log && (strstr(log, "out of memory") || strstr(log, "memory exhausted") ||
                     strstr(log, "cannot allocate")))
        snprintf(buf, n, " (the compiler went over %llu GiB of memory: stopped)",
                 (unsigned long long)(CC_MEM_BYTES >> 30));
    else if (log && strstr(log, "signal terminated program"))
        snprintf(buf, n, " (the compiler was stopped by a limit: %s)",
                 strstr(log, "Killed") ? "killed" : "a signal");
    return buf;
}

/* text with every `from` replaced by `to` (caller frees). */
static char *replace_all(const char *text, const char *from, const char *to)
{
    struct core_buf b;
    core_buf_init(&b);
    size_t fl = strlen(from);
    const char *p = text ? text : "";
    for (const char *q; fl && (q = strstr(p, from)); p = q + fl) {
        core_buf_append(&b, p, (size_t)(q - p));
        core_buf_append(&b, to, strlen(to));
    }
    core_buf_append(&b, p, strlen(p));
    return core_buf_steal(&b);
}

/* Removes the scratch directory and what the compiler left in it. */
static void scratch_remove(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)))
            if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
                char p[1400];
                snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
                unlink(p);
            }
        closedir(d);
    }
    rmdir(dir);
}

/* Whether an include's name leaves the system's headers for certain: an
 * absolute path or one through "..". */
static bool name_outside(const char *b, size_t n)
{
    if (n == 0)
        return false;
    if (b[0] == '/')
        return true;
    for (size_t i = 0; i + 1 < n; i++)
        if (b[i] == '.' && b[i + 1] == '.' && (i == 0 || b[i - 1] == '/') &&
            (i + 2 == n || b[i + 2] == '/'))
            return true;
    return false;
}

/* The name in `"name"` or `<name>` at p (after blanks), when it leaves the
 * system's headers; caller frees. */
static char *quoted_outside(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '(')
        p++;
    char close = *p == '"' ? '"' : *p == '<' ? '>' : 0;
    if (!close)
        return NULL;
    const char *b = p + 1, *e = strchr(b, close);
    const char *nl = strchr(b, '\n');
    if (!e || (nl && nl < e) || !name_outside(b, (size_t)(e - b)))
        return NULL;
    return core_xasprintf("%.*s", (int)(e - b), b);
}

/* A first look at the source, before any compiler runs: an #include,
 * #include_next, #import, #embed or __has_include of an absolute path or
 * one through "..", spelt out in the file. What macros build, or comments
 * hide, is left to the confinement (Landlock) and the -MD check. Returns
 * the name (caller frees) or NULL. */
static char *include_outside(const char *src)
{
    /* lines as the preprocessor joins them: backslash-newline removed */
    size_t n = strlen(src);
    char *t = core_xmalloc(n + 1);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (src[i] == '\\' && src[i + 1] == '\n') {
            i++;
            continue;
        }
        t[k++] = src[i];
    }
    t[k] = '\0';
    char *found = NULL;
    for (char *line = t; line && *line && !found;) {
        char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '#' || (p[0] == '%' && p[1] == ':')) {
            p += *p == '#' ? 1 : 2;
            while (*p == ' ' || *p == '\t')
                p++;
            static const char *const words[] = {"include_next", "include", "import", "embed"};
            for (size_t w = 0; w < sizeof words / sizeof words[0]; w++)
                if (strncmp(p, words[w], strlen(words[w])) == 0) {
                    found = quoted_outside(p + strlen(words[w]));
                    break;
                }
        }
        char *nl = strchr(line, '\n');
        line = nl ? nl + 1 : NULL;
    }
    for (const char *h = t; !found && (h = strstr(h, "__has_include")); h += 13) {
        const char *p = h + 13;
        if (strncmp(p, "_next", 5) == 0)
            p += 5;
        found = quoted_outside(p);
    }
    free(t);
    return found;
}

int lab_code_compile(const char *src_path, const char *so_path, const char *flags, char **log,
                     struct core_err *err)
{
    *log = NULL;
    struct cc_jail jl = {.ruleset = -1};
    int rc = compiler_path(jl.exe, sizeof jl.exe, err);
    if (rc != 0)
        return rc;
    char src[4096];
    if (!realpath(src_path, src))
        return core_err_set(err, CORE_ERR_NOTFOUND, "%s: %s", src_path, strerror(errno));
    {
        char *text = NULL;
        size_t len = 0;
        if ((rc = core_file_read(src, 1 << 24, &text, &len, err)) != 0)
            return rc;
        char *outside = include_outside(text);
        free(text);
        if (outside) {
            rc = core_err_set(err, CORE_ERR_INVALID,
                              "%s includes %s: only the system's headers may be included "
                              "(#include <...>), not other files",
                              src_path, outside);
            free(outside);
            return rc;
        }
    }
    snprintf(jl.scratch, sizeof jl.scratch, "%s.cc", so_path);
    if (mkdir(jl.scratch, 0700) != 0)
        return core_err_set(err, CORE_ERR_IO, "the compiler's scratch directory %s: %s", jl.scratch,
                            strerror(errno));
    jl.ruleset = ll_ruleset(jl.exe, src, jl.scratch);
    char deps[1200], pre[1200], out_so[1200];
    snprintf(deps, sizeof deps, "%s/deps.d", jl.scratch);
    snprintf(pre, sizeof pre, "%s/pre.i", jl.scratch);
    snprintf(out_so, sizeof out_so, "%s/out.so", jl.scratch);
    /* the exercise's flags: words, each a flag the pack wrote */
    char fl[512];
    snprintf(fl, sizeof fl, "%s", flags ? flags : "");
    char *argv[64];
    int n = 0;
    argv[n++] = jl.exe;
    static char *const base[] = {"-O2",   "-march=native", "-g",       "-shared",
                                 "-fPIC", "-nostartfiles", "-fno-plt", "-Wall"};
    for (size_t i = 0; i < sizeof base / sizeof base[0]; i++)
        argv[n++] = base[i];
    for (char *save = NULL, *w = strtok_r(fl, " \t", &save); w && n < 40;
         w = strtok_r(NULL, " \t", &save))
        argv[n++] = w;
    int n_common = n;
    /* first the preprocessor alone: what the file includes, what it says */
    argv[n++] = "-E";
    argv[n++] = "-MD";
    argv[n++] = "-MF";
    argv[n++] = deps;
    argv[n++] = "-o";
    argv[n++] = pre;
    argv[n++] = src;
    argv[n] = NULL;
    int st = 0;
    char *out = NULL, why[160];
    double limit = cc_limit(60);
    if ((rc = run_tool(argv, &jl, limit, &out, &st, err)) != 0)
        goto out;
    if (st != 0) {
        char *refused = include_refused(out);
        *log = replace_all(out, src, src_path);
        if (refused)
            rc = core_err_set(err, CORE_ERR_INVALID,
                              "%s includes %s: only the system's headers may be included "
                              "(#include <...>), not other files",
                              src_path, refused);
        else
            rc = core_err_set(err, CORE_ERR_INVALID, "%s does not compile%s", src_path,
                              limit_hit(st, out, limit, why, sizeof why));
        free(refused);
        goto out;
    }
    free(out);
    out = NULL;
    if ((rc = check_deps(deps, src_path, err)) != 0)
        goto out;
    char *text = NULL;
    size_t len = 0;
    struct core_err e2;
    if (core_file_read(pre, CC_FILE_BYTES, &text, &len, &e2) == 0) {
        bool bad = embeds_file(text);
        free(text);
        if (bad) {
            rc = core_err_set(err, CORE_ERR_INVALID,
                              "%s embeds a file (.incbin): code may not read files, "
                              "also not while it is compiled",
                              src_path);
            goto out;
        }
    }
    unlink(pre);
    unlink(deps);
    n = n_common;
    argv[n++] = "-o";
    argv[n++] = out_so;
    argv[n++] = src;
    argv[n++] = "-lm";
    argv[n] = NULL;
    limit = cc_limit(120);
    if ((rc = run_tool(argv, &jl, limit, &out, &st, err)) != 0)
        goto out;
    char *shown = replace_all(out, src, src_path);
    free(out);
    out = NULL;
    if (st != 0) {
        *log = shown;
        rc = core_err_set(err, CORE_ERR_INVALID, "%s does not compile%s", src_path,
                          limit_hit(st, shown, limit, why, sizeof why));
        goto out;
    }
    if (*shown)
        *log = shown; /* warnings */
    else
        free(shown);
    if (rename(out_so, so_path) != 0)
        rc = core_err_set(err, CORE_ERR_IO, "%s: %s", so_path, strerror(errno));
out:
    free(out);
    if (jl.ruleset >= 0)
        close(jl.ruleset);
    scratch_remove(jl.scratch);
    return rc;
}

/* ---- the ELF check ------------------------------------------------------------------------ */

static const char *const allowed_needed[] = {"libc.so.",       "libm.so.",   "libgomp.so.",
                                             "libpthread.so.", "ld-linux",   "libgcc_s.so.",
                                             "libstdc++.so.",  "libmvec.so."};

int lab_code_elf_check(const char *so_path, double max_bytes, struct core_err *err)
{
    char *img = NULL;
    size_t len = 0;
    struct core_err e2;
    if (core_file_read(so_path, 1 << 28, &img, &len, &e2) != 0)
        return core_err_set(err, CORE_ERR_IO, "reading the compiled object: %s", e2.msg);
    int rc = 0;
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img;
    if (len < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
        eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shoff == 0 ||
        eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > len ||
        eh->e_shstrndx >= eh->e_shnum) {
        rc = core_err_set(err, CORE_ERR_INVALID, "the compiled object is not a 64-bit ELF file");
        goto out;
    }
    /* what loading maps: a static array of 64 GiB would be mapped before
     * the sandbox's limits are set */
    if (eh->e_phoff && eh->e_phoff + (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) <= len) {
        const Elf64_Phdr *ph = (const Elf64_Phdr *)(img + eh->e_phoff);
        double mapped = 0;
        for (int i = 0; i < eh->e_phnum; i++)
            if (ph[i].p_type == PT_LOAD || ph[i].p_type == PT_TLS)
                mapped += (double)ph[i].p_memsz;
        if (mapped > max_bytes) {
            rc = core_err_set(err, CORE_ERR_INVALID,
                              "the code's static data takes %.0f MiB, over the exercise's memory "
                              "limit of %.0f MiB",
                              mapped / (1024 * 1024), max_bytes / (1024 * 1024));
            goto out;
        }
    }
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(img + eh->e_shoff);
    const Elf64_Shdr *strs = &sh[eh->e_shstrndx];
    if (strs->sh_offset + strs->sh_size > len) {
        rc = core_err_set(err, CORE_ERR_INVALID, "the compiled object's sections are damaged");
        goto out;
    }
    for (int i = 0; i < eh->e_shnum && rc == 0; i++) {
        if (sh[i].sh_name >= strs->sh_size ||
            sh[i].sh_offset + (sh[i].sh_type == SHT_NOBITS ? 0 : sh[i].sh_size) > len) {
            rc = core_err_set(err, CORE_ERR_INVALID, "the compiled object's sections are damaged");
            break;
        }
        const char *name = img + strs->sh_offset + sh[i].sh_name;
        if ((sh[i].sh_type == SHT_INIT_ARRAY || sh[i].sh_type == SHT_FINI_ARRAY ||
             sh[i].sh_type == SHT_PREINIT_ARRAY || strcmp(name, ".ctors") == 0 ||
             strcmp(name, ".dtors") == 0 || strcmp(name, ".init") == 0 ||
             strcmp(name, ".fini") == 0) &&
            sh[i].sh_size > 0) {
            rc = core_err_set(err, CORE_ERR_INVALID,
                              "the code has a constructor or destructor (section %s): code that "
                              "runs when the library is loaded or unloaded is refused, since it "
                              "would run outside the timed call",
                              name);
            break;
        }
        if (sh[i].sh_type == SHT_DYNAMIC) {
            const Elf64_Dyn *d = (const Elf64_Dyn *)(img + sh[i].sh_offset);
            size_t nd = sh[i].sh_size / sizeof *d;
            const Elf64_Shdr *dstr = sh[i].sh_link < eh->e_shnum ? &sh[sh[i].sh_link] : NULL;
            for (size_t k = 0; k < nd && rc == 0; k++) {
                switch (d[k].d_tag) {
                case DT_INIT:
                case DT_FINI:
                case DT_INIT_ARRAY:
                case DT_FINI_ARRAY:
                case DT_PREINIT_ARRAY:
                    rc = core_err_set(err, CORE_ERR_INVALID,
                                      "the code has a constructor or destructor (dynamic "
                                      "entry %lld): code that runs when the library is loaded "
                                      "is refused",
                                      (long long)d[k].d_tag);
                    break;
                case DT_NEEDED: {
                    if (!dstr || d[k].d_un.d_val >= dstr->sh_size)
                        break;
                    const char *lib = img + dstr->sh_offset + d[k].d_un.d_val;
                    bool ok = false;
                    for (size_t a = 0; a < sizeof allowed_needed / sizeof *allowed_needed; a++)
                        ok |= strncmp(lib, allowed_needed[a], strlen(allowed_needed[a])) == 0;
                    if (!ok)
                        rc = core_err_set(err, CORE_ERR_INVALID,
                                          "the code needs the library %s; only the C runtime's "
                                          "(libc, libm, libgomp) may be linked",
                                          lib);
                    break;
                }
                default:
                    break;
                }
            }
        }
        if (sh[i].sh_type == SHT_SYMTAB || sh[i].sh_type == SHT_DYNSYM) {
            const Elf64_Sym *sym = (const Elf64_Sym *)(img + sh[i].sh_offset);
            size_t ns = sh[i].sh_size / sizeof *sym;
            const Elf64_Shdr *ss = sh[i].sh_link < eh->e_shnum ? &sh[sh[i].sh_link] : NULL;
            /* an exported name the C library (or anything loaded here)
             * defines: a replacement of the clock, of memcpy, of malloc */
            for (size_t k = 0; sh[i].sh_type == SHT_DYNSYM && ss && k < ns && rc == 0; k++) {
                int bind = ELF64_ST_BIND(sym[k].st_info);
                if (sym[k].st_shndx == SHN_UNDEF || (bind != STB_GLOBAL && bind != STB_WEAK) ||
                    sym[k].st_name >= ss->sh_size)
                    continue;
                const char *nm = img + ss->sh_offset + sym[k].st_name;
                if (*nm && dlsym(RTLD_DEFAULT, nm))
                    rc = core_err_set(err, CORE_ERR_INVALID,
                                      "the code defines %s, a function of the C library (or of "
                                      "another library loaded here): replacing library "
                                      "functions (the clock, memory, I/O) is refused; name "
                                      "your helpers otherwise or make them static",
                                      nm);
            }
            if (rc != 0)
                break;
            for (size_t k = 0; k < ns; k++)
                if (ELF64_ST_TYPE(sym[k].st_info) == STT_GNU_IFUNC &&
                    sym[k].st_shndx != SHN_UNDEF) {
                    rc = core_err_set(err, CORE_ERR_INVALID,
                                      "the code defines an IFUNC (its resolver would run when "
                                      "the library is loaded, outside the sandbox and the "
                                      "timing): refused");
                    break;
                }
        }
        if (sh[i].sh_type == SHT_RELA) {
            const Elf64_Rela *r = (const Elf64_Rela *)(img + sh[i].sh_offset);
            size_t nr = sh[i].sh_size / sizeof *r;
            for (size_t k = 0; k < nr; k++)
#ifdef R_X86_64_IRELATIVE
                if (eh->e_machine == EM_X86_64 && ELF64_R_TYPE(r[k].r_info) == R_X86_64_IRELATIVE)
#else
                if (0)
#endif
                {
                    rc = core_err_set(err, CORE_ERR_INVALID,
                                      "the code has an IRELATIVE relocation (an IFUNC): refused");
                    break;
                }
        }
    }
out:
    free(img);
    return rc;
}

/* ---- refused system calls ----------------------------------------------------------------- */

const char *lab_code_syscall_meaning(int nr, char *name, size_t n)
{
    char *s = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
    snprintf(name, n, "%s", s ? s : "?");
    free(s);
    static const struct {
        const char *call, *meaning;
    } t[] = {
        {"open", "opening a file"},
        {"openat", "opening a file"},
        {"openat2", "opening a file"},
        {"creat", "opening a file"},
        {"execve", "running a program (exec, system)"},
        {"execveat", "running a program (exec)"},
        {"fork", "starting a process (fork)"},
        {"vfork", "starting a process (vfork, system)"},
        {"clone", "starting a process or a thread (fork, clone, pthread_create) beyond what the "
                  "exercise allows"},
        {"clone3", "starting a process or a thread (fork, clone, pthread_create) beyond what the "
                   "exercise allows"},
        {"socket", "opening a socket (network access)"},
        {"socketpair", "opening a socket"},
        {"connect", "a network connection"},
        {"rt_sigaction", "installing a signal handler (signal, sigaction, system): a handler "
                         "could hide a crash"},
        {"mmap", "an allocation over the exercise's memory limit"},
        {"ptrace", "reading another process's memory"},
        {"process_vm_readv", "reading another process's memory"},
        {"process_vm_writev", "writing another process's memory"},
        {"read", "reading from a file descriptor"},
        {"pread64", "reading from a file descriptor"},
        {"kill", "sending a signal to another process"},
        {"tgkill", "sending a signal to another process"},
        {"prctl", "changing the process's settings"},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (strcmp(name, t[i].call) == 0)
            return t[i].meaning;
    return "a system call the sandbox does not allow";
}
