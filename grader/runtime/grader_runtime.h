/*
 * grader_runtime.h — the grader's Lua runtime: the sandbox (its memory,
 * limits and the one protected call from C), the libraries it offers (the
 * allow-listed standard ones with their guards, `wb` and its Lua half, the
 * constructors of the pack model) and the variant params as JSON. The
 * middle of grader/'s three layers: it uses the pure building blocks below
 * it (grader/pure/grader_pure.h) and the module's types (grader/grader.h),
 * and never the packs and grading above it (grader_lua_internal.h); the
 * build links it on its own to prove that (grader/CMakeLists.txt).
 *
 * Its files include lua.h; this header does not (lua_State appears only
 * as an incomplete struct). Never included from outside grader/.
 */
#ifndef WB_GRADER_RUNTIME_H
#define WB_GRADER_RUNTIME_H

#include "grader/grader.h"
#include "grader/pure/grader_pure.h"

#include <signal.h>

struct lua_State;

/* ---- sandbox memory (grader_sb_arena.c) ------------------------------------ */

#define GRADER_ARENA_SMALL 512 /* 16-byte size classes up to here */
#define GRADER_ARENA_MID 8192  /* 256-byte size classes up to here; larger: malloc */
#define GRADER_ARENA_CLASSES                                                                       \
    (GRADER_ARENA_SMALL / 16 + (GRADER_ARENA_MID - GRADER_ARENA_SMALL) / 256)

/* The memory of one sandbox's state: a mapping cut into size classes with
 * a free list each, and a list of malloc'd blocks for the rest. Lua's
 * allocator contract (the caller says each block's size). Not thread-safe. */
struct grader_sb_pool;
struct grader_arena_big;
struct grader_arena {
    struct grader_sb_pool *pool; /* where base came from; NULL: our own mapping */
    char *base;
    size_t size, bump;
    void *freelist[GRADER_ARENA_CLASSES];
    struct grader_arena_big *bigs;
    volatile sig_atomic_t *no_jump; /* raised around malloc and free (the sandbox's) */
};
/* Takes pool's mapping when it is free, else maps mem_bytes (at least 1 MiB)
 * of its own; with neither, every block comes from malloc. */
void grader_arena_init(struct grader_arena *a, struct grader_sb_pool *pool, size_t mem_bytes,
                       volatile sig_atomic_t *no_jump);
/* NULL when malloc fails (the arena itself never refuses). */
void *grader_arena_alloc(struct grader_arena *a, size_t n);
void *grader_arena_realloc(struct grader_arena *a, void *p, size_t osize, size_t nsize);
void grader_arena_free(struct grader_arena *a, void *p, size_t osize);
/* Frees every block at once and gives the mapping back (to its pool). */
void grader_arena_fini(struct grader_arena *a);

/* ---- sandbox (grader_sandbox.c, grader_sb_lib.c) ----------------------------- */

/* Reusable sandbox memory: one arena (a private anonymous mapping the size
 * of the memory cap) handed to one sandbox at a time, so a state touches
 * warm pages and never calls malloc for small blocks. A second sandbox
 * opened while the first is alive gets its own arena. The pool also keeps
 * the sandbox grader_sb_run reuses from job to job (which holds the arena
 * meanwhile). Not thread-safe: one pool per thread (a grader_pack owns
 * one). grader_sb_pool_free frees the kept sandbox too. */
struct grader_sb_pool;
struct grader_sb_pool *grader_sb_pool_new(size_t mem_bytes);
void grader_sb_pool_free(struct grader_sb_pool *pool);
/* The arena's half of grader_sb_pool_free (grader_sb_arena.c), once the
 * sandbox's half (grader_sandbox.c) has freed the kept sandbox: gives the
 * mapping back and frees the pool. */
void grader_arena_pool_free(struct grader_sb_pool *pool);

