// merino/internal/stable_sort.hpp — the machinery of merino::parallel_stable_sort
// (merino_algorithm.hpp). INTERNAL: included by <merino_algorithm.hpp>, never directly.
//
// A merge sort with a buffer as long as the range: each level sorts its two halves into the other
// array (the range or the buffer) and merges them back, so every level moves each element once.
// The halves of a large piece are the two branches of a merino::fork_join, and so are the two
// halves of a large merge (split where the middle of the longer run falls in the other), so the
// top levels run in parallel too. Leaves are insertion-sorted.
//
// Exceptions: a merge that throws first moves what it has not merged yet into its output (a scope
// guard that is also the normal end of the merge), and every piece whose sort throws puts its
// elements back into its part of the range; so a comparator that throws leaves the range a
// permutation of its input, and the exception reaches the caller once every running piece returned.
#ifndef MERINO_INTERNAL_STABLE_SORT_HPP
#define MERINO_INTERNAL_STABLE_SORT_HPP

#include "sort.hpp"

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <new>
#include <type_traits>
#include <utility>

namespace merino::detail::stable {

using sorting::diff_t;
using sorting::value_t;

// ---- tuning: each value with why ----------------------------------------------------------------

// Pieces this short are insertion-sorted: below it an insertion costs fewer moves than the merge
// levels it saves.
inline constexpr std::ptrdiff_t leaf = 16;
// Pieces (and merges) at least this long offer their second half to other workers: merging or
// sorting 4096 elements takes tens of microseconds, the untaken offer a few nanoseconds.
inline constexpr std::ptrdiff_t fork_limit = 4096;

// ---- the buffer --------------------------------------------------------------------------------------

// n values to merge into: raw storage for types that need no construction, else n objects made by a
// chain of moves that starts and ends at *first (so T needs no default constructor), as libstdc++'s
// std::stable_sort does. Moves of T must not throw.
template <class T> class buffer {
public:
    // Empty (data() == nullptr) when the memory cannot be had.
    template <class It> buffer(It first, std::ptrdiff_t n) : n_(n) {
        p_ = static_cast<T *>(::operator new(static_cast<std::size_t>(n) * sizeof(T), std::align_val_t(alignof(T)),
                                             std::nothrow));
        if constexpr (!trivial) {
            if (!p_) return;
            ::new (static_cast<void *>(p_)) T(std::move(*first));
            for (std::ptrdiff_t k = 1; k < n; k++) ::new (static_cast<void *>(p_ + k)) T(std::move(p_[k - 1]));
            *first = std::move(p_[n - 1]);
        }
    }
    ~buffer() {
        if (!p_) return;
        if constexpr (!trivial)
            for (std::ptrdiff_t k = 0; k < n_; k++) p_[k].~T();
        ::operator delete(static_cast<void *>(p_), std::align_val_t(alignof(T)));
    }
    buffer(const buffer &) = delete;
    buffer &operator=(const buffer &) = delete;
    T *data() const noexcept { return p_; }

private:
    static constexpr bool trivial = std::is_trivially_default_constructible_v<T> && std::is_trivially_destructible_v<T>;
    T *p_;
    std::ptrdiff_t n_;
};

// ---- merging -------------------------------------------------------------------------------------------

// Merges the sorted runs [a, ae) and [b, be) into out, stably (a's elements first among equals).
// It merges from both ends at once — the smallest elements to the front of out, the largest to its
// back — which gives the processor two independent chains of load, compare and select (each step
// chooses its source without a branch). The guard moves what is left of both runs into the gap
// between the two ends: the tail of the merge when a run runs out, and everything not yet merged
// when a comparison throws.
template <class A, class B, class O, class C> void merge_runs(A a, A ae, B b, B be, O out, C &comp) {
    O back = out + ((ae - a) + (be - b));
    struct rest {
        A &a, &ae;
        B &b, &be;
        O &out;
        ~rest() { std::move(b, be, std::move(a, ae, out)); }
    } guard{a, ae, b, be, out};
    while (a != ae && b != be) {
        bool take_b = comp(*b, *a); // front: the smaller head, a's on a tie
        *out = take_b ? std::move(*b) : std::move(*a);
        ++out;
        b += take_b;
        a += !take_b;
        if (a == ae || b == be) break;
        bool take_a = comp(*(be - 1), *(ae - 1)); // back: the larger tail, b's on a tie
        --back;
        *back = take_a ? std::move(*(ae - 1)) : std::move(*(be - 1));
        ae -= take_a;
        be -= !take_a;
    }
}

// The same, in parallel: a long merge is cut where the middle of its longer run falls in the other
// run, and the two halves are forked. On an exception, out holds every element of both runs.
template <class A, class B, class O, class C, class Fork>
void merge_par(A a, A ae, B b, B be, O out, C &comp, const Fork &fork) {
    auto na = ae - a, nb = be - b;
    auto move_all = [&] { std::move(b, be, std::move(a, ae, out)); };
    if (na == 0 || nb == 0) {
        move_all();
        return;
    }
    bool in_order;
    try { // (on an exception here nothing has moved yet: out gets both runs as they are)
        in_order = !comp(*b, *(ae - 1));
    } catch (...) {
        move_all();
        throw;
    }
    if (in_order) { // nearly sorted input: the runs need no merge
        move_all();
        return;
    }
    if (na + nb < 2 * fork_limit) {
        merge_runs(a, ae, b, be, out, comp);
        return;
    }
    decltype(na) i;
    decltype(nb) j;
    try {
        if (na >= nb) { // a[i] goes after every b below it: b's elements equal to it come after
            i = na / 2;
            j = std::lower_bound(b, be, *(a + i), comp) - b;
        } else { // b[j] goes after every a not above it
            j = nb / 2;
            i = std::upper_bound(a, ae, *(b + j), comp) - a;
        }
    } catch (...) {
        move_all();
        throw;
    }
    bool right_started = false; // written by the branch, read after the join
    try {
        fork([&] { merge_par(a, a + i, b, b + j, out, comp, fork); },
             [&] {
                 right_started = true;
                 merge_par(a + i, ae, b + j, be, out + (i + j), comp, fork);
             });
    } catch (...) {
        if (!right_started) std::move(b + j, be, std::move(a + i, ae, out + (i + j)));
        throw;
    }
}

// ---- the sort ------------------------------------------------------------------------------------------

template <class F, class G, class Fork> void maybe_fork(std::ptrdiff_t n, F &&f, G &&g, const Fork &fork) {
    if (n >= fork_limit) {
        fork(f, g);
    } else {
        f();
        g();
    }
}

template <class It, class T, class C, class Fork> void sort_into(It a, T *b, std::ptrdiff_t n, C &comp, const Fork &fork);

// Sorts [a, a + n) in place, with b[0, n) as scratch. On an exception, [a, a + n) holds the piece.
template <class It, class T, class C, class Fork> void sort_here(It a, T *b, std::ptrdiff_t n, C &comp, const Fork &fork) {
    if (n <= leaf) {
        sorting::insertion_sort<true>(a, a + n, comp);
        return;
    }
    std::ptrdiff_t m = n / 2;
    bool done_l = false, done_r = false; // written by the branches, read after the join
    try {
        maybe_fork(
            n,
            [&] {
                sort_into(a, b, m, comp, fork);
                done_l = true;
            },
            [&] {
                sort_into(a + m, b + m, n - m, comp, fork);
                done_r = true;
            },
            fork);
    } catch (...) { // a half that threw, or did not run, is in the range; one that finished is in b
        if (done_l) std::move(b, b + m, a);
        if (done_r) std::move(b + m, b + n, a + m);
        throw;
    }
    merge_par(b, b + m, b + m, b + n, a, comp, fork);
}

// Sorts [a, a + n) into b[0, n), with [a, a + n) as scratch. On an exception, [a, a + n) holds the piece.
template <class It, class T, class C, class Fork> void sort_into(It a, T *b, std::ptrdiff_t n, C &comp, const Fork &fork) {
    if (n <= leaf) {
        sorting::insertion_sort<true>(a, a + n, comp);
        std::move(a, a + n, b);
        return;
    }
    std::ptrdiff_t m = n / 2;
    maybe_fork(
        n, [&] { sort_here(a, b, m, comp, fork); }, [&] { sort_here(a + m, b + m, n - m, comp, fork); }, fork);
    try {
        merge_par(a, a + m, a + m, a + n, b, comp, fork);
    } catch (...) {
        std::move(b, b + n, a);
        throw;
    }
}

template <class It, class C, class Fork> void sort(It first, It last, C &comp, const Fork &fork) {
    std::ptrdiff_t n = last - first;
    if (n <= leaf) {
        sorting::insertion_sort<true>(first, last, comp);
        return;
    }
    buffer<value_t<It>> buf(first, n);
    if (buf.data() == nullptr) { // no memory for the buffer: the library's serial sort, which copes
        std::stable_sort(first, last, comp);
        return;
    }
    sort_here(first, buf.data(), n, comp, fork);
}

} // namespace merino::detail::stable

#endif // MERINO_INTERNAL_STABLE_SORT_HPP
