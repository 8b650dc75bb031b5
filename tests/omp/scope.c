/* scope.c — the scope construct (OpenMP 5.1): every thread runs it, with private and reduction
 * clauses (gcc 12 has no firstprivate on it); its end is a barrier unless nowait; a task
 * reduction on it (reduction(task, ...): GOMP_scope_start) collects its tasks' in_reduction.
 */
#include "omp_test.h"

int main(void) {
    int n = ot_threads();
    long sum = 0;
    int priv = -1, bad = 0;
    atomic_int passed = 0, passed_nowait = 0;
#pragma omp parallel reduction(+ : bad)
    {
#pragma omp scope reduction(+ : sum) private(priv)
        {
            priv = omp_get_thread_num();
            sum += priv + 5;
            atomic_fetch_add(&passed, 1);
        }
        /* the reduction is complete after the scope's barrier */
        bad += sum != (long)n * (n - 1) / 2 + 5L * n;
        bad += atomic_load(&passed) != n;
#pragma omp scope nowait
        atomic_fetch_add(&passed_nowait, 1);
    }
    long tsum = 0;
#pragma omp parallel reduction(+ : bad)
    {
#pragma omp scope reduction(task, + : tsum)
        {
            for (int k = 0; k < 10; k++) {
#pragma omp task in_reduction(+ : tsum) firstprivate(k)
                tsum += k + 1;
            }
        }
        bad += tsum != 55L * n;
    }
    CHECK_EQ_INT(tsum, 55L * n);
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(sum, (long)n * (n - 1) / 2 + 5L * n);
    CHECK_EQ_INT(priv, -1);
    CHECK_EQ_INT(atomic_load(&passed), n);
    CHECK_EQ_INT(atomic_load(&passed_nowait), n);
    OT_SAY("scope: every thread, reduction %ld done at its barrier, private right", sum);
    OT_SAY("scope reduction(task): %ld from %d x 10 tasks", tsum, n);
    return 0;
}
