// The Error for an exception caught at the API boundary (guarded.hpp).
#include "model/guarded.hpp"

#include <fmt/format.h>

#include <exception>
#include <new>
#include <stdexcept>

namespace rigport::detail {

Error current_exception_error(const std::string& path, const char* doing) noexcept {
    Error e;
    e.code = ErrorCode::LimitExceeded;
    try {
        try {
            throw;
        } catch (const std::bad_alloc&) {
            e.message = fmt::format("out of memory while {}", doing);
        } catch (const std::length_error&) {
            e.message = fmt::format("out of memory while {}: a size beyond what can be allocated", doing);
        } catch (const std::exception& ex) {
            e.code = ErrorCode::Malformed;
            e.message = fmt::format("unexpected error while {}: {}", doing, ex.what());
        } catch (...) {
            e.code = ErrorCode::Malformed;
            e.message = fmt::format("unexpected error while {}: an unknown exception", doing);
        }
        e.path = path;
    } catch (...) {
        // Not even the message could be allocated: 13 characters fit the string's own buffer.
        e.code = ErrorCode::LimitExceeded;
        e.message = "out of memory";
    }
    return e;
}

}  // namespace rigport::detail
