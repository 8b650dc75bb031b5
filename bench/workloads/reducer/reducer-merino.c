/* reducer, merino C: ./reducer-merino --workers N [--reps R] shape n [variant]   (see reducer.h):
 * the C reducer (merino_hyper) over a linked list whose views are (head, tail) pairs; the loop is
 * merino_for (default schedule), the tree C tasks (MERINO_SPAWN fib(n-2), call fib(n-1): in serial
 * order the spawned task comes at its join). Only the reducer variant. */
#include "bench.h"
#include "reducer.h"

#include <merino.h>
#include <merino_loop.h>
#include <merino_reducer.h>

static void list_identity(void *view, void *ctx) {
    (void)ctx;
    reducer_list *l = view;
    l->head = NULL;
    l->tail = &l->head;
}
static void list_append_all(void *left, void *right, void *ctx) {
    (void)ctx;
    reducer_list *l = left, *r = right;
    if (!r->head) return;
    *l->tail = r->head;
    l->tail = r->tail;
}
static const merino_hyper_ops list_ops = {sizeof(reducer_list), 0, list_identity, list_append_all, NULL};

static void append(merino_hyper *h, uint64_t v) { reducer_list_push(merino_hyper_view(h), v); }

static void loop_body(int64_t lo, int64_t hi, void *ctx) {
    for (int64_t i = lo; i < hi; i++) append(ctx, (uint64_t)i);
}

MERINO_VOID_TASK_3(fib, merino_hyper *, h, int, n, uint64_t, depth) {
    if (n < 2) {
        append(h, depth * 2 + (uint64_t)n);
        return;
    }
    MERINO_SPAWN(fib, h, n - 2, depth + 1); /* serially at its join: after fib(n - 1) */
    MERINO_CALL(fib, h, n - 1, depth + 1);
    MERINO_JOIN(fib);
}

int main(int argc, char **argv) {
    const char *p[3];
    int workers, reps;
    int np = bench_args(argc, argv, &workers, &reps, p, 3);
    if (np < 2 || reducer_shape(p[0]) < 0) bench_usage_exit(argv[0], "loop|fib n [reducer]");
    int shape = reducer_shape(p[0]);
    long n = bench_param_long(p, np, 1, 1000);
    reducer_digest want = reducer_expected(shape, n), got = reducer_digest_new();
    merino_config cfg = {0};
    cfg.workers = (unsigned)workers;
    if (merino_start(&cfg) != 0) return 2;
    double t = 0;
    for (int r = 0; r < reps; r++) {
        merino_hyper *h = merino_hyper_new(&list_ops, NULL);
        double t0 = bench_now();
        if (shape == REDUCER_LOOP)
            merino_for(0, n, loop_body, h, NULL);
        else
            MERINO_RUN(fib, h, (int)n, 0);
        reducer_list *all = merino_hyper_get(h);
        t += bench_now() - t0;
        got = reducer_list_digest(all); /* not timed: the check and the free */
        merino_hyper_free(h);
    }
    merino_stop();
    return bench_report_i64(t, reducer_ok(VARIANT_REDUCER, &got, &want), (int64_t)got.count, -1);
}
