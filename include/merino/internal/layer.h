/* merino/internal/layer.h — what merino's layers built as libraries of their own (merino_mpi,
 * merino_omp) need from the core: a work source that the idle loop polls, the helping wait's step,
 * the caller slot without hand-over, the CPU budget and the error channel.
 * INTERNAL: not API; it changes with every minor release (0.x), like the rest of merino/internal/.
 * Include <merino.h> first. */
#ifndef MERINO_INTERNAL_LAYER_H
#define MERINO_INTERNAL_LAYER_H

#ifndef MERINO_H
#error "include <merino.h> before merino/internal/layer.h"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* A layer's work source: it polls (it runs no task of its own). The idle loop calls poll on every
 * round, after the core's sources and those of the layers in libmerino (tasks first), from any
 * worker, concurrently. */
typedef struct merino__source {
    const char *name;
    /* Makes progress (say, completes requests); nonzero when it did something. */
    int (*poll)(void);
    /* Nonzero while its work may appear without anyone waking the workers (then idle workers do
     * not sleep on the pool's futex); NULL: never. */
    int (*pending)(void);
} merino__source;

/* Appends s (kept, not copied) to the sources the idle loop asks. 0, or -1 when there is no room. */
MERINO_API int merino__source_add(const merino__source *s);

/* On a worker, inside a task that waits for something: runs one piece of work above the task's
 * live tasks — the oldest unjoined task of this worker's own stack, else one from the sources
 * (handed-over tasks, a steal, task objects, the layers' polls) — and returns nonzero; 0 when
 * there was none, or the thread is not a worker. The waiting task's stack is as it left it on
 * return; what ran may have waited in turn (helping waits nest). */
MERINO_API int merino__help_one(void);

/* The waiting task has nothing to run and its requests are pending: sleep for us microseconds.
 * Meanwhile this worker counts as asleep, so that idle workers may sleep too once every worker is
 * (they do not while a run is in flight otherwise). A wait that napped calls merino__help_wake
 * before its task goes on (it may spawn) and whenever merino__help_one finds work after a nap. */
MERINO_API void merino__help_nap(unsigned us);
/* Wakes the workers sleeping in the idle loop (a load when there are none). */
MERINO_API void merino__help_wake(void);

/* The core's back-off policy (src/core/backoff.h: spin, then yield, then sleep; MERINO_IDLE_SPINS,
 * MERINO_IDLE_US) for the waits of a layer built apart, which cannot read the core's settings:
 * start with a zeroed state; after each failed attempt call merino__backoff_wait, which spins or
 * yields, or returns MERINO__BACKOFF_SLEEP when the wait should sleep (on what it waits for);
 * zero the state again after progress or a sleep. */
typedef struct merino__backoff {
    unsigned fails;
    uint64_t yield_from;
} merino__backoff;
#define MERINO__BACKOFF_SLEEP 2
MERINO_API int merino__backoff_wait(merino__backoff *b);

/* Runs t (with wrap, as MERINO_RUN does) on this thread in the caller slot and returns 1 — or
 * returns 0 at once, without running it, when the slot is taken, no pool runs, or this thread is
 * a worker already. For a thread that must run its task itself (OpenMP's thread 0 of a region),
 * where MERINO_RUN would hand the task over to a pool thread. */
MERINO_API int merino__run_in_slot(merino__task *t, merino__wrap_fn wrap);

/* The CPUs this process may use now: its affinity mask (the union of its threads' masks) capped
 * by its cgroup's CPU quota; at least 1. Reads /proc and the cgroup files: not for hot paths. */
MERINO_API unsigned merino__cpu_budget(void);

/* The calling layer binds the main thread to CPUs of its own choosing (OpenMP's thread 0 bound to
 * its place): from now on the pool's live budget no longer narrows to the main thread's mask
 * (a cgroup quota still counts). Call before binding it. */
MERINO_API void merino__budget_main_bound(void);

/* Report one line "merino: <message>" as the core's errors are reported: kept for
 * merino_last_error(), passed to the handler of merino_set_error_handler, else printed on stderr;
 * merino__fatal prints it on stderr whatever the handler and aborts. */
MERINO_API void merino__error(const char *message);
MERINO_API __attribute__((noreturn, cold)) void merino__fatal(const char *message);

#ifdef __cplusplus
}
#endif

#endif
