/* scan-merino.c — the scan workload with merino_scan, the C engine: a body that sums one chunk
 * (writing its outputs in the final pass) and a combine that adds two sums (scan.h). */
#include "bench.h"
#include "scan.h"

#include <merino.h>
#include <merino_algorithm.h>

typedef struct scan_ctx {
    const void *in;
    void *out;
} scan_ctx;

/* The body (a chunk's sum, its outputs written in the final pass) and the combine of sums of T. */
#define SCAN_OPS(T, name)                                                                          \
    static void body_##name(int64_t lo, int64_t hi, void *sum, int final, void *ctx) {             \
        const scan_ctx *c = ctx;                                                                   \
        const T *in = c->in;                                                                       \
        T *out = c->out, s = *(T *)sum;                                                            \
        if (final)                                                                                 \
            for (int64_t i = lo; i < hi; i++) out[i] = s += in[i];                                 \
        else                                                                                       \
            for (int64_t i = lo; i < hi; i++) s += in[i];                                          \
        *(T *)sum = s;                                                                             \
    }                                                                                              \
    static void combine_##name(void *l, const void *r, void *ctx) {                                \
        (void)ctx;                                                                                 \
        *(T *)l += *(const T *)r;                                                                  \
    }

SCAN_OPS(int64_t, i64)
SCAN_OPS(double, f64)

int main(int argc, char **argv) {
    scan_args a;
    scan_parse(argc, argv, &a);
    merino_config cfg = {.workers = (unsigned)a.workers};
    if (merino_start(&cfg) != 0) return 2;
    int f64 = a.type == SCAN_F64;
    static const int64_t zero_i64 = 0;
    static const double zero_f64 = 0;
    merino_scanner s = {.size = 8,
                        .identity = f64 ? (const void *)&zero_f64 : (const void *)&zero_i64,
                        .body = f64 ? body_f64 : body_i64,
                        .combine = f64 ? combine_f64 : combine_i64};
    void *in = f64 ? (void *)scan_make_f64(a.n) : (void *)scan_make_i64(a.n);
    scan_ctx c = {in, scan_make_out(a.n, 8)};
    unsigned char total[8];
    double t0 = bench_now();
    for (int r = 0; r < a.reps; r++) merino_scan(0, (int64_t)a.n, total, &s, &c, NULL);
    double seconds = bench_now() - t0;
    merino_stop();
    int rc = f64 ? bench_report_f64(seconds, scan_check_f64(in, c.out, a.n), ((double *)c.out)[a.n - 1], -1)
                 : bench_report_i64(seconds, scan_check_i64(in, c.out, a.n), ((int64_t *)c.out)[a.n - 1], -1);
    free(c.out);
    free(in);
    return rc;
}
