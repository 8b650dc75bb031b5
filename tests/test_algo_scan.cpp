// test_algo_scan.cpp — merino::inclusive_scan, exclusive_scan and parallel_scan against std:: and
// serial scans at 1, 2, 3 and 8 workers: sizes 0, 1, 2 up to 10^6 (around the chunk size), random,
// sorted, reversed and all-equal inputs; an associative operation that is not commutative (affine
// maps composed, exact in unsigned arithmetic), so any reordering shows; in place; with and without
// an initial value; iterators that are not random-access (std::list: the serial fallback); doubles
// within rounding; parallel_scan over integral and iterator positions, with every position in
// exactly one final call and at most one pre-scan, and pre-scans starting from the identity;
// operations that throw: the exception reaches the caller; scans from fork_join branches, loop
// bodies and threads; outputs large enough to be written with streaming stores. Random inputs print their seed (MERINO_TEST_SEED replays it).
#include "algo_check.h"

#include <merino_algorithm.hpp>
#include <merino_loop.hpp>

#include <atomic>
#include <cstdint>
#include <list>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

std::mt19937_64 rng;

// x -> a x + b: composition is associative, not commutative.
struct affine {
    std::uint64_t a = 1, b = 0;
    friend bool operator==(const affine &p, const affine &q) { return p.a == q.a && p.b == q.b; }
};
// (p then q)(x) = q.a (p.a x + p.b) + q.b
affine compose(const affine &p, const affine &q) { return {q.a * p.a, q.a * p.b + q.b}; }

struct boom {
    std::size_t at;
};

enum class shape { random, sorted, reversed, equal };
std::vector<affine> make(shape s, std::size_t n) {
    std::vector<affine> v(n);
    for (std::size_t i = 0; i < n; i++) {
        switch (s) {
        case shape::random: v[i] = {rng() | 1, rng()}; break;
        case shape::sorted: v[i] = {3, i}; break;
        case shape::reversed: v[i] = {5, n - i}; break;
        case shape::equal: v[i] = {7, 11}; break;
        }
    }
    return v;
}

// The array scans' chunk for 16-byte elements is 4096: sizes around one, two and many chunks.
const std::size_t sizes[] = {0, 1, 2, 3, 100, 4095, 4096, 8191, 8192, 8193, 40977, 300000};

