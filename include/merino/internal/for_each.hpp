// merino/internal/for_each.hpp — parallel_for_each over input and forward iterators, and with a
// feeder (included by merino_loop.hpp; never include it yourself).
//
// A work list shared by min(workers, max_workers) participants (the iterations of a static,1 loop):
// a participant takes the newest item added by a feeder, else reads the next block of the range
// from the iterator (blocks grow from 1 to 64 items, so that other participants get work at once
// and long ranges cost one lock per 64 items), else waits until an item is added or every
// participant is idle. Items carry the position of the range item they descend from, which ranks
// their exceptions (loop_errors): a throw cancels the items of later positions.
#ifndef MERINO_INTERNAL_FOR_EACH_HPP
#define MERINO_INTERNAL_FOR_EACH_HPP

namespace merino {

namespace detail {
template <class Item> class fed_items;
template <class It, class F, class Item> class for_each_work;
} // namespace detail

/// What a parallel_for_each body that takes two arguments gets as its second: add(item) puts an
/// item in the loop's work, to be passed to the body too (by any worker, at any time before the
/// loop returns). The loop returns once every item added has been run.
template <class Item> class feeder {
public:
    void add(const Item &item) { items_->push(Item(item), root_); }
    void add(Item &&item) { items_->push(std::move(item), root_); }

private:
    template <class, class, class> friend class detail::for_each_work;
    feeder(detail::fed_items<Item> *items, std::int64_t root) noexcept : items_(items), root_(root) {}
    detail::fed_items<Item> *items_;
    std::int64_t root_; // the position of the range item this item descends from
};

namespace detail {

// The added items and the state the participants share, under one lock.
template <class Item> class fed_items {
public:
    void push(Item &&item, std::int64_t root) {
        std::lock_guard<std::mutex> hold(lock_);
        stack_.push_back(std::make_pair(std::move(item), root));
        if (waiting_) wake_.notify_one();
    }

protected:
    std::mutex lock_;
    std::condition_variable wake_;
    std::vector<std::pair<Item, std::int64_t>> stack_; // newest last: taken first (depth first)
    unsigned running_ = 0;                               // participants running items
    unsigned waiting_ = 0;                               // participants waiting for items
};

template <class It, class F, class Item> class for_each_work : public fed_items<Item> {
    using base = fed_items<Item>;
    static constexpr bool forward =
        std::is_base_of_v<std::forward_iterator_tag, typename std::iterator_traits<It>::iterator_category>;
    static constexpr std::size_t max_block = 64;

public:
    for_each_work(It first, It last, F &f) : next_(first), last_(last), f_(f) {}

    static void participant(std::int64_t, std::int64_t, void *c) noexcept { static_cast<for_each_work *>(c)->run(); }

    void rethrow() const { err_.rethrow(); }

private:
    // Runs items until none is left and no participant runs one (which could add more).
    void run() noexcept {
        std::unique_lock<std::mutex> hold(this->lock_);
        for (;;) {
            if (!this->stack_.empty()) {
                std::pair<Item, std::int64_t> one(std::move(this->stack_.back()));
                this->stack_.pop_back();
                if (one.second >= err_.cut()) continue; // cancelled: its family comes after a throw
                this->running_++;
                hold.unlock();
                call(one.first, one.second);
                hold.lock();
                finish();
            } else if (!walked_) {
                walk(hold);
            } else if (this->running_ == 0) {
                this->wake_.notify_all(); // the others leave too
                return;
            } else {
                this->waiting_++;
                this->wake_.wait(hold);
                this->waiting_--;
            }
        }
    }

    // A participant is done with its items: the last one, with nothing left, ends the loop.
    void finish() {
        if (--this->running_ == 0 && this->stack_.empty() && walked_ && this->waiting_) this->wake_.notify_all();
    }

    // Reads the next block of the range (lock held) and runs it (lock released meanwhile).
    void walk(std::unique_lock<std::mutex> &hold) {
        std::int64_t root = pos_;
        std::size_t n = 0;
        It start = next_;
        std::vector<Item> values; // input iterators: the items are copied out before the next ++
        try {
            for (; n < want_ && next_ != last_ && root + static_cast<std::int64_t>(n) < err_.cut(); n++) {
                if constexpr (!forward) values.push_back(*next_);
                ++next_;
            }
        } catch (...) {
            err_.capture(root + static_cast<std::int64_t>(n)); // the serial loop throws there too
            walked_ = true;
        }
        if (n < want_) walked_ = true; // the end, or the cut
        pos_ += static_cast<std::int64_t>(n);
        want_ = want_ < max_block ? want_ * 2 : max_block;
        if (n == 0) return;
        this->running_++;
        hold.unlock();
        if constexpr (forward) {
            for (std::size_t j = 0; j < n; j++, ++start)
                if (!call(*start, root + static_cast<std::int64_t>(j))) break;
        } else {
            for (std::size_t j = 0; j < n; j++)
                if (!call(values[j], root + static_cast<std::int64_t>(j))) break;
        }
        hold.lock();
        finish();
    }

    // Runs the body on one item of family `root`; false when the loop is cut there.
    template <class Ref> bool call(Ref &&item, std::int64_t root) noexcept {
        if (root >= err_.cut()) return false;
        try {
            if constexpr (std::is_invocable_v<F &, Ref, feeder<Item> &>) {
                feeder<Item> add(this, root);
                f_(std::forward<Ref>(item), add);
            } else {
                static_assert(std::is_invocable_v<F &, Ref>,
                              "merino::parallel_for_each: the body takes an element, or an element and "
                              "a merino::feeder<value_type> &");
                f_(std::forward<Ref>(item));
            }
        } catch (...) {
            err_.capture(root);
            return false;
        }
        return true;
    }

    It next_, last_;          // the range not yet read (under the lock)
    std::int64_t pos_ = 0;    // the position of next_
    std::size_t want_ = 1;    // the next block's size
    bool walked_ = false;     // the range is read (or cut)
    F &f_;
    loop_errors err_;
};

// The loop: on the pool (entered once), min(workers, max_workers) participants.
template <class It, class F> void for_each_list(It first, It last, F &body, const loop_options &opts) {
    using Item = typename std::iterator_traits<It>::value_type;
    if (merino__self == nullptr) { // outside the pool: enter it once (merino_workers() is then the pool's)
        merino::run([&] { for_each_list(first, last, body, opts); });
        return;
    }
    for_each_work<It, F, Item> work(first, last, body);
    std::int64_t parts = merino_workers();
    if (opts.max_workers > 0 && opts.max_workers < parts) parts = opts.max_workers;
    merino_for_opts o = opts;
    o.schedule = MERINO_SCHEDULE_STATIC;
    o.chunk = 1;
    o.deterministic = 0;
    merino_for(0, parts, &for_each_work<It, F, Item>::participant, &work, &o);
    work.rethrow();
}

} // namespace detail
} // namespace merino

#endif
