/* lu-recursion.h — lu's recursion (drawn in lu-common.c's header comment), written once for every
 * version with tasks. A version says how it writes a task and a fork, then includes this, which
 * defines t_schur, t_lower, t_upper and t_lu:
 *   LU_FORK(f1, (args1), f2, (args2))   runs f1(args1) and f2(args2) in parallel, f2 by the caller,
 *                                       and returns when both are done (required)
 *   LU_TASK_2, _3, _5(name, T1, a1, ...)  the head of a task of n parameters, and LU_CALL(name,
 *                                       args...) a call of one; by default a static function and a
 *                                       plain call (merino: MERINO_VOID_TASK_n and MERINO_CALL). */
#ifndef BENCH_LU_RECURSION_H
#define BENCH_LU_RECURSION_H

#ifndef LU_TASK_2
#define LU_TASK_2(f, T1, a1, T2, a2) static void f(T1 a1, T2 a2)
#define LU_TASK_3(f, T1, a1, T2, a2, T3, a3) static void f(T1 a1, T2 a2, T3 a3)
#define LU_TASK_5(f, T1, a1, T2, a2, T3, a3, T4, a4, T5, a5) static void f(T1 a1, T2 a2, T3 a3, T4 a4, T5 a5)
#define LU_CALL(f, ...) f(__VA_ARGS__)
#endif
#define LU_ARGS(...) __VA_ARGS__ /* (a, b) -> a, b */

/* C -= A B on the blocks of r, split along the longer side down to one block of C */
LU_TASK_2(t_schur, const lu_mat *, m, lu_rect, r) {
    if (r.ni > 1 || r.nj > 1) {
        LU_SPLIT(r, r2);
        LU_FORK(t_schur, (m, r2), t_schur, (m, r));
        return;
    }
    for (int k = r.k0; k < r.k0 + r.nk; k++) lu_leaf_schur(m, r.i0, r.j0, k);
}

/* block columns [c0, c0 + nc) of the dm x dm panel at d: L^-1 B, split over the columns */
LU_TASK_5(t_lower, const lu_mat *, m, int, d, int, dm, int, c0, int, nc) {
    if (nc > 1) {
        LU_FORK(t_lower, (m, d, dm, c0 + nc / 2, nc - nc / 2), t_lower, (m, d, dm, c0, nc / 2));
        return;
    }
    if (dm == 1) {
        lu_leaf_lower(m, d, c0);
        return;
    }
    int h = dm / 2;
    LU_CALL(t_lower, m, d, h, c0, 1);
    lu_rect r = {d + h, dm - h, c0, 1, d, h};
    LU_CALL(t_schur, m, r);
    LU_CALL(t_lower, m, d + h, dm - h, c0, 1);
}

/* block rows [r0, r0 + nr) of the panel: B U^-1, split over the rows */
LU_TASK_5(t_upper, const lu_mat *, m, int, d, int, dm, int, r0, int, nr) {
    if (nr > 1) {
        LU_FORK(t_upper, (m, d, dm, r0 + nr / 2, nr - nr / 2), t_upper, (m, d, dm, r0, nr / 2));
        return;
    }
    if (dm == 1) {
        lu_leaf_upper(m, d, r0);
        return;
    }
    int h = dm / 2;
    LU_CALL(t_upper, m, d, h, r0, 1);
    lu_rect r = {r0, 1, d + h, dm - h, d, h};
    LU_CALL(t_schur, m, r);
    LU_CALL(t_upper, m, d + h, dm - h, r0, 1);
}

/* the dm x dm blocks at (d, d): factor the top-left half, both panels in parallel, update the
 * trailing half, factor it */
LU_TASK_3(t_lu, const lu_mat *, m, int, d, int, dm) {
    if (dm == 1) {
        lu_leaf_factor(m, d);
        return;
    }
    int h = dm / 2;
    LU_CALL(t_lu, m, d, h);
    LU_FORK(t_lower, (m, d, h, d + h, dm - h), t_upper, (m, d, h, d + h, dm - h));
    lu_rect r = {d + h, dm - h, d + h, dm - h, d, h};
    LU_CALL(t_schur, m, r);
    LU_CALL(t_lu, m, d + h, dm - h);
}

#endif
