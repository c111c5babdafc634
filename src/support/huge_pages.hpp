// Big arrays on transparent huge pages: one page fault per 2 MiB of fresh memory, not per 4 KiB.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace rigport::detail {

// Asks for huge pages over the 2 MiB-aligned part of [p, p + bytes). Only advice: where the
// kernel has transparent huge pages off, or the range is already touched, nothing changes.
inline void advise_huge_pages(void* p, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    constexpr uintptr_t huge = uintptr_t(2) << 20;
    if (bytes < huge) return;  // no whole huge page inside
    const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + huge - 1) & ~(huge - 1);
    const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(huge - 1);
    if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
    (void)p, (void)bytes;
#endif
}

// v sized to n elements (value-initialized), its storage advised before the first touch.
template <class T>
void resize_huge(std::vector<T>& v, size_t n) {
    if (n > v.capacity()) {
        v.reserve(n);
        advise_huge_pages(v.data(), n * sizeof(T));
    }
    v.resize(n);
}

template <class T>
void reserve_huge(std::vector<T>& v, size_t n) {
    if (n <= v.capacity()) return;
    v.reserve(n);
    advise_huge_pages(v.data(), n * sizeof(T));
}

}  // namespace rigport::detail
