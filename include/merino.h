/* merino.h — fine-grained fork-join parallelism for C11 (and C++ through merino.hpp).
 *
 * A task is declared with MERINO_TASK_n / MERINO_VOID_TASK_n (n = number of arguments, 0..6):
 *
 *     MERINO_TASK_1(int, fib, int, n) {
 *         if (n < 2) return n;
 *         MERINO_SPAWN(fib, n - 2);          // make fib(n-2) available to other workers
 *         int a = MERINO_CALL(fib, n - 1);   // an ordinary call, with the task context passed along
 *         int b = MERINO_JOIN(fib);          // fib(n-2): run it here, or wait for the worker that stole it
 *         return a + b;
 *     }
 *
 *     if (merino_start(NULL) != 0) return 1;  // prints one line saying what is wrong
 *     int r = MERINO_RUN(fib, 30);            // from any thread: run on the pool and wait
 *     merino_stop();
 *
 * Rules:
 *  - MERINO_SPAWN, MERINO_CALL and MERINO_JOIN are used inside task bodies only.
 *  - Joins are strictly LIFO: each MERINO_JOIN(f) matches the most recent un-joined MERINO_SPAWN of
 *    the same task body, and every spawn is joined before the body returns. Debug builds (NDEBUG not
 *    defined, or MERINO_DEBUG defined) report a join that does not match its spawn.
 *  - MERINO_RUN works anywhere: from a thread that is not a worker it hands the task to the pool and
 *    waits; from code running on a worker it is a plain call. (Called from a plain function that a
 *    C task body called, the task and what it spawns run on a private stack of their own: correct,
 *    but not shared with other workers. Spawn from the task body itself for parallelism.)
 *  - Arguments and results may be of any scalar or struct type; all the arguments of a task together
 *    must fit MERINO_TASK_PAYLOAD bytes (48), as must the result. Pass a pointer for larger data.
 *
 * Requires GCC or Clang (atomic builtins, __thread); Linux. Defining MERINO_SHORT_NAMES before
 * including this header also gives TASK_n, VOID_TASK_n, SPAWN, CALL, JOIN and RUN.
 *
 * Everything named merino__* or MERINO__* is internal. The protocol behind the inline functions
 * below is described in docs/architecture.md; its model for the spin checker is in
 * src/core/model/steal.pml.
 */
#ifndef MERINO_H
#define MERINO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
#define MERINO__STATIC_ASSERT static_assert
#define MERINO__ALIGNOF alignof
#else
#define MERINO__STATIC_ASSERT _Static_assert
#define MERINO__ALIGNOF _Alignof
#endif


/* ------------------------------------------------------------------------------------------------
 * Starting and stopping the pool
 * ---------------------------------------------------------------------------------------------- */

/** How to start the pool. Zero-initialize it and set what you need; zero fields take defaults. */
typedef struct merino_config {
    /** Number of workers, 1..MERINO_MAX_WORKERS. 0: the MERINO_WORKERS environment variable if set,
     *  else the number of CPUs in this process's affinity mask. */
    unsigned workers;
    /** Task descriptors per worker, i.e. how many spawned-but-unjoined tasks one worker may hold
     *  (the depth of spawn nesting). 0: MERINO_TASK_STACK if set, else MERINO_DEFAULT_TASK_STACK. */
    size_t stack_tasks;
    /** Whether each worker thread is bound to one CPU: worker i to the i-th CPU of the affinity
     *  mask of the thread that calls merino_start (round robin when there are more workers than
     *  CPUs). MERINO_PIN_DEFAULT (0): the MERINO_PIN environment variable ("auto", "on" or "off")
     *  if set, else MERINO_PIN_AUTO — bound when there are at least 2 workers and no more than
     *  CPUs; a single worker, or more workers than CPUs, are left to the kernel. Unbound, Linux
     *  can leave two workers on one CPU while another CPU idles for milliseconds
     *  (docs/architecture.md, "Where workers run"). A worker that cannot be bound runs unbound:
     *  binding is a placement, never a reason to fail. */
    int pin;
} merino_config;

