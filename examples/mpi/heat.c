/* heat.c — 2-D heat diffusion (Jacobi) on an NX x NY grid split into bands of rows across MPI
 * ranks, with merino inside each rank: every step posts the exchange of the band's edge rows
 * (halos) with the neighbouring ranks, updates the rows that do not need them with a merino loop
 * while the messages travel, waits for the halos with merino_mpi_waitall (the worker runs other
 * work meanwhile instead of blocking), then updates the two edge rows.
 *
 * Rank 0 gathers the grid and checks it against a serial run of the same steps, bit for bit (each
 * cell is computed by the same expression in both).
 *
 *   mpirun -np 4 ./example_mpi_heat [NX NY STEPS]        (default 256 256 50)
 *   MERINO_WORKERS=1 mpirun -np 2 ./example_mpi_heat      (one worker per rank)
 * MERINO_EXAMPLE_FAIL_RANK=r makes rank r spoil its part of the result: the check then fails, says
 * where, and every rank exits with 1, which fails the job (the tests use it). */
#include <merino_loop.h>
#include <merino_mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct band {
    int nx, ny;       /* the whole grid */
    int rows, row0;   /* this rank's rows: global rows row0 .. row0 + rows - 1 */
    int up, down;     /* neighbouring ranks, or MPI_PROC_NULL */
    double *u, *v;    /* (rows + 2) x nx: ghost row 0, the band's rows 1..rows, ghost row rows + 1 */
} band;

/* The initial grid: a hot top edge, a warm left edge, the rest cold. Edges stay fixed. */
static double initial(int gi, int j, int nx) {
    (void)nx;
    if (gi == 0) return 100.0;
    if (j == 0) return 50.0 + (double)(gi % 7);
    return 0.0;
}

/* New value of global row gi's cells from rows above (a), here (c) and below (b). */
static void update_row(const double *a, const double *c, const double *b, double *out, int gi, int nx,
                       int ny) {
    if (gi == 0 || gi == ny - 1) {
        memcpy(out, c, (size_t)nx * sizeof *out);
        return;
    }
    out[0] = c[0];
    for (int j = 1; j < nx - 1; j++) out[j] = 0.25 * ((a[j] + b[j]) + (c[j - 1] + c[j + 1]));
    out[nx - 1] = c[nx - 1];
}

/* ---- the serial reference --------------------------------------------------------------------- */

static double *serial_heat(int nx, int ny, int steps) {
    double *u = malloc((size_t)nx * ny * sizeof *u), *v = malloc((size_t)nx * ny * sizeof *v);
    for (int i = 0; i < ny; i++)
        for (int j = 0; j < nx; j++) u[(size_t)i * nx + j] = initial(i, j, nx);
    for (int s = 0; s < steps; s++) {
        for (int i = 0; i < ny; i++) {
            const double *c = u + (size_t)i * nx;
            update_row(i > 0 ? c - nx : c, c, i < ny - 1 ? c + nx : c, v + (size_t)i * nx, i, nx, ny);
        }
        double *t = u; u = v; v = t;
    }
    free(v);
    return u;
}

/* ---- one rank's band, with merino ----------------------------------------------------------------- */

static double *row(const band *b, double *g, int i) { return g + (size_t)i * b->nx; }

static void update_rows(int64_t lo, int64_t hi, void *ctx) {
    band *b = ctx;
    for (int64_t i = lo; i < hi; i++)
        update_row(row(b, b->u, (int)i - 1), row(b, b->u, (int)i), row(b, b->u, (int)i + 1),
                   row(b, b->v, (int)i), b->row0 + (int)i - 1, b->nx, b->ny);
}

