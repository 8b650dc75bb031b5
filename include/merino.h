/* merino.h — fine-grained fork-join parallelism for C11 (and C++17 through merino.hpp).
 *
 *     MERINO_TASK_1(long, fib, int, n) {        // a task: return type, name, (type, name) pairs
 *         if (n < 2) return n;
 *         MERINO_SPAWN(fib, n - 2);              // offer fib(n-2) to other workers
 *         long a = MERINO_CALL(fib, n - 1);      // a plain call
 *         long b = MERINO_JOIN(fib);             // fib(n-2): run it here, or wait for its thief
 *         return a + b;
 *     }
 *
 *     long r = MERINO_RUN(fib, 30);              // from any thread; starts the pool on first use
 *
 * Rules:
 *  - MERINO_SPAWN, MERINO_CALL and MERINO_JOIN are used inside task bodies only (a compile-time
 *    error says so elsewhere). MERINO_RUN works anywhere: on a worker it is a call that may spawn
 *    in parallel, whatever called it; from another thread it runs the task on the pool and waits.
 *  - Joins are strictly LIFO: each MERINO_JOIN(f) matches the most recent un-joined MERINO_SPAWN of
 *    the same task body, and every spawn is joined before the body returns. One MERINO_JOIN per
 *    expression: `a = MERINO_JOIN(f) + MERINO_JOIN(g)` leaves the order of the two unspecified. Builds with the checks
 *    (MERINO_DEBUG defined, or compiled without optimization) report a join that does not match its
 *    spawn and a body that returns with spawns it did not join; every build reports a join with no
 *    spawn at all.
 *  - Tasks take 0 to 14 arguments of any scalar, pointer or struct type; together they must fit
 *    MERINO_TASK_PAYLOAD bytes (112: fourteen pointers), as must the result. Pass a pointer for
 *    larger data.
 *
 * Requires GCC or Clang on Linux. Defining MERINO_SHORT_NAMES before including this header also
 * gives TASK_n, VOID_TASK_n, SPAWN, CALL, JOIN and RUN. The whole API, with an example for each
 * entry, is in docs/api.md.
 *
 * Names: merino_* and MERINO_* are the API. merino__* and MERINO__* (two underscores) are internal
 * but visible here because the inline code needs them; never use them. */
#ifndef MERINO_H
#define MERINO_H

#include <stddef.h>
#include <stdint.h>

/* merino follows semantic versioning; while the major version is 0, every minor release may
 * break source and binary compatibility (the inline code below is compiled into programs). */
#define MERINO_VERSION_MAJOR 0
#define MERINO_VERSION_MINOR 2
#define MERINO_VERSION_PATCH 0
/** MERINO_VERSION_MAJOR * 10000 + MINOR * 100 + PATCH: 200 for 0.2.0, for #if tests. */
#define MERINO_VERSION (MERINO_VERSION_MAJOR * 10000 + MERINO_VERSION_MINOR * 100 + MERINO_VERSION_PATCH)

/* Marks the library's exported functions and variables (the rest is hidden). */
#define MERINO_API __attribute__((visibility("default")))

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------------
 * The pool
 * ---------------------------------------------------------------------------------------------- */

