/* alloc.h — the allocator's internals shared by all its files (never included by users): sizes,
 * block headers, and the functions of its lower files (os.c, chunks.c and trim.c, large.c,
 * debug.c); heaps are in heap.h, blocks of a heap in block.h, frees by other threads in remote.h,
 * the pool's state in chunks.h.
 *
 * Memory comes from the OS in chunks of 1 MB aligned to 1 MB: 64 blocks of 16 KB, the first (two in
 * debug builds) the chunk's header (chunks.c). A block serves one size class of one thread's heap; its
 * header (mrn_block, 128 bytes) says everything free needs. The headers of a chunk's blocks sit side
 * by side in its first block, so that a program using many blocks does not make every header compete
 * for the same cache sets (a header at each 16 KB boundary maps to one set of each cache level); one
 * is found from any object by arithmetic on the address: mrn_block_of(p). A medium object is a run
 * of blocks with the header of its first, a large one a mapping of its own laid out so that the same
 * arithmetic finds its header, so free tells them apart by the header alone. See docs/alloc.md.
 *
 * Files, each calling only those after it: api.c (calloc, realloc, usable size), malloc.c (the
 * fast paths, then the slow paths, aligned objects, a thread's start and exit), remote.c (frees by
 * other threads), heap.c (heaps: registry, settings, fork, statistics), block.c (blocks of a heap),
 * large.c (large objects), medium.c (medium ones), chunks.c (the pool of free blocks), decay.c (the
 * decay thread), trim.c (what the pool gives back to the OS), mapcache.c (the cache of freed large
 * mappings), schedule.c (when the decays are due), debug.c (debug builds' checks), os.c; and src/sys
 * below them all.
 */
#ifndef MERINO_ALLOC_INTERNAL_H
#define MERINO_ALLOC_INTERNAL_H

#include "sys/sys.h" /* first: it asks for the GNU declarations */

#include "sys/lock.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if !defined(NDEBUG) || defined(MERINO_DEBUG)
#define MRN_ALLOC_DEBUG 1 /* double-free and foreign-pointer checks; a bitmap in each block */
#else
#define MRN_ALLOC_DEBUG 0
#endif

/* Internal functions shared between the allocator's files: hidden from the shared libraries. */
#define MRN_HIDDEN __attribute__((visibility("hidden")))
/* Thread-locals: initial-exec, one %fs-relative access, and never __tls_get_addr (which may
 * allocate, and would call malloc from inside it). */
#define MRN_TLS __thread __attribute__((tls_model("initial-exec")))

/* ---- sizes ---------------------------------------------------------------------------------------- */

#define MRN_BLOCK_SIZE ((uintptr_t)16384)
#define MRN_CHUNK_BLOCKS 64 /* 1 MB chunks */
#define MRN_CHUNK_SIZE (MRN_CHUNK_BLOCKS * MRN_BLOCK_SIZE)
#define MRN_PAGE 4096
/* Block header: two lines. The first is read by every thread that frees into the block and written
 * only when the block changes hands or state; the second is the owner's, written at every malloc
 * and free: a foreign free must not pull the line the owner is writing (with one line, each free
 * by another thread of an object from a block its owner allocates from cost a line transfer each
 * way). The headers of a chunk's 64 blocks fill the first 8 KB of its first block (the first
 * header's place holds the pool's chunk record). Debug builds add a bitmap of allocated objects per
 * block (one bit per object, at most 2048 objects of 8 bytes), after the headers: the chunk's
 * header takes two blocks there. */
