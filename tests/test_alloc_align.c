/* Every alignment from 1 to 4096 with merino_aligned_alloc: powers of two give an address of that
 * alignment, usable for the size asked (written and checked), freed by this thread or another;
 * anything else fails with NULL and EINVAL. Larger powers of two (to 4 MB) and large sizes too, each
 * written over all its usable size (a header or a neighbour in it would be overwritten). */
#include "check.h"

#include "alloc_test.h"

#include <errno.h>

static const size_t g_sizes[] = {1, 7, 16, 24, 100, 1000, 4096, 5000, 9000, 70000};
enum { NSIZES = sizeof g_sizes / sizeof g_sizes[0] };

/* Sizes for the larger alignments: the small and medium ones above, and large objects (a mapping
 * of their own), whose header is in the megabyte below the object when it is aligned to 1 MB or more. */
static const size_t g_big[] = {(size_t)1 << 20, 1500000, (size_t)3 << 20};
enum { NBIG = sizeof g_big / sizeof g_big[0], NHAND = (NSIZES + NBIG) * 13 };

typedef struct handoff {
    void *p[NHAND];
    int n;
} handoff;

static void *free_all(void *arg) {
    handoff *h = (handoff *)arg;
    for (int i = 0; i < h->n; i++) merino_free(h->p[i]);
    return NULL;
}

int main(void) {
    uint64_t seed = at_seed("test_alloc_align");
    int pow2 = 0, rejected = 0;
    handoff h = {{0}, 0};
    for (size_t align = 1; align <= 4096; align++) {
        for (int k = 0; k < NSIZES; k++) {
            size_t n = g_sizes[k];
            errno = 0;
            unsigned char *p = (unsigned char *)merino_aligned_alloc(align, n);
            if (align & (align - 1)) {
                CHECK_MSG(p == NULL && errno == EINVAL, "aligned_alloc(%zu, %zu) = %p, errno %d", align, n,
                          (void *)p, errno);
                rejected++;
                continue;
            }
            CHECK_MSG(p != NULL, "aligned_alloc(%zu, %zu) failed", align, n);
            CHECK_MSG(((uintptr_t)p & (align - 1)) == 0, "aligned_alloc(%zu, %zu) = %p", align, n, (void *)p);
            CHECK(merino_usable_size(p) >= n);
            uint64_t tag = at_next(&seed);
            at_fill(p, n, tag);
            CHECK(at_check(p, n, tag) < 0);
            pow2++;
            if ((at_next(&seed) & 3) == 0 && h.n < NHAND)
                h.p[h.n++] = p; /* freed by another thread below */
            else
                merino_free(p);
        }
    }
    /* Larger alignments, small, medium and large sizes. */
    for (size_t align = 8192; align <= ((size_t)4 << 20); align *= 2) {
        for (int k = 0; k < NSIZES + NBIG; k++) {
            size_t n = k < NSIZES ? g_sizes[k] : g_big[k - NSIZES];
            unsigned char *p = (unsigned char *)merino_aligned_alloc(align, n);
            CHECK_MSG(p && ((uintptr_t)p & (align - 1)) == 0, "aligned_alloc(%zu, %zu) = %p", align, n, (void *)p);
            size_t usable = merino_usable_size(p);
            CHECK_MSG(usable >= n, "aligned_alloc(%zu, %zu): usable size %zu", align, n, usable);
            at_fill(p, usable, align);
            CHECK(at_check(p, usable, align) < 0);
            CHECK_MSG(merino_usable_size(p) == usable, "aligned_alloc(%zu, %zu): writing its usable size "
                      "changed it (its header is inside the object)", align, n);
            if (h.n < NHAND)
                h.p[h.n++] = p;
            else
                merino_free(p);
        }
    }
    pthread_t t;
    CHECK(pthread_create(&t, NULL, free_all, &h) == 0);
    pthread_join(t, NULL);
    printf("test_alloc_align: %d aligned allocations checked, %d non-powers of two rejected\n", pow2, rejected);
    return 0;
}