/* The sandbox a pool keeps for grader_sb_run, and what became of the jobs
 * run with the pool: `made` sandboxes built, `reused` jobs that found one
 * ready. With `fresh` set, every job gets a sandbox of its own, freed after
 * it (what grader_sb_run did before sandboxes were reused: the tests and
 * the benchmark compare the two). */
struct grader_sb;
struct grader_sb_warm {
    struct grader_sb *sb; /* NULL: none kept */
    bool fresh;
    unsigned long made, reused;
};
/* The pool's (never NULL). */
struct grader_sb_warm *grader_sb_pool_warm(struct grader_sb_pool *pool);

/* A sandbox: a fresh lua_State with the allow-listed libraries, the `wb`
 * library, and the limits of `lim`. `pool` is optional. Errors:
 * CORE_ERR_LIMIT (the memory cap is too small for the libraries),
 * CORE_ERR_INTERNAL. Free with grader_sb_free(), which releases the state's
 * memory wholesale (never lua_close: after a wall-clock jump the state is not
 * consistent, and with __gc refused there is nothing to finalise). */
struct grader_sb;
int grader_sb_new(struct grader_sb **out, const struct grader_limits *lim,
                  struct grader_sb_pool *pool, struct core_err *err);
/* What grader_sb_new and grader_sb_run (grader_sb_lib.c) build on
 * (grader_sandbox.c): a sandbox set up by libs->open (a lua_CFunction run
 * protected in the new state) whose reused state is reset before each job
 * by libs->job_reset. A kept sandbox is reused only by a run with the same
 * libs. libs is borrowed for the sandbox's life (a static table). */
struct grader_sb_libs {
    int (*open)(struct lua_State *L);
    void (*job_reset)(struct lua_State *L);
};
int grader_sb_open(struct grader_sb **out, const struct grader_limits *lim,
                   struct grader_sb_pool *pool, const struct grader_sb_libs *libs,
                   struct core_err *err);
int grader_sb_run_with(const struct grader_limits *lim, struct grader_sb_pool *pool,
                       const struct grader_sb_libs *libs, int (*fn)(struct lua_State *L), void *ud,
                       struct core_err *err);
void grader_sb_free(struct grader_sb *sb);
struct lua_State *grader_sb_lua(struct grader_sb *sb);
/* The sandbox owning L (kept in the state's extra space). */
struct grader_sb *grader_sb_of(struct lua_State *L);

/* The one entry from C into a sandbox: like lua_pcall(L, nargs, nresults)
 * on the function below the nargs arguments, under a message handler that
 * keeps "file:line: message" (no traceback), with the limits armed. Returns
 * 0 with the results pushed, or CORE_ERR_SCRIPT / CORE_ERR_LIMIT with `err`
 * filled ("file:line: ...") and the function and arguments popped: the
 * stack is balanced either way. After a limit the sandbox refuses further
 * calls. The callee counts as instructor code until it calls
 * grader_sb_enter_c(). */
int grader_pcall(struct grader_sb *sb, int nargs, int nresults, struct core_err *err);

/* A whole job: runs fn(ud) (ud pushed as a light userdata, fn's only
 * argument, no results) under grader_pcall in a sandbox with the limits of
 * lim, and gives the same result as in a fresh sandbox. Without a pool the
 * sandbox is made for the job and freed after it. With one, the sandbox the
 * pool keeps is reused when its limits are lim's: before the job it is reset
 * (the registry's per-job parts: declarations, the file environment; garbage
 * collected when past a slack; memory counted from a fresh state's level),
 * and after a job that failed in any way (an error, a limit, a refused
 * allocation even if retried, a jump out of C) or that left much memory
 * mapped it is freed, never reused. Nothing else needs resetting: what jobs
 * share is read-only (grader_sb_lib.c). Returns what grader_sb_new or
 * grader_pcall returned. ud is borrowed for the call. */
int grader_sb_run(const struct grader_limits *lim, struct grader_sb_pool *pool,
                  int (*fn)(struct lua_State *L), void *ud, struct core_err *err);

