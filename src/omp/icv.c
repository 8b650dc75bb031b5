/* icv.c — the omp_* routines of OpenMP 5.1 that read and set the ICVs, the team's shape, the
 * time and the places. The ICVs are a task's (copied when a task changes one that a child may
 * share); levels and ancestors come from the chain of teams; places are the CPUs of the
 * process's affinity mask, one place each, and a thread's place is its CPU when merino bound it
 * to one (pool threads are, unless MERINO_PIN=off or there are more workers than CPUs). */
#include "omp/omp_layer.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- ICV blocks ----------------------------------------------------------------------------------- */

mo_icv *mo_icv_write(mo_task *c) {
    if (c->flags & MO_T_ICV_OWN && !(c->flags & MO_T_ICV_SHARED)) return (mo_icv *)c->icv;
    /* The initial task's block is its thread's own (thread.c); nobody else points to it once
     * a region copied it, and a task made from it points to it only while the initial task
     * waits for it: it may be written when no child shares it. */
    if (c->parent == NULL && c->team == NULL && !(c->flags & MO_T_ICV_SHARED) && !(c->flags & MO_T_ICV_OWN))
        return (mo_icv *)c->icv;
    mo_icv *n = merino_malloc(sizeof *n);
    if (!n) mo_fatal("out of memory changing an OpenMP setting (ICV)");
    *n = *c->icv;
    if (c->flags & MO_T_ICV_OWN && !(c->flags & MO_T_ICV_SHARED)) merino_free((void *)c->icv);
    /* A block shared by a child stays with the child; it is freed at this task's end, after its
     * children (the old one is dropped here: leaked only in that case, once per change). */
    c->icv = n;
    c->flags = (c->flags | MO_T_ICV_OWN) & ~MO_T_ICV_SHARED;
    return n;
}

/* A list ICV one level down: the next element of the environment's list (pos past it: none). */
static void mo_list_next(uint32_t *value, uint32_t *pos, const uint32_t *list, uint32_t len) {
    if (*pos == UINT32_MAX) return;
    uint32_t p = *pos + 1;
    if (p < len) *value = list[p];
    *pos = p < len && p + 1 < len ? p : UINT32_MAX;
}

void mo_icv_for_team(const mo_icv *from, mo_icv *to, uint32_t level) {
    (void)level;
    *to = *from;
    mo_list_next(&to->nthreads, &to->nthreads_pos, mo_g.nthreads_list, mo_g.nthreads_len);
    mo_list_next(&to->bind, &to->bind_pos, mo_g.bind_list, mo_g.bind_len);
}

/* ---- threads and teams ------------------------------------------------------------------------------- */

MO_ABI void omp_set_num_threads(int n) {
    mo_task *c = mo_current();
    mo_icv *icv = mo_icv_write(c);
    icv->nthreads = n > 0 ? (uint32_t)n : 1;
    icv->nthreads_pos = UINT32_MAX;
}

MO_ABI int omp_get_num_threads(void) {
    mo_task *c = mo_cur;
    return c && c->team ? (int)c->team->nthreads : 1;
}

MO_ABI int omp_get_max_threads(void) {
    mo_task *c = mo_current();
    return (int)(c->icv->nthreads > c->icv->thread_limit ? c->icv->thread_limit : c->icv->nthreads);
}

MO_ABI int omp_get_thread_num(void) {
    mo_task *c = mo_cur;
    return c ? (int)c->tnum : 0;
}

MO_ABI int omp_get_num_procs(void) { return (int)merino__cpu_budget(); }

MO_ABI int omp_in_parallel(void) {
    mo_task *c = mo_cur;
    return c && c->team && c->team->active_level > 0;
}

MO_ABI void omp_set_dynamic(int d) { mo_icv_write(mo_current())->dyn = d != 0; }
MO_ABI int omp_get_dynamic(void) { return mo_current()->icv->dyn; }

MO_ABI void omp_set_nested(int nested) {
    mo_icv *icv = mo_icv_write(mo_current());
    if (nested) {
        if (icv->max_active_levels <= 1) icv->max_active_levels = 255;
    } else {
        icv->max_active_levels = 1;
    }
}

MO_ABI int omp_get_nested(void) {
    mo_task *c = mo_current();
    unsigned active = c->team ? c->team->active_level : 0;
    return c->icv->max_active_levels > 1 && c->icv->max_active_levels > active;
}

MO_ABI void omp_set_schedule(int kind, int chunk) {
    mo_icv *icv = mo_icv_write(mo_current());
    switch (kind & ~MO_SCHED_MONOTONIC) {
    case MO_SCHED_STATIC: icv->run_chunk = chunk < 1 ? 0 : chunk; break;
    case MO_SCHED_DYNAMIC:
    case MO_SCHED_GUIDED: icv->run_chunk = chunk < 1 ? 1 : chunk; break;
    case MO_SCHED_STEAL: icv->run_chunk = chunk < 1 ? 0 : chunk; break;
    case MO_SCHED_AUTO: break;
    default: return; /* an unknown kind leaves the schedule as it is (libgomp) */
    }
    icv->run_sched = kind;
}

MO_ABI void omp_get_schedule(int *kind, int *chunk) {
    const mo_icv *icv = mo_current()->icv;
    *kind = icv->run_sched;
    *chunk = (int)icv->run_chunk;
}

