/*
 * grader_sandbox.c — the Lua sandbox every pack file, render and grading
 * runs in: memory, allow-listed libraries, limits, and the one protected
 * call from C.
 *
 * Memory. Each sandbox allocates from an arena (grader_sb_arena.c): a
 * private anonymous mapping the size of the memory cap, kept warm in a pool
 * between sandboxes. The allocator here counts Lua's bytes and refuses past
 * the cap; a sandbox is destroyed by dropping the arena — never lua_close,
 * so a state abandoned mid-operation is as easy to drop as a finished one.
 *
 * Reuse. grader_sb_run keeps the sandbox of a job that went well in the
 * pool and runs the next job there, because building a state (libraries,
 * wb.lua) cost more than the grading. It gives each job what a new sandbox
 * would: what jobs share is read-only to pack code (grader_sb_lib.c, in
 * every sandbox); before a job the registry's per-job parts are reset and
 * garbage past GC_SLACK is collected; the allocator counts the job's bytes
 * from a new state's level (`adjust`, and the kept chunks: see
 * grader_sb_chunk_get); and a sandbox whose job failed in any way is freed.
 *
 * Limits, and why pcall inside a script cannot swallow them:
 *   - Instructions: a count hook every HOOK_STEP VM instructions adds up the
 *     budget of the current call. At the limit the hook records the position,
 *     marks the sandbox killed and re-arms itself to fire on EVERY
 *     instruction, raising the limit error each time. A script that catches
 *     the error with pcall gets it again at its next instruction, so the
 *     error unwinds to our C code, which re-raises it past any of our own
 *     protected calls. (The coroutine library is not offered, so there is no
 *     second Lua thread whose hook could be missed. Lua calls an xpcall
 *     message handler for an error raised in a hook from inside the hook,
 *     with hooks off, so xpcall is wrapped: after a kill the instructor's
 *     handler is not called at all.)
 *   - Memory: the allocator refuses past the cap. A refusal is final unless
 *     the same request then succeeds (Lua retries once after an emergency
 *     collection; lauxlib's buffers do not retry and raise an ordinary
 *     "not enough memory" error that pcall could catch). So the allocator
 *     records the position of the innermost pack-file frame at the refusal
 *     and arms the hook for the next instruction; there, or when the error
 *     reaches our C code, a refusal still pending is a memory kill, handled
 *     as above (a little headroom lets the error message be allocated).
 *   - C library work: a library call executes no VM instruction, so the
 *     guarded library functions charge the budget for what they handle
 *     (grader_sb_charge; how much: grader_sb_lib.c). The charge is a
 *     function of the arguments only, the same on every machine and under
 *     any load.
 *   - Time, a backstop only: each thread that grades owns a POSIX timer
 *     (timer_create on the thread's CPU-time clock, SIGEV_THREAD_ID)
 *     delivering SB_SIGNAL to that thread. CPU time, not wall time: the
 *     thread's own CPU time does not grow while other processes hold the
 *     core, so a busy machine does not change the outcome. The default
 *     (2000 ms) is far above what the instruction budget takes (about
 *     60 ms on the development machine), so it decides nothing that
 *     instructions and memory decide; what it stops is time spent inside
 *     one library call whose cost the charge cannot know in advance (a
 *     pattern that backtracks: Lua patterns are polynomial in the length
 *     of the subject). The timer ticks TICKS times per limit of CPU time
 *     (armed once per thread, never re-armed per grading); each call into
 *     instructor code starts again at tick 0, and at its last tick the
 *     handler sets the hook to fire on the next instruction (lua_sethook is
 *     signal-safe; lua.c's SIGINT handler does the same), which kills as
 *     above. A long C call (a pathological pattern) executes no
 *     instruction, so if control has still not come back at the next tick
 *     the handler siglongjmp()s out of grader_pcall. The state is then
 *     abandoned and freed wholesale, and never read again.
 *     The jump's invariant, which each part below can be checked against:
 *     the handler jumps only while may_jump is set and no_jump is 0.
 *     may_jump is set only by grader_sb_guard_enter(L, true), which the
 *     guards of string.find, match, gsub and gmatch's iterator
 *     (grader_sb_lib.c) call around lstrlib's own function: the pattern
 *     matcher, which calls no libc function that takes a lock (memchr,
 *     memcmp and the like) and allocates through Lua's allocator alone.
 *     Everything else clears it: every other guard for its call, gsub's
 *     replacement function or table while it runs (pack code and
 *     metamethods), every message handler where an error is raised, before
 *     anything unwinds (l_msgh; pcall's and xpcall's, grader_sb_lib.c), and
 *     every entry to and return from a call into pack code (grader_pcall,
 *     grader_sb_try). A memory error raises no handler, but a refusal arms
 *     the hook for the next instruction, which kills. The allocator's
 *     malloc and free (grader_sb_arena.c) raise no_jump, as do our C
 *     functions that call libc (wb's number parser, wb.lab). So no jump
 *     leaves a libc lock held, or a Lua object half made that is read
 *     again: the state is dropped, and the kill's position is the copy the
 *     guard made on entry. The handler, the key that ends a thread's timer
 *     and the timer are each checked where they are made: without any of
 *     them the thread has no timer, and the hook compares the clock each
 *     HOOK_STEP instructions instead (a long C call then runs to its end).
 *   - Positions ("file:line" of a pack file, i.e. an "@path" chunk): kills
 *     from the hook use the running frame; a memory kill the innermost frame
 *     at the first refusal; a jump out of a long C call the pack line that
 *     called the pattern function it was in (copied by its guard on entry).
 *     Failing all that, the line where the
 *     called instructor function is defined (or the question, when wb.lua
 *     was running). Searches stop after WHERE_DEPTH frames: a runaway
 *     recursion has a million, and lua_getstack is linear in the level.
 *
 * Libraries: the allow-listed ones, their guards and the file environments
 * are in grader_sb_lib.c, which is above this file: a sandbox is opened with
 * the table of functions that set its libraries up and reset them between
 * jobs (struct grader_sb_libs), and grader_sb_lib.c's grader_sb_new and
 * grader_sb_run pass its own.
 *
 * Uses core (errors, buffers), the arena, lua.h, and POSIX timers and
 * signals.
 */
