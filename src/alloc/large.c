/* large.c — objects above MRN_MEDIUM_MAX (or aligned above a block past the small range): each has
 * a mapping of its own, laid out as a chunk would be so that mrn_block_of finds its header: the
 * mapping starts at a megabyte boundary m, its first page holds the header (header 1 of m's
 * megabyte, at m + 128), the object starts a block past it, at m + 16 KB. Freed, by any thread,
 * the mapping goes to the cache of freed mappings (mapcache.c), whose pages the next large
 * allocation takes: a fitting mapping whole, or pieces of several moved into the new one with
 * mremap. A mapping built of pieces records where each begins (a piece lies within one of the
 * process's mappings, which mremap needs), after its header, in header 2's place: when it is freed
 * each piece goes back on its own. realloc grows an object where it lies when it can (the cached
 * mapping right after it, or mremap in place), else moves its pages to a new mapping: never a
 * copy. medium.c has the medium objects; mrn_large_alloc chooses between them. */
#include "alloc/heap.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

static size_t mrn_round_page(size_t n) { return (n + MRN_PAGE - 1) & ~(size_t)(MRN_PAGE - 1); }
/* A mapping's length: whole megabytes, so that every cached entry and every piece is whole
 * megabytes at megabyte boundaries — pieces are never cut smaller, and any entry can start a new
 * object's mapping. */
static size_t mrn_round_mb(size_t n) { return (n + MRN_CHUNK_SIZE - 1) & ~(size_t)(MRN_CHUNK_SIZE - 1); }

/* Where a mapping built of pieces records the page offset of each piece after the first (only
 * when b->count, its number of pieces, is above 1). */
static uint32_t *mrn_large_cuts(mrn_block *b) { return (uint32_t *)(b + 1); }
_Static_assert(MRN_LARGE_PIECES * sizeof(uint32_t) <= MRN_BLOCK_HDR, "the pieces' offsets fit in a header's place");

/* ---- mappings ------------------------------------------------------------------------------------- */

/* A fresh mapping of len bytes (a page multiple) at a megabyte boundary, NULL when out of memory. */
static char *mrn_map_megabyte(size_t len) {
    char *raw = mrn_pool_map(len + MRN_CHUNK_SIZE);
    if (!raw) return NULL;
    char *m = (char *)(((uintptr_t)raw + MRN_CHUNK_SIZE - 1) & ~(uintptr_t)(MRN_CHUNK_SIZE - 1));
    if (m > raw) mrn_os_unmap(raw, (size_t)(m - raw));
    if (raw + len + MRN_CHUNK_SIZE > m + len) mrn_os_unmap(m + len, (size_t)(raw + MRN_CHUNK_SIZE - m));
    return m;
}

/* The header of the object at p (mapping [lo, lo + len) of npieces pieces starting at the offsets
 * cut, in pages): made the object's, and returns p. */
static void *mrn_large_setup(char *lo, size_t len, char *p, unsigned npieces, const uint32_t *cut) {
    mrn_block *b = mrn_block_of(p);
    b->map_base = lo;
    b->map_len = len;
    b->cls = 0;
    b->count = npieces;
    b->free = p;
    for (unsigned i = 0; i + 1 < npieces; i++) mrn_large_cuts(b)[i] = cut[i];
#if MRN_ALLOC_DEBUG
    mrn_debug_region(lo, len, true, p);
#endif
    /* relaxed: the object is published to other threads by the program's own synchronization */
    atomic_store_explicit(&b->owner_tag, MRN_TAG_LARGE, memory_order_relaxed);
    return p;
}

/* b's pieces, into s (MRN_LARGE_PIECES at most); returns their number. */
static unsigned mrn_large_pieces(mrn_block *b, mrn_span *s) {
    unsigned n = b->count > 1 ? b->count : 1;
    size_t at = 0;
    for (unsigned i = 0; i < n; i++) {
        size_t end = i + 1 < n ? (size_t)mrn_large_cuts(b)[i] * MRN_PAGE : b->map_len;
        s[i] = (mrn_span){b->map_base + at, end - at};
        at = end;
    }
    return n;
}

/* Gives the mapping spans s (n of them) to the cache. */
static void mrn_large_give(const mrn_span *s, unsigned n) {
    if (mrn_mapcache_put(s, n)) mrn_decay_sooner();
}

/* ---- allocation ------------------------------------------------------------------------------------ */

/* An object of size bytes aligned above a block: a fresh mapping of its own at its alignment, its
 * header found as alloc.h says (in the megabyte below when aligned to 1 MB or more); what lies
 * before the header's page and after the object is unmapped at once. Its pages are not cached when
 * it is freed (its mapping is not whole megabytes). */
