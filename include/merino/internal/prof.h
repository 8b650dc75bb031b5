/* merino/internal/prof.h — the profiler's inline hooks (MERINO_PROFILE=1 only; docs/profiler.md).
 * INTERNAL: included by merino/internal/task_stack.h in the profiled variant, never directly.
 *
 * Work and span by timestamps (the Hood and Wool papers; Cilk's instrumentation): the running
 * code of each thread is cut into strands at every spawn, join and task boundary; a strand's
 * length in TSC ticks is added to the work and to the span of the thread's context. A spawn
 * records the span at that point in the descriptor's slot (slots are a per-worker array beside
 * the task stack); the join of a task run here restarts the span from the recorded one and, after
 * the task, keeps the longer of the two paths: span = max(continuation, spawn point + child).
 * A task run by a thief starts from the recorded span too, and leaves its work and its end span
 * in the slot before its DONE store, for the joining owner (src/core/owner.c, through
 * src/core/prof_hooks.h). The burdened span adds MERINO__PROF_BURDEN ticks to each path through
 * a spawned task, as Cilkscale's burdened span and the Wool paper's "realistic" parallelism. */
#ifndef MERINO_INTERNAL_PROF_H
#define MERINO_INTERNAL_PROF_H

#ifndef MERINO_H
#error "include <merino.h>, not merino/internal/prof.h"
#endif

/* The cost charged to a path through a spawned task in the burdened span: the Wool paper's 2000
 * cycles (Table I, "Parallelism 2000"), about one steal. */
#define MERINO__PROF_BURDEN 2000u

/* The profiled library's exports (not in the default library's: tests/test_symbols.sh tells them
 * apart by this mark). */
#define MERINO__PROF_API MERINO_API

/* A descriptor's slot: written by the spawner (at_*), and by a thief that ran the task (the rest)
 * before its release store of DONE; read by the joining owner after its acquire of DONE. */
typedef struct merino__prof_slot {
    uint64_t at_span, at_bspan; /* the spawner's span and burdened span at the spawn */
    uint64_t work, span, bspan; /* a thief's: the task's work, the spans where it ended */
    uint64_t pad[3];
} merino__prof_slot;

/* A thread's context: when the running strand began, and the work and spans up to it; and the
 * furthest end (span, burdened span) of the loop chunks run since the loop began, which are
 * parallel strands joined at the loop's end or at the end of the task that ran them
 * (src/prof/tasks.c). */
typedef struct merino__prof_ctx {
    uint64_t mark;
    uint64_t work;
    uint64_t span, bspan;
    uint64_t pend, pend_b;
} merino__prof_ctx;

extern MERINO_API __thread merino__prof_ctx merino__prof_here __attribute__((tls_model("initial-exec")));

#if defined(__x86_64__) || defined(__i386__)
static inline uint64_t merino__prof_ticks(void) { return __builtin_ia32_rdtsc(); }
#else
extern MERINO__PROF_API uint64_t merino__prof_ticks_slow(void); /* "extern": not on x86 */
static inline uint64_t merino__prof_ticks(void) { return merino__prof_ticks_slow(); }
#endif

/* A strand longer than this many ticks (about 20 microseconds) may include time the thread spent
 * preempted, waiting for a processor: merino__prof_long takes that time out (the run delay of
 * /proc/thread-self/schedstat), so that the figures describe the program, not the machine's load. */
#define MERINO__PROF_LONG 50000u
MERINO__PROF_API uint64_t merino__prof_long(uint64_t ticks);

/* Ends the running strand: its length goes to the work and to both spans. */
static inline void merino__prof_strand(merino__prof_ctx *c) {
    uint64_t now = merino__prof_ticks();
    uint64_t d = now - c->mark;
    if (MERINO__UNLIKELY(d > MERINO__PROF_LONG)) {
        d = merino__prof_long(d);
        now = merino__prof_ticks(); /* the look is a system call: not the next strand's time */
    }
    c->mark = now;
    c->work += d;
    c->span += d;
    c->bspan += d;
}

static inline merino__prof_slot *merino__prof_slot_of(merino__worker *w, merino__task *t) {
    return w->prof_slots + (t - w->base);
}

/* At a spawn into t, before the store that lets a thief take it. */
static inline void merino__prof_spawn(merino__task *t) {
    merino__prof_ctx *c = &merino__prof_here;
    merino__prof_strand(c);
    merino__prof_slot *s = merino__prof_slot_of(merino__self, t);
    s->at_span = c->span;
    s->at_bspan = c->bspan;
}
#define MERINO__PROF_SPAWN(t) merino__prof_spawn(t)

/* Around a task run by its joiner: what the continuation reached, kept for the end. */
typedef struct merino__prof_mark {
    uint64_t span, bspan;
} merino__prof_mark;

static inline merino__prof_mark merino__prof_inline_begin(merino__task *t) {
    merino__prof_ctx *c = &merino__prof_here;
    merino__worker *w = merino__self;
    merino__prof_strand(c);
    merino__count(&w->prof_inlined);
    merino__prof_mark m = {c->span, c->bspan};
    merino__prof_slot *s = merino__prof_slot_of(w, t);
    c->span = s->at_span; /* the task's path starts where it was spawned */
    c->bspan = s->at_bspan + MERINO__PROF_BURDEN;
    return m;
}

static inline void merino__prof_inline_end(merino__prof_mark m) {
    merino__prof_ctx *c = &merino__prof_here;
    merino__prof_strand(c);
    if (c->span < m.span) c->span = m.span;
    if (c->bspan < m.bspan) c->bspan = m.bspan;
}

#define MERINO__PROF_INLINE(t, stmt)                                                               \
    do {                                                                                         \
        merino__prof_mark merino__pm = merino__prof_inline_begin(t);                              \
        stmt;                                                                                    \
        merino__prof_inline_end(merino__pm);                                                     \
    } while (0)
#define MERINO__PROF_JOIN_RUN(KIND, R, t, call) KIND##_PROF_RUN(R, t, call)
#define MERINO__RESULT_PROF_RUN(R, t, call)                                                        \
    merino__prof_mark merino__pm = merino__prof_inline_begin(t);                                  \
    R merino__pr = call;                                                                         \
    merino__prof_inline_end(merino__pm);                                                         \
    return merino__pr;
#define MERINO__VOID_PROF_RUN(R, t, call)                                                          \
    {                                                                                            \
        merino__prof_mark merino__pm = merino__prof_inline_begin(t);                              \
        call;                                                                                    \
        merino__prof_inline_end(merino__pm);                                                     \
        return;                                                                                  \
    }

#endif
