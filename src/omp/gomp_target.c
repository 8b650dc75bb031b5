/* gomp_target.c — offloading without a device, as libgomp runs it when it has none: a target
 * region runs on the host, on the encountering thread, as a new initial thread (no team, level
 * 0), with its firstprivate data copied; data mapping constructs do nothing (host memory is the
 * device's); the host teams construct runs its teams one after another on the encountering
 * thread (libgomp does the same); the device memory routines work on the initial device (host
 * memory) and report the others as absent. */
#include "omp/omp_layer.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* ---- teams ------------------------------------------------------------------------------------------- */

static __thread uint32_t mo_teams_last; /* number of teams - 1 of the teams region running */
static __thread uint32_t mo_team_num;

MO_ABI int omp_get_num_teams(void) { return (int)mo_teams_last + 1; }
MO_ABI int omp_get_team_num(void) { return (int)mo_team_num; }

MO_ABI void GOMP_teams_reg(void (*fn)(void *), void *data, unsigned num_teams, unsigned thread_limit,
                           unsigned flags) {
    (void)flags;
    mo_task *c = mo_current();
    if (thread_limit == 0) thread_limit = c->icv->teams_thread_limit;
    uint32_t old_limit = c->icv->thread_limit;
    if (thread_limit) mo_icv_write(c)->thread_limit = thread_limit > INT_MAX ? INT_MAX : thread_limit;
    if (num_teams == 0) num_teams = c->icv->nteams ? c->icv->nteams : 3; /* libgomp's default */
    mo_teams_last = num_teams - 1;
    for (mo_team_num = 0; mo_team_num < num_teams; mo_team_num++) fn(data);
    mo_teams_last = 0;
    mo_team_num = 0;
    if (thread_limit) mo_icv_write(mo_current())->thread_limit = old_limit;
}

/* Teams inside a target region: the caller loops while this returns true, one team a turn. */
MO_ABI bool GOMP_teams4(unsigned low, unsigned high, unsigned thread_limit, bool first) {
    (void)high;
    if (first) {
        if (thread_limit) mo_icv_write(mo_current())->thread_limit = thread_limit > INT_MAX ? INT_MAX : thread_limit;
        mo_teams_last = low == 0 ? 0 : low - 1;
        mo_team_num = 0;
        return true;
    }
    if (mo_team_num == mo_teams_last) return false;
    mo_team_num++;
    return true;
}

MO_ABI void GOMP_teams(unsigned num_teams, unsigned thread_limit) {
    (void)num_teams;
    if (thread_limit) mo_icv_write(mo_current())->thread_limit = thread_limit > INT_MAX ? INT_MAX : thread_limit;
}

/* ---- target regions ------------------------------------------------------------------------------------ */

enum { MO_MAP_FIRSTPRIVATE = 12, MO_TARGET_FLAG_NOWAIT = 1 };
#define MO_TARGET_ARG_SUBSEQUENT_PARAM (1 << 7)
#define MO_TARGET_ARG_DEVICE_MASK ((1 << 7) - 1)
#define MO_TARGET_ARG_ID_MASK (((1 << 8) - 1) << 8)
#define MO_TARGET_ARG_THREAD_LIMIT (2 << 8)

/* Runs fn(hostaddrs) as a new initial thread of the host device. */
static void mo_target_fallback(void (*fn)(void *), void **hostaddrs, void **args) {
    mo_task *cur = mo_current();
    mo_icv icv = mo_g.icv;
    icv.default_device = cur->icv->default_device;
    for (; args && *args;) {
        intptr_t id = (intptr_t)*args++, val;
        if (id & MO_TARGET_ARG_SUBSEQUENT_PARAM)
            val = (intptr_t)*args++;
        else
            val = id >> 16;
        if ((id & MO_TARGET_ARG_DEVICE_MASK) != 0) continue;
        if ((id & MO_TARGET_ARG_ID_MASK) != MO_TARGET_ARG_THREAD_LIMIT) continue;
        if (val > 0) icv.thread_limit = val > INT_MAX ? INT_MAX : (uint32_t)val;
    }
    mo_task t = {0};
    t.icv = &icv;
    t.frame = merino__next;
    t.flags = MO_T_IMPLICIT;
    uint32_t teams_last = mo_teams_last, team_num = mo_team_num;
    mo_teams_last = mo_team_num = 0;
    mo_task *prev = mo_cur;
    mo_cur = &t;
    fn(hostaddrs);
    mo_task_end(&t);
    mo_cur = prev;
    mo_teams_last = teams_last;
    mo_team_num = team_num;
}