void check_arrays(unsigned workers) {
    auto op = [](const affine &p, const affine &q) { return compose(p, q); };
    for (shape s : {shape::random, shape::sorted, shape::reversed, shape::equal}) {
        for (std::size_t n : sizes) {
            check_set_context("workers=%u shape=%d n=%zu", workers, static_cast<int>(s), n);
            std::vector<affine> in = make(s, n), want(n), got(n);
            const affine init{3, 4};

            std::inclusive_scan(in.begin(), in.end(), want.begin(), op);
            CHECK(merino::inclusive_scan(in.begin(), in.end(), got.begin(), op) == got.end());
            CHECK(got == want);

            std::inclusive_scan(in.begin(), in.end(), want.begin(), op, init);
            CHECK(merino::inclusive_scan(in.begin(), in.end(), got.begin(), op, init) == got.end());
            CHECK(got == want);

            std::exclusive_scan(in.begin(), in.end(), want.begin(), init, op);
            CHECK(merino::exclusive_scan(in.begin(), in.end(), got.begin(), init, op) == got.end());
            CHECK(got == want);

            // In place, both ways.
            got = in;
            std::inclusive_scan(in.begin(), in.end(), want.begin(), op);
            merino::inclusive_scan(got.begin(), got.end(), got.begin(), op);
            CHECK(got == want);
            got = in;
            std::exclusive_scan(in.begin(), in.end(), want.begin(), init, op);
            merino::exclusive_scan(got.begin(), got.end(), got.begin(), init, op);
            CHECK(got == want);
        }
    }
    // Integers with std::plus, through plain pointers; the default operation.
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{50000}, std::size_t{1000003}}) {
        check_set_context("workers=%u int n=%zu", workers, n);
        std::vector<long> in(n), want(n), got(n);
        for (auto &e : in) e = static_cast<long>(rng() % 1000) - 500;
        std::inclusive_scan(in.begin(), in.end(), want.begin());
        merino::inclusive_scan(in.data(), in.data() + n, got.data());
        CHECK(got == want);
        std::exclusive_scan(in.begin(), in.end(), want.begin(), 17L);
        merino::exclusive_scan(in.begin(), in.end(), got.begin(), 17L);
        CHECK(got == want);
    }
    // Doubles: the same sums but for rounding.
    {
        std::size_t n = 500000;
        std::vector<double> in(n), want(n), got(n);
        for (auto &e : in) e = static_cast<double>(rng() % 1000000) / 1000.0;
        std::inclusive_scan(in.begin(), in.end(), want.begin());
        merino::inclusive_scan(in.begin(), in.end(), got.begin());
        for (std::size_t i = 0; i < n; i++) CHECK_CMP_DBL(std::fabs(got[i] - want[i]), <=, 1e-9 * want[i] + 1e-9);
    }
    // Not random-access: the serial algorithm.
    {
        std::list<affine> in;
        for (const affine &e : make(shape::random, 30000)) in.push_back(e);
        std::vector<affine> want(in.size()), got(in.size());
        std::inclusive_scan(in.begin(), in.end(), want.begin(), op);
        merino::inclusive_scan(in.begin(), in.end(), got.begin(), op);
        CHECK(got == want);
        std::list<affine> out(in.size());
        merino::exclusive_scan(in.begin(), in.end(), out.begin(), affine{2, 1}, op);
        std::exclusive_scan(in.begin(), in.end(), want.begin(), affine{2, 1}, op);
        CHECK(std::equal(out.begin(), out.end(), want.begin()));
    }
}

// Outputs of at least merino::detail::scanning::stream_bytes are written with streaming stores:
// 8-byte integers through a vector's iterators (in place too), 4-byte integers through pointers, an
// exclusive scan from an initial value; and, with plain stores, floats and an output of another
// type than the sums.
void check_streamed(unsigned workers) {
    const std::size_t n8 = merino::detail::scanning::stream_bytes / 8 + 4099;
    check_set_context("workers=%u streamed long n=%zu", workers, n8);
    std::vector<long> in(n8), want(n8), got(n8);
    for (auto &e : in) e = static_cast<long>(rng() % 2001) - 1000;
    std::inclusive_scan(in.begin(), in.end(), want.begin());
    CHECK(merino::inclusive_scan(in.begin(), in.end(), got.begin()) == got.end());
    CHECK(got == want);
    std::exclusive_scan(in.begin(), in.end(), want.begin(), 7L);
    merino::exclusive_scan(in.begin(), in.end(), got.begin(), 7L);
    CHECK(got == want);
    got = in;
    std::inclusive_scan(in.begin(), in.end(), want.begin());
    merino::inclusive_scan(got.begin(), got.end(), got.begin());
    CHECK(got == want);

    const std::size_t n4 = merino::detail::scanning::stream_bytes / 4 + 17;
    check_set_context("workers=%u streamed int n=%zu", workers, n4);
    std::vector<int> iin(n4), iwant(n4), igot(n4);
    for (auto &e : iin) e = static_cast<int>(rng() % 100);
    std::inclusive_scan(iin.begin(), iin.end(), iwant.begin(), std::plus<>(), 1);
    merino::inclusive_scan(iin.data(), iin.data() + n4, igot.data(), std::plus<>(), 1);
    CHECK(igot == iwant);

    check_set_context("workers=%u float n=%zu", workers, n4);
    std::vector<float> fin(n4), fwant(n4), fgot(n4);
    for (auto &e : fin) e = static_cast<float>(rng() % 2); // every sum below 2^24: exact in any order
    std::inclusive_scan(fin.begin(), fin.end(), fwant.begin(), std::plus<>(), 1.0f);
    merino::inclusive_scan(fin.data(), fin.data() + n4, fgot.data(), std::plus<>(), 1.0f);
    CHECK(fgot == fwant);

    check_set_context("workers=%u int into long n=%zu", workers, n4);
    std::vector<long> lwant(n4), lgot(n4);
    std::inclusive_scan(iin.begin(), iin.end(), lwant.begin(), std::plus<>(), 0L);
    merino::inclusive_scan(iin.begin(), iin.end(), lgot.begin(), std::plus<>(), 0L);
    CHECK(lgot == lwant);
}

