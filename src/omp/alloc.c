/* alloc.c — OpenMP's memory allocators (omp_alloc and friends, omp_init_allocator, the allocate
 * clause's GOMP_alloc / GOMP_free) on merino's allocator. Every memory space is host memory from
 * merino_malloc; an allocator's traits that change what a program sees are honoured — alignment,
 * pool_size (a byte budget, then the fallback), fallback (default_mem_fb, null_fb, abort_fb,
 * allocator_fb with fb_data) — and the others (sync_hint, access, pinned, partition) are
 * accepted and change nothing. Each block carries a header before it: its start, its size and
 * its allocator, so that omp_free and omp_realloc need only the pointer. */
#include "omp/omp_layer.h"

#include "merino_alloc.h"

#include <stdlib.h>
#include <string.h>

enum { MO_ATK_SYNC_HINT = 1, MO_ATK_ALIGNMENT, MO_ATK_ACCESS, MO_ATK_POOL_SIZE, MO_ATK_FALLBACK, MO_ATK_FB_DATA,
       MO_ATK_PINNED, MO_ATK_PARTITION };
enum { MO_ATV_DEFAULT_MEM_FB = 11, MO_ATV_NULL_FB = 12, MO_ATV_ABORT_FB = 13, MO_ATV_ALLOCATOR_FB = 14 };
#define MO_ATV_DEFAULT ((uintptr_t)-1)
#define MO_PREDEFINED_MAX 8 /* omp_default_mem_alloc (1) .. omp_thread_mem_alloc (8) */

typedef struct mo_alloctrait {
    int key;
    uintptr_t value;
} mo_alloctrait;

typedef struct mo_allocator {
    uintptr_t memspace;
    size_t alignment;
    size_t pool_size; /* 0: no limit */
    size_t used;      /* atomic: bytes allocated against the pool */
    uintptr_t fallback;
    uintptr_t fb_data;
} mo_allocator;

typedef struct mo_block {
    void *start;
    size_t size;
    uintptr_t allocator;
    size_t charged; /* bytes counted in the allocator's pool */
} mo_block;

static uintptr_t mo_resolve(uintptr_t a) {
    if (a == 0) a = mo_current()->icv->def_allocator;
    return a ? a : 1;
}

/* One allocation with allocator a: size bytes at `align` (a power of two), or NULL (after the
 * fallback's decision). */
static void *mo_allocate(size_t align, size_t size, uintptr_t a, bool zero) {
    for (;;) {
        a = mo_resolve(a);
        mo_allocator *al = a > MO_PREDEFINED_MAX ? (mo_allocator *)a : NULL;
        size_t al_align = al && al->alignment > align ? al->alignment : align;
        if (al_align < _Alignof(mo_block)) al_align = _Alignof(mo_block);
        size_t hdr = (sizeof(mo_block) + al_align - 1) & ~(al_align - 1);
        size_t total;
        bool fits = !__builtin_add_overflow(size, hdr + al_align, &total);
        bool ok = fits;
        if (ok && al && al->pool_size) {
            size_t now = __atomic_add_fetch(&al->used, size, __ATOMIC_RELAXED); /* relaxed: a count */
            if (now > al->pool_size) {
                __atomic_sub_fetch(&al->used, size, __ATOMIC_RELAXED);
                ok = false;
            }
        }
        char *p = ok ? merino_malloc(total) : NULL;
        if (p) {
            if (zero) memset(p, 0, total);
            char *user = (char *)(((uintptr_t)p + hdr + al_align - 1) & ~(uintptr_t)(al_align - 1));
            if ((size_t)(user - p) < hdr) user += al_align;
            mo_block *b = (mo_block *)(void *)user - 1;
            b->start = p;
            b->size = size;
            b->allocator = a;
            b->charged = al && al->pool_size ? size : 0;
            return user;
        }
        if (ok && al && al->pool_size) __atomic_sub_fetch(&al->used, size, __ATOMIC_RELAXED);
        uintptr_t fb = al ? al->fallback : MO_ATV_DEFAULT_MEM_FB;
        if (fb == MO_ATV_NULL_FB || (!al && !fits)) return NULL;
        if (fb == MO_ATV_ABORT_FB || (!al && a == 1))
            mo_fatal("out of memory allocating %zu bytes with an OpenMP allocator whose fallback is to abort", size);
        a = fb == MO_ATV_ALLOCATOR_FB ? al->fb_data : 1; /* default_mem_fb: the default allocator */
    }
}

