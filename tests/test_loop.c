/* test_loop.c — merino_for and merino_reduce (include/merino_loop.h): every schedule on empty
 * ranges, ranges of one, ranges smaller than the worker count, negative bounds, the whole int64_t
 * range and 2^40 (sparse bodies), each index run exactly once (counted per index, and the
 * sub-ranges checked to tile the range); loops nested in loops, in task bodies and on other
 * threads; reductions against serial; deterministic reductions bit-identical at 1, 2, 4 and 8
 * workers (8 oversubscribed) and under every schedule, combined in iteration order; bad
 * MERINO_SCHEDULE values and bad options in child processes. */
#include "check.h"

#include "loop_test.h"

#include <pthread.h>

/* ---- counting each index -------------------------------------------------------------------------- */

typedef struct counted {
    int64_t begin, end;
    unsigned char *hits; /* per index, atomic */
    uint64_t calls;      /* atomic */
    int bad;             /* atomic: a sub-range outside [begin, end) or empty */
} counted;

static void count_body(int64_t lo, int64_t hi, void *ctx) {
    counted *c = ctx;
    if (!(lo < hi && lo >= c->begin && hi <= c->end)) {
        __atomic_store_n(&c->bad, 1, __ATOMIC_RELAXED); /* relaxed: read after the loop's join */
        return;
    }
    /* relaxed: counts, read after the loop's join */
    for (int64_t i = lo; i < hi; i++) __atomic_fetch_add(&c->hits[i - c->begin], 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&c->calls, 1, __ATOMIC_RELAXED); /* relaxed: a count, read after the join */
}

/* Runs [begin, end) under opts and checks that every index ran once. */
static void check_once(int64_t begin, int64_t end, const merino_for_opts *o) {
    counted c = {begin, end, NULL, 0, 0};
    size_t n = end > begin ? (size_t)(end - begin) : 0;
    c.hits = calloc(n + 1, 1);
    CHECK(c.hits != NULL);
    merino_for(begin, end, count_body, &c, o);
    CHECK_MSG(!c.bad, "a sub-range outside [%lld, %lld) or empty", (long long)begin, (long long)end);
    for (size_t i = 0; i < n; i++)
        CHECK_MSG(c.hits[i] == 1, "index %lld ran %d times in [%lld, %lld), schedule %s,%lld",
                  (long long)(begin + (int64_t)i), c.hits[i], (long long)begin, (long long)end,
                  merino_schedule_name(o->schedule), (long long)o->chunk);
    if (n == 0) CHECK_EQ_UINT(c.calls, 0);
    free(c.hits);
}

/* ---- tiling huge ranges --------------------------------------------------------------------------- */

typedef struct tiles {
    pthread_mutex_t lock;
    int64_t (*r)[2];
    size_t n, cap;
    int64_t begin, end;
    int overflow;
} tiles;

static void tile_body(int64_t lo, int64_t hi, void *ctx) {
    tiles *t = ctx;
    pthread_mutex_lock(&t->lock);
    if (t->n < t->cap) {
        t->r[t->n][0] = lo;
        t->r[t->n][1] = hi;
        t->n++;
    } else {
        t->overflow = 1;
    }
    pthread_mutex_unlock(&t->lock);
}

static int cmp_range(const void *a, const void *b) {
    int64_t x = ((const int64_t *)a)[0], y = ((const int64_t *)b)[0];
    return x < y ? -1 : x > y;
}

/* The sub-ranges of [begin, end) tile it: sorted, each starts where the previous ended. */
static void check_tiles(int64_t begin, int64_t end, const merino_for_opts *o) {
    tiles t = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 1 << 16, begin, end, 0};
    t.r = malloc(sizeof *t.r * t.cap);
    CHECK(t.r != NULL);
    merino_for(begin, end, tile_body, &t, o);
    CHECK_MSG(!t.overflow, "more than %zu sub-ranges for [%lld, %lld) under %s", t.cap,
              (long long)begin, (long long)end, merino_schedule_name(o->schedule));
    qsort(t.r, t.n, sizeof *t.r, cmp_range);
    int64_t at = begin;
    for (size_t i = 0; i < t.n; i++) {
        CHECK_MSG(t.r[i][0] == at && t.r[i][1] > t.r[i][0], "sub-range %zu [%lld, %lld) should start at %lld",
                  i, (long long)t.r[i][0], (long long)t.r[i][1], (long long)at);
        at = t.r[i][1];
    }
    CHECK_EQ_INT(at, end);
    free(t.r);
}

/* ---- reductions ------------------------------------------------------------------------------------ */

