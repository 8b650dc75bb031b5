/* taskobj, serial: ./taskobj-serial [--workers N] [--reps R] n cutoff variant (all but n ignored) */
#include "bench.h"
#include "taskobj.h"

int main(int argc, char **argv) {
    int workers, reps, n, cutoff, variant;
    taskobj_args(argc, argv, &workers, &reps, &n, &cutoff, &variant);
    double t0 = bench_now();
    long r = 0;
    for (int i = 0; i < reps; i++) bench_sink(r = fib_serial(n));
    return bench_report_i64(bench_now() - t0, r == fib_closed(n), r, -1);
}
