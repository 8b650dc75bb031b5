/* env.c — the environment variables, each read by a child process of this program started with
 * it set: OMP_NUM_THREADS (a number, spaces around it, a list for nested levels), OMP_DYNAMIC,
 * OMP_MAX_ACTIVE_LEVELS and OMP_NESTED, OMP_STACKSIZE (every suffix; a thread of the team then
 * uses 24 MB of stack), OMP_WAIT_POLICY, OMP_PROC_BIND (each value and a list), OMP_THREAD_LIMIT,
 * OMP_MAX_TASK_PRIORITY, OMP_CANCELLATION, OMP_NUM_TEAMS, OMP_TEAMS_THREAD_LIMIT, OMP_DEFAULT_DEVICE,
 * OMP_DISPLAY_ENV (the block's first and last lines, and the line of every variable set, which is
 * printed: it must read as libgomp's), OMP_DISPLAY_AFFINITY with OMP_AFFINITY_FORMAT, and a
 * malformed value of each, whose message must name the variable. OMP_SCHEDULE is for_runtime.c's,
 * OMP_PLACES affinity.c's, OMP_ALLOCATOR alloc.c's.
 * omp-threads: 2
 */
#include "omp_test.h"

#include <pthread.h>

/* ---- the children: each checks what its environment must give -------------------------------- */

static int team_size(int request) {
    int n = 0;
#pragma omp parallel num_threads(request)
#pragma omp single
    n = omp_get_num_threads();
    return n;
}

static int child_num_threads(int want) {
    CHECK_EQ_INT(omp_get_max_threads(), want);
    int n = 0;
#pragma omp parallel
#pragma omp single
    n = omp_get_num_threads();
    CHECK_EQ_INT(n, want);
    return 0;
}

static int child_num_threads_list(void) {
    CHECK_EQ_INT(omp_get_max_threads(), 4);
    CHECK_MSG(omp_get_max_active_levels() >= 3, "a list of 3 allows 3 active levels, not %d",
              omp_get_max_active_levels());
    int bad = 0;
#pragma omp parallel reduction(+ : bad)
    {
        bad += omp_get_num_threads() != 4 || omp_get_max_threads() != 3;
#pragma omp parallel reduction(+ : bad)
        {
            bad += omp_get_num_threads() != 3 || omp_get_max_threads() != 2;
#pragma omp parallel reduction(+ : bad)
            bad += omp_get_num_threads() != 2 || omp_get_max_threads() != 2; /* the last repeats */
        }
    }
    CHECK_EQ_INT(bad, 0);
    return 0;
}

static int child_max_active_levels(int levels) {
    CHECK_EQ_INT(omp_get_max_active_levels(), levels);
    int sizes[4] = {0};
#pragma omp parallel num_threads(2)
#pragma omp parallel num_threads(2)
#pragma omp parallel num_threads(2)
#pragma omp parallel num_threads(2)
    {
        int lv = omp_get_level();
        if (omp_get_ancestor_thread_num(1) == 0 && omp_get_ancestor_thread_num(2) == 0 &&
            omp_get_ancestor_thread_num(3) == 0 && omp_get_thread_num() == 0)
            for (int l = 1; l <= lv; l++) sizes[l - 1] = omp_get_team_size(l);
    }
    for (int l = 0; l < 4; l++) CHECK_EQ_INT(sizes[l], l < levels ? 2 : 1);
    return 0;
}

/* 24 MB of stack in frames of 64 KB, every page touched. */
static long deep(int depth) {
    volatile char frame[64 * 1024];
    for (size_t i = 0; i < sizeof frame; i += 4096) frame[i] = (char)depth;
    long below = depth > 1 ? deep(depth - 1) : 0;
    return below + frame[depth % (int)sizeof frame];
}

static int child_stacksize(void) {
    long r[2] = {-1, -1};
    size_t sz = 0;
#pragma omp parallel num_threads(2)
    {
        int t = omp_get_thread_num();
        if (t == 1) {
            pthread_attr_t a;
            if (pthread_getattr_np(pthread_self(), &a) == 0) {
                pthread_attr_getstacksize(&a, &sz);
                pthread_attr_destroy(&a);
            }
        }
        r[t] = deep(t == 1 ? 384 : 1);
    }
    CHECK(r[1] >= 0);
    CHECK_MSG(sz >= 32u << 20, "thread 1's stack is %zu bytes", sz);
    return 0;
}

static int child_wait_policy(void) {
    atomic_int sum = 0;
    for (int r = 0; r < 200; r++) {
#pragma omp parallel num_threads(3)
        {
#pragma omp barrier
            atomic_fetch_add(&sum, 1);
        }
    }
    CHECK_EQ_INT(atomic_load(&sum), 600);
    return 0;
}

