// mm-tbb.cpp — dense matrix multiply with oneTBB: tbb::parallel_for over the rows (default
// auto_partitioner, grain 1), inside one task_arena of --workers slots. See mm-serial.c.
#include <bench.h> /* first: it sets _GNU_SOURCE */
#include "mm.h"
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include "bench_tbb.h"

int main(int argc, char **argv) {
    mm_args a;
    if (mm_parse(argc, argv, &a)) return 2;
    double *A, *B, *C;
    mm_init(a.n, &A, &B, &C);
    double t0, t1;
    {
        bench_tbb_arena arena(a.workers);
        const long n = a.n, reps = a.reps;
        const int outer = a.outer;
        t0 = bench_now();
        arena.execute([=] {
            for (int o = 0; o < outer; o++)
                for (long r = 0; r < reps; r++)
                    tbb::parallel_for(tbb::blocked_range<long>(0, n),
                                      [=](const tbb::blocked_range<long> &rg) {
                                          for (long i = rg.begin(); i != rg.end(); ++i)
                                              mm_row(A, B, C, n, i);
                                      });
        });
        t1 = bench_now();
    }
    double sum;
    int ok = mm_verify(A, B, C, a.n, &sum);
    mm_free(A, B, C);
    return bench_report_f64(t1 - t0, ok, sum, -1);
}
