/* omp_layer.h — internal declarations of libmerino_omp, merino's OpenMP runtime: libgomp's ABI
 * (GOMP_*, omp_*) on merino's workers, direct task stack, task groups and idle policy. Never
 * included by users. docs/openmp.md describes the mapping; the names here are:
 *
 *   mo_task       a task's context (implicit or explicit), on the C stack of what runs the task
 *   mo_implicit   an implicit task: its context and the thread's worksharing state in its team
 *   mo_team       a parallel region's team: barrier, work-share ring, the roles of its threads
 *   mo_role       thread k of a team, offered to a worker (its mailbox) or given to a spare thread
 *   mo_ws         a work-share slot: one worksharing construct (loop, sections, single)
 *   mo_htask      a task object task: dependences, detach, large data (graph layer task groups)
 *
 * Files (a file calls only files below it in this list, and the core through layer.h):
 *   gomp_*.c      the ABI entry points, thin: parallel, loop, loop_ull, ordered, sections, single,
 *                 sync, task, taskloop, target, icv, fortran, alloc, misc
 *   team.c        regions: resolving the thread count, claiming roles, running them, their end
 *   loopsched.c   the loop schedules on iteration numbers (static, dynamic, guided, steal, auto)
 *   work.c        the work-share ring
 *   task.c        direct-stack tasks, taskwait, taskgroups; heap.c: task object tasks, depend
 *   wait.c        the waits of a team: barriers, the end of a region, the spare-thread fallback
 *   thread.c      per-thread state, the pool, mailboxes and the layer's work source, spares
 *   env.c         the OMP_* environment and the ICVs' defaults
 * All identifiers are hidden (-fvisibility=hidden); MO_ABI marks the exported entry points. */
#ifndef MERINO_OMP_LAYER_H
#define MERINO_OMP_LAYER_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include "merino.h"
#include "merino/internal/layer.h"
#include "merino_alloc.h"
#include "merino_graph.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MO_ABI __attribute__((visibility("default")))
#define MO_LIKELY(x) __builtin_expect(!!(x), 1)
#define MO_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define MO_LINE 64

/* ---- tuning: each value with why ------------------------------------------------------------------ */

/* Work-share slots per team: threads may run this many worksharing constructs ahead of the
 * slowest one (nowait loops) before they wait for it to leave the oldest slot. */
#define MO_WS_RING 8
/* A task with more direct-stack children pending than this puts further children in task
 * objects: a producer loop (`single` creating thousands of tasks without taskwait) would fill
 * the direct stack, whose descriptors come back only at the join; task objects' deques count
 * only tasks not yet started. Recursive task trees stay far below it. */
#define MO_DIRECT_CHILDREN 256
/* Bytes of a task's data that fit in a direct-stack descriptor: the payload (112) less the
 * header (function, parent context, taskgroup; 32 bytes, so the data is 16-byte aligned). */
#define MO_DIRECT_DATA (MERINO_TASK_PAYLOAD - 32)
/* A role offered to a worker that has not started it after this long is given to a spare thread
 * by whoever waits for it: the worker may be busy in work that waits for this very region. A
 * worker that was asleep when the role was offered is waking up and will come (under load that
 * can take a while): it gets the longer patience, so that thread k stays on the same OS thread
 * (threadprivate data persists) unless it really is busy. */
#define MO_ROLE_PATIENCE_NS (2 * 1000000ull)
#define MO_ROLE_PATIENCE_ASLEEP_NS (200 * 1000000ull)
/* A role offered to its home (the pool thread that played it in the encountering thread's last
 * region: threadprivate data persists only there) is revoked only when that worker has run other
 * work for MO_ROLE_PATIENCE_NS of CPU time since the role's patience ran out (it is busy: a
 * descheduled worker uses none and will come), or when it has waited this long and the worker
 * is not runnable (blocked in other work, such as a system call: it must not hold the region for
 * ever; a runnable worker on a loaded machine may wait for a CPU that long, and is waited for). */
