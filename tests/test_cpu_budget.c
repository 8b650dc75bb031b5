/* The default worker count: the CPUs the process may use (src/sys/cpus.c), capped by its cgroup's
 * CPU quota. Children start merino with defaults and report merino_workers(), against fake cgroup
 * trees in a temporary directory (MERINO_CGROUP_ROOT stands for /sys/fs/cgroup,
 * MERINO_CGROUP_SELF for /proc/self/cgroup):
 *  - v2 cpu.max: "150000 100000" -> 2 CPUs (rounded up), capped by the mask; "50000 100000" -> 1;
 *    "max 100000" -> no quota; v1 cpu.cfs_quota_us / cpu.cfs_period_us, in <root>/cpu,cpuacct or
 *    <root>/cpu, and a quota of -1 (none);
 *  - missing, unreadable or malformed files, or no cgroup file at all: the mask, silently;
 *  - MERINO_WORKERS wins over the quota;
 * and the mask is the process's, not the calling thread's: a child that binds its main thread to
 * one CPU before starting merino still gets one worker per CPU of the process (the library took a
 * snapshot of the mask when it was loaded), while a process started on one CPU gets one worker. */
#include "check.h"

#include <merino.h>

#include <sched.h>
#include <sys/stat.h>

/* ---- children ------------------------------------------------------------------------------- */

static int report_workers(void) {
    CHECK_EQ_INT(merino_start(NULL), 0);
    fprintf(stderr, "workers=%u\n", merino_workers());
    CHECK_EQ_INT(merino_stop(), 0);
    return 0;
}

/* The first CPU of *mask alone. */
static cpu_set_t first_cpu_of(const cpu_set_t *mask) {
    cpu_set_t one;
    CPU_ZERO(&one);
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, mask)) {
            CPU_SET(c, &one);
            break;
        }
    return one;
}

/* Binds the calling (main) thread to the first CPU of its mask, then starts merino. */
static int bind_then_report(void) {
    cpu_set_t set;
    CHECK_EQ_INT(sched_getaffinity(0, sizeof set, &set), 0);
    cpu_set_t one = first_cpu_of(&set);
    CHECK_EQ_INT(sched_setaffinity(0, sizeof one, &one), 0);
    return report_workers();
}

static int run_child(const char *name) {
    if (strcmp(name, "workers") == 0) return report_workers();
    if (strcmp(name, "bind_then_workers") == 0) return bind_then_report();
    fprintf(stderr, "unknown child %s\n", name);
    return 2;
}

/* ---- the fake trees ------------------------------------------------------------------------- */

static char g_dir[256];

