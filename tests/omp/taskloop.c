/* taskloop.c — the taskloop construct: every iteration once, as default, with grainsize (each task
 * gets between the grain size and twice it, in one contiguous range) and num_tasks (exactly that
 * many tasks), with nogroup (then a taskwait), collapse(2), reduction and in_reduction,
 * lastprivate, firstprivate, on int (steps other than one, decreasing), long and unsigned long
 * long (libgomp's GOMP_taskloop_ull), with if(0), final, untied, mergeable and priority, taskloop
 * simd, and from several threads at once.
 */
#include "loop_check.h"

enum { N = 1000 };
static atomic_int next_task;

/* In the body: the task's id, taken on its first iteration (firstprivate id starts at -1 in each
 * task), and the iteration recorded against it. */
static int task_of[LC_MAX];
#define TL_RECORD(k)                                                                               \
    do {                                                                                           \
        if (id < 0) id = atomic_fetch_add_explicit(&next_task, 1, memory_order_relaxed);           \
        task_of[k] = id;                                                                           \
        atomic_fetch_add_explicit(&lc_hits[k], 1, memory_order_relaxed);                           \
    } while (0)

static void tl_reset(int n) {
    lc_reset(n);
    atomic_store(&next_task, 0);
}

/* The tasks' ranges: contiguous, and their sizes; returns how many tasks ran iterations. */
static int tl_check(const char *what, int n, int min_size, int max_size) {
    check_set_context("%s", what);
    for (int k = 0; k < n; k++) CHECK_MSG(atomic_load(&lc_hits[k]) == 1, "iteration %d ran %d times", k, atomic_load(&lc_hits[k]));
    int tasks = atomic_load(&next_task);
    CHECK(tasks <= LC_MAX);
    static int first[LC_MAX], size[LC_MAX];
    for (int t = 0; t < tasks; t++) size[t] = 0;
    for (int k = 0; k < n; k++) {
        int t = task_of[k];
        if (size[t]++ == 0) first[t] = k;
        CHECK_MSG(k == first[t] + size[t] - 1, "task %d's iterations are not one range", t);
    }
    for (int t = 0; t < tasks; t++)
        CHECK_MSG(size[t] >= min_size && size[t] <= max_size, "a task of %d iterations (want %d..%d)",
                  size[t], min_size, max_size);
    check_set_context(NULL);
    return tasks;
}

static void sizes(void) {
    int id = -1;
    for (int g = 1; g <= 64; g *= 4) {
        tl_reset(N);
#pragma omp parallel
#pragma omp single
#pragma omp taskloop grainsize(g) firstprivate(id)
        for (int i = 0; i < N; i++) TL_RECORD(i);
        char what[64];
        snprintf(what, sizeof what, "grainsize(%d)", g);
        int tasks = tl_check(what, N, g, 2 * g - 1 > g ? 2 * g - 1 : g);
        OT_SAY("taskloop grainsize(%d), %d iterations: %d tasks", g, N, tasks);
    }
    static const int nts[] = {1, 3, 7, 100, N, 2 * N};
    for (unsigned s = 0; s < sizeof nts / sizeof nts[0]; s++) {
        int nt = nts[s];
        tl_reset(N);
#pragma omp parallel
#pragma omp single
#pragma omp taskloop num_tasks(nt) firstprivate(id)
        for (int i = 0; i < N; i++) TL_RECORD(i);
        int want = nt < N ? nt : N;
        char what[64];
        snprintf(what, sizeof what, "num_tasks(%d)", nt);
        int tasks = tl_check(what, N, N / want, (N + want - 1) / want);
        CHECK_EQ_INT(tasks, want);
        OT_SAY("taskloop num_tasks(%d): %d tasks", nt, tasks);
    }
    /* the default: every iteration once */
    tl_reset(N);
#pragma omp parallel
#pragma omp single
#pragma omp taskloop firstprivate(id)
    for (int i = 0; i < N; i++) TL_RECORD(i);
    tl_check("default", N, 1, N);
}