/* For a C function run by grader_pcall: from here on, our own C code runs
 * (no wall-clock jump may interrupt it, so it may use malloc). */
void grader_sb_enter_c(struct lua_State *L);

/* From such a C function, calls instructor code (the function below nargs
 * arguments) with a fresh instruction budget and wall-clock deadline.
 * Returns 0 with nresults pushed, or -1 with an error message pushed (a
 * string starting "file:line: "). A limit is never returned: it is raised
 * again at once, so nothing can continue after it. */
int grader_sb_try(struct lua_State *L, int nargs, int nresults);

/* Sets the position a limit error names when no pack-file frame is on the
 * stack (e.g. while wb.lua matches an instructor's pattern): "file:line".
 * grader_sb_try replaces it with the definition of each pack function it
 * calls. */
void grader_sb_set_fallback(struct lua_State *L, const char *where);

/* Brackets a call from a Lua-callable C function into code that may use
 * malloc or hold locks (the number parser): the wall-clock jump waits. */
void grader_sb_nojump_begin(struct lua_State *L);
void grader_sb_nojump_end(struct lua_State *L);

/* Compiles Lua source (text only) into bytecode appended to `out`, keeping
 * line information. `chunkname` is "@path", so messages read "path:line:".
 * Errors: CORE_ERR_SCRIPT (syntax, message "path:line: ..."),
 * CORE_ERR_LIMIT. */
int grader_compile(const char *src, size_t len, const char *chunkname, struct core_buf *out,
                   struct core_err *err);

/* Pushes the function of bytecode produced by grader_compile (loaded in
 * binary mode, which only this trusted path may do), with _ENV set to a
 * fresh per-file environment: a table whose reads fall through to the
 * sandbox globals, whose writes stay in it, and whose _G is itself. The
 * environment also becomes the default of the sandbox's `load`. Raises on
 * error (call it under grader_pcall). */
void grader_sb_load(struct lua_State *L, const struct core_buf *bc, const char *chunkname);
/* A reused sandbox keeps the chunks it loaded (up to 1 MiB of them), so a
 * job runs its file without undumping it again: grader_sb_chunk_get pushes
 * the kept function of bytecode bc and returns true (false, nothing pushed,
 * when none is kept or the sandbox is not reused); after a false, load bc
 * and call grader_sb_chunk_put, which keeps the function on top. Either way
 * the job's memory counts the chunk, as if it had loaded it, and not the
 * other kept chunks. grader_sb_fresh_upvalue gives the
 * function at f a new first upvalue (_ENV) holding the value on top (popped):
 * a kept main chunk runs as a fresh load of it would, its locals and
 * closures made anew by each call, its environment its own. For
 * grader_sb_load. */
bool grader_sb_chunk_get(struct lua_State *L, const struct core_buf *bc);
void grader_sb_chunk_put(struct lua_State *L, const struct core_buf *bc);
void grader_sb_fresh_upvalue(struct lua_State *L, int f);
/* As grader_sb_load for a cut file: every position the sandbox reports in
 * that chunk (messages, limits) is translated through `map` (borrowed: it
 * must outlive the sandbox) to the line of the file. */
void grader_sb_load_mapped(struct lua_State *L, const struct core_buf *bc, const char *chunkname,
                           const struct grader_linemap *map);
/* grader_sb_load_mapped's part in the sandbox: positions in the function on
 * top of the stack (its chunk) are translated through map from now on. */
void grader_sb_set_map(struct lua_State *L, const struct grader_linemap *map);
/* Charges `cost` instructions to the running call's budget for work done
 * in C (a library call handled many bytes): past the budget, the
 * instruction limit kills the sandbox as if the VM had run them (the
 * position is the pack line that called). Deterministic: callers reckon
 * cost from their arguments' sizes, never from time. */
void grader_sb_charge(struct lua_State *L, uint64_t cost);

/* The message on top of the stack already names lines of the file (our C
 * code made it from the pack model): raising it must not map it again. */
void grader_sb_mark_mapped(struct lua_State *L);

