/* test_omp_tasks.c — libmerino_omp's tasks (src/omp/task.c, heap.c, gomp_taskloop.c, reduce.c):
 * recursive tasks joined by taskwait (fib, and n-queens counted through shared counters); tasks
 * that outlive the task that made them (no taskwait: the barrier completes them); a taskgroup
 * waiting for descendants; a producer making far more tasks than a task's direct-stack children;
 * final, if(0), untied and mergeable tasks; omp_in_final; large task data (a copy constructor's
 * work is done once per task); detached tasks fulfilled by another task; taskloop's split
 * (grainsize, num_tasks, as libgomp splits) and every iteration once; task reductions
 * (taskgroup task_reduction with in_reduction tasks, taskloop reduction, for reduction(task, ..)
 * with in_reduction tasks); cancellation of a taskgroup, a loop and a region (OMP_CANCELLATION,
 * in a child process) — at 1, 2, 3 and 8 threads; and recursive tasks with taskloop reductions
 * stolen by a pool thread whose role in the team has not started (fresh processes). */
#include "check.h"

#include <omp.h>
#include <string.h>

static const int team_sizes[] = {1, 2, 3, 8};

/* ---- recursion and taskwait ------------------------------------------------------------------------------------ */

static long fib(int n) {
    if (n < 2) return n;
    long a, b;
#pragma omp task shared(a) firstprivate(n)
    a = fib(n - 2);
#pragma omp task shared(b) firstprivate(n)
    b = fib(n - 1);
#pragma omp taskwait
    return a + b;
}

/* n-queens: the tasks add their solutions to a shared counter and nobody waits for them until
 * the region's barrier (they outlive the tasks that made them). */
static long solutions;
static void queens(int n, int row, unsigned cols, unsigned d1, unsigned d2) {
    if (row == n) {
        __atomic_fetch_add(&solutions, 1, __ATOMIC_RELAXED);
        return;
    }
    for (int c = 0; c < n; c++) {
        unsigned bc = 1u << c, b1 = 1u << (row + c), b2 = 1u << (row - c + n);
        if ((cols & bc) || (d1 & b1) || (d2 & b2)) continue;
#pragma omp task firstprivate(row, c) if (row < 5)
        queens(n, row + 1, cols | bc, d1 | b1, d2 | b2);
    }
}

static void recursion(int nt) {
    check_set_context("recursion, %d threads", nt);
    long r = 0;
#pragma omp parallel num_threads(nt)
#pragma omp single
    r = fib(22);
    CHECK_EQ_INT(r, 17711);
    solutions = 0;
#pragma omp parallel num_threads(nt)
#pragma omp single
    queens(9, 0, 0, 0, 0);
    CHECK_EQ_INT(solutions, 352);
    /* the same from every thread at once */
    long sum = 0;
#pragma omp parallel num_threads(nt) reduction(+ : sum)
    sum += fib(16);
    CHECK_EQ_INT(sum, 987L * nt);
}

/* ---- taskgroup, producers, final, if(0) ----------------------------------------------------------------------------- */

static void spawn_tree(int depth, long *count) {
    __atomic_fetch_add(count, 1, __ATOMIC_RELAXED);
    if (depth == 0) return;
    for (int i = 0; i < 3; i++) {
#pragma omp task firstprivate(depth)
        spawn_tree(depth - 1, count); /* no taskwait: the taskgroup waits for the descendants */
    }
}

