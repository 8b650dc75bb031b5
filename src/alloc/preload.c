/* preload.c — libmerino_malloc.so's C entry points: the whole malloc family on merino's allocator,
 * so that LD_PRELOAD=libmerino_malloc.so (or linking it before libc) moves an unmodified program
 * onto it. malloc, free, calloc and realloc are not here: they are other names of merino_malloc,
 * merino_free, merino_calloc and merino_realloc, given by the link (CMakeLists.txt: --defsym), so a
 * call enters the allocator without a jump of its own; the others are each a jump to their
 * merino_ counterpart. Nothing here calls dlsym or allocates on its own. */
#include "alloc/alloc.h"

#include "merino_alloc.h"

#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <unistd.h>

#define MRN_PRELOAD __attribute__((visibility("default")))

MRN_PRELOAD void *aligned_alloc(size_t alignment, size_t size) { return merino_aligned_alloc(alignment, size); }
MRN_PRELOAD size_t malloc_usable_size(void *p) { return merino_usable_size(p); }
MRN_PRELOAD void cfree(void *p) { merino_free(p); }

MRN_PRELOAD void *reallocarray(void *p, size_t count, size_t size) {
    size_t n;
    if (__builtin_mul_overflow(count, size, &n)) {
        errno = ENOMEM;
        return NULL;
    }
    return merino_realloc(p, n);
}

/* POSIX: the alignment must be a power of two and a multiple of sizeof(void *); errors are
 * returned, errno is left alone. */
MRN_PRELOAD int posix_memalign(void **out, size_t alignment, size_t size) {
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return EINVAL;
    int saved = errno;
    void *p = merino_aligned_alloc(alignment, size);
    if (!p) {
        int e = errno;
        errno = saved;
        return e;
    }
    *out = p;
    return 0;
}

MRN_PRELOAD void *memalign(size_t alignment, size_t size) { return merino_aligned_alloc(alignment, size); }
MRN_PRELOAD void *valloc(size_t size) { return merino_aligned_alloc(MRN_PAGE, size); }

MRN_PRELOAD void *pvalloc(size_t size) {
    size_t n = (size + MRN_PAGE - 1) & ~(size_t)(MRN_PAGE - 1);
    if (n < size) {
        errno = ENOMEM;
        return NULL;
    }
    return merino_aligned_alloc(MRN_PAGE, n ? n : MRN_PAGE);
}
