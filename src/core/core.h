/* core.h — internal declarations of merino's core: the worker record, the pool, the work-source
 * seam, and the functions the files of src/core share. Never included by users.
 *
 * Files, each calling only files further down this list (and src/sys):
 *   isolate.c  merino_isolate, merino_arena_init, merino_arena_run: the API of region.c
 *   enter.c    a thread outside the pool runs a task: in the caller slot, or handed over
 *   pool.c     merino_start / merino_stop, start on first use, stop at exit, fork
 *   worker.c   a pool thread: set-up, then the idle loop over the work sources
 *   sources.c  the ordered list of work sources, and the two of the core (handed-over tasks,
 *              task stacks)
 *   jobs.c     the stack of handed-over tasks
 *   views.c    the strands' reducer views: a fresh map per stolen task and per root task, handed
 *              back at the stolen join (the reducer layer, src/algo/reducer.c, owns the maps)
 *   owner.c    the owner's slow paths: publishing, public mode, the slow join, leapfrogging
 *   thief.c    one steal attempt, and the request for public tasks
 *   region.c   isolated regions and arenas: which worker may run which work, checked by thieves
 *              and helpers on their slow paths only
 *   sleep.c    sleeping workers and waking them; workers over the live CPU budget
 *   stats.c    merino_stats_get / merino_stats_reset (called by users only)
 *   config.c   settings from merino_config and the environment
 *   place.c    binding pool threads to CPUs
 *   state.c    the pool and the per-thread words (data only)
 *   backoff.h  the one back-off policy every wait uses
 *   prof_hooks.h  the profiler's hooks (src/prof), empty unless MERINO_PROFILE
 */
#ifndef MERINO_CORE_H
#define MERINO_CORE_H

#include "sys/sys.h"

#define MERINO__BUILDING 1 /* merino.h: the runtime reads its thread-local words with the builtin */
#include "merino.h"

#include "core/prof_hooks.h" /* the profiler's hooks: nothing in the default build */
#include "merino/internal/views.h"

#include <pthread.h>

/* ---- tuning: each value with why ---------------------------------------------------------------- */

/* Public mode (owner.c): after a thief's request, an owner spawns public until it has inlined this
 * many public tasks with no request in between. Larger keeps long-leaf work balanced between
 * workers of unequal speed; smaller keeps fine-grained work cheaper (each public task costs an
 * exchange at its join). Measured in docs/architecture.md, "Why public mode". */
#define MRN_PUBLIC_RUN 8
/* ... unless the last of those public tasks took longer than this: then spawns and joins are far
 * apart, a request made in private mode would wait about that long, and an exchange per task
 * costs nothing next to such tasks, so the owner stays public for another MRN_PUBLIC_RUN. */
#define MRN_PUBLIC_LONG_NS 1000
_Static_assert(MRN_PUBLIC_RUN >= 2, "public mode times its last two public joins");

/* Isolated regions one worker may be inside at once (nested isolate and arena runs, and the stolen
 * work of other regions it runs while it waits): beyond it the program stops with a message. */
#define MRN_REGIONS 128

/* ---- the worker record -------------------------------------------------------------------------- */

/* A worker: a pool thread's, or the caller slot that threads outside the pool occupy while they
 * run a task (enter.c). The inline-visible part first, then what thieves read, then what only the
 * owner touches. */
typedef struct mrn_worker {
    merino__worker pub; /* base, end, spawns */

    /* Read and written by thieves. bot is owned by whoever acquired the task it points to. */
    _Alignas(MRN_CACHE_LINE) merino__task *bot; /* atomic */
    uintptr_t *limit_p, *split_p; /* atomic: the occupying thread's merino__limit, merino__split */
    uint32_t occupied; /* atomic: a thread runs on this record (always, for a pool thread) */

    /* Owner only. */
    _Alignas(MRN_CACHE_LINE) merino__task *private_from; /* the owner's split (owner.c) */
    merino__task *floor;  /* where the running stolen or root task began: a join below it has no
                             spawn to match (owner.c reports it) */
    unsigned index;
    int cpu;              /* the CPU a pool thread binds itself to (place.c), or -1 */
    bool caller_slot;     /* occupied by threads that call in (enter.c), not a pool thread */
    unsigned public_left; /* public mode: public tasks to inline before spawning private again */
    bool wake_due;        /* caller slot: its region has made no work available yet (enter.c) */
    bool woke_next;       /* it passed a region's wake on for the work it took (mrn_pass_wake) */
    uint64_t public_mark; /* public mode: when the last public task of the run began (ns) */
    uint64_t steals, leapfrogs, publishes, privatizations; /* merino__count; stats.c */
    void **view_slots; /* atomic elements: one per descriptor, the views a thief hands back (views.c) */
    uint64_t rng;
    uint32_t asking;  /* atomic: this worker, as a thief, may be storing a request into the caller
                         slot's words (thief.c); read by a thread that leaves them for good */
    size_t map_bytes; /* the mapping that holds the task stack */
    uint32_t ready;   /* atomic: a pool thread has set up its thread-local words */
    pthread_t thread;

    /* Isolated regions (region.c): where on the task stack each region the worker is in began.
     * The owner pushes and pops; thieves read them for the descriptor they took. */
    _Alignas(MRN_CACHE_LINE) uint32_t nregions; /* atomic: entries in use */
    struct mrn_region *region;                  /* the innermost region (regions[nregions-1]), or NULL: owner only */
    struct mrn_region_entry {
        merino__task *pos;         /* atomic: merino__next when the region was entered */
        struct mrn_region *region; /* atomic: the region */
    } regions[MRN_REGIONS];
} mrn_worker;

