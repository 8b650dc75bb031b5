// knary, oneTBB: ./knary-tbb --workers N [--reps R] h d s [iters]   (tbb::task_group per node)
#include <tbb/task_group.h>
#include "bench_tbb.h"

#include "knary.h"

static long kn(int h) {
    bench_spin(kn_iters);
    long n = 1;
    if (h == 1) return n;
    int i = 0;
    for (; i < kn_s; i++) n += kn(h - 1);
    if (i == kn_d) return n;
    long part[64];
    int k = 0;
    tbb::task_group g;
    for (; i < kn_d - 1; i++, k++) {
        long *slot = &part[k];
        g.run([=] { *slot = kn(h - 1); });
    }
    n += kn(h - 1);
    if (k > 0) g.wait();
    for (int j = 0; j < k; j++) n += part[j];
    return n;
}

int main(int argc, char **argv) {
    const char *p[4];
    int workers, reps, h;
    int np = bench_args(argc, argv, &workers, &reps, p, 4);
    KNARY_PARAMS(p, np, h);
    bench_tbb_arena arena(workers);
    long r = 0;
    double t0 = bench_now();
    arena.execute([&] {
        for (int i = 0; i < reps; i++) {
            r = kn(h);
            bench_sink(r);
        }
    });
    double t = bench_now() - t0;
    return bench_report_i64(t, r == kn_nodes(h), r, kn_tasks(h) * reps);
}
