// pipe-tbb.cpp — the pipeline workload with oneTBB's parallel_pipeline: read and write serial in
// order, the transform parallel, at most `tokens` blocks in flight (pipe.h).
#include <bench.h> // first: it sets _GNU_SOURCE
#include "pipe.h"
#include <tbb/parallel_pipeline.h>
#include "bench_tbb.h"

int main(int argc, char **argv) {
    pipe_args a;
    if (pipe_parse(argc, argv, &a)) return 2;
    uint64_t sum = 0;
    double t0, t1;
    {
        bench_tbb_arena arena(a.workers);
        t0 = bench_now();
        arena.execute([&] {
            for (int rep = 0; rep < a.reps; rep++) {
                long next = 0;
                sum = 0xcbf29ce484222325ULL;
                tbb::parallel_pipeline(
                    static_cast<std::size_t>(a.tokens),
                    tbb::make_filter<void, pipe_block *>(tbb::filter_mode::serial_in_order,
                                                         [&](tbb::flow_control &fc) -> pipe_block * {
                                                             if (next == a.blocks) {
                                                                 fc.stop();
                                                                 return nullptr;
                                                             }
                                                             return pipe_read(&a, next++);
                                                         }) &
                        tbb::make_filter<pipe_block *, pipe_block *>(tbb::filter_mode::parallel,
                                                                     [&](pipe_block *b) {
                                                                         pipe_transform(&a, b);
                                                                         return b;
                                                                     }) &
                        tbb::make_filter<pipe_block *, void>(tbb::filter_mode::serial_in_order,
                                                             [&](pipe_block *b) { pipe_write(&a, &sum, b); }));
            }
        });
        t1 = bench_now();
    }
    return bench_report_i64(t1 - t0, sum == pipe_expected(&a), static_cast<int64_t>(sum), 0);
}
