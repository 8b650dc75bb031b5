/* cancel.c — cancellation (cancel and cancellation point) of parallel, for, sections and
 * taskgroup, with OMP_CANCELLATION=true and without it (then cancel does nothing and everything
 * runs). What is asserted does not depend on timing: the cancelling thread never runs the code
 * after its cancel; a barrier after a cancelled region's cancel is never passed; at one thread a
 * cancelled loop stops at its next cancellation point; tasks created in a cancelled taskgroup do
 * not run; a conditional cancel (if clause) whose condition is false does nothing.
 * omp-run:
 * omp-run: OMP_CANCELLATION=true
 */
#include "omp_test.h"

static int active;            /* omp_get_cancellation() */
static volatile int never;    /* a condition gcc cannot fold */

static void cancel_parallel(void) {
    atomic_int after_cancel = 0, after_barrier = 0, reached = 0;
    int n = ot_threads();
#pragma omp parallel
    {
        atomic_fetch_add(&reached, 1);
        if (omp_get_thread_num() == 0) {
#pragma omp cancel parallel
            atomic_fetch_add(&after_cancel, 1);
        }
        /* thread 0 never gets here when cancellation is active: this barrier can only end by the
         * cancellation, and nobody passes it */
#pragma omp barrier
        atomic_fetch_add(&after_barrier, 1);
    }
    CHECK_EQ_INT(atomic_load(&reached), n);
    CHECK_EQ_INT(atomic_load(&after_cancel), active ? 0 : 1);
    CHECK_EQ_INT(atomic_load(&after_barrier), active ? 0 : n);
    /* a false if clause: no cancellation. The worksharing constructs of a cancellable region end
     * with GOMP_loop_end_cancel and GOMP_sections_end_cancel. */
    atomic_int all = 0, iters = 0, secs = 0;
#pragma omp parallel
    {
#pragma omp cancel parallel if (never)
#pragma omp cancellation point parallel
        atomic_fetch_add(&all, 1);
#pragma omp for schedule(dynamic)
        for (int i = 0; i < 100; i++) atomic_fetch_add(&iters, 1);
#pragma omp sections
        {
#pragma omp section
            atomic_fetch_add(&secs, 1);
#pragma omp section
            {
#pragma omp cancel sections if (never)
                atomic_fetch_add(&secs, 1);
            }
        }
        atomic_fetch_add(&all, 1);
    }
    CHECK_EQ_INT(atomic_load(&all), 2 * n);
    CHECK_EQ_INT(atomic_load(&iters), 100);
    CHECK_EQ_INT(atomic_load(&secs), 2);
    OT_SAY("cancel parallel: code after the cancel %s, the barrier after it %s", active ? "skipped" : "ran",
           active ? "ended the region" : "passed");
}

static void cancel_for(void) {
    enum { N = 10000, STOP = 100 };
    int n = ot_threads();
    atomic_int started = 0, after = 0, threads = 0;
#pragma omp parallel
    {
        atomic_fetch_add(&threads, 1); /* not a combined construct: GOMP_loop_end_cancel */
#pragma omp for schedule(dynamic, 1)
        for (int i = 0; i < N; i++) {
#pragma omp cancellation point for
            atomic_fetch_add(&started, 1);
            if (i == STOP) {
#pragma omp cancel for
                atomic_fetch_add(&after, 1);
            }
        }
    }
    int s = atomic_load(&started);
    CHECK_EQ_INT(atomic_load(&threads), n);
    CHECK_EQ_INT(atomic_load(&after), active ? 0 : 1);
    if (!active) CHECK_EQ_INT(s, N);
    else if (n == 1) CHECK_EQ_INT(s, STOP + 1); /* one thread: stops at the next point */
    else CHECK(s >= 1 && s <= N); /* iterations before STOP that other threads took may be cancelled
                                    * at their cancellation point: only the cancelling one is sure */
    /* cancel for with a static schedule and a conditional cancel whose condition never holds */
    atomic_int st = 0;
#pragma omp parallel
    {
        atomic_fetch_add(&threads, 1);
#pragma omp for schedule(static)
        for (int i = 0; i < N; i++) {
#pragma omp cancel for if (i == N)
            atomic_fetch_add(&st, 1);
        }
    }
    CHECK_EQ_INT(atomic_load(&st), N);
    OT_SAY("cancel for: %s", active ? (n == 1 ? "stopped after iteration 100" : "stopped, the cancelling iteration went no further")
                                    : "no effect, every iteration ran");
}

static void cancel_sections(void) {
    atomic_int after = 0, ran = 0, threads = 0;
#pragma omp parallel
    {
        atomic_fetch_add(&threads, 1); /* not a combined construct: GOMP_sections_end_cancel */
#pragma omp sections
        {
#pragma omp section
            {
                atomic_fetch_add(&ran, 1);
#pragma omp cancel sections
                atomic_fetch_add(&after, 1);
            }
#pragma omp section
            atomic_fetch_add(&ran, 1);
#pragma omp section
            atomic_fetch_add(&ran, 1);
        }
    }
    CHECK_EQ_INT(atomic_load(&threads), ot_threads());
    CHECK_EQ_INT(atomic_load(&after), active ? 0 : 1);
    int r = atomic_load(&ran);
    CHECK(r >= 1 && r <= 3);
    if (!active) CHECK_EQ_INT(r, 3);
    OT_SAY("cancel sections: %s", active ? "the cancelling section went no further" : "no effect");
}

static void cancel_taskgroup(void) {
    atomic_int late = 0, after = 0, early = 0;
    int n = 0;
#pragma omp parallel
#pragma omp single
    {
#pragma omp taskgroup
        {
#pragma omp task shared(after)
            {
#pragma omp cancel taskgroup
                atomic_fetch_add(&after, 1);
            }
#pragma omp taskwait
            /* the taskgroup is cancelled now: tasks made in it are not run */
            for (int k = 0; k < 50; k++) {
#pragma omp task shared(late)
                atomic_fetch_add(&late, 1);
            }
        }
        /* a new taskgroup is not cancelled */
#pragma omp taskgroup
        {
            for (int k = 0; k < 10; k++) {
#pragma omp task shared(early)
                {
#pragma omp cancellation point taskgroup
                    atomic_fetch_add(&early, 1);
                }
            }
        }
        n = 1;
    }
    CHECK_EQ_INT(n, 1);
    CHECK_EQ_INT(atomic_load(&after), active ? 0 : 1);
    CHECK_EQ_INT(atomic_load(&late), active ? 0 : 50);
    CHECK_EQ_INT(atomic_load(&early), 10);
    OT_SAY("cancel taskgroup: %s; the next taskgroup ran all its tasks",
           active ? "the tasks made after it did not run" : "no effect, all ran");
}

int main(void) {
    active = omp_get_cancellation();
    const char *env = getenv("OMP_CANCELLATION");
    CHECK_EQ_INT(active, env && strcmp(env, "true") == 0);
    OT_SAY("omp_get_cancellation() = %d", active);
    cancel_parallel();
    cancel_for();
    cancel_sections();
    cancel_taskgroup();
    return 0;
}