#define _GNU_SOURCE
#include "grader_runtime.h"

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define HOOK_STEP 1000         /* instructions between two budget checks */
#define HEADROOM (256u * 1024) /* bytes allowed past the cap once killed, for the error */
#define TICKS 4                /* timer ticks per time limit */
#define SB_SIGNAL (SIGRTMIN + 6)

/* ---- the sandbox ----------------------------------------------------------- */

enum sb_kill { KILL_NONE = 0, KILL_MEM, KILL_INSTR, KILL_TIME };

struct sb_thread {
    timer_t timer;
    bool has_timer;
    int64_t period; /* the timer's interval in ns, 0 while not armed */
    struct grader_sb *volatile current;
};

struct grader_sb {
    lua_State *L;
    struct grader_limits lim;
    struct grader_arena arena; /* where the state lives (grader_sb_arena.c) */
    size_t used;               /* bytes Lua holds */
    int64_t adjust;            /* added to used for the cap: a reused state counts as fresh */
    size_t base;               /* a reused state's bytes after its first full collection */
    size_t cached;             /* bytes of the chunks it keeps loaded (not the job's) */
    size_t hit;                /* bytes of the kept chunk this job runs (the job's, as if loaded) */
    size_t mark;               /* used before the load of a chunk not kept yet */
    bool reuse;                /* kept between jobs by grader_sb_run */
    bool refused;              /* the allocator refused a request since the job began */
    bool ready;                /* state fully built: positions may be read in the allocator */
    /* a refused request: final unless the same request succeeds next */
    const void *ref_ptr;
    size_t ref_osize, ref_nsize;
    bool ref_pending;
    bool check_armed;   /* the hook runs once to see whether a refusal stood */
    char ref_where[96]; /* where the first pending refusal happened */
    /* limits; the volatile fields are read by the signal handler */
    volatile sig_atomic_t running; /* inside grader_pcall's lua_pcall */
    volatile sig_atomic_t in_user; /* instructor code runs (the deadline applies) */
    volatile sig_atomic_t no_jump; /* > 0: the handler must not jump */
    volatile sig_atomic_t time_up;
    volatile sig_atomic_t ticks; /* timer ticks of instructor code in the current call */
    int64_t deadline_ns;         /* without a timer: the hook reads the clock */
    int kill;
    uint64_t instr;
    bool dead; /* abandoned after a jump: the state must not be touched */
    char where[96];
    char fallback[96];
    /* note_fallback's position, written into fallback only when a message
     * needs it (where_text): every call notes one, few are ever told */
    bool fb_pending;
    int fb_line;
    char fb_src[LUA_IDSIZE];
    /* the cut file loaded by grader_sb_load_mapped: its source and line map */
    const struct grader_linemap *map;
    char map_src[LUA_IDSIZE];
    /* > 0: the handler may jump (a pattern matcher runs: see the file
     * comment); set only by grader_sb_guard_enter, cleared by every error */
    volatile sig_atomic_t may_jump;
    /* the pack line that called the running pattern function, copied when
     * it was called: after a jump only these copies are read */
    volatile sig_atomic_t g_valid;
    char g_where[96];
    struct sb_thread *thread;
    sigjmp_buf jb;
    const struct grader_sb_libs *libs; /* what grader_sb_open set it up with */
};

/* ---- positions ----------------------------------------------------------- */

#define WHERE_DEPTH 64 /* frames searched for a position (lua_getstack is O(level)) */

/* "file:line" of the innermost function of a pack file ("@path" chunks)
 * from `level` up; with `any`, of any Lua function when no pack file is
 * near the top of the stack (wb.lua's chunk is "=wb"). Looks at most
 * WHERE_DEPTH frames: a runaway recursion has a million. */
/* The file's line for `line` of the function described by ar. */
static int file_line(lua_State *L, const lua_Debug *ar, int line)
{
    struct grader_sb *sb = grader_sb_of(L);
    if (sb->map && ar->source[0] == '@' && strcmp(ar->short_src, sb->map_src) == 0)
        return grader_linemap_orig(sb->map, line);
    return line;
}

static bool where_lua(lua_State *L, int level, bool any, char *buf, size_t n)
{
    lua_Debug ar;
    bool found = false;
    for (int end = level + WHERE_DEPTH; level < end && lua_getstack(L, level, &ar); level++) {
        if (!lua_getinfo(L, "Sl", &ar) || ar.currentline <= 0)
            continue;
        if (ar.source[0] == '@') {
            snprintf(buf, n, "%s:%d", ar.short_src, file_line(L, &ar, ar.currentline));
            return true;
        }
        if (any && !found) {
            snprintf(buf, n, "%s:%d", ar.short_src, ar.currentline);
            found = true;
        }
    }
    return found;
}

/* src into dst of n > 0 bytes, cut as snprintf("%s") cuts, without its
 * cost: positions are noted on every job. */
static void copy_text(char *dst, size_t n, const char *src)
{
    size_t len = strnlen(src, n - 1);
    memcpy(dst, src, len);
    dst[len] = '\0';
}

static const char *where_text(struct grader_sb *sb)
{
    if (sb->where[0])
        return sb->where;
    if (sb->fb_pending) {
        snprintf(sb->fallback, sizeof sb->fallback, "%s:%d", sb->fb_src, sb->fb_line);
        sb->fb_pending = false;
    }
    return sb->fallback[0] ? sb->fallback : "?";
}

