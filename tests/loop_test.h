/* loop_test.h — what the loop tests share (include after check.h): options from a schedule's text,
 * the schedules test_loop runs every check under, and the check that a loop is shared. */
#ifndef MERINO_TEST_LOOP_TEST_H
#define MERINO_TEST_LOOP_TEST_H

#include <merino_loop.h>

#include <sched.h>

/* Every schedule text: each kind, with and without a chunk. */
CHECK__UNUSED const char *const loop_schedules[] = {
    "auto",    "adaptive",  "adaptive,3", "static", "static,1", "static,3", "dynamic",
    "dynamic,7", "guided", "guided,5",  "steal",  "steal,2",  "idws",     "idws,4",
    "idws-poll", "idws-poll,3",
};
#define LOOP_SCHEDULES (sizeof loop_schedules / sizeof loop_schedules[0])

/* The options of schedule `text` ("dynamic,7"), with the deterministic flag; the test fails when
 * merino_schedule_parse refuses the text. */
CHECK__UNUSED merino_for_opts opts_of(const char *text, int deterministic) {
    merino_for_opts o = {0};
    CHECK_MSG(merino_schedule_parse(text, &o) == 0, "%s: %s", text, merino_last_error());
    o.deterministic = deterministic;
    return o;
}

/* ---- a loop is shared ----------------------------------------------------------------------------- */

/* With 2 or more workers the work is shared: the loop's first body call, whichever worker runs it
 * and whatever its indices, waits (up to 10 s) until another worker has run an index. (Not a
 * timing target: a bound that only a loop that never shares its work reaches.) The first call, not
 * the one of index 0: a worker may run all the others before index 0 — under steal, a pool thread
 * woken while the loop's caller has lost its processor takes the caller's range chunk by chunk,
 * the last one holding index 0 (test_loop_shared.c forces it) — and then none is left to share. */
typedef struct shared_check {
    int first_worker; /* atomic: the worker of the first body call, -1 before it */
    int other;        /* atomic: another worker has run an index */
    int waiting;      /* atomic: the first body call waits for another worker's */
} shared_check;

CHECK__UNUSED void share_body(int64_t lo, int64_t hi, void *ctx) {
    shared_check *c = ctx;
    int me = merino_worker_index(), first = -1;
    (void)lo, (void)hi;
    /* relaxed: flags polled below; no data rides on them */
    if (!__atomic_compare_exchange_n(&c->first_worker, &first, me, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
        if (first != me) __atomic_store_n(&c->other, 1, __ATOMIC_RELAXED);
        return;
    }
    __atomic_store_n(&c->waiting, 1, __ATOMIC_RELAXED);
    double t0 = check_now();
    while (!__atomic_load_n(&c->other, __ATOMIC_RELAXED) && check_now() - t0 < 10) sched_yield();
}

/* Runs a loop of 1000 indices from the calling thread (outside the pool) with c and checks it. */
CHECK__UNUSED void check_shared(shared_check *c, const merino_for_opts *o) {
    *c = (shared_check){-1, 0, 0};
    merino_for(0, 1000, share_body, c, o);
    CHECK_MSG(c->other, "the loop's first body call, on worker %d, waited 10 s and no other worker ran an index",
              c->first_worker);
}

#endif
