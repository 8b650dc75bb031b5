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

static void mh_recv_blocking(int *got) { MPI_Recv(got, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE); }

int main(int argc, char **argv) {
    mh_args a;
    mh_parse(argc, argv, &a);
    mh_launch(argc, argv, &a);
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    omp_set_num_threads(a.workers);
    int rc = mh_measure(&a, rank, size, mh_steps, mh_recv_blocking);
    MPI_Finalize();
    return rc;
}
