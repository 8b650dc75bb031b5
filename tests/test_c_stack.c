/* The C stack of pool threads: as big as the program asks, at least the process's ulimit -s, and an
 * overflow that is never silent. Each case runs in a child process (check_run_child).
 *
 *   overflow_cfg     a task on pool thread 1 recurses with 2 KiB frames past a 1 MiB C stack
 *                    (merino_config.c_stack_bytes): SIGABRT and "merino: worker 1 overflowed its C
 *                    stack (1048576 bytes): raise merino_config.c_stack_bytes or MERINO_C_STACK"
 *   overflow_env     the same with MERINO_C_STACK=512K: the message says 524288 bytes
 *   null_in_task     a task on a pool thread reads through a NULL pointer: it still dies by
 *                    SIGSEGV, with no overflow message (the handler hides no other crash); under a
 *                    sanitizer, the sanitizer's handler (installed before merino's) or UBSan reports it
 *   deep_ok          with ulimit -s raised to 32 MiB and the task stack small (so that the old
 *                    default, 256 bytes per descriptor, would give 8 MiB), a recursion of 24 MiB
 *                    that works on the main thread also works in a task on a pool thread
 *   deep_ok_default  a recursion using half of the process's ulimit -s, as it is, works on the
 *                    main thread and in a task on a pool thread
 *
 * The task runs on a pool thread, not in the caller slot: a helper thread holds the caller slot
 * (its MERINO_RUN waits), so the main thread's MERINO_RUN is handed to pool thread 1. */
#define _GNU_SOURCE 1
#include "check.h"

#include <pthread.h>
#include <sys/resource.h>

#include <merino.h>

enum { CHILD_OK = 42, SURVIVED = 45, START_FAILED = 46, SKIPPED = 47 };

#define FRAME 2048

/* Recursion with FRAME-byte frames, every byte written, not a tail call. */
static __attribute__((noinline)) long recurse(long depth, long limit) {
    volatile char frame[FRAME];
    memset((char *)frame, (int)(depth & 0x7f), sizeof frame);
    if (depth >= limit) return frame[depth % FRAME];
    long below = recurse(depth + 1, limit);
    return below + frame[(depth * 7) % FRAME];
}

static long expected(long limit) {
    long s = 0;
    for (long d = 0; d <= limit; d++) s += d & 0x7f;
    return s;
}

MERINO_TASK_1(long, deep_task, long, limit) {
    if (merino_worker_index() == 0) return -1; /* must run on a pool thread */
    return recurse(0, limit);
}

static int *g_null; /* atomic: read through in null_task */
MERINO_TASK_0(int, null_task) {
    if (merino_worker_index() == 0) return -1;
    int *p = __atomic_load_n(&g_null, __ATOMIC_RELAXED); /* relaxed: NULL, always */
    return *(volatile int *)p;
}

/* The caller slot's occupant: waits until released, so that other runs go to the pool threads. */
static int g_holding, g_release; /* atomic */
MERINO_TASK_0(int, hold_slot) {
    __atomic_store_n(&g_holding, 1, __ATOMIC_RELEASE); /* release: nothing; a flag */
    while (!__atomic_load_n(&g_release, __ATOMIC_ACQUIRE)) check_sleep(0.001);
    return 0;
}

static void *holder(void *arg) {
    (void)arg;
    MERINO_RUN(hold_slot);
    return NULL;
}

static pthread_t g_holder;
static void hold_caller_slot(void) {
    if (pthread_create(&g_holder, NULL, holder, NULL) != 0) _exit(3);
    while (!__atomic_load_n(&g_holding, __ATOMIC_ACQUIRE)) check_sleep(0.001);
}

static void release_caller_slot(void) {
    __atomic_store_n(&g_release, 1, __ATOMIC_RELEASE);
    pthread_join(g_holder, NULL);
}

static void start(size_t c_stack_bytes) {
    merino_config cfg = {0};
    cfg.workers = 2;
    cfg.c_stack_bytes = c_stack_bytes;
    if (merino_start(&cfg) != 0) _exit(START_FAILED);
}

/* A recursion of `bytes` works on the main thread, then in a task on pool thread 1. */
static int deep_both(size_t bytes) {
    long limit = (long)(bytes / FRAME);
    if (recurse(0, limit) != expected(limit)) return 1;
    fprintf(stderr, "main thread: %ld frames of %d bytes\n", limit, FRAME);
    start(0);
    hold_caller_slot();
    long r = MERINO_RUN(deep_task, limit);
    release_caller_slot();
    fprintf(stderr, "pool thread: %ld\n", r);
    if (r != expected(limit)) return 1;
    return merino_stop() == 0 ? CHILD_OK : 1;
}