#define MO_ROLE_PATIENCE_HOME_NS (200 * 1000000ull)
/* A worker whose idle loop polled the layer within this long counts as idle when a region is
 * sized from the idle workers (a region entered from merino work, or dyn-var true). */
#define MO_IDLE_FRESH_NS (50 * 1000ull)

/* GOMP_task's and GOMP_taskloop's flags (GCC's gomp-constants.h). */
enum {
    MO_TASK_FLAG_UNTIED = 1 << 0,
    MO_TASK_FLAG_FINAL = 1 << 1,
    MO_TASK_FLAG_MERGEABLE = 1 << 2,
    MO_TASK_FLAG_DEPEND = 1 << 3,
    MO_TASK_FLAG_PRIORITY = 1 << 4,
    MO_TASK_FLAG_UP = 1 << 8,
    MO_TASK_FLAG_GRAINSIZE = 1 << 9,
    MO_TASK_FLAG_IF = 1 << 10,
    MO_TASK_FLAG_NOGROUP = 1 << 11,
    MO_TASK_FLAG_REDUCTION = 1 << 12,
    MO_TASK_FLAG_DETACH = 1 << 13,
    MO_TASK_FLAG_STRICT = 1 << 14,
};

/* GOMP_cancel's and GOMP_cancellation_point's `which`, and mo_team.cancelled's bits. */
enum { MO_CANCEL_PARALLEL = 1, MO_CANCEL_LOOP = 2, MO_CANCEL_SECTIONS = 4, MO_CANCEL_TASKGROUP = 8 };

/* ---- ICVs ------------------------------------------------------------------------------------------ */

/* Scheduling kinds: OpenMP's omp_sched_t (1..4 and the monotonic flag) and merino's own, which
 * OMP_SCHEDULE and omp_set_schedule also accept (docs/openmp.md). */
enum {
    MO_SCHED_STATIC = 1,
    MO_SCHED_DYNAMIC = 2,
    MO_SCHED_GUIDED = 3,
    MO_SCHED_AUTO = 4,  /* merino's adaptive schedule (loopsched.c) */
    MO_SCHED_STEAL = 5, /* merino: range stealing with fixed chunks */
    MO_SCHED_MONOTONIC = (int)0x80000000u,
};

typedef struct mo_icv {
    uint32_t nthreads;        /* nthreads-var for this level (first list element) */
    uint32_t nthreads_pos;    /* its position in OMP_NUM_THREADS's list (env.c); past the end:
                                 no list (omp_set_num_threads, or a single value) */
    uint32_t bind;            /* bind-var for this level (omp_proc_bind_t) */
    uint32_t bind_pos;        /* its position in OMP_PROC_BIND's list */
    uint32_t thread_limit;    /* thread-limit-var */
    uint32_t max_active_levels;
    int32_t dyn;              /* dyn-var */
    int32_t run_sched;        /* run-sched-var: an MO_SCHED_* kind, possibly | MONOTONIC */
    int64_t run_chunk;        /* and its chunk (0: the schedule's default) */
    int32_t default_device;
    uint32_t nteams;          /* nteams-var (omp_set_num_teams) */
    uint32_t teams_thread_limit;
    uintptr_t def_allocator;  /* def-allocator-var */
} mo_icv;

/* ---- tasks ----------------------------------------------------------------------------------------- */

typedef struct mo_team mo_team;
typedef struct mo_task mo_task;
typedef struct mo_heap mo_heap;
typedef struct mo_implicit mo_implicit;
typedef struct mo_taskgroup mo_taskgroup;

enum {
    MO_T_IMPLICIT = 1u << 0, /* an implicit task (a region's thread, or the initial task) */
    MO_T_FINAL = 1u << 1,    /* a final task: its children are included (run at once) */
    MO_T_ICV_OWN = 1u << 2,  /* icv points to a block this task allocated (freed at its end) */
    MO_T_ICV_SHARED = 1u << 3, /* a child may point to icv: a change must copy it first */
    MO_T_UNDEFERRED = 1u << 4,
    MO_T_FOREIGN = 1u << 5,  /* run by a thread outside its team (it stole it): tnum is borrowed */
};