static void fmt_bytes(size_t n, char *buf, size_t len)
{
    if (n % (1u << 20) == 0)
        snprintf(buf, len, "%zu MiB", n >> 20);
    else if (n % 1024 == 0)
        snprintf(buf, len, "%zu KiB", n >> 10);
    else
        snprintf(buf, len, "%zu bytes", n);
}

static void kill_what(const struct grader_sb *sb, char *buf, size_t n)
{
    char b[32];
    switch (sb->kill) {
    case KILL_MEM:
        fmt_bytes(sb->lim.mem_bytes, b, sizeof b);
        snprintf(buf, n, "memory limit (%s) exceeded", b);
        break;
    case KILL_INSTR:
        snprintf(buf, n, "instruction limit (%llu instructions) exceeded",
                 (unsigned long long)sb->lim.instructions);
        break;
    default:
        snprintf(buf, n, "time limit (%u ms of CPU) exceeded", sb->lim.cpu_ms);
        break;
    }
}

static int limit_error(struct grader_sb *sb, struct core_err *err)
{
    char what[96];
    kill_what(sb, what, sizeof what);
    return core_err_set(err, CORE_ERR_LIMIT, "%s: %s", where_text(sb), what);
}

/* ---- allocator ------------------------------------------------------------ */

static void sb_hook(lua_State *L, lua_Debug *ar);

static void mem_kill(struct grader_sb *sb)
{
    sb->ref_pending = false;
    if (sb->kill)
        return;
    sb->kill = KILL_MEM;
    if (sb->ref_where[0])
        memcpy(sb->where, sb->ref_where, sizeof sb->where);
    if (sb->L && sb->ready)
        lua_sethook(sb->L, sb_hook, LUA_MASKCOUNT, 1);
}

static void *sb_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    struct grader_sb *sb = ud;
    if (nsize == 0) {
        if (ptr) {
            sb->used -= osize;
            grader_arena_free(&sb->arena, ptr, osize);
        }
        return NULL;
    }
    size_t old = ptr ? osize : 0; /* without ptr, osize is a type tag */
    if (nsize > old) {
        int64_t cap = (int64_t)(sb->lim.mem_bytes + (sb->kill ? HEADROOM : 0));
        if ((int64_t)(sb->used - old + nsize) + sb->adjust - (int64_t)sb->cached +
                (int64_t)sb->hit >
            cap)
            goto refuse;
    }
    void *np = ptr ? grader_arena_realloc(&sb->arena, ptr, osize, nsize)
                   : grader_arena_alloc(&sb->arena, nsize);
    if (!np)
        goto refuse;
    sb->used = sb->used - old + nsize;
    if (sb->ref_pending && sb->ref_ptr == ptr && sb->ref_osize == osize && sb->ref_nsize == nsize)
        sb->ref_pending = false; /* Lua's retry after its emergency collection worked */
    return np;

refuse:
    sb->refused = true;
    if (sb->ref_pending && sb->ref_ptr == ptr && sb->ref_osize == osize && sb->ref_nsize == nsize) {
        mem_kill(sb); /* the retry failed too */
    } else if (!sb->kill && sb->ready && sb->L) {
        if (!sb->ref_pending) /* the first refusal names the line */
            where_lua(sb->L, 0, false, sb->ref_where, sizeof sb->ref_where);
        sb->ref_pending = true;
        sb->ref_ptr = ptr;
        sb->ref_osize = osize;
        sb->ref_nsize = nsize;
        sb->check_armed = true;
        lua_sethook(sb->L, sb_hook, LUA_MASKCOUNT, 1);
    }
    return NULL;
}

/* ---- clock, timer, signal ------------------------------------------------ */

/* The grading thread's CPU time: what the time backstop counts. */
static int64_t cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static _Thread_local struct sb_thread *tls_thread;
static pthread_key_t thread_key;
static pthread_once_t thread_once = PTHREAD_ONCE_INIT;

/* Makes the thread's timer tick every `ns` of its CPU time. It stays armed
 * between gradings (re-arming costs two system calls per grading): a
 * CPU-time timer cannot expire while the thread sleeps in a system call,
 * and a tick that finds no grading running does nothing. */
static void timer_periodic(struct sb_thread *t, int64_t ns)
{
    if (!t->has_timer || t->period == ns)
        return;
    struct itimerspec its = {0};
    its.it_value.tv_sec = its.it_interval.tv_sec = ns / 1000000000;
    its.it_value.tv_nsec = its.it_interval.tv_nsec = ns % 1000000000;
    if (timer_settime(t->timer, 0, &its, NULL) == 0)
        t->period = ns;
}

/* CPU time between two ticks of the backstop. */
static int64_t tick_ns(const struct grader_sb *sb)
{
    return (int64_t)sb->lim.cpu_ms * 1000000 / TICKS;
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)uc;
    int saved = errno;
    struct sb_thread *t = tls_thread;
    if (!t || si->si_code != SI_TIMER)
        goto out;
    struct grader_sb *sb = t->current;
    if (!sb || !sb->running)
        goto out;
    if (!sb->time_up) {
        /* Reading a CPU-time clock costs a system call, so calls do not
         * read it: each begins at tick 0 and the timer ticks TICKS times
         * per limit, counting only while instructor code runs. */
        if (sb->in_user && ++sb->ticks >= TICKS) {
            sb->time_up = 1;
            lua_sethook(sb->L, sb_hook, LUA_MASKCOUNT, 1);
        }
        goto out; /* the next tick jumps if the hook has not killed it by then */
    }
    if (!sb->may_jump || sb->no_jump > 0)
        goto out; /* not a pattern matcher, or malloc: the next tick tries again */
    errno = saved;
    siglongjmp(sb->jb, 1);
out:
    errno = saved;
}

