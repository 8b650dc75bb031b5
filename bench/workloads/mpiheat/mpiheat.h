/* mpiheat — 2-D heat diffusion (Jacobi, 5-point stencil) on an NX x NY grid split into bands of
 * rows over MPI ranks, with a shared-memory runtime inside each rank: merino (merino_for, halo
 * exchange posted before the interior update and waited for with merino_mpi_waitall) against MPI +
 * OpenMP (`#pragma omp parallel for`, blocking exchanges with MPI_Sendrecv before the update).
 *
 * Params: RANKS NX NY STEPS LATENCY_US. A program started without mpirun starts itself through
 * mpirun on RANKS ranks (--oversubscribe, no binding, running as root allowed); --workers is the
 * number of workers (threads) per rank. LATENCY_US injects a latency on every halo exchange, at
 * the receiver: a halo posted at time t may be used from t + LATENCY_US on (a network with that
 * latency) — the blocking version sleeps until then before its update, the merino version after
 * its interior update, if that was shorter.
 *
 * Each run measures, on rank 0 (maxima over the ranks): "seconds", STEPS steps of the program;
 * "comp_seconds", the same steps with no exchange; "comm_seconds", the exchanges alone (latency
 * included); "hidden", the share of the communication time hidden behind computation,
 * (comp + comm - seconds) / comm, clamped to [0, 1]; "wait_cpu", the CPU time a rank uses while it
 * waits 0.2 s for a message, over that wall time (the most over the waiting ranks; null with one
 * rank). "check" compares the final grid with a serial run, bit for bit. mpiheat-serial runs the
 * serial program alone (RANKS and LATENCY_US are ignored). */
#ifndef BENCH_MPIHEAT_H
#define BENCH_MPIHEAT_H

#include "bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct mh_args {
    int workers, reps;
    int ranks, nx, ny, steps, latency_us;
} mh_args;

static void mh_parse(int argc, char **argv, mh_args *a) {
    const char *p[5];
    int np = bench_args(argc, argv, &a->workers, &a->reps, p, 5);
    a->ranks = (int)bench_param_long(p, np, 0, 2);
    a->nx = (int)bench_param_long(p, np, 1, 512);
    a->ny = (int)bench_param_long(p, np, 2, 512);
    a->steps = (int)bench_param_long(p, np, 3, 100);
    a->latency_us = (int)bench_param_long(p, np, 4, 0);
    if (a->ranks < 1 || a->nx < 3 || a->ny < 2 * a->ranks || a->steps < 1 || a->latency_us < 0)
        bench_usage_exit(argv[0], "RANKS NX NY STEPS LATENCY_US (NX >= 3, NY >= 2 x RANKS)");
}

/* The initial grid: a hot top edge, a warm left edge, the rest cold; edges stay fixed. */
static inline double mh_initial(int gi, int j) {
    if (gi == 0) return 100.0;
    if (j == 0) return 50.0 + (double)(gi % 7);
    return 0.0;
}

/* New values of global row gi from the rows above (a), here (c) and below (b). */
static inline void mh_update_row(const double *a, const double *c, const double *b, double *out, int gi,
                                 int nx, int ny) {
    if (gi == 0 || gi == ny - 1) {
        memcpy(out, c, (size_t)nx * sizeof *out);
        return;
    }
    out[0] = c[0];
    for (int j = 1; j < nx - 1; j++) out[j] = 0.25 * ((a[j] + b[j]) + (c[j - 1] + c[j + 1]));
    out[nx - 1] = c[nx - 1];
}

/* The serial program: STEPS steps on the whole grid; returns the final grid (malloc'd). */
static double *mh_serial(int nx, int ny, int steps) {
    double *u = malloc((size_t)nx * ny * sizeof *u), *v = malloc((size_t)nx * ny * sizeof *v);
    for (int i = 0; i < ny; i++)
        for (int j = 0; j < nx; j++) u[(size_t)i * nx + j] = mh_initial(i, j);
    for (int s = 0; s < steps; s++) {
        for (int i = 0; i < ny; i++) {
            const double *c = u + (size_t)i * nx;
            mh_update_row(i > 0 ? c - nx : c, c, i < ny - 1 ? c + nx : c, v + (size_t)i * nx, i, nx, ny);
        }
        double *t = u;
        u = v;
        v = t;
    }
    free(v);
    return u;
}

