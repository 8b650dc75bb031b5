/* Faults: what happens when a program does something drastic while merino runs, each in a child
 * process (check_run_child) so that a hang is a timeout and a crash is seen, never a stuck test.
 * Each must end the way docs/guarantees.md promises, promptly, with a message that names what
 * went wrong and what to do.
 *
 *   exit_in_task        a task (taken by a thief) calls exit(3): the process exits 3, promptly
 *   abort_in_task       a task calls abort(): SIGABRT, promptly
 *   exit_beside_run     a thread outside the pool calls exit(4) while main's MERINO_RUN is in
 *                       flight (an OpenMP spare thread's fatal error): exits 4, promptly
 *   fork_main_restart   fork() from the main thread while workers run: the child starts merino
 *                       again and uses it
 *   fork_main_run       ... the child calls MERINO_RUN without merino_start: a default pool starts
 *   fork_task_stolen    fork() from a task whose spawned child task was stolen, and the child
 *                       process joins it: it dies with a message saying fork() was called from a
 *                       task (the thief does not exist there), never hangs
 *   fork_task_private   fork() from a task whose spawn was not stolen: the child process may join
 *                       it (it runs inline) and then _exit
 *   fork_task_return    fork() from a task, and the child process returns from the task: it
 *                       must die with the same message, not wait for ever in a pool that is gone
 *   start_twice, start_from_task, stack_tasks_range, stop_from_task, stop_twice,
 *   stop_without_start, run_after_stop
 *                       merino_start / merino_stop misused, merino_config.stack_tasks out of
 *                       range, MERINO_RUN after stop: clear errors; the pool goes on where it can
 *   thread_exit         threads that are not workers exit (pthread_exit) while the pool works,
 *                       one of them right after its MERINO_RUN: the pool keeps working
 *   start_no_threads    merino_start cannot make all its threads (the address space is limited
 *                       so that only a few worker C stacks fit): -1 and one line saying what to
 *                       lower, no hang, the threads made are gone; a smaller pool starts after
 *
 * Elsewhere: a task stack overflow and malformed MERINO_WORKERS / MERINO_TASK_STACK are in
 * tests/test_bad_input.c (overflow_cfg, overflow_env, expect_bad_workers, MERINO_TASK_STACK=abc);
 * MERINO_RUN before any merino_start too (run_without_start); the return values of merino_start
 * and merino_stop misused are in tests/test_start_stop.c. */
#define _GNU_SOURCE 1
#include "check.h"

#include <pthread.h>
#include <sys/resource.h>

#include <merino.h>

#include "fib.h"

#define TEST_TSAN CHECK_TSAN
#if defined(__SANITIZE_ADDRESS__)
#define TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TEST_ASAN 1
#endif
#endif
#ifndef TEST_ASAN
#define TEST_ASAN 0
#endif

/* Exit codes of the children, distinct from 0/1 (1 is a failed CHECK in the child). */
enum {
    CHILD_OK = 42,     /* the child did everything it was asked, and checked it */
    SURVIVED = 45,     /* a child that should have died returned */
    START_FAILED = 46, /* merino_start failed in the child */
    GRAND_HUNG = 47,   /* a grandchild (after fork) ran past its deadline and was killed */
};

static void start_workers(unsigned n) {
    merino_config cfg = {0};
    cfg.workers = n;
    if (merino_start(&cfg) != 0) _exit(START_FAILED);
}

/* ---- a task that ends the process ------------------------------------------------------------------ */

static int g_started; /* atomic: the task that ends the process has started */

/* Ends the process (exit(3) or abort()) from wherever it runs: a thief, when there is one. */
MERINO_TASK_1(int, ender, int, how) {
    __atomic_store_n(&g_started, 1, __ATOMIC_RELEASE);
    if (how == 0) exit(3);
    abort();
}

/* Spawns ender, keeps the other workers busy with fib trees (spawning, so a thief's request is
 * served and ender is stolen) until it has ended the process. */
MERINO_TASK_1(int, end_from_task, int, how) {
    MERINO_SPAWN(ender, how);
    double until = check_now() + 10;
    while (check_now() < until) MERINO_CALL(fib, 18);
    MERINO_JOIN(ender); /* not stolen in 10 s: runs here, and ends the process all the same */
    return SURVIVED;
}

