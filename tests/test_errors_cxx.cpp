// merino::runtime reports a start error by throwing std::runtime_error with merino's message, and
// prints nothing (a child process's stderr stays empty): bad MERINO_WORKERS, an out-of-range
// worker count, a second runtime while one runs. merino_last_error() has the same text.
#include "check.h"

#include <merino.hpp>

#include <stdexcept>
#include <string>

namespace {

// Constructs a runtime from make(); returns the what() of the std::runtime_error it throws, or
// fails the check if it does not throw.
template <class Make> std::string start_error(Make make) {
    try {
        make();
    } catch (const std::runtime_error &e) {
        CHECK_STR_EQ(e.what(), merino_last_error());
        return e.what();
    }
    CHECK_MSG(false, "merino::runtime did not throw");
    return "";
}

int child_throws() {
    std::string e = start_error([] { merino::runtime rt; });
    CHECK_STR_CONTAINS(e.c_str(), "merino: MERINO_WORKERS='lots'");
    unsetenv("MERINO_WORKERS");
    e = start_error([] { merino::runtime rt(MERINO_MAX_WORKERS + 1); });
    CHECK_STR_CONTAINS(e.c_str(), "out of range");
    {
        merino::runtime rt(2);
        CHECK_EQ_UINT(rt.workers(), 2);
        e = start_error([] { merino::runtime second(1); });
        CHECK_STR_CONTAINS(e.c_str(), "already running");
        CHECK_EQ_INT(merino::run([] { return 42; }), 42);
    }
    CHECK_EQ_UINT(merino_workers(), 0);
    return 0;
}

} // namespace

int main(int argc, char **argv) {
    const char *child = check_child_name(argc, argv);
    if (child) return std::string(child) == "throws" ? child_throws() : 2;

    const char *const env[] = {"MERINO_WORKERS=lots", nullptr};
    check_child c = check_run_child("throws", env, 30);
    CHECK_CHILD(c, c.exited && c.code == 0);
    CHECK_CHILD(c, c.err[0] == 0); // nothing printed
    check_child_free(&c);
    std::printf("test_errors_cxx: ok\n");
    return 0;
}
