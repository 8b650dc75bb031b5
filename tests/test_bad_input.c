/* Bad settings and fatal misuse, each in a child process: a malformed MERINO_WORKERS,
 * MERINO_TASK_STACK or MERINO_PIN, an out-of-range cfg.workers or cfg.pin, a task stack overflow,
 * MERINO_RUN before merino_start. Each must end the way the API promises, with one clear message. */
#define _GNU_SOURCE 1
#include "check.h"

#include <merino.h>

/* Exit codes of the children, distinct from 0/1 (1 is a failed CHECK in the child). */
enum {
    START_FAILED = 42,   /* merino_start returned -1 and merino_last_error() was set */
    START_OK = 43,       /* merino_start returned 0 */
    NO_LAST_ERROR = 44,  /* merino_start returned -1 but merino_last_error() was empty */
    SURVIVED = 45,       /* a child that should have died returned */
};

MERINO_TASK_1(int, fib, int, n) {
    if (n < 2) return n;
    MERINO_SPAWN(fib, n - 2);
    int a = MERINO_CALL(fib, n - 1);
    int b = MERINO_JOIN(fib);
    return a + b;
}

/* Each level holds one unjoined spawn while it recurses: depth n needs n descriptors. */
MERINO_TASK_1(int64_t, deep, int64_t, n) {
    if (n == 0) return 0;
    MERINO_SPAWN(fib, 2);
    int64_t r = MERINO_CALL(deep, n - 1);
    return r + MERINO_JOIN(fib);
}

static int start_and_report(const merino_config *cfg) {
    if (merino_start(cfg) != 0) return merino_last_error()[0] ? START_FAILED : NO_LAST_ERROR;
    /* started: the printed count is checked by the parent */
    fprintf(stderr, "workers=%u fib=%d\n", merino_workers(), MERINO_RUN(fib, 15));
    merino_stop();
    return START_OK;
}

static int run_child(const char *name) {
    if (strcmp(name, "start_null") == 0) return start_and_report(NULL);
    if (strcmp(name, "start_5000") == 0) {
        merino_config cfg = {0};
        cfg.workers = 5000;
        return start_and_report(&cfg);
    }
    if (strcmp(name, "start_pin_7") == 0) {
        merino_config cfg = {0};
        cfg.pin = 7;
        return start_and_report(&cfg);
    }
    if (strcmp(name, "overflow_cfg") == 0 || strcmp(name, "overflow_env") == 0) {
        merino_config cfg = {0};
        cfg.workers = 2;
        if (strcmp(name, "overflow_cfg") == 0) cfg.stack_tasks = 1024;
        if (merino_start(&cfg) != 0) return START_FAILED;
        int64_t r = MERINO_RUN(deep, 10 * 1000 * 1000);
        fprintf(stderr, "deep returned %lld\n", (long long)r);
        return SURVIVED;
    }
    if (strcmp(name, "run_without_start") == 0) {
        int r = MERINO_RUN(fib, 10); /* starts a default pool, as on first use */
        fprintf(stderr, "MERINO_RUN returned %d\n", r);
        return r == 55 && merino_workers() > 0 ? START_OK : SURVIVED;
    }
    fprintf(stderr, "unknown child %s\n", name);
    return 3;
}

/* The child's stderr is exactly one line, and that line names all of `needles` and numbers lo, hi. */
static void check_one_line(const check_child *c, const char *const *needles, long long lo, long long hi) {
    CHECK_CHILD(*c, check_count_lines(c->err) == 1 && c->err[strlen(c->err) - 1] == '\n');
    for (; *needles; needles++) CHECK_CHILD(*c, strstr(c->err, *needles) != NULL);
    CHECK_CHILD(*c, check_has_number(c->err, lo));
    CHECK_CHILD(*c, check_has_number(c->err, hi));
}

