/* pipe-serial.c — the pipeline workload as a serial loop: read, transform, write each block in
 * turn (pipe.h). */
#include <bench.h> /* first: it sets _GNU_SOURCE */
#include "pipe.h"

int main(int argc, char **argv) {
    pipe_args a;
    if (pipe_parse(argc, argv, &a)) return 2;
    uint64_t sum = 0;
    double t0 = bench_now();
    for (int r = 0; r < a.reps; r++) {
        sum = 0xcbf29ce484222325ULL;
        for (long i = 0; i < a.blocks; i++) {
            pipe_block *b = pipe_read(&a, i);
            pipe_transform(&a, b);
            pipe_write(&a, &sum, b);
        }
    }
    double t1 = bench_now();
    return bench_report_i64(t1 - t0, sum == pipe_expected(&a), (int64_t)sum, 0);
}
