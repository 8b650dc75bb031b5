/* team.c — parallel regions: how many threads a region gets (OpenMP's Algorithm 2.1 with the
 * pool as the thread limit of regions entered from merino work), the team and its roles (thread 0
 * is the encountering thread, in merino's caller slot when it is outside the pool; threads 1..N-1
 * are offered to pool threads, or played by spares), each thread's implicit task, and the end of
 * the region. docs/openmp.md, "(a) Assembling a team". */
#include "omp/omp_layer.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the thread count ------------------------------------------------------------------------------ */

/* The threads a region asks for (Algorithm 2.1, before the available workers are counted):
 * num_threads (0: none) or nthreads-var, capped by thread-limit-var; 1 when the region is nested
 * in max-active-levels active regions already. */
static unsigned mo_threads_asked(const mo_task *cur, unsigned num_threads) {
    unsigned active = cur->team ? cur->team->active_level : 0;
    if (active >= cur->icv->max_active_levels) return 1;
    unsigned n = num_threads ? num_threads : cur->icv->nthreads;
    if (n > cur->icv->thread_limit) n = cur->icv->thread_limit;
    return n < 1 ? 1 : n;
}

/* ---- teams ------------------------------------------------------------------------------------------ */

static mo_team *mo_team_new(unsigned n, const mo_task *cur) {
    size_t bytes = sizeof(mo_team) + n * sizeof(mo_role);
    size_t ws_off = (bytes + MO_LINE - 1) & ~(size_t)(MO_LINE - 1);
    bytes = ws_off + MO_WS_RING * sizeof(mo_ws);
    mo_team *t = merino_aligned_alloc(MO_LINE, bytes);
    if (!t) mo_fatal("out of memory making an OpenMP team of %u threads", n);
    memset(t, 0, bytes);
    static uint64_t serials;
    t->serial = __atomic_add_fetch(&serials, 1, __ATOMIC_RELAXED); /* relaxed: only distinct */
    t->nthreads = n;
    t->ws = (mo_ws *)((char *)t + ws_off);
    for (unsigned i = 0; i < MO_WS_RING; i++) t->ws[i].free_for = i;
    t->parent = cur->team;
    t->parent_tnum = cur->tnum;
    t->level = (cur->team ? cur->team->level : 0) + 1;
    t->active_level = (cur->team ? cur->team->active_level : 0) + (n > 1);
    mo_icv_for_team(cur->icv, &t->icv, t->level);
    t->running = n;
    for (unsigned k = 0; k < n; k++) { /* state 0: not offered */
        t->roles[k].team = t;
        t->roles[k].tnum = k;
        t->roles[k].worker = -1;
    }
    return t;
}

static void mo_team_free(mo_team *t) {
    for (unsigned i = 0; i < MO_WS_RING; i++) mo_ws_release(&t->ws[i]);
    merino_free(t);
}

/* ---- roles -------------------------------------------------------------------------------------------- */

/* Pool threads that may take a role of this region, for a region sized from the idle ones: each
 * one idle (its idle loop polled lately) and free. Marks them in `pick` (indexes 1..W-1). */
static unsigned mo_idle_workers(unsigned want, unsigned char *pick, unsigned w_count) {
    uint64_t now = mo_now_ns();
    int me = merino_worker_index();
    unsigned got = 0;
    for (unsigned w = 1; w < w_count && got < want; w++)
        if ((int)w != me && mo_worker_idle(w, now)) pick[w] = 1, got++;
    return got;
}

/* Offers role r to pool thread w (its home: waited for longer, wait.c). The role is OFFERED (with
 * its time) before the offer publishes it, since the worker starts it by a CAS from OFFERED; an
 * offer that fails (the mailbox was taken) takes it back with a CAS, unless a waiter of the team
 * revoked it meanwhile (then the waiter gives it to a spare: true, it is placed). */
