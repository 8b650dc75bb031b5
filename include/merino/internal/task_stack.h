/* merino/internal/task_stack.h — the layout and the inline hot paths of merino's direct task stack.
 * INTERNAL: included by <merino.h>, never directly; nothing here is API and all of it may change
 * in any release (0.x: every minor release). Names with a double underscore (merino__*, MERINO__*)
 * are merino's internals that the inline code of the public headers must see.
 *
 * The protocol behind these functions is described step by step in docs/architecture.md and
 * modelled for the spin checker in src/core/model/steal.pml. */
#ifndef MERINO_INTERNAL_TASK_STACK_H
#define MERINO_INTERNAL_TASK_STACK_H

#ifndef MERINO_H
#error "include <merino.h>, not merino/internal/task_stack.h"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- layout ------------------------------------------------------------------------------------ */

/* The profiled variant (libmerino_prof, docs/profiler.md): MERINO_PROFILE=1 in every file that
 * declares tasks, which the merino-prof pkg-config file and the merino::prof CMake target set. */
#if defined(MERINO_PROFILE) && (MERINO_PROFILE + 0)
#define MERINO__PROFILE 1
#else
#define MERINO__PROFILE 0
#endif

#define MERINO__TASK_SIZE 128

/* One slot of a worker's task stack: its state word, then the task's arguments (later its result).
 * The state word comes first so that its address is the descriptor's: the inline spawn and join
 * then need no extra address register. State values: EMPTY; TASK(wrap) = the wrapper's address
 * (public: thieves may take it); PRIVATE(wrap) = address + 1 (only the owner may run it);
 * STOLEN(thief); DONE. */
typedef struct merino__task {
    uintptr_t state; /* atomic */
    uintptr_t check; /* atomic: the wrapper, written at spawn (debug builds) or by the thief
                        that runs the task, to check the join against it */
    unsigned char payload[MERINO_TASK_PAYLOAD] __attribute__((aligned(16)));
} __attribute__((aligned(MERINO__TASK_SIZE))) merino__task;

/* The part of a worker record the inline code reads (the rest is the runtime's). */
typedef struct merino__worker {
    merino__task *base;   /* the first descriptor of this worker's stack */
    merino__task *end;    /* one past the last descriptor */
    uint64_t spawns;      /* tasks spawned, counted only where MERINO_STATS is defined */
#if MERINO__PROFILE /* profiler: the per-worker words the inline hooks use (merino/internal/prof.h) */
    struct merino__prof_slot *prof_slots; /* one per descriptor, the sentinel included */
    uint64_t prof_inlined;                /* joins that ran their task here (merino__count) */
#endif
} merino__worker;

/* What a thief (or the worker taking a root task) calls to run a task: its arguments are in t's
 * payload, top is where the task may spawn, and the wrapper leaves the result in t's payload. */
typedef void (*merino__wrap_fn)(merino__task *top, merino__task *t);

#define MERINO__EMPTY ((uintptr_t)0)
#define MERINO__DONE ((uintptr_t)2)
#define MERINO__STOLEN(i) ((((uintptr_t)(i) + 1) << 2) | 2)
#define MERINO__STOLEN_INDEX(s) ((unsigned)((s) >> 2) - 1)
#define MERINO__TASK_MIN ((uintptr_t)65536u) /* below: EMPTY, DONE, STOLEN(i); at or above: a wrapper */

/* Casts that are C and C++ alike without old-style casts in C++. */
#ifdef __cplusplus
#define MERINO__PTR_CAST(T, p) reinterpret_cast<T>(p)
#define MERINO__ADDR(p) reinterpret_cast<uintptr_t>(p)
#else
#define MERINO__PTR_CAST(T, p) ((T)(void *)(p))
#define MERINO__ADDR(p) ((uintptr_t)(p))
#endif

#define MERINO__LIKELY(x) __builtin_expect(!!(x), 1)
#define MERINO__UNLIKELY(x) __builtin_expect(!!(x), 0)
/* Wrappers are at least 4-byte aligned so that bit 0 of the state word can mark PRIVATE. */
#define MERINO__WRAP_ATTR __attribute__((aligned(4), used))

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define MERINO__TSAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define MERINO__TSAN 1
#endif

