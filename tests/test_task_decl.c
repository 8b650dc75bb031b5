/* Tasks declared in a header and defined in another file (tests/task_decl/tasks.h, tasks.c):
 *  - fib_even (tasks.c) and fib_odd (here) spawn each other across the two files and run in
 *    parallel at 2 workers: steals > 0 (with patience: the other agents of the machine may keep
 *    the second worker off its CPU for a while);
 *  - a 14-argument task of mixed types, spawned from here and run here or by a thief, receives
 *    each argument intact (checked one by one), in the rounds where a thief ran it too;
 *  - every arity 0 to 14 is spawned (all fifteen live at once, joined in LIFO order), called and
 *    run from outside the pool, with the right result; void tasks of 0, 2 and 14 arguments too. */
#include "check.h"

#include <merino.h>

#include "fib.h"
#include "task_decl/tasks.h"

#define PATIENCE 10.0

MERINO_TASK_IMPL_1(long, fib_odd, int, n) {
    if (n < 2) return n;
    MERINO_SPAWN(fib_even, n - 2);
    long a = MERINO_CALL(fib_even, n - 1);
    long b = MERINO_JOIN(fib_even);
    return a + b;
}

/* ---- every arity ---------------------------------------------------------------------------- */

/* What weigh<n>(v[1], ..., v[n]) must return. */
static long expected_weigh(int n, const long *v) {
    long r = 1000L * n;
    for (int k = 1; k <= n; k++) r += k * v[k];
    return r;
}

/* Spawns weigh0 .. weigh14 (fifteen tasks live at once) and the void tasks, joins them all in
 * reverse order, then calls each weigh<n>. Results into spawned[n] and called[n]. */
MERINO_VOID_TASK_4(all_arities, const long *, v, long *, spawned, long *, called, long *, voids) {
    MERINO_SPAWN(weigh0);
    MERINO_SPAWN(weigh1, v[1]);
    MERINO_SPAWN(weigh2, v[1], v[2]);
    MERINO_SPAWN(weigh3, v[1], v[2], v[3]);
    MERINO_SPAWN(weigh4, v[1], v[2], v[3], v[4]);
    MERINO_SPAWN(weigh5, v[1], v[2], v[3], v[4], v[5]);
    MERINO_SPAWN(weigh6, v[1], v[2], v[3], v[4], v[5], v[6]);
    MERINO_SPAWN(weigh7, v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
    MERINO_SPAWN(weigh8, v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8]);
    MERINO_SPAWN(weigh9, v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9]);
    MERINO_SPAWN(weigh10, v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10]);
    MERINO_SPAWN(weigh11, v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11]);
    MERINO_SPAWN(weigh12, v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11],
                 v[12]);
    MERINO_SPAWN(weigh13, v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11],
                 v[12], v[13]);
    MERINO_SPAWN(weigh14, v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11],
                 v[12], v[13], v[14]);
    MERINO_SPAWN(bump0);
    MERINO_SPAWN(add_into, &voids[0], v[5]);
    MERINO_SPAWN(weigh_into, &voids[1], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9],
                 v[10], v[11], v[12], v[13]);
    MERINO_JOIN(weigh_into);
    MERINO_JOIN(add_into);
    MERINO_JOIN(bump0);
    spawned[14] = MERINO_JOIN(weigh14);
    spawned[13] = MERINO_JOIN(weigh13);
    spawned[12] = MERINO_JOIN(weigh12);
    spawned[11] = MERINO_JOIN(weigh11);
    spawned[10] = MERINO_JOIN(weigh10);
    spawned[9] = MERINO_JOIN(weigh9);
    spawned[8] = MERINO_JOIN(weigh8);
    spawned[7] = MERINO_JOIN(weigh7);
    spawned[6] = MERINO_JOIN(weigh6);
    spawned[5] = MERINO_JOIN(weigh5);
    spawned[4] = MERINO_JOIN(weigh4);
    spawned[3] = MERINO_JOIN(weigh3);
    spawned[2] = MERINO_JOIN(weigh2);
    spawned[1] = MERINO_JOIN(weigh1);
    spawned[0] = MERINO_JOIN(weigh0);

    called[0] = MERINO_CALL(weigh0);
    called[1] = MERINO_CALL(weigh1, v[1]);
    called[2] = MERINO_CALL(weigh2, v[1], v[2]);
    called[3] = MERINO_CALL(weigh3, v[1], v[2], v[3]);
    called[4] = MERINO_CALL(weigh4, v[1], v[2], v[3], v[4]);
    called[5] = MERINO_CALL(weigh5, v[1], v[2], v[3], v[4], v[5]);
    called[6] = MERINO_CALL(weigh6, v[1], v[2], v[3], v[4], v[5], v[6]);
    called[7] = MERINO_CALL(weigh7, v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
    called[8] = MERINO_CALL(weigh8, v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8]);
    called[9] = MERINO_CALL(weigh9, v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9]);
    called[10] = MERINO_CALL(weigh10, v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10]);
    called[11] = MERINO_CALL(weigh11, v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10],
                             v[11]);
    called[12] = MERINO_CALL(weigh12, v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10],
                             v[11], v[12]);
    called[13] = MERINO_CALL(weigh13, v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10],
                             v[11], v[12], v[13]);
    called[14] = MERINO_CALL(weigh14, v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10],
                             v[11], v[12], v[13], v[14]);
}