/* Sets up a fresh state's globals (grader_sb_lib.c): the allow-listed
 * libraries with their guards, wb, the constructors of the pack model, and
 * the metatable of file environments; then makes everything a job could
 * leave behind for the next read-only (the globals' tables, the libraries,
 * the strings' metatable). A lua_CFunction, run protected by
 * grader_sb_new. */
int grader_sb_libs_open(struct lua_State *L);
/* Before each job in a reused state: the default environment of `load` and
 * the declarations are forgotten (grader_decl_reset). Raises on memory. */
void grader_sb_job_reset(struct lua_State *L);

/* For the guarded library functions of grader_sb_lib.c: a guard brackets
 * the call of the library's C function. With `matcher` (find, match, gsub,
 * gmatch's iterator: lstrlib's pattern matcher, the one long C call the
 * charge cannot bound) the time limit may jump out of the call, and the
 * pack line that called is copied for its message; without, it may not
 * (any other function, and pack code the matcher calls back: gsub's
 * replacement). Returns what grader_sb_guard_leave restores. */
int grader_sb_guard_enter(struct lua_State *L, bool matcher);
void grader_sb_guard_leave(struct lua_State *L, int was);
/* An error is being raised (a message handler runs): the time limit may
 * not jump from here on, whatever guard the error leaves unclosed. Every
 * message handler calls it before anything unwinds. */
void grader_sb_guard_unwind(struct lua_State *L);
/* Bytes the state holds now, as the memory cap counts them: in a reused
 * sandbox, what a new one would hold (its own bytes and the chunks it keeps
 * for other jobs left out; garbage of earlier jobs, at most GC_SLACK, in). */
size_t grader_sb_used(struct lua_State *L);
/* True once a limit killed the sandbox. */
bool grader_sb_killed(struct lua_State *L);

/* ---- the wb library (grader_wb.c, grader_wb_lab.c, lua/wb.lua) ------------ */

/* Opens `wb` into the globals at index `g` and leaves the private graders
 * table (functions of wb.lua not visible to instructor code) in the
 * registry. Raises on error. */
void grader_wb_open(struct lua_State *L, int g);
/* Pushes the private graders table. */
void grader_wb_push_graders(struct lua_State *L);
/* Pushes a new `rng` object (userdata "wb.rng") seeded with `seed`. */
void grader_wb_push_rng(struct lua_State *L, uint64_t seed);
/* The SHA-256 (hex) of the embedded wb.lua source: part of grader_revision. */
void grader_wb_digest(char out[65]);
/* True when the value at idx is a number, neither NaN nor infinite (wb.finite;
 * grader_wb_lab.c). */
bool grader_wb_finite(struct lua_State *L, int idx);
/* Pushes a new wb.lab table (grader_wb_lab.c): the readers of ctx.lab and
 * wb.lab.grade. */
void grader_wb_lab_push(struct lua_State *L);
/* The registry key of the guarded string.find (taken before pack code). */
extern const char grader_wb_find_key;
/* wb._judge (grader_wb_design.c): the design rule, private to wb.lua. */
int grader_wb_judge(struct lua_State *L);

/* ---- variant parameters as JSON (grader_params.c) ------------------------ */

/* Writes the table at idx (a params table) as a JSON object: keys sorted,
 * nested tables as arrays (keys 1..n) or objects (string keys), integers as
 * integers, floats with a decimal point or exponent in the shortest form
 * that reads back to the same double, booleans, strings (UTF-8 kept, bytes
 * that are not valid UTF-8 escaped as \u00XX). Returns a malloc'd string, or
 * NULL when the table holds something JSON cannot say (a function, a cycle,
 * a non-finite number, a key that is neither string nor integer, depth over
 * 16). Never calls a metamethod. Our own C: call between enter_c and a try. */
char *grader_params_encode(struct lua_State *L, int idx);

/* Appends the table at idx (a params table) to b as "k=v, k=v" with keys
 * sorted and nested tables as {...}: the same params always give the same
 * text, which is what tells two variants apart. */