/** How to start the pool. Zero-initialize it and set what you need; zero fields take defaults. */
typedef struct merino_config {
    /** Number of workers, 1..MERINO_MAX_WORKERS. 0: the MERINO_WORKERS environment variable if set,
     *  else the CPUs this process may use: its affinity mask, capped by its cgroup's CPU quota. */
    unsigned workers;
    /** Task descriptors per worker, i.e. how many spawned-but-unjoined tasks one worker may hold
     *  (the depth of spawn nesting). 0: MERINO_TASK_STACK if set, else MERINO_DEFAULT_TASK_STACK. */
    size_t stack_tasks;
    /** Whether each worker thread is bound to one CPU: worker i to the i-th CPU of the process's
     *  affinity mask. MERINO_PIN_DEFAULT (0): the MERINO_PIN environment variable ("auto", "on" or
     *  "off") if set, else MERINO_PIN_AUTO — bound when there are at least 2 workers and no more
     *  than CPUs. A worker that cannot be bound runs unbound. */
    int pin;
    /** Nonzero: merino_start reports a failure only through its return value and
     *  merino_last_error(), printing nothing (the C++ runtime uses this to throw instead). */
    int quiet;
    /** Bytes of C stack per pool thread. 0: MERINO_C_STACK if set, else the largest of 8 MiB, the
     *  process's stack limit (ulimit -s) and 256 bytes per task descriptor (stack_tasks). An
     *  overflow of it stops the program with a message naming the worker and this setting. (The
     *  thread that calls in runs on its own stack.) */
    size_t c_stack_bytes;
    /** The idle policy (docs/idle.md). A worker that finds no work spins through this many failed
     *  attempts, then yields its CPU between attempts. 0: MERINO_IDLE_SPINS if set, else
     *  MERINO_DEFAULT_IDLE_SPINS; 1 to MERINO_MAX_IDLE_SPINS. */
    unsigned idle_spins;
    /** ... and when no MERINO_RUN is in flight, sleeps once it has looked for this many
     *  microseconds, until a run makes work available (while one is, idle workers yield and never
     *  sleep: after a region's first, the spawns of a running task wake nobody). 0: MERINO_IDLE_US
     *  if set, else MERINO_DEFAULT_IDLE_US; 1 (sleep right after the spins) to MERINO_MAX_IDLE_US. */
    unsigned idle_us;
} merino_config;

#define MERINO_PIN_DEFAULT 0
#define MERINO_PIN_AUTO 1
#define MERINO_PIN_ON 2
#define MERINO_PIN_OFF 3

#define MERINO_DEFAULT_IDLE_SPINS 64
#define MERINO_MAX_IDLE_SPINS 1000000
#define MERINO_DEFAULT_IDLE_US 10
#define MERINO_MAX_IDLE_US 10000000

#define MERINO_MAX_WORKERS 1024
#define MERINO_DEFAULT_TASK_STACK ((size_t)1 << 18)
#define MERINO_MIN_TASK_STACK ((size_t)64)
#define MERINO_MAX_TASK_STACK ((size_t)1 << 26)

/** Starts the workers. cfg may be NULL for all defaults. Returns 0 on success; on bad input (a
 *  malformed MERINO_WORKERS, say), or when a pool is already running, reports one line naming the
 *  problem and the fix (merino_last_error(); printed on stderr unless cfg->quiet or a handler is
 *  set) and returns -1. Optional: the first MERINO_RUN starts a default pool by itself. */
MERINO_API int merino_start(const merino_config *cfg);

/** Starts the pool with cfg unless one is running already (whoever started it): for libraries and
 *  plugins that need the pool without knowing whether their host started it. Returns 0 when a pool
 *  is running afterwards, else -1 as merino_start. */
MERINO_API int merino_ensure_started(const merino_config *cfg);

/** Stops the workers and frees their stacks. Call it from a thread that is not a worker. Waits for
 *  the MERINO_RUNs in flight; a MERINO_RUN made after it started waits for it, then starts a new
 *  default pool. Returns 0, or -1 with a message when merino is not running or when called from a
 *  task. A pool not stopped is stopped at exit. */
MERINO_API int merino_stop(void);

/** The number of workers of the running pool; 0 when merino is not running. On a worker (in a
 *  task, or a function a task calls) it is the pool the task runs on, also while merino_stop waits
 *  for that run to end; in the child of a fork() made from a task, 1 (only the forking thread is
 *  left). */
MERINO_API unsigned merino_workers(void);

/** How many of the workers compete for work now: merino_workers() minus those asleep because the
 *  process's CPU budget shrank while the pool ran (its affinity mask or its cgroup's CPU quota,
 *  re-read every few milliseconds by idle workers; docs/idle.md). The pool keeps
 *  ceil(budget x max(workers, start budget) / start budget) workers, at most merino_workers(), at
 *  least 1: a pool of one worker per CPU follows the budget, an oversubscribed one keeps its ratio.
 *  Workers over it finish what they run, then sleep until the budget grows. 0 when merino is not
 *  running. */
MERINO_API unsigned merino_workers_active(void);

/** The calling worker's index (0..workers-1), or -1 when called from a thread that is not a worker. */
MERINO_API int merino_worker_index(void);

/* ------------------------------------------------------------------------------------------------
 * Errors and version
 * ---------------------------------------------------------------------------------------------- */