/* Join-order checks: compiled in when asked for (MERINO_DEBUG), or in unoptimized code, never in
 * an optimized build by default — whatever NDEBUG says (docs/api.md, "Debug checks"). */
#if defined(MERINO_DEBUG) || !defined(__OPTIMIZE__)
#define MERINO__CHECKS 1
#else
#define MERINO__CHECKS 0
#endif

/* ---- per-thread words --------------------------------------------------------------------------- */

/* This thread's worker record, or NULL on a thread that is not in the pool. */
extern MERINO_API __thread merino__worker *merino__self __attribute__((tls_model("initial-exec")));

/* merino__next: this thread's next free descriptor, or NULL on a thread that is not in the pool.
 * Every spawn and join reads it and stores it back (the compiler keeps it in a register between
 * calls), so any code on the worker — a task body, a plain function it calls, C++ fork_join,
 * MERINO_RUN — spawns above the live descriptors.
 *
 * The two words every spawn and join compare against live in the worker thread's own storage:
 *   merino__limit  spawns at or above it take the slow path: the end of the stack, or 0 when a
 *                  thief asks for public tasks and while the owner spawns public after that;
 *   merino__split  joins below it take the slow path: the owner's boundary between public and
 *                  private descriptors, or all ones when a thief asks.
 * Both are atomic: the owner reads them relaxed here, thieves store into them through pointers.
 * In an executable (PIE or not) on x86-64, the header defines the three (weak: one per program),
 * so that each access is one fs-relative instruction (a relaxed atomic access to an aligned word
 * on x86-64) with no register holding the variable's offset — the bound checks compare against
 * the word in memory, one instruction instead of a load and a compare; in a shared object, and under
 * ThreadSanitizer, they are the runtime's, declared initial-exec. */
#if defined(__x86_64__) && (defined(__PIE__) || !defined(__PIC__)) && !defined(MERINO__TSAN) && \
    !defined(MERINO__BUILDING)
#define MERINO__TLS_DIRECT 1
/* Aligned so that thieves' requests (stores into limit and split, and the peek before them) and
 * the owner's store of merino__next at every spawn and join are on different cache lines. */
__attribute__((weak, aligned(64))) __thread uintptr_t merino__limit;
__attribute__((weak)) __thread uintptr_t merino__split;
__attribute__((weak, aligned(64))) __thread merino__task *merino__next; /* one fs-relative mov */
/* addr >= limit (>= split): one compare with the fs-relative word as its operand, whose flags the
 * branch uses directly; volatile: the word is read at every use (thieves store into it). */
static inline int merino__at_limit(uintptr_t addr) {
    int ae;
    __asm__ volatile("cmpq %%fs:merino__limit@tpoff, %1" : "=@ccae"(ae) : "r"(addr));
    return ae;
}
static inline int merino__at_split(uintptr_t addr) {
    int ae;
    __asm__ volatile("cmpq %%fs:merino__split@tpoff, %1" : "=@ccae"(ae) : "r"(addr));
    return ae;
}
#else
extern MERINO_API __thread merino__task *merino__next __attribute__((tls_model("initial-exec")));
extern MERINO_API __thread uintptr_t merino__limit __attribute__((tls_model("initial-exec")));
extern MERINO_API __thread uintptr_t merino__split __attribute__((tls_model("initial-exec")));
static inline int merino__at_limit(uintptr_t addr) {
    return addr >= __atomic_load_n(&merino__limit, __ATOMIC_RELAXED);
}
static inline int merino__at_split(uintptr_t addr) {
    return addr >= __atomic_load_n(&merino__split, __ATOMIC_RELAXED);
}
#endif

/* ---- out-of-line parts of the runtime (src/core) ------------------------------------------------ */