/* A task's context. Lives on the C stack of the function running the task; mo_cur points to the
 * innermost one of the thread. */
struct mo_task {
    mo_team *team;            /* the binding team; NULL for the initial task (no region) */
    const mo_icv *icv;        /* the ICVs of its data environment (immutable while shared) */
    mo_taskgroup *taskgroup;  /* the innermost taskgroup region of this task */
    merino__task *frame;      /* on a worker: where this task's direct-stack children begin */
    mo_implicit *imp;         /* the thread's implicit task in team (worksharing); NULL in an
                                 explicit task (worksharing there runs as a team of one) */
    mo_heap *heap;            /* task object children and the dependence table, made on demand */
    mo_task *parent;          /* the generating task (for the initial task: NULL) */
    uint32_t tnum;            /* the executing thread's number in team */
    uint32_t flags;           /* MO_T_* */
};

/* The header of a direct-stack task's payload; the data block follows at 32 bytes. */
typedef struct mo_direct {
    void (*fn)(void *);
    mo_task *parent;
    mo_taskgroup *taskgroup;
    uint64_t unused;
    unsigned char data[MO_DIRECT_DATA] __attribute__((aligned(16)));
} mo_direct;
_Static_assert(sizeof(mo_direct) == MERINO_TASK_PAYLOAD, "the direct header fills the payload");

struct mo_taskgroup {
    mo_taskgroup *prev;
    merino__task *mark;       /* merino__next when the taskgroup began (joined down to it) */
    uint32_t pending;         /* atomic: task objects of this taskgroup not complete */
    uint32_t cancelled;       /* atomic: GOMP_cancel(taskgroup) */
    uintptr_t *reductions;    /* task reductions registered in it (or inherited), reduce.c */
    bool workshare;           /* made by a worksharing construct with task reductions */
};

/* A taskloop task's iterations, written into the first two words of its data after the copy
 * (long or unsigned long long: 8 bytes each on the targets merino supports). */
typedef struct mo_iters {
    uint64_t lo, hi;
} mo_iters;

/* ---- threads and teams ----------------------------------------------------------------------------- */

/* Thread k (1..N-1) of a team. state: OFFERED (in a worker's mailbox), STARTED, SPARE (given to
 * a spare thread), REVOKED (its worker cannot take it now: give it to a spare at once). */
enum { MO_ROLE_OFFERED = 1, MO_ROLE_STARTED, MO_ROLE_SPARE, MO_ROLE_REVOKED };
typedef struct mo_spare mo_spare;
typedef struct mo_role {
    mo_team *team;
    uint32_t tnum;
    uint32_t state;           /* atomic: MO_ROLE_* */
    int32_t worker;           /* the worker it was offered to, or -1 */
    uint32_t home;            /* atomic: offered to its home worker (MO_ROLE_PATIENCE_HOME_NS) */
    uint64_t offered_ns;
    uint64_t cpu_base;        /* atomic: its worker's CPU time when the patience ran out, +1 (0: not yet) */
    mo_spare *spare;          /* the spare that played it (set before the spare starts) */
} __attribute__((aligned(MO_LINE))) mo_role;

/* Where thread k of an encountering thread's top-level regions ran last: a pool thread (worker
 * > 0) or a spare; neither: no region yet. The next region offers thread k there first and waits
 * for it (team.c), as threadprivate persistence needs. */
typedef struct mo_home {
    int32_t worker;
    mo_spare *spare;
} mo_home;

