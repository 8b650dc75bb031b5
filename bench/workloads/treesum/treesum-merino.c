/* treesum, merino: ./treesum-merino --workers N [--reps R] nodes cutoff phase variant
 * Task objects (merino_graph.h): plain, or cbr (continuation passing, bypass, recycling). */
#include <merino.h>
#include <merino_graph.h>

#include "bench.h"
#include "treesum.h"

static long cutoff;

/* ---- building: a task builds the subtree (n, first) into *out ---- */

typedef struct build_args {
    long n, first;
    tnode **out;
} build_args;

static merino_task *build_plain(merino_task *self);
static merino_task *build_cbr(merino_task *self);

/* A node for the subtree's root, and the child task for its right subtree (of parent). */
static tnode *build_split(build_args *a, merino_task *parent, merino_task_fn *fn, merino_task **right) {
    tnode *t = malloc(sizeof *t);
    if (!t) abort();
    long nl = (a->n - 1) / 2;
    t->value = (double)(a->first % 8);
    *a->out = t;
    *right = merino_task_alloc_child(parent, fn, sizeof(build_args));
    *(build_args *)merino_task_data(*right) = (build_args){a->n - 1 - nl, a->first + 1 + nl, &t->right};
    return t;
}

static merino_task *build_plain(merino_task *self) {
    build_args *a = merino_task_data(self);
    if (a->n < cutoff) {
        *a->out = ts_build_serial(a->n, a->first);
        return NULL;
    }
    merino_task *right;
    tnode *t = build_split(a, self, build_plain, &right);
    merino_task *left = merino_task_alloc_child(self, build_plain, sizeof(build_args));
    *(build_args *)merino_task_data(left) = (build_args){(a->n - 1) / 2, a->first + 1, &t->left};
    merino_task_set_ref_count(self, 3);
    merino_task_spawn(right);
    merino_task_spawn_and_wait_for_all(self, left);
    return NULL;
}

static merino_task *nothing(merino_task *self) {
    (void)self;
    return NULL;
}

static merino_task *build_cbr(merino_task *self) {
    build_args *a = merino_task_data(self);
    if (a->n < cutoff) {
        *a->out = ts_build_serial(a->n, a->first);
        return NULL;
    }
    merino_task *k = merino_task_alloc_continuation(self, nothing, 0); /* waits for nothing to do */
    merino_task_set_ref_count(k, 2);
    merino_task *right;
    tnode *t = build_split(a, k, build_cbr, &right);
    merino_task_recycle_as_child_of(self, k); /* self builds the left subtree */
    *a = (build_args){(a->n - 1) / 2, a->first + 1, &t->left};
    merino_task_spawn(right);
    return self;
}

/* ---- summing: a task sums the subtree t into *out ---- */

typedef struct sum_args {
    const tnode *t;
    long n; /* the subtree's size, as built */
    double *out;
} sum_args;

typedef struct sum_cont {
    double l, r, value, *out;
} sum_cont;

static merino_task *sum_plain(merino_task *self) {
    sum_args *a = merino_task_data(self);
    if (a->n < cutoff) {
        *a->out = ts_sum_serial(a->t);
        return NULL;
    }
    double l, r;
    merino_task *cl = merino_task_alloc_child(self, sum_plain, sizeof(sum_args));
    merino_task *cr = merino_task_alloc_child(self, sum_plain, sizeof(sum_args));
    long nl = (a->n - 1) / 2;
    *(sum_args *)merino_task_data(cl) = (sum_args){a->t->left, nl, &l};
    *(sum_args *)merino_task_data(cr) = (sum_args){a->t->right, a->n - 1 - nl, &r};
    merino_task_set_ref_count(self, 3);
    merino_task_spawn(cr);
    merino_task_spawn_and_wait_for_all(self, cl);
    *a->out = a->t->value + l + r;
    return NULL;
}

static merino_task *sum_add(merino_task *self) {
    sum_cont *c = merino_task_data(self);
    *c->out = c->value + c->l + c->r;
    return NULL;
}

static merino_task *sum_cbr(merino_task *self) {
    sum_args *a = merino_task_data(self);
    if (a->n < cutoff) {
        *a->out = ts_sum_serial(a->t);
        return NULL;
    }
    merino_task *k = merino_task_alloc_continuation(self, sum_add, sizeof(sum_cont));
    sum_cont *c = merino_task_data(k);
    *c = (sum_cont){0, 0, a->t->value, a->out};
    merino_task_set_ref_count(k, 2);
    merino_task *cr = merino_task_alloc_child(k, sum_cbr, sizeof(sum_args));
    long nl = (a->n - 1) / 2;
    *(sum_args *)merino_task_data(cr) = (sum_args){a->t->right, a->n - 1 - nl, &c->r};
    merino_task_recycle_as_child_of(self, k);
    *a = (sum_args){a->t->left, nl, &c->l};
    merino_task_spawn(cr);
    return self;
}

MERINO_TASK_4(double, treesum_reps, long, n, int, reps, int, variant, double *, t) {
    double sum = 0;
    for (int r = 0; r < reps; r++) {
        tnode *root = NULL;
        double t0 = bench_now();
        merino_task *b = merino_task_alloc_root(variant ? build_cbr : build_plain, sizeof(build_args));
        *(build_args *)merino_task_data(b) = (build_args){n, 0, &root};
        merino_task_spawn_root_and_wait(b);
        double t1 = bench_now();
        merino_task *s = merino_task_alloc_root(variant ? sum_cbr : sum_plain, sizeof(sum_args));
        *(sum_args *)merino_task_data(s) = (sum_args){root, n, &sum};
        merino_task_spawn_root_and_wait(s);
        t[TS_ALLOC] += t1 - t0;
        t[TS_SUM] += bench_now() - t1;
        ts_free(root);
    }
    return sum;
}

int main(int argc, char **argv) {
    int workers, reps, phase, variant;
    long n;
    ts_args(argc, argv, &workers, &reps, &n, &cutoff, &phase, &variant);
    merino_config cfg = {0};
    cfg.workers = (unsigned)workers;
    if (merino_start(&cfg) != 0) return 2;
    double t[2] = {0, 0};
    double sum = MERINO_RUN(treesum_reps, n, reps, variant, t);
    BENCH_MERINO_STATS();
    merino_stop();
    return bench_report_i64(t[phase], sum == ts_expected(n), (int64_t)sum, -1);
}