static void thread_gone(void *p)
{
    struct sb_thread *t = p;
    if (t->has_timer)
        timer_delete(t->timer);
    free(t);
}

/* The key that deletes a thread's timer when the thread ends, and the
 * handler of SB_SIGNAL, are set up: only then may a thread make a timer
 * (without them a timer would outlive its thread, or its signal would kill
 * the process). Without a timer the hook reads the clock instead. */
static bool signals_ready;

static void thread_init_once(void)
{
    if (pthread_key_create(&thread_key, thread_gone) != 0)
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SB_SIGNAL, &sa, NULL) != 0)
        return;
    signals_ready = true;
}

/* This thread's timer, made on first use and deleted when the thread ends. */
static struct sb_thread *thread_get(void)
{
    if (tls_thread)
        return tls_thread;
    pthread_once(&thread_once, thread_init_once);
    struct sb_thread *t = core_xcalloc(1, sizeof *t);
    struct sigevent sev;
    memset(&sev, 0, sizeof sev);
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = SB_SIGNAL;
#ifdef sigev_notify_thread_id
    sev.sigev_notify_thread_id = gettid();
#else
    sev._sigev_un._tid = gettid();
#endif
    sev.sigev_value.sival_ptr = t;
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SB_SIGNAL);
    if (signals_ready && pthread_setspecific(thread_key, t) == 0 &&
        pthread_sigmask(SIG_UNBLOCK, &set, NULL) == 0)
        t->has_timer = timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &t->timer) == 0;
    tls_thread = t;
    return t;
}

/* ---- hook and message handler --------------------------------------------- */

struct grader_sb *grader_sb_of(lua_State *L)
{
    return *(struct grader_sb **)lua_getextraspace(L);
}

static void sb_hook(lua_State *L, lua_Debug *ar)
{
    struct grader_sb *sb = grader_sb_of(L);
    if (!sb->kill && sb->ref_pending) {
        mem_kill(sb); /* a refusal stood: where was recorded by the allocator */
    } else if (!sb->kill && sb->check_armed && !sb->time_up) {
        sb->check_armed = false; /* the retry worked: back to counting */
        lua_sethook(L, sb_hook, LUA_MASKCOUNT, HOOK_STEP);
        return;
    }
    if (!sb->kill) {
        if (sb->time_up) {
            sb->kill = KILL_TIME;
        } else {
            sb->instr += HOOK_STEP;
            if (sb->instr > sb->lim.instructions)
                sb->kill = KILL_INSTR;
            else if (sb->in_user && !sb->thread->has_timer && cpu_ns() >= sb->deadline_ns)
                sb->kill = KILL_TIME;
            else
                return;
        }
        (void)ar; /* level 0 is the running function */
        where_lua(L, 0, false, sb->where, sizeof sb->where);
        lua_sethook(L, sb_hook, LUA_MASKCOUNT, 1); /* from now on: every instruction */
    }
    char what[96];
    kill_what(sb, what, sizeof what);
    lua_pushfstring(L, "%s: %s", where_text(sb), what);
    grader_sb_mark_mapped(L);
    lua_error(L);
}

/* True when msg starts with "chunk:line:" (or Lua's "[string ...]:line:"). */
static bool has_position(const char *msg)
{
    const char *p = msg;
    if (strncmp(p, "[string ", 8) == 0) {
        p = strstr(p, "]:");
        if (!p)
            return false;
        p++;
    } else {
        while (*p && *p != ':' && *p != ' ' && *p != '\n')
            p++;
        if (*p != ':' || p == msg)
            return false;
    }
    p++;
    if (*p < '0' || *p > '9')
        return false;
    while (*p >= '0' && *p <= '9')
        p++;
    return *p == ':';
}

static const char MAPPED_KEY = 'p'; /* registry: set of messages already mapped */

/* Pushes the set of mapped messages, made on first use. */
static void push_mapped(lua_State *L)
{
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &MAPPED_KEY) != LUA_TTABLE) { /* set? */
        lua_pop(L, 1);
        lua_newtable(L);                                /* set */
        lua_pushvalue(L, -1);                           /* set set */
        lua_rawsetp(L, LUA_REGISTRYINDEX, &MAPPED_KEY); /* set */
    }
}

/* Is the message on top of the stack in the set? */
static bool is_mapped(lua_State *L)
{
    push_mapped(L);                            /* msg set */
    lua_pushvalue(L, -2);                      /* msg set msg */
    bool seen = lua_rawget(L, -2) != LUA_TNIL; /* msg set seen */
    lua_pop(L, 2);                             /* msg */
    return seen;
}

void grader_sb_mark_mapped(lua_State *L)
{
    if (!grader_sb_of(L)->map || !lua_isstring(L, -1))
        return;
    push_mapped(L);        /* msg set */
    lua_pushvalue(L, -2);  /* msg set msg */
    lua_pushboolean(L, 1); /* msg set msg true */
    lua_rawset(L, -3);     /* msg set */
    lua_pop(L, 1);         /* msg */
}

/* Rewrites every "src:N:" of the cut file in the message on top of the
 * stack to the file's line (a message may hold several: "a.lua:5: a.lua:9:
 * boom" after a rethrow). Leaves the message alone without a map. */
