/* region.c — isolated regions and arenas: a worker's stack of regions, a region's call, and the
 * check that thieves and helping waits make before they run a piece of work (docs/isolation.md).
 * The API (merino_isolate, merino_arena_run) is isolate.c.
 *
 * A region is one call of merino_isolate or merino_arena_run (an mrn_region on its caller's C
 * stack, linked to the region the call was made in). Each worker keeps a stack of the regions it
 * is in, each with the position of its task stack where it began: a descriptor belongs to the
 * innermost region that began at or below it. Nothing is added to spawn or join: a thief, which
 * took a descriptor by its CAS, finds the descriptor's region on the victim's stack of regions,
 * and the task-object layer finds a task's from its group (src/graph). The rule, checked on the
 * steal and help paths only:
 *   - a worker in region s (it waits inside it: a join, a group's wait, a loop's end) runs only
 *     work of s or of a region nested in s; a worker in no region (idle) runs anything;
 *   - running work of region r, a worker takes a place in every arena on r's chain of regions that
 *     it does not hold already, and gives them back after; no place left: it does not run it.
 * Then it runs the work in r (its waits inside are isolated to r), and leaves r after.
 *
 * Why a thief may read the victim's entries (the graph layer's context frames use the same
 * argument): while the stolen descriptor t is not joined, the regions the victim was in when it
 * spawned t stay (each is a call that must join t before it returns), and their entries were
 * written before t was published (the steal's acquire orders them); every region entered since
 * began above t. Each store of the count is a release, so the count's acquire shows the entries
 * below it as of that store or newer, and a newer entry at an index below it began above t. So
 * the innermost entry at or below t, among those below the count, is t's region. */
#include "core/core.h"

#include "core/backoff.h"

__attribute__((noreturn, cold)) static void mrn_regions_overflow(void) {
    mrn_fatal("isolated regions nested more than %d deep on one worker (merino_isolate and "
              "merino_arena_run calls, and the work of other regions a waiting worker runs): "
              "nest them less deeply",
              MRN_REGIONS);
}

/* ---- a worker's stack of regions ---------------------------------------------------------------- */

static void mrn_region_push(mrn_worker *w, merino__task *pos, mrn_region *r) {
    uint32_t n = __atomic_load_n(&w->nregions, __ATOMIC_RELAXED); /* relaxed: the owner's */
    if (MRN_UNLIKELY(n == MRN_REGIONS)) mrn_regions_overflow();
    __atomic_store_n(&w->regions[n].pos, pos, __ATOMIC_RELAXED);  /* relaxed: published by the count */
    __atomic_store_n(&w->regions[n].region, r, __ATOMIC_RELAXED); /* relaxed: likewise */
    __atomic_store_n(&w->nregions, n + 1, __ATOMIC_RELEASE);      /* release: the entry, for thieves */
    w->region = r;
}

static void mrn_region_pop(mrn_worker *w, mrn_region *outer) {
    uint32_t n = __atomic_load_n(&w->nregions, __ATOMIC_RELAXED); /* relaxed: the owner's */
    /* release: a thief that reads this count must see the entries below it as of now (see above) */
    __atomic_store_n(&w->nregions, n - 1, __ATOMIC_RELEASE);
    w->region = outer;
}

mrn_region *mrn_region_of(mrn_worker *victim, merino__task *t) {
    uint32_t n = __atomic_load_n(&victim->nregions, __ATOMIC_ACQUIRE); /* acquire: the entries below n */
    while (n > 0) {
        n--;
        if (__atomic_load_n(&victim->regions[n].pos, __ATOMIC_RELAXED) <= t) /* relaxed: see above */
            return __atomic_load_n(&victim->regions[n].region, __ATOMIC_RELAXED); /* relaxed: likewise */
    }
    return NULL;
}

/* ---- arenas' places ------------------------------------------------------------------------------- */

/* Whether a is on the chain of regions from r up (a worker in r holds a place in it). */
static bool mrn_chain_has(const mrn_region *r, const merino_arena *a) {
    for (; r; r = r->parent)
        if (r->arena == a) return true;
    return false;
}

