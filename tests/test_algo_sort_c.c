/* test_algo_sort_c.c — merino_sort against qsort at 1, 2, 3 and 8 workers: element sizes 1, 4, 8,
 * 12, 16, 24 and 300 bytes (the specialized and the generic moves), sizes 0, 1, 2 up to 10^6,
 * random, sorted, reversed, all-equal, few distinct, organ-pipe, sawtooth and nearly sorted keys;
 * every element once (an id travels with each key); qsort's contract that the comparison only ever
 * sees pointers to elements of the array; McIlroy's adversary bounds the comparisons; calls from C
 * tasks and from several threads at once; bad arguments stop the program with a message (child
 * processes). Random inputs print their seed (MERINO_TEST_SEED replays it). */
#include "algo_check.h"

#include <merino_algorithm.h>

#include <math.h>
#include <pthread.h>

static uint64_t rng_state;
static uint64_t rnd(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

enum { RANDOM, SORTED, REVERSED, EQUAL, FEW, ORGAN, SAW, NEARLY, SHAPES };
static const char *const shape_names[] = {"random", "sorted", "reversed", "equal", "few", "organ", "saw", "nearly"};

static int key_of(int shape, size_t i, size_t n) {
    switch (shape) {
    case RANDOM: return (int)(rnd() % 1000000007u);
    case SORTED: case NEARLY: return (int)i;
    case REVERSED: return (int)(n - i);
    case EQUAL: return 7;
    case FEW: return (int)(rnd() % 4);
    case ORGAN: return (int)(i < n / 2 ? i : n - i);
    default: return (int)(i % 97);
    }
}

/* An element of `size` bytes: an int key (or a byte, for size 1) and, where it fits, an int id. */
static size_t elem_size;
static char *array_lo, *array_hi; /* the array being sorted: cmp checks its pointers against it */
static int bad_pointer;           /* atomic: set when cmp got a pointer outside the array */

static int key_at(const char *p) {
    if (elem_size == 1) return (unsigned char)*p;
    int k;
    memcpy(&k, p, sizeof k);
    return k;
}

static void check_pointer(const char *p) {
    if (p < array_lo || p >= array_hi || (size_t)(p - array_lo) % elem_size != 0)
        __atomic_store_n(&bad_pointer, 1, __ATOMIC_RELAXED); /* relaxed: read after the sort */
}

static int cmp_keys(const void *a, const void *b) {
    check_pointer(a);
    check_pointer(b);
    int x = key_at(a), y = key_at(b);
    return (x > y) - (x < y);
}

static void fill(char *v, size_t n, int shape) {
    memset(v, 0, n * elem_size);
    for (size_t i = 0; i < n; i++) {
        char *p = v + i * elem_size;
        int k = key_of(shape, i, n);
        if (elem_size == 1) {
            *p = (char)(k % 251);
        } else {
            memcpy(p, &k, sizeof k);
            if (elem_size >= 8) {
                int id = (int)i;
                memcpy(p + 4, &id, sizeof id);
            }
            if (elem_size > 8) p[elem_size - 1] = (char)(i * 31); /* a tail byte that must travel too */
        }
    }
    if (shape == NEARLY && n > 1)
        for (size_t j = 0; j < n / 50 + 1; j++) {
            size_t a = rnd() % n, b = rnd() % n;
            char t[300];
            memcpy(t, v + a * elem_size, elem_size);
            memcpy(v + a * elem_size, v + b * elem_size, elem_size);
            memcpy(v + b * elem_size, t, elem_size);
        }
}

/* qsort's and merino_sort's results: the same keys in order, the same multiset of whole elements. */
static int cmp_whole(const void *a, const void *b) {
    int x = key_at(a), y = key_at(b);
    if (x != y) return (x > y) - (x < y);
    return memcmp(a, b, elem_size);
}

static void check_one(size_t size, size_t n, int shape, unsigned workers) {
    check_set_context("workers=%u size=%zu n=%zu shape=%s", workers, size, n, shape_names[shape]);
    elem_size = size;
    char *v = malloc(n * size + 1), *want = malloc(n * size + 1);
    CHECK(v && want);
    fill(v, n, shape);
    memcpy(want, v, n * size);
    array_lo = v;
    array_hi = v + n * size;
    __atomic_store_n(&bad_pointer, 0, __ATOMIC_RELAXED);
    merino_sort(v, n, size, cmp_keys);
    CHECK_MSG(!__atomic_load_n(&bad_pointer, __ATOMIC_RELAXED), "cmp got a pointer that is not an element");
    for (size_t i = 1; i < n; i++) CHECK(key_at(v + (i - 1) * size) <= key_at(v + i * size));
    qsort(want, n, size, cmp_whole);
    qsort(v, n, size, cmp_whole); /* equal keys in any order: compare the multisets */
    CHECK(memcmp(v, want, n * size) == 0);
    free(v);
    free(want);
}

static const size_t sizes[] = {0, 1, 2, 3, 5, 16, 23, 24, 25, 100, 129, 1000, 2048, 4095, 4096, 8192, 20000, 100000};
static const size_t elem_sizes[] = {1, 4, 8, 12, 16, 24, 300};

static void check_all(unsigned workers) {
    for (size_t e = 0; e < sizeof elem_sizes / sizeof *elem_sizes; e++)
        for (int shape = 0; shape < SHAPES; shape++)
            for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
                if (elem_sizes[e] == 300 && sizes[k] > 20000) continue;
                check_one(elem_sizes[e], sizes[k], shape, workers);
            }
    size_t big = (size_t)(1000000 * check_scale());
    for (int shape = 0; shape < SHAPES; shape += 3) check_one(8, big, shape, workers); /* random, equal, saw */
}