static void groups_and_producers(int nt) {
    check_set_context("taskgroup and producer, %d threads", nt);
    long count = 0, after = -1;
#pragma omp parallel num_threads(nt)
#pragma omp single
    {
#pragma omp taskgroup
        spawn_tree(6, &count);
        after = __atomic_load_n(&count, __ATOMIC_RELAXED);
    }
    CHECK_EQ_INT(after, 1093); /* 1 + 3 + ... + 3^6 */
    enum { P = 20000 };
    static unsigned char done[P];
    memset(done, 0, sizeof done);
#pragma omp parallel num_threads(nt)
    {
#pragma omp single nowait
        for (int i = 0; i < P; i++) {
#pragma omp task firstprivate(i)
            __atomic_fetch_add(&done[i], 1, __ATOMIC_RELAXED);
        }
    } /* the region's barrier completes them all */
    for (int i = 0; i < P; i++) CHECK_MSG(done[i] == 1, "task %d ran %d times", i, done[i]);
    int final_bad = 0, in_final_seen = 0;
#pragma omp parallel num_threads(nt)
#pragma omp single
    {
#pragma omp task final(1) shared(final_bad, in_final_seen)
        {
            in_final_seen = omp_in_final();
#pragma omp task shared(final_bad)
            final_bad += !omp_in_final(); /* included: runs at once, final too */
        }
#pragma omp taskwait
        int x = 0;
#pragma omp task if (0) shared(x)
        x = 1;
        final_bad += x != 1; /* undeferred: done when the construct ends */
#pragma omp task untied mergeable shared(x)
        x = 2;
#pragma omp taskwait
        final_bad += x != 2;
    }
    CHECK_EQ_INT(final_bad, 0);
    CHECK_EQ_INT(in_final_seen, 1);
}

/* ---- large data: a struct over a descriptor's payload --------------------------------------------------------------- */

typedef struct big {
    long v[40];
} big;

static void large_data(int nt) {
    check_set_context("large task data, %d threads", nt);
    long total = 0;
#pragma omp parallel num_threads(nt)
#pragma omp single
    for (int t = 0; t < 200; t++) {
        big b;
        for (int i = 0; i < 40; i++) b.v[i] = t + i;
#pragma omp task firstprivate(b) shared(total)
        {
            long s = 0;
            for (int i = 0; i < 40; i++) s += b.v[i];
            __atomic_fetch_add(&total, s, __ATOMIC_RELAXED);
        }
    }
    long expect = 0;
    for (int t = 0; t < 200; t++)
        for (int i = 0; i < 40; i++) expect += t + i;
    CHECK_EQ_INT(total, expect);
}

/* ---- detach ---------------------------------------------------------------------------------------------------- */

static void detached(int nt) {
    check_set_context("detach, %d threads", nt);
    int order = 0, first = 0, second = 0;
#pragma omp parallel num_threads(nt)
#pragma omp single
    {
        omp_event_handle_t ev;
#pragma omp task detach(ev) shared(first, order)
        first = __atomic_add_fetch(&order, 1, __ATOMIC_RELAXED);
#pragma omp task shared(second, order) firstprivate(ev)
        {
            second = __atomic_add_fetch(&order, 1, __ATOMIC_RELAXED);
            omp_fulfill_event(ev);
        }
#pragma omp taskwait
    }
    CHECK(first >= 1 && second >= 1 && first != second);
}

/* ---- taskloop -------------------------------------------------------------------------------------------------------- */

static int tasks_seen;
static unsigned char it_hits[1000];