static inline void mh_sleep_until(double t) {
    double now = bench_now();
    if (now >= t) return;
    struct timespec ts = {(time_t)(t - now), (long)(fmod(t - now, 1.0) * 1e9)};
    nanosleep(&ts, NULL);
}

#ifdef MH_MPI /* ---- the MPI versions ---------------------------------------------------------------- */

#include <mpi.h>
#include <sys/resource.h>

/* Started without mpirun: start again through it (Open MPI, else MPICH's Hydra). */
static void mh_launch(int argc, char **argv, const mh_args *a) {
    if (getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("PMIX_RANK") || getenv("MH_LAUNCHED"))
        return;
    setenv("MH_LAUNCHED", "1", 1);
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1); /* Open MPI refuses root without both */
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
    const char *mpirun = getenv("MERINO_MPIEXEC") ? getenv("MERINO_MPIEXEC") : "mpirun";
    char np[16], self[4096];
    snprintf(np, sizeof np, "%d", a->ranks);
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        fprintf(stderr, "%s: cannot find its own path to start itself through %s\n", argv[0], mpirun);
        exit(1);
    }
    self[n] = '\0';
    char **av = calloc((size_t)argc + 12, sizeof *av);
    int k = 0;
    av[k++] = (char *)mpirun;
    av[k++] = "-np";
    av[k++] = np;
    if (!getenv("MH_MPICH")) { /* Open MPI: 4 ranks on 2 cores, and no binding of a rank to one core */
        av[k++] = "--oversubscribe";
        av[k++] = "--bind-to";
        av[k++] = "none";
    }
    av[k++] = self;
    for (int i = 1; i < argc; i++) av[k++] = argv[i];
    execvp(mpirun, av);
    fprintf(stderr, "%s: cannot start %s (install openmpi-bin, or set MERINO_MPIEXEC)\n", argv[0], mpirun);
    exit(1);
}

/* This rank's band of rows, with ghost rows 0 and rows + 1. */
typedef struct mh_band {
    int nx, ny, rows, row0, up, down, steps, latency_us;
    double *u, *v;
    int exchange, compute; /* what a run does (the three measurements) */
} mh_band;

static inline double *mh_row(const mh_band *b, double *g, int i) { return g + (size_t)i * b->nx; }

static void mh_band_init(mh_band *b, const mh_args *a, int rank, int size) {
    b->nx = a->nx, b->ny = a->ny, b->steps = a->steps, b->latency_us = a->latency_us;
    b->rows = a->ny / size + (rank < a->ny % size);
    b->row0 = rank * (a->ny / size) + (rank < a->ny % size ? rank : a->ny % size);
    b->up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    b->down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    if (!b->u) b->u = malloc((size_t)(b->rows + 2) * b->nx * sizeof(double));
    if (!b->v) b->v = malloc((size_t)(b->rows + 2) * b->nx * sizeof(double));
    memset(b->u, 0, (size_t)(b->rows + 2) * b->nx * sizeof(double));
    memset(b->v, 0, (size_t)(b->rows + 2) * b->nx * sizeof(double));
    for (int i = 1; i <= b->rows; i++)
        for (int j = 0; j < b->nx; j++) mh_row(b, b->u, i)[j] = mh_initial(b->row0 + i - 1, j);
}

static void mh_update_rows(mh_band *b, int lo, int hi) {
    for (int i = lo; i < hi; i++)
        mh_update_row(mh_row(b, b->u, i - 1), mh_row(b, b->u, i), mh_row(b, b->u, i + 1), mh_row(b, b->v, i),
                      b->row0 + i - 1, b->nx, b->ny);
}

