/* test_omp_env.c — libmerino_omp's OpenMP environment (src/omp/env.c, thread.c), each setting in
 * a child process: OMP_NUM_THREADS (a value and a list per level; the pool is started with that
 * many workers), OMP_SCHEDULE (OpenMP's kinds with modifiers, merino's auto, adaptive and steal),
 * OMP_DYNAMIC, OMP_MAX_ACTIVE_LEVELS and OMP_NESTED, OMP_THREAD_LIMIT (teams capped),
 * OMP_STACKSIZE, OMP_WAIT_POLICY, OMP_PROC_BIND and OMP_PLACES, OMP_CANCELLATION,
 * OMP_MAX_TASK_PRIORITY, OMP_DEFAULT_DEVICE, OMP_DISPLAY_ENV; MERINO_WORKERS keeps its meaning
 * beside OMP_NUM_THREADS; and a malformed value of each gets one line naming it, and the default. */
#include "check.h"

#include <merino.h>
#include <omp.h>

static int team_size(void) {
    int n = 0;
#pragma omp parallel
#pragma omp single
    n = omp_get_num_threads();
    return n;
}

static int run_child(const char *name) {
    if (strcmp(name, "threads3") == 0) {
        CHECK_EQ_INT(omp_get_max_threads(), 3);
        CHECK_EQ_INT(team_size(), 3);
        CHECK_EQ_UINT(merino_workers(), 3); /* the pool follows OMP_NUM_THREADS */
    } else if (strcmp(name, "threads_list") == 0) {
        CHECK_EQ_INT(omp_get_max_threads(), 2);
        CHECK_EQ_INT(omp_get_max_active_levels(), 2); /* a list of two levels asks for nesting */
        int inner = 0;
#pragma omp parallel
#pragma omp single
        {
#pragma omp parallel
#pragma omp single
            inner = omp_get_num_threads();
        }
        CHECK_EQ_INT(inner, 3);
    } else if (strcmp(name, "merino_workers") == 0) {
        CHECK_EQ_UINT(merino_workers(), 0); /* not started yet */
        CHECK_EQ_INT(team_size(), 4);       /* OMP_NUM_THREADS asks for the team */
        CHECK_EQ_UINT(merino_workers(), 2); /* MERINO_WORKERS sizes the pool */
    } else if (strcmp(name, "schedule") == 0) {
        omp_sched_t k;
        int chunk;
        omp_get_schedule(&k, &chunk);
        const char *want = getenv("WANT");
        char got[64];
        snprintf(got, sizeof got, "%#x,%d", (unsigned)k, chunk);
        CHECK_STR_EQ(got, want);
        long s = 0;
#pragma omp parallel for schedule(runtime) reduction(+ : s)
        for (long i = 0; i < 100000; i++) s += i;
        CHECK_EQ_INT(s, 4999950000L);
    } else if (strcmp(name, "dynamic") == 0) {
        CHECK_EQ_INT(omp_get_dynamic(), 1);
    } else if (strcmp(name, "levels") == 0) {
        CHECK_EQ_INT(omp_get_max_active_levels(), 3);
    } else if (strcmp(name, "nested") == 0) {
        CHECK(omp_get_nested());
    } else if (strcmp(name, "limit") == 0) {
        CHECK_EQ_INT(omp_get_thread_limit(), 2);
        int n = 0;
#pragma omp parallel num_threads(6)
#pragma omp single
        n = omp_get_num_threads();
        CHECK_EQ_INT(n, 2);
    } else if (strcmp(name, "misc") == 0) {
        CHECK_EQ_INT(omp_get_cancellation(), 1);
        CHECK_EQ_INT(omp_get_max_task_priority(), 7);
        CHECK_EQ_INT(omp_get_default_device(), 0);
        CHECK_EQ_INT(omp_get_proc_bind(), omp_proc_bind_spread);
        CHECK_EQ_INT(team_size(), omp_get_max_threads());
    } else if (strcmp(name, "defaults") == 0) {
        CHECK_EQ_INT(omp_get_max_threads(), omp_get_num_procs()); /* the bad value was ignored */
        CHECK_EQ_INT(team_size(), omp_get_num_procs());
    } else {
        fprintf(stderr, "unknown child %s\n", name);
        return 2;
    }
    return 0;
}

static void expect_ok(const char *child, const char *const *env) {
    check_set_context("child %s", child);
    check_child r = check_run_child(child, env, 60);
    CHECK_MSG(r.exited && r.code == 0, "%s failed:\n%s", child, r.err);
    CHECK_MSG(strstr(r.err, "merino:") == NULL, "%s printed an error:\n%s", child, r.err);
    check_child_free(&r);
}

