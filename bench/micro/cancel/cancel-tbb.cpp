// cancel, oneTBB: ./cancel-tbb --workers N [--reps R] tasks task_us at
// A tbb::task_group of `tasks` lambdas, run from the arena; lambda number `at` cancels it.
#include <tbb/global_control.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include <atomic>

#include "bench.h"
#include "cancel.h"

int main(int argc, char **argv) {
    int workers, reps;
    long tasks, at;
    uint64_t iters;
    cancel_args(argc, argv, &workers, &reps, &tasks, &iters, &at);
    tbb::global_control gc(tbb::global_control::max_allowed_parallelism, (size_t)workers);
    tbb::task_arena arena(workers);
    std::atomic<long> ran{0};
    double total = 0;
    arena.execute([&] {
        for (int r = 0; r < reps; r++) {
            ran.store(0, std::memory_order_relaxed);
            tbb::task_group g;
            double cancelled_at = 0;
            for (long i = 0; i < tasks; i++)
                g.run([&, i] {
                    ran.fetch_add(1, std::memory_order_relaxed);
                    if (i == at) {
                        cancelled_at = bench_now();
                        g.cancel();
                        return;
                    }
                    bench_sink(bench_chain((uint64_t)i, iters));
                });
            g.wait();
            total += bench_now() - cancelled_at;
        }
    });
    long n = ran.load();
    return bench_report_i64(total, n > at && n < tasks, n, (int64_t)tasks * reps);
}