/* A work-share slot (work.c): the state of one worksharing construct, shared by the team. */
typedef struct mo_ws {
    /* Ring protocol (work.c): the construct number that may use the slot next, the last one
     * that claimed it, the last one whose set-up is done, and the threads done with it. */
    _Alignas(MO_LINE) uint64_t free_for; /* atomic */
    uint64_t claimed;                    /* atomic */
    uint64_t ready;                      /* atomic */
    uint32_t left;                       /* atomic */
    /* The construct (set up by the first thread to arrive). */
    int kind;             /* schedule of a loop (MO_SCHED_*), or 0 */
    uint64_t n;           /* iterations */
    uint64_t chunk;       /* iterations per chunk (0: the schedule's default) */
    uint64_t start, step, end; /* iteration i has the value start + i * step (up) or start -
                                  i * step (down), in 64-bit wrapping arithmetic; end: the bound */
    bool up;
    bool ordered;
    uint32_t nthreads;
    _Alignas(MO_LINE) uint64_t next;     /* atomic: dynamic/guided: the next iteration */
    _Alignas(MO_LINE) uint64_t ord_turn; /* atomic: ordered: the chunk whose ordered part may run */
    void *copyprivate;                   /* single copyprivate's data (published by next = 1) */
    struct mo_range *ranges;             /* steal/auto: one range per thread (loopsched.c) */
    uint64_t *doacross;                  /* doacross: per outer iteration, inner ones posted + 1 */
    uint64_t doacross_inner;             /* doacross: iterations of the inner dimensions */
    uint64_t *doacross_counts;           /* and the counts of each dimension */
    uint32_t doacross_ndims;
    uintptr_t *task_reductions;          /* the first thread's reductions (worksharing tasks) */
    void *mem;                           /* GOMP_loop_start's mem block (lastprivate conditional) */
    size_t mem_size;
    unsigned char inline_mem[128] __attribute__((aligned(16)));
} mo_ws;

struct mo_team {
    uint32_t nthreads;
    uint32_t level, active_level; /* nesting levels of its implicit tasks */
    mo_team *parent;
    uint32_t parent_tnum;         /* thread 0's number in the parent team */
    uint32_t place_count;
    mo_icv icv;                   /* the ICVs of its implicit tasks */
    void (*fn)(void *);
    void *data;
    uintptr_t *reductions;        /* GOMP_parallel_reductions: the team's task reductions */
    uint32_t cancelled;           /* atomic: MO_CANCEL_* bits of the constructs cancelled */
    uint32_t roles_pending;       /* atomic: roles offered and not started (wait.c checks them) */
    /* Task objects that only the team's threads may run (task reductions: reduce.c), in creation
     * order; drained by the team's waits (heap.c). */
    uint32_t tq_lock;             /* atomic spin lock */
    struct mo_htask *tq_head, *tq_tail;
    uint32_t tq_count;            /* atomic: tasks queued */
    /* The barrier: arrivals on their own line; the generation (a futex word) and its sleepers on
     * another, which every task creation of the team reads. */
    _Alignas(MO_LINE) uint32_t bar_count;
    _Alignas(MO_LINE) uint32_t bar_gen;
    uint32_t bar_sleepers;
    /* The end of the region: roles not finished; thread 0 sleeps on it (master_sleeps). */
    _Alignas(MO_LINE) uint32_t running;
    bool preset_ws;               /* the first work share was set up by a combined construct */
    uint32_t bind;                /* the binding of its threads (omp_proc_bind_t; 0: none) */
    uint64_t serial;              /* distinct for every team made (a freed team's address is not) */
    int32_t place0;               /* thread 0's place, when bound */
    mo_ws *ws;                    /* the ring of MO_WS_RING work-share slots (a team of one: a
                                     single slot, reused by each construct) */
    mo_role roles[];              /* nthreads entries; roles[0] is thread 0 (unused) */
};
/* Set in running by thread 0 when it sleeps until the last role ends (the last one wakes it). */
#define MO_RUNNING_SLEEP 0x80000000u

