// merino_reducer.hpp — reducers with the serial program's result, and per-worker values, for C++17.
//
//     merino::reducer_list_append<int> out;                 // a std::list<int> per strand
//     merino::parallel_for(0, n, [&](int64_t i) { if (keep(i)) out.push_back(int(i)); });
//     std::list<int> &all = out.get();                      // in index order, as the serial loop
//
//     merino::combinable<long> sums([] { return 0L; });     // a long per worker, any order
//     merino::parallel_for(0, n, [&](int64_t i) { sums.local() += f(i); });
//     long total = sums.combine(std::plus<long>());
//
// reducer<T>(identity, reduce): identity(T *view) makes a (default-constructed) view the identity,
// reduce(T &left, T &right) folds right into left (right's updates follow left's in serial order;
// right is destroyed after). view() is the calling strand's view — in a C task, a fork_join
// branch, a task_group task or a loop body — and get(), once the parallel work has joined, is
// exactly the serial program's result even when reduce does not commute: views are made only
// where work is stolen and folded in serial order where it joins (the protocol and the rules are
// in merino_reducer.h). The serial program runs a fork_join's f before its g, a spawned C task at
// its MERINO_JOIN, a group's run(f) at once, a loop's indices in order (the default schedule,
// auto, and static with one block per worker; the other schedules fold in an unspecified order).
// A view is valid until the strand's next spawn, join, fork_join, group run or wait, or loop.
//
// combinable<T> and enumerable_thread_specific<T> are oneTBB's: one value per worker (and per
// other thread that asks), made on first use, combined in no particular order.
#ifndef MERINO_REDUCER_HPP
#define MERINO_REDUCER_HPP

#if !defined(__cplusplus) || __cplusplus < 201703L
#error "merino_reducer.hpp requires C++17 or later: compile with -std=c++17"
#endif

#include "merino.h"
#include "merino_reducer.h"

#include <algorithm>
#include <atomic>
#include <deque>
#include <functional>
#include <limits>
#include <list>
#include <mutex>
#include <new>
#include <thread>
#include <type_traits>
#include <unordered_map>
#include <utility>

