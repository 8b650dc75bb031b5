/* task.c — explicit tasks: each runs exactly once; taskwait waits for the children; tasks made by
 * every thread, tasks outside any region, tasks outliving their parent (done by the region's end);
 * data: shared, firstprivate (a 4 KB block, and a 64-byte-aligned variable keeps its alignment:
 * GOMP_task's argument size and alignment), private; the clauses if (an undeferred task is done
 * before its construct ends), final (and omp_in_final; the tasks a final task makes are included:
 * they run at once, in order, on the same thread), untied, mergeable, priority (a hint: only the
 * results are checked), and taskyield; a recursive fib; many small tasks at once.
 * omp-run:
 * omp-run: OMP_MAX_TASK_PRIORITY=10
 */
#include "omp_test.h"

#include <stdint.h>

static long fib(int n) {
    if (n < 2) return n;
    long a, b;
#pragma omp task shared(a) firstprivate(n)
    a = fib(n - 1);
#pragma omp task shared(b) firstprivate(n)
    b = fib(n - 2);
#pragma omp taskwait
    return a + b;
}

static void each_once(void) {
    enum { T = 2000 };
    static atomic_int ran[T];
    for (int k = 0; k < T; k++) atomic_store(&ran[k], 0);
    int n = ot_threads(), bad = 0;
#pragma omp parallel reduction(+ : bad)
    {
#pragma omp single
        {
            for (int k = 0; k < T; k++) {
#pragma omp task firstprivate(k)
                atomic_fetch_add_explicit(&ran[k], 1, memory_order_relaxed);
            }
#pragma omp taskwait
            for (int k = 0; k < T; k++) bad += atomic_load_explicit(&ran[k], memory_order_relaxed) != 1;
        }
        /* every thread makes tasks too; the barrier at the region's end completes them */
        int t = omp_get_thread_num();
        for (int k = 0; k < 10; k++) {
#pragma omp task firstprivate(k, t)
            atomic_fetch_add_explicit(&ran[t * 10 + k], 1, memory_order_relaxed);
        }
    }
    CHECK_EQ_INT(bad, 0);
    for (int k = 0; k < T; k++) CHECK_EQ_INT(atomic_load(&ran[k]), 1 + (k < 10 * n));
    OT_SAY("%d tasks from one thread and 10 from each: each once, taskwait waited", T);
}

static void outside_and_outliving(void) {
    int x = 0;
#pragma omp task shared(x) /* outside any region: the initial thread's implicit task */
    x = 5;
#pragma omp taskwait
    CHECK_EQ_INT(x, 5);
    atomic_int grandchildren = 0;
#pragma omp parallel
#pragma omp single
    {
        for (int k = 0; k < 20; k++) {
#pragma omp task shared(grandchildren)
            {
                /* the parent ends without waiting for these */
                for (int j = 0; j < 5; j++) {
#pragma omp task shared(grandchildren)
                    atomic_fetch_add_explicit(&grandchildren, 1, memory_order_relaxed);
                }
            }
        }
    }
    CHECK_EQ_INT(atomic_load(&grandchildren), 100);
    OT_SAY("a task outside any region; tasks outliving their parent done by the region's end");
}

static void data_environment(void) {
    struct block {
        long v[512];
    } blk;
    for (int i = 0; i < 512; i++) blk.v[i] = i * 3;
    _Alignas(64) double aligned = 1.5;
    int shared_v = 0, priv = 9, bad = 0;
#pragma omp parallel reduction(+ : bad)
#pragma omp single
    {
        for (int k = 0; k < 50; k++) {
#pragma omp task firstprivate(blk, aligned, k) shared(shared_v, bad) private(priv)
            {
                int b = ((uintptr_t)&aligned % 64) != 0 || aligned != 1.5;
                for (int i = 0; i < 512; i++) b += blk.v[i] != i * 3;
                blk.v[0] = -1; /* its own copy */
                priv = k;
#pragma omp atomic
                bad += b + (priv != k);
#pragma omp atomic
                shared_v += k;
            }
        }
        /* the copies were made when the tasks were created */
        for (int i = 0; i < 512; i++) blk.v[i] = -7;
        aligned = -2;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(shared_v, 49 * 50 / 2);
    CHECK_EQ_INT(priv, 9);
    OT_SAY("firstprivate 4 KB block and a 64-byte-aligned double, shared, private: right");
}

static void clauses(void) {
    /* if(0): undeferred; done when the construct ends */
    int bad = 0;
#pragma omp parallel reduction(+ : bad)
    {
        for (int k = 0; k < 20; k++) {
            int done = 0;
#pragma omp task if (0) shared(done)
            done = 1;
            bad += done != 1;
        }
    }
    CHECK_EQ_INT(bad, 0);

    /* final: omp_in_final inside, and the tasks it makes are included: run at once, in order */
    int order[10], pos = 0, in_final = -1, outside_final = -1, same_thread = 1;
#pragma omp parallel
#pragma omp single
    {
#pragma omp task final(1) shared(order, pos, in_final, same_thread)
        {
            in_final = omp_in_final();
            int me = omp_get_thread_num();
            for (int k = 0; k < 10; k++) {
#pragma omp task shared(order, pos, same_thread) firstprivate(k, me)
                {
                    order[pos++] = k;
                    same_thread &= omp_get_thread_num() == me && omp_in_final();
                }
                if (pos != k + 1) same_thread = 0; /* already done */
            }
        }
#pragma omp task final(0) shared(outside_final)
        outside_final = omp_in_final();
#pragma omp taskwait
    }
    CHECK_EQ_INT(in_final, 1);
    CHECK_EQ_INT(outside_final, 0);
    CHECK_EQ_INT(omp_in_final(), 0);
    CHECK_EQ_INT(pos, 10);
    for (int k = 0; k < 10; k++) CHECK_EQ_INT(order[k], k);
    CHECK_EQ_INT(same_thread, 1);

    /* untied with taskyield, mergeable (with if(0) too), priority */
    long sum = 0;
    int maxp = omp_get_max_task_priority();
#pragma omp parallel reduction(+ : sum)
#pragma omp single
    for (int k = 0; k < 100; k++) {
#pragma omp task untied firstprivate(k) shared(sum)
        {
#pragma omp taskyield
#pragma omp atomic
            sum += k;
        }
#pragma omp task mergeable firstprivate(k) shared(sum)
        {
#pragma omp atomic
            sum += 2 * k;
        }
#pragma omp task mergeable if (k % 2) firstprivate(k) shared(sum)
        {
#pragma omp atomic
            sum += 3 * k;
        }
#pragma omp task priority(k % (maxp + 1)) firstprivate(k) shared(sum)
        {
#pragma omp atomic
            sum += 4 * k;
        }
    }
    CHECK_EQ_INT(sum, 10L * 99 * 100 / 2);
    OT_SAY("if(0), final (included tasks in order), untied + taskyield, mergeable, priority "
           "(max %d): right", maxp);
}

int main(void) {
    each_once();
    outside_and_outliving();
    data_environment();
    clauses();
    long f = 0;
#pragma omp parallel
#pragma omp single
    f = fib(18);
    CHECK_EQ_INT(f, 2584);
    OT_SAY("fib(18) with a task per call: %ld", f);
    return 0;
}
