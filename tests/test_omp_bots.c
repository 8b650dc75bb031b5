/* test_omp_bots.c — three task programs in the style of the Barcelona OpenMP Tasks Suite, each
 * checking its answer: fib without a cut-off (two tasks and a taskwait per call), n-queens (a task
 * per column, each copying the board, the counts summed after a taskwait), and a floorplan-like
 * branch and bound (cells of several shapes placed at the corners of those placed before, the
 * smallest bounding box wanted; a task per branch, copying the placement; a bound shared by all
 * tasks, read racily and lowered under a critical section, pruning the search).
 *
 * As a test (no arguments): small sizes, at 1, 2, 3 and 8 threads, checked against known counts
 * and against the same search with every task undeferred (the serial order).
 * As a benchmark: `test_omp_bots fib 30`, `nqueens 12`, `floorplan 9`, at OMP_NUM_THREADS
 * threads; prints the time of the kernel and checks its answer (exit status 1 if wrong). The same
 * source compiled with `gcc -O3 -fopenmp` runs on libgomp, with clang on libomp, and with
 * LD_PRELOAD=libmerino_omp.so on merino; compiled without -fopenmp it is the serial program. */
#include "check.h"

#ifdef _OPENMP
#include <omp.h>
#else /* the serial program */
static double omp_get_wtime(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
static int omp_get_max_threads(void) { return 1; }
static void omp_set_num_threads(int n) { (void)n; }
#endif

/* ---- fib ---------------------------------------------------------------------------------------------------- */

static long fib(int n) {
    if (n < 2) return n;
    long x, y;
#pragma omp task untied firstprivate(n) shared(x)
    x = fib(n - 1);
#pragma omp task untied firstprivate(n) shared(y)
    y = fib(n - 2);
#pragma omp taskwait
    return x + y;
}

static long fib_serial(int n) { return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2); }

/* ---- n-queens (BOTS: the board copied into each task, one count per column) ---------------------------------- */

static int queens_ok(int n, const char *a) {
    for (int i = 0; i < n; i++) {
        char p = a[i];
        for (int j = i + 1; j < n; j++) {
            char q = a[j];
            if (q == p || q == p - (j - i) || q == p + (j - i)) return 0;
        }
    }
    return 1;
}

static void nqueens(int n, int j, const char *a, int *solutions) {
    if (n == j) {
        *solutions = 1;
        return;
    }
    int csols[32] = {0};
    for (int i = 0; i < n; i++) {
#pragma omp task untied firstprivate(i) shared(csols)
        {
            char b[32];
            memcpy(b, a, (size_t)j);
            b[j] = (char)i;
            if (queens_ok(j + 1, b)) nqueens(n, j + 1, b, &csols[i]);
        }
    }
#pragma omp taskwait
    int s = 0;
    for (int i = 0; i < n; i++) s += csols[i];
    *solutions = s;
}

static const int queens_counts[] = {1, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596};

/* ---- a floorplan-like branch and bound ------------------------------------------------------------------------ */

#define FP_MAX 12
typedef struct fp_shape {
    int w, h;
} fp_shape;
/* Cells, each with its alternative shapes (about the same area). */
static const fp_shape fp_cells[FP_MAX][3] = {
    {{4, 3}, {3, 4}, {6, 2}}, {{2, 5}, {5, 2}, {3, 3}}, {{4, 4}, {2, 8}, {8, 2}}, {{3, 2}, {2, 3}, {6, 1}},
    {{5, 3}, {3, 5}, {4, 4}}, {{2, 2}, {4, 1}, {1, 4}}, {{6, 3}, {3, 6}, {4, 5}}, {{3, 3}, {2, 4}, {4, 2}},
    {{5, 2}, {2, 5}, {3, 3}}, {{4, 2}, {2, 4}, {3, 3}}, {{3, 4}, {4, 3}, {2, 6}}, {{2, 3}, {3, 2}, {1, 6}},
};

typedef struct fp_state {
    int n;                      /* cells placed */
    int x[FP_MAX], y[FP_MAX], w[FP_MAX], h[FP_MAX];
    int bw, bh;                 /* the bounding box */
} fp_state;

static int fp_best; /* the smallest bounding-box area found (read racily, lowered under critical) */

static int fp_overlaps(const fp_state *s, int x, int y, int w, int h) {
    for (int i = 0; i < s->n; i++)
        if (x < s->x[i] + s->w[i] && s->x[i] < x + w && y < s->y[i] + s->h[i] && s->y[i] < y + h) return 1;
    return 0;
}