static void taskloops(int nt) {
    check_set_context("taskloop, %d threads", nt);
    /* grainsize 7 over 100 iterations: 14 tasks (libgomp's split) */
    tasks_seen = 0;
    memset(it_hits, 0, sizeof it_hits);
#pragma omp parallel num_threads(nt)
#pragma omp single
    {
        long lo_seen = -1;
#pragma omp taskloop grainsize(7) firstprivate(lo_seen)
        for (long i = 0; i < 100; i++) {
            if (lo_seen < 0) {
                lo_seen = i;
                __atomic_fetch_add(&tasks_seen, 1, __ATOMIC_RELAXED);
            }
            __atomic_fetch_add(&it_hits[i], 1, __ATOMIC_RELAXED);
        }
    }
    CHECK_EQ_INT(tasks_seen, 14);
    for (int i = 0; i < 100; i++) CHECK_MSG(it_hits[i] == 1, "grainsize: iteration %d ran %d times", i, it_hits[i]);
    /* num_tasks 9 over 1000 down by 3: 334 iterations in 9 tasks */
    tasks_seen = 0;
    memset(it_hits, 0, sizeof it_hits);
#pragma omp parallel num_threads(nt)
#pragma omp single
    {
        int first = 1;
#pragma omp taskloop num_tasks(9) firstprivate(first)
        for (long i = 999; i >= 0; i -= 3) {
            if (first) {
                first = 0;
                __atomic_fetch_add(&tasks_seen, 1, __ATOMIC_RELAXED);
            }
            __atomic_fetch_add(&it_hits[i], 1, __ATOMIC_RELAXED);
        }
    }
    CHECK_EQ_INT(tasks_seen, 9);
    for (int i = 0; i < 1000; i++) CHECK_MSG(it_hits[i] == ((999 - i) % 3 == 0), "num_tasks: iteration %d", i);
    /* unsigned, nogroup (the taskwait after it waits) */
    memset(it_hits, 0, sizeof it_hits);
#pragma omp parallel num_threads(nt)
#pragma omp single
    {
#pragma omp taskloop nogroup
        for (unsigned long long i = 5; i < 900; i += 2) __atomic_fetch_add(&it_hits[i], 1, __ATOMIC_RELAXED);
#pragma omp taskwait
    }
    for (int i = 0; i < 1000; i++) CHECK_MSG(it_hits[i] == (i >= 5 && i < 900 && i % 2 == 1), "nogroup: iteration %d", i);
}

/* ---- task reductions ---------------------------------------------------------------------------------------------------- */

static void reductions(int nt) {
    check_set_context("task reductions, %d threads", nt);
    long sum = 0;
    double prod = 1;
#pragma omp parallel num_threads(nt)
#pragma omp single
    {
#pragma omp taskgroup task_reduction(+ : sum) task_reduction(* : prod)
        for (int i = 1; i <= 200; i++) {
#pragma omp task in_reduction(+ : sum) in_reduction(* : prod) firstprivate(i)
            {
                sum += i;
                if (i % 50 == 0) prod *= 2;
            }
        }
    }
    CHECK_EQ_INT(sum, 20100);
    CHECK(prod == 16.0);
    long tl = 0;
#pragma omp parallel num_threads(nt)
#pragma omp single
#pragma omp taskloop reduction(+ : tl) grainsize(10)
    for (long i = 0; i < 1000; i++) tl += i;
    CHECK_EQ_INT(tl, 499500);
    long fr = 0;
#pragma omp parallel num_threads(nt)
    {
#pragma omp for reduction(task, + : fr) schedule(dynamic, 8)
        for (int i = 0; i < 300; i++) {
#pragma omp task in_reduction(+ : fr) firstprivate(i)
            fr += i;
        }
    }
    CHECK_EQ_INT(fr, 44850);
}

/* ---- a team-only task waited for by a thread outside the team ------------------------------------------------ */

/* Recursive tasks with a taskloop reduction at each leaf (bench's loopfib): a pool thread that has
 * not yet started its role in the team steals a recursive task and waits in the taskloop's
 * taskgroup for its tasks, which (reductions) only the team's threads may run, while thread 0
 * waits for the stolen task. The role must go to a spare thread, never leaving the two waiting on
 * each other. A fresh process each time: the race is at the pool's first region. */
static uint64_t leaf_value(uint64_t leaf, long i) { return (leaf * 0x9E3779B97F4A7C15ull + (uint64_t)i) >> 40; }

static uint64_t leaf_tree(int n, uint64_t leaf, long m) {
    if (n < 2) {
        uint64_t s = 0;
#pragma omp taskloop reduction(+ : s)
        for (long i = 0; i < m; i++) s += leaf_value(leaf, i);
        return s;
    }
    uint64_t a, b;
#pragma omp task shared(b)
    b = leaf_tree(n - 2, 2 * leaf + 1, m);
    a = leaf_tree(n - 1, 2 * leaf, m);
#pragma omp taskwait
    return a + b;
}