static inline mrn_worker *mrn_self(void) { return (mrn_worker *)merino__self; }

/* ---- the pool ----------------------------------------------------------------------------------- */

/* A task handed to the pool by a thread that is not a worker and found the caller slot taken. */
typedef struct mrn_job {
    struct mrn_job *next;
    merino__task *task;
    merino__wrap_fn wrap;
    uint32_t done; /* atomic futex word: 0 running, 2 the submitter sleeps, 1 finished */
#if MERINO__PROFILE
    uint64_t prof_work, prof_span, prof_bspan; /* the submitter's spans; the runner's results */
#endif
} mrn_job;

/* The pool's settings, resolved from merino_config and the environment (config.c). */
typedef struct mrn_settings {
    unsigned workers;     /* worker records: the caller slot and workers - 1 pool threads */
    size_t stack_tasks;
    size_t c_stack_bytes; /* C stack of each pool thread */
    bool pin;             /* bind pool thread i to a CPU of the budget's mask (place.c) */
    mrn_cpu_budget budget;
    int first_cpu;        /* where the mask's CPUs are counted from: the starting thread's CPU */
    unsigned idle_spins;  /* the idle policy (backoff.h) */
    uint64_t idle_ns;
} mrn_settings;

typedef struct mrn_pool {
    mrn_worker **workers; /* [0]: the caller slot; [1..count-1]: pool threads */
    unsigned count;
    size_t stack_tasks;
    size_t c_stack_bytes;
    bool fence_requests;  /* no process-wide barrier (mrn_barrier_all): requests to the caller
                             slot fence themselves (thief.c) */

    _Alignas(MRN_CACHE_LINE) mrn_job *jobs; /* atomic: Treiber stack of handed-over tasks */
    _Alignas(MRN_CACHE_LINE) uint32_t active; /* atomic: tasks run from outside, not finished */
    uint32_t epoch;    /* atomic futex word: bumped when work arrives or on stop */
    uint32_t sleepers; /* atomic: workers asleep (or about to be) on epoch */
    uint32_t napping;  /* atomic: workers asleep in a helping wait (merino__help_nap) or parked
                          by the budget while a run is in flight (mrn_park) */
    uint32_t stopping; /* atomic: pool threads leave their loop */
    uint32_t left;     /* atomic: pool threads that have left their loop */

    /* The live CPU budget (sleep.c): pool threads with an index at or above `allowed` sleep. */
    _Alignas(MRN_CACHE_LINE) uint32_t allowed; /* atomic futex word: workers that may compete */
    uint32_t parked;        /* atomic: pool threads asleep because of it */
    uint64_t budget_due;    /* atomic: when the budget is next re-read (ns) */
    unsigned budget_start;  /* the usable CPUs at start */
    mrn_cpu_budget budget;  /* as read at start: where to re-read it from */
} mrn_pool;

extern mrn_pool mrn_the_pool;
extern uint32_t mrn_running;     /* atomic: 1 while a pool runs and takes new work */
extern uint32_t mrn_fork_orphan; /* atomic: set in the child of a fork made from a task */
/* atomic futex word: the caller slot is in use (enter.c). Outside mrn_the_pool, which merino_start
 * clears, because threads may try to take it while a pool is being started. */
extern uint32_t mrn_slot_taken;

/* ---- work sources ------------------------------------------------------------------------------- */

/* Where an idle worker looks for work, in order: the sources are asked one after the other, and the
 * first that runs something wins. The core's are the handed-over root tasks and the other workers'
 * task stacks; later layers (task objects, loops, MPI) add theirs with mrn_source_add. */
