/* task_detach.c — detached tasks (detach clause, omp_fulfill_event): a detached task is complete
 * only when its event is fulfilled, not when its body ends — its dependent tasks start after the
 * fulfilment, taskwait and the region's end wait for it; the event fulfilled by a child of the
 * detached task, by a sibling, by the task's own body, and by a thread that is not OpenMP's (a
 * pthread). No task here waits for another to run: each test works on one thread.
 */
#include "omp_test.h"

#include <pthread.h>

/* A dependent task starts only after the event it waits behind is fulfilled. */
static void dependent_after_fulfil(void) {
    enum { K = 20 };
    int bad = 0;
    for (int round = 0; round < K; round++) {
        atomic_int fulfilled = 0;
        omp_event_handle_t ev;
        long x = 0, seen = -1;
#pragma omp parallel
#pragma omp single
        {
#pragma omp task detach(ev) depend(out : x) shared(x, fulfilled)
            {
                x = 42;
                /* fulfilled by a task of its own: it may run before or after this body ends */
#pragma omp task shared(fulfilled) firstprivate(ev)
                {
                    ot_spin(2000);
                    atomic_store_explicit(&fulfilled, 1, memory_order_release);
                    omp_fulfill_event(ev);
                }
            }
#pragma omp task depend(in : x) shared(x, seen, fulfilled, bad)
            {
                /* fulfilled happens before this task starts */
                if (!atomic_load_explicit(&fulfilled, memory_order_acquire)) bad++;
                seen = x;
            }
        }
        if (seen != 42) bad++;
    }
    CHECK_EQ_INT(bad, 0);
    OT_SAY("detach: the dependent task started after omp_fulfill_event, %d rounds", K);
}

/* taskwait waits for the fulfilment too; the body may fulfil its own event. */
static void taskwait_and_self(void) {
    atomic_int fulfilled = 0;
    int after_taskwait = -1, self = 0;
#pragma omp parallel
#pragma omp single
    {
        omp_event_handle_t ev, ev2;
#pragma omp task detach(ev)
        ot_spin(1000);
        /* a sibling fulfils it, whether the detached body has run or not */
#pragma omp task shared(fulfilled) firstprivate(ev)
        {
            ot_spin(20000);
            atomic_store_explicit(&fulfilled, 1, memory_order_release);
            omp_fulfill_event(ev);
        }
#pragma omp task detach(ev2) shared(self)
        {
            self = 1;
            omp_fulfill_event(ev2); /* before the body ends: the task completes with it */
        }
#pragma omp taskwait
        after_taskwait = atomic_load_explicit(&fulfilled, memory_order_acquire);
    }
    CHECK_EQ_INT(after_taskwait, 1);
    CHECK_EQ_INT(self, 1);
    OT_SAY("detach: taskwait waited for the fulfilment; a body fulfilling its own event");
}

/* A thread outside OpenMP fulfils the event; taskwait then finds the task complete. (While the
 * team waits in the region's closing barrier instead, libgomp 12 hangs or crashes: the pthread's
 * fulfilment is not seen there. So the single waits for the pthread before its taskwait.) */
struct outside {
    omp_event_handle_t ev;
    atomic_int ready, fulfilled;
};

static void *fulfil_from_outside(void *arg) {
    struct outside *o = arg;
    ot_wait_for(&o->ready, 1, "the detached task's handle");
    omp_fulfill_event(o->ev);
    atomic_store_explicit(&o->fulfilled, 1, memory_order_release);
    return NULL;
}

static void from_a_pthread(void) {
    struct outside o;
    atomic_init(&o.ready, 0);
    atomic_init(&o.fulfilled, 0);
    pthread_t th;
    CHECK(pthread_create(&th, NULL, fulfil_from_outside, &o) == 0);
    int done = 0;
#pragma omp parallel
#pragma omp single
    {
        omp_event_handle_t ev;
#pragma omp task detach(ev) shared(o)
        ot_spin(1000);
        o.ev = ev;
        atomic_store_explicit(&o.ready, 1, memory_order_release);
        ot_wait_for(&o.fulfilled, 1, "the pthread to fulfil the event");
#pragma omp taskwait
        done = 1;
    }
    CHECK(pthread_join(th, NULL) == 0);
    CHECK_EQ_INT(done, 1);
    OT_SAY("detach: a pthread fulfilled the event; taskwait returned");
}

int main(void) {
    dependent_after_fulfil();
    taskwait_and_self();
    from_a_pthread();
    return 0;
}
