// A C++ program that uses an installed merino through merino.hpp (built when it is installed).
#include <merino.hpp>

#include <cstdio>

static long fib(int n) {
    if (n < 2) return n;
    auto [a, b] = merino::fork_join([&] { return fib(n - 1); }, [&] { return fib(n - 2); });
    return a + b;
}

int main() {
    merino::runtime rt;
    long r = merino::run([] { return fib(20); });
    std::printf("consumer_cpp: fib(20) = %ld\n", r);
    return r == 6765 ? 0 : 1;
}
