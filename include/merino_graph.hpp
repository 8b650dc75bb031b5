// merino_graph.hpp — task groups, parallel_invoke and task objects in C++17, over merino_graph.h.
//
//     merino::task_group g;
//     for (node *p = list; p; p = p->next) g.run([p] { visit(p); });
//     g.wait();                                  // rethrows what the serial program would have thrown
//
//     merino::parallel_invoke([&] { a(); }, [&] { b(); }, [&] { c(); });
//
// Exceptions behave as in the serial program, where run(f) would call f at once: wait() rethrows
// the exception of the task that was run first (in the order of the run calls) among those that
// threw; the tasks run after it that have not started are cancelled, those run before it still run
// (one of them may throw first). The other exceptions are dropped. A group created inside a task is
// nested in that task's group: cancelling the outer one (or an exception there, at an earlier
// task) cancels it too. docs/graph.md has the rules and the tests.
#ifndef MERINO_GRAPH_HPP
#define MERINO_GRAPH_HPP

#include "merino.hpp"
#include "merino_graph.h"

#include <cstring>
#include <exception>
#include <functional>
#include <new>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

namespace merino {

/// What wait() returns: all tasks ran, or the group was cancelled (cancel(), an outer group's
/// cancellation, or an exception — which wait() rethrows instead of returning).
enum class task_group_status { complete = MERINO_COMPLETE, canceled = MERINO_CANCELED };

namespace detail {

inline void drop_exception(void *e) noexcept { delete static_cast<std::exception_ptr *>(e); }

// Records the exception in flight as the failure of task t (kept if first in serial order).
inline void fail_current(merino_task *t) noexcept {
    auto *e = new (std::nothrow) std::exception_ptr(std::current_exception());
    merino__task_fail(t, e, &drop_exception); // out of memory: the group is cancelled, not rethrown
}

// Rethrows the failure a wait left in g, if any.
inline void rethrow_failure(merino_task_group *g) {
    void *e = merino__group_take_error(g);
    if (!e) return;
    std::exception_ptr p = std::move(*static_cast<std::exception_ptr *>(e));
    drop_exception(e);
    std::rethrow_exception(p);
}

// The errors of the graph calls made in its scope are recorded, not printed: an exception carries
// them (calls that run no user code only).
struct quiet_errors {
    int was = merino__graph_quiet(1);
    quiet_errors() = default;
    quiet_errors(const quiet_errors &) = delete;
    quiet_errors &operator=(const quiet_errors &) = delete;
    ~quiet_errors() { merino__graph_quiet(was); }
};

template <class Fn> merino_task *run_closure(merino_task *t) noexcept {
    try {
        (*static_cast<Fn *>(merino_task_data(t)))();
    } catch (...) {
        fail_current(t);
    }
    return nullptr;
}

template <class Fn> void destroy_closure(merino_task *t) noexcept { static_cast<Fn *>(merino_task_data(t))->~Fn(); }

// A task of g that calls f (moved or copied into its data), not yet spawned; from any thread (off
// the pool, its block comes from merino's allocator, not a worker's free list).
template <class F> merino_task *closure_task(merino_task_group *g, F &&f) {
    using Fn = std::decay_t<F>;
    static_assert(std::is_invocable_v<Fn &>, "task_group::run takes a callable with no arguments");
    static_assert(alignof(Fn) <= 64, "task_group::run: the closure's alignment is at most 64");
    merino_task *t = merino__group_alloc(g, &run_closure<Fn>, sizeof(Fn));
    try {
        new (merino_task_data(t)) Fn(std::forward<F>(f));
    } catch (...) {
        merino__group_discard(t);
        throw;
    }
    merino_task_set_destroy(t, &destroy_closure<Fn>);
    return t;
}

} // namespace detail

/// Runs any number of closures, possibly in parallel, and waits for them all. Usable from any
/// thread: from a thread outside the pool, run and wait enter it as the C API's
/// merino_task_group_run and merino_task_group_wait do (run's task is public once it returns, so
/// any thread's wait finds it). A closure is
/// moved into a task object from the worker's free list (no heap allocation in steady state up to
/// MERINO_TASK_DATA_MAX bytes). When the calling worker already holds MERINO_TASK_DEQUE tasks not
/// started, run calls the closure at once: a loop over a long list runs in bounded space.
class task_group {
public:
    task_group() { merino_task_group_init(&g_); }
    /// A group destroyed with tasks pending (an exception left the scope before wait) cancels them
    /// and waits for those running, which may use the frame; their exceptions are dropped.
    ~task_group() {
        // acquire: pairs with the tasks' release decrements: none touches the group after this
        if (__atomic_load_n(&g_.merino__anchor.merino__refs, __ATOMIC_ACQUIRE) > 1) {
            merino_task_group_cancel(&g_);
            merino_task_group_wait(&g_);
        }
        if (void *e = merino__group_take_error(&g_)) detail::drop_exception(e);
    }
    task_group(const task_group &) = delete;
    task_group &operator=(const task_group &) = delete;

