/*
 * lab_code_internal.h — the private half of labs/code/, the programming
 * labs' harness: the layout of the shared memory between the harness (the
 * parent, which owns the clock, the inputs, the expected outputs and every
 * check) and the runner (the child, a fresh exec of our own binary that
 * loads one compiled shared object and calls one function in it under a
 * seccomp allow-list), the compile step, the ELF check, and the arithmetic
 * of sizes.
 *
 * The child's whole address space is its exec'd image, the student's (or
 * the reference's) object and one shared mapping: the header below and the
 * argument arrays. Nothing the parent knows beyond the inputs is ever in
 * it. Everything in the mapping is writable by the student's code, so the
 * parent trusts none of it but the argument arrays it checks: a forged
 * counter or message can only make a run fail.
 *
 * Uses lab.h (the spec and result types) and core.
 */
#ifndef WB_LAB_CODE_INTERNAL_H
#define WB_LAB_CODE_INTERNAL_H

#include "labs/lab.h"

#include <stdatomic.h>
#include <stdint.h>

#define LAB_CODE_MAGIC 0x57424343u /* "WBCC" */
#define LAB_CODE_HDR 8192          /* the header's share of the mapping; arrays follow */

/* What the child's header says about how it stands (lab_code_shm.state). */
enum lab_code_state {
    LAB_CODE_ST_LOADING = 0,
    LAB_CODE_ST_READY,  /* loaded and sandboxed; waiting for calls */
    LAB_CODE_ST_FAILED, /* setup failed: msg says why */
    LAB_CODE_ST_TRAPPED /* a system call was refused: trap_sys */
};

struct lab_code_shm_arg {
    int32_t pointer; /* 0: an int passed by value (ival); 1: an array at off */
    int32_t pad;
    int64_t ival;
    uint64_t off; /* from the start of the mapping */
};

struct lab_code_shm {
    uint32_t magic;
    /* The call protocol (see lab_code_run.c): the parent writes cmd = 2k
     * (are you running?), the child answers ready = 2k and spins; the
     * parent reads its clock and writes cmd = 2k+1 (call k); the child calls
     * and writes done = k. */
    _Atomic uint32_t cmd;
    _Atomic uint32_t ready;
    _Atomic uint32_t done;
    _Atomic uint32_t state;
    /* filled by the child's handlers: what stopped it */
    int32_t trap_sys;     /* the refused system call's number, or -1 */
    int32_t crash_sig;    /* the fatal signal, or 0 */
    uint64_t crash_pc;    /* its program counter, relative to the object's base (0: outside) */
    uint64_t crash_addr;  /* the faulting address */
    uint64_t trap_arg[2]; /* the refused call's first two arguments */
    char msg[512];        /* setup error */
    /* set by the parent before the exec */
    char so_path[1024];
    char func[64];
    int32_t n_args;
    int32_t ret_elem; /* enum lab_code_elem of the return value, -1: void */
    uint64_t ret_off; /* where the child stores the return value */
    struct lab_code_shm_arg args[LAB_CODE_MAX_ARGS];
    int32_t threads; /* threads the code may start: 1 = none */
    int32_t pad;
    uint64_t mem_limit; /* bytes the code may map */
    double cpu_limit_s; /* RLIMIT_CPU */
    uint64_t size;      /* of the whole mapping */
};

/* Size in bytes of one element of type e. */
size_t lab_code_elem_size(enum lab_code_elem e);

/* Evaluates an arithmetic expression (+ - * / ^ parentheses, numbers,
 * names) over the spec's sizes. CORE_ERR_INVALID naming the expression and
 * what is wrong. */
int lab_code_expr(const char *expr, const struct lab_code_spec *s, double *out,
                  struct core_err *err);

/* Compiles `src_path` with the system C compiler into `so_path`
 * (-O2 -march=native -g -shared -fPIC -nostartfiles plus `flags`), the
 * compiler confined: its own process group killed whole after 60 s (the
 * preprocessor) or 120 s (the compile; $WARPBENCH_CC_TIMEOUT lowers
 * both), rlimits on CPU time, address space (1 GiB), file size (256 MiB),
 * core files and processes, its own user and network namespace where the
 * kernel allows, a scratch directory beside so_path ("<so_path>.cc",
 * removed after) as its working and temporary directory, an environment
 * of PATH, LC_ALL=C, TMPDIR and HOME only, and under Landlock (where the
 * kernel has it; $WARPBENCH_CC_NO_LANDLOCK turns it off for tests) reading
 * only the system's directories and the source file. On a compile error
 * returns CORE_ERR_INVALID with the compiler's messages (which name the
 * file and line) in *log (caller frees), and why when a limit stopped it.
 * Refuses, naming the file, a file that includes anything but the
 * system's headers, and anything that embeds a file (.incbin). */
int lab_code_compile(const char *src_path, const char *so_path, const char *flags, char **log,
                     struct core_err *err);

/* Reads the compiled object's ELF and refuses what would run code of the
 * student's before the harness's sandbox is up or outside the timed call:
 * constructors and destructors (.init_array, .fini_array, .ctors, .dtors,
 * DT_INIT, DT_FINI), IFUNC resolvers, and libraries other than the C
 * runtime's, and static data over max_bytes. CORE_ERR_INVALID naming what
 * was found. */
int lab_code_elf_check(const char *so_path, double max_bytes, struct core_err *err);

/* What a refused system call means, for the message: "opening a file",
 * "starting a process or thread (fork, clone)". */
const char *lab_code_syscall_meaning(int nr, char *name, size_t n);

/* The clock the first `cores` CPUs this process may run on (at most
 * LAB_CODE_CLOCK_MAX_CORES) run at now, all measured at once: each times
 * chains of dependent register adds (one cycle each) for about budget_s
 * seconds and keeps its fastest run (lab_code_clock.c says why). Returns
 * the mean over the cores in GHz, and each core's in per_core[i] (may be
 * NULL); 0 where it cannot be measured (an architecture without the
 * chain). The calling thread's affinity is restored before it returns. */
#define LAB_CODE_CLOCK_MAX_CORES 256
double lab_code_clock_ghz(int cores, double budget_s, double *per_core);

#endif /* WB_LAB_CODE_INTERNAL_H */
