/* The idle policy's settings (docs/idle.md): merino_config.idle_spins / idle_us and the variables
 * MERINO_IDLE_SPINS / MERINO_IDLE_US. Out-of-range fields and malformed variables make
 * merino_start fail with one message naming the setting, its range and the fix; the field wins
 * over the variable; the extremes of the ranges are accepted and the pool then computes right
 * answers, sleeps and wakes (a run after the workers have had time to fall asleep completes).
 * An initializer written before these fields existed (all zeros) still means the defaults. */
#include "check.h"

#include <merino.h>

#include "fib.h"

static void expect_error(const merino_config *cfg, const char *const *needles) {
    merino_config quiet = *cfg;
    quiet.quiet = 1;
    CHECK_EQ_INT(merino_start(&quiet), -1);
    const char *e = merino_last_error();
    for (; *needles; needles++) CHECK_STR_CONTAINS(e, *needles);
    CHECK_EQ_UINT(merino_workers(), 0);
}

static void expect_env_error(const char *var, const char *value, const char *range_hi) {
    check_set_context("%s=%s", var, value);
    CHECK_EQ_INT(setenv(var, value, 1), 0);
    merino_config cfg = {0};
    const char *needles[] = {var, value, "from 1 to", range_hi, "docs/idle.md", NULL};
    expect_error(&cfg, needles);
    CHECK_EQ_INT(unsetenv(var), 0);
    check_set_context(NULL);
}

static void expect_runs(const merino_config *cfg, const char *what) {
    check_set_context("%s", what);
    CHECK_EQ_INT(merino_start(cfg), 0);
    CHECK_EQ_INT(MERINO_RUN(fib, 22), serial_fib(22));
    check_sleep(0.05); /* idle: the workers spin, yield, and (unless idle_us is long) sleep */
    CHECK_EQ_INT(MERINO_RUN(fib, 20), serial_fib(20));
    CHECK_EQ_INT(merino_stop(), 0);
    check_set_context(NULL);
}

int main(void) {
    unsetenv("MERINO_IDLE_SPINS");
    unsetenv("MERINO_IDLE_US");

    /* Out-of-range fields. */
    merino_config cfg = {0};
    cfg.idle_spins = MERINO_MAX_IDLE_SPINS + 1;
    const char *spins[] = {"merino_config.idle_spins", "1000001", "out of range", "1000000", "0 for the default", NULL};
    expect_error(&cfg, spins);
    cfg = (merino_config){0};
    cfg.idle_us = MERINO_MAX_IDLE_US + 1;
    const char *us[] = {"merino_config.idle_us", "10000001", "microseconds", "10000000", NULL};
    expect_error(&cfg, us);

    /* Malformed variables: empty, zero, negative, trailing text, too large, a unit. */
    const char *bad[] = {"", "0", "-5", "12abc", "99999999999999999999", "50us", " 7", NULL};
    for (const char *const *b = bad; *b; b++) {
        expect_env_error("MERINO_IDLE_US", *b, "10000000");
        expect_env_error("MERINO_IDLE_SPINS", *b, "1000000");
    }
    expect_env_error("MERINO_IDLE_US", "10000001", "10000000");

    /* The field wins over a malformed variable (it is not even read). */
    CHECK_EQ_INT(setenv("MERINO_IDLE_US", "junk", 1), 0);
    cfg = (merino_config){0};
    cfg.workers = 2;
    cfg.idle_us = 20;
    expect_runs(&cfg, "idle_us field over a malformed MERINO_IDLE_US");
    CHECK_EQ_INT(unsetenv("MERINO_IDLE_US"), 0);

    /* The extremes, by field and by variable. */
    cfg = (merino_config){0};
    cfg.workers = 3;
    cfg.idle_spins = 1;
    cfg.idle_us = 1;
    expect_runs(&cfg, "idle_spins = idle_us = 1");
    cfg.idle_spins = MERINO_MAX_IDLE_SPINS;
    cfg.idle_us = MERINO_MAX_IDLE_US;
    expect_runs(&cfg, "the largest idle_spins and idle_us");
    CHECK_EQ_INT(setenv("MERINO_IDLE_SPINS", "1", 1), 0);
    CHECK_EQ_INT(setenv("MERINO_IDLE_US", "10000000", 1), 0);
    cfg = (merino_config){0};
    cfg.workers = 2;
    expect_runs(&cfg, "MERINO_IDLE_SPINS=1 MERINO_IDLE_US=10000000");
    CHECK_EQ_INT(unsetenv("MERINO_IDLE_SPINS"), 0);
    CHECK_EQ_INT(unsetenv("MERINO_IDLE_US"), 0);

    /* An initializer naming only the fields that existed before (the rest zero): defaults. */
    merino_config old = {.workers = 2, .stack_tasks = 0, .pin = MERINO_PIN_DEFAULT, .quiet = 0, .c_stack_bytes = 0};
    expect_runs(&old, "an old positional initializer");
    return 0;
}
