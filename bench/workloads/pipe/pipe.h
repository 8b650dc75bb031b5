/* pipe.h — the pipeline workload, the shape of oneTBB's text-filter example: a serial in-order
 * stage reads blocks (here: generates them), a parallel stage transforms each block, a serial
 * in-order stage writes them (here: folds them, in order, into a checksum that any reordering
 * changes). At most `tokens` blocks are in flight; each is malloc'ed by the read and freed by the
 * write, in every version.
 *
 * Params: blocks len work tokens — `blocks` blocks of `len` 64-bit words, each word mixed `work`
 * times by the transform (1: a light filter like the text example's; 16 and more: a compute-heavy
 * middle stage), at most `tokens` blocks in flight (the serial version ignores it).
 *
 * Every version checks its checksum against the serial loop's, computed in the same process. */
#ifndef PIPE_H
#define PIPE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pipe_args {
    int workers, reps;
    long blocks, len, work, tokens;
} pipe_args;

/* A block in flight: its index and its words. */
typedef struct pipe_block {
    long index;
    uint64_t words[];
} pipe_block;

/* Parses the command line (bench.h's contract); nonzero on bad arguments (a message said why). */
int pipe_parse(int argc, char **argv, pipe_args *a);
/* The read: a new block `index`, malloc'ed and filled. */
pipe_block *pipe_read(const pipe_args *a, long index);
/* The transform: each word mixed a->work times, in place. */
void pipe_transform(const pipe_args *a, pipe_block *b);
/* The write: folds the block into *sum (order matters) and frees it. */
void pipe_write(const pipe_args *a, uint64_t *sum, pipe_block *b);
/* The serial loop's checksum (for the check). */
uint64_t pipe_expected(const pipe_args *a);

#ifdef __cplusplus
}
#endif

#endif