#define MRN_BLOCK_HDR 128
#define MRN_BITMAP_WORDS 32
#define MRN_BITMAP_AT (MRN_CHUNK_BLOCKS * MRN_BLOCK_HDR) /* debug: the bitmaps' offset in a chunk */
#define MRN_CHUNK_HDR_BLOCKS (MRN_ALLOC_DEBUG ? 2 : 1)
#define MRN_CHUNK_USABLE (MRN_CHUNK_BLOCKS - MRN_CHUNK_HDR_BLOCKS) /* blocks a chunk hands out */
/* The largest small object: two per block (objects fill the whole block). */
#define MRN_SMALL_MAX ((size_t)MRN_BLOCK_SIZE / 2)
#define MRN_NCLASSES 29
/* Medium objects (above MRN_SMALL_MAX) are runs of contiguous blocks from the pool, as many as
 * they need, up to MRN_CHUNK_USABLE (a chunk less its header); a heap keeps a few freed short runs (up to
 * MRN_MEDIUM_CACHED blocks) of each length for its next allocations, so they need not take the
 * pool's lock; longer runs go back to the pool, where freed neighbours merge into longer runs and
 * serve any size. Larger objects have mappings of their own. */
#define MRN_MEDIUM_MAX ((size_t)MRN_CHUNK_USABLE * MRN_BLOCK_SIZE)
#define MRN_MEDIUM_CACHED 8                     /* runs of 1..8 blocks are cached in the heap */
#define MRN_MEDIUM_KEEP 32                      /* cached runs per length and heap (1 MB bounds them) */
#define MRN_MEDIUM_KEEP_BYTES (1024 * 1024)     /* and at most this much per heap */
/* A calloc of a recycled medium run of at least this many bytes decommits its whole pages instead
 * of clearing them (large.c: mrn_medium_zero); MERINO_ALLOC_CALLOC_DECOMMIT overrides it, in KB (0:
 * never, clear them all). */
#define MRN_ZERO_DECOMMIT ((size_t)48 * 1024)
MRN_HIDDEN extern size_t mrn_zero_decommit; /* written once at initialization, before any heap exists */
/* Free blocks kept resident in the global pool (MERINO_ALLOC_RETAIN overrides it, in KB): past
 * twice this, the pool gives back (unmaps entirely free chunks, decommits other free blocks) down to
 * this; a thread's exit trims it to half of this. */
#define MRN_POOL_KEEP 64
MRN_HIDDEN extern size_t mrn_pool_keep; /* written once at initialization, before any heap exists */
/* Free blocks beyond mrn_pool_keep go back to the OS once their chunk has had nothing freed into it
 * for this many milliseconds (MERINO_ALLOC_DECAY_MS overrides it); 0 gives them back at once. */
#define MRN_DECAY_MS 100
MRN_HIDDEN extern uint64_t mrn_decay_ms; /* as mrn_pool_keep */
/* Frees of other heaps' objects wait in the freeing thread in batches of up to this many objects
 * and bytes, one batch per owning heap, MRN_BATCHES batches at once. Long batches let the owner
 * take them in longer lists, less often; the byte bound keeps what waits small for large objects
 * (8 x 64 KB at most, and one medium object each). */
#define MRN_BATCH_MAX 256
/* Reuse of other heaps' objects: a thread whose frees are mostly of other heaps' objects (more
 * than a quarter of them, over roughly its last MRN_REUSE_WINDOW objects) keeps those of classes
 * below MRN_REUSE_CLASSES for its own next allocations, as tcmalloc's thread cache does, instead of
 * sending them home: a list per class in a pseudo-block the class's active pointer points to while
 * it holds objects (malloc's fast path pops it as any block), up to MRN_REUSE_MAX objects. A thread
 * with few foreign frees never reuses: the object a thread is handed and frees shares its line
 * with others' (Hoard's passive false sharing), and reused objects stay their owner's, so freeing
 * them again is a foreign free. docs/alloc.md. */
#define MRN_REUSE_CLASSES 19 /* objects up to 1008 bytes */
#define MRN_REUSE_MAX 256
#define MRN_REUSE_WINDOW 65536
#define MRN_BATCH_BYTES (64 * 1024)
#define MRN_BATCHES 8
/* The own cache: classes from MRN_OWN_CLASS on (objects of 2416 bytes and more, 2 to 6 a block)
 * would fill and empty their blocks every few objects, each time a slow path on malloc (the next
 * block, its header and first object cold) and on free (a full block listed again). Their blocks
 * carry MRN_TAG_OWN, so the owner's free leaves the fast path and keeps the object in the class's
 * pseudo-block (as reuse does, LIFO, up to MRN_OWN_BYTES of objects: 4 to 13), which malloc's fast
 * path pops; the objects stay counted in use by their blocks. */