static void *mrn_large_aligned(size_t size, size_t align) {
    if (align > PTRDIFF_MAX / 4 || size > PTRDIFF_MAX / 2 - align - 2 * MRN_CHUNK_SIZE) {
        errno = ENOMEM;
        return NULL;
    }
    size_t len = mrn_round_page(MRN_CHUNK_SIZE + MRN_BLOCK_SIZE + align + size);
    char *raw = mrn_pool_map(len);
    if (!raw) return NULL;
    uintptr_t base = ((uintptr_t)raw + MRN_CHUNK_SIZE - 1) & ~(MRN_CHUNK_SIZE - 1);
    uintptr_t p = (base + MRN_BLOCK_SIZE + align - 1) & ~(uintptr_t)(align - 1);
    char *lo = (char *)((uintptr_t)mrn_block_of((void *)p) & ~(uintptr_t)(MRN_PAGE - 1));
    char *hi = (char *)mrn_round_page(p + size);
    if (lo > raw) mrn_os_unmap(raw, (size_t)(lo - raw));
    if (raw + len > hi) mrn_os_unmap(hi, (size_t)(raw + len - hi));
    mrn_mapcache_account((ptrdiff_t)(hi - lo));
    return mrn_large_setup(lo, (size_t)(hi - lo), (void *)p, 1, NULL);
}

/* An object of size bytes at a block past a megabyte boundary: a cached mapping that fits, else a
 * fresh one filled with cached pages as far as they go. zero: a calloc, which takes recycled pages
 * (and clears them) only where a medium object's calloc would clear rather than decommit. */
static void *mrn_large_new(size_t size, bool zero) {
    if (size > PTRDIFF_MAX / 2 - 2 * MRN_CHUNK_SIZE) {
        errno = ENOMEM;
        return NULL;
    }
    size_t need = mrn_round_mb(MRN_BLOCK_SIZE + size);
    bool recycle = !zero || size < mrn_zero_decommit;
    size_t len;
    char *m = recycle ? mrn_mapcache_take(need, &len) : NULL;
    if (m) {
        char *p = mrn_large_setup(m, len, m + MRN_BLOCK_SIZE, 1, NULL);
        if (zero) memset(p, 0, size);
        return p;
    }
    if (!recycle) mrn_mapcache_account((ptrdiff_t)need); /* (mrn_mapcache_take counts it otherwise) */
    if (!(m = mrn_map_megabyte(need))) {
        mrn_mapcache_account(-(ptrdiff_t)need);
        return NULL;
    }
    uint32_t cut[MRN_LARGE_PIECES];
    unsigned n = 0;
    size_t filled = recycle ? mrn_mapcache_fill(m, need, cut, MRN_LARGE_PIECES - 1, &n) : 0;
    if (filled && filled < need) cut[n++ - 1] = (uint32_t)(filled / MRN_PAGE); /* the fresh rest: a piece */
    char *p = mrn_large_setup(m, need, m + MRN_BLOCK_SIZE, n ? n : 1, cut);
    if (zero && filled > MRN_BLOCK_SIZE) memset(p, 0, filled - MRN_BLOCK_SIZE < size ? filled - MRN_BLOCK_SIZE : size);
    return p;
}

void *mrn_large_alloc(mrn_heap *h, size_t size, size_t align, bool zero) {
    mrn_decay_safe_point();
    /* a run starts at a block boundary: aligned to 16 KB */
    if (size <= MRN_MEDIUM_MAX && align <= MRN_BLOCK_SIZE) return mrn_medium_alloc(h, size, zero);
    mrn_pool_tick(); /* a large allocation drives the decays too */
    MRN_STAT_ADD(large, 1);
    MRN_STAT_ADD(large_bytes, size);
    return align <= MRN_BLOCK_SIZE ? mrn_large_new(size, zero) : mrn_large_aligned(size, align);
}

void mrn_large_free(mrn_heap *h, mrn_block *b) {
    if (b->cls) { /* a medium run */
        mrn_medium_free(h, b);
        return;
    }
#if MRN_ALLOC_DEBUG
    mrn_debug_region(b->map_base, b->map_len, false, NULL);
#endif
    if (((uintptr_t)b->map_base | b->map_len) & (MRN_CHUNK_SIZE - 1)) { /* an aligned object's: not cached */
        mrn_mapcache_account(-(ptrdiff_t)b->map_len);
        mrn_os_unmap(b->map_base, b->map_len);
        return;
    }
    mrn_span s[MRN_LARGE_PIECES];
    unsigned n = mrn_large_pieces(b, s);
    mrn_large_give(s, n);
}

/* ---- realloc ---------------------------------------------------------------------------------------- */

/* Object p (header b, its pieces s[0..n)) shrunk to need bytes of mapping (whole megabytes): the
 * pieces past need go to the cache. */