void grader_params_key(struct lua_State *L, int idx, struct core_buf *b);

/* Pushes the Lua table that JSON text `json` (written by
 * grader_params_encode) describes. Returns false, pushing nothing, when the
 * text is not such an object. */
bool grader_params_decode(struct lua_State *L, const char *json);

/* ---- constructors (grader_decl.c) ------------------------------------------ */

/* Constructors (pack, lesson, page, question, calculator) into the globals
 * at index g. In declare mode they record each call with its line for
 * validation; in grade mode question{} and calculator{} only index their
 * table by id. */
enum grader_decl_mode { GRADER_DECL_GRADE = 0, GRADER_DECL_PACK, GRADER_DECL_LESSON };
void grader_decl_open(struct lua_State *L, int g);
/* Forgets every declaration and goes back to grade mode, as in a fresh
 * state (a reused sandbox, before each job). Raises on memory. */
void grader_decl_reset(struct lua_State *L);
void grader_decl_set_mode(struct lua_State *L, enum grader_decl_mode mode);
/* Pushes the question table declared with id `qid` (grade mode), or nil. */
void grader_decl_push_question(struct lua_State *L, const char *qid);
/* Pushes the calculator table declared with id `cid` (grade mode), or nil. */
void grader_decl_push_calc(struct lua_State *L, const char *cid);

/* What a recorded call declared. */
enum grader_decl_kind {
    GRADER_D_PACK = 1,
    GRADER_D_LESSON,
    GRADER_D_PAGE,
    GRADER_D_QUESTION,
    GRADER_D_CALC,
    GRADER_D_FORMULAS,
    GRADER_D_N
};
/* "pack", "lesson", "page", "question", "calculator", "formulas" ("?" for
 * others). Static. */
const char *grader_decl_name(int kind);
/* Pushes the list of calls recorded in declare mode since the constructors
 * were opened: { kind, value, line } each, in call order. */
void grader_decl_push_records(struct lua_State *L);

/* ---- reading a declaration's tables into C (grader_decl_read.c) ---------- */

/* Packs and grading read what a pack file declared through these, never
 * through the Lua stack. A table is named by its stack slot `t` (held by
 * the caller: a job's fixed slot, an evaluation's record, a sub-table
 * opened below). Every read is raw: no metamethod runs. Strings are
 * borrowed from the table, valid while it holds them. */

/* A value's type: the values of Lua's LUA_T* tags (checked at compile time). */
enum grader_ltype {
    GRADER_LT_NONE = -1,
    GRADER_LT_NIL = 0,
    GRADER_LT_BOOL = 1,
    GRADER_LT_NUM = 3,
    GRADER_LT_STR = 4,
    GRADER_LT_TAB = 5,
    GRADER_LT_FUN = 6
};
/* "nil", "number", "string", "table", ... (what luaL_typename says). Static. */
const char *grader_ltype_name(int type);

/* A value read into C: its type, and a boolean, number (num; `integer`:
 * Lua's integer subtype; isint: exact as an integer, which is i, as
 * lua_tointegerx reads it: a string such as "2" too) or string (str, len
 * bytes; borrowed) as such. `slot`: in a
 * grader_pairs walk, the stack slot holding it for the callback's
 * duration (a table value can be read there); 0 otherwise. */
struct grader_dval {
    int type;
    bool b;
    bool integer;
    bool isint;
    long long i;
    double num;
    const char *str;
    size_t len;
    int slot;
};
/* A number as Lua's tostring writes it ("3", "2.5", "3.0"), into buf. */
void grader_num_text(const struct grader_dval *d, char *buf, size_t n);
/* The value at stack slot idx (a job's fixed slot, or -1: what a call
 * just pushed) into *out; returns its type. */
