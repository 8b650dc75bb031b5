/* tasks.c — the definitions (MERINO_TASK_IMPL_n, MERINO_VOID_TASK_IMPL_n) of most tasks declared
 * in tasks.h; fib_odd is defined in tests/test_task_decl.c. */
#include "tasks.h"

MERINO_TASK_IMPL_1(long, fib_even, int, n) {
    if (n < 2) return n;
    MERINO_SPAWN(fib_odd, n - 2);
    long a = MERINO_CALL(fib_odd, n - 1);
    long b = MERINO_JOIN(fib_odd);
    return a + b;
}

MERINO_TASK_IMPL_14(int, record14_task, record14 *, out, int, i, double, d, small, s,
                    const char *, str, char, c, long long, ll, float, f, unsigned short, us,
                    void *, vp, small, s2, double, d2, unsigned, u, signed char, sc) {
    out->self = out;
    out->i = i;
    out->d = d;
    out->s = s;
    out->str = str;
    out->c = c;
    out->ll = ll;
    out->f = f;
    out->us = us;
    out->vp = vp;
    out->s2 = s2;
    out->d2 = d2;
    out->u = u;
    out->sc = sc;
    out->ran_on = merino_worker_index();
    return i + 1;
}

MERINO_TASK_IMPL_0(long, weigh0) { return 0; }
MERINO_TASK_IMPL_1(long, weigh1, long, a1) { return 1000 + a1; }
MERINO_TASK_IMPL_2(long, weigh2, long, a1, long, a2) { return 2000 + a1 + 2 * a2; }
MERINO_TASK_IMPL_3(long, weigh3, long, a1, long, a2, long, a3) {
    return 3000 + a1 + 2 * a2 + 3 * a3;
}
MERINO_TASK_IMPL_4(long, weigh4, long, a1, long, a2, long, a3, long, a4) {
    return 4000 + a1 + 2 * a2 + 3 * a3 + 4 * a4;
}
MERINO_TASK_IMPL_5(long, weigh5, long, a1, long, a2, long, a3, long, a4, long, a5) {
    return 5000 + a1 + 2 * a2 + 3 * a3 + 4 * a4 + 5 * a5;
}
MERINO_TASK_IMPL_6(long, weigh6, long, a1, long, a2, long, a3, long, a4, long, a5, long, a6) {
    return 6000 + a1 + 2 * a2 + 3 * a3 + 4 * a4 + 5 * a5 + 6 * a6;
}
MERINO_TASK_IMPL_7(long, weigh7, long, a1, long, a2, long, a3, long, a4, long, a5, long, a6,
                   long, a7) {
    return 7000 + a1 + 2 * a2 + 3 * a3 + 4 * a4 + 5 * a5 + 6 * a6 + 7 * a7;
}
MERINO_TASK_IMPL_8(long, weigh8, long, a1, long, a2, long, a3, long, a4, long, a5, long, a6,
                   long, a7, long, a8) {
    return 8000 + a1 + 2 * a2 + 3 * a3 + 4 * a4 + 5 * a5 + 6 * a6 + 7 * a7 + 8 * a8;
}
MERINO_TASK_IMPL_9(long, weigh9, long, a1, long, a2, long, a3, long, a4, long, a5, long, a6,
                   long, a7, long, a8, long, a9) {
    return 9000 + a1 + 2 * a2 + 3 * a3 + 4 * a4 + 5 * a5 + 6 * a6 + 7 * a7 + 8 * a8 + 9 * a9;
}
MERINO_TASK_IMPL_10(long, weigh10, long, a1, long, a2, long, a3, long, a4, long, a5, long, a6,
                    long, a7, long, a8, long, a9, long, a10) {
    return 10000 + a1 + 2 * a2 + 3 * a3 + 4 * a4 + 5 * a5 + 6 * a6 + 7 * a7 + 8 * a8 + 9 * a9 +
           10 * a10;
}
MERINO_TASK_IMPL_11(long, weigh11, long, a1, long, a2, long, a3, long, a4, long, a5, long, a6,
                    long, a7, long, a8, long, a9, long, a10, long, a11) {
    return 11000 + a1 + 2 * a2 + 3 * a3 + 4 * a4 + 5 * a5 + 6 * a6 + 7 * a7 + 8 * a8 + 9 * a9 +
           10 * a10 + 11 * a11;
}
MERINO_TASK_IMPL_12(long, weigh12, long, a1, long, a2, long, a3, long, a4, long, a5, long, a6,
                    long, a7, long, a8, long, a9, long, a10, long, a11, long, a12) {
    return 12000 + a1 + 2 * a2 + 3 * a3 + 4 * a4 + 5 * a5 + 6 * a6 + 7 * a7 + 8 * a8 + 9 * a9 +
           10 * a10 + 11 * a11 + 12 * a12;
}
MERINO_TASK_IMPL_13(long, weigh13, long, a1, long, a2, long, a3, long, a4, long, a5, long, a6,
                    long, a7, long, a8, long, a9, long, a10, long, a11, long, a12, long, a13) {
    return 13000 + a1 + 2 * a2 + 3 * a3 + 4 * a4 + 5 * a5 + 6 * a6 + 7 * a7 + 8 * a8 + 9 * a9 +
           10 * a10 + 11 * a11 + 12 * a12 + 13 * a13;
}
MERINO_TASK_IMPL_14(long, weigh14, long, a1, long, a2, long, a3, long, a4, long, a5, long, a6,
                    long, a7, long, a8, long, a9, long, a10, long, a11, long, a12, long, a13,
                    long, a14) {
    return 14000 + a1 + 2 * a2 + 3 * a3 + 4 * a4 + 5 * a5 + 6 * a6 + 7 * a7 + 8 * a8 + 9 * a9 +
           10 * a10 + 11 * a11 + 12 * a12 + 13 * a13 + 14 * a14;
}

long weigh_bumps;

MERINO_VOID_TASK_IMPL_0(bump0) {
    __atomic_fetch_add(&weigh_bumps, 1, __ATOMIC_RELAXED); /* relaxed: read after the join */
}

MERINO_VOID_TASK_IMPL_2(add_into, long *, to, long, v) { *to += v; }

MERINO_VOID_TASK_IMPL_14(weigh_into, long *, out, long, a1, long, a2, long, a3, long, a4, long, a5,
                         long, a6, long, a7, long, a8, long, a9, long, a10, long, a11, long, a12,
                         long, a13) {
    *out = MERINO_CALL(weigh13, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13);
}
