// merino_reducer.hpp: combinable and enumerable_thread_specific, as oneTBB's — a value per worker
// made on first use (from the exemplar or init), local(exists), combine and combine_each over every
// value, iteration, size and clear; used from loop bodies, fork_join branches and threads outside
// the pool, at 1, 2, 3 and 8 workers; the totals are the serial ones.
#include "algo_check.h"

#include <merino.hpp>
#include <merino_loop.hpp>
#include <merino_reducer.hpp>

#include <atomic>
#include <functional>
#include <set>
#include <thread>
#include <vector>

static long tree(merino::combinable<long> &c, int n) {
    c.local() += n;
    if (n < 2) return n;
    auto [a, b] = merino::fork_join([&] { return tree(c, n - 1); }, [&] { return tree(c, n - 2); });
    return a + b;
}

static long tree_serial(int n) { return n < 2 ? n : n + tree_serial(n - 1) + tree_serial(n - 2); }

int main() {
    for (unsigned w : algo_workers) {
        check_set_context("workers=%u", w);
        merino::runtime rt(w);

        merino::combinable<long> sums([] { return 0L; });
        CHECK_EQ_INT(sums.combine(std::plus<long>()), 0); // no value yet: a fresh one
        merino::parallel_for(0, 1000000, [&](int i) { sums.local() += i; });
        CHECK(sums.combine(std::plus<long>()) == 999999L * 1000000 / 2);
        long each = 0;
        sums.combine_each([&](long v) { each += v; });
        CHECK(each == 999999L * 1000000 / 2);
        sums.clear();
        CHECK_EQ_INT(sums.combine(std::plus<long>()), 0);

        merino::combinable<long> calls;
        tree(calls, 22);
        CHECK(calls.combine(std::plus<long>()) == tree_serial(22));

        merino::enumerable_thread_specific<std::vector<int>> parts(std::vector<int>{-1}); // an exemplar
        std::atomic<unsigned> made{0};
        merino::parallel_for(0, 100000, [&](int i) {
            bool exists;
            auto &v = parts.local(exists);
            if (!exists) {
                made++;
                CHECK(v.size() == 1); // fresh: the exemplar's copy
            }
            v.push_back(i);
        });
        CHECK(parts.size() >= 1 && parts.size() <= w);
        CHECK_EQ_INT(made.load(), static_cast<unsigned>(parts.size())); // made once per worker
        std::set<int> seen;
        size_t exemplars = 0;
        for (auto &v : parts) {
            CHECK_EQ_INT(v.front(), -1);
            exemplars++;
            seen.insert(v.begin() + 1, v.end());
        }
        CHECK(exemplars == parts.size());
        CHECK_EQ_INT(static_cast<long>(seen.size()), 100000);

        // Threads outside the pool get values of their own.
        merino::enumerable_thread_specific<int> ids;
        std::thread a([&] { ids.local() = 1; });
        std::thread b([&] { ids.local() = 2; });
        a.join();
        b.join();
        ids.local() = 4; // this thread's (outside the pool)
        bool exists = false;
        CHECK_EQ_INT(ids.local(exists), 4);
        CHECK(exists);
        CHECK_EQ_INT(static_cast<long>(ids.size()), 3);
        CHECK_EQ_INT(ids.combine([](int x, int y) { return x + y; }), 7);
    }
    printf("ok\n");
    return 0;
}
