/* Debug build (-DMERINO_DEBUG=1): a join that does not match the most recent spawn is
 * reported — the child spawns task_a then task_b and joins task_a first, and must die naming
 * MERINO_JOIN and the rule (reverse order) — while correct programs in the same build run. */
#define _GNU_SOURCE 1
#include "check.h"

#include <merino.h>

#if !defined(MERINO_DEBUG)
#error "test_debug_join_order.c must be compiled with -DMERINO_DEBUG=1"
#endif

MERINO_TASK_1(int, task_a, int, n) { return n + 1; }
MERINO_TASK_1(int, task_b, int, n) { return n * 2; }
MERINO_VOID_TASK_2(task_v, int, n, int *, out) { *out = n - 3; }

/* Wrong: spawns a then b, joins a first. */
MERINO_TASK_1(int, wrong_order, int, n) {
    MERINO_SPAWN(task_a, n);
    MERINO_SPAWN(task_b, n);
    int a = MERINO_JOIN(task_a);
    int b = MERINO_JOIN(task_b);
    return a + b;
}

/* Right: LIFO, mixing kinds, calls and nesting. */
MERINO_TASK_2(int, right_order, int, n, int, depth) {
    int v = 0;
    MERINO_SPAWN(task_a, n);
    MERINO_SPAWN(task_v, n, &v);
    MERINO_SPAWN(task_b, n);
    if (depth > 0) MERINO_SPAWN(right_order, n + 1, depth - 1);
    int c = MERINO_CALL(task_a, n + 10);
    int r = depth > 0 ? MERINO_JOIN(right_order) : 0;
    int b = MERINO_JOIN(task_b);
    MERINO_JOIN(task_v);
    int a = MERINO_JOIN(task_a);
    return a + b + c + v + r;
}

static int right_expected(int n, int depth) {
    int r = depth > 0 ? right_expected(n + 1, depth - 1) : 0;
    return (n + 1) + n * 2 + (n + 11) + (n - 3) + r;
}

static int run_child(const char *name) {
    merino_config cfg = {0};
    cfg.workers = 1; /* no thief: the mismatched descriptor is certainly still there at the join */
    if (merino_start(&cfg) != 0) return 42;
    if (strcmp(name, "wrong_order") == 0) {
        int r = MERINO_RUN(wrong_order, 5);
        fprintf(stderr, "wrong_order returned %d\n", r);
        return 45;
    }
    return 3;
}

int main(int argc, char **argv) {
    const char *child = check_child_name(argc, argv);
    if (child) return run_child(child);

    const char *env[] = {"-MERINO_WORKERS", "-MERINO_TASK_STACK", NULL};
    check_child c = check_run_child("wrong_order", env, 30);
    CHECK_CHILD(c, !c.timed_out);
    CHECK_CHILD(c, !(c.exited && (c.code == 0 || c.code == 45 || c.code == 42)));
    CHECK_CHILD(c, !(c.signaled && (c.sig == SIGSEGV || c.sig == SIGBUS)));
    CHECK_CHILD(c, strstr(c.err, "MERINO_JOIN") != NULL);
    CHECK_CHILD(c, strstr(c.err, "task_a") != NULL);
    CHECK_CHILD(c, strstr(c.err, "reverse") != NULL || strstr(c.err, "LIFO") != NULL);
    printf("wrong_order: %s", c.err);
    check_child_free(&c);

    /* Correct programs in the debug build, with thieves about. */
    static const unsigned counts[] = {1, 2, 4};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        merino_config cfg = {0};
        cfg.workers = counts[i];
        check_set_context("workers=%u", counts[i]);
        CHECK_EQ_INT(merino_start(&cfg), 0);
        for (int n = 0; n < 200; n++) CHECK_EQ_INT(MERINO_RUN(right_order, n, n % 40), right_expected(n, n % 40));
        CHECK_EQ_INT(merino_stop(), 0);
    }
    printf("correct join orders pass in the debug build\n");
    return 0;
}