/* A malformed variable: one line naming it, and the program runs on with the default. */
static void expect_named(const char *var, const char *value) {
    check_set_context("%s=%s", var, value);
    char set[128];
    snprintf(set, sizeof set, "%s=%s", var, value);
    const char *env[] = {set, "-OMP_NUM_THREADS", "-MERINO_WORKERS", NULL};
    check_child r = check_run_child("defaults", env, 60);
    CHECK_MSG(r.exited && r.code == 0, "the program did not run on:\n%s", r.err);
    char want[160];
    snprintf(want, sizeof want, "merino: %s='%s' is not valid", var, value);
    CHECK_STR_CONTAINS(r.err, want);
    int lines = 0;
    for (const char *p = r.err; *p; p++) lines += *p == '\n';
    CHECK_MSG(lines == 1, "%d lines on stderr:\n%s", lines, r.err);
    check_child_free(&r);
}

int main(int argc, char **argv) {
    const char *child = check_child_name(argc, argv);
    if (child) return run_child(child);
    if (CHECK_SANITIZER) {
        /* the children would start pools under the sanitizer's runtime: slow, and not what is
         * tested here */
    }
    expect_ok("threads3", (const char *[]){"OMP_NUM_THREADS=3", "-MERINO_WORKERS", NULL});
    expect_ok("threads_list", (const char *[]){"OMP_NUM_THREADS=2,3", "-MERINO_WORKERS", NULL});
    expect_ok("merino_workers", (const char *[]){"OMP_NUM_THREADS=4", "MERINO_WORKERS=2", NULL});
    static const char *const schedules[][2] = {
        /* as libgomp: static is monotonic unless said nonmonotonic; dynamic and guided chunk 1 */
        {"static", "0x80000001,0"},   {"static,8", "0x80000001,8"}, {"nonmonotonic:static", "0x1,0"},
        {"dynamic", "0x2,1"},         {"guided,3", "0x3,3"},        {"auto", "0x4,0"},
        {"adaptive", "0x4,0"},        {"steal,16", "0x5,16"},       {"monotonic:dynamic,2", "0x80000002,2"},
        {"nonmonotonic:guided", "0x3,1"}, {" GUIDED , 5 ", "0x3,5"},
    };
    for (size_t i = 0; i < sizeof schedules / sizeof schedules[0]; i++) {
        char sched[64], want[64];
        snprintf(sched, sizeof sched, "OMP_SCHEDULE=%s", schedules[i][0]);
        snprintf(want, sizeof want, "WANT=%s", schedules[i][1]);
        expect_ok("schedule", (const char *[]){sched, want, NULL});
    }
    expect_ok("dynamic", (const char *[]){"OMP_DYNAMIC=true", NULL});
    expect_ok("levels", (const char *[]){"OMP_MAX_ACTIVE_LEVELS=3", NULL});
    expect_ok("nested", (const char *[]){"OMP_NESTED=TRUE", NULL});
    expect_ok("limit", (const char *[]){"OMP_THREAD_LIMIT=2", NULL});
    expect_ok("misc", (const char *[]){"OMP_CANCELLATION=true", "OMP_MAX_TASK_PRIORITY=7", "OMP_DEFAULT_DEVICE=0",
                                       "OMP_PROC_BIND=spread", "OMP_PLACES=cores", "OMP_STACKSIZE=16M",
                                       "OMP_WAIT_POLICY=passive", NULL});
    expect_named("OMP_NUM_THREADS", "abc");
    expect_named("OMP_NUM_THREADS", "4,x");
    expect_named("OMP_SCHEDULE", "fastest");
    expect_named("OMP_SCHEDULE", "dynamic,0");
    expect_named("OMP_DYNAMIC", "maybe");
    expect_named("OMP_MAX_ACTIVE_LEVELS", "-1");
    expect_named("OMP_THREAD_LIMIT", "0");
    expect_named("OMP_STACKSIZE", "12Q");
    expect_named("OMP_WAIT_POLICY", "busy");
    expect_named("OMP_PROC_BIND", "everywhere");
    expect_named("OMP_PLACES", "cpus");
    expect_named("OMP_CANCELLATION", "1");
    expect_named("OMP_MAX_TASK_PRIORITY", "high");
    check_set_context("OMP_DISPLAY_ENV");
    check_child r = check_run_child("defaults", (const char *[]){"OMP_DISPLAY_ENV=true", "-OMP_NUM_THREADS", NULL}, 60);
    CHECK_MSG(r.exited && r.code == 0, "%s", r.err);
    CHECK_STR_CONTAINS(r.err, "OPENMP DISPLAY ENVIRONMENT BEGIN");
    CHECK_STR_CONTAINS(r.err, "OMP_SCHEDULE = 'DYNAMIC,1'");
    CHECK_STR_CONTAINS(r.err, "OPENMP DISPLAY ENVIRONMENT END");
    check_child_free(&r);
    printf("test_omp_env: ok\n");
    return 0;
}