int grader_value(struct lua_State *L, int idx, struct grader_dval *out);
/* t[name], t[i] into *out; return its type. */
int grader_field(struct lua_State *L, int t, const char *name, struct grader_dval *out);
int grader_index(struct lua_State *L, int t, long long i, struct grader_dval *out);
/* t[name] for a name of n bytes (not NUL-terminated). */
int grader_field_n(struct lua_State *L, int t, const char *name, size_t n, struct grader_dval *out);
/* The type of t[name] (GRADER_LT_NIL when absent) and of the value at slot idx. */
int grader_field_type(struct lua_State *L, int t, const char *name);
int grader_type(struct lua_State *L, int idx);
bool grader_has_field(struct lua_State *L, int t, const char *name);
/* A copy of t[name] when it is a string, else NULL. */
char *grader_str_field(struct lua_State *L, int t, const char *name);
/* A copy of t[name] when it is a list of strings (*n its length; NULL when
 * empty or not such a list); *present (optional): whether t has the field. */
char **grader_strs_field(struct lua_State *L, int t, const char *name, size_t *n, bool *present);
/* True with *out set when t[name] is a number (a boolean). */
bool grader_num_field(struct lua_State *L, int t, const char *name, double *out);
bool grader_bool_field(struct lua_State *L, int t, const char *name, bool *out);
/* The length of the list at t (its border, #t raw); 0 when t is no table. */
size_t grader_len(struct lua_State *L, int t);
/* The number of entries of table t, named or not. */
size_t grader_count(struct lua_State *L, int t);
/* Is every key of table t an integer 1..#t (a list, maybe with holes)? Is
 * it a list without holes (grader_is_list)? Of values of type ty, each
 * (grader_is_list_of, ty a GRADER_LT_*)? */
bool grader_list_keys(struct lua_State *L, int t);
bool grader_is_list(struct lua_State *L, int t);
bool grader_is_list_of(struct lua_State *L, int idx, int ty);
/* Walks every entry of table t (in next order): fn gets its key and value
 * read into C (the value's `slot` valid during the call) and returns false
 * to stop. fn must leave the stack as it found it. */
typedef bool (*grader_pair_fn)(const struct grader_dval *key, const struct grader_dval *val,
                               void *ud);
void grader_pairs(struct lua_State *L, int t, grader_pair_fn fn, void *ud);
/* Opens the table t[name] (t[i]) onto the stack and returns its slot, or 0
 * (nothing opened) when it is not a table. grader_tab_close(L, sub) closes
 * it and whatever was opened after it (sub 0: nothing). */
int grader_tab_open(struct lua_State *L, int t, const char *name);
int grader_tab_open_at(struct lua_State *L, int t, long long i);
void grader_tab_close(struct lua_State *L, int sub);
/* Pushes the string s of n bytes: the result of a function whose contract
 * is to push one (grader_render). */
void grader_push_string(struct lua_State *L, const char *s, size_t n);
/* Pushes nil (a kind's `reference` when there is none). */
void grader_push_nil(struct lua_State *L);
/* Puts a new list of the n strings v[i] (len[i] bytes each) in stack slot
 * `slot` (a job's fixed slot: the rendered choices). */
void grader_slot_set_strs(struct lua_State *L, int slot, const char *const *v, const size_t *len,
                          size_t n);
/* Pushes t[name] and returns its type (for the Lua stack work of the
 * runtime and of the files of the top layer that still do their own). */
int grader_rawfield(struct lua_State *L, int t, const char *name);

/* ---- calling pack code from packs and grading (grader_call.c) -------------- */

/* Pushes t[name]; when it is a function, calls it (grader_sb_try: pack
 * code, under a fresh budget) with copies of the values at the stack slots
 * args[0..nargs) and pushes its first result instead. Returns the type of
 * what it pushed. *called: 0 when t[name] was no function, 1 when it was
 * called, -1 when the call failed (its message, a string "file:line: ...",
 * pushed instead). */
int grader_push_field_called(struct lua_State *L, int t, const char *name, const int *args,
                             int nargs, int *called);
