/* merino_alloc.h — merino's scalable memory allocator.
 *
 * Thread-private heaps of size classes (no more than 25% apart) carved from 16 KB blocks, no
 * per-object header, frees by other threads batched and handed back to the owning heap; objects
 * of 8 KB to 1 MB cached per thread (within bounds), larger ones straight from the OS. Usable alone: link libmerino (or
 * libmerino_malloc.so, which also replaces malloc/free/new/delete for a whole program, by
 * LD_PRELOAD or linking). See docs/alloc.md.
 *
 * Every function is thread-safe and may be called from any thread, including threads merino did
 * not start, and from either side of a fork(). Memory from these functions must be released with
 * merino_free (or merino_realloc), never with another allocator's free.
 *
 * Environment: MERINO_ALLOC_STATS=1 prints the allocator's statistics on stderr at exit.
 */
#ifndef MERINO_ALLOC_H
#define MERINO_ALLOC_H

#include <stddef.h>

#ifndef MERINO_ALLOC_API
#define MERINO_ALLOC_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** Allocates size bytes aligned to 16 (8 for sizes up to 8) and returns them, uninitialized.
 *  merino_malloc(0) returns a unique pointer that may be freed. Fails with NULL and errno ENOMEM.
 *      char *s = merino_malloc(32);  if (!s) return -1;  ...  merino_free(s); */
MERINO_ALLOC_API void *merino_malloc(size_t size) __attribute__((malloc, alloc_size(1)));

/** Releases p, which merino_malloc, merino_calloc, merino_realloc or merino_aligned_alloc returned
 *  (from any thread). merino_free(NULL) does nothing. A debug build (MERINO_DEBUG, or NDEBUG not
 *  defined) reports a double free or a pointer it never returned, with the address, and aborts.
 *      merino_free(s); */
MERINO_ALLOC_API void merino_free(void *p);

/** Allocates count * size bytes, zeroed. Fails with NULL and errno ENOMEM, also when count * size
 *  overflows.
 *      double *v = merino_calloc(n, sizeof *v); */
MERINO_ALLOC_API void *merino_calloc(size_t count, size_t size) __attribute__((malloc, alloc_size(1, 2)));

/** Resizes p to size bytes, keeping its contents up to the smaller size; may move it. As the C
 *  standard says: p NULL is merino_malloc(size). Size 0 frees p and returns NULL (as glibc does).
 *  On failure returns NULL with errno ENOMEM and leaves p as it was.
 *      int *w = merino_realloc(v, 2 * n * sizeof *v);  if (!w) { merino_free(v); return -1; } */
MERINO_ALLOC_API void *merino_realloc(void *p, size_t size) __attribute__((alloc_size(2)));

/** Allocates size bytes aligned to alignment, which must be a power of two (size need not be a
 *  multiple of it). Fails with NULL and errno EINVAL for an alignment that is not a power of two,
 *  ENOMEM when out of memory or when size or alignment is too large to map.
 *      void *page = merino_aligned_alloc(4096, 4096); */
MERINO_ALLOC_API void *merino_aligned_alloc(size_t alignment, size_t size)
    __attribute__((malloc, alloc_size(2)));

/** The bytes usable at p (at least what was asked for; p's object may be larger); 0 for NULL.
 *      size_t n = merino_usable_size(s);   // >= 32 */
MERINO_ALLOC_API size_t merino_usable_size(const void *p);

#ifdef __cplusplus
}
#endif

#endif /* MERINO_ALLOC_H */
