/* merino_reducer.h from C: a string reducer (concatenation: not commutative) over random C task
 * trees (MERINO_SPAWN / MERINO_CALL / MERINO_JOIN; the spawned task comes at its join in serial
 * order) and merino_for loops, against the serial program byte for byte, at 1, 2, 3 and 8 workers;
 * the reducer's own view outside the pool; bad ops stop the program with one line. */
#include "algo_check.h"

#include <merino.h>
#include <merino_loop.h>
#include <merino_reducer.h>

typedef struct text {
    char *s;
    size_t n, cap;
} text;

static void text_put(text *t, const char *s) {
    size_t k = strlen(s);
    if (t->n + k + 1 > t->cap) {
        t->cap = (t->n + k + 1) * 2;
        t->s = realloc(t->s, t->cap);
        CHECK(t->s != NULL);
    }
    memcpy(t->s + t->n, s, k + 1);
    t->n += k;
}
static void text_identity(void *v, void *ctx) {
    (void)ctx;
    *(text *)v = (text){NULL, 0, 0};
    text_put(v, "");
}
static void text_reduce(void *l, void *r, void *ctx) {
    (void)ctx;
    text_put(l, ((text *)r)->s);
}
static void text_destroy(void *v, void *ctx) {
    (void)ctx;
    free(((text *)v)->s);
}
static const merino_hyper_ops text_ops = {sizeof(text), 0, text_identity, text_reduce, text_destroy};

static void put(merino_hyper *h, text *serial, uint64_t tok) {
    char b[24];
    snprintf(b, sizeof b, "%llu,", (unsigned long long)tok);
    text_put(h ? merino_hyper_view(h) : serial, b);
}

/* A tree from a seed: node s has 0-3 children; the first is spawned, the rest called. */
static unsigned kids(uint64_t s) { return (unsigned)((s >> 17) % 4); }
static uint64_t kid(uint64_t s, unsigned i) { return s * 6364136223846793005ull + 1442695040888963407ull * (i + 1); }

static void serial_tree(text *out, uint64_t s, int depth) {
    put(NULL, out, s % 1000);
    if (depth == 0) return;
    unsigned k = kids(s);
    if (k == 0) return;
    for (unsigned i = 1; i < k; i++) serial_tree(out, kid(s, i), depth - 1); /* the calls */
    put(NULL, out, s % 1000 + 1);
    serial_tree(out, kid(s, 0), depth - 1); /* the spawned one, at its join */
    put(NULL, out, s % 1000 + 2);
}

MERINO_VOID_TASK_3(tree, merino_hyper *, h, uint64_t, s, int, depth) {
    put(h, NULL, s % 1000);
    if (depth == 0) return;
    unsigned k = kids(s);
    if (k == 0) return;
    MERINO_SPAWN(tree, h, kid(s, 0), depth - 1);
    for (unsigned i = 1; i < k; i++) MERINO_CALL(tree, h, kid(s, i), depth - 1);
    put(h, NULL, s % 1000 + 1);
    for (volatile int i = 0; i < (int)(s % 2000); i = i + 1) {
    }
    MERINO_JOIN(tree);
    put(h, NULL, s % 1000 + 2);
}

static void loop_body(int64_t lo, int64_t hi, void *ctx) {
    for (int64_t i = lo; i < hi; i++) put(ctx, NULL, (uint64_t)i);
}

static int run_child(const char *name) {
    merino_hyper_ops ops = text_ops;
    if (strcmp(name, "size0") == 0) ops.size = 0;
    if (strcmp(name, "align3") == 0) ops.align = 3;
    if (strcmp(name, "noreduce") == 0) ops.reduce = NULL;
    (void)merino_hyper_new(&ops, NULL);
    return 0;
}

int main(int argc, char **argv) {
    const char *child = check_child_name(argc, argv);
    if (child) return run_child(child);
    uint64_t seed = algo_seed("test_reducer_c");
    for (int w = 0; w < ALGO_WORKER_COUNTS; w++) {
        merino_config cfg = {0};
        cfg.workers = algo_workers[w];
        CHECK(merino_start(&cfg) == 0);
        for (int i = 0; i < 300; i++) {
            check_set_context("workers=%u tree=%d", algo_workers[w], i);
            uint64_t s = seed + (uint64_t)i * 977 + w;
            text want = {0};
            text_put(&want, "<");
            serial_tree(&want, s, 7);
            for (int64_t k = 0; k < 3000; k++) put(NULL, &want, (uint64_t)k);
            text_put(&want, ">");
            merino_hyper *h = merino_hyper_new(&text_ops, NULL);
            text_put(merino_hyper_view(h), "<"); /* outside the pool: the reducer's own view */
            MERINO_RUN(tree, h, s, 7);
            merino_for(0, 3000, loop_body, h, NULL);
            text_put(merino_hyper_view(h), ">");
            CHECK_STR_EQ(((text *)merino_hyper_get(h))->s, want.s);
            merino_hyper_free(h);
            free(want.s);
        }
        merino_stop();
    }
    static const char *const names[] = {"size0", "align3", "noreduce"};
    static const char *const says[] = {"incomplete", "power of two", "incomplete"};
    algo_check_messages("merino: merino_hyper_new", names, says, 3);
    printf("ok\n");
    return 0;
}
