/* fib, OpenMP tasks: ./fib-omp-{gcc,clang} --workers N [--reps R] n [cutoff]
 * One `omp task` per call, `taskwait` to join; below the cutoff the serial recursion. */
#include "bench_omp.h"

#include "bench.h"
#include "fib.h"

static int cutoff;

static long fib(int n) {
    if (n < 2) return n;
    if (n < cutoff) return fib_serial(n);
    long a, b;
#pragma omp task shared(a) firstprivate(n)
    a = fib(n - 2);
    b = fib(n - 1);
#pragma omp taskwait
    return a + b;
}

int main(int argc, char **argv) {
    const char *p[2];
    int workers, reps;
    int np = bench_args(argc, argv, &workers, &reps, p, 2);
    if (np < 1) bench_usage_exit(argv[0], "n [cutoff]");
    int n = (int)bench_param_long(p, np, 0, 30);
    cutoff = (int)bench_param_long(p, np, 1, 0);
    bench_omp_team(workers);
    long r = 0;
    double t0 = bench_now();
#pragma omp parallel
#pragma omp single
    for (int i = 0; i < reps; i++) {
        r = fib(n);
        bench_sink(r);
    }
    double t = bench_now() - t0;
    return bench_report_i64(t, r == fib_closed(n), r, fib_tasks(n, cutoff) * reps);
}
