/*
 * fuzz_number.c — libFuzzer target for grader_number_parse, and for the
 * formatting and tolerance text its results feed. The suite replays
 * tests/fuzz/corpus/number/ through it (ctest fuzz_number); the libFuzzer
 * binary is built with -DWB_FUZZ=ON (README, "Fuzzing"):
 *
 *   cmake --preset fuzz && cmake --build --preset fuzz --target fuzz_number
 *   build-fuzz/tests/fuzz_number -max_len=300 -max_total_time=60 tests/fuzz/corpus/number
 *
 * The first input byte picks the expected unit; the rest is the answer.
 * Checks, besides "no crash": an accepted answer is finite and has no `why`;
 * a refused one has a printable `why`; reading twice gives the same result.
 */
#include "grader/pure/grader_pure.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *const units[] = {"", "s", "ms", "x", "%", "GB/s", "B", "TFLOP/s", "µs", "Gbps"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    const char *unit = units[data[0] % (sizeof units / sizeof units[0])];
    char *text = malloc(size); /* size - 1 bytes + NUL */
    if (!text)
        return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';

    struct grader_number a, b;
    bool ok = grader_number_parse(text, unit, &a);
    if (ok != a.ok || !memchr(a.why, '\0', sizeof a.why) || !memchr(a.unit, '\0', sizeof a.unit))
        abort();
    if (ok) {
        if (!isfinite(a.value) || !isfinite(a.base) || a.why[0] != '\0')
            abort();
        char buf[64], desc[160];
        for (int sig = 1; sig <= 17; sig += 4)
            grader_number_format(a.value, sig, buf, sizeof buf);
        struct grader_tol t = {.rel = 0.01, .abs = 0, .sig = (int)(data[0] % 5)};
        grader_tol_describe(&t, a.value, unit, desc, sizeof desc);
        if (!grader_tol_accepts(&t, a.value, a.value))
            abort(); /* a reference always accepts itself */
        if (!isfinite(a.c_value) || (!a.c_differs && a.c_value != a.value))
            abort();
        char note[320]; /* the rounding note against a whole reference near the answer */
        grader_tol_rounding_note(&t, round(a.value), text, &a, unit, note, sizeof note);
    } else {
        if (a.why[0] == '\0')
            abort();
        for (const unsigned char *u = (const unsigned char *)a.why; *u; u++)
            if (*u < 0x20 || *u == 0x7f)
                abort();
    }
    if (grader_number_parse(text, unit, &b) != ok || memcmp(&a, &b, sizeof a) != 0)
        abort();
    free(text);
    return 0;
}
