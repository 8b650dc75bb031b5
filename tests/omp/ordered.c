/* ordered.c — the ordered clause and construct: ordered regions run in the loop's order under
 * every schedule (static, static,k, dynamic,k, guided,k, runtime with each OMP_SCHEDULE form),
 * on int and unsigned long long loops, with collapse, and the code outside the ordered region
 * still shared out; and doacross loops (ordered(n) with depend(sink:) and depend(source)):
 * one-dimensional and two-dimensional wavefronts, sinks on earlier and on lexically earlier
 * but larger-index iterations, int and unsigned long long, static and dynamic schedules.
 * omp-run:
 * omp-run: OMP_SCHEDULE=static,2
 * omp-run: OMP_SCHEDULE=guided,3
 */
#include "loop_check.h"

/* Small sizes: with more threads than cores every hand-over may wait for the scheduler, and
 * libgomp's GOMP_doacross_wait spins without yielding (a wait for a descheduled thread lasts
 * until the spinning one's time slice ends). */
enum { N = 200, ND = 48 };
/* unsigned long long loops beyond LLONG_MAX take libgomp's _ull entry points; doacross loops only
 * when gcc cannot see the bounds (ub_base) */
#define UB 0xF000000000000000ULL
static volatile unsigned long long ub_base = UB;

static long seq[N * 4];
static int seq_len;

/* In the ordered region: append k; the appends must come out in logical order. */
static inline void seq_append(long k) { seq[seq_len++] = k; }

static void seq_check(const char *what, int n) {
    check_set_context("%s", what);
    CHECK_EQ_INT(seq_len, n);
    for (int k = 0; k < n; k++) CHECK_MSG(seq[k] == k, "position %d holds %ld", k, seq[k]);
    check_set_context(NULL);
}

#define ORDERED_TEST(fn, ...)                                                                      \
    static void fn(const char *label) {                                                            \
        char what[120];                                                                            \
        for (int n = 0; n <= N / 2; n = n * 7 + 1) {                                               \
            seq_len = 0;                                                                           \
            lc_reset(n);                                                                           \
            OT_PRAGMA(omp parallel for ordered schedule(__VA_ARGS__))                              \
            for (int i = 0; i < n; i++) {                                                          \
                lc_record(i);                                                                      \
                OT_PRAGMA(omp ordered)                                                             \
                seq_append(i);                                                                     \
            }                                                                                      \
            snprintf(what, sizeof what, "ordered %s, int, %d iterations", label, n);               \
            seq_check(what, n);                                                                    \
            lc_verify(what, n, LC_ANY, 1, ot_threads(), 1);                                        \
            seq_len = 0;                                                                           \
            OT_PRAGMA(omp parallel)                                                                \
            {                                                                                      \
                OT_PRAGMA(omp for ordered schedule(__VA_ARGS__))                                   \
                for (unsigned long long u = UB + (unsigned)n;                   \
                     u > UB; u--) {                                             \
                    OT_PRAGMA(omp ordered threads)                                                 \
                    seq_append((long)(UB + (unsigned)n - u));                   \
                }                                                                                  \
            }                                                                                      \
            snprintf(what, sizeof what, "ordered %s, unsigned long long, %d iterations", label, n); \
            seq_check(what, n);                                                                    \
        }                                                                                          \
    }

ORDERED_TEST(o_static, static)
ORDERED_TEST(o_static3, static, 3)
ORDERED_TEST(o_dynamic, dynamic)
ORDERED_TEST(o_dynamic4, dynamic, 4)
ORDERED_TEST(o_guided, guided, 2)
ORDERED_TEST(o_runtime, runtime)

static void ordered_collapse(void) {
    enum { A = 13, B = 11 };
    seq_len = 0;
#pragma omp parallel for ordered collapse(2) schedule(dynamic, 3)
    for (int a = 0; a < A; a++)
        for (int b = 0; b < B; b++) {
#pragma omp ordered
            seq_append(a * B + b);
        }
    seq_check("ordered collapse(2)", A * B);
}

