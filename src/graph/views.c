/* views.c — reducer views in task groups (include/merino_reducer.h). In the serial program a
 * group's run(f) calls f at once, so the strand that runs and waits is cut at each run: its map
 * so far goes to the group ahead of the task (key 2 seq), each task object runs with a map of its
 * own (key 2 seq + 1), and the wait folds them in key order, then the strand's map since the last
 * run, into the strand's map. Task objects that share a number (the children a task object
 * spawns) fold in the order they finished: ordered only for reduce functions that commute. */
#include "graph/graph.h"

#include <stdlib.h>

typedef struct mrn_gview {
    uint64_t key;
    void *map;
} mrn_gview;

typedef struct mrn_gviews {
    uint32_t n, cap;
    mrn_gview e[];
} mrn_gviews;

/* Under the group's lock (the one of its failures: short, rare sections). */
static void mrn_group_views_add(merino_task_group *g, uint64_t key, void *map) {
    /* acquire: the list as the previous holder left it */
    while (__atomic_exchange_n(&g->merino__lock, 1, __ATOMIC_ACQUIRE)) mrn_cpu_relax();
    mrn_gviews *v = g->merino__views;
    if (!v || v->n == v->cap) {
        uint32_t cap = v ? 2 * v->cap : 8;
        mrn_gviews *w = realloc(v, sizeof *w + cap * sizeof w->e[0]);
        if (!w) mrn_fatal("out of memory for the reducer views of a task group");
        if (!v) w->n = 0;
        w->cap = cap;
        g->merino__views = v = w;
    }
    v->e[v->n++] = (mrn_gview){key, map};
    __atomic_store_n(&g->merino__lock, 0, __ATOMIC_RELEASE); /* release: the list, for the next holder */
}

void mrn_group_views_cut(merino_task_group *g, uint64_t seq) {
    void *m = merino__views;
    merino__views = NULL;
    mrn_group_views_add(g, 2 * seq, m);
}

void mrn_task_views_keep(merino_task *t, void *map) {
    if (t->merino__group)
        mrn_group_views_add(t->merino__group, 2 * t->merino__seq + 1, map);
    else
        merino__views = mrn_views_fold(merino__views, map); /* no group to order it: the strand's */
}

static int mrn_gview_cmp(const void *a, const void *b) {
    uint64_t x = ((const mrn_gview *)a)->key, y = ((const mrn_gview *)b)->key;
    return (x > y) - (x < y);
}

void mrn_group_views_wait(merino_task_group *g) {
    /* The tasks' additions come before their count's release decrement, which the wait acquired. */
    mrn_gviews *v = g->merino__views;
    if (MRN_LIKELY(v == NULL)) return;
    g->merino__views = NULL;
    qsort(v->e, v->n, sizeof v->e[0], mrn_gview_cmp);
    void *acc = NULL;
    for (uint32_t i = 0; i < v->n; i++) acc = mrn_views_fold(acc, v->e[i].map);
    merino__views = mrn_views_fold(acc, merino__views); /* then what the strand did since its last run */
    free(v);
}
