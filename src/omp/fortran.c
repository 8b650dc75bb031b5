/* fortran.c — the Fortran entry points of the omp_* library (gfortran's omp_lib: arguments by
 * reference, 4-byte integers, and _8_ forms taking 8-byte integers). The lock routines are in
 * gomp_sync.c (they carry symbol versions). */
#include "omp/omp_layer.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int omp_get_num_threads(void);
int omp_get_max_threads(void);
int omp_get_thread_num(void);
int omp_get_num_procs(void);
int omp_in_parallel(void);
int omp_get_dynamic(void);
void omp_set_dynamic(int);
int omp_get_nested(void);
void omp_set_nested(int);
void omp_set_num_threads(int);
double omp_get_wtick(void);
double omp_get_wtime(void);
void omp_set_schedule(int, int);
void omp_get_schedule(int *, int *);
int omp_get_thread_limit(void);
void omp_set_max_active_levels(int);
int omp_get_max_active_levels(void);
int omp_get_supported_active_levels(void);
int omp_get_level(void);
int omp_get_ancestor_thread_num(int);
int omp_get_team_size(int);
int omp_get_active_level(void);
int omp_in_final(void);
void omp_set_num_teams(int);
int omp_get_max_teams(void);
void omp_set_teams_thread_limit(int);
int omp_get_teams_thread_limit(void);
int omp_get_cancellation(void);
int omp_get_proc_bind(void);
int omp_get_num_places(void);
int omp_get_place_num_procs(int);
void omp_get_place_proc_ids(int, int *);
int omp_get_place_num(void);
int omp_get_partition_num_places(void);
void omp_get_partition_place_nums(int *);
void omp_set_default_device(int);
int omp_get_default_device(void);
int omp_get_num_devices(void);
int omp_get_num_teams(void);
int omp_get_team_num(void);
int omp_is_initial_device(void);
int omp_get_initial_device(void);
int omp_get_device_num(void);
int omp_get_max_task_priority(void);
void omp_fulfill_event(void *);
int omp_pause_resource(int, int);
int omp_pause_resource_all(int);
uintptr_t omp_init_allocator(uintptr_t, int, const void *);
void omp_destroy_allocator(uintptr_t);
void omp_set_default_allocator(uintptr_t);
uintptr_t omp_get_default_allocator(void);
void omp_display_env(int);
void mo_place_proc_ids_8(int place, int64_t *ids);
void mo_partition_place_nums_8(int64_t *nums);
size_t mo_affinity_format_get(char *buf, size_t size);
void mo_affinity_format_set(const char *fmt, size_t len);
size_t mo_affinity_capture(char *buf, size_t size, const char *fmt);

/* A Fortran INTEGER(8) argument as a C int, saturated. */
#define TO_INT(x) ((x) > INT_MIN ? (x) < INT_MAX ? (int)(x) : INT_MAX : INT_MIN)

MO_ABI void omp_set_dynamic_(const int32_t *set) { omp_set_dynamic(*set); }
MO_ABI void omp_set_dynamic_8_(const int64_t *set) { omp_set_dynamic(!!*set); }
MO_ABI void omp_set_nested_(const int32_t *set) { omp_set_nested(*set); }
MO_ABI void omp_set_nested_8_(const int64_t *set) { omp_set_nested(!!*set); }
MO_ABI void omp_set_num_threads_(const int32_t *n) { omp_set_num_threads(*n); }
MO_ABI void omp_set_num_threads_8_(const int64_t *n) { omp_set_num_threads(TO_INT(*n)); }
MO_ABI int32_t omp_get_dynamic_(void) { return omp_get_dynamic(); }
MO_ABI int32_t omp_get_nested_(void) { return omp_get_nested(); }
MO_ABI int32_t omp_in_parallel_(void) { return omp_in_parallel(); }
MO_ABI int32_t omp_get_max_threads_(void) { return omp_get_max_threads(); }
MO_ABI int32_t omp_get_num_procs_(void) { return omp_get_num_procs(); }
MO_ABI int32_t omp_get_num_threads_(void) { return omp_get_num_threads(); }
MO_ABI int32_t omp_get_thread_num_(void) { return omp_get_thread_num(); }
MO_ABI double omp_get_wtick_(void) { return omp_get_wtick(); }
MO_ABI double omp_get_wtime_(void) { return omp_get_wtime(); }
MO_ABI void omp_set_schedule_(const int32_t *kind, const int32_t *chunk) { omp_set_schedule(*kind, *chunk); }
MO_ABI void omp_set_schedule_8_(const int32_t *kind, const int64_t *chunk) { omp_set_schedule(*kind, TO_INT(*chunk)); }

