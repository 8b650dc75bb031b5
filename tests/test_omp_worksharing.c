/* test_omp_worksharing.c — libmerino_omp's worksharing (src/omp/gomp_loop.c, loopsched.c,
 * gomp_ordered.c, gomp_work.c, work.c), compiled with gcc -fopenmp and linked with merino's
 * runtime: every loop schedule (static, static,K, dynamic, guided, runtime with each run-sched-var
 * including merino's auto and steal) runs each iteration exactly once, for long and unsigned long
 * long loops, counting up and down, with odd steps, empty loops and bounds at LONG_MAX; nowait
 * loops far ahead of each other (the work-share ring wraps); ordered loops run their ordered
 * regions in order; doacross loops respect their sinks; sections run once each; single runs once
 * and copyprivate reaches every thread — at 1, 2, 3 and 8 threads. */
#include "check.h"

#include <limits.h>
#include <omp.h>

static const int team_sizes[] = {1, 2, 3, 8};
#define NTEAMS (sizeof team_sizes / sizeof team_sizes[0])

/* ---- each iteration once ---------------------------------------------------------------------------- */

#define N 5000
static unsigned char hits[N];

static void reset(void) { memset(hits, 0, sizeof hits); }
static void hit(long i) {
    CHECK_MSG(i >= 0 && i < N, "iteration %ld outside the loop", i);
    __atomic_fetch_add(&hits[i], 1, __ATOMIC_RELAXED);
}
static void check_once(long lo, long hi, long step, const char *what) {
    for (long i = 0; i < N; i++) {
        int expect = i >= lo && i < hi && (i - lo) % step == 0;
        CHECK_MSG(hits[i] == expect, "%s: iteration %ld ran %d times (expected %d)", what, i, hits[i], expect);
    }
}

static void loops_long(int nt) {
    check_set_context("long loops, %d threads", nt);
    reset();
#pragma omp parallel for num_threads(nt) schedule(dynamic)
    for (long i = 0; i < N; i++) hit(i);
    check_once(0, N, 1, "dynamic");
    reset();
#pragma omp parallel for num_threads(nt) schedule(dynamic, 7)
    for (long i = 3; i < N; i += 5) hit(i);
    check_once(3, N, 5, "dynamic,7 step 5");
    reset();
#pragma omp parallel for num_threads(nt) schedule(guided)
    for (long i = N - 1; i >= 0; i--) hit(i);
    check_once(0, N, 1, "guided down");
    reset();
#pragma omp parallel for num_threads(nt) schedule(guided, 13)
    for (long i = N - 2; i > 10; i -= 3) hit(i);
    for (long i = N - 2; i > 10; i -= 3) CHECK_MSG(hits[i] == 1, "guided,13 down by 3: %ld", i);
    reset();
#pragma omp parallel for num_threads(nt) schedule(static, 3)
    for (long i = 0; i < N; i++) hit(i);
    check_once(0, N, 1, "static,3");
    /* runtime: every kind run-sched-var may hold, merino's auto (4) and steal (5) included */
    static const int kinds[][2] = {{1, 0}, {1, 4}, {2, 1}, {2, 9}, {3, 1}, {3, 11}, {4, 0}, {5, 0}, {5, 6},
                                   {(int)(0x80000000u | 2), 3}};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        omp_set_schedule((omp_sched_t)kinds[k][0], kinds[k][1]);
        reset();
#pragma omp parallel for num_threads(nt) schedule(runtime)
        for (long i = 0; i < N; i++) hit(i);
        char what[64];
        snprintf(what, sizeof what, "runtime kind %#x chunk %d", kinds[k][0], kinds[k][1]);
        check_once(0, N, 1, what);
        reset();
#pragma omp parallel for num_threads(nt) schedule(runtime)
        for (long i = N - 1; i >= 7; i -= 2) hit(i);
        for (long i = N - 1; i >= 7; i -= 2) CHECK_MSG(hits[i] == 1, "%s down: %ld", what, i);
    }
    omp_set_schedule(omp_sched_dynamic, 1);
    /* empty loops and loops at the ends of long */
    int ran = 0;
#pragma omp parallel for num_threads(nt) schedule(dynamic) reduction(+ : ran)
    for (long i = 10; i < 10; i++) ran++;
    CHECK_EQ_INT(ran, 0);
    ran = 0;
#pragma omp parallel for num_threads(nt) schedule(guided) reduction(+ : ran)
    for (long i = LONG_MAX - 100; i < LONG_MAX - 5; i += 7) ran++; /* the last step stays in range */
    CHECK_EQ_INT(ran, 14);
    ran = 0;
