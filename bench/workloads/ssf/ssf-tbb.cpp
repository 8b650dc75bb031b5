// ssf-tbb.cpp — sub-string finder with oneTBB: tbb::parallel_for over the positions (default
// auto_partitioner, grain 1), as in TBB's own sub_string_finder example, inside one task_arena of
// --workers slots. See ssf-serial.c.
#include <bench.h> /* first: it sets _GNU_SOURCE */
#include "ssf.h"
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include "bench_tbb.h"

int main(int argc, char **argv) {
    ssf_args a;
    if (ssf_parse(argc, argv, &a)) return 2;
    ssf_problem p;
    ssf_init(a.n, &p);
    double t0, t1;
    {
        bench_tbb_arena arena(a.workers);
        ssf_problem *pp = &p;
        const long len = p.len, reps = a.reps;
        const int outer = a.outer;
        t0 = bench_now();
        arena.execute([=] {
            for (int o = 0; o < outer; o++)
                for (long r = 0; r < reps; r++)
                    tbb::parallel_for(tbb::blocked_range<long>(0, len),
                                      [=](const tbb::blocked_range<long> &rg) {
                                          for (long i = rg.begin(); i != rg.end(); ++i)
                                              ssf_position(pp, i);
                                      });
        });
        t1 = bench_now();
    }
    long long sum;
    int ok = ssf_verify(&p, a.n, &sum);
    ssf_free(&p);
    return bench_report_i64(t1 - t0, ok, sum, -1);
}
