/* for_runtime.c — schedule(runtime): the schedule OMP_SCHEDULE gives (each form of the variable,
 * one run each) and those omp_set_schedule sets, as omp_get_schedule reports them, on loops with
 * schedule(runtime), schedule(monotonic:runtime) and schedule(nonmonotonic:runtime), orphaned and
 * combined, over int and unsigned long long. Each loop: every iteration once, and what the schedule
 * in force promises (loop_check.h).
 * omp-run:
 * omp-run: OMP_SCHEDULE=static
 * omp-run: OMP_SCHEDULE=static,3
 * omp-run: OMP_SCHEDULE=dynamic
 * omp-run: OMP_SCHEDULE=dynamic,2
 * omp-run: OMP_SCHEDULE=guided
 * omp-run: OMP_SCHEDULE=GUIDED,4
 * omp-run: OMP_SCHEDULE=auto
 * omp-run: OMP_SCHEDULE=monotonic:dynamic,3
 * omp-run: OMP_SCHEDULE=nonmonotonic:guided,2
 * omp-run: OMP_SCHEDULE=monotonic:static
 */
#include "loop_check.h"

#define UBASE 0xF000000000000000ULL
enum { N = 1000 };

static const char *kind_name(omp_sched_t kind) {
    switch ((int)kind & ~(int)omp_sched_monotonic) {
    case omp_sched_static: return "static";
    case omp_sched_dynamic: return "dynamic";
    case omp_sched_guided: return "guided";
    case omp_sched_auto: return "auto";
    default: return "other";
    }
}

/* The checks for the schedule now in force; clause_mono: 1 monotonic:runtime, -1
 * nonmonotonic:runtime, 0 plain runtime. */
static void verify_runtime(const char *what, int n, int clause_mono) {
    omp_sched_t k;
    int chunk;
    omp_get_schedule(&k, &chunk);
    int mono_mod = ((int)k & (int)omp_sched_monotonic) != 0;
    int kind = (int)k & ~(int)omp_sched_monotonic;
    enum lc_kind lk = LC_ANY;
    if (kind == omp_sched_static) lk = chunk > 0 ? LC_STATIC_CHUNK : LC_STATIC;
    if (kind == omp_sched_dynamic) lk = LC_DYNAMIC;
    if (kind == omp_sched_guided) lk = LC_GUIDED;
    if (chunk < 1) chunk = 1;
    int mono = mono_mod || clause_mono > 0 || (kind == omp_sched_static && clause_mono == 0);
    char buf[200];
    snprintf(buf, sizeof buf, "%s under %s,%d%s", what, kind_name(k), chunk,
             mono_mod ? " (monotonic)" : "");
    lc_verify(buf, n, lk, chunk, ot_threads(), mono);
}

static void runtime_loops(int n) {
    lc_reset(n);
#pragma omp parallel
    {
#pragma omp for schedule(runtime)
        for (int i = 0; i < n; i++) lc_record(i);
    }
    verify_runtime("schedule(runtime), int, orphaned", n, 0);
    lc_reset(n);
#pragma omp parallel
    {
#pragma omp for schedule(monotonic : runtime)
        for (int i = n - 1; i >= 0; i--) lc_record(n - 1 - i);
    }
    verify_runtime("schedule(monotonic:runtime), int, orphaned", n, 1);
    lc_reset(n);
#pragma omp parallel
    {
#pragma omp for schedule(nonmonotonic : runtime)
        for (int i = 0; i < 2 * n; i += 2) lc_record(i / 2);
    }
    verify_runtime("schedule(nonmonotonic:runtime), int, orphaned", n, -1);
    lc_reset(n);
#pragma omp parallel
    {
#pragma omp for schedule(runtime)
        for (unsigned long long u = UBASE; u < UBASE + (unsigned)n; u++) lc_record((long)(u - UBASE));
    }
    verify_runtime("schedule(runtime), unsigned long long, orphaned", n, 0);
    lc_reset(n);
#pragma omp parallel
    {
#pragma omp for schedule(monotonic : runtime)
        for (unsigned long long u = UBASE; u < UBASE + (unsigned)n; u++) lc_record((long)(u - UBASE));
    }
    verify_runtime("schedule(monotonic:runtime), unsigned long long, orphaned", n, 1);
    lc_reset(n);
#pragma omp parallel
    {
#pragma omp for schedule(nonmonotonic : runtime)
        for (unsigned long long u = UBASE; u < UBASE + (unsigned)n; u++) lc_record((long)(u - UBASE));
    }
    verify_runtime("schedule(nonmonotonic:runtime), unsigned long long, orphaned", n, -1);

    /* Combined, with constant bounds: GOMP_parallel_loop_*runtime. */
    lc_reset(N);
#pragma omp parallel for schedule(runtime)
    for (int i = 0; i < N; i++) lc_record(i);
    verify_runtime("parallel for schedule(runtime)", N, 0);
    lc_reset(N);
#pragma omp parallel for schedule(monotonic : runtime)
    for (int i = 0; i < N; i++) lc_record(i);
    verify_runtime("parallel for schedule(monotonic:runtime)", N, 1);
    lc_reset(N);
#pragma omp parallel for schedule(nonmonotonic : runtime)
    for (int i = 0; i < N; i++) lc_record(i);
    verify_runtime("parallel for schedule(nonmonotonic:runtime)", N, -1);
    lc_reset(N);
#pragma omp parallel for schedule(runtime)
    for (unsigned long long u = UBASE; u < UBASE + N; u++) lc_record((long)(u - UBASE));
    verify_runtime("parallel for schedule(runtime), unsigned long long", N, 0);
}

