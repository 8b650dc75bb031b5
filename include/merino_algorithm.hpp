// merino_algorithm.hpp — parallel algorithms for C++17 on merino's workers: sorts, scans,
// pipelines and per-worker values (C: merino_algorithm.h).
//
//     merino::parallel_sort(v.begin(), v.end());                           // not stable
//     merino::parallel_stable_sort(v.begin(), v.end(), by_key);            // stable
//
// Every call may come from anywhere: the main program or any other thread (the call enters the pool
// as merino::run does, starting a default pool on first use, and the calling thread works too),
// tasks, fork_join branches, loop bodies. Exceptions thrown by the caller's functions reach the
// caller, once every piece of work in progress has returned. docs/algorithms.md has the guarantees
// and the test of each.
#ifndef MERINO_ALGORITHM_HPP
#define MERINO_ALGORITHM_HPP

#include "merino.hpp"
#include "merino_algorithm.h"
#include "merino/internal/sort.hpp"
#include "merino/internal/stable_sort.hpp"

#include <functional>
#include <iterator>
#include <type_traits>
#include <utility>

namespace merino {

namespace detail {

// fork_join for the algorithms' recursions: f and g may run in parallel.
struct parallel_fork {
    template <class F, class G> void operator()(F &&f, G &&g) const { merino::fork_join(f, g); }
};

template <class It> inline constexpr bool random_access_v =
    std::is_base_of_v<std::random_access_iterator_tag, typename std::iterator_traits<It>::iterator_category>;

} // namespace detail

// ---- sorting --------------------------------------------------------------------------------------

/// Sorts [first, last) into ascending order by comp (std::less<>() when not given), in parallel.
/// NOT stable: equal elements end in any order. comp must be a strict weak ordering, as for
/// std::sort; it is called from several workers at once and must not write shared state. O(n log n)
/// comparisons whatever the input (pattern-defeating quicksort, with a branchless partition for
/// arithmetic types under std::less or std::greater). Ranges of fewer than 4096 elements are
/// sorted on the calling thread without entering the pool.
/// Exceptions: if comp throws, the exception reaches the caller once the halves being sorted have
/// returned, and [first, last) then holds a permutation of its input (every element once, in an
/// unspecified order). Moves of the elements must not throw.
template <class It, class Compare> void parallel_sort(It first, It last, Compare comp) {
    static_assert(detail::random_access_v<It>, "merino::parallel_sort: the range needs random-access iterators");
    if (last - first < 2 * detail::sorting::fork_limit) {
        detail::sorting::sort(first, last, comp, detail::sorting::serial_fork{});
        return;
    }
    merino::run([&] { detail::sorting::sort(first, last, comp, detail::parallel_fork{}); });
}

/// parallel_sort(first, last, std::less<>()).
template <class It> void parallel_sort(It first, It last) { merino::parallel_sort(first, last, std::less<>()); }

/// Sorts [first, last) by comp (std::less<>() when not given), in parallel, keeping the order of
/// equal elements. comp as for parallel_sort. A merge sort: it allocates a buffer of last - first
/// elements (if that allocation fails it calls std::stable_sort instead), and makes the buffer's
/// objects by moving one element through them (the value type needs no default constructor). Ranges
/// of fewer than 8192 elements are sorted on the calling thread without entering the pool.
/// Exceptions: if comp throws, the exception reaches the caller once every running piece has
/// returned, and [first, last) holds a permutation of its input. Moves must not throw.
template <class It, class Compare> void parallel_stable_sort(It first, It last, Compare comp) {
    static_assert(detail::random_access_v<It>,
                  "merino::parallel_stable_sort: the range needs random-access iterators");
    if (last - first < 2 * detail::stable::fork_limit) {
        detail::stable::sort(first, last, comp, detail::sorting::serial_fork{});
        return;
    }
    merino::run([&] { detail::stable::sort(first, last, comp, detail::parallel_fork{}); });
}

/// parallel_stable_sort(first, last, std::less<>()).
template <class It> void parallel_stable_sort(It first, It last) {
    merino::parallel_stable_sort(first, last, std::less<>());
}

} // namespace merino

#endif // MERINO_ALGORITHM_HPP
