/*
 * test_tui_md.c — Markdown rendered with md4c into styled lines and drawn
 * into an in-memory canvas: a whole document at width 40 in UTF-8 and ASCII,
 * inline styles, links, entities, lists, code, tables, quotes, wrapping and
 * wide characters, invalid UTF-8 and arbitrary input (never a line wider than
 * the width, never a crash).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tui/tui_internal.h"

#include <stdlib.h>
#include <string.h>

/* Renders md at `width` and draws it whole into a canvas of that width. */
static char *render(const char *md, int width, enum tui_charset cs)
{
    struct tui_doc d;
    tui_md_render(md, width, cs, &d);
    assert_int_equal(d.width, width < 1 ? 1 : width);
    struct tui_canvas c;
    tui_canvas_init(&c, width, (int)d.n, cs);
    tui_doc_draw(&c, (struct tui_rect){0, 0, (int)d.n, width}, &d, 0);
    char *t = tui_canvas_text(&c);
    tui_canvas_fini(&c);
    tui_doc_fini(&d);
    return t;
}

static void check(const char *md, int width, enum tui_charset cs, const char *want, int line)
{
    char *got = render(md, width, cs);
    if (strcmp(got, want))
        fail_msg("line %d: rendered\n%s\n--- want\n%s\n---", line, got, want);
    free(got);
}
#define MD(md, width, cs, want) check((md), (width), (cs), (want), __LINE__)

/* The width of a line as drawn: indent plus its spans. */
static int line_width(const struct tui_line *l)
{
    int w = l->indent;
    for (size_t i = 0; i < l->n; i++)
        w += tui_text_width(l->spans[i].text);
    return w;
}

static const char *doc = "# Warp divergence\n"
                         "\n"
                         "A *warp* runs **32 threads** in lock step; see `__syncwarp()` and "
                         "[the guide](https://docs.nvidia.com/cuda).\n"
                         "\n"
                         "- threads that take a branch\n"
                         "- the others wait, then run theirs\n"
                         "  1. nested first\n"
                         "  2. nested second\n"
                         "\n"
                         "```c\n"
                         "if (threadIdx.x % 2) a(); else b(); /* both paths */\n"
                         "\tindented();\n"
                         "```\n"
                         "\n"
                         "| Pattern | Paths | Time |\n"
                         "|:--|:-:|--:|\n"
                         "| uniform | 1 | 1.0× |\n"
                         "| alternate | 2 | 2.0× |\n"
                         "\n"
                         "> Divergence costs the sum of the paths, not the maximum.\n";

static void test_document(void **state)
{
    (void)state;
    MD(doc, 40, TUI_CS_UTF8,
       "Warp divergence\n"
       "═══════════════\n"
       "\n"
       "A warp runs 32 threads in lock step; see\n"
       "__syncwarp() and the guide\n"
       "<https://docs.nvidia.com/cuda>.\n"
       "\n"
       "• threads that take a branch\n"
       "• the others wait, then run theirs\n"
       "  1. nested first\n"
       "  2. nested second\n"
       "\n"
       "  if (threadIdx.x % 2) a(); else b(); /…\n"
       "      indented();\n"
       "\n"
       "┌───────────┬───────┬──────┐\n"
       "│ Pattern   │ Paths │ Time │\n"
       "├───────────┼───────┼──────┤\n"
       "│ uniform   │   1   │ 1.0× │\n"
       "│ alternate │   2   │ 2.0× │\n"
       "└───────────┴───────┴──────┘\n"
       "\n"
       "│ Divergence costs the sum of the paths,\n"
       "│ not the maximum.");
    MD(doc, 40, TUI_CS_ASCII,
       "Warp divergence\n"
       "===============\n"
       "\n"
       "A warp runs 32 threads in lock step; see\n"
       "__syncwarp() and the guide\n"
       "<https://docs.nvidia.com/cuda>.\n"
       "\n"
       "* threads that take a branch\n"
       "* the others wait, then run theirs\n"
       "  1. nested first\n"
       "  2. nested second\n"
       "\n"
       "  if (threadIdx.x % 2) a(); else b(); />\n"
       "      indented();\n"
       "\n"
       "+-----------+-------+------+\n"
       "| Pattern   | Paths | Time |\n"
       "+-----------+-------+------+\n"
       "| uniform   |   1   | 1.0x |\n"
       "| alternate |   2   | 2.0x |\n"
       "+-----------+-------+------+\n"
       "\n"
       "| Divergence costs the sum of the paths,\n"
       "| not the maximum.");
}

