/* recmm, serial: ./recmm-serial [--reps R] n [reps]   (see recmm.h) */
#include "recmm.h"

static void recmm_serial(const recmm_real *A, const recmm_real *B, recmm_real *C, int m, int n, int p,
                         int ld, int add) {
    if (RECMM_LEAF(m, n, p)) {
        recmm_leaf(A, B, C, m, n, p, ld, add);
    } else if (m >= n && n >= p) {
        int m1 = m >> 1;
        recmm_serial(A, B, C, m1, n, p, ld, add);
        recmm_serial(A + m1 * ld, B, C + m1 * ld, m - m1, n, p, ld, add);
    } else if (n >= m && n >= p) {
        int n1 = n >> 1;
        recmm_serial(A, B, C, m, n1, p, ld, add);
        recmm_serial(A + n1, B + n1 * ld, C, m, n - n1, p, ld, 1);
    } else {
        int p1 = p >> 1;
        recmm_serial(A, B, C, m, n, p1, ld, add);
        recmm_serial(A, B + p1, C + p1, m, n, p - p1, ld, add);
    }
}

int main(int argc, char **argv) {
    recmm_args a;
    int workers, outer;
    recmm_setup(argc, argv, &a, &workers, &outer);
    double t0 = bench_now();
    for (int o = 0; o < outer * a.reps; o++) recmm_serial(a.A, a.B, a.C, a.n, a.n, a.n, a.n, 0);
    double t = bench_now() - t0;
    double sum;
    int ok = recmm_check(&a, &sum);
    return bench_report_f64(t, ok, sum, -1);
}