/** The message of the last error merino reported on this thread, or "" if none. */
MERINO_API const char *merino_last_error(void);

/** Called with each error message ("merino: ...") instead of printing it on stderr. */
typedef void merino_error_fn(const char *message, void *arg);
/** Sets the error handler (NULL: print on stderr, the default), as mimalloc's mi_register_error.
 *  Fatal errors (a task stack overflow, a join with no spawn) are printed on stderr whatever the
 *  handler, since the program stops there. */
MERINO_API void merino_set_error_handler(merino_error_fn *fn, void *arg);

/** The library's version, MERINO_VERSION of the merino.h it was built from. */
MERINO_API int merino_version(void);

/* ------------------------------------------------------------------------------------------------
 * Counters
 * ---------------------------------------------------------------------------------------------- */

/** Counters summed over the workers since merino_start or merino_stats_reset. Steals and the
 *  publication counters are always kept (they cost nothing next to a steal); spawns are counted
 *  only by code compiled with MERINO_STATS defined before including this header (the default
 *  build pays nothing for it), and are 0 otherwise. */
typedef struct merino_stats {
    uint64_t spawns;      /* MERINO_SPAWN and C++ fork_join, where counted */
    uint64_t steals;      /* tasks taken by a thief, leapfrogging included */
    uint64_t leapfrogs;   /* of those, taken by a worker waiting for its own stolen task */
    uint64_t publishes;   /* times an owner went public on a thief's request: it published the
                             tasks it held and spawned public from then on */
    uint64_t privatizations; /* times an owner went back to private spawns, after inlining many
                                public tasks that nobody took */
} merino_stats;

/** Fills *out (zeros when merino is not running). Exact when no task is running. Safe anywhere,
 *  tasks included. */
MERINO_API void merino_stats_get(merino_stats *out);
/** Sets every counter to 0. Call it when no task is running. */
MERINO_API void merino_stats_reset(void);

/* ------------------------------------------------------------------------------------------------
 * Isolation and arenas (docs/isolation.md)
 * ---------------------------------------------------------------------------------------------- */

/** Runs fn(arg) isolated: while a worker waits inside fn (a join of a stolen task, a task group's
 *  wait, the end of a parallel loop) it runs only work that fn created, never other work of the
 *  pool — so fn may hold a lock across parallel work that never takes the lock itself. Work of an
 *  isolated region nested inside fn counts as fn's. From a thread that is not a worker it enters
 *  the pool first (as MERINO_RUN). Join every task and wait for every task group that fn starts
 *  before fn returns. oneTBB: this_task_arena::isolate. */
MERINO_API void merino_isolate(void (*fn)(void *), void *arg);

/** A limit on the workers that run a piece of work at a time (oneTBB: task_arena). Set it up with
 *  merino_arena_init; the fields are merino's. Keep it alive while it runs work. */
typedef struct merino_arena {
    unsigned merino__max;    /* workers that may run its work at a time */
    uint32_t merino__active; /* atomic: workers running its work now */
} merino_arena;

/** Sets a up for at most max_concurrency workers (1..MERINO_MAX_WORKERS). Returns 0, or -1 with a
 *  message (merino_last_error()) when max_concurrency is out of range. */
MERINO_API int merino_arena_init(merino_arena *a, unsigned max_concurrency);

/** Runs fn(arg) in arena a: fn's work (its spawns, loops, task groups) runs on at most
 *  a's max_concurrency workers at a time, the calling one included; the rest of the pool goes on
 *  with other work. fn is isolated as with merino_isolate. Arenas nest: work of an arena run inside
 *  fn counts against both. When a is full (other runs use all of it) the call waits for a place.
 *  From a thread that is not a worker it enters the pool first. */
MERINO_API void merino_arena_run(merino_arena *a, void (*fn)(void *), void *arg);

/* ------------------------------------------------------------------------------------------------
 * Tasks
 * ---------------------------------------------------------------------------------------------- */

/** Bytes of a task's arguments (together) and of its result: fourteen pointers. */
#define MERINO_TASK_PAYLOAD 112

#ifdef __cplusplus
}
#endif

#include "merino/internal/task_stack.h"
#include "merino/internal/task_macros.h"

