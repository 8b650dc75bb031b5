/* for_clauses.c — the worksharing loop's other clauses: collapse (2 and 3 levels, rectangular and
 * triangular, int and unsigned long long), lastprivate (of a variable and of the loop variable,
 * under each schedule) and lastprivate(conditional:), firstprivate and private, nowait (two static
 * loops with the same bounds pair their iterations), order(concurrent), the loop construct, and
 * loops inside nested teams.
 */
#include "loop_check.h"

/* collapse(2) over a rectangle: one logical space, dealt as one loop (static,2 round-robin). */
static void collapse_rect(void) {
    int team = ot_threads();
    enum { NI = 37, NJ = 9 }; /* j from -5 by 3 */
    lc_reset(NI * NJ);
#pragma omp parallel for collapse(2) schedule(static, 2)
    for (int i = 0; i < NI; i++)
        for (int j = -5; j < -5 + 3 * NJ; j += 3) lc_record(i * NJ + (j + 5) / 3);
    lc_verify("collapse(2) static,2", NI * NJ, LC_STATIC_CHUNK, 2, team, 1);
    lc_reset(NI * NJ);
#pragma omp parallel
    {
#pragma omp for collapse(2) schedule(dynamic, 4)
        for (int i = 0; i < NI; i++)
            for (int j = -5; j < -5 + 3 * NJ; j += 3) lc_record(i * NJ + (j + 5) / 3);
    }
    lc_verify("collapse(2) dynamic,4", NI * NJ, LC_DYNAMIC, 4, team, 0);

    enum { A = 7, B = 5, C = 11 };
    lc_reset(A * B * C);
#pragma omp parallel for collapse(3) schedule(guided, 3)
    for (int a = 0; a < A; a++)
        for (int b = B - 1; b >= 0; b--)
            for (int c = 0; c < C; c++) lc_record((a * B + (B - 1 - b)) * C + c);
    lc_verify("collapse(3) guided,3", A * B * C, LC_GUIDED, 3, team, 0);

    lc_reset(NI * NJ);
#pragma omp parallel for collapse(2) schedule(dynamic, 5)
    for (unsigned long long i = 0xF000000000000000ULL; i < 0xF000000000000000ULL + NI; i++)
        for (unsigned long long j = 0; j < NJ; j++)
            lc_record((long)((i - 0xF000000000000000ULL) * NJ + j));
    lc_verify("collapse(2) unsigned long long dynamic,5", NI * NJ, LC_DYNAMIC, 5, team, 0);
    OT_SAY("collapse(2), collapse(3), unsigned long long collapse: every iteration once, as scheduled");
}

/* A triangle (j < i): the inner bounds depend on the outer variable (OpenMP 5.0; gcc allows no
 * schedule clause there), orphaned and combined. */
static void collapse_triangle(void) {
    enum { N = 60, T = N * (N - 1) / 2 };
    int team = ot_threads();
    lc_reset(T);
#pragma omp parallel for collapse(2)
    for (int i = 0; i < N; i++)
        for (int j = 0; j < i; j++) lc_record(i * (i - 1) / 2 + j);
    lc_verify("triangular collapse(2), combined", T, LC_ANY, 1, team, 0);
    lc_reset(T);
#pragma omp parallel
    {
#pragma omp for collapse(2)
        for (int i = 0; i < N; i++)
            for (int j = i + 1; j < N; j++) lc_record(j * (j - 1) / 2 + i);
    }
    lc_verify("triangular collapse(2), orphaned", T, LC_ANY, 1, team, 0);
    OT_SAY("triangular collapse(2): every iteration once");
}

#define LASTPRIVATE_TEST(fn, ...)                                                                  \
    static void fn(int n, const char *label) {                                                     \
        int x = -1, i = -1;                                                                        \
        long y = -1;                                                                               \
        OT_PRAGMA(omp parallel for schedule(__VA_ARGS__) lastprivate(x, i))                        \
        for (i = 3; i < 3 + 4 * n; i += 4) x = i * 2 + 1;                                          \
        CHECK_MSG(x == (3 + 4 * (n - 1)) * 2 + 1, "%s: lastprivate x = %d", label, x);             \
        CHECK_MSG(i == 3 + 4 * n, "%s: lastprivate loop variable = %d", label, i);                 \
        OT_PRAGMA(omp parallel)                                                                    \
        {                                                                                          \
            OT_PRAGMA(omp for schedule(__VA_ARGS__) lastprivate(y))                                \
            for (int k = n - 1; k >= 0; k--) y = (long)k * 10;                                     \
        }                                                                                          \
        CHECK_MSG(y == 0, "%s: lastprivate of a decreasing loop = %ld", label, y);                 \
    }
LASTPRIVATE_TEST(lp_static, static)
LASTPRIVATE_TEST(lp_static3, static, 3)
LASTPRIVATE_TEST(lp_dynamic, dynamic, 3)
LASTPRIVATE_TEST(lp_guided, guided)
LASTPRIVATE_TEST(lp_runtime, runtime)