// ---- parallel_scan ------------------------------------------------------------------------------------

void check_general(unsigned workers) {
    for (std::size_t n : sizes) {
        for (std::int64_t chunk : {std::int64_t{0}, std::int64_t{1}, std::int64_t{7}, std::int64_t{1000}}) {
            check_set_context("workers=%u parallel_scan n=%zu chunk=%lld", workers, n, static_cast<long long>(chunk));
            std::vector<affine> in = make(shape::random, n), out(n), want(n);
            std::inclusive_scan(in.begin(), in.end(), want.begin(), compose);
            std::vector<std::atomic<int>> finals(n), pres(n);
            std::atomic<int> bad_start{0};
            affine total = merino::parallel_scan(
                std::size_t{0}, n, affine{},
                [&](std::size_t lo, std::size_t hi, affine sum, bool is_final) {
                    CHECK(lo < hi && hi <= n);
                    // relaxed: counts, read after the scan returned
                    if (!is_final && !(sum == affine{})) bad_start.fetch_add(1, std::memory_order_relaxed);
                    for (std::size_t i = lo; i < hi; i++) {
                        sum = compose(sum, in[i]);
                        if (is_final) {
                            out[i] = sum;
                            finals[i].fetch_add(1, std::memory_order_relaxed);
                        } else {
                            pres[i].fetch_add(1, std::memory_order_relaxed);
                        }
                    }
                    return sum;
                },
                [](const affine &l, const affine &r) { return compose(l, r); }, merino::scan_options(chunk));
            CHECK(out == want);
            CHECK(total == (n ? want[n - 1] : affine{}));
            CHECK_EQ_INT(bad_start.load(std::memory_order_relaxed), 0);
            for (std::size_t i = 0; i < n; i++) {
                CHECK_EQ_INT(finals[i].load(std::memory_order_relaxed), 1);
                CHECK(pres[i].load(std::memory_order_relaxed) <= 1);
            }
        }
    }
    // Iterator positions, and bounds of two integral types.
    std::vector<int> v(100000);
    for (auto &e : v) e = static_cast<int>(rng() % 100);
    std::vector<long> prefix(v.size());
    long sum = merino::parallel_scan(
        v.begin(), v.end(), 0L,
        [&](std::vector<int>::iterator lo, std::vector<int>::iterator hi, long s, bool is_final) {
            for (auto it = lo; it != hi; ++it) {
                s += *it;
                if (is_final) prefix[static_cast<std::size_t>(it - v.begin())] = s;
            }
            return s;
        },
        std::plus<>());
    CHECK_EQ_INT(sum, std::accumulate(v.begin(), v.end(), 0L));
    std::vector<long> want(v.size());
    std::inclusive_scan(v.begin(), v.end(), want.begin(), std::plus<>(), 0L);
    CHECK(prefix == want);
    long s2 = merino::parallel_scan(0, v.size(), 0L, [&](std::size_t lo, std::size_t hi, long s, bool) {
        for (std::size_t i = lo; i < hi; i++) s += v[i];
        return s;
    }, std::plus<>());
    CHECK_EQ_INT(s2, sum);
    // An empty range returns the identity.
    CHECK(merino::parallel_scan(5, 5, affine{9, 9}, [](int, int, affine s, bool) { return s; },
                                [](const affine &l, const affine &) { return l; }) == (affine{9, 9}));
}

