/* test_omp_teams.c — libmerino_omp's parallel regions (src/omp/team.c, wait.c, thread.c): teams
 * of 1, 2, 3 and 8 threads with distinct thread numbers; barriers that hold every thread until all
 * arrive (phases checked); nested regions (levels, ancestors, team sizes; inner regions of one
 * thread under the default max-active-levels); threadprivate data that persists between regions
 * (thread k is the same OS thread); regions entered from several threads at once; a region entered
 * from inside a merino task (one pool: no thread beyond merino's workers); a role offered to a busy
 * worker, played by a spare thread after the patience (the region completes); and an empty region
 * every millisecond leaving the CPU mostly idle. */
#include "check.h"

#include <merino.h>
#include <omp.h>

#include <dirent.h>
#include <pthread.h>
#include <sys/resource.h>

static int os_threads(void) {
    int n = 0;
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.') n++;
    closedir(d);
    return n;
}

/* ---- team sizes and barriers ---------------------------------------------------------------------------- */

static void teams_and_barriers(int nt) {
    check_set_context("team of %d", nt);
    int seen[16] = {0}, size_bad = 0;
    int phase[16] = {0}, phase_bad = 0;
#pragma omp parallel num_threads(nt) reduction(+ : size_bad, phase_bad)
    {
        int me = omp_get_thread_num();
        size_bad += omp_get_num_threads() != nt || me >= nt || omp_in_parallel() != (nt > 1);
        __atomic_fetch_add(&seen[me], 1, __ATOMIC_RELAXED);
        for (int p = 1; p <= 50; p++) {
            __atomic_store_n(&phase[me], p, __ATOMIC_RELAXED);
#pragma omp barrier
            for (int k = 0; k < nt; k++) phase_bad += __atomic_load_n(&phase[k], __ATOMIC_RELAXED) != p;
#pragma omp barrier
        }
    }
    CHECK_EQ_INT(size_bad, 0);
    CHECK_EQ_INT(phase_bad, 0);
    for (int k = 0; k < nt; k++) CHECK_MSG(seen[k] == 1, "thread %d ran %d times", k, seen[k]);
    /* writes of every thread are visible after the region */
    long v[16];
#pragma omp parallel num_threads(nt)
    v[omp_get_thread_num()] = 7L * omp_get_thread_num() + 1;
    for (int k = 0; k < nt; k++) CHECK_EQ_INT(v[k], 7L * k + 1);
}

/* ---- nesting ------------------------------------------------------------------------------------------------ */

static void nesting(void) {
    check_set_context("nesting");
    int bad = 0;
    /* the default: max-active-levels 1, so inner regions have one thread */
    CHECK_EQ_INT(omp_get_max_active_levels(), 1);
#pragma omp parallel num_threads(2) reduction(+ : bad)
    {
#pragma omp parallel num_threads(3) reduction(+ : bad)
        bad += omp_get_num_threads() != 1 || omp_get_level() != 2 || omp_get_active_level() != 1 ||
               omp_get_team_size(1) != 2 || omp_get_team_size(2) != 1;
    }
    CHECK_EQ_INT(bad, 0);
    omp_set_max_active_levels(2);
    int inner_threads = 0;
#pragma omp parallel num_threads(2) reduction(+ : bad, inner_threads)
    {
        int outer = omp_get_thread_num();
#pragma omp parallel num_threads(3) reduction(+ : bad, inner_threads)
        {
            inner_threads++;
            bad += omp_get_num_threads() != 3 || omp_get_level() != 2 || omp_get_active_level() != 2;
            bad += omp_get_ancestor_thread_num(0) != 0 || omp_get_ancestor_thread_num(1) != outer ||
                   omp_get_ancestor_thread_num(2) != omp_get_thread_num() || omp_get_ancestor_thread_num(3) != -1;
            bad += omp_get_team_size(0) != 1 || omp_get_team_size(1) != 2 || omp_get_team_size(2) != 3 ||
                   omp_get_team_size(3) != -1;
        }
    }
    omp_set_max_active_levels(1);
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(inner_threads, 6);
}

