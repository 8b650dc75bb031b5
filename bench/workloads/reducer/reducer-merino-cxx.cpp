// reducer, merino C++: ./reducer-merino-cxx --workers N [--reps R] shape n variant   (see reducer.h):
// merino::reducer_list_append, merino::combinable of std::lists (spliced together after the
// loop), or a std::vector behind a std::mutex; the loop is merino::parallel_for (default
// schedule), the tree merino::fork_join.
#include <bench.h> // first: it sets _GNU_SOURCE
#include "reducer.h"

#include <merino.hpp>
#include <merino_loop.hpp>
#include <merino_reducer.hpp>

#include <list>
#include <mutex>
#include <vector>

namespace {

template <class Append> void fib(Append &append, int n, uint64_t depth) {
    if (n < 2) {
        append(depth * 2 + static_cast<uint64_t>(n));
        return;
    }
    merino::fork_join([&] { fib(append, n - 1, depth + 1); }, [&] { fib(append, n - 2, depth + 1); });
}

template <class Append> void work(int shape, long n, Append &append) {
    if (shape == REDUCER_LOOP)
        merino::parallel_for(long(0), n, [&](long i) { append(static_cast<uint64_t>(i)); });
    else
        fib(append, static_cast<int>(n), 0);
}

template <class C> reducer_digest digest(const C &c) {
    reducer_digest d = reducer_digest_new();
    for (uint64_t v : c) reducer_digest_add(&d, v);
    return d;
}

} // namespace

int main(int argc, char **argv) {
    const char *p[3];
    int workers, reps;
    int np = bench_args(argc, argv, &workers, &reps, p, 3);
    if (np < 3 || reducer_shape(p[0]) < 0 || reducer_variant(p[2]) < 0)
        bench_usage_exit(argv[0], "loop|fib n reducer|combinable|mutex");
    int shape = reducer_shape(p[0]), variant = reducer_variant(p[2]);
    long n = bench_param_long(p, np, 1, 1000);
    reducer_digest want = reducer_expected(shape, n), got{};
    merino::runtime rt(static_cast<unsigned>(workers));
    double t = 0;
    for (int r = 0; r < reps; r++) {
        if (variant == VARIANT_REDUCER) {
            merino::reducer_list_append<uint64_t> out;
            auto append = [&](uint64_t v) { out.push_back(v); };
            double t0 = bench_now();
            merino::run([&] { work(shape, n, append); });
            std::list<uint64_t> &all = out.get();
            t += bench_now() - t0;
            got = digest(all);
        } else if (variant == VARIANT_COMBINABLE) {
            merino::combinable<std::list<uint64_t>> parts;
            auto append = [&](uint64_t v) { parts.local().push_back(v); };
            double t0 = bench_now();
            merino::run([&] { work(shape, n, append); });
            std::list<uint64_t> all;
            parts.combine_each([&](std::list<uint64_t> &l) { all.splice(all.end(), l); });
            t += bench_now() - t0;
            got = digest(all);
        } else {
            std::vector<uint64_t> all;
            std::mutex mu;
            auto append = [&](uint64_t v) {
                std::lock_guard<std::mutex> lock(mu);
                all.push_back(v);
            };
            double t0 = bench_now();
            merino::run([&] { work(shape, n, append); });
            t += bench_now() - t0;
            got = digest(all);
        }
    }
    return bench_report_i64(t, reducer_ok(variant, &got, &want), static_cast<int64_t>(got.count), -1);
}
