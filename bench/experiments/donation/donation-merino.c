/* donation-merino.c — how long an idle worker waits for work under each merino schedule: from
 * the moment a thief runs out of work to the moment it runs a range it was given (the IDWS
 * paper's donation, or a steal).
 *
 * Each sample is one loop of 2n indices at 2 workers: [0, n) heavy (about a microsecond each),
 * [n, 2n) empty. Under idws, idws-poll, steal and static each participant starts with one half:
 * the one with the empty half finishes at once and asks the other; the sample is the time from
 * that worker's last return from an empty index to its first entry into a heavy one (it never owned
 * one). Params: loops schedule [n]: `loops` samples (one loop each, default n = 2000); the JSON
 * line adds "lat_median_us", "lat_p99_us" and "samples" (loops where a donation happened: at one
 * worker, none); the result is the number of indices run. Every index is counted in every loop: the check fails if one ran twice or never. */
#include <bench.h> /* first: it sets _GNU_SOURCE */

#include <merino_loop.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DONATION_WORKERS 64

typedef struct donation_loop {
    int64_t n;                 /* [0, n) heavy, [n, 2n) empty */
    unsigned char *hits;       /* atomic: per index */
    int owner0;                /* atomic: the worker that ran index 0 */
    double light_end[DONATION_WORKERS];   /* per worker: last return from an empty index */
    double heavy_start[DONATION_WORKERS]; /* per worker: first entry into a heavy index */
    uint64_t sink;             /* atomic */
} donation_loop;

static void donation_body(int64_t lo, int64_t hi, void *ctx) {
    donation_loop *d = ctx;
    unsigned w = merino_worker_index() % DONATION_WORKERS;
    if (lo < d->n && d->heavy_start[w] == 0) d->heavy_start[w] = bench_now();
    if (lo == 0) __atomic_store_n(&d->owner0, (int)w, __ATOMIC_RELAXED); /* relaxed: read after the loop */
    uint64_t x = 0;
    for (int64_t i = lo; i < hi; i++) {
        if (i < d->n) {
            x = (uint64_t)i;
            for (int k = 0; k < 300; k++) x = x * 6364136223846793005ull + 1442695040888963407ull;
        }
        __atomic_fetch_add(&d->hits[i], 1, __ATOMIC_RELAXED); /* relaxed: counts, read after */
    }
    __atomic_fetch_add(&d->sink, x, __ATOMIC_RELAXED); /* relaxed: keeps the work */
    if (hi > d->n) d->light_end[w] = bench_now();
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    int workers, reps;
    const char *p[3];
    int np = bench_args(argc, argv, &workers, &reps, p, 3);
    long loops = bench_param_long(p, np, 0, 0);
    int64_t n = bench_param_long(p, np, 2, 2000);
    merino_for_opts opts = {0};
    if (np < 2 || loops < 1 || n < 1) {
        bench_usage_exit(argv[0], "loops schedule [n]");
        return 2;
    }
    if (merino_schedule_parse(p[1], &opts) != 0) {
        fprintf(stderr, "%s\n", merino_last_error());
        return 2;
    }
    merino_config cfg = {0};
    cfg.workers = (unsigned)workers;
    if (merino_start(&cfg) != 0) return 2;

    long total = loops * reps, got = 0;
    double *lat = malloc(sizeof(double) * (size_t)total);
    donation_loop *d = malloc(sizeof *d);
    unsigned char *hits = malloc((size_t)(2 * n));
    if (!lat || !d || !hits) return 2;
    int ok = 1;
    double t0 = bench_now();
    for (long s = 0; s < total; s++) {
        memset(d, 0, sizeof *d);
        memset(hits, 0, (size_t)(2 * n));
        d->n = n, d->hits = hits, d->owner0 = -1;
        merino_for(0, 2 * n, donation_body, d, &opts);
        for (int64_t i = 0; i < 2 * n; i++) ok &= hits[i] == 1;
        for (int w = 0; w < DONATION_WORKERS; w++) /* the worker that ran out of work and was given some */
            if (w != d->owner0 && d->light_end[w] > 0 && d->heavy_start[w] > d->light_end[w]) {
                lat[got++] = (d->heavy_start[w] - d->light_end[w]) * 1e6;
                break;
            }
    }
    double t1 = bench_now();
    BENCH_MERINO_STATS();
    merino_stop();

    char extra[160];
    if (got) {
        qsort(lat, (size_t)got, sizeof *lat, cmp_double);
        snprintf(extra, sizeof extra, "\"lat_median_us\": %.3f, \"lat_p99_us\": %.3f, \"samples\": %ld",
                 lat[got / 2], lat[(long)((double)(got - 1) * 0.99)], got);
    } else {
        snprintf(extra, sizeof extra, "\"lat_median_us\": null, \"lat_p99_us\": null, \"samples\": 0");
    }
    bench_sink(d->sink);
    free(lat), free(d), free(hits);
    return bench_report_i64x(t1 - t0, ok, (int64_t)(2 * n * total), -1, extra); /* the indices run */
}
