// Cal3D binary reading helpers: header, strings, counts, exact-size check (docs/cal3d.md §2, §9 rules 1-2).
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>

#include "formats/cal3d/cal3d.hpp"
#include "support/byte_cursor.hpp"

namespace rigport::cal3d {

class BinaryReader {
public:
    BinaryReader(std::span<const uint8_t> bytes, const LoadOptions& options, Warnings& warnings)
        : c(bytes), options_(options), warnings_(warnings) {}

    io::ByteCursor c;

    // Magic and version; the family table decides the layout (§1.1).
    std::optional<Error> header(FileType type, int32_t& version) {
        char magic[4];
        c.read_bytes(magic, 4);
        version = c.i32();
        if (!c.ok()) return short_read("header");
        if (std::memcmp(magic, binary_magic(type).data(), 4) != 0)
            return make_error(ErrorCode::Malformed, fmt::format("not a {} file (magic)", binary_magic(type).substr(0, 3)), 0);
        if (family_of(version) == Family::Unknown)
            return make_error(ErrorCode::Unsupported,
                              fmt::format("version {} is in no known family (699-910, 1000-1200 classic, 911-919 IMVU, 1300-1301 trunk)", version), 4);
        return std::nullopt;
    }

    Error short_read(std::string_view what) const {
        return make_error(ErrorCode::Malformed, fmt::format("{}: the file ends at {} before the data does", what, c.size()), c.failed_at());
    }
    Error bad(std::string message, uint64_t at) const { return make_error(ErrorCode::Malformed, std::move(message), at); }

    // A count read from the file: >= min, <= max_elements, and count * min_bytes must fit in
    // what is left (so nothing is allocated for bytes the file does not have). `what` names it in
    // the error: a string, or a function making one, so a per-vertex count formats nothing unless
    // it is wrong.
    template <class What>
    std::optional<Error> count(int32_t value, uint64_t at, const What& what, uint64_t min_bytes_each, int32_t min = 0) const {
        if (value >= min && uint64_t(value) <= options_.max_elements && io::range_fits(c.pos(), uint64_t(value), min_bytes_each, c.size()))
            return std::nullopt;
        return count_error(value, at, name_of(what), min_bytes_each, min);
    }

    // int32 len + len bytes; the text ends at the first NUL (a missing NUL is warned, §2).
    template <class What>
    std::optional<Error> string(std::string& out, const What& what) {
        const uint64_t at = c.pos();
        const int32_t len = c.i32();
        if (!c.ok()) return short_read(name_of(what));
        if (len < 0 || uint64_t(len) > c.remaining())
            return bad(fmt::format("{}: string length {} with {} bytes left", name_of(what), len, c.remaining()), at);
        out.resize(size_t(len));
        c.read_bytes(out.data(), uint64_t(len));
        const size_t nul = out.find('\0');
        if (nul == std::string::npos) {
            if (len > 0) warnings_.add(WarningCode::Tolerated, "strings without a terminating NUL", at);
        } else {
            out.resize(nul);
        }
        return std::nullopt;
    }

    Vec3 vec3() { return {c.f32(), c.f32(), c.f32()}; }
    Quat quat() { return {c.f32(), c.f32(), c.f32(), c.f32()}; }

    // §9 rule 1: a binary parse consumes exactly the file.
    std::optional<Error> at_end() const {
        if (!c.ok()) return short_read("data");
        if (c.pos() != c.size())
            return bad(fmt::format("{} bytes left over after the data ends at {}", c.size() - c.pos(), c.pos()), c.pos());
        return std::nullopt;
    }

    // Non-finite floats become 0 (as IM does), with a warning: scenes hold finite values.
    float finite(float v, uint64_t at) {
        if (std::isfinite(v)) return v;
        warnings_.add(WarningCode::NonFiniteValue, "non-finite numbers replaced by 0", at);
        return 0.0f;
    }
    void finite(Vec3& v, uint64_t at) {
        for (float& x : v) x = finite(x, at);
    }

    const LoadOptions& options() const { return options_; }
    Warnings& warnings() { return warnings_; }

private:
    template <class What>
    static std::string name_of(const What& what) {
        if constexpr (std::is_invocable_v<const What&>)
            return what();
        else
            return std::string(what);
    }
    std::optional<Error> count_error(int32_t value, uint64_t at, std::string_view what, uint64_t min_bytes_each, int32_t min) const {
        if (value < min) return bad(fmt::format("{} {} < {}", what, value, min), at);
        if (uint64_t(value) > options_.max_elements)
            return make_error(ErrorCode::LimitExceeded, fmt::format("{} {} exceeds the limit {}", what, value, options_.max_elements), at);
        return bad(fmt::format("{} {} needs at least {} bytes, only {} are left", what, value, uint64_t(value) * min_bytes_each, c.remaining()), at);
    }

    const LoadOptions& options_;
    Warnings& warnings_;
};

}  // namespace rigport::cal3d
