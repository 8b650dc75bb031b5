// test_algo_sort.cpp — merino::parallel_sort and merino::parallel_stable_sort against std::sort and
// std::stable_sort at 1, 2, 3 and 8 workers: sizes 0, 1, 2 up to 10^6 (around the insertion-sort,
// ninther and fork limits), random, sorted, reversed, all-equal, few distinct, organ-pipe, sawtooth
// and nearly sorted inputs; int and double (the branchless partition), records sorted by key
// (stability, and every element once), std::string, move-only std::unique_ptr; std::less,
// std::greater and lambdas. McIlroy's adversary bounds the comparisons (the heapsort fallback).
// Comparators that throw after a random number of comparisons: the exception reaches the caller and
// the range holds a permutation of its input. Sorts from fork_join branches, loop bodies and
// several threads at once. Random inputs print their seed (MERINO_TEST_SEED replays it).
#include "algo_check.h"

#include <merino_algorithm.hpp>
#include <merino_loop.hpp>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

std::mt19937_64 rng;

enum class shape { random, sorted, reversed, equal, few, organ, saw, nearly };
const shape shapes[] = {shape::random, shape::sorted, shape::reversed, shape::equal,
                        shape::few,    shape::organ,  shape::saw,      shape::nearly};
const char *name(shape s) {
    const char *n[] = {"random", "sorted", "reversed", "equal", "few", "organ", "saw", "nearly"};
    return n[static_cast<int>(s)];
}

std::vector<int> keys(shape s, std::size_t n) {
    std::vector<int> k(n);
    for (std::size_t i = 0; i < n; i++) {
        int v = static_cast<int>(i);
        switch (s) {
        case shape::random: v = static_cast<int>(rng() % 1000000007); break;
        case shape::sorted: break;
        case shape::reversed: v = static_cast<int>(n - i); break;
        case shape::equal: v = 7; break;
        case shape::few: v = static_cast<int>(rng() % 4); break;
        case shape::organ: v = static_cast<int>(i < n / 2 ? i : n - i); break;
        case shape::saw: v = static_cast<int>(i % 97); break;
        case shape::nearly: break;
        }
        k[i] = v;
    }
    if (s == shape::nearly && n > 1)
        for (std::size_t j = 0; j < n / 50 + 1; j++) std::swap(k[rng() % n], k[rng() % n]);
    return k;
}

const std::size_t sizes[] = {0, 1, 2, 3, 5, 16, 23, 24, 25, 100, 127, 128, 129, 1000, 2047, 2048, 4095, 4096, 8191,
                             8192, 20000, 100000};

// A record: sorted by key; id tells which input element it is.
struct item {
    int key;
    int id;
};
bool by_key(const item &a, const item &b) { return a.key < b.key; }

std::vector<item> items(const std::vector<int> &k) {
    std::vector<item> v(k.size());
    for (std::size_t i = 0; i < k.size(); i++) v[i] = {k[i], static_cast<int>(i)};
    return v;
}

// Every id of [0, n) exactly once.
void check_permutation(const std::vector<item> &v, const char *what) {
    std::vector<char> seen(v.size(), 0);
    for (const item &e : v) {
        CHECK_MSG(e.id >= 0 && static_cast<std::size_t>(e.id) < v.size() && !seen[e.id], "%s: id %d lost or twice",
                  what, e.id);
        seen[e.id] = 1;
    }
}

// ---- results equal the standard library's -----------------------------------------------------------

