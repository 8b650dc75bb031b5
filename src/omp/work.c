/* work.c — the work-share ring: each worksharing construct of a team (loop, sections, single)
 * uses the next of MO_WS_RING slots, in the order the team meets them. The first thread to reach
 * construct s claims its slot and sets it up; the others wait until it is ready; the last to
 * leave frees the slot for construct s + MO_WS_RING. Threads may run ahead of the slowest one by
 * up to MO_WS_RING nowait constructs; one further waits for the slowest to leave that slot.
 *
 * Per slot, three counters (each only grows):
 *   free_for   the construct that may use the slot now (s, after s - RING has been left by all)
 *   claimed    s + 1 once a thread claimed construct s (the CAS that elects the one to set up)
 *   ready      s + 1 once construct s is set up
 * A team of one thread has a single slot, set up again by each construct. */
#include "omp/omp_layer.h"

#include <stdlib.h>
#include <string.h>

bool mo_ws_enter(mo_implicit *imp) {
    mo_team *t = imp->task.team;
    uint64_t s = imp->ws_seq++;
    imp->ws_num = s;
    if (t->nthreads == 1) { /* one slot, set up again by each construct */
        imp->ws = &t->ws[0];
        mo_ws_release(imp->ws);
        return true;
    }
    mo_ws *ws = &t->ws[s % MO_WS_RING];
    imp->ws = ws;
    /* acquire: the last leaver's release: the slot's previous construct is over */
    if (MO_UNLIKELY(__atomic_load_n(&ws->free_for, __ATOMIC_ACQUIRE) < s)) mo_spin_wait_u64(t, &ws->free_for, s, true);
    uint64_t c = __atomic_load_n(&ws->claimed, __ATOMIC_RELAXED); /* relaxed: the CAS decides */
    /* relaxed: the claim publishes nothing; the set-up is published by ready's release */
    if (c < s + 1 && __atomic_compare_exchange_n(&ws->claimed, &c, s + 1, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        return true;
    /* acquire: the set-up done by the claimer */
    if (__atomic_load_n(&ws->ready, __ATOMIC_ACQUIRE) < s + 1) mo_spin_wait_u64(t, &ws->ready, s + 1, true);
    return false;
}

void mo_ws_ready(mo_implicit *imp) {
    if (imp->task.team->nthreads == 1) return;
    __atomic_store_n(&imp->ws->ready, imp->ws_num + 1, __ATOMIC_RELEASE); /* release: the set-up */
}

/* ---- what a construct shares --------------------------------------------------------------------- */

/* GOMP_loop_start's mem block (lastprivate(conditional:), scan): bytes, zeroed, shared by the
 * team's threads; made by the thread that sets the construct up. */
static void *mo_ws_mem(mo_ws *ws, size_t size) {
    ws->mem_size = size;
    ws->mem = size <= sizeof ws->inline_mem ? (void *)ws->inline_mem : malloc(size);
    if (!ws->mem) mo_fatal("out of memory setting up a construct's shared block of %zu bytes", size);
    memset(ws->mem, 0, size);
    return ws->mem;
}

bool mo_ws_begin(mo_task *c, mo_implicit *imp, uintptr_t *reductions) {
    if (reductions) mo_workshare_taskgroup_start(c);
    return mo_ws_enter(imp);
}

void mo_ws_share(mo_task *c, mo_implicit *imp, bool first, uintptr_t *reductions, void **mem) {
    mo_ws *ws = imp->ws;
    if (first) {
        ws->task_reductions = reductions;
        if (reductions) mo_workshare_reductions(c, reductions, NULL);
        if (mem) *mem = mo_ws_mem(ws, (size_t)(uintptr_t)*mem);
        mo_ws_ready(imp);
    } else {
        if (reductions) mo_workshare_reductions(c, reductions, ws->task_reductions);
        if (mem) *mem = ws->mem;
    }
}

/* What a construct allocated for itself, freed when the slot is reused or the team ends. */
void mo_ws_release(mo_ws *ws) {
    free(ws->ranges);
    ws->ranges = NULL;
    free(ws->doacross);
    ws->doacross = NULL;
    free(ws->doacross_counts);
    ws->doacross_counts = NULL;
    if (ws->mem != ws->inline_mem) free(ws->mem);
    ws->mem = NULL;
}

void mo_ws_leave(mo_implicit *imp) {
    mo_team *t = imp->task.team;
    mo_ws *ws = imp->ws;
    if (ws == NULL) return;
    imp->ws = NULL;
    if (t->nthreads == 1) return;
    /* acq_rel: our use of the slot is over; the last leaver sees everyone's */
    if (__atomic_add_fetch(&ws->left, 1, __ATOMIC_ACQ_REL) == t->nthreads) {
        mo_ws_release(ws);
        __atomic_store_n(&ws->left, 0, __ATOMIC_RELAXED); /* ordered by the release below */
        /* release: the slot is free and clean for the construct RING later */
        __atomic_store_n(&ws->free_for, imp->ws_num + MO_WS_RING, __ATOMIC_RELEASE);
    }
}

/* ---- worksharing outside a region ---------------------------------------------------------------- */

/* An orphaned construct met outside any region runs as in a team of one thread (OpenMP): each
 * thread has one such team, made on first use. */
typedef struct mo_solo {
    mo_implicit imp;
    mo_ws slot;
    mo_team team; /* last: its flexible array of roles stays empty */
} mo_solo;

static __thread mo_solo *mo_solo_state __attribute__((tls_model("initial-exec")));

mo_implicit *mo_ws_imp(mo_task *c) {
    if (MO_LIKELY(c->imp != NULL)) return c->imp;
    mo_solo *s = mo_solo_state;
    if (MO_UNLIKELY(s == NULL)) {
        s = aligned_alloc(MO_LINE, (sizeof *s + MO_LINE - 1) & ~(size_t)(MO_LINE - 1));
        if (!s) mo_fatal("out of memory setting up a worksharing construct");
        memset(s, 0, sizeof *s);
        s->team.nthreads = 1;
        s->team.ws = &s->slot;
        s->imp.task.team = &s->team;
        s->imp.task.icv = c->icv;
        s->imp.task.imp = &s->imp;
        s->imp.task.flags = MO_T_IMPLICIT;
        mo_solo_state = s;
    }
    s->imp.task.icv = c->icv;
    return &s->imp;
}
