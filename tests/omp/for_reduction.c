/* for_reduction.c — the reduction clause: every operator (+ - * & | ^ && || max min) on every
 * arithmetic type it applies to (char to long long, signed and unsigned, float, double, long
 * double, _Complex float and double), on parallel for, on a for inside a region (with nowait),
 * on parallel itself and on sections; array sections and whole arrays; user-defined reductions
 * (declare reduction, with and without an initializer); and scan (reduction(inscan):
 * inclusive and exclusive prefix sums). Values are chosen so that every result is exact in its
 * type whatever the order of combination; each is compared with the serial loop's.
 */
#include "omp_test.h"

#include <complex.h>

enum { N = 1000 };

/* The elements: small integers for + and -, mostly ones with a few 2s and -1s for *, bit patterns
 * for & | ^, and a sign-changing spread for max and min. */
#define EL_SUM(i) ((i) % 17 - 8)
#define EL_PROD(i) ((i) % 97 == 5 ? 2 : ((i) % 251 == 7 ? -1 : 1))
#define EL_AND(i) (~(1ULL << ((i) % 61 + 2)))
#define EL_OR(i) (1ULL << ((i) * 7 % 23))
#define EL_XOR(i) ((unsigned long long)(i) * 0x9E3779B97F4A7C15ULL >> 7)
#define EL_MAX(i) (((i) * 37) % 201 - 100)

/* For char and signed char: few non-zero elements, so that no partial result overflows (gcc
 * combines the partial results in the type itself). */
#define EL_SUM_SMALL(i) ((i) % 100 == 3 ? (i) / 100 % 7 - 2 : 0)
#define EL_PROD_SMALL(i) ((i) % 499 == 5 ? 2 : ((i) % 251 == 7 ? -1 : 1))

/* RED(T, op, init, el): the serial and the parallel result of reducing el(i) with op over
 * [0, N), in three constructs; fails on any difference. */