    /// Runs f() as a task of this group (from any thread: from outside the pool, the C API queues it
    /// on the worker it enters as, and makes it public there before it leaves).
    template <class F> void run(F &&f) { merino__group_spawn(detail::closure_task(&g_, std::forward<F>(f))); }

    /// Waits for every task of the group (helping meanwhile); rethrows the first exception in
    /// serial order. Returns canceled when the group (or one it is nested in) was cancelled. The
    /// group is reset: it may run and wait again.
    task_group_status wait() {
        int s = merino_task_group_wait(&g_);
        detail::rethrow_failure(&g_);
        return static_cast<task_group_status>(s);
    }

    /// run(f), then wait().
    template <class F> task_group_status run_and_wait(F &&f) {
        run(std::forward<F>(f));
        return wait();
    }

    /// Cancels the tasks of the group that have not started, and those of groups nested in it.
    void cancel() noexcept { merino_task_group_cancel(&g_); }
    /// Whether this group, or a group it is nested in, is cancelled.
    bool is_canceling() const noexcept { return merino_task_group_is_canceling(&g_) != 0; }

    /// The C group, for code that mixes the two APIs.
    merino_task_group *native() noexcept { return &g_; }

private:
    merino_task_group g_;
};

/// Calls f1(), ..., fn(), possibly in parallel, and returns when all have returned. If some throw,
/// rethrows the exception of the first of them in argument order; those after it that have not
/// started are not called. f1 runs at once on the calling worker; f2, ..., fn are queued so that
/// this worker takes them in argument order (other workers take the last first): with one worker,
/// or when no other worker takes any, they run in the serial program's order, and a throw stops
/// the calls after it as it would there.
template <class... F> void parallel_invoke(F &&...fs) {
    static_assert(sizeof...(F) >= 1, "parallel_invoke takes at least one callable");
    if (merino__self == nullptr) { // outside the pool: enter it once for the whole call
        merino::run([&] { parallel_invoke(std::forward<F>(fs)...); });
        return;
    }
    task_group g;
    merino_task *ts[sizeof...(F)];
    size_t i = 0;
    ((ts[i++] = detail::closure_task(g.native(), [&fs] { std::invoke(fs); })), ...); // numbered in order
    for (size_t k = sizeof...(F); k-- > 1;) merino__group_spawn(ts[k]); // the newest, f2, is taken first
    merino__group_wait_after(g.native(), ts[0]);
    detail::rethrow_failure(g.native());
}

/// A task object of the TBB model: derive from it and define execute(), which may return the next
/// task to run (scheduler bypass). Allocate with allocate_root / allocate_child /
/// allocate_continuation (from the worker's free list), never with new. An exception thrown by
/// execute() cancels the tasks of the root's tree after it and is rethrown by spawn_root_and_wait.
class task {
public:
    virtual ~task() = default;
    virtual task *execute() = 0;

    template <class T, class... A> static T &allocate_root(A &&...args) {
        return make<T>(merino_task_alloc_root(&trampoline, data_bytes<T>()), std::forward<A>(args)...);
    }
    template <class T, class... A> T &allocate_child(A &&...args) {
        return make<T>(merino_task_alloc_child(raw_, &trampoline, data_bytes<T>()), std::forward<A>(args)...);
    }
    template <class T, class... A> T &allocate_continuation(A &&...args) {
        return make<T>(merino_task_alloc_continuation(raw_, &trampoline, data_bytes<T>()), std::forward<A>(args)...);
    }

    void set_ref_count(int count) noexcept { merino_task_set_ref_count(raw_, count); }
    int ref_count() const noexcept { return merino_task_ref_count(raw_); }
    static void spawn(task &t) { merino_task_spawn(t.raw_); }
    void wait_for_all() { merino_task_wait_for_all(raw_); }
    void spawn_and_wait_for_all(task &child) { merino_task_spawn_and_wait_for_all(raw_, child.raw_); }
    /// Runs root and its tree from any thread; rethrows the first exception of the tree.
    static task_group_status spawn_root_and_wait(task &root) {
        merino_task_group g;
        merino_task_group_init(&g);
        int s = merino__group_run_root(&g, root.raw_);
        detail::rethrow_failure(&g);
        return static_cast<task_group_status>(s);
    }
    void recycle_as_child_of(task &new_parent) noexcept { merino_task_recycle_as_child_of(raw_, new_parent.raw_); }
    void recycle_as_continuation() noexcept { merino_task_recycle_as_continuation(raw_); }
    void cancel() noexcept { merino_task_cancel(raw_); }
    bool is_cancelled() const noexcept { return merino_task_is_cancelled(raw_) != 0; }
    /// The task's parent, when it is a C++ task object too.
    task *parent() const noexcept {
        merino_task *p = merino_task_parent(raw_);
        return p ? from(p) : nullptr;
    }
    merino_task *native() noexcept { return raw_; }

private:
    merino_task *raw_ = nullptr;