static int run_child(const char *name) {
    if (strcmp(name, "overflow_cfg") == 0 || strcmp(name, "overflow_env") == 0) {
        start(strcmp(name, "overflow_cfg") == 0 ? (size_t)1 << 20 : 0);
        hold_caller_slot();
        long r = MERINO_RUN(deep_task, 1000000); /* 2 GB of frames */
        fprintf(stderr, "the recursion returned %ld\n", r);
        return SURVIVED;
    }
    if (strcmp(name, "null_in_task") == 0) {
        start(0);
        hold_caller_slot();
        int r = MERINO_RUN(null_task);
        fprintf(stderr, "the NULL read returned %d\n", r);
        return SURVIVED;
    }
    if (strcmp(name, "deep_ok") == 0) {
        struct rlimit rl;
        if (getrlimit(RLIMIT_STACK, &rl) != 0) return 2;
        rlim_t want = (rlim_t)32 << 20;
        if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want) return SKIPPED;
        rl.rlim_cur = want;
        if (setrlimit(RLIMIT_STACK, &rl) != 0) return SKIPPED;
        return deep_both((size_t)24 << 20);
    }
    if (strcmp(name, "deep_ok_default") == 0) {
        struct rlimit rl;
        if (getrlimit(RLIMIT_STACK, &rl) != 0) return 2;
        size_t limit = rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > ((rlim_t)64 << 20) ? (size_t)64 << 20
                                                                                         : (size_t)rl.rlim_cur;
        return deep_both(limit / 2);
    }
    fprintf(stderr, "unknown child %s\n", name);
    return 3;
}

static check_child run(const char *name, const char *const *env) {
    check_set_context("child %s", name);
    check_child c = check_run_child(name, env, 120);
    CHECK_CHILD(c, !c.timed_out);
    char buf[64];
    printf("%s: %s; stderr:\n%s", name, check_child_status(&c, buf, sizeof buf), c.err);
    return c;
}

int main(int argc, char **argv) {
    const char *child = check_child_name(argc, argv);
    if (child) return run_child(child);

    static const char *const clean[] = {"-MERINO_WORKERS", "-MERINO_TASK_STACK", "-MERINO_C_STACK", NULL};
    {
        check_child c = run("overflow_cfg", clean);
        CHECK_CHILD(c, c.signaled && c.sig == SIGABRT);
        CHECK_CHILD(c, strstr(c.err, "merino: worker 1 overflowed its C stack (1048576 bytes): raise "
                                     "merino_config.c_stack_bytes or MERINO_C_STACK") != NULL);
        CHECK_CHILD(c, check_count_lines(c.err) == 1);
        check_child_free(&c);
    }
    {
        static const char *const env[] = {"-MERINO_WORKERS", "-MERINO_TASK_STACK", "MERINO_C_STACK=512K", NULL};
        check_child c = run("overflow_env", env);
        CHECK_CHILD(c, c.signaled && c.sig == SIGABRT);
        CHECK_CHILD(c, strstr(c.err, "merino: worker 1 overflowed its C stack (524288 bytes)") != NULL);
        CHECK_CHILD(c, strstr(c.err, "MERINO_C_STACK") != NULL);
        check_child_free(&c);
    }
    {
        /* Under a sanitizer, the handler before merino's is the sanitizer's: it reports the SEGV
         * and exits with its own status (or UBSan reports the NULL read before it happens). */
        check_child c = run("null_in_task", clean);
        if (CHECK_SANITIZER)
            CHECK_CHILD(c, (c.signaled && c.sig == SIGSEGV) ||
                               (c.exited && c.code != 0 && c.code != SURVIVED &&
                                (strstr(c.err, "SEGV") != NULL || strstr(c.err, "null pointer") != NULL)));
        else
            CHECK_CHILD(c, c.signaled && c.sig == SIGSEGV);
        CHECK_CHILD(c, strstr(c.err, "overflowed") == NULL);
        check_child_free(&c);
    }
    {
        static const char *const env[] = {"-MERINO_WORKERS", "MERINO_TASK_STACK=1024", "-MERINO_C_STACK", NULL};
        check_child c = run("deep_ok", env);
        if (c.exited && c.code == SKIPPED) {
            printf("deep_ok: skipped (ulimit -s cannot be raised to 32 MiB here)\n");
        } else {
            CHECK_CHILD(c, c.exited && c.code == CHILD_OK);
        }
        check_child_free(&c);
    }
    {
        check_child c = run("deep_ok_default", clean);
        CHECK_CHILD(c, c.exited && c.code == CHILD_OK);
        check_child_free(&c);
    }
    check_set_context(NULL);
    printf("c_stack: all checks passed\n");
    return 0;
}