/* Outside a task body, MERINO_SPAWN, MERINO_CALL and MERINO_JOIN find this declaration instead of
 * the body's hidden parameter, and the compiler's error names it. */
#ifdef __cplusplus
extern "C" {
#endif
extern struct merino_SPAWN_CALL_and_JOIN_are_only_for_use_inside_a_task_body merino__top;
#ifdef __cplusplus
}
#endif

/** MERINO_TASK_n(RT, NAME, T1, A1, ..., Tn, An) { body }: declares and defines task NAME, returning
 *  RT, with n arguments (n = 0..14), for use in this file. */
#define MERINO_TASK_0(RT, NAME) MERINO__ONE_FILE(MERINO__RESULT, RT, NAME, 0, ())
#define MERINO_TASK_1(RT, NAME, ...) MERINO__ONE_FILE(MERINO__RESULT, RT, NAME, 1, (__VA_ARGS__))
#define MERINO_TASK_2(RT, NAME, ...) MERINO__ONE_FILE(MERINO__RESULT, RT, NAME, 2, (__VA_ARGS__))
#define MERINO_TASK_3(RT, NAME, ...) MERINO__ONE_FILE(MERINO__RESULT, RT, NAME, 3, (__VA_ARGS__))
#define MERINO_TASK_4(RT, NAME, ...) MERINO__ONE_FILE(MERINO__RESULT, RT, NAME, 4, (__VA_ARGS__))
#define MERINO_TASK_5(RT, NAME, ...) MERINO__ONE_FILE(MERINO__RESULT, RT, NAME, 5, (__VA_ARGS__))
#define MERINO_TASK_6(RT, NAME, ...) MERINO__ONE_FILE(MERINO__RESULT, RT, NAME, 6, (__VA_ARGS__))
#define MERINO_TASK_7(RT, NAME, ...) MERINO__ONE_FILE(MERINO__RESULT, RT, NAME, 7, (__VA_ARGS__))
#define MERINO_TASK_8(RT, NAME, ...) MERINO__ONE_FILE(MERINO__RESULT, RT, NAME, 8, (__VA_ARGS__))
#define MERINO_TASK_9(RT, NAME, ...) MERINO__ONE_FILE(MERINO__RESULT, RT, NAME, 9, (__VA_ARGS__))
#define MERINO_TASK_10(RT, NAME, ...) MERINO__ONE_FILE(MERINO__RESULT, RT, NAME, 10, (__VA_ARGS__))
#define MERINO_TASK_11(RT, NAME, ...) MERINO__ONE_FILE(MERINO__RESULT, RT, NAME, 11, (__VA_ARGS__))
#define MERINO_TASK_12(RT, NAME, ...) MERINO__ONE_FILE(MERINO__RESULT, RT, NAME, 12, (__VA_ARGS__))
#define MERINO_TASK_13(RT, NAME, ...) MERINO__ONE_FILE(MERINO__RESULT, RT, NAME, 13, (__VA_ARGS__))
#define MERINO_TASK_14(RT, NAME, ...) MERINO__ONE_FILE(MERINO__RESULT, RT, NAME, 14, (__VA_ARGS__))