/* An implicit task: the context, and the thread's private state of worksharing in the team. */
struct mo_implicit {
    mo_task task;
    uint64_t ws_seq;           /* worksharing constructs this thread has met in the team */
    mo_ws *ws;                 /* the current one */
    uint64_t ws_num;           /* its construct number */
    /* The current loop's private state (loopsched.c). */
    uint64_t trip;             /* static: chunks taken */
    uint64_t chunk_lo, chunk_hi; /* ordered: the chunk being run (its turn passed on at the next) */
    bool have_chunk;
    uint64_t grain;            /* auto: the current chunk size */
    uint64_t chunk_start_ns;   /* auto: when the last chunk was handed out */
    mo_taskgroup tg;           /* a region with task reductions: the implicit task's taskgroup */
};

/* The thread's OpenMP state: the context of the task it runs now (NULL before its first
 * OpenMP call, and on a worker between tasks). */
extern __thread mo_task *mo_cur __attribute__((tls_model("initial-exec")));

/* ---- thread.c ---------------------------------------------------------------------------------------- */

/* The calling thread's current task, made (the initial task) on the first call. */
mo_task *mo_current_slow(void);
static inline mo_task *mo_current(void) {
    mo_task *c = mo_cur;
    return MO_LIKELY(c != NULL) ? c : mo_current_slow();
}
/* Whether the calling thread is one of merino's workers (it has a direct task stack). */
static inline bool mo_on_worker(void) { return merino__next != NULL; }
/* Starts merino's pool, sized from the environment and nthreads-var (env.c), unless it runs. */
void mo_pool_ensure(void);
/* Pool threads that may take a role (records 1..W-1). */
unsigned mo_pool_threads(void);
/* Offers role r to worker w (1..W-1): true if its mailbox was free. */
bool mo_offer(unsigned w, mo_role *r);
/* Empties worker w's mailbox of the revoked role r, once the worker no longer looks at r. */
void mo_withdraw_offer(unsigned w, mo_role *r);
/* Whether worker w polled the layer from its idle loop within MO_IDLE_FRESH_NS. */
bool mo_worker_idle(unsigned w, uint64_t now);
/* How long a role offered to worker w may wait for it (MO_ROLE_PATIENCE*): longer when the
 * worker's idle loop last went to sleep rather than on to other work. */
uint64_t mo_worker_patience(unsigned w);
/* Marks the calling worker busy as thread 0 of a region (its mailbox refuses offers) and back. */
void mo_mailbox_busy(bool busy);
/* Wakes the workers sleeping in merino's idle loop (they find their mailbox). */
void mo_wake_workers(void);
/* Gives role r to a spare thread (one of the layer's own, started if none is free). */
void mo_give_to_spare(mo_role *r);
/* Gives role r to spare s if s is free: true if it did. */
bool mo_give_to_spare_if_free(mo_role *r, mo_spare *s);
/* Worker w's CPU time in ns + 1, or 0 when it is not known (its idle loop never polled). */
uint64_t mo_worker_cpu_ns(unsigned w);
/* Whether worker w is runnable (running, or waiting for a CPU) rather than blocked; true when it
 * is not known. Reads /proc: for waits that are long already. */
bool mo_worker_runnable(unsigned w);
/* The calling thread's homes for roles 1..n-1 of its top-level regions (n entries, zeroed when
 * new), kept with its OpenMP state. */
mo_home *mo_thread_homes(unsigned n);
/* A small unique number for the calling thread (worker index, else W + a counter). */
unsigned mo_thread_id(void);

uint64_t mo_now_ns(void);
void mo_futex_wait(uint32_t *word, uint32_t expected);
void mo_futex_wait_ns(uint32_t *word, uint32_t expected, uint64_t ns);
void mo_futex_wake(uint32_t *word, int count);
/* One line "merino: ..." through merino's error channel; mo_fatal aborts. */
void mo_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), cold));
__attribute__((noreturn, cold, format(printf, 1, 2))) void mo_fatal(const char *fmt, ...);
/* An ABI entry this runtime does not provide: says so by name (once) and aborts. */
__attribute__((noreturn, cold)) void mo_unsupported(const char *name, const char *why);
static inline void mo_relax(void) { __builtin_ia32_pause(); }

