/*
 * core.h — shared types and helpers for every Warpbench module.
 *
 * Provides: the error type (struct core_err) and error codes, allocation
 * helpers that abort on exhaustion, a growable byte buffer, a string list,
 * a JSON writer, SHA-256, clocks (real and injectable), whole-file I/O with
 * atomic replace, and the embedded-file table type used for sources compiled
 * into the binary.
 *
 * Invariants: nothing here does I/O except the core_file_* functions; nothing
 * keeps global state. Uses libc only.
 */
#ifndef WB_CORE_H
#define WB_CORE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- errors -------------------------------------------------------------- */

/* Error codes: 0 is success, every failure is negative. */
enum core_code {
    CORE_OK = 0,
    CORE_ERR_USAGE = -1,     /* the caller (a user on the command line) asked nonsense */
    CORE_ERR_INVALID = -2,   /* bad input: a pack, an answer, a parameter */
    CORE_ERR_NOTFOUND = -3,  /* a named thing does not exist */
    CORE_ERR_IO = -4,        /* a file or process operation failed */
    CORE_ERR_STORE = -5,     /* the database failed */
    CORE_ERR_LIMIT = -6,     /* a sandbox limit (memory, instructions, time) was hit */
    CORE_ERR_SCRIPT = -7,    /* instructor Lua code raised an error */
    CORE_ERR_CONFLICT = -8,  /* the request conflicts with stored state */
    CORE_ERR_INTERNAL = -9,  /* our own bug */
    CORE_ERR_CANCELLED = -10 /* the user cancelled */
};

/* Caller-owned error report; usable even when memory is exhausted. */
struct core_err {
    int code;
    char msg[256];
};

/* Fills `e` (when not NULL) with `code` and a printf-style message, and
 * returns `code`, so callers can write `return core_err_set(e, ...)`. */