static int g_run_started; /* atomic: main's run is in flight */

MERINO_TASK_0(int, busy_run) {
    __atomic_store_n(&g_run_started, 1, __ATOMIC_RELEASE); /* release: nothing to publish; a flag */
    double until = check_now() + 10;
    while (check_now() < until) MERINO_CALL(fib, 18);
    return SURVIVED;
}

static void *exit_when_run_starts(void *arg) {
    (void)arg;
    while (!__atomic_load_n(&g_run_started, __ATOMIC_ACQUIRE)) sched_yield(); /* acquire: the flag */
    exit(4); /* the stop at exit must not wait for the run in flight */
}

/* ---- fork ------------------------------------------------------------------------------------------- */

static int g_stop_bg; /* atomic */

/* Work from another thread, so that the workers are busy at the fork. */
static void *background_runs(void *arg) {
    (void)arg;
    while (!__atomic_load_n(&g_stop_bg, __ATOMIC_ACQUIRE))
        if (MERINO_RUN(fib, 18) != serial_fib(18)) _exit(1);
    return NULL;
}

/* fork() from the main thread while another thread keeps the workers busy. In the child only the
 * forking thread exists; what it does there is `in_child`. The parent goes on using its pool. */
static int fork_from_main(int (*in_child)(void), int expect_exit, int expect_sig) {
    start_workers(4);
    pthread_t bg;
    if (pthread_create(&bg, NULL, background_runs, NULL) != 0) return 2;
    check_sleep(0.05); /* let it get going */
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) return 2;
    if (pid == 0) _exit(in_child());
    int status = check_wait_pid(pid, 20);
    __atomic_store_n(&g_stop_bg, 1, __ATOMIC_RELEASE);
    pthread_join(bg, NULL);
    if (MERINO_RUN(fib, 20) != serial_fib(20)) return 1; /* the parent's pool is untouched */
    if (merino_stop() != 0) return 1;
    if (status == -1) return GRAND_HUNG;
    if (expect_sig) return WIFSIGNALED(status) && WTERMSIG(status) == expect_sig ? CHILD_OK : 1;
    return WIFEXITED(status) && WEXITSTATUS(status) == expect_exit ? CHILD_OK : 1;
}

/* In the child: merino is not running; it starts again, works, stops. */
static int child_restart(void) {
    if (merino_workers() != 0) return 10;
    if (merino_worker_index() != -1) return 11;
    merino_config cfg = {0};
    cfg.workers = 3;
    if (merino_start(&cfg) != 0) return 12;
    if (merino_workers() != 3) return 13;
    if (MERINO_RUN(fib, 22) != serial_fib(22)) return 14;
    if (merino_stop() != 0) return 15;
    if (merino_start(&cfg) != 0) return 16; /* and again */
    if (MERINO_RUN(fib, 20) != serial_fib(20)) return 17;
    if (merino_stop() != 0) return 18;
    return 0;
}

/* In the child: merino is not running; MERINO_RUN starts a default pool, as on first use. */
static int child_run(void) {
    if (merino_workers() != 0) return 10;
    int64_t r = MERINO_RUN(fib, 10);
    if (r != serial_fib(10)) return 11;
    if (merino_workers() == 0) return 12;
    return 0; /* exit stops the pool */
}

static int g_stolen_started; /* atomic: the task to be stolen runs on a thief */
static int g_may_finish;     /* atomic: the parent lets it finish (after the fork) */

MERINO_TASK_1(int64_t, held, int, n) {
    __atomic_store_n(&g_stolen_started, 1, __ATOMIC_RELEASE);
    double until = check_now() + 30; /* bounded: the test ends even if the parent never says so */
    while (!__atomic_load_n(&g_may_finish, __ATOMIC_ACQUIRE) && check_now() < until) sched_yield();
    return serial_fib(n);
}

/* Spawns `held`, waits (bounded, and spawning so that a thief's request is served) until a thief
 * has started it, then forks. The child process joins it: the thief does not exist there. The
 * parent lets the thief finish and joins as usual. Returns CHILD_OK when the grandchild died
 * with SIGABRT (its message is on stderr) and the parent's join was right. */