static void shapes(void) {
    int id = -1;
    tl_reset(N);
#pragma omp parallel
#pragma omp single
#pragma omp taskloop grainsize(7) firstprivate(id)
    for (int i = 5 + 3 * (N - 1); i >= 5; i -= 3) TL_RECORD((5 + 3 * (N - 1) - i) / 3);
    tl_check("int, step -3", N, 7, 13);
    tl_reset(N);
#pragma omp parallel
#pragma omp single
#pragma omp taskloop num_tasks(9) firstprivate(id)
    for (long i = 1L << 40; i < (1L << 40) + N; i++) TL_RECORD(i - (1L << 40));
    CHECK_EQ_INT(tl_check("long from 2^40", N, N / 9, N / 9 + 1), 9);
    tl_reset(N);
#pragma omp parallel
#pragma omp single
#pragma omp taskloop grainsize(10) firstprivate(id)
    for (unsigned long long u = 0xF000000000000000ULL; u < 0xF000000000000000ULL + 2 * N; u += 2)
        TL_RECORD((long)((u - 0xF000000000000000ULL) / 2));
    tl_check("unsigned long long from 2^63+, step 2", N, 10, 19);
    tl_reset(N);
#pragma omp parallel
#pragma omp single
#pragma omp taskloop collapse(2) grainsize(30) firstprivate(id)
    for (int i = 0; i < 40; i++)
        for (int j = 0; j < N / 40; j++) TL_RECORD(i * (N / 40) + j);
    tl_check("collapse(2)", N, 30, 59);
    OT_SAY("taskloop over int step -3, long, unsigned long long, collapse(2): ranges right");
}

static void clauses(void) {
    long sum = 0, sum2 = 0, red = 0;
    int last = -1, base = 100, bad = 0;
#pragma omp parallel reduction(+ : bad)
#pragma omp single
    {
#pragma omp taskloop reduction(+ : sum) lastprivate(last) firstprivate(base) grainsize(16)
        for (int i = 0; i < N; i++) {
            sum += i + base - 100;
            last = i;
        }
        /* nogroup: nothing waits for the tasks but the taskwait after */
#pragma omp taskloop nogroup num_tasks(10) shared(sum2)
        for (int i = 0; i < N; i++) {
#pragma omp atomic
            sum2 += i;
        }
#pragma omp taskwait
        bad += sum2 != (long)N * (N - 1) / 2;
        /* in_reduction: a taskloop inside a taskgroup's reduction */
#pragma omp taskgroup task_reduction(+ : red)
        {
#pragma omp taskloop in_reduction(+ : red) grainsize(50)
            for (int i = 0; i < N; i++) red += 2;
#pragma omp task in_reduction(+ : red)
            red += 1;
        }
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(sum, (long)N * (N - 1) / 2);
    CHECK_EQ_INT(last, N - 1);
    CHECK_EQ_INT(red, 2L * N + 1);

    /* if(0), final, untied, mergeable, priority, simd: every iteration once */
    static atomic_int hits[N];
    for (int i = 0; i < N; i++) atomic_store(&hits[i], 0);
    long ssum = 0;
#pragma omp parallel
#pragma omp single
    {
#pragma omp taskloop if (0) grainsize(100)
        for (int i = 0; i < N; i++) atomic_fetch_add_explicit(&hits[i], 1, memory_order_relaxed);
#pragma omp taskloop final(1) num_tasks(4)
        for (int i = 0; i < N; i++) atomic_fetch_add_explicit(&hits[i], 1, memory_order_relaxed);
#pragma omp taskloop untied mergeable grainsize(33)
        for (int i = 0; i < N; i++) atomic_fetch_add_explicit(&hits[i], 1, memory_order_relaxed);
#pragma omp taskloop priority(1) num_tasks(5)
        for (int i = 0; i < N; i++) atomic_fetch_add_explicit(&hits[i], 1, memory_order_relaxed);
#pragma omp taskloop simd reduction(+ : ssum) grainsize(64)
        for (int i = 0; i < N; i++) ssum += i;
    }
    for (int i = 0; i < N; i++) CHECK_EQ_INT(atomic_load(&hits[i]), 4);
    CHECK_EQ_INT(ssum, (long)N * (N - 1) / 2);
    OT_SAY("taskloop reduction, lastprivate, firstprivate, nogroup, in_reduction, if(0), final, "
           "untied, mergeable, priority, simd: right");
}

/* Every thread runs its own taskloop at once. */
static void from_every_thread(void) {
    enum { P = 200 };
    static atomic_int hits[64][P];
    int n = ot_threads();
    for (int t = 0; t < n; t++)
        for (int i = 0; i < P; i++) atomic_store(&hits[t][i], 0);
#pragma omp parallel
    {
        int t = omp_get_thread_num();
#pragma omp taskloop grainsize(9)
        for (int i = 0; i < P; i++) atomic_fetch_add_explicit(&hits[t][i], 1, memory_order_relaxed);
    }
    for (int t = 0; t < n; t++)
        for (int i = 0; i < P; i++) CHECK_EQ_INT(atomic_load(&hits[t][i]), 1);
    OT_SAY("a taskloop on every thread at once: every iteration once");
}

int main(void) {
    sizes();
    shapes();
    clauses();
    from_every_thread();
    return 0;
}
