// test_loop_cpp.cpp — merino_loop.hpp: parallel_for per position and per sub-range over integral
// types (signed, unsigned past INT64_MAX, mixed) and random-access iterators, parallel_for_each,
// parallel_reduce (a non-trivial, non-commutative partial: std::string, deterministic), loops in
// fork_join branches, in other loops and on other threads, and exceptions: the first in iteration
// order reaches the caller, through nested loops too.
#include "check.h"

#include <merino_loop.hpp>

#include <atomic>
#include <climits>
#include <cstdint>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

const char *const schedules[] = {"auto",  "static", "static,2", "dynamic,3", "guided",
                                  "steal", "adaptive,5", "idws",   "idws-poll"};

// A count per position; relaxed: read only after the loop has returned (its joins order it).
void hit(std::atomic<int> &h) { h.fetch_add(1, std::memory_order_relaxed); }

template <class Hits> void check_all_once(const Hits &hits, const char *what) {
    for (std::size_t i = 0; i < hits.size(); i++)
        CHECK_MSG(hits[i].load(std::memory_order_relaxed) == 1, "%s: position %zu ran %d times", what, i,
                  hits[i].load(std::memory_order_relaxed));
}

void check_for(const merino::loop_options &o) {
    const int n = 5003;
    std::vector<std::atomic<int>> hits(n);
    merino::parallel_for(-17, n - 17, [&](int i) { hit(hits[i + 17]); }, o);
    check_all_once(hits, "per position");

    for (auto &h : hits) h.store(0, std::memory_order_relaxed); // before the loop: its start orders it
    merino::parallel_for(std::size_t{0}, hits.size(), [&](std::size_t lo, std::size_t hi) {
        CHECK(lo < hi && hi <= hits.size());
        for (std::size_t i = lo; i < hi; i++) hit(hits[i]);
    }, o);
    check_all_once(hits, "per sub-range");

    for (auto &h : hits) h.store(0, std::memory_order_relaxed); // before the loop: its start orders it
    merino::parallel_for(0, hits.size(), [&](std::size_t i) { hit(hits[i]); }, o); // int and size_t
    check_all_once(hits, "mixed bound types");

    // Unsigned positions past INT64_MAX (offsets inside).
    for (auto &h : hits) h.store(0, std::memory_order_relaxed); // before the loop: its start orders it
    const std::uint64_t base = (std::uint64_t{1} << 63) + 12345;
    merino::parallel_for(base, base + hits.size(), [&](std::uint64_t i) { hit(hits[i - base]); }, o);
    check_all_once(hits, "unsigned past INT64_MAX");

    // Iterators: per position (an iterator), per sub-range, for_each.
    std::vector<long> v(n);
    std::iota(v.begin(), v.end(), 0L);
    merino::parallel_for(v.begin(), v.end(), [](std::vector<long>::iterator it) { *it *= 2; }, o);
    merino::parallel_for(v.begin(), v.end(), [](auto lo, auto hi) {
        for (auto it = lo; it != hi; ++it) *it += 1;
    }, o);
    merino::parallel_for_each(v, [](long &e) { e *= 3; }, o);
    for (int i = 0; i < n; i++) CHECK_EQ_INT(v[i], (2 * i + 1) * 3);

    // Empty and reversed ranges call nothing.
    merino::parallel_for(5, 5, [](int) { CHECK(false); }, o);
    merino::parallel_for(5u, 2u, [](unsigned) { CHECK(false); }, o);
    merino::parallel_for(v.end(), v.begin(), [](auto) { CHECK(false); }, o);
}

void check_reduce(const merino::loop_options &o) {
    const long n = 200001;
    long want = 0;
    for (long i = -100; i < n; i++) want += i * 3;
    long got = merino::parallel_reduce(-100L, n, 0L, [](long lo, long hi, long acc) {
        for (long i = lo; i < hi; i++) acc += i * 3;
        return acc;
    }, std::plus<>(), o);
    CHECK_EQ_INT(got, want);
    got = merino::parallel_reduce(-100L, n, 0L, [](long i) { return i * 3; }, std::plus<>(), o);
    CHECK_EQ_INT(got, want);

    // Not commutative and not trivially copyable: deterministic reductions keep iteration order.
    merino::loop_options d = o;
    d.deterministic = 1;
    std::string serial;
    for (int i = 0; i < 3000; i++) serial += char('a' + i % 26);
    std::string s = merino::parallel_reduce(0, 3000, std::string(), [](int lo, int hi, std::string acc) {
        for (int i = lo; i < hi; i++) acc += char('a' + i % 26);
        return acc;
    }, [](std::string a, std::string b) { return a + b; }, d);
    CHECK(s == serial);
    std::string empty = merino::parallel_reduce(3, 3, std::string("id"), [](int, int, std::string a) { return a; },
                                                [](std::string a, std::string b) { return a + b; }, d);
    CHECK(empty == "id");
}

