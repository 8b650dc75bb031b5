/* scan.h — the scan workload (issue 30): the inclusive prefix sums of n numbers into another array,
 * repeated reps times (--reps) over the same input and output.
 *
 *   ./scan-<system> --workers N [--reps R] type n
 *
 *   type     i64   n 64-bit integers uniform in [-1000, 1000]
 *            f64   n doubles uniform in [0, 1)
 *
 * Versions: serial (std::inclusive_scan), merino (merino_scan, the C engine, with a body per
 * chunk), merino-cxx (merino::inclusive_scan), tbb (oneTBB's tbb::parallel_scan, functional form),
 * stdpar (std::inclusive_scan(std::execution::par, ...), libstdc++ on oneTBB), gnupar (libstdc++'s
 * parallel mode: __gnu_parallel::partial_sum on OpenMP). The output array is written once before
 * the timing (no page faults timed). Each version checks every output against a running sum:
 * equal for integers, within a relative 1e-9 for doubles (a parallel scan adds in another order).
 * result: the last sum. */
#ifndef BENCH_SCAN_H
#define BENCH_SCAN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum scan_type { SCAN_I64, SCAN_F64 };

typedef struct scan_args {
    int workers, reps;
    enum scan_type type;
    size_t n;
} scan_args;

/* Parses the command line (bench.h's contract); exits 2 with the usage when it is bad. */
void scan_parse(int argc, char **argv, scan_args *a);

/* The n inputs of the type (malloc'ed; the same on every run), and an output array of n written
 * once (malloc'ed). */
int64_t *scan_make_i64(size_t n);
double *scan_make_f64(size_t n);
void *scan_make_out(size_t n, size_t size);

/* Whether out holds the inclusive prefix sums of in. */
int scan_check_i64(const int64_t *in, const int64_t *out, size_t n);
int scan_check_f64(const double *in, const double *out, size_t n);

#ifdef __cplusplus
}
#endif

#endif
