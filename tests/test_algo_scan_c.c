/* test_algo_scan_c.c — merino_scan, the engine under every scan: at 1, 2, 3 and 8 workers, ranges
 * anywhere in int64_t (negative, empty, reversed, of one index), chunks of 1 to 10^5 indices, an
 * associative operation that is not commutative (affine maps composed), so any chunk folded out of
 * order shows; every output written exactly once, by a final call; pre-scans start from the
 * identity; the total; bodies that sleep at random (8 workers on 2 cores) to shuffle the order in
 * which chunks finish; the two-pass path forced (a first chunk that waits until another chunk is
 * pre-scanned); sums that own memory (init/destroy balanced); stop; bad arguments stop the program
 * with a message (child processes). Random inputs print their seed (MERINO_TEST_SEED). */
#include "algo_check.h"

#include <merino_algorithm.h>

#include <pthread.h>
#include <sched.h>

static uint64_t rng_state;
static uint64_t rnd(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

typedef struct affine {
    uint64_t a, b;
} affine;

static affine compose(affine p, affine q) { return (affine){q.a * p.a, q.a * p.b + q.b}; }
static int same(affine p, affine q) { return p.a == q.a && p.b == q.b; }

/* ---- a scan of affine maps, counting what it does -------------------------------------------------- */

typedef struct run {
    int64_t begin;
    const affine *in; /* in[i - begin] */
    affine *out;
    int *finals;      /* atomic: final calls per index */
    int pre_from_nonidentity; /* atomic */
    int pres;         /* atomic: pre-scan calls */
    int sleepy;       /* bodies sleep now and then */
    int wait_for_pre; /* the first chunk's final call waits until a pre-scan happened */
} run;

static void affine_body(int64_t lo, int64_t hi, void *sum, int final, void *ctx) {
    run *r = ctx;
    affine s = *(affine *)sum;
    /* relaxed: counts and flags, read after the scan */
    if (!final) {
        __atomic_fetch_add(&r->pres, 1, __ATOMIC_RELAXED);
        if (!same(s, (affine){1, 0})) __atomic_fetch_add(&r->pre_from_nonidentity, 1, __ATOMIC_RELAXED);
    }
    if (final && lo == r->begin && r->wait_for_pre) {
        double until = check_now() + 10;
        while (__atomic_load_n(&r->pres, __ATOMIC_RELAXED) == 0 && check_now() < until) sched_yield();
    }
    /* a sleep chosen by the sub-range, not by rnd(): bodies run on several threads at once */
    uint64_t h = ((uint64_t)lo * 0x9e3779b97f4a7c15ULL) >> 40;
    if (r->sleepy && h % 8 == 0) check_sleep(1e-5 * (double)(h / 8 % 20));
    for (int64_t i = lo; i < hi; i++) {
        s = compose(s, r->in[i - r->begin]);
        if (final) {
            r->out[i - r->begin] = s;
            __atomic_fetch_add(&r->finals[i - r->begin], 1, __ATOMIC_RELAXED);
        }
    }
    *(affine *)sum = s;
}

static void affine_combine(void *left, const void *right, void *ctx) {
    (void)ctx;
    *(affine *)left = compose(*(affine *)left, *(const affine *)right);
}

static const affine identity = {1, 0};

static void check_scan(int64_t begin, int64_t n, int64_t chunk, int sleepy, unsigned workers) {
    check_set_context("workers=%u begin=%lld n=%lld chunk=%lld sleepy=%d", workers, (long long)begin, (long long)n,
                      (long long)chunk, sleepy);
    affine *in = malloc(sizeof(affine) * (size_t)(n + 1)), *out = calloc((size_t)n + 1, sizeof(affine));
    int *finals = calloc((size_t)n + 1, sizeof(int));
    CHECK(in && out && finals);
    for (int64_t i = 0; i < n; i++) in[i] = (affine){rnd() | 1, rnd()};
    run r = {.begin = begin, .in = in, .out = out, .finals = finals, .sleepy = sleepy};
    merino_scanner s = {.size = sizeof(affine), .identity = &identity, .body = affine_body, .combine = affine_combine};
    merino_scan_opts o = {.chunk = chunk};
    affine total;
    merino_scan(begin, begin + n, &total, &s, &r, &o);
    affine acc = identity;
    for (int64_t i = 0; i < n; i++) {
        acc = compose(acc, in[i]);
        CHECK_MSG(same(out[i], acc), "output %lld is wrong", (long long)i);
        CHECK_EQ_INT(finals[i], 1);
    }
    CHECK(same(total, acc));
    CHECK_EQ_INT(r.pre_from_nonidentity, 0);
    free(in);
    free(out);
    free(finals);
}

static void check_ranges(unsigned workers) {
    check_scan(0, 0, 0, 0, workers);
    check_scan(-5, 1, 0, 0, workers);
    check_scan(INT64_MIN, 3, 1, 0, workers);
    check_scan(INT64_MAX - 100, 100, 7, 0, workers);
    check_scan(-1000, 100000, 0, 0, workers);
    for (int round = 0; round < 30; round++) {
        int64_t n = (int64_t)(rnd() % 50000), chunk = (int64_t)(rnd() % 3000);
        check_scan((int64_t)(rnd() % 2000000) - 1000000, n, chunk, round % 3 == 0, workers);
    }
    /* A reversed range is empty: the total is the identity and the body is not called. */
    affine total = {9, 9};
    run r = {0};
    merino_scanner s = {.size = sizeof(affine), .identity = &identity, .body = affine_body, .combine = affine_combine};
    merino_scan(10, 3, &total, &s, &r, NULL);
    CHECK(same(total, identity));
}

/* The two-pass path, deterministically: from outside the pool the first participant starts public,
 * offers a helper before its first chunk, and the first chunk waits until the helper pre-scanned. */
static void check_two_pass(unsigned workers) {
    check_set_context("workers=%u two-pass", workers);
    int64_t n = 100000;
    affine *in = malloc(sizeof(affine) * (size_t)n), *out = calloc((size_t)n, sizeof(affine));
    int *finals = calloc((size_t)n, sizeof(int));
    CHECK(in && out && finals);
    for (int64_t i = 0; i < n; i++) in[i] = (affine){rnd() | 1, rnd()};
    run r = {.begin = 0, .in = in, .out = out, .finals = finals, .wait_for_pre = 1};
    merino_scanner s = {.size = sizeof(affine), .identity = &identity, .body = affine_body, .combine = affine_combine};
    merino_scan_opts o = {.chunk = 1000};
    affine total;
    merino_scan(0, n, &total, &s, &r, &o);
    CHECK_MSG(r.pres > 0, "no chunk was pre-scanned at %u workers", workers);
    affine acc = identity;
    for (int64_t i = 0; i < n; i++) {
        acc = compose(acc, in[i]);
        CHECK(same(out[i], acc));
        CHECK_EQ_INT(finals[i], 1);
    }
    CHECK(same(total, acc));
    free(in);
    free(out);
    free(finals);
}

/* ---- sums that own memory: every init has its destroy -------------------------------------------------- */

static int live_sums; /* atomic */

static void heap_init(void *sum, void *ctx) {
    (void)ctx;
    long *p = malloc(sizeof(long));
    CHECK(p);
    *p = 0;
    memcpy(sum, &p, sizeof p);
    __atomic_fetch_add(&live_sums, 1, __ATOMIC_RELAXED); /* relaxed: a count */
}
static void heap_destroy(void *sum, void *ctx) {
    (void)ctx;
    long *p;
    memcpy(&p, sum, sizeof p);
    free(p);
    __atomic_fetch_sub(&live_sums, 1, __ATOMIC_RELAXED); /* relaxed: a count */
}
static void heap_body(int64_t lo, int64_t hi, void *sum, int final, void *ctx) {
    long *p, *out = ctx;
    memcpy(&p, sum, sizeof p);
    for (int64_t i = lo; i < hi; i++) {
        *p += i;
        if (final) out[i] = *p;
    }
}
static void heap_combine(void *left, const void *right, void *ctx) {
    (void)ctx;
    long *l, *r;
    memcpy(&l, left, sizeof l);
    memcpy(&r, right, sizeof r);
    *l += *r;
}

static void check_owned(unsigned workers) {
    check_set_context("workers=%u owned sums", workers);
    int64_t n = 200000;
    long *out = calloc((size_t)n, sizeof(long));
    CHECK(out);
    merino_scanner s = {.size = sizeof(long *), .body = heap_body, .combine = heap_combine, .init = heap_init,
                        .destroy = heap_destroy};
    merino_scan_opts o = {.chunk = 999};
    long *total;
    merino_scan(0, n, &total, &s, out, &o);
    for (int64_t i = 0; i < n; i++) CHECK_EQ_INT(out[i], i * (i + 1) / 2);
    CHECK_EQ_INT(*total, (n - 1) * n / 2);
    heap_destroy(&total, NULL);
    CHECK_EQ_INT(__atomic_load_n(&live_sums, __ATOMIC_RELAXED), 0);
    free(out);
}

/* ---- stop ----------------------------------------------------------------------------------------------- */

static int stop_flag;
static void stopping_body(int64_t lo, int64_t hi, void *sum, int final, void *ctx) {
    int *written = ctx;
    for (int64_t i = lo; i < hi; i++) {
        *(long *)sum += 1;
        if (final) __atomic_fetch_add(&written[i], 1, __ATOMIC_RELAXED); /* relaxed: read after the scan */
    }
    if (final && lo >= 5000) __atomic_store_n(&stop_flag, 1, __ATOMIC_RELAXED); /* relaxed: a stop request */
}
static void add_long(void *l, const void *r, void *ctx) {
    (void)ctx;
    *(long *)l += *(const long *)r;
}

static void check_stop(unsigned workers) {
    check_set_context("workers=%u stop", workers);
    int64_t n = 1 << 22;
    int *written = calloc((size_t)n, sizeof(int));
    CHECK(written);
    static const long zero = 0;
    __atomic_store_n(&stop_flag, 0, __ATOMIC_RELAXED);
    merino_scanner s = {.size = sizeof(long), .identity = &zero, .body = stopping_body, .combine = add_long};
    merino_scan_opts o = {.chunk = 1000, .stop = &stop_flag};
    long total;
    merino_scan(0, n, &total, &s, written, &o);
    int64_t ran = 0;
    for (int64_t i = 0; i < n; i++) {
        CHECK(written[i] <= 1);
        ran += written[i];
    }
    if (workers > 1) CHECK_MSG(ran < n, "a stopped scan ran to the end");
    free(written);
}

/* ---- bad arguments ----------------------------------------------------------------------------------------- */

static int run_child(const char *name) {
    static const long zero = 0;
    long total;
    merino_scanner s = {.size = sizeof(long), .identity = &zero, .body = stopping_body, .combine = add_long};
    merino_scan_opts o = {.chunk = -3};
    if (strcmp(name, "no_body") == 0) s.body = NULL;
    if (strcmp(name, "no_combine") == 0) s.combine = NULL;
    if (strcmp(name, "size") == 0) s.size = MERINO_SCAN_MAX_SIZE + 1;
    if (strcmp(name, "no_identity") == 0) s.identity = NULL;
    merino_scan(0, 10, &total, &s, NULL, strcmp(name, "chunk") == 0 ? &o : NULL);
    return 0;
}

static void check_bad_input(void) {
    const char *const names[] = {"no_body", "no_combine", "size", "no_identity", "chunk"};
    const char *const says[] = {"body is NULL", "combine is NULL", "out of range", "neither identity nor init",
                                "chunk = -3 is negative"};
    algo_check_messages("merino_scan: ", names, says, 5);
}

static void setup(unsigned long long seed) {
    rng_state = seed * 2 + 1;
    check_bad_input();
}

static void at_workers(unsigned workers) {
    check_ranges(workers);
    if (workers > 1) check_two_pass(workers);
    check_owned(workers);
    check_stop(workers);
}

int main(int argc, char **argv) {
    return algo_test_main(argc, argv, "test_algo_scan_c", run_child, setup, at_workers);
}
