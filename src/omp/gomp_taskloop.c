/* gomp_taskloop.c — `taskloop`: the iterations split into tasks as libgomp splits them (so that
 * a program sees the same number of tasks and the same ranges), each a task like GOMP_task's
 * with its first and last iteration written into the first two words of its data; an implicit
 * taskgroup around them unless nogroup, holding the taskloop's reductions. */
#include "omp/omp_layer.h"

#include <string.h>

/* The split: num_tasks tasks of task_step iterations (times the loop's step), the tasks after
 * number nfirst getting nfirst_step instead. long and unsigned long long alike, in unsigned
 * arithmetic on the iteration count n. */
typedef struct mo_split {
    unsigned long num_tasks;
    uint64_t task_step, nfirst_step; /* in the loop's units: iterations times step */
    unsigned long nfirst;
} mo_split;

/* num_tasks tasks over n iterations as evenly as can be: the first n % num_tasks get one more. */
static void mo_split_evenly(mo_split *s, uint64_t n, uint64_t step) {
    uint64_t div = n / s->num_tasks, mod = n % s->num_tasks;
    s->task_step = div * step;
    if (mod) {
        s->nfirst_step = s->task_step;
        s->task_step += step;
        s->nfirst = (unsigned long)(mod - 1);
    }
}

static mo_split mo_taskloop_split(uint64_t n, uint64_t step, uint64_t span, unsigned flags,
                                  unsigned long num_tasks, const mo_task *cur, bool is_long) {
    mo_split s = {num_tasks, step, step, (unsigned long)n};
    if (flags & MO_TASK_FLAG_GRAINSIZE) {
        unsigned long grainsize = num_tasks;
        uint64_t ndiv = n / grainsize;
        s.num_tasks = (unsigned long)ndiv;
        if (!is_long && s.num_tasks != ndiv) s.num_tasks = ~0UL;
        if ((flags & MO_TASK_FLAG_STRICT) && s.num_tasks != ~0UL) {
            uint64_t mod = n % grainsize;
            s.task_step = grainsize * step;
            if (mod) {
                s.num_tasks++;
                s.nfirst_step = mod * step;
                if (s.num_tasks == 1)
                    s.task_step = s.nfirst_step;
                else
                    s.nfirst = s.num_tasks - 2;
            }
        } else if (s.num_tasks <= 1) {
            s.num_tasks = 1;
            s.task_step = span;
        } else if (s.num_tasks >= grainsize && (is_long || s.num_tasks != ~0UL)) {
            uint64_t mul = (uint64_t)s.num_tasks * grainsize;
            s.task_step = grainsize * step;
            if (mul != n) {
                s.nfirst_step = s.task_step;
                s.task_step += step;
                s.nfirst = (unsigned long)(n - mul - 1);
            }
        } else {
            mo_split_evenly(&s, n, step);
        }
    } else {
        if (s.num_tasks == 0) s.num_tasks = cur->team ? cur->team->nthreads : 1;
        if (s.num_tasks >= n)
            s.num_tasks = (unsigned long)n;
        else
            mo_split_evenly(&s, n, step);
    }
    return s;
}

/* Runs the taskloop of n iterations from start by step (all in wrapping 64-bit arithmetic). */
static void mo_taskloop(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
                        long arg_align, unsigned flags, unsigned long num_tasks, uint64_t n, uint64_t start,
                        uint64_t step, uint64_t span, bool is_long) {
    mo_task *cur = mo_current();
    struct head {
        uint64_t t1, t2;
        uintptr_t *ptr;
    };
    if (n == 0 || (cur->team && (__atomic_load_n(&cur->team->cancelled, __ATOMIC_RELAXED) & MO_CANCEL_PARALLEL))) {
        /* nothing to run: tell the compiler's code that no reductions were registered */
        if ((flags & (MO_TASK_FLAG_NOGROUP | MO_TASK_FLAG_REDUCTION)) == MO_TASK_FLAG_REDUCTION)
            ((struct head *)data)->ptr[2] = 0;
        return;
    }
    mo_split s = mo_taskloop_split(n, step, span, flags, num_tasks, cur, is_long);
    if (flags & MO_TASK_FLAG_NOGROUP) {
        if (MO_UNLIKELY(mo_cancel_on) && mo_task_cancelled(cur)) return;
    } else {
        GOMP_taskgroup_start();
        if (flags & MO_TASK_FLAG_REDUCTION) GOMP_taskgroup_reduction_register(((struct head *)data)->ptr);
    }
    uint64_t task_step = s.task_step;
    bool deferred = (flags & MO_TASK_FLAG_IF) != 0;
    unsigned tflags = flags & MO_TASK_FLAG_FINAL;
    for (unsigned long i = 0; i < s.num_tasks; i++) {
        mo_iters it = {start, start + task_step};
        start += task_step;
        if (i == s.nfirst) task_step = s.nfirst_step;
        if (!deferred || !mo_task_direct(cur, fn, data, cpyfn, arg_size, arg_align, tflags, &it))
            mo_task_general(cur, fn, data, cpyfn, arg_size, arg_align, deferred, tflags, NULL, 0, NULL, &it);
    }
    if (!(flags & MO_TASK_FLAG_NOGROUP)) GOMP_taskgroup_end();
}

MO_ABI void GOMP_taskloop(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
                          long arg_align, unsigned flags, unsigned long num_tasks, int priority, long start,
                          long end, long step) {
    (void)priority;
    uint64_t n = 0, span = (uint64_t)end - (uint64_t)start;
    if (step > 0 ? start < end : start > end) {
        uint64_t s = step > 0 ? (uint64_t)step : -(uint64_t)step;
        uint64_t d = step > 0 ? (uint64_t)end - (uint64_t)start : (uint64_t)start - (uint64_t)end;
        n = d / s + (d % s != 0);
    }
    mo_taskloop(fn, data, cpyfn, arg_size, arg_align, flags, num_tasks, n, (uint64_t)start, (uint64_t)step, span, true);
}

MO_ABI void GOMP_taskloop_ull(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
                              long arg_align, unsigned flags, unsigned long num_tasks, int priority,
                              unsigned long long start, unsigned long long end, unsigned long long step) {
    (void)priority;
    uint64_t n = 0;
    if (flags & MO_TASK_FLAG_UP) {
        if (start < end) n = (end - start) / step + ((end - start) % step != 0);
    } else {
        uint64_t s = -step;
        if (start > end) n = (start - end) / s + ((start - end) % s != 0);
    }
    mo_taskloop(fn, data, cpyfn, arg_size, arg_align, flags, num_tasks, n, start, step, end - start, false);
}
