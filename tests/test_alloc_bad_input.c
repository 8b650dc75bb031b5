/* Bad input to the allocator, as the C standard and POSIX say: free(NULL) does nothing,
 * realloc(NULL, n) allocates, an alignment that is not a power of two fails with EINVAL, a size
 * whose rounding or multiplication overflows fails with ENOMEM (never a small object). Also:
 * MERINO_ALLOC_STATS=1 prints statistics at exit (a child); the settings, bad and good. */
#include "check.h"

#include "alloc_test.h"

#include <errno.h>

/* The sizes below are too large on purpose. */
#pragma GCC diagnostic ignored "-Walloc-size-larger-than="

#define CHECK_FAILS(call, err)                                                                     \
    do {                                                                                           \
        errno = 0;                                                                                 \
        void *check__p = (call);                                                                   \
        CHECK_MSG(check__p == NULL && errno == (err), #call " = %p, errno %d (want NULL, %d)",     \
                  check__p, errno, err);                                                           \
    } while (0)

/* The "calloc" child with setting (an environment entry), which must have zeroed by decommit this
 * many of its callocs of recycled memory (the two after the first). */
static void calloc_child(const char *setting, int decommits) {
    check_child c = check_run_child("calloc", (const char *const[]){"MERINO_ALLOC_STATS=1", setting, NULL}, 30);
    CHECK_CHILD(c, c.exited && c.code == 0);
    char want[64];
    snprintf(want, sizeof want, "callocs zeroed by decommit %d\n", decommits);
    CHECK_MSG(strstr(c.err, want) != NULL, "with %s, the statistics do not say '%.*s':\n%s", setting,
              (int)strlen(want) - 1, want, c.err);
    check_child_free(&c);
}

static int run_child(const char *name) {
    if (strcmp(name, "stats") == 0) {
        void *p[100];
        for (int i = 0; i < 100; i++) p[i] = merino_malloc((size_t)i * 1000 + 1);
        for (int i = 0; i < 100; i++) merino_free(p[i]);
        return 0;
    }
    if (strcmp(name, "calloc") == 0) { /* a calloc of a recycled medium run must read as zero */
        enum { N = 100 * 1024 };
        for (int round = 0; round < 3; round++) {
            unsigned char *p = merino_calloc(1, N);
            CHECK(p != NULL);
            for (size_t i = 0; i < N; i++) CHECK_MSG(p[i] == 0, "calloc'd byte %zu reads %d (round %d)", i, p[i], round);
            memset(p, 0xa5, N); /* dirty for the next round's calloc, which gets the same run back */
            merino_free(p);
        }
        return 0;
    }
    return 99;
}

