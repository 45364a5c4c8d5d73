/*
 * core.h — shared types and helpers for every Warpbench module.
 *
 * Provides: the error type (struct core_err) and error codes, allocation
 * helpers that abort on exhaustion, a growable byte buffer, a string list,
 * a JSON writer and a JSON reader (over jansson), the sanitiser of text
 * someone else wrote (core_text), UTF-8 decoding and stepping, numbers read and written
 * independently of the locale (and written for people), SHA-256, clocks
 * (real and injectable), whole-file reads, creation of the files a user
 * names (never through a link or into a device), and the embedded-file
 * table type used for sources compiled into the binary.
 *
 * Invariants: nothing here does I/O except the core_file_* functions; nothing
 * keeps global state (core_num's C locale object is made once and never
 * changes). Uses libc, and jansson for parsing JSON (core_jsonread.c only;
 * its types never leave that file).
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

/* Caller-owned error report; usable even when memory is exhausted: the
 * message lives in the struct, never on the heap, so a report needs no
 * allocation and no _fini.
 *
 * A message keeps its reason whatever the lengths of the paths and names in
 * it. One that does not fit CORE_ERR_MSG bytes (a path deep in a course
 * folder, several paths) is made to fit by shortening its long words in the
 * middle, longest first: a path keeps its first and last components
 * ("~/courses/…/data/pts.f32": the home folder is written ~, the middle
 * folders …), another long word its start and end; the short words — the
 * reason — are never cut. Only a message with no long word left to shorten
 * (about 40 words of the longest kind) loses its middle, never its end. */
#define CORE_ERR_MSG 1024
struct core_err {
    int code;
    char msg[CORE_ERR_MSG];
};

/* Fills `e` (when not NULL) with `code` and a printf-style message, made to
 * fit as above, and returns `code`, so callers can write `return
 * core_err_set(e, ...)`. */
