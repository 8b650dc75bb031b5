/* mm.h — shared declarations of the mm workload (see mm-serial.c for what it is). */
#ifndef BENCH_MM_H
#define BENCH_MM_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mm_args {
    int workers; /* --workers */
    int outer;   /* --reps: repetitions of the whole kernel */
    long n;      /* matrix rows and columns */
    long reps;   /* repetitions of one multiplication inside the kernel */
} mm_args;

/* Parses the command line; returns 0, or 2 after printing the usage on bad arguments. */
int mm_parse(int argc, char **argv, mm_args *a);
/* Allocates and fills the inputs A and B (n x n, row-major, deterministic) and the output C. */
void mm_init(long n, double **A, double **B, double **C);
void mm_free(double *A, double *B, double *C);
/* Row i of C = A * B: C[i][*] = sum_k A[i][k] * B[k][*], k ascending (the leaf of every version). */
void mm_row(const double *A, const double *B, double *C, long n, long i);
/* The whole product, serially (the reference). */
void mm_serial(const double *A, const double *B, double *C, long n);
/* Compares C with a serial product computed here; returns 1 if equal within 1e-9 relative, and
 * stores the sum of C's elements in *checksum. */
int mm_verify(const double *A, const double *B, const double *C, long n, double *checksum);

#ifdef __cplusplus
}
#endif
#endif
