// sort-run.hpp — what every C++ version of the sort workload shares (sort.h): the input, the timed
// repetitions, each on a fresh copy (the copy is not timed), and the check of the output. A version
// gives its sort as a generic callable sort(first, last), called with double * or with
// std::string * iterators.
#ifndef BENCH_SORT_RUN_HPP
#define BENCH_SORT_RUN_HPP

#include "bench.h" // first: it sets _GNU_SOURCE
#include "sort.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

template <class T> static uint64_t sort_checksum(const std::vector<T> &v) {
    uint64_t sum = 0;
    for (const T &x : v) {
        if constexpr (std::is_same_v<T, double>)
            sum += sort_key_double(x);
        else
            sum += sort_key_string(x.data(), x.size());
    }
    return sum;
}

template <class T, class Sort> static int sort_time(const sort_args &a, const std::vector<T> &input, Sort &sort) {
    std::vector<T> work;
    double seconds = 0;
    for (int r = 0; r < a.reps; r++) {
        work = input;
        double t0 = bench_now();
        sort(work.data(), work.data() + work.size());
        seconds += bench_now() - t0;
    }
    uint64_t sum = sort_checksum(work);
    bool ok = std::is_sorted(work.begin(), work.end()) && sum == sort_checksum(input);
    return bench_report_i64(seconds, ok, static_cast<int64_t>(sum), -1);
}

// Runs the workload of the command line with sort(first, last); returns the exit code.
template <class Sort> int sort_main(const sort_args &a, Sort &&sort) {
    if (a.kind == SORT_STRINGS) {
        char *pool;
        char **s = sort_make_strings(&a, &pool);
        std::vector<std::string> input(s, s + a.n);
        std::free(s);
        std::free(pool);
        return sort_time(a, input, sort);
    }
    double *x = sort_make_doubles(&a);
    std::vector<double> input(x, x + a.n);
    std::free(x);
    return sort_time(a, input, sort);
}

#endif