/* weigh<n> run from main, a thread outside the pool, into run[n]. */
static void run_all_arities(const long *v, long *run) {
    run[0] = MERINO_RUN(weigh0);
    run[1] = MERINO_RUN(weigh1, v[1]);
    run[2] = MERINO_RUN(weigh2, v[1], v[2]);
    run[3] = MERINO_RUN(weigh3, v[1], v[2], v[3]);
    run[4] = MERINO_RUN(weigh4, v[1], v[2], v[3], v[4]);
    run[5] = MERINO_RUN(weigh5, v[1], v[2], v[3], v[4], v[5]);
    run[6] = MERINO_RUN(weigh6, v[1], v[2], v[3], v[4], v[5], v[6]);
    run[7] = MERINO_RUN(weigh7, v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
    run[8] = MERINO_RUN(weigh8, v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8]);
    run[9] = MERINO_RUN(weigh9, v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9]);
    run[10] = MERINO_RUN(weigh10, v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10]);
    run[11] = MERINO_RUN(weigh11, v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10],
                         v[11]);
    run[12] = MERINO_RUN(weigh12, v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10],
                         v[11], v[12]);
    run[13] = MERINO_RUN(weigh13, v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10],
                         v[11], v[12], v[13]);
    run[14] = MERINO_RUN(weigh14, v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10],
                         v[11], v[12], v[13], v[14]);
}

static void test_every_arity(void) {
    long v[15], spawned[15], called[15], run[15], voids[2] = {100, 0};
    for (int k = 0; k < 15; k++) v[k] = 37L * k - 200; /* negative and positive */
    long bumps_before = __atomic_load_n(&weigh_bumps, __ATOMIC_RELAXED);
    MERINO_RUN(all_arities, v, spawned, called, voids);
    run_all_arities(v, run);
    for (int n = 0; n <= 14; n++) {
        check_set_context("weigh%d", n);
        CHECK_EQ_INT(spawned[n], expected_weigh(n, v));
        CHECK_EQ_INT(called[n], expected_weigh(n, v));
        CHECK_EQ_INT(run[n], expected_weigh(n, v));
    }
    check_set_context(NULL);
    CHECK_EQ_INT(__atomic_load_n(&weigh_bumps, __ATOMIC_RELAXED), bumps_before + 1);
    CHECK_EQ_INT(voids[0], 100 + v[5]);
    CHECK_EQ_INT(voids[1], expected_weigh(13, v));
}

/* ---- fourteen arguments of mixed types ------------------------------------------------------ */

#define RECORDS 8
static const char *const g_names[RECORDS] = {"zero", "one", "two", "three",
                                             "four", "five", "six", "seven"};
static int g_targets[RECORDS]; /* what the void * arguments point to */

/* The arguments of record k, built the same way for the spawn and for the check. */
static small small_a(int k) { return (small){(short)(-300 - k), (char)('a' + k), 1.25f * (float)k}; }
static small small_b(int k) { return (small){(short)(7 * k), (char)('z' - k), -0.75f * (float)k}; }

/* Spawns record14_task for records 0..RECORDS-1, then runs fib_even(n) while thieves may take
 * them, then joins them. Returns the sum of their results. */
