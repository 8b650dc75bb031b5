/* loop_check.h — recording which thread ran each logical iteration of a worksharing loop, and the
 * checks of what each schedule promises (for_schedule.c, for_runtime.c, ordered.c).
 *
 *   lc_reset(n)            before a loop of n logical iterations
 *   lc_record(k)           in the body, for logical iteration k (0-based, in the loop's order)
 *   lc_verify(what, n, kind, chunk, team, monotonic)   after it
 *
 * What each kind promises (OpenMP 5.1, 2.11.4):
 *   LC_STATIC        no chunk size: at most one chunk per thread, of sizes differing by at most one
 *   LC_STATIC_CHUNK  chunks of `chunk` iterations dealt round-robin in thread order
 *   LC_DYNAMIC       chunks of `chunk` iterations, each run by one thread
 *   LC_GUIDED        chunks of at least `chunk` iterations (but the last)
 *   LC_ANY           only: every iteration exactly once (auto, and schedules a runtime chooses)
 * monotonic: each thread runs its iterations in increasing logical order. */
#ifndef MERINO_OMP_LOOP_CHECK_H
#define MERINO_OMP_LOOP_CHECK_H

#include "omp_test.h"

enum { LC_MAX = 4096, LC_MAXT = 64 };
enum lc_kind { LC_STATIC, LC_STATIC_CHUNK, LC_DYNAMIC, LC_GUIDED, LC_ANY };

static atomic_int lc_hits[LC_MAX];
static int lc_owner[LC_MAX];
static long lc_last[LC_MAXT];       /* the last logical iteration each thread ran */
static int lc_backwards[LC_MAXT];   /* how often a thread went back in logical order */

static void lc_reset(int n) {
    CHECK(n <= LC_MAX);
    for (int k = 0; k < n; k++) {
        atomic_store_explicit(&lc_hits[k], 0, memory_order_relaxed);
        lc_owner[k] = -1;
    }
    for (int t = 0; t < LC_MAXT; t++) {
        lc_last[t] = -1;
        lc_backwards[t] = 0;
    }
}

static inline void lc_record(long k) {
    int t = omp_get_thread_num();
    if (k < 0 || k >= LC_MAX || t >= LC_MAXT) {
        fprintf(stderr, "loop_check: logical iteration %ld (thread %d) out of range\n", k, t);
        _exit(1);
    }
    atomic_fetch_add_explicit(&lc_hits[k], 1, memory_order_relaxed); /* a count; read after the join */
    lc_owner[k] = t;
    if (k <= lc_last[t]) lc_backwards[t]++;
    lc_last[t] = k;
}

CHECK__UNUSED void lc_verify(const char *what, int n, enum lc_kind kind, int chunk, int team, int monotonic) {
    check_set_context("%s, %d iterations, team of %d", what, n, team);
    for (int k = 0; k < n; k++)
        CHECK_MSG(atomic_load(&lc_hits[k]) == 1, "logical iteration %d ran %d times", k,
                  atomic_load(&lc_hits[k]));
    for (int k = 0; k < n; k++) CHECK(lc_owner[k] >= 0 && lc_owner[k] < team);
    if (kind == LC_STATIC) {
        int first[LC_MAXT], count[LC_MAXT] = {0};
        for (int k = 0; k < n; k++) {
            int t = lc_owner[k];
            if (count[t]++ == 0) first[t] = k;
            CHECK_MSG(k == first[t] + count[t] - 1, "thread %d's iterations are not one chunk", t);
        }
        int lo = n, hi = 0;
        for (int t = 0; t < team; t++) {
            lo = count[t] < lo ? count[t] : lo;
            hi = count[t] > hi ? count[t] : hi;
        }
        CHECK_MSG(hi - lo <= 1, "chunk sizes from %d to %d", lo, hi);
    } else if (kind == LC_STATIC_CHUNK) {
        for (int k = 0; k < n; k++)
            CHECK_MSG(lc_owner[k] == (k / chunk) % team, "iteration %d ran on thread %d, not %d", k,
                      lc_owner[k], (k / chunk) % team);
    } else if (kind == LC_DYNAMIC) {
        for (int k = 0; k < n; k++)
            CHECK_MSG(lc_owner[k] == lc_owner[k - k % chunk],
                      "iteration %d ran on thread %d, its chunk's first on %d", k, lc_owner[k],
                      lc_owner[k - k % chunk]);
    } else if (kind == LC_GUIDED) {
        int run = 1;
        for (int k = 1; k <= n; k++) {
            if (k < n && lc_owner[k] == lc_owner[k - 1]) {
                run++;
                continue;
            }
            CHECK_MSG(k == n || run >= chunk, "a chunk of %d iterations ends at %d (chunk size %d)",
                      run, k - 1, chunk);
            run = 1;
        }
    }
    if (monotonic)
        for (int t = 0; t < team; t++)
            CHECK_MSG(lc_backwards[t] == 0, "thread %d went back in logical order %d times", t,
                      lc_backwards[t]);
    check_set_context(NULL);
}

/* How many iterations each thread ran, "a,b,c": deterministic for the static schedules only. */
CHECK__UNUSED const char *lc_counts(int n, int team) {
    static char buf[LC_MAXT * 8];
    int count[LC_MAXT] = {0}, len = 0;
    for (int k = 0; k < n; k++) count[lc_owner[k]]++;
    buf[0] = 0;
    for (int t = 0; t < team; t++)
        len += snprintf(buf + len, sizeof buf - (size_t)len, "%s%d", t ? "," : "", count[t]);
    return buf;
}

#endif /* MERINO_OMP_LOOP_CHECK_H */
