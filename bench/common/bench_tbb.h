// bench_tbb.h — the setting of the oneTBB versions (<f>-tbb.cpp) that run their kernel in an arena:
// at most `workers` threads (global_control) and one task_arena of `workers` slots, its worker
// threads started before the timing; the kernel runs in it with arena.execute(f).
#ifndef BENCH_TBB_H
#define BENCH_TBB_H

#include <tbb/global_control.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include <utility>

struct bench_tbb_arena {
    tbb::global_control gc;
    tbb::task_arena arena;

    explicit bench_tbb_arena(int workers)
        : gc(tbb::global_control::max_allowed_parallelism, static_cast<size_t>(workers)), arena(workers) {
        arena.initialize();
        arena.execute([] { tbb::task_group g; g.run([] {}); g.wait(); }); // start the workers
    }
    template <class F> void execute(F &&f) { arena.execute(std::forward<F>(f)); }
};

#endif