/** MERINO_VOID_TASK_n(NAME, T1, A1, ..., Tn, An) { body }: the same for a task with no result. */
#define MERINO_VOID_TASK_0(NAME) MERINO__ONE_FILE(MERINO__VOID, void, NAME, 0, ())
#define MERINO_VOID_TASK_1(NAME, ...) MERINO__ONE_FILE(MERINO__VOID, void, NAME, 1, (__VA_ARGS__))
#define MERINO_VOID_TASK_2(NAME, ...) MERINO__ONE_FILE(MERINO__VOID, void, NAME, 2, (__VA_ARGS__))
#define MERINO_VOID_TASK_3(NAME, ...) MERINO__ONE_FILE(MERINO__VOID, void, NAME, 3, (__VA_ARGS__))
#define MERINO_VOID_TASK_4(NAME, ...) MERINO__ONE_FILE(MERINO__VOID, void, NAME, 4, (__VA_ARGS__))
#define MERINO_VOID_TASK_5(NAME, ...) MERINO__ONE_FILE(MERINO__VOID, void, NAME, 5, (__VA_ARGS__))
#define MERINO_VOID_TASK_6(NAME, ...) MERINO__ONE_FILE(MERINO__VOID, void, NAME, 6, (__VA_ARGS__))
#define MERINO_VOID_TASK_7(NAME, ...) MERINO__ONE_FILE(MERINO__VOID, void, NAME, 7, (__VA_ARGS__))
#define MERINO_VOID_TASK_8(NAME, ...) MERINO__ONE_FILE(MERINO__VOID, void, NAME, 8, (__VA_ARGS__))
#define MERINO_VOID_TASK_9(NAME, ...) MERINO__ONE_FILE(MERINO__VOID, void, NAME, 9, (__VA_ARGS__))
#define MERINO_VOID_TASK_10(NAME, ...) MERINO__ONE_FILE(MERINO__VOID, void, NAME, 10, (__VA_ARGS__))
#define MERINO_VOID_TASK_11(NAME, ...) MERINO__ONE_FILE(MERINO__VOID, void, NAME, 11, (__VA_ARGS__))
#define MERINO_VOID_TASK_12(NAME, ...) MERINO__ONE_FILE(MERINO__VOID, void, NAME, 12, (__VA_ARGS__))
#define MERINO_VOID_TASK_13(NAME, ...) MERINO__ONE_FILE(MERINO__VOID, void, NAME, 13, (__VA_ARGS__))
#define MERINO_VOID_TASK_14(NAME, ...) MERINO__ONE_FILE(MERINO__VOID, void, NAME, 14, (__VA_ARGS__))

/** MERINO_TASK_DECL_n(RT, NAME, T1, ..., Tn); in a header: declares task NAME (types only), so that
 *  other files, and tasks defined before it, can spawn, call, join and run it. Define it in exactly
 *  one .c file with MERINO_TASK_IMPL_n(RT, NAME, T1, A1, ..., Tn, An) { body }, whose types must be
 *  the declaration's. The task has C linkage, so C and C++ files may share the header. */
#define MERINO_TASK_DECL_0(RT, NAME) MERINO__DECL(MERINO__RESULT, RT, NAME, 0, ())
#define MERINO_TASK_DECL_1(RT, NAME, ...) MERINO__DECL(MERINO__RESULT, RT, NAME, 1, (__VA_ARGS__))
#define MERINO_TASK_DECL_2(RT, NAME, ...) MERINO__DECL(MERINO__RESULT, RT, NAME, 2, (__VA_ARGS__))
#define MERINO_TASK_DECL_3(RT, NAME, ...) MERINO__DECL(MERINO__RESULT, RT, NAME, 3, (__VA_ARGS__))
#define MERINO_TASK_DECL_4(RT, NAME, ...) MERINO__DECL(MERINO__RESULT, RT, NAME, 4, (__VA_ARGS__))
#define MERINO_TASK_DECL_5(RT, NAME, ...) MERINO__DECL(MERINO__RESULT, RT, NAME, 5, (__VA_ARGS__))
#define MERINO_TASK_DECL_6(RT, NAME, ...) MERINO__DECL(MERINO__RESULT, RT, NAME, 6, (__VA_ARGS__))
#define MERINO_TASK_DECL_7(RT, NAME, ...) MERINO__DECL(MERINO__RESULT, RT, NAME, 7, (__VA_ARGS__))
#define MERINO_TASK_DECL_8(RT, NAME, ...) MERINO__DECL(MERINO__RESULT, RT, NAME, 8, (__VA_ARGS__))
#define MERINO_TASK_DECL_9(RT, NAME, ...) MERINO__DECL(MERINO__RESULT, RT, NAME, 9, (__VA_ARGS__))
#define MERINO_TASK_DECL_10(RT, NAME, ...) MERINO__DECL(MERINO__RESULT, RT, NAME, 10, (__VA_ARGS__))
#define MERINO_TASK_DECL_11(RT, NAME, ...) MERINO__DECL(MERINO__RESULT, RT, NAME, 11, (__VA_ARGS__))
#define MERINO_TASK_DECL_12(RT, NAME, ...) MERINO__DECL(MERINO__RESULT, RT, NAME, 12, (__VA_ARGS__))
#define MERINO_TASK_DECL_13(RT, NAME, ...) MERINO__DECL(MERINO__RESULT, RT, NAME, 13, (__VA_ARGS__))
#define MERINO_TASK_DECL_14(RT, NAME, ...) MERINO__DECL(MERINO__RESULT, RT, NAME, 14, (__VA_ARGS__))