MO_ABI void *omp_aligned_alloc(size_t align, size_t size, uintptr_t a) {
    if (size == 0) return NULL;
    if (align == 0 || (align & (align - 1))) return NULL;
    return mo_allocate(align, size, a, false);
}
MO_ABI void *omp_alloc(size_t size, uintptr_t a) { return size ? mo_allocate(1, size, a, false) : NULL; }

MO_ABI void *omp_aligned_calloc(size_t align, size_t n, size_t size, uintptr_t a) {
    size_t bytes;
    if (__builtin_mul_overflow(n, size, &bytes) || bytes == 0) return NULL;
    if (align == 0 || (align & (align - 1))) return NULL;
    return mo_allocate(align, bytes, a, true);
}
MO_ABI void *omp_calloc(size_t n, size_t size, uintptr_t a) { return omp_aligned_calloc(1, n, size, a); }

MO_ABI void omp_free(void *p, uintptr_t a) {
    (void)a; /* the block knows its allocator */
    if (p == NULL) return;
    mo_block *b = (mo_block *)p - 1;
    if (b->charged) {
        mo_allocator *al = (mo_allocator *)b->allocator;
        __atomic_sub_fetch(&al->used, b->charged, __ATOMIC_RELAXED); /* relaxed: a count */
    }
    merino_free(b->start);
}

MO_ABI void *omp_realloc(void *p, size_t size, uintptr_t a, uintptr_t free_a) {
    if (p == NULL) return omp_alloc(size, a);
    if (size == 0) {
        omp_free(p, free_a);
        return NULL;
    }
    mo_block *b = (mo_block *)p - 1;
    void *n = mo_allocate(1, size, a ? a : b->allocator, false);
    if (n == NULL) return NULL;
    memcpy(n, p, b->size < size ? b->size : size);
    omp_free(p, free_a);
    return n;
}

MO_ABI void *GOMP_alloc(size_t align, size_t size, uintptr_t a) {
    void *p = mo_allocate(align ? align : 1, size ? size : 1, a, false);
    if (!p) mo_fatal("out of memory allocating %zu bytes for an allocate clause", size);
    return p;
}
MO_ABI void GOMP_free(void *p, uintptr_t a) { omp_free(p, a); }

MO_ABI uintptr_t omp_init_allocator(uintptr_t memspace, int ntraits, const mo_alloctrait *traits) {
    mo_allocator al = {memspace, 1, 0, 0, MO_ATV_DEFAULT_MEM_FB, 0};
    if (memspace > 4) return 0; /* omp_default_mem_space .. omp_low_lat_mem_space */
    for (int i = 0; i < ntraits; i++) {
        uintptr_t v = traits[i].value;
        switch (traits[i].key) {
        case MO_ATK_ALIGNMENT:
            if (v == MO_ATV_DEFAULT) break;
            if (v == 0 || (v & (v - 1))) return 0;
            al.alignment = v;
            break;
        case MO_ATK_POOL_SIZE:
            if (v != MO_ATV_DEFAULT) al.pool_size = v;
            break;
        case MO_ATK_FALLBACK:
            if (v == MO_ATV_DEFAULT) break;
            if (v < MO_ATV_DEFAULT_MEM_FB || v > MO_ATV_ALLOCATOR_FB) return 0;
            al.fallback = v;
            break;
        case MO_ATK_FB_DATA: al.fb_data = v; break;
        case MO_ATK_SYNC_HINT:
        case MO_ATK_ACCESS:
        case MO_ATK_PINNED:
        case MO_ATK_PARTITION: break;
        default: return 0;
        }
    }
    if (al.fallback == MO_ATV_ALLOCATOR_FB && al.fb_data == 0) return 0;
    mo_allocator *h = merino_malloc(sizeof *h);
    if (!h) return 0;
    *h = al;
    return (uintptr_t)h;
}

MO_ABI void omp_destroy_allocator(uintptr_t a) {
    if (a > MO_PREDEFINED_MAX) merino_free((void *)a);
}

MO_ABI void omp_set_default_allocator(uintptr_t a) { mo_icv_write(mo_current())->def_allocator = a; }
MO_ABI uintptr_t omp_get_default_allocator(void) { return mo_current()->icv->def_allocator; }