MERINO_TASK_0(int, fork_with_stolen) {
    MERINO_SPAWN(held, 25);
    double until = check_now() + 20;
    while (!__atomic_load_n(&g_stolen_started, __ATOMIC_ACQUIRE) && check_now() < until) MERINO_CALL(fib, 12);
    if (!__atomic_load_n(&g_stolen_started, __ATOMIC_ACQUIRE)) {
        __atomic_store_n(&g_may_finish, 1, __ATOMIC_RELEASE);
        MERINO_JOIN(held);
        fprintf(stderr, "the spawned task was not stolen in 20 s with 2 idle workers\n");
        return 3;
    }
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        /* the child process: only this thread exists, and the thief that runs `held` does not */
        int64_t r = MERINO_JOIN(held);
        fprintf(stderr, "the join in the child returned %lld\n", (long long)r);
        _exit(SURVIVED);
    }
    __atomic_store_n(&g_may_finish, 1, __ATOMIC_RELEASE);
    int64_t r = MERINO_JOIN(held);
    int status = pid > 0 ? check_wait_pid(pid, 20) : -2;
    if (r != serial_fib(25)) return 1;
    if (status == -1) return GRAND_HUNG;
    return status >= 0 && WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT ? CHILD_OK : 1;
}

/* fork() from a task whose spawn is private (nobody asked for it): the child process joins it
 * inline, checks the result, and leaves with _exit, as it must (its workers are gone). */
MERINO_TASK_0(int, fork_with_private) {
    MERINO_SPAWN(fib, 20);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        int64_t r = MERINO_JOIN(fib);
        _exit(r == serial_fib(20) ? 7 : 8);
    }
    int64_t r = MERINO_JOIN(fib);
    int status = pid > 0 ? check_wait_pid(pid, 20) : -2;
    if (r != serial_fib(20)) return 1;
    if (status == -1) return GRAND_HUNG;
    return status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 7 ? CHILD_OK : 1;
}

/* fork() from a task, and the child process simply returns from the task, as if it were the
 * parent. Only the forking thread (a worker) exists in the child: no thread runs main() there,
 * so the child must end by _exit or exec. It must not hang in the idle loop of a pool that is
 * gone: it must die with a message. (The parent's grandchild wait is short: 5 s.) */
static int g_fork_pid; /* the pid fork returned in the task (0 in the child) */

MERINO_TASK_0(int, fork_and_return) {
    MERINO_SPAWN(fib, 15);
    fflush(stderr);
    g_fork_pid = (int)fork();
    int64_t r = MERINO_JOIN(fib);
    return r == serial_fib(15) ? 1 : 0;
}

/* The fork must come from a pool thread (a task run by the thread that called MERINO_RUN returns
 * to that caller in the child, as serial code would): main holds the caller slot with hold_slot
 * while another thread's MERINO_RUN(fork_and_return) is handed to the pool thread. */
static int g_holding, g_release; /* atomic */

MERINO_TASK_0(int, hold_slot) {
    __atomic_store_n(&g_holding, 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&g_release, __ATOMIC_ACQUIRE)) sched_yield();
    return 1;
}

static void *run_fork_and_return(void *arg) {
    while (!__atomic_load_n(&g_holding, __ATOMIC_ACQUIRE)) sched_yield();
    *(int *)arg = MERINO_RUN(fork_and_return);
    if (g_fork_pid == 0) {
        /* the child process: never here, since the forking thread was a pool thread */
        fprintf(stderr, "the child process came back from MERINO_RUN\n");
        _exit(SURVIVED);
    }
    __atomic_store_n(&g_release, 1, __ATOMIC_RELEASE);
    return NULL;
}

static int child_fork_task_return(void) {
    start_workers(2);
    int ok = 0;
    pthread_t other;
    if (pthread_create(&other, NULL, run_fork_and_return, &ok) != 0) return 2;
    if (MERINO_RUN(hold_slot) != 1) return 1;
    pthread_join(other, NULL);
    int status = g_fork_pid > 0 ? check_wait_pid(g_fork_pid, 5) : -2;
    if (!ok || merino_stop() != 0) return 1;
    if (status == -1) return GRAND_HUNG;
    return status >= 0 && WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT ? CHILD_OK : 1;
}

/* ---- merino_stop misused, MERINO_RUN after stop ------------------------------------------------------- */