static void test_styles(void **state)
{
    (void)state;
    struct tui_doc d;
    tui_md_render("**b** *i* `c` [l](u) ~~d~~", 40, TUI_CS_UTF8, &d);
    assert_int_equal(d.n, 1);
    const struct tui_line *l = &d.lines[0];
    struct {
        const char *text;
        uint8_t attr, color;
    } want[] = {
        {"b", TUI_A_BOLD, 0}, {" ", 0, 0},         {"i", TUI_A_ITALIC, 0}, {" ", 0, 0},
        {"c", 0, TUI_C_CODE}, {" ", 0, 0},         {"l", TUI_A_UNDER, 0},  {" <u>", 0, TUI_C_MUTED},
        {" ", 0, 0},          {"d", TUI_A_DIM, 0},
    };
    assert_int_equal(l->n, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < l->n; i++) {
        assert_string_equal(l->spans[i].text, want[i].text);
        assert_int_equal(l->spans[i].st.attr, want[i].attr);
        assert_int_equal(l->spans[i].st.color, want[i].color);
    }
    tui_doc_fini(&d);

    /* headings: bold, accent for the first levels; a rule under H1 and H2 */
    tui_md_render("# One\n## Two\n### Three\n#### Four", 40, TUI_CS_UTF8, &d);
    assert_int_equal(d.n, 9);
    assert_string_equal(d.lines[0].spans[0].text, "One");
    assert_int_equal(d.lines[0].spans[0].st.attr, TUI_A_BOLD);
    assert_int_equal(d.lines[0].spans[0].st.color, TUI_C_ACCENT);
    assert_string_equal(d.lines[1].spans[0].text, "═══");
    assert_string_equal(d.lines[4].spans[0].text, "───");
    assert_string_equal(d.lines[6].spans[0].text, "Three");
    assert_string_equal(d.lines[8].spans[0].text, "Four");
    assert_int_equal(d.lines[8].spans[0].st.color, 0);
    tui_doc_fini(&d);

    /* a list item's continuation lines are indented, not spaces in a span */
    tui_md_render("- one two three", 10, TUI_CS_UTF8, &d);
    assert_int_equal(d.n, 2);
    assert_int_equal(d.lines[0].indent, 0);
    assert_string_equal(d.lines[0].spans[0].text, "• ");
    assert_int_equal(d.lines[0].spans[0].st.color, TUI_C_ACCENT);
    assert_int_equal(d.lines[1].indent, 2);
    assert_string_equal(d.lines[1].spans[0].text, "three");
    tui_doc_fini(&d);
}