static int child_proc_bind(int outer, int inner) {
    CHECK_EQ_INT((int)omp_get_proc_bind(), outer);
    int in = -1;
#pragma omp parallel num_threads(2)
#pragma omp single
    in = (int)omp_get_proc_bind();
    CHECK_EQ_INT(in, inner);
    return 0;
}

static int child_thread_limit(void) {
    CHECK_EQ_INT(omp_get_thread_limit(), 3);
    CHECK_EQ_INT(team_size(8), 3);
    return 0;
}

static int child_value(const char *what, int got, int want) {
    CHECK_MSG(got == want, "%s = %d, want %d", what, got, want);
    return 0;
}

static int child_region(void) {
    CHECK(team_size(3) >= 1);
    return 0;
}

static int run_child(const char *name) {
    if (!strcmp(name, "nt5")) return child_num_threads(5);
    if (!strcmp(name, "nt6")) return child_num_threads(6);
    if (!strcmp(name, "ntlist")) return child_num_threads_list();
    if (!strcmp(name, "dyn1")) return child_value("omp_get_dynamic()", omp_get_dynamic(), 1);
    if (!strcmp(name, "dyn0")) return child_value("omp_get_dynamic()", omp_get_dynamic(), 0);
    if (!strcmp(name, "mal3")) return child_max_active_levels(3);
    if (!strcmp(name, "mal2")) return child_max_active_levels(2);
    if (!strcmp(name, "nested")) return child_value("omp_get_nested()", omp_get_nested(), 1);
    if (!strcmp(name, "stack")) return child_stacksize();
    if (!strcmp(name, "wait")) return child_wait_policy();
    if (!strcmp(name, "bind_false")) return child_proc_bind(omp_proc_bind_false, omp_proc_bind_false);
    if (!strcmp(name, "bind_true")) return child_proc_bind(omp_proc_bind_true, omp_proc_bind_true);
    if (!strcmp(name, "bind_master")) return child_proc_bind(omp_proc_bind_master, omp_proc_bind_master);
    if (!strcmp(name, "bind_close")) return child_proc_bind(omp_proc_bind_close, omp_proc_bind_close);
    if (!strcmp(name, "bind_list")) return child_proc_bind(omp_proc_bind_spread, omp_proc_bind_close);
    if (!strcmp(name, "limit")) return child_thread_limit();
    if (!strcmp(name, "prio")) return child_value("omp_get_max_task_priority()", omp_get_max_task_priority(), 7);
    if (!strcmp(name, "cancel1")) return child_value("omp_get_cancellation()", omp_get_cancellation(), 1);
    if (!strcmp(name, "cancel0")) return child_value("omp_get_cancellation()", omp_get_cancellation(), 0);
    if (!strcmp(name, "teams")) {
        child_value("omp_get_max_teams()", omp_get_max_teams(), 3);
        return child_value("omp_get_teams_thread_limit()", omp_get_teams_thread_limit(), 4);
    }
    if (!strcmp(name, "device")) return child_value("omp_get_default_device()", omp_get_default_device(), 0);
    if (!strcmp(name, "region")) return child_region();
    fprintf(stderr, "env: no child named %s\n", name);
    return 2;
}

/* ---- the parent --------------------------------------------------------------------------------- */

static void expect_ok(const char *child, const char *const *env, const char *what) {
    check_child c = check_run_child(child, env, 120);
    CHECK_CHILD(c, c.exited && c.code == 0);
    check_child_free(&c);
    OT_SAY("%s: right", what);
}