int core_err_set(struct core_err *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Prefixes the message already in `e` with a printf-style context
 * ("while importing x: <old message>"), the whole made to fit as above.
 * Returns e->code. */
int core_err_prefix(struct core_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Writes text[0..n) into out (size bytes, at least 64), made to fit as a
 * message is (the long words shortened in the middle, the short ones
 * whole), NUL-terminated. For reports that are not a core_err: a line in a
 * fixed buffer. Never allocates. */
void core_err_fit(const char *text, size_t n, char *out, size_t size);

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
/* The same distance between a[0..na) and b[0..nb), bounded: max + 1 when it
 * is more than max (or either is longer than 64 bytes), found without
 * filling the whole table. The one edit distance of the project: names
 * ("did you mean") and misspelt words of design answers. Pure. */
size_t core_str_edits(const char *a, size_t na, const char *b, size_t nb, size_t max);
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
    bool first[32]; /* no element written yet at this depth */
    bool after_key; /* a key was just written */
};

void core_json_init(struct core_json *j, struct core_buf *out);
void core_json_obj_begin(struct core_json *j);
void core_json_obj_end(struct core_json *j);
void core_json_arr_begin(struct core_json *j);
void core_json_arr_end(struct core_json *j);
void core_json_key(struct core_json *j, const char *key);
void core_json_str(struct core_json *j, const char *s); /* NULL writes null */
void core_json_num(struct core_json *j, double v);      /* NaN/inf write null */
void core_json_int(struct core_json *j, long long v);
void core_json_bool(struct core_json *j, bool v);
void core_json_null(struct core_json *j);
/* A key and its value in one call. */
void core_json_kstr(struct core_json *j, const char *key, const char *s);
void core_json_knum(struct core_json *j, const char *key, double v);
void core_json_kint(struct core_json *j, const char *key, long long v);
void core_json_kbool(struct core_json *j, const char *key, bool v);
/* A key and its value when `has`, else null: a figure that does not apply
 * or is not told yet. */
void core_json_knum_if(struct core_json *j, const char *key, bool has, double v);
void core_json_kint_if(struct core_json *j, const char *key, bool has, long long v);
void core_json_kbool_if(struct core_json *j, const char *key, bool has, bool v);
/* Appends `s` as a quoted, escaped JSON string (no comma logic). */
void core_json_quote(struct core_buf *b, const char *s);

/* JSON reading (core_jsonread.c, jansson), for the flat objects the store
 * keeps (lab parameters, summaries, machine descriptions). Nested objects
 * flatten to dotted keys ("gpu.name"), array elements to 1-based ones
 * ("speedup.2"); true/false read as numbers 1/0; null members are skipped;
 * a repeated member keeps its first place and takes its last value.
 * Malformed text (not UTF-8, a top level that is not an object) is
 * CORE_ERR_INVALID naming the byte offset, and so is text beyond the
 * limits below. Linear in the text. */
#define CORE_JSON_MAX_BYTES (16 * 1024 * 1024)
#define CORE_JSON_MAX_DEPTH 64
#define CORE_JSON_MAX_MEMBERS 1000000
struct core_kv {
    char *key;  /* the keys of one result share one allocation: never free one */
    char *str;  /* non-NULL for a string value */
    double num; /* when is_num */
    bool is_num;
};
/* On success *out (NULL when empty; caller frees with core_kv_free) and *n;
 * on an error *out is NULL and *n 0. */
int core_json_parse_flat(const char *json, struct core_kv **out, size_t *n, struct core_err *err);
/* Frees what core_json_parse_flat returned (NULL: nothing). */
void core_kv_free(struct core_kv *v, size_t n);
/* The member named key, or NULL. */
const struct core_kv *core_kv_find(const struct core_kv *v, size_t n, const char *key);

/* ---- UTF-8 (core_utf8.c) ------------------------------------------------- */

/* Decodes the character at s: its length (1..4) with *cp, or 0 when the
 * bytes there are not valid UTF-8 (a stray continuation byte, C0, C1 or
 * F5..FF, a sequence cut short, an overlong form, a surrogate, beyond
 * U+10FFFF), *cp then U+FFFD. The NUL decodes as U+0000 of length 1. */
size_t core_utf8_decode(const char *s, uint32_t *cp);
/* The offset of the character after the one at s + at (at on a character
 * start); a byte that starts no valid sequence steps as one character. At
 * the terminating NUL, at itself. */
size_t core_utf8_next(const char *s, size_t at);
/* The start of the character before offset at (a character start), as
 * core_utf8_next steps from the start of s; 0 at the start. Looks back at
 * most four bytes. */
size_t core_utf8_prev(const char *s, size_t at);
/* Encodes cp into out (no NUL); returns its bytes (1..4). Surrogates and
 * values beyond U+10FFFF encode U+FFFD. */
size_t core_utf8_encode(char out[4], uint32_t cp);

/* ---- text someone else wrote (core_text.c) ------------------------------- */

/* Whether code point cp changes how the text around it shows instead of
 * showing itself: C0 controls and DEL, C1 controls, U+2028/U+2029 and the
 * bidirectional controls (U+061C, U+200E/F, U+202A..E, U+2066..9). Pure. */
bool core_text_unsafe(uint32_t cp);

/* What core_text_escape lets through of the unsafe characters. */
enum core_text_flags {
    CORE_TEXT_NEWLINES = 1u << 0, /* \n: text laid out over lines by its writer */
    CORE_TEXT_TABS = 1u << 1      /* \t */
};

/* Appends s (NULL: nothing) to b with every unsafe character (but those
 * `flags` keep) escaped visibly: caret notation for C0 and DEL ("^[", "^?"),
 * "<U+202E>" for the others, "<x9B>" for a byte that is not UTF-8. The one
 * sanitiser of file text shown or written: the CLI (cli_tx), CSV cells
 * (core_csv_field), the TUI's canvas draws the same characters as a
 * replacement glyph (core_text_unsafe) and the JSON writer escapes them as
 * \uXXXX. Pure. */
void core_text_escape(struct core_buf *b, const char *s, unsigned flags);
/* Whether core_text_escape would copy s unchanged. Pure. */
bool core_text_clean(const char *s, unsigned flags);
/* core_text_escape into a new string ("" for NULL). Caller frees. */
char *core_text_safe(const char *s, unsigned flags);

/* ---- numbers ------------------------------------------------------------- */

/* Reading and writing numbers in the C locale's notation ('.' decimal point,
 * no grouping) whatever the process locale: every number Warpbench reads or
 * writes back goes through these two (see core_num.c for why the conversion
 * is strtod under a thread-local C locale). */
enum core_num_flags {
    CORE_NUM_BLANKS = 1u << 0,    /* blanks (space, \t, \n, \v, \f, \r) around the number */
    CORE_NUM_NONFINITE = 1u << 1, /* "inf", "infinity", "nan" in any case, with a sign */
    CORE_NUM_HEX = 1u << 2        /* hexadecimal floats, "0x1.8p3" */
};

/* Reads the number in s[0..n) (s need not be NUL-terminated): an optional
 * sign, digits with at most one '.', an optional exponent ("2.5", "-.5",
 * "7.", "1e-3"); hex and inf/nan only when the flags say so. The result is
 * correctly rounded; subnormals are kept, and a magnitude below the
 * smallest one reads as 0 of the same sign.
 * With used == NULL the whole span must be the number (and blanks around it
 * with CORE_NUM_BLANKS). With used != NULL the number is the longest prefix
 * that is one, as strtod takes it ("2.5Gbps" -> 2.5, *used = 3; "1e" -> 1),
 * and *used is how many bytes it took (leading blanks included).
 * Returns 0 with *out set; CORE_ERR_INVALID when there is no number there,
 * or when its magnitude is beyond the largest double ("1e999": then *out is
 * +-HUGE_VAL, so a caller can tell "too large" from "not a number"); `err`
 * (optional) says which. */
int core_num_parse(const char *s, size_t n, unsigned flags, double *out, size_t *used,
                   struct core_err *err);

/* Writes v into buf (size bytes, caller-owned; cut like snprintf) with `sig`
 * significant digits as printf's %.*g does in the C locale ("2.5", "1e+09"),
 * or with sig <= 0 the fewest digits, at least 6, that read back as the
 * same double ("0.1", "100000", "0.3333333333333333").
 * Non-finite values are "inf", "-inf", "nan". Returns snprintf's count. */
int core_num_format(char *buf, size_t size, double v, int sig);

/* How core_num_human writes a number, beyond its rules for every caller. */
enum core_human_flags {
    CORE_HUMAN_WHOLE = 1u << 0,    /* whole numbers below 1e9 in full ("123457") */
    CORE_HUMAN_BINARY = 1u << 1,   /* B, KiB, MiB, GiB, TiB: a whole number of KiB, MiB, ...
                                      keeps its binary prefix ("32 KiB"); other sizes go to B
                                      with a decimal prefix ("1.05 MB") */
    CORE_HUMAN_PREFIXED = 1u << 2, /* a unit already prefixed is rescaled too ("1500 MB/s" is
                                      "1.5 GB/s"; "ms" from 1000 on in s) */
    CORE_HUMAN_TIGHT_X = 1u << 3   /* "×" and "x" follow the number without a space, as "%"
                                      always does ("2.5x") */
};

/* Writes v in `unit` (NULL: none) as people read it into buf (n bytes,
 * cut like snprintf, NUL-terminated when n > 0), in the C locale's
 * notation: `sig` significant digits, trailing zeros trimmed, never "-0",
 * no exponent between 1e-4 and 1e9; a base unit that takes decimal
 * prefixes (B, B/s, bit/s, bps, FLOP, FLOP/s, FLOPS, Hz, W) with the prefix
 * that fits ("1.5 TB/s"), rounding included (999.96 B at 4 digits is
 * "1 kB"); seconds below one in ms, µs or ns; "%" right after the number,
 * other units after a space; "n/a" when v is not finite. `flags` (enum
 * core_human_flags) add the rest. Pure. */
void core_num_human(char *buf, size_t n, double v, const char *unit, int sig, unsigned flags);

/* ---- CSV (RFC 4180) ------------------------------------------------------- */

/* Appends s (NULL: empty) as one CSV field, its unsafe characters escaped
 * (core_text_escape, line breaks included): as is, or in double quotes with
 * quotes doubled when it holds a comma, a semicolon, a quote, CR or LF, or
 * starts or ends with a blank. With `guard` (text cells a person typed: names, ids)
 * a cell a spreadsheet would run as a formula, one starting with = + - @
 * TAB or CR, is written quoted with a leading apostrophe ("'=1+2"), which
 * Excel, LibreOffice and Google Sheets show as text. The caller adds the
 * separators and the CRLF line ends. */
void core_csv_field(struct core_buf *b, const char *s, bool guard);

/* Whether s starts like a spreadsheet formula (see core_csv_field). */
bool core_csv_is_formula(const char *s);

/* Appends a number as a CSV field: at most two decimals, trailing zeros
 * trimmed, '.' as the decimal point whatever the locale; NaN or infinity
 * write an empty field. */
void core_csv_num(struct core_buf *b, double v);

/* Reads one CSV record (RFC 4180: quoted fields may hold commas, doubled
 * quotes and line breaks; CRLF or LF ends a record) from *p up to end,
 * pushing its fields to `fields` (cleared first) and moving *p past it.
 * Returns false at the end of the text. A UTF-8 byte-order mark at the
 * start of the text is skipped by the caller's first call (pass at_start). */
bool core_csv_read(const char **p, const char *end, bool at_start, struct core_strlist *fields);

/* ---- hashing ------------------------------------------------------------- */

/* SHA-256 of n bytes at p, written as 64 lower-case hex digits + NUL. */
void core_sha256_hex(const void *p, size_t n, char out[65]);

/* 128 random bits as 32 hex digits (a unique id, a salt): the kernel's
 * randomness, or the clock and the pid where the kernel gives none. */
void core_random_hex(char out[33]);

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
/* The one way Warpbench sleeps: until core_time_mono() reaches t (at once
 * when it has, or when t is NaN or infinite), resuming after signals.
 * CLOCK_MONOTONIC with an absolute deadline, so signals and slow wake-ups
 * never add up. */
void core_sleep_until(double t);
/* Sleeps `secs` seconds (nothing for secs <= 0 or NaN): core_sleep_until
 * of now + secs. */
void core_sleep(double secs);
/* Seconds since the Unix epoch (for records). */
double core_time_wall(void);
/* Writes the UTC time `t` (epoch seconds) as ISO-8601 with milliseconds,
 * "2026-11-21T10:00:00.123Z", into out (at least 25 bytes). */
void core_time_iso(double t, char out[32]);
/* Reads a UTC time as core_time_iso writes it (the milliseconds optional)
 * back into epoch seconds; NaN when s is NULL or not such a time. */
double core_time_from_iso(const char *s);
/* Reads a time a person writes, for deadlines: "2026-12-01" (the end of
 * that day, 23:59:59), "2026-12-01 23:59" or "2026-12-01T23:59:30.250"
 * (a fraction of a second kept), each
 * optionally followed by "Z" or an offset ("+01:00", "-0500"). Without an
 * offset the time is UTC. Returns epoch seconds, NaN when s is not such a
 * time (a field out of range included). */
double core_time_parse(const char *s);

/* An injectable clock: production passes core_clock_real(); tests pass their
 * own to drive time. */
struct core_clock {
    double (*now)(void *ctx);              /* monotonic seconds */
    void (*sleep)(void *ctx, double secs); /* real: core_sleep */
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

/* Files a user names (a lab's `save=`, `pack export DIR`): the one way
 * Warpbench writes them, so it never writes where it was not asked to.
 *
 * core_file_check_new says whether `path` may be written, before any work
 * is done: 0 when it does not exist and its directory does, or when
 * `overwrite` is set and it is an existing regular file. Every refusal names
 * the path:
 *   CORE_ERR_CONFLICT  it exists and overwrite is false; or it is a symbolic
 *                      link (dangling or not), a FIFO, a device or a socket,
 *                      which are never replaced, overwrite or not;
 *   CORE_ERR_INVALID   it names a directory (or ends in '/');
 *   CORE_ERR_NOTFOUND  its directory does not exist (it is not created);
 *   CORE_ERR_IO        anything else (permissions).
 * `how` (may be NULL) says how to ask for a replacement ("set overwrite=on",
 * "pass --force") and is added to the "already exists" message.
 * Only the last component is checked for a link: directories on the way are
 * followed, since they are how the user chose to name a folder.
 *
 * core_file_create writes n bytes there under the same rules: a new file
 * is created with O_CREAT|O_EXCL|O_NOFOLLOW (mode 0644 less the umask), so
 * whatever appeared since the check is refused, not replaced; it is written
 * in full, fsynced, and its directory fsynced; after a failure the partial
 * file is removed. With overwrite, an existing regular file is replaced
 * whole (a new file beside it, with its mode, renamed over it). */
int core_file_check_new(const char *path, bool overwrite, const char *how, struct core_err *err);
int core_file_create(const char *path, const void *p, size_t n, bool overwrite, const char *how,
                     struct core_err *err);

/* Gives the finished file `tmp` (in the same folder) the name `path`
 * without ever replacing what is there: a hard link, then tmp is removed.
 * An existing path is refused as core_file_create does, unless `force` and
 * it is a regular file (then tmp is renamed over it). On error tmp is left
 * for the caller to remove. */
int core_file_publish(const char *tmp, const char *path, bool force, struct core_err *err);

/* Makes the file `path` with a writer that needs a path of its own (SQLite
 * builds a database file): creates an empty temporary file beside path,
 * new (core_file_create's rules), calls write(tmp, ctx, err), and publishes
 * the result under path (core_file_publish). Whatever fails, no temporary
 * file (nor its "-journal") is left and path is untouched. Returns write's
 * or publishing's error. */
int core_file_build(const char *path, bool force,
                    int (*write)(const char *tmp, void *ctx, struct core_err *err), void *ctx,
                    struct core_err *err);

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
