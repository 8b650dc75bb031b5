/* msort-serial.c — merge sort, the serial baseline.
 *
 * Workload: sort n random 32-bit keys (deterministic input) by a recursive merge sort that reads
 * the input array and leaves it unchanged (so every repetition sorts the same data): halves are
 * sorted into a scratch array, then merged into the output. Below MSORT_SORT_CUTOFF (32) keys a
 * leaf copies and insertion-sorts. The parallel versions sort the two halves in parallel and merge
 * in parallel by divide and conquer: the middle key of the longer input is located in the other
 * by binary search, and the two sub-merges run in parallel, down to MSORT_MERGE_CUTOFF (1024)
 * output keys (serial merge). merino: MERINO_SPAWN/CALL/JOIN at both levels; TBB: task_group;
 * OpenMP: `omp task` / `taskwait` inside one parallel region. The serial version uses the same
 * sort recursion with a serial merge.
 *
 * Command line: ./msort-<system> --workers N [--reps R] n [reps]
 *   n     keys
 *   reps  sorts of the same input inside the kernel (default 1); --reps R repeats the kernel.
 * Check: output non-decreasing, same multiset as the input (hash sum), equal to a serial sort.
 * Output: one JSON line; result = sum of key[i]*(i+1) over the sorted output (mod 2^63); tasks =
 * spawns of the parallel recursion (counted on a serial replay) for merino, TBB and OpenMP, null for
 * serial.
 */
#include <bench.h> /* first: it sets _GNU_SOURCE */
#include "msort.h"
#include <stdlib.h>

int main(int argc, char **argv) {
    msort_args a;
    if (msort_parse(argc, argv, &a)) return 2;
    msort_key *in, *out, *tmp;
    msort_init(a.n, &in, &out, &tmp);

    double t0 = bench_now();
    for (int o = 0; o < a.outer; o++)
        for (long r = 0; r < a.reps; r++) msort_serial(in, out, tmp, a.n);
    double t1 = bench_now();

    int64_t sum;
    int ok = msort_verify(in, out, a.n, &sum);
    free(in);
    free(out);
    free(tmp);
    return bench_report_i64(t1 - t0, ok, sum, -1);
}