static void variables(void) {
    expect_ok("nt5", (const char *[]){"OMP_NUM_THREADS=5", NULL}, "OMP_NUM_THREADS=5");
    expect_ok("nt6", (const char *[]){"OMP_NUM_THREADS= 6 ", NULL}, "OMP_NUM_THREADS=' 6 '");
    expect_ok("ntlist", (const char *[]){"OMP_NUM_THREADS=4,3,2", NULL}, "OMP_NUM_THREADS=4,3,2");
    expect_ok("dyn1", (const char *[]){"OMP_DYNAMIC=true", NULL}, "OMP_DYNAMIC=true");
    expect_ok("dyn1", (const char *[]){"OMP_DYNAMIC=TRUE", NULL}, "OMP_DYNAMIC=TRUE");
    expect_ok("dyn0", (const char *[]){"OMP_DYNAMIC=false", NULL}, "OMP_DYNAMIC=false");
    expect_ok("mal3", (const char *[]){"OMP_MAX_ACTIVE_LEVELS=3", NULL}, "OMP_MAX_ACTIVE_LEVELS=3");
    expect_ok("mal2", (const char *[]){"OMP_NESTED=true", "OMP_MAX_ACTIVE_LEVELS=2", NULL},
              "OMP_NESTED=true OMP_MAX_ACTIVE_LEVELS=2");
    expect_ok("nested", (const char *[]){"OMP_NESTED=true", NULL}, "OMP_NESTED=true");
    expect_ok("stack", (const char *[]){"OMP_STACKSIZE=32M", NULL}, "OMP_STACKSIZE=32M");
    expect_ok("stack", (const char *[]){"OMP_STACKSIZE=32768", NULL}, "OMP_STACKSIZE=32768 (kilobytes)");
    expect_ok("stack", (const char *[]){"OMP_STACKSIZE=32768k", NULL}, "OMP_STACKSIZE=32768k");
    expect_ok("stack", (const char *[]){"OMP_STACKSIZE=33554432B", NULL}, "OMP_STACKSIZE=33554432B");
    expect_ok("stack", (const char *[]){"OMP_STACKSIZE=1G", NULL}, "OMP_STACKSIZE=1G");
    expect_ok("wait", (const char *[]){"OMP_WAIT_POLICY=active", NULL}, "OMP_WAIT_POLICY=active");
    expect_ok("wait", (const char *[]){"OMP_WAIT_POLICY=PASSIVE", NULL}, "OMP_WAIT_POLICY=PASSIVE");
    expect_ok("bind_false", (const char *[]){"-OMP_PROC_BIND", NULL}, "OMP_PROC_BIND unset");
    expect_ok("bind_false", (const char *[]){"OMP_PROC_BIND=false", NULL}, "OMP_PROC_BIND=false");
    expect_ok("bind_true", (const char *[]){"OMP_PROC_BIND=true", NULL}, "OMP_PROC_BIND=true");
    expect_ok("bind_master", (const char *[]){"OMP_PROC_BIND=master", NULL}, "OMP_PROC_BIND=master");
    expect_ok("bind_master", (const char *[]){"OMP_PROC_BIND=primary", NULL}, "OMP_PROC_BIND=primary");
    expect_ok("bind_close", (const char *[]){"OMP_PROC_BIND=close", NULL}, "OMP_PROC_BIND=close");
    expect_ok("bind_list", (const char *[]){"OMP_PROC_BIND=spread,close", NULL}, "OMP_PROC_BIND=spread,close");
    expect_ok("limit", (const char *[]){"OMP_THREAD_LIMIT=3", NULL}, "OMP_THREAD_LIMIT=3");
    expect_ok("prio", (const char *[]){"OMP_MAX_TASK_PRIORITY=7", NULL}, "OMP_MAX_TASK_PRIORITY=7");
    expect_ok("cancel1", (const char *[]){"OMP_CANCELLATION=true", NULL}, "OMP_CANCELLATION=true");
    expect_ok("cancel0", (const char *[]){"OMP_CANCELLATION=false", NULL}, "OMP_CANCELLATION=false");
    expect_ok("teams", (const char *[]){"OMP_NUM_TEAMS=3", "OMP_TEAMS_THREAD_LIMIT=4", NULL},
              "OMP_NUM_TEAMS=3 OMP_TEAMS_THREAD_LIMIT=4");
    expect_ok("device", (const char *[]){"OMP_DEFAULT_DEVICE=0", NULL}, "OMP_DEFAULT_DEVICE=0");
}

/* A malformed value: a message naming the variable (libgomp goes on with the default). */
static void malformed(void) {
    static const char *const bad[][2] = {
        {"OMP_NUM_THREADS=abc", "OMP_NUM_THREADS"},     {"OMP_NUM_THREADS=4,x", "OMP_NUM_THREADS"},
        {"OMP_SCHEDULE=sideways", "OMP_SCHEDULE"},      {"OMP_SCHEDULE=dynamic,x", "OMP_SCHEDULE"},
        {"OMP_DYNAMIC=maybe", "OMP_DYNAMIC"},           {"OMP_PROC_BIND=diagonal", "OMP_PROC_BIND"},
        {"OMP_STACKSIZE=12Q", "OMP_STACKSIZE"},         {"OMP_WAIT_POLICY=lazy", "OMP_WAIT_POLICY"},
        {"OMP_THREAD_LIMIT=zero", "OMP_THREAD_LIMIT"},  {"OMP_MAX_ACTIVE_LEVELS=many", "OMP_MAX_ACTIVE_LEVELS"},
        {"OMP_CANCELLATION=yes", "OMP_CANCELLATION"},   {"OMP_MAX_TASK_PRIORITY=-1", "OMP_MAX_TASK_PRIORITY"},
    };
    for (unsigned k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        const char *env[] = {bad[k][0], NULL};
        check_child c = check_run_child("region", env, 60);
        CHECK_CHILD(c, !c.timed_out && !c.signaled);
        CHECK_CHILD(c, strstr(c.err, bad[k][1]) != NULL);
        check_child_free(&c);
    }
    OT_SAY("12 malformed values: each message names its variable");
}

