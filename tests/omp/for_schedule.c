/* for_schedule.c — the worksharing loop under every schedule clause: static, static with a chunk
 * size, dynamic, guided, auto, the monotonic and nonmonotonic modifiers, and simd:, each on loops
 * of int (increasing and decreasing, steps other than one), long beyond 32 bits, unsigned int and
 * unsigned long long beyond LLONG_MAX (libgomp's _ull entry points), with 0, 1, 2, 1000 and 1237
 * iterations, orphaned (omp for in a parallel region) and combined (parallel for; with constant
 * bounds gcc starts the loop with the region: GOMP_parallel_loop_*). Each loop:
 * every iteration exactly once, and what its schedule promises (loop_check.h).
 * schedule(runtime) is for_runtime.c's.
 */
#include "loop_check.h"

#include <limits.h>

static void say_verify(const char *sched, const char *shape, int n, enum lc_kind kind, int chunk,
                       int mono) {
    char what[160];
    snprintf(what, sizeof what, "schedule(%s) %s", sched, shape);
    lc_verify(what, n, kind, chunk, ot_threads(), mono);
}

#define LOW (-37)
#define LBASE (1L << 40)
#define UBASE 0xF000000000000000ULL

/* SCHED_TEST(fn, clause...): fn(n, kind, chunk, mono, label) runs the clause's loops of n
 * iterations in every shape and checks each. */
#define SCHED_TEST(fn, ...)                                                                        \
    static void fn(int n, enum lc_kind kind, int chunk, int mono, const char *label) {             \
        lc_reset(n);                                                                               \
        OT_PRAGMA(omp parallel)                                                                    \
        {                                                                                          \
            OT_PRAGMA(omp for schedule(__VA_ARGS__))                                               \
            for (int i = LOW; i < LOW + 3 * n; i += 3) lc_record((i - LOW) / 3);                   \
        }                                                                                          \
        say_verify(label, "int, step 3, orphaned", n, kind, chunk, mono);                          \
        lc_reset(n);                                                                               \
        OT_PRAGMA(omp parallel for schedule(__VA_ARGS__))                                          \
        for (int i = LOW + 2 * n; i > LOW; i -= 2) lc_record((LOW + 2 * n - i) / 2);               \
        say_verify(label, "int, step -2, combined", n, kind, chunk, mono);                         \
        lc_reset(n);                                                                               \
        OT_PRAGMA(omp parallel)                                                                    \
        {                                                                                          \
            OT_PRAGMA(omp for schedule(__VA_ARGS__))                                               \
            for (long i = LBASE; i < LBASE + n; i++) lc_record(i - LBASE);                         \
        }                                                                                          \
        say_verify(label, "long from 2^40, orphaned", n, kind, chunk, mono);                       \
        lc_reset(n);                                                                               \
        OT_PRAGMA(omp parallel for schedule(__VA_ARGS__))                                          \
        for (unsigned i = UINT_MAX - 7u * (unsigned)n; i < UINT_MAX; i += 7u)                      \
            lc_record((long)((i - (UINT_MAX - 7u * (unsigned)n)) / 7u));                           \
        say_verify(label, "unsigned, step 7, combined", n, kind, chunk, mono);                     \
        lc_reset(n);                                                                               \
        OT_PRAGMA(omp parallel)                                                                    \
        {                                                                                          \
            OT_PRAGMA(omp for schedule(__VA_ARGS__))                                               \
            for (unsigned long long u = UBASE; u < UBASE + 5ULL * (unsigned)n; u += 5)             \
                lc_record((long)((u - UBASE) / 5));                                                \
        }                                                                                          \
        say_verify(label, "unsigned long long from 2^63+, step 5, orphaned", n, kind, chunk,       \
                   mono);                                                                          \
        lc_reset(n);                                                                               \
        OT_PRAGMA(omp parallel for schedule(__VA_ARGS__))                                          \
        for (unsigned long long u = UBASE + (unsigned)n; u > UBASE; u--)                           \
            lc_record((long)(UBASE + (unsigned)n - u));                                            \
        say_verify(label, "unsigned long long, step -1, combined", n, kind, chunk, mono);          \
        if (n != 1000) return;                                                                     \
        /* constant bounds: gcc starts the loop with the region (GOMP_parallel_loop_*) */          \
        lc_reset(1000);                                                                            \
        OT_PRAGMA(omp parallel for schedule(__VA_ARGS__))                                          \
        for (int i = 0; i < 1000; i++) lc_record(i);                                               \
        say_verify(label, "int, constant bounds, combined", n, kind, chunk, mono);                 \
        lc_reset(1000);                                                                            \
        OT_PRAGMA(omp parallel for schedule(__VA_ARGS__))                                          \
        for (unsigned long long u = UBASE; u < UBASE + 1000; u++) lc_record((long)(u - UBASE));    \
        say_verify(label, "unsigned long long, constant bounds, combined", n, kind, chunk, mono);  \
    }

