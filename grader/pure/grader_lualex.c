/*
 * grader_lualex.c — a small lexer of Lua 5.4 source: names, keywords,
 * strings (short and long), numbers, brackets and operators, with comments
 * and white space skipped and lines counted as Lua counts them. It follows
 * enough of Lua to find statements (grader_slim.c) and to cut and rewrite
 * them (grader_release.c); it never evaluates anything.
 *
 * Pure C: no Lua, no I/O.
 */
#include "grader_pure.h"

#include <stdlib.h>
#include <string.h>

void grader_lex_init(struct grader_lex *x, const char *s, size_t n)
{
    memset(x, 0, sizeof *x);
    x->s = s;
    x->n = n;
    x->line = 1;
}

static bool name_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static bool name_char(char c)
{
    return name_start(c) || (c >= '0' && c <= '9');
}

/* Lua counts \n, \r, \r\n and \n\r as one line break each. */
static bool newline(struct grader_lex *x)
{
    char c = x->s[x->i];
    if (c != '\n' && c != '\r')
        return false;
    x->i++;
    if (x->i < x->n && (x->s[x->i] == '\n' || x->s[x->i] == '\r') && x->s[x->i] != c)
        x->i++;
    x->line++;
    return true;
}

/* At '[': the level of a long bracket ([[ = 0, [==[ = 2), or -1. */
static int long_level(const struct grader_lex *x, size_t i)
{
    size_t k = i + 1;
    int level = 0;
    while (k < x->n && x->s[k] == '=')
        k++, level++;
    return k < x->n && x->s[k] == '[' ? level : -1;
}

/* Skips a long bracket of `level` starting at x->i ('['). */
static bool skip_long(struct grader_lex *x, int level)
{
    x->i += (size_t)level + 2;
    while (x->i < x->n) {
        if (newline(x))
            continue;
        if (x->s[x->i] == ']') {
            size_t k = x->i + 1;
            int l = 0;
            while (k < x->n && x->s[k] == '=')
                k++, l++;
            if (l == level && k < x->n && x->s[k] == ']') {
                x->i = k + 1;
                return true;
            }
        }
        x->i++;
    }
    return false;
}

static const char *const keywords[] = {"and",   "break", "do",       "else",  "elseif", "end",
                                       "false", "for",   "function", "goto",  "if",     "in",
                                       "local", "nil",   "not",      "or",    "repeat", "return",
                                       "then",  "true",  "until",    "while", NULL};

static bool is_keyword(const char *s, size_t n)
{
    for (int k = 0; keywords[k]; k++)
        if (strlen(keywords[k]) == n && memcmp(keywords[k], s, n) == 0)
            return true;
    return false;
}

bool grader_lex_is(const struct grader_lex *x, const char *word)
{
    size_t n = strlen(word);
    return (x->t == GRADER_TOK_NAME || x->t == GRADER_TOK_KEYWORD) && x->end - x->start == n &&
           memcmp(x->s + x->start, word, n) == 0;
}

void grader_lex_next(struct grader_lex *x)
{
    for (;;) { /* white space and comments */
        if (x->i >= x->n)
            break;
        if (newline(x))
            continue;
        char c = x->s[x->i];
        if (c == ' ' || c == '\t' || c == '\f' || c == '\v') {
            x->i++;
            continue;
        }
        if (c == '-' && x->i + 1 < x->n && x->s[x->i + 1] == '-') {
            x->i += 2;
            int level = x->i < x->n && x->s[x->i] == '[' ? long_level(x, x->i) : -1;
            if (level >= 0) {
                if (!skip_long(x, level)) {
                    x->t = GRADER_TOK_BAD;
                    return;
                }
            } else {
                while (x->i < x->n && x->s[x->i] != '\n' && x->s[x->i] != '\r')
                    x->i++;
            }
            continue;
        }
        break;
    }
    x->start = x->i;
    x->tline = x->line;
    if (x->i >= x->n) {
        x->t = GRADER_TOK_EOF;
        x->end = x->i;
        return;
    }
    char c = x->s[x->i];
    x->c = c;
    if (name_start(c)) {
        while (x->i < x->n && name_char(x->s[x->i]))
            x->i++;
        x->t = is_keyword(x->s + x->start, x->i - x->start) ? GRADER_TOK_KEYWORD : GRADER_TOK_NAME;
    } else if ((c >= '0' && c <= '9') ||
               (c == '.' && x->i + 1 < x->n && x->s[x->i + 1] >= '0' && x->s[x->i + 1] <= '9')) {
        while (x->i < x->n) {
            char d = x->s[x->i];
            if (name_char(d) || d == '.' ||
                ((d == '+' || d == '-') && x->i > x->start && strchr("eEpP", x->s[x->i - 1])))
                x->i++;
            else
                break;
        }
        x->t = GRADER_TOK_NUMBER;
    } else if (c == '"' || c == '\'') {
        x->i++;
        for (;;) {
            if (x->i >= x->n || x->s[x->i] == '\n' || x->s[x->i] == '\r') {
                x->t = GRADER_TOK_BAD;
                return;
            }
            char d = x->s[x->i];
            if (d == c) {
                x->i++;
                break;
            }
            if (d == '\\') {
                x->i++;
                if (x->i < x->n && !newline(x))
                    x->i++;
                continue;
            }
            x->i++;
        }
        x->t = GRADER_TOK_STRING;
    } else if (c == '[' && long_level(x, x->i) >= 0) {
        if (!skip_long(x, long_level(x, x->i))) {
            x->t = GRADER_TOK_BAD;
            return;
        }
        x->t = GRADER_TOK_STRING;
    } else if (c == '(' || c == '{' || c == '[') {
        x->i++;
        x->t = GRADER_TOK_OPEN;
    } else if (c == ')' || c == '}' || c == ']') {
        x->i++;
        x->t = GRADER_TOK_CLOSE;
    } else {
        /* operators: the ones that matter here are single characters; the
         * rest only need to be consumed ("..." "::" "==" ...). */
        x->i++;
        while (x->i < x->n && strchr(".:=<>/~", x->s[x->i]) && strchr(".:=<>/~", c))
            x->i++;
        x->t = GRADER_TOK_OP;
    }
    x->end = x->i;
}

bool grader_lex_ends_statement(const struct grader_lex *prev, bool bof)
{
    if (bof)
        return true;
    switch (prev->t) {
    case GRADER_TOK_NAME:
    case GRADER_TOK_STRING:
    case GRADER_TOK_NUMBER:
    case GRADER_TOK_CLOSE:
        return true;
    case GRADER_TOK_OP:
        return prev->c == ';';
    case GRADER_TOK_KEYWORD:
        return grader_lex_is(prev, "end") || grader_lex_is(prev, "true") ||
               grader_lex_is(prev, "false") || grader_lex_is(prev, "nil") ||
               grader_lex_is(prev, "break");
    default:
        return false;
    }
}

void grader_lex_nest(const struct grader_lex *x, int *depth, int *brackets)
{
    if (x->t == GRADER_TOK_OPEN) {
        (*brackets)++;
    } else if (x->t == GRADER_TOK_CLOSE) {
        (*brackets)--;
    } else if (x->t == GRADER_TOK_KEYWORD) {
        if (grader_lex_is(x, "function") || grader_lex_is(x, "do") || grader_lex_is(x, "if") ||
            grader_lex_is(x, "repeat"))
            (*depth)++;
        else if (grader_lex_is(x, "end") || grader_lex_is(x, "until"))
            (*depth)--;
    }
}