/* ---- places.c ----------------------------------------------------------------------------------------- */

int mo_place_count(void);
/* The place holding all of the calling thread's CPUs, or -1 (not bound to one). */
int mo_place_of_thread(void);
/* The CPUs of a place (into ids when not NULL); 0 for a place that does not exist. */
int mo_place_procs(int place, int *ids);
/* Binding (policy: omp_proc_bind_t, not false): thread 0 on a place, returned; thread tnum of n
 * on its place for its role, and back to its own CPUs after it. */
int mo_bind_thread0(void);
void mo_bind_role(int policy, int place0, uint32_t tnum, uint32_t n);
void mo_unbind_role(void);

/* ---- env.c ------------------------------------------------------------------------------------------- */

typedef struct mo_env {
    mo_icv icv;               /* the initial task's ICVs */
    uint32_t nthreads_list[16];
    uint32_t nthreads_len;
    uint32_t bind_list[16];
    uint32_t bind_len;
    bool nthreads_set;        /* OMP_NUM_THREADS given (the pool is sized from it) */
    bool binding;             /* threads are bound to places: OMP_PROC_BIND not false, or OMP_PLACES
                                 given (as libgomp: without them proc_bind clauses bind nothing) */
    bool cancellation;        /* cancel-var */
    int32_t max_task_priority;
    size_t stacksize;         /* OMP_STACKSIZE / GOMP_STACKSIZE bytes, 0: unset */
    int wait_policy;          /* -1 unset, 0 passive, 1 active */
    bool display_env, display_verbose;
    char affinity_format[256];
    bool display_affinity;
} mo_env;
extern mo_env mo_g;
/* Whether cancellation is on: read at every cancellation point and task start. */
extern bool mo_cancel_on;
void mo_env_init(void);
void mo_display_env(bool verbose);
/* Parses a schedule as OMP_SCHEDULE accepts it; 0, or -1 (nothing set). */
int mo_parse_schedule(const char *text, int32_t *kind, int64_t *chunk);

/* ---- icv.c ------------------------------------------------------------------------------------------- */

/* A writable copy of the current task's ICVs (copied on the first write after a child shared them). */
mo_icv *mo_icv_write(mo_task *c);
/* The ICVs of a new team's implicit tasks (nthreads and bind lists advanced one level). */
void mo_icv_for_team(const mo_icv *from, mo_icv *to, uint32_t level);

/* ---- task.c ------------------------------------------------------------------------------------------ */

/* Waits for every child of c (direct-stack children joined LIFO, task objects waited for). */
void mo_wait_children(mo_task *c);
/* The end of a task: its children, then its own ICV block. */
void mo_task_end(mo_task *c);
/* Waits for the direct-stack children above mark (a taskgroup's), last in first out. */
void mo_join_down_to(merino__task *mark);
/* Sets up the context c of an explicit task of team (its ICVs, its taskgroup, its parent; its
 * children from frame) about to run on the calling thread, whose current task is `running`: a
 * thread of team runs it under its own number; any other (it stole the task) under the number
 * of the thread that created it, creator_tnum, and marked foreign. */
static inline void mo_task_init(mo_task *c, mo_team *team, const mo_icv *icv, mo_taskgroup *taskgroup,
                                mo_task *parent, merino__task *frame, const mo_task *running,
                                uint32_t creator_tnum, uint32_t flags) {
    bool member = running && running->team == team && !(running->flags & MO_T_FOREIGN);
    c->team = team;
    c->icv = icv;
    c->taskgroup = taskgroup;
    c->frame = frame;
    c->imp = NULL;
    c->heap = NULL;
    c->parent = parent;
    c->tnum = member ? running->tnum : creator_tnum;
    c->flags = flags | (member ? 0 : MO_T_FOREIGN);
}
/* Whether c may not start: its taskgroup or its team was cancelled (cancel.c). */
bool mo_task_cancelled(const mo_task *c);
/* A worksharing construct with task reductions: its taskgroup (task.c) and its reductions
 * registered — the first thread's data (orig NULL), or joined to them (reduce.c). */
