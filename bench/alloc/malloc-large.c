/* malloc-large.c — large buffers reused, in the two shapes of mimalloc-bench's "malloc-large":
 *   random: 20 slots; again and again a random slot gets a new buffer of a random size from 5 to
 *           25 MiB, zeroed whole (as C++'s make_unique<char[]>(n) does), before the slot's old
 *           buffer is freed — up to 20 live (21 for a moment), 2000 buffers at scale 1;
 *   fixed:  one buffer of 2 MiB allocated, written whole and freed, 5000 times at scale 1.
 * With THREADS above 1 each thread runs the shape with slots of its own, the buffers shared out.
 * Every buffer is checked before it is freed (its stamps at both ends, and one byte of each page
 * as the shape wrote it). Ops: the buffers' 4 KB pages allocated and written (a shape's buffers
 * differ in size: its pages are what it pays for). */
#include "alloc-bench.h"

enum { SLOTS = 20, PAGE = 4096 };
#define MIB ((size_t)1 << 20)

typedef struct worker {
    int id;
    long iterations;
    int random; /* the random shape, else the fixed one */
    long pages;
} worker;

/* Checks p (n bytes, filled with fill and stamped with key): the stamps, one byte of each page. */
static void check(const unsigned char *p, size_t n, uint64_t key, unsigned char fill) {
    ab_verify(p, n, key, "malloc-large");
    for (size_t i = 8 + PAGE; i + 8 < n; i += PAGE)
        if (p[i] != fill) {
            fprintf(stderr, "malloc-large: VERIFY FAILED: byte %zu of the buffer %p (%zu bytes) is %u, not %u\n", i,
                    (const void *)p, n, p[i], fill);
            abort();
        }
}

static unsigned char *get(size_t n) {
    unsigned char *p = (unsigned char *)malloc(n);
    if (!p) {
        fprintf(stderr, "malloc-large: out of memory (%zu bytes)\n", n);
        exit(1);
    }
    /* p opaque to the compiler: malloc and a memset of zeros are not fused into a calloc (which
     * would not write the pages), and the memset is not dropped */
    __asm__ volatile("" : "+r"(p) : : "memory");
    return p;
}

static void *run(void *arg) {
    worker *w = (worker *)arg;
    uint64_t rng = 0x9e3779b97f4a7c15ull * (uint64_t)(w->id + 42);
    if (!w->random) {
        size_t n = 2 * MIB;
        for (long i = 0; i < w->iterations; i++) {
            unsigned char fill = (unsigned char)('a' + i % 26);
            unsigned char *p = get(n);
            memset(p, fill, n); /* written whole */
            uint64_t key = (uint64_t)(uintptr_t)p ^ (uint64_t)i;
            ab_stamp(p, n, key);
            check(p, n, key, fill);
            free(p);
            w->pages += (long)(n / PAGE);
        }
        return NULL;
    }
    unsigned char *slot[SLOTS] = {0};
    size_t len[SLOTS] = {0};
    for (long i = 0; i < w->iterations; i++) {
        uint64_t r = ab_rand(&rng);
        unsigned s = (unsigned)(r % SLOTS);
        size_t n = 5 * MIB + (size_t)((r >> 8) % (20 * MIB + 1));
        unsigned char *p = get(n);
        memset(p, 0, n); /* value-initialized, as make_unique<char[]>(n) */
        ab_stamp(p, n, (uint64_t)(uintptr_t)p ^ n);
        if (slot[s]) { /* the new buffer first, then the old one freed: as a unique_ptr's assignment */
            check(slot[s], len[s], (uint64_t)(uintptr_t)slot[s] ^ len[s], 0);
            free(slot[s]);
        }
        slot[s] = p;
        len[s] = n;
        w->pages += (long)((n + PAGE - 1) / PAGE);
    }
    for (unsigned s = 0; s < SLOTS; s++)
        if (slot[s]) {
            check(slot[s], len[s], (uint64_t)(uintptr_t)slot[s] ^ len[s], 0);
            free(slot[s]);
        }
    return NULL;
}

int main(int argc, char **argv) {
    ab_args a = ab_parse(argc, argv, "random|fixed");
    int random = strcmp(a.mode, "fixed") != 0;
    if (*a.mode && strcmp(a.mode, "random") && strcmp(a.mode, "fixed")) {
        fprintf(stderr, "malloc-large: mode %s unknown: give random or fixed\n", a.mode);
        return 2;
    }
    long total = (long)((random ? 2000 : 5000) * a.scale) + 1;
    worker *w = (worker *)calloc((size_t)a.threads, sizeof *w);
    for (int i = 0; i < a.threads; i++) w[i] = (worker){i, total / a.threads + 1, random, 0};
    double t = ab_run_threads(a.threads, run, w, sizeof *w);
    long pages = 0;
    for (int i = 0; i < a.threads; i++) pages += w[i].pages;
    free(w);
    ab_report(random ? "malloc-large-random" : "malloc-large-fixed", &a, (double)pages, t, ab_rss_kb());
    return 0;
}
