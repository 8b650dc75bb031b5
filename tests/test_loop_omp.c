/* test_loop_omp.c — loops on the threads of a team the program made (src/loop/team.c): through the
 * team functions with plain pthreads (every schedule a team runs, 1 to 4 threads, each index once,
 * each thread's own context, donations made by signals), and where this file is compiled with
 * OpenMP (CMake finds it; not under ThreadSanitizer, which does not see libgomp's barriers),
 * merino_for_omp inside `#pragma omp parallel`: each index once, a reduction through thread-private
 * partials equal to the `omp for` it replaces, and a call outside any region (a team of one: no
 * signal). */
#include "check.h"

#include "loop/loop.h" /* the counts mrn_idws_sent, _given, _fallbacks */

#include <merino_loop.h>

#include <pthread.h>

static uint64_t count(uint64_t *c) { return __atomic_load_n(c, __ATOMIC_RELAXED); } /* relaxed: a statistic */

/* Work heavy in the first eighth and at hot spots, so that the blocks are unequal and idle
 * threads ask for more. */
static uint64_t work(int64_t i) {
    int64_t reps = (i & 7) == 0 ? 300 : 10;
    if (i >= 0 && i < 2000) reps *= 4;
    uint64_t x = (uint64_t)i;
    for (int64_t k = 0; k < reps; k++) x = x * 6364136223846793005ull + 1442695040888963407ull;
    return x;
}

typedef struct counted {
    int64_t begin;
    unsigned char *hits; /* atomic: per index */
} counted;

typedef struct mine {
    counted *c;
    uint64_t sum;   /* this thread's partial: the sum of work(i) over the indices it ran */
    int64_t ranges; /* sub-ranges it ran */
} mine;

static void body(int64_t lo, int64_t hi, void *ctx) {
    mine *m = ctx;
    CHECK(lo < hi);
    m->ranges++;
    for (int64_t i = lo; i < hi; i++) {
        __atomic_fetch_add(&m->c->hits[i - m->c->begin], 1, __ATOMIC_RELAXED); /* relaxed: read after */
        m->sum += work(i);
    }
}

static uint64_t serial_sum(int64_t begin, int64_t end) {
    uint64_t s = 0;
    for (int64_t i = begin; i < end; i++) s += work(i);
    return s;
}

/* ---- the team functions with pthreads ------------------------------------------------------------ */

typedef struct team_run {
    pthread_barrier_t *start;
    merino_team **team;
    int64_t begin, end;
    const merino_for_opts *opts;
    unsigned threads, id;
    mine m;
} team_run;

static void *team_thread(void *arg) {
    team_run *r = arg;
    if (r->id == 0) *r->team = merino__team_new(r->begin, r->end, r->threads, r->opts);
    pthread_barrier_wait(r->start); /* the team's loop is made before anyone runs it */
    merino__team_run(*r->team, r->id, body, &r->m);
    return NULL;
}

/* One loop over [begin, end) on a team of `threads` pthreads; checks each index once and that the
 * threads' partials add up to the serial sum. */
static void team_loop(unsigned threads, int64_t begin, int64_t end, const merino_for_opts *o) {
    int64_t n = end > begin ? end - begin : 0;
    counted c = {begin, calloc((size_t)n + 1, 1)};
    CHECK(c.hits != NULL);
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, threads);
    merino_team *team = NULL;
    team_run runs[8];
    pthread_t tids[8];
    for (unsigned t = 0; t < threads; t++) {
        runs[t] = (team_run){&start, &team, begin, end, o, threads, t, {&c, 0, 0}};
        CHECK(pthread_create(&tids[t], NULL, team_thread, &runs[t]) == 0);
    }
    uint64_t sum = 0;
    for (unsigned t = 0; t < threads; t++) {
        pthread_join(tids[t], NULL);
        sum += runs[t].m.sum;
    }
    pthread_barrier_destroy(&start);
    for (int64_t i = 0; i < n; i++)
        CHECK_MSG(c.hits[i] == 1, "index %lld ran %d times", (long long)(begin + i), c.hits[i]);
    CHECK_EQ_UINT(sum, serial_sum(begin, end));
    free(c.hits);
}

