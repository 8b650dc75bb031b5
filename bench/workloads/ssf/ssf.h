/* ssf.h — shared declarations of the ssf workload (see ssf-serial.c for what it is). */
#ifndef BENCH_SSF_H
#define BENCH_SSF_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ssf_args {
    int workers; /* --workers */
    int outer;   /* --reps: repetitions of the whole kernel */
    long n;      /* the string is the Fibonacci string s_n */
    long reps;   /* repetitions of the whole search inside the kernel */
} ssf_args;

/* One problem: the string and, per position, the result. */
typedef struct ssf_problem {
    char *str;
    long len;
    long *max_len; /* length of the longest substring starting at i that also starts elsewhere */
    long *max_pos; /* the first other position where such a substring starts (0 if max_len is 0) */
} ssf_problem;

/* Parses the command line; returns 0, or 2 after printing the usage on bad arguments. */
int ssf_parse(int argc, char **argv, ssf_args *a);
/* Builds s_n (s_0 = "a", s_1 = "b", s_k = s_{k-1} s_{k-2}) and the zeroed result arrays. */
void ssf_init(long n, ssf_problem *p);
void ssf_free(ssf_problem *p);
/* Position i (the leaf of every version): fills max_len[i] and max_pos[i]. */
void ssf_position(ssf_problem *p, long i);
/* All positions, serially (the reference). */
void ssf_serial(ssf_problem *p);
/* Compares p's results with a serial run done here; returns 1 if identical, and stores the sum of
 * max_len in *checksum. */
int ssf_verify(const ssf_problem *p, long n, long long *checksum);

#ifdef __cplusplus
}
#endif
#endif
