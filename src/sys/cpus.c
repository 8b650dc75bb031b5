/* cpus.c — the CPUs this process may use: its affinity mask and its cgroup's CPU quota. */
#include "sys/sys.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A taskset-style hexadecimal mask ("ff,ffffffff") added into *set. */
static void mrn_add_hex_mask(const char *text, cpu_set_t *set) {
    size_t len = strcspn(text, "\n");
    int cpu = 0;
    for (size_t i = len; i-- > 0;) {
        char c = text[i];
        if (c == ',') continue;
        int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (v < 0) return;
        for (int b = 0; b < 4; b++, cpu++)
            if ((v >> b & 1) && cpu < CPU_SETSIZE) CPU_SET(cpu, set);
    }
}

/* The main thread's mask when the library was loaded, before the program could narrow it. */
static cpu_set_t mrn_mask_at_load;
static bool mrn_have_mask_at_load;

__attribute__((constructor)) static void mrn_snapshot_mask(void) {
    mrn_have_mask_at_load = sched_getaffinity(0, sizeof mrn_mask_at_load, &mrn_mask_at_load) == 0;
}

/* The union of the masks of the process's threads (/proc/self/task/<tid>/status, Cpus_allowed):
 * the calling thread may have been bound to one CPU (OMP_PROC_BIND binds the master thread), and
 * the process may still use them all; with the main thread's mask at load time. */
static bool mrn_process_mask(cpu_set_t *set) {
    CPU_ZERO(set);
    DIR *d = opendir("/proc/self/task");
    if (!d) return false;
    struct dirent *e;
    char path[64], line[512];
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        snprintf(path, sizeof path, "/proc/self/task/%.20s/status", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue; /* the thread has exited */
        while (fgets(line, sizeof line, f))
            if (strncmp(line, "Cpus_allowed:", 13) == 0) mrn_add_hex_mask(line + 13 + strspn(line + 13, " \t"), set);
        fclose(f);
    }
    closedir(d);
    if (mrn_have_mask_at_load) CPU_OR(set, set, &mrn_mask_at_load);
    return CPU_COUNT(set) > 0;
}

/* The first line of a file, or false. */
static bool mrn_read_line(const char *path, char *buf, size_t size) {
    /* open/read, not stdio: workers re-read the quota while tasks run, and must not allocate
     * (a program counting its allocations, or replacing malloc, sees none from the runtime) */
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    ssize_t n = read(fd, buf, size - 1);
    close(fd);
    if (n <= 0) return false;
    buf[n] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    return true;
}

/* Whether the comma-separated list `ctrls` (a v1 line's controllers) names `name` exactly. */
static bool mrn_has_controller(const char *ctrls, const char *name) {
    size_t len = strlen(name);
    for (const char *c = ctrls; *c; c += strcspn(c, ","), c += *c == ',') {
        if (strncmp(c, name, len) == 0 && (c[len] == ',' || c[len] == '\0')) return true;
    }
    return false;
}

/* CPUs allowed by quota/period, rounded up; 0 for no quota. */
static unsigned mrn_quota_cpus(long long quota, long long period) {
    if (quota <= 0 || period <= 0) return 0;
    long long n = (quota + period - 1) / period;
    return n > 0 && n < 1 << 20 ? (unsigned)n : 0;
}

/* The CPUs a quota file (v2 cpu.max: "max 100000" or "200000 100000"), or a pair of them (v1
 * cpu.cfs_quota_us and cpu.cfs_period_us), allows; -1 when unreadable or malformed, 0 for none. */
static int mrn_read_quota(const char *quota_file, const char *period_file) {
    char buf[128], max[32];
    long long q, p;
    if (!mrn_read_line(quota_file, buf, sizeof buf)) return -1;
    if (!*period_file) { /* v2 */
        if (sscanf(buf, "%31s %lld", max, &p) != 2) return -1;
        return strcmp(max, "max") == 0 ? 0 : (int)mrn_quota_cpus(atoll(max), p);
    }
    q = atoll(buf);
    if (!mrn_read_line(period_file, buf, sizeof buf)) return -1;
    p = atoll(buf);
    return (int)mrn_quota_cpus(q, p);
}