/* OpenMP 4.5 Fortran code does not expect the monotonic flag: it is masked off, as libgomp does. */
MO_ABI void omp_get_schedule_(int32_t *kind, int32_t *chunk) {
    int k, c;
    omp_get_schedule(&k, &c);
    *kind = k & ~MO_SCHED_MONOTONIC;
    *chunk = c;
}
MO_ABI void omp_get_schedule_8_(int32_t *kind, int64_t *chunk) {
    int k, c;
    omp_get_schedule(&k, &c);
    *kind = k & ~MO_SCHED_MONOTONIC;
    *chunk = c;
}

MO_ABI int32_t omp_get_thread_limit_(void) { return omp_get_thread_limit(); }
MO_ABI void omp_set_max_active_levels_(const int32_t *l) { omp_set_max_active_levels(*l); }
MO_ABI void omp_set_max_active_levels_8_(const int64_t *l) { omp_set_max_active_levels(TO_INT(*l)); }
MO_ABI int32_t omp_get_max_active_levels_(void) { return omp_get_max_active_levels(); }
MO_ABI int32_t omp_get_supported_active_levels_(void) { return omp_get_supported_active_levels(); }
MO_ABI int32_t omp_get_level_(void) { return omp_get_level(); }
MO_ABI int32_t omp_get_ancestor_thread_num_(const int32_t *l) { return omp_get_ancestor_thread_num(*l); }
MO_ABI int32_t omp_get_ancestor_thread_num_8_(const int64_t *l) { return omp_get_ancestor_thread_num(TO_INT(*l)); }
MO_ABI int32_t omp_get_team_size_(const int32_t *l) { return omp_get_team_size(*l); }
MO_ABI int32_t omp_get_team_size_8_(const int64_t *l) { return omp_get_team_size(TO_INT(*l)); }
MO_ABI int32_t omp_get_active_level_(void) { return omp_get_active_level(); }
MO_ABI int32_t omp_in_final_(void) { return omp_in_final(); }
MO_ABI void omp_set_num_teams_(const int32_t *n) { omp_set_num_teams(*n); }
MO_ABI void omp_set_num_teams_8_(const int64_t *n) { omp_set_num_teams(TO_INT(*n)); }
MO_ABI int32_t omp_get_max_teams_(void) { return omp_get_max_teams(); }
MO_ABI void omp_set_teams_thread_limit_(const int32_t *n) { omp_set_teams_thread_limit(*n); }
MO_ABI void omp_set_teams_thread_limit_8_(const int64_t *n) { omp_set_teams_thread_limit(TO_INT(*n)); }
MO_ABI int32_t omp_get_teams_thread_limit_(void) { return omp_get_teams_thread_limit(); }
MO_ABI int32_t omp_get_cancellation_(void) { return omp_get_cancellation(); }
MO_ABI int32_t omp_get_proc_bind_(void) { return omp_get_proc_bind(); }
MO_ABI int32_t omp_get_num_places_(void) { return omp_get_num_places(); }
MO_ABI int32_t omp_get_place_num_procs_(const int32_t *p) { return omp_get_place_num_procs(*p); }
MO_ABI int32_t omp_get_place_num_procs_8_(const int64_t *p) { return omp_get_place_num_procs(TO_INT(*p)); }
MO_ABI void omp_get_place_proc_ids_(const int32_t *p, int32_t *ids) { omp_get_place_proc_ids(*p, (int *)ids); }
MO_ABI void omp_get_place_proc_ids_8_(const int64_t *p, int64_t *ids) { mo_place_proc_ids_8(TO_INT(*p), ids); }
MO_ABI int32_t omp_get_place_num_(void) { return omp_get_place_num(); }
MO_ABI int32_t omp_get_partition_num_places_(void) { return omp_get_partition_num_places(); }
MO_ABI void omp_get_partition_place_nums_(int32_t *nums) { omp_get_partition_place_nums((int *)nums); }
MO_ABI void omp_get_partition_place_nums_8_(int64_t *nums) { mo_partition_place_nums_8(nums); }
MO_ABI void omp_set_default_device_(const int32_t *d) { omp_set_default_device(*d); }
MO_ABI void omp_set_default_device_8_(const int64_t *d) { omp_set_default_device(TO_INT(*d)); }
MO_ABI int32_t omp_get_default_device_(void) { return omp_get_default_device(); }
MO_ABI int32_t omp_get_num_devices_(void) { return omp_get_num_devices(); }
MO_ABI int32_t omp_get_num_teams_(void) { return omp_get_num_teams(); }
MO_ABI int32_t omp_get_team_num_(void) { return omp_get_team_num(); }
MO_ABI int32_t omp_is_initial_device_(void) { return omp_is_initial_device(); }
MO_ABI int32_t omp_get_initial_device_(void) { return omp_get_initial_device(); }
MO_ABI int32_t omp_get_device_num_(void) { return omp_get_device_num(); }
MO_ABI int32_t omp_get_max_task_priority_(void) { return omp_get_max_task_priority(); }
MO_ABI void omp_fulfill_event_(intptr_t event) { omp_fulfill_event((void *)event); }