static bool mrn_arena_take(merino_arena *a) {
    /* relaxed: the count only bounds how many run the work; the work's data travels with the
     * tasks (their CAS and joins) */
    uint32_t n = __atomic_load_n(&a->merino__active, __ATOMIC_RELAXED);
    do {
        if (n >= a->merino__max) return false;
    } while (!__atomic_compare_exchange_n(&a->merino__active, &n, n + 1, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
    return true;
}

static void mrn_arena_give(merino_arena *a) {
    __atomic_fetch_sub(&a->merino__active, 1, __ATOMIC_RELAXED); /* relaxed: as mrn_arena_take */
}

/* The arenas a worker in region `from` must take to run work of r: those on r's chain below
 * `from` (r nested in from, or from NULL) that neither from's chain nor a region below them on r's
 * chain has (an arena run inside itself counts once). Calls each (give: every one of them up to
 * `upto`, exclusive). Returns the region where taking failed, or NULL. */
static mrn_region *mrn_arenas_take(mrn_region *r, mrn_region *from) {
    for (mrn_region *x = r; x != from; x = x->parent) {
        if (!x->arena || mrn_chain_has(x->parent, x->arena)) continue;
        if (!mrn_arena_take(x->arena)) return x;
    }
    return NULL;
}

static void mrn_arenas_give(mrn_region *r, mrn_region *from, mrn_region *upto) {
    for (mrn_region *x = r; x != from && x != upto; x = x->parent) {
        if (!x->arena || mrn_chain_has(x->parent, x->arena)) continue;
        mrn_arena_give(x->arena);
    }
}

/* ---- the check ------------------------------------------------------------------------------------ */

/* Whether r is s or nested in s. */
static bool mrn_nested_in(const mrn_region *r, const mrn_region *s) {
    for (; r; r = r->parent)
        if (r == s) return true;
    return false;
}

bool mrn_region_admit(mrn_worker *w, mrn_region *r, merino__task *top, bool *entered) {
    mrn_region *s = w->region;
    *entered = false;
    if (r == s) return true;
    if (s != NULL && !mrn_nested_in(r, s)) return false; /* isolation: not s's work */
    mrn_region *failed = mrn_arenas_take(r, s);
    if (MRN_UNLIKELY(failed != NULL)) {
        mrn_arenas_give(r, s, failed); /* undo the places taken below the full arena */
        return false;
    }
    mrn_region_push(w, top, r);
    /* relaxed: r is alive (the task we hold is its work, not done); the task's join orders this
     * before the call's wait for its guests */
    __atomic_fetch_add(&r->guests, 1, __ATOMIC_RELAXED);
    *entered = true;
    return true;
}

void mrn_region_leave(mrn_worker *w, mrn_region *outer) {
    mrn_region *r = w->region;
    mrn_region_pop(w, outer);
    mrn_arenas_give(r, outer, NULL);
    /* release: our last reads of r's chain and its arenas come before the call returns (and its
     * stack frame, or the arena, is reused); the task itself completed before this */
    __atomic_fetch_sub(&r->guests, 1, __ATOMIC_RELEASE);
}

/* ---- a region's call ------------------------------------------------------------------------------ */

void mrn_region_run(mrn_worker *w, const mrn_region_call *c) {
    mrn_region *outer = w->region;
    mrn_region r = {outer, c->arena};
    bool take = c->arena && !mrn_chain_has(outer, c->arena);
    if (take) {
        mrn_backoff b = {0};
        while (!mrn_arena_take(c->arena)) mrn_backoff_pause(&b); /* full: its runners leave soon */
    }
    mrn_region_push(w, merino__next, &r);
    c->fn(c->arg);
    mrn_region_pop(w, outer);
    /* acquire: a worker that ran work of r may still be leaving it (giving its arenas back, after
     * the work completed); r lives on this stack, so wait for the last one */
    mrn_backoff b = {0};
    while (__atomic_load_n(&r.guests, __ATOMIC_ACQUIRE) != 0) mrn_backoff_pause(&b);
    if (take) mrn_arena_give(c->arena);
}