MERINO_TASK_0(int, stop_from_task) { return merino_stop(); }

MERINO_TASK_0(int, start_from_task) {
    merino_config cfg = {0};
    cfg.workers = 1;
    return merino_start(&cfg);
}

/* ---- threads that exit ------------------------------------------------------------------------------ */

static void *exit_at_once(void *arg) {
    (void)arg;
    pthread_exit(NULL);
}

/* Runs tasks, then leaves through pthread_exit from a nested function. */
static void leave(void) { pthread_exit((void *)(intptr_t)7); }

static void *run_then_exit(void *arg) {
    int n = (int)(intptr_t)arg;
    for (int i = 0; i < n; i++)
        if (MERINO_RUN(fib, 10 + i % 10) != serial_fib(10 + i % 10)) return (void *)(intptr_t)1;
    leave();
    return NULL;
}

static int child_thread_exit(void) {
    start_workers(3);
    for (int round = 0; round < 20; round++) {
        pthread_t quiet, runner[3];
        if (pthread_create(&quiet, NULL, exit_at_once, NULL) != 0) return 2;
        for (int i = 0; i < 3; i++)
            if (pthread_create(&runner[i], NULL, run_then_exit, (void *)(intptr_t)(1 + i * 5)) != 0) return 2;
        /* the pool goes on working for this thread while the others come and go */
        if (MERINO_RUN(fib, 21) != serial_fib(21)) return 1;
        void *ret;
        if (pthread_join(quiet, &ret) != 0 || ret != NULL) return 3;
        for (int i = 0; i < 3; i++)
            if (pthread_join(runner[i], &ret) != 0 || ret != (void *)(intptr_t)7) return 4;
    }
    /* and after they are all gone */
    if (MERINO_RUN(fib, 22) != serial_fib(22)) return 1;
    if (merino_stop() != 0) return 5;
    return CHILD_OK;
}

/* ---- merino_start cannot make its threads ------------------------------------------------------------ */

/* The process's mapped bytes now (VmSize), or 0 if unknown. */
static size_t mapped_bytes(void) {
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return 0;
    char line[256];
    size_t kb = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmSize: %zu kB", &kb) == 1) break;
    fclose(f);
    return kb << 10;
}

/* 16 workers with 4096-descriptor task stacks (256 KiB each) and 8 MiB C stacks, under an
 * address-space limit 40 MiB above what is mapped: the task stacks fit, a few C stacks do, the
 * rest do not, so pthread_create fails part-way. */
static int child_start_no_threads(void) {
    struct rlimit old;
    if (getrlimit(RLIMIT_AS, &old) != 0) return 2;
    size_t now = mapped_bytes();
    if (now == 0) return 2;
    struct rlimit tight = old;
    tight.rlim_cur = (rlim_t)(now + ((size_t)40 << 20));
    if (setrlimit(RLIMIT_AS, &tight) != 0) return 2;
    merino_config cfg = {0};
    cfg.workers = 16;
    cfg.stack_tasks = 4096;
    int r = merino_start(&cfg);
    if (setrlimit(RLIMIT_AS, &old) != 0) return 2;
    if (r != -1) {
        fprintf(stderr, "merino_start returned %d under the limit\n", r);
        return 1;
    }
    if (merino_workers() != 0) return 1;
    if (strstr(merino_last_error(), "could not create pool thread") == NULL) return 1;
    /* the threads made were joined: the pool starts again, smaller, and works */
    start_workers(2);
    if (MERINO_RUN(fib, 22) != serial_fib(22)) return 1;
    if (merino_stop() != 0) return 1;
    return CHILD_OK;
}

/* ---- the children ------------------------------------------------------------------------------------ */

