/* lock.c — the lock routines: simple locks (init, set, unset, test, destroy) exclude each other;
 * omp_test_lock fails on a lock another thread holds and succeeds on a free one; nested locks
 * count their owner's nesting (omp_test_nest_lock returns the new count) and exclude other
 * threads until the count is back to zero; a lock re-made after destroy; locks held by tasks.
 * (gcc 12's omp.h declares omp_init_lock_with_hint and omp_init_nest_lock_with_hint, but its
 * libgomp.so.1 defines neither: a program calling them does not link, so none is called here.)
 */
#include "omp_test.h"

static long counter;
static atomic_int inside, overlap;

static void guarded_increment(void) {
    if (atomic_fetch_add_explicit(&inside, 1, memory_order_relaxed) != 0) atomic_fetch_add(&overlap, 1);
    long v = counter;
    ot_spin(10);
    counter = v + 1;
    atomic_fetch_sub_explicit(&inside, 1, memory_order_relaxed);
}

static void simple_locks(void) {
    int n = ot_threads(), reps = (int)(1000 * check_scale());
    omp_lock_t l;
    omp_init_lock(&l);
    counter = 0;
#pragma omp parallel
    for (int r = 0; r < reps; r++) {
        if (r % 2) {
            omp_set_lock(&l);
        } else {
            while (!omp_test_lock(&l)) {
            }
        }
        guarded_increment();
        omp_unset_lock(&l);
    }
    omp_destroy_lock(&l);
    CHECK_EQ_INT(counter, (long)n * reps);
    CHECK_EQ_INT(atomic_load(&overlap), 0);
    OT_SAY("simple lock, set and test: %d x %d increments, never two inside", n, reps);
}

/* omp_test_lock on a lock held by another thread fails; a handshake makes it deterministic. */
static void test_lock_fails_when_held(void) {
    omp_lock_t l;
    omp_nest_lock_t nl;
    omp_init_lock(&l);
    omp_init_nest_lock(&nl);
    atomic_int step = 0;
    int got_simple = -1, got_nested = -1, got_after = -1, got_nested_after = -1;
#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 0) {
            omp_set_lock(&l);
            omp_set_nest_lock(&nl);
            omp_set_nest_lock(&nl);
            atomic_store_explicit(&step, 1, memory_order_release);
            ot_wait_for(&step, 2, "the other thread's omp_test_lock");
            omp_unset_lock(&l);
            omp_unset_nest_lock(&nl);
            omp_unset_nest_lock(&nl);
            atomic_store_explicit(&step, 3, memory_order_release);
        } else {
            ot_wait_for(&step, 1, "the lock to be taken");
            got_simple = omp_test_lock(&l);
            got_nested = omp_test_nest_lock(&nl);
            atomic_store_explicit(&step, 2, memory_order_release);
            ot_wait_for(&step, 3, "the lock to be released");
            got_after = omp_test_lock(&l);
            got_nested_after = omp_test_nest_lock(&nl);
            omp_unset_lock(&l);
            omp_unset_nest_lock(&nl);
        }
    }
    omp_destroy_lock(&l);
    omp_destroy_nest_lock(&nl);
    CHECK_EQ_INT(got_simple, 0);
    CHECK_EQ_INT(got_nested, 0);
    CHECK_EQ_INT(got_after, 1);
    CHECK_EQ_INT(got_nested_after, 1);
    OT_SAY("omp_test_lock and omp_test_nest_lock: 0 while another thread holds it, then 1");
}

static void nested_locks(void) {
    omp_nest_lock_t nl;
    omp_init_nest_lock(&nl);
    CHECK_EQ_INT(omp_test_nest_lock(&nl), 1);
    CHECK_EQ_INT(omp_test_nest_lock(&nl), 2);
    omp_set_nest_lock(&nl); /* 3 */
    CHECK_EQ_INT(omp_test_nest_lock(&nl), 4);
    for (int k = 0; k < 4; k++) omp_unset_nest_lock(&nl);
    CHECK_EQ_INT(omp_test_nest_lock(&nl), 1);
    omp_unset_nest_lock(&nl);
    omp_destroy_nest_lock(&nl);

    int n = ot_threads(), reps = (int)(300 * check_scale());
    omp_init_nest_lock(&nl);
    counter = 0;
#pragma omp parallel
    for (int r = 0; r < reps; r++) {
        omp_set_nest_lock(&nl);
        omp_set_nest_lock(&nl);
        guarded_increment();
        omp_unset_nest_lock(&nl);
        guarded_increment(); /* still held once */
        omp_unset_nest_lock(&nl);
    }
    omp_destroy_nest_lock(&nl);
    CHECK_EQ_INT(counter, 2L * n * reps);
    CHECK_EQ_INT(atomic_load(&overlap), 0);
    OT_SAY("nested locks: nesting counts 1 2 3 4, exclusion until the count is zero");
}

static void remade_and_in_tasks(void) {
    omp_lock_t l;
    for (int k = 0; k < 100; k++) {
        omp_init_lock(&l);
        omp_set_lock(&l);
        omp_unset_lock(&l);
        omp_destroy_lock(&l);
    }
    omp_init_lock(&l);
    counter = 0;
#pragma omp parallel
#pragma omp single
    for (int k = 0; k < 200; k++) {
#pragma omp task shared(l)
        {
            omp_set_lock(&l);
            guarded_increment();
            omp_unset_lock(&l);
        }
    }
    omp_destroy_lock(&l);
    CHECK_EQ_INT(counter, 200);
    CHECK_EQ_INT(atomic_load(&overlap), 0);
    OT_SAY("locks made and destroyed 100 times; a lock shared by 200 tasks: right");
}

int main(void) {
    simple_locks();
    test_lock_fails_when_held();
    nested_locks();
    remade_and_in_tasks();
    return 0;
}
