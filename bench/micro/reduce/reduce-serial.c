/* reduce-serial.c — a floating-point sum over [0, n) (reduce_value: a few operations an index),
 * the cost of merino's deterministic reduction (opts.deterministic: the same bits at every worker
 * count and schedule) against its plain one (the target: within 10%). Params: n plain|det
 * [schedule] (merino's schedule, default auto); the serial version ignores the mode. Result: the
 * sum, checked bit for bit against a serial computation of the deterministic tree (det), or within
 * 1e-9 relative of the serial sum (plain). */
#include <bench.h> /* first: it sets _GNU_SOURCE */
#include "reduce.h"

int main(int argc, char **argv) {
    reduce_args a;
    if (reduce_parse(argc, argv, &a)) return 2;
    double sum = 0;
    double t0 = bench_now();
    for (int r = 0; r < a.reps; r++) {
        sum = reduce_range(0, a.n);
        bench_sink(sum);
    }
    double t1 = bench_now();
    return bench_report_f64(t1 - t0, reduce_check(a.n, 0, sum), sum, -1);
}
