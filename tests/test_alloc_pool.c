/* The pool of blocks (src/alloc/chunks.c) driven directly by two threads: runs of 1 to 63 blocks (62
 * in debug builds)
 * taken and given back in random order, with a small resident bound so that trims (decommits of
 * runs in transit, unmapped chunks) happen all along. Checks that runs never overlap (each block of a
 * run carries the run's stamp, checked before the run goes back), that a run said to read as zero
 * does, that freed neighbours merge (chunks filled with short runs, given back in random order, each
 * give a whole-chunk run without a new chunk), and that a trim to nothing unmaps every chunk. */
#include "check.h"

#include "alloc_test.h"

#include "alloc/alloc.h" /* the pool's functions and counters, linked from libmerino.a */

enum { SLOTS = 64, THREADS = 2 };

typedef struct run {
    mrn_block *b; /* the header of its first block */
    unsigned k;
    uint64_t tag;
} run;

static long g_rounds;
static uint64_t g_seed;

/* The words a run's stamp sits in: the first of each block, and the run's last. */
static uint64_t *word(const run *r, unsigned i) {
    return (uint64_t *)(mrn_block_data(r->b) + (size_t)i * MRN_BLOCK_SIZE);
}
static uint64_t *last_word(const run *r) {
    return (uint64_t *)(mrn_block_data(r->b) + (size_t)r->k * MRN_BLOCK_SIZE - 8);
}

static void take(run *r, uint64_t *s) {
    uint64_t x = at_next(s);
    r->k = (x & 3) ? 1 + (unsigned)(x >> 8) % 8 : 1 + (unsigned)(x >> 8) % MRN_CHUNK_USABLE; /* short runs more often */
    r->tag = at_next(s);
    bool zero = false;
    r->b = mrn_pool_get(r->k, &zero);
    CHECK(r->b != NULL);
    CHECK_MSG(((uintptr_t)r->b & (MRN_BLOCK_HDR - 1)) == 0 && mrn_block_of(word(r, 0)) == r->b,
              "run header %p is not the header of its first block", (void *)r->b);
    for (unsigned i = 0; i < r->k; i++) {
        if (zero) CHECK_MSG(*word(r, i) == 0, "a run said to read as zero has %#llx in block %u",
                            (unsigned long long)*word(r, i), i);
        *word(r, i) = r->tag + i;
    }
    if (zero) CHECK(*last_word(r) == 0);
    *last_word(r) = ~r->tag;
}

static void give_back(run *r) {
    for (unsigned i = 0; i < r->k; i++)
        CHECK_MSG(*word(r, i) == r->tag + i, "block %u of a run of %u at %p was overwritten: two runs overlap",
                  i, r->k, (void *)r->b);
    CHECK(*last_word(r) == ~r->tag);
    mrn_pool_put(r->b, r->k);
    r->b = NULL;
}

static void *churn(void *arg) {
    uint64_t s = g_seed + (uint64_t)(uintptr_t)arg;
    run slots[SLOTS] = {{0}};
    for (long i = 0; i < g_rounds; i++) {
        run *r = &slots[at_next(&s) % SLOTS];
        if (r->b)
            give_back(r);
        else
            take(r, &s);
    }
    for (int i = 0; i < SLOTS; i++)
        if (slots[i].b) give_back(&slots[i]);
    return NULL;
}

static size_t chunks_now(void) {
    size_t cold, chunks;
    mrn_pool_blocks(&cold, &chunks);
    return chunks;
}

static size_t resident_free(void) {
    size_t cold, chunks;
    return mrn_pool_blocks(&cold, &chunks);
}

/* The decay's states, one thread, the clock waited on: free blocks up to mrn_pool_keep stay; beyond
 * it nothing goes back before the period, and a tick after it gives back down to the bound, from
 * the chunks freed into long enough ago only. */