#define MRN_OWN_CLASS 22
#define MRN_OWN_BYTES (32 * 1024)

/* owner_tag: the owning heap's address, with flags in its low bits (heaps are page aligned). */
#define MRN_TAG_ALIGNED ((uintptr_t)2) /* holds an object returned at an offset (aligned alloc) */
#define MRN_TAG_LARGE ((uintptr_t)4)   /* a medium run (with its heap) or a large mapping (no heap) */
#define MRN_TAG_CACHED ((uintptr_t)8)  /* a medium run sitting in a heap's cache (freed) */
#define MRN_TAG_OWN ((uintptr_t)1)     /* a small block of a class the owner caches its frees of */
#define MRN_TAG_FLAGS ((uintptr_t)15)

typedef struct mrn_heap mrn_heap; /* heap.h */

typedef struct mrn_block {
    /* ---- line 0: read by foreign frees; written when the block changes owner or kind */
    /* The owning heap | flags. Written only by the owning thread (or under the pool lock when the
     * block has no owner); read by any thread freeing an object of the block. */
    _Atomic uintptr_t owner_tag;
    uint32_t size;     /* object size (a medium run: the run's bytes) */
    uint32_t cls;      /* small: size class; medium: the run's length in blocks; large: 0 */
    uint32_t count;    /* objects in the block */
    char *map_base;    /* large: the whole mapping (for munmap); medium: the run */
    size_t map_len;
    /* ---- line 1: the owner's, written at every malloc and free */
    _Alignas(64) void *free; /* private free list (owner only); large: the object's address */
    /* Objects handed out and not yet freed back to this list (owner only), plus 1 while the block
     * is its class's active one (or waits in real[] behind a pseudo-block): without the pin, an
     * active block with few objects out would empty often, each time a mispredicted branch and a
     * call that finds nothing to do. */
    uint32_t used;
    uint32_t carved;   /* small: objects put on the free list so far (the rest untouched) */
    struct mrn_block *next, *prev; /* avail list of its bin; the pool's list when free */
    /* A full block (no free object: not the active block, in no avail list; all count objects
     * handed out) has this set and used reading 1: the owner's first free into it brings used to
     * 0, the free fast path's one test, and takes the slow path that queues the block. Not a flag
     * in the tag: the tag's line is read by every thread freeing into the block, and blocks fill
     * and get a free again often. */
    bool full;
} mrn_block;

_Static_assert(sizeof(mrn_block) == MRN_BLOCK_HDR, "the block header is MRN_BLOCK_HDR bytes");
_Static_assert((MRN_BITMAP_AT + MRN_CHUNK_BLOCKS * MRN_BITMAP_WORDS * 8) <= MRN_CHUNK_HDR_BLOCKS * MRN_BLOCK_SIZE ||
                   !MRN_ALLOC_DEBUG, "the debug bitmaps fit in the chunk's header blocks");

/* The header of the block holding p (p != NULL): header i of the megabyte p - 1 lies in, i being
 * p's block in its megabyte. p - 1 for the megabyte so that a large object aligned to 1 MB or more
 * (large.c) finds its header in the megabyte below; no object of a chunk starts at a megabyte
 * boundary (block 0 is the header), so for them p - 1 is in p's megabyte. */
static inline mrn_block *mrn_block_of(const void *p) {
    uintptr_t a = (uintptr_t)p;
    return (mrn_block *)((((a - 1) & ~(MRN_CHUNK_SIZE - 1))) +
                         (((a / MRN_BLOCK_SIZE) % MRN_CHUNK_BLOCKS) * MRN_BLOCK_HDR));
}

/* The block (its first byte) whose header is b; a large object's header is in the megabyte below
 * when the object is aligned to 1 MB or more, so this is for chunks' blocks only. */