static bool mo_offer_role(mo_team *t, mo_role *r, unsigned w, uint64_t now, bool home) {
    /* relaxed: all published by the offer's release CAS, or read by waiters as hints (the CAS on
     * state decides) */
    __atomic_store_n(&r->offered_ns, now, __ATOMIC_RELAXED);
    __atomic_store_n(&r->home, home, __ATOMIC_RELAXED);
    __atomic_store_n(&r->cpu_base, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&r->worker, (int32_t)w, __ATOMIC_RELAXED);
    __atomic_fetch_add(&t->roles_pending, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&r->state, MO_ROLE_OFFERED, __ATOMIC_RELAXED);
    if (mo_offer(w, r)) return true;
    uint32_t offered = MO_ROLE_OFFERED;
    /* relaxed: the role was never visible to a worker */
    if (!__atomic_compare_exchange_n(&r->state, &offered, 0, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        return true; /* revoked by a waiter, which gives it to a spare */
    __atomic_fetch_sub(&t->roles_pending, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&r->worker, -1, __ATOMIC_RELAXED);
    return false;
}

/* Gives role r to spare s, its home, if s is free: true if it did. */
static bool mo_role_to_home_spare(mo_role *r, mo_spare *s) {
    /* relaxed: the role is ours until given (nobody else knows it) */
    __atomic_store_n(&r->state, MO_ROLE_SPARE, __ATOMIC_RELAXED);
    if (mo_give_to_spare_if_free(r, s)) return true;
    __atomic_store_n(&r->state, 0, __ATOMIC_RELAXED);
    return false;
}

/* Offers the roles 1..N-1 of t: thread k to its home when `homes` is given and it has one (the
 * thread that played k in the last region: threadprivate data persists), else to pool thread k
 * when it is free (so that the first regions give thread k the same OS thread), then to any free
 * pool thread, then to spares — or, when `only` is given, to the pool threads it marks. */
static void mo_offer_roles(mo_team *t, const unsigned char *only, const mo_home *homes) {
    /* pool threads over merino's live CPU budget sleep (parked): none of them gets a role */
    unsigned n = t->nthreads, w_count = merino_workers_active();
    int me = merino_worker_index();
    uint64_t now = mo_now_ns();
    bool offered = false;
    bool placed[n];
    memset(placed, 0, sizeof placed);
    for (unsigned k = 1; k < n; k++) { /* first pass: thread k at home, or on pool thread k */
        mo_home h = homes ? homes[k] : (mo_home){0, NULL};
        if (h.spare) {
            placed[k] = mo_role_to_home_spare(&t->roles[k], h.spare);
            continue;
        }
        unsigned w = h.worker > 0 ? (unsigned)h.worker : k;
        if (w < w_count && (int)w != me && (!only || only[w]))
            offered |= placed[k] = mo_offer_role(t, &t->roles[k], w, now, h.worker > 0);
    }
    unsigned w = 1;
    for (unsigned k = 1; k < n; k++) {
        for (; !placed[k] && w < w_count; w++)
            if ((int)w != me && (!only || only[w])) offered |= placed[k] = mo_offer_role(t, &t->roles[k], w, now, false);
        if (!placed[k]) { /* no worker: a spare (nobody else knows this role) */
            __atomic_store_n(&t->roles[k].state, MO_ROLE_SPARE, __ATOMIC_RELAXED); /* relaxed: ours */
            mo_give_to_spare(&t->roles[k]);
        }
    }
    if (offered) mo_wake_workers();
}

/* ---- the implicit tasks ----------------------------------------------------------------------------- */

static void mo_implicit_init(mo_implicit *imp, mo_team *t, uint32_t tnum, mo_task *parent) {
    memset(imp, 0, sizeof *imp);
    imp->task.team = t;
    imp->task.icv = &t->icv;
    imp->task.frame = merino__next;
    imp->task.imp = imp;
    imp->task.parent = parent;
    imp->task.tnum = tnum;
    imp->task.flags = MO_T_IMPLICIT;
    if (t->reductions) { /* parallel reduction(task, ...): each implicit task is in a taskgroup */
        imp->tg.reductions = t->reductions;
        imp->tg.mark = imp->task.frame;
        imp->task.taskgroup = &imp->tg;
    }
    if (t->preset_ws) { /* a combined construct: the first work share is set up already */
        imp->ws = &t->ws[0];
        imp->ws_num = 0;
        imp->ws_seq = 1;
        mo_loop_thread_start(imp);
    }
}

/* OMP_DISPLAY_AFFINITY: a line for each thread of a region whose team, number or place changed
 * since its last one (as libgomp). */
void mo_affinity_display(const mo_team *t, uint32_t tnum) {
    static __thread uint64_t last;
    uint64_t key = ((uint64_t)t->level << 48) ^ ((uint64_t)t->nthreads << 24) ^ tnum ^ ((uint64_t)(uint32_t)mo_place_of_thread() << 32);
    if (key == last) return;
    last = key;
    char line[1024];
    size_t n = mo_affinity_capture(line, sizeof line, NULL);
    fprintf(stderr, "%.*s\n", (int)(n < sizeof line ? n : sizeof line - 1), line);
}

/* Thread tnum (1..N-1) of team t: its implicit task, on the calling thread. mo_role_leave then
 * tells thread 0 it is over: the caller frees what it holds of the role first (a worker's
 * mailbox, a spare's place in the free list), so that the next region can give thread tnum the
 * same OS thread. */
void mo_implicit_run(mo_team *t, uint32_t tnum) {
    mo_implicit imp;
    mo_implicit_init(&imp, t, tnum, NULL);
    if (t->bind) mo_bind_role((int)t->bind, t->place0, tnum, t->nthreads);
    mo_task *prev = mo_cur;
    mo_cur = &imp.task;
    if (MO_UNLIKELY(mo_g.display_affinity)) mo_affinity_display(t, tnum);
    t->fn(t->data);
    mo_task_end(&imp.task);
    mo_cur = prev;
    if (t->bind) mo_unbind_role();
}

/* After the region (every role over): where each thread of the team ran, for the next region. */
static void mo_homes_record(const mo_team *t, mo_home *homes) {
    for (unsigned k = 1; k < t->nthreads; k++) {
        const mo_role *r = &t->roles[k];
        /* relaxed: the roles' ends (acquired by thread 0's wait) order their last writes */
        bool spare = __atomic_load_n(&r->state, __ATOMIC_RELAXED) == MO_ROLE_SPARE;
        homes[k] = spare ? (mo_home){0, r->spare} : (mo_home){__atomic_load_n(&r->worker, __ATOMIC_RELAXED), NULL};
    }
}

void mo_role_leave(mo_team *t) {
    /* The last access to t: thread 0 frees it once running is 0 (acquire). release: our work is
     * done; the sleep bit says thread 0 sleeps, and only the last one wakes it (a wake on a word
     * freed meanwhile is harmless: futex waiters re-check their word). */
    uint32_t was = __atomic_fetch_sub(&t->running, 1, __ATOMIC_ACQ_REL);
    if (was == (MO_RUNNING_SLEEP | 1)) mo_futex_wake(&t->running, 1);
}

/* Thread 0's part of a region: offers the roles, runs its implicit task, waits for the others. */
static void mo_region_thread0(mo_team *t, mo_task *cur, const unsigned char *only, mo_home *homes) {
    bool worker = mo_on_worker();
    if (worker) mo_mailbox_busy(true);
    if (t->bind) t->place0 = mo_bind_thread0(); /* before the roles, which place from it */
    mo_offer_roles(t, only, homes);
    mo_implicit imp;
    mo_implicit_init(&imp, t, 0, cur);
    mo_task *prev = mo_cur;
    mo_cur = &imp.task;
    if (MO_UNLIKELY(mo_g.display_affinity)) mo_affinity_display(t, 0);
    t->fn(t->data);
    mo_task_end(&imp.task);
    mo_cur = prev;
    mo_wait_team_end(t);
    if (homes) mo_homes_record(t, homes);
    if (worker) mo_mailbox_busy(false);
}

typedef struct mo_region_args {
    mo_team *team;
    mo_task *cur;
    const unsigned char *only;
    mo_home *homes;
} mo_region_args;

/* Run in merino's caller slot by merino__run_in_slot: thread 0 is now worker 0. */
static __attribute__((aligned(4), used)) void mo_region_wrap(merino__task *top, merino__task *d) {
    (void)top;
    mo_region_args *a = *(mo_region_args **)(void *)d->payload;
    mo_region_thread0(a->team, a->cur, a->only, a->homes);
}

/* A region of one thread: its implicit task runs here, with no team threads to wait for. */
static void mo_region_one(mo_task *cur, void (*fn)(void *), void *data, void (*pre)(mo_team *, void *),
                          void *pre_arg, uintptr_t *reductions, uint32_t bind) {
    mo_team t;
    mo_ws slot;
    memset(&t, 0, sizeof t);
    memset(&slot, 0, sizeof slot);
    t.ws = &slot;
    t.nthreads = 1;
    t.parent = cur->team;
    t.parent_tnum = cur->tnum;
    t.level = (cur->team ? cur->team->level : 0) + 1;
    t.active_level = cur->team ? cur->team->active_level : 0;
    mo_icv_for_team(cur->icv, &t.icv, t.level);
    t.fn = fn;
    t.data = data;
    t.reductions = reductions;
    if (reductions) mo_reduction_register(reductions, NULL, NULL, 1);
    if (pre) pre(&t, pre_arg);
    t.bind = bind;
    if (bind) t.place0 = mo_bind_thread0();
    mo_implicit imp;
    mo_implicit_init(&imp, &t, 0, cur);
    mo_task *prev = mo_cur;
    mo_cur = &imp.task;
    if (MO_UNLIKELY(mo_g.display_affinity)) mo_affinity_display(&t, 0);
    fn(data);
    mo_task_end(&imp.task);
    mo_cur = prev;
    mo_ws_release(&slot);
}

/* The homes of a region's roles, when threadprivate data must persist into it: a region that is
 * not nested, with dyn-var false, entered by a thread outside the pool (OpenMP's condition; a
 * region entered from merino work takes the idle workers instead). */
static mo_home *mo_region_homes(const mo_task *cur, unsigned n) {
    if (cur->team != NULL || cur->icv->dyn || mo_on_worker()) return NULL;
    return mo_thread_homes(n);
}

unsigned mo_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags,
                     void (*pre)(mo_team *, void *), void *pre_arg, uintptr_t *reductions) {
    mo_task *cur = mo_current();
    unsigned n = mo_threads_asked(cur, num_threads);
    /* the proc_bind clause (the flags' low bits), else bind-var (places.c) */
    uint32_t bind = !mo_g.binding ? 0 : (flags & 7) ? (flags & 7) : cur->icv->bind;
    if (n == 1) {
        mo_region_one(cur, fn, data, pre, pre_arg, reductions, bind);
        return 1;
    }
    mo_pool_ensure();
    /* A region entered from merino work (a worker outside any region) or with dyn-var true gets
     * the workers idle now and no spare: the pool is the limit (docs/openmp.md, (a)). */
    unsigned char pick[MERINO_MAX_WORKERS];
    const unsigned char *only = NULL;
    if (cur->icv->dyn || (mo_on_worker() && cur->team == NULL)) {
        unsigned w_count = mo_pool_threads();
        memset(pick, 0, w_count);
        n = 1 + mo_idle_workers(n - 1, pick, w_count);
        only = pick;
        if (n == 1) {
            mo_region_one(cur, fn, data, pre, pre_arg, reductions, bind);
            return 1;
        }
    }
    mo_team *t = mo_team_new(n, cur);
    t->fn = fn;
    t->data = data;
    t->bind = bind;
    t->reductions = reductions;
    if (reductions) mo_reduction_register(reductions, NULL, NULL, n);
    if (pre) pre(t, pre_arg);
    mo_region_args a = {t, cur, only, mo_region_homes(cur, n)};
    bool ran = false;
    if (!mo_on_worker()) {
        merino__task d;
        *(mo_region_args **)(void *)d.payload = &a;
        ran = merino__run_in_slot(&d, mo_region_wrap) != 0;
    }
    if (!ran) mo_region_thread0(t, cur, only, a.homes); /* a worker already, or the slot is taken */
    mo_team_free(t);
    return n;
}

/* ---- GOMP_parallel_start / GOMP_parallel_end (GCC before 4.9) ------------------------------------------ */

/* Thread 0 runs the region's function itself between the two calls, outside any wrapper of ours:
 * its state is kept in the team, and it does not enter the caller slot (its tasks run at once
 * unless it is a worker already). */
typedef struct mo_open_region {
    mo_team *team;
    mo_home *homes;
    mo_implicit imp;
    mo_task *prev;
    bool worker;
    struct mo_open_region *outer;
} mo_open_region;

static __thread mo_open_region *mo_open;

void mo_parallel_start(void (*fn)(void *), void *data, unsigned num_threads,
                       void (*pre)(mo_team *, void *), void *pre_arg) {
    mo_task *cur = mo_current();
    unsigned n = mo_threads_asked(cur, num_threads);
    if (n > 1) mo_pool_ensure();
    mo_open_region *o = calloc(1, sizeof *o);
    if (!o) mo_fatal("out of memory entering an OpenMP parallel region");
    mo_team *t = mo_team_new(n, cur);
    t->fn = fn;
    t->data = data;
    t->bind = mo_g.binding ? cur->icv->bind : 0;
    if (pre) pre(t, pre_arg);
    o->team = t;
    o->worker = mo_on_worker();
    o->outer = mo_open;
    mo_open = o;
    if (o->worker) mo_mailbox_busy(true);
    if (t->bind) t->place0 = mo_bind_thread0();
    o->homes = n > 1 ? mo_region_homes(cur, n) : NULL;
    if (n > 1) mo_offer_roles(t, NULL, o->homes);
    mo_implicit_init(&o->imp, t, 0, cur);
    o->prev = mo_cur;
    mo_cur = &o->imp.task;
}

void mo_parallel_end(void) {
    mo_open_region *o = mo_open;
    if (!o) mo_fatal("GOMP_parallel_end without GOMP_parallel_start");
    mo_task_end(&o->imp.task);
    mo_cur = o->prev;
    mo_wait_team_end(o->team);
    if (o->homes) mo_homes_record(o->team, o->homes);
    if (o->worker) mo_mailbox_busy(false);
    mo_open = o->outer;
    mo_team_free(o->team);
    free(o);
}