#define MERINO_TASK_IMPL_0(RT, NAME) MERINO__IMPL(MERINO__RESULT, RT, NAME, 0, ())
#define MERINO_TASK_IMPL_1(RT, NAME, ...) MERINO__IMPL(MERINO__RESULT, RT, NAME, 1, (__VA_ARGS__))
#define MERINO_TASK_IMPL_2(RT, NAME, ...) MERINO__IMPL(MERINO__RESULT, RT, NAME, 2, (__VA_ARGS__))
#define MERINO_TASK_IMPL_3(RT, NAME, ...) MERINO__IMPL(MERINO__RESULT, RT, NAME, 3, (__VA_ARGS__))
#define MERINO_TASK_IMPL_4(RT, NAME, ...) MERINO__IMPL(MERINO__RESULT, RT, NAME, 4, (__VA_ARGS__))
#define MERINO_TASK_IMPL_5(RT, NAME, ...) MERINO__IMPL(MERINO__RESULT, RT, NAME, 5, (__VA_ARGS__))
#define MERINO_TASK_IMPL_6(RT, NAME, ...) MERINO__IMPL(MERINO__RESULT, RT, NAME, 6, (__VA_ARGS__))
#define MERINO_TASK_IMPL_7(RT, NAME, ...) MERINO__IMPL(MERINO__RESULT, RT, NAME, 7, (__VA_ARGS__))
#define MERINO_TASK_IMPL_8(RT, NAME, ...) MERINO__IMPL(MERINO__RESULT, RT, NAME, 8, (__VA_ARGS__))
#define MERINO_TASK_IMPL_9(RT, NAME, ...) MERINO__IMPL(MERINO__RESULT, RT, NAME, 9, (__VA_ARGS__))
#define MERINO_TASK_IMPL_10(RT, NAME, ...) MERINO__IMPL(MERINO__RESULT, RT, NAME, 10, (__VA_ARGS__))
#define MERINO_TASK_IMPL_11(RT, NAME, ...) MERINO__IMPL(MERINO__RESULT, RT, NAME, 11, (__VA_ARGS__))
#define MERINO_TASK_IMPL_12(RT, NAME, ...) MERINO__IMPL(MERINO__RESULT, RT, NAME, 12, (__VA_ARGS__))
#define MERINO_TASK_IMPL_13(RT, NAME, ...) MERINO__IMPL(MERINO__RESULT, RT, NAME, 13, (__VA_ARGS__))
#define MERINO_TASK_IMPL_14(RT, NAME, ...) MERINO__IMPL(MERINO__RESULT, RT, NAME, 14, (__VA_ARGS__))

/** The declaration and definition halves of void tasks. */
#define MERINO_VOID_TASK_DECL_0(NAME) MERINO__DECL(MERINO__VOID, void, NAME, 0, ())
#define MERINO_VOID_TASK_DECL_1(NAME, ...) MERINO__DECL(MERINO__VOID, void, NAME, 1, (__VA_ARGS__))
#define MERINO_VOID_TASK_DECL_2(NAME, ...) MERINO__DECL(MERINO__VOID, void, NAME, 2, (__VA_ARGS__))
#define MERINO_VOID_TASK_DECL_3(NAME, ...) MERINO__DECL(MERINO__VOID, void, NAME, 3, (__VA_ARGS__))
#define MERINO_VOID_TASK_DECL_4(NAME, ...) MERINO__DECL(MERINO__VOID, void, NAME, 4, (__VA_ARGS__))
#define MERINO_VOID_TASK_DECL_5(NAME, ...) MERINO__DECL(MERINO__VOID, void, NAME, 5, (__VA_ARGS__))
#define MERINO_VOID_TASK_DECL_6(NAME, ...) MERINO__DECL(MERINO__VOID, void, NAME, 6, (__VA_ARGS__))
#define MERINO_VOID_TASK_DECL_7(NAME, ...) MERINO__DECL(MERINO__VOID, void, NAME, 7, (__VA_ARGS__))
#define MERINO_VOID_TASK_DECL_8(NAME, ...) MERINO__DECL(MERINO__VOID, void, NAME, 8, (__VA_ARGS__))
#define MERINO_VOID_TASK_DECL_9(NAME, ...) MERINO__DECL(MERINO__VOID, void, NAME, 9, (__VA_ARGS__))
#define MERINO_VOID_TASK_DECL_10(NAME, ...) MERINO__DECL(MERINO__VOID, void, NAME, 10, (__VA_ARGS__))
#define MERINO_VOID_TASK_DECL_11(NAME, ...) MERINO__DECL(MERINO__VOID, void, NAME, 11, (__VA_ARGS__))
#define MERINO_VOID_TASK_DECL_12(NAME, ...) MERINO__DECL(MERINO__VOID, void, NAME, 12, (__VA_ARGS__))
#define MERINO_VOID_TASK_DECL_13(NAME, ...) MERINO__DECL(MERINO__VOID, void, NAME, 13, (__VA_ARGS__))
#define MERINO_VOID_TASK_DECL_14(NAME, ...) MERINO__DECL(MERINO__VOID, void, NAME, 14, (__VA_ARGS__))

