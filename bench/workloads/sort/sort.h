/* sort.h — the sort workload (issue 30): n keys sorted into ascending order, a fresh copy of one
 * input per repetition (the copy is not timed).
 *
 *   ./sort-<system> --workers N [--reps R] kind n
 *
 *   kind     random   n doubles uniform in [0, 1)
 *            nearly   n doubles in ascending order, then n / 100 random pairs of them swapped
 *            dups     n doubles drawn from 64 distinct values (many duplicates)
 *            strings  n strings of 8 to 24 random lowercase letters (the C++ versions sort a
 *                     std::vector<std::string>)
 *
 * Versions: serial (std::sort), merino (merino_sort, qsort's contract; doubles only),
 * merino-cxx (merino::parallel_sort), tbb (oneTBB's tbb::parallel_sort), gnupar (libstdc++'s
 * parallel mode, __gnu_parallel::sort on OpenMP), stdpar (std::sort(std::execution::par, ...),
 * libstdc++ on oneTBB). Each checks its output: in order, and the multiset of the input (an
 * order-independent checksum of every key). result: that checksum. */
#ifndef BENCH_SORT_H
#define BENCH_SORT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum sort_kind { SORT_RANDOM, SORT_NEARLY, SORT_DUPS, SORT_STRINGS };

typedef struct sort_args {
    int workers, reps;
    enum sort_kind kind;
    size_t n;
} sort_args;

/* Parses the command line (bench.h's contract); 0 when it is good, else prints the usage, 2. */
int sort_parse(int argc, char **argv, sort_args *a);

/* The n doubles of a kind other than strings (malloc'ed; the same on every run). */
double *sort_make_doubles(const sort_args *a);

/* The n strings (pointers into one malloc'ed pool, returned in *pool; the same on every run). */
char **sort_make_strings(const sort_args *a, char **pool);

/* A key's contribution to the order-independent checksum. */
uint64_t sort_key_double(double x);
uint64_t sort_key_string(const char *s, size_t len);

/* The checksum of n doubles; whether they are in ascending order. */
uint64_t sort_sum_doubles(const double *x, size_t n);
int sort_sorted_doubles(const double *x, size_t n);

#ifdef __cplusplus
}
#endif

#endif
