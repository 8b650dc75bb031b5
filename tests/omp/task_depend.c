/* task_depend.c — task dependences: an inout chain applies its steps in order; readers (in) after a
 * writer (out) see its value and a writer after readers waits for all of them; mutexinoutset
 * tasks exclude each other and are ordered against in/out around them; dependences on array
 * sections (two in one clause), iterators (depend(iterator(...), in: ...)), depobj objects
 * (depobj construct: depend, update, destroy); an undeferred task (if(0)) with dependences waits
 * for its predecessors; taskwait depend(...) waits for the tasks it names. (inoutset and
 * omp_all_memory need gcc 13.)
 */
#include "omp_test.h"

/* x = (x * 3 + k) mod p, step k after step k-1: only the serial order gives the serial value. */
static long step(long x, int k) { return (x * 3 + k) % 1000003; }

static void chain(void) {
    enum { K = 300 };
    long x = 1, want = 1, y = 2, want_y = 2;
    for (int k = 0; k < K; k++) want = step(want, k);
    for (int k = 0; k < K; k++) want_y = step(want_y, k + 1);
#pragma omp parallel
#pragma omp single
    {
        for (int k = 0; k < K; k++) {
#pragma omp task depend(inout : x) firstprivate(k) shared(x)
            x = step(x, k);
            /* an independent chain interleaved: dependences are per address */
#pragma omp task depend(out : y) firstprivate(k) shared(y)
            y = step(y, k + 1);
        }
    }
    CHECK_EQ_INT(x, want);
    CHECK_EQ_INT(y, want_y);
    OT_SAY("inout chain of %d steps and an out chain beside it: serial order (%ld, %ld)", K, x, y);
}

static void readers_writers(void) {
    enum { R = 16, ROUNDS = 20 };
    long data = 0;
    long seen[ROUNDS][R];
#pragma omp parallel
#pragma omp single
    for (int r = 0; r < ROUNDS; r++) {
#pragma omp task depend(out : data) firstprivate(r) shared(data)
        data = 100 * r + 7;
        for (int k = 0; k < R; k++) {
#pragma omp task depend(in : data) firstprivate(r, k) shared(data, seen)
            {
                ot_spin(100);
                seen[r][k] = data; /* the writer before is done, the one after has not started */
            }
        }
    }
    for (int r = 0; r < ROUNDS; r++)
        for (int k = 0; k < R; k++) CHECK_EQ_INT(seen[r][k], 100 * r + 7);
    OT_SAY("out, then %d readers, %d rounds: each reader saw its round's value", R, ROUNDS);
}

static void mutexinoutset(void) {
    enum { M = 40 };
    long acc = 0, before = -1, after = -1;
    atomic_int inside = 0, overlap = 0;
#pragma omp parallel
#pragma omp single
    {
#pragma omp task depend(out : acc) shared(acc)
        acc = 1000;
        for (int k = 0; k < M; k++) {
#pragma omp task depend(mutexinoutset : acc) firstprivate(k) shared(acc, inside, overlap, before)
            {
                if (atomic_fetch_add(&inside, 1) != 0) atomic_fetch_add(&overlap, 1);
                if (k == 0) before = acc >= 1000;
                long v = acc;
                ot_spin(200);
                acc = v + k; /* a plain read-modify-write: needs the exclusion */
                atomic_fetch_sub(&inside, 1);
            }
        }
#pragma omp task depend(in : acc) shared(acc, after)
        after = acc;
    }
    CHECK_EQ_INT(atomic_load(&overlap), 0);
    CHECK_EQ_INT(acc, 1000 + M * (M - 1) / 2);
    CHECK_EQ_INT(after, acc);
    CHECK_EQ_INT(before, 1);
    OT_SAY("mutexinoutset: %d tasks one at a time, after the writer and before the reader", M);
}

static void sections_iterators_depobj(void) {
    enum { N = 8 };
    long a[N] = {0}, b[N] = {0}, total = -1, total2 = -1, total_b = -1;
#pragma omp parallel
#pragma omp single
    {
        for (int i = 0; i < N; i++) {
#pragma omp task depend(out : a[i]) firstprivate(i) shared(a)
            {
                ot_spin(100 * (N - i));
                a[i] = i + 1;
            }
        }
        /* an iterator: one dependence per element */
#pragma omp task depend(iterator(j = 0 : N), in : a[j]) shared(a, total)
        {
            long s = 0;
            for (int j = 0; j < N; j++) s += a[j];
            total = s;
        }
#pragma omp task depend(iterator(j = 0 : N), inout : a[j]) shared(a)
        for (int j = 0; j < N; j++) a[j] *= 10;
        /* depobj: a dependence made once, used, changed and destroyed */
        omp_depend_t obj;
#pragma omp depobj(obj) depend(inout : a[0])
#pragma omp task depend(depobj : obj) shared(a)
        a[0] += 1;
#pragma omp depobj(obj) update(in)
#pragma omp task depend(depobj : obj) depend(iterator(j = 1 : N), in : a[j]) shared(a, total2)
        {
            long s = 0;
            for (int j = 0; j < N; j++) s += a[j];
            total2 = s;
        }
        /* array sections (the same sections on both sides), two in one clause */
#pragma omp task depend(out : b[0:N / 2]) shared(b)
        {
            ot_spin(5000);
            for (int j = 0; j < N / 2; j++) b[j] = 1;
        }
#pragma omp task depend(out : b[N / 2:N / 2]) shared(b)
        {
            ot_spin(5000);
            for (int j = N / 2; j < N; j++) b[j] = 2;
        }
#pragma omp task depend(in : b[0:N / 2], b[N / 2:N / 2]) shared(b, total_b)
        {
            long s = 0;
            for (int j = 0; j < N; j++) s += b[j];
            total_b = s;
        }
#pragma omp taskwait
#pragma omp depobj(obj) destroy
    }
    CHECK_EQ_INT(total, N * (N + 1) / 2);
    CHECK_EQ_INT(total2, 10 * N * (N + 1) / 2 + 1);
    CHECK_EQ_INT(total_b, 3 * N / 2);
    OT_SAY("iterators, depobj (depend, update, destroy), array sections: %ld, %ld, %ld", total,
           total2, total_b);
}

static void undeferred_and_taskwait_depend(void) {
    long p = 0, q = 0, seen2 = -1, seen3 = -1;
#pragma omp parallel
#pragma omp single
    {
        /* undeferred, with a dependence: waits for the writer of p */
#pragma omp task depend(out : p) shared(p)
        {
            ot_spin(20000);
            p = 33;
        }
#pragma omp task if (0) depend(in : p) shared(p, seen2)
        seen2 = p;
        /* taskwait depend: the writer of q is done after it */
#pragma omp task depend(out : q) shared(q)
        {
            ot_spin(20000);
            q = 22;
        }
#pragma omp task depend(inout : q) shared(q)
        {
            ot_spin(20000);
            q += 1;
        }
#pragma omp taskwait depend(in : q)
        seen3 = q;
    }
    CHECK_EQ_INT(seen2, 33);
    CHECK_EQ_INT(seen3, 23);
    OT_SAY("an undeferred task with a dependence, taskwait depend: right");
}

int main(void) {
    chain();
    readers_writers();
    mutexinoutset();
    sections_iterators_depobj();
    undeferred_and_taskwait_depend();
    return 0;
}
