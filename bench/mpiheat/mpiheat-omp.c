/* mpiheat-omp.c — mpiheat with MPI + OpenMP (see mpiheat.h), as such programs are usually
 * written: each step exchanges the halos with blocking MPI_Sendrecv calls on the main thread
 * (MPI_THREAD_FUNNELED), then updates every row with `#pragma omp parallel for`. */
#define MH_MPI 1
#include "mpiheat.h"

#include <omp.h>

static void mh_steps(mh_band *b) {
    for (int s = 0; s < b->steps; s++) {
        double t0 = bench_now();
        if (b->exchange) { /* down, then up */
            MPI_Sendrecv(mh_row(b, b->u, b->rows), b->nx, MPI_DOUBLE, b->down, 0, mh_row(b, b->u, 0), b->nx,
                         MPI_DOUBLE, b->up, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Sendrecv(mh_row(b, b->u, 1), b->nx, MPI_DOUBLE, b->up, 1, mh_row(b, b->u, b->rows + 1), b->nx,
                         MPI_DOUBLE, b->down, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (b->latency_us) mh_sleep_until(t0 + b->latency_us * 1e-6); /* the halo "arrives" */
        }
        if (b->compute) {
#pragma omp parallel for schedule(static)
            for (int i = 1; i <= b->rows; i++) mh_update_rows(b, i, i + 1);
            double *t = b->u;
            b->u = b->v;
            b->v = t;
        }
    }
}

static double mh_run(mh_band *b, const mh_args *a, int rank, int size, int exchange, int compute) {
    mh_band_init(b, a, rank, size);
    b->exchange = exchange, b->compute = compute;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = bench_now();
    mh_steps(b);
    double t = bench_now() - t0, tmax;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return tmax;
}

int main(int argc, char **argv) {
    mh_args a;
    mh_parse(argc, argv, &a);
    mh_launch(argc, argv, &a);
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    a.ranks = size;
    omp_set_num_threads(a.workers);

    mh_band b = {0};
    double total = 1e300, comp = 1e300, comm = 1e300;
    int ok = 1;
    for (int r = 0; r < a.reps; r++) {
        double t = mh_run(&b, &a, rank, size, 1, 1);
        if (r == 0) ok = mh_check(&b, rank, size);
        total = t < total ? t : total;
        t = mh_run(&b, &a, rank, size, 0, 1);
        comp = t < comp ? t : comp;
        t = mh_run(&b, &a, rank, size, 1, 0);
        comm = t < comm ? t : comm;
    }

    /* CPU while waiting: rank 0 sends after 0.2 s; the others wait in MPI_Recv. */
    double share = 0, worst = -1;
    MPI_Barrier(MPI_COMM_WORLD);
    if (size > 1) {
        if (rank == 0) {
            mh_sleep_until(bench_now() + 0.2);
            for (int i = 1; i < size; i++) MPI_Send(&i, 1, MPI_INT, i, 99, MPI_COMM_WORLD);
        } else {
            int got = 0;
            double c0 = mh_cpu_seconds(), t0 = bench_now();
            MPI_Recv(&got, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            share = (mh_cpu_seconds() - c0) / (bench_now() - t0);
            if (got != rank) ok = 0;
        }
        MPI_Reduce(&share, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    }
    int all_ok;
    MPI_Reduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, 0, MPI_COMM_WORLD);
    if (rank == 0) mh_report(total, all_ok, comp, comm, worst, &a);
    MPI_Finalize();
    return rank == 0 && !all_ok;
}
