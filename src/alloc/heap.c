/* heap.c — the registry of heaps: every heap ever made (heaps are never unmapped), the heaps of
 * exited threads waiting for a new thread to adopt them, each heap's state; the settings read at
 * start-up, fork's handlers, and the statistics printed at exit. */
#include "alloc/heap.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

mrn_block mrn_empty_block;
mrn_heap mrn_empty_heap = {.active = {[0 ... MRN_NCLASSES - 1] = &mrn_empty_block},
                           .batch_last = &mrn_empty_heap.batch[0]};
MRN_TLS mrn_heap *mrn_tls_heap = &mrn_empty_heap;

static mrn_lock mrn_heaps_lock = MRN_LOCK_INIT;
static mrn_heap *mrn_all_heaps;       /* every heap, linked through next_all */
static mrn_heap *mrn_abandoned_heaps; /* heaps of exited threads, through next_abandoned */
static pthread_key_t mrn_heap_key;
static bool mrn_show_stats;

/* ---- settings ------------------------------------------------------------------------------------ */

/* A setting's value: a whole number from 0 to 2^30; false (and the setting named on stderr, with
 * what it wants) when it is set to anything else. */
static bool mrn_number_setting(const char *name, const char *what, unsigned dflt, unsigned long long *out) {
    const char *s = getenv(name);
    if (!s || !*s) return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || *s == '-' || v > ((unsigned long long)1 << 30)) {
        mrn_say("%s=%s ignored: give %s, a whole number from 0 to 1073741824 (default %u)", name, s, what, dflt);
        return false;
    }
    *out = v;
    return true;
}

/* MERINO_ALLOC_STATS (1: statistics at exit), MERINO_ALLOC_RETAIN (KB the pool keeps resident for
 * good), MERINO_ALLOC_DECAY_MS (how long free memory beyond that stays resident) and
 * MERINO_ALLOC_CALLOC_DECOMMIT (the KB from which a calloc of recycled memory decommits its pages
 * rather than clearing them; 0, never). */
void mrn_alloc_env_read(void) {
    const char *s = getenv("MERINO_ALLOC_STATS");
    mrn_show_stats = s && s[0] == '1';
    unsigned long long v;
    if (mrn_number_setting("MERINO_ALLOC_RETAIN", "the KB of free memory the allocator keeps resident",
                           (unsigned)(MRN_POOL_KEEP * MRN_BLOCK_SIZE / 1024), &v))
        mrn_pool_keep = (size_t)(v * 1024 / MRN_BLOCK_SIZE);
    if (mrn_number_setting("MERINO_ALLOC_DECAY_MS",
                           "the milliseconds free memory stays resident before it goes back to the OS",
                           MRN_DECAY_MS, &v))
        mrn_decay_ms = v;
    if (mrn_number_setting("MERINO_ALLOC_CALLOC_DECOMMIT",
                           "the KB from which a calloc of recycled memory decommits its pages instead of "
                           "clearing them (0: never)",
                           (unsigned)(MRN_ZERO_DECOMMIT / 1024), &v))
        mrn_zero_decommit = v ? (size_t)v * 1024 : SIZE_MAX;
}

/* ---- heaps and their states ---------------------------------------------------------------------- */

/* Under the heaps lock. */
static void mrn_heap_set_state(mrn_heap *h, int state) {
    /* relaxed: the heaps lock orders it; unlocked readers take it as a hint only */
    atomic_store_explicit(&h->state, state, memory_order_relaxed);
}

/* Under the heaps lock: h goes on the abandoned list. */
static void mrn_heap_push_abandoned(mrn_heap *h) {
    mrn_heap_set_state(h, MRN_HEAP_ABANDONED);
    h->next_abandoned = mrn_abandoned_heaps;
    mrn_abandoned_heaps = h;
}

bool mrn_heap_key_create(void (*exit)(void *)) { return pthread_key_create(&mrn_heap_key, exit) == 0; }

mrn_heap *mrn_heap_acquire(void) {
    mrn_lock_acquire(&mrn_heaps_lock);
    mrn_heap *h = mrn_abandoned_heaps;
    if (h) {
        mrn_abandoned_heaps = h->next_abandoned;
        mrn_heap_set_state(h, MRN_HEAP_LIVE);
    }
    mrn_lock_release(&mrn_heaps_lock);
    if (h) {
        MRN_STAT_ADD(adopted, 1);
    } else {
        h = mrn_pool_map((sizeof(mrn_heap) + MRN_PAGE - 1) & ~(size_t)(MRN_PAGE - 1));
        if (!h) return NULL;
        for (unsigned c = 0; c < MRN_NCLASSES; c++) h->active[c] = &mrn_empty_block;
        h->batch_last = &h->batch[0];
        mrn_lock_acquire(&mrn_heaps_lock);
        mrn_heap_set_state(h, MRN_HEAP_LIVE);
        h->next_all = mrn_all_heaps;
        mrn_all_heaps = h;
        mrn_lock_release(&mrn_heaps_lock);
        MRN_STAT_ADD(heaps, 1);
    }
    mrn_tls_heap = h;
    pthread_setspecific(mrn_heap_key, h);
    return h;
}

void mrn_heap_retire(mrn_heap *h) {
    mrn_lock_acquire(&mrn_heaps_lock);
    if (mrn_heap_state(h) == MRN_HEAP_LIVE) mrn_heap_push_abandoned(h);
    mrn_lock_release(&mrn_heaps_lock);
}

