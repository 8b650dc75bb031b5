/* Internal declarations of merino's core: the worker record, the pool, and the functions the
 * files of src/core share. Never included by users. */
#ifndef MERINO_CORE_INTERNAL_H
#define MERINO_CORE_INTERNAL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* cpu_set_t (sched.h), pthread_setaffinity_np */
#endif

#define MERINO__BUILDING 1 /* merino.h: the runtime reads its thread-local words with the builtin */
#include "merino.h"

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MRN_CACHE_LINE 64

/* Idle back-off: failed steal rounds spent spinning, then yielding, before a worker with nothing to
 * do considers sleeping. Spinning keeps steal latency low for fine-grained work; yielding lets
 * other threads (more workers than cores, or other programs) run; sleeping frees the processor. */
#define MRN_IDLE_SPINS 64
#define MRN_IDLE_YIELDS 256

/* MERINO_RUN from a thread that is not a worker spins this many pauses (about 5 us here) for a
 * short task to finish before it sleeps on a futex. It was 2000 (about 50 us): long enough, with
 * as many workers as CPUs, for the spinning caller to keep a worker off its CPU at the start of
 * every run (stress trees ran one worker short for their first 50 us). */
#define MRN_SUBMIT_SPINS 200

/* Public mode (steal.c): after a thief's request, an owner spawns public until it has inlined
 * this many public tasks with no request in between. Larger keeps long-leaf work (stress with
 * L = 4096) balanced between workers of unequal speed; smaller keeps fine-grained work cheaper
 * (each public task costs an exchange at its join). Measured with workers bound to CPUs, per-tree
 * medians of interleaved runs (docs/architecture.md, "Why public mode"): against 16, 8 is 0.8%
 * (vCPUs at equal speed) to 3.7% (unequal) faster on stress 7/256 and alike on 3/4096 and fib;
 * 4 gains a little more on 7/256 and starts to cost 3/4096; 32 costs 7/256 4.7%. */
#define MRN_PUBLIC_RUN 8

/* ... unless the last of those public tasks took longer than this (the time between the owner's
 * last two public joins): then the owner's spawns and joins are far apart, a request made while
 * it spawns private would wait about that long, and an exchange per task costs nothing next to
 * such tasks, so it stays public for another MRN_PUBLIC_RUN. Short-task work (stress 7/256) still
 * leaves public mode after 8; long-leaf work (3/4096) no longer drops back to private between
 * trees and has a thief wait a whole leaf (docs/architecture.md, "Why public mode"). */
#define MRN_PUBLIC_LONG_NS 1000
_Static_assert(MRN_PUBLIC_RUN >= 2, "public mode times its last two public joins");

/* A worker: the inline-visible part first (its own cache line), then what thieves read, then what
 * only the owner touches. */
typedef struct mrn_worker {
    merino_worker pub; /* limit, split, top, end, base, spawns, c_body: the owner's hot line */

    /* Read and written by thieves. bot is owned by whoever acquired the task it points to. */
    _Alignas(MRN_CACHE_LINE) merino_task *bot; /* atomic */
    uintptr_t *limit_p, *split_p; /* this worker thread's merino__limit and merino__split */

    /* Owner only. */
    _Alignas(MRN_CACHE_LINE) merino_task *private_from; /* see steal.c: the owner's split */
    unsigned index;
    int cpu;              /* the CPU this worker's thread binds itself to (place.c), or -1 */
    unsigned public_left; /* public mode: public tasks to inline before spawning private again */
    uint64_t public_mark; /* public mode: when the last public task of the run began (ns) */
    uint64_t steals, leapfrogs, publishes, privatizations; /* merino__count; merino_stats_get */
    uint64_t rng;
    size_t map_bytes; /* the mapping that holds the stack */
    struct mrn_worker *shadow; /* a spare private stack (mrn_shadow_enter), or NULL */
    uint32_t ready;            /* atomic: the thread has set up its thread-local words */
    pthread_t thread;
} mrn_worker;

/* A MERINO_RUN from a thread that is not a worker: a root task waiting in the injection stack. */
typedef struct mrn_job {
    struct mrn_job *next;
    merino_task *task;
    merino__wrap_fn wrap;
    uint32_t done; /* atomic futex word: 0 running, 1 finished */
    uint32_t waiting; /* atomic: the submitter sleeps on done */
} mrn_job;

/* The pool's settings, resolved from merino_config and the environment (config.c). */
typedef struct mrn_settings {
    unsigned workers;
    size_t stack_tasks;
    bool pin;        /* bind worker i to the (i mod ncpus)-th CPU of cpus (mrn_worker_cpu) */
    cpu_set_t cpus;  /* the affinity mask of the thread that called merino_start */
    unsigned ncpus;  /* CPUs in it, at least 1 */
} mrn_settings;

typedef struct mrn_pool {
    mrn_worker **workers;
    unsigned count;
    size_t stack_tasks;

    _Alignas(MRN_CACHE_LINE) mrn_job *jobs; /* atomic: Treiber stack of submitted root tasks */
    _Alignas(MRN_CACHE_LINE) uint32_t active; /* atomic: root tasks submitted and not finished */
    uint32_t epoch;    /* atomic futex word: bumped when work arrives or on stop */
    uint32_t sleepers; /* atomic: workers asleep (or about to be) on epoch */
    uint32_t stopping; /* atomic */
    uint32_t left;     /* atomic: workers that have left their loop after stopping */
} mrn_pool;

extern mrn_pool mrn_the_pool;
extern uint32_t mrn_running; /* atomic: 1 between a successful merino_start and merino_stop */
extern uint32_t mrn_fork_orphan; /* atomic: set in the child of a fork made from a task */
__attribute__((noreturn, cold)) void mrn_orphan_wait(void);

static inline mrn_worker *mrn_full(merino_worker *w) { return (mrn_worker *)w; }

/* steal.c */
bool mrn_steal(mrn_worker *self, mrn_worker *victim, merino_task *top);

/* idle.c */
void *mrn_worker_main(void *arg);
void mrn_wake_all(void);
void mrn_futex_wait(uint32_t *word, uint32_t expected);
void mrn_futex_wake(uint32_t *word, int count);
void mrn_cpu_relax(void);
uint64_t mrn_clock_ns(void);

/* place.c */
int mrn_worker_cpu(const mrn_settings *set, unsigned index);
void mrn_place_worker(const mrn_worker *w);

/* config.c */
int mrn_resolve_config(const merino_config *cfg, mrn_settings *out);
void mrn_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
__attribute__((noreturn, format(printf, 1, 2))) void mrn_fatal(const char *fmt, ...);

#endif
