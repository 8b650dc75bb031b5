/* loopfib-omp.c — loops nested in fib with OpenMP tasks: fib's calls are `omp task`s, each leaf's
 * loop an `omp taskloop` with a reduction inside its task. See loopfib-serial.c. */
#include <bench.h> /* first: it sets _GNU_SOURCE */
#include "loopfib.h"

#include <omp.h>

static uint64_t loopfib(int n, uint64_t leaf, long m) {
    if (n < 2) {
        uint64_t s = 0;
#pragma omp taskloop reduction(+ : s)
        for (long i = 0; i < m; i++) s += loopfib_value(leaf, i);
        return s;
    }
    uint64_t a, b;
#pragma omp task shared(b)
    b = loopfib(n - 2, 2 * leaf + 1, m);
    a = loopfib(n - 1, 2 * leaf, m);
#pragma omp taskwait
    return a + b;
}

int main(int argc, char **argv) {
    loopfib_args a;
    if (loopfib_parse(argc, argv, &a)) return 2;
    omp_set_num_threads(a.workers);
    uint64_t s = 0;
    double t0 = bench_now();
    for (int r = 0; r < a.reps; r++) {
#pragma omp parallel
#pragma omp single
        s = loopfib(a.d, 1, a.m);
    }
    double t1 = bench_now();
    return bench_report_i64(t1 - t0, s == loopfib_serial(a.d, 1, a.m), (int64_t)(s & INT64_MAX), -1);
}