static void mrn_large_shrink(mrn_block *b, mrn_span *s, unsigned n, size_t need) {
    unsigned keep = 0;
    while (keep < n && s[keep].addr + s[keep].len <= b->map_base + need) keep++;
    /* piece `keep` straddles need (or starts at it): its part past need goes */
    mrn_span gone[MRN_LARGE_PIECES];
    unsigned g = 0;
    char *end = b->map_base + need;
    if (keep < n && s[keep].addr < end) {
        gone[g++] = (mrn_span){end, (size_t)(s[keep].addr + s[keep].len - end)};
        keep++;
    }
    for (unsigned i = keep; i < n; i++) gone[g++] = s[i];
    b->count = keep;
    b->map_len = need;
#if MRN_ALLOC_DEBUG
    mrn_debug_region(b->map_base, 0, false, NULL);
    mrn_debug_region(b->map_base, need, true, b->free);
#endif
    mrn_large_give(gone, g);
}

/* Moves the n pieces s of an object to the fresh mapping at m2 (same offsets); a piece mremap
 * cannot move is copied, then unmapped. */
static void mrn_large_move(const mrn_span *s, unsigned n, char *from, char *m2) {
    for (unsigned i = 0; i < n; i++) {
        char *to = m2 + (s[i].addr - from);
        if (mremap(s[i].addr, s[i].len, s[i].len, MREMAP_MAYMOVE | MREMAP_FIXED, to) == to) {
            mrn_stat_mapped(-(ptrdiff_t)s[i].len); /* they replaced fresh pages of m2 */
            continue;
        }
        memcpy(to, s[i].addr, s[i].len);
        mrn_os_unmap(s[i].addr, s[i].len);
    }
}

bool mrn_large_resize(void *p, size_t size, void **out) {
    mrn_block *b = mrn_block_of(p);
    char *m = b->map_base;
    /* only the plain layout (not an aligned object's), and sizes that stay large */
    if (p != m + MRN_BLOCK_SIZE || size <= MRN_MEDIUM_MAX || size > PTRDIFF_MAX / 2 - 2 * MRN_CHUNK_SIZE)
        return false;
    size_t need = mrn_round_mb(MRN_BLOCK_SIZE + size), len = b->map_len;
    mrn_span s[MRN_LARGE_PIECES];
    unsigned n = mrn_large_pieces(b, s);
    *out = p;
    if (need <= len) { /* shrinks: in place, the tail to the cache when a megabyte or more */
        if (len - need >= MRN_CHUNK_SIZE) mrn_large_shrink(b, s, n, need);
        return true;
    }
    if (n + 2 > MRN_LARGE_PIECES) return false; /* no room to record more pieces: copied */
    uint32_t cut[MRN_LARGE_PIECES];
    for (unsigned i = 0; i + 1 < n; i++) cut[i] = mrn_large_cuts(b)[i];
    size_t extra = need - len;
    char *m2 = m;
    unsigned k = 0;
    if (mrn_mapcache_take_at(m + len, extra, cut + n, MRN_LARGE_PIECES - n, &k)) { /* cached right after it */
        for (unsigned i = 0; i + 1 < k; i++) cut[n + i] += (uint32_t)(len / MRN_PAGE);
        cut[n - 1] = (uint32_t)(len / MRN_PAGE);
        n += k;
        MRN_STAT_ADD(large_grown_in_place, 1);
    } else {
        mrn_mapcache_account((ptrdiff_t)extra);
        char *last = s[n - 1].addr;
        if (mremap(last, s[n - 1].len, s[n - 1].len + extra, 0) == last) { /* grown where it lies */
            mrn_stat_mapped((ptrdiff_t)extra);
            MRN_STAT_ADD(large_grown_in_place, 1);
        } else { /* moved, pages and all, to a new mapping */
            if (!(m2 = mrn_map_megabyte(need))) {
                mrn_mapcache_account(-(ptrdiff_t)extra);
                *out = NULL;
                return true;
            }
            mrn_large_move(s, n, m, m2);
        }
        /* the new part, fresh so far, filled with cached pages as far as they go */
        size_t filled = mrn_mapcache_fill(m2 + len, extra, cut + n, MRN_LARGE_PIECES - n - 1, &k);
        if (k || m2 != m) { /* a piece from len on: a filled one, or the fresh rest of a new mapping */
            for (unsigned i = 0; i + 1 < k; i++) cut[n + i] += (uint32_t)(len / MRN_PAGE);
            cut[n - 1] = (uint32_t)(len / MRN_PAGE);
            n += k ? k : 1;
            if (k && filled < extra) cut[n++ - 1] = (uint32_t)((len + filled) / MRN_PAGE);
        }
    }
#if MRN_ALLOC_DEBUG
    mrn_debug_region(m, 0, false, NULL);
#endif
    *out = mrn_large_setup(m2, need, m2 + MRN_BLOCK_SIZE, n, cut);
    return true;
}
