/*
 * grader_wb_design.c — wb._judge, the design rule as wb.lua calls it: a
 * design answer read (grader_design*.c) against a rubric of concepts given
 * as Lua tables — claims (subject, relation, object), phrases, patterns,
 * near groups, contradictions — with a score, a status and the evidence
 * per concept.
 *
 * Limits. The answer's memory is the sandbox's allocator. The work is
 * charged to the instruction budget as a function of the answer and the
 * rubric only (never of time or of the parse cache): words times rubric
 * entries, and PARSE_COST per word handed to the grammar. The grammar reads
 * at most GRADER_DESIGN_PARSE_BUDGET words of one answer, so its charge is
 * bounded too, well inside the budget. The grammar uses malloc and may
 * hold a lock, so its calls are bracketed against the time limit's jump
 * (grader_sb_nojump_begin); the limit still ends the grading when control
 * comes back.
 *
 * Uses lua.h, the design reader and the sandbox.
 */
#include "grader/pure/grader_design_internal.h"
#include "grader_runtime.h"

#include <lauxlib.h>
#include <lua.h>

#include <string.h>

/* registry: the guarded string.find, taken before pack code (grader_wb_open
 * stores it, before any pack code runs) */
const char grader_wb_find_key = 'f';

#define JUDGE_RETRIES 8  /* negated matches of one pattern skipped per sentence */
#define PARSE_COST 20000 /* instructions charged per word the grammar reads */
#define MAX_VOCAB 20000  /* bytes of question text taken for its vocabulary */

/* Pushes t[name] (raw) and returns its type. */
static int raw_field(lua_State *L, int t, const char *name)
{
    lua_pushstring(L, name);
    return lua_rawget(L, t < 0 ? t - 1 : t);
}

static enum grader_design_hit best(enum grader_design_hit a, enum grader_design_hit b)
{
    return a > b ? a : b;
}

/* Adds the words of every string in list t[name] (and of the strings in
 * its sub-tables, for `near`, `contradicts`, `claims` and `antonyms`) to k. */
static void known_from(lua_State *L, int t, const char *name, struct grader_design_known *k,
                       int depth)
{
    /* a claim's subject and object name things: kept whole as nouns */
    bool noun = strcmp(name, "subject") == 0 || strcmp(name, "object") == 0;
    if (raw_field(L, t, name) == LUA_TTABLE) { /* list */
        size_t n = lua_rawlen(L, -1);
        for (size_t i = 1; i <= n && i <= 256; i++) {
            int ty = lua_rawgeti(L, -1, (lua_Integer)i); /* list e */
            if (ty == LUA_TSTRING && noun)
                grader_design_known_add_noun(k, lua_tostring(L, -1));
            else if (ty == LUA_TSTRING)
                grader_design_known_add(k, lua_tostring(L, -1));
            else if (ty == LUA_TTABLE && depth < 3) {
                int e = lua_gettop(L);
                size_t m = lua_rawlen(L, e);
                for (size_t j = 1; j <= m && j <= 64; j++) {
                    if (lua_rawgeti(L, e, (lua_Integer)j) == LUA_TSTRING) /* list e s */
                        grader_design_known_add(k, lua_tostring(L, -1));
                    lua_pop(L, 1);
                }
                known_from(L, e, "match", k, depth + 1);
                known_from(L, e, "near", k, depth + 1);
                known_from(L, e, "subject", k, depth + 1);
                known_from(L, e, "relation", k, depth + 1);
                known_from(L, e, "object", k, depth + 1);
            }
            lua_pop(L, 1); /* list */
        }
    }
    lua_pop(L, 1);
}

/* The words a concept's Lua patterns start with, as prefixes ("async%w*"
 * and "asyn" give "async*" and "asyn*"): the segments that hold them are
 * read for clauses like those with a phrase. */
