// scan-run.hpp — what every C++ version of the scan workload shares (scan.h): the input, the output
// array, the timed repetitions and the check. A version gives its scan as a generic callable
// scan(first, last, out), called with int64_t * or with double * pointers.
#ifndef BENCH_SCAN_RUN_HPP
#define BENCH_SCAN_RUN_HPP

#include "bench.h" // first: it sets _GNU_SOURCE
#include "scan.h"

#include <cstdlib>
#include <type_traits>

template <class T, class Scan> static int scan_time(const scan_args &a, T *in, Scan &scan) {
    T *out = static_cast<T *>(scan_make_out(a.n, sizeof(T)));
    double t0 = bench_now();
    for (int r = 0; r < a.reps; r++) scan(in, in + a.n, out);
    double seconds = bench_now() - t0;
    int rc;
    if constexpr (std::is_same_v<T, double>)
        rc = bench_report_f64(seconds, scan_check_f64(in, out, a.n), out[a.n - 1], -1);
    else
        rc = bench_report_i64(seconds, scan_check_i64(in, out, a.n), out[a.n - 1], -1);
    std::free(out);
    std::free(in);
    return rc;
}

// Runs the workload of the command line with scan(first, last, out); returns the exit code.
template <class Scan> int scan_main(const scan_args &a, Scan &&scan) {
    if (a.type == SCAN_F64) return scan_time(a, scan_make_f64(a.n), scan);
    return scan_time(a, scan_make_i64(a.n), scan);
}

#endif
