/* loops_omp.c — converting an OpenMP loop to merino_for_omp (an IDWS loop on the threads of the
 * OpenMP region, as in the IDWS paper's section 4.3). Built with -fopenmp when CMake finds OpenMP;
 * without it, merino_for_omp does not exist and this example says so and exits 0.
 *
 * Before: a worksharing loop whose iterations cost very different amounts (most of the work in
 * the first quarter), where `schedule(static)` leaves threads idle and `dynamic` pays a shared
 * counter per chunk:
 *
 *     #pragma omp parallel
 *     {
 *         #pragma omp for reduction(+ : total)
 *         for (long i = 0; i < n; i++) total += cost(i);
 *     }
 *
 * After: the loop body becomes a function of a sub-range, its context the thread's own partial;
 * every thread of the region calls merino_for_omp (it replaces the `omp for` and its barrier), and
 * the partials are added as the reduction clause did. Idle threads interrupt the thread with the most
 * work left, which gives them half of it. */
#include <merino_loop.h>

#include <math.h>
#include <stdio.h>

#if defined(_OPENMP)
static double cost(long i, long n) { /* heavy in the first quarter, light elsewhere */
    int reps = i < n / 4 ? 200 : 5;
    double x = 0;
    for (int k = 0; k < reps; k++) x += sin((double)(i + k));
    return x;
}

typedef struct part {
    long n;
    double sum; /* this thread's partial */
} part;

static void body(int64_t lo, int64_t hi, void *ctx) { /* one sub-range [lo, hi), on one thread */
    part *p = ctx;
    for (int64_t i = lo; i < hi; i++) p->sum += cost((long)i, p->n);
}

int main(void) {
    const long n = 200000;

    double before = 0; /* the OpenMP loop */
#pragma omp parallel
    {
#pragma omp for reduction(+ : before)
        for (long i = 0; i < n; i++) before += cost(i, n);
    }

    double after = 0; /* the same loop, converted */
#pragma omp parallel
    {
        part mine = {n, 0};
        merino_for_omp(0, n, body, &mine, NULL);
#pragma omp atomic
        after += mine.sum;
    }

    printf("omp for: %.6f, merino_for_omp: %.6f\n", before, after);
    /* the partials are added in another order: equal up to rounding */
    return fabs(before - after) <= 1e-9 * (fabs(before) + 1) ? 0 : 1;
}
#else
int main(void) {
    puts("loops_omp: built without OpenMP (-fopenmp), so there is no merino_for_omp to show");
    return 0;
}
#endif