/* Raises the value on top of the stack as the job's error (a message
 * grader_sb_try pushed). Does not return. */
int grader_raise(struct lua_State *L);
/* Raises the formatted message (up to 1 KiB), which names lines of the
 * file already (made from the pack model: not mapped again). Does not
 * return. */
int grader_raise_mapped(struct lua_State *L, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* A copy of the string at idx ("" when it is not one). */
char *grader_lua_strdup(struct lua_State *L, int idx);
/* Pushes a new table of n named numbers (a calculator's v): entry(i, ...)
 * gives the name (copied) and value of entry i, an integer when *integer
 * (v must then be exact as one). */
void grader_push_record(struct lua_State *L, size_t n,
                        void (*entry)(size_t i, const char **name, double *v, bool *integer,
                                      void *ud),
                        void *ud);
/* The start of a job's function (grader_sb_run's fn): returns the job's ud
 * (its one argument), enters C (grader_sb_enter_c) and leaves the stack
 * empty, so the job's own slots start at 1. */
void *grader_sb_job_start(struct lua_State *L);

/* ---- grader_rt_eval.c ---- */

/* Evaluating a pack file (grader_eval.c): its job and the declarations it
 * recorded, read without touching the Lua stack. */

/* Runs fn(ud) (ud pushed as a light userdata, fn's only argument, no
 * results) under grader_pcall in a sandbox of its own, made by
 * grader_sb_new (with pool's arena when it is free; pool optional) and
 * freed after: never one a pool keeps, never kept for the next job (each
 * pack file runs in a fresh state). Returns 0; or what grader_sb_new
 * returned, with *made false (no sandbox: err says why, without a file's
 * position); or what grader_pcall returned, with *made true (err says
 * "file:line: ..."). ud is borrowed for the call. */
int grader_sb_run_own(const struct grader_limits *lim, struct grader_sb_pool *pool,
                      int (*fn)(struct lua_State *L), void *ud, bool *made, struct core_err *err);
/* Opens the list of the calls recorded in declare mode
 * (grader_decl_push_records) onto the stack: returns its slot, with *n the
 * number of records. grader_tab_close closes it. */
int grader_decl_records_open(struct lua_State *L, size_t *n);
/* Record i (1-based) of the list at slot recs: *kind (a GRADER_D_*, as
 * recorded: a value outside the enum is the caller's to refuse) and *line
 * (the call's line in its file); the value declared (any type: a table, a
 * page's text, ...) is pushed and its slot returned, to read with
 * grader_value, grader_type and the field readers. grader_tab_close(L,
 * slot) closes it, and whatever was opened after it. */
int grader_decl_record_open(struct lua_State *L, int recs, size_t i, int *kind, int *line);

/* ---- grader_rt_grade.c ---- */

/* The stack work of a job's driver (grader_grade.c), so that it holds no
 * Lua of its own. Slots are stack indices (a job's fixed slot, or negative:
 * counted from the top). None calls pack code (but grader_setfield, through
 * a metatable pack code set on the table) or raises, except on memory (the
 * state's allocator refusing, which the job's grader_pcall reports). */

/* The number of values on the stack (the index of the top one). */
int grader_top(struct lua_State *L);
/* Cuts the stack back (or pads it with nil) to `top` values. */
void grader_settop(struct lua_State *L, int top);
/* Pops the n values on top of the stack (what a call returned, once read:
 * strings read from them are no longer held). */
void grader_pop(struct lua_State *L, int n);
/* Pops the top value into stack slot `slot` (a job's fixed slot). */
void grader_slot_replace(struct lua_State *L, int slot);
/* Pushes a copy of the value at idx (a table is shared, not copied). */
void grader_push_slot(struct lua_State *L, int idx);
/* Pushes a new empty table. */
void grader_push_table(struct lua_State *L);
/* Pops the top value into t[name]. Not raw: for tables of our own (ctx),
 * whose metatable, should pack code have set one, applies as it always
 * did. */
void grader_setfield(struct lua_State *L, int t, const char *name);
/* The value at idx as a string: a string's own bytes, a number converted
 * in place (as tostring writes it), NULL for anything else. Borrowed: valid
 * while the slot holds it. */
const char *grader_tostring(struct lua_State *L, int idx);

/* Puts a new ctx table { variant = variant (an integer), points = points }
 * in stack slot `slot`. */
void grader_ctx_new(struct lua_State *L, int slot, int variant, double points);
/* Pushes ctx.lab for the student's run: { id, lab, finished_at (when the
 * run has one), params = {...}, summary = {...} } with the run's values
 * (numbers or strings, copied); nil when run is NULL. run is borrowed. */
void grader_push_lab_run(struct lua_State *L, const struct grader_lab_run *run);
/* Completes the pretend run at t (an example's `lab`) in place, raw:
 * params and summary become empty tables when they are not tables, and an
 * absent id, lab or finished_at becomes 0, `lab` (NULL: "") and a fixed
 * 1970 time. */
void grader_lab_fill_pretend(struct lua_State *L, int t, const char *lab);
/* Pushes t[list][i][field] for the first i (1..#t[list]) where t[list][i]
 * and that field are both tables (the first example's pretend run); nil
 * when none is, or t[list] is no table. Raw reads. */
void grader_push_first_sub(struct lua_State *L, int t, const char *list, const char *field);
/* The params table at p cut down to the n names (repeats allowed) as JSON,
 * by grader_params_encode (the same NULL for what JSON cannot say). Caller
 * frees. Reads p raw. */
char *grader_params_encode_names(struct lua_State *L, int p, const char *const *names, size_t n);

/* ---- grader_rt_kind.c ---- */

/* For the question kinds (grader/'s top layer), beside the readers and
 * calls above: stack work with C types in and out. */

/* Pushes wb.lua's private grader `name` (from the private graders table,
 * grader_wb_push_graders) below the nargs values on top of the stack:
 * ready for a call of it with them (grader_job_call). A grader that does
 * not exist is pushed as nil (the call then fails as pack code would). */
void grader_grader_insert(struct lua_State *L, const char *name, int nargs);
/* The type of the value at stack slot idx (GRADER_LT_*), and in *out the
 * number it is (0 when it is none): grader_value for a number alone, as
 * cheap as Lua's own reads, for the grading's hot path (numeric). */
int grader_number_at(struct lua_State *L, int idx, double *out);
/* (grader_push_slot and grader_pop: grader_rt_grade.c, above.) */
/* Replaces the value on top of the stack with a new list holding it: { v }
 * (a single accepted answer as the list of them). */
void grader_list_wrap(struct lua_State *L);
/* The value d as Lua's tostring (lua_tolstring) reads it: a string as it
 * is (borrowed, as d->str), a number as tostring writes it (into buf, n
 * bytes); NULL for anything else. *len: its length (0 for NULL). */
const char *grader_dval_text(const struct grader_dval *d, char *buf, size_t n, size_t *len);

/* ---- grader_rt_selftest.c ---- */

/* For pack check's self-tests and attacks (grader_selftest.c,
 * grader_attack.c), which read through the readers above and do no stack
 * work of their own. */

/* (A mark on the stack and a drop back to it: grader_top and
 * grader_settop, above. Values a caller borrowed from what is dropped, a
 * dval's str, are no longer valid.) */
/* Puts a copy of the value at slot `from` in stack slot `slot` (a job's
 * fixed slot: the example being graded); from 0: nil. Both slots exist. */
void grader_slot_set(struct lua_State *L, int slot, int from);
/* As grader_push_field_called, for t[i] (a list entry: an example's
 * positional answer): pushes it, calling it first with copies of args
 * when it is a function. Returns the type of what it pushed; *called as
 * there (-1: the call failed, its message pushed instead). */
int grader_push_index_called(struct lua_State *L, int t, long long i, const int *args, int nargs,
                             int *called);

#endif /* WB_GRADER_RUNTIME_H */