// The first exception in iteration order among those thrown reaches the caller.
struct thrown {
    long at;
};

void check_exceptions(const merino::loop_options &o) {
    for (int rep = 0; rep < 20; rep++) {
        std::atomic<long> lowest{LONG_MAX}; // relaxed throughout: read after the loop returns
        try {
            merino::parallel_for(0L, 100000L, [&](long i) {
                if (i % 997 == 3 && i > 1000) {
                    long cur = lowest.load(std::memory_order_relaxed);
                    while (i < cur && !lowest.compare_exchange_weak(cur, i, std::memory_order_relaxed)) {
                    }
                    throw thrown{i};
                }
            }, o);
            CHECK_MSG(false, "no exception reached the caller");
        } catch (const thrown &t) {
            CHECK_EQ_INT(t.at, lowest.load(std::memory_order_relaxed));
        }
    }
    // A throw abandons the rest: a loop of 2^40 positions whose every body throws returns at once.
    bool huge = false;
    try {
        merino::parallel_for(std::int64_t{0}, std::int64_t{1} << 40, [](std::int64_t i) { throw thrown{long(i)}; }, o);
    } catch (const thrown &) {
        huge = true;
    }
    CHECK(huge);
    // Through a nested loop, and out of a reduce.
    bool caught = false;
    try {
        merino::parallel_for(0, 50, [&](int i) {
            merino::parallel_for(0, 50, [&](int j) {
                if (i == 20 && j == 30) throw std::runtime_error("inner 20 30");
            }, o);
        }, o);
    } catch (const std::runtime_error &e) {
        caught = std::string(e.what()) == "inner 20 30";
    }
    CHECK(caught);
    caught = false;
    try {
        merino::parallel_reduce(0, 1000, 0, [](int i) -> int {
            if (i == 777) throw std::logic_error("reduce 777");
            return i;
        }, std::plus<>(), o);
    } catch (const std::logic_error &e) {
        caught = std::string(e.what()) == "reduce 777";
    }
    CHECK(caught);
}

// Loops in fork_join branches and on threads that are not workers.
void check_places(const merino::loop_options &o) {
    std::vector<std::atomic<int>> hits(20000);
    merino::fork_join([&] { merino::parallel_for(0, 10000, [&](int i) { hit(hits[i]); }, o); },
                      [&] { merino::parallel_for(10000, 20000, [&](int i) { hit(hits[i]); }, o); });
    check_all_once(hits, "fork_join branches");
    for (auto &h : hits) h.store(0, std::memory_order_relaxed); // before the loop: its start orders it
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; t++)
        threads.emplace_back([&, t] { merino::parallel_for(t * 5000, t * 5000 + 5000, [&](int i) { hit(hits[i]); }, o); });
    for (auto &t : threads) t.join();
    check_all_once(hits, "threads");
}

} // namespace

int main() {
    unsetenv("MERINO_SCHEDULE");
    for (unsigned workers : {1u, 2u, 4u}) {
        merino::runtime rt(workers);
        for (const char *s : schedules) {
            check_set_context("workers=%u schedule=%s", workers, s);
            merino::loop_options o = merino::loop_options::parse(s);
            check_for(o);
            check_reduce(o);
            check_exceptions(o);
            check_places(o);
        }
    }
    bool threw = false;
    try {
        merino::loop_options::parse("dynamic,zero");
    } catch (const std::invalid_argument &e) {
        threw = std::string(e.what()).find("bad chunk") != std::string::npos;
    }
    CHECK(threw);
    std::puts("test_loop_cpp: ok");
    return 0;
}
