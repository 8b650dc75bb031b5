// merino_algorithm.hpp — parallel algorithms for C++17 on merino's workers: sorts, scans and
// pipelines (C: merino_algorithm.h).
//
//     merino::parallel_sort(v.begin(), v.end());                           // not stable
//     merino::parallel_stable_sort(v.begin(), v.end(), by_key);            // stable
//     merino::inclusive_scan(x.begin(), x.end(), sums.begin());            // prefix sums
//     merino::parallel_pipeline(16, read & transform & write);             // make_filter chains
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
#include "merino/internal/pipeline.hpp"
#include "merino/internal/scan.hpp"
#include "merino/internal/sort.hpp"
#include "merino/internal/stable_sort.hpp"

#include <functional>
#include <iterator>
#include <numeric>
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

// ---- scans ----------------------------------------------------------------------------------------------

/// A scan's options: merino_scan_opts with constructors. chunk: positions per chunk (0: the default,
/// 16384 for parallel_scan). Its `stop` field is not used: the C++ scans stop on an exception.
struct scan_options : merino_scan_opts {
    scan_options() noexcept : merino_scan_opts{} {}
    explicit scan_options(std::int64_t chunk) noexcept : merino_scan_opts{} { this->chunk = chunk; }
};

/// std::inclusive_scan's contract, in parallel: out[i] = first[0] op first[1] op ... op first[i]
/// (starting from init op first[0] when init is given), for i in [0, last - first); returns the end
/// of the output. op must be associative (not commutative); the parenthesization differs from the
/// serial scan's, so a floating-point sum may differ from std::inclusive_scan's in its last bits,
/// as std::inclusive_scan(std::execution::par, ...)'s may. out may be first (in place); otherwise
/// the ranges must not overlap. op is called from several workers at once. Iterators that are not
/// random-access (either of them) make it std::inclusive_scan, on the calling thread; so do ranges
/// of fewer than two chunks (64 KiB of elements).
/// Exceptions: if op (or a copy of an element) throws, the first exception in index order among
/// those thrown reaches the caller, after the chunks in progress have returned; the chunks after it
/// are abandoned, and the outputs are then unspecified.
template <class In, class Out, class Op> Out inclusive_scan(In first, In last, Out out, Op op) {
    using V = typename std::iterator_traits<In>::value_type;
    if constexpr (!detail::scanning::parallel_ok_v<In, Out>) {
        return std::inclusive_scan(first, last, out, op);
    } else {
        auto n = last - first;
        if (n < 2 * detail::scanning::array_chunk<V>()) return std::inclusive_scan(first, last, out, op);
        detail::scanning::array_scan<In, Out, V, Op, false> x{first, out, &op, nullptr, {}, false};
        x.run(static_cast<std::int64_t>(n));
        return out + n;
    }
}

/// inclusive_scan with std::plus<>().
template <class In, class Out> Out inclusive_scan(In first, In last, Out out) {
    return merino::inclusive_scan(first, last, out, std::plus<>());
}

/// inclusive_scan starting from init: out[i] = init op first[0] op ... op first[i]. The running sums
/// have init's type.
template <class In, class Out, class Op, class T> Out inclusive_scan(In first, In last, Out out, Op op, T init) {
    if constexpr (!detail::scanning::parallel_ok_v<In, Out>) {
        return std::inclusive_scan(first, last, out, op, std::move(init));
    } else {
        auto n = last - first;
        if (n < 2 * detail::scanning::array_chunk<typename std::iterator_traits<In>::value_type>())
            return std::inclusive_scan(first, last, out, op, std::move(init));
        detail::scanning::array_scan<In, Out, T, Op, false> x{first, out, &op, &init, {}, false};
        x.run(static_cast<std::int64_t>(n));
        return out + n;
    }
}

/// std::exclusive_scan's contract, in parallel: out[0] = init, out[i] = init op first[0] op ... op
/// first[i - 1]; returns the end of the output. The running sums have init's type. Otherwise as
/// inclusive_scan (associative op, in place allowed, exceptions).
template <class In, class Out, class T, class Op> Out exclusive_scan(In first, In last, Out out, T init, Op op) {
    if constexpr (!detail::scanning::parallel_ok_v<In, Out>) {
        return std::exclusive_scan(first, last, out, std::move(init), op);
    } else {
        auto n = last - first;
        if (n < 2 * detail::scanning::array_chunk<typename std::iterator_traits<In>::value_type>())
            return std::exclusive_scan(first, last, out, std::move(init), op);
        detail::scanning::array_scan<In, Out, T, Op, true> x{first, out, &op, &init, {}, false};
        x.run(static_cast<std::int64_t>(n));
        return out + n;
    }
}

/// exclusive_scan with std::plus<>().
template <class In, class Out, class T> Out exclusive_scan(In first, In last, Out out, T init) {
    return merino::exclusive_scan(first, last, out, std::move(init), std::plus<>());
}

/// oneTBB's parallel_scan, functional form, for scans that are not over an array: positions
/// [first, last) (an integral type or random-access iterators, as parallel_for's) are cut into
/// chunks, and
///   scan(lo, hi, sum, is_final) returns sum (+) the values of [lo, hi); with is_final true, sum is
///     the fold of every position before lo (identity at first) and scan also writes its outputs
///     for [lo, hi); with is_final false (a pre-scan, from identity) it writes nothing;
///   combine(left, right) returns left (+) right, right's positions following left's.
/// Returns the fold of the whole range. Each position is given to exactly one final call, and to at
/// most one pre-scan before it (at one worker, none: one final call over the whole range). (+) must
/// be associative with identity as its identity. T: at most MERINO_SCAN_MAX_SIZE bytes, copyable.
/// Exceptions as inclusive_scan's; a combine's exception counts after every body's.
template <class P, class T, class Scan, class Combine>
T parallel_scan(P first, P last, const T &identity, Scan &&scan, Combine &&combine, const scan_options &opts = {}) {
    using S = std::remove_reference_t<Scan>;
    using C = std::remove_reference_t<Combine>;
    detail::scanning::general_scan<P, T, S, C> x{detail::positions<P>(first, last), &identity, &scan, &combine, {}};
    return x.run(opts);
}

/// The same with integral bounds of two types: positions of their common type.
template <class A, class B, class T, class Scan, class Combine,
          std::enable_if_t<std::is_integral_v<A> && std::is_integral_v<B> && !std::is_same_v<A, B>, int> = 0>
T parallel_scan(A first, B last, const T &identity, Scan &&scan, Combine &&combine, const scan_options &opts = {}) {
    using P = std::common_type_t<A, B>;
    return merino::parallel_scan(static_cast<P>(first), static_cast<P>(last), identity, std::forward<Scan>(scan),
                                 std::forward<Combine>(combine), opts);
}

} // namespace merino

#endif // MERINO_ALGORITHM_HPP