/* Character arguments: a pointer and a hidden length, no terminating NUL; results padded with
 * blanks. */
MO_ABI void omp_set_affinity_format_(const char *format, size_t len) { mo_affinity_format_set(format, len); }

MO_ABI int32_t omp_get_affinity_format_(char *buffer, size_t len) {
    char fmt[1024];
    size_t n = mo_affinity_format_get(fmt, sizeof fmt);
    if (len) {
        size_t copy = n < len ? n : len;
        memcpy(buffer, fmt, copy);
        if (copy < len) memset(buffer + copy, ' ', len - copy);
    }
    return (int32_t)n;
}

static char *mo_fortran_string(const char *s, size_t len, char *small, size_t small_size) {
    char *out = len < small_size ? small : malloc(len + 1);
    if (!out) mo_fatal("out of memory reading a Fortran string of %zu characters", len);
    memcpy(out, s, len);
    out[len] = '\0';
    return out;
}

MO_ABI void omp_display_affinity_(const char *format, size_t len) {
    char small[256], line[1024];
    char *fmt = len ? mo_fortran_string(format, len, small, sizeof small) : NULL;
    size_t n = mo_affinity_capture(line, sizeof line - 1, fmt);
    if (n > sizeof line - 2) n = sizeof line - 2;
    line[n] = '\n';
    fwrite(line, 1, n + 1, stderr);
    if (fmt && fmt != small) free(fmt);
}

MO_ABI int32_t omp_capture_affinity_(char *buffer, const char *format, size_t buffer_len, size_t format_len) {
    char small[256], line[1024];
    char *fmt = format_len ? mo_fortran_string(format, format_len, small, sizeof small) : NULL;
    size_t n = mo_affinity_capture(line, sizeof line, fmt);
    if (buffer_len) {
        size_t copy = n < buffer_len ? n : buffer_len;
        memcpy(buffer, line, copy);
        if (copy < buffer_len) memset(buffer + copy, ' ', buffer_len - copy);
    }
    if (fmt && fmt != small) free(fmt);
    return (int32_t)n;
}

MO_ABI int32_t omp_pause_resource_(const int32_t *kind, const int32_t *device) { return omp_pause_resource(*kind, *device); }
MO_ABI int32_t omp_pause_resource_all_(const int32_t *kind) { return omp_pause_resource_all(*kind); }

MO_ABI intptr_t omp_init_allocator_(const intptr_t *memspace, const int32_t *ntraits, const void *traits) {
    return (intptr_t)omp_init_allocator((uintptr_t)*memspace, *ntraits, traits);
}
MO_ABI intptr_t omp_init_allocator_8_(const intptr_t *memspace, const int64_t *ntraits, const void *traits) {
    return (intptr_t)omp_init_allocator((uintptr_t)*memspace, (int)*ntraits, traits);
}
MO_ABI void omp_destroy_allocator_(const intptr_t *a) { omp_destroy_allocator((uintptr_t)*a); }
MO_ABI void omp_set_default_allocator_(const intptr_t *a) { omp_set_default_allocator((uintptr_t)*a); }
MO_ABI intptr_t omp_get_default_allocator_(void) { return (intptr_t)omp_get_default_allocator(); }

MO_ABI void omp_display_env_(const int32_t *verbose) { omp_display_env(*verbose); }
MO_ABI void omp_display_env_8_(const int64_t *verbose) { omp_display_env(!!*verbose); }