/* ---- threadprivate persistence ---------------------------------------------------------------------------- */

static int tp = -1;
#pragma omp threadprivate(tp)

/* Teams of the default size, and of 8 (beyond the pool on a small machine: spare threads, which
 * must play the same thread numbers from one region to the next). */
static void threadprivate_persists(void) {
    check_set_context("threadprivate");
    const int sizes[] = {omp_get_max_threads() < 64 ? omp_get_max_threads() : 64, 8};
    /* Under TSan a worker often starts its role later than the 2 ms patience, so the role goes to
     * a spare for one region and to the worker for the next: a team of 8 (six spares created
     * meanwhile) is checked for distinct threads only there. */
    for (int i = 0; i < 2; i++) {
        int nt = sizes[i];
        for (int round = 0; round < 20; round++) {
            int bad = 0;
            pthread_t who[64];
#pragma omp parallel num_threads(nt) reduction(+ : bad)
            {
                if (round > 0) bad += tp != omp_get_thread_num() * 10 + round - 1;
                tp = omp_get_thread_num() * 10 + round;
                who[omp_get_thread_num()] = pthread_self();
            }
            if (!(CHECK_TSAN && i == 1))
                CHECK_MSG(bad == 0, "round %d: %d threads lost their threadprivate value (team of %d)", round, bad, nt);
            for (int a = 0; a < nt; a++) /* a team's threads are distinct threads (their own copies) */
                for (int b = a + 1; b < nt; b++)
                    CHECK_MSG(!pthread_equal(who[a], who[b]), "round %d: threads %d and %d of a team of %d are one OS thread", round, a, b, nt);
        }
    }
}

/* ---- regions from several threads at once ---------------------------------------------------------------------- */

static void *region_loop(void *arg) {
    long *out = arg, s = 0;
    for (int r = 0; r < 300; r++) {
#pragma omp parallel for reduction(+ : s) num_threads(2) schedule(dynamic, 16)
        for (int i = 0; i < 1000; i++) s += i;
    }
    *out = s;
    return NULL;
}

static void concurrent_regions(void) {
    check_set_context("regions from 3 threads");
    pthread_t th[3];
    long r[3];
    for (int i = 0; i < 3; i++) CHECK(pthread_create(&th[i], NULL, region_loop, &r[i]) == 0);
    for (int i = 0; i < 3; i++) pthread_join(th[i], NULL);
    for (int i = 0; i < 3; i++) CHECK_EQ_INT(r[i], 300L * 499500);
}

/* ---- one pool: regions inside merino tasks ----------------------------------------------------------------------- */

static long region_sum(int k) {
    long s = 0;
#pragma omp parallel for reduction(+ : s) schedule(dynamic, 64)
    for (long i = 0; i < 300000; i++) s += i % (k + 3);
    return s;
}

MERINO_TASK_2(long, tree, int, lo, int, hi) {
    if (hi - lo == 1) return region_sum(lo);
    int mid = (lo + hi) / 2;
    MERINO_SPAWN(tree, mid, hi);
    long a = MERINO_CALL(tree, lo, mid);
    return a + MERINO_JOIN(tree);
}

static int max_threads_seen;
static void *watch(void *stop) {
    while (!__atomic_load_n((int *)stop, __ATOMIC_ACQUIRE)) {
        int n = os_threads();
        if (n > max_threads_seen) max_threads_seen = n;
        struct timespec ts = {0, 200000};
        nanosleep(&ts, NULL);
    }
    return NULL;
}

static void one_pool(void) {
    check_set_context("regions in merino tasks");
    unsigned w = merino_workers();
    CHECK(w >= 1);
    int base = os_threads(); /* main and the pool threads */
    int stop = 0;
    pthread_t watcher;
    CHECK(pthread_create(&watcher, NULL, watch, &stop) == 0);
    long r = MERINO_RUN(tree, 0, 24);
    __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
    pthread_join(watcher, NULL);
    long ref = 0;
    for (int k = 0; k < 24; k++) {
        long s = 0;
        for (long i = 0; i < 300000; i++) s += i % (k + 3);
        ref += s;
    }
    CHECK_EQ_INT(r, ref);
    /* the watcher is one more thread; no OpenMP thread beyond merino's workers */
    CHECK_MSG(max_threads_seen <= base + 1, "%d threads ran (%d before: main and %u workers, and the watcher)",
              max_threads_seen, base, w - 1);
}

