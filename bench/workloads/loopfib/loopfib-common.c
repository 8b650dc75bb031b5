/* loopfib-common.c — arguments, the loop body and the serial answer of the loopfib workload. */
#include <bench.h> /* first: it sets _GNU_SOURCE */
#include "loopfib.h"

int loopfib_parse(int argc, char **argv, loopfib_args *a) {
    const char *p[2];
    int np = bench_args(argc, argv, &a->workers, &a->reps, p, 2);
    a->d = (int)bench_param_long(p, np, 0, -1);
    a->m = bench_param_long(p, np, 1, 0);
    if (np < 2 || a->d < 0 || a->d > 40 || a->m < 1) {
        bench_usage_exit(argv[0], "d m");
        return 2;
    }
    return 0;
}

uint64_t loopfib_range(uint64_t leaf, int64_t lo, int64_t hi) {
    uint64_t s = 0;
    for (int64_t i = lo; i < hi; i++) s += loopfib_value(leaf, i);
    return s;
}

uint64_t loopfib_serial(int n, uint64_t leaf, long m) {
    if (n < 2) return loopfib_range(leaf, 0, m);
    return loopfib_serial(n - 1, 2 * leaf, m) + loopfib_serial(n - 2, 2 * leaf + 1, m);
}
