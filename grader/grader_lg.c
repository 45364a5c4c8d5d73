/*
 * grader_lg.c — the English grammar behind design answers: link-grammar's
 * dictionary, one bounded parse of a run of words, and a cache of parses.
 * The only file of the project that includes a link-grammar header.
 *
 * What it needs: at build time liblink-grammar-dev (the header and the
 * library, found by pkg-config), at run time the library and its English
 * dictionary (Debian link-grammar-dictionaries-all, /usr/share/link-grammar/
 * en). scripts/setup.sh installs both. Without the dictionary a design
 * answer cannot be read for claims: grading it is an error that says what to
 * install (the rest of Warpbench works).
 *
 * Cost, measured (README, "Design answers"): the dictionary loads once per
 * process, on the first design answer that needs a parse — about 0.2 s and
 * 25 MB — and stays until exit; a parse of up to GRADER_LG_MAX_TOKENS
 * words takes about 1-2 ms, rarely 20 ms.
 *
 * Bounds. The caller (grader_design_read.c) hands over runs of at most
 * GRADER_LG_MAX_TOKENS words, already cut at clause boundaries: the parser's
 * work grows with the cube of a run's length, so the cap bounds the time and
 * memory of one parse; how many runs one answer may parse is the caller's
 * budget. The search for a linkage with words left out (null words, what
 * keeps a sentence with one word the dictionary does not expect readable)
 * is allowed only up to MAX_NULLS words and only for runs of at most
 * NULL_TOKENS. link-grammar's own CPU-time limit (whole seconds) is a last
 * backstop. link-grammar allocates with malloc, so its memory is not the
 * sandbox's; the sandbox's caller brackets a parse so that no time-limit
 * jump can leave the library holding a lock.
 *
 * Cache. Parses are kept by their input text (the words as handed over,
 * joined), so an answer graded twice, a sample graded by every pack check,
 * or the same sentence in a class import is parsed once per process. The
 * cache holds at most CACHE_ENTRIES parses and is emptied when full.
 *
 * Locale. Loading the dictionary may set the program's LC_CTYPE; it is put
 * back, so number reading elsewhere does not change.
 *
 * Thread-safe: one lock around the dictionary's first load, the cache and
 * the parser.
 */
#include "grader.h"
#include "grader_internal.h"

#include <link-grammar/dict-api.h>
#include <link-grammar/link-includes.h>

#include <locale.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_NULLS 2     /* words a parse may leave out */
#define NULL_TOKENS 18  /* ...in runs of at most this many words */
#define PARSE_SECONDS 1 /* link-grammar's own CPU-time limit per parse (whole seconds) */
#define CACHE_ENTRIES 8192
#define LINKAGES 16 /* linkages looked at, so that the best comes first (measured: no slower) */

static pthread_mutex_t lg_lock = PTHREAD_MUTEX_INITIALIZER;
static Dictionary lg_dict;
static bool lg_tried;    /* the load was tried (it is not tried again) */
static char lg_why[200]; /* why it failed */
static struct grader_lg_stats lg_stats;

/* ---- the cache ---------------------------------------------------------------------- */

struct entry {
    uint64_t hash;
    char *key;
    struct grader_lg_parse parse;
};

static struct entry **cache; /* CACHE_ENTRIES slots, open addressing */
static size_t cache_n;

static uint64_t fnv(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ULL;
    }
    return h;
}

static void cache_clear(void)
{
    if (!cache)
        return;
    for (size_t i = 0; i < CACHE_ENTRIES; i++) {
        if (cache[i]) {
            free(cache[i]->key);
            free(cache[i]);
            cache[i] = NULL;
        }
    }
    cache_n = 0;
}

static struct entry *cache_find(const char *key, uint64_t h)
{
    if (!cache)
        return NULL;
    for (size_t i = h % CACHE_ENTRIES;; i = (i + 1) % CACHE_ENTRIES) {
        struct entry *e = cache[i];
        if (!e)
            return NULL;
        if (e->hash == h && strcmp(e->key, key) == 0)
            return e;
    }
}

static void cache_put(const char *key, uint64_t h, const struct grader_lg_parse *p)
{
    if (!cache)
        cache = core_xcalloc(CACHE_ENTRIES, sizeof *cache);
    if ((cache_n + 1) * 4 > CACHE_ENTRIES * 3) /* three quarters full: start again */
        cache_clear();
    struct entry *e = core_xmalloc(sizeof *e);
    e->hash = h;
    e->key = core_xstrdup(key);
    e->parse = *p;
    size_t i = h % CACHE_ENTRIES;
    while (cache[i])
        i = (i + 1) % CACHE_ENTRIES;
    cache[i] = e;
    cache_n++;
}

/* ---- the dictionary ----------------------------------------------------------------- */