// ---- exceptions -----------------------------------------------------------------------------------------

void check_throwing(unsigned workers) {
    for (int round = 0; round < 40; round++) {
        std::size_t n = 1 + rng() % 200000, at = rng() % n;
        check_set_context("workers=%u throwing n=%zu at=%zu", workers, n, at);
        std::vector<long> in(n, 1), out(n);
        in[at] = -1; // the operation throws when it meets it
        auto op = [&](long acc, long x) {
            if (x < 0) throw boom{at};
            return acc + x;
        };
        bool threw = false;
        try {
            if (round % 2)
                merino::inclusive_scan(in.begin(), in.end(), out.begin(), op);
            else
                merino::exclusive_scan(in.begin(), in.end(), out.begin(), 0L, op);
        } catch (const boom &b) {
            threw = true;
            CHECK_EQ_UINT(b.at, at);
        }
        // An inclusive scan meets every element but the first; an exclusive scan every one but the last.
        bool meets = round % 2 ? at > 0 : at + 1 < n;
        CHECK_EQ_INT(threw, meets);
    }
    // In parallel_scan's body and combine.
    for (int where = 0; where < 2; where++) {
        for (int round = 0; round < 10; round++) {
            std::size_t n = 50000 + rng() % 100000, at = rng() % n;
            check_set_context("workers=%u parallel_scan throwing where=%d at=%zu", workers, where, at);
            bool threw = false;
            std::atomic<int> combines{0};
            try {
                merino::parallel_scan(
                    std::size_t{0}, n, 0L,
                    [&](std::size_t lo, std::size_t hi, long s, bool) {
                        if (where == 0 && lo <= at && at < hi) throw boom{at};
                        return s + static_cast<long>(hi - lo);
                    },
                    [&](long l, long r) {
                        // relaxed: a count
                        if (where == 1 && combines.fetch_add(1, std::memory_order_relaxed) == 3) throw boom{7};
                        return l + r;
                    },
                    merino::scan_options(1000));
            } catch (const boom &b) {
                threw = true;
                CHECK_EQ_UINT(b.at, where == 0 ? at : 7);
            }
            CHECK(threw || (where == 1 && combines.load(std::memory_order_relaxed) <= 3));
        }
    }
}

// ---- where scans may be called ---------------------------------------------------------------------------

void check_places(unsigned workers) {
    check_set_context("workers=%u places", workers);
    auto scanned = [](const std::vector<long> &v) {
        std::vector<long> w(v.size());
        std::inclusive_scan(v.begin(), v.end(), w.begin());
        return w;
    };
    std::vector<std::vector<long>> in(8), out(8);
    for (std::size_t i = 0; i < in.size(); i++) {
        in[i].resize(100000 + rng() % 50000);
        for (auto &e : in[i]) e = static_cast<long>(rng() % 10);
        out[i].resize(in[i].size());
    }
    merino::fork_join([&] { merino::inclusive_scan(in[0].begin(), in[0].end(), out[0].begin()); },
                      [&] { merino::inclusive_scan(in[1].begin(), in[1].end(), out[1].begin()); });
    merino::parallel_for(2, 5, [&](int i) { merino::inclusive_scan(in[i].begin(), in[i].end(), out[i].begin()); });
    std::vector<std::thread> t;
    for (int i = 5; i < 8; i++)
        t.emplace_back([&, i] { merino::inclusive_scan(in[i].begin(), in[i].end(), out[i].begin()); });
    for (auto &e : t) e.join();
    for (std::size_t i = 0; i < in.size(); i++) CHECK(out[i] == scanned(in[i]));
}

} // namespace

int main(int argc, char **argv) {
    auto setup = [](unsigned long long seed) { rng.seed(seed); };
    auto at_workers = [](unsigned workers) {
        check_arrays(workers);
        check_streamed(workers);
        check_general(workers);
        check_throwing(workers);
        check_places(workers);
    };
    return algo_test_main(argc, argv, "test_algo_scan", nullptr, setup, at_workers);
}
