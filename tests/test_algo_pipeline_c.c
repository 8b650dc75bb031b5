/* test_algo_pipeline_c.c — merino_pipeline, the engine under merino::parallel_pipeline: at 1, 2, 3
 * and 8 workers and 1 to 64 tokens, a random chain of stages in every mode over malloc'ed items:
 * every item reaches the end exactly once; a serial in-order stage sees the items in the order the
 * first stage made them (dropped ones too: they keep their turn); a serial stage never runs two
 * items at once; never more than max_tokens items exist; stages that drop items (return NULL); an
 * empty input; a parallel first stage; parallel stages that do overlap when there are workers and
 * tokens for it (the read-ahead of a serial first stage); bad arguments stop the program with a
 * message (child processes). Random choices print their seed (MERINO_TEST_SEED replays them). */
#include "algo_check.h"

#include <merino_algorithm.h>

#include <sched.h>
#include <stdbool.h>
#include <time.h>

static uint64_t rng_state;
static uint64_t rnd(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

#define MAX_STAGES 6

typedef struct item {
    uint64_t seq;   /* the order the first stage made it in */
    uint64_t value; /* each stage folds its index in: value = value * 31 + stage */
} item;

/* One run. Every counter is atomic (relaxed: the test reads them after the pipeline has returned,
 * which orders them; the in-flight maximum is a counter of its own). */
typedef struct run {
    uint64_t n;           /* items the first stage makes */
    uint64_t made;        /* the first stage's calls that made an item */
    uint64_t drop_every;  /* stage `drop_at` drops items whose seq % drop_every == 1 (0: none) */
    size_t drop_at;
    size_t count;         /* stages */
    int live, max_live;   /* items that exist, and the most at once */
    int busy[MAX_STAGES]; /* items inside each serial stage */
    int overlap;          /* a serial stage ran two items at once */
    int order_bad;        /* an in-order stage saw an item out of order */
    uint64_t last_seq[MAX_STAGES]; /* in-order stages: 1 + the last seq seen */
    int in_par, max_par;  /* items inside parallel stages at once, and the most */
    int sleepy;           /* parallel stages sleep a little */
    int ordered;          /* the first stage is serial: its calls, in order, give the items' order */
    uint64_t *reached;    /* per seq: times it left the last stage */
    uint64_t *values;     /* per seq: its value at the end */
    merino_stage stages[MAX_STAGES];
} run;

typedef struct stage_ctx {
    run *r;
    size_t index;
} stage_ctx;

static void note_max(int *max, int v) {
    int m = __atomic_load_n(max, __ATOMIC_RELAXED);
    /* relaxed: a statistic read after the join */
    while (v > m && !__atomic_compare_exchange_n(max, &m, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
}

/* Sleeps 20 to 60 us, by the item (rnd() is the main thread's). */
static void nap(uint64_t seq) {
    struct timespec ts = {0, 20000 + (long)(seq * 7919 % 40000)};
    nanosleep(&ts, NULL);
}

static void *stage_fn(void *p, void *c) {
    stage_ctx *sc = c;
    run *r = sc->r;
    merino_filter_mode mode = r->stages[sc->index].mode;
    bool serial = mode != MERINO_FILTER_PARALLEL;
    if (serial && __atomic_fetch_add(&r->busy[sc->index], 1, __ATOMIC_RELAXED) != 0)
        __atomic_store_n(&r->overlap, 1, __ATOMIC_RELAXED);
    if (!serial) note_max(&r->max_par, __atomic_add_fetch(&r->in_par, 1, __ATOMIC_RELAXED));
    item *it = p;
    if (sc->index == 0) {
        /* the first stage: make the next item, or NULL at the end */
        uint64_t k = __atomic_fetch_add(&r->made, 1, __ATOMIC_RELAXED);
        if (k < r->n) {
            it = malloc(sizeof *it);
            CHECK(it != NULL);
            it->seq = k;
            it->value = 0;
            note_max(&r->max_live, __atomic_add_fetch(&r->live, 1, __ATOMIC_RELAXED));
        } else {
            it = NULL;
        }
    } else {
        CHECK(it != NULL);
        if (mode == MERINO_FILTER_SERIAL_IN_ORDER && r->ordered) {
            if (it->seq + 1 <= r->last_seq[sc->index]) __atomic_store_n(&r->order_bad, 1, __ATOMIC_RELAXED);
            r->last_seq[sc->index] = it->seq + 1; /* under the stage: one item at a time */
        }
    }
    if (it) it->value = it->value * 31 + sc->index;
    if (!serial && r->sleepy) nap(it ? it->seq : 0);
    if (it && sc->index > 0 && r->drop_every && sc->index == r->drop_at && it->seq % r->drop_every == 1) {
        __atomic_fetch_sub(&r->live, 1, __ATOMIC_RELAXED);
        free(it);
        it = NULL;
    } else if (it && sc->index + 1 == r->count) {
        __atomic_fetch_add(&r->reached[it->seq], 1, __ATOMIC_RELAXED);
        r->values[it->seq] = it->value;
        __atomic_fetch_sub(&r->live, 1, __ATOMIC_RELAXED);
        free(it);
        it = (item *)r; /* any pointer but NULL: the item went through */
    }
    if (!serial) __atomic_fetch_sub(&r->in_par, 1, __ATOMIC_RELAXED);
    if (serial) __atomic_fetch_sub(&r->busy[sc->index], 1, __ATOMIC_RELAXED);
    return it;
}

/* The value an item has after stages [0, upto]. */
static uint64_t expected_value(size_t upto) {
    uint64_t v = 0;
    for (size_t s = 0; s <= upto; s++) v = v * 31 + s;
    return v;
}

/* Runs the stages `modes` over n items and checks what every pipeline must do; returns the most items
 * that were in parallel stages at once. */
static int check_pipeline(const merino_filter_mode *modes, size_t count, size_t tokens, uint64_t n,
                           uint64_t drop_every, size_t drop_at, int sleepy, unsigned workers) {
    check_set_context("workers=%u tokens=%zu n=%llu stages=%zu modes=%d,%d,%d,%d,%d,%d drop=%llu@%zu", workers, tokens,
                      (unsigned long long)n, count, (int)modes[0], count > 1 ? (int)modes[1] : -1,
                      count > 2 ? (int)modes[2] : -1, count > 3 ? (int)modes[3] : -1,
                      count > 4 ? (int)modes[4] : -1, count > 5 ? (int)modes[5] : -1,
                      (unsigned long long)drop_every, drop_at);
    run r = {.n = n, .drop_every = drop_every, .drop_at = drop_at, .count = count, .sleepy = sleepy,
             .ordered = modes[0] != MERINO_FILTER_PARALLEL};
    r.reached = calloc(n + 1, sizeof(uint64_t));
    r.values = calloc(n + 1, sizeof(uint64_t));
    CHECK(r.reached && r.values);
    stage_ctx ctx[MAX_STAGES];
    for (size_t s = 0; s < count; s++) {
        ctx[s] = (stage_ctx){&r, s};
        r.stages[s] = (merino_stage){.mode = modes[s], .fn = stage_fn, .ctx = &ctx[s]};
    }
    merino_pipeline(tokens, r.stages, count);
    CHECK_EQ_INT(r.overlap, 0);
    CHECK_EQ_INT(r.order_bad, 0);
    CHECK_EQ_INT(r.live, 0);
    CHECK_MSG(r.max_live <= (int)tokens, "%d items existed at once, with %zu tokens", r.max_live, tokens);
    if (modes[0] != MERINO_FILTER_PARALLEL) /* a parallel first stage may be called again after the end */
        CHECK_EQ_UINT(r.made, n + 1);
    else
        CHECK(r.made >= n + 1);
    uint64_t want = expected_value(count - 1);
    for (uint64_t k = 0; k < n; k++) {
        bool dropped = drop_every && drop_at < count && k % drop_every == 1;
        CHECK_MSG(r.reached[k] == (dropped ? 0 : 1), "item %llu left the pipeline %llu times",
                  (unsigned long long)k, (unsigned long long)r.reached[k]);
        if (!dropped) CHECK_EQ_UINT(r.values[k], want);
    }
    /* an in-order stage saw every item, dropped or not, up to where it was dropped */
    for (size_t s = 1; s < count; s++)
        if (modes[s] == MERINO_FILTER_SERIAL_IN_ORDER && r.ordered && !(drop_every && drop_at < s) && n > 0)
            CHECK_EQ_UINT(r.last_seq[s], n);
    free(r.reached);
    free(r.values);
    return r.max_par;
}

static const size_t token_counts[] = {1, 2, 3, 8, 64};

static void check_random(unsigned workers) {
    for (int round = 0; round < 60; round++) {
        merino_filter_mode modes[MAX_STAGES];
        size_t count = 1 + (size_t)(rnd() % MAX_STAGES);
        for (size_t s = 0; s < count; s++) modes[s] = (merino_filter_mode)(rnd() % 3);
        size_t tokens = token_counts[rnd() % 5];
        uint64_t n = rnd() % 4 == 0 ? rnd() % 3 : rnd() % 3000;
        uint64_t drop_every = rnd() % 3 == 0 ? 2 + rnd() % 5 : 0;
        size_t drop_at = 1 + (size_t)(rnd() % MAX_STAGES);
        check_pipeline(modes, count, tokens, n, drop_every, drop_at, rnd() % 8 == 0, workers);
    }
}

/* The common shape: read in order, transform in parallel, write in order; then every token count. */
static void check_shapes(unsigned workers) {
    const merino_filter_mode rtw[] = {MERINO_FILTER_SERIAL_IN_ORDER, MERINO_FILTER_PARALLEL,
                                      MERINO_FILTER_SERIAL_IN_ORDER};
    const merino_filter_mode ooo[] = {MERINO_FILTER_SERIAL_OUT_OF_ORDER, MERINO_FILTER_PARALLEL,
                                      MERINO_FILTER_SERIAL_OUT_OF_ORDER, MERINO_FILTER_SERIAL_IN_ORDER};
    const merino_filter_mode par[] = {MERINO_FILTER_PARALLEL, MERINO_FILTER_PARALLEL, MERINO_FILTER_SERIAL_IN_ORDER};
    for (size_t t = 0; t < 5; t++) {
        for (uint64_t n = 0; n < 4; n++) check_pipeline(rtw, 3, token_counts[t], n, 0, 0, 0, workers);
        check_pipeline(rtw, 3, token_counts[t], 5000, 0, 0, 0, workers);
        check_pipeline(rtw, 3, token_counts[t], 2000, 3, 1, 0, workers);
        check_pipeline(ooo, 4, token_counts[t], 2000, 0, 0, 0, workers);
        check_pipeline(ooo, 4, token_counts[t], 2000, 4, 2, 0, workers);
        check_pipeline(par, 3, token_counts[t], 2000, 0, 0, 0, workers);
    }
}

/* With two workers or more and tokens to spare, a serial input reads ahead, so items are in the
 * parallel stage at once: the pipeline runs in parallel, not one item at a time. */
static void check_overlap(unsigned workers) {
    if (workers < 2) return;
    const merino_filter_mode rtw[] = {MERINO_FILTER_SERIAL_IN_ORDER, MERINO_FILTER_PARALLEL,
                                      MERINO_FILTER_SERIAL_IN_ORDER};
    /* runs until one overlaps, for up to 20 s: on a loaded machine the other workers may get no CPU
     * during a run; a pipeline that does not read ahead never overlaps */
    int most = 0;
    for (double until = check_now() + 20; most < 2 && check_now() < until;)
        most = check_pipeline(rtw, 3, 8, 400, 0, 0, 1, workers);
    CHECK_MSG(most >= 2, "the parallel stage never ran two items at once with %u workers and 8 tokens", workers);
}

/* One token: one item at a time, even through parallel stages. */
static void check_one_token(unsigned workers) {
    const merino_filter_mode par[] = {MERINO_FILTER_PARALLEL, MERINO_FILTER_PARALLEL, MERINO_FILTER_PARALLEL};
    CHECK_EQ_INT(check_pipeline(par, 3, 1, 300, 0, 0, 1, workers), 1);
}

/* ---- bad arguments ----------------------------------------------------------------------------------- */

static void *nothing(void *item, void *ctx) {
    (void)item;
    (void)ctx;
    return NULL;
}

static int run_child(const char *name) {
    merino_stage st[2] = {{MERINO_FILTER_SERIAL_IN_ORDER, nothing, NULL}, {MERINO_FILTER_PARALLEL, nothing, NULL}};
    size_t tokens = 4, count = 2;
    const merino_stage *p = st;
    if (strcmp(name, "tokens") == 0) tokens = 0;
    if (strcmp(name, "none") == 0) count = 0;
    if (strcmp(name, "null") == 0) p = NULL;
    if (strcmp(name, "fn") == 0) st[1].fn = NULL;
    if (strcmp(name, "mode") == 0) st[1].mode = (merino_filter_mode)7;
    merino_pipeline(tokens, p, count);
    return 0;
}

static void check_bad_input(void) {
    const char *const names[] = {"tokens", "none", "null", "fn", "mode"};
    const char *const says[] = {"max_tokens is 0", "no stage", "no stage", "stage 1 has no fn",
                                "stage 1 has mode 7"};
    algo_check_messages("merino_pipeline: ", names, says, 5);
}

static void setup(unsigned long long seed) {
    rng_state = seed * 2 + 1;
    check_bad_input();
}

static void at_workers(unsigned workers) {
    check_shapes(workers);
    check_one_token(workers);
    check_overlap(workers);
    check_random(workers);
}

int main(int argc, char **argv) {
    return algo_test_main(argc, argv, "test_algo_pipeline_c", run_child, setup, at_workers);
}
