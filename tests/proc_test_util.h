/*
 * proc_test_util.h — the child processes of the test process, as /proc
 * shows them, for the lab tests (test_labs.c, test_labs_run.c) that check
 * a run leaves no worker behind, find a worker to signal, or see one
 * stopped (test_lab_ps.c's hang tests). Header-only
 * (static inline); Linux /proc only.
 */
#ifndef WB_TESTS_PROC_TEST_UTIL_H
#define WB_TESTS_PROC_TEST_UTIL_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

/* The processes whose parent is this process and whose state /proc shows
 * as `state` ('T': stopped), or any state when it is 0. */
static inline int proc_test_children_in(char want, pid_t *first)
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
    return proc_test_children_in(0, first);
}

/* How many children of this process are stopped (SIGSTOP); -1 when /proc
 * cannot be read. */
static inline int proc_test_stopped(void)
{
    return proc_test_children_in('T', NULL);
}

#endif