/* Rank 0: whether the bands equal the serial run, bit for bit. Collective. */
static int mh_check(mh_band *b, int rank, int size) {
    int mine = b->rows * b->nx, at = b->row0 * b->nx;
    int *counts = rank == 0 ? malloc((size_t)size * sizeof(int)) : NULL;
    int *offsets = rank == 0 ? malloc((size_t)size * sizeof(int)) : NULL;
    double *all = rank == 0 ? malloc((size_t)b->nx * b->ny * sizeof(double)) : NULL;
    MPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Gather(&at, 1, MPI_INT, offsets, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Gatherv(mh_row(b, b->u, 1), mine, MPI_DOUBLE, all, counts, offsets, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    int ok = 1;
    if (rank == 0) {
        double *ref = mh_serial(b->nx, b->ny, b->steps);
        ok = memcmp(ref, all, (size_t)b->nx * b->ny * sizeof(double)) == 0;
        free(ref);
    }
    free(counts), free(offsets), free(all);
    return ok;
}

static double mh_cpu_seconds(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec * 1e-6;
}

/* Prints the JSON line (rank 0). wait_cpu < 0: null. */
static void mh_report(double seconds, int ok, double comp, double comm, double wait_cpu, const mh_args *a) {
    double hidden = comm > 0 ? (comp + comm - seconds) / comm : 0.0;
    if (hidden < 0) hidden = 0;
    if (hidden > 1) hidden = 1;
    char wc[32];
    if (wait_cpu < 0) snprintf(wc, sizeof wc, "null");
    else snprintf(wc, sizeof wc, "%.4f", wait_cpu);
    printf("{\"seconds\": %.6f, \"check\": \"%s\", \"result\": %d, \"tasks\": null, \"ranks\": %d, "
           "\"latency_us\": %d, \"comp_seconds\": %.6f, \"comm_seconds\": %.6f, \"hidden\": %.4f, "
           "\"wait_cpu\": %s}\n",
           seconds, ok ? "ok" : "FAIL", a->steps, a->ranks, a->latency_us, comp, comm, hidden, wc);
    fflush(stdout);
}

/* One run of the steps (exchange and/or compute) from the initial grid, with the version's
 * steps(b); the slowest rank's time. */
static double mh_run(mh_band *b, const mh_args *a, int rank, int size, int exchange, int compute,
                     void (*steps)(mh_band *)) {
    mh_band_init(b, a, rank, size);
    b->exchange = exchange, b->compute = compute;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = bench_now();
    steps(b);
    double t = bench_now() - t0, tmax;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return tmax;
}

/* The measurements of mpiheat.h's header, then rank 0's JSON line. steps(b) runs the steps;
 * recv_one(&x) receives one int from rank 0 (tag 99) the version's way. Returns the exit status. */
static int mh_measure(mh_args *a, int rank, int size, void (*steps)(mh_band *), void (*recv_one)(int *)) {
    mh_band b = {0};
    double total = 1e300, comp = 1e300, comm = 1e300;
    int ok = 1;
    for (int r = 0; r < a->reps; r++) {
        double t = mh_run(&b, a, rank, size, 1, 1, steps);
        if (r == 0) ok = mh_check(&b, rank, size);
        total = t < total ? t : total;
        t = mh_run(&b, a, rank, size, 0, 1, steps);
        comp = t < comp ? t : comp;
        t = mh_run(&b, a, rank, size, 1, 0, steps);
        comm = t < comm ? t : comm;
    }
    /* CPU while waiting: rank 0 sends after 0.2 s; the others wait. */
    double share = 0, worst = -1;
    MPI_Barrier(MPI_COMM_WORLD);
    if (size > 1) {
        if (rank == 0) {
            mh_sleep_until(bench_now() + 0.2);
            for (int i = 1; i < size; i++) MPI_Send(&i, 1, MPI_INT, i, 99, MPI_COMM_WORLD);
        } else {
            int got = 0;
            double c0 = mh_cpu_seconds(), t0 = bench_now();
            recv_one(&got);
            share = (mh_cpu_seconds() - c0) / (bench_now() - t0);
            if (got != rank) ok = 0;
        }
        MPI_Reduce(&share, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    }
    int all_ok = 0;
    MPI_Reduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, 0, MPI_COMM_WORLD);
    a->ranks = size;
    if (rank == 0) mh_report(total, all_ok, comp, comm, worst, a);
    free(b.u), free(b.v);
    return rank == 0 && !all_ok;
}

#endif /* MH_MPI */

#endif
