/* reduce.c — task reductions: `taskgroup task_reduction`, `in_reduction` tasks, taskloop and
 * worksharing `reduction(task, ...)`, `parallel reduction(task, ...)`.
 *
 * The compiler describes the reductions in an array (GCC's format):
 *   d[0] count   d[1] bytes per thread   d[2] alignment (the runtime replaces it by the copies)
 *   d[3] allocator   d[4] the next array (the runtime links the outer taskgroup's at the end)
 *   d[5], d[6] the runtime's (here: 1 on the first array of a registration; the copies' end)
 *   then per reduction: the original's address, its offset in a thread's block, the runtime's
 *   (the array it belongs to).
 * It gives each thread of the team a block of d[1] bytes (thread t's at d[2] + t * d[1]), zeroed,
 * and combines the team's blocks itself after the construct, for omp_get_num_threads() threads.
 * So a task that updates a private copy must run on a thread of the team: tasks created in a
 * taskgroup with reductions are never given to threads outside it (heap.c), and
 * GOMP_task_reduction_remap maps a reduction to the executing thread's block by its thread
 * number. */
#include "omp/omp_layer.h"

#include <stdlib.h>
#include <string.h>

void mo_reduction_register(uintptr_t *data, uintptr_t *old, uintptr_t *orig, unsigned slots) {
    uintptr_t *d = data;
    for (;;) {
        if (orig) { /* a worksharing construct's: the first thread's copies */
            d[2] = orig[2];
            d[6] = orig[6];
            orig = (uintptr_t *)orig[4];
        } else {
            size_t align = d[2] < sizeof(void *) ? sizeof(void *) : d[2];
            size_t bytes = d[1] * slots;
            size_t rounded = (bytes + align - 1) & ~(align - 1);
            void *p = aligned_alloc(align, rounded ? rounded : align);
            if (!p) mo_fatal("out of memory for the private copies of %zu task reductions", (size_t)d[0]);
            memset(p, 0, rounded);
            d[2] = (uintptr_t)p;
            d[6] = d[2] + bytes;
        }
        d[5] = d == data; /* the first array of this registration */
        for (uintptr_t j = 0; j < d[0]; j++) d[7 + 3 * j + 2] = (uintptr_t)d;
        if (d[4] == 0) {
            d[4] = (uintptr_t)old;
            break;
        }
        d = (uintptr_t *)d[4];
    }
}

MO_ABI void GOMP_taskgroup_reduction_register(uintptr_t *data) {
    mo_task *c = mo_current();
    if (c->taskgroup == NULL) GOMP_taskgroup_start(); /* an orphaned taskgroup_reduction: its own */
    unsigned slots = c->team ? c->team->nthreads : 1;
    mo_reduction_register(data, c->taskgroup->reductions, NULL, slots);
    c->taskgroup->reductions = data;
}

MO_ABI void GOMP_taskgroup_reduction_unregister(uintptr_t *data) {
    uintptr_t *d = data;
    do {
        free((void *)d[2]);
        d = (uintptr_t *)d[4];
    } while (d && !d[5]);
}

void mo_workshare_reductions(mo_task *c, uintptr_t *data, uintptr_t *orig) {
    mo_taskgroup *g = c->taskgroup;
    unsigned slots = c->team ? c->team->nthreads : 1;
    mo_reduction_register(data, g->reductions, orig, slots);
    g->reductions = data;
}

MO_ABI void GOMP_workshare_task_reduction_unregister(bool cancelled) {
    mo_task *c = mo_current();
    mo_taskgroup *g = c->taskgroup;
    uintptr_t *data = g ? g->reductions : NULL;
    mo_workshare_taskgroup_end(c);
    if (c->tnum == 0 && data) GOMP_taskgroup_reduction_unregister(data);
    if (!cancelled) GOMP_barrier();
}

/* The entry of a registered reduction whose original is at addr, or NULL. */
static uintptr_t *mo_find_original(uintptr_t *d, uintptr_t addr) {
    for (; d; d = (uintptr_t *)d[4])
        for (uintptr_t j = 0; j < d[0]; j++)
            if (d[7 + 3 * j] == addr) return &d[7 + 3 * j];
    return NULL;
}

MO_ABI void GOMP_task_reduction_remap(size_t cnt, size_t cntorig, void **ptrs) {
    mo_task *c = mo_current();
    uintptr_t *data = c->taskgroup ? c->taskgroup->reductions : NULL;
    if (data == NULL) mo_fatal("an in_reduction task runs outside any taskgroup with task reductions");
    uintptr_t slot = c->tnum;
    for (size_t i = 0; i < cnt; i++) {
        uintptr_t p = (uintptr_t)ptrs[i];
        uintptr_t *ent = mo_find_original(data, p);
        if (ent) {
            uintptr_t *d = (uintptr_t *)ent[2];
            ptrs[i] = (void *)(d[2] + slot * d[1] + ent[1]);
            if (i < cntorig) ptrs[cnt + i] = (void *)ent[0];
            continue;
        }
        /* a pointer into some thread's copies: the same offset in ours */
        uintptr_t *d = data;
        while (d && !(p >= d[2] && p < d[6])) d = (uintptr_t *)d[4];
        if (d == NULL)
            mo_fatal("couldn't find the task reduction of %p: an in_reduction names a variable no "
                     "enclosing taskgroup or construct reduces",
                     ptrs[i]);
        uintptr_t off = (p - d[2]) % d[1];
        ptrs[i] = (void *)(d[2] + slot * d[1] + off);
        if (i < cntorig) {
            for (uintptr_t j = 0; j < d[0]; j++)
                if (d[7 + 3 * j + 1] == off) ptrs[cnt + i] = (void *)d[7 + 3 * j];
        }
    }
}
