// idle, oneTBB: ./idle-tbb --workers N period_us region_us seconds (idle.h). A region is an
// arena.execute of a parallel_for over N indices with grain 1 (simple_partitioner): one task each.
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <memory>

#include "idle.h"

static std::unique_ptr<tbb::global_control> gc;
static std::unique_ptr<tbb::task_arena> arena;

static void start(int workers) {
    gc = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism, (size_t)workers);
    arena = std::make_unique<tbb::task_arena>(workers);
    arena->initialize();
}

static void region(int n) {
    arena->execute([n] { tbb::parallel_for(0, n, 1, [](int) { idle_task(); }, tbb::simple_partitioner()); });
}

int main(int argc, char **argv) { return idle_main(argc, argv, start, region); }