static inline char *mrn_block_data(const mrn_block *b) {
    uintptr_t m = (uintptr_t)b;
    return (char *)((m & ~(MRN_CHUNK_SIZE - 1)) + ((m % MRN_CHUNK_SIZE) / MRN_BLOCK_HDR) * MRN_BLOCK_SIZE);
}

/* The start of the object of b (a small block) that p points into. */
static inline char *mrn_object_start(mrn_block *b, const void *p) {
    size_t off = (size_t)((const char *)p - mrn_block_data(b));
    return mrn_block_data(b) + off - off % b->size;
}

/* Takes the first object of b's free list (not empty), counted in use. */
static inline void *mrn_block_pop(mrn_block *b) {
    void *p = b->free;
    b->free = *(void **)p;
    b->used++;
    return p;
}

#if MRN_ALLOC_DEBUG
/* The bitmap of b's allocated objects: bit i, object i. */
static inline _Atomic uint64_t *mrn_block_live(const mrn_block *b) {
    uintptr_t m = (uintptr_t)b;
    return (_Atomic uint64_t *)((m & ~(MRN_CHUNK_SIZE - 1)) + MRN_BITMAP_AT +
                                ((m % MRN_CHUNK_SIZE) / MRN_BLOCK_HDR) * MRN_BITMAP_WORDS * 8);
}
#endif

/* ---- OS (os.c) ------------------------------------------------------------------------------------ */

/* Anonymous read-write memory of len bytes (a multiple of the page), or NULL (errno ENOMEM). */
MRN_HIDDEN void *mrn_os_map(size_t len);
MRN_HIDDEN void mrn_os_unmap(void *p, size_t len);
/* The same for a table whose pages are touched a little at a time and never given back: not counted
 * as mapped (the statistics, and the tests' resident figures, count what the allocator holds). */
MRN_HIDDEN void *mrn_os_reserve(size_t len);
/* Gives the pages back to the OS; they read as zero when next touched. false: it failed (locked
 * pages), and they keep their bytes. */
MRN_HIDDEN bool mrn_os_decommit(void *p, size_t len);

/* ---- statistics (relaxed counters: none orders anything; they are only summed at exit) --------- */

typedef struct mrn_alloc_stats {
    _Atomic size_t mapped, mapped_peak;            /* bytes mapped from the OS, now and at most */
    _Atomic size_t chunks, chunk_unmaps;           /* chunks mapped, and unmapped */
    _Atomic size_t decommits, recommits;           /* blocks decommitted; cold blocks taken */
    _Atomic size_t decays, decay_blocks;           /* decay passes that gave memory back; their blocks */
    _Atomic size_t decay_threads;                  /* decay threads started (decay.c) */
    _Atomic size_t zero_decommits;                 /* callocs zeroed by decommitting (mrn_medium_zero) */
    _Atomic size_t large, large_bytes;             /* large allocations, and their bytes */
    _Atomic size_t large_reused, large_gathered;   /* taken whole from the cache; built of cached pieces */
    _Atomic size_t large_moved_kb;                 /* cached pages moved into new mappings */
    _Atomic size_t large_grown_in_place;           /* reallocs that grew an object where it lies */
    _Atomic size_t large_given_back;               /* cached mappings given back to the OS */
    _Atomic size_t medium_misses; /* (the cache's hits are counted per heap) */
    _Atomic size_t remote_frees, remote_flushes;   /* objects freed by other threads; batches */
    _Atomic size_t remote_bufs;                    /* batch buffers allocated */
    _Atomic size_t heaps, adopted;                 /* heaps made; heaps of exited threads reused */
    _Atomic size_t block_gets, block_puts;
} mrn_alloc_stats;
MRN_HIDDEN extern mrn_alloc_stats mrn_stats;
#define MRN_STAT_ADD(f, n) atomic_fetch_add_explicit(&mrn_stats.f, (n), memory_order_relaxed)
MRN_HIDDEN void mrn_stat_mapped(ptrdiff_t delta);

/* ---- the pool of free blocks (chunks.c) ------------------------------------------------------------ */

