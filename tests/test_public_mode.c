/* Private tasks and public mode (src/core/owner.c, "Public mode"):
 *  - one worker runs everything private: no publication, no steal;
 *  - after a thief's request, an owner spawns public: two tasks spawned while another worker is
 *    idle are both taken while their owner runs a long stretch with no spawn and no join (with
 *    publication only at spawns and joins, the second one would wait for the owner's join);
 *  - after inlining many public tasks that nobody took, an owner spawns private again: when the
 *    only other worker is busy, every worker that went public has gone private again;
 *  - unless those public tasks are long (MRN_PUBLIC_LONG_NS, 1 us): an owner that inlines 20-us
 *    public tasks stays public however many it inlines, and leaves as soon as they are short.
 * Each waits with a bound (PATIENCE seconds) only so that a broken runtime ends the test. */
#define _GNU_SOURCE 1
#include "check.h"

#include <merino.h>

#include "fib.h"

#define PATIENCE 5.0

static int g_ran_on[3]; /* atomic: 1 + the index of the worker that ran mark(slot) */

MERINO_VOID_TASK_1(mark, int, slot) {
    __atomic_store_n(&g_ran_on[slot], 1 + merino_worker_index(), __ATOMIC_RELAXED); /* relaxed: no data */
}

static int ran_elsewhere(int slot, int me) {
    int on = __atomic_load_n(&g_ran_on[slot], __ATOMIC_RELAXED); /* relaxed: no data */
    return on != 0 && on - 1 != me;
}

/* Spawns mark(1) and mark(2), then spins (no spawn, no join: the owner "runs a long leaf") until
 * both have run on other workers or 50 ms have passed; joins them. A thief that asked
 * before the spawns gets both: the first spawn serves its request, and puts the owner in public
 * mode, so the second is public too. A thief that asks only during the spin gets neither (the
 * owner serves requests at spawns and joins): try again, for `patience` seconds. Returns the attempts
 * it took, or 0. */
MERINO_TASK_1(int, two_during_a_leaf, double, patience) {
    int me = merino_worker_index();
    double until = check_now() + patience;
    for (int attempt = 1; check_now() < until; attempt++) {
        __atomic_store_n(&g_ran_on[1], 0, __ATOMIC_RELAXED);
        __atomic_store_n(&g_ran_on[2], 0, __ATOMIC_RELAXED);
        /* Without spawns for a moment, so that idle workers ask (and keep asking). */
        double quiet = check_now() + 0.002;
        while (check_now() < quiet) {}
        MERINO_SPAWN(mark, 1);
        MERINO_SPAWN(mark, 2);
        double leaf_end = check_now() + 0.05;
        while (!(ran_elsewhere(1, me) && ran_elsewhere(2, me)) && check_now() < leaf_end) {}
        MERINO_JOIN(mark);
        MERINO_JOIN(mark);
        if (ran_elsewhere(1, me) && ran_elsewhere(2, me)) return attempt;
    }
    return 0;
}

static int g_hold_started, g_hold_release; /* atomic */

/* Keeps its worker busy (not asking anyone for work) until released. */
MERINO_VOID_TASK_0(hold) {
    __atomic_store_n(&g_hold_started, 1 + merino_worker_index(), __ATOMIC_RELEASE);
    double until = check_now() + 4 * PATIENCE;
    while (!__atomic_load_n(&g_hold_release, __ATOMIC_ACQUIRE) && check_now() < until) {}
}

/* Two workers. The other worker, idle, asks for work: we go public to hand it `hold`. While it is
 * held, nobody asks; after fib(16) (hundreds of joins) every worker that went public must have
 * gone private again. Fills *st with the counters read then; returns where hold ran (+1). */
MERINO_TASK_1(int, privatize_when_nobody_asks, merino_stats *, st) {
    __atomic_store_n(&g_hold_started, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&g_hold_release, 0, __ATOMIC_RELAXED);
    MERINO_SPAWN(hold);
    double until = check_now() + PATIENCE;
    while (!__atomic_load_n(&g_hold_started, __ATOMIC_ACQUIRE) && check_now() < until)
        if (MERINO_CALL(fib, 10) != 55) return -1; /* spawning: serves the request */
    int held_on = __atomic_load_n(&g_hold_started, __ATOMIC_ACQUIRE);
    if (MERINO_CALL(fib, 16) != 987) return -1;
    merino_stats_get(st);
    __atomic_store_n(&g_hold_release, 1, __ATOMIC_RELEASE);
    MERINO_JOIN(hold);
    return held_on;
}

/* A public task that takes 20 us (fifty times MRN_PUBLIC_LONG_NS): an owner that runs these
 * between its spawns and joins would keep a thief waiting that long if it spawned private. */
MERINO_VOID_TASK_0(long_leaf) {
    double until = check_now() + 20e-6;
    while (check_now() < until) {}
}

/* Two workers. The other one, idle, asks: we go public (serving the request at a spawn) and it
 * takes `hold`, which keeps it busy, so nobody asks again. Meanwhile and after, we spawn and join
 * long_leaf, each public (we are in public mode) and inlined: 3 * 8 of them after `hold` started,
 * three times the run after which public mode would end. Fills *long_st with the counters then,
 * *short_st after fib(16) (short tasks), and returns where hold ran (+1). */
