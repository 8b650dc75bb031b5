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

static void mh_steps_merino(mh_band *b) { MERINO_RUN(mh_steps, b); }

MERINO_VOID_TASK_1(mh_wait_one, int *, got) {
    MPI_Request r;
    MPI_Irecv(got, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, &r);
    merino_mpi_wait(&r, MPI_STATUS_IGNORE);
}

static void mh_recv_merino(int *got) { MERINO_RUN(mh_wait_one, got); } /* waits in a task */

int main(int argc, char **argv) {
    mh_args a;
    mh_parse(argc, argv, &a);
    mh_launch(argc, argv, &a);
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    merino_config cfg = {0};
    cfg.workers = (unsigned)a.workers;
    cfg.pin = size > 1 ? MERINO_PIN_OFF : MERINO_PIN_DEFAULT; /* ranks share the CPUs */
    if (merino_start(&cfg) != 0 || merino_mpi_init() != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 2);
    int rc = mh_measure(&a, rank, size, mh_steps_merino, mh_recv_merino);
    merino_stop();
    MPI_Finalize();
    return rc;
}