static void map_message(lua_State *L)
{
    struct grader_sb *sb = grader_sb_of(L);
    size_t n, sn = strlen(sb->map_src);
    const char *msg = lua_tolstring(L, -1, &n);
    if (!sb->map || !msg || sn == 0 || !strstr(msg, sb->map_src))
        return;
    /* A message our C code raises again passes here again: map it once. */
    if (is_mapped(L))
        return;
    luaL_Buffer b;
    luaL_buffinit(L, &b); /* msg buf... */
    size_t i = 0;
    while (i < n) {
        const char *hit = i < n ? strstr(msg + i, sb->map_src) : NULL;
        if (!hit)
            break;
        size_t at = (size_t)(hit - msg), k = at + sn;
        luaL_addlstring(&b, msg + i, k - i);
        i = k;
        char before = at ? msg[at - 1] : ' '; /* "lab_a.lua" is not "a.lua" */
        bool whole = !((before >= 'a' && before <= 'z') || (before >= 'A' && before <= 'Z') ||
                       (before >= '0' && before <= '9') || strchr("_./-", before));
        if (whole && k < n && msg[k] == ':' && k + 1 < n && msg[k + 1] >= '0' &&
            msg[k + 1] <= '9') {
            size_t d = k + 1;
            long line = 0;
            while (d < n && msg[d] >= '0' && msg[d] <= '9' && line < 100000000)
                line = line * 10 + (msg[d++] - '0');
            if (d < n && msg[d] == ':') {
                char num[24];
                snprintf(num, sizeof num, ":%d", grader_linemap_orig(sb->map, (int)line));
                luaL_addstring(&b, num);
                i = d;
            }
        }
    }
    luaL_addlstring(&b, msg + i, n - i);
    luaL_pushresult(&b); /* msg mapped */
    lua_remove(L, -2);   /* mapped */
    grader_sb_mark_mapped(L);
}

/* Keeps "file:line: message"; adds the innermost Lua position when the
 * message has none (error("x", 0), error objects that are not strings). */
static int l_msgh(lua_State *L)
{
    grader_sb_of(L)->may_jump = 0; /* an error: no matcher runs from here on */
    const char *msg = lua_tostring(L, 1);
    if (!msg)
        msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    if (has_position(msg)) {
        lua_settop(L, lua_isstring(L, 1) ? 1 : 2);
        map_message(L);
        return 1;
    }
    char where[96];
    if (where_lua(L, 1, true, where, sizeof where))
        lua_pushfstring(L, "%s: %s", where, msg);
    return 1;
}

/* ---- calls ----------------------------------------------------------------- */

static void begin_user_call(struct grader_sb *sb, lua_State *L)
{
    sb->check_armed = false;
    sb->instr = 0;
    if (!sb->thread->has_timer)
        sb->deadline_ns = cpu_ns() + (int64_t)sb->lim.cpu_ms * 1000000;
    sb->ticks = 0;
    sb->time_up = 0;
    if (!sb->kill)
        lua_sethook(L, sb_hook, LUA_MASKCOUNT, HOOK_STEP);
    sb->in_user = 1;
    sb->no_jump = 0;
    sb->may_jump = 0;
}

/* Remembers where the function at `fidx` is defined, for a kill whose
 * position cannot be found otherwise (its text is made by where_text). */
static void note_fallback(struct grader_sb *sb, lua_State *L, int fidx)
{
    lua_Debug ar;
    lua_pushvalue(L, fidx); /* f */
    if (lua_getinfo(L, ">S", &ar) && ar.source[0] == '@') {
        copy_text(sb->fb_src, sizeof sb->fb_src, ar.short_src);
        sb->fb_line = file_line(L, &ar, ar.linedefined > 0 ? ar.linedefined : 1);
        sb->fb_pending = true;
    }
}

int grader_pcall(struct grader_sb *sb, int nargs, int nresults, struct core_err *err)
{
    lua_State *L = sb->L;
    int fidx = lua_gettop(L) - nargs;
    if (sb->dead || sb->kill) {
        lua_settop(L, fidx - 1);
        return limit_error(sb, err);
    }
    sb->fallback[0] = 0;
    sb->fb_pending = false;
    note_fallback(sb, L, fidx);
    lua_pushcfunction(L, l_msgh); /* f args msgh */
    lua_insert(L, fidx);          /* msgh f args */
    sb->thread = thread_get();
    sb->thread->current = sb;
    begin_user_call(sb, L);
    if (sigsetjmp(sb->jb, 0) != 0) {
        /* Out of a long C call: the state is inconsistent and is dropped.
         * (Only sb, unchanged since sigsetjmp, is used from here.) */
        sb->running = 0;
        sb->thread->current = NULL;
        sb->dead = true;
        if (!sb->kill) /* else it was killed before and found a way to go on */
            sb->kill = KILL_TIME;
        /* The state is never read again: the position is the copy the
         * pattern function's guard made when it was called. */
        if (sb->g_valid)
            memcpy(sb->where, sb->g_where, sizeof sb->where);
        return limit_error(sb, err);
    }
    timer_periodic(sb->thread, tick_ns(sb));
    sb->running = 1;
    int st = lua_pcall(L, nargs, nresults, fidx); /* msgh results | msgh err */
    sb->running = 0;
    sb->thread->current = NULL;
    sb->in_user = 0;
    sb->no_jump = 1;
    sb->may_jump = 0;
    sb->g_valid = 0;
    if (st == LUA_OK) {
        lua_remove(L, fidx); /* results */
        return 0;
    }
    int rc;
    if (sb->kill || st == LUA_ERRMEM || sb->ref_pending) {
        mem_kill(sb);
        rc = limit_error(sb, err);
    } else {
        const char *msg = lua_tostring(L, -1);
        rc = core_err_set(err, CORE_ERR_SCRIPT, "%s", msg ? msg : "error in error handling");
    }
    lua_settop(L, fidx - 1);
    return rc;
}

void grader_sb_enter_c(lua_State *L)
{
    struct grader_sb *sb = grader_sb_of(L);
    sb->in_user = 0;
    sb->no_jump = 1;
}

