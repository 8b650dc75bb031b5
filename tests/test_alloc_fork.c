/* fork() in a threaded program: while other threads allocate and free (holding the allocator's
 * locks at random moments), the main thread forks; each child allocates, frees and frees objects
 * the parent's threads allocated, runs a thread of its own, forks a grandchild, and exits 0, with
 * no decay thread of the allocator started in it. A child that deadlocks is killed after 20 s and
 * counts as a failure. */
#include "check.h"

#include "alloc_test.h"

#include "alloc_internal.h" /* mrn_stats: the decay threads started */

#include <stdatomic.h>
#include <stdbool.h>

static atomic_int g_stop, g_ready;
static void *g_shared[64]; /* objects of a busy thread's heap, freed by every child */

static void *busy(void *arg) {
    uint64_t s = (uint64_t)(uintptr_t)arg;
    if (!atomic_load(&g_ready)) {
        for (int i = 0; i < 64; i++) g_shared[i] = merino_malloc((size_t)(i * 97 % 3000) + 1);
        atomic_store(&g_ready, 1); /* seq_cst: publishes g_shared to the main thread */
    }
    void *mine[128] = {0};
    while (!atomic_load_explicit(&g_stop, memory_order_relaxed)) {
        int i = (int)(at_next(&s) % 128);
        if (mine[i]) merino_free(mine[i]);
        mine[i] = merino_malloc(at_size(&s, 100000)); /* small, medium and large: every lock */
        CHECK(mine[i] != NULL);
    }
    for (int i = 0; i < 128; i++) merino_free(mine[i]);
    return NULL;
}

static void *child_thread(void *arg) {
    void **p = (void **)arg;
    for (int i = 0; i < 1000; i++) {
        void *q = merino_malloc((size_t)(i % 300) + 1);
        CHECK(q != NULL);
        merino_free(q);
    }
    merino_free(*p);
    return NULL;
}

/* shared: free g_shared too (a grandchild must not: its parent, the child, freed them already). */
static int child_work(uint64_t s, bool shared) {
    size_t threads0 = atomic_load(&mrn_stats.decay_threads); /* the parent's, copied by fork */
    void *p[500];
    for (int i = 0; i < 500; i++) {
        size_t n = at_size(&s, 50000);
        p[i] = merino_malloc(n);
        if (!p[i]) return 3;
        at_fill(p[i], n, (uint64_t)i);
        if (at_check(p[i], n, (uint64_t)i) >= 0) return 4;
    }
    if (shared)
        for (int i = 0; i < 64; i++) merino_free(g_shared[i]);
    void *handed = p[0];
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
    /* Under the sanitizers the child's thread works inline: ThreadSanitizer refuses new threads
     * after a multithreaded fork, and AddressSanitizer's own allocator (which pthread_create uses)
     * can be left locked by a thread the child lacks — a hang seen 1 run in ~15, in its code. */
    child_thread(&handed);
#else
    pthread_t t;
    if (pthread_create(&t, NULL, child_thread, &handed) != 0) return 5;
    pthread_join(t, NULL);
#endif
    for (int i = 1; i < 500; i++) merino_free(p[i]);
    /* memory freed past the retained bound, then a large object (a point where the decay thread
     * would be started): a fork's child starts none (ThreadSanitizer kills a child that does) */
    void *big = merino_malloc(4u << 20);
    if (!big) return 3;
    merino_free(big);
    if (atomic_load(&mrn_stats.decay_threads) != threads0) return 7;
    return 0;
}

int main(void) {
    uint64_t seed = at_seed("test_alloc_fork");
    pthread_t t[3];
    CHECK(pthread_create(&t[0], NULL, busy, (void *)(uintptr_t)seed) == 0);
    while (!atomic_load(&g_ready)) check_sleep(0.001);
    for (int i = 1; i < 3; i++) CHECK(pthread_create(&t[i], NULL, busy, (void *)(uintptr_t)(seed + (uint64_t)i)) == 0);
    int forks = (int)(200 * check_scale());
    for (int f = 0; f < forks; f++) {
        check_sleep(0.001 * (double)(at_next(&seed) % 3));
        pid_t pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) {
            int rc = child_work(seed + (uint64_t)f, true);
            if (rc == 0 && f % 10 == 0) { /* a grandchild, forked from a child with a thread gone */
                pid_t g = fork();
                if (g == 0) _exit(child_work(seed + 7, false));
                int st;
                waitpid(g, &st, 0);
                rc = WIFEXITED(st) ? WEXITSTATUS(st) : 6;
            }
            _exit(rc);
        }
        double deadline = check_now() + 20;
        int st = 0;
        pid_t w;
        while ((w = waitpid(pid, &st, WNOHANG)) == 0 && check_now() < deadline) check_sleep(0.001);
        if (w == 0) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            CHECK_MSG(0, "fork %d: the child did not finish in 20 s (a lock held across fork?)", f);
        }
        CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "fork %d: child ended with status 0x%x", f, st);
    }
    atomic_store(&g_stop, 1);
    for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
    for (int i = 0; i < 64; i++) merino_free(g_shared[i]);
    printf("test_alloc_fork: %d forks under 3 allocating threads, children and grandchildren fine\n", forks);
    return 0;
}
