/* reducer, serial: ./reducer-serial [--workers N] [--reps R] shape n [variant]   (see reducer.h):
 * one linked list appended to in order (the variant is ignored). */
#include "bench.h"
#include "reducer.h"

static void fib(reducer_list *l, int n, uint64_t depth) {
    if (n < 2) {
        reducer_list_push(l, depth * 2 + (uint64_t)n);
        return;
    }
    fib(l, n - 1, depth + 1);
    fib(l, n - 2, depth + 1);
}

int main(int argc, char **argv) {
    const char *p[3];
    int workers, reps;
    int np = bench_args(argc, argv, &workers, &reps, p, 3);
    if (np < 2 || reducer_shape(p[0]) < 0) bench_usage_exit(argv[0], "loop|fib n [variant]");
    int shape = reducer_shape(p[0]);
    long n = bench_param_long(p, np, 1, 1000);
    reducer_digest want = reducer_expected(shape, n), got = reducer_digest_new();
    double t = 0;
    for (int r = 0; r < reps; r++) {
        reducer_list l = {NULL, &l.head};
        double t0 = bench_now();
        if (shape == REDUCER_LOOP)
            for (long i = 0; i < n; i++) reducer_list_push(&l, (uint64_t)i);
        else
            fib(&l, (int)n, 0);
        t += bench_now() - t0;
        got = reducer_list_digest(&l); /* not timed: the check and the free */
    }
    return bench_report_i64(t, reducer_ok(VARIANT_REDUCER, &got, &want), (int64_t)got.count, -1);
}