int grader_sb_try(lua_State *L, int nargs, int nresults)
{
    struct grader_sb *sb = grader_sb_of(L);
    int fidx = lua_gettop(L) - nargs;
    note_fallback(sb, L, fidx);
    lua_pushcfunction(L, l_msgh); /* f args msgh */
    lua_insert(L, fidx);          /* msgh f args */
    int saved_in = sb->in_user, saved_nj = sb->no_jump, saved_mj = sb->may_jump;
    begin_user_call(sb, L);
    int st = lua_pcall(L, nargs, nresults, fidx); /* msgh results | msgh err */
    sb->in_user = saved_in;
    sb->no_jump = saved_nj;
    sb->may_jump = saved_mj;
    lua_remove(L, fidx);
    if (sb->kill || st == LUA_ERRMEM || sb->ref_pending) {
        mem_kill(sb);
        char what[96];
        kill_what(sb, what, sizeof what);
        lua_pushfstring(L, "%s: %s", where_text(sb), what);
        grader_sb_mark_mapped(L);
        lua_error(L);
    }
    if (st == LUA_OK)
        return 0;
    if (!lua_isstring(L, -1)) {
        lua_pop(L, 1);
        lua_pushliteral(L, "error in error handling");
    }
    return -1;
}

void grader_sb_set_fallback(lua_State *L, const char *where)
{
    struct grader_sb *sb = grader_sb_of(L);
    copy_text(sb->fallback, sizeof sb->fallback, where);
    sb->fb_pending = false;
}

void grader_sb_nojump_begin(lua_State *L)
{
    grader_sb_of(L)->no_jump++;
}

void grader_sb_nojump_end(lua_State *L)
{
    grader_sb_of(L)->no_jump--;
}

/* ---- library guards (grader_sb_lib.c) -------------------------------------- */

int grader_sb_guard_enter(lua_State *L, bool matcher)
{
    struct grader_sb *sb = grader_sb_of(L);
    int was = sb->may_jump;
    if (matcher) {
        /* The pack line it was called from (the innermost pack-file frame:
         * pcall(string.find, ...) is called by pcall), copied now: after a
         * jump the state is not read. */
        sb->g_valid = 0;
        if (where_lua(L, 1, false, sb->g_where, sizeof sb->g_where))
            sb->g_valid = 1;
    }
    sb->may_jump = matcher;
    return was;
}

void grader_sb_guard_leave(lua_State *L, int was)
{
    struct grader_sb *sb = grader_sb_of(L);
    if (sb->may_jump)
        sb->g_valid = 0;
    sb->may_jump = was;
}

void grader_sb_guard_unwind(lua_State *L)
{
    grader_sb_of(L)->may_jump = 0;
}

size_t grader_sb_used(lua_State *L)
{
    struct grader_sb *sb = grader_sb_of(L);
    int64_t n = (int64_t)sb->used + sb->adjust - (int64_t)sb->cached + (int64_t)sb->hit;
    return n > 0 ? (size_t)n : 0;
}

bool grader_sb_killed(lua_State *L)
{
    return grader_sb_of(L)->kill != KILL_NONE;
}

void grader_sb_charge(lua_State *L, uint64_t cost)
{
    struct grader_sb *sb = grader_sb_of(L);
    sb->instr += cost;
    if (sb->kill || sb->instr <= sb->lim.instructions)
        return;
    sb->kill = KILL_INSTR;
    where_lua(L, 0, false, sb->where, sizeof sb->where); /* the pack line that called */
    lua_sethook(L, sb_hook, LUA_MASKCOUNT, 1);           /* from now on: every instruction */
    char what[96];
    kill_what(sb, what, sizeof what);
    lua_pushfstring(L, "%s: %s", where_text(sb), what);
    grader_sb_mark_mapped(L);
    lua_error(L);
}

void grader_sb_set_map(lua_State *L, const struct grader_linemap *map)
{
    struct grader_sb *sb = grader_sb_of(L);
    sb->map = map && map->n ? map : NULL;
    sb->map_src[0] = '\0';
    if (!sb->map)
        return;
    lua_Debug ar;
    lua_pushvalue(L, -1);          /* f f */
    if (lua_getinfo(L, ">S", &ar)) /* f */
        copy_text(sb->map_src, sizeof sb->map_src, ar.short_src);
}

/* ---- life cycle --------------------------------------------------------------- */

static int l_panic(lua_State *L)
{
    const char *msg = lua_tostring(L, -1);
    fprintf(stderr, "warpbench: unprotected Lua error in the grader: %s\n", msg ? msg : "?");
    abort();
}

static struct grader_sb *sb_create(const struct grader_limits *lim, struct grader_sb_pool *pool)
{
    struct grader_sb *sb = core_xcalloc(1, sizeof *sb);
    sb->lim = *lim;
    sb->no_jump = 1;
    grader_arena_init(&sb->arena, pool, lim->mem_bytes, &sb->no_jump);
    return sb;
}

static void sb_destroy(struct grader_sb *sb)
{
    grader_arena_fini(&sb->arena);
    free(sb);
}

int grader_sb_open(struct grader_sb **out, const struct grader_limits *lim,
                   struct grader_sb_pool *pool, const struct grader_sb_libs *libs,
                   struct core_err *err)
{
    *out = NULL;
    struct grader_sb *sb = sb_create(lim, pool);
    lua_State *L = lua_newstate(sb_alloc, sb);
    if (!L) {
        sb_destroy(sb);
        return core_err_set(err, CORE_ERR_LIMIT, "memory limit too small for a Lua state");
    }
    sb->L = L;
    *(struct grader_sb **)lua_getextraspace(L) = sb;
    lua_atpanic(L, l_panic);
    sb->libs = libs;
    lua_pushcfunction(L, libs->open);
    int st = lua_pcall(L, 0, 0, 0);
    if (st != LUA_OK) {
        const char *msg = lua_tostring(L, -1);
        int rc = core_err_set(err, st == LUA_ERRMEM ? CORE_ERR_LIMIT : CORE_ERR_INTERNAL,
                              "cannot set up the grader sandbox: %s", msg ? msg : "?");
        sb_destroy(sb);
        return rc;
    }
    sb->ready = true;
    *out = sb;
    return 0;
}

