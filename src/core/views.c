/* views.c — the strands' reducer views, as the core sees them: one opaque map pointer per thread
 * (merino__views), a fresh one for each stolen task and each root task, and the hand-back of a
 * stolen task's map to its joiner through a slot beside the descriptor (mrn_worker.view_slots).
 * The maps and their folding are the reducer layer's (src/algo/reducer.c); the protocol and its
 * argument are in include/merino_reducer.h and modelled in tests/test_reducer_model.c.
 *
 * Nothing here runs on a spawn or an inline join: only around a steal, at a join whose task a
 * thief ran, and around a root task. A program that never uses a reducer has every map NULL and
 * pays a load and a compare at those places. */
#include "core/core.h"

MERINO_API __thread void *merino__views __attribute__((tls_model("initial-exec")));

static const merino__views_ops *mrn_views_ops; /* atomic: set once */
uint32_t mrn_views_on;

int merino__views_set_ops(const merino__views_ops *ops) {
    const merino__views_ops *none = NULL;
    /* release: the operations (static) before a joiner that reads the pointer calls them */
    if (__atomic_compare_exchange_n(&mrn_views_ops, &none, ops, false, __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {
        __atomic_store_n(&mrn_views_on, 1, __ATOMIC_RELAXED); /* relaxed: a hint; maps carry their own order */
        return 0;
    }
    return none == ops ? 0 : -1;
}

/* Set whenever a map exists: the first map is made after merino__views_set_ops. */
static const merino__views_ops *mrn_ops(void) {
    return __atomic_load_n(&mrn_views_ops, __ATOMIC_ACQUIRE); /* acquire: pairs with the set */
}

/* The thief's store into the slot comes before its release store of DONE (thief.c), and the
 * joiner reads it after its acquire of DONE (owner.c): the map and its views are visible. The
 * joiner clears the slot before the descriptor can be spawned into and stolen again. */
void mrn_views_leave(mrn_worker *victim, merino__task *t, void *saved) {
    void *m = merino__views;
    if (MRN_UNLIKELY(m != NULL))
        __atomic_store_n(&victim->view_slots[t - victim->pub.base], m, __ATOMIC_RELAXED); /* ordered by DONE */
    merino__views = saved;
}

void mrn_views_joined(mrn_worker *w, merino__task *t) {
    void **slot = &w->view_slots[t - w->pub.base];
    void *m = __atomic_load_n(slot, __ATOMIC_RELAXED); /* relaxed: after the acquire of DONE */
    if (MRN_LIKELY(m == NULL)) return;
    __atomic_store_n(slot, NULL, __ATOMIC_RELAXED); /* relaxed: before the next spawn's release */
    merino__views = mrn_ops()->fold(merino__views, m);
}

void *mrn_views_fold(void *left, void *right) {
    if (!right) return left;
    return mrn_ops()->fold(left, right);
}

void mrn_views_root_end(void *saved) {
    void *m = merino__views;
    if (MRN_UNLIKELY(m != NULL)) mrn_ops()->root_end(m);
    merino__views = saved;
}
