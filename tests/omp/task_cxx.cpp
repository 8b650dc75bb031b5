// task_cxx.cpp — OpenMP in C++: exceptions thrown and caught inside a task, inside a parallel region,
// inside a loop iteration and inside a critical region (they may not leave the construct, and
// must not disturb it); firstprivate objects with copy constructors and destructors (GOMP_task's
// copy function: every copy made is destroyed, and each task sees its own copy); std::string and
// std::vector captured in tasks; lambdas and std::function run as tasks; a class member function
// making tasks on its object; threadprivate-like thread_local objects in the team.
#include "omp_test.h"

#include <atomic>
#include <functional>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

static std::atomic<long> live{0}, copies{0};

struct Counted {
    int value;
    std::vector<int> payload;
    explicit Counted(int v) : value(v), payload(64, v) { live++; }
    Counted(const Counted &o) : value(o.value), payload(o.payload) {
        live++;
        copies++;
    }
    ~Counted() { live--; }
    Counted &operator=(const Counted &) = default;
    bool intact() const {
        for (int x : payload)
            if (x != value) return false;
        return true;
    }
};

static void exceptions() {
    std::atomic<int> caught{0}, after{0};
    int n = ot_threads();
#pragma omp parallel
    {
        try {
            throw std::runtime_error("in the region");
        } catch (const std::runtime_error &) {
            caught++;
        }
#pragma omp for schedule(dynamic, 3)
        for (int i = 0; i < 300; i++) {
            try {
                if (i % 7 == 0) throw i;
            } catch (int k) {
                if (k == i) caught++;
            }
        }
#pragma omp single
        for (int k = 0; k < 100; k++) {
#pragma omp task firstprivate(k)
            {
                try {
                    if (k % 2) throw std::out_of_range(std::to_string(k));
                    throw std::logic_error("even");
                } catch (const std::out_of_range &e) {
                    if (std::stoi(e.what()) == k) caught++;
                } catch (const std::logic_error &) {
                    caught++;
                }
                after++;
            }
        }
#pragma omp critical
        {
            try {
                throw 1.5;
            } catch (double) {
                caught++;
            }
        }
    }
    CHECK_EQ_INT(caught.load(), n + 43 + 100 + n);
    CHECK_EQ_INT(after.load(), 100);
    OT_SAY("exceptions caught inside a region, a loop iteration, 100 tasks and a critical region");
}

static void copied_objects() {
    copies = 0;
    {
        Counted c(7);
        std::atomic<int> bad{0};
#pragma omp parallel
#pragma omp single
        for (int k = 0; k < 50; k++) {
#pragma omp task firstprivate(c, k) shared(bad)
            {
                if (c.value != 7 || !c.intact()) bad++;
                c.value = k; // its own copy
                c.payload.assign(64, k);
                if (!c.intact()) bad++;
            }
        }
        CHECK_EQ_INT(bad.load(), 0);
        CHECK_EQ_INT(c.value, 7);
        CHECK(c.intact());
        CHECK(copies.load() >= 50);
        // parallel firstprivate: each thread a copy
        long seen = 0;
#pragma omp parallel firstprivate(c) reduction(+ : seen)
        seen += c.value + (c.intact() ? 0 : 1000);
        CHECK_EQ_INT(seen, 7L * ot_threads());
    }
    CHECK_EQ_INT(live.load(), 0); // every copy destroyed
    OT_SAY("firstprivate objects with copy constructors: each task its own copy, every copy destroyed");
}

struct Tree {
    std::vector<int> leaves;
    long total = 0;
    long sum(int lo, int hi) {
        if (hi - lo <= 16) return std::accumulate(leaves.begin() + lo, leaves.begin() + hi, 0L);
        long a = 0, b = 0;
        int mid = (lo + hi) / 2;
#pragma omp task shared(a)
        a = sum(lo, mid);
#pragma omp task shared(b)
        b = sum(mid, hi);
#pragma omp taskwait
        return a + b;
    }
};

static void strings_lambdas_members() {
    std::vector<std::string> out(40);
    std::string prefix = "item-";
#pragma omp parallel
#pragma omp single
    for (int k = 0; k < 40; k++) {
        std::string local = prefix + std::to_string(k);
        std::function<std::string()> f = [local] { return local + "!"; };
#pragma omp task firstprivate(local, f) shared(out)
        out[k] = f() + std::to_string(local.size());
    }
    for (int k = 0; k < 40; k++) CHECK(out[k] == "item-" + std::to_string(k) + "!" + std::to_string(5 + std::to_string(k).size()));
    Tree t;
    t.leaves.resize(5000);
    std::iota(t.leaves.begin(), t.leaves.end(), 1);
#pragma omp parallel
#pragma omp single
    t.total = t.sum(0, 5000);
    CHECK_EQ_INT(t.total, 5000L * 5001 / 2);
    OT_SAY("std::string and std::function in tasks, a member function's recursive tasks: %ld", t.total);
}

// At namespace scope: each thread's copy is constructed at its first use on that thread, which
// registers its destructor for the thread's exit. (A block-scope thread_local is constructed when
// control passes its declaration on a thread — only the encountering thread does, not the team's
// other threads, whose copies are then never constructed nor destroyed.)
static thread_local std::vector<int> mine;

static void thread_locals() {
    int bad = 0;
#pragma omp parallel reduction(+ : bad)
    {
        mine.assign(10, omp_get_thread_num());
#pragma omp barrier
        for (int x : mine) bad += x != omp_get_thread_num();
    }
    CHECK_EQ_INT(bad, 0);
    OT_SAY("thread_local objects: one per thread of the team");
}

int main() {
    exceptions();
    copied_objects();
    strings_lambdas_members();
    thread_locals();
    return 0;
}