MO_ABI void GOMP_target_ext(int device, void (*fn)(void *), size_t mapnum, void **hostaddrs, size_t *sizes,
                            unsigned short *kinds, unsigned flags, void **depend, void **args) {
    (void)device;
    mo_task *cur = mo_current();
    if (depend) mo_wait_depend(cur, depend);
    /* firstprivate: the region gets copies (its own block, aligned as the kinds say) */
    size_t total = 0, align_max = 1;
    for (size_t i = 0; i < mapnum; i++)
        if ((kinds[i] & 0xff) == MO_MAP_FIRSTPRIVATE) {
            size_t align = (size_t)1 << (kinds[i] >> 8);
            if (align > align_max) align_max = align;
            total = ((total + align - 1) & ~(align - 1)) + sizes[i];
        }
    void *addrs[mapnum ? mapnum : 1];
    memcpy(addrs, hostaddrs, mapnum * sizeof *addrs);
    char *block = NULL;
    if (total) {
        block = aligned_alloc(align_max, (total + align_max - 1) & ~(align_max - 1));
        if (!block) mo_fatal("out of memory copying the firstprivate data of a target region");
        size_t off = 0;
        for (size_t i = 0; i < mapnum; i++)
            if ((kinds[i] & 0xff) == MO_MAP_FIRSTPRIVATE) {
                size_t align = (size_t)1 << (kinds[i] >> 8);
                off = (off + align - 1) & ~(align - 1);
                memcpy(block + off, hostaddrs[i], sizes[i]);
                addrs[i] = block + off;
                off += sizes[i];
            }
    }
    (void)flags; /* nowait: the target task runs at once, which a task may */
    mo_target_fallback(fn, addrs, args);
    free(block);
}

/* GCC 4.x's target: no firstprivate, no arguments. */
MO_ABI void GOMP_target(int device, void (*fn)(void *), const void *unused, size_t mapnum, void **hostaddrs,
                        size_t *sizes, unsigned char *kinds) {
    (void)device, (void)unused, (void)mapnum, (void)sizes, (void)kinds;
    mo_target_fallback(fn, hostaddrs, NULL);
}