#define MERINO_PIN_DEFAULT 0
#define MERINO_PIN_AUTO 1
#define MERINO_PIN_ON 2
#define MERINO_PIN_OFF 3

#define MERINO_MAX_WORKERS 1024
#define MERINO_DEFAULT_TASK_STACK ((size_t)1 << 18)
#define MERINO_MIN_TASK_STACK ((size_t)64)
#define MERINO_MAX_TASK_STACK ((size_t)1 << 26)

/** Starts the workers. cfg may be NULL for all defaults. Returns 0 on success; on bad input
 *  (a malformed MERINO_WORKERS, say) or when the pool is already running, prints one line on
 *  stderr naming the problem and the fix, and returns -1 (merino_last_error() has the line). */
int merino_start(const merino_config *cfg);

/** Stops the workers and frees their stacks. Call it from a thread that is not a worker, when no
 *  MERINO_RUN is in progress. Returns 0, or -1 with a message when merino is not running or when
 *  called from a task. merino_start may be called again afterwards. */
int merino_stop(void);

/** The number of workers of the running pool; 0 when merino is not running. */
unsigned merino_workers(void);

/** The calling worker's index (0..workers-1), or -1 when called from a thread that is not a worker. */
int merino_worker_index(void);

/** The message of the last error merino reported (also printed on stderr), or "" if none. */
const char *merino_last_error(void);

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

/** Fills *out (zeros when merino is not running). Exact when no task is running. */
void merino_stats_get(merino_stats *out);
/** Sets every counter to 0. Call it when no task is running. */
void merino_stats_reset(void);

/* ------------------------------------------------------------------------------------------------
 * Task descriptors and workers (internal: the inline spawn and join below need their layout)
 * ---------------------------------------------------------------------------------------------- */

#define MERINO_TASK_SIZE 64
#define MERINO_TASK_PAYLOAD 48

/* One slot of a worker's task stack: its state word, then the task's arguments (later its
 * result). The state word comes first so that its address is the descriptor's: the inline spawn
 * and join then need no extra address register. State values: EMPTY; TASK(wrap) = the wrapper's
 * address (public: thieves may take it); PRIVATE(wrap) = address + 1 (only the owner may run it);
 * STOLEN(thief); DONE. */
typedef struct merino_task {
    uintptr_t state; /* atomic */
    uintptr_t check; /* debug builds: the wrapper, to check each join against its spawn */
    unsigned char payload[MERINO_TASK_PAYLOAD] __attribute__((aligned(16)));
} __attribute__((aligned(MERINO_TASK_SIZE))) merino_task;

/* The part of a worker that C++ code and the debug checks read; owner only. */
typedef struct merino_worker {
    merino_task *top;     /* the next free descriptor, for C++ code (valid unless c_body) */
    merino_task *end;     /* one past the last descriptor of this worker's stack */
    merino_task *base;    /* the first descriptor of this worker's stack */
    uint64_t spawns;      /* tasks spawned, counted only where MERINO_STATS is defined */
    int c_body;           /* a C task body is running: it keeps its top in a register, so `top`
                             does not say where the next free descriptor is */
} __attribute__((aligned(64))) merino_worker;


typedef void (*merino__wrap_fn)(merino_worker *w, merino_task *top, merino_task *t);

#define MERINO__EMPTY ((uintptr_t)0)
#define MERINO__DONE ((uintptr_t)2)
#define MERINO__STOLEN(i) ((((uintptr_t)(i) + 1) << 2) | 2)
#define MERINO__STOLEN_INDEX(s) ((unsigned)((s) >> 2) - 1)
#define MERINO__TASK_MIN ((uintptr_t)65536) /* below: EMPTY, DONE, STOLEN(i); at or above: a wrapper */

#define MERINO__LIKELY(x) __builtin_expect(!!(x), 1)
#define MERINO__UNLIKELY(x) __builtin_expect(!!(x), 0)
/* Wrappers are at least 4-byte aligned so that bit 0 of the state word can mark PRIVATE. */
#define MERINO__WRAP_ATTR __attribute__((aligned(4), used))

