// merino/internal/sort.hpp — the machinery of merino::parallel_sort (merino_algorithm.hpp).
// INTERNAL: included by <merino_algorithm.hpp>, never directly; nothing here is API.
//
// Pattern-defeating quicksort (Peters' pdqsort, with Edelkamp and Weiss's branchless block
// partition for arithmetic types under std::less / std::greater), whose two halves after each
// partition are the two branches of a merino::fork_join once the range is large: a half is only a
// private task descriptor until an idle worker asks, so the recursion costs a few stores per level
// and the top of the tree is shared out lazily.
//
// Exceptions: every element is moved out of the range only into a local whose scope guard (a
// `hole`) writes it back into the range's one free position when the scope ends, normally or by an
// exception. So a comparator that throws leaves the range a permutation of its input, and the
// exception reaches the caller once every running half has returned.
#ifndef MERINO_INTERNAL_SORT_HPP
#define MERINO_INTERNAL_SORT_HPP

#include "sort_blocks.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <type_traits>
#include <utility>

namespace merino::detail::sorting {

// ---- tuning: each value with why ----------------------------------------------------------------

// Ranges shorter than this are insertion-sorted (pdqsort's choice: fewer moves than a partition).
inline constexpr std::ptrdiff_t insertion_limit = 24;
// Ranges longer than this take the pseudomedian of nine as pivot, shorter ones the median of three.
inline constexpr std::ptrdiff_t ninther_limit = 128;
// An insertion sort that tries to finish an already partitioned range gives up after this many moves.
inline constexpr std::ptrdiff_t partial_insertion_limit = 8;
// Elements classified per block of the branchless partition (sort_blocks.h, shared with merino_sort).
inline constexpr std::ptrdiff_t block = MERINO__SORT_BLOCK;
// Ranges at least this long offer their second half to other workers: sorting 2048 doubles takes
// tens of microseconds, the untaken offer a few nanoseconds.
inline constexpr std::ptrdiff_t fork_limit = 2048;

template <class It> using value_t = typename std::iterator_traits<It>::value_type;
template <class It> using diff_t = typename std::iterator_traits<It>::difference_type;

// Whether comparisons are cheap and cannot throw, so that the branchless partition pays: an
// arithmetic value type under std::less or std::greater.
template <class T, class C> inline constexpr bool branchless_v =
    std::is_arithmetic_v<T> && (std::is_same_v<C, std::less<T>> || std::is_same_v<C, std::less<>> ||
                                std::is_same_v<C, std::greater<T>> || std::is_same_v<C, std::greater<>>);

// ---- the hole: a value held outside the range goes back when its scope ends ---------------------

// `at` names the range's one free position while `value` is held; the destructor moves the value
// there, at the normal end of the scope (the last store of the algorithm) and when a comparison
// throws (which leaves the range a permutation of its input).
template <class It> struct hole {
    value_t<It> &value;
    It &at;
    ~hole() { *at = std::move(value); }
};

// ---- small sorts ----------------------------------------------------------------------------------

// Moves *cur down to its place in the sorted [begin, cur); returns how many places it moved.
// Guarded = false when an element not greater than every element of the range lies just before begin
// (then the loop needs no bound check).
template <bool Guarded, class It, class C> diff_t<It> insert(It begin, It cur, C &comp) {
    It sift = cur, prev = cur - 1;
    if (!comp(*sift, *prev)) return 0;
    value_t<It> tmp = std::move(*sift);
    hole<It> h{tmp, sift};
    do {
        *sift = std::move(*prev);
        --sift;
    } while ((!Guarded || sift != begin) && comp(tmp, *--prev));
    return cur - sift;
}

// Insertion sort of [begin, end) (stable).
template <bool Guarded, class It, class C> void insertion_sort(It begin, It end, C &comp) {
    if (begin == end) return;
    for (It cur = begin + 1; cur != end; ++cur) sorting::insert<Guarded>(begin, cur, comp);
}

// Insertion sort that gives up (returns false) once it has moved elements more than
// partial_insertion_limit places: finishes ranges a partition found already partitioned.
template <class It, class C> bool partial_insertion_sort(It begin, It end, C &comp) {
    if (begin == end) return true;
    diff_t<It> moved = 0;
    for (It cur = begin + 1; cur != end; ++cur) {
        if (moved > partial_insertion_limit) return false;
        moved += sorting::insert<true>(begin, cur, comp);
    }
    return true;
}

template <class It, class C> void sort2(It a, It b, C &comp) {
    if (comp(*b, *a)) std::iter_swap(a, b);
}

template <class It, class C> void sort3(It a, It b, It c, C &comp) {
    sort2(a, b, comp);
    sort2(b, c, comp);
    sort2(a, b, comp);
}

// Heapsort by swaps (no value held outside the range): the fallback after too many bad pivots.
template <class It, class C> void sift_down(It first, diff_t<It> n, diff_t<It> i, C &comp) {
    for (;;) {
        diff_t<It> c = 2 * i + 1;
        if (c >= n) return;
        if (c + 1 < n && comp(first[c], first[c + 1])) c++;
        if (!comp(first[i], first[c])) return;
        std::iter_swap(first + i, first + c);
        i = c;
    }
}

template <class It, class C> void heap_sort(It begin, It end, C &comp) {
    diff_t<It> n = end - begin;
    for (diff_t<It> i = n / 2; i-- > 0;) sift_down(begin, n, i, comp);
    for (diff_t<It> m = n; m > 1;) {
        std::iter_swap(begin, begin + --m);
        sift_down(begin, m, diff_t<It>(0), comp);
    }
}

// ---- partitions (the pivot is *begin) --------------------------------------------------------------

// Moves the elements of the offset blocks to the other side: num of them each side, in one cycle
// through a temporary, with no comparison while a value is held (or by swaps when each side has as
// many, which keeps descending input O(n)).
template <class It> void swap_offsets(It first, It last, const unsigned char *off_l, const unsigned char *off_r,
                                      std::size_t num, bool use_swaps) {
    if (use_swaps) {
        for (std::size_t i = 0; i < num; ++i) std::iter_swap(first + off_l[i], last - off_r[i]);
    } else if (num > 0) {
        It l = first + off_l[0], r = last - off_r[0];
        value_t<It> tmp(std::move(*l));
        *l = std::move(*r);
        for (std::size_t i = 1; i < num; ++i) {
            l = first + off_l[i];
            *r = std::move(*l);
            r = last - off_r[i];
            *l = std::move(*r);
        }
        *r = std::move(tmp);
    }
}

// The branchless partition of [first, last) (Edelkamp and Weiss's blocks): classifies a block of
// elements from each end, counting the comparisons' results instead of branching on them, then moves
// the misplaced ones in one cycle. Returns where the elements not less than the pivot begin.
template <class It, class T, class C> It partition_blocks(It first, It last, const T &pivot, C &comp) {
    alignas(64) unsigned char off_l[block], off_r[block];
    It base_l = first, base_r = last;
    merino__sort_blocks b{0, 0, 0, 0};
    while (first < last) {
        // Fill the offset blocks with positions of elements on the wrong side.
        std::size_t split_l, split_r;
        merino__sort_blocks_split(&b, static_cast<std::size_t>(last - first), &split_l, &split_r);
        if (split_l == static_cast<std::size_t>(block)) {
            for (std::size_t i = 0; i < static_cast<std::size_t>(block);) {
                for (int u = 0; u < 8; u++) { // unrolled: the compiler keeps num_l in a register
                    off_l[b.num_l] = static_cast<unsigned char>(i++);
                    b.num_l += !comp(*first, pivot);
                    ++first;
                }
            }
        } else {
            for (std::size_t i = 0; i < split_l;) {
                off_l[b.num_l] = static_cast<unsigned char>(i++);
                b.num_l += !comp(*first, pivot);
                ++first;
            }
        }
        if (split_r == static_cast<std::size_t>(block)) {
            for (std::size_t i = 0; i < static_cast<std::size_t>(block);) {
                for (int u = 0; u < 8; u++) {
                    off_r[b.num_r] = static_cast<unsigned char>(++i);
                    b.num_r += comp(*--last, pivot);
                }
            }
        } else {
            for (std::size_t i = 0; i < split_r;) {
                off_r[b.num_r] = static_cast<unsigned char>(++i);
                b.num_r += comp(*--last, pivot);
            }
        }
        std::size_t num = merino__sort_blocks_pairs(&b);
        swap_offsets(base_l, base_r, off_l + b.start_l, off_r + b.start_r, num, b.num_l == b.num_r);
        unsigned empty = merino__sort_blocks_drop(&b, num);
        if (empty & 1) base_l = first;
        if (empty & 2) base_r = last;
    }
    // What is left of one block: swap it to the boundary.
    if (b.num_l) {
        const unsigned char *o = off_l + b.start_l;
        while (b.num_l--) std::iter_swap(base_l + o[b.num_l], --last);
        return last;
    }
    if (b.num_r) {
        const unsigned char *o = off_r + b.start_r;
        while (b.num_r--) std::iter_swap(base_r - o[b.num_r], first), ++first;
    }
    return first;
}

// Elements less than the pivot go left of it, the others right. Returns the pivot's final place and
// whether the range was already partitioned (no swap needed). Branchless: the block partition, else
// Hoare's swaps. The first scans need no bound: the pivot selection left an element not less than
// the pivot at the end, and the second scan is bounded unless the first found an element less than
// it (or the range is not leftmost).
template <bool Branchless, class It, class C> std::pair<It, bool> partition_right(It begin, It end, C &comp) {
    value_t<It> pivot(std::move(*begin));
    It at = begin;
    hole<It> h{pivot, at};
    It first = begin, last = end;
    while (comp(*++first, pivot)) {
    }
    if (first - 1 == begin) {
        while (first < last && !comp(*--last, pivot)) {
        }
    } else {
        while (!comp(*--last, pivot)) {
        }
    }
    bool already = first >= last;
    if (!already) {
        std::iter_swap(first, last);
        if constexpr (Branchless) {
            first = partition_blocks(first + 1, last, pivot, comp);
        } else {
            for (;;) {
                while (comp(*++first, pivot)) {
                }
                while (!comp(*--last, pivot)) {
                }
                if (first >= last) break;
                std::iter_swap(first, last);
            }
        }
    }
    It pivot_pos = first - 1;
    *begin = std::move(*pivot_pos);
    at = pivot_pos;
    return {pivot_pos, already};
}

// Elements equal to the pivot go left, greater ones right; used when the pivot equals the element
// before the range (many duplicates), which then needs no further sorting. Returns the pivot's place.
template <class It, class C> It partition_left(It begin, It end, C &comp) {
    value_t<It> pivot(std::move(*begin));
    It at = begin;
    hole<It> h{pivot, at};
    It first = begin, last = end;
    while (comp(pivot, *--last)) {
    }
    if (last + 1 == end) {
        while (first < last && !comp(pivot, *++first)) {
        }
    } else {
        while (!comp(pivot, *++first)) {
        }
    }
    while (first < last) {
        std::iter_swap(first, last);
        while (comp(pivot, *--last)) {
        }
        while (!comp(pivot, *++first)) {
        }
    }
    It pivot_pos = last;
    *begin = std::move(*pivot_pos);
    at = pivot_pos;
    return pivot_pos;
}

// ---- the sort -----------------------------------------------------------------------------------------

// Sorts [begin, end). leftmost: nothing lies before begin in the whole range (else the element before
// begin is not greater than any element of the range). bad_allowed: highly unbalanced partitions
// left before heapsort takes over (O(n log n) whatever the input). Fork: a callable fork(f, g) that
// runs f and g (merino::fork_join, or one after the other).
template <bool Branchless, class It, class C, class Fork>
void pdq(It begin, It end, C &comp, int bad_allowed, bool leftmost, const Fork &fork) {
    for (;;) {
        diff_t<It> size = end - begin;
        if (size < insertion_limit) {
            if (leftmost)
                insertion_sort<true>(begin, end, comp);
            else
                insertion_sort<false>(begin, end, comp);
            return;
        }
        diff_t<It> s2 = size / 2;
        if (size > ninther_limit) {
            sort3(begin, begin + s2, end - 1, comp);
            sort3(begin + 1, begin + (s2 - 1), end - 2, comp);
            sort3(begin + 2, begin + (s2 + 1), end - 3, comp);
            sort3(begin + (s2 - 1), begin + s2, begin + (s2 + 1), comp);
            std::iter_swap(begin, begin + s2);
        } else {
            sort3(begin + s2, begin, end - 1, comp);
        }
        // A pivot equal to the element before the range: that element is a pivot of an earlier
        // partition, so every element equal to it is in place; put them left and go on with the rest.
        if (!leftmost && !comp(*(begin - 1), *begin)) {
            begin = partition_left(begin, end, comp) + 1;
            continue;
        }
        std::pair<It, bool> part = partition_right<Branchless>(begin, end, comp);
        It pivot_pos = part.first;
        diff_t<It> l_size = pivot_pos - begin, r_size = end - (pivot_pos + 1);
        if (l_size < size / 8 || r_size < size / 8) {
            // Highly unbalanced: count it, and shuffle a few elements to break patterns.
            if (--bad_allowed == 0) {
                heap_sort(begin, end, comp);
                return;
            }
            if (l_size >= insertion_limit) {
                std::iter_swap(begin, begin + l_size / 4);
                std::iter_swap(pivot_pos - 1, pivot_pos - l_size / 4);
                if (l_size > ninther_limit) {
                    std::iter_swap(begin + 1, begin + (l_size / 4 + 1));
                    std::iter_swap(begin + 2, begin + (l_size / 4 + 2));
                    std::iter_swap(pivot_pos - 2, pivot_pos - (l_size / 4 + 1));
                    std::iter_swap(pivot_pos - 3, pivot_pos - (l_size / 4 + 2));
                }
            }
            if (r_size >= insertion_limit) {
                std::iter_swap(pivot_pos + 1, pivot_pos + (1 + r_size / 4));
                std::iter_swap(end - 1, end - r_size / 4);
                if (r_size > ninther_limit) {
                    std::iter_swap(pivot_pos + 2, pivot_pos + (2 + r_size / 4));
                    std::iter_swap(pivot_pos + 3, pivot_pos + (3 + r_size / 4));
                    std::iter_swap(end - 2, end - (1 + r_size / 4));
                    std::iter_swap(end - 3, end - (2 + r_size / 4));
                }
            }
        } else if (part.second && partial_insertion_sort(begin, pivot_pos, comp) &&
                   partial_insertion_sort(pivot_pos + 1, end, comp)) {
            return; // was already partitioned, and both halves were nearly sorted
        }
        if (size >= fork_limit) {
            // Both halves may run in parallel; the pivot between them is final and only read.
            fork([&] { pdq<Branchless>(begin, pivot_pos, comp, bad_allowed, leftmost, fork); },
                 [&] { pdq<Branchless>(pivot_pos + 1, end, comp, bad_allowed, false, fork); });
            return;
        }
        pdq<Branchless>(begin, pivot_pos, comp, bad_allowed, leftmost, fork);
        begin = pivot_pos + 1;
        leftmost = false;
    }
}

// floor(log2(n)) for n >= 1.
template <class D> int log2_floor(D n) {
    int r = 0;
    while (n >>= 1) r++;
    return r;
}

// Runs f then g on this thread (the serial form of fork_join).
struct serial_fork {
    template <class F, class G> void operator()(F &&f, G &&g) const {
        f();
        g();
    }
};

template <class It, class C, class Fork> void sort(It begin, It end, C &comp, const Fork &fork) {
    diff_t<It> n = end - begin;
    if (n < 2) return;
    pdq<branchless_v<value_t<It>, std::remove_const_t<C>>>(begin, end, comp, log2_floor(n), true, fork);
}

} // namespace merino::detail::sorting

#endif // MERINO_INTERNAL_SORT_HPP
