/* taskgroup.c — taskgroup waits for every descendant (grandchildren the children did not wait
 * for included), nested taskgroups; task reductions: taskgroup task_reduction with in_reduction
 * tasks (several operators and types, a user-defined reduction, nested taskgroups reducing
 * different variables, an in_reduction task inside a child task), and the task modifier on
 * parallel and on for (reduction(task, ...)).
 */
#include "omp_test.h"

static void spawn_tree(atomic_int *count, int depth) {
    atomic_fetch_add_explicit(count, 1, memory_order_relaxed); /* a count, read after the group */
    if (depth == 0) return;
    for (int k = 0; k < 3; k++) {
#pragma omp task firstprivate(depth)
        spawn_tree(count, depth - 1);
    }
    /* no taskwait: the taskgroup around the root waits for all of them */
}

static void waits_for_descendants(void) {
    int seen = -1, seen_inner = -1;
    atomic_int count = 0, inner = 0;
#pragma omp parallel
#pragma omp single
    {
#pragma omp taskgroup
        {
#pragma omp task
            spawn_tree(&count, 5); /* 1 + 3 + ... + 3^5 = 364 tasks */
#pragma omp taskgroup
            {
#pragma omp task
                spawn_tree(&inner, 3); /* 40 */
            }
            seen_inner = atomic_load_explicit(&inner, memory_order_relaxed);
        }
        seen = atomic_load_explicit(&count, memory_order_relaxed);
    }
    CHECK_EQ_INT(seen_inner, 40);
    CHECK_EQ_INT(seen, 364);
    OT_SAY("taskgroup: all 364 descendants done at its end; a nested one's 40 at its own");
}

struct minmax {
    long lo, hi;
};
#pragma omp declare reduction(mm:struct minmax : omp_out.lo = omp_in.lo < omp_out.lo ? omp_in.lo : omp_out.lo, \
                                                 omp_out.hi = omp_in.hi > omp_out.hi ? omp_in.hi : omp_out.hi)  \
    initializer(omp_priv = (struct minmax){1L << 40, -(1L << 40)})

static void task_reductions(void) {
    enum { K = 200 };
    long sum = 0, prod = 1, inner_sum = 0;
    double dsum = 0;
    unsigned bits = 0;
    int all = 1;
    struct minmax m = {1L << 40, -(1L << 40)};
    long child_sum = 0;
#pragma omp parallel
#pragma omp single
    {
#pragma omp taskgroup task_reduction(+ : sum, dsum) task_reduction(* : prod) task_reduction(| : bits) \
    task_reduction(&& : all) task_reduction(mm : m) task_reduction(+ : child_sum)
        {
            for (int k = 0; k < K; k++) {
#pragma omp task in_reduction(+ : sum, dsum) in_reduction(* : prod) in_reduction(| : bits) \
    in_reduction(&& : all) in_reduction(mm : m) firstprivate(k)
                {
                    sum += k;
                    dsum += 0.5 * k;
                    prod *= (k % 50 == 3) ? -2 : 1;
                    bits |= 1u << (k % 32);
                    all = all && k < K;
                    long v = (long)(k * 7919 % 401) - 200;
                    m.lo = v < m.lo ? v : m.lo;
                    m.hi = v > m.hi ? v : m.hi;
                }
                if (k % 10 == 0) {
                    /* a task whose child participates in the reduction */
#pragma omp task firstprivate(k)
                    {
#pragma omp task in_reduction(+ : child_sum) firstprivate(k)
                        child_sum += k;
                    }
                }
            }
            /* a nested taskgroup with a reduction of its own */
#pragma omp taskgroup task_reduction(+ : inner_sum)
            {
                for (int k = 0; k < 50; k++) {
#pragma omp task in_reduction(+ : inner_sum) firstprivate(k)
                    inner_sum += 2 * k;
                }
            }
        }
    }
    long lo = 1L << 40, hi = -(1L << 40), want_child = 0;
    for (int k = 0; k < K; k++) {
        long v = (long)(k * 7919 % 401) - 200;
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
        if (k % 10 == 0) want_child += k;
    }
    CHECK_EQ_INT(sum, K * (K - 1) / 2);
    CHECK(dsum == 0.5 * K * (K - 1) / 2);
    CHECK_EQ_INT(prod, 16); /* four factors of -2 */
    CHECK_EQ_UINT(bits, 0xFFFFFFFFu);
    CHECK_EQ_INT(all, 1);
    CHECK_EQ_INT(m.lo, lo);
    CHECK_EQ_INT(m.hi, hi);
    CHECK_EQ_INT(inner_sum, 49 * 50);
    CHECK_EQ_INT(child_sum, want_child);
    OT_SAY("taskgroup task_reduction: + %ld, * %ld, | %#x, && %d, declare reduction [%ld, %ld], nested %ld, "
           "from grandchildren %ld", sum, prod, bits, all, m.lo, m.hi, inner_sum, child_sum);
}

/* reduction(task, ...) on parallel and on for: tasks made anywhere in the construct add in. */
static void task_modifier(void) {
    int n = ot_threads();
    long psum = 0, fsum = 0;
#pragma omp parallel reduction(task, + : psum)
    {
        psum += 1000; /* the implicit task's own part */
        for (int k = 0; k < 10; k++) {
#pragma omp task in_reduction(+ : psum) firstprivate(k)
            psum += k;
        }
#pragma omp for reduction(task, + : fsum) schedule(dynamic)
        for (int i = 0; i < 100; i++) {
            fsum += i;
#pragma omp task in_reduction(+ : fsum) firstprivate(i)
            fsum += 2 * i;
        }
    }
    CHECK_EQ_INT(psum, n * (1000L + 45));
    CHECK_EQ_INT(fsum, 3L * 99 * 100 / 2);
    OT_SAY("parallel reduction(task): %ld; for reduction(task): %ld", psum, fsum);
}

int main(void) {
    waits_for_descendants();
    task_reductions();
    task_modifier();
    return 0;
}
