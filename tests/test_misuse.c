/* Misuse and failures a release build must report, each in a child process (check_run_child) so
 * that a crash or a hang is seen, never a stuck test.
 *
 *   alloc_array      the allocation of the worker array fails (this executable's mrn_mem_calloc
 *                    fails on request: the tests link merino statically, so it replaces merino's):
 *                    merino_start returns -1 with "out of memory starting 13 workers", nothing is
 *                    left running, and a later start works (at c4d7260 it crashed on a NULL
 *                    pointer in its clean-up)
 *   alloc_record     the 4th worker record's allocation fails (mrn_mem_alloc): the same
 *   join_no_spawn    a task body joins with no spawn, in a release build: SIGABRT and "MERINO_JOIN
 *                    without a matching MERINO_SPAWN" (at c4d7260 it hung), with 1 and 2 workers
 *   join_extra       a task body spawns once and joins twice: the same message
 *   join_other       a task body joins a public task under another task's name, stolen or not
 *                    (join_other_stolen): "does not match" (at 81fa2f8 the join returned the other
 *                    task's result silently when a thief had run it)
 *                    (A release build catches a join below where the running root or stolen task
 *                    began. A surplus join in a task body called by another that has a spawn
 *                    pending takes that spawn: only the debug build sees it, by the task's name.)
 *   nproc            the thread limit (ulimit -u) stops merino_start part-way: -1 and a line that
 *                    names MERINO_WORKERS and the limit, not MERINO_TASK_STACK (which would not
 *                    help). As root the child becomes nobody first (the limit does not apply to
 *                    root); skipped if it cannot. The address-space
 *                    limit is tests/test_faults.c (start_no_threads).
 *
 * The debug build's checks (a join with no spawn, a task body returning with spawns it did not
 * join) are in tests/test_debug_misuse.c. */
#define _GNU_SOURCE 1
#include "check.h"

#include <pthread.h>
#include <sys/resource.h>

#include <merino.h>

#include "fib.h"

enum { CHILD_OK = 42, SURVIVED = 45, SKIPPED = 47 };

/* ---- fault injection: the runtime's allocations fail on request --------------------------------- */

/* The runtime takes its memory through mrn_mem_alloc and mrn_mem_calloc (src/alloc/mem.h), weak
 * functions this executable replaces (it links merino statically). Not under the sanitizers, whose
 * builds are tested for what they check, not for these paths. */
#if !CHECK_SANITIZER
#define TEST_INJECT 1
#include <merino_alloc.h>

#include "alloc/mem.h"

static size_t g_fail_calloc_bytes;  /* a calloc of exactly this many bytes fails (0: none) */
static int g_fail_aligned_after = -1; /* an allocation aligned to 64 fails after this many succeed */

void *mrn_mem_calloc(size_t n, size_t size) {
    if (g_fail_calloc_bytes && n * size == g_fail_calloc_bytes) return NULL;
    return merino_calloc(n, size);
}

void *mrn_mem_alloc(size_t align, size_t size) {
    if (align == 64 && g_fail_aligned_after >= 0 && g_fail_aligned_after-- == 0) return NULL;
    return merino_aligned_alloc(align, size);
}

void mrn_mem_free(void *p) { merino_free(p); }

static int child_alloc(int array) {
    merino_config cfg = {0};
    cfg.workers = 13;
    if (array)
        g_fail_calloc_bytes = 13 * sizeof(void *);
    else
        g_fail_aligned_after = 3;
    int r = merino_start(&cfg);
    g_fail_calloc_bytes = 0;
    g_fail_aligned_after = -1;
    if (r != -1) {
        fprintf(stderr, "merino_start returned %d\n", r);
        return 1;
    }
    if (merino_workers() != 0 || strstr(merino_last_error(), "out of memory starting 13 workers") == NULL) return 1;
    cfg.workers = 2;
    if (merino_start(&cfg) != 0 || MERINO_RUN(fib, 20) != serial_fib(20)) return 1;
    return merino_stop() == 0 ? CHILD_OK : 1;
}
#else
#define TEST_INJECT 0
#endif

/* ---- joins with no spawn ---------------------------------------------------------------------------- */

MERINO_TASK_1(int, leaf, int, n) { return n + 1; }

MERINO_TASK_1(int, join_without_spawn, int, n) {
    int a = MERINO_JOIN(leaf); /* wrong: nothing was spawned */
    return a + n;
}

MERINO_TASK_1(int, join_twice, int, n) {
    MERINO_SPAWN(leaf, n);
    int a = MERINO_JOIN(leaf);
    int b = MERINO_JOIN(leaf); /* wrong: one spawn, two joins */
    return a + b;
}

/* A join that names another task than the one spawned: the spawn is public (a region entered
 * with idle workers spawns public first), so the join takes the slow path, which checks the task
 * there in every build — whether a thief ran it (wait_thief: the body waits until it has) or not. */
static int g_ran_by; /* atomic: 1 + the worker index that ran spawned_other */

MERINO_TASK_1(int, spawned_other, int, n) {
    __atomic_store_n(&g_ran_by, 1 + merino_worker_index(), __ATOMIC_RELEASE); /* release: n's use */
    return n + 1;
}

MERINO_TASK_1(int, joined_instead, int, n) { return n * 100; }