#pragma omp parallel for num_threads(nt) schedule(dynamic, 2) reduction(+ : ran)
    for (long i = LONG_MIN + 10; i > LONG_MIN + 2; i -= 3) ran++;
    CHECK_EQ_INT(ran, 3);
}

static void loops_ull(int nt) {
    check_set_context("unsigned long long loops, %d threads", nt);
    reset();
#pragma omp parallel for num_threads(nt) schedule(dynamic, 3)
    for (unsigned long long i = 0; i < N; i++) hit((long)i);
    check_once(0, N, 1, "ull dynamic,3");
    reset();
#pragma omp parallel for num_threads(nt) schedule(guided)
    for (unsigned long long i = N - 1; i > 4; i -= 4) hit((long)i);
    for (unsigned long long i = N - 1; i > 4; i -= 4) CHECK_MSG(hits[i] == 1, "ull guided down: %llu", i);
    omp_set_schedule(omp_sched_auto, 0);
    reset();
#pragma omp parallel for num_threads(nt) schedule(runtime)
    for (unsigned long long i = 1; i < N; i += 2) hit((long)i);
    check_once(1, N, 2, "ull runtime auto");
    omp_set_schedule(omp_sched_dynamic, 1);
    unsigned long long top = ULLONG_MAX;
    int ran = 0;
#pragma omp parallel for num_threads(nt) schedule(dynamic) reduction(+ : ran)
    for (unsigned long long i = top - 50; i < top; i += 10) ran++;
    CHECK_EQ_INT(ran, 5);
}

/* Many nowait loops in a row: threads run up to the ring's size ahead of the slowest one. */
static void nowait_ring(int nt) {
    check_set_context("nowait loops, %d threads", nt);
    static unsigned char cell[40][64];
    memset(cell, 0, sizeof cell);
#pragma omp parallel num_threads(nt)
    {
        if (omp_get_thread_num() == 0) {
            struct timespec ts = {0, 2000000};
            nanosleep(&ts, NULL); /* thread 0 starts late: the others run ahead */
        }
        for (int l = 0; l < 40; l++) {
#pragma omp for schedule(dynamic) nowait
            for (int i = 0; i < 64; i++) __atomic_fetch_add(&cell[l][i], 1, __ATOMIC_RELAXED);
        }
    }
    for (int l = 0; l < 40; l++)
        for (int i = 0; i < 64; i++) CHECK_MSG(cell[l][i] == 1, "loop %d iteration %d ran %d times", l, i, cell[l][i]);
}

/* ---- ordered and doacross ------------------------------------------------------------------------------ */

static void ordered(int nt) {
    check_set_context("ordered, %d threads", nt);
    static const int chunks[] = {1, 3, 17};
    for (int k = 0; k < 3; k++) {
        int seen[300], n = 0;
#pragma omp parallel for ordered schedule(dynamic, chunks[k]) num_threads(nt)
        for (int i = 0; i < 300; i++) {
            if (i % 7 == 3) continue; /* iterations without an ordered region */
#pragma omp ordered
            seen[n++] = i;
        }
        int expect = 0;
        for (int j = 0; j < n; j++, expect++) {
            if (expect % 7 == 3) expect++;
            CHECK_MSG(seen[j] == expect, "dynamic,%d: position %d holds %d, expected %d", chunks[k], j, seen[j], expect);
        }
        n = 0;
#pragma omp parallel for ordered schedule(static, chunks[k]) num_threads(nt)
        for (int i = 0; i < 300; i++) {
#pragma omp ordered
            seen[n++] = i;
        }
        for (int j = 0; j < 300; j++) CHECK_MSG(seen[j] == j, "static,%d: position %d holds %d", chunks[k], j, seen[j]);
    }
    int seen[100], n = 0;
#pragma omp parallel for ordered schedule(guided) num_threads(nt)
    for (int i = 99; i >= 0; i--) {
#pragma omp ordered
        seen[n++] = i;
    }
    for (int j = 0; j < 100; j++) CHECK_MSG(seen[j] == 99 - j, "guided down: position %d holds %d", j, seen[j]);
}

