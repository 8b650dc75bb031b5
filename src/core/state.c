/* state.c — the pool and the per-thread words, which every file of the core reads. Data only. */
#include "core/core.h"

#include "core/backoff.h"

MERINO_API __thread merino__worker *merino__self __attribute__((tls_model("initial-exec")));
/* merino__next and merino__limit (with merino__split) start cache lines of their own: the owner
 * writes the first at every spawn and join, thieves write the others (see task_stack.h). */
MERINO_API __thread merino__task *merino__next __attribute__((tls_model("initial-exec"), aligned(64)));
MERINO_API __thread uintptr_t merino__limit __attribute__((tls_model("initial-exec"), aligned(64)));
MERINO_API __thread uintptr_t merino__split __attribute__((tls_model("initial-exec")));

mrn_pool mrn_the_pool;
uint32_t mrn_running;
uint32_t mrn_fork_orphan;
_Alignas(MRN_CACHE_LINE) uint32_t mrn_slot_taken;
/* The idle policy's settings (backoff.h): the defaults until a pool starts with its own. */
uint32_t mrn_idle_spins = MERINO_DEFAULT_IDLE_SPINS;
uint64_t mrn_idle_ns = (uint64_t)MERINO_DEFAULT_IDLE_US * 1000;
