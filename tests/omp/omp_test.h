/* omp_test.h — what the programs of the OpenMP conformance suite (tests/omp) share.
 *
 * Each program checks itself with check.h's CHECK macros (a failure prints file:line and exits 1)
 * and prints a summary to stdout that depends only on the thread count and the environment the
 * runner gives it: run.sh requires the same stdout from every runtime (libgomp is the reference).
 * Nothing printed may depend on timing, on which thread ran what under a dynamic schedule, or on
 * the machine (its CPU count).
 *
 * Include it first (check.h asks for the GNU declarations). */
#ifndef MERINO_OMP_TEST_H
#define MERINO_OMP_TEST_H

#include "check.h"

#include <omp.h>
#include <pthread.h>
#include <sched.h>
#ifdef __cplusplus
#include <atomic>
typedef std::atomic<int> atomic_int;
using std::atomic_fetch_add_explicit;
using std::atomic_load_explicit;
using std::atomic_store_explicit;
using std::memory_order_acquire;
using std::memory_order_relaxed;
using std::memory_order_release;
#else
#include <stdatomic.h>
#endif

/* OT_SAY: one line of the compared summary. */
#define OT_SAY(...)                                                                                \
    do {                                                                                           \
        printf(__VA_ARGS__);                                                                       \
        putchar('\n');                                                                             \
    } while (0)

/* OT_PRAGMA(omp ...): a pragma from a macro's arguments (schedule(dynamic, 3): commas included). */
#define OT_PRAGMA(...) _Pragma(#__VA_ARGS__)

/* ot_wait_for(flag, value, what): spin (yielding) until *flag >= value. OpenMP's threads of a team
 * run concurrently, so one thread may wait for another outside any OpenMP construct; a runtime that
 * ran team members one after another would hang here, which becomes a failure after a minute. */
#define OT_WAIT_SECONDS 60.0
static inline void ot_wait_for(atomic_int *flag, int value, const char *what) {
    /* acquire: the waiter then sees what the other thread wrote before its release store */
    if (atomic_load_explicit(flag, memory_order_acquire) >= value) return;
    double deadline = check_now() + OT_WAIT_SECONDS;
    while (atomic_load_explicit(flag, memory_order_acquire) < value) {
        sched_yield();
        CHECK_MSG(check_now() < deadline,
                  "waited %.0f s for %s (flag %d, want %d): the threads of a team do not run "
                  "concurrently",
                  OT_WAIT_SECONDS, what, atomic_load_explicit(flag, memory_order_relaxed), value);
    }
}

/* The team size a parallel region without num_threads gets here (dyn-var false). */
static inline int ot_threads(void) { return omp_get_max_threads(); }

/* A small amount of work the compiler cannot remove, so that threads interleave a little. */
static inline void ot_spin(int n) {
    for (volatile int i = 0; i < n; i++) {
    }
}

/* Threads of the process that keep every CPU busy (a busy machine) from ot_hogs_start to
 * ot_hogs_stop: the runtime's threads lose their CPUs at any moment. */
#define OT_HOGS 2
typedef struct ot_hogs {
    pthread_t threads[OT_HOGS];
    atomic_int stop;
} ot_hogs;

static inline void *ot_hog(void *arg) {
    ot_hogs *h = (ot_hogs *)arg;
    while (!atomic_load_explicit(&h->stop, memory_order_relaxed)) /* relaxed: a flag */
        ot_spin(1000);
    return NULL;
}

static inline void ot_hogs_start(ot_hogs *h) {
    atomic_store_explicit(&h->stop, 0, memory_order_relaxed); /* relaxed: before the threads exist */
    for (int i = 0; i < OT_HOGS; i++) CHECK(pthread_create(&h->threads[i], NULL, ot_hog, h) == 0);
}

static inline void ot_hogs_stop(ot_hogs *h) {
    atomic_store_explicit(&h->stop, 1, memory_order_relaxed); /* relaxed: a flag */
    for (int i = 0; i < OT_HOGS; i++) CHECK(pthread_join(h->threads[i], NULL) == 0);
}

#endif /* MERINO_OMP_TEST_H */
