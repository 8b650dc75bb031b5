// loops-tbb.cpp — the loops workload with oneTBB's parallel_for; the third param is the
// partitioner: auto (auto_partitioner, the default), simple (simple_partitioner, grain 1) or
// affinity (affinity_partitioner, kept across repetitions). See loops-serial.c.
#include <bench.h> // first: it sets _GNU_SOURCE
#include "loops.h"

#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

int main(int argc, char **argv) {
    loops_args a;
    if (loops_parse(argc, argv, &a)) return 2;
    int kind = std::strcmp(a.schedule, "auto") == 0 ? 0 : std::strcmp(a.schedule, "simple") == 0 ? 1
             : std::strcmp(a.schedule, "affinity") == 0 ? 2 : -1;
    if (kind < 0) {
        std::fprintf(stderr, "loops-tbb: partitioner '%s': use auto, simple or affinity\n", a.schedule);
        return 2;
    }
    unsigned char *states = loops_states(a.dist, a.n);
    double *out = static_cast<double *>(std::malloc(sizeof(double) * static_cast<size_t>(a.n)));
    if (!out) return 2;
    tbb::global_control gc(tbb::global_control::max_allowed_parallelism, static_cast<size_t>(a.workers));
    tbb::affinity_partitioner affinity;
    auto body = [&](const tbb::blocked_range<long> &r) { loops_range(states, out, r.begin(), r.end()); };

    double t0 = bench_now();
    for (int r = 0; r < a.reps; r++) {
        if (kind == 0)
            tbb::parallel_for(tbb::blocked_range<long>(0, a.n), body, tbb::auto_partitioner());
        else if (kind == 1)
            tbb::parallel_for(tbb::blocked_range<long>(0, a.n, 1), body, tbb::simple_partitioner());
        else
            tbb::parallel_for(tbb::blocked_range<long>(0, a.n), body, affinity);
    }
    double t1 = bench_now();

    double sum;
    int ok = loops_check(states, out, a.n, &sum);
    return bench_report_f64(t1 - t0, ok, sum, -1);
}
