/* block.h — the blocks of a heap: a class's queue of blocks with free objects, carving a block into
 * objects, and the owner's free (block.c holds the cold part: a block that fills or empties). */
#ifndef MERINO_ALLOC_BLOCK_H
#define MERINO_ALLOC_BLOCK_H

#include "alloc/heap.h"

#include "alloc/classes.h"

/* The avail list of a class is a queue: a block joins at the tail when a free makes it non-full,
 * and the next active block is taken from the head, so the block taken has had the longest time to
 * gather frees (a block with one hole would otherwise be taken at once, give one object, and be
 * full again). */
static inline void mrn_avail_push(mrn_heap *h, mrn_block *b) {
    unsigned c = b->cls;
    b->next = NULL;
    b->prev = h->avail_tail[c];
    if (b->prev)
        b->prev->next = b;
    else
        h->avail[c] = b;
    h->avail_tail[c] = b;
}

static inline void mrn_avail_remove(mrn_heap *h, mrn_block *b) {
    unsigned c = b->cls;
    if (b->prev)
        b->prev->next = b->next;
    else
        h->avail[c] = b->next;
    if (b->next)
        b->next->prev = b->prev;
    else
        h->avail_tail[c] = b->prev;
}

/* Puts the block's next untouched objects on its (empty) free list: a page's worth at a time, so
 * a class little used touches little memory. */
static inline void mrn_block_carve(mrn_block *b) {
    uint32_t size = b->size, n = MRN_PAGE / size;
    if (n == 0) n = 1;
    if (n > b->count - b->carved) n = b->count - b->carved;
    char *d = mrn_block_data(b) + (size_t)b->carved * size;
    for (uint32_t i = 0; i + 1 < n; i++) *(void **)(d + (size_t)i * size) = d + (size_t)(i + 1) * size;
    *(void **)(d + (size_t)(n - 1) * size) = NULL;
    b->free = d;
    b->carved += n;
}

static inline void mrn_block_init(mrn_block *b, mrn_heap *h, unsigned c) {
    b->size = mrn_class_size[c];
    b->cls = c;
    b->count = (uint32_t)(MRN_BLOCK_SIZE / b->size);
    b->used = 0;
    b->next = b->prev = NULL;
    b->full = false;
    b->carved = 0;
    mrn_block_carve(b);
#if MRN_ALLOC_DEBUG
    for (unsigned i = 0; i < MRN_BITMAP_WORDS; i++)
        atomic_store_explicit(&mrn_block_live(b)[i], 0, memory_order_relaxed); /* relaxed: the pool's lock orders it */
#endif
    /* relaxed: the block came through the pool's lock; other threads learn its owner only from an
     * object of it, which the program hands over with its own synchronization */
    atomic_store_explicit(&b->owner_tag, (uintptr_t)h | (c >= MRN_OWN_CLASS ? MRN_TAG_OWN : 0), memory_order_relaxed);
}

/* A free by the owner brought b's used count to 0: b was full (it goes back in its avail list), or
 * it is empty (it goes to the heap's cache of free runs, or the pool). */
MRN_HIDDEN void mrn_block_freed_into(mrn_heap *h, mrn_block *b);

/* A free by the owner, the general case: an aligned object, a full block, an emptied block. */
static inline void mrn_owner_free(mrn_heap *h, mrn_block *b, void *p) {
    /* relaxed: only this thread writes the tag of its blocks */
    uintptr_t tag = atomic_load_explicit(&b->owner_tag, memory_order_relaxed);
    if (tag & MRN_TAG_ALIGNED) p = mrn_object_start(b, p);
    *(void **)p = b->free;
    b->free = p;
    if (--b->used == 0) mrn_block_freed_into(h, b);
}

#endif /* MERINO_ALLOC_BLOCK_H */
