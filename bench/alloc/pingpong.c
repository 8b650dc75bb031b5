/* pingpong.c — not an allocator benchmark: a probe of the machine, run by bench/alloc/run before
 * every run. Two threads hand one cache line back and forth ROUNDS times; it prints the mean
 * round trip in ns:
 *   RESULT bench=pingpong ns=<n>
 * On this project's 2-vCPU guest the round trip moves between about 85-190 ns and 400-480 ns from
 * one minute to the next (where the host places the vCPUs), and the benchmarks whose threads
 * share lines move with it (larson with many foreign frees: 130-155 against 40-50 Mops/s, whatever
 * the allocator): the runner records it beside each sample so such runs can be told apart. It
 * allocates nothing. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

enum { ROUNDS = 20000 };

static _Alignas(64) _Atomic long g_ball; /* even: the main thread's turn; odd: the other's */

static void play(long first) {
    for (long i = first; i < 2 * ROUNDS; i += 2) {
        /* acquire/release: each hit waits for the other's; they order nothing else */
        while (atomic_load_explicit(&g_ball, memory_order_acquire) != i) {
        }
        atomic_store_explicit(&g_ball, i + 1, memory_order_release);
    }
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
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    play(0);
    pthread_join(t, NULL);
    clock_gettime(CLOCK_MONOTONIC, &b);
    double ns = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / ROUNDS;
    printf("RESULT bench=pingpong ns=%.1f\n", ns);
    return 0;
}