/* The quota of the process's cgroup: v2 cpu.max, else v1 cpu.cfs_quota_us / cpu.cfs_period_us; the
 * cgroup's path comes from /proc/self/cgroup. The file(s) found go to out, for mrn_reread_cpu_budget. */
static unsigned mrn_cgroup_quota(mrn_cpu_budget *out) {
    out->quota_file[0] = out->period_file[0] = '\0';
    const char *root = getenv("MERINO_CGROUP_ROOT");
    if (!root || !*root) root = "/sys/fs/cgroup";
    const char *self = getenv("MERINO_CGROUP_SELF"); /* tests: stands for /proc/self/cgroup */
    FILE *f = fopen(self && *self ? self : "/proc/self/cgroup", "r");
    if (!f) return 0;
    char line[1024], qpath[sizeof out->quota_file], ppath[sizeof out->period_file];
    int quota = -1;
    while (quota < 0 && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *ctrl = strchr(line, ':'), *rel = ctrl ? strchr(ctrl + 1, ':') : NULL;
        if (!rel) continue;
        *ctrl++ = '\0'; /* line: the hierarchy number; ctrl: the controllers; rel: the path */
        *rel++ = '\0';
        if (strcmp(line, "0") == 0 && *ctrl == '\0') { /* v2: 0::/path */
            snprintf(qpath, sizeof qpath, "%s%s/cpu.max", root, rel);
            ppath[0] = '\0';
            quota = mrn_read_quota(qpath, ppath);
        } else if (mrn_has_controller(ctrl, "cpu")) {
            /* v1: N:cpu,cpuacct:/path, mounted at <root>/cpu,cpuacct or <root>/cpu */
            const char *dirs[] = {ctrl, "cpu", "cpu,cpuacct"};
            for (int i = 0; i < 3 && quota < 0; i++) {
                snprintf(qpath, sizeof qpath, "%s/%s%s/cpu.cfs_quota_us", root, dirs[i], rel);
                snprintf(ppath, sizeof ppath, "%s/%s%s/cpu.cfs_period_us", root, dirs[i], rel);
                quota = mrn_read_quota(qpath, ppath);
            }
        }
    }
    fclose(f);
    if (quota < 0) return 0;
    memcpy(out->quota_file, qpath, sizeof qpath);
    memcpy(out->period_file, ppath, sizeof ppath);
    return (unsigned)quota;
}

void mrn_read_cpu_budget(mrn_cpu_budget *out) {
    if (!mrn_process_mask(&out->cpus) &&
        (sched_getaffinity(0, sizeof out->cpus, &out->cpus) != 0 || CPU_COUNT(&out->cpus) < 1)) {
        /* neither readable: the CPU this thread runs on stands for the mask */
        int c = sched_getcpu();
        CPU_ZERO(&out->cpus);
        CPU_SET(c >= 0 && c < CPU_SETSIZE ? c : 0, &out->cpus);
    }
    out->ncpus = (unsigned)CPU_COUNT(&out->cpus);
    out->quota = mrn_cgroup_quota(out);
    if (sched_getaffinity(getpid(), sizeof out->main_mask, &out->main_mask) != 0) out->main_mask = out->cpus;
}

unsigned mrn_reread_cpu_budget(const mrn_cpu_budget *start, bool follow_main) {
    mrn_cpu_budget now = *start;
    cpu_set_t main_now;
    /* The union of every thread's mask costs a file per thread: recount only when the main
     * thread's mask moved, which a change made to the whole process (taskset -a, a cpuset)
     * does. A main thread bound to fewer CPUs after start by the program itself narrows it too. */
    if (follow_main && sched_getaffinity(getpid(), sizeof main_now, &main_now) == 0 && !CPU_EQUAL(&main_now, &start->main_mask) &&
        CPU_COUNT(&main_now) > 0)
        now.ncpus = (unsigned)CPU_COUNT(&main_now);
    int q = start->quota_file[0] ? mrn_read_quota(start->quota_file, start->period_file) : 0;
    now.quota = q > 0 ? (unsigned)q : 0;
    return mrn_cpu_budget_count(&now);
}