void mo_workshare_taskgroup_start(mo_task *c);
void mo_workshare_taskgroup_end(mo_task *c);
void mo_workshare_reductions(mo_task *c, uintptr_t *data, uintptr_t *orig);
/* Runs fn(data) as an undeferred child of cur on this thread (if(0), final, not a worker). */
void mo_run_undeferred(mo_task *cur, void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                       long arg_size, long arg_align, unsigned flags, const mo_iters *iters);

/* ---- heap.c ------------------------------------------------------------------------------------------ */

/* GOMP_task's general path: a task object task (deferred), or undeferred with its dependences.
 * iters: a taskloop task's iterations, or NULL. */
void mo_task_general(mo_task *cur, void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                     long arg_size, long arg_align, bool if_clause, unsigned flags, void **depend,
                     int priority, void *detach, const mo_iters *iters);
/* A deferred task on the direct stack, when it may go there: true if it did. */
bool mo_task_direct(mo_task *cur, void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                    long arg_size, long arg_align, unsigned flags, const mo_iters *iters);
/* Waits for c's task object children. */
void mo_wait_heap(mo_task *c);
/* Runs one task of the team-only queue of t (the caller is one of t's threads): true if it did. */
bool mo_team_queue_run_one(mo_team *t);
/* Waits for the task objects of taskgroup g (made by c or its descendants). */
void mo_wait_taskgroup_heap(mo_task *c, mo_taskgroup *g);
/* Waits until the tasks the dependences `depend` (GOMP's format) name are complete. */
void mo_wait_depend(mo_task *c, void **depend);
/* Releases c's dependence table and heap state (at its end, after its children). */
void mo_heap_free(mo_task *c);

/* ---- wait.c ------------------------------------------------------------------------------------------ */

/* A barrier of imp's team (its children first). Returns true when the region was cancelled. */
bool mo_barrier(mo_implicit *imp);
/* The barrier a construct of task c meets: its team's, or outside a region its children. */
bool mo_task_barrier(mo_task *c);
/* Waits while *word == old, as a thread of team waits: steals tasks, backs off, sleeps on the
 * word (counting itself in *sleepers), and gives roles not started to spares. */
void mo_team_wait(mo_team *team, uint32_t *word, uint32_t old, uint32_t *sleepers);
/* A short wait for something another thread of the team is about to do (spin, yield; no
 * sleep): ordered, doacross, copyprivate. */
void mo_spin_wait_u64(mo_team *team, const uint64_t *word, uint64_t until, bool at_least);
/* Thread 0 at the end of its region: waits until every role has ended (running is 0). */
void mo_wait_team_end(mo_team *team);
/* Roles of team offered long ago and not started: give them to spares. */
void mo_check_roles(mo_team *team, uint64_t now);
/* The same, cheaply when no role is pending: every wait past its spins calls it, so that a team's
 * progress never depends on a worker busy elsewhere (or waiting for that team's own tasks). */
static inline void mo_maybe_check_roles(mo_team *t) {
    /* relaxed: a hint (a role started meanwhile is skipped by the CAS) */
    if (t && MO_UNLIKELY(__atomic_load_n(&t->roles_pending, __ATOMIC_RELAXED) != 0))
        mo_check_roles(t, mo_now_ns());
}
/* Wakes the team's threads sleeping at its barrier (a task was created). */
void mo_wake_barrier(mo_team *team);

/* ---- team.c ------------------------------------------------------------------------------------------ */

/* The implicit task of the calling thread in its innermost team, or NULL (explicit task, or no
 * region). */
static inline mo_implicit *mo_imp(mo_task *c) { return c->imp; }
/* Runs a parallel region of fn(data): num_threads from the clause (0: none), flags as GOMP's
 * (proc_bind in the low bits). pre, when given, sets up the team's first work share. */
