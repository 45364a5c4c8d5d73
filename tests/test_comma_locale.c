/* The readers and writers of numbers, each called where a front end leaves
 * the process in a decimal-comma locale: setlocale(LC_ALL, "de_DE.UTF-8"),
 * where printf writes "1,5" and plain strtod("2.5") stops at the '.'. Every
 * number a user types, a file holds or JSON carries still means the C
 * locale's notation. Exits 77 (skipped) only when that locale cannot be set
 * on this machine (scripts/setup.sh generates it). */
#include "core/core.h"
#include "labs/lab_author.h"
#include "labs/kmeans/lab_kmeans.h"
#include "labs/paramserver/lab_ps.h"
#include "labs/transport/lab_net.h"
#include "tui/tui_screen.h"

#include <locale.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

/* The parameter-server lab's link and straggler, as the TUI's lab form
 * checks them before a run: "2.5Gbps" is the example in the link's own
 * error message. */
static void test_paramserver_params(void **state)
{
    (void)state;
    double bps = 0;
    struct core_err e = {0};
    if (lab_net_link_parse("2.5Gbps", &bps, &e) != 0)
        fail_msg("link=2.5Gbps refused: %s", e.msg);
    assert_true(bps == 2.5e9 / 8);

    const struct lab_def *ps = lab_find("paramserver");
    assert_non_null(ps);
    struct lab_params p;
    lab_params_init(&p, ps);
    assert_int_equal(lab_params_set(&p, "link", "2.5Gbps", &e), 0);
    assert_int_equal(lab_params_set(&p, "straggler", "2:1.5", &e), 0);
    struct lab_straggler s;
    if (lab_param_straggler(&p, 4, &s, &e) != 0)
        fail_msg("straggler=2:1.5 refused: %s", e.msg);
    assert_int_equal(s.worker, 2);
    assert_true(s.factor == 1.5);
    assert_int_equal(lab_params_set(&p, "lr", "0.25", &e), 0);
    if (lab_params_check(&p, &e) != 0)
        fail_msg("the checked parameters were refused: %s", e.msg);
    assert_true(lab_param_num(&p, "lr") == 0.25);
    /* a value shown back (the form, a log) reads again as the same */
    char txt[64] = "";
    for (size_t i = 0; i < p.n; i++)
        if (strcmp(p.v[i].def->name, "lr") == 0)
            lab_value_text(&p.v[i], txt, sizeof txt);
    assert_string_equal(txt, "0.25");
    /* "0,25" is refused whatever the locale: the comma is not a point */
    assert_int_equal(lab_params_set(&p, "lr", "0,25", &e), CORE_ERR_INVALID);
    lab_params_fini(&p);
}

static void test_kmeans_straggler(void **state)
{
    (void)state;
    struct core_err e = {0};
    struct lab_params p;
    struct lab_straggler s;
    lab_params_init(&p, lab_find("kmeans"));
    assert_int_equal(lab_params_set(&p, "straggler", "2:1.5", &e), 0);
    assert_int_equal(lab_param_straggler(&p, 4, &s, &e), 0);
    assert_int_equal(s.worker, 2);
    assert_true(s.factor == 1.5);
    assert_int_equal(lab_params_set(&p, "straggler", "2:1,5", &e), 0);
    assert_int_equal(lab_param_straggler(&p, 4, &s, &e), CORE_ERR_INVALID);
    lab_params_fini(&p);
}

/* JSON (the store's parameters and summaries, --json lines) keeps '.'. */
static void test_json(void **state)
{
    (void)state;
    struct core_buf b;
    core_buf_init(&b);
    struct core_json j;
    core_json_init(&j, &b);
    core_json_obj_begin(&j);
    core_json_knum(&j, "f", 0.25);
    core_json_knum(&j, "g", 1.0 / 3);
    core_json_knum(&j, "h", 6.02e23);
    core_json_obj_end(&j);
    assert_string_equal(b.data, "{\"f\":0.25,\"g\":0.3333333333333333,\"h\":6.02e+23}");
    struct core_kv *kv;
    size_t n;
    assert_int_equal(core_json_parse_flat(b.data, &kv, &n, NULL), 0);
    assert_true(kv[0].num == 0.25 && kv[1].num == 1.0 / 3 && kv[2].num == 6.02e23);
    core_kv_free(kv, n);
    core_buf_fini(&b);
}

/* The TUI calculator's step drops binary noise through text and back. */
static void test_calc_step(void **state)
{
    (void)state;
    assert_true(tui_calc_step(0.2, +1, 0, 1, false) == 0.21);
    assert_true(tui_calc_step(1, -1, 0, 10, false) == 0.99);
}

int main(void)
{
    if (!setlocale(LC_ALL, "de_DE.UTF-8")) {
        printf("skipped: the de_DE.UTF-8 locale is not installed (scripts/setup.sh generates "
               "it)\n");
        return 77;
    }
    char probe[16];
    snprintf(probe, sizeof probe, "%.1f", 1.5);
    printf("running under de_DE.UTF-8 (printf writes 1.5 as \"%s\")\n", probe);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paramserver_params),
        cmocka_unit_test(test_kmeans_straggler),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_calc_step),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
