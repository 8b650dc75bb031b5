// emptyfor-tbb.cpp — the empty-body loop with oneTBB's parallel_for: a grain with
// simple_partitioner (blocked_range(0, n, grain): the TBB paper's Figure 7), auto with
// auto_partitioner. See emptyfor-serial.c.
#include <bench.h> // first: it sets _GNU_SOURCE
#include "emptyfor.h"

#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>
#include <tbb/task_arena.h>

int main(int argc, char **argv) {
    emptyfor_args a;
    if (emptyfor_parse(argc, argv, &a)) return 2;
    tbb::global_control gc(tbb::global_control::max_allowed_parallelism, static_cast<size_t>(a.workers));
    auto body = [](const tbb::blocked_range<long> &r) {
        emptyfor_range(r.begin(), r.end(), static_cast<unsigned>(tbb::this_task_arena::current_thread_index()));
    };
    double t0 = bench_now();
    for (int r = 0; r < a.reps; r++) {
        if (a.grain)
            tbb::parallel_for(tbb::blocked_range<long>(0, a.n, static_cast<size_t>(a.grain)), body,
                              tbb::simple_partitioner());
        else
            tbb::parallel_for(tbb::blocked_range<long>(0, a.n), body, tbb::auto_partitioner());
    }
    double t1 = bench_now();
    uint64_t total;
    int ok = emptyfor_check(a.n, a.reps, &total);
    return bench_report_i64(t1 - t0, ok, static_cast<int64_t>(total), -1);
}
