/* mem.c — the runtime's own memory: merino's allocator, or the C library's under a sanitizer. */
#include "alloc/mem.h"

#include <stdlib.h>

#include <merino_alloc.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define MRN_MEM_SYSTEM 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define MRN_MEM_SYSTEM 1
#endif
#endif

#ifdef MRN_MEM_SYSTEM
__attribute__((weak)) void *mrn_mem_alloc(size_t align, size_t bytes) {
    return aligned_alloc(align, (bytes + align - 1) / align * align); /* C11: a multiple of align */
}
__attribute__((weak)) void *mrn_mem_calloc(size_t n, size_t bytes) { return calloc(n, bytes); }
__attribute__((weak)) void mrn_mem_free(void *p) { free(p); }
#else
__attribute__((weak)) void *mrn_mem_alloc(size_t align, size_t bytes) { return merino_aligned_alloc(align, bytes); }
__attribute__((weak)) void *mrn_mem_calloc(size_t n, size_t bytes) { return merino_calloc(n, bytes); }
__attribute__((weak)) void mrn_mem_free(void *p) { merino_free(p); }
#endif
