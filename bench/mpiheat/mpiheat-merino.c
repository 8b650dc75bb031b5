/* mpiheat-merino.c — mpiheat with merino in each rank (see mpiheat.h): each step posts the halo
 * exchange, updates the rows that need no halo with merino_for while the messages travel, waits
 * with merino_mpi_waitall (inside a task: the worker helps instead of blocking), then updates the
 * two edge rows. */
#define MH_MPI 1
#include "mpiheat.h"

#include <merino_loop.h>
#include <merino_mpi.h>

static void interior(int64_t lo, int64_t hi, void *ctx) { mh_update_rows(ctx, (int)lo, (int)hi); }

MERINO_VOID_TASK_1(mh_steps, mh_band *, b) {
    for (int s = 0; s < b->steps; s++) {
        MPI_Request r[4];
        double t0 = bench_now();
        if (b->exchange) { /* tag 0: a row going down, 1: up */
            MPI_Irecv(mh_row(b, b->u, 0), b->nx, MPI_DOUBLE, b->up, 0, MPI_COMM_WORLD, &r[0]);
            MPI_Irecv(mh_row(b, b->u, b->rows + 1), b->nx, MPI_DOUBLE, b->down, 1, MPI_COMM_WORLD, &r[1]);
            MPI_Isend(mh_row(b, b->u, 1), b->nx, MPI_DOUBLE, b->up, 1, MPI_COMM_WORLD, &r[2]);
            MPI_Isend(mh_row(b, b->u, b->rows), b->nx, MPI_DOUBLE, b->down, 0, MPI_COMM_WORLD, &r[3]);
        }
        if (b->compute && b->rows > 2) merino_for(2, b->rows, interior, b, NULL);
        if (b->exchange) {
            merino_mpi_waitall(4, r, MPI_STATUSES_IGNORE);
            if (b->latency_us) mh_sleep_until(t0 + b->latency_us * 1e-6); /* the halo "arrives" */
        }
        if (b->compute) {
            mh_update_rows(b, 1, 2);
            if (b->rows > 1) mh_update_rows(b, b->rows, b->rows + 1);
            double *t = b->u;
            b->u = b->v;
            b->v = t;
        }
    }
}

MERINO_VOID_TASK_1(mh_wait_one, int *, got) {
    MPI_Request r;
    MPI_Irecv(got, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, &r);
    merino_mpi_wait(&r, MPI_STATUS_IGNORE);
}

/* One run of the steps (exchange and/or compute) from the initial grid; the slowest rank's time. */
static double mh_run(mh_band *b, const mh_args *a, int rank, int size, int exchange, int compute) {
    mh_band_init(b, a, rank, size);
    b->exchange = exchange, b->compute = compute;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = bench_now();
    MERINO_RUN(mh_steps, b);
    double t = bench_now() - t0, tmax;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return tmax;
}

int main(int argc, char **argv) {
    mh_args a;
    mh_parse(argc, argv, &a);
    mh_launch(argc, argv, &a);
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    a.ranks = size;
    merino_config cfg = {0};
    cfg.workers = (unsigned)a.workers;
    cfg.pin = size > 1 ? MERINO_PIN_OFF : MERINO_PIN_DEFAULT; /* ranks share the CPUs */
    if (merino_start(&cfg) != 0 || merino_mpi_init() != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 2);

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

    /* CPU while waiting: rank 0 sends after 0.2 s; the others wait in a task. */
    double share = 0, worst = -1;
    MPI_Barrier(MPI_COMM_WORLD);
    if (size > 1) {
        if (rank == 0) {
            mh_sleep_until(bench_now() + 0.2);
            for (int i = 1; i < size; i++) MPI_Send(&i, 1, MPI_INT, i, 99, MPI_COMM_WORLD);
        } else {
            int got = 0;
            double c0 = mh_cpu_seconds(), t0 = bench_now();
            MERINO_RUN(mh_wait_one, &got);
            share = (mh_cpu_seconds() - c0) / (bench_now() - t0);
            if (got != rank) ok = 0;
        }
        MPI_Reduce(&share, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    }
    int all_ok;
    MPI_Reduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, 0, MPI_COMM_WORLD);
    if (rank == 0) mh_report(total, all_ok, comp, comm, worst, &a);
    merino_stop();
    MPI_Finalize();
    return rank == 0 && !all_ok;
}
