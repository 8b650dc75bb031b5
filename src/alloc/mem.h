/* mem.h — the runtime's own memory (workers, task objects, graph nodes, loop records).
 *
 * The layers above take it from merino's allocator (docs/alloc.md): a thread-private heap, so a
 * worker's chunk of task objects or a loop's records never wait on malloc's locks. Sanitizer builds
 * take it from the C library: its poisoning is what ASan checks these objects with. The functions
 * are weak, so that a test linking merino statically can replace them (to count, or to fail). */
#ifndef MERINO_ALLOC_MEM_H
#define MERINO_ALLOC_MEM_H

#include <stddef.h>

/* align: a power of two; bytes need not be a multiple of it. NULL when out of memory. */
__attribute__((visibility("hidden"))) void *mrn_mem_alloc(size_t align, size_t bytes);
__attribute__((visibility("hidden"))) void *mrn_mem_calloc(size_t n, size_t bytes); /* 16-aligned, zeroed */
__attribute__((visibility("hidden"))) void mrn_mem_free(void *p); /* from either of the above */

#endif /* MERINO_ALLOC_MEM_H */