MO_ABI void GOMP_target_data(int device, const void *unused, size_t mapnum, void **hostaddrs, size_t *sizes,
                             unsigned char *kinds) {
    (void)device, (void)unused, (void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds;
}
MO_ABI void GOMP_target_data_ext(int device, size_t mapnum, void **hostaddrs, size_t *sizes, unsigned short *kinds) {
    (void)device, (void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds;
}
MO_ABI void GOMP_target_end_data(void) {}
MO_ABI void GOMP_target_update(int device, const void *unused, size_t mapnum, void **hostaddrs, size_t *sizes,
                               unsigned char *kinds) {
    (void)device, (void)unused, (void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds;
}
MO_ABI void GOMP_target_update_ext(int device, size_t mapnum, void **hostaddrs, size_t *sizes,
                                   unsigned short *kinds, unsigned flags, void **depend) {
    (void)device, (void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds, (void)flags;
    if (depend) mo_wait_depend(mo_current(), depend);
}
MO_ABI void GOMP_target_enter_exit_data(int device, size_t mapnum, void **hostaddrs, size_t *sizes,
                                        unsigned short *kinds, unsigned flags, void **depend) {
    (void)device, (void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds, (void)flags;
    if (depend) mo_wait_depend(mo_current(), depend);
}

/* Offload images register their device code: there is no device to load it on. */
MO_ABI void GOMP_offload_register(const void *host_table, int target_type, const void *target_data) {
    (void)host_table, (void)target_type, (void)target_data;
}
MO_ABI void GOMP_offload_unregister(const void *host_table, int target_type, const void *target_data) {
    (void)host_table, (void)target_type, (void)target_data;
}
MO_ABI void GOMP_offload_register_ver(unsigned version, const void *host_table, int target_type,
                                      const void *target_data) {
    (void)version, (void)host_table, (void)target_type, (void)target_data;
}
MO_ABI void GOMP_offload_unregister_ver(unsigned version, const void *host_table, int target_type,
                                        const void *target_data) {
    (void)version, (void)host_table, (void)target_type, (void)target_data;
}

/* ---- device memory: only the initial device (the host, number 0 = omp_get_num_devices()) ---------------- */

static bool mo_host(int device) { return device == 0 || device == -1; }

MO_ABI void *omp_target_alloc(size_t size, int device) { return mo_host(device) ? malloc(size) : NULL; }
MO_ABI void omp_target_free(void *p, int device) {
    if (mo_host(device)) free(p);
}
MO_ABI int omp_target_is_present(const void *p, int device) { return p == NULL || mo_host(device); }

MO_ABI int omp_target_memcpy(void *dst, const void *src, size_t length, size_t dst_offset, size_t src_offset,
                             int dst_device, int src_device) {
    if (!mo_host(dst_device) || !mo_host(src_device)) return EINVAL;
    memcpy((char *)dst + dst_offset, (const char *)src + src_offset, length);
    return 0;
}

/* A rectangular copy of num_dims dimensions (the first is the outermost), on the host. */
static void mo_memcpy_rect(char *dst, const char *src, size_t elem, int nd, const size_t *vol,
                           const size_t *dst_off, const size_t *src_off, const size_t *dst_dim,
                           const size_t *src_dim) {
    if (nd == 1) {
        memcpy(dst + dst_off[0] * elem, src + src_off[0] * elem, vol[0] * elem);
        return;
    }
    size_t dst_slice = elem, src_slice = elem;
    for (int i = 1; i < nd; i++) dst_slice *= dst_dim[i], src_slice *= src_dim[i];
    for (size_t j = 0; j < vol[0]; j++)
        mo_memcpy_rect(dst + (dst_off[0] + j) * dst_slice, src + (src_off[0] + j) * src_slice, elem, nd - 1,
                       vol + 1, dst_off + 1, src_off + 1, dst_dim + 1, src_dim + 1);
}

MO_ABI int omp_target_memcpy_rect(void *dst, const void *src, size_t element_size, int num_dims,
                                  const size_t *volume, const size_t *dst_offsets, const size_t *src_offsets,
                                  const size_t *dst_dimensions, const size_t *src_dimensions, int dst_device,
                                  int src_device) {
    if (dst == NULL && src == NULL) return INT_MAX; /* the number of dimensions supported */
    if (!mo_host(dst_device) || !mo_host(src_device) || num_dims < 1) return EINVAL;
    mo_memcpy_rect(dst, src, element_size, num_dims, volume, dst_offsets, src_offsets, dst_dimensions,
                   src_dimensions);
    return 0;
}

MO_ABI int omp_target_associate_ptr(const void *host, const void *device_ptr, size_t size, size_t offset,
                                    int device) {
    (void)host, (void)device_ptr, (void)size, (void)offset, (void)device;
    return EINVAL; /* there is no device memory to associate with */
}
MO_ABI int omp_target_disassociate_ptr(const void *p, int device) {
    (void)p, (void)device;
    return EINVAL;
}