static void decay_states(void) {
    mrn_pool_keep = 16;
    mrn_decay_ms = 250; /* long enough that a preemption between a put and its check is no age */
    size_t d0 = atomic_load(&mrn_stats.decommits);
    /* Two chunks' worth of runs of R blocks (3 per chunk: whole chunks but for debug builds' two
     * blocks left, never touched: cold). */
    enum { R = MRN_CHUNK_USABLE / 3 };
    mrn_block *old[3], *young[3];
    for (int i = 0; i < 3; i++) old[i] = mrn_pool_get(R, NULL);
    for (int i = 0; i < 3; i++) young[i] = mrn_pool_get(R, NULL);
    CHECK(old[0] && young[0]);
    for (int i = 0; i < 3; i++) memset(mrn_block_data(old[i]), 1, R * MRN_BLOCK_SIZE), memset(mrn_block_data(young[i]), 1, R * MRN_BLOCK_SIZE);
    mrn_pool_put(old[0], R); /* R free blocks: above the bound, the decay is now pending */
    mrn_pool_tick();
    CHECK_MSG(resident_free() == R && atomic_load(&mrn_stats.decommits) == d0,
              "%zu free blocks resident, %zu decommitted at once: memory went back before the decay period",
              resident_free(), (size_t)atomic_load(&mrn_stats.decommits) - d0);
    mrn_pool_put(old[1], R);
    mrn_pool_put(old[2], R);
    check_sleep(0.3); /* the old chunk ages past the period */
    for (int i = 0; i < 3; i++) mrn_pool_put(young[i], R); /* the other chunk is freed into now */
    mrn_pool_tick();
    size_t left = resident_free(), d1 = atomic_load(&mrn_stats.decommits) - d0;
    /* The old chunk's 3R blocks went back, decommitted or unmapped; the young one's stay. */
    CHECK_MSG(left == 3 * R, "%zu free blocks resident after the old chunk's period (%zu decommitted): want the "
              "young chunk's %d, the old one's given back", left, d1, 3 * R);
    check_sleep(0.3);
    mrn_pool_tick(); /* now the young one too, down to the bound */
    left = resident_free();
    CHECK_MSG(left <= 16, "%zu free blocks resident after every chunk's period: want at most the bound, 16", left);
    mrn_pool_trim(0);
    printf("test_alloc_pool: decay: nothing given back before the period; after it, only the chunk freed into "
           "long enough ago; then the other, down to the bound (%zu left)\n", left);
}

int main(void) {
    g_seed = at_seed("test_alloc_pool");
    g_rounds = (long)(20000 * check_scale());
    mrn_pool_keep = 16; /* trims all along (no heap exists yet: nothing else reads it) */
    mrn_decay_ms = 0;   /* at once: no waiting for the decay */
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) CHECK(pthread_create(&t[i], NULL, churn, (void *)(uintptr_t)i) == 0);
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    size_t decommits = atomic_load(&mrn_stats.decommits), unmaps = atomic_load(&mrn_stats.chunk_unmaps);
    CHECK_MSG(decommits > 0 && unmaps > 0, "no trim happened (%zu blocks decommitted, %zu chunks unmapped): "
              "the test did not test it", decommits, unmaps);

    /* Merging: with no trims now, fill some chunks with short runs, give them back in random order;
     * then every chunk mapped holds one free run of all its blocks. */
    mrn_pool_keep = (size_t)1 << 20;
    enum { MANY = 4 * MRN_CHUNK_USABLE };
    static run many[MANY];
    uint64_t s = g_seed;
    for (int i = 0; i < MANY; i++) take(&many[i], &s);
    for (int i = MANY - 1; i > 0; i--) { /* shuffle */
        int j = (int)(at_next(&s) % (uint64_t)(i + 1));
        run x = many[i];
        many[i] = many[j];
        many[j] = x;
    }
    for (int i = 0; i < MANY; i++) give_back(&many[i]);
    size_t left = chunks_now(), mapped = atomic_load(&mrn_stats.chunks);
    CHECK(left >= 2);
    for (size_t i = 0; i < left; i++) {
        many[i].b = mrn_pool_get(MRN_CHUNK_USABLE, NULL);
        CHECK(many[i].b != NULL);
    }
    CHECK_MSG(atomic_load(&mrn_stats.chunks) == mapped, "%zu whole-chunk runs mapped %zu new chunks with %zu "
              "chunks entirely free: freed blocks do not merge", left,
              (size_t)atomic_load(&mrn_stats.chunks) - mapped, left);
    for (size_t i = 0; i < left; i++) mrn_pool_put(many[i].b, MRN_CHUNK_USABLE);

    mrn_pool_trim(0);
    CHECK_MSG(chunks_now() == 0, "%zu chunks still mapped after a trim to nothing with every block free", chunks_now());
    decay_states();
    printf("test_alloc_pool: %d threads x %ld runs of 1..%d blocks; %zu blocks decommitted, %zu chunks unmapped "
           "along the way; %zu chunks of short runs given back merged into whole runs; all unmapped by a trim\n",
           THREADS, g_rounds, MRN_CHUNK_USABLE, decommits, unmaps, left);
    return 0;
}
