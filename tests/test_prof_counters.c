/* test_prof_counters.c — the profiled variant's counters (libmerino_prof; docs/profiler.md): the
 * spawns of fib(n) are exact at any number of workers, every spawned task is either run by its
 * joiner (inlined) or stolen, and one worker never steals, fails a steal or leapfrogs. */
#include "check.h"

#include <merino.h>
#include <merino_prof.h>

#include "fib.h"

/* Spawns made by fib(n): one per call with n >= 2. */
static uint64_t fib_spawns(int n) { return n < 2 ? 0 : 1 + fib_spawns(n - 1) + fib_spawns(n - 2); }

static merino_prof_report delta(const merino_prof_report *a, const merino_prof_report *b) {
    merino_prof_report d = *b;
    d.spawns -= a->spawns;
    d.inlined -= a->inlined;
    d.steals -= a->steals;
    d.failed_steals -= a->failed_steals;
    d.leapfrogs -= a->leapfrogs;
    return d;
}

static void run(unsigned workers, int n) {
    merino_config cfg = {0};
    cfg.workers = workers;
    CHECK_EQ_INT(merino_start(&cfg), 0);
    merino_prof_report before, after;
    CHECK_EQ_INT(merino_prof_get(&before), 0);
    CHECK_EQ_UINT(before.workers, workers);
    CHECK(MERINO_RUN(fib, n) == serial_fib(n));
    CHECK_EQ_INT(merino_prof_get(&after), 0);
    merino_prof_report d = delta(&before, &after);
    CHECK_EQ_UINT(d.spawns, fib_spawns(n));
    /* Every task spawned is joined once: run by the joiner, or taken by a thief. */
    CHECK_EQ_UINT(d.inlined + d.steals, d.spawns);
    CHECK(d.leapfrogs <= d.steals);
    if (workers == 1) {
        CHECK_EQ_UINT(d.inlined, fib_spawns(n));
        CHECK_EQ_UINT(d.steals, 0);
        CHECK_EQ_UINT(d.failed_steals, 0);
        CHECK_EQ_UINT(d.leapfrogs, 0);
        CHECK_EQ_UINT(d.sleeps, 0);
    }
    /* The per-worker figures add up to the whole. */
    uint64_t spawns = 0, inlined = 0, steals = 0;
    for (unsigned i = 0; i < workers; i++) {
        merino_prof_report w;
        CHECK_EQ_INT(merino_prof_get_worker(i, &w), 0);
        spawns += w.spawns;
        inlined += w.inlined;
        steals += w.steals;
    }
    CHECK_EQ_UINT(spawns, after.spawns);
    CHECK_EQ_UINT(inlined, after.inlined);
    CHECK_EQ_UINT(steals, after.steals);
    CHECK_EQ_INT(merino_stop(), 0);

    /* The figures outlive the pool (folded at stop). */
    merino_prof_report kept;
    CHECK_EQ_INT(merino_prof_get(&kept), 0);
    CHECK_EQ_UINT(kept.spawns, after.spawns);
    CHECK_EQ_UINT(kept.steals, after.steals);
}

int main(void) {
    int n = check_scale() < 1 ? 18 : 22;
    run(1, n);
    run(2, n);
    run(3, n - 2); /* more workers than this machine may have: oversubscribed */
    merino_prof_report r;
    CHECK_EQ_INT(merino_prof_get_worker(MERINO_MAX_WORKERS, &r), -1);
    CHECK_STR_CONTAINS(merino_last_error(), "merino_prof_get_worker");
    printf("test_prof_counters: ok\n");
    return 0;
}