MO_ABI int omp_get_thread_limit(void) { return (int)mo_current()->icv->thread_limit; }

MO_ABI void omp_set_max_active_levels(int levels) {
    if (levels < 0) return;
    mo_icv_write(mo_current())->max_active_levels = levels > 255 ? 255 : (uint32_t)levels;
}

MO_ABI int omp_get_max_active_levels(void) { return (int)mo_current()->icv->max_active_levels; }
MO_ABI int omp_get_supported_active_levels(void) { return 255; }

MO_ABI int omp_get_level(void) {
    mo_task *c = mo_cur;
    return c && c->team ? (int)c->team->level : 0;
}

MO_ABI int omp_get_active_level(void) {
    mo_task *c = mo_cur;
    return c && c->team ? (int)c->team->active_level : 0;
}

/* The team at nesting level `level` of the calling task (level 1..current), or NULL. */
static mo_team *mo_team_at(const mo_task *c, int level) {
    mo_team *t = c ? c->team : NULL;
    if (level < 1 || t == NULL || level > (int)t->level) return NULL;
    while (t && (int)t->level > level) t = t->parent;
    return t;
}

MO_ABI int omp_get_ancestor_thread_num(int level) {
    mo_task *c = mo_cur;
    if (level == 0) return 0;
    mo_team *t = c ? c->team : NULL;
    if (level < 0 || t == NULL || level > (int)t->level) return -1;
    int tnum = (int)c->tnum;
    while ((int)t->level > level) {
        tnum = (int)t->parent_tnum;
        t = t->parent;
    }
    return tnum;
}

MO_ABI int omp_get_team_size(int level) {
    mo_task *c = mo_cur;
    if (level == 0) return 1;
    mo_team *t = mo_team_at(c, level);
    return t ? (int)t->nthreads : -1;
}

MO_ABI int omp_in_final(void) {
    mo_task *c = mo_cur;
    return c && (c->flags & MO_T_FINAL) != 0;
}

MO_ABI int omp_get_cancellation(void) {
    mo_env_init();
    return mo_g.cancellation;
}

MO_ABI int omp_get_max_task_priority(void) {
    mo_env_init();
    return mo_g.max_task_priority;
}

/* ---- time ---------------------------------------------------------------------------------------------- */

MO_ABI double omp_get_wtime(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

MO_ABI double omp_get_wtick(void) {
    struct timespec ts;
    if (clock_getres(CLOCK_MONOTONIC, &ts) != 0) return 1e-9;
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- places and binding (places.c) --------------------------------------------------------------------------- */

MO_ABI int omp_get_proc_bind(void) { return (int)mo_current()->icv->bind; }
MO_ABI int omp_get_num_places(void) { return mo_place_count(); }
MO_ABI int omp_get_place_num_procs(int place) { return mo_place_procs(place, NULL); }
MO_ABI void omp_get_place_proc_ids(int place, int *ids) { mo_place_procs(place, ids); }
MO_ABI int omp_get_place_num(void) { return mo_place_of_thread(); }
MO_ABI int omp_get_partition_num_places(void) { return mo_place_count(); }

MO_ABI void omp_get_partition_place_nums(int *nums) {
    for (int p = 0, n = mo_place_count(); p < n; p++) nums[p] = p;
}

void mo_place_proc_ids_8(int place, int64_t *ids) {
    int n = mo_place_procs(place, NULL);
    int tmp[n ? n : 1];
    mo_place_procs(place, tmp);
    for (int i = 0; i < n; i++) ids[i] = tmp[i];
}

void mo_partition_place_nums_8(int64_t *nums) {
    for (int p = 0, n = mo_place_count(); p < n; p++) nums[p] = p;
}

/* ---- devices and teams ----------------------------------------------------------------------------------- */

MO_ABI void omp_set_default_device(int d) { mo_icv_write(mo_current())->default_device = d < 0 ? 0 : d; }
MO_ABI int omp_get_default_device(void) { return mo_current()->icv->default_device; }
MO_ABI int omp_get_num_devices(void) { return 0; }
MO_ABI int omp_get_device_num(void) { return 0; } /* the host: the initial device */
MO_ABI int omp_is_initial_device(void) { return 1; }
MO_ABI int omp_get_initial_device(void) { return 0; } /* = omp_get_num_devices() */

MO_ABI void omp_set_num_teams(int n) {
    if (n > 0) mo_icv_write(mo_current())->nteams = (uint32_t)n;
}
MO_ABI int omp_get_max_teams(void) { return (int)mo_current()->icv->nteams; }

MO_ABI void omp_set_teams_thread_limit(int n) {
    if (n > 0) mo_icv_write(mo_current())->teams_thread_limit = (uint32_t)n;
}
MO_ABI int omp_get_teams_thread_limit(void) { return (int)mo_current()->icv->teams_thread_limit; }

MO_ABI int omp_pause_resource(int kind, int device) {
    (void)kind;
    return device == 0 ? 0 : -1; /* merino's idle workers sleep already; nothing to release */
}
MO_ABI int omp_pause_resource_all(int kind) {
    (void)kind;
    return 0;
}

MO_ABI void omp_display_env(int verbose) { mo_display_env(verbose != 0); }