#define MERINO_VOID_TASK_IMPL_0(NAME) MERINO__IMPL(MERINO__VOID, void, NAME, 0, ())
#define MERINO_VOID_TASK_IMPL_1(NAME, ...) MERINO__IMPL(MERINO__VOID, void, NAME, 1, (__VA_ARGS__))
#define MERINO_VOID_TASK_IMPL_2(NAME, ...) MERINO__IMPL(MERINO__VOID, void, NAME, 2, (__VA_ARGS__))
#define MERINO_VOID_TASK_IMPL_3(NAME, ...) MERINO__IMPL(MERINO__VOID, void, NAME, 3, (__VA_ARGS__))
#define MERINO_VOID_TASK_IMPL_4(NAME, ...) MERINO__IMPL(MERINO__VOID, void, NAME, 4, (__VA_ARGS__))
#define MERINO_VOID_TASK_IMPL_5(NAME, ...) MERINO__IMPL(MERINO__VOID, void, NAME, 5, (__VA_ARGS__))
#define MERINO_VOID_TASK_IMPL_6(NAME, ...) MERINO__IMPL(MERINO__VOID, void, NAME, 6, (__VA_ARGS__))
#define MERINO_VOID_TASK_IMPL_7(NAME, ...) MERINO__IMPL(MERINO__VOID, void, NAME, 7, (__VA_ARGS__))
#define MERINO_VOID_TASK_IMPL_8(NAME, ...) MERINO__IMPL(MERINO__VOID, void, NAME, 8, (__VA_ARGS__))
#define MERINO_VOID_TASK_IMPL_9(NAME, ...) MERINO__IMPL(MERINO__VOID, void, NAME, 9, (__VA_ARGS__))
#define MERINO_VOID_TASK_IMPL_10(NAME, ...) MERINO__IMPL(MERINO__VOID, void, NAME, 10, (__VA_ARGS__))
#define MERINO_VOID_TASK_IMPL_11(NAME, ...) MERINO__IMPL(MERINO__VOID, void, NAME, 11, (__VA_ARGS__))
#define MERINO_VOID_TASK_IMPL_12(NAME, ...) MERINO__IMPL(MERINO__VOID, void, NAME, 12, (__VA_ARGS__))
#define MERINO_VOID_TASK_IMPL_13(NAME, ...) MERINO__IMPL(MERINO__VOID, void, NAME, 13, (__VA_ARGS__))
#define MERINO_VOID_TASK_IMPL_14(NAME, ...) MERINO__IMPL(MERINO__VOID, void, NAME, 14, (__VA_ARGS__))

/* Arities past the maximum: an error that names it, not an unknown identifier. */
#define MERINO__TOO_MANY                                                                           \
    MERINO__STATIC_ASSERT(0, "merino: a task takes at most 14 arguments (MERINO_TASK_14): pass "  \
                             "a pointer to a struct for more")