static int run_child(const char *name) {
    if (strcmp(name, "exit_in_task") == 0 || strcmp(name, "abort_in_task") == 0) {
        start_workers(4);
        int r = MERINO_RUN(end_from_task, strcmp(name, "exit_in_task") == 0 ? 0 : 1);
        fprintf(stderr, "the process survived (%d)\n", r);
        return SURVIVED;
    }
    if (strcmp(name, "exit_beside_run") == 0) {
        start_workers(2);
        pthread_t t;
        if (pthread_create(&t, NULL, exit_when_run_starts, NULL) != 0) return 2;
        int r = MERINO_RUN(busy_run);
        fprintf(stderr, "the process survived (%d)\n", r);
        return SURVIVED;
    }
    if (strcmp(name, "fork_main_restart") == 0) return fork_from_main(child_restart, 0, 0);
    if (strcmp(name, "fork_main_run") == 0) return fork_from_main(child_run, 0, 0);
    if (strcmp(name, "fork_task_stolen") == 0) {
        start_workers(2);
        int r = MERINO_RUN(fork_with_stolen);
        if (merino_stop() != 0) return 1;
        return r;
    }
    if (strcmp(name, "fork_task_private") == 0) {
        start_workers(1); /* one worker: nobody can ask for the spawn */
        int r = MERINO_RUN(fork_with_private);
        if (merino_stop() != 0) return 1;
        return r;
    }
    if (strcmp(name, "fork_task_return") == 0) return child_fork_task_return();
    if (strcmp(name, "stop_from_task") == 0) {
        start_workers(2);
        if (MERINO_RUN(stop_from_task) != -1) return 1;
        /* the pool goes on */
        if (merino_workers() != 2 || MERINO_RUN(fib, 20) != serial_fib(20)) return 1;
        if (merino_stop() != 0) return 1;
        return CHILD_OK;
    }
    if (strcmp(name, "start_twice") == 0) {
        start_workers(2);
        merino_config cfg = {0};
        cfg.workers = 3;
        if (merino_start(&cfg) != -1) return 1;
        if (merino_workers() != 2 || MERINO_RUN(fib, 20) != serial_fib(20)) return 1;
        if (merino_stop() != 0) return 1;
        return CHILD_OK;
    }
    if (strcmp(name, "start_from_task") == 0) {
        start_workers(2);
        if (MERINO_RUN(start_from_task) != -1) return 1;
        if (merino_workers() != 2 || MERINO_RUN(fib, 20) != serial_fib(20)) return 1;
        if (merino_stop() != 0) return 1;
        return CHILD_OK;
    }
    if (strcmp(name, "stack_tasks_range") == 0) {
        merino_config cfg = {0};
        cfg.workers = 2;
        cfg.stack_tasks = 10;
        if (merino_start(&cfg) != -1) return 1;
        cfg.stack_tasks = MERINO_MAX_TASK_STACK + 1;
        if (merino_start(&cfg) != -1) return 1;
        return merino_workers() == 0 ? CHILD_OK : 1;
    }
    if (strcmp(name, "stop_twice") == 0) {
        start_workers(2);
        if (merino_stop() != 0) return 1;
        if (merino_stop() != -1) return 1;
        return CHILD_OK;
    }
    if (strcmp(name, "stop_without_start") == 0) return merino_stop() == -1 ? CHILD_OK : 1;
    if (strcmp(name, "run_after_stop") == 0) {
        start_workers(2);
        if (MERINO_RUN(fib, 15) != serial_fib(15)) return 1;
        if (merino_stop() != 0) return 1;
        int64_t r = MERINO_RUN(fib, 10); /* starts a default pool again */
        fprintf(stderr, "MERINO_RUN after merino_stop returned %lld\n", (long long)r);
        if (r != serial_fib(10) || merino_workers() == 0) return 1;
        return merino_stop() == 0 ? CHILD_OK : 1;
    }
    if (strcmp(name, "thread_exit") == 0) return child_thread_exit();
    if (strcmp(name, "start_no_threads") == 0) return child_start_no_threads();
    fprintf(stderr, "unknown child %s\n", name);
    return 3;
}

/* ---- the checks -------------------------------------------------------------------------------------- */

static const char *const clean_env[] = {"-MERINO_WORKERS", "-MERINO_TASK_STACK", NULL};

/* Runs a child; checks it ended within `prompt` seconds, never by a crash or a hang. */
static check_child run(const char *name, const char *const *env, double prompt) {
    check_set_context("child %s", name);
    double t0 = check_now();
    check_child c = check_run_child(name, env ? env : clean_env, 60);
    double took = check_now() - t0;
    CHECK_CHILD(c, !c.timed_out);
    CHECK_CHILD(c, !(c.signaled && (c.sig == SIGSEGV || c.sig == SIGBUS || c.sig == SIGKILL)));
    CHECK_MSG(took < prompt, "child %s took %.1f s to end (expected under %.0f s)", name, took, prompt);
    return c;
}