/* A run of k contiguous free blocks (1 <= k <= MRN_CHUNK_USABLE): the header of its first, NULL
 * when out of memory; *zero (if zero is not NULL) says whether all of it reads as zero. */
MRN_HIDDEN mrn_block *mrn_pool_get(unsigned k, bool *zero);
MRN_HIDDEN void mrn_pool_put(mrn_block *b, unsigned k); /* an entirely free run back to the pool */
MRN_HIDDEN void mrn_pool_trim(size_t keep);             /* gives back all but keep resident free blocks */
/* mrn_os_map for memory the allocator hands out (chunks, large objects, heaps): when the OS
 * refuses, the pool gives back every free block it holds and the map is tried once more. */
MRN_HIDDEN void *mrn_pool_map(size_t len);
/* Runs the decay if it is due: called from the slow paths (cheap when nothing is pending). */
MRN_HIDDEN void mrn_pool_tick(void);
MRN_HIDDEN void mrn_pool_lock_for_fork(bool lock); /* fork: taken before, released after (both sides) */
MRN_HIDDEN size_t mrn_pool_blocks(size_t *cold, size_t *chunks); /* resident free blocks */

/* ---- large and medium objects (large.c, medium.c) ------------------------------------------------ */

MRN_HIDDEN void *mrn_large_alloc(mrn_heap *h, size_t size, size_t align, bool zero);
MRN_HIDDEN void mrn_large_free(mrn_heap *h, mrn_block *b); /* h: the owner (medium) or NULL */
/* realloc of a large object p to size bytes without copying (in place, or its pages moved): true
 * with the result in *out (NULL: out of memory, p untouched); false when the caller must copy (an
 * aligned object's layout, a size no longer large, no room to record more pieces). */
MRN_HIDDEN bool mrn_large_resize(void *p, size_t size, void **out);
MRN_HIDDEN void *mrn_medium_alloc(mrn_heap *h, size_t size, bool zero);
MRN_HIDDEN void mrn_medium_free(mrn_heap *h, mrn_block *b); /* to h's cache, or the pool */
MRN_HIDDEN void mrn_medium_drop(mrn_heap *h); /* empties a heap's medium cache (to the pool) */
/* A run of k blocks from h's cache of freed runs (its header as a medium object's), or NULL. */
MRN_HIDDEN mrn_block *mrn_run_cached(mrn_heap *h, unsigned k);
/* b, a small block of h's whose objects are all free, kept in h's cache as a run of one block
 * (for h's next block of any class, or medium object of one block), or given to the pool. */
MRN_HIDDEN void mrn_run_keep(mrn_heap *h, mrn_block *b);

/* ---- the decays' schedule (schedule.c), and the decay thread (decay.c) ----------------------------- */

/* When the next pass of each decay is due (mrn_clock_coarse_ms), MRN_NEVER when nothing is
 * pending: the pool's (trim.c) and the cache of large mappings' (mapcache.c). Each is written
 * under its lock and read without it as a hint by mrn_pool_tick and the decay thread. */
#define MRN_NEVER UINT64_MAX
typedef struct mrn_decay_due {
    _Alignas(64) _Atomic uint64_t due; /* a line of its own (the struct's size is 64): read by every
                                        * slow path, so not on the lines the locks and counters bounce on */
    _Atomic uint64_t large;
} mrn_decay_due;
MRN_HIDDEN extern mrn_decay_due mrn_decay;
/* A decay became due sooner than before, or pending from nothing (its due just stored): wakes the
 * decay thread, or asks for one (made at the next safe point). Called with no lock held. */
MRN_HIDDEN void mrn_decay_sooner(void);
MRN_HIDDEN extern _Atomic bool mrn_decay_wanted;
/* The decay thread's state: none running, one running, or none ever (it could not be made, or a
 * fork's child); and the bell it sleeps on, rung (incremented, and the thread woken) when a pass
 * became due sooner than it sleeps for. */
