// reduction_cxx.cpp — reductions on C++ types: std::vector<long> added element-wise (declare
// reduction with an initializer sized from omp_orig), std::complex<double>, a class with operator+
// and a constructor/destructor count (every private copy is destroyed), on parallel for, on
// taskloop (a task reduction of a class type) and on taskgroup/in_reduction; and loops over
// random-access iterators (std::vector<int>::iterator) under static and dynamic schedules.
#include "omp_test.h"

#include <algorithm>
#include <atomic>
#include <complex>
#include <functional>
#include <numeric>
#include <vector>

#pragma omp declare reduction(vadd : std::vector<long> : \
        std::transform(omp_in.begin(), omp_in.end(), omp_out.begin(), omp_out.begin(), std::plus<long>())) \
    initializer(omp_priv = std::vector<long>(omp_orig.size(), 0))

#pragma omp declare reduction(cadd : std::complex<double> : omp_out += omp_in) \
    initializer(omp_priv = std::complex<double>(0, 0))

static std::atomic<long> alive{0};

struct Acc {
    long sum = 0, count = 0;
    Acc() { alive++; }
    Acc(const Acc &o) : sum(o.sum), count(o.count) { alive++; }
    ~Acc() { alive--; }
    Acc &operator=(const Acc &) = default;
    Acc &operator+=(const Acc &o) {
        sum += o.sum;
        count += o.count;
        return *this;
    }
};
#pragma omp declare reduction(acc : Acc : omp_out += omp_in) initializer(omp_priv = Acc())

enum { N = 1000, B = 13 };

static void vectors_and_complex() {
    std::vector<long> hist(B, 0), want(B, 0);
    std::complex<double> z(0, 0), zw(0, 0);
    for (int i = 0; i < N; i++) {
        want[i % B] += i;
        zw += std::complex<double>(i % 5, -(i % 3));
    }
#pragma omp parallel for reduction(vadd : hist) reduction(cadd : z) schedule(dynamic, 9)
    for (int i = 0; i < N; i++) {
        hist[i % B] += i;
        z += std::complex<double>(i % 5, -(i % 3));
    }
    CHECK(hist == want);
    CHECK(z == zw);
    OT_SAY("std::vector<long> reduction: hist[0] %ld hist[12] %ld; std::complex: (%g, %g)", hist[0], hist[B - 1],
           z.real(), z.imag());
}

static void class_reductions() {
    {
        Acc a;
#pragma omp parallel for reduction(acc : a)
        for (int i = 0; i < N; i++) {
            a.sum += i;
            a.count++;
        }
        CHECK_EQ_INT(a.sum, (long)N * (N - 1) / 2);
        CHECK_EQ_INT(a.count, N);
        Acc t;
#pragma omp parallel
#pragma omp single
        {
#pragma omp taskloop reduction(acc : t) grainsize(37)
            for (int i = 0; i < N; i++) {
                t.sum += 2 * i;
                t.count++;
            }
        }
        CHECK_EQ_INT(t.sum, (long)N * (N - 1));
        CHECK_EQ_INT(t.count, N);
        Acc g;
#pragma omp parallel
#pragma omp single
        {
#pragma omp taskgroup task_reduction(acc : g)
            for (int k = 0; k < 100; k++) {
#pragma omp task in_reduction(acc : g) firstprivate(k)
                {
                    g.sum += k;
                    g.count++;
                }
            }
        }
        CHECK_EQ_INT(g.sum, 4950);
        CHECK_EQ_INT(g.count, 100);
    }
    CHECK_EQ_INT(alive.load(), 0);
    OT_SAY("class-type reductions on parallel for, taskloop and taskgroup: right, every copy destroyed");
}

static void iterator_loops() {
    std::vector<int> v(N);
    std::iota(v.begin(), v.end(), 0);
    std::vector<std::atomic<int>> hits(N);
    for (auto &h : hits) h = 0;
    long sum = 0;
#pragma omp parallel for reduction(+ : sum) schedule(static, 4)
    for (std::vector<int>::iterator it = v.begin(); it < v.end(); ++it) {
        sum += *it;
        hits[*it]++;
    }
#pragma omp parallel
    {
#pragma omp for schedule(dynamic, 7)
        for (std::vector<int>::iterator it = v.end() - 1; it >= v.begin() + 1; --it) hits[*it]++;
    }
    CHECK_EQ_INT(sum, (long)N * (N - 1) / 2);
    CHECK_EQ_INT(hits[0].load(), 1);
    for (int i = 1; i < N; i++) CHECK_EQ_INT(hits[i].load(), 2);
    OT_SAY("loops over std::vector iterators (static,4 and dynamic,7, forward and backward): every element once");
}

int main() {
    vectors_and_complex();
    class_reductions();
    iterator_loops();
    return 0;
}