static void expect_bad_workers(const char *value) {
    char setting[64];
    snprintf(setting, sizeof setting, "MERINO_WORKERS=%s", value);
    const char *env[] = {setting, "-MERINO_TASK_STACK", NULL};
    check_set_context("child start_null with %s", setting);
    check_child c = check_run_child("start_null", env, 30);
    CHECK_CHILD(c, c.exited && c.code == START_FAILED);
    const char *needles[] = {"MERINO_WORKERS", NULL};
    check_one_line(&c, needles, 1, MERINO_MAX_WORKERS);
    printf("MERINO_WORKERS='%s': %s", value, c.err);
    check_child_free(&c);
}

/* merino_start(NULL) with MERINO_PIN=value: starts 2 workers and computes fib if `valid`, else
 * returns -1 after one line that names MERINO_PIN and the accepted values. */
static void expect_pin_env(const char *value, int valid) {
    char setting[64];
    snprintf(setting, sizeof setting, "MERINO_PIN=%s", value);
    const char *env[] = {setting, "MERINO_WORKERS=2", "-MERINO_TASK_STACK", NULL};
    check_set_context("child start_null with %s", setting);
    check_child c = check_run_child("start_null", env, 30);
    if (valid) {
        CHECK_CHILD(c, c.exited && c.code == START_OK);
        CHECK_STR_CONTAINS(c.err, "workers=2 fib=610\n");
    } else {
        CHECK_CHILD(c, c.exited && c.code == START_FAILED);
        CHECK_CHILD(c, check_count_lines(c.err) == 1);
        const char *needles[] = {"MERINO_PIN", "auto", "on", "off", NULL};
        for (const char *const *n = needles; *n; n++) CHECK_CHILD(c, strstr(c.err, *n) != NULL);
        printf("MERINO_PIN='%s': %s", value, c.err);
    }
    check_child_free(&c);
}

/* The child died (by signal sig, or any failure if sig is 0) — not by a crash, not by a hang, not
 * by returning — and its stderr contains all of needles and, if any_of is set, one of any_of. */
static void expect_fatal(const char *child, const char *const *env, int sig, const char *const *needles,
                         const char *const *any_of) {
    check_set_context("child %s", child);
    check_child c = check_run_child(child, env, 30);
    CHECK_CHILD(c, !c.timed_out);
    CHECK_CHILD(c, !(c.signaled && (c.sig == SIGSEGV || c.sig == SIGBUS)));
    if (sig)
        CHECK_CHILD(c, c.signaled && c.sig == sig);
    else
        CHECK_CHILD(c, (c.signaled || c.code != 0) && !(c.exited && c.code == SURVIVED));
    for (; *needles; needles++) CHECK_CHILD(c, strstr(c.err, *needles) != NULL);
    if (any_of) {
        int found = 0;
        for (; *any_of; any_of++) found |= strstr(c.err, *any_of) != NULL;
        CHECK_CHILD(c, found);
    }
    printf("%s: %s", child, c.err);
    check_child_free(&c);
}