/* ---- reuse -------------------------------------------------------------------- */

/* Garbage a reused state may carry into a job before a full collection
 * runs first. It counts against the job's memory cap like the job's own
 * bytes (a fresh state starts without it), so it is kept well below the cap:
 * a job has at most this much less room than in a fresh state. */
#define GC_SLACK (256u * 1024)
/* A state that ends a job with more of its arena touched than this is not
 * kept: its pages would stay resident for as long as the pack is open. */
#define KEEP_MAPPED (4u << 20)

static bool same_limits(const struct grader_limits *a, const struct grader_limits *b)
{
    return a->mem_bytes == b->mem_bytes && a->instructions == b->instructions &&
           a->cpu_ms == b->cpu_ms;
}

/* The chunks a reused state keeps loaded, by the address of their bytecode
 * (a pack's bytecode stays put while the pack, and so its pool, lives):
 * { f, bytecode length, bytes }. */
static const char CHUNKS_KEY = 'k';
/* registry: function(e) return function() return e end end, compiled once
 * per reused state: each call makes an upvalue of its own. */
static const char FRESH_UPVALUE_KEY = 'u';
#define CHUNK_CACHE_BYTES (1u << 20) /* at most this much kept loaded */

bool grader_sb_chunk_get(lua_State *L, const struct core_buf *bc)
{
    struct grader_sb *sb = grader_sb_of(L);
    sb->mark = sb->used;
    if (!sb->reuse)
        return false;
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &CHUNKS_KEY) != LUA_TTABLE) { /* cache? */
        lua_pop(L, 1);
        return false;
    }
    if (lua_rawgetp(L, -1, bc->data) != LUA_TTABLE) { /* cache e? */
        lua_pop(L, 2);
        return false;
    }
    lua_rawgeti(L, -1, 2); /* cache e len */
    lua_rawgeti(L, -2, 3); /* cache e len bytes */
    bool same = (size_t)lua_tointeger(L, -2) == bc->len;
    sb->hit = (size_t)lua_tointeger(L, -1);
    lua_pop(L, 2); /* cache e */
    if (!same) {   /* (never while the pack lives; loaded again, not kept) */
        lua_pop(L, 2);
        sb->hit = 0;
        return false;
    }
    lua_rawgeti(L, -1, 1); /* cache e f */
    lua_replace(L, -3);    /* f e */
    lua_pop(L, 1);         /* f */
    return true;
}

void grader_sb_chunk_put(lua_State *L, const struct core_buf *bc)
{
    struct grader_sb *sb = grader_sb_of(L);
    size_t bytes = sb->used > sb->mark ? sb->used - sb->mark : 0;
    if (!sb->reuse || sb->cached + bytes > CHUNK_CACHE_BYTES)
        return;
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &CHUNKS_KEY) != LUA_TTABLE) { /* f cache? */
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_rawsetp(L, LUA_REGISTRYINDEX, &CHUNKS_KEY);
    }
    if (lua_rawgetp(L, -1, bc->data) != LUA_TNIL) { /* f cache e: another chunk was there */
        lua_pop(L, 2);
        return;
    }
    lua_pop(L, 1); /* f cache */
    size_t at = sb->used;
    lua_createtable(L, 3, 0); /* f cache e */
    lua_pushvalue(L, -3);
    lua_rawseti(L, -2, 1);
    lua_pushinteger(L, (lua_Integer)bc->len);
    lua_rawseti(L, -2, 2);
    lua_rawsetp(L, -2, bc->data);                   /* f cache */
    lua_pop(L, 1);                                  /* f */
    bytes += sb->used > at ? sb->used - at : 0;     /* the entry itself */
    lua_rawgetp(L, LUA_REGISTRYINDEX, &CHUNKS_KEY); /* f cache */
    lua_rawgetp(L, -1, bc->data);                   /* f cache e */
    lua_pushinteger(L, (lua_Integer)bytes);
    lua_rawseti(L, -2, 3);
    lua_pop(L, 2); /* f */
    sb->cached += bytes;
    sb->hit = bytes;
}

void grader_sb_fresh_upvalue(lua_State *L, int f)
{
    f = lua_absindex(L, f);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &FRESH_UPVALUE_KEY); /* ... v maker */
    lua_insert(L, -2);                                     /* ... maker v */
    lua_call(L, 1, 1);                                     /* ... holder */
    lua_upvaluejoin(L, f, 1, -1, 1);
    lua_pop(L, 1);
}

/* What a reused state has beyond a new one (run protected). */
static int l_reuse_open(lua_State *L)
{
    static const char maker[] = "local v = ... return function() return v end";
    if (luaL_loadbufferx(L, maker, sizeof maker - 1, "=upvalue", "t") != LUA_OK)
        return lua_error(L);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &FRESH_UPVALUE_KEY);
    return 0;
}

/* A sandbox for reuse: a new one, collected, and set to count its bytes
 * from where the new one started, so every job sees the memory a new state
 * would give it. */
static int sb_new_reusable(struct grader_sb **out, const struct grader_limits *lim,
                           struct grader_sb_pool *pool, const struct grader_sb_libs *libs,
                           struct core_err *err)
{
    int rc = grader_sb_open(out, lim, pool, libs, err);
    if (rc)
        return rc;
    struct grader_sb *sb = *out;
    size_t fresh = sb->used;
    lua_pushcfunction(sb->L, l_reuse_open);
    if (lua_pcall(sb->L, 0, 0, 0) != LUA_OK) {
        grader_sb_free(sb);
        *out = NULL;
        return core_err_set(err, CORE_ERR_LIMIT, "memory limit too small for a Lua state");
    }
    lua_gc(sb->L, LUA_GCCOLLECT); /* no finalisers: __gc is refused, and none of ours is set */
    sb->base = sb->used;
    sb->adjust = (int64_t)fresh - (int64_t)sb->base;
    sb->reuse = true;
    return 0;
}