void check_shapes(unsigned workers) {
    for (shape s : shapes) {
        for (std::size_t n : sizes) {
            check_set_context("workers=%u shape=%s n=%zu", workers, name(s), n);
            std::vector<int> k = keys(s, n);

            std::vector<int> a = k, want = k;
            std::sort(want.begin(), want.end());
            merino::parallel_sort(a.begin(), a.end());
            CHECK(a == want);

            std::vector<double> d(k.begin(), k.end()), dw(want.begin(), want.end());
            std::reverse(dw.begin(), dw.end());
            merino::parallel_sort(d.begin(), d.end(), std::greater<>());
            CHECK(d == dw);

            a = k;
            merino::parallel_sort(a.begin(), a.end(), [](int x, int y) { return x < y; }); // branchy
            CHECK(a == want);

            // Records: keys sorted, every element once; stable: exactly std::stable_sort's order.
            std::vector<item> r = items(k);
            merino::parallel_sort(r.begin(), r.end(), by_key);
            for (std::size_t i = 0; i < n; i++) CHECK_EQ_INT(r[i].key, want[i]);
            check_permutation(r, "parallel_sort");

            r = items(k);
            std::vector<item> rw = r;
            std::stable_sort(rw.begin(), rw.end(), by_key);
            merino::parallel_stable_sort(r.begin(), r.end(), by_key);
            for (std::size_t i = 0; i < n; i++) {
                CHECK_EQ_INT(r[i].key, rw[i].key);
                CHECK_EQ_INT(r[i].id, rw[i].id);
            }

            a = k;
            merino::parallel_stable_sort(a.begin(), a.end());
            CHECK(a == want);
        }
    }

    // Large inputs: 10^6 doubles (fewer under the sanitizers), each way.
    std::size_t big = static_cast<std::size_t>(1000000 * check_scale());
    for (shape s : {shape::random, shape::few, shape::nearly, shape::reversed}) {
        check_set_context("workers=%u shape=%s n=%zu", workers, name(s), big);
        std::vector<int> k = keys(s, big);
        std::vector<double> d(k.begin(), k.end()), want = d;
        std::sort(want.begin(), want.end());
        merino::parallel_sort(d.begin(), d.end());
        CHECK(d == want);
        std::vector<item> r = items(k), rw = r;
        std::stable_sort(rw.begin(), rw.end(), by_key);
        merino::parallel_stable_sort(r.begin(), r.end(), by_key);
        for (std::size_t i = 0; i < r.size(); i++) CHECK(r[i].key == rw[i].key && r[i].id == rw[i].id);
    }
}

// Non-trivial and move-only elements.
void check_types(unsigned workers) {
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{30}, std::size_t{5000},
                          std::size_t{30000}}) {
        check_set_context("workers=%u types n=%zu", workers, n);
        std::vector<std::string> s(n);
        for (auto &e : s) e = std::to_string(rng() % 100000) + std::string(rng() % 20, 'x');
        std::vector<std::string> sw = s, ss = s;
        std::stable_sort(sw.begin(), sw.end());
        merino::parallel_sort(s.begin(), s.end());
        CHECK(s == sw);
        merino::parallel_stable_sort(ss.begin(), ss.end());
        CHECK(ss == sw);

        for (int stable = 0; stable < 2; stable++) {
            std::vector<std::unique_ptr<int>> p(n);
            for (std::size_t i = 0; i < n; i++) p[i] = std::make_unique<int>(static_cast<int>(rng() % 1000));
            std::vector<int *> before(n);
            for (std::size_t i = 0; i < n; i++) before[i] = p[i].get();
            auto deref = [](const std::unique_ptr<int> &x, const std::unique_ptr<int> &y) { return *x < *y; };
            if (stable)
                merino::parallel_stable_sort(p.begin(), p.end(), deref);
            else
                merino::parallel_sort(p.begin(), p.end(), deref);
            std::vector<int *> after(n);
            for (std::size_t i = 0; i < n; i++) {
                CHECK(p[i] != nullptr);
                after[i] = p[i].get();
                if (i) CHECK(*p[i - 1] <= *p[i]);
            }
            std::sort(before.begin(), before.end());
            std::sort(after.begin(), after.end());
            CHECK(before == after);
        }
    }
}

// ---- O(n log n) comparisons against McIlroy's adversary ----------------------------------------------