enum { MRN_DECAYER_NONE, MRN_DECAYER_RUNNING, MRN_DECAYER_NEVER };
MRN_HIDDEN extern _Atomic int mrn_decayer;
MRN_HIDDEN extern _Atomic uint32_t mrn_decay_bell;
MRN_HIDDEN void mrn_decay_spawn(void);
/* Where an allocation may nest (no allocator state half updated, no lock held): makes the decay
 * thread if one was asked for. */
static inline void mrn_decay_safe_point(void) {
    /* relaxed: a request flag; mrn_decay_spawn decides */
    if (MRN_UNLIKELY(atomic_load_explicit(&mrn_decay_wanted, memory_order_relaxed))) mrn_decay_spawn();
}
MRN_HIDDEN void mrn_decay_forked(void); /* in a fork's child: none is started there */

/* ---- the cache of freed large mappings (mapcache.c) ------------------------------------------------ */

/* A range of pages lying within one of the process's mappings (mremap moves no more at once). */
typedef struct mrn_span {
    char *addr;
    size_t len;
} mrn_span;
/* A large object's mapping is built of at most this many spans (its pieces). */
#define MRN_LARGE_PIECES 32
/* The cache's entries past the retained bound go back to the OS after the decay period; all of
 * them when no large object was allocated or freed for this many periods. */
#define MRN_IDLE_PERIODS 10

/* The cached mapping that best fits need bytes from a megabyte boundary (the object's mapping:
 * its header's page, then the object): its megabyte boundary, with *len its length (need or a
 * little more); NULL when none fits. Either way the caller's object counts as in use from now. */
MRN_HIDDEN char *mrn_mapcache_take(size_t need, size_t *len);
/* Takes [addr, addr + len) if cached entries that follow one another from addr hold it, in at most
 * max pieces (counted in use): *n the pieces, cut[i] the page offset of piece i + 1 from addr. */
MRN_HIDDEN bool mrn_mapcache_take_at(char *addr, size_t len, uint32_t *cut, unsigned max, unsigned *n);
/* Moves cached pages into [dest, dest + len) (a fresh mapping), in at most max pieces from dest
 * on: returns how many bytes (a prefix), *n the pieces, cut[i] the page offset of piece i + 1. */
MRN_HIDDEN size_t mrn_mapcache_fill(char *dest, size_t len, uint32_t *cut, unsigned max, unsigned *n);
/* The spans of a freed large mapping (no longer in use); true when a decay became pending. */
MRN_HIDDEN bool mrn_mapcache_put(const mrn_span *s, unsigned n);
MRN_HIDDEN void mrn_mapcache_account(ptrdiff_t delta); /* large mapping bytes in use, made or gone */
MRN_HIDDEN void mrn_mapcache_tick(uint64_t now);       /* the decay's pass, if due at now */
MRN_HIDDEN void mrn_mapcache_drop(void);                /* everything back to the OS */
MRN_HIDDEN size_t mrn_mapcache_held(void);              /* bytes cached */
MRN_HIDDEN void mrn_mapcache_lock_for_fork(bool lock);

/* ---- debug checks (debug.c; MRN_ALLOC_DEBUG only) ------------------------------------------------- */

#if MRN_ALLOC_DEBUG
/* A mapping made or removed; object: the large object a mapping of its own holds (NULL: a chunk). */
MRN_HIDDEN void mrn_debug_region(void *start, size_t len, bool add, const void *object);
/* p lies in one of them; *object: that mapping's large object, or NULL (a chunk). */
MRN_HIDDEN bool mrn_debug_owns(const void *p, const void **object);
MRN_HIDDEN void mrn_debug_fork(bool lock);
/* Marks p (a new object, or NULL) allocated and returns it. */
MRN_HIDDEN void *mrn_debug_mark(void *p);
/* Checks that p is an allocated object's address (and marks it free if release); reports it and
 * aborts if not. what: the function the program called. */
MRN_HIDDEN void mrn_debug_check(const void *p, const char *what, bool release);
#define MRN_MARK(p) mrn_debug_mark(p)
#else
#define MRN_MARK(p) (p)
#endif

#endif /* MERINO_ALLOC_INTERNAL_H */
