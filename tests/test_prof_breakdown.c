/* test_prof_breakdown.c — the CPU-time breakdown (the Wool paper's Figure 6, plus idle): one worker
 * spends its time in application code only; pool threads start and stop (TR); a worker that
 * leapfrogged spent time waiting (LF) and running what it took (LA); the work (strands) lies within
 * the application time; and the sleep counter moves when an idle pool sleeps. */
#include "check.h"

#include <merino.h>
#include <merino_prof.h>

#include "fib.h"

static double app_time(const merino_prof_report *r) {
    return r->time[MERINO_PROF_APP] + r->time[MERINO_PROF_APP_LEAPFROG];
}

int main(void) {
    int n = check_scale() < 1 ? 20 : 24;

    /* One worker: no pool thread, nothing to steal, nobody to wait for. */
    merino_config cfg = {0};
    cfg.workers = 1;
    CHECK_EQ_INT(merino_start(&cfg), 0);
    CHECK(MERINO_RUN(fib, n) == serial_fib(n));
    CHECK_EQ_INT(merino_stop(), 0);
    merino_prof_report r;
    CHECK_EQ_INT(merino_prof_get(&r), 0);
    CHECK_CMP_DBL(r.time[MERINO_PROF_APP], >, 0);
    for (int k = 0; k < MERINO_PROF_TIMES; k++)
        if (k != MERINO_PROF_APP) CHECK_MSG(r.time[k] == 0, "time[%d] = %g at one worker", k, r.time[k]);
    CHECK_CMP_DBL(r.total.work, <=, app_time(&r) * 1.01 + 1e-4);

    /* Two and three workers. */
    for (unsigned workers = 2; workers <= 3; workers++) {
        cfg.workers = workers;
        CHECK_EQ_INT(merino_start(&cfg), 0);
        for (int i = 0; i < 4; i++) CHECK(MERINO_RUN(fib, n) == serial_fib(n));
        check_sleep(0.05); /* idle: the pool threads back off, then sleep */
        CHECK_EQ_INT(merino_stop(), 0);
    }
    CHECK_EQ_INT(merino_prof_get(&r), 0);
    CHECK_CMP_DBL(r.total.work, <=, app_time(&r) * 1.01 + 1e-4);
    for (unsigned i = 0; i < 3; i++) {
        merino_prof_report w;
        CHECK_EQ_INT(merino_prof_get_worker(i, &w), 0);
        if (i > 0) { /* pool threads: start-up and teardown, and some looking for work */
            CHECK_CMP_DBL(w.time[MERINO_PROF_STARTUP], >, 0);
            CHECK_CMP_DBL(w.time[MERINO_PROF_STEAL] + w.time[MERINO_PROF_IDLE], >, 0);
            CHECK(w.sleeps > 0 || w.failed_steals > 0);
        } else {
            CHECK_MSG(w.time[MERINO_PROF_STARTUP] == 0, "the caller slot has no thread to start");
        }
        if (w.leapfrogs > 0) {
            CHECK_CMP_DBL(w.time[MERINO_PROF_LEAPFROG], >, 0);
            CHECK_CMP_DBL(w.time[MERINO_PROF_APP_LEAPFROG], >, 0);
        }
        if (w.steals > w.leapfrogs || (i == 0 && w.spawns > 0)) CHECK_CMP_DBL(w.time[MERINO_PROF_APP], >, 0);
    }
    printf("test_prof_breakdown: ok (sleeps %llu, leapfrogs %llu)\n", (unsigned long long)r.sleeps,
           (unsigned long long)r.leapfrogs);
    return 0;
}