#define MERINO_TASK_15(...) MERINO__TOO_MANY
#define MERINO_TASK_16(...) MERINO__TOO_MANY
#define MERINO_VOID_TASK_15(...) MERINO__TOO_MANY
#define MERINO_VOID_TASK_16(...) MERINO__TOO_MANY
#define MERINO_TASK_DECL_15(...) MERINO__TOO_MANY
#define MERINO_TASK_DECL_16(...) MERINO__TOO_MANY
#define MERINO_TASK_IMPL_15(...) MERINO__TOO_MANY
#define MERINO_TASK_IMPL_16(...) MERINO__TOO_MANY
#define MERINO_VOID_TASK_DECL_15(...) MERINO__TOO_MANY
#define MERINO_VOID_TASK_DECL_16(...) MERINO__TOO_MANY
#define MERINO_VOID_TASK_IMPL_15(...) MERINO__TOO_MANY
#define MERINO_VOID_TASK_IMPL_16(...) MERINO__TOO_MANY

/* The three work on the thread's next free descriptor, merino__next, which the compiler keeps in a
 * register between calls. `sizeof(merino__top)` costs nothing and only checks that they are used
 * inside a task body (outside, merino__top is the incomplete struct declared above). */
/** Inside a task body: make NAME(args) available to other workers; join it later with MERINO_JOIN. */
#define MERINO_SPAWN(...)                                                                          \
    ((void)sizeof(merino__top),                                                                   \
     MERINO__CAT(MERINO__HEAD(__VA_ARGS__), _merino_spawn)(merino__next MERINO__REST(__VA_ARGS__)))
/** Inside a task body: call task NAME directly (no task is created). */
#define MERINO_CALL(...)                                                                           \
    ((void)sizeof(merino__top),                                                                   \
     MERINO__CAT(MERINO__HEAD(__VA_ARGS__), _merino_call)(merino__next MERINO__REST(__VA_ARGS__)))
/** Inside a task body: the result of the most recent un-joined MERINO_SPAWN, which must be of NAME. */
#define MERINO_JOIN(NAME) ((void)sizeof(merino__top), NAME##_merino_join(merino__next - 1))
/** Anywhere: run task NAME(args) and return its result. On a worker (whatever called the code) it
 *  is a call whose spawns other workers may take; from another thread the calling thread runs it
 *  with the pool's help, starting a default pool if none is running. */
#define MERINO_RUN(...) MERINO__CAT(MERINO__HEAD(__VA_ARGS__), _merino_run)(0 MERINO__REST(__VA_ARGS__))

#ifdef MERINO_SHORT_NAMES
#define TASK_0 MERINO_TASK_0
#define TASK_1 MERINO_TASK_1
#define TASK_2 MERINO_TASK_2
#define TASK_3 MERINO_TASK_3
#define TASK_4 MERINO_TASK_4
#define TASK_5 MERINO_TASK_5
#define TASK_6 MERINO_TASK_6
#define TASK_7 MERINO_TASK_7
#define TASK_8 MERINO_TASK_8
#define TASK_9 MERINO_TASK_9
#define TASK_10 MERINO_TASK_10
#define TASK_11 MERINO_TASK_11
#define TASK_12 MERINO_TASK_12
#define TASK_13 MERINO_TASK_13
#define TASK_14 MERINO_TASK_14
#define VOID_TASK_0 MERINO_VOID_TASK_0
#define VOID_TASK_1 MERINO_VOID_TASK_1
#define VOID_TASK_2 MERINO_VOID_TASK_2
#define VOID_TASK_3 MERINO_VOID_TASK_3
#define VOID_TASK_4 MERINO_VOID_TASK_4
#define VOID_TASK_5 MERINO_VOID_TASK_5
#define VOID_TASK_6 MERINO_VOID_TASK_6
#define VOID_TASK_7 MERINO_VOID_TASK_7
#define VOID_TASK_8 MERINO_VOID_TASK_8
#define VOID_TASK_9 MERINO_VOID_TASK_9
#define VOID_TASK_10 MERINO_VOID_TASK_10
#define VOID_TASK_11 MERINO_VOID_TASK_11
#define VOID_TASK_12 MERINO_VOID_TASK_12
#define VOID_TASK_13 MERINO_VOID_TASK_13
#define VOID_TASK_14 MERINO_VOID_TASK_14
#define SPAWN MERINO_SPAWN
#define CALL MERINO_CALL
#define JOIN MERINO_JOIN
#define RUN MERINO_RUN
#endif

#endif /* MERINO_H */
