// preload_new.cpp — libmerino_malloc.so's C++ entry points: operator new and delete in all their
// forms (plain, array, nothrow, sized, aligned), on merino's allocator. new follows the standard:
// on failure it calls the new-handler until there is none, then throws std::bad_alloc (the nothrow
// forms return nullptr instead).
//
// Compiled without exceptions and linked without libstdc++, so that a C program preloading the
// library does not load libstdc++ (about 1.4 MB of resident memory): libstdc++'s get_new_handler
// and __throw_bad_alloc are weak references, there whenever the program is C++ — the only case in
// which operator new is called at all. (A new-handler that throws passes through these frames;
// from a nothrow new its exception is not turned into nullptr.)
#include "merino_alloc.h"

#include <cstddef>
#include <new>

namespace std {
new_handler get_new_handler() noexcept __attribute__((weak));
void __throw_bad_alloc() __attribute__((weak, noreturn));
} // namespace std

extern "C" void mrn_die(const char *fmt, ...) __attribute__((noreturn));

#define MRN_PRELOAD __attribute__((visibility("default")))

namespace {

void *mrn_new(std::size_t size, std::size_t align, bool nothrow) {
    for (;;) {
        void *p = align <= 16 ? merino_malloc(size) : merino_aligned_alloc(align, size);
        if (p) return p;
        std::new_handler handler = std::get_new_handler ? std::get_new_handler() : nullptr;
        if (!handler) break;
        handler();
    }
    if (nothrow) return nullptr;
    if (std::__throw_bad_alloc) std::__throw_bad_alloc();
    mrn_die("operator new(%zu): out of memory, and no libstdc++ to throw std::bad_alloc", size);
}

} // namespace

MRN_PRELOAD void *operator new(std::size_t n) { return mrn_new(n, 0, false); }
MRN_PRELOAD void *operator new[](std::size_t n) { return mrn_new(n, 0, false); }
MRN_PRELOAD void *operator new(std::size_t n, const std::nothrow_t &) noexcept { return mrn_new(n, 0, true); }
MRN_PRELOAD void *operator new[](std::size_t n, const std::nothrow_t &) noexcept { return mrn_new(n, 0, true); }
MRN_PRELOAD void *operator new(std::size_t n, std::align_val_t a) { return mrn_new(n, static_cast<std::size_t>(a), false); }
MRN_PRELOAD void *operator new[](std::size_t n, std::align_val_t a) { return mrn_new(n, static_cast<std::size_t>(a), false); }
MRN_PRELOAD void *operator new(std::size_t n, std::align_val_t a, const std::nothrow_t &) noexcept {
    return mrn_new(n, static_cast<std::size_t>(a), true);
}
MRN_PRELOAD void *operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t &) noexcept {
    return mrn_new(n, static_cast<std::size_t>(a), true);
}

MRN_PRELOAD void operator delete(void *p) noexcept { merino_free(p); }
MRN_PRELOAD void operator delete[](void *p) noexcept { merino_free(p); }
MRN_PRELOAD void operator delete(void *p, const std::nothrow_t &) noexcept { merino_free(p); }
MRN_PRELOAD void operator delete[](void *p, const std::nothrow_t &) noexcept { merino_free(p); }
MRN_PRELOAD void operator delete(void *p, std::size_t) noexcept { merino_free(p); }
MRN_PRELOAD void operator delete[](void *p, std::size_t) noexcept { merino_free(p); }
MRN_PRELOAD void operator delete(void *p, std::align_val_t) noexcept { merino_free(p); }
MRN_PRELOAD void operator delete[](void *p, std::align_val_t) noexcept { merino_free(p); }
MRN_PRELOAD void operator delete(void *p, std::align_val_t, const std::nothrow_t &) noexcept { merino_free(p); }
MRN_PRELOAD void operator delete[](void *p, std::align_val_t, const std::nothrow_t &) noexcept { merino_free(p); }
MRN_PRELOAD void operator delete(void *p, std::size_t, std::align_val_t) noexcept { merino_free(p); }
MRN_PRELOAD void operator delete[](void *p, std::size_t, std::align_val_t) noexcept { merino_free(p); }