static void sumsq_body(int64_t lo, int64_t hi, void *acc, void *ctx) {
    (void)ctx;
    uint64_t s = *(uint64_t *)acc;
    for (int64_t i = lo; i < hi; i++) s += (uint64_t)i * (uint64_t)i;
    *(uint64_t *)acc = s;
}
static void add_u64(void *acc, const void *right, void *ctx) {
    (void)ctx;
    *(uint64_t *)acc += *(const uint64_t *)right;
}

static double harmonic_part(int64_t lo, int64_t hi, void *ctx) {
    (void)ctx;
    double s = 0;
    for (int64_t i = lo; i < hi; i++) s += 1.0 / (double)((i % 1000 + 1000) % 1000 + 1) * (i % 3 ? 1.0 : -0.7);
    return s;
}

/* Order: a partial is the range of indices it covers; combining checks that right follows acc. */
typedef struct span {
    int64_t first, last; /* last < first: empty */
    int64_t broken;
} span;
static void span_body(int64_t lo, int64_t hi, void *acc, void *ctx) {
    (void)ctx;
    span *s = acc;
    if (s->last >= s->first && lo != s->last + 1) s->broken++;
    if (s->last < s->first) s->first = lo;
    s->last = hi - 1;
}
static void span_combine(void *acc, const void *right, void *ctx) {
    (void)ctx;
    span *a = acc;
    const span *b = right;
    a->broken += b->broken;
    if (b->last < b->first) return;
    if (a->last < a->first) {
        *a = *b;
        return;
    }
    if (b->first != a->last + 1) a->broken++;
    a->last = b->last;
}

static int64_t sumsq_part(int64_t lo, int64_t hi, void *ctx) {
    uint64_t s = 0;
    sumsq_body(lo, hi, &s, ctx);
    return (int64_t)s;
}

static void check_reductions(const char *sched) {
    static const int64_t bounds[][2] = {{0, 0}, {3, -3}, {0, 1}, {-5, 2}, {-100000, 123457}, {7, 40000}};
    static const uint64_t zero = 0;
    merino_reducer r = {.size = sizeof(uint64_t), .identity = &zero, .body = sumsq_body, .combine = add_u64};
    for (size_t b = 0; b < sizeof bounds / sizeof bounds[0]; b++) {
        int64_t lo = bounds[b][0], hi = bounds[b][1];
        uint64_t want = 0;
        sumsq_body(lo, hi, &want, NULL);
        for (int det = 0; det <= 1; det++) {
            merino_for_opts o = opts_of(sched, det);
            uint64_t got = 12345; /* merino_reduce initializes it */
            merino_reduce(lo, hi, &got, &r, NULL, &o);
            CHECK_MSG(got == want, "sum of squares over [%lld, %lld) under %s%s: %llu, serial %llu",
                      (long long)lo, (long long)hi, sched, det ? " (deterministic)" : "",
                      (unsigned long long)got, (unsigned long long)want);
            CHECK_EQ_UINT((uint64_t)merino_sum_int64(lo, hi, sumsq_part, NULL, &o), want);
        }
    }
}

/* Deterministic: iteration order, whatever the schedule (the combine is not commutative). */
static void check_order(const char *sched) {
    static const span empty = {1, 0, 0};
    merino_reducer r = {.size = sizeof(span), .identity = &empty, .body = span_body, .combine = span_combine};
    merino_for_opts o = opts_of(sched, 1);
    span got;
    merino_reduce(-777, 100000, &got, &r, NULL, &o);
    CHECK_MSG(got.broken == 0 && got.first == -777 && got.last == 99999,
              "deterministic reduce under %s out of order: [%lld, %lld], %lld breaks", sched,
              (long long)got.first, (long long)got.last, (long long)got.broken);
    if (strncmp(sched, "adaptive", 8) == 0 || strcmp(sched, "auto") == 0 || strcmp(sched, "static") == 0) {
        o.deterministic = 0; /* these keep iteration order without it too (docs/loops.md) */
        merino_reduce(-777, 100000, &got, &r, NULL, &o);
        CHECK_MSG(got.broken == 0 && got.first == -777 && got.last == 99999,
                  "reduce under %s out of order: [%lld, %lld], %lld breaks", sched,
                  (long long)got.first, (long long)got.last, (long long)got.broken);
    }
}

/* ---- nesting ----------------------------------------------------------------------------------- */

enum { OUTER = 37, INNER = 101 };
static unsigned char nest_hits[OUTER][INNER];

typedef struct nest {
    int64_t i;
    const merino_for_opts *o;
} nest;