typedef struct mrn_source {
    const char *name;
    /* Finds one piece of work for w, runs it with its tasks from top on w's task stack (base in
     * the idle loop; above the live tasks in a helping wait, mrn_help_one) and returns true;
     * false when there is none. */
    bool (*run_one)(mrn_worker *w, merino__task *top);
    /* Whether work may be waiting or about to appear (seq_cst reads): a worker that would sleep
     * checks this after counting itself as a sleeper, and whoever makes such work available calls
     * mrn_wake_all after publishing it. NULL: never holds a worker awake. */
    bool (*pending)(void);
} mrn_source;

#define MRN_MAX_SOURCES 8
/* Appends a source (at start-up of a layer, before it has work). Returns -1 when full. */
int mrn_source_add(const mrn_source *s);
/* One round over the sources for w, running what it finds at top: true when one ran something. */
bool mrn_find_work(mrn_worker *w, merino__task *top);
/* The helping wait's step, for code that waits on a worker inside a task (merino__help_one,
 * include/merino/internal/layer.h): runs one piece of work above the caller's live tasks — the
 * oldest task of its own stack (owner.c, mrn_run_own_oldest), else one from the sources. */
bool mrn_help_one(mrn_worker *w);
/* Whether any source has work pending (see mrn_source.pending). */
bool mrn_work_pending(void);
void mrn_sources_init(void);

/* ---- the steal hook (for src/graph) ---------------------------------------------------------------- */

/* CORE HOOK (graph): called by a thief around each direct-stack task it steals (thief.c, the one
 * place stolen tasks run, idle or leapfrogging): enter(self, victim, t, top) before the task runs
 * at top, with t the victim's descriptor it took; leave(self, what enter returned) after. The graph
 * layer carries the context a task object gives the direct tasks it spawns (the group that a group
 * made in a stolen fork_join branch nests in). And waiting(self), called by a join that waits for
 * a thief (leapfrogging, owner.c) at each failed attempt: the graph layer makes the worker's
 * private task objects public, since whoever it waits for may need them. Set once, before any
 * task object runs; the spawn and join fast paths do not see it. */
typedef struct mrn_steal_hook {
    void *(*enter)(mrn_worker *self, mrn_worker *victim, merino__task *t, merino__task *top);
    void (*leave)(mrn_worker *self, void *saved);
    void (*waiting)(mrn_worker *self);
} mrn_steal_hook;
/* The hook set, or NULL. */
const mrn_steal_hook *mrn_steal_hook_get(void);
/* Sets the hook (once; a second, different hook is refused with -1). */
int mrn_steal_hook_set(const mrn_steal_hook *h);

/* ---- isolated regions (region.c) ------------------------------------------------------------------ */

/* A region: a merino_isolate or merino_arena_run call, on the C stack of its caller, alive while
 * the call runs (its work is all joined or waited for before it returns). */
typedef struct mrn_region {
    struct mrn_region *parent; /* the region the call was made in, or NULL */
    merino_arena *arena;       /* merino_arena_run's, or NULL (merino_isolate) */
    uint32_t guests;           /* atomic: workers admitted into it and not yet left (the call waits) */
} mrn_region;

/* The calling thread's innermost region, or NULL (no region, or not a worker). */
static inline mrn_region *mrn_region_here(void) {
    mrn_worker *w = mrn_self();
    return w ? w->region : NULL;
}
/* The region of victim's descriptor t, which the caller holds (took by CAS): the innermost region
 * victim entered at or below t, or NULL. */
mrn_region *mrn_region_of(mrn_worker *victim, merino__task *t);
/* Whether w may run work of region r now: w is in no region, or r is w's region or nested in it;
 * and each arena r is in but w is not has a place left. If so, w enters r at top (taking those
 * places) and *entered says whether mrn_region_leave must undo it. */
bool mrn_region_admit(mrn_worker *w, mrn_region *r, merino__task *top, bool *entered);
/* Leaves the region entered by mrn_region_admit, back to outer (w's region before). */
void mrn_region_leave(mrn_worker *w, mrn_region *outer);
/* The steal's check (thief.c): false when self may not run victim's descriptor t; else self is
 * in t's region, *entered as in mrn_region_admit. Only when a region exists on either side. */
static inline bool mrn_region_steal_ok(mrn_worker *self, mrn_worker *victim, merino__task *t, merino__task *top,
                                       bool *entered) {
    *entered = false;
    /* relaxed: a filter; mrn_region_of reads the entries with acquire (the count can only be
     * nonzero here if t lies in a region, or a region began above t since) */
    if (MRN_LIKELY(self->region == NULL && __atomic_load_n(&victim->nregions, __ATOMIC_RELAXED) == 0)) return true;
    return mrn_region_admit(self, mrn_region_of(victim, t), top, entered);
}

