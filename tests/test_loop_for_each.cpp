// test_loop_for_each.cpp — merino::parallel_for_each over input, forward, bidirectional and
// random-access iterators, and with a feeder, against the serial loop at 1, 2, 3 and 8 workers:
// every element passed once (through a reference the body may write to, for forward iterators),
// empty, 1- and 2-element ranges; feeders that add many items recursively (a fib tree of 250,000
// items, a chain 200,000 deep, items added from added items) give the serial count and sum; an
// input iterator's elements are read once, in order; max_workers bounds the bodies in flight.
#include "check.h"

#include <merino_loop.hpp>

#include <atomic>
#include <cstdint>
#include <forward_list>
#include <iterator>
#include <list>
#include <set>
#include <sstream>
#include <vector>

namespace {

// A single-pass iterator over 0 .. n-1 that counts its reads and fails a second read of one value.
class counting_input {
public:
    using iterator_category = std::input_iterator_tag;
    using value_type = long;
    using difference_type = std::ptrdiff_t;
    using pointer = const long *;
    using reference = long;
    counting_input() = default;
    counting_input(long at, long *reads) : at_(at), reads_(reads) {}
    long operator*() const {
        CHECK_MSG(*reads_ == at_, "input iterator: value %ld read out of order (after %ld reads)", at_, *reads_);
        ++*reads_; // the loop reads under its lock: no race
        return at_;
    }
    counting_input &operator++() {
        at_++;
        return *this;
    }
    bool operator==(const counting_input &o) const { return at_ == o.at_; }
    bool operator!=(const counting_input &o) const { return at_ != o.at_; }

private:
    long at_ = 0;
    long *reads_ = nullptr;
};

std::vector<std::atomic<int>> &fresh(std::vector<std::atomic<int>> &hits, std::size_t n) {
    std::vector<std::atomic<int>> h(n);
    hits.swap(h);
    return hits;
}

void check_once(const std::vector<std::atomic<int>> &hits, const char *what) {
    for (std::size_t i = 0; i < hits.size(); i++)
        CHECK_MSG(hits[i].load(std::memory_order_relaxed) == 1, "%s: element %zu ran %d times", what, i,
                  hits[i].load(std::memory_order_relaxed));
}

void check_containers(long n) {
    std::vector<std::atomic<int>> hits;
    // forward: a list, written through the reference
    std::list<long> l;
    for (long i = 0; i < n; i++) l.push_back(i);
    fresh(hits, n);
    merino::parallel_for_each(l.begin(), l.end(), [&](long &x) {
        hits[x].fetch_add(1, std::memory_order_relaxed); // relaxed: read after the loop returns
        x = -x - 1;
    });
    check_once(hits, "std::list");
    long k = 0;
    for (long x : l) CHECK_EQ_INT(x, -(k++) - 1);
    // forward_list, set (bidirectional, const elements), a whole container
    std::forward_list<long> fl(l.begin(), l.end());
    fresh(hits, n);
    merino::parallel_for_each(fl, [&](long x) { hits[-x - 1].fetch_add(1, std::memory_order_relaxed); });
    check_once(hits, "std::forward_list");
    std::set<long> st(l.begin(), l.end());
    fresh(hits, n);
    merino::parallel_for_each(st.begin(), st.end(), [&](const long &x) { hits[-x - 1].fetch_add(1, std::memory_order_relaxed); });
    check_once(hits, "std::set");
    // input: each value read once, in order
    long reads = 0;
    fresh(hits, n);
    merino::parallel_for_each(counting_input(0, &reads), counting_input(n, &reads),
                              [&](long x) { hits[x].fetch_add(1, std::memory_order_relaxed); });
    check_once(hits, "input iterator");
    CHECK_EQ_INT(reads, n);
    // istream_iterator: the standard input iterator
    std::stringstream text;
    for (long i = 0; i < n; i++) text << i << ' ';
    fresh(hits, n);
    merino::parallel_for_each(std::istream_iterator<long>(text), std::istream_iterator<long>(),
                              [&](long x) { hits[x].fetch_add(1, std::memory_order_relaxed); });
    check_once(hits, "std::istream_iterator");
    // random access with a feeder that adds nothing
    std::vector<long> v(n);
    for (long i = 0; i < n; i++) v[i] = i;
    fresh(hits, n);
    merino::parallel_for_each(v.begin(), v.end(), [&](long &x, merino::feeder<long> &) { hits[x].fetch_add(1, std::memory_order_relaxed); });
    check_once(hits, "vector with a feeder");
}

long fib_nodes(int n) { return n < 2 ? 1 : 1 + fib_nodes(n - 1) + fib_nodes(n - 2); }
long fib_leaves(int n) { return n < 2 ? n : fib_leaves(n - 1) + fib_leaves(n - 2); }

void check_feeders() {
    // A fib tree: item n adds n - 1 and n - 2; the serial work list gives fib(n) and its node count.
    for (int roots : {1, 2, 5}) {
        std::list<int> start(roots, 25);
        std::atomic<long> nodes{0}, sum{0};
        merino::parallel_for_each(start.begin(), start.end(), [&](int x, merino::feeder<int> &f) {
            nodes.fetch_add(1, std::memory_order_relaxed); // relaxed: read after the loop returns
            if (x < 2) {
                sum.fetch_add(x, std::memory_order_relaxed);
            } else {
                f.add(x - 1);
                f.add(x - 2);
            }
        });
        CHECK_EQ_INT(nodes.load(std::memory_order_relaxed), roots * fib_nodes(25));
        CHECK_EQ_INT(sum.load(std::memory_order_relaxed), roots * fib_leaves(25));
    }
    // A chain 200,000 deep: no recursion grows with it.
    std::vector<long> one{200000};
    std::atomic<long> calls{0};
    merino::parallel_for_each(one, [&](long x, merino::feeder<long> &f) {
        calls.fetch_add(1, std::memory_order_relaxed);
        if (x > 0) f.add(x - 1);
    });
    CHECK_EQ_INT(calls.load(std::memory_order_relaxed), 200001);
    // Empty ranges with a feeder body: nothing runs.
    std::list<long> none;
    merino::parallel_for_each(none.begin(), none.end(), [&](long, merino::feeder<long> &) { CHECK(false); });
}

// At most `limit` bodies at a time (every body is on its own worker: no nesting here).
void check_limit(int limit, int workers) {
    std::list<long> l(400, 0);
    std::atomic<int> in{0}, most{0}, added{0};
    merino::parallel_for_each(l.begin(), l.end(), [&](long, merino::feeder<long> &f) {
        int now = in.fetch_add(1, std::memory_order_relaxed) + 1; // relaxed: a count
        int m = most.load(std::memory_order_relaxed);
        while (now > m && !most.compare_exchange_weak(m, now, std::memory_order_relaxed)) {
        }
        check_sleep(0.00005);
        if (added.fetch_add(1, std::memory_order_relaxed) < 200) f.add(1); // added items count too
        in.fetch_sub(1, std::memory_order_relaxed);
    }, merino::loop_options().limit(limit));
    CHECK_MSG(most.load(std::memory_order_relaxed) <= limit, "%d bodies at once, limit %d",
              most.load(std::memory_order_relaxed), limit);
    (void)workers;
}

} // namespace

int main() {
    unsetenv("MERINO_SCHEDULE");
    for (unsigned workers : {1u, 2u, 3u, 8u}) {
        merino::runtime rt(workers);
        for (long n : {0L, 1L, 2L, 3L, 1000L, 20011L}) {
            check_set_context("workers=%u n=%ld", workers, n);
            check_containers(n);
        }
        check_set_context("workers=%u feeders", workers);
        check_feeders();
        for (int limit : {1, 2, 3}) {
            check_set_context("workers=%u max_workers=%d", workers, limit);
            check_limit(limit, int(workers));
        }
    }
    std::puts("test_loop_for_each: ok");
    return 0;
}