static void inner_body(int64_t lo, int64_t hi, void *ctx) {
    nest *n = ctx;
    /* relaxed: counts, read after the outer loop's join */
    for (int64_t j = lo; j < hi; j++) __atomic_fetch_add(&nest_hits[n->i][j], 1, __ATOMIC_RELAXED);
}
static void outer_body(int64_t lo, int64_t hi, void *ctx) {
    for (int64_t i = lo; i < hi; i++) {
        nest n = {i, ctx};
        merino_for(0, INNER, inner_body, &n, n.o);
    }
}

static void check_nested(const merino_for_opts *o) {
    memset(nest_hits, 0, sizeof nest_hits);
    merino_for(0, OUTER, outer_body, (void *)o, o);
    for (int i = 0; i < OUTER; i++)
        for (int j = 0; j < INNER; j++) CHECK_MSG(nest_hits[i][j] == 1, "(%d, %d) ran %d times", i, j, nest_hits[i][j]);
}

/* Loops in task bodies: a binary tree of tasks whose leaves each run a loop over their slice. */
static unsigned char task_hits[1 << 14];
static void task_leaf_body(int64_t lo, int64_t hi, void *ctx) {
    (void)ctx;
    /* relaxed: counts, read after the root task's join */
    for (int64_t i = lo; i < hi; i++) __atomic_fetch_add(&task_hits[i], 1, __ATOMIC_RELAXED);
}
MERINO_VOID_TASK_3(tree, int64_t, lo, int64_t, hi, const merino_for_opts *, o) {
    if (hi - lo <= 1000) {
        merino_for(lo, hi, task_leaf_body, NULL, o);
        return;
    }
    int64_t mid = lo + (hi - lo) / 2;
    MERINO_SPAWN(tree, mid, hi, o);
    MERINO_CALL(tree, lo, mid, o);
    MERINO_JOIN(tree);
}

static void check_in_tasks(const merino_for_opts *o) {
    memset(task_hits, 0, sizeof task_hits);
    MERINO_RUN(tree, 0, (int64_t)sizeof task_hits, o);
    for (size_t i = 0; i < sizeof task_hits; i++) CHECK_MSG(task_hits[i] == 1, "index %zu ran %d times", i, task_hits[i]);
}

/* Loops from several threads that are not workers at once. */
static void *thread_loops(void *arg) {
    const merino_for_opts *o = arg;
    for (int k = 0; k < 5; k++) check_once(-300, 2000, o);
    return NULL;
}

static void check_threads(const merino_for_opts *o) {
    pthread_t t[3];
    for (int i = 0; i < 3; i++) CHECK(pthread_create(&t[i], NULL, thread_loops, (void *)o) == 0);
    thread_loops((void *)o);
    for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
}

/* merino_for_opts.stop: once set, no new sub-range begins; nothing runs twice, and a loop of 2^40
 * indices whose first body sets it returns at once (under every schedule, chunk 1 included). */
typedef struct stopper {
    int stop;           /* atomic */
    int64_t after;      /* set stop once this many indices ran */
    int64_t ran;        /* atomic */
    unsigned char *hits; /* per index (small ranges), atomic */
} stopper;

static void stop_body(int64_t lo, int64_t hi, void *ctx) {
    stopper *s = ctx;
    for (int64_t i = lo; i < hi && s->hits; i++) /* relaxed: counts, read after the loop */
        __atomic_fetch_add(&s->hits[i], 1, __ATOMIC_RELAXED);
    /* relaxed: a count and the stop request; no data rides on them */
    if (__atomic_add_fetch(&s->ran, hi - lo, __ATOMIC_RELAXED) >= s->after)
        __atomic_store_n(&s->stop, 1, __ATOMIC_RELAXED);
}

static void check_stop(const char *sched, int deterministic) {
    merino_for_opts o = opts_of(sched, deterministic);
    enum { N = 100000 };
    stopper s = {0, 1000, 0, calloc(N, 1)};
    CHECK(s.hits != NULL);
    o.stop = &s.stop;
    merino_for(0, N, stop_body, &s, &o);
    for (int i = 0; i < N; i++) CHECK_MSG(s.hits[i] <= 1, "index %d ran %d times after a stop", i, s.hits[i]);
    CHECK(s.ran >= 1000 || s.ran == N);
    free(s.hits);
    if (strcmp(sched, "static,1") == 0 || strcmp(sched, "dynamic") == 0 || strcmp(sched, "adaptive") == 0 ||
        strcmp(sched, "steal") == 0 || strcmp(sched, "guided") == 0 || strcmp(sched, "idws") == 0 ||
        strcmp(sched, "idws-poll") == 0) {
        stopper h = {0, 1, 0, NULL};
        o.stop = &h.stop;
        merino_for(0, (int64_t)1 << 40, stop_body, &h, &o); /* would take hours without the stop */
        CHECK(h.stop == 1);
    }
    /* A stopped reduction still returns (leaves that did not run give the identity). */
    static const uint64_t zero = 0;
    merino_reducer r = {.size = 8, .identity = &zero, .body = sumsq_body, .combine = add_u64};
    int stop_now = 1;
    o.stop = &stop_now;
    uint64_t got = 99;
    merino_reduce(0, N, &got, &r, NULL, &o);
    CHECK_EQ_UINT(got, 0);
}