static void test_blocks(void **state)
{
    (void)state;
    /* links: the URL follows unless it is the text */
    MD("[docs](https://a.org/x) <https://b.org> https://c.org mail@d.org", 70, TUI_CS_UTF8,
       "docs <https://a.org/x> https://b.org https://c.org mail@d.org");
    MD("![a roofline](r.png)", 40, TUI_CS_UTF8, "[image: a roofline]");
    /* entities */
    MD("&amp; &lt;tag&gt; &#65;&#x263A; a&nbsp;b &bogus; &copy;", 40, TUI_CS_UTF8,
       "& <tag> A☺ a\xC2\xA0"
       "b &bogus; ©"); /* a no-break space stays one */
    /* a hard break, soft breaks, collapsed spaces */
    MD("one\\\ntwo  \nthree\nfour   five", 40, TUI_CS_UTF8, "one\ntwo\nthree four five");
    /* numbered lists keep a hanging indent as wide as their marker */
    MD("9. nine is a long item\n10. ten is too", 12, TUI_CS_UTF8,
       "9. nine is a\n   long item\n10. ten is\n    too");
    /* loose lists have blank lines between items */
    MD("- a\n\n- b\n\n  more of b\n", 20, TUI_CS_UTF8, "• a\n\n• b\n\n  more of b");
    /* nesting: bullets change per level, quotes nest */
    MD("- a\n  - b\n    - c\n      - d", 20, TUI_CS_UTF8, "• a\n  ◦ b\n    ▪ c\n      • d");
    MD("- a\n  - b\n    - c", 20, TUI_CS_ASCII, "* a\n  - b\n    + c");
    MD("> a\n>\n> > b\n>\n> - c", 20, TUI_CS_UTF8, "│ a\n│\n│ │ b\n│\n│ • c");
    MD("- [x] done\n- [ ] todo", 20, TUI_CS_UTF8, "[x] done\n[ ] todo");
    MD("- \n- b", 20, TUI_CS_UTF8, "•\n• b"); /* an empty item */
    /* a rule fills the width */
    MD("a\n\n---\n\nb", 10, TUI_CS_UTF8, "a\n\n──────────\n\nb");
    MD("a\n\n***\n", 6, TUI_CS_ASCII, "a\n\n------");
    /* an indented code block; an empty fenced one; an unclosed one */
    MD("text\n\n    code  line\n\nafter", 20, TUI_CS_UTF8, "text\n\n  code  line\n\nafter");
    MD("```\n```\nafter", 20, TUI_CS_UTF8, "after");
    MD("```\nopen", 20, TUI_CS_UTF8, "  open");
    /* tables wider than the width: columns shrink, cells are cut */
    MD("| name | description |\n|---|---|\n| a | a long description |", 24, TUI_CS_UTF8,
       "┌──────┬───────────────┐\n"
       "│ name │ description   │\n"
       "├──────┼───────────────┤\n"
       "│ a    │ a long descr… │\n"
       "└──────┴───────────────┘");
    MD("| a | b | c | d | e |\n|---|---|---|---|---|\n| 1 | 2 | 3 | 4 | 5 |", 12, TUI_CS_ASCII,
       "+---+---+-->\n"
       "| a | b | c>\n"
       "+---+---+-->\n"
       "| 1 | 2 | 3>\n"
       "+---+---+-->");
    /* a table with inline styles and a missing cell */
    MD("| *x* | y |\n|---|---|\n| `z` |", 20, TUI_CS_UTF8,
       "┌───┬───┐\n│ x │ y │\n├───┼───┤\n│ z │   │\n└───┴───┘");
}

static void test_wrapping(void **state)
{
    (void)state;
    MD("The quick brown fox jumps over the lazy dog.", 15, TUI_CS_UTF8,
       "The quick brown\nfox jumps over\nthe lazy dog.");
    /* a word longer than the width is cut where it must be */
    MD("a supercalifragilistic word", 10, TUI_CS_UTF8, "a\nsupercalif\nragilistic\nword");
    /* wide characters wrap by columns and never split */
    MD("中文的段落需要按列换行。", 9, TUI_CS_UTF8, "中文的段\n落需要按\n列换行。");
    MD("中文", 9, TUI_CS_ASCII, "????");
    /* inside a quote the bar takes two columns */
    MD("> one two three four", 10, TUI_CS_UTF8, "│ one two\n│ three\n│ four");

    /* no line is ever wider than the width; every word survives */
    const char *md = "Some *emphasised* text with `code spans` and a [link](http://x.y/z) "
                     "in a paragraph.\n\n> - a list inside a quote with a rather long line\n"
                     ">   1. and a numbered one inside it that goes on\n";
    for (int w = 1; w <= 70; w++) {
        struct tui_doc d;
        tui_md_render(md, w, w % 2 ? TUI_CS_UTF8 : TUI_CS_ASCII, &d);
        for (size_t i = 0; i < d.n; i++)
            if (line_width(&d.lines[i]) > w)
                fail_msg("width %d: line %zu is %d wide", w, i, line_width(&d.lines[i]));
        if (w >= 16) {
            struct core_buf all;
            core_buf_init(&all);
            for (size_t i = 0; i < d.n; i++)
                for (size_t k = 0; k < d.lines[i].n; k++)
                    core_buf_puts(&all, d.lines[i].spans[k].text);
            static const char *words[] = {"emphasised", "spans",    "paragraph.",
                                          "rather",     "numbered", "on"};
            for (size_t k = 0; k < sizeof words / sizeof words[0]; k++)
                if (!strstr(all.data ? all.data : "", words[k]))
                    fail_msg("width %d: lost \"%s\"", w, words[k]);
            core_buf_fini(&all);
        }
        tui_doc_fini(&d);
    }
}

