/* critical.c — the critical construct: unnamed and named regions exclude each other (a plain
 * read-modify-write of shared data and an "inside" count that must stay at one), regions of
 * different names are different locks (nested in each other, they do not deadlock), a hint is
 * accepted, critical regions in tasks, in nested teams and in functions called from a region.
 */
#include "omp_test.h"

static long counter, counter_a, counter_b;
static atomic_int inside, inside_a, inside_b;
static atomic_int overlap;

/* The body of every critical region here: one thread at a time, checked. */
#define EXCLUSIVE(in, var)                                                                         \
    do {                                                                                           \
        if (atomic_fetch_add_explicit(&(in), 1, memory_order_relaxed) != 0) atomic_fetch_add(&overlap, 1);          \
        long v = (var);                                                                            \
        ot_spin(20);                                                                               \
        (var) = v + 1;                                                                             \
        atomic_fetch_sub_explicit(&(in), 1, memory_order_relaxed);                                 \
    } while (0)

static void orphaned_critical(void) {
#pragma omp critical
    EXCLUSIVE(inside, counter);
}

int main(void) {
    int n = ot_threads(), reps = (int)(2000 * check_scale());
#pragma omp parallel
    {
        for (int r = 0; r < reps; r++) {
#pragma omp critical
            EXCLUSIVE(inside, counter);
#pragma omp critical(alpha)
            EXCLUSIVE(inside_a, counter_a);
#pragma omp critical(beta) hint(omp_sync_hint_contended)
            EXCLUSIVE(inside_b, counter_b);
        }
    }
    CHECK_EQ_INT(overlap, 0);
    CHECK_EQ_INT(counter, (long)n * reps);
    CHECK_EQ_INT(counter_a, (long)n * reps);
    CHECK_EQ_INT(counter_b, (long)n * reps);
    OT_SAY("unnamed, named and hinted critical: %d x %d increments each, never two inside", n, reps);

    /* Different names are different locks: alpha inside beta inside the unnamed one. */
    counter = counter_a = counter_b = 0;
#pragma omp parallel
    {
        for (int r = 0; r < 100; r++) {
#pragma omp critical
            {
#pragma omp critical(alpha)
                {
#pragma omp critical(gamma) hint(omp_sync_hint_speculative)
                    counter++;
                }
            }
        }
    }
    CHECK_EQ_INT(counter, 100L * n);
    OT_SAY("nested critical regions of different names: no deadlock");

    /* In tasks, in nested teams, in a called function: still one lock per name. */
    counter = 0;
    omp_set_max_active_levels(2);
#pragma omp parallel num_threads(2)
    {
#pragma omp parallel num_threads(3)
        for (int r = 0; r < 50; r++) orphaned_critical();
#pragma omp single
        for (int k = 0; k < 60; k++) {
#pragma omp task
            {
#pragma omp critical
                EXCLUSIVE(inside, counter);
            }
        }
    }
    omp_set_max_active_levels(1);
    CHECK_EQ_INT(overlap, 0);
    CHECK_EQ_INT(counter, 2 * 3 * 50 + 60);
    OT_SAY("critical in nested teams, tasks and called functions: right");
    return 0;
}
