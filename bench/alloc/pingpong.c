/* pingpong.c — not an allocator benchmark: a probe of the machine, run by bench/alloc/run before
 * every run. Two threads hand one cache line back and forth, CHUNKS times ROUNDS round trips; it
 * prints the median chunk's round trip (a preemption of either thread spoils one chunk, not the
 * reading) and the mean over all, in ns:
 *   RESULT bench=pingpong ns=<median> mean_ns=<mean>
 * On this project's 2-vCPU guest the round trip moves between about 85-190 ns and 400-480 ns from
 * one minute to the next (where the host places the vCPUs), and the benchmarks whose threads
 * share lines move with it (larson with many foreign frees: 130-155 against 40-50 Mops/s, whatever
 * the allocator): the runner records it beside each sample so such runs can be told apart. It
 * allocates nothing. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { CHUNKS = 41, ROUNDS = 500 };

static _Alignas(64) _Atomic long g_ball; /* even: the main thread's turn; odd: the other's */

static void play(long first) {
    for (long i = first; i < 2L * CHUNKS * ROUNDS; i += 2) {
        /* acquire/release: each hit waits for the other's; they order nothing else */
        while (atomic_load_explicit(&g_ball, memory_order_acquire) != i) {
        }
        atomic_store_explicit(&g_ball, i + 1, memory_order_release);
    }
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void *other(void *arg) {
    (void)arg;
    play(1);
    return NULL;
}

int main(void) {
    pthread_t t;
    if (pthread_create(&t, NULL, other, NULL) != 0) {
        fprintf(stderr, "pingpong: pthread_create failed\n");
        return 1;
    }
    /* The main thread plays the even hits, chunk by chunk, timing each. */
    double ns[CHUNKS], sum = 0;
    for (long c = 0; c < CHUNKS; c++) {
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        for (long i = 2 * c * ROUNDS; i < 2 * (c + 1) * ROUNDS; i += 2) {
            /* acquire/release: as in play */
            while (atomic_load_explicit(&g_ball, memory_order_acquire) != i) {
            }
            atomic_store_explicit(&g_ball, i + 1, memory_order_release);
        }
        clock_gettime(CLOCK_MONOTONIC, &b);
        ns[c] = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / ROUNDS;
        sum += ns[c];
    }
    pthread_join(t, NULL);
    qsort(ns, CHUNKS, sizeof ns[0], cmp_double);
    printf("RESULT bench=pingpong ns=%.1f mean_ns=%.1f\n", ns[CHUNKS / 2], sum / CHUNKS);
    return 0;
}