bool mrn_heap_claim(mrn_heap *h) {
    mrn_lock_acquire(&mrn_heaps_lock);
    bool mine = mrn_heap_state(h) == MRN_HEAP_ABANDONED;
    if (mine) {
        mrn_heap **at = &mrn_abandoned_heaps;
        while (*at != h) at = &(*at)->next_abandoned;
        *at = h->next_abandoned;
        mrn_heap_set_state(h, MRN_HEAP_RECLAIMING);
    }
    mrn_lock_release(&mrn_heaps_lock);
    return mine;
}

void mrn_heap_unclaim(mrn_heap *h) {
    mrn_lock_acquire(&mrn_heaps_lock);
    mrn_heap_push_abandoned(h);
    mrn_lock_release(&mrn_heaps_lock);
}

/* ---- fork ---------------------------------------------------------------------------------------- */

/* fork: every global lock (heaps, pool, debug regions) is held across it, so
 * the child finds none taken by a thread it lacks. */
void mrn_fork_prepare(void) {
    mrn_lock_acquire(&mrn_heaps_lock);
    mrn_pool_lock_for_fork(true);
    mrn_mapcache_lock_for_fork(true);
#if MRN_ALLOC_DEBUG
    mrn_debug_fork(true);
#endif
}

void mrn_fork_parent(void) {
#if MRN_ALLOC_DEBUG
    mrn_debug_fork(false);
#endif
    mrn_mapcache_lock_for_fork(false);
    mrn_pool_lock_for_fork(false);
    mrn_lock_release(&mrn_heaps_lock);
}

/* In the child only this thread lives. The other threads' heaps may be mid-update: they are never
 * adopted (their memory stays with them); frees into them still work (they are pushes). */
void mrn_fork_child(void) {
    for (mrn_heap *h = mrn_all_heaps; h; h = h->next_all)
        if (mrn_heap_state(h) == MRN_HEAP_LIVE && h != mrn_tls_heap) mrn_heap_set_state(h, MRN_HEAP_LOST);
    mrn_decay_forked();
    mrn_fork_parent();
}

/* ---- statistics -------------------------------------------------------------------------------------- */

#define MRN_LOAD(f) atomic_load_explicit(&mrn_stats.f, memory_order_relaxed) /* relaxed: statistics */

__attribute__((destructor)) static void mrn_stats_at_exit(void) {
    if (!mrn_show_stats) return;
    size_t heaps[MRN_HEAP_STATES] = {0}, cold, chunks, medium_hits = 0, reused = 0;
    mrn_lock_acquire(&mrn_heaps_lock);
    for (mrn_heap *h = mrn_all_heaps; h; h = h->next_all) {
        heaps[mrn_heap_state(h)]++;
        medium_hits += atomic_load_explicit(&h->medium_hits, memory_order_relaxed); /* relaxed: statistics */
        reused += atomic_load_explicit(&h->reused, memory_order_relaxed);           /* relaxed: statistics */
    }
    mrn_lock_release(&mrn_heaps_lock);
    size_t pooled = mrn_pool_blocks(&cold, &chunks);
    mrn_say("allocator statistics (MERINO_ALLOC_STATS=1):");
    mrn_say("  mapped now %zu KB, peak %zu KB; chunks of 1 MB: %zu now, %zu mapped, %zu unmapped",
                  MRN_LOAD(mapped) >> 10, MRN_LOAD(mapped_peak) >> 10, chunks, MRN_LOAD(chunks),
                  MRN_LOAD(chunk_unmaps));
    mrn_say("  blocks taken %zu, returned %zu; in the pool %zu resident, %zu cold "
                  "(%zu decommits, %zu in %zu decay passes, %zu decay threads started; %zu cold taken); "
                  "callocs zeroed by decommit %zu",
                  MRN_LOAD(block_gets), MRN_LOAD(block_puts), pooled, cold, MRN_LOAD(decommits),
                  MRN_LOAD(decay_blocks), MRN_LOAD(decays), MRN_LOAD(decay_threads), MRN_LOAD(recommits),
                  MRN_LOAD(zero_decommits));
    mrn_say("  large objects %zu (%zu MB): %zu reused whole, %zu built of cached pieces (%zu MB moved), %zu grown "
            "in place; %zu mappings given back, %zu KB cached now", MRN_LOAD(large), MRN_LOAD(large_bytes) >> 20,
            MRN_LOAD(large_reused), MRN_LOAD(large_gathered), MRN_LOAD(large_moved_kb) >> 10,
            MRN_LOAD(large_grown_in_place), MRN_LOAD(large_given_back), mrn_mapcache_held() >> 10);
    mrn_say("  medium runs from the heap's cache %zu, from the pool %zu", medium_hits, MRN_LOAD(medium_misses));
    mrn_say("  frees by other threads %zu, in %zu batches (%zu buffers made); %zu other threads' objects "
                  "reused by the freeing thread", MRN_LOAD(remote_frees), MRN_LOAD(remote_flushes),
                  MRN_LOAD(remote_bufs), reused);
    mrn_say("  heaps made %zu, adopted %zu times; now live %zu, abandoned %zu, lost to fork %zu",
                  MRN_LOAD(heaps), MRN_LOAD(adopted), heaps[MRN_HEAP_LIVE], heaps[MRN_HEAP_ABANDONED],
                  heaps[MRN_HEAP_LOST]);
}