/* The job of a reused state, called with (fn, ud): forgets what the last
 * job declared and loaded, collects past the slack, then calls fn (the
 * job) in this same frame with ud as its only argument. Protected, so
 * running out of memory here is the job's error; nothing allocates before
 * the protected call (fn is a light C function). */
static int l_reused_job(lua_State *L)
{
    struct grader_sb *sb = grader_sb_of(L);
    grader_sb_enter_c(L);
    lua_CFunction fn = lua_tocfunction(L, 1);
    lua_remove(L, 1); /* ud */
    if (sb->used > sb->base + sb->cached + GC_SLACK)
        lua_gc(L, LUA_GCCOLLECT);
    lua_pushnil(L);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &MAPPED_KEY);
    sb->libs->job_reset(L);
    return fn(L);
}

/* Whether a state that ran a job without error may run the next. */
static bool reusable(const struct grader_sb *sb)
{
    return !sb->kill && !sb->dead && !sb->refused && !sb->ref_pending && lua_gettop(sb->L) == 0 &&
           sb->arena.bump <= KEEP_MAPPED;
}

int grader_sb_run_with(const struct grader_limits *lim, struct grader_sb_pool *pool,
                       const struct grader_sb_libs *libs, int (*fn)(lua_State *L), void *ud,
                       struct core_err *err)
{
    struct grader_sb_warm *w = pool ? grader_sb_pool_warm(pool) : NULL;
    struct grader_sb *sb = NULL;
    if (w && w->sb) {
        sb = w->sb;
        w->sb = NULL;
        if (!same_limits(&sb->lim, lim) || sb->libs != libs || w->fresh) {
            grader_sb_free(sb);
            sb = NULL;
        }
    }
    int rc = 0;
    if (sb)
        w->reused++;
    else {
        rc = w && !w->fresh ? sb_new_reusable(&sb, lim, pool, libs, err)
                            : grader_sb_open(&sb, lim, pool, libs, err);
        if (rc)
            return rc;
        if (w)
            w->made++;
    }
    lua_State *L = sb->L;
    int nargs = 1;
    if (sb->reuse) {
        lua_pushcfunction(L, l_reused_job); /* the job, behind the reset */
        nargs++;
        sb->refused = false;
        sb->hit = 0;
        sb->where[0] = sb->ref_where[0] = '\0';
        sb->map = NULL;
        sb->map_src[0] = '\0';
    }
    lua_pushcfunction(L, fn);
    lua_pushlightuserdata(L, ud);
    rc = grader_pcall(sb, nargs, 0, err);
    if (rc == 0 && sb->reuse && reusable(sb))
        w->sb = sb;
    else
        grader_sb_free(sb);
    return rc;
}

void grader_sb_free(struct grader_sb *sb)
{
    if (sb)
        sb_destroy(sb);
}

void grader_sb_pool_free(struct grader_sb_pool *pool)
{
    if (!pool)
        return;
    grader_sb_free(grader_sb_pool_warm(pool)->sb); /* gives the mapping back first */
    grader_arena_pool_free(pool);
}

lua_State *grader_sb_lua(struct grader_sb *sb)
{
    return sb->L;
}

/* ---- compiling ----------------------------------------------------------------- */

static int dump_writer(lua_State *L, const void *p, size_t n, void *ud)
{
    (void)L;
    core_buf_append(ud, p, n);
    return 0;
}

int grader_compile(const char *src, size_t len, const char *chunkname, struct core_buf *out,
                   struct core_err *err)
{
    struct grader_limits lim;
    grader_limits_default(&lim);
    lim.mem_bytes = 256u << 20; /* the parser's needs grow with the file, not with a script */
    struct grader_sb *sb = sb_create(&lim, NULL);
    lua_State *L = lua_newstate(sb_alloc, sb);
    if (!L) {
        sb_destroy(sb);
        return core_err_set(err, CORE_ERR_LIMIT, "out of memory compiling %s", chunkname + 1);
    }
    sb->L = L;
    *(struct grader_sb **)lua_getextraspace(L) = sb;
    lua_atpanic(L, l_panic);
    int rc = 0;
    int st = luaL_loadbufferx(L, src, len, chunkname, "t");
    if (st == LUA_OK) {
        lua_dump(L, dump_writer, out, 0);
    } else {
        const char *msg = lua_tostring(L, -1);
        /* Lua names the file in syntax errors ("l.lua:3: ..."), not in the
         * refusal of a binary chunk or a lack of memory: every problem
         * must say which file (found by tests/fuzz/fuzz_pack_lesson) */
        size_t nl = strlen(chunkname + 1);
        bool named = msg && strncmp(msg, chunkname + 1, nl) == 0 && msg[nl] == ':';
        rc = core_err_set(err, st == LUA_ERRMEM ? CORE_ERR_LIMIT : CORE_ERR_SCRIPT, "%s%s%s",
                          named ? "" : chunkname + 1,
                          named ? "" : ":1: ", msg ? msg : "cannot compile");
    }
    sb_destroy(sb);
    return rc;
}

/* ---- limits ------------------------------------------------------------------------ */

/* Under AddressSanitizer our code runs several times slower (the design
 * reader's parses most of all), so the CPU-time backstop is scaled with it;
 * the instruction budget, which is what packs meet, stays the same. */
#if defined(__SANITIZE_ADDRESS__)
#define SB_CPU_SLOWDOWN 5u
#else
#define SB_CPU_SLOWDOWN 1u
#endif

void grader_limits_default(struct grader_limits *l)
{
    l->mem_bytes = 32u << 20;
    l->instructions = 20000000;
    l->cpu_ms = 2000 * SB_CPU_SLOWDOWN;
}
