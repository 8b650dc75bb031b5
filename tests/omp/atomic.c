/* atomic.c — the atomic construct: update (every operator, prefix and postfix, x = x op e and
 * x = e op x), read, write, capture (each form, swap included) and compare (min, max, compare-and-
 * swap, with capture; OpenMP 5.1), with each memory-order clause and a hint, on char to long long,
 * unsigned, float, double, and on types with no lock-free atomics, where gcc calls libgomp's
 * GOMP_atomic_start and GOMP_atomic_end (long double; gcc takes no _Complex in an atomic).
 * Every result is exact whatever the interleaving: counts, products of -1, sets of captured values
 * in which each must appear exactly once.
 */
#include "omp_test.h"

static int M; /* updates per thread */

/* Under -fsanitize=undefined (which merino's AddressSanitizer build adds) gcc 12 compiles an atomic
 * division (x /= e) to a plain load and store, no atomic instruction: a compiler bug, not the
 * runtime's, so that build leaves the division out. */
#ifdef __SANITIZE_ADDRESS__
#define ATOMIC_DIVISION 0
#else
#define ATOMIC_DIVISION 1
#endif

/* UPDATES(T): each update form on a shared T, M times by every thread; checks the totals. */
#define UPDATES(T)                                                                                 \
    do {                                                                                           \
        T add = 0, sub = 0, mul = 1, div_ = 1, asg = 0, rev = 0;                                   \
        OT_PRAGMA(omp parallel)                                                                    \
        for (int r = 0; r < M; r++) {                                                              \
            OT_PRAGMA(omp atomic)                                                                  \
            add++;                                                                                 \
            OT_PRAGMA(omp atomic update)                                                           \
            ++add;                                                                                 \
            OT_PRAGMA(omp atomic seq_cst)                                                          \
            add += 3;                                                                              \
            OT_PRAGMA(omp atomic)                                                                  \
            sub--;                                                                                 \
            OT_PRAGMA(omp atomic relaxed)                                                          \
            --sub;                                                                                 \
            OT_PRAGMA(omp atomic release)                                                          \
            sub -= 2;                                                                              \
            OT_PRAGMA(omp atomic acq_rel)                                                          \
            mul *= (T)-1;                                                                          \
            if (ATOMIC_DIVISION) {                                                                 \
                OT_PRAGMA(omp atomic)                                                              \
                div_ /= (T)-1;                                                                     \
            }                                                                                      \
            OT_PRAGMA(omp atomic hint(omp_sync_hint_contended))                                    \
            asg = asg + (T)2;                                                                      \
            OT_PRAGMA(omp atomic)                                                                  \
            rev = (T)5 + rev;                                                                      \
        }                                                                                          \
        long total = (long)ot_threads() * M;                                                       \
        CHECK_MSG(add == (T)(5 * total), "%s: add", #T);                                           \
        CHECK_MSG(sub == (T)(-4 * total), "%s: sub", #T);                                          \
        T mul1 = 1, div1 = 1; /* the same update repeated: any order gives this */                 \
        for (long k = 0; k < total; k++) {                                                         \
            mul1 *= (T)-1;                                                                         \
            if (ATOMIC_DIVISION) div1 /= (T)-1;                                                    \
        }                                                                                          \
        CHECK_MSG(mul == mul1, "%s: mul", #T);                                                     \
        CHECK_MSG(div_ == div1, "%s: div", #T);                                                    \
        CHECK_MSG(asg == (T)(2 * total), "%s: x = x + e", #T);                                     \
        CHECK_MSG(rev == (T)(5 * total), "%s: x = e + x", #T);                                     \
    } while (0)

/* Bitwise updates on integer types. */
#define BITS(T)                                                                                    \
    do {                                                                                           \
        T and_ = (T)~(T)0, or_ = 0, xor_ = 0, shl = 1, shr = (T)((T)1 << (sizeof(T) * 8 - 2));     \
        int n = ot_threads();                                                                      \
        OT_PRAGMA(omp parallel)                                                                    \
        {                                                                                          \
            int t = omp_get_thread_num();                                                          \
            OT_PRAGMA(omp atomic)                                                                  \
            and_ &= (T) ~((T)1 << t);                                                              \
            OT_PRAGMA(omp atomic)                                                                  \
            or_ |= (T)((T)1 << t);                                                                 \
            for (int r = 0; r < M; r++) {                                                          \
                OT_PRAGMA(omp atomic)                                                              \
                xor_ ^= (T)(r + 1);                                                                \
            }                                                                                      \
            if (t == 0) {                                                                          \
                OT_PRAGMA(omp atomic)                                                              \
                shl <<= 3;                                                                         \
                OT_PRAGMA(omp atomic)                                                              \
                shr >>= 2;                                                                         \
            }                                                                                      \
        }                                                                                          \
        T x1 = 0;                                                                                  \
        for (int r = 0; r < M; r++) x1 ^= (T)(r + 1);                                              \
        T mask = (T)(((T)1 << n) - 1);                                                             \
        CHECK_MSG(and_ == (T) ~mask, "%s: &=", #T);                                                \
        CHECK_MSG(or_ == mask, "%s: |=", #T);                                                      \
        CHECK_MSG(xor_ == (T)(n % 2 ? x1 : 0), "%s: ^=", #T);                                      \
        CHECK_MSG(shl == 8 && shr == (T)((T)1 << (sizeof(T) * 8 - 4)), "%s: <<= >>=", #T);         \
    } while (0)

static void updates(void) {
    UPDATES(char);
    UPDATES(short);
    UPDATES(int);
    UPDATES(unsigned);
    UPDATES(long);
    UPDATES(long long);
    UPDATES(unsigned long long);
    UPDATES(float);
    UPDATES(double);
    UPDATES(long double);
    BITS(unsigned char);
    BITS(short);
    BITS(int);
    BITS(unsigned long);
    BITS(long long);
    OT_SAY("atomic update, every operator, char to long double: right");
}

/* Types with no lock-free atomics: libgomp's global atomic lock. */
static void locked_types(void) {
    long double ld = 0, ldm = 1;
#pragma omp parallel
    for (int r = 0; r < M; r++) {
#pragma omp atomic
        ld += 0.5L;
#pragma omp atomic
        ldm *= -1.0L;
    }
    long total = (long)ot_threads() * M;
    CHECK(ld == 0.5L * total);
    CHECK(ldm == (total % 2 ? -1.0L : 1.0L));
    /* read and write of a long double */
    long double shared_ld = 1.0L, seen = 0;
    int bad = 0;
#pragma omp parallel reduction(+ : bad)
    {
        long double v;
        if (omp_get_thread_num() == 0) {
#pragma omp atomic write
            shared_ld = 2.0L;
        }
#pragma omp atomic read
        v = shared_ld;
        bad += v != 1.0L && v != 2.0L; /* never torn */
#pragma omp barrier
#pragma omp atomic read
        v = shared_ld;
        bad += v != 2.0L;
        if (omp_get_thread_num() == 0) seen = v;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK(seen == 2.0L);
    OT_SAY("long double atomic update, read and write: right");
}

enum { MAXV = 1 << 16 };
static atomic_int seen_count[MAXV];

static void captures(void) {
    int n = ot_threads(), total = n * M;
    CHECK(total * 3 + 1 < MAXV);
    for (int k = 0; k < MAXV; k++) atomic_store(&seen_count[k], 0);
    long x = 0, y = 100, z = 0;
    int swap = 0;
#pragma omp parallel
    {
        int t = omp_get_thread_num();
        for (int r = 0; r < M; r++) {
            long v;
            /* postfix, prefix, compound: values 0 .. 3 total - 1, each captured once */
            switch (r % 3) {
            case 0:
#pragma omp atomic capture
                v = x++;
                break;
            case 1:
#pragma omp atomic capture seq_cst
                v = ++x;
                v--;
                break;
            default:
#pragma omp atomic capture acq_rel
                {
                    v = x;
                    x += 1;
                }
                break;
            }
            atomic_fetch_add_explicit(&seen_count[v], 1, memory_order_relaxed);
            long w;
#pragma omp atomic capture
            {
                y -= 1;
                w = y;
            }
            CHECK(w < 100);
            long u;
#pragma omp atomic capture
            u = z += 2;
            CHECK(u % 2 == 0 && u > 0);
            /* swap: every value written is read back exactly once (or is the last) */
            int mine = t * M + r + 1, old;
#pragma omp atomic capture
            {
                old = swap;
                swap = mine;
            }
            atomic_fetch_add_explicit(&seen_count[2 * total + old], 1, memory_order_relaxed);
        }
    }
    for (int k = 0; k < total; k++)
        CHECK_MSG(atomic_load(&seen_count[k]) == 1, "captured value %d seen %d times", k, atomic_load(&seen_count[k]));
    CHECK_EQ_INT(x, total);
    CHECK_EQ_INT(y, 100 - total);
    CHECK_EQ_INT(z, 2L * total);
    /* the swapped values: 0 .. total, each once, the last one still in swap */
    atomic_fetch_add(&seen_count[2 * total + swap], 1);
    for (int k = 0; k <= total; k++)
        CHECK_MSG(atomic_load(&seen_count[2 * total + k]) == 1, "swapped value %d seen %d times", k,
                  atomic_load(&seen_count[2 * total + k]));
    OT_SAY("atomic capture (postfix, prefix, compound, swap): every value captured once");
}

/* atomic compare (OpenMP 5.1): min, max, compare-and-swap, with capture. */
static void compares(void) {
    enum { SLOTS = 256 };
    int n = ot_threads();
    long lo = 1000000, hi = -1000000;
    double dlo = 1e9;
    int slot[SLOTS] = {0};
    atomic_int claims[SLOTS] = {0};
    int fails = 0;
#pragma omp parallel reduction(+ : fails)
    {
        int t = omp_get_thread_num();
        for (int r = 0; r < M; r++) {
            long e = ((long)(t * M + r) * 7919) % 100003 - 50000;
#pragma omp atomic compare
            lo = lo > e ? e : lo;
#pragma omp atomic compare
            if (hi < e) {
                hi = e;
            }
            double de = (double)e / 4;
#pragma omp atomic compare
            dlo = de < dlo ? de : dlo;
        }
        for (int s = 0; s < SLOTS; s++) {
            int v;
#pragma omp atomic compare capture
            {
                v = slot[s];
                if (slot[s] == 0) {
                    slot[s] = t + 1;
                }
            }
            if (v == 0) atomic_fetch_add(&claims[s], 1);
            else fails++;
            int ok;
#pragma omp atomic compare capture
            {
                ok = slot[s] == t + 1000;
                if (ok) {
                    slot[s] = -1;
                }
            }
            CHECK(!ok); /* nobody wrote t + 1000 */
        }
    }
    long want_lo = 1000000, want_hi = -1000000;
    for (int k = 0; k < n * M; k++) {
        long e = ((long)k * 7919) % 100003 - 50000;
        want_lo = e < want_lo ? e : want_lo;
        want_hi = e > want_hi ? e : want_hi;
    }
    CHECK_EQ_INT(lo, want_lo);
    CHECK_EQ_INT(hi, want_hi);
    CHECK(dlo == (double)want_lo / 4);
    for (int s = 0; s < SLOTS; s++) {
        CHECK_EQ_INT(atomic_load(&claims[s]), 1);
        CHECK(slot[s] >= 1 && slot[s] <= n);
    }
    CHECK_EQ_INT(fails, (n - 1) * SLOTS);
    OT_SAY("atomic compare: min %ld, max %ld; compare-and-swap: each of %d slots claimed once", lo, hi, SLOTS);
}

int main(void) {
    M = (int)(300 * check_scale());
    updates();
    locked_types();
    captures();
    compares();
    return 0;
}
