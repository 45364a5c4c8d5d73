/*
 * grader_sb_arena.c — the memory a sandbox's Lua state lives in.
 *
 * Each sandbox allocates from an arena: a private anonymous mapping the size
 * of the memory cap (kept warm in a pool between sandboxes), cut into size
 * classes for blocks up to GRADER_ARENA_MID bytes; bigger blocks, and
 * everything once the mapping is used up, come from malloc with a header that
 * links them into the arena. Lua tells the allocator every block's size, so
 * small blocks carry no header. A sandbox is destroyed by dropping the arena
 * and freeing the linked blocks (grader_arena_fini) — never lua_close, so a
 * state abandoned mid-operation is as easy to drop as a finished one.
 *
 * The arena knows nothing of Lua or of limits: the sandbox's allocator
 * (grader_sandbox.c) counts the bytes and refuses past the cap. Around malloc
 * and free it raises the sandbox's no-jump counter, so the time limit's
 * siglongjmp never leaves a libc lock held.
 *
 * Uses core and POSIX mmap.
 */
#define _GNU_SOURCE
#include "grader_runtime.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define KEEP_WARM (1u << 20) /* arena bytes a pool keeps resident between sandboxes */
#define N_SMALL (GRADER_ARENA_SMALL / 16)

struct grader_arena_big {
    struct grader_arena_big *prev, *next;
    size_t size;
    size_t pad; /* keeps the block 16-byte aligned */
};

struct grader_sb_pool {
    char *base;
    size_t size;
    bool busy;
    struct grader_sb_warm warm; /* the sandbox kept between jobs (grader_sandbox.c) */
};

static size_t class_of(size_t n)
{
    if (n <= GRADER_ARENA_SMALL)
        return n == 0 ? 0 : (n + 15) / 16 - 1;
    return N_SMALL + (n - GRADER_ARENA_SMALL + 255) / 256 - 1;
}

static size_t class_size(size_t c)
{
    return c < N_SMALL ? (c + 1) * 16 : GRADER_ARENA_SMALL + (c - N_SMALL + 1) * 256;
}

static bool in_arena(const struct grader_arena *a, const void *p)
{
    return a->base && (const char *)p >= a->base && (const char *)p < a->base + a->size;
}

static void big_link(struct grader_arena *a, struct grader_arena_big *h)
{
    h->prev = NULL;
    h->next = a->bigs;
    if (a->bigs)
        a->bigs->prev = h;
    a->bigs = h;
}

static void *big_alloc(struct grader_arena *a, size_t n)
{
    (*a->no_jump)++;
    struct grader_arena_big *h = malloc(sizeof *h + n);
    if (h) {
        h->size = n;
        big_link(a, h);
    }
    (*a->no_jump)--;
    return h ? h + 1 : NULL;
}

static void big_unlink(struct grader_arena *a, struct grader_arena_big *h)
{
    if (h->prev)
        h->prev->next = h->next;
    else
        a->bigs = h->next;
    if (h->next)
        h->next->prev = h->prev;
}

static void big_free(struct grader_arena *a, void *p)
{
    struct grader_arena_big *h = (struct grader_arena_big *)p - 1;
    (*a->no_jump)++;
    big_unlink(a, h);
    free(h);
    (*a->no_jump)--;
}

void *grader_arena_alloc(struct grader_arena *a, size_t n)
{
    if (n <= GRADER_ARENA_MID) {
        size_t c = class_of(n);
        void *p = a->freelist[c];
        if (p) {
            a->freelist[c] = *(void **)p;
            return p;
        }
        size_t sz = class_size(c);
        if (a->base && a->bump + sz <= a->size) {
            p = a->base + a->bump;
            a->bump += sz;
            return p;
        }
    }
    return big_alloc(a, n);
}

void grader_arena_free(struct grader_arena *a, void *p, size_t osize)
{
    if (in_arena(a, p)) {
        size_t c = class_of(osize);
        *(void **)p = a->freelist[c];
        a->freelist[c] = p;
    } else {
        big_free(a, p);
    }
}

void *grader_arena_realloc(struct grader_arena *a, void *p, size_t osize, size_t nsize)
{
    if (in_arena(a, p)) {
        if (nsize <= GRADER_ARENA_MID && class_of(nsize) == class_of(osize))
            return p;
    } else if (nsize > GRADER_ARENA_MID) {
        struct grader_arena_big *h = (struct grader_arena_big *)p - 1;
        (*a->no_jump)++;
        big_unlink(a, h);
        struct grader_arena_big *nh = realloc(h, sizeof *nh + nsize);
        bool failed = !nh;
        if (failed)
            nh = h; /* the old block is intact: link it back and fail */
        big_link(a, nh);
        (*a->no_jump)--;
        if (failed)
            return NULL;
        nh->size = nsize;
        return nh + 1;
    }
    void *np = grader_arena_alloc(a, nsize);
    if (!np)
        return NULL;
    memcpy(np, p, osize < nsize ? osize : nsize);
    grader_arena_free(a, p, osize);
    return np;
}

void grader_arena_fini(struct grader_arena *a)
{
    struct grader_arena_big *h = a->bigs;
    while (h) {
        struct grader_arena_big *next = h->next;
        free(h);
        h = next;
    }
    a->bigs = NULL;
    if (a->pool) {
        if (a->bump > KEEP_WARM) /* give a bomb's pages back, keep the usual ones warm */
            madvise(a->base + KEEP_WARM, a->bump - KEEP_WARM, MADV_DONTNEED);
        a->pool->busy = false;
    } else if (a->base) {
        munmap(a->base, a->size);
    }
    a->base = NULL;
}

static size_t round_page(size_t n)
{
    size_t pg = 4096;
    return (n + pg - 1) / pg * pg;
}

/* The mapping for a memory cap: at least 1 MiB, whole pages. */
static size_t map_size(size_t mem_bytes)
{
    return round_page(mem_bytes < (1u << 20) ? (1u << 20) : mem_bytes);
}

static char *map_region(size_t size)
{
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

void grader_arena_init(struct grader_arena *a, struct grader_sb_pool *pool, size_t mem_bytes,
                       volatile sig_atomic_t *no_jump)
{
    memset(a, 0, sizeof *a);
    a->no_jump = no_jump;
    if (pool && !pool->busy && pool->base && pool->size >= 1) {
        pool->busy = true;
        a->pool = pool;
        a->base = pool->base;
        a->size = pool->size;
    } else {
        a->size = map_size(mem_bytes);
        a->base = map_region(a->size);
        if (!a->base)
            a->size = 0;
    }
}

struct grader_sb_pool *grader_sb_pool_new(size_t mem_bytes)
{
    struct grader_sb_pool *pool = core_xcalloc(1, sizeof *pool);
    pool->size = map_size(mem_bytes);
    pool->base = map_region(pool->size);
    if (!pool->base)
        pool->size = 0;
    return pool;
}

struct grader_sb_warm *grader_sb_pool_warm(struct grader_sb_pool *pool)
{
    return &pool->warm;
}

void grader_arena_pool_free(struct grader_sb_pool *pool)
{
    if (!pool)
        return;
    if (pool->base)
        munmap(pool->base, pool->size);
    free(pool);
}
