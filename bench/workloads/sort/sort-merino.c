/* sort-merino.c — the sort workload with merino_sort, qsort's contract (sort.h): doubles only. */
#include "bench.h"
#include "sort.h"

#include <merino.h>
#include <merino_algorithm.h>

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    sort_args a;
    sort_parse(argc, argv, &a);
    if (a.kind == SORT_STRINGS) {
        fprintf(stderr, "%s: strings are sorted by the C++ versions only\n", argv[0]);
        return 2;
    }
    merino_config cfg = {.workers = (unsigned)a.workers};
    if (merino_start(&cfg) != 0) return 2;
    double *input = sort_make_doubles(&a);
    double *work = malloc(a.n * sizeof *work);
    if (!work) return 2;
    double seconds = 0;
    for (int r = 0; r < a.reps; r++) {
        memcpy(work, input, a.n * sizeof *work);
        double t0 = bench_now();
        merino_sort(work, a.n, sizeof *work, cmp_double);
        seconds += bench_now() - t0;
    }
    merino_stop();
    uint64_t sum = sort_sum_doubles(work, a.n);
    int ok = sort_sorted_doubles(work, a.n) && sum == sort_sum_doubles(input, a.n);
    free(work);
    free(input);
    return bench_report_i64(seconds, ok, (int64_t)sum, -1);
}