static void lastprivate(void) {
    static const int sizes[] = {1, 2, 3, 100, 1001};
    for (unsigned s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        int n = sizes[s];
        lp_static(n, "static");
        lp_static3(n, "static,3");
        lp_dynamic(n, "dynamic,3");
        lp_guided(n, "guided");
        lp_runtime(n, "runtime");
    }
    /* collapse + lastprivate: the values of the lexically last iteration */
    int li = -1, lj = -1, last = -1;
#pragma omp parallel for collapse(2) lastprivate(li, lj, last) schedule(dynamic, 3)
    for (li = 0; li < 13; li++)
        for (lj = 0; lj < 7; lj++) last = li * 100 + lj;
    CHECK_EQ_INT(last, 12 * 100 + 6);
    CHECK_EQ_INT(li, 13);
    CHECK_EQ_INT(lj, 7);

    /* lastprivate(conditional:): the value from the last iteration that assigned it */
    enum { N = 1000 };
    static int a[N];
    for (int k = 0; k < N; k++) a[k] = (k * 37) % 101 == 5 ? 1 : 0;
    int want = -1;
    for (int k = 0; k < N; k++)
        if (a[k]) want = k;
    for (int round = 0; round < 3; round++) {
        int got = -1;
        if (round == 0) {
#pragma omp parallel for lastprivate(conditional : got) schedule(static)
            for (int k = 0; k < N; k++)
                if (a[k]) got = k;
        } else if (round == 1) {
#pragma omp parallel for lastprivate(conditional : got) schedule(dynamic, 7)
            for (int k = 0; k < N; k++)
                if (a[k]) got = k;
        } else {
#pragma omp parallel for lastprivate(conditional : got) schedule(guided)
            for (int k = 0; k < N; k++)
                if (a[k]) got = k;
        }
        CHECK_EQ_INT(got, want);
    }
    OT_SAY("lastprivate under 5 schedules, with collapse, and lastprivate(conditional:): right");
}

static void private_firstprivate(void) {
    int base = 1000, scratch = -7, bad = 0;
    long sum = 0;
#pragma omp parallel for firstprivate(base) private(scratch) reduction(+ : sum, bad) schedule(dynamic, 2)
    for (int i = 0; i < 500; i++) {
        bad += base < 1000; /* each thread's copy starts at 1000 and only grows */
        scratch = i;
        base++;
        sum += scratch;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(sum, 499 * 500 / 2);
    CHECK_EQ_INT(base, 1000);
    CHECK_EQ_INT(scratch, -7);
    OT_SAY("firstprivate and private on a loop: right");
}

/* Two static loops with the same bounds and chunk give each thread the same iterations: the second
 * may read, without a barrier, what the same thread wrote in the first (nowait). */
static void nowait(void) {
    enum { N = 2000 };
    static int a[N], b[N], c[N], d[N];
    int bad = 0;
#pragma omp parallel reduction(+ : bad)
    {
#pragma omp for schedule(static) nowait
        for (int i = 0; i < N; i++) a[i] = i * 3;
#pragma omp for schedule(static) nowait
        for (int i = 0; i < N; i++) b[i] = a[i] + 1;
#pragma omp for schedule(static, 7) nowait
        for (int i = 0; i < N; i++) c[i] = i;
#pragma omp for schedule(static, 7) nowait
        for (int i = 0; i < N; i++) c[i] += 5;
#pragma omp for schedule(dynamic) nowait
        for (int i = 0; i < N; i++) d[i] = -1;
#pragma omp barrier
#pragma omp for schedule(guided)
        for (int i = 0; i < N; i++) bad += b[i] != i * 3 + 1 || c[i] != i + 5 || d[i] != -1;
    }
    CHECK_EQ_INT(bad, 0);
    OT_SAY("nowait: static loops pair their iterations, a barrier completes the rest");
}

static void loop_construct(void) {
    enum { N = 777 };
    static atomic_int hits[N];
    for (int i = 0; i < N; i++) atomic_store(&hits[i], 0);
#pragma omp parallel loop
    for (int i = 0; i < N; i++) atomic_fetch_add_explicit(&hits[i], 1, memory_order_relaxed);
#pragma omp parallel
    {
#pragma omp loop bind(parallel)
        for (int i = 0; i < N; i++) atomic_fetch_add_explicit(&hits[i], 1, memory_order_relaxed);
#pragma omp for order(concurrent)
        for (int i = 0; i < N; i++) atomic_fetch_add_explicit(&hits[i], 1, memory_order_relaxed);
    }
    for (int i = 0; i < N; i++) CHECK_EQ_INT(atomic_load(&hits[i]), 3);
    OT_SAY("parallel loop, loop bind(parallel), for order(concurrent): every iteration once each");
}

/* Each team of a nested region shares its own loops. */
static void nested_loops(void) {
    enum { OUTER = 3, N = 200 };
    static atomic_int hits[OUTER][N];
    for (int o = 0; o < OUTER; o++)
        for (int i = 0; i < N; i++) atomic_store(&hits[o][i], 0);
    omp_set_max_active_levels(2);
#pragma omp parallel num_threads(OUTER)
    {
        int o = omp_get_thread_num();
#pragma omp parallel for schedule(dynamic, 3) num_threads(3)
        for (int i = 0; i < N; i++) atomic_fetch_add_explicit(&hits[o][i], 1, memory_order_relaxed);
#pragma omp parallel num_threads(2)
        {
#pragma omp for schedule(guided)
            for (int i = 0; i < N; i++) atomic_fetch_add_explicit(&hits[o][i], 1, memory_order_relaxed);
        }
    }
    omp_set_max_active_levels(1);
    for (int o = 0; o < OUTER; o++)
        for (int i = 0; i < N; i++) CHECK_EQ_INT(atomic_load(&hits[o][i]), 2);
    OT_SAY("loops of nested teams: every iteration once per team");
}

int main(void) {
    collapse_rect();
    collapse_triangle();
    lastprivate();
    private_firstprivate();
    nowait();
    loop_construct();
    nested_loops();
    return 0;
}
