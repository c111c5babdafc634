// The last guard of "no exception crosses the API" (docs/cli.md, "Bounded work"): each
// public entry point runs its body through guarded(), which turns std::bad_alloc (and
// std::length_error, a size no allocator can give) into LimitExceeded "out of memory while ...",
// and any other exception into an Error, each naming the path. The readers and writers themselves
// use no throwing calls on purpose; this catches what is left: an allocation that fails.
#pragma once

#include <string>
#include <type_traits>

#include "rigport/error.hpp"

namespace rigport::detail {

// The Error for the exception being handled; call it only inside a catch block. `doing` says what
// was under way ("reading", "writing" ...). Never throws: when not even the message can be
// allocated, the Error says "out of memory" (short enough to need no allocation) without the path.
Error current_exception_error(const std::string& path, const char* doing) noexcept;

// Runs body(), which returns an Expected<T> or a Status, and returns its result, or the Error for
// any exception it throws.
template <class Body>
auto guarded(const std::string& path, const char* doing, Body&& body) noexcept -> std::invoke_result_t<Body&> {
    try {
        return body();
    } catch (...) {
        return current_exception_error(path, doing);
    }
}

}  // namespace rigport::detail