// "A killer adversary for quicksort" (McIlroy 1999): values are decided as the sort compares them,
// so as to make its pivots bad. The comparator has state: run at one worker.
struct adversary {
    std::vector<int> val;
    int gas, solid = 0, candidate = 0;
    long comparisons = 0;
    explicit adversary(int n) : val(n, n), gas(n) {}
    bool less(int x, int y) {
        comparisons++;
        if (val[x] == gas && val[y] == gas) val[x == candidate ? x : y] = solid++;
        if (val[x] == gas)
            candidate = x;
        else if (val[y] == gas)
            candidate = y;
        return val[x] < val[y];
    }
};

void check_adversary() {
    merino::runtime rt(1);
    for (int n : {1000, 5000, 100000}) {
        check_set_context("adversary n=%d", n);
        adversary adv(n);
        std::vector<int> idx(n);
        for (int i = 0; i < n; i++) idx[i] = i;
        merino::parallel_sort(idx.begin(), idx.end(), [&](int x, int y) { return adv.less(x, y); });
        double bound = 3.0 * n * std::log2(n);
        CHECK_MSG(adv.comparisons < bound, "%ld comparisons for n = %d, more than 3 n log2 n = %.0f",
                  adv.comparisons, n, bound);
        for (int i = 1; i < n; i++) CHECK(adv.val[idx[i - 1]] <= adv.val[idx[i]]);
        // The input it built, sorted again: the same bound.
        std::vector<int> killer = adv.val;
        long count = 0;
        merino::parallel_sort(killer.begin(), killer.end(), [&](int x, int y) {
            count++;
            return x < y;
        });
        CHECK(std::is_sorted(killer.begin(), killer.end()));
        CHECK_MSG(count < bound, "%ld comparisons on the adversary's input", count);
    }
    // The heapsort fallback itself.
    std::vector<int> h = keys(shape::random, 10000), hw = h;
    std::less<> lt;
    merino::detail::sorting::heap_sort(h.begin(), h.end(), lt);
    std::sort(hw.begin(), hw.end());
    CHECK(h == hw);
}

// ---- throwing comparators ----------------------------------------------------------------------------

struct boom {
    long at;
};

// A comparator that throws boom once `left` reaches 0 (shared by all workers).
struct thrower {
    std::atomic<long> *left;
    bool operator()(const item &a, const item &b) const {
        // relaxed: a count; which comparison throws does not matter
        if (left->fetch_sub(1, std::memory_order_relaxed) == 1) throw boom{0};
        return a.key < b.key;
    }
};

template <class Sort> long count_comparisons(std::vector<item> r, Sort sort) {
    std::atomic<long> left{LONG_MAX};
    sort(r, thrower{&left});
    return LONG_MAX - left.load(std::memory_order_relaxed); // relaxed: after the sort's joins
}

