/* threadprivate_busy.c — threadprivate values persist between consecutive regions of the same
 * size (no nesting, dyn-var false) while other threads of the process keep every CPU busy: the
 * runtime's threads lose their CPUs at any moment, and a thread that comes late must still be the
 * one that plays its thread number in the next region (libgomp keeps thread k on one OS thread).
 * Each region checks the value every thread left in its copy in the region before, and the
 * thread's identity (a pointer to its copy, which is per OS thread).
 *
 * omp-threads: 2 3 8
 */
#include "omp_test.h"

#include <stdio.h>

#define OT_REGIONS 400
#define OT_MAX 64

static int tp_value = -1;
#pragma omp threadprivate(tp_value)

int main(void) {
    int n = ot_threads();
    CHECK(n <= OT_MAX);
    ot_hogs hogs;
    ot_hogs_start(&hogs);
    int *copy_of[OT_MAX] = {0}; /* thread t's copy of tp_value, from the first region */
    long lost = 0, moved = 0;
    for (int r = 0; r < OT_REGIONS; r++) {
        long lost_here = 0, moved_here = 0;
#pragma omp parallel reduction(+ : lost_here, moved_here)
        {
            int t = omp_get_thread_num();
            if (r == 0)
                copy_of[t] = &tp_value;
            else {
                lost_here += tp_value != (r - 1) * OT_MAX + t;
                moved_here += copy_of[t] != &tp_value;
            }
            tp_value = r * OT_MAX + t;
            ot_spin(r % 5 * 100);
        }
        lost += lost_here;
        moved += moved_here;
    }
    ot_hogs_stop(&hogs);
    CHECK_MSG(lost == 0 && moved == 0,
              "threadprivate values did not persist on a busy machine: %ld values lost, %ld thread "
              "numbers on another OS thread, in %d regions of %d threads",
              lost, moved, OT_REGIONS, n);
    OT_SAY("threadprivate values persisted through %d regions of %d threads on a busy machine", OT_REGIONS, n);
    return 0;
}
