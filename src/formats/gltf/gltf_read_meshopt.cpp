// glTF reader: bufferViews compressed with EXT_meshopt_compression (docs/gltf.md §7.1): the stream
// in the extension's buffer range is decoded by meshoptimizer's decoders (modes ATTRIBUTES,
// TRIANGLES, INDICES; filters OCTAHEDRAL, QUATERNION, EXPONENTIAL) into bytes the size of the
// view, which accessors then read as if the view held them. The view's own buffer (a fallback
// that holds no data, or uncompressed copies) is never read.
#include <fmt/format.h>
#include <meshoptimizer.h>

#include "formats/gltf/gltf_read_parts.hpp"
#include "support/byte_cursor.hpp"

namespace rigport::gltf::read_detail {

namespace {

enum class Mode { Attributes, Triangles, Indices };
enum class Filter { None, Octahedral, Quaternion, Exponential };

bool parse_mode(const std::string& s, Mode& out) {
    if (s == "ATTRIBUTES") out = Mode::Attributes;
    else if (s == "TRIANGLES") out = Mode::Triangles;
    else if (s == "INDICES") out = Mode::Indices;
    else return false;
    return true;
}

bool parse_filter(const std::string& s, Filter& out) {
    if (s.empty() || s == "NONE") out = Filter::None;
    else if (s == "OCTAHEDRAL") out = Filter::Octahedral;
    else if (s == "QUATERNION") out = Filter::Quaternion;
    else if (s == "EXPONENTIAL") out = Filter::Exponential;
    else return false;
    return true;
}

// The extension's rules on byteStride per mode and filter, checked before anything is allocated;
// meshoptimizer's decoders assert on other strides, and input data must never reach an assert.
std::optional<std::string> stride_problem(Mode mode, Filter filter, uint64_t stride, uint64_t count) {
    if (mode == Mode::Attributes) {
        if (stride == 0 || stride > 256 || stride % 4 != 0) return fmt::format("byteStride {} is not a multiple of 4 in 4..256 (mode ATTRIBUTES)", stride);
        if (filter == Filter::Octahedral && stride != 4 && stride != 8) return fmt::format("byteStride {} with filter OCTAHEDRAL (4 or 8)", stride);
        if (filter == Filter::Quaternion && stride != 8) return fmt::format("byteStride {} with filter QUATERNION (8)", stride);
        return std::nullopt;
    }
    if (filter != Filter::None) return "a filter is only allowed with mode ATTRIBUTES";
    if (stride != 2 && stride != 4) return fmt::format("byteStride {} is not 2 or 4 (mode {})", stride, mode == Mode::Triangles ? "TRIANGLES" : "INDICES");
    if (mode == Mode::Triangles && count % 3 != 0) return fmt::format("count {} is not a multiple of 3 (mode TRIANGLES)", count);
    return std::nullopt;
}

}  // namespace

bool Reader::spend_decoded(uint64_t bytes, const std::string& path) {
    const uint64_t budget = decoded_floor + std::min(bytes_read, UINT64_MAX / 512) * decoded_per_byte;
    if (bytes > budget - std::min(decoded_, budget))
        return fail(ErrorCode::LimitExceeded, path,
                    fmt::format("{} bytes decompressed after {} exceed the budget of {} for the file's {} bytes (2^22 + 256 per byte read)", bytes,
                                decoded_, budget, bytes_read));
    decoded_ += bytes;
    return true;
}

std::optional<std::span<const uint8_t>> Reader::meshopt_view(uint32_t which, const Json& ext, uint64_t view_length) {
    const std::string path = fmt::format("/bufferViews/{}", which);
    const std::string at = path + "/extensions/EXT_meshopt_compression";
    if (decoded_views_.size() < count("bufferViews")) decoded_views_.resize(count("bufferViews"));
    if (decoded_views_[which]) return std::span<const uint8_t>(*decoded_views_[which]);
    uint32_t buffer_index = 0;
    uint64_t offset = 0, length = 0, stride = 0, elements = 0;
    std::string mode_name, filter_name;
    if (!ext.is_object()) return malformed(at, "expected an object"), std::nullopt;
    if (!index(ext, "buffer", at, buffer_index, true, "buffers", count("buffers")) || !uint(ext, "byteOffset", at, offset, false) ||
        !uint(ext, "byteLength", at, length, true) || !uint(ext, "byteStride", at, stride, true) || !uint(ext, "count", at, elements, true) ||
        !string(ext, "mode", at, mode_name) || !string(ext, "filter", at, filter_name))
        return std::nullopt;
    Mode mode{};
    Filter filter{};
    if (!parse_mode(mode_name, mode))
        return fail(ErrorCode::Unsupported, at + "/mode", fmt::format("'{}' is not ATTRIBUTES, TRIANGLES or INDICES", detail::excerpt(mode_name))), std::nullopt;
    if (!parse_filter(filter_name, filter))
        return fail(ErrorCode::Unsupported, at + "/filter", fmt::format("'{}' is not NONE, OCTAHEDRAL, QUATERNION or EXPONENTIAL", detail::excerpt(filter_name))),
               std::nullopt;
    if (auto bad = stride_problem(mode, filter, stride, elements)) return malformed(at, *bad), std::nullopt;
    if (elements == 0 || elements > options.max_elements)
        return fail(elements ? ErrorCode::LimitExceeded : ErrorCode::Malformed, at + "/count", fmt::format("{} is not in 1..max_elements {}", elements, options.max_elements)),
               std::nullopt;
    // The decoded bytes are exactly the view's: count x byteStride (at most 2^26 x 256, no overflow).
    if (elements * stride != view_length)
        return malformed(at, fmt::format("count {} x byteStride {} = {} bytes, but the bufferView's byteLength is {}", elements, stride, elements * stride, view_length)),
               std::nullopt;
    auto data = buffer(buffer_index);
    if (!data) return std::nullopt;
    if (!io::range_fits(offset, 1, length, data->size()))
        return malformed(at, fmt::format("byteOffset {} + byteLength {} exceeds the {}-byte buffer {}", offset, length, data->size(), buffer_index)), std::nullopt;
    if (!spend_decoded(view_length, at)) return std::nullopt;
    const uint8_t* stream = data->data() + offset;
    std::vector<uint8_t> out(view_length);
    int status = -1;
    if (mode == Mode::Attributes) status = meshopt_decodeVertexBuffer(out.data(), elements, stride, stream, length);
    else if (mode == Mode::Triangles) status = meshopt_decodeIndexBuffer(out.data(), elements, stride, stream, length);
    else status = meshopt_decodeIndexSequence(out.data(), elements, stride, stream, length);
    if (status != 0)
        return malformed(path, fmt::format("EXT_meshopt_compression stream does not decode (mode {}, {} elements of {} bytes from {} bytes; meshoptimizer error {})",
                                           mode_name, elements, stride, length, status)),
               std::nullopt;
    // The filters turn the decoded integers back into what the accessors read: unit vectors
    // (octahedral), unit quaternions, floats of a shared exponent. Each works in place.
    if (filter == Filter::Octahedral) meshopt_decodeFilterOct(out.data(), elements, stride);
    else if (filter == Filter::Quaternion) meshopt_decodeFilterQuat(out.data(), elements, stride);
    else if (filter == Filter::Exponential) meshopt_decodeFilterExp(out.data(), elements, stride);
    decoded_views_[which] = std::move(out);
    return std::span<const uint8_t>(*decoded_views_[which]);
}

}  // namespace rigport::gltf::read_detail