static void test_bad_input(void **state)
{
    (void)state;
    /* invalid UTF-8 shows as U+FFFD, or '?' in ASCII */
    MD("caf\xE9 \xFF\xFE ok", 20, TUI_CS_UTF8, "caf\xEF\xBF\xBD \xEF\xBF\xBD\xEF\xBF\xBD ok");
    MD("caf\xE9 \xFF ok", 20, TUI_CS_ASCII, "caf? ? ok");
    MD("nul&#0;x", 20, TUI_CS_UTF8, "nul\xEF\xBF\xBDx");
    /* nothing at all */
    struct tui_doc d;
    tui_md_render(NULL, 40, TUI_CS_UTF8, &d);
    assert_int_equal(d.n, 0);
    tui_doc_fini(&d);
    tui_md_render("", 0, TUI_CS_UTF8, &d);
    assert_int_equal(d.n, 0);
    assert_int_equal(d.width, 1);
    tui_doc_fini(&d);

    /* pathological nesting and arbitrary bytes: no crash, no wide lines */
    struct core_buf b;
    core_buf_init(&b);
    for (int i = 0; i < 300; i++)
        core_buf_puts(&b, "> - ");
    core_buf_puts(&b, "deep\n");
    tui_md_render(b.data, 30, TUI_CS_UTF8, &d);
    assert_true(d.n >= 1);
    for (size_t i = 0; i < d.n; i++)
        assert_true(line_width(&d.lines[i]) <= 30);
    tui_doc_fini(&d);

    static const char alphabet[] = "#*_-+>`|[]()!:\\&;\n\n  \t1.ax~\xC3\xA9\xE4\xB8\xAD\xFF\x80<";
    uint64_t seed = 12345;
    for (int iter = 0; iter < 1500; iter++) {
        core_buf_reset(&b);
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        int len = (int)(seed >> 33) % 200;
        for (int i = 0; i < len; i++) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            core_buf_putc(&b, alphabet[(seed >> 33) % (sizeof alphabet - 1)]);
        }
        int width = 1 + (int)((seed >> 20) % 50);
        enum tui_charset cs = iter % 3 ? TUI_CS_UTF8 : TUI_CS_ASCII;
        tui_md_render(b.data ? b.data : "", width, cs, &d);
        for (size_t i = 0; i < d.n; i++)
            if (line_width(&d.lines[i]) > width)
                fail_msg("input %d (width %d): line %zu is %d wide", iter, width, i,
                         line_width(&d.lines[i]));
        struct tui_canvas c;
        tui_canvas_init(&c, width, 8, cs);
        tui_doc_draw(&c, (struct tui_rect){0, 0, 8, width}, &d, d.n / 2);
        tui_canvas_fini(&c);
        tui_doc_fini(&d);
    }
    core_buf_fini(&b);
}

static void test_draw(void **state)
{
    (void)state;
    struct tui_doc d;
    tui_md_render("one\n\ntwo\n\nthree four", 20, TUI_CS_UTF8, &d);
    assert_int_equal(d.n, 5);
    struct tui_canvas c;
    tui_canvas_init(&c, 12, 4, TUI_CS_UTF8);
    tui_canvas_fill(&c, (struct tui_rect){0, 0, 4, 12}, 'x', (struct tui_style){0, 0});
    /* from line 2, into a 3 x 8 rectangle: cleared first, cut at its edge */
    tui_doc_draw(&c, (struct tui_rect){1, 2, 3, 8}, &d, 2);
    char *t = tui_canvas_text(&c);
    assert_string_equal(t, "xxxxxxxxxxxx\n"
                           "xxtwo     xx\n"
                           "xx        xx\n"
                           "xxthree foxx");
    free(t);
    /* past the end: an empty rectangle */
    tui_doc_draw(&c, (struct tui_rect){0, 0, 4, 12}, &d, 99);
    t = tui_canvas_text(&c);
    assert_string_equal(t, "\n\n\n");
    free(t);
    tui_canvas_fini(&c);
    tui_doc_fini(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_document),  cmocka_unit_test(test_styles),
        cmocka_unit_test(test_blocks),    cmocka_unit_test(test_wrapping),
        cmocka_unit_test(test_bad_input), cmocka_unit_test(test_draw),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
