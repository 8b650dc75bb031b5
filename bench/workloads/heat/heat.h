/* heat.h — shared declarations of the heat workload (see heat-serial.c for what it is). */
#ifndef BENCH_HEAT_H
#define BENCH_HEAT_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct heat_args {
    int workers; /* --workers */
    int outer;   /* --reps: repetitions of the whole kernel */
    long nx, ny; /* grid columns and rows, boundary included */
    long steps;  /* Jacobi steps per run */
    long reps;   /* runs (steps from the initial grid) inside the kernel */
} heat_args;

typedef struct heat_grid {
    long nx, ny;
    double *init;  /* the initial grid, boundary included; never modified */
    double *u, *v; /* the time levels: step 0 reads init and writes v, then u and v alternate */
} heat_grid;

/* Parses the command line; returns 0, or 2 after printing the usage on bad arguments. */
int heat_parse(int argc, char **argv, heat_args *a);
void heat_init(long nx, long ny, heat_grid *g);
void heat_free(heat_grid *g);
/* Rows lo..hi-1 (1 <= lo <= hi <= ny-1) of one step: dst = 5-point average of src, interior only. */
void heat_rows(const double *src, double *dst, long nx, long lo, long hi);
/* Source and destination of step s (0-based): init -> v, v -> u, u -> v, ... Every step writes the
 * whole interior of its destination and the boundaries of u and v are set once by heat_init, so a
 * run needs no reset. */
const double *heat_src(const heat_grid *g, long s);
double *heat_dst(const heat_grid *g, long s);
/* The grid after `steps` steps. */
const double *heat_result(const heat_grid *g, long steps);
/* One run, serially: `steps` steps from the initial grid (the reference). */
void heat_serial(heat_grid *g, long steps);
/* Compares the result grid with a serial run done here, bit for bit; returns 1 if identical, and
 * stores the sum of the grid in *checksum. */
int heat_verify(heat_grid *g, long steps, double *checksum);

#ifdef __cplusplus
}
#endif
#endif