int main(int argc, char **argv) {
    const char *child = check_child_name(argc, argv);
    if (child) return run_child(child);

    /* MERINO_WORKERS that merino_start(NULL) must reject. */
    static const char *const bad[] = {"abc", "-1", "0", "99999999", "", "3x"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) expect_bad_workers(bad[i]);

    /* ... and one it must accept. */
    {
        const char *env[] = {"MERINO_WORKERS=3", "-MERINO_TASK_STACK", NULL};
        check_set_context("child start_null with MERINO_WORKERS=3");
        check_child c = check_run_child("start_null", env, 30);
        CHECK_CHILD(c, c.exited && c.code == START_OK);
        CHECK_STR_CONTAINS(c.err, "workers=3 fib=610\n");
        check_child_free(&c);
    }

    /* cfg.workers out of range, whatever the environment says. */
    {
        const char *env[] = {"MERINO_WORKERS=2", "-MERINO_TASK_STACK", NULL};
        check_set_context("child start_5000");
        check_child c = check_run_child("start_5000", env, 30);
        CHECK_CHILD(c, c.exited && c.code == START_FAILED);
        const char *needles[] = {"workers", NULL};
        check_one_line(&c, needles, 1, MERINO_MAX_WORKERS);
        printf("cfg.workers=5000: %s", c.err);
        check_child_free(&c);
    }

    /* MERINO_PIN: values it must reject (the line names the variable and every accepted value),
     * and the ones it must accept. */
    static const char *const bad_pin[] = {"maybe", "", "2", "ON"};
    for (size_t i = 0; i < sizeof bad_pin / sizeof bad_pin[0]; i++) expect_pin_env(bad_pin[i], 0);
    static const char *const good_pin[] = {"auto", "on", "off", "1", "0"};
    for (size_t i = 0; i < sizeof good_pin / sizeof good_pin[0]; i++) expect_pin_env(good_pin[i], 1);

    /* cfg.pin that is none of the constants, whatever the environment says. */
    {
        const char *env[] = {"MERINO_PIN=on", "MERINO_WORKERS=2", "-MERINO_TASK_STACK", NULL};
        check_set_context("child start_pin_7");
        check_child c = check_run_child("start_pin_7", env, 30);
        CHECK_CHILD(c, c.exited && c.code == START_FAILED);
        CHECK_CHILD(c, check_count_lines(c.err) == 1);
        const char *needles[] = {"merino_config.pin", "MERINO_PIN_AUTO", "MERINO_PIN_ON", "MERINO_PIN_OFF", NULL};
        for (const char *const *n = needles; *n; n++) CHECK_CHILD(c, strstr(c.err, *n) != NULL);
        CHECK_CHILD(c, check_has_number(c.err, 7));
        printf("cfg.pin=7: %s", c.err);
        check_child_free(&c);
    }

    /* A malformed MERINO_TASK_STACK. */
    {
        const char *env[] = {"MERINO_TASK_STACK=abc", "MERINO_WORKERS=2", NULL};
        check_set_context("child start_null with MERINO_TASK_STACK=abc");
        check_child c = check_run_child("start_null", env, 30);
        CHECK_CHILD(c, c.exited && c.code == START_FAILED);
        const char *needles[] = {"MERINO_TASK_STACK", NULL};
        check_one_line(&c, needles, (long long)MERINO_MIN_TASK_STACK, (long long)MERINO_MAX_TASK_STACK);
        printf("MERINO_TASK_STACK=abc: %s", c.err);
        check_child_free(&c);
    }

    /* Task stack overflow: abort with a message saying how to raise the limit; never a crash or a
     * hang, whether the limit comes from the config or the environment. */
    {
        const char *needles[] = {"task stack overflow", NULL};
        const char *how[] = {"MERINO_TASK_STACK", "stack_tasks", NULL};
        const char *env_cfg[] = {"-MERINO_TASK_STACK", "-MERINO_WORKERS", NULL};
        expect_fatal("overflow_cfg", env_cfg, SIGABRT, needles, how);
        const char *env_env[] = {"MERINO_TASK_STACK=1024", "-MERINO_WORKERS", NULL};
        expect_fatal("overflow_env", env_env, SIGABRT, needles, how);
    }

    /* MERINO_RUN before merino_start starts a default pool; with a bad setting in the
     * environment it cannot, and stops the program with the setting's message. */
    {
        check_set_context("child run_without_start");
        const char *env[] = {"-MERINO_TASK_STACK", "-MERINO_WORKERS", NULL};
        check_child c = check_run_child("run_without_start", env, 30);
        CHECK_CHILD(c, c.exited && c.code == START_OK);
        CHECK_STR_CONTAINS(c.err, "MERINO_RUN returned 55\n");
        check_child_free(&c);
        const char *needles[] = {"MERINO_RUN could not start", "MERINO_WORKERS='many'", NULL};
        const char *bad_env[] = {"-MERINO_TASK_STACK", "MERINO_WORKERS=many", NULL};
        expect_fatal("run_without_start", bad_env, SIGABRT, needles, NULL);
        /* said once: one line, naming the setting once */
        check_set_context("child run_without_start, MERINO_WORKERS=many: one line");
        check_child one = check_run_child("run_without_start", bad_env, 30);
        CHECK_CHILD(one, check_count_lines(one.err) == 1);
        const char *first = strstr(one.err, "MERINO_WORKERS='many'");
        CHECK_CHILD(one, first != NULL && strstr(first + 1, "MERINO_WORKERS='many'") == NULL);
        check_child_free(&one);
    }
    return 0;
}
