/* isolate-serial.c — the cost of merino::isolate around a nested parallel loop (issue 30: at most
 * 5%): an outer loop of n iterations, each summing an inner loop of m iterations of a few integer
 * operations; the merino and oneTBB versions run both loops in parallel, the inner one isolated or
 * not (params: `n m plain|isolate`). The serial program is the two loops. */
#include <bench.h>
#include "isolate.h"

int main(int argc, char **argv) {
    int workers, reps, isolated;
    long n, m;
    if (isolate_parse(argc, argv, &workers, &reps, &n, &m, &isolated)) return 2;
    uint64_t s = 0;
    double t0 = bench_now();
    for (int r = 0; r < reps; r++) {
        s = 0;
        for (long i = 0; i < n; i++) {
            uint64_t inner = 0;
            for (long j = 0; j < m; j++) inner += isolate_value(i, j);
            s += inner;
        }
        bench_sink(s);
    }
    double t = bench_now() - t0;
    return bench_report_i64(t, s == isolate_serial(n, m), (int64_t)(s & INT64_MAX), -1);
}
