/* msort.h — shared declarations of the msort workload (see msort-serial.c for what it is). */
#ifndef BENCH_MSORT_H
#define BENCH_MSORT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Below these sizes the recursion stops: a sort of at most MSORT_SORT_CUTOFF keys is an insertion
 * sort, a merge of at most MSORT_MERGE_CUTOFF output keys is a serial merge. */
#define MSORT_SORT_CUTOFF 32
#define MSORT_MERGE_CUTOFF 1024

typedef uint32_t msort_key;

typedef struct msort_args {
    int workers; /* --workers */
    int outer;   /* --reps: repetitions of the whole kernel */
    long n;      /* keys */
    long reps;   /* sorts inside the kernel */
} msort_args;

/* Parses the command line; returns 0, or 2 after printing the usage on bad arguments. */
int msort_parse(int argc, char **argv, msort_args *a);
/* Allocates n keys: the random input (deterministic), and two work arrays. */
void msort_init(long n, msort_key **in, msort_key **out, msort_key **tmp);

/* Leaves, shared by every version. */
/* dst[0..n) = src[0..n) sorted (n small: copy, then insertion sort). */
void msort_leaf(const msort_key *src, msort_key *dst, long n);
/* out[0..na+nb) = merge of the sorted a[0..na) and b[0..nb). */
void msort_merge_serial(const msort_key *a, long na, const msort_key *b, long nb, msort_key *out);
/* The split of a parallel merge: picks the middle of the longer input and finds by binary search
 * where it falls in the other, so that a[0..*ia) and b[0..*ib) hold no key greater than any key of
 * a[*ia..na) and b[*ib..nb). Both parts are non-empty when the longer input has 2 keys or more. */
void msort_split(const msort_key *a, long na, const msort_key *b, long nb, long *ia, long *ib);

/* The serial reference: dst[0..n) = src[0..n) sorted, using tmp[0..n); src is not modified.
 * Same recursion as the parallel versions, with a serial merge. */
void msort_serial(const msort_key *src, msort_key *dst, msort_key *tmp, long n);
/* The number of spawns of the parallel recursion (sort and merge) on this input, counted by
 * running it serially. */
int64_t msort_count_tasks(const msort_key *src, long n);
/* Checks that out is in[] sorted: non-decreasing, same multiset (checksum), and equal to a serial
 * sort done here. Stores an order-sensitive checksum of out in *checksum. */
int msort_verify(const msort_key *in, const msort_key *out, long n, int64_t *checksum);

#ifdef __cplusplus
}
#endif
#endif
