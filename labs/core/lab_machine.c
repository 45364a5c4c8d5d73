/*
 * lab_machine.c — what machine a run measured: CPU model, online cores,
 * cache sizes and line, memory. Stored with every run, so numbers from two
 * machines are never compared blindly.
 *
 * Cache sizes come from /sys/devices/system/cpu/cpu0/cache/index* (what
 * the kernel was told by the CPU), else from sysconf(_SC_LEVEL1_DCACHE_SIZE,
 * ...): glibc derives those from CPUID itself and was seen reporting a
 * 320 MiB L3 for a 32 MiB one on a virtual machine. The CPU
 * model from /proc/cpuinfo ("model name", or "Processor"/"cpu model" on other
 * architectures). Nothing here fails: what cannot be read stays 0 or "".
 */
#include "labs/lab_author.h"
#include "kernels/kernels.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void trim(char *s)
{
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    size_t k = 0;
    while (s[k] && isspace((unsigned char)s[k]))
        k++;
    memmove(s, s + k, n - k + 1);
}

static void cpu_model(char *out, size_t size)
{
    static const char *const keys[] = {"model name", "Processor", "cpu model", "Model"};
    out[0] = '\0';
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    int best = (int)(sizeof keys / sizeof keys[0]);
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (!colon)
            continue;
        *colon = '\0';
        trim(line);
        for (int k = 0; k < best; k++)
            if (strcmp(line, keys[k]) == 0) {
                char *v = colon + 1;
                trim(v);
                if (*v) {
                    snprintf(out, size, "%s", v);
                    best = k;
                }
                break;
            }
        if (best == 0)
            break;
    }
    fclose(f);
}

/* "32K", "1024K", "8M" → bytes; 0 when unreadable. */
static long parse_size(const char *s)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || v <= 0)
        return 0;
    switch (*end) {
    case 'K':
    case 'k':
        return v * 1024;
    case 'M':
    case 'm':
        return v * 1024 * 1024;
    case 'G':
    case 'g':
        return v * 1024 * 1024 * 1024;
    default:
        return v;
    }
}

/* Fills the cache sizes from cpu0's cache directory. */
static void caches_from_sys(struct lab_machine *m)
{
    for (int i = 0; i < 16; i++) {
        char path[128], level[16], type[32], size[32], line[32];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        if (!core_file_first_line(path, level, sizeof level))
            break;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
        if (!core_file_first_line(path, type, sizeof type))
            continue;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        if (!core_file_first_line(path, size, sizeof size))
            continue;
        if (strcmp(type, "Instruction") == 0)
            continue;
        long bytes = parse_size(size);
        int lv = atoi(level);
        if (lv == 1 && strcmp(type, "Data") == 0 && m->l1d_bytes <= 0)
            m->l1d_bytes = bytes;
        else if (lv == 2 && m->l2_bytes <= 0)
            m->l2_bytes = bytes;
        else if (lv == 3 && m->l3_bytes <= 0)
            m->l3_bytes = bytes;
        snprintf(path, sizeof path,
                 "/sys/devices/system/cpu/cpu0/cache/index%d/coherency_line_size", i);
        if (m->line_bytes <= 0 && core_file_first_line(path, line, sizeof line))
            m->line_bytes = atol(line);
    }
}

static long sc(int name)
{
    long v = sysconf(name);
    return v > 0 ? v : 0;
}

long lab_machine_mem_bytes(void)
{
    long pages = sc(_SC_PHYS_PAGES), page = sc(_SC_PAGESIZE);
    return pages && page ? pages * page : 0;
}

void lab_machine_probe(struct lab_machine *m)
{
    memset(m, 0, sizeof *m);
    cpu_model(m->cpu_model, sizeof m->cpu_model);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    m->cores_online = cores > 0 ? (int)cores : 1;
    caches_from_sys(m);
#ifdef _SC_LEVEL1_DCACHE_SIZE
    if (m->l1d_bytes <= 0)
        m->l1d_bytes = sc(_SC_LEVEL1_DCACHE_SIZE);
    if (m->l2_bytes <= 0)
        m->l2_bytes = sc(_SC_LEVEL2_CACHE_SIZE);
    if (m->l3_bytes <= 0)
        m->l3_bytes = sc(_SC_LEVEL3_CACHE_SIZE);
    if (m->line_bytes <= 0)
        m->line_bytes = sc(_SC_LEVEL1_DCACHE_LINESIZE);
#endif
    if (m->line_bytes <= 0)
        m->line_bytes = 64;
    m->mem_bytes = lab_machine_mem_bytes();
    struct kern_device d;
    if (kern_probe(&d, NULL) == 0)
        snprintf(m->gpu, sizeof m->gpu, "%.*s (compute %d.%d, %d SMs, %lld MiB)", 100, d.name,
                 d.cc_major, d.cc_minor, d.sm_count, d.global_bytes >> 20);
}

void lab_machine_json(const struct lab_machine *m, struct core_json *j)
{
    core_json_obj_begin(j);
    core_json_kstr(j, "cpu_model", m->cpu_model);
    core_json_kint(j, "cores_online", m->cores_online);
    core_json_kint(j, "l1d_bytes", m->l1d_bytes);
    core_json_kint(j, "l2_bytes", m->l2_bytes);
    core_json_kint(j, "l3_bytes", m->l3_bytes);
    core_json_kint(j, "line_bytes", m->line_bytes);
    core_json_kint(j, "mem_bytes", m->mem_bytes);
    core_json_kstr(j, "gpu", m->gpu);
    if (m->n_hosts > 0) {
        core_json_kint(j, "n_hosts", m->n_hosts);
        core_json_kstr(j, "hosts", m->hosts);
        core_json_kstr(j, "interconnect", m->interconnect);
    }
    core_json_obj_end(j);
}