/* ---- one pool size ------------------------------------------------------------------------------- */

static void check_workers(unsigned workers) {
    merino_config cfg = {.workers = workers};
    CHECK(merino_start(&cfg) == 0);
    for (size_t s = 0; s < LOOP_SCHEDULES; s++) {
        check_set_context("workers=%u schedule=%s", workers, loop_schedules[s]);
        for (int det = 0; det <= 1; det++) {
            merino_for_opts o = opts_of(loop_schedules[s], det);
            check_once(0, 0, &o);
            check_once(5, -5, &o);
            check_once(0, 1, &o);
            check_once(-1, 0, &o);
            check_once(INT64_MAX - 1, INT64_MAX, &o);
            for (int64_t n = 2; n <= 2 * (int64_t)workers + 1; n++) check_once(-3, -3 + n, &o);
            check_once(-12345, 54321, &o);
            check_nested(&o);
            check_in_tasks(&o);
            if (workers > 1) {
                shared_check c;
                check_shared(&c, &o);
            }
        }
        merino_for_opts o = opts_of(loop_schedules[s], 0);
        check_threads(&o);
        check_reductions(loop_schedules[s]);
        check_stop(loop_schedules[s], 0);
        check_stop(loop_schedules[s], 1);
        check_order(loop_schedules[s]);
    }
    /* Huge ranges, sparse bodies (a call costs the same whatever its length). */
    static const char *const huge[] = {"auto", "adaptive", "static", "static,1099511627", "dynamic,1099511627",
                                       "guided,1073741824", "steal", "idws", "idws-poll"};
    for (size_t s = 0; s < sizeof huge / sizeof huge[0]; s++) {
        check_set_context("workers=%u schedule=%s (huge)", workers, huge[s]);
        merino_for_opts o = opts_of(huge[s], 0);
        check_tiles(0, (int64_t)1 << 40, &o);
        check_tiles(-((int64_t)1 << 40), 17, &o);
        if (strchr(huge[s], ',') == NULL || huge[s][0] == 'g') /* chunk counts stay small */
            check_tiles(INT64_MIN, INT64_MAX, &o);
        o.deterministic = 1; /* at most MERINO_LEAVES sub-ranges */
        check_tiles(INT64_MIN, INT64_MAX, &o);
    }
    check_set_context(NULL);
    merino_stop();
}

/* ---- deterministic bits ------------------------------------------------------------------------- */

static void check_deterministic(void) {
    static const unsigned counts[] = {1, 2, 4, 8};
    double first = 0;
    int have = 0;
    for (size_t w = 0; w < sizeof counts / sizeof counts[0]; w++) {
        merino_config cfg = {.workers = counts[w]};
        CHECK(merino_start(&cfg) == 0);
        for (size_t s = 0; s < LOOP_SCHEDULES; s++) {
            merino_for_opts o = opts_of(loop_schedules[s], 1);
            for (int rep = 0; rep < 3; rep++) {
                double got = merino_sum_double(-1000, 1000003, harmonic_part, NULL, &o);
                if (!have) {
                    first = got;
                    have = 1;
                }
                check_set_context("workers=%u schedule=%s rep=%d", counts[w], loop_schedules[s], rep);
                CHECK_EQ_DBL(got, first);
            }
        }
        merino_stop();
    }
    check_set_context(NULL);
    /* The sum really depends on the order: a serial sum in one go differs in its last bits. */
    CHECK_CMP_DBL(fabs(first - harmonic_part(-1000, 1000003, NULL)), <, 1e-6 * fabs(first) + 1e-9);
}

/* ---- bad input ------------------------------------------------------------------------------------- */

static void nothing(int64_t lo, int64_t hi, void *ctx) {
    (void)lo, (void)hi, (void)ctx;
}