extern __thread merino_worker *merino__self __attribute__((tls_model("initial-exec")));

/* Out-of-line parts of the runtime (src/core). */
void merino__spawn_slow(merino_task *t, uintptr_t state);
int merino__join_public(merino_task *t);
void merino__run_root(merino_task *t, merino__wrap_fn wrap);
void merino__run_task(merino_task *t, merino__wrap_fn wrap);
__attribute__((noreturn, cold)) void merino__join_mismatch(merino_task *t, const char *name);

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define MERINO__TSAN 1
#endif
#endif

#if !defined(NDEBUG) || defined(MERINO_DEBUG)
#define MERINO__CHECKS 1
#else
#define MERINO__CHECKS 0
#endif

/* The two words every spawn and join compare against live in the worker thread's own storage,
 * so that task bodies need no worker pointer (one register less, saved and restored on every
 * call of a recursive task, and one argument less to pass):
 *   merino__limit  spawns at or above it take the slow path: the end of the stack, or 0 when a
 *                  thief asks for public tasks and while the owner spawns public after that;
 *   merino__split  joins below it take the slow path: the owner's boundary between public and
 *                  private descriptors, or all ones when a thief asks.
 * Both are atomic: the owner reads them relaxed here, thieves store into them through pointers.
 * In an executable (PIE or not) on x86-64, the header defines them (weak: one per program) and
 * reads them with one fs-relative mov, a relaxed atomic load of an aligned word on x86-64; in a
 * shared object, and under ThreadSanitizer, they are the runtime's, read with the builtin. */
#if defined(__x86_64__) && (defined(__PIE__) || !defined(__PIC__)) && !defined(__SANITIZE_THREAD__) && \
    !defined(MERINO__TSAN) && !defined(MERINO__BUILDING)
#define MERINO__TLS_DIRECT 1
__attribute__((weak)) __thread uintptr_t merino__limit;
__attribute__((weak)) __thread uintptr_t merino__split;
static inline uintptr_t merino__load_limit(void) {
    uintptr_t v;
    __asm__ volatile("movq %%fs:merino__limit@tpoff, %0" : "=r"(v)); /* volatile: read at every use */
    return v;
}
static inline uintptr_t merino__load_split(void) {
    uintptr_t v;
    __asm__ volatile("movq %%fs:merino__split@tpoff, %0" : "=r"(v)); /* volatile: read at every use */
    return v;
}
#else
extern __thread uintptr_t merino__limit __attribute__((tls_model("initial-exec")));
extern __thread uintptr_t merino__split __attribute__((tls_model("initial-exec")));
static inline uintptr_t merino__load_limit(void) { return __atomic_load_n(&merino__limit, __ATOMIC_RELAXED); }
static inline uintptr_t merino__load_split(void) { return __atomic_load_n(&merino__split, __ATOMIC_RELAXED); }
#endif

