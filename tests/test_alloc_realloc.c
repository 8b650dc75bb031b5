/* merino_realloc grows and shrinks objects through every size range (small classes, medium,
 * large), keeping their contents up to the smaller size; realloc(NULL, n) allocates; contents
 * survive reallocation by another thread than the one that allocated. */
#include "check.h"

#include "alloc_test.h"

static void walk(uint64_t *s, const size_t *sizes, int n, uint64_t tag) {
    unsigned char *p = (unsigned char *)merino_realloc(NULL, sizes[0]);
    CHECK(p != NULL);
    at_fill(p, sizes[0], tag);
    for (int i = 1; i < n; i++) {
        size_t keep = sizes[i] < sizes[i - 1] ? sizes[i] : sizes[i - 1];
        unsigned char *q = (unsigned char *)merino_realloc(p, sizes[i]);
        CHECK_MSG(q != NULL, "realloc(%p, %zu) failed", (void *)p, sizes[i]);
        long bad = at_check(q, keep, tag);
        CHECK_MSG(bad < 0, "realloc %zu -> %zu: byte %ld lost", sizes[i - 1], sizes[i], bad);
        CHECK(merino_usable_size(q) >= sizes[i]);
        at_fill(q, sizes[i], tag);
        p = q;
    }
    (void)s;
    merino_free(p);
}

static void *grow_in_thread(void *arg) {
    uint64_t s = *(uint64_t *)arg;
    size_t sizes[40];
    for (int i = 0; i < 40; i++) sizes[i] = at_size(&s, 300000);
    walk(&s, sizes, 40, at_next(&s));
    return NULL;
}

int main(void) {
    uint64_t seed = at_seed("test_alloc_realloc");
    /* Growth by steps of 1..x2 from 1 byte to 4 MB, and back down. */
    size_t up[64], down[64];
    int n = 0;
    for (size_t v = 1; v <= (4u << 20) && n < 64; v = v * 3 / 2 + 1) up[n++] = v;
    for (int i = 0; i < n; i++) down[i] = up[n - 1 - i];
    walk(&seed, up, n, 1);
    walk(&seed, down, n, 2);
    /* Every size one byte at a time across the small/medium border. */
    static size_t fine[2000];
    for (int i = 0; i < 2000; i++) fine[i] = 7000 + (size_t)i;
    walk(&seed, fine, 2000, 3);
    /* Random walks, some in other threads; and an object allocated here grown elsewhere. */
    for (int r = 0; r < 200; r++) {
        size_t sizes[30];
        for (int i = 0; i < 30; i++) sizes[i] = at_size(&seed, 300000);
        walk(&seed, sizes, 30, at_next(&seed));
    }
    pthread_t t[4];
    uint64_t seeds[4];
    for (int i = 0; i < 4; i++) {
        seeds[i] = at_next(&seed);
        CHECK(pthread_create(&t[i], NULL, grow_in_thread, &seeds[i]) == 0);
    }
    for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
    /* Shrinking by a little keeps the object; by more than half moves it. */
    unsigned char *p = (unsigned char *)merino_malloc(1000);
    CHECK(merino_realloc(p, 900) == p);
    merino_free(p);
    printf("test_alloc_realloc: growth to 4 MB, shrink, 2000 one-byte steps, 204 random walks: contents kept\n");
    return 0;
}