int core_err_set(struct core_err *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Prefixes the message already in `e` with a printf-style context
 * ("while importing x: <old message>"). Returns e->code. */
int core_err_prefix(struct core_err *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Clears `e` to CORE_OK and an empty message. */
void core_err_clear(struct core_err *e);

/* A short lower-case name for a code ("invalid", "store", ...). Static. */
const char *core_code_name(int code);

/* ---- memory -------------------------------------------------------------- */

/* Allocation in our own code never fails: these abort with a message when
 * the system is out of memory. Free with free(). */
void *core_xmalloc(size_t n);
void *core_xcalloc(size_t count, size_t size);
void *core_xrealloc(void *p, size_t n);
char *core_xstrdup(const char *s);
/* Copies exactly n bytes and adds a NUL. */
char *core_xstrndup(const char *s, size_t n);
/* Returns a malloc'd printf-style string. */
char *core_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- byte buffer --------------------------------------------------------- */

/* A growable buffer, always NUL-terminated when data != NULL. */
struct core_buf {
    char *data;
    size_t len;
    size_t cap;
};

void core_buf_init(struct core_buf *b);
void core_buf_fini(struct core_buf *b);
void core_buf_reset(struct core_buf *b); /* len = 0, keeps capacity */
void core_buf_append(struct core_buf *b, const void *p, size_t n);
void core_buf_puts(struct core_buf *b, const char *s);
void core_buf_putc(struct core_buf *b, char c);
void core_buf_printf(struct core_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void core_buf_vprintf(struct core_buf *b, const char *fmt, va_list ap);
/* Returns the data (never NULL; "" for an empty buffer) and leaves `b`
 * empty. Caller frees with free(). */
char *core_buf_steal(struct core_buf *b);

/* ---- string list --------------------------------------------------------- */

/* An owned list of owned strings. */
struct core_strlist {
    char **items;
    size_t n;
    size_t cap;
};

void core_strlist_init(struct core_strlist *l);
void core_strlist_fini(struct core_strlist *l);
void core_strlist_push(struct core_strlist *l, const char *s); /* copies s */
void core_strlist_pushf(struct core_strlist *l, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ---- typos ---------------------------------------------------------------- */

/* Edits between a and b: insertions, deletions, substitutions and swaps of
 * two neighbouring bytes (restricted Damerau-Levenshtein); 99 when either is
 * longer than 64 bytes. Pure. */
size_t core_str_distance(const char *a, const char *b);
/* The one of names[0..n) closest to s when it is close enough to be a typo
 * of it (1 edit up to 4 bytes, 2 up to 8, else 3), else NULL. Borrowed from
 * names. Pure. */
const char *core_str_closest(const char *s, const char *const *names, size_t n);

/* ---- JSON writing -------------------------------------------------------- */

/* A small streaming JSON writer into a core_buf. It inserts commas itself;
 * callers only say what comes next. Nesting deeper than 32 is a bug. */
struct core_json {
    struct core_buf *out;
    int depth;
    bool first[32];   /* no element written yet at this depth */
    bool after_key;   /* a key was just written */
};

void core_json_init(struct core_json *j, struct core_buf *out);
void core_json_obj_begin(struct core_json *j);
void core_json_obj_end(struct core_json *j);
void core_json_arr_begin(struct core_json *j);
void core_json_arr_end(struct core_json *j);
void core_json_key(struct core_json *j, const char *key);
void core_json_str(struct core_json *j, const char *s); /* NULL writes null */
void core_json_num(struct core_json *j, double v);     /* NaN/inf write null */
void core_json_int(struct core_json *j, long long v);
void core_json_bool(struct core_json *j, bool v);
void core_json_null(struct core_json *j);
/* A key and its value in one call. */
void core_json_kstr(struct core_json *j, const char *key, const char *s);
void core_json_knum(struct core_json *j, const char *key, double v);
void core_json_kint(struct core_json *j, const char *key, long long v);
void core_json_kbool(struct core_json *j, const char *key, bool v);
/* Appends `s` as a quoted, escaped JSON string (no comma logic). */
void core_json_quote(struct core_buf *b, const char *s);

/* JSON reading, for the flat objects the store keeps (lab parameters,
 * summaries, machine descriptions). Nested objects flatten to dotted keys
 * ("gpu.name"), array elements to 1-based ones ("speedup.2"); true/false read
 * as numbers 1/0; null members are skipped; a repeated member keeps its
 * first place and takes its last value. Malformed text (or a top level
 * that is not an object) is CORE_ERR_INVALID naming the byte offset. */
struct core_kv {
    char *key;
    char *str;  /* non-NULL for a string value */
    double num; /* when is_num */
    bool is_num;
};
int core_json_parse_flat(const char *json, struct core_kv **out, size_t *n, struct core_err *err);
void core_kv_free(struct core_kv *v, size_t n);
/* The member named key, or NULL. */
const struct core_kv *core_kv_find(const struct core_kv *v, size_t n, const char *key);

/* ---- hashing ------------------------------------------------------------- */

/* SHA-256 of n bytes at p, written as 64 lower-case hex digits + NUL. */
void core_sha256_hex(const void *p, size_t n, char out[65]);

/* Incremental SHA-256, for digests over several files. */
struct core_sha256 {
    uint32_t h[8];
    uint64_t len;
    unsigned char block[64];
    size_t fill;
};
void core_sha256_init(struct core_sha256 *s);
void core_sha256_update(struct core_sha256 *s, const void *p, size_t n);
void core_sha256_final_hex(struct core_sha256 *s, char out[65]);

/* 64-bit FNV-1a over n bytes, continuing from `h` (start with
 * CORE_FNV_OFFSET). Stable on every machine; used for variant seeds. */
#define CORE_FNV_OFFSET 0xcbf29ce484222325ULL
uint64_t core_fnv1a(uint64_t h, const void *p, size_t n);

/* ---- clocks -------------------------------------------------------------- */

/* Seconds on a monotonic clock (for durations). */
double core_time_mono(void);
/* Seconds since the Unix epoch (for records). */
double core_time_wall(void);
/* Writes the UTC time `t` (epoch seconds) as ISO-8601 with milliseconds,
 * "2026-11-21T10:00:00.123Z", into out (at least 25 bytes). */
void core_time_iso(double t, char out[32]);

/* An injectable clock: production passes core_clock_real(); tests pass their
 * own to drive time. */
struct core_clock {
    double (*now)(void *ctx);              /* monotonic seconds */
    void (*sleep)(void *ctx, double secs); /* may return early on a signal */
    void *ctx;
};
const struct core_clock *core_clock_real(void);

/* ---- process identity ----------------------------------------------------- */

/* Who owns a long-lived record (a running lab run): host name, boot id, pid
 * and the process's start time since boot, so a reused pid or a reboot is
 * not mistaken for the owner. As text: "host|boot|pid|start" (at most
 * CORE_OWNER_MAX bytes with the NUL). */
#define CORE_OWNER_MAX 192
void core_owner_self(char out[CORE_OWNER_MAX]);
/* 1 when the owner described by `owner` is still running, 0 when it
 * certainly is not (same host and boot, and no process with that pid and
 * start time), -1 when this machine cannot tell (another host, no /proc,
 * unreadable text). */
int core_owner_alive(const char *owner);

/* ---- files --------------------------------------------------------------- */

/* Reads a whole file. On success *out holds the bytes (NUL-terminated, caller
 * frees with free()) and *len their count. Errors: CORE_ERR_NOTFOUND,
 * CORE_ERR_IO, CORE_ERR_INVALID when larger than max_bytes. */
int core_file_read(const char *path, size_t max_bytes, char **out, size_t *len,
                   struct core_err *err);

/* Reads the first line of a small file (a /proc or /sys value) into buf
 * (size bytes, caller-owned), without its newline and trailing blanks; a
 * longer line is cut to size - 1 bytes. False, buf unspecified, when the
 * file cannot be opened or is empty. */
bool core_file_first_line(const char *path, char *buf, size_t size);

/* Writes n bytes to path through a temporary file, fsync and rename, so the
 * file is either the old or the new content. Creates no directories. */
int core_file_write_atomic(const char *path, const void *p, size_t n, struct core_err *err);

/* Creates a directory and its parents (mode 0755 adjusted by umask). An
 * existing directory is fine. */
int core_mkdir_p(const char *path, struct core_err *err);

/* Joins a directory and a relative name with one '/'. Caller frees. */
char *core_path_join(const char *dir, const char *name);

/* ---- embedded files ------------------------------------------------------ */

/* A file compiled into the binary by cmake/embed.cmake. Tables of these end
 * with an entry whose path is NULL. */
struct core_embedded {
    const char *path;
    const unsigned char *data;
    size_t len;
};

/* ---- metric samples ------------------------------------------------------ */

/* One point of a lab's metric stream. `series` is borrowed. */
struct core_sample {
    const char *series;
    long long step;
    double value;
    double t; /* seconds since the run started */
};

#endif /* WB_CORE_H */
