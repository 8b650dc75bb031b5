/* busy_machine.c — back-to-back parallel regions while other threads of the process keep every
 * CPU busy: the runtime's threads lose their CPUs at any moment, so a role offered to a pool
 * thread often times out and goes to a spare while that thread is looking at it. Every region
 * must still run each thread number exactly once, and (under ThreadSanitizer) no team's memory
 * may be reused while a thread still looks at it.
 *
 * omp-threads: 2 8
 */
#include "omp_test.h"

#include <stdio.h>

#define OT_REGIONS 1500

int main(void) {
    int n = ot_threads();
    ot_hogs hogs;
    ot_hogs_start(&hogs);
    long bad_regions = 0;
    for (int r = 0; r < OT_REGIONS; r++) {
        atomic_int seen[64] = {0};
        int team = 0;
#pragma omp parallel num_threads(n)
        {
            int t = omp_get_thread_num();
            if (t < 64) atomic_fetch_add(&seen[t], 1);
#pragma omp single
            team = omp_get_num_threads();
            ot_spin(r % 7 * 50);
        }
        int ok = team == n;
        for (int t = 0; t < n && t < 64; t++) ok &= atomic_load(&seen[t]) == 1;
        bad_regions += !ok;
    }
    ot_hogs_stop(&hogs);
    CHECK_MSG(bad_regions == 0, "%ld of %d regions did not run each of their %d threads once", bad_regions,
              OT_REGIONS, n);
    OT_SAY("%d regions of %d threads on a busy machine, each thread once", OT_REGIONS, n);
    return 0;
}
