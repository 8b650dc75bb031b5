/* fib, serial: ./fib-serial [--workers N] [--reps R] n [cutoff]   (cutoff ignored: no tasks here) */
#include "bench.h"
#include "fib.h"

int main(int argc, char **argv) {
    const char *p[2];
    int workers, reps;
    int np = bench_args(argc, argv, &workers, &reps, p, 2);
    if (np < 1) bench_usage_exit(argv[0], "n [cutoff]");
    int n = (int)bench_param_long(p, np, 0, 30);
    long r = 0;
    double t0 = bench_now();
    for (int i = 0; i < reps; i++) {
        r = fib_serial(n);
        bench_sink(r);
    }
    double t = bench_now() - t0;
    return bench_report_i64(t, r == fib_closed(n), r, -1);
}