/* A call of merino_isolate (arena NULL) or merino_arena_run. */
typedef struct mrn_region_call {
    void (*fn)(void *);
    void *arg;
    merino_arena *arena;
} mrn_region_call;
/* Runs c->fn on w in a new region nested in w's; with an arena, first takes a place in it
 * (waiting for one) unless w holds one already. */
void mrn_region_run(mrn_worker *w, const mrn_region_call *c);
/* ---- strand views (views.c; CORE HOOK for src/algo/reducer.c) ---------------------------------- */

/* A stolen task, and a root task, runs with a map of views of its own (none until a reducer is
 * used): mrn_views_enter before it runs returns the runner's map, mrn_views_leave after hands the
 * task's map to the joiner through the descriptor's slot and puts the runner's back;
 * mrn_views_joined, at a join whose task a thief ran, folds that map into the joiner's. A root
 * task's map is folded into the reducers' own views at its end (mrn_views_root_end). */
static inline void *mrn_views_enter(void) {
    void *saved = merino__views;
    merino__views = NULL;
    return saved;
}
void mrn_views_leave(mrn_worker *victim, merino__task *t, void *saved);
void mrn_views_joined(mrn_worker *w, merino__task *t);
void mrn_views_root_end(void *saved);
/* left (+)= right with the reducer layer's fold (right consumed; either may be NULL): for the graph
 * layer, which folds its tasks' maps in serial order at a group's wait (src/graph/views.c). */
void *mrn_views_fold(void *left, void *right);
/* atomic: 1 once a reducer has been made (the maps' operations are set): task objects skip the
 * wrap of their views until then (src/graph/task.c) */
extern uint32_t mrn_views_on;
/* Bytes of the slots for a stack of stack_tasks descriptors (and the sentinel), mapped with it. */
static inline size_t mrn_view_slots_bytes(size_t stack_tasks) { return (stack_tasks + 1) * sizeof(void *); }

/* ---- shared functions --------------------------------------------------------------------------- */

/* thief.c */
bool mrn_steal(mrn_worker *self, mrn_worker *victim, merino__task *top);
mrn_worker *mrn_pick_victim(mrn_worker *self);
void mrn_wait_no_asking(mrn_pool *p);

/* jobs.c */
void mrn_push_job(mrn_job *job);
mrn_job *mrn_take_job(void);
void mrn_run_job(mrn_worker *w, mrn_job *job, merino__task *top);

/* owner.c */

/* A region run in the caller slot (enter.c) wakes a sleeping worker (which passes the wake on
 * when it takes work: mrn_pass_wake) at the first work it makes available — its first spawn (a
 * slow one: the region starts in public mode), or a task object queued or run — not at its
 * entry, so that a region that makes none wakes no one. */
void mrn_region_wake(mrn_worker *w);
static inline void mrn_wake_if_due(mrn_worker *w) {
    if (MRN_UNLIKELY(w->wake_due)) mrn_region_wake(w);
}
void mrn_enter_public(mrn_worker *w);
/* Runs the oldest unjoined task of w's own stack at top (the owner as its own thief), making its
 * private tasks public first; false when it has none left to take. */
bool mrn_run_own_oldest(mrn_worker *w, merino__task *top);

/* worker.c */
void *mrn_worker_main(void *arg);

/* sleep.c */
void mrn_wake_all(void);
void mrn_wake_one(void);
/* A worker that took work passes a region's wake on before it runs it, so that a long task does
 * not hold the next sleeper back (a load when none sleeps); the idle loop then wakes no one more. */
static inline void mrn_pass_wake(mrn_worker *w) {
    mrn_wake_one();
    w->woke_next = true;
}
void mrn_sleep(bool (*pending)(void));
void mrn_budget_init(mrn_pool *p, const mrn_cpu_budget *budget);
void mrn_budget_poll(mrn_pool *p, uint64_t now);
void mrn_park(mrn_pool *p, mrn_worker *w, bool (*pending)(void));
/* Whether worker w must stop competing: the budget shrank below its index (pool threads only). */
static inline bool mrn_over_budget(const mrn_pool *p, const mrn_worker *w) {
    return w->index >= __atomic_load_n(&p->allowed, __ATOMIC_RELAXED); /* relaxed: a hint, re-read in mrn_park */
}
/* Every worker that could spawn is asleep, in the idle loop or in a helping wait (seq_cst reads:
 * the sleeper's half of the pair in sleep.c). */
bool mrn_all_asleep(void);

/* place.c */
int mrn_worker_cpu(const mrn_settings *set, unsigned index);
void mrn_place_worker(const mrn_worker *w);

/* config.c */
int mrn_resolve_config(const merino_config *cfg, mrn_settings *out);

/* pool.c */
int mrn_start_default(void);
void mrn_with_pool_locked(void (*fn)(mrn_pool *p));

#endif