static void fp_search(const fp_state *s, int ncells, int par) {
    if (s->n == ncells) {
        int area = s->bw * s->bh;
        if (area < __atomic_load_n(&fp_best, __ATOMIC_RELAXED)) {
#pragma omp critical(fp_bound)
            if (area < fp_best) __atomic_store_n(&fp_best, area, __ATOMIC_RELAXED);
        }
        return;
    }
    /* candidate corners: the origin, and the top-left and bottom-right corners of placed cells */
    int cx[2 * FP_MAX + 1], cy[2 * FP_MAX + 1], nc = 0;
    cx[nc] = 0, cy[nc++] = 0;
    for (int i = 0; i < s->n; i++) {
        cx[nc] = s->x[i] + s->w[i], cy[nc++] = s->y[i];
        cx[nc] = s->x[i], cy[nc++] = s->y[i] + s->h[i];
    }
    for (int c = 0; c < nc; c++)
        for (int k = 0; k < 3; k++) {
            int w = fp_cells[s->n][k].w, h = fp_cells[s->n][k].h, x = cx[c], y = cy[c];
            int bw = s->bw > x + w ? s->bw : x + w, bh = s->bh > y + h ? s->bh : y + h;
            if (bw * bh >= __atomic_load_n(&fp_best, __ATOMIC_RELAXED)) continue; /* bound */
            if (fp_overlaps(s, x, y, w, h)) continue;
#pragma omp task untied firstprivate(x, y, w, h, bw, bh) if (par)
            {
                fp_state t = *s; /* the task's own copy of the placement */
                t.x[t.n] = x, t.y[t.n] = y, t.w[t.n] = w, t.h[t.n] = h;
                t.n++;
                t.bw = bw, t.bh = bh;
                fp_search(&t, ncells, par);
            }
        }
#pragma omp taskwait
}

static int floorplan(int ncells, int par) {
    fp_best = 1 << 30;
    fp_state s;
    memset(&s, 0, sizeof s);
#pragma omp parallel
#pragma omp single
    fp_search(&s, ncells, par);
    return fp_best;
}

/* ---- test and benchmark ------------------------------------------------------------------------------------------- */

static void run_all(int nt) {
    check_set_context("%d threads", nt);
    omp_set_num_threads(nt);
    long r = 0;
#pragma omp parallel
#pragma omp single
    r = fib(18);
    CHECK_EQ_INT(r, 2584);
    int sols = 0;
    char a[32];
#pragma omp parallel
#pragma omp single
    nqueens(8, 0, a, &sols);
    CHECK_EQ_INT(sols, 92);
    int serial = floorplan(6, 0), parallel = floorplan(6, 1);
    CHECK_MSG(parallel == serial, "floorplan of 6 cells: %d in parallel, %d serially", parallel, serial);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        static const int sizes[] = {1, 2, 3, 8};
        for (int i = 0; i < 4; i++) run_all(sizes[i]);
        printf("test_omp_bots: ok\n");
        return 0;
    }
    int n = atoi(argv[2]);
    double t0 = omp_get_wtime(), t;
    int ok;
    if (strcmp(argv[1], "fib") == 0) {
        long r = 0;
#pragma omp parallel
#pragma omp single
        r = fib(n);
        t = omp_get_wtime() - t0;
        ok = r == fib_serial(n);
        printf("fib(%d) = %ld", n, r);
    } else if (strcmp(argv[1], "nqueens") == 0) {
        int sols = 0;
        char a[32];
#pragma omp parallel
#pragma omp single
        nqueens(n, 0, a, &sols);
        t = omp_get_wtime() - t0;
        ok = n < 15 && sols == queens_counts[n];
        printf("nqueens(%d) = %d", n, sols);
    } else if (strcmp(argv[1], "floorplan") == 0) {
        int area = floorplan(n, 1);
        t = omp_get_wtime() - t0;
        int serial = argc > 3 ? atoi(argv[3]) : floorplan(n, 0); /* the expected area may be given */
        ok = area == serial;
        printf("floorplan(%d) = %d", n, area);
    } else {
        fprintf(stderr, "usage: %s [fib N | nqueens N | floorplan N [expected]]\n", argv[0]);
        return 2;
    }
    printf(" in %.4f s on %d threads: %s\n", t, omp_get_max_threads(), ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