/* ---- a busy worker: its role goes to a spare thread ---------------------------------------------------------------- */

static int release_flag;
static int in_slot, on_worker;

MERINO_VOID_TASK_0(hold_slot) {
    __atomic_store_n(&in_slot, 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&release_flag, __ATOMIC_ACQUIRE)) sched_yield();
}
MERINO_VOID_TASK_0(hold_worker) {
    __atomic_store_n(&on_worker, merino_worker_index(), __ATOMIC_RELEASE);
    while (!__atomic_load_n(&release_flag, __ATOMIC_ACQUIRE)) sched_yield();
}
static void *run_hold_slot(void *unused) {
    (void)unused;
    MERINO_RUN(hold_slot);
    return NULL;
}
static void *run_hold_worker(void *unused) {
    (void)unused;
    MERINO_RUN(hold_worker);
    return NULL;
}

static void busy_worker(void) {
    check_set_context("a busy worker");
    if (merino_workers() != 2) return; /* the scene needs the caller slot and one pool thread */
    pthread_t a, b;
    CHECK(pthread_create(&a, NULL, run_hold_slot, NULL) == 0);
    while (!__atomic_load_n(&in_slot, __ATOMIC_ACQUIRE)) sched_yield();
    CHECK(pthread_create(&b, NULL, run_hold_worker, NULL) == 0); /* handed over to pool thread 1 */
    while (!__atomic_load_n(&on_worker, __ATOMIC_ACQUIRE)) sched_yield();
    /* pool thread 1 spins in a task and never looks for roles: thread 1 of this region is played
     * by a spare thread once the patience has passed */
    int ran[2] = {0, 0}, worker_of[2] = {-2, -2};
    double t0 = omp_get_wtime();
#pragma omp parallel num_threads(2)
    {
        ran[omp_get_thread_num()]++;
        worker_of[omp_get_thread_num()] = merino_worker_index();
#pragma omp barrier
    }
    double took = omp_get_wtime() - t0;
    __atomic_store_n(&release_flag, 1, __ATOMIC_RELEASE);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    CHECK(ran[0] == 1 && ran[1] == 1);
    CHECK_EQ_INT(worker_of[0], -1); /* main: not a worker (the slot was held) */
    CHECK_EQ_INT(worker_of[1], -1); /* a spare thread */
    CHECK_MSG(took < 5.0, "the region took %.3f s", took);
}

/* ---- idle between regions -------------------------------------------------------------------------------------- */

static double cpu_seconds(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_utime.tv_sec + u.ru_stime.tv_sec + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

static void empty_regions(void) {
    check_set_context("an empty region every millisecond");
    if (CHECK_SANITIZER) return;
    double c0 = cpu_seconds(), t0 = omp_get_wtime();
    int n = 0;
    while (omp_get_wtime() - t0 < 0.5) {
#pragma omp parallel
        __atomic_fetch_add(&n, 1, __ATOMIC_RELAXED);
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    double share = (cpu_seconds() - c0) / (omp_get_wtime() - t0);
    printf("empty regions: %.1f%% of a CPU\n", share * 100);
    /* docs/openmp.md: about 2-3%; libgomp spins between them (60-100%) */
    CHECK_MSG(share < 0.25, "an empty region every millisecond used %.0f%% of a CPU", share * 100);
}

int main(void) {
    static const int sizes[] = {1, 2, 3, 8};
    for (size_t i = 0; i < 4; i++) teams_and_barriers(sizes[i]);
    nesting();
    threadprivate_persists();
    concurrent_regions();
    one_pool();
    busy_worker();
    empty_regions();
    printf("test_omp_teams: ok\n");
    return 0;
}