MERINO_API void merino__spawn_slow(merino__task *t, uintptr_t state);
MERINO_API int merino__join_slow(merino__task *t, uintptr_t private_state);
MERINO_API void merino__run_external(merino__task *t, merino__wrap_fn wrap);
MERINO_API __attribute__((noreturn, cold)) void merino__join_mismatch(merino__task *t, const char *name);
MERINO_API __attribute__((noreturn, cold)) void merino__unjoined(merino__task *top, const char *name);

/* A counter written by one thread and read by others: no locked instruction, no data race. */
static inline void merino__count(uint64_t *c) {
    __atomic_store_n(c, __atomic_load_n(c, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED); /* no data */
}

/* ---- profiler hooks: nothing unless MERINO_PROFILE (merino/internal/prof.h) -------------------- */

#if MERINO__PROFILE
#include "prof.h"
#else
#define MERINO__PROF_SPAWN(t) ((void)0)
#define MERINO__PROF_INLINE(t, stmt) stmt                           /* C++ fork_join */
#define MERINO__PROF_JOIN_RUN(KIND, R, t, call) KIND##_RETURN(call) /* task_macros.h */
#endif

/* ---- the hot paths: every spawned task pays for these, so keep them short ---------------------- */

/* Spawn into t, after the payload is written (t may be the sentinel descriptor past the end: its
 * payload is mapped, and the overflow is caught here before the state is written). A task starts
 * private — only the owner can run it, so its join needs no atomic — and its state store is
 * relaxed: a thief only reads a private state as a hint. One compare serves the rare cases: the
 * stack is full, or `limit` is 0 — a thief asked for public tasks, or the owner is in public mode
 * (it spawns public for a while after a request; src/core/owner.c); then merino__spawn_slow
 * publishes what the owner holds and this very task.
 * MERINO_ALL_PUBLIC (defined before including merino.h, in every file that declares tasks) makes
 * every task public instead: the worst case of the Wool paper's Table II, for measuring. */
static inline void merino__spawn(merino__task *t, uintptr_t wrap) {
#if defined(MERINO_STATS) || MERINO__PROFILE
    merino__count(&merino__self->spawns);
#endif
    MERINO__PROF_SPAWN(t);
#if MERINO__CHECKS
    __atomic_store_n(&t->check, wrap, __ATOMIC_RELAXED); /* a thief rewrites it: no data */
#endif
#ifdef MERINO_ALL_PUBLIC
    uintptr_t state = wrap; /* public */
#else
    uintptr_t state = wrap + 1; /* private; +1, not |1: folds into the address */
#endif
    /* relaxed: the owner's bound, lowered by thieves as a hint; no data attached */
    if (MERINO__UNLIKELY(merino__at_limit(MERINO__ADDR(t))))
        merino__spawn_slow(t, state);
#ifdef MERINO_ALL_PUBLIC
    else
        __atomic_store_n(&t->state, state, __ATOMIC_RELEASE); /* publishes the arguments */
#else
    else
        __atomic_store_n(&t->state, state, __ATOMIC_RELAXED);
#endif
    merino__next = t + 1;
}

/* Join of the descriptor t (the caller's top, already lowered). Returns 1 when the caller must run
 * the task itself (it was private, or public and not stolen), 0 when a thief ran it and the result
 * is in t. The private case is inline and needs no atomic; the rest is merino__join_slow, which
 * also reports a join with no spawn (t below where the running task began), and one whose task
 * is not the one spawned into t (wrap, the joining task's wrapper: public or stolen tasks only,
 * in every build; builds with the checks check private ones too, MERINO__CHECK_JOIN). */
static inline int merino__join(merino__task *t, uintptr_t wrap) {
    merino__next = t;
#ifndef MERINO_ALL_PUBLIC
    /* relaxed: split is the owner's, but for a thief's request (no data attached) */
    if (MERINO__LIKELY(merino__at_split(MERINO__ADDR(t)))) return 1; /* private */
#endif
    /* wrap + 1, the private state its spawn stored (still in a register): checked there */
    return merino__join_slow(t, wrap + 1);
}

#ifdef __cplusplus
}
#endif

#endif
