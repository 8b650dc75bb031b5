/* fib(0..N) on the pool against the serial value, at 1, 2, 3, 4 and 8 workers (8 is more than this
 * machine's cores on purpose). N is 30, less when MERINO_TEST_SCALE (or a sanitizer) asks for less. */
#define _GNU_SOURCE 1
#include "check.h"

#include <merino.h>

#include "fib.h"

/* The same with the spawn of the larger half: more, deeper stealable work. */
MERINO_TASK_1(int64_t, fib_big_spawn, int, n) {
    if (n < 2) return n;
    MERINO_SPAWN(fib_big_spawn, n - 1);
    int64_t b = MERINO_CALL(fib_big_spawn, n - 2);
    int64_t a = MERINO_JOIN(fib_big_spawn);
    return a + b;
}

int main(void) {
    /* fib(n) costs ~phi^n: lower the top n by log_phi(1/scale) to divide the work by 1/scale. */
    double scale = check_scale();
    int max_n = 30;
    if (scale < 1) max_n += (int)floor(log(scale) / log(1.6180339887));
    if (max_n < 15) max_n = 15;

    int64_t serial[64];
    serial[0] = 0;
    serial[1] = 1;
    for (int i = 2; i <= max_n; i++) serial[i] = serial[i - 1] + serial[i - 2];
    if (max_n >= 30) CHECK_EQ_INT(serial[30], 832040);

    static const unsigned counts[] = {1, 2, 3, 4, 8};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        merino_config cfg = {0};
        cfg.workers = counts[c];
        check_set_context("workers=%u", counts[c]);
        CHECK_EQ_INT(merino_start(&cfg), 0);
        CHECK_EQ_INT(merino_workers(), counts[c]);
        for (int n = 0; n <= max_n; n++) {
            CHECK_EQ_INT(MERINO_RUN(fib, n), serial[n]);
            if (n <= max_n - 2) CHECK_EQ_INT(MERINO_RUN(fib_big_spawn, n), serial[n]);
        }
        CHECK_EQ_INT(merino_stop(), 0);
        printf("fib(0..%d) correct at %u workers\n", max_n, counts[c]);
    }
    return 0;
}