void check_throwing(unsigned workers) {
    auto unstable = [](std::vector<item> &r, thrower t) { merino::parallel_sort(r.begin(), r.end(), t); };
    auto stable = [](std::vector<item> &r, thrower t) { merino::parallel_stable_sort(r.begin(), r.end(), t); };
    for (std::size_t n : {std::size_t{2}, std::size_t{10}, std::size_t{100}, std::size_t{5000}, std::size_t{50000},
                          std::size_t{300000}}) {
        for (shape s : {shape::random, shape::few, shape::sorted, shape::reversed}) {
            for (int st = 0; st < 2; st++) {
                std::vector<item> input = items(keys(s, n));
                // The comparisons a full sort makes (the same at any worker count), and a throw at a
                // random one of them: anywhere, or in the last n (the top merge, the last partitions).
                long total = st ? count_comparisons(input, stable) : count_comparisons(input, unstable);
                for (int late = 0; late < 2; late++) {
                    long window = late ? std::min<long>(total, static_cast<long>(n)) : total;
                    long after = total - static_cast<long>(rng() % static_cast<unsigned long>(window));
                    check_set_context("workers=%u throwing n=%zu shape=%s stable=%d after=%ld of %ld", workers, n,
                                      name(s), st, after, total);
                    std::vector<item> r = input;
                    std::atomic<long> left{after};
                    bool threw = false;
                    try {
                        if (st)
                            stable(r, thrower{&left});
                        else
                            unstable(r, thrower{&left});
                    } catch (const boom &) {
                        threw = true;
                    }
                    CHECK(threw);
                    check_permutation(r, st ? "stable, after a throw" : "after a throw");
                }
            }
        }
    }
    // Move-only values held outside the range when the comparator throws go back.
    for (int stable = 0; stable < 2; stable++) {
        for (int round = 0; round < 20; round++) {
            std::size_t n = 1 + rng() % 20000;
            std::vector<std::unique_ptr<int>> p(n);
            for (auto &e : p) e = std::make_unique<int>(static_cast<int>(rng() % 100));
            std::atomic<long> left{static_cast<long>(rng() % (n * 8)) + 1};
            try {
                auto cmp = [&](const std::unique_ptr<int> &x, const std::unique_ptr<int> &y) {
                    if (left.fetch_sub(1, std::memory_order_relaxed) == 1) throw boom{1}; // relaxed: a count
                    return *x < *y;
                };
                if (stable)
                    merino::parallel_stable_sort(p.begin(), p.end(), cmp);
                else
                    merino::parallel_sort(p.begin(), p.end(), cmp);
            } catch (const boom &) {
            }
            for (auto &e : p) CHECK_MSG(e != nullptr, "a moved-from element was left in the range (n = %zu)", n);
        }
    }
}

// ---- where sorts may be called ---------------------------------------------------------------------------

void check_places(unsigned workers) {
    check_set_context("workers=%u places", workers);
    auto sorted_copy = [](std::vector<int> v) {
        std::sort(v.begin(), v.end());
        return v;
    };
    std::vector<int> a = keys(shape::random, 50000), b = keys(shape::random, 60000);
    std::vector<int> aw = sorted_copy(a), bw = sorted_copy(b);
    merino::fork_join([&] { merino::parallel_sort(a.begin(), a.end()); },
                      [&] { merino::parallel_stable_sort(b.begin(), b.end()); });
    CHECK(a == aw && b == bw);

    std::vector<std::vector<int>> many(8);
    for (auto &v : many) v = keys(shape::random, 10000 + rng() % 10000);
    std::vector<std::vector<int>> want(many.size());
    for (std::size_t i = 0; i < many.size(); i++) want[i] = sorted_copy(many[i]);
    merino::parallel_for(std::size_t{0}, many.size(), [&](std::size_t i) {
        merino::parallel_sort(many[i].begin(), many[i].end());
    });
    for (std::size_t i = 0; i < many.size(); i++) CHECK(many[i] == want[i]);

    for (auto &v : many) v = keys(shape::random, 30000 + rng() % 10000);
    for (std::size_t i = 0; i < many.size(); i++) want[i] = sorted_copy(many[i]);
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < 4; i++)
        threads.emplace_back([&, i] {
            merino::parallel_sort(many[i].begin(), many[i].end());
            merino::parallel_stable_sort(many[i + 4].begin(), many[i + 4].end());
        });
    for (auto &t : threads) t.join();
    for (std::size_t i = 0; i < many.size(); i++) CHECK(many[i] == want[i]);
}

} // namespace

int main(int argc, char **argv) {
    auto setup = [](unsigned long long seed) {
        rng.seed(seed);
        check_adversary();
    };
    auto at_workers = [](unsigned workers) {
        check_shapes(workers);
        check_types(workers);
        check_throwing(workers);
        check_places(workers);
    };
    return algo_test_main(argc, argv, "test_algo_sort", nullptr, setup, at_workers);
}