/* link-grammar reports through this handler; nothing reaches the terminal. */
static void lg_message(lg_errinfo *ei, void *ud)
{
    (void)ud;
    if (ei->severity <= lg_Error)
        snprintf(lg_why, sizeof lg_why, "%s", ei->text ? ei->text : "");
}

static int64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Locale as set by the program, put back after link-grammar changed it. */
struct saved_locale {
    char text[512];
    bool ok;
};

static void locale_save(struct saved_locale *s)
{
    const char *l = setlocale(LC_ALL, NULL);
    s->ok = l && strlen(l) < sizeof s->text;
    if (s->ok)
        memcpy(s->text, l, strlen(l) + 1);
}

static void locale_restore(const struct saved_locale *s)
{
    const char *l = setlocale(LC_ALL, NULL);
    if (s->ok && (!l || strcmp(l, s->text) != 0))
        setlocale(LC_ALL, s->text);
}

/* Under lg_lock. */
static bool dict_ready(void)
{
    if (lg_tried)
        return lg_dict != NULL;
    lg_tried = true;
    struct saved_locale loc;
    locale_save(&loc);
    lg_error_set_handler(lg_message, NULL);
    int64_t t0 = now_ns();
    lg_why[0] = '\0';
    lg_dict = dictionary_create_lang("en");
    lg_stats.load_ns = now_ns() - t0;
    locale_restore(&loc);
    if (!lg_dict && !lg_why[0])
        snprintf(lg_why, sizeof lg_why, "no English dictionary");
    return lg_dict != NULL;
}

/* ---- one parse ---------------------------------------------------------------------- */

/* The part of speech link-grammar gave word w ("built.v-d" -> 'v',
 * "GPUs[!<PL-CAPITALIZED-WORDS>]" -> 'n' for a capitalised word the regex
 * rules took for a noun, "throughput[?].n" -> 'n'), '-' for a word left out
 * ("[strided]"), '?' otherwise. */
static char part_of_speech(const char *w)
{
    if (!w || !w[0])
        return '?';
    if (w[0] == '[' && w[1] != '!' && w[strlen(w) - 1] == ']')
        return '-';
    const char *dot = strrchr(w, '.');
    const char *close = strrchr(w, ']');
    if (dot && (!close || dot > close) && dot[1] >= 'a' && dot[1] <= 'z')
        return dot[1];
    if (close && strstr(w, "[!<") &&
        (strstr(w, "CAPITALIZED") || strstr(w, "UPPER") || strstr(w, "NOUN") || strstr(w, "PL-")))
        return 'n';
    return '?';
}

/* The token whose bytes hold input offset `at` (starts[] ascending). */
static int token_at(const size_t *starts, size_t n, size_t at)
{
    int t = -1;
    for (size_t i = 0; i < n && starts[i] <= at; i++)
        t = (int)i;
    return t;
}

static void read_linkage(Linkage lk, const size_t *starts, size_t n, size_t text_len,
                         struct grader_lg_parse *out)
{
    size_t nw = linkage_get_num_words(lk);
    int map[4 * GRADER_LG_MAX_TOKENS + 8];
    if (nw > sizeof map / sizeof map[0])
        nw = sizeof map / sizeof map[0];
    for (size_t w = 0; w < nw; w++) {
        const char *word = linkage_get_word(lk, w);
        map[w] = GRADER_LG_WALL;
        if (!word || strcmp(word, "LEFT-WALL") == 0 || strcmp(word, "RIGHT-WALL") == 0)
            continue;
        size_t at = linkage_get_word_byte_start(lk, w);
        if (at >= text_len)
            continue;
        int t = token_at(starts, n, at);
        if (t < 0)
            continue; /* the final punctuation */
        map[w] = t;
        char p = part_of_speech(word);
        if (out->pos[t] == 0 || out->pos[t] == '-' || out->pos[t] == '?')
            out->pos[t] = p;
    }
    for (size_t i = 0; i < n; i++)
        if (out->pos[i] == 0)
            out->pos[i] = '-';
    size_t nl = linkage_get_num_links(lk);
    for (size_t k = 0; k < nl && out->n_links < GRADER_LG_MAX_LINKS; k++) {
        size_t l = linkage_get_link_lword(lk, k), r = linkage_get_link_rword(lk, k);
        if (l >= nw || r >= nw)
            continue;
        int tl = map[l], tr = map[r];
        if (tl == tr && tl != GRADER_LG_WALL)
            continue; /* inside one token */
        const char *label = linkage_get_link_label(lk, k);
        struct grader_lg_link *x = &out->link[out->n_links++];
        x->l = (uint8_t)tl;
        x->r = (uint8_t)tr;
        snprintf(x->label, sizeof x->label, "%s", label ? label : "");
    }
}