static void check_team(void) {
    static const char *const schedules[] = {"idws", "idws-poll", "auto", "adaptive", "static", "static,3",
                                            "dynamic", "dynamic,7", "guided", "steal", "idws,4"};
    static const int64_t ranges[][2] = {{0, 0}, {5, 4}, {0, 1}, {-3, 0}, {0, 3}, {-1000, 1000}, {0, 20000}};
    uint64_t given0 = count(&mrn_idws_given);
    for (unsigned threads = 1; threads <= 4; threads++)
        for (size_t s = 0; s < sizeof schedules / sizeof schedules[0]; s++)
            for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++)
                for (int det = 0; det <= 1; det++) {
                    merino_for_opts o = {0};
                    CHECK(merino_schedule_parse(schedules[s], &o) == 0);
                    o.deterministic = det;
                    check_set_context("team of %u, %s%s, [%lld, %lld)", threads, schedules[s],
                                      det ? " deterministic" : "", (long long)ranges[r][0], (long long)ranges[r][1]);
                    team_loop(threads, ranges[r][0], ranges[r][1], &o);
                }
    check_set_context(NULL);
    CHECK_MSG(count(&mrn_idws_given) > given0, "no thread of a team ever donated");
}

/* A team of one thread sends no signal; a default schedule is idws and needs no merino pool. */
static void check_team_of_one(void) {
    uint64_t sent0 = count(&mrn_idws_sent);
    merino_for_opts o = {.schedule = MERINO_SCHEDULE_IDWS};
    team_loop(1, 0, 5000, &o);
    CHECK_EQ_UINT(count(&mrn_idws_sent), sent0);
}

/* ---- OpenMP ------------------------------------------------------------------------------------- */

#if defined(_OPENMP)
/* What the user had: an omp for with a reduction. */
static uint64_t omp_for_sum(int64_t n) {
    uint64_t total = 0;
#pragma omp parallel num_threads(2)
    {
        uint64_t s = 0;
#pragma omp for
        for (int64_t i = 0; i < n; i++) s += work(i);
#pragma omp atomic
        total += s;
    }
    return total;
}

static void check_omp(void) {
    int64_t n = 30000;
    uint64_t sent0 = count(&mrn_idws_sent);
    for (int threads = 1; threads <= 4; threads++)
        for (int rep = 0; rep < 3; rep++) {
            counted c = {0, calloc((size_t)n, 1)};
            CHECK(c.hits != NULL);
            uint64_t total = 0;
            int team = 0;
#pragma omp parallel num_threads(threads)
            {
                mine m = {&c, 0, 0}; /* thread-private, as the omp for's reduction variable */
                merino_for_omp(0, n, body, &m, NULL);
#pragma omp atomic
                total += m.sum;
#pragma omp single
                team = omp_get_num_threads();
            }
            check_set_context("omp team of %d (asked %d), rep %d", team, threads, rep);
            for (int64_t i = 0; i < n; i++) CHECK_MSG(c.hits[i] == 1, "index %lld ran %d times", (long long)i, c.hits[i]);
            CHECK_EQ_UINT(total, omp_for_sum(n));
            free(c.hits);
        }
    check_set_context(NULL);
    printf("omp: %llu signals\n", (unsigned long long)(count(&mrn_idws_sent) - sent0));

    /* Two loops in a row in one region, the second idws-poll over a negative range. */
    counted c = {-500, calloc(1000, 1)};
    uint64_t total = 0;
#pragma omp parallel num_threads(3)
    {
        mine m = {&c, 0, 0};
        merino_for_omp(-500, 0, body, &m, NULL);
        merino_for_opts o = {.schedule = MERINO_SCHEDULE_IDWS_POLL};
        merino_for_omp(0, 500, body, &m, &o);
#pragma omp atomic
        total += m.sum;
    }
    for (int i = 0; i < 1000; i++) CHECK_MSG(c.hits[i] == 1, "index %d ran %d times", i - 500, c.hits[i]);
    CHECK_EQ_UINT(total, serial_sum(-500, 500));
    free(c.hits);

    /* Outside any region: a team of one, one call, no signal. */
    sent0 = count(&mrn_idws_sent);
    c = (counted){0, calloc(1000, 1)};
    mine m = {&c, 0, 0};
    merino_for_omp(0, 1000, body, &m, NULL);
    CHECK_EQ_INT(m.ranges, 1);
    CHECK_EQ_UINT(m.sum, serial_sum(0, 1000));
    CHECK_EQ_UINT(count(&mrn_idws_sent), sent0);
    free(c.hits);
}
#endif

int main(void) {
    unsetenv("MERINO_IDWS_SIGNAL");
    unsetenv("MERINO_SCHEDULE");
    check_team_of_one();
    check_team();
#if defined(_OPENMP)
    check_omp();
    puts("test_loop_omp: ok (teams of pthreads, OpenMP)");
#else
    puts("test_loop_omp: ok (teams of pthreads; OpenMP not tested: this build has none)");
#endif
    return 0;
}