MERINO_VOID_TASK_2(heat_steps, band *, b, int, steps) {
    for (int s = 0; s < steps; s++) {
        MPI_Request r[4];
        /* tag 0: a row travelling down (to the rank below), tag 1: up */
        MPI_Irecv(row(b, b->u, 0), b->nx, MPI_DOUBLE, b->up, 0, MPI_COMM_WORLD, &r[0]);
        MPI_Irecv(row(b, b->u, b->rows + 1), b->nx, MPI_DOUBLE, b->down, 1, MPI_COMM_WORLD, &r[1]);
        MPI_Isend(row(b, b->u, 1), b->nx, MPI_DOUBLE, b->up, 1, MPI_COMM_WORLD, &r[2]);
        MPI_Isend(row(b, b->u, b->rows), b->nx, MPI_DOUBLE, b->down, 0, MPI_COMM_WORLD, &r[3]);
        if (b->rows > 2) merino_for(2, b->rows, update_rows, b, NULL); /* needs no halo */
        merino_mpi_waitall(4, r, MPI_STATUSES_IGNORE);
        update_rows(1, 2, b);
        if (b->rows > 1) update_rows(b->rows, b->rows + 1, b);
        double *t = b->u; b->u = b->v; b->v = t;
    }
}

int main(int argc, char **argv) {
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int nx = argc > 1 ? atoi(argv[1]) : 256, ny = argc > 2 ? atoi(argv[2]) : 256;
    int steps = argc > 3 ? atoi(argv[3]) : 50;
    if (nx < 3 || ny < size || steps < 0) {
        if (rank == 0) fprintf(stderr, "heat: need NX >= 3, NY >= the number of ranks, STEPS >= 0\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (merino_mpi_init() != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 1); /* it said why */

    band b = {.nx = nx, .ny = ny};
    b.rows = ny / size + (rank < ny % size);
    b.row0 = rank * (ny / size) + (rank < ny % size ? rank : ny % size);
    b.up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    b.down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    b.u = calloc((size_t)(b.rows + 2) * nx, sizeof(double));
    b.v = calloc((size_t)(b.rows + 2) * nx, sizeof(double));
    for (int i = 1; i <= b.rows; i++)
        for (int j = 0; j < nx; j++) row(&b, b.u, i)[j] = initial(b.row0 + i - 1, j, nx);

    MERINO_RUN(heat_steps, &b, steps);
    unsigned workers = merino_workers();

    const char *fail = getenv("MERINO_EXAMPLE_FAIL_RANK");
    if (fail && atoi(fail) == rank) row(&b, b.u, 1)[nx / 2] += 1.0; /* spoil one cell */

    /* Gather the bands on rank 0 and compare with the serial run. */
    int *counts = NULL, *offsets = NULL;
    double *all = NULL;
    if (rank == 0) {
        counts = malloc((size_t)size * sizeof *counts);
        offsets = malloc((size_t)size * sizeof *offsets);
        all = malloc((size_t)nx * ny * sizeof *all);
    }
    int mine = b.rows * nx, at = b.row0 * nx;
    MPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Gather(&at, 1, MPI_INT, offsets, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Gatherv(row(&b, b.u, 1), mine, MPI_DOUBLE, all, counts, offsets, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    int ok = 1;
    if (rank == 0) {
        double *ref = serial_heat(nx, ny, steps);
        for (size_t k = 0; k < (size_t)nx * ny && ok; k++)
            if (memcmp(&ref[k], &all[k], sizeof(double)) != 0) {
                fprintf(stderr, "heat: cell (%zu, %zu) is %.17g, the serial run has %.17g (%d ranks, %u workers each)\n",
                        k / nx, k % nx, all[k], ref[k], size, workers);
                ok = 0;
            }
        if (ok) printf("heat: %d x %d, %d steps on %d ranks x %u workers: equal to the serial run, bit for bit\n",
                       nx, ny, steps, size, workers);
        free(ref);
    }
    merino_stop();
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD); /* every rank fails the job with rank 0 */
    free(b.u), free(b.v), free(all), free(counts), free(offsets);
    MPI_Finalize();
    return ok ? 0 : 1;
}
