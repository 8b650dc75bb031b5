/* Idle workers must not burn processors: after a MERINO_RUN returns and the workers have had time to
 * back off, the process uses almost no CPU while its main thread sleeps; and a MERINO_RUN after that
 * wakes them and completes promptly. */
#define _GNU_SOURCE 1
#include "check.h"

#include <merino.h>

#include "fib.h"

/* CPU seconds the process uses while the main thread sleeps for `seconds`. */
static double idle_cpu(double seconds) {
    double c0 = check_cpu_time();
    check_sleep(seconds);
    return check_cpu_time() - c0;
}

static void round_at(unsigned workers) {
    merino_config cfg = {0};
    cfg.workers = workers;
    check_set_context("workers=%u", workers);
    CHECK_EQ_INT(merino_start(&cfg), 0);
    CHECK_EQ_INT(MERINO_RUN(fib, 24), 46368);

    for (int round = 0; round < 2; round++) {
        check_sleep(0.3); /* time to spin, yield and fall asleep */
        double cpu = idle_cpu(0.5);
        printf("workers=%u round %d: %.1f ms CPU in 500 ms of idling\n", workers, round, cpu * 1e3);
        CHECK_CMP_DBL(cpu, <, 0.100);

        /* Asleep workers are woken by new work, and it completes promptly. */
        double t0 = check_now();
        CHECK_EQ_INT(MERINO_RUN(fib, 20), 6765);
        double t = check_now() - t0;
        printf("workers=%u round %d: MERINO_RUN after idling took %.1f ms\n", workers, round, t * 1e3);
        CHECK_CMP_DBL(t, <, 0.5);
    }
    CHECK_EQ_INT(merino_stop(), 0);
}

int main(void) {
    round_at(2);
    round_at(8); /* more workers than cores: all of them must sleep */
    return 0;
}