unsigned mo_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags,
                     void (*pre)(mo_team *, void *), void *pre_arg, uintptr_t *reductions);
/* GOMP_parallel_start: the team runs, thread 0 returns to run fn itself, then GOMP_parallel_end. */
void mo_parallel_start(void (*fn)(void *), void *data, unsigned num_threads,
                       void (*pre)(mo_team *, void *), void *pre_arg);
void mo_parallel_end(void);
/* The role of a team's thread, on the calling thread: the implicit task; then mo_role_leave
 * tells thread 0 (the team may be freed from then on). */
void mo_implicit_run(mo_team *team, uint32_t tnum);
void mo_role_leave(mo_team *team);
/* OMP_DISPLAY_AFFINITY: thread tnum's line, when its team, number or place changed. */
void mo_affinity_display(const mo_team *team, uint32_t tnum);
/* misc.c: the affinity format expanded for the calling thread (NULL: OMP_AFFINITY_FORMAT). */
size_t mo_affinity_capture(char *buf, size_t size, const char *fmt);

/* ---- work.c ------------------------------------------------------------------------------------------ */

/* Enters the next worksharing construct of imp's team: returns true for the thread that must
 * set it up (then it calls mo_ws_ready), false for the others (its set-up is done). */
bool mo_ws_enter(mo_implicit *imp);
void mo_ws_ready(mo_implicit *imp);
/* Leaves the current construct (nowait). */
void mo_ws_leave(mo_implicit *imp);
/* A construct begins for the calling thread: with task reductions, in a taskgroup of its own
 * first; true for the thread that sets it up (then mo_ws_share publishes it). */
bool mo_ws_begin(mo_task *c, mo_implicit *imp, uintptr_t *reductions);
/* The set-up is done (first) or ready (the others): the task reductions registered (the first
 * thread's copies for all), GOMP's shared block handed out; the first thread publishes. */
void mo_ws_share(mo_task *c, mo_implicit *imp, bool first, uintptr_t *reductions, void **mem);
/* Frees what a slot allocated (ranges, doacross arrays, mem) when its team ends. */
void mo_ws_release(mo_ws *ws);
/* The implicit task whose worksharing state a construct uses: c's, or, outside any region (and
 * in explicit tasks, where worksharing is not allowed), the thread's own team of one. */
mo_implicit *mo_ws_imp(mo_task *c);

/* ---- loopsched.c ------------------------------------------------------------------------------------- */

/* Sets up the loop of ws: n iterations, schedule kind and chunk, for nthreads threads. */
void mo_loop_init(mo_ws *ws, uint64_t n, int kind, uint64_t chunk, uint32_t nthreads, bool ordered);
/* The calling thread's next chunk [lo, hi) of iteration numbers; false when none is left. */
bool mo_loop_next(mo_implicit *imp, uint64_t *lo, uint64_t *hi);
/* The kind and chunk a `schedule(runtime)` loop runs with (run-sched-var). */
void mo_runtime_schedule(const mo_task *c, int *kind, uint64_t *chunk);
/* Resets the calling thread's private state for the loop it has entered (imp->ws). */
void mo_loop_thread_start(mo_implicit *imp);
/* The calling thread is done with the loop: an ordered loop's turn passes on. */
void mo_loop_finish(mo_implicit *imp);
/* GOMP_ordered_start: waits until the ordered turn reaches the calling thread's chunk. */
void mo_ordered_start(mo_implicit *imp);

/* ---- reduce.c --------------------------------------------------------------------------------------- */

void mo_reduction_register(uintptr_t *data, uintptr_t *old, uintptr_t *orig, unsigned slots);
unsigned mo_reduction_slots(mo_team *team);

/* ---- the ABI entry points the layer also calls itself --------------------------------------------- */

void GOMP_barrier(void);
void GOMP_taskwait(void);
void GOMP_taskgroup_start(void);
void GOMP_taskgroup_end(void);
void GOMP_taskgroup_reduction_register(uintptr_t *data);

#endif
