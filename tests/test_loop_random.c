/* test_loop_random.c — random loops, replayable (MERINO_TEST_SEED): each round draws a worker
 * count, a range (empty, tiny, around the worker count, or up to 60,000 indices, anywhere in
 * int64_t), a schedule and chunk, the deterministic flag, a nesting (an inner loop over a random
 * range per outer index, for some rounds) and a caller (the main thread, a task body, or three
 * threads at once); it checks that every (outer, inner) index ran exactly once and that a reduction
 * over the same range equals the serial one. About 3 seconds (check_scale()). */
#include "check.h"

#include <merino_loop.h>

#include <pthread.h>

static uint64_t rng_state;
static uint64_t rnd(void) { /* xorshift64* */
    rng_state ^= rng_state >> 12, rng_state ^= rng_state << 25, rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Dull;
}
static uint64_t below(uint64_t n) { return n ? rnd() % n : 0; }

enum { MAX_OUTER = 60000, MAX_INNER = 64 };

typedef struct loop_round {
    int64_t begin, end;          /* the outer range */
    int64_t inner;               /* 0: no inner loops; else each outer index runs [0, inner) */
    merino_for_opts o;
    unsigned char *hits;         /* (end - begin) * max(inner, 1), atomic */
} loop_round;

static void inner_body(int64_t lo, int64_t hi, void *ctx) {
    unsigned char *row = ctx;
    /* relaxed: counts, read after the outer loop returns */
    for (int64_t j = lo; j < hi; j++) __atomic_fetch_add(&row[j], 1, __ATOMIC_RELAXED);
}

static void outer_body(int64_t lo, int64_t hi, void *ctx) {
    loop_round *r = ctx;
    for (int64_t i = lo; i < hi; i++) {
        if (r->inner == 0) {
            /* relaxed: as above */
            __atomic_fetch_add(&r->hits[i - r->begin], 1, __ATOMIC_RELAXED);
            continue;
        }
        merino_for(0, r->inner, inner_body, r->hits + (i - r->begin) * r->inner, &r->o);
    }
}

static void mix_body(int64_t lo, int64_t hi, void *acc, void *ctx) {
    (void)ctx;
    uint64_t s = *(uint64_t *)acc;
    for (int64_t i = lo; i < hi; i++) s = s + ((uint64_t)i * 0x9E3779B97F4A7C15ull >> 7);
    *(uint64_t *)acc = s;
}
static void add_u64(void *acc, const void *right, void *ctx) {
    (void)ctx;
    *(uint64_t *)acc += *(const uint64_t *)right;
}

static void run_round(loop_round *r) {
    merino_for(r->begin, r->end, outer_body, r, &r->o);
    static const uint64_t zero = 0;
    merino_reducer red = {.size = 8, .identity = &zero, .body = mix_body, .combine = add_u64};
    uint64_t got, want = 0;
    merino_reduce(r->begin, r->end, &got, &red, NULL, &r->o);
    mix_body(r->begin, r->end, &want, NULL);
    CHECK_EQ_UINT(got, want);
}

MERINO_VOID_TASK_1(round_task, loop_round *, r) { run_round(r); }

static void *round_thread(void *arg) {
    run_round(arg);
    return NULL;
}

static void check_hits(const loop_round *r) {
    int64_t n = (r->end > r->begin ? r->end - r->begin : 0) * (r->inner ? r->inner : 1);
    for (int64_t k = 0; k < n; k++) CHECK_MSG(r->hits[k] == 1, "cell %lld ran %d times", (long long)k, r->hits[k]);
}

static void draw(loop_round *r, unsigned workers) {
    static const merino_schedule kinds[] = {MERINO_SCHEDULE_AUTO,    MERINO_SCHEDULE_ADAPTIVE, MERINO_SCHEDULE_STATIC,
                                            MERINO_SCHEDULE_DYNAMIC, MERINO_SCHEDULE_GUIDED,   MERINO_SCHEDULE_STEAL,
                                            MERINO_SCHEDULE_IDWS,    MERINO_SCHEDULE_IDWS_POLL};
    int64_t n;
    switch (below(4)) {
    case 0: n = (int64_t)below(2); break;              /* empty or one */
    case 1: n = (int64_t)below(2 * workers + 3); break; /* around the worker count */
    case 2: n = (int64_t)below(1000); break;
    default: n = (int64_t)below(MAX_OUTER); break;
    }
    r->inner = below(3) == 0 ? 1 + (int64_t)below(MAX_INNER) : 0;
    if (r->inner && n > 2000) n = (int64_t)below(2000);
    int64_t span = INT64_MAX / 4;
    r->begin = (int64_t)(below(2) ? below(2000) - 1000 : below((uint64_t)span) - span / 2);
    r->end = below(20) == 0 ? r->begin - (int64_t)below(5) : r->begin + n; /* reversed: empty */
    memset(&r->o, 0, sizeof r->o);
    r->o.schedule = kinds[below(sizeof kinds / sizeof kinds[0])];
    r->o.chunk = below(2) ? 0 : (int64_t)(1 + below(below(2) ? 8 : 5000));
    r->o.deterministic = below(4) == 0;
}

int main(void) {
    unsetenv("MERINO_SCHEDULE");
    unsigned long long seed;
    if (!check_env_seed(&seed)) seed = (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 20);
    check_set_seed(seed);
    rng_state = seed * 2 + 1;
    size_t cells = (size_t)MAX_OUTER > (size_t)2000 * MAX_INNER ? MAX_OUTER : (size_t)2000 * MAX_INNER;
    loop_round rs[3];
    for (int t = 0; t < 3; t++) rs[t].hits = malloc(cells);
    double t0 = check_now(), budget = 3.0 * check_scale();
    unsigned rounds = 0;
    while (check_now() - t0 < budget) {
        unsigned workers = 1 + (unsigned)below(4);
        merino_config cfg = {.workers = workers};
        CHECK(merino_start(&cfg) == 0);
        for (int k = 0; k < 20; k++, rounds++) {
            unsigned callers = below(3) == 0 ? 3 : 1;
            int how = (int)below(2); /* single caller: 0 main thread, 1 a task body */
            for (unsigned t = 0; t < callers; t++) {
                draw(&rs[t], workers);
                memset(rs[t].hits, 0, cells);
            }
            check_set_context("round %u, workers %u, callers %u, schedule %s,%lld det %d, [%lld, %lld) inner %lld",
                              rounds, workers, callers, merino_schedule_name(rs[0].o.schedule),
                              (long long)rs[0].o.chunk, rs[0].o.deterministic, (long long)rs[0].begin,
                              (long long)rs[0].end, (long long)rs[0].inner);
            if (callers == 1) {
                if (how)
                    MERINO_RUN(round_task, &rs[0]);
                else
                    run_round(&rs[0]);
            } else {
                pthread_t th[3];
                for (unsigned t = 0; t < callers; t++) CHECK(pthread_create(&th[t], NULL, round_thread, &rs[t]) == 0);
                for (unsigned t = 0; t < callers; t++) pthread_join(th[t], NULL);
            }
            for (unsigned t = 0; t < callers; t++) check_hits(&rs[t]);
        }
        merino_stop();
    }
    for (int t = 0; t < 3; t++) free(rs[t].hits);
    printf("test_loop_random: ok, %u rounds (seed %llu)\n", rounds, seed);
    return 0;
}