/* The OMP_DISPLAY_ENV block: "OPENMP DISPLAY ENVIRONMENT BEGIN", then "  NAME = 'VALUE'" lines
 * (OpenMP 5.1 puts "[host] " before NAME; either form is taken), then "...END". */
static const char *display_value(const char *err, const char *name, char *out, size_t n) {
    char key[80];
    snprintf(key, sizeof key, "%s = '", name);
    for (const char *line = err; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        const char *p = line;
        while (*p == ' ') p++;
        if (!strncmp(p, "[host] ", 7)) p += 7;
        if (strncmp(p, key, strlen(key)) != 0) continue;
        p += strlen(key);
        const char *end = strchr(p, '\'');
        if (!end) return NULL;
        snprintf(out, n, "%.*s", (int)(end - p), p);
        return out;
    }
    return NULL;
}

static void display_env(void) {
    static const char *const set[] = {
        "OMP_NUM_THREADS=4,2",      "OMP_SCHEDULE=guided,5",   "OMP_DYNAMIC=true",
        "OMP_PROC_BIND=spread,close", "OMP_MAX_ACTIVE_LEVELS=3", "OMP_THREAD_LIMIT=12",
        "OMP_CANCELLATION=true",    "OMP_MAX_TASK_PRIORITY=9", "OMP_WAIT_POLICY=active",
        "OMP_STACKSIZE=2M",         "OMP_DEFAULT_DEVICE=0",    "OMP_AFFINITY_FORMAT=T%n",
    };
    enum { NSET = sizeof set / sizeof set[0] };
    const char *env[NSET + 2];
    for (int k = 0; k < NSET; k++) env[k] = set[k];
    for (int verbose = 0; verbose <= 1; verbose++) {
        env[NSET] = verbose ? "OMP_DISPLAY_ENV=verbose" : "OMP_DISPLAY_ENV=true";
        env[NSET + 1] = NULL;
        check_child c = check_run_child("region", env, 60);
        CHECK_CHILD(c, c.exited && c.code == 0);
        const char *begin = strstr(c.err, "OPENMP DISPLAY ENVIRONMENT BEGIN\n");
        const char *end = strstr(c.err, "OPENMP DISPLAY ENVIRONMENT END\n");
        CHECK_CHILD(c, begin && end && begin < end);
        char v[256];
        CHECK_CHILD(c, display_value(begin, "_OPENMP", v, sizeof v));
        if (!verbose) OT_SAY("OMP_DISPLAY_ENV: _OPENMP = '%s'", v);
        for (int k = 0; k < NSET; k++) {
            char name[64];
            snprintf(name, sizeof name, "%.*s", (int)(strchr(set[k], '=') - set[k]), set[k]);
            const char *got = display_value(begin, name, v, sizeof v);
            CHECK_CHILD(c, got != NULL);
            if (!verbose) OT_SAY("OMP_DISPLAY_ENV with %s: %s = '%s'", set[k], name, got);
        }
        check_child_free(&c);
    }
    OT_SAY("OMP_DISPLAY_ENV=verbose: the same block");
}

/* OMP_DISPLAY_AFFINITY: a line per thread of a region, in OMP_AFFINITY_FORMAT. */
static void display_affinity(void) {
    const char *env[] = {"OMP_DISPLAY_AFFINITY=true", "OMP_AFFINITY_FORMAT=aff %n of %N at level %L", NULL};
    check_child c = check_run_child("region", env, 60);
    CHECK_CHILD(c, c.exited && c.code == 0);
    for (int t = 0; t < 3; t++) {
        char line[64];
        snprintf(line, sizeof line, "aff %d of 3 at level 1\n", t);
        CHECK_CHILD(c, strstr(c.err, line) != NULL);
    }
    check_child_free(&c);
    OT_SAY("OMP_DISPLAY_AFFINITY: 'aff N of 3 at level 1' for each thread");
}

int main(int argc, char **argv) {
    const char *child = check_child_name(argc, argv);
    if (child) return run_child(child);
    variables();
    malformed();
    display_env();
    display_affinity();
    return 0;
}
