/* loopfib-serial.c — loops nested in fib: the call tree of fib(d), each of whose fib(d + 1) leaves
 * runs a loop of m iterations (a few integer operations each) and returns its sum; the answer is
 * the sum over the leaves. Parallel versions spawn fib's calls as tasks and run each leaf's loop
 * as a parallel loop inside its task: nested parallelism, where the loop must not cost more than
 * it gives when the task tree already keeps every worker busy. Params: d m. Result: the sum,
 * checked against the serial computation. */
#include <bench.h> /* first: it sets _GNU_SOURCE */
#include "loopfib.h"

int main(int argc, char **argv) {
    loopfib_args a;
    if (loopfib_parse(argc, argv, &a)) return 2;
    uint64_t s = 0;
    double t0 = bench_now();
    for (int r = 0; r < a.reps; r++) {
        s = loopfib_serial(a.d, 1, a.m);
        bench_sink(s);
    }
    double t1 = bench_now();
    return bench_report_i64(t1 - t0, s == loopfib_serial(a.d, 1, a.m), (int64_t)(s & INT64_MAX), -1);
}
