/* dag, serial: ./dag-serial [--workers N] [--reps R] shape size block_us   (nodes in index order) */
#include "bench.h"
#include "dag.h"

int main(int argc, char **argv) {
    dag d;
    int workers, reps;
    dag_setup(argc, argv, &d, &workers, &reps);
    double t0 = bench_now();
    for (int r = 0; r < reps; r++) dag_serial(&d);
    double t = bench_now() - t0;
    int64_t result;
    int ok = dag_check(&d, &result);
    return bench_report_i64(t, ok, result, (int64_t)d.n * reps);
}
