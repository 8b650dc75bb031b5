/* api.c — the rest of the merino_malloc family, on top of malloc.c's paths: calloc, realloc and
 * the usable size. */
#include "alloc/heap.h"

#include "merino_alloc.h"

#include <errno.h>
#include <string.h>

MERINO_ALLOC_API void *merino_calloc(size_t count, size_t size) {
    size_t n;
    if (__builtin_mul_overflow(count, size, &n)) {
        errno = ENOMEM;
        return NULL;
    }
    if (n <= MRN_SMALL_MAX) {
        void *p = merino_malloc(n);
        if (p) memset(p, 0, n);
        return p;
    }
    mrn_heap *h = mrn_heap_get();
    if (!h || n > PTRDIFF_MAX) {
        errno = ENOMEM;
        return NULL;
    }
    return mrn_large_alloc(h, n, 0, true); /* a fresh mapping is zero already */
}

static size_t mrn_usable(const void *p) {
    mrn_block *b = mrn_block_of(p);
    /* relaxed: p is live, so its block's heap and kind do not change under us */
    uintptr_t tag = atomic_load_explicit(&b->owner_tag, memory_order_relaxed);
    if (tag & MRN_TAG_LARGE) return (size_t)(b->map_base + b->map_len - (const char *)p);
    return (size_t)(mrn_object_start(b, p) + b->size - (const char *)p);
}

MERINO_ALLOC_API size_t merino_usable_size(const void *p) {
    if (!p) return 0;
#if MRN_ALLOC_DEBUG
    mrn_debug_check(p, "merino_usable_size", false);
#endif
    return mrn_usable(p);
}

MERINO_ALLOC_API void *merino_realloc(void *p, size_t size) {
    if (!p) return merino_malloc(size);
    if (size == 0) {
        merino_free(p);
        return NULL;
    }
    size_t old = merino_usable_size(p);
    mrn_block *b = mrn_block_of(p);
    void *q;
    /* relaxed: p is live, so its block's kind does not change under us */
    if (atomic_load_explicit(&b->owner_tag, memory_order_relaxed) == MRN_TAG_LARGE && mrn_large_resize(p, size, &q))
        return q; /* a large object staying large: resized in place, or its pages moved */
    if (size <= old && size >= old / 2) return p; /* fits, and not worth moving to a smaller one */
    q = merino_malloc(size);
    if (!q) return NULL;
    memcpy(q, p, size < old ? size : old);
    merino_free(p);
    return q;
}
