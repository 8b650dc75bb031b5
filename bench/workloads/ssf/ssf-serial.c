/* ssf-serial.c — sub-string finder, the serial baseline.
 *
 * Workload (Wool paper section IV-A "ssf", after the sub_string_finder example of TBB): the string
 * is the Fibonacci string s_n = s_{n-1} s_{n-2}, s_0 = "a", s_1 = "b" (|s_n| = 233, 377, 610, 987,
 * 1597 for n = 12..16). For each position i, find the length of the longest substring starting at
 * i that also starts at another position j, and the first such j. Work per position is
 * O(|s| * match length) and varies between positions. The parallel versions parallelize over
 * positions: merino by recursive splitting of the position range down to one position per task
 * (|s|-1 spawns per search), TBB with parallel_for, OpenMP with `omp parallel for
 * schedule(dynamic)`. All use the same leaf, ssf_position (ssf-common.c); the results must be
 * identical to a serial run in the same program.
 *
 * Command line: ./ssf-<system> --workers N [--reps R] n [reps]
 *   n     which Fibonacci string (0..30; 12..16 in the Wool paper)
 *   reps  searches done one after another inside the kernel (default 1); --reps R repeats the
 *         whole kernel R times.
 * Output: one JSON line; result = sum over positions of the longest match length; tasks =
 * R*reps*(|s_n|-1) for merino, null for the others.
 */
#include <bench.h> /* first: it sets _GNU_SOURCE */
#include "ssf.h"


int main(int argc, char **argv) {
    ssf_args a;
    if (ssf_parse(argc, argv, &a)) return 2;
    ssf_problem p;
    ssf_init(a.n, &p);

    double t0 = bench_now();
    for (int o = 0; o < a.outer; o++)
        for (long r = 0; r < a.reps; r++) ssf_serial(&p);
    double t1 = bench_now();

    long long sum;
    int ok = ssf_verify(&p, a.n, &sum);
    ssf_free(&p);
    return bench_report_i64(t1 - t0, ok, sum, -1);
}