static void say_schedule(const char *prefix) {
    omp_sched_t k;
    int chunk;
    omp_get_schedule(&k, &chunk);
    /* auto's chunk size means nothing (libgomp's omp_set_schedule keeps the previous one) */
    if (((int)k & ~(int)omp_sched_monotonic) == omp_sched_auto)
        OT_SAY("%s: auto%s", prefix, ((int)k & (int)omp_sched_monotonic) ? ", monotonic" : "");
    else
        OT_SAY("%s: %s, chunk %d%s", prefix, kind_name(k), chunk,
               ((int)k & (int)omp_sched_monotonic) ? ", monotonic" : "");
}

static void with_the_environment(void) {
    say_schedule("run-sched-var from the environment");
    static const int sizes[] = {0, 1, 5, 1000, 1237};
    for (unsigned s = 0; s < sizeof sizes / sizeof sizes[0]; s++) runtime_loops(sizes[s]);
    omp_sched_t k;
    int chunk;
    omp_get_schedule(&k, &chunk);
    if (((int)k & ~(int)omp_sched_monotonic) == omp_sched_static) {
        /* static is deterministic: the same split as libgomp's */
        lc_reset(1237);
#pragma omp parallel for schedule(runtime)
        for (int i = 0; i < 1237; i++) lc_record(i);
        OT_SAY("1237 iterations per thread: %s", lc_counts(1237, ot_threads()));
    }
}

/* omp_set_schedule, then schedule(runtime) loops under it; omp_get_schedule's view of what was
 * set, chunk sizes below 1 included. Inside a region, a thread's setting is its own. */
static void with_omp_set_schedule(void) {
    static const struct {
        omp_sched_t kind;
        int chunk;
    } set[] = {
        {omp_sched_static, 0},  {omp_sched_static, 1},  {omp_sched_static, 5},
        {omp_sched_dynamic, 0}, {omp_sched_dynamic, 4}, {omp_sched_guided, -3},
        {omp_sched_guided, 3},  {omp_sched_auto, 0},    {omp_sched_auto, 9},
        {(omp_sched_t)(omp_sched_dynamic | omp_sched_monotonic), 2},
    };
    omp_sched_t k0;
    int c0;
    omp_get_schedule(&k0, &c0);
    for (unsigned s = 0; s < sizeof set / sizeof set[0]; s++) {
        omp_set_schedule(set[s].kind, set[s].chunk);
        char what[80];
        snprintf(what, sizeof what, "omp_set_schedule(%s%s, %d)", kind_name(set[s].kind),
                 ((int)set[s].kind & (int)omp_sched_monotonic) ? "|monotonic" : "", set[s].chunk);
        say_schedule(what);
        runtime_loops(1000);
        runtime_loops(3);
    }
    omp_set_schedule(k0, c0);
    int bad = 0;
#pragma omp parallel reduction(+ : bad)
    {
        int t = omp_get_thread_num();
        omp_set_schedule(t % 2 ? omp_sched_guided : omp_sched_dynamic, t + 1);
        omp_sched_t k;
        int c;
        omp_get_schedule(&k, &c);
        bad += k != (t % 2 ? omp_sched_guided : omp_sched_dynamic) || c != t + 1;
    }
    CHECK_EQ_INT(bad, 0);
    omp_sched_t k1;
    int c1;
    omp_get_schedule(&k1, &c1);
    CHECK(k1 == k0 && (c1 == c0 || ((int)k0 & ~(int)omp_sched_monotonic) == omp_sched_auto));
    OT_SAY("omp_set_schedule inside a region changes the calling thread's only");
}

int main(void) {
    with_the_environment();
    with_omp_set_schedule();
    return 0;
}