static void parse_now(const char *text, const size_t *starts, size_t n, struct grader_lg_parse *out)
{
    Parse_Options po = parse_options_create();
    parse_options_set_verbosity(po, 0);
    parse_options_set_linkage_limit(po, LINKAGES); /* sorted: the first is the best */
    parse_options_set_short_length(po, 10);
    parse_options_set_spell_guess(po, 0); /* misspellings are the caller's, against the rubric */
    parse_options_set_max_parse_time(po, PARSE_SECONDS);
    parse_options_set_islands_ok(po, false);
    parse_options_set_min_null_count(po, 0);
    parse_options_set_max_null_count(po, n <= NULL_TOKENS ? MAX_NULLS : 0);
    Sentence s = sentence_create(text, lg_dict);
    if (s && sentence_split(s, po) == 0) {
        int found = sentence_parse(s, po);
        out->timed_out = parse_options_timer_expired(po) || parse_options_resources_exhausted(po);
        if (found > 0) {
            Linkage lk = linkage_create(0, s, po);
            if (lk) {
                out->linked = true;
                int nulls = sentence_null_count(s);
                out->nulls = (uint8_t)(nulls < 0 ? 0 : nulls > 255 ? 255 : nulls);
                read_linkage(lk, starts, n, strlen(text), out);
                linkage_delete(lk);
            }
        }
    }
    if (s)
        sentence_delete(s);
    parse_options_delete(po);
}

int grader_lg_parse(const char *const *tokens, size_t n, bool question, struct grader_lg_parse *out,
                    struct core_err *err)
{
    memset(out, 0, sizeof *out);
    if (n == 0)
        return CORE_OK;
    if (n > GRADER_LG_MAX_TOKENS)
        n = GRADER_LG_MAX_TOKENS;
    out->n = (uint8_t)n;
    /* The input: the tokens joined by spaces, with a full stop (or a
     * question mark) that closes the sentence for the grammar. */
    char text[GRADER_LG_MAX_TOKENS * (GRADER_LG_MAX_TOKEN + 1) + 4];
    size_t starts[GRADER_LG_MAX_TOKENS], len = 0;
    for (size_t i = 0; i < n; i++) {
        size_t tl = strnlen(tokens[i], GRADER_LG_MAX_TOKEN);
        starts[i] = len;
        memcpy(text + len, tokens[i], tl);
        len += tl;
        text[len++] = ' ';
    }
    text[len++] = question ? '?' : '.';
    text[len] = '\0';
    uint64_t h = fnv(text);
    pthread_mutex_lock(&lg_lock);
    int rc = CORE_OK;
    struct entry *e = cache_find(text, h);
    if (e) {
        *out = e->parse;
        lg_stats.hits++;
    } else if (!dict_ready()) {
        rc = core_err_set(err, CORE_ERR_INTERNAL,
                          "design answers are read with link-grammar, and its English "
                          "dictionary could not be loaded (%s): install link-grammar-"
                          "dictionaries-all (scripts/setup.sh)",
                          lg_why);
    } else {
        struct saved_locale loc;
        locale_save(&loc);
        int64_t t0 = now_ns();
        parse_now(text, starts, n, out);
        int64_t dt = now_ns() - t0;
        locale_restore(&loc);
        lg_stats.parses++;
        lg_stats.words += n;
        lg_stats.parse_ns += dt;
        if (dt > lg_stats.worst_ns)
            lg_stats.worst_ns = dt;
        cache_put(text, h, out);
    }
    pthread_mutex_unlock(&lg_lock);
    return rc;
}

int grader_lg_known(const char *word, bool *known, struct core_err *err)
{
    pthread_mutex_lock(&lg_lock);
    int rc = CORE_OK;
    if (!dict_ready())
        rc = core_err_set(err, CORE_ERR_INTERNAL,
                          "design answers are read with link-grammar, and its English "
                          "dictionary could not be loaded (%s): install link-grammar-"
                          "dictionaries-all (scripts/setup.sh)",
                          lg_why);
    else
        *known = dictionary_word_is_known(lg_dict, word);
    pthread_mutex_unlock(&lg_lock);
    return rc;
}

void grader_lg_stats_get(struct grader_lg_stats *s)
{
    pthread_mutex_lock(&lg_lock);
    *s = lg_stats;
    s->loaded = lg_dict != NULL;
    s->cached = cache_n;
    pthread_mutex_unlock(&lg_lock);
}

void grader_lg_cache_clear(void)
{
    pthread_mutex_lock(&lg_lock);
    cache_clear();
    pthread_mutex_unlock(&lg_lock);
}

void grader_parse_stats_get(struct grader_parse_stats *s)
{
    struct grader_lg_stats st;
    grader_lg_stats_get(&st);
    *s = (struct grader_parse_stats){.parses = st.parses,
                                     .hits = st.hits,
                                     .words = st.words,
                                     .parse_s = (double)st.parse_ns / 1e9,
                                     .worst_s = (double)st.worst_ns / 1e9};
}

void grader_parse_cache_clear(void)
{
    grader_lg_cache_clear();
}