int main(int argc, char **argv) {
    const char *child = check_child_name(argc, argv);
    if (child) return run_child(child);

    merino_free(NULL);
    CHECK_EQ_UINT(merino_usable_size(NULL), 0);
    void *p = merino_realloc(NULL, 100);
    CHECK(p != NULL && merino_usable_size(p) >= 100);
    CHECK(merino_realloc(p, 0) == NULL); /* frees, as glibc does */
    p = merino_malloc(0);
    void *q = merino_malloc(0);
    CHECK(p != NULL && q != NULL && p != q);
    merino_free(p);
    merino_free(q);

    /* Sizes that overflow when rounded up, or are more than the address space. */
    CHECK_FAILS(merino_malloc(SIZE_MAX), ENOMEM);
    CHECK_FAILS(merino_malloc(SIZE_MAX - 4096), ENOMEM);
    CHECK_FAILS(merino_malloc((size_t)PTRDIFF_MAX + 1), ENOMEM);
    CHECK_FAILS(merino_calloc(SIZE_MAX / 2, 3), ENOMEM);
    CHECK_FAILS(merino_calloc((size_t)1 << 40, (size_t)1 << 40), ENOMEM);
    CHECK_FAILS(merino_aligned_alloc(64, SIZE_MAX - 10), ENOMEM);
    CHECK_FAILS(merino_aligned_alloc((size_t)1 << 20, SIZE_MAX - (1 << 19)), ENOMEM);
    CHECK_FAILS(merino_aligned_alloc((size_t)1 << 63, 1), ENOMEM);
    CHECK_FAILS(merino_aligned_alloc((size_t)1 << 62, 100), ENOMEM);
    p = merino_malloc(10);
    CHECK_FAILS(merino_realloc(p, SIZE_MAX - 1), ENOMEM);
    CHECK(merino_usable_size(p) >= 10); /* a failed realloc leaves the object as it was */
    merino_free(p);

    /* Alignments that are not powers of two. */
    CHECK_FAILS(merino_aligned_alloc(0, 8), EINVAL);
    CHECK_FAILS(merino_aligned_alloc(3, 8), EINVAL);
    CHECK_FAILS(merino_aligned_alloc(48, 100), EINVAL);
    CHECK_FAILS(merino_aligned_alloc(SIZE_MAX, 1), EINVAL);
    CHECK_FAILS(merino_aligned_alloc(((size_t)1 << 63) + 1, 1), EINVAL);

    check_child c = check_run_child("stats", (const char *const[]){"MERINO_ALLOC_STATS=1", NULL}, 30);
    CHECK_CHILD(c, c.exited && c.code == 0);
    CHECK_STR_CONTAINS(c.err, "allocator statistics");
    CHECK_STR_CONTAINS(c.err, "medium runs from the heap's cache");
    CHECK_STR_CONTAINS(c.err, "chunks of 1 MB");
    check_child_free(&c);
    /* A bad MERINO_ALLOC_RETAIN is named, with what is accepted, and ignored. */
    c = check_run_child("stats", (const char *const[]){"MERINO_ALLOC_RETAIN=12x", "-MERINO_ALLOC_STATS", NULL}, 30);
    CHECK_CHILD(c, c.exited && c.code == 0);
    CHECK_STR_CONTAINS(c.err, "MERINO_ALLOC_RETAIN=12x ignored");
    CHECK_STR_CONTAINS(c.err, "from 0 to");
    check_child_free(&c);
    c = check_run_child("stats", (const char *const[]){"MERINO_ALLOC_DECAY_MS=-5", "-MERINO_ALLOC_STATS", NULL}, 30);
    CHECK_CHILD(c, c.exited && c.code == 0);
    CHECK_STR_CONTAINS(c.err, "MERINO_ALLOC_DECAY_MS=-5 ignored");
    CHECK_STR_CONTAINS(c.err, "milliseconds");
    check_child_free(&c);
    c = check_run_child("stats", (const char *const[]){"MERINO_ALLOC_DECAY_MS=0", "-MERINO_ALLOC_STATS", NULL}, 30);
    CHECK_CHILD(c, c.exited && c.code == 0 && c.err[0] == 0);
    check_child_free(&c);
    c = check_run_child("stats", (const char *const[]){"MERINO_ALLOC_RETAIN=0", "-MERINO_ALLOC_STATS", NULL}, 30);
    CHECK_CHILD(c, c.exited && c.code == 0 && c.err[0] == 0);
    check_child_free(&c);
    c = check_run_child("stats", (const char *const[]){"-MERINO_ALLOC_STATS", NULL}, 30);
    CHECK_CHILD(c, c.exited && c.code == 0 && c.err[0] == 0);
    check_child_free(&c);
    /* MERINO_ALLOC_CALLOC_DECOMMIT: a calloc of recycled memory is decommitted from 48 KB on by
     * default, never with 0, not below the size given; it reads as zero every way. */
    c = check_run_child("calloc", (const char *const[]){"MERINO_ALLOC_CALLOC_DECOMMIT=1e3", "-MERINO_ALLOC_STATS", NULL}, 30);
    CHECK_CHILD(c, c.exited && c.code == 0);
    CHECK_STR_CONTAINS(c.err, "MERINO_ALLOC_CALLOC_DECOMMIT=1e3 ignored");
    CHECK_STR_CONTAINS(c.err, "(default 48)");
    check_child_free(&c);
    calloc_child("-MERINO_ALLOC_CALLOC_DECOMMIT", 2); /* 100 KB from 48 KB on: decommitted */
    calloc_child("MERINO_ALLOC_CALLOC_DECOMMIT=0", 0);
    calloc_child("MERINO_ALLOC_CALLOC_DECOMMIT=101", 0);
    calloc_child("MERINO_ALLOC_CALLOC_DECOMMIT=100", 2);
    printf("test_alloc_bad_input: NULL, zero, overflowing sizes and bad alignments as the standard says; stats at exit; a bad MERINO_ALLOC_RETAIN, MERINO_ALLOC_DECAY_MS or MERINO_ALLOC_CALLOC_DECOMMIT; calloc's decommit threshold\n");
    return 0;
}
