/* threadprivate.c — threadprivate variables (an int, an array, a struct, a file-scope and a
 * function-scope static): each thread its own copy; the initial thread's copy is the original;
 * values persist between two regions of the same size (dyn-var false, no nesting), so thread i
 * of the second region must be the thread that was i in the first; copyin copies the primary
 * thread's values into every thread's copies, in top-level and nested regions.
 */
#include "omp_test.h"

static int tp_int = 7;
static long tp_arr[4] = {1, 2, 3, 4};
static struct {
    double d;
    int tag;
} tp_struct = {0.5, 3};
#pragma omp threadprivate(tp_int, tp_arr, tp_struct)

static int counter_in_function(void) {
    static int calls;
#pragma omp threadprivate(calls)
    return ++calls;
}

int main(void) {
    int n = ot_threads(), bad = 0;
    /* each thread its own copy, starting from the initializer */
#pragma omp parallel reduction(+ : bad)
    {
        int t = omp_get_thread_num();
        bad += tp_int != 7 && t != 0;
        tp_int = 100 + t;
        tp_arr[1] = 1000 + t;
        tp_struct.tag = t;
        for (int k = 0; k < 3; k++) counter_in_function();
#pragma omp barrier
        bad += tp_int != 100 + t || tp_arr[1] != 1000 + t || tp_struct.tag != t;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(tp_int, 100); /* the initial thread's copy is the original */
    OT_SAY("threadprivate: a copy per thread, the initial thread's is the original");

    /* persistence: a second region of the same size finds each thread's values */
#pragma omp parallel reduction(+ : bad)
    {
        int t = omp_get_thread_num();
        bad += tp_int != 100 + t || tp_arr[1] != 1000 + t || tp_struct.tag != t;
        bad += counter_in_function() != 4;
    }
    CHECK_MSG(bad == 0, "%d threadprivate values did not persist between two regions of %d threads", bad, n);
    OT_SAY("threadprivate values persisted into the next region of %d threads", n);

    /* copyin */
    tp_int = -5;
    tp_arr[0] = 42;
    tp_struct.d = 9.25;
    tp_struct.tag = 77;
#pragma omp parallel copyin(tp_int, tp_arr, tp_struct) reduction(+ : bad)
    {
        bad += tp_int != -5 || tp_arr[0] != 42 || tp_arr[3] != 4 || tp_struct.d != 9.25 || tp_struct.tag != 77;
        tp_int = omp_get_thread_num();
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(tp_int, 0);
    /* copyin into a nested team: from that team's primary thread */
    omp_set_max_active_levels(2);
#pragma omp parallel num_threads(2) reduction(+ : bad)
    {
        tp_int = 500 + omp_get_thread_num();
#pragma omp parallel num_threads(3) copyin(tp_int) reduction(+ : bad)
        bad += tp_int != 500 + omp_get_ancestor_thread_num(1);
    }
    omp_set_max_active_levels(1);
    CHECK_EQ_INT(bad, 0);
    OT_SAY("copyin of an int, an array and a struct, top-level and nested: right");
    return 0;
}
