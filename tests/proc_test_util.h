/*
 * proc_test_util.h — the child processes of the test process, as /proc
 * shows them, for the lab tests (test_labs.c, test_labs_run.c) that check
 * a run leaves no worker behind, find a worker to signal, or see one
 * stopped (test_lab_ps.c's hang tests), and the shared memory that is a
 * run's own (test_labs.c: what it must not leave behind). Header-only
 * (static inline); Linux /proc only.
 */
#ifndef WB_TESTS_PROC_TEST_UTIL_H
#define WB_TESTS_PROC_TEST_UTIL_H

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

/* The processes whose parent is this process and whose state /proc shows
 * as `state` ('T': stopped), or any state when it is 0; their pids into
 * list[0..max) (list may be NULL). */
static inline int proc_test_children_list(char want, pid_t *first, pid_t *list, size_t max)
{
    if (first)
        *first = 0;
    DIR *d = opendir("/proc");
    if (!d)
        return -1;
    int n = 0;
    pid_t me = getpid();
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char path[300], buf[512];
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        size_t len = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[len] = '\0';
        /* pid (comm) state ppid ...: comm may hold spaces, so go from ')'. */
        char *rp = strrchr(buf, ')');
        char state;
        int ppid;
        if (rp && sscanf(rp + 1, " %c %d", &state, &ppid) == 2 && ppid == me &&
            (want == 0 || state == want)) {
            if (first && n == 0)
                *first = (pid_t)atoi(e->d_name);
            if (list && (size_t)n < max)
                list[n] = (pid_t)atoi(e->d_name);
            n++;
        }
    }
    closedir(d);
    return n;
}

/* The processes whose parent is this process (zombies included): returns
 * how many, and when first is not NULL the pid of the first one /proc lists
 * in *first (0 when none). -1 when /proc cannot be read. */
static inline int proc_test_children(pid_t *first)
{
    return proc_test_children_list(0, first, NULL, 0);
}

/* How many children of this process are stopped (SIGSTOP); -1 when /proc
 * cannot be read. */
static inline int proc_test_stopped(void)
{
    return proc_test_children_list('T', NULL, NULL, 0);
}

/* ---- the test's own shared memory ------------------------------------------ */

/* Adds to `seen` (up to max names of size PROC_TEST_SHM_NAME, *n of them so
 * far, no name twice) every file under /dev/shm that process pid maps or
 * holds open: the shared-memory segments that are its own, which a test
 * checks are gone afterwards, whatever else the machine keeps there. */
#define PROC_TEST_SHM_NAME 256
static inline void proc_test_shm_add(char (*seen)[PROC_TEST_SHM_NAME], size_t max, size_t *n,
                                     const char *name)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp(seen[i], name) == 0)
            return;
    if (*n < max)
        snprintf(seen[(*n)++], PROC_TEST_SHM_NAME, "%s", name);
}

static inline void proc_test_shm_of(pid_t pid, char (*seen)[PROC_TEST_SHM_NAME], size_t max,
                                    size_t *n)
{
    char path[64], line[1024];
    snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
    FILE *f = fopen(path, "r");
    while (f && fgets(line, sizeof line, f)) {
        char *at = strstr(line, "/dev/shm/");
        if (!at)
            continue;
        at[strcspn(at, " \n")] = '\0'; /* drops " (deleted)" too */
        proc_test_shm_add(seen, max, n, at);
    }
    if (f)
        fclose(f);
    snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
    DIR *d = opendir(path);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        char link[64 + sizeof e->d_name], target[PROC_TEST_SHM_NAME];
        snprintf(link, sizeof link, "%s/%s", path, e->d_name);
        ssize_t len = readlink(link, target, sizeof target - 1);
        if (len <= 0)
            continue;
        target[len] = '\0';
        if (strncmp(target, "/dev/shm/", 9) == 0) {
            target[strcspn(target, " ")] = '\0';
            proc_test_shm_add(seen, max, n, target);
        }
    }
    if (d)
        closedir(d);
}

/* The System V shared-memory segments (/proc/sysvipc/shm) whose creator
 * is one of pids[0..n): segments a test's own processes made. -1 when the
 * kernel does not list them. */
static inline int proc_test_sysv_by(const pid_t *pids, size_t n)
{
    FILE *f = fopen("/proc/sysvipc/shm", "r");
    if (!f)
        return -1;
    char line[512];
    int found = 0;
    if (!fgets(line, sizeof line, f)) /* the header */
        line[0] = '\0';
    while (fgets(line, sizeof line, f)) {
        int cpid;
        if (sscanf(line, "%*d %*d %*o %*u %d", &cpid) != 1)
            continue;
        for (size_t i = 0; i < n; i++)
            found += pids[i] == cpid;
    }
    fclose(f);
    return found;
}

/* The same for this process and each of its children (their pids added to
 * pids, up to max_pids, *n_pids of them so far, for proc_test_sysv_by). */
static inline void proc_test_shm_tree(char (*seen)[PROC_TEST_SHM_NAME], size_t max, size_t *n,
                                      pid_t *pids, size_t max_pids, size_t *n_pids)
{
    proc_test_shm_of(getpid(), seen, max, n);
    pid_t kids[64];
    int k = proc_test_children_list(0, NULL, kids, 64);
    for (int c = 0; c < k && c < 64; c++) {
        proc_test_shm_of(kids[c], seen, max, n);
        bool known = false;
        for (size_t i = 0; i < *n_pids; i++)
            known |= pids[i] == kids[c];
        if (!known && *n_pids < max_pids)
            pids[(*n_pids)++] = kids[c];
    }
}

#endif