static void doacross(int nt) {
    check_set_context("doacross, %d threads", nt);
    enum { R = 40, C = 30 };
    static long a[R][C];
    memset(a, 0, sizeof a);
    for (int j = 0; j < C; j++) a[0][j] = 1;
    for (int i = 0; i < R; i++) a[i][0] = 1;
    /* a[i][j] = a[i-1][j] + a[i][j-1]: each iteration needs its two predecessors */
#pragma omp parallel for ordered(2) schedule(static, 1) num_threads(nt)
    for (int i = 1; i < R; i++)
        for (int j = 1; j < C; j++) {
#pragma omp ordered depend(sink : i - 1, j) depend(sink : i, j - 1)
            a[i][j] = (a[i - 1][j] + a[i][j - 1]) % 1000003;
#pragma omp ordered depend(source)
        }
    long ref[R][C];
    for (int j = 0; j < C; j++) ref[0][j] = 1;
    for (int i = 0; i < R; i++) ref[i][0] = 1;
    for (int i = 1; i < R; i++)
        for (int j = 1; j < C; j++) ref[i][j] = (ref[i - 1][j] + ref[i][j - 1]) % 1000003;
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++) CHECK_MSG(a[i][j] == ref[i][j], "a[%d][%d] = %ld, expected %ld", i, j, a[i][j], ref[i][j]);
    /* one dimension, dynamic schedule, a sink two iterations back */
    static long b[500];
    b[0] = b[1] = 1;
#pragma omp parallel for ordered(1) schedule(dynamic, 3) num_threads(nt)
    for (int i = 2; i < 500; i++) {
#pragma omp ordered depend(sink : i - 2)
        b[i] = (b[i - 2] * 3 + 1) % 1000003;
#pragma omp ordered depend(source)
    }
    long r[500];
    r[0] = r[1] = 1;
    for (int i = 2; i < 500; i++) r[i] = (r[i - 2] * 3 + 1) % 1000003;
    for (int i = 0; i < 500; i++) CHECK_MSG(b[i] == r[i], "b[%d] = %ld, expected %ld", i, b[i], r[i]);
}

/* ---- sections, single, copyprivate ------------------------------------------------------------------------- */

static void sections_single(int nt) {
    check_set_context("sections and single, %d threads", nt);
    int count[5] = {0};
    int singles = 0, copied_bad = 0;
#pragma omp parallel num_threads(nt) reduction(+ : copied_bad)
    {
        for (int rep = 0; rep < 20; rep++) {
#pragma omp sections
            {
#pragma omp section
                __atomic_fetch_add(&count[0], 1, __ATOMIC_RELAXED);
#pragma omp section
                __atomic_fetch_add(&count[1], 1, __ATOMIC_RELAXED);
#pragma omp section
                __atomic_fetch_add(&count[2], 1, __ATOMIC_RELAXED);
#pragma omp section
                __atomic_fetch_add(&count[3], 1, __ATOMIC_RELAXED);
#pragma omp section
                __atomic_fetch_add(&count[4], 1, __ATOMIC_RELAXED);
            }
#pragma omp single nowait
            __atomic_fetch_add(&singles, 1, __ATOMIC_RELAXED);
            int value;
#pragma omp single copyprivate(value)
            value = 1000 + rep;
            copied_bad += value != 1000 + rep;
        }
    }
    for (int s = 0; s < 5; s++) CHECK_MSG(count[s] == 20, "section %d ran %d times (expected 20)", s, count[s]);
    CHECK_EQ_INT(singles, 20);
    CHECK_EQ_INT(copied_bad, 0);
    int pc[3] = {0};
#pragma omp parallel sections num_threads(nt)
    {
#pragma omp section
        pc[0]++;
#pragma omp section
        pc[1]++;
#pragma omp section
        pc[2]++;
    }
    CHECK(pc[0] == 1 && pc[1] == 1 && pc[2] == 1);
}

/* An orphaned worksharing construct outside any region runs as in a team of one. */
static void orphaned(void) {
    check_set_context("orphaned loop");
    reset();
#pragma omp for schedule(dynamic, 4)
    for (long i = 0; i < N; i++) hit(i);
    check_once(0, N, 1, "orphaned dynamic,4");
    int s = 0;
#pragma omp sections
    {
#pragma omp section
        s += 1;
#pragma omp section
        s += 10;
    }
    CHECK_EQ_INT(s, 11);
}

int main(void) {
    for (size_t t = 0; t < NTEAMS; t++) {
        int nt = team_sizes[t];
        loops_long(nt);
        loops_ull(nt);
        nowait_ring(nt);
        ordered(nt);
        doacross(nt);
        sections_single(nt);
    }
    orphaned();
    printf("test_omp_worksharing: ok\n");
    return 0;
}