static void known_patterns(lua_State *L, int t, struct grader_design_known *k)
{
    if (raw_field(L, t, "patterns") == LUA_TTABLE) { /* pats */
        size_t n = lua_rawlen(L, -1);
        for (size_t i = 1; i <= n && i <= 64; i++) {
            if (lua_rawgeti(L, -1, (lua_Integer)i) == LUA_TSTRING) { /* pats p */
                const char *p = lua_tostring(L, -1);
                char w[33];
                size_t m = 0;
                while (m + 1 < sizeof w && p[m] >= 'a' && p[m] <= 'z') {
                    w[m] = p[m];
                    m++;
                }
                if (m >= 3) {
                    w[m] = '*';
                    w[m + 1 < sizeof w ? m + 1 : m] = '\0';
                    grader_design_known_add(k, w);
                }
            }
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
}

/* Adds the words of string t[name] (or of each string in list t[name]). */
static void vocab_from(lua_State *L, int t, const char *name, struct grader_design_known *k)
{
    int ty = raw_field(L, t, name); /* v */
    if (ty == LUA_TSTRING && lua_rawlen(L, -1) <= MAX_VOCAB) {
        grader_design_known_add(k, lua_tostring(L, -1));
    } else if (ty == LUA_TTABLE) {
        size_t n = lua_rawlen(L, -1);
        for (size_t i = 1; i <= n && i <= 64; i++) {
            if (lua_rawgeti(L, -1, (lua_Integer)i) == LUA_TSTRING && /* v s */
                lua_rawlen(L, -1) <= MAX_VOCAB)
                grader_design_known_add(k, lua_tostring(L, -1));
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
}

/* Looks a Lua pattern up in every sentence: found in an asserted clause and
 * not negated, negated, or only elsewhere. The guarded string.find does the
 * matching, so its work is charged like any library call. *clause gets the
 * clause of the best match. */
static enum grader_design_hit judge_pattern(lua_State *L, const struct grader_design *d,
                                            const char *pat, bool any, size_t *clause)
{
    enum grader_design_hit hit = GRADER_HIT_NONE;
    for (size_t i = 0; i < grader_design_n_sentences(d) && hit != GRADER_HIT_FOUND; i++) {
        size_t len;
        const char *text = grader_design_sentence(d, i, &len);
        lua_Integer init = 1;
        for (int tries = 0; tries < JUDGE_RETRIES && init <= (lua_Integer)len + 1; tries++) {
            lua_rawgetp(L, LUA_REGISTRYINDEX, &grader_wb_find_key); /* find */
            lua_pushlstring(L, text, len);
            lua_pushstring(L, pat);
            lua_pushinteger(L, init);
            lua_call(L, 3, 1); /* start|nil */
            if (lua_isnil(L, -1)) {
                lua_pop(L, 1);
                break;
            }
            lua_Integer at = lua_tointeger(L, -1);
            lua_pop(L, 1);
            enum grader_design_hit h = grader_design_hit_at(d, i, (size_t)(at - 1), any);
            if (h > hit) {
                hit = h;
                if (clause)
                    *clause = grader_design_clause_of(d, i, (size_t)(at - 1));
            }
            if (hit == GRADER_HIT_FOUND || h == GRADER_HIT_UNCLAIMED)
                break;
            init = at + 1;
        }
    }
    return hit;
}

/* The near groups of list t.near: { "warp", "switch*", within = 5 }. */
static enum grader_design_hit judge_near(lua_State *L, int t, const struct grader_design *d,
                                         bool fuzzy, bool any, struct grader_design_known *k)
{
    enum grader_design_hit hit = GRADER_HIT_NONE;
    if (raw_field(L, t, "near") == LUA_TTABLE) { /* near */
        int nt = lua_gettop(L);
        size_t n = lua_rawlen(L, nt);
        for (size_t i = 1; i <= n && hit != GRADER_HIT_FOUND; i++) {
            if (lua_rawgeti(L, nt, (lua_Integer)i) != LUA_TTABLE) { /* near g */
                lua_pop(L, 1);
                continue;
            }
            int g = lua_gettop(L);
            const char *terms[32];
            size_t m = 0, gn = lua_rawlen(L, g);
            for (size_t j = 1; j <= gn && m < 32; j++) {
                lua_rawgeti(L, g, (lua_Integer)j); /* near g s (kept: g holds it) */
                if (lua_type(L, -1) == LUA_TSTRING)
                    terms[m++] = lua_tostring(L, -1);
                lua_pop(L, 1);
            }
            size_t within = 5;
            if (raw_field(L, g, "within") == LUA_TNUMBER && lua_tonumber(L, -1) >= 0)
                within = (size_t)lua_tonumber(L, -1);
            lua_pop(L, 1);
            hit = best(hit, grader_design_near(d, terms, m, within, fuzzy, any, k));
            lua_pop(L, 1); /* near */
        }
    }
    lua_pop(L, 1);
    return hit;
}

/* Whether the phrases (t.match), patterns (t.patterns) and near groups
 * (t.near) of table t are found; *clause the clause of the best. */
static enum grader_design_hit judge_one(lua_State *L, int t, const struct grader_design *d,
                                        bool fuzzy, bool any, struct grader_design_known *k,
                                        size_t *clause)
{
    enum grader_design_hit hit = GRADER_HIT_NONE;
    if (raw_field(L, t, "match") == LUA_TTABLE) { /* match */
        size_t n = lua_rawlen(L, -1);
        for (size_t i = 1; i <= n && hit != GRADER_HIT_FOUND; i++) {
            int ty = lua_rawgeti(L, -1, (lua_Integer)i); /* match s */
            if (ty == LUA_TSTRING || ty == LUA_TNUMBER) {
                enum grader_design_hit h =
                    grader_design_phrase(d, lua_tostring(L, -1), fuzzy, any, k);
                if (h > hit && clause)
                    *clause = grader_design_phrase_clause(d, lua_tostring(L, -1), fuzzy, k);
                hit = best(hit, h);
            }
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
    if (hit != GRADER_HIT_FOUND) {
        if (raw_field(L, t, "patterns") == LUA_TTABLE) { /* pats */
            int pt = lua_gettop(L);
            size_t n = lua_rawlen(L, pt);
            for (size_t i = 1; i <= n && hit != GRADER_HIT_FOUND; i++) {
                if (lua_rawgeti(L, pt, (lua_Integer)i) == LUA_TSTRING) { /* pats p */
                    size_t cl = NONE;
                    enum grader_design_hit h = judge_pattern(L, d, lua_tostring(L, -1), any, &cl);
                    if (h > hit && clause)
                        *clause = cl;
                    hit = best(hit, h);
                }
                lua_pop(L, 1);
            }
        }
        lua_pop(L, 1);
    }
    if (hit != GRADER_HIT_FOUND)
        hit = best(hit, judge_near(L, t, d, fuzzy, any, k));
    return hit;
}

/* The first entry of concept c's `contradicts` found in an asserted clause,
 * not negated (0: none). An entry is a phrase, or a table { match,
 * patterns, near, feedback }. */
static size_t judge_contradicts(lua_State *L, int c, const struct grader_design *d, bool fuzzy,
                                struct grader_design_known *k, size_t *clause)
{
    size_t found = 0;
    if (raw_field(L, c, "contradicts") == LUA_TTABLE) { /* list */
        int lt = lua_gettop(L);
        size_t n = lua_rawlen(L, lt);
        for (size_t i = 1; i <= n && !found; i++) {
            int ty = lua_rawgeti(L, lt, (lua_Integer)i); /* list e */
            /* a contradiction is a claim too: negated ("it is not true that
             * GPUs cannot hide latency") it does not count */
            if (ty == LUA_TSTRING) {
                if (grader_design_phrase(d, lua_tostring(L, -1), fuzzy, false, k) ==
                    GRADER_HIT_FOUND) {
                    found = i;
                    *clause = grader_design_phrase_clause(d, lua_tostring(L, -1), fuzzy, k);
                }
            } else if (ty == LUA_TTABLE) {
                if (judge_one(L, lua_gettop(L), d, fuzzy, false, k, clause) == GRADER_HIT_FOUND)
                    found = i;
            }
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
    return found;
}

/* ---- claims --------------------------------------------------------------------------- */

/* Fills slot from t[name]: a string or a list of strings (kept on the Lua
 * stack by their tables, which outlive the lookup). */
static void read_slot(lua_State *L, int t, const char *name, struct grader_claim_slot *slot)
{
    slot->n = 0;
    int ty = raw_field(L, t, name); /* v */
    if (ty == LUA_TSTRING) {
        slot->terms[slot->n++] = lua_tostring(L, -1);
    } else if (ty == LUA_TTABLE) {
        size_t n = lua_rawlen(L, -1);
        for (size_t i = 1; i <= n && slot->n < GRADER_CLAIM_TERMS; i++) {
            if (lua_rawgeti(L, -1, (lua_Integer)i) == LUA_TSTRING) /* v s */
                slot->terms[slot->n++] = lua_tostring(L, -1);      /* the list holds it */
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
}

/* Do term t and antonym a name the same thing: equal, or one a prefix
 * ("through*") of the other? */
static bool same_term(const char *t, const char *a)
{
    size_t tl = strlen(t), al = strlen(a);
    bool tp = tl && t[tl - 1] == '*', ap = al && a[al - 1] == '*';
    size_t ts = tp ? tl - 1 : tl, as = ap ? al - 1 : al;
    if (ts == as && strncmp(t, a, ts) == 0)
        return true;
    if (tp && as >= ts && strncmp(t, a, ts) == 0)
        return true;
    return ap && ts >= as && strncmp(t, a, as) == 0;
}

/* Adds to anti the antonyms (pairs in the list at index `pairs`) of the
 * slot's terms. */
static void add_antonyms(lua_State *L, int pairs, const struct grader_claim_slot *slot,
                         struct grader_claim_slot *anti)
{
    if (pairs == 0)
        return;
    size_t n = lua_rawlen(L, pairs);
    for (size_t i = 1; i <= n && i <= 64; i++) {
        if (lua_rawgeti(L, pairs, (lua_Integer)i) != LUA_TTABLE) { /* pair */
            lua_pop(L, 1);
            continue;
        }
        lua_rawgeti(L, -1, 1); /* pair a */
        lua_rawgeti(L, -2, 2); /* pair a b */
        const char *a = lua_tostring(L, -2), *b = lua_tostring(L, -1);
        if (a && b && lua_type(L, -2) == LUA_TSTRING && lua_type(L, -1) == LUA_TSTRING) {
            for (size_t k = 0; k < slot->n && anti->n < GRADER_CLAIM_TERMS; k++) {
                if (same_term(slot->terms[k], a))
                    anti->terms[anti->n++] = b; /* the pair holds it */
                else if (same_term(slot->terms[k], b) && anti->n < GRADER_CLAIM_TERMS)
                    anti->terms[anti->n++] = a;
            }
        }
        lua_pop(L, 3);
    }
}

static const char *const SLOTS[3] = {"subject", "relation", "object"};

/* Looks up the claims of concept c (list at c.claims); `qpairs` and the
 * concept's own antonyms give the opposites. Returns the concept's hit
 * (all claims, or any, as c.require says) and fills *res with the claim
 * that decided it. */
static enum grader_design_hit judge_claims(lua_State *L, int c, int qpairs,
                                           const struct grader_design *d, bool fuzzy,
                                           struct grader_design_known *k,
                                           struct grader_claim_result *res, bool *given)
{
    *given = false;
    memset(res, 0, sizeof *res);
    res->clause = res->contra_clause = NONE;
    if (raw_field(L, c, "claims") != LUA_TTABLE) { /* claims */
        lua_pop(L, 1);
        return GRADER_HIT_NONE;
    }
    int ct = lua_gettop(L);
    bool all = raw_field(L, c, "require") == LUA_TSTRING && strcmp(lua_tostring(L, -1), "all") == 0;
    lua_pop(L, 1);
    int cpairs = raw_field(L, c, "antonyms") == LUA_TTABLE ? lua_gettop(L) : 0; /* claims ap */
    if (!cpairs) {
        lua_pop(L, 1);
        lua_pushnil(L); /* claims nil: keeps the stack shape */
    }
    size_t n = lua_rawlen(L, ct);
    enum grader_design_hit agg = all ? GRADER_HIT_FOUND : GRADER_HIT_NONE;
    struct grader_claim_spec cs;
    for (size_t i = 1; i <= n && i <= 32; i++) {
        if (lua_rawgeti(L, ct, (lua_Integer)i) != LUA_TTABLE) { /* claims ap cl */
            lua_pop(L, 1);
            continue;
        }
        int cl = lua_gettop(L);
        memset(&cs, 0, sizeof cs);
        for (int s = 0; s < 3; s++) {
            read_slot(L, cl, SLOTS[s], &cs.slot[s]);
            add_antonyms(L, qpairs, &cs.slot[s], &cs.anti[s]);
            add_antonyms(L, cpairs, &cs.slot[s], &cs.anti[s]);
        }
        *given = true;
        struct grader_claim_result r;
        grader_design_claim_find(d, &cs, fuzzy, k, &r);
        if (r.contradicted && !res->contradicted) {
            res->contradicted = true;
            res->contra_clause = r.contra_clause;
            res->contra_why = r.contra_why;
        }
        if (all ? r.hit < agg || res->clause == NONE : r.hit > agg || res->clause == NONE) {
            if (r.clause != NONE || (all ? r.hit < agg : r.hit > agg)) {
                res->clause = r.clause;
                res->unclaimed_why = r.unclaimed_why;
                memcpy(res->at, r.at, sizeof res->at);
            }
        }
        agg = all ? (r.hit < agg ? r.hit : agg) : best(agg, r.hit);
        lua_pop(L, 1); /* claims ap */
    }
    lua_pop(L, 2);
    res->hit = *given ? agg : GRADER_HIT_NONE;
    /* one claim's reversal that another claim of the concept reads the
     * right way round ("the centroids broadcast to all mappers": the
     * centroids are what is sent) contradicts nothing */
    if (res->contradicted && res->hit == GRADER_HIT_FOUND && res->contra_clause == res->clause)
        res->contradicted = false;
    return res->hit;
}

/* ---- the judge -------------------------------------------------------------------------- */

static const char *const WHY[] = {[GRADER_CLAIM_NONE] = "",
                                  [GRADER_CLAIM_NEGATED] = "negated",
                                  [GRADER_CLAIM_SWAPPED] = "roles swapped",
                                  [GRADER_CLAIM_ANTONYM] = "the opposite term",
                                  [GRADER_CLAIM_QUESTION] = "a question",
                                  [GRADER_CLAIM_HEDGED] = "a condition",
                                  [GRADER_CLAIM_PADDING] = "off the question",
                                  [GRADER_CLAIM_LISTED] = "in a list of terms"};

/* Sets ev[i] = { clause = ..., subject = ..., relation = ..., object = ...,
 * how = how } for clause k. */
static void push_evidence(lua_State *L, int ev, size_t i, const struct grader_design *d, size_t k,
                          const char *how, const size_t *at)
{
    if (k == NONE || k >= d->n_c)
        return;
    struct grader_design_clause_text t;
    grader_design_clause_text(d, k, &t);
    lua_createtable(L, 0, 5); /* e */
    lua_pushstring(L, t.clause);
    lua_setfield(L, -2, "clause");
    lua_pushstring(L, t.subject);
    lua_setfield(L, -2, "subject");
    lua_pushstring(L, t.relation);
    lua_setfield(L, -2, "relation");
    lua_pushstring(L, t.object);
    lua_setfield(L, -2, "object");
    lua_pushstring(L, how);
    lua_setfield(L, -2, "how");
    if (t.lead[0]) {
        lua_pushstring(L, t.lead);
        lua_setfield(L, -2, "lead");
    }
    static const char *const TERM[3] = {"s_word", "r_word", "o_word"};
    for (int s = 0; s < 3 && at; s++) {
        if (at[s] == NONE)
            continue;
        size_t len;
        const char *w = grader_design_word_src(d, at[s], &len);
        lua_pushlstring(L, w, len);
        lua_setfield(L, -2, TERM[s]);
    }
    lua_rawseti(L, ev, (lua_Integer)i);
}

/* judge(text, concepts [, q]) -> score, list, status, contra, evidence, info
 * The design rule (grader_design*.c, FORMAT.md): status[i] is "found",
 * "missing", "negated" (only negated), "unclaimed" (only asked, supposed,
 * off the question or outside a clause) or "contradicted"; contra[i] the
 * index of the `contradicts` entry that cancelled concept i, or 0 when its
 * own claim's contradiction did; evidence[i] what the grader read for it;
 * info = { words, clauses, padding, unread, list }. `q` (the question
 * table) gives the vocabulary (prompt, model, hints) and the question's
 * antonyms. Private: wb.lua takes it before pack code runs. */
int grader_wb_judge(lua_State *L)
{
    size_t n;
    const char *text = luaL_checklstring(L, 1, &n);
    luaL_checktype(L, 2, LUA_TTABLE);
    bool has_q = lua_type(L, 3) == LUA_TTABLE;
    lua_settop(L, 3);
    luaL_checkstack(L, 64, "design rubric"); /* the nested lists below */
    /* Its memory is the sandbox's: counted against the cap, and dropped
     * with the state if a limit (or a bad pattern) ends the call half-way. */
    void *ud;
    lua_Alloc alloc = lua_getallocf(L, &ud);
    struct grader_design *d = grader_design_new(text, n, alloc, ud);
    if (!d)
        return luaL_error(L, "not enough memory");
    struct grader_design_known k, vocab;
    grader_design_known_init(&k, d);
    grader_design_known_init(&vocab, d);
    size_t nc = lua_rawlen(L, 2);
    for (size_t i = 1; i <= nc; i++) {
        if (lua_rawgeti(L, 2, (lua_Integer)i) == LUA_TTABLE) { /* c */
            known_from(L, -1, "match", &k, 0);
            known_from(L, -1, "near", &k, 0);
            known_from(L, -1, "contradicts", &k, 0);
            known_from(L, -1, "claims", &k, 0);
            known_patterns(L, lua_gettop(L), &k);
            /* the rubric's own words are the question's too: "We shard the
             * keys" is about the question when sharding is a concept */
            if (has_q) {
                known_from(L, -1, "match", &vocab, 0);
                known_from(L, -1, "claims", &vocab, 0);
            }
        }
        lua_pop(L, 1);
    }
    int qpairs = 0;
    if (has_q) {
        vocab_from(L, 3, "prompt", &vocab);
        vocab_from(L, 3, "model", &vocab);
        vocab_from(L, 3, "hints", &vocab);
        if (raw_field(L, 3, "antonyms") == LUA_TTABLE) /* q.antonyms, kept */
            qpairs = lua_gettop(L);
        else
            lua_pop(L, 1);
    }
    if (grader_design_oom(d))
        return luaL_error(L, "not enough memory");
    /* The work is words x (phrases and words of the question): charge it
     * like a library call's bytes. */
    uint64_t words = grader_design_n_words(d);
    grader_sb_charge(L, 1 + n / 16 + words * (k.n + vocab.n + nc) / 16);
    struct core_err err = {0};
    grader_sb_nojump_begin(L);
    int rc = grader_design_read(d, &k, has_q ? &vocab : NULL, GRADER_DESIGN_PARSE_BUDGET, &err);
    grader_sb_nojump_end(L);
    struct grader_design_stats st;
    grader_design_stats(d, &st);
    grader_sb_charge(L, (uint64_t)st.parsed_words * PARSE_COST);
    if (rc == CORE_ERR_LIMIT || grader_design_oom(d))
        return luaL_error(L, "not enough memory");
    if (rc)
        return luaL_error(L, "%s", err.msg);
    lua_createtable(L, (int)nc, 0); /* status */
    int st_t = lua_gettop(L);
    lua_createtable(L, 0, 0); /* status contra */
    int ct = st_t + 1;
    lua_createtable(L, (int)nc, 0); /* status contra evidence */
    int ev = st_t + 2;
    double total = 0, got = 0;
    static const char *const names[] = {"missing", "unclaimed", "negated", "found"};
    for (size_t i = 1; i <= nc; i++) {
        if (lua_rawgeti(L, 2, (lua_Integer)i) != LUA_TTABLE) { /* c */
            lua_pop(L, 1);
            lua_pushliteral(L, "missing");
            lua_rawseti(L, st_t, (lua_Integer)i);
            continue;
        }
        int c = lua_gettop(L);
        double pts = 1;
        if (raw_field(L, c, "points") == LUA_TNUMBER)
            pts = lua_tonumber(L, -1);
        lua_pop(L, 1);
        bool fuzzy = raw_field(L, c, "fuzzy") != LUA_TBOOLEAN || lua_toboolean(L, -1);
        lua_pop(L, 1);
        total += pts;
        size_t where = NONE, cwhere = NONE;
        enum grader_design_hit hit = judge_one(L, c, d, fuzzy, false, &k, &where);
        const char *how = hit == GRADER_HIT_FOUND ? "phrase" : "";
        struct grader_claim_result cr;
        bool claims = false;
        enum grader_design_hit chit = judge_claims(L, c, qpairs, d, fuzzy, &k, &cr, &claims);
        if (claims && (chit > hit || where == NONE)) {
            if (chit >= hit) {
                where = cr.clause;
                how = chit == GRADER_HIT_FOUND       ? "claim"
                      : chit == GRADER_HIT_UNCLAIMED ? WHY[cr.unclaimed_why]
                                                     : "negated";
            }
            hit = best(hit, chit);
        }
        size_t contra = judge_contradicts(L, c, d, fuzzy, &k, &cwhere);
        if (grader_design_oom(d))
            return luaL_error(L, "not enough memory");
        if (contra || cr.contradicted) {
            lua_pushliteral(L, "contradicted");
            lua_pushinteger(L, (lua_Integer)contra);
            lua_rawseti(L, ct, (lua_Integer)i);
            if (contra)
                push_evidence(L, ev, i, d, cwhere, "contradicts", NULL);
            else
                push_evidence(L, ev, i, d, cr.contra_clause, WHY[cr.contra_why], NULL);
        } else {
            lua_pushstring(L, names[hit]);
            if (hit == GRADER_HIT_FOUND)
                got += pts;
            if (hit != GRADER_HIT_NONE)
                push_evidence(L, ev, i, d, where,
                              hit == GRADER_HIT_NEGATED && !how[0] ? "negated" : how,
                              strcmp(how, "claim") == 0 ? cr.at : NULL);
        }
        lua_rawseti(L, st_t, (lua_Integer)i); /* c */
        lua_pop(L, 1);
    }
    lua_createtable(L, 0, 5); /* status contra evidence info */
    lua_pushinteger(L, (lua_Integer)st.words);
    lua_setfield(L, -2, "words");
    lua_pushinteger(L, (lua_Integer)st.clauses);
    lua_setfield(L, -2, "clauses");
    lua_pushinteger(L, (lua_Integer)st.padding);
    lua_setfield(L, -2, "padding");
    lua_pushinteger(L, (lua_Integer)st.unread_words);
    lua_setfield(L, -2, "unread");
    bool list = st.clauses == 0 && st.words >= 4;
    lua_pushboolean(L, list);
    lua_setfield(L, -2, "list");
    grader_design_known_fini(&k);
    grader_design_known_fini(&vocab);
    grader_design_free(d);
    lua_pushnumber(L, total > 0 ? got / total : 0); /* status contra evidence info score */
    lua_insert(L, st_t);                            /* score status contra evidence info */
    lua_pushboolean(L, list);
    lua_insert(L, st_t + 1); /* score list status contra evidence info */
    return 6;
}
