/*
 * fuzz_kmeans_csv.c — fuzz target for the k-means lab's CSV points reader
 * (lab_km_points_read with format csv), which reads whatever file a student
 * names with file=.
 *
 * The input becomes a file in memory (memfd, read through /proc/self/fd).
 * Checks, besides "no crash": a refusal has a message naming the parameter;
 * an accepted file has d >= 1, and reading its points a second time, into
 * memory, gives the same n and d and only finite values within the
 * coordinate limit.
 */
#define _GNU_SOURCE
#include "labs/kmeans/lab_kmeans.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = memfd_create("points.csv", MFD_CLOEXEC);
    if (fd < 0)
        return 0;
    if (size && write(fd, data, size) != (ssize_t)size) {
        close(fd);
        return 0;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    struct core_err err;
    core_err_clear(&err);
    size_t n = 0;
    int d = 0;
    int rc = lab_km_points_read(path, KM_FMT_CSV, "file", 0, NULL, 0, &n, &d, NULL, NULL, &err);
    if (rc != 0) {
        if (!err.msg[0] || !strstr(err.msg, "file"))
            abort();
    } else if (d < 1) {
        abort();
    } else if (n > 0 && n * (size_t)d <= (1u << 20)) {
        float *x = malloc(n * (size_t)d * sizeof *x);
        size_t n2 = 0;
        int d2 = 0;
        if (lab_km_points_read(path, KM_FMT_CSV, "file", 0, x, n, &n2, &d2, NULL, NULL, &err) !=
                0 ||
            d2 != d || n2 < n)
            abort();
        double lim = lab_km_coord_limit(d);
        for (size_t i = 0; i < n * (size_t)d; i++)
            if (!isfinite(x[i]) || fabs(x[i]) > lim)
                abort();
        free(x);
    }
    close(fd);
    return 0;
}