/* A counter written by one thread and read by others: no locked instruction, no data race. */
static inline void merino__count(uint64_t *c) {
    __atomic_store_n(c, __atomic_load_n(c, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED); /* no data */
}

/* ---- the hot paths: every spawned task pays for these, so keep them short -------------------- */

/* Spawn into t, after the payload is written (t may be the sentinel descriptor past the end: its
 * payload is mapped, and the overflow is caught here before the state is written). A task starts
 * private — only the owner can run it, so its join needs no atomic — and its state store is
 * relaxed: a thief only reads a private state as a hint. One compare serves the rare cases: the
 * stack is full, or `limit` is 0 — a thief asked for public tasks, or the owner is in public mode
 * (it spawns public for a while after a request; src/core/steal.c); then merino__spawn_slow
 * publishes what the owner holds and this very task.
 * MERINO_ALL_PUBLIC (defined before including this header, in every file that declares tasks)
 * makes every task public instead: the worst case of the Wool paper's Table II, for measuring. */
static inline void merino__spawn_publish(merino_task *t, uintptr_t wrap) {
#ifdef MERINO_STATS
    merino__count(&merino__self->spawns);
#endif
#if MERINO__CHECKS
    t->check = wrap;
#endif
#ifdef MERINO_ALL_PUBLIC
    uintptr_t state = wrap; /* public */
#else
    uintptr_t state = wrap + 1; /* private; +1, not |1: folds into the address */
#endif
    /* relaxed: the owner's bound, lowered by thieves as a hint; no data attached */
    if (MERINO__UNLIKELY((uintptr_t)t >= merino__load_limit()))
        merino__spawn_slow(t, state);
#ifdef MERINO_ALL_PUBLIC
    else
        __atomic_store_n(&t->state, state, __ATOMIC_RELEASE); /* publishes the arguments */
#else
    else
        __atomic_store_n(&t->state, state, __ATOMIC_RELAXED);
#endif
}

/* Join of the descriptor t (already popped). Returns 1 when the caller must run the task itself
 * (it was private, or public and not stolen), 0 when a thief ran it and the result is in t. The
 * private case is inline and needs no atomic; the public one is a call (merino__join_public). */
static inline int merino__join_acquire(merino_task *t, uintptr_t wrap) {
#ifndef MERINO_ALL_PUBLIC
    /* relaxed: split is the owner's, but for a thief's request (no data attached) */
    if (MERINO__LIKELY((uintptr_t)t >= merino__load_split())) return 1; /* private */
#endif
    (void)wrap;
    return merino__join_public(t);
}

#if MERINO__CHECKS
#define MERINO__CHECK_JOIN(t, wrap, name)                                                           \
    do {                                                                                          \
        if ((t) < merino__self->base || (t)->check != (uintptr_t)(wrap))                          \
            merino__join_mismatch((t), name);                                                     \
    } while (0)
#else
#define MERINO__CHECK_JOIN(t, wrap, name) ((void)0)
#endif

/* ------------------------------------------------------------------------------------------------
 * Task declaration macros
 * ---------------------------------------------------------------------------------------------- */

#define MERINO__X(...) __VA_ARGS__

/* The hidden first parameter of every task body: the worker's next free descriptor, which
 * MERINO_SPAWN, MERINO_CALL and MERINO_JOIN use (a leaf task need not). */
#define MERINO__CONTEXT merino_task *merino__top __attribute__((unused))

/* Task bodies are declared inline: a hint, which lets the compiler inline a recursive body into
 * itself a few levels deep, as it does for the plain recursive function it replaces (gcc 12 -O2
 * unrolls serial fib that way). Without it the task version pays a full call, with its six saved
 * registers, per task where the serial one pays one per several calls: fib(40) ran 1.9x its
 * serial time on one worker, 1.3x with the hint. Large bodies are not inlined (the compiler's
 * size limits still apply); the wrapper thieves call may get an inlined copy. */
#define MERINO__BODY static inline

/* Generates, for a task NAME: an argument record and frame (arguments, then the result), the body
 * prototype, the wrapper thieves call, and the inline spawn / join / run. FIELDS, PARAMS, STORES,
 * LOADS, UPARAMS and NAMES are parenthesized lists made by MERINO_TASK_n below. */
#define MERINO__TASK(RTYPE, NAME, FIELDS, PARAMS, STORES, LOADS, UPARAMS, NAMES)                    \
    typedef struct { MERINO__X FIELDS } NAME##_merino_args;                                       \
    typedef union { NAME##_merino_args args; RTYPE result; } NAME##_merino_frame;                 \
    MERINO__STATIC_ASSERT(sizeof(NAME##_merino_frame) <= MERINO_TASK_PAYLOAD,                            \
                   "merino: the arguments or the result of task '" #NAME "' do not fit a task "    \
                   "descriptor (48 bytes): pass a pointer to a struct instead");                  \
    MERINO__STATIC_ASSERT(MERINO__ALIGNOF(NAME##_merino_frame) <= 16,                                         \
                   "merino: an argument of task '" #NAME "' needs more than 16-byte alignment: pass a pointer");   \
    MERINO__BODY RTYPE NAME##_merino_body(MERINO__CONTEXT MERINO__X UPARAMS);                                           \
    static MERINO__WRAP_ATTR void NAME##_merino_wrap(merino_worker *w, merino_task *top,           \
                                                     merino_task *t) {                             \
        NAME##_merino_frame *f = (NAME##_merino_frame *)(void *)t->payload;                       \
        NAME##_merino_args merino__a = f->args;                                                   \
        int merino__c = w->c_body;                                                                \
        (void)merino__a;                                                                          \
        w->c_body = 1;                                                                            \
        f->result = NAME##_merino_body(top MERINO__X LOADS);                                   \
        w->c_body = merino__c;                                                                    \
    }                                                                                             \
    static inline __attribute__((always_inline, unused)) void NAME##_merino_spawn(                 \
        merino_task *t MERINO__X PARAMS) {                                      \
        NAME##_merino_frame *f = (NAME##_merino_frame *)(void *)t->payload;                       \
        (void)f;                                                                                  \
        MERINO__X STORES                                                                          \
        merino__spawn_publish(t, (uintptr_t)&NAME##_merino_wrap);                              \
    }                                                                                             \
    static inline __attribute__((always_inline, unused)) RTYPE NAME##_merino_join(                 \
        merino_task *t) {                                                       \
        NAME##_merino_frame *f = (NAME##_merino_frame *)(void *)t->payload;                       \
        MERINO__CHECK_JOIN(t, &NAME##_merino_wrap, #NAME);                                     \
        if (MERINO__LIKELY(merino__join_acquire(t, (uintptr_t)&NAME##_merino_wrap))) {          \
            NAME##_merino_args merino__a = f->args;                                               \
            (void)merino__a;                                                                      \
            return NAME##_merino_body(t MERINO__X LOADS);                                      \
        }                                                                                         \
        return f->result;                                                                         \
    }                                                                                             \
    static inline __attribute__((unused)) RTYPE NAME##_merino_run(int merino__unused MERINO__X PARAMS) { \
        merino_task t;                                                                            \
        NAME##_merino_frame *f = (NAME##_merino_frame *)(void *)t.payload;                        \
        (void)merino__unused;                                                                     \
        MERINO__X STORES                                                                          \
        merino__run_task(&t, &NAME##_merino_wrap);                                                \
        return f->result;                                                                         \
    }                                                                                             \
    MERINO__BODY RTYPE NAME##_merino_body(MERINO__CONTEXT MERINO__X UPARAMS)

#define MERINO__VOID_TASK(NAME, FIELDS, PARAMS, STORES, LOADS, UPARAMS, NAMES)                      \
    typedef struct { MERINO__X FIELDS } NAME##_merino_args;                                       \
    typedef union { NAME##_merino_args args; } NAME##_merino_frame;                               \
    MERINO__STATIC_ASSERT(sizeof(NAME##_merino_frame) <= MERINO_TASK_PAYLOAD,                            \
                   "merino: the arguments of task '" #NAME "' do not fit a task descriptor "       \
                   "(48 bytes): pass a pointer to a struct instead");                             \
    MERINO__STATIC_ASSERT(MERINO__ALIGNOF(NAME##_merino_frame) <= 16,                                         \
                   "merino: an argument of task '" #NAME "' needs more than 16-byte alignment: pass a pointer");   \
    MERINO__BODY void NAME##_merino_body(MERINO__CONTEXT MERINO__X UPARAMS);                                            \
    static MERINO__WRAP_ATTR void NAME##_merino_wrap(merino_worker *w, merino_task *top,           \
                                                     merino_task *t) {                             \
        NAME##_merino_frame *f = (NAME##_merino_frame *)(void *)t->payload;                       \
        NAME##_merino_args merino__a = f->args;                                                   \
        int merino__c = w->c_body;                                                                \
        (void)merino__a;                                                                          \
        w->c_body = 1;                                                                            \
        NAME##_merino_body(top MERINO__X LOADS);                                               \
        w->c_body = merino__c;                                                                    \
    }                                                                                             \
    static inline __attribute__((always_inline, unused)) void NAME##_merino_spawn(                 \
        merino_task *t MERINO__X PARAMS) {                                      \
        NAME##_merino_frame *f = (NAME##_merino_frame *)(void *)t->payload;                       \
        (void)f;                                                                                  \
        MERINO__X STORES                                                                          \
        merino__spawn_publish(t, (uintptr_t)&NAME##_merino_wrap);                              \
    }                                                                                             \
    static inline __attribute__((always_inline, unused)) void NAME##_merino_join(                  \
        merino_task *t) {                                                       \
        NAME##_merino_frame *f = (NAME##_merino_frame *)(void *)t->payload;                       \
        (void)f;                                                                                  \
        MERINO__CHECK_JOIN(t, &NAME##_merino_wrap, #NAME);                                     \
        if (MERINO__LIKELY(merino__join_acquire(t, (uintptr_t)&NAME##_merino_wrap))) {          \
            NAME##_merino_args merino__a = f->args;                                               \
            (void)merino__a;                                                                      \
            NAME##_merino_body(t MERINO__X LOADS);                                             \
        }                                                                                         \
    }                                                                                             \
    static inline __attribute__((unused)) void NAME##_merino_run(int merino__unused MERINO__X PARAMS) { \
        merino_task t;                                                                            \
        NAME##_merino_frame *f = (NAME##_merino_frame *)(void *)t.payload;                        \
        (void)merino__unused;                                                                     \
        (void)f;                                                                                  \
        MERINO__X STORES                                                                          \
        merino__run_task(&t, &NAME##_merino_wrap);                                                \
    }                                                                                             \
    MERINO__BODY void NAME##_merino_body(MERINO__CONTEXT MERINO__X UPARAMS)

/* Per-arity argument lists. Stored arguments are named a1..a6 so they never clash with the user's. */
#define MERINO__F0 (char unused;)
#define MERINO__P0 ()
#define MERINO__S0 ()
#define MERINO__L0 ()
#define MERINO__N0 ()

#define MERINO__F1(T1) (T1 a1;)
#define MERINO__P1(T1) (, T1 a1)
#define MERINO__S1 (f->args.a1 = a1;)
#define MERINO__L1 (, merino__a.a1)
#define MERINO__N1 (, a1)

#define MERINO__F2(T1, T2) (T1 a1; T2 a2;)
#define MERINO__P2(T1, T2) (, T1 a1, T2 a2)
#define MERINO__S2 (f->args.a1 = a1; f->args.a2 = a2;)
#define MERINO__L2 (, merino__a.a1, merino__a.a2)
#define MERINO__N2 (, a1, a2)

#define MERINO__F3(T1, T2, T3) (T1 a1; T2 a2; T3 a3;)
#define MERINO__P3(T1, T2, T3) (, T1 a1, T2 a2, T3 a3)
#define MERINO__S3 (f->args.a1 = a1; f->args.a2 = a2; f->args.a3 = a3;)
#define MERINO__L3 (, merino__a.a1, merino__a.a2, merino__a.a3)
#define MERINO__N3 (, a1, a2, a3)

#define MERINO__F4(T1, T2, T3, T4) (T1 a1; T2 a2; T3 a3; T4 a4;)
#define MERINO__P4(T1, T2, T3, T4) (, T1 a1, T2 a2, T3 a3, T4 a4)
#define MERINO__S4 (f->args.a1 = a1; f->args.a2 = a2; f->args.a3 = a3; f->args.a4 = a4;)
#define MERINO__L4 (, merino__a.a1, merino__a.a2, merino__a.a3, merino__a.a4)
#define MERINO__N4 (, a1, a2, a3, a4)

#define MERINO__F5(T1, T2, T3, T4, T5) (T1 a1; T2 a2; T3 a3; T4 a4; T5 a5;)
#define MERINO__P5(T1, T2, T3, T4, T5) (, T1 a1, T2 a2, T3 a3, T4 a4, T5 a5)
#define MERINO__S5 (f->args.a1 = a1; f->args.a2 = a2; f->args.a3 = a3; f->args.a4 = a4; f->args.a5 = a5;)
#define MERINO__L5 (, merino__a.a1, merino__a.a2, merino__a.a3, merino__a.a4, merino__a.a5)
#define MERINO__N5 (, a1, a2, a3, a4, a5)

#define MERINO__F6(T1, T2, T3, T4, T5, T6) (T1 a1; T2 a2; T3 a3; T4 a4; T5 a5; T6 a6;)
#define MERINO__P6(T1, T2, T3, T4, T5, T6) (, T1 a1, T2 a2, T3 a3, T4 a4, T5 a5, T6 a6)
#define MERINO__S6                                                                                 \
    (f->args.a1 = a1; f->args.a2 = a2; f->args.a3 = a3; f->args.a4 = a4; f->args.a5 = a5;         \
     f->args.a6 = a6;)
#define MERINO__L6 (, merino__a.a1, merino__a.a2, merino__a.a3, merino__a.a4, merino__a.a5, merino__a.a6)
#define MERINO__N6 (, a1, a2, a3, a4, a5, a6)

/** Declare and define a task returning RT with n arguments (type, name pairs); the body follows. */
#define MERINO_TASK_0(RT, NAME)                                                                    \
    MERINO__TASK(RT, NAME, MERINO__F0, MERINO__P0, MERINO__S0, MERINO__L0, (), MERINO__N0)
#define MERINO_TASK_1(RT, NAME, T1, A1)                                                            \
    MERINO__TASK(RT, NAME, MERINO__F1(T1), MERINO__P1(T1), MERINO__S1, MERINO__L1, (, T1 A1), MERINO__N1)
#define MERINO_TASK_2(RT, NAME, T1, A1, T2, A2)                                                    \
    MERINO__TASK(RT, NAME, MERINO__F2(T1, T2), MERINO__P2(T1, T2), MERINO__S2, MERINO__L2,          \
                 (, T1 A1, T2 A2), MERINO__N2)
#define MERINO_TASK_3(RT, NAME, T1, A1, T2, A2, T3, A3)                                            \
    MERINO__TASK(RT, NAME, MERINO__F3(T1, T2, T3), MERINO__P3(T1, T2, T3), MERINO__S3, MERINO__L3,  \
                 (, T1 A1, T2 A2, T3 A3), MERINO__N3)
#define MERINO_TASK_4(RT, NAME, T1, A1, T2, A2, T3, A3, T4, A4)                                    \
    MERINO__TASK(RT, NAME, MERINO__F4(T1, T2, T3, T4), MERINO__P4(T1, T2, T3, T4), MERINO__S4,      \
                 MERINO__L4, (, T1 A1, T2 A2, T3 A3, T4 A4), MERINO__N4)
#define MERINO_TASK_5(RT, NAME, T1, A1, T2, A2, T3, A3, T4, A4, T5, A5)                            \
    MERINO__TASK(RT, NAME, MERINO__F5(T1, T2, T3, T4, T5), MERINO__P5(T1, T2, T3, T4, T5),          \
                 MERINO__S5, MERINO__L5, (, T1 A1, T2 A2, T3 A3, T4 A4, T5 A5), MERINO__N5)
#define MERINO_TASK_6(RT, NAME, T1, A1, T2, A2, T3, A3, T4, A4, T5, A5, T6, A6)                    \
    MERINO__TASK(RT, NAME, MERINO__F6(T1, T2, T3, T4, T5, T6), MERINO__P6(T1, T2, T3, T4, T5, T6),  \
                 MERINO__S6, MERINO__L6, (, T1 A1, T2 A2, T3 A3, T4 A4, T5 A5, T6 A6), MERINO__N6)

/** The same for tasks that return nothing. */
#define MERINO_VOID_TASK_0(NAME)                                                                   \
    MERINO__VOID_TASK(NAME, MERINO__F0, MERINO__P0, MERINO__S0, MERINO__L0, (), MERINO__N0)
#define MERINO_VOID_TASK_1(NAME, T1, A1)                                                           \
    MERINO__VOID_TASK(NAME, MERINO__F1(T1), MERINO__P1(T1), MERINO__S1, MERINO__L1, (, T1 A1), MERINO__N1)
#define MERINO_VOID_TASK_2(NAME, T1, A1, T2, A2)                                                   \
    MERINO__VOID_TASK(NAME, MERINO__F2(T1, T2), MERINO__P2(T1, T2), MERINO__S2, MERINO__L2,         \
                      (, T1 A1, T2 A2), MERINO__N2)
#define MERINO_VOID_TASK_3(NAME, T1, A1, T2, A2, T3, A3)                                           \
    MERINO__VOID_TASK(NAME, MERINO__F3(T1, T2, T3), MERINO__P3(T1, T2, T3), MERINO__S3, MERINO__L3, \
                      (, T1 A1, T2 A2, T3 A3), MERINO__N3)
#define MERINO_VOID_TASK_4(NAME, T1, A1, T2, A2, T3, A3, T4, A4)                                   \
    MERINO__VOID_TASK(NAME, MERINO__F4(T1, T2, T3, T4), MERINO__P4(T1, T2, T3, T4), MERINO__S4,     \
                      MERINO__L4, (, T1 A1, T2 A2, T3 A3, T4 A4), MERINO__N4)
#define MERINO_VOID_TASK_5(NAME, T1, A1, T2, A2, T3, A3, T4, A4, T5, A5)                           \
    MERINO__VOID_TASK(NAME, MERINO__F5(T1, T2, T3, T4, T5), MERINO__P5(T1, T2, T3, T4, T5),         \
                      MERINO__S5, MERINO__L5, (, T1 A1, T2 A2, T3 A3, T4 A4, T5 A5), MERINO__N5)
#define MERINO_VOID_TASK_6(NAME, T1, A1, T2, A2, T3, A3, T4, A4, T5, A5, T6, A6)                   \
    MERINO__VOID_TASK(NAME, MERINO__F6(T1, T2, T3, T4, T5, T6), MERINO__P6(T1, T2, T3, T4, T5, T6), \
                      MERINO__S6, MERINO__L6, (, T1 A1, T2 A2, T3 A3, T4 A4, T5 A5, T6 A6), MERINO__N6)

/** Inside a task body: make NAME(args) available to other workers; join it later with MERINO_JOIN. */
#define MERINO_SPAWN(NAME, ...) (NAME##_merino_spawn(merino__top, ##__VA_ARGS__), (void)merino__top++)
/** Inside a task body: call task NAME directly (no task is created). */
#define MERINO_CALL(NAME, ...) NAME##_merino_body(merino__top, ##__VA_ARGS__)
/** Inside a task body: the result of the most recent un-joined MERINO_SPAWN, which must be of NAME. */
#define MERINO_JOIN(NAME) NAME##_merino_join(--merino__top)
/** Anywhere: run task NAME(args) on the pool and return its result (a call when already on a worker). */
#define MERINO_RUN(NAME, ...) NAME##_merino_run(0, ##__VA_ARGS__)

#ifdef MERINO_SHORT_NAMES
#define TASK_0 MERINO_TASK_0
#define TASK_1 MERINO_TASK_1
#define TASK_2 MERINO_TASK_2
#define TASK_3 MERINO_TASK_3
#define TASK_4 MERINO_TASK_4
#define TASK_5 MERINO_TASK_5
#define TASK_6 MERINO_TASK_6
#define VOID_TASK_0 MERINO_VOID_TASK_0
#define VOID_TASK_1 MERINO_VOID_TASK_1
#define VOID_TASK_2 MERINO_VOID_TASK_2
#define VOID_TASK_3 MERINO_VOID_TASK_3
#define VOID_TASK_4 MERINO_VOID_TASK_4
#define VOID_TASK_5 MERINO_VOID_TASK_5
#define VOID_TASK_6 MERINO_VOID_TASK_6
#define SPAWN MERINO_SPAWN
#define CALL MERINO_CALL
#define JOIN MERINO_JOIN
#define RUN MERINO_RUN
#endif

#ifdef __cplusplus
}
#endif

#endif /* MERINO_H */