namespace merino {

/// A reducer over views of type T (default-constructible): see the top of this file.
template <class T> class reducer {
public:
    using value_type = T;

    template <class Identity, class Reduce>
    reducer(Identity identity, Reduce reduce) : fns_{std::move(identity), std::move(reduce)} {
        static_assert(std::is_default_constructible_v<T>, "merino::reducer<T>: T must be default-constructible");
        static const merino_hyper_ops ops = {sizeof(T), alignof(T), &make, &fold, &end};
        h_ = merino_hyper_new(&ops, &fns_);
        if (!h_) throw std::bad_alloc();
    }
    ~reducer() { merino_hyper_free(h_); }
    reducer(const reducer &) = delete;
    reducer &operator=(const reducer &) = delete;

    /// The calling strand's view.
    T &view() noexcept {
        auto *m = static_cast<merino__vmap_head *>(merino__views);
        if (MERINO__LIKELY(m != nullptr && m->last == h_)) return *static_cast<T *>(m->last_view);
        return *static_cast<T *>(merino_hyper_view(h_));
    }
    T &operator*() noexcept { return view(); }
    T *operator->() noexcept { return &view(); }

    /// The result, once every update has joined: in the code that made the reducer, after its
    /// parallel work (or outside the pool's runs).
    T &get() noexcept { return *static_cast<T *>(merino_hyper_get(h_)); }

private:
    struct fns {
        std::function<void(T *)> identity;
        std::function<void(T &, T &)> reduce;
    };
    static void make(void *v, void *ctx) {
        T *t = ::new (v) T();
        static_cast<fns *>(ctx)->identity(t);
    }
    static void fold(void *l, void *r, void *ctx) { static_cast<fns *>(ctx)->reduce(*static_cast<T *>(l), *static_cast<T *>(r)); }
    static void end(void *v, void *) { static_cast<T *>(v)->~T(); }

    fns fns_;
    merino_hyper *h_;
};

/// A sum: view() += x.
template <class T> class reducer_opadd : public reducer<T> {
public:
    reducer_opadd() : reducer<T>([](T *v) { *v = T(); }, [](T &l, T &r) { l += r; }) {}
    reducer_opadd &operator+=(const T &x) {
        this->view() += x;
        return *this;
    }
};

/// The least value seen (std::numeric_limits<T>::max() when none).
template <class T> class reducer_min : public reducer<T> {
public:
    reducer_min()
        : reducer<T>([](T *v) { *v = std::numeric_limits<T>::max(); }, [](T &l, T &r) { if (r < l) l = r; }) {}
    void update(const T &x) {
        T &v = this->view();
        if (x < v) v = x;
    }
};

/// The greatest value seen (std::numeric_limits<T>::lowest() when none).
template <class T> class reducer_max : public reducer<T> {
public:
    reducer_max()
        : reducer<T>([](T *v) { *v = std::numeric_limits<T>::lowest(); }, [](T &l, T &r) { if (l < r) l = r; }) {}
    void update(const T &x) {
        T &v = this->view();
        if (v < x) v = x;
    }
};

/// A std::list<T> appended to in serial order: push_back(x) on the strand's view, get() the list.
template <class T> class reducer_list_append : public reducer<std::list<T>> {
public:
    reducer_list_append()
        : reducer<std::list<T>>([](std::list<T> *) {}, [](std::list<T> &l, std::list<T> &r) { l.splice(l.end(), r); }) {}
    void push_back(const T &x) { this->view().push_back(x); }
    void push_back(T &&x) { this->view().push_back(std::move(x)); }
};

/// One value per worker (and per other thread that asks), as oneTBB's: local() makes the calling
/// worker's on first use (a copy of the exemplar, or init()); iteration, size(), combine and
/// combine_each visit the values made, in no particular order. Iterate and combine after the
/// parallel work; clear() drops every value.
template <class T> class enumerable_thread_specific {
public:
    using value_type = T;
    using iterator = typename std::deque<T>::iterator;
    using const_iterator = typename std::deque<T>::const_iterator;

    enumerable_thread_specific() : make_([] { return T(); }) {}
    template <class Init, class = std::enable_if_t<std::is_invocable_r_v<T, Init &>>>
    explicit enumerable_thread_specific(Init init) : make_(std::move(init)) {}
    explicit enumerable_thread_specific(const T &exemplar) : make_([exemplar] { return exemplar; }) {}
    enumerable_thread_specific(const enumerable_thread_specific &) = delete;
    enumerable_thread_specific &operator=(const enumerable_thread_specific &) = delete;
    ~enumerable_thread_specific() { delete[] slots_; }

    /// The calling worker's (or thread's) value, made on first use.
    T &local() {
        bool exists;
        return local(exists);
    }
    T &local(bool &exists) {
        int i = merino_worker_index();
        if (MERINO__LIKELY(i >= 0)) {
            // relaxed: only worker i writes slot i (the caller slot's occupants one after another)
            T *p = slots_[i].load(std::memory_order_relaxed);
            exists = p != nullptr;
            if (MERINO__LIKELY(exists)) return *p;
            p = make_value();
            slots_[i].store(p, std::memory_order_relaxed);
            return *p;
        }
        return foreign(exists);
    }

    iterator begin() { return values_.begin(); }
    iterator end() { return values_.end(); }
    const_iterator begin() const { return values_.begin(); }
    const_iterator end() const { return values_.end(); }
    std::size_t size() const { return values_.size(); }
    bool empty() const { return values_.empty(); }

    /// op folded over the values (in no particular order: op must be associative and commute);
    /// a fresh value (exemplar or init()) when there is none.
    template <class Op> T combine(Op op) {
        if (values_.empty()) return make_();
        T acc = values_.front();
        for (auto it = std::next(values_.begin()); it != values_.end(); ++it) acc = op(acc, *it);
        return acc;
    }
    /// f(value) for each value.
    template <class F> void combine_each(F f) {
        for (T &v : values_) f(v);
    }
    /// Drops every value (when no worker uses them).
    void clear() {
        for (unsigned i = 0; i < MERINO_MAX_WORKERS; i++) slots_[i].store(nullptr, std::memory_order_relaxed);
        foreign_.clear();
        values_.clear();
    }

private:
    T *make_value() {
        std::lock_guard<std::mutex> lock(mu_);
        values_.push_back(make_()); // a deque: the values never move
        return &values_.back();
    }
    T &foreign(bool &exists) {
        std::lock_guard<std::mutex> lock(mu_);
        auto it = foreign_.find(std::this_thread::get_id());
        exists = it != foreign_.end();
        if (exists) return *it->second;
        values_.push_back(make_());
        foreign_.emplace(std::this_thread::get_id(), &values_.back());
        return values_.back();
    }

    std::function<T()> make_;
    std::atomic<T *> *slots_ = new std::atomic<T *>[MERINO_MAX_WORKERS]();
    std::mutex mu_;
    std::deque<T> values_;
    std::unordered_map<std::thread::id, T *> foreign_;
};

/// oneTBB's combinable: local(), combine(op), combine_each(f), clear().
template <class T> class combinable {
public:
    combinable() = default;
    template <class Init> explicit combinable(Init init) : ets_(std::move(init)) {}
    T &local() { return ets_.local(); }
    T &local(bool &exists) { return ets_.local(exists); }
    template <class Op> T combine(Op op) { return ets_.combine(std::move(op)); }
    template <class F> void combine_each(F f) { ets_.combine_each(std::move(f)); }
    void clear() { ets_.clear(); }

private:
    enumerable_thread_specific<T> ets_;
};

} // namespace merino

#endif // MERINO_REDUCER_HPP
