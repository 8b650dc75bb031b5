/* single.c — the single construct: one thread runs it, the others wait at its implicit barrier
 * (and see its writes), or go on with nowait; many singles in a row, some nowait, each run
 * exactly once (threads run ahead into later ones); copyprivate broadcasts the single thread's
 * private values — an int, a struct and an array, several at once — to every thread.
 */
#include "omp_test.h"

static void once_and_barrier(void) {
    atomic_int runs = 0;
    int value = 0, bad = 0;
#pragma omp parallel reduction(+ : bad)
    {
#pragma omp single
        {
            atomic_fetch_add(&runs, 1);
            value = 4242;
        }
        bad += value != 4242; /* after the implicit barrier */
    }
    CHECK_EQ_INT(atomic_load(&runs), 1);
    CHECK_EQ_INT(bad, 0);
    OT_SAY("single: once, its write seen after its barrier");
}

static void in_a_row(void) {
    enum { ROUNDS = 500 };
    static atomic_int ran[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) atomic_store(&ran[r], 0);
#pragma omp parallel
    {
        for (int r = 0; r < ROUNDS; r++) {
            if (r % 3 == 0) {
#pragma omp single
                atomic_fetch_add(&ran[r], 1);
            } else {
#pragma omp single nowait
                atomic_fetch_add(&ran[r], 1);
            }
        }
    }
    for (int r = 0; r < ROUNDS; r++) CHECK_MSG(atomic_load(&ran[r]) == 1, "single %d ran %d times", r, atomic_load(&ran[r]));
    OT_SAY("%d singles in a row (two thirds nowait): each once", ROUNDS);
}

struct point {
    double x, y;
    int tag;
};

static void copyprivate(void) {
    int bad = 0;
    for (int round = 0; round < 50; round++) {
#pragma omp parallel reduction(+ : bad)
        {
            int v;
            struct point p;
            long arr[8];
            int who;
#pragma omp single copyprivate(v, p, arr, who)
            {
                who = omp_get_thread_num();
                v = round * 7 + 1;
                p.x = round + 0.5;
                p.y = -round;
                p.tag = round;
                for (int k = 0; k < 8; k++) arr[k] = (long)round * k;
            }
            bad += v != round * 7 + 1 || p.x != round + 0.5 || p.y != -round || p.tag != round;
            for (int k = 0; k < 8; k++) bad += arr[k] != (long)round * k;
            bad += who < 0 || who >= omp_get_num_threads();
        }
    }
    CHECK_EQ_INT(bad, 0);
    OT_SAY("copyprivate of an int, a struct, an array: every thread got them");
}

int main(void) {
    once_and_barrier();
    in_a_row();
    copyprivate();
    return 0;
}
