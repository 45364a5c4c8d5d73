/*
 * lab_code_build.c — from a student's C file to a shared object the
 * harness may load: the compile (the system `cc`, or $WARPBENCH_CC, with
 * the harness's flags and the exercise's), the check of what the source
 * may include, the check of the compiled ELF for code that would run
 * before the sandbox is up or outside the timed call, the sizes'
 * arithmetic, and what a refused system call means.
 *
 * The compiler runs on the student's text unsandboxed; it must not read
 * files the student names, since on the instructor's machine those could
 * be anyone's. So the preprocessor's own list of what the file includes
 * (-MD) must hold only headers from the system's include directories, and
 * the preprocessed text must not embed a file (.incbin).
 *
 * Uses core (errors, buffers) and the spec types of lab.h.
 */
#define _GNU_SOURCE /* memfd_create, pipe2, dladdr, REG_RIP, close_range, sigabbrev_np */
#include "labs/code/lab_code_internal.h"

#include <ctype.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <seccomp.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

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

/* ---- running the compiler ----------------------------------------------------------------- */

/* Runs argv with stdout and stderr into *log; its exit status in *status.
 * Killed after timeout_s. */
static int run_tool(char *const argv[], double timeout_s, char **log, int *status,
                    struct core_err *err)
{
    int fd[2];
    if (pipe2(fd, O_CLOEXEC) != 0)
        return core_err_set(err, CORE_ERR_IO, "pipe: %s", strerror(errno));
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
    posix_spawn_file_actions_adddup2(&fa, fd[1], 2);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fd[1]);
    if (rc != 0) {
        close(fd[0]);
        return core_err_set(err, CORE_ERR_IO, "cannot run %s: %s (is a C compiler installed?)",
                            argv[0], strerror(rc));
    }
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
        if (!killed && (t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) * 1e-9 > timeout_s) {
            kill(pid, SIGKILL);
            killed = true;
        }
        struct timespec nap = {0, 2000000};
        nanosleep(&nap, NULL);
    }
    close(fd[0]);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    *status = killed ? -1 : st;
    *log = core_buf_steal(&b);
    return 0;
}

/* The compiler: $WARPBENCH_CC, else cc. */
static const char *compiler(void)
{
    const char *cc = getenv("WARPBENCH_CC");
    return cc && *cc ? cc : "cc";
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

int lab_code_compile(const char *src_path, const char *so_path, const char *flags, char **log,
                     struct core_err *err)
{
    *log = NULL;
    char deps[1200], pre[1200];
    snprintf(deps, sizeof deps, "%s.d", so_path);
    snprintf(pre, sizeof pre, "%s.i", so_path);
    /* the exercise's flags: words, each a flag the pack wrote */
    char fl[512];
    snprintf(fl, sizeof fl, "%s", flags ? flags : "");
    char *argv[64];
    int n = 0;
    argv[n++] = (char *)compiler();
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
    argv[n++] = (char *)src_path;
    argv[n] = NULL;
    int st = 0;
    char *out = NULL;
    int rc = run_tool(argv, 60, &out, &st, err);
    if (rc != 0)
        return rc;
    if (st != 0) {
        *log = out;
        return core_err_set(err, CORE_ERR_INVALID, "%s does not compile", src_path);
    }
    free(out);
    if ((rc = check_deps(deps, src_path, err)) != 0)
        return rc;
    char *text = NULL;
    size_t len = 0;
    struct core_err e2;
    if (core_file_read(pre, 1 << 26, &text, &len, &e2) == 0) {
        bool bad = embeds_file(text);
        free(text);
        if (bad)
            return core_err_set(err, CORE_ERR_INVALID,
                                "%s embeds a file (.incbin): code may not read files, "
                                "also not while it is compiled",
                                src_path);
    }
    unlink(pre);
    unlink(deps);
    n = n_common;
    argv[n++] = "-o";
    argv[n++] = (char *)so_path;
    argv[n++] = (char *)src_path;
    argv[n++] = "-lm";
    argv[n] = NULL;
    if ((rc = run_tool(argv, 120, &out, &st, err)) != 0)
        return rc;
    if (st != 0) {
        *log = out;
        return core_err_set(err, CORE_ERR_INVALID, "%s does not compile%s", src_path,
                            st == -1 ? " (the compiler ran for over 2 minutes)" : "");
    }
    if (out && *out)
        *log = out; /* warnings */
    else
        free(out);
    return 0;
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
