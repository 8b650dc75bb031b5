// pipe-merino-cxx.cpp — the pipeline workload with merino::parallel_pipeline (C++): read and write
// serial in order, the transform parallel, at most `tokens` blocks in flight (pipe.h).
#include <bench.h> // first: it sets _GNU_SOURCE
#include "pipe.h"
#include <merino_algorithm.hpp>

int main(int argc, char **argv) {
    pipe_args a;
    if (pipe_parse(argc, argv, &a)) return 2;
    merino_config cfg{};
    cfg.workers = static_cast<unsigned>(a.workers);
    if (merino_start(&cfg) != 0) return 2;
    uint64_t sum = 0;
    double t0 = bench_now();
    for (int rep = 0; rep < a.reps; rep++) {
        long next = 0;
        sum = 0xcbf29ce484222325ULL;
        merino::parallel_pipeline(
            static_cast<std::size_t>(a.tokens),
            merino::make_filter<void, pipe_block *>(merino::filter_mode::serial_in_order,
                                                    [&](merino::flow_control &fc) -> pipe_block * {
                                                        if (next == a.blocks) {
                                                            fc.stop();
                                                            return nullptr;
                                                        }
                                                        return pipe_read(&a, next++);
                                                    }) &
                merino::make_filter<pipe_block *, pipe_block *>(merino::filter_mode::parallel,
                                                                [&](pipe_block *b) {
                                                                    pipe_transform(&a, b);
                                                                    return b;
                                                                }) &
                merino::make_filter<pipe_block *, void>(merino::filter_mode::serial_in_order,
                                                        [&](pipe_block *b) { pipe_write(&a, &sum, b); }));
    }
    double t1 = bench_now();
    merino_stop();
    return bench_report_i64(t1 - t0, sum == pipe_expected(&a), static_cast<int64_t>(sum), 0);
}
