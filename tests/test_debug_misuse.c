/* Debug build (-UNDEBUG -DMERINO_DEBUG=1): the checks a debug build adds to the release build's,
 * each in a child process that must die with the message, never hang or return.
 *
 *   unjoined        a task body returns with a spawn it never joined: "task unjoined_body returned
 *                   with 1 spawned task(s) it did not join" (unreported at c4d7260)
 *   unjoined_2      ... with two, under a correct parent: "with 2 spawned task(s)"
 *   join_no_spawn   a task body joins with nothing spawned: "has no matching MERINO_SPAWN"
 *   join_nested     a task body with no spawn of its own joins while its caller has one pending:
 *                   the join names a task the caller did not spawn, and the mismatch is reported
 *                   (a release build cannot see this one: see tests/test_misuse.c) */
#define _GNU_SOURCE 1
#include "check.h"

#include <merino.h>

#if defined(NDEBUG) && !defined(MERINO_DEBUG)
#error "test_debug_misuse.c must be compiled with -UNDEBUG -DMERINO_DEBUG=1"
#endif

enum { SURVIVED = 45 };

MERINO_TASK_1(int, leaf, int, n) { return n + 1; }
MERINO_TASK_1(int, other, int, n) { return n * 2; }

MERINO_TASK_1(int, unjoined_body, int, n) {
    MERINO_SPAWN(leaf, n); /* wrong: never joined */
    return n;
}

MERINO_TASK_1(int, unjoined_two, int, n) {
    MERINO_SPAWN(leaf, n);
    MERINO_SPAWN(other, n); /* wrong: neither is joined */
    return n;
}

MERINO_TASK_1(int, parent_of_unjoined, int, n) {
    MERINO_SPAWN(other, n);
    int a = MERINO_CALL(unjoined_two, n);
    return a + MERINO_JOIN(other);
}

MERINO_TASK_1(int, join_without_spawn, int, n) {
    int a = MERINO_JOIN(leaf); /* wrong: nothing was spawned */
    return a + n;
}

MERINO_TASK_1(int, parent_of_wrong, int, n) {
    MERINO_SPAWN(other, n);
    int w = MERINO_CALL(join_without_spawn, n);
    return w + MERINO_JOIN(other);
}

static int run_child(const char *name) {
    merino_config cfg = {0};
    cfg.workers = 2;
    if (merino_start(&cfg) != 0) return 2;
    int r = -1;
    if (strcmp(name, "unjoined") == 0) r = MERINO_RUN(unjoined_body, 3);
    else if (strcmp(name, "unjoined_2") == 0) r = MERINO_RUN(parent_of_unjoined, 3);
    else if (strcmp(name, "join_no_spawn") == 0) r = MERINO_RUN(join_without_spawn, 3);
    else if (strcmp(name, "join_nested") == 0) r = MERINO_RUN(parent_of_wrong, 3);
    else return 3;
    fprintf(stderr, "the task returned %d\n", r);
    return SURVIVED;
}

static void expect(const char *name, const char *needle1, const char *needle2) {
    static const char *const env[] = {"-MERINO_WORKERS", "-MERINO_TASK_STACK", NULL};
    check_set_context("child %s", name);
    check_child c = check_run_child(name, env, 30);
    char buf[64];
    printf("%s: %s; stderr:\n%s", name, check_child_status(&c, buf, sizeof buf), c.err);
    CHECK_CHILD(c, !c.timed_out);
    CHECK_CHILD(c, c.signaled && c.sig == SIGABRT);
    CHECK_CHILD(c, strstr(c.err, needle1) != NULL);
    CHECK_CHILD(c, strstr(c.err, needle2) != NULL);
    CHECK_CHILD(c, strstr(c.err, "the task returned") == NULL);
    check_child_free(&c);
}

int main(int argc, char **argv) {
    const char *child = check_child_name(argc, argv);
    if (child) return run_child(child);
    expect("unjoined", "task unjoined_body returned with 1 spawned task(s) it did not join", "MERINO_JOIN");
    expect("unjoined_2", "task unjoined_two returned with 2 spawned task(s) it did not join", "MERINO_JOIN");
    expect("join_no_spawn", "MERINO_JOIN(leaf)", "MERINO_SPAWN");
    expect("join_nested", "MERINO_JOIN(leaf)", "MERINO_SPAWN");
    check_set_context(NULL);
    printf("debug misuse: all checks passed\n");
    return 0;
}
