/* emptyfor-serial.c — the TBB paper's empty-body parallel_for (Kukanov & Voss, Figure 7): n
 * iterations whose body does nothing (an empty asm the compiler keeps: about a cycle each), split
 * with a grain size (1, 100, 10^4, 10^7) or the automatic partitioner; what is measured is the cost
 * of splitting and scheduling alone. Params: n grain|auto [schedule]: merino gives the grain to
 * `schedule` (default adaptive: lazy splitting, never below the grain; auto: merino's default),
 * oneTBB to simple_partitioner (blocked_range grain), auto to auto_partitioner. The serial version
 * runs the n iterations in one call. Result: the iterations counted, which must be n x reps. */
#include <bench.h> /* first: it sets _GNU_SOURCE */
#include "emptyfor.h"

int main(int argc, char **argv) {
    emptyfor_args a;
    if (emptyfor_parse(argc, argv, &a)) return 2;
    double t0 = bench_now();
    for (int r = 0; r < a.reps; r++) emptyfor_range(0, a.n, 0);
    double t1 = bench_now();
    uint64_t total;
    int ok = emptyfor_check(a.n, a.reps, &total);
    return bench_report_i64(t1 - t0, ok, (int64_t)total, -1);
}