/* Every needle is in the child's stderr. */
static void expect_text(const check_child *c, const char *const *needles) {
    for (; *needles; needles++) CHECK_CHILD(*c, strstr(c->err, *needles) != NULL);
}

static void report(const char *name, const check_child *c) {
    char buf[64];
    printf("%s: %s; stderr: %s%s", name, check_child_status(c, buf, sizeof buf), c->err[0] ? "\n" : "(none)\n",
           c->err);
}

int main(int argc, char **argv) {
    const char *child = check_child_name(argc, argv);
    if (child) return run_child(child);

    /* A task calls exit(3): the process exits with 3 while the other workers run, promptly. */
    {
        check_child c = run("exit_in_task", NULL, 20);
        CHECK_CHILD(c, c.exited && c.code == 3);
        report("exit_in_task", &c);
        check_child_free(&c);
    }
    /* A thread outside the pool calls exit(4) during a run: exits 4, promptly (no stop at exit
     * waiting for the run). */
    {
        check_child c = run("exit_beside_run", NULL, 20);
        CHECK_CHILD(c, c.exited && c.code == 4);
        report("exit_beside_run", &c);
        check_child_free(&c);
    }
    /* A task calls abort(): SIGABRT, promptly, no hang of the other threads. */
    {
        check_child c = run("abort_in_task", NULL, 20);
        CHECK_CHILD(c, c.signaled && c.sig == SIGABRT);
        report("abort_in_task", &c);
        check_child_free(&c);
    }

    /* fork() from the main thread while the workers run; the child starts merino again. Not under
     * ThreadSanitizer: it does not support starting threads in the child of a multi-threaded fork
     * (it kills such a child, and with die_after_fork=0 its thread registry still holds the
     * parent's threads: "dup thread with used id"). The Release and ASan builds run it. */
#if TEST_TSAN
    printf("fork_main_restart: skipped under ThreadSanitizer (no threads after a multi-threaded fork)\n");
#else
    {
        check_child c = run("fork_main_restart", NULL, 40);
        CHECK_CHILD(c, c.exited && c.code == CHILD_OK);
        CHECK_STR_CONTAINS(c.err, "grandchild: exit 0\n");
        report("fork_main_restart", &c);
        check_child_free(&c);
    }
#endif
    /* ... and the child's MERINO_RUN starts a default pool: threads again, so not under
     * ThreadSanitizer either (for the same reason). */
#if TEST_TSAN
    printf("fork_main_run: skipped under ThreadSanitizer (no threads after a multi-threaded fork)\n");
#else
    {
        check_child c = run("fork_main_run", NULL, 40);
        CHECK_CHILD(c, c.exited && c.code == CHILD_OK);
        CHECK_STR_CONTAINS(c.err, "grandchild: exit 0\n");
        report("fork_main_run", &c);
        check_child_free(&c);
    }
#endif
    /* fork() from a task, and the child joins a stolen task: a message, not a hang. */
    {
        check_child c = run("fork_task_stolen", NULL, 40);
        CHECK_CHILD(c, c.exited && c.code == CHILD_OK);
        const char *needles[] = {"fork() was called from a task", "_exit", "grandchild: signal 6", NULL};
        expect_text(&c, needles);
        CHECK_CHILD(c, strstr(c.err, "the join in the child returned") == NULL);
        report("fork_task_stolen", &c);
        check_child_free(&c);
    }
    /* ... and a private spawn can be joined in the child. */
    {
        check_child c = run("fork_task_private", NULL, 40);
        CHECK_CHILD(c, c.exited && c.code == CHILD_OK);
        CHECK_STR_CONTAINS(c.err, "grandchild: exit 7\n");
        report("fork_task_private", &c);
        check_child_free(&c);
    }

    /* ... and a child that returns from the task it forked in: a message, not a hang (it would
     * wait for ever in the idle loop of a pool that is gone). */
    {
        check_child c = run("fork_task_return", NULL, 40);
        CHECK_CHILD(c, c.exited && c.code == CHILD_OK);
        const char *needles[] = {"fork() was called from a task", "_exit", "grandchild: signal 6", NULL};
        expect_text(&c, needles);
        report("fork_task_return", &c);
        check_child_free(&c);
    }

    /* merino_start misused: -1 and one line; a running pool is untouched. */
    {
        check_child c = run("start_twice", NULL, 20);
        CHECK_CHILD(c, c.exited && c.code == CHILD_OK);
        CHECK_CHILD(c, check_count_lines(c.err) == 1);
        const char *needles[] = {"merino_start called while merino is already running", "merino_stop() first", NULL};
        expect_text(&c, needles);
        report("start_twice", &c);
        check_child_free(&c);
    }
    {
        check_child c = run("start_from_task", NULL, 20);
        CHECK_CHILD(c, c.exited && c.code == CHILD_OK);
        CHECK_CHILD(c, check_count_lines(c.err) == 1);
        const char *needles[] = {"merino_start called from a task", "not one of its workers", NULL};
        expect_text(&c, needles);
        report("start_from_task", &c);
        check_child_free(&c);
    }
    /* merino_config.stack_tasks out of range (MERINO_TASK_STACK and cfg.workers are in
     * test_bad_input): one line each, naming the field and the range. */
    {
        check_child c = run("stack_tasks_range", NULL, 20);
        CHECK_CHILD(c, c.exited && c.code == CHILD_OK);
        CHECK_CHILD(c, check_count_lines(c.err) == 2);
        const char *needles[] = {"merino_config.stack_tasks = 10 is out of range", "merino_config.stack_tasks = 67108865",
                                 "64 to 67108864", "or 0 for the default", NULL};
        expect_text(&c, needles);
        report("stack_tasks_range", &c);
        check_child_free(&c);
    }
    static const char *const not_running[] = {"merino_stop called while merino is not running",
                                              "merino_start() first", "once per start", NULL};
    {
        check_child c = run("stop_twice", NULL, 20);
        CHECK_CHILD(c, c.exited && c.code == CHILD_OK);
        CHECK_CHILD(c, check_count_lines(c.err) == 1);
        expect_text(&c, not_running);
        report("stop_twice", &c);
        check_child_free(&c);
    }
    {
        check_child c = run("stop_without_start", NULL, 20);
        CHECK_CHILD(c, c.exited && c.code == CHILD_OK);
        CHECK_CHILD(c, check_count_lines(c.err) == 1);
        expect_text(&c, not_running);
        report("stop_without_start", &c);
        check_child_free(&c);
    }
    /* MERINO_RUN after merino_stop starts a default pool again, as on first use. */
    {
        check_child c = run("run_after_stop", NULL, 20);
        CHECK_CHILD(c, c.exited && c.code == CHILD_OK);
        CHECK_STR_CONTAINS(c.err, "MERINO_RUN after merino_stop returned 55\n");
        report("run_after_stop", &c);
        check_child_free(&c);
    }

    /* Threads that are not workers exit while the pool works: it keeps working. */
    {
        check_child c = run("thread_exit", NULL, 50);
        CHECK_CHILD(c, c.exited && c.code == CHILD_OK);
        report("thread_exit", &c);
        check_child_free(&c);
    }
    /* merino_start cannot make all its threads: -1 and one line naming what to lower, within
     * seconds; the pool is not left half made. Not under the sanitizers: they reserve terabytes of
     * shadow memory, which no address-space limit leaves room for. */
#if TEST_TSAN || TEST_ASAN
    printf("start_no_threads: skipped under the sanitizers (they need an unlimited address space)\n");
#else
    {
        check_child c = run("start_no_threads", NULL, 20);
        CHECK_CHILD(c, c.exited && c.code == CHILD_OK);
        CHECK_CHILD(c, check_count_lines(c.err) == 1);
        const char *needles[] = {"could not create pool thread", "for 16 workers", "lower MERINO_WORKERS",
                                 "MERINO_C_STACK", NULL};
        expect_text(&c, needles);
        CHECK_CHILD(c, strstr(c.err, "MERINO_TASK_STACK") == NULL); /* it would not help */
        report("start_no_threads", &c);
        check_child_free(&c);
    }
#endif
    check_set_context(NULL);
    printf("faults: all checks passed\n");
    return 0;
}