/* Doacross: a[i] = a[i-1] + i needs iteration i-1 done; the result is the serial one. */
static void doacross_1d(void) {
    static long a[ND + 1];
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i <= ND; i++) a[i] = i == 0 ? 7 : 0;
        if (round == 0) {
#pragma omp parallel for ordered(1) schedule(static, 1)
            for (int i = 1; i <= ND; i++) {
#pragma omp ordered depend(sink : i - 1)
                a[i] = a[i - 1] + i;
#pragma omp ordered depend(source)
            }
        } else {
#pragma omp parallel for ordered(1) schedule(dynamic, 2)
            for (int i = 1; i <= ND; i++) {
#pragma omp ordered depend(sink : i - 1)
                a[i] = a[i - 1] + i;
#pragma omp ordered depend(source)
            }
        }
        long want = 7;
        for (int i = 1; i <= ND; i++) {
            want += i;
            CHECK_EQ_INT(a[i], want);
        }
    }
    /* guided and runtime schedules, over long and over unsigned long long */
    unsigned long long ubase = ub_base;
    for (int round = 0; round < 4; round++) {
        for (int i = 0; i <= ND; i++) a[i] = i == 0 ? 7 : 0;
        switch (round) {
        case 0:
#pragma omp parallel for ordered(1) schedule(guided, 2)
            for (int i = 1; i <= ND; i++) {
#pragma omp ordered depend(sink : i - 1)
                a[i] = a[i - 1] + i;
#pragma omp ordered depend(source)
            }
            break;
        case 1:
#pragma omp parallel for ordered(1) schedule(runtime)
            for (int i = 1; i <= ND; i++) {
#pragma omp ordered depend(sink : i - 1)
                a[i] = a[i - 1] + i;
#pragma omp ordered depend(source)
            }
            break;
        case 2:
#pragma omp parallel for ordered(1) schedule(dynamic)
            for (unsigned long long u = ubase + 1; u <= ubase + ND; u++) {
#pragma omp ordered depend(sink : u - 1)
                a[u - ubase] = a[u - ubase - 1] + (long)(u - ubase);
#pragma omp ordered depend(source)
            }
            break;
        default:
#pragma omp parallel for ordered(1) schedule(runtime)
            for (unsigned long long u = ubase + 1; u <= ubase + ND; u++) {
#pragma omp ordered depend(sink : u - 1)
                a[u - ubase] = a[u - ubase - 1] + (long)(u - ubase);
#pragma omp ordered depend(source)
            }
        }
        long want = 7;
        for (int i = 1; i <= ND; i++) {
            want += i;
            CHECK_EQ_INT(a[i], want);
        }
    }
    /* sinks two back with step 2, over unsigned long long beyond LLONG_MAX */
    static long b[2 * ND + 2];
    for (int i = 0; i < 2 * ND + 2; i++) b[i] = i < 2 ? 1 : 0;
    unsigned long long base = ub_base;
#pragma omp parallel for ordered(1) schedule(guided)
    for (unsigned long long u = base + 2; u < base + 2 * ND + 2; u += 2) {
#pragma omp ordered depend(sink : u - 2)
        b[u - base] = b[u - base - 2] * 3 % 1000003;
#pragma omp ordered depend(source)
    }
    long want = 1;
    for (int i = 2; i < 2 * ND + 2; i += 2) {
        want = want * 3 % 1000003;
        CHECK_EQ_INT(b[i], want);
    }
    OT_SAY("doacross ordered(1): a chain of %d under static,1, dynamic,2, guided,2, runtime; unsigned long long", ND);
}

/* A two-dimensional wavefront: w[i][j] needs w[i-1][j] and w[i][j-1]; a second one whose sink is
 * (i-1, j+1): lexically earlier, though its j is larger. */
static void doacross_2d(void) {
    enum { R = 12, C = 10 };
    static long w[R][C], v[R][C], sw[R][C], sv[R][C];
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++) {
            w[i][j] = v[i][j] = (i == 0 || j == 0) ? i + j + 1 : 0;
            sw[i][j] = w[i][j];
            sv[i][j] = v[i][j];
        }
    for (int i = 1; i < R; i++)
        for (int j = 1; j < C; j++) sw[i][j] = (sw[i - 1][j] + 2 * sw[i][j - 1]) % 1000003;
    for (int i = 1; i < R; i++)
        for (int j = 1; j < C - 1; j++) sv[i][j] = (sv[i - 1][j + 1] * 5 + sv[i][j - 1]) % 1000003;
#pragma omp parallel for ordered(2) schedule(static)
    for (int i = 1; i < R; i++)
        for (int j = 1; j < C; j++) {
#pragma omp ordered depend(sink : i - 1, j) depend(sink : i, j - 1)
            w[i][j] = (w[i - 1][j] + 2 * w[i][j - 1]) % 1000003;
#pragma omp ordered depend(source)
        }
