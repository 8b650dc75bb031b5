/* test_prof_workspan.c — work and span by the timestamp method (docs/profiler.md): work >= span > 0;
 * a task that spawns nothing has work == span exactly (parallelism 1); a fork-join tree has
 * span < work (every strand off the critical path adds work and no span), at one worker as at
 * several, measured from outside or from inside a task; at one worker the work is at most the run's
 * elapsed time (no strand counted twice; docs/profiler.md's cholesky figures rest on it); and the
 * whole program is the runs one after the other: their works and spans add up. */
#include "check.h"

#include <merino.h>
#include <merino_prof.h>

#include "fib.h"

/* A serial loop: no spawn, so its one strand is both its work and its span. */
MERINO_TASK_1(uint64_t, serial_sum, uint64_t, n) {
    uint64_t s = 0;
    for (uint64_t i = 0; i < n; i++) s += i * i ^ (s >> 3);
    return s;
}

/* A region inside a task: fib's work and span measured around a call, from the task itself. */
MERINO_TASK_1(int, region_in_task, int, n) {
    merino_wsp a = merino_wsp_now();
    int64_t r = MERINO_CALL(fib, n);
    merino_wsp d = merino_wsp_sub(merino_wsp_now(), a);
    return r == serial_fib(n) && d.span > 0 && d.work > d.span;
}

static double rel_diff(double a, double b) { return a > b ? (a - b) / a : (b - a) / b; }

static void check_fib(unsigned workers, int n) {
    merino_config cfg = {0};
    cfg.workers = workers;
    CHECK_EQ_INT(merino_start(&cfg), 0);
    merino_wsp a = merino_wsp_now();
    double t0 = check_now();
    CHECK(MERINO_RUN(fib, n) == serial_fib(n));
    double elapsed = check_now() - t0;
    merino_wsp b = merino_wsp_now();
    merino_wsp d = merino_wsp_sub(b, a);
    /* One worker runs one strand at a time: their sum fits in the run (1%: the TSC's rate). */
    if (workers == 1) CHECK_CMP_DBL(d.work, <=, elapsed * 1.01);
    CHECK_CMP_DBL(d.span, >, 0);
    CHECK_CMP_DBL(d.work, >, d.span); /* strictly: fib's spawned halves run beside their siblings */
    /* >= up to rounding: both are differences of two points' doubles */
    CHECK_CMP_DBL(d.burdened_span, >=, d.span * (1 - 1e-9));
    CHECK_CMP_DBL(d.work / d.span, >, 1);

    /* No spawn: work and span are the same strand, whatever the number of workers. */
    a = merino_wsp_now();
    CHECK(MERINO_RUN(serial_sum, 200000) != 1);
    b = merino_wsp_now();
    d = merino_wsp_sub(b, a);
    CHECK_CMP_DBL(d.work, >, 0);
    CHECK_CMP_DBL(rel_diff(d.work, d.span), <, 1e-9);
    CHECK_CMP_DBL(rel_diff(d.work, d.burdened_span), <, 1e-9);

    CHECK(MERINO_RUN(region_in_task, n));
    CHECK_EQ_INT(merino_stop(), 0);
}

int main(void) {
    int n = check_scale() < 1 ? 18 : 22;
    check_fib(1, n);
    check_fib(2, n);

    /* The whole program: every run above, one after the other on this thread, so its span is the
     * sum of theirs; its work is theirs too. (Conversions to seconds at different times: 1e-3.) */
    merino_prof_report r;
    CHECK_EQ_INT(merino_prof_get(&r), 0);
    merino_wsp now = merino_wsp_now();
    CHECK_CMP_DBL(rel_diff(r.total.work, now.work), <, 1e-3);
    CHECK_CMP_DBL(rel_diff(r.total.span, now.span), <, 1e-3);
    CHECK_CMP_DBL(r.total.work, >=, r.total.span);
    CHECK_CMP_DBL(r.parallelism, >=, 1);
    CHECK_CMP_DBL(r.burdened_parallelism, <=, r.parallelism);
    /* The runs took time, the process got some CPU meanwhile, and the model predicts a T_P. */
    CHECK_CMP_DBL(r.elapsed, >, 0);
    CHECK_CMP_DBL(r.cpu, >, 0);
    CHECK_CMP_DBL(r.processors, >, 0);
    CHECK_CMP_DBL(r.predicted, >, 0);
    printf("test_prof_workspan: ok (fib parallelism %.1f, P_A %.2f)\n", r.parallelism, r.processors);
    return 0;
}