static uint64_t leaf_tree_serial(int n, uint64_t leaf, long m) {
    if (n >= 2) return leaf_tree_serial(n - 2, 2 * leaf + 1, m) + leaf_tree_serial(n - 1, 2 * leaf, m);
    uint64_t s = 0;
    for (long i = 0; i < m; i++) s += leaf_value(leaf, i);
    return s;
}

static int leaf_tree_child(void) {
    uint64_t s = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
    s = leaf_tree(8, 1, 100);
    CHECK_EQ_INT(s, leaf_tree_serial(8, 1, 100));
    return 0;
}

static void team_only_tasks_from_outside(void) {
    const char *env[] = {"OMP_NUM_THREADS=2", NULL};
    for (int i = 0; i < 40; i++) {
        check_child r = check_run_child("leaf_tree", env, 20);
        CHECK_MSG(r.exited && r.code == 0, "run %d of recursive tasks with taskloop reductions %s:\n%s", i,
                  r.timed_out ? "hung" : "failed", r.err);
        check_child_free(&r);
    }
}

/* ---- cancellation (OMP_CANCELLATION=true: a child process) ------------------------------------------------------------------ */

static int cancellation_child(void) {
    CHECK_EQ_INT(omp_get_cancellation(), 1);
    for (size_t t = 0; t < 4; t++) {
        int nt = team_sizes[t];
        int ran = 0;
#pragma omp parallel num_threads(nt)
#pragma omp single
        {
#pragma omp taskgroup
            {
#pragma omp task shared(ran)
                {
#pragma omp cancel taskgroup
                    for (int i = 0; i < 100; i++) { /* created in a cancelled taskgroup: discarded */
#pragma omp task shared(ran)
                        __atomic_fetch_add(&ran, 1, __ATOMIC_RELAXED);
                    }
                }
            }
        }
        CHECK_MSG(ran == 0, "team of %d: %d tasks of a cancelled taskgroup ran", nt, ran);
        int iters = 0;
#pragma omp parallel num_threads(nt)
        {
#pragma omp for schedule(dynamic) reduction(+ : iters)
            for (int i = 0; i < 100000; i++) {
                iters++;
                if (i == 10) {
#pragma omp cancel for
                }
#pragma omp cancellation point for
            }
        }
        CHECK_MSG(iters < 100000, "team of %d: a cancelled loop ran all its iterations", nt);
        int after = 0;
#pragma omp parallel num_threads(nt) shared(after)
        {
            if (omp_get_thread_num() == 0) {
#pragma omp cancel parallel
            }
#pragma omp barrier
            __atomic_fetch_add(&after, 1, __ATOMIC_RELAXED);
        }
        CHECK_MSG(after < nt || nt == 1 || after == nt, "team of %d", nt);
    }
    printf("cancellation: ok\n");
    return 0;
}

int main(int argc, char **argv) {
    const char *child = check_child_name(argc, argv);
    if (child) return strcmp(child, "leaf_tree") == 0 ? leaf_tree_child() : cancellation_child();
    for (size_t t = 0; t < 4; t++) {
        int nt = team_sizes[t];
        recursion(nt);
        groups_and_producers(nt);
        large_data(nt);
        detached(nt);
        taskloops(nt);
        reductions(nt);
    }
    team_only_tasks_from_outside();
    const char *env[] = {"OMP_CANCELLATION=true", NULL};
    check_child r = check_run_child("cancellation", env, 60);
    CHECK_MSG(r.exited && r.code == 0, "the cancellation child failed:\n%s", r.err);
    check_child_free(&r);
    printf("test_omp_tasks: ok\n");
    return 0;
}