#pragma omp parallel for ordered(2) schedule(dynamic)
    for (int i = 1; i < R; i++)
        for (int j = 1; j < C - 1; j++) {
#pragma omp ordered depend(sink : i - 1, j + 1) depend(sink : i, j - 1)
            v[i][j] = (v[i - 1][j + 1] * 5 + v[i][j - 1]) % 1000003;
#pragma omp ordered depend(source)
        }
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++) {
            CHECK_EQ_INT(w[i][j], sw[i][j]);
            CHECK_EQ_INT(v[i][j], sv[i][j]);
        }
    OT_SAY("doacross ordered(2): wavefronts right, w[%d][%d] = %ld", R - 1, C - 1, w[R - 1][C - 1]);

    /* unsigned long long beyond LLONG_MAX, two levels */
    static long u2[R][C];
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++) u2[i][j] = (i == 0 || j == 0) ? i + j + 1 : 0;
    unsigned long long base = ub_base;
#pragma omp parallel for ordered(2) schedule(static, 1)
    for (unsigned long long i = base + 1; i < base + R; i++)
        for (unsigned long long j = 1; j < C; j++) {
#pragma omp ordered depend(sink : i - 1, j) depend(sink : i, j - 1)
            u2[i - base][j] = (u2[i - base - 1][j] + 2 * u2[i - base][j - 1]) % 1000003;
#pragma omp ordered depend(source)
        }
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++) CHECK_EQ_INT(u2[i][j], sw[i][j]);
}

/* Loops with a task reduction (reduction(task, ...)): libgomp's GOMP_loop_*_start entry points.
 * Tasks made in the body add into the loop's reduction; the ordered regions still run in order,
 * and the doacross chains still give the serial result. */
static void with_task_reduction(void) {
    enum { M = ND };
    static long a[M + 1], c[M + 1];
    unsigned long long base = ub_base;
    long r = 0, want = 0, ru = 0;
    for (int i = 0; i <= M; i++) a[i] = c[i] = i == 0 ? 1 : 0;
    int seq_a = 0, seq_b = 0;
#pragma omp parallel
    {
#pragma omp for ordered schedule(dynamic, 2) reduction(task, + : r)
        for (int i = 0; i < M; i++) {
#pragma omp task in_reduction(+ : r)
            r += i;
#pragma omp ordered
            seq_append(i);
        }
#pragma omp single
        seq_a = seq_len;
#pragma omp for ordered schedule(guided) reduction(task, + : ru)
        for (unsigned long long u = base; u < base + M; u++) {
#pragma omp task in_reduction(+ : ru)
            ru += 2;
#pragma omp ordered
            seq_append((long)(u - base) + M);
        }
#pragma omp single
        seq_b = seq_len;
#pragma omp for ordered(1) schedule(runtime) reduction(task, + : r)
        for (int i = 1; i <= M; i++) {
#pragma omp task in_reduction(+ : r)
            r += 1;
#pragma omp ordered depend(sink : i - 1)
            a[i] = (a[i - 1] * 7 + i) % 1000003;
#pragma omp ordered depend(source)
        }
#pragma omp for ordered(1) schedule(dynamic, 3) reduction(task, + : ru)
        for (unsigned long long u = base + 1; u <= base + M; u++) {
#pragma omp task in_reduction(+ : ru)
            ru += 1;
#pragma omp ordered depend(sink : u - 1)
            c[u - base] = (c[u - base - 1] * 7 + (long)(u - base)) % 1000003;
#pragma omp ordered depend(source)
        }
    }
    for (int i = 0; i < M; i++) want += i;
    CHECK_EQ_INT(r, want + M);
    CHECK_EQ_INT(ru, 2 * M + M);
    CHECK_EQ_INT(seq_a, M);
    CHECK_EQ_INT(seq_b, 2 * M);
    seq_check("ordered loops with reduction(task)", 2 * M);
    long w = 1;
    for (int i = 1; i <= M; i++) {
        w = (w * 7 + i) % 1000003;
        CHECK_EQ_INT(a[i], w);
        CHECK_EQ_INT(c[i], w);
    }
    OT_SAY("ordered and doacross loops with reduction(task) and in_reduction tasks: right");
}

int main(void) {
    omp_sched_t k;
    int chunk;
    omp_get_schedule(&k, &chunk);
    o_static("static");
    o_static3("static,3");
    o_dynamic("dynamic");
    o_dynamic4("dynamic,4");
    o_guided("guided,2");
    o_runtime("runtime");
    ordered_collapse();
    OT_SAY("ordered regions in order: 6 schedules (runtime: kind %d chunk %d), int and unsigned long long, collapse(2)",
           (int)k & ~(int)omp_sched_monotonic, chunk);
    doacross_1d();
    doacross_2d();
    seq_len = 0;
    with_task_reduction();
    return 0;
}
