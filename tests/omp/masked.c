/* masked.c — master and masked (with and without filter): only the chosen thread runs the block,
 * no barrier after it; filter(k) with k beyond the team runs nowhere; the combined parallel
 * masked and master taskloop forms.
 */
#include "omp_test.h"

int main(void) {
    int n = ot_threads();
    atomic_int master_runs = 0, masked_runs = 0, filtered[4] = {0}, beyond = 0;
    int master_tid = -1, masked_tid = -1, bad = 0;
#pragma omp parallel reduction(+ : bad)
    {
#pragma omp master
        {
            atomic_fetch_add(&master_runs, 1);
            master_tid = omp_get_thread_num();
        }
#pragma omp masked
        {
            atomic_fetch_add(&masked_runs, 1);
            masked_tid = omp_get_thread_num();
        }
        for (int k = 0; k < 4; k++) {
#pragma omp masked filter(k)
            {
                atomic_fetch_add(&filtered[k], 1);
                bad += omp_get_thread_num() != k;
            }
        }
#pragma omp masked filter(omp_get_num_threads())
        atomic_fetch_add(&beyond, 1);
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(atomic_load(&master_runs), 1);
    CHECK_EQ_INT(atomic_load(&masked_runs), 1);
    CHECK_EQ_INT(master_tid, 0);
    CHECK_EQ_INT(masked_tid, 0);
    for (int k = 0; k < 4; k++) CHECK_EQ_INT(atomic_load(&filtered[k]), k < n ? 1 : 0);
    CHECK_EQ_INT(atomic_load(&beyond), 0);
    OT_SAY("master, masked: thread 0 once; filter(0..3): %d of 4 ran; filter beyond the team: none",
           n < 4 ? n : 4);

    /* no barrier after masked: a thread other than 0 may finish before it; thread 0 waits here
     * for every other thread, which can only work if they are not held at the masked block */
    atomic_int others = 0;
#pragma omp parallel shared(others)
    {
#pragma omp masked
        ot_wait_for(&others, omp_get_num_threads() - 1, "the other threads to pass the masked block");
        if (omp_get_thread_num() != 0) atomic_fetch_add_explicit(&others, 1, memory_order_release);
    }
    OT_SAY("masked has no barrier: the other threads went past it");

    atomic_int pm = 0;
    long sum = 0;
#pragma omp parallel masked
    atomic_fetch_add(&pm, 1 + omp_get_thread_num());
#pragma omp parallel
#pragma omp master taskloop reduction(+ : sum) grainsize(10)
    for (int i = 0; i < 1000; i++) sum += i;
    CHECK_EQ_INT(atomic_load(&pm), 1);
    CHECK_EQ_INT(sum, 999 * 1000 / 2);
    OT_SAY("parallel masked, master taskloop: right");
    return 0;
}
