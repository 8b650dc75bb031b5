/* loops.h — shared declarations of the loops workload (see loops-serial.c for what it is). */
#ifndef BENCH_LOOPS_H
#define BENCH_LOOPS_H

#ifdef __cplusplus
extern "C" {
#endif

enum { LOOPS_REGULAR, LOOPS_RANDOM, LOOPS_DENSE_END, LOOPS_DENSE_START, LOOPS_PERIODIC, LOOPS_PARETO, LOOPS_HOTSPOT };

typedef struct loops_args {
    int workers, reps;
    int dist;             /* LOOPS_* */
    long n;               /* elements */
    const char *schedule; /* the system's own schedule name (third param; default "auto") */
} loops_args;

/* Parses `dist n [schedule]`; returns 0, or 2 after printing the usage. */
int loops_parse(int argc, char **argv, loops_args *a);
/* states[0..n) for the distribution: values 0..3 (pareto: up to 255, hotspot: 1 and 20), the work
 * of each element. */
unsigned char *loops_states(int dist, long n);
/* The work of element i: nothing (state 0) up to sin, cos, powers and sinh (state 3), and a round
 * of sinh more for each state above 3. */
double loops_work(const unsigned char *states, long i);
/* out[i] = loops_work(states, i) for i in [lo, hi): the loop body of every version. */
void loops_range(const unsigned char *states, double *out, long lo, long hi);
/* After the timed kernel: compares out with a serial computation done here, bit for bit (1 if
 * identical), stores the sum of out in *sum and frees states and out. (The JSON line is printed by
 * each version: bench.h's extra fields, merino's counters, are per file.) */
int loops_check(unsigned char *states, double *out, long n, double *sum);

#ifdef __cplusplus
}
#endif
#endif
