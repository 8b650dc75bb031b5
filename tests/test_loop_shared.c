/* test_loop_shared.c — a loop entered from outside the pool is shared (loop_test.h, check_shared)
 * also when its caller loses its processor to the pool thread it wakes, as it does when the kernel
 * runs that thread on the caller's CPU (a pool thread is bound to a CPU; the caller, unbound, may
 * have moved there) and lets it preempt the caller. Every schedule, plain and deterministic, at 2
 * and 3 workers: each loop starts with the pool threads asleep, and the region's wake-up holds its
 * caller, just after the futex wake, until a body waits for another worker's (or 2 s). So the woken
 * pool thread begins the loop, and under steal takes the caller's whole range, chunk by chunk,
 * before the caller claims one: a check whose waiting body is index 0's (not the first call's)
 * then waits on the one worker that has run every other index, and fails.
 *
 * This file compiles src/sys/futex.c again with its wait and wake renamed, in place of the
 * library's copy (which is then not linked), and wraps them: a pool thread's futex wait counts it
 * asleep, and the wake made by a caller that armed hold_next_wake is held. */
#include <stdint.h>

#define mrn_futex_wait mrn_futex_wait_real
#define mrn_futex_wake mrn_futex_wake_real
#include "sys/futex.c"
#undef mrn_futex_wait
#undef mrn_futex_wake

#include "check.h"

#include "loop_test.h"

void mrn_futex_wait(uint32_t *word, uint32_t expected);
void mrn_futex_wake(uint32_t *word, int count);

static unsigned asleep;                 /* atomic: pool threads in a futex wait */
static shared_check *current;           /* atomic: the loop being checked */
static unsigned holds;                  /* atomic: wakes held */
static __thread bool hold_next_wake;    /* this thread's next futex wake is held */

void mrn_futex_wait(uint32_t *word, uint32_t expected) {
    bool pool_thread = merino_worker_index() > 0;
    if (pool_thread) __atomic_fetch_add(&asleep, 1, __ATOMIC_RELAXED); /* relaxed: polled */
    mrn_futex_wait_real(word, expected);
    if (pool_thread) __atomic_fetch_sub(&asleep, 1, __ATOMIC_RELAXED);
}

/* The caller made the loop's first task public and wakes a sleeper for it: the woken thread runs,
 * and the caller waits for the processor until a body waits (then it has begun the loop) — or 2 s,
 * if none ever begins (a wake-up lost, say: then the caller's own first body waits, and fails). */
void mrn_futex_wake(uint32_t *word, int count) {
    mrn_futex_wake_real(word, count);
    if (!hold_next_wake) return;
    hold_next_wake = false;
    __atomic_fetch_add(&holds, 1, __ATOMIC_RELAXED); /* relaxed: read by this thread */
    shared_check *c = __atomic_load_n(&current, __ATOMIC_RELAXED); /* relaxed: set by this thread */
    double t0 = check_now();
    while (!__atomic_load_n(&c->waiting, __ATOMIC_RELAXED) && check_now() - t0 < 2) sched_yield();
}

/* Waits until every pool thread sleeps, so that the next region's first spawn wakes one. */
static void wait_until_asleep(unsigned threads) {
    double t0 = check_now();
    while (__atomic_load_n(&asleep, __ATOMIC_RELAXED) < threads) {
        CHECK_MSG(check_now() - t0 < 10, "the %u pool thread(s) did not all sleep within 10 s", threads);
        sched_yield();
    }
}

static void check_workers(unsigned workers) {
    merino_config cfg = {.workers = workers};
    CHECK(merino_start(&cfg) == 0);
    for (size_t s = 0; s < LOOP_SCHEDULES; s++) {
        for (int det = 0; det <= 1; det++) {
            check_set_context("workers=%u schedule=%s%s", workers, loop_schedules[s], det ? " (deterministic)" : "");
            merino_for_opts o = opts_of(loop_schedules[s], det);
            shared_check c;
            __atomic_store_n(&current, &c, __ATOMIC_RELAXED); /* relaxed: read by this thread */
            wait_until_asleep(workers - 1);
            unsigned held = __atomic_load_n(&holds, __ATOMIC_RELAXED);
            hold_next_wake = true;
            check_shared(&c, &o);
            hold_next_wake = false;
            CHECK_MSG(__atomic_load_n(&holds, __ATOMIC_RELAXED) == held + 1,
                      "the loop's caller made no futex wake: its pool threads were not asleep");
            CHECK_MSG(c.first_worker > 0, "the caller began the loop (worker %d), held in its wake", c.first_worker);
        }
    }
    check_set_context(NULL);
    merino_stop();
}

int main(void) {
    unsetenv("MERINO_SCHEDULE");
    check_workers(2);
    check_workers(3);
    return 0;
}
