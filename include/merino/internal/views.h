/* merino/internal/views.h — the core's hook for reducers (src/core/views.c): the calling strand's
 * map of views, which the reducer layer (src/algo/reducer.c, include/merino_reducer.h) makes and
 * folds. INTERNAL: not API; it changes with every minor release (0.x). Include <merino.h> first.
 *
 * The core keeps one pointer per thread, merino__views: the map of the strand running there, NULL
 * until a reducer is used in it. A thief runs the task it stole with NULL and hands the task's map
 * back to the joiner with the descriptor; the joiner folds it into its own (fold(left = its map,
 * right = the task's): the stolen task comes after the joiner's own part in serial order). A root
 * task (MERINO_RUN, merino::run, a fork_join from outside the pool) runs with NULL too, and its map
 * goes to root_end when it returns. The core never looks inside a map. */
#ifndef MERINO_INTERNAL_VIEWS_H
#define MERINO_INTERNAL_VIEWS_H

#ifndef MERINO_H
#error "include <merino.h> before merino/internal/views.h"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The calling strand's map of views, or NULL. */
extern MERINO_API __thread void *merino__views __attribute__((tls_model("initial-exec")));

typedef struct merino__views_ops {
    /* left (+)= right, right consumed; returns the merged map (left may be NULL). */
    void *(*fold)(void *left, void *right);
    /* A root task's map when it returns: fold each view into its reducer's own, free the map. */
    void (*root_end)(void *map);
} merino__views_ops;

/* Sets the maps' operations (once, before the first map is made; the same again is a no-op).
 * 0, or -1 when other operations are set. */
MERINO_API int merino__views_set_ops(const merino__views_ops *ops);

#ifdef __cplusplus
}
#endif

#endif
