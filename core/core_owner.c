/*
 * core_owner.c — process identity for records that outlive a crash: a lab
 * run row says which process runs it, so a later process can tell that its
 * owner was killed (kill -9, power loss) and close it. Linux /proc and
 * /proc/sys/kernel/random/boot_id; elsewhere the answer is "cannot tell".
 */
#include "core/core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

/* The start time (clock ticks since boot, field 22 of /proc/PID/stat) of
 * pid; 0 when there is no such process or /proc cannot be read. */
static unsigned long long start_ticks(long pid)
{
    char path[64], line[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    if (!core_file_first_line(path, line, sizeof line))
        return 0;
    /* The command name (field 2) may hold spaces and ')': fields resume after
     * the last ')'. */
    char *p = strrchr(line, ')');
    if (!p)
        return 0;
    p++;
    for (int field = 3; field < 22; field++) {
        p = strchr(p + 1, ' ');
        if (!p)
            return 0;
    }
    return strtoull(p + 1, NULL, 10);
}

static void host_and_boot(char host[64], char boot[48])
{
    if (gethostname(host, 64) != 0)
        host[0] = '\0';
    host[63] = '\0';
    for (char *c = host; *c; c++)
        if (*c == '|')
            *c = '_';
    if (!core_file_first_line("/proc/sys/kernel/random/boot_id", boot, 48))
        boot[0] = '\0';
}

void core_owner_self(char out[CORE_OWNER_MAX])
{
    char host[64], boot[48];
    host_and_boot(host, boot);
    long pid = (long)getpid();
    snprintf(out, CORE_OWNER_MAX, "%s|%s|%ld|%llu", host, boot, pid, start_ticks(pid));
}

int core_owner_alive(const char *owner)
{
    if (!owner)
        return -1;
    char host[64], boot[48], ohost[64], oboot[48];
    long pid = 0;
    unsigned long long start = 0;
    const char *a = strchr(owner, '|'), *b = a ? strchr(a + 1, '|') : NULL;
    if (!a || !b || (size_t)(a - owner) >= sizeof ohost || (size_t)(b - a - 1) >= sizeof oboot)
        return -1;
    memcpy(ohost, owner, (size_t)(a - owner));
    ohost[a - owner] = '\0';
    memcpy(oboot, a + 1, (size_t)(b - a - 1));
    oboot[b - a - 1] = '\0';
    if (sscanf(b + 1, "%ld|%llu", &pid, &start) != 2 || pid <= 0)
        return -1;
    host_and_boot(host, boot);
    if (strcmp(host, ohost) != 0 || !boot[0] || !oboot[0])
        return -1;
    if (strcmp(boot, oboot) != 0)
        return 0; /* the machine rebooted since: the owner is gone */
    if (start_ticks((long)getpid()) == 0)
        return -1; /* no /proc here: cannot tell */
    unsigned long long now = start_ticks(pid);
    return now != 0 && now == start ? 1 : 0;
}
