/* futex.c — sleeping on a 32-bit word until another thread changes it (Linux futexes, private to
 * the process). */
#include "sys/sys.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

void mrn_futex_wait(uint32_t *word, uint32_t expected) {
    /* returns at once if *word != expected; callers loop on their own condition */
    syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

void mrn_futex_wait_ns(uint32_t *word, uint32_t expected, uint64_t timeout_ns) {
    struct timespec ts = {(time_t)(timeout_ns / 1000000000u), (long)(timeout_ns % 1000000000u)};
    syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, expected, &ts, NULL, 0); /* relative timeout */
}

void mrn_futex_wake(uint32_t *word, int count) {
    syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, count, NULL, NULL, 0);
}
