/* More workers than cores (this machine has 2): fib(27) and a stress-like tree at 8 workers must
 * complete and be correct, and the tree must not be pathologically slower at 8 workers than at 2 —
 * a worker that spins while holding the processor another one needs (the Hood paper's
 * multiprogrammed case) shows up as a large factor. The bound is loose on purpose:
 * t8 < 5 * t2 + 0.5 s. */
#define _GNU_SOURCE 1
#include "check.h"

#include <merino.h>

#include "fib.h"

/* The stress workload: a binary tree of 2^depth leaves, each doing `work` rounds of arithmetic. */
static uint64_t leaf(uint64_t x, int work) {
    for (int i = 0; i < work; i++) x = x * 6364136223846793005ull + 1442695040888963407ull;
    return x >> 7;
}

MERINO_TASK_3(uint64_t, stress, int, depth, int, work, uint64_t, x) {
    if (depth == 0) return leaf(x, work);
    MERINO_SPAWN(stress, depth - 1, work, 2 * x);
    uint64_t a = MERINO_CALL(stress, depth - 1, work, 2 * x + 1);
    return a + MERINO_JOIN(stress);
}

static uint64_t serial_stress(int depth, int work, uint64_t x) {
    if (depth == 0) return leaf(x, work);
    return serial_stress(depth - 1, work, 2 * x + 1) + serial_stress(depth - 1, work, 2 * x);
}

/* fib(n), then the best of `reps` runs of the stress tree, at `workers` workers; checks every
 * result and returns the best time in seconds. */
static double time_stress(unsigned workers, int n, int depth, int work, int reps) {
    merino_config cfg = {0};
    cfg.workers = workers;
    check_set_context("workers=%u", workers);
    CHECK_EQ_INT(merino_start(&cfg), 0);
    CHECK_EQ_INT(merino_workers(), workers);
    CHECK_EQ_INT(MERINO_RUN(fib, n), serial_fib(n));
    uint64_t expect = serial_stress(depth, work, 1);
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
        double t0 = check_now();
        uint64_t got = MERINO_RUN(stress, depth, work, 1);
        double t = check_now() - t0;
        CHECK_EQ_UINT(got, expect);
        if (t < best) best = t;
    }
    CHECK_EQ_INT(merino_stop(), 0);
    return best;
}

int main(void) {
    double scale = check_scale();
    int n = 27;
    if (scale < 1) n += (int)floor(log(scale) / log(1.6180339887));
    if (n < 18) n = 18;

    /* Many short runs at 8 workers: each wakes the sleeping workers, which then compete for 2 cores. */
    {
        merino_config cfg = {0};
        cfg.workers = 8;
        CHECK_EQ_INT(merino_start(&cfg), 0);
        for (int i = 0; i < 200; i++) CHECK_EQ_INT(MERINO_RUN(fib, 10 + i % 8), serial_fib(10 + i % 8));
        CHECK_EQ_INT(merino_stop(), 0);
    }

    /* About 0.2 s of serial work (at scale 1), in 2^14 leaves. */
    int depth = 14, work = (int)(4000 * scale) < 100 ? 100 : (int)(4000 * scale);
    double t2 = time_stress(2, n, depth, work, 3);
    double t8 = time_stress(8, n, depth, work, 3);
    printf("fib(%d) correct; stress tree (2^%d leaves x %d): %.3f s at 2 workers, %.3f s at 8 workers "
           "(ratio %.2f)\n", n, depth, work, t2, t8, t8 / t2);
    check_set_context("t2=%.3fs t8=%.3fs", t2, t8);
    CHECK_CMP_DBL(t8, <, 5 * t2 + 0.5);
    return 0;
}