static int run_child(const char *name) {
    if (strcmp(name, "env") == 0) {
        merino_for(0, 10, nothing, NULL, NULL); /* MERINO_SCHEDULE is bad: stops here */
        return 0;
    }
    if (strcmp(name, "env_explicit") == 0) { /* an explicit schedule does not read it */
        merino_for_opts o = {.schedule = MERINO_SCHEDULE_DYNAMIC};
        merino_for(0, 10, nothing, NULL, &o);
        return 0;
    }
    if (strcmp(name, "negative_chunk") == 0) {
        merino_for_opts o = {.schedule = MERINO_SCHEDULE_STATIC, .chunk = -4};
        merino_for(0, 10, nothing, NULL, &o);
        return 0;
    }
    if (strcmp(name, "bad_schedule") == 0) {
        merino_for_opts o = {.schedule = (merino_schedule)99};
        merino_for(0, 10, nothing, NULL, &o);
        return 0;
    }
    if (strcmp(name, "reduce_size") == 0) {
        static const char id[2048];
        merino_reducer r = {.size = sizeof id, .identity = id, .body = sumsq_body, .combine = add_u64};
        char out[2048];
        merino_reduce(0, 10, out, &r, NULL, NULL);
        return 0;
    }
    return 2;
}

static void check_bad_input(void) {
    static const char *const bad[] = {"fast", "dynamic,", "dynamic,0", "dynamic,-3", "auto,4",
                                      "static,x", "guided,16k", " static", "steal,99999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char env[128];
        snprintf(env, sizeof env, "MERINO_SCHEDULE=%s", bad[i]);
        const char *const envs[] = {env, NULL};
        check_child c = check_run_child("env", envs, 30);
        check_set_context("MERINO_SCHEDULE='%s'", bad[i]);
        CHECK_MSG(c.signaled && c.sig == SIGABRT, "the child should stop (SIGABRT): %s", c.err);
        CHECK_STR_CONTAINS(c.err, "MERINO_SCHEDULE=");
        CHECK_STR_CONTAINS(c.err, "dynamic");
        CHECK_EQ_INT(check_count_lines(c.err), 1);
        check_child_free(&c);
        c = check_run_child("env_explicit", envs, 30);
        CHECK_MSG(c.exited && c.code == 0, "an explicit schedule must not read MERINO_SCHEDULE: %s", c.err);
        check_child_free(&c);
    }
    check_set_context(NULL);
    struct {
        const char *child, *says;
    } fatal[] = {{"negative_chunk", "chunk = -4 is negative"},
                 {"bad_schedule", "schedule = 99 is not a merino_schedule"},
                 {"reduce_size", "size = 2048 is out of range"}};
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++) {
        check_child c = check_run_child(fatal[i].child, NULL, 30);
        CHECK_MSG(c.signaled && c.sig == SIGABRT, "%s: the child should stop: %s", fatal[i].child, c.err);
        CHECK_STR_CONTAINS(c.err, fatal[i].says);
        check_child_free(&c);
    }
    /* Good values of the variable are taken (a child: it is read once per process). */
    static const char *const good[] = {"MERINO_SCHEDULE=dynamic,3", NULL};
    check_child c = check_run_child("env", good, 30);
    CHECK_MSG(c.exited && c.code == 0, "MERINO_SCHEDULE=dynamic,3: %s", c.err);
    check_child_free(&c);

    merino_for_opts o = {0};
    CHECK(merino_schedule_parse("guided,8", &o) == 0);
    CHECK(o.schedule == MERINO_SCHEDULE_GUIDED && o.chunk == 8);
    CHECK(merino_schedule_parse("steal", &o) == 0);
    CHECK(o.schedule == MERINO_SCHEDULE_STEAL && o.chunk == 0);
    CHECK(merino_schedule_parse("static,", &o) == -1);
    CHECK_STR_CONTAINS(merino_last_error(), "merino_schedule_parse='static,' has a bad chunk");
    CHECK(merino_schedule_parse(NULL, &o) == -1);
    CHECK_STR_EQ(merino_schedule_name(MERINO_SCHEDULE_ADAPTIVE), "adaptive");
}

int main(int argc, char **argv) {
    const char *child = check_child_name(argc, argv);
    if (child) return run_child(child);
    unsetenv("MERINO_SCHEDULE");
    check_bad_input();
    /* Before any pool: the first loop starts one. */
    merino_for_opts o = opts_of("auto", 0);
    check_once(-50, 5000, &o);
    merino_stop();
    check_workers(1);
    check_workers(2);
    check_workers(3);
    check_deterministic();
    puts("test_loop: ok");
    return 0;
}