SCHED_TEST(t_static, static)
SCHED_TEST(t_static1, static, 1)
SCHED_TEST(t_static4, static, 4)
SCHED_TEST(t_dynamic, dynamic)
SCHED_TEST(t_dynamic3, dynamic, 3)
SCHED_TEST(t_guided, guided)
SCHED_TEST(t_guided5, guided, 5)
SCHED_TEST(t_auto, auto)
SCHED_TEST(t_mono_static2, monotonic : static, 2)
SCHED_TEST(t_mono_dynamic2, monotonic : dynamic, 2)
SCHED_TEST(t_nonmono_dynamic4, nonmonotonic : dynamic, 4)
SCHED_TEST(t_mono_guided3, monotonic : guided, 3)
SCHED_TEST(t_nonmono_guided, nonmonotonic : guided)

/* simd: rounds the chunk size up to the simd width; on a loop that is also a simd loop. */
static void t_simd(int n) {
    lc_reset(n);
#pragma omp parallel for simd schedule(simd : dynamic, 5)
    for (int i = 0; i < n; i++) lc_record(i);
    say_verify("simd:dynamic,5", "int, parallel for simd", n, LC_ANY, 1, 0);
    lc_reset(n);
#pragma omp parallel for simd schedule(simd : static, 3)
    for (int i = 0; i < n; i++) lc_record(i);
    say_verify("simd:static,3", "int, parallel for simd", n, LC_ANY, 1, 0);
}

int main(void) {
    static const int sizes[] = {0, 1, 2, 1000, 1237};
    for (unsigned s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        int n = sizes[s];
        t_static(n, LC_STATIC, 0, 1, "static");
        if (n == 1237) OT_SAY("schedule(static), 1237 iterations, per thread: %s", lc_counts(n, ot_threads()));
        t_static1(n, LC_STATIC_CHUNK, 1, 1, "static,1");
        t_static4(n, LC_STATIC_CHUNK, 4, 1, "static,4");
        t_dynamic(n, LC_DYNAMIC, 1, 0, "dynamic");
        t_dynamic3(n, LC_DYNAMIC, 3, 0, "dynamic,3");
        t_guided(n, LC_GUIDED, 1, 0, "guided");
        t_guided5(n, LC_GUIDED, 5, 0, "guided,5");
        t_auto(n, LC_ANY, 1, 0, "auto");
        t_mono_static2(n, LC_STATIC_CHUNK, 2, 1, "monotonic:static,2");
        t_mono_dynamic2(n, LC_DYNAMIC, 2, 1, "monotonic:dynamic,2");
        t_nonmono_dynamic4(n, LC_DYNAMIC, 4, 0, "nonmonotonic:dynamic,4");
        t_mono_guided3(n, LC_GUIDED, 3, 1, "monotonic:guided,3");
        t_nonmono_guided(n, LC_GUIDED, 1, 0, "nonmonotonic:guided");
        t_simd(n);
    }
    OT_SAY("14 schedules x 8 loop shapes x 5 sizes: every iteration once, as each schedule promises");
    return 0;
}
