/* isolate.c — merino_isolate, merino_arena_init and merino_arena_run: checking the arguments and
 * entering the pool from a thread that is not a worker; the regions themselves are region.c. */
#include "core/core.h"

#include <string.h>

MERINO__WRAP_ATTR static void mrn_region_wrap(merino__task *top, merino__task *t) {
    (void)top;
    mrn_region_call c;
    memcpy(&c, t->payload, sizeof c);
    mrn_region_run(mrn_self(), &c);
}

/* Runs the call in its region on a worker: this thread if it is one, else entering the pool. */
static void mrn_region_call_on_worker(const mrn_region_call *c) {
    mrn_worker *w = mrn_self();
    if (w) {
        mrn_region_run(w, c);
        return;
    }
    merino__task d;
    memcpy(d.payload, c, sizeof *c);
    merino__run_external(&d, mrn_region_wrap);
}

void merino_isolate(void (*fn)(void *), void *arg) {
    if (fn == NULL) mrn_fatal("merino_isolate: the function is NULL: pass the function to run isolated");
    mrn_region_call c = {fn, arg, NULL};
    mrn_region_call_on_worker(&c);
}

int merino_arena_init(merino_arena *a, unsigned max_concurrency) {
    if (a == NULL) {
        mrn_error("merino_arena_init: the arena is NULL: pass the merino_arena to set up");
        return -1;
    }
    if (max_concurrency == 0 || max_concurrency > MERINO_MAX_WORKERS) {
        mrn_error("merino_arena_init: max_concurrency = %u is out of range: give 1 to %d workers",
                  max_concurrency, MERINO_MAX_WORKERS);
        return -1;
    }
    a->merino__max = max_concurrency;
    __atomic_store_n(&a->merino__active, 0, __ATOMIC_RELAXED); /* relaxed: published with the arena */
    return 0;
}

void merino_arena_run(merino_arena *a, void (*fn)(void *), void *arg) {
    if (a == NULL || fn == NULL)
        mrn_fatal("merino_arena_run: the %s is NULL: pass an arena set up by merino_arena_init and the "
                  "function to run in it",
                  a == NULL ? "arena" : "function");
    if (a->merino__max == 0 || a->merino__max > MERINO_MAX_WORKERS)
        mrn_fatal("merino_arena_run: the arena's limit is %u: set the arena up with merino_arena_init "
                  "(1 to %d workers) before running work in it",
                  a->merino__max, MERINO_MAX_WORKERS);
    mrn_region_call c = {fn, arg, a};
    mrn_region_call_on_worker(&c);
}