MERINO_TASK_1(int, join_other, int, wait_thief) {
    MERINO_SPAWN(spawned_other, 1);
    if (wait_thief) /* up to 10 s for a thief; a stolen task is checked at its join too */
        for (int i = 0; i < 10000 && __atomic_load_n(&g_ran_by, __ATOMIC_ACQUIRE) == 0; i++) usleep(1000);
    return MERINO_JOIN(joined_instead); /* wrong: the spawn was of spawned_other */
}

static int child_join_other(int wait_thief) {
    merino_config cfg = {0};
    cfg.workers = 2;
    if (merino_start(&cfg) != 0) return 2;
    int r = MERINO_RUN(join_other, wait_thief);
    fprintf(stderr, "the task returned %d (spawned_other ran on worker %d)\n", r,
            __atomic_load_n(&g_ran_by, __ATOMIC_ACQUIRE) - 1);
    return SURVIVED;
}

static int child_join(unsigned workers, int which) {
    merino_config cfg = {0};
    cfg.workers = workers;
    if (merino_start(&cfg) != 0) return 2;
    int r = which == 0 ? MERINO_RUN(join_without_spawn, 3) : MERINO_RUN(join_twice, 3);
    fprintf(stderr, "the task returned %d\n", r);
    return SURVIVED;
}

/* ---- the thread limit --------------------------------------------------------------------------------- */

static int child_nproc(void) {
    /* RLIMIT_NPROC does not apply to root: as root, this child becomes nobody first */
    if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) return SKIPPED;
    struct rlimit rl;
    if (getrlimit(RLIMIT_NPROC, &rl) != 0) return 2;
    struct rlimit old = rl;
    rl.rlim_cur = 1; /* this process is one already: no thread can be made */
    if (setrlimit(RLIMIT_NPROC, &rl) != 0) return SKIPPED;
    merino_config cfg = {0};
    cfg.workers = 64;
    cfg.quiet = 1;
    int r = merino_start(&cfg);
    /* back to the soft limit it was (a sanitizer's leak check needs a thread at exit) */
    if (setrlimit(RLIMIT_NPROC, &old) != 0) return 2;
    if (r == 0) return SKIPPED; /* the limit does not apply here */
    const char *e = merino_last_error();
    fprintf(stderr, "%s\n", e);
    if (strstr(e, "could not create pool thread") == NULL || strstr(e, "MERINO_WORKERS") == NULL ||
        strstr(e, "ulimit -u") == NULL || strstr(e, "MERINO_TASK_STACK") != NULL)
        return 1;
    return merino_workers() == 0 ? CHILD_OK : 1;
}

/* ---- the checks ---------------------------------------------------------------------------------------- */

static int run_child(const char *name) {
#if TEST_INJECT
    if (strcmp(name, "alloc_array") == 0) return child_alloc(1);
    if (strcmp(name, "alloc_record") == 0) return child_alloc(0);
#endif
    if (strcmp(name, "join_no_spawn_1") == 0) return child_join(1, 0);
    if (strcmp(name, "join_no_spawn_2") == 0) return child_join(2, 0);
    if (strcmp(name, "join_extra") == 0) return child_join(2, 1);
    if (strcmp(name, "join_other") == 0) return child_join_other(0);
    if (strcmp(name, "join_other_stolen") == 0) return child_join_other(1);
    if (strcmp(name, "nproc") == 0) return child_nproc();
    fprintf(stderr, "unknown child %s\n", name);
    return 3;
}

static check_child run(const char *name) {
    static const char *const env[] = {"-MERINO_WORKERS", "-MERINO_TASK_STACK", "-MERINO_C_STACK", NULL};
    check_set_context("child %s", name);
    check_child c = check_run_child(name, env, 60);
    char buf[64];
    printf("%s: %s; stderr:\n%s", name, check_child_status(&c, buf, sizeof buf), c.err);
    CHECK_CHILD(c, !c.timed_out);
    return c;
}

int main(int argc, char **argv) {
    const char *child = check_child_name(argc, argv);
    if (child) return run_child(child);

#if TEST_INJECT
    static const char *const allocs[] = {"alloc_array", "alloc_record"};
    for (size_t i = 0; i < 2; i++) {
        check_child c = run(allocs[i]);
        CHECK_CHILD(c, c.exited && c.code == CHILD_OK);
        CHECK_CHILD(c, strstr(c.err, "merino: out of memory starting 13 workers") != NULL);
        CHECK_CHILD(c, check_count_lines(c.err) == 1);
        check_child_free(&c);
    }
#else
    printf("alloc_array, alloc_record: skipped under the sanitizers (they own the allocator)\n");
#endif
    static const char *const joins[] = {"join_no_spawn_1", "join_no_spawn_2", "join_extra", "join_other",
                                        "join_other_stolen"};
    for (size_t i = 0; i < sizeof joins / sizeof joins[0]; i++) {
        check_child c = run(joins[i]);
        CHECK_CHILD(c, c.signaled && c.sig == SIGABRT);
        CHECK_CHILD(c, strstr(c.err, "MERINO_JOIN") != NULL && strstr(c.err, "MERINO_SPAWN") != NULL);
        CHECK_CHILD(c, strstr(c.err, "the task returned") == NULL);
        check_child_free(&c);
    }
    {
        check_child c = run("nproc");
        if (c.exited && c.code == SKIPPED)
            printf("nproc: skipped (RLIMIT_NPROC does not apply, or cannot be lowered, here)\n");
        else
            CHECK_CHILD(c, c.exited && c.code == CHILD_OK);
        check_child_free(&c);
    }
    check_set_context(NULL);
    printf("misuse: all checks passed\n");
    return 0;
}
