/* pipe-merino.c — the pipeline workload with merino_pipeline (C): read and write serial in order,
 * the transform parallel, at most `tokens` blocks in flight (pipe.h). */
#include <bench.h> /* first: it sets _GNU_SOURCE */
#include "pipe.h"
#include <merino_algorithm.h>

typedef struct run {
    const pipe_args *a;
    long next;    /* the read's next block */
    uint64_t sum; /* the write's checksum */
} run;

static void *read_stage(void *item, void *ctx) {
    (void)item;
    run *r = ctx;
    return r->next < r->a->blocks ? pipe_read(r->a, r->next++) : NULL;
}

static void *transform_stage(void *item, void *ctx) {
    pipe_transform(((run *)ctx)->a, item);
    return item;
}

static void *write_stage(void *item, void *ctx) {
    run *r = ctx;
    pipe_write(r->a, &r->sum, item);
    return r; /* not NULL: the block went through */
}

int main(int argc, char **argv) {
    pipe_args a;
    if (pipe_parse(argc, argv, &a)) return 2;
    merino_config cfg = {0};
    cfg.workers = (unsigned)a.workers;
    if (merino_start(&cfg) != 0) return 2;
    run r = {&a, 0, 0};
    const merino_stage stages[] = {{MERINO_FILTER_SERIAL_IN_ORDER, read_stage, &r},
                                   {MERINO_FILTER_PARALLEL, transform_stage, &r},
                                   {MERINO_FILTER_SERIAL_IN_ORDER, write_stage, &r}};
    double t0 = bench_now();
    for (int rep = 0; rep < a.reps; rep++) {
        r.next = 0;
        r.sum = 0xcbf29ce484222325ULL;
        merino_pipeline((size_t)a.tokens, stages, 3);
    }
    double t1 = bench_now();
    BENCH_MERINO_STATS();
    merino_stop();
    return bench_report_i64(t1 - t0, r.sum == pipe_expected(&a), (int64_t)r.sum, 0);
}
