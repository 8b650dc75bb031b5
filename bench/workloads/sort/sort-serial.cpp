// sort-serial.cpp — the sort workload with std::sort (sort.h).
#include "sort-run.hpp"

int main(int argc, char **argv) {
    sort_args a;
    sort_parse(argc, argv, &a);
    return sort_main(a, [](auto first, auto last) { std::sort(first, last); });
}
