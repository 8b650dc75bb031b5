// nqueens, oneTBB: ./nqueens-tbb --workers N [--reps R] n   (tbb::task_group per node)
#include <tbb/task_group.h>
#include "bench_tbb.h"

#include "nqueens.h"

static long nq(unsigned cols, unsigned ld, unsigned rd) {
    if (cols == nq_all) return 1;
    unsigned avail = nq_all & ~(cols | ld | rd);
    if (!avail) return 0;
    long part[32];
    int k = 0;
    long c = 0;
    tbb::task_group g;
    while (avail) {
        unsigned bit = avail & (0u - avail);
        avail -= bit;
        if (!avail) {
            c = nq(cols | bit, (ld | bit) << 1, (rd | bit) >> 1);
            break;
        }
        long *slot = &part[k++];
        g.run([=] { *slot = nq(cols | bit, (ld | bit) << 1, (rd | bit) >> 1); });
    }
    if (k > 0) g.wait();
    for (int i = 0; i < k; i++) c += part[i];
    return c;
}

int main(int argc, char **argv) {
    const char *p[1];
    int workers, reps, n;
    int np = bench_args(argc, argv, &workers, &reps, p, 1);
    NQ_PARAMS(p, np, n);
    bench_tbb_arena arena(workers);
    long r = 0;
    double t0 = bench_now();
    arena.execute([&] {
        for (int i = 0; i < reps; i++) {
            r = nq(0, 0, 0);
            bench_sink(r);
        }
    });
    double t = bench_now() - t0;
    int64_t tasks = nq_tasks(n);
    return bench_report_i64(t, r == nq_expected(n), r, tasks < 0 ? -1 : tasks * reps);
}
