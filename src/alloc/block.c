/* block.c — the cold side of a heap's blocks (block.h has the rest): the owner's free into a full
 * block lists it again; the last object of a block coming back gives the block to the heap's cache
 * of free runs. */
#include "alloc/block.h"

/* b's last object came back (b is not the class's active block: that one's pin keeps its count
 * above 0): it waits in the heap's cache of free runs for the heap's next block (of any class), or
 * goes to the pool when that is full. */
static void mrn_block_emptied(mrn_heap *h, mrn_block *b) {
    mrn_avail_remove(h, b);
    mrn_run_keep(h, b);
}

/* A free by the owner brought b's used count to 0: b was full (it goes back in its avail list, all
 * its objects out but this one: at least one, a small block holds two or more), or it is empty. */
_Static_assert(MRN_BLOCK_SIZE / MRN_SMALL_MAX >= 2, "a small block holds two objects at least");
__attribute__((noinline)) void mrn_block_freed_into(mrn_heap *h, mrn_block *b) {
    if (b->full) {
        b->full = false;
        b->used = b->count - 1;
        mrn_avail_push(h, b);
        return;
    }
    mrn_block_emptied(h, b);
}