static void write_file(const char *rel, const char *text) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", g_dir, rel);
    /* mkdir -p of the parent directories */
    for (char *p = path + strlen(g_dir) + 1; (p = strchr(p, '/')) != NULL; p++) {
        *p = 0;
        CHECK_MSG(mkdir(path, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", path, strerror(errno));
        *p = '/';
    }
    FILE *f = fopen(path, "w");
    CHECK_MSG(f != NULL, "%s: %s", path, strerror(errno));
    fputs(text, f);
    CHECK_EQ_INT(fclose(f), 0);
}

static void make_dir(const char *rel) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", g_dir, rel);
    CHECK_MSG(mkdir(path, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", path, strerror(errno));
}

/* Runs a child (name) with MERINO_CGROUP_ROOT=<dir>/<root> and MERINO_CGROUP_SELF=<dir>/<self>,
 * without MERINO_WORKERS unless workers_env is given; returns the worker count it reports, after
 * checking that it printed nothing else. */
static unsigned workers_of(const char *what, const char *name, const char *root, const char *self,
                           const char *workers_env) {
    char root_env[400], self_env[400];
    snprintf(root_env, sizeof root_env, "MERINO_CGROUP_ROOT=%s/%s", g_dir, root);
    snprintf(self_env, sizeof self_env, "MERINO_CGROUP_SELF=%s/%s", g_dir, self);
    const char *env[] = {root_env, self_env, workers_env ? workers_env : "-MERINO_WORKERS", NULL};
    check_set_context("%s", what);
    check_child c = check_run_child(name, env, 60);
    CHECK_CHILD(c, c.exited && c.code == 0);
    unsigned w = 0;
    char rest[2];
    CHECK_CHILD(c, sscanf(c.err, "workers=%u\n%1s", &w, rest) == 1); /* that line and nothing else */
    check_child_free(&c);
    check_set_context(NULL);
    return w;
}

static unsigned min_u(unsigned a, unsigned b) { return a < b ? a : b; }

int main(int argc, char **argv) {
    const char *child = check_child_name(argc, argv);
    if (child) return run_child(child);

    cpu_set_t mask;
    CHECK_EQ_INT(sched_getaffinity(0, sizeof mask, &mask), 0);
    unsigned ncpus = (unsigned)CPU_COUNT(&mask);
    if (ncpus > MERINO_MAX_WORKERS) ncpus = MERINO_MAX_WORKERS;

    snprintf(g_dir, sizeof g_dir, "%s/merino-cgroup-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    CHECK(mkdtemp(g_dir) != NULL);

    /* cgroup v2: one line "0::/path", cpu.max under <root>/path. */
    write_file("self-v2", "0::/app.slice/x.scope\n");
    write_file("v2-150/app.slice/x.scope/cpu.max", "150000 100000\n");
    write_file("v2-50/app.slice/x.scope/cpu.max", "50000 100000\n");
    write_file("v2-400/app.slice/x.scope/cpu.max", "400000 100000\n");
    write_file("v2-max/app.slice/x.scope/cpu.max", "max 100000\n");
    write_file("v2-garbage/app.slice/x.scope/cpu.max", "garbage\n");
    make_dir("v2-missing");
    make_dir("v2-unreadable");
    make_dir("v2-unreadable/app.slice");
    make_dir("v2-unreadable/app.slice/x.scope");
    make_dir("v2-unreadable/app.slice/x.scope/cpu.max"); /* a directory: opens, reads nothing */
    CHECK_EQ_UINT(workers_of("v2 150000/100000", "workers", "v2-150", "self-v2", NULL), min_u(2, ncpus));
    CHECK_EQ_UINT(workers_of("v2 50000/100000", "workers", "v2-50", "self-v2", NULL), 1);
    CHECK_EQ_UINT(workers_of("v2 400000/100000", "workers", "v2-400", "self-v2", NULL), min_u(4, ncpus));
    CHECK_EQ_UINT(workers_of("v2 max", "workers", "v2-max", "self-v2", NULL), ncpus);
    CHECK_EQ_UINT(workers_of("v2 malformed cpu.max", "workers", "v2-garbage", "self-v2", NULL), ncpus);
    CHECK_EQ_UINT(workers_of("v2 no cpu.max", "workers", "v2-missing", "self-v2", NULL), ncpus);
    CHECK_EQ_UINT(workers_of("v2 unreadable cpu.max", "workers", "v2-unreadable", "self-v2", NULL), ncpus);
    CHECK_EQ_UINT(workers_of("no cgroup file", "workers", "v2-50", "no-such-file", NULL), ncpus);
    CHECK_EQ_UINT(workers_of("MERINO_WORKERS over the quota", "workers", "v2-50", "self-v2",
                             "MERINO_WORKERS=3"),
                  3);

    /* cgroup v1: "N:cpu,cpuacct:/path", files under <root>/cpu,cpuacct/path or <root>/cpu/path. */
    write_file("self-v1", "12:memory:/grp\n4:cpu,cpuacct:/grp\n1:name=systemd:/grp\n");
    write_file("v1-one/cpu,cpuacct/grp/cpu.cfs_quota_us", "100000\n");
    write_file("v1-one/cpu,cpuacct/grp/cpu.cfs_period_us", "100000\n");
    write_file("v1-cpu-dir/cpu/grp/cpu.cfs_quota_us", "150000\n");
    write_file("v1-cpu-dir/cpu/grp/cpu.cfs_period_us", "100000\n");
    write_file("v1-none/cpu,cpuacct/grp/cpu.cfs_quota_us", "-1\n");
    write_file("v1-none/cpu,cpuacct/grp/cpu.cfs_period_us", "100000\n");
    write_file("v1-no-period/cpu,cpuacct/grp/cpu.cfs_quota_us", "100000\n");
    CHECK_EQ_UINT(workers_of("v1 100000/100000", "workers", "v1-one", "self-v1", NULL), 1);
    CHECK_EQ_UINT(workers_of("v1 in <root>/cpu", "workers", "v1-cpu-dir", "self-v1", NULL), min_u(2, ncpus));
    CHECK_EQ_UINT(workers_of("v1 quota -1", "workers", "v1-none", "self-v1", NULL), ncpus);
    CHECK_EQ_UINT(workers_of("v1 no period file", "workers", "v1-no-period", "self-v1", NULL), ncpus);

    /* The calling thread bound to one CPU: still the process's CPUs. */
    CHECK_EQ_UINT(workers_of("main thread bound before start", "bind_then_workers", "v2-max", "self-v2", NULL),
                  ncpus);
    /* A process started on one CPU has one. */
    cpu_set_t one = first_cpu_of(&mask);
    CHECK_EQ_INT(sched_setaffinity(0, sizeof one, &one), 0);
    unsigned started_on_one = workers_of("started on one CPU", "workers", "v2-max", "self-v2", NULL);
    CHECK_EQ_INT(sched_setaffinity(0, sizeof mask, &mask), 0);
    CHECK_EQ_UINT(started_on_one, 1);

    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    CHECK_EQ_INT(system(cmd), 0);
    printf("test_cpu_budget: ok (%u CPUs)\n", ncpus);
    return 0;
}
