// preload_new.cpp — libmerino_malloc.so's C++ entry points: operator new and delete in all their
// forms (plain, array, nothrow, sized, aligned), on merino's allocator. new follows the standard:
// on failure it calls the new-handler until it gives up, then throws std::bad_alloc (the nothrow
// forms return nullptr instead).
#include "merino_alloc.h"

#include <cstddef>
#include <new>

#define MRN_PRELOAD __attribute__((visibility("default")))

namespace {

void *mrn_new(std::size_t size, std::size_t align) {
    for (;;) {
        void *p = align <= 16 ? merino_malloc(size) : merino_aligned_alloc(align, size);
        if (p) return p;
        std::new_handler handler = std::get_new_handler();
        if (!handler) throw std::bad_alloc();
        handler();
    }
}

void *mrn_new_nothrow(std::size_t size, std::size_t align) noexcept {
    try {
        return mrn_new(size, align);
    } catch (...) {
        return nullptr;
    }
}

} // namespace

MRN_PRELOAD void *operator new(std::size_t n) { return mrn_new(n, 0); }
MRN_PRELOAD void *operator new[](std::size_t n) { return mrn_new(n, 0); }
MRN_PRELOAD void *operator new(std::size_t n, const std::nothrow_t &) noexcept { return mrn_new_nothrow(n, 0); }
MRN_PRELOAD void *operator new[](std::size_t n, const std::nothrow_t &) noexcept { return mrn_new_nothrow(n, 0); }
MRN_PRELOAD void *operator new(std::size_t n, std::align_val_t a) { return mrn_new(n, static_cast<std::size_t>(a)); }
MRN_PRELOAD void *operator new[](std::size_t n, std::align_val_t a) { return mrn_new(n, static_cast<std::size_t>(a)); }
MRN_PRELOAD void *operator new(std::size_t n, std::align_val_t a, const std::nothrow_t &) noexcept {
    return mrn_new_nothrow(n, static_cast<std::size_t>(a));
}
MRN_PRELOAD void *operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t &) noexcept {
    return mrn_new_nothrow(n, static_cast<std::size_t>(a));
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