#define RED_LOOP(T, op, init, el, combine)                                                         \
    do {                                                                                           \
        T serial = init, r1 = init, r2 = init, r3 = init;                                          \
        for (int i = 0; i < N; i++) serial = combine(serial, (T)(el(i)));                          \
        OT_PRAGMA(omp parallel for reduction(op : r1) schedule(dynamic, 7))                        \
        for (int i = 0; i < N; i++) r1 = combine(r1, (T)(el(i)));                                 \
        OT_PRAGMA(omp parallel)                                                                    \
        {                                                                                          \
            OT_PRAGMA(omp for reduction(op : r2) nowait)                                           \
            for (int i = 0; i < N; i++) r2 = combine(r2, (T)(el(i)));                              \
        }                                                                                          \
        OT_PRAGMA(omp parallel reduction(op : r3))                                                 \
        {                                                                                          \
            int t = omp_get_thread_num(), n = omp_get_num_threads();                               \
            for (int i = t; i < N; i += n) r3 = combine(r3, (T)(el(i)));                           \
        }                                                                                          \
        CHECK_MSG(serial == r1, "%s %s: parallel for differs from the serial loop", #T, #op);      \
        CHECK_MSG(serial == r2, "%s %s: for nowait differs from the serial loop", #T, #op);        \
        CHECK_MSG(serial == r3, "%s %s: parallel differs from the serial loop", #T, #op);          \
        results[nres++] = (double)(serial);                                                        \
    } while (0)

#define C_ADD(a, b) ((a) + (b))
#define C_SUB(a, b) ((a) - (b))
#define C_MUL(a, b) ((a) * (b))
#define C_AND(a, b) ((a) & (b))
#define C_OR(a, b) ((a) | (b))
#define C_XOR(a, b) ((a) ^ (b))
#define C_LAND(a, b) ((a) && (b))
#define C_LOR(a, b) ((a) || (b))
#define C_MAX(a, b) ((a) > (b) ? (a) : (b))
#define C_MIN(a, b) ((a) < (b) ? (a) : (b))
#define EL_LAND(i) ((i) != 777)
#define EL_LAND1(i) ((i) >= 0)
#define EL_LOR(i) ((i) == 500)
#define EL_LOR0(i) ((i) < 0)

static double results[64];
static int nres;

static void say(const char *type) {
    char line[1024];
    int len = snprintf(line, sizeof line, "%s:", type);
    for (int k = 0; k < nres; k++) len += snprintf(line + len, sizeof line - (size_t)len, " %.17g", results[k]);
    OT_SAY("%s", line);
    nres = 0;
}

/* Every operator on an integer type T (MIN0/MAX0: the type's extremes, the identities of max and
 * min; SUM, PROD: the elements for + - and *). */
#define INT_TYPE_EL(T, MAX0, MIN0, SUM, PROD)                                                      \
    do {                                                                                           \
        RED_LOOP(T, +, 0, SUM, C_ADD);                                                             \
        RED_LOOP(T, -, 0, SUM, C_ADD);                                                             \
        RED_LOOP(T, *, 1, PROD, C_MUL);                                                            \
        RED_LOOP(T, &, (T)~0ULL, EL_AND, C_AND);                                                   \
        RED_LOOP(T, |, 0, EL_OR, C_OR);                                                            \
        RED_LOOP(T, ^, 0, EL_XOR, C_XOR);                                                          \
        RED_LOOP(T, &&, 1, EL_LAND, C_LAND);                                                       \
        RED_LOOP(T, &&, 1, EL_LAND1, C_LAND);                                                      \
        RED_LOOP(T, ||, 0, EL_LOR, C_LOR);                                                         \
        RED_LOOP(T, ||, 0, EL_LOR0, C_LOR);                                                        \
        RED_LOOP(T, max, MIN0, EL_MAX, C_MAX);                                                     \
        RED_LOOP(T, min, MAX0, EL_MAX, C_MIN);                                                     \
        say(#T);                                                                                   \
    } while (0)
#define INT_TYPE(T, MAX0, MIN0) INT_TYPE_EL(T, MAX0, MIN0, EL_SUM, EL_PROD)

#define FLOAT_TYPE(T, BIG)                                                                         \
    do {                                                                                           \
        RED_LOOP(T, +, 0, EL_SUM, C_ADD);                                                          \
        RED_LOOP(T, -, 0, EL_SUM, C_ADD);                                                          \
        RED_LOOP(T, *, 1, EL_PROD, C_MUL);                                                         \
        RED_LOOP(T, &&, 1, EL_LAND, C_LAND);                                                       \
        RED_LOOP(T, ||, 0, EL_LOR, C_LOR);                                                         \
        RED_LOOP(T, max, -(BIG), EL_MAX, C_MAX);                                                   \
        RED_LOOP(T, min, BIG, EL_MAX, C_MIN);                                                      \
        say(#T);                                                                                   \
    } while (0)

static void arithmetic(void) {
    /* max/min on unsigned types: EL_MAX's negative values wrap, which the serial loop does too */
    INT_TYPE_EL(char, 127, -128, EL_SUM_SMALL, EL_PROD_SMALL);
    INT_TYPE_EL(signed char, 127, -128, EL_SUM_SMALL, EL_PROD_SMALL);
    INT_TYPE(unsigned char, 255, 0);
    INT_TYPE(short, 32767, -32768);
    INT_TYPE(unsigned short, 65535, 0);
    INT_TYPE(int, 2147483647, -2147483647 - 1);
    INT_TYPE(unsigned, 4294967295u, 0);
    INT_TYPE(long, 9223372036854775807L, -9223372036854775807L - 1);
    INT_TYPE(unsigned long, 18446744073709551615UL, 0);
    INT_TYPE(long long, 9223372036854775807LL, -9223372036854775807LL - 1);
    INT_TYPE(unsigned long long, 18446744073709551615ULL, 0);
    FLOAT_TYPE(float, 1e30f);
    FLOAT_TYPE(double, 1e300);
    FLOAT_TYPE(long double, 1e300L);
}

static void complex_types(void) {
    double _Complex zs = 0, z1 = 0, zp = 1, zp1 = 1;
    float _Complex fs = 0, f1 = 0;
    for (int i = 0; i < N; i++) {
        zs += EL_SUM(i) + EL_PROD(i) * I;
        fs += (float)EL_SUM(i) - (float)EL_PROD(i) * I;
        if (i % 100 == 0) zp *= (i % 200 ? 1.0 * I : 2.0); /* powers of i and 2: exact */
    }
#pragma omp parallel for reduction(+ : z1, f1)
    for (int i = 0; i < N; i++) {
        z1 += EL_SUM(i) + EL_PROD(i) * I;
        f1 += (float)EL_SUM(i) - (float)EL_PROD(i) * I;
    }
#pragma omp parallel for reduction(* : zp1)
    for (int i = 0; i < N; i++)
        if (i % 100 == 0) zp1 *= (i % 200 ? 1.0 * I : 2.0);
    CHECK(z1 == zs);
    CHECK(f1 == fs);
    CHECK(zp1 == zp);
    OT_SAY("complex: + (%g%+gi) (%g%+gi) * (%g%+gi)", creal(zs), cimag(zs), crealf(fs), cimagf(fs),
           creal(zp), cimag(zp));
}

/* Reductions on array sections and whole arrays: a histogram. */
static void arrays(void) {
    enum { B = 16 };
    long hist[B] = {0}, serial[B] = {0}, whole[B] = {0};
    double part[2 * B] = {0};
    for (int i = 0; i < N; i++) serial[(i * 7) % B] += i;
#pragma omp parallel for reduction(+ : hist[0:B]) schedule(guided)
    for (int i = 0; i < N; i++) hist[(i * 7) % B] += i;
#pragma omp parallel for reduction(+ : whole)
    for (int i = 0; i < N; i++) whole[(i * 7) % B] += i;
#pragma omp parallel for reduction(max : part[B:B])
    for (int i = 0; i < N; i++) part[B + i % B] = part[B + i % B] > i ? part[B + i % B] : i;
    for (int b = 0; b < B; b++) {
        CHECK_EQ_INT(hist[b], serial[b]);
        CHECK_EQ_INT(whole[b], serial[b]);
        int last = N - 1 - ((N - 1 - b) % B + B) % B; /* the largest i < N with i % B == b */
        CHECK(part[b] == 0 && part[B + b] == (double)last);
    }
    OT_SAY("array reductions: hist[0] %ld, hist[15] %ld", hist[0], hist[B - 1]);
}

/* User-defined reductions. */
struct stats {
    long count, sum;
    int lo, hi;
};
static struct stats stats_merge(struct stats a, struct stats b) {
    struct stats r = {a.count + b.count, a.sum + b.sum, a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi};
    return r;
}
static void stats_init(struct stats *s) {
    s->count = s->sum = 0;
    s->lo = 1 << 30;
    s->hi = -(1 << 30);
}
#pragma omp declare reduction(merge:struct stats : omp_out = stats_merge(omp_out, omp_in)) \
    initializer(stats_init(&omp_priv))
struct pair {
    long a, b;
};
/* no initializer: the private copies start as a static object would (zero) */
#pragma omp declare reduction(pairsum:struct pair : omp_out.a += omp_in.a, omp_out.b += omp_in.b)
#pragma omp declare reduction(absmax:double : omp_out = fabs(omp_in) > fabs(omp_out) ? omp_in : omp_out) \
    initializer(omp_priv = 0)

static void user_defined(void) {
    struct stats s, want;
    stats_init(&s);
    stats_init(&want);
    struct pair p = {0, 0};
    double am = 0, am_want = 0;
    for (int i = 0; i < N; i++) {
        int v = EL_MAX(i);
        struct stats one = {1, v, v, v};
        want = stats_merge(want, one);
        double d = (i % 13 == 4 && i % 3 == 1) ? -(double)i : (double)(i % 50);
        if (fabs(d) > fabs(am_want)) am_want = d;
    }
#pragma omp parallel for reduction(merge : s) reduction(pairsum : p) reduction(absmax : am) schedule(dynamic, 11)
    for (int i = 0; i < N; i++) {
        int v = EL_MAX(i);
        struct stats one = {1, v, v, v};
        s = stats_merge(s, one);
        p.a += i;
        p.b -= 2 * i;
        double d = (i % 13 == 4 && i % 3 == 1) ? -(double)i : (double)(i % 50);
        if (fabs(d) > fabs(am)) am = d;
    }
    CHECK(s.count == want.count && s.sum == want.sum && s.lo == want.lo && s.hi == want.hi);
    CHECK_EQ_INT(p.a, (long)N * (N - 1) / 2);
    CHECK_EQ_INT(p.b, -(long)N * (N - 1));
    CHECK(am == am_want);
    OT_SAY("declare reduction: stats %ld %ld %d %d, pair %ld %ld, absmax %g", s.count, s.sum, s.lo,
           s.hi, p.a, p.b, am);
}

static void sections_reduction(void) {
    long r = 0;
    int m = 0;
#pragma omp parallel sections reduction(+ : r) reduction(max : m)
    {
#pragma omp section
        {
            r += 1;
            m = m > 5 ? m : 5;
        }
#pragma omp section
        {
            r += 10;
            m = m > 9 ? m : 9;
        }
#pragma omp section
        r += 100;
    }
    CHECK_EQ_INT(r, 111);
    CHECK_EQ_INT(m, 9);
    OT_SAY("sections reduction: 111, max 9");
}

/* reduction(inscan): prefix sums with scan inclusive and exclusive. */
static void scan(void) {
    static long in[N], inc[N], exc[N];
    for (int i = 0; i < N; i++) in[i] = EL_SUM(i) * 3 + i;
    long sum = 0;
#pragma omp parallel for reduction(inscan, + : sum)
    for (int i = 0; i < N; i++) {
        sum += in[i];
#pragma omp scan inclusive(sum)
        inc[i] = sum;
    }
    long sum2 = 0;
#pragma omp parallel
    {
#pragma omp for reduction(inscan, + : sum2)
        for (int i = 0; i < N; i++) {
            exc[i] = sum2;
#pragma omp scan exclusive(sum2)
            sum2 += in[i];
        }
    }
    long run = 0;
    for (int i = 0; i < N; i++) {
        CHECK_EQ_INT(exc[i], run);
        run += in[i];
        CHECK_EQ_INT(inc[i], run);
    }
    CHECK_EQ_INT(sum, run);
    CHECK_EQ_INT(sum2, run);
    OT_SAY("scan: inclusive and exclusive prefix sums right, total %ld", run);
}

int main(void) {
    arithmetic();
    complex_types();
    arrays();
    user_defined();
    sections_reduction();
    scan();
    return 0;
}