/* ---- McIlroy's adversary: O(n log n) comparisons (one worker: the comparator has state) ------------- */

static int *adv_val, adv_gas, adv_solid, adv_candidate;
static long adv_count;
static int adv_cmp(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    adv_count++;
    if (adv_val[x] == adv_gas && adv_val[y] == adv_gas) adv_val[x == adv_candidate ? x : y] = adv_solid++;
    if (adv_val[x] == adv_gas)
        adv_candidate = x;
    else if (adv_val[y] == adv_gas)
        adv_candidate = y;
    return (adv_val[x] > adv_val[y]) - (adv_val[x] < adv_val[y]);
}

static void check_adversary(void) {
    merino_config cfg = {.workers = 1};
    CHECK(merino_start(&cfg) == 0);
    int n = 100000;
    adv_val = malloc(sizeof(int) * (size_t)n);
    int *idx = malloc(sizeof(int) * (size_t)n);
    CHECK(adv_val && idx);
    for (int i = 0; i < n; i++) adv_val[i] = n, idx[i] = i;
    adv_gas = n;
    merino_sort(idx, (size_t)n, sizeof(int), adv_cmp);
    double bound = 3.0 * n * log2(n);
    CHECK_MSG(adv_count < bound, "%ld comparisons, more than 3 n log2 n = %.0f", adv_count, bound);
    for (int i = 1; i < n; i++) CHECK(adv_val[idx[i - 1]] <= adv_val[idx[i]]);
    free(adv_val);
    free(idx);
    merino_stop();
}

/* ---- calls from C tasks and from threads ---------------------------------------------------------------- */

static int cmp_int(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static void check_sorted_ints(const int *v, size_t n) {
    for (size_t i = 1; i < n; i++) CHECK(v[i - 1] <= v[i]);
}

MERINO_VOID_TASK_2(sort_in_task, int *, v, size_t, n) {
    if (n > 25000) { /* pieces of 25000 */
        MERINO_SPAWN(sort_in_task, v + n / 2, n - n / 2);
        MERINO_CALL(sort_in_task, v, n / 2);
        MERINO_JOIN(sort_in_task);
        return;
    }
    merino_sort(v, n, sizeof(int), cmp_int);
}

static void *sort_in_thread(void *arg) {
    int *v = arg;
    merino_sort(v, 50000, sizeof(int), cmp_int);
    return NULL;
}

static void check_places(unsigned workers) {
    check_set_context("workers=%u places", workers);
    size_t n = 200000;
    int *v = malloc(sizeof(int) * n);
    CHECK(v);
    for (size_t i = 0; i < n; i++) v[i] = (int)(rnd() % 100000);
    MERINO_RUN(sort_in_task, v, n);
    for (size_t q = 0; q < n; q += 25000) check_sorted_ints(v + q, n - q < 25000 ? n - q : 25000);
    for (size_t i = 0; i < n; i++) v[i] = (int)(rnd() % 100000);
    pthread_t t[4];
    for (int i = 0; i < 4; i++) CHECK(pthread_create(&t[i], NULL, sort_in_thread, v + i * 50000) == 0);
    for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
    for (int i = 0; i < 4; i++) check_sorted_ints(v + i * 50000, 50000);
    free(v);
}

/* ---- bad arguments ----------------------------------------------------------------------------------------- */

static int run_child(const char *name) {
    int v[8] = {3, 1, 2};
    if (strcmp(name, "null_base") == 0) merino_sort(NULL, 5, sizeof(int), cmp_int);
    if (strcmp(name, "zero_size") == 0) merino_sort(v, 3, 0, cmp_int);
    if (strcmp(name, "null_cmp") == 0) merino_sort(v, 3, sizeof(int), NULL);
    if (strcmp(name, "too_big") == 0) merino_sort(v, SIZE_MAX / 2, 4, cmp_int);
    return 0;
}

static void check_bad_input(void) {
    const char *const names[] = {"null_base", "zero_size", "null_cmp", "too_big"};
    const char *const says[] = {"base is NULL", "size is 0", "cmp is NULL", "do not fit in memory"};
    algo_check_messages("merino_sort: ", names, says, 4);
    /* n of 0 or 1 sorts nothing and needs nothing (as qsort) */
    merino_sort(NULL, 0, 0, NULL);
    int one = 5;
    merino_sort(&one, 1, sizeof one, NULL);
    CHECK_EQ_INT(one, 5);
}

static void setup(unsigned long long seed) {
    rng_state = seed * 2 + 1;
    check_bad_input();
    check_adversary();
}

static void at_workers(unsigned workers) {
    check_all(workers);
    check_places(workers);
}

int main(int argc, char **argv) {
    return algo_test_main(argc, argv, "test_algo_sort_c", run_child, setup, at_workers);
}