    // The data of the C task: a pointer to the task subobject, then the object.
    static constexpr size_t prefix = 16;
    template <class T> static constexpr size_t data_bytes() { return prefix + sizeof(T); }
    static task *from(merino_task *t) noexcept {
        task *self;
        std::memcpy(&self, merino_task_data(t), sizeof self);
        return self;
    }

    template <class T, class... A> static T &make(merino_task *t, A &&...args) {
        static_assert(std::is_base_of_v<task, T>, "allocate_*<T>: T must derive from merino::task");
        static_assert(alignof(T) <= prefix, "allocate_*<T>: T's alignment is at most 16");
        T *obj;
        try {
            obj = new (static_cast<char *>(merino_task_data(t)) + prefix) T(std::forward<A>(args)...);
        } catch (...) {
            merino_task_free(t);
            throw;
        }
        task *self = obj;
        self->raw_ = t;
        std::memcpy(merino_task_data(t), &self, sizeof self);
        merino_task_set_destroy(t, &destroy);
        return *obj;
    }

    static merino_task *trampoline(merino_task *t) noexcept {
        task *next = nullptr;
        try {
            next = from(t)->execute();
        } catch (...) {
            detail::fail_current(t);
        }
        return next ? next->raw_ : nullptr;
    }
    static void destroy(merino_task *t) noexcept { from(t)->~task(); }
};

/// A dependency graph: nodes (closures) and edges (precede), run as a whole as many times as wanted
/// (a node runs once all its predecessors have finished). An edge that would close a cycle throws
/// std::invalid_argument naming the nodes on the cycle (for a graph whose edges were too costly to
/// check one by one, see merino_graph_edge, run() throws std::logic_error instead). run() rethrows the exception
/// of the first failing node in the order the nodes were made; after a failure or cancel(), the
/// successors of the nodes not finished do not run.
class graph {
public:
    /// A node of a graph (a handle, cheap to copy).
    class node {
    public:
        node() = default;
        const char *name() const noexcept { return merino_graph_node_name(n_); }
        merino_graph_node *native() const noexcept { return n_; }

    private:
        friend class graph;
        explicit node(merino_graph_node *n) : n_(n) {}
        merino_graph_node *n_ = nullptr;
    };

    graph() : g_(merino_graph_new()) {
        if (!g_) throw std::bad_alloc();
    }
    ~graph() {
        merino_graph_delete(g_);
        for (holder *h : holders_) delete h;
    }
    graph(const graph &) = delete;
    graph &operator=(const graph &) = delete;

    /// A node that calls f() at each run; name (copied) is what errors call it. Throws
    /// std::logic_error while the graph runs or another thread changes it.
    template <class F> node emplace(F &&f, const char *name = nullptr) {
        holders_.reserve(holders_.size() + 1);
        auto *h = new callable<std::decay_t<F>>(std::forward<F>(f));
        merino_graph_node *n;
        {
            detail::quiet_errors quiet;
            n = merino_graph_node_new(g_, name, &holder::call, h);
        }
        if (!n) {
            delete h;
            if (std::strstr(merino_last_error(), "out of memory")) throw std::bad_alloc();
            throw std::logic_error(merino_last_error()); // the graph runs, or another thread changes it
        }
        holders_.push_back(h);
        return node(n);
    }

    /// b runs after a. Throws std::invalid_argument if the edge would close a cycle, joins two
    /// graphs, or comes while the graph runs or another thread changes it.
    void precede(node a, node b) {
        int rc;
        {
            detail::quiet_errors quiet;
            rc = merino_graph_edge(a.n_, b.n_);
        }
        if (rc != 0) throw std::invalid_argument(merino_last_error());
    }

    /// Runs the graph and waits for it (from any thread); rethrows the first failure. Throws
    /// std::logic_error, running nothing, if the graph has a cycle, runs already (from another
    /// thread, or this is one of its nodes) or is being changed by another thread.
    task_group_status run() {
        int s = merino__graph_run_quiet(g_);
        if (s < 0) throw std::logic_error(merino_last_error());
        detail::rethrow_failure(merino__graph_group(g_));
        return static_cast<task_group_status>(s);
    }

    /// Cancels the run in flight (from any thread): nodes not started do not run.
    void cancel() noexcept { merino_graph_cancel(g_); }

    merino_graph *native() noexcept { return g_; }

private:
    struct holder {
        virtual ~holder() = default;
        virtual void invoke() = 0;
        static void call(void *h) noexcept {
            try {
                static_cast<holder *>(h)->invoke();
            } catch (...) {
                detail::fail_current(merino__task_current());
            }
        }
    };
    template <class F> struct callable final : holder {
        F f;
        explicit callable(F &&fn) : f(std::move(fn)) {}
        explicit callable(const F &fn) : f(fn) {}
        void invoke() override { f(); }
    };

    merino_graph *g_;
    std::vector<holder *> holders_;
};

} // namespace merino

#endif // MERINO_GRAPH_HPP
