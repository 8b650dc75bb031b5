// fork_join.cpp — the same with the C++ header: fork_join runs two lambdas, possibly in parallel.
#include <merino.hpp>

#include <cstdio>

static long fib(int n) {
    if (n < 2) return n;
    auto [a, b] = merino::fork_join([&] { return fib(n - 1); }, [&] { return fib(n - 2); });
    return a + b;
}

int main() {
    merino::runtime rt;  // starts the workers; stops them when rt goes out of scope
    long r = merino::run([] { return fib(30); });
    std::printf("fib(30) = %ld\n", r);
    return r == 832040 ? 0 : 1;
}