MERINO_TASK_2(long, spawn_records, record14 *, recs, int, n) {
    for (int k = 0; k < RECORDS; k++)
        MERINO_SPAWN(record14_task, &recs[k], 1000 * k - 3, 0.5 + k, small_a(k), g_names[k],
                     (char)('A' + k), (1LL << 40) + k, 2.5f + (float)k,
                     (unsigned short)(60000 + k), (void *)&g_targets[k], small_b(k),
                     1e-300 * (k + 1), 0xdeadbeefu ^ (unsigned)k, (signed char)(-100 + k));
    long r = MERINO_CALL(fib_even, n);
    for (int k = 0; k < RECORDS; k++) r += MERINO_JOIN(record14_task);
    return r;
}

static void check_record(const record14 *recs, int k) {
    const record14 *r = &recs[k];
    small a = small_a(k), b = small_b(k);
    check_set_context("record %d, run on worker %d", k, r->ran_on);
    CHECK(r->self == r);
    CHECK_EQ_INT(r->i, 1000 * k - 3);
    CHECK_EQ_DBL(r->d, 0.5 + k);
    CHECK_EQ_INT(r->s.tag, a.tag);
    CHECK_EQ_INT(r->s.c, a.c);
    CHECK_EQ_DBL(r->s.f, a.f);
    CHECK(r->str == g_names[k]);
    CHECK_EQ_INT(r->c, 'A' + k);
    CHECK_EQ_INT(r->ll, (1LL << 40) + k);
    CHECK_EQ_DBL(r->f, 2.5f + (float)k);
    CHECK_EQ_UINT(r->us, 60000 + k);
    CHECK(r->vp == (void *)&g_targets[k]);
    CHECK_EQ_INT(r->s2.tag, b.tag);
    CHECK_EQ_INT(r->s2.c, b.c);
    CHECK_EQ_DBL(r->s2.f, b.f);
    CHECK_EQ_DBL(r->d2, 1e-300 * (k + 1));
    CHECK_EQ_UINT(r->u, 0xdeadbeefu ^ (unsigned)k);
    CHECK_EQ_INT(r->sc, -100 + k);
    CHECK(r->ran_on >= 0 && r->ran_on < (int)merino_workers());
    check_set_context(NULL);
}

/* Rounds of spawn_records until a thief has run one of the records (each round's records are all
 * checked), or PATIENCE seconds. Returns whether a thief ran one. */
static int test_fourteen_arguments(void) {
    record14 recs[RECORDS];
    long want = 0;
    for (int k = 0; k < RECORDS; k++) want += 1000 * k - 3 + 1;
    want += serial_fib(18);
    double until = check_now() + PATIENCE;
    int stolen = 0;
    while (!stolen && check_now() < until) {
        memset(recs, 0, sizeof recs);
        CHECK_EQ_INT(MERINO_RUN(spawn_records, recs, 18), want);
        for (int k = 0; k < RECORDS; k++) {
            check_record(recs, k);
            if (recs[k].ran_on != 0) stolen = 1; /* main runs its task as worker 0 */
        }
    }
    return stolen;
}

/* ---- the mutually recursive pair in parallel ------------------------------------------------ */

static uint64_t test_pair_steals(void) {
    merino_stats st = {0};
    double until = check_now() + PATIENCE;
    do {
        merino_stats_reset();
        CHECK_EQ_INT(MERINO_RUN(fib_even, 24), serial_fib(24));
        CHECK_EQ_INT(MERINO_RUN(fib_odd, 23), serial_fib(23));
        merino_stats_get(&st);
    } while (st.steals == 0 && check_now() < until);
    return st.steals;
}

int main(void) {
    merino_config cfg = {0};
    cfg.workers = 2;
    CHECK_EQ_INT(merino_start(&cfg), 0);
    test_every_arity();
    uint64_t steals = test_pair_steals();
    CHECK_MSG(steals > 0, "no steal in %.0f s of fib_even/fib_odd at 2 workers", PATIENCE);
    CHECK_MSG(test_fourteen_arguments(), "no record14_task run by a thief in %.0f s", PATIENCE);
    test_every_arity(); /* again, with stealing going on */
    CHECK_EQ_INT(merino_stop(), 0);

    /* One worker: everything runs in order on the caller. */
    cfg.workers = 1;
    CHECK_EQ_INT(merino_start(&cfg), 0);
    test_every_arity();
    CHECK_EQ_INT(MERINO_RUN(fib_odd, 20), serial_fib(20));
    CHECK_EQ_INT(merino_stop(), 0);
    printf("test_task_decl: ok (%llu steals of the fib_even/fib_odd pair)\n",
           (unsigned long long)steals);
    return 0;
}
