/* dag, OpenMP: ./dag-omp-{gcc,clang} --workers N [--reps R] shape size block_us
 * One thread creates a task per block in index order (a topological order) with depend(out) on the
 * block's token and depend(in) on its predecessors' (up to 4; missing ones name a token nobody
 * writes). */
#include <omp.h>
#include <stdlib.h>

#include "bench.h"
#include "dag.h"

int main(int argc, char **argv) {
    dag d;
    int workers, reps;
    dag_setup(argc, argv, &d, &workers, &reps);
    omp_set_dynamic(0);
    omp_set_num_threads(workers);
    char *tok = malloc((size_t)d.n + 1); /* tok[n]: the token of missing predecessors */
    if (!tok) return 2;
    double t0 = bench_now();
    for (int r = 0; r < reps; r++) {
#pragma omp parallel
#pragma omp single
        for (int x = 0; x < d.n; x++) {
            int p[DAG_MAX_PRED];
            for (int i = 0; i < DAG_MAX_PRED; i++) p[i] = i < d.npred[x] ? d.pred[x][i] : d.n;
#pragma omp task firstprivate(x) depend(in : tok[p[0]], tok[p[1]], tok[p[2]], tok[p[3]]) depend(out : tok[x])
            dag_node(&d, x);
        }
    }
    double t = bench_now() - t0;
    free(tok);
    int64_t result;
    int ok = dag_check(&d, &result);
    return bench_report_i64(t, ok, result, (int64_t)d.n * reps);
}