MERINO_TASK_2(int, stay_public_while_long, merino_stats *, long_st, merino_stats *, short_st) {
    __atomic_store_n(&g_hold_started, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&g_hold_release, 0, __ATOMIC_RELAXED);
    MERINO_SPAWN(hold);
    double until = check_now() + PATIENCE;
    while (!__atomic_load_n(&g_hold_started, __ATOMIC_ACQUIRE) && check_now() < until) {
        MERINO_SPAWN(long_leaf); /* serves the request */
        MERINO_JOIN(long_leaf);
    }
    int held_on = __atomic_load_n(&g_hold_started, __ATOMIC_ACQUIRE);
    for (int i = 0; i < 3 * 8; i++) {
        MERINO_SPAWN(long_leaf);
        MERINO_JOIN(long_leaf);
    }
    merino_stats_get(long_st);
    if (MERINO_CALL(fib, 16) != 987) return -1;
    merino_stats_get(short_st);
    __atomic_store_n(&g_hold_release, 1, __ATOMIC_RELEASE);
    MERINO_JOIN(hold);
    return held_on;
}

static void start(unsigned workers) {
    merino_config cfg = {0};
    cfg.workers = workers;
    check_set_context("workers=%u", workers);
    CHECK_EQ_INT(merino_start(&cfg), 0);
    CHECK_EQ_INT(merino_workers(), workers);
}

int main(void) {
    /* One worker: nobody asks, so nothing is ever published. */
    start(1);
    CHECK_EQ_INT(MERINO_RUN(fib, 25), serial_fib(25));
    merino_stats st;
    merino_stats_get(&st);
    CHECK_EQ_UINT(st.steals, 0);
    CHECK_EQ_UINT(st.publishes, 0);
    CHECK_EQ_UINT(st.privatizations, 0);
    CHECK_EQ_INT(MERINO_RUN(two_during_a_leaf, 0.0), 0); /* no time: returns at once */
    CHECK_EQ_INT(merino_stop(), 0);
    printf("1 worker: fib(25) with no publication and no steal\n");

    /* Idle workers get both tasks spawned before a long leaf. */
    for (unsigned workers = 2; workers <= 4; workers++) {
        start(workers);
        int worst = 0;
        for (int iter = 0; iter < 10; iter++) {
            int attempts = MERINO_RUN(two_during_a_leaf, PATIENCE);
            CHECK_MSG(attempts > 0,
                      "iteration %d: two tasks spawned while %u workers were idle were not both taken "
                      "while their owner spun without spawning or joining (%.0f s of attempts)",
                      iter, workers - 1, PATIENCE);
            if (attempts > worst) worst = attempts;
        }
        CHECK_EQ_INT(merino_stop(), 0);
        printf("%u workers: both tasks taken during the leaf, 10 times (at most %d attempts)\n", workers,
               worst);
    }

    /* With the only other worker held busy, public mode ends. */
    for (int iter = 0; iter < 5; iter++) {
        start(2);
        merino_stats at = {0};
        int held_on = MERINO_RUN(privatize_when_nobody_asks, &at);
        CHECK_MSG(held_on > 0, "iteration %d: the other worker did not take `hold` within %.0f s (or fib "
                               "was wrong: %d)", iter, PATIENCE, held_on);
        CHECK_MSG(at.publishes >= 1, "iteration %d: `hold` was taken without a publication", iter);
        CHECK_MSG(at.privatizations == at.publishes,
                  "iteration %d: %llu times public, %llu times private again: with nobody asking, "
                  "fib(16)'s joins must end public mode", iter, (unsigned long long)at.publishes,
                  (unsigned long long)at.privatizations);
        CHECK_EQ_INT(merino_stop(), 0);
    }
    printf("2 workers: public mode ends when nobody asks, 5 times\n");

    /* ... but not while the public tasks it inlines are long. */
    for (int iter = 0; iter < 3; iter++) {
        start(2);
        merino_stats at_long = {0}, at_short = {0};
        int held_on = MERINO_RUN(stay_public_while_long, &at_long, &at_short);
        CHECK_MSG(held_on > 0, "iteration %d: the other worker did not take `hold` within %.0f s (or fib "
                               "was wrong: %d)", iter, PATIENCE, held_on);
        CHECK_MSG(at_long.publishes >= 1, "iteration %d: `hold` was taken without a publication", iter);
        CHECK_MSG(at_long.privatizations == 0,
                  "iteration %d: public mode ended %llu times while its owner inlined 20-us public "
                  "tasks: it must stay public while they are long", iter,
                  (unsigned long long)at_long.privatizations);
        CHECK_MSG(at_short.privatizations == at_short.publishes,
                  "iteration %d: %llu times public, %llu times private again: with nobody asking, "
                  "fib(16)'s short joins must end public mode", iter,
                  (unsigned long long)at_short.publishes, (unsigned long long)at_short.privatizations);
        CHECK_EQ_INT(merino_stop(), 0);
    }
    printf("2 workers: public mode stays while its tasks are long, ends when they are short, 3 times\n");
    return 0;
}
