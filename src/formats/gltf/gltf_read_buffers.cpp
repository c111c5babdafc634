// glTF reader: the GLB container (glTF 2.0 §4.4), buffers from the BIN chunk, base64 data: URIs
// (RFC 2397, RFC 4648) or external files, and bufferViews checked against them (§3.6.1); views
// compressed with EXT_meshopt_compression go to gltf_read_meshopt.cpp.
#include <fmt/format.h>

#include "support/base64.hpp"
#include "formats/gltf/gltf.hpp"
#include "formats/gltf/gltf_read_parts.hpp"
#include "support/byte_cursor.hpp"

namespace rigport::gltf::read_detail {

namespace {

uint32_t u32_at(std::span<const uint8_t> b, uint64_t at) {
    return uint32_t(b[at]) | uint32_t(b[at + 1]) << 8 | uint32_t(b[at + 2]) << 16 | uint32_t(b[at + 3]) << 24;
}

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

}  // namespace

std::string percent_decode(const std::string& uri) {
    std::string out;
    out.reserve(uri.size());
    for (size_t i = 0; i < uri.size(); ++i) {
        if (uri[i] == '%' && i + 2 < uri.size() && hex_digit(uri[i + 1]) >= 0 && hex_digit(uri[i + 2]) >= 0) {
            out += char(hex_digit(uri[i + 1]) * 16 + hex_digit(uri[i + 2]));
            i += 2;
        } else {
            out += uri[i];
        }
    }
    return out;
}

std::optional<std::string> decode_data_uri(const std::string& uri, std::vector<uint8_t>& bytes, std::string& media_type) {
    const size_t comma = uri.find(',');
    if (uri.rfind("data:", 0) != 0 || comma == std::string::npos) return "a data: URI without ','";
    const std::string_view header(uri.data() + 5, comma - 5);
    media_type = std::string(header.substr(0, header.find(';')));
    if (header.size() >= 7 && header.substr(header.size() - 7) == ";base64") {
        if (auto bad = detail::decode_base64(std::string_view(uri).substr(comma + 1), bytes))
            return fmt::format("invalid base64 at character {}", comma + 1 + *bad);
    } else {
        const std::string text = percent_decode(uri.substr(comma + 1));
        bytes.assign(text.begin(), text.end());
    }
    return std::nullopt;
}

Expected<GlbChunks> split_glb(std::span<const uint8_t> bytes, Warnings& warnings) {
    if (bytes.size() < GLB_HEADER_SIZE + GLB_CHUNK_HEADER_SIZE)
        return make_error(ErrorCode::Malformed, fmt::format("a GLB needs at least 20 bytes, the file has {}", bytes.size()), 0);
    if (u32_at(bytes, 0) != GLB_MAGIC) return make_error(ErrorCode::Malformed, "not a GLB (magic is not 'glTF')", 0);
    if (u32_at(bytes, 4) != GLB_VERSION)
        return make_error(ErrorCode::Unsupported, fmt::format("GLB version {} (only 2 is read)", u32_at(bytes, 4)), 4);
    uint64_t end = u32_at(bytes, 8);
    if (end > bytes.size())
        return make_error(ErrorCode::Malformed, fmt::format("GLB length {} exceeds the file's {} bytes", end, bytes.size()), 8);
    if (end < bytes.size()) warnings.add(WarningCode::FileSizeMismatch, fmt::format("{} bytes after the GLB's length {} ignored", bytes.size() - end, end), end);
    GlbChunks out;
    uint64_t at = GLB_HEADER_SIZE;
    for (uint32_t chunk = 0; at < end; ++chunk) {
        if (!io::range_fits(at, 1, GLB_CHUNK_HEADER_SIZE, end))
            return make_error(ErrorCode::Malformed, fmt::format("chunk {}: its 8-byte header runs past the GLB length {}", chunk, end), at);
        const uint64_t length = u32_at(bytes, at), type = u32_at(bytes, at + 4);
        const uint64_t data = at + GLB_CHUNK_HEADER_SIZE;
        if (!io::range_fits(data, 1, length, end))
            return make_error(ErrorCode::Malformed, fmt::format("chunk {}: length {} runs past the GLB length {}", chunk, length, end), at);
        const auto span = bytes.subspan(data, length);
        if (chunk == 0) {
            if (type != GLB_CHUNK_JSON) return make_error(ErrorCode::Malformed, fmt::format("the first chunk is {:#010x}, not JSON", type), at + 4);
            out.json = span;
            out.json_offset = data;
        } else if (type == GLB_CHUNK_BIN && !out.bin) {
            out.bin = span;
        } else {
            warnings.add(WarningCode::UnknownCommand, fmt::format("GLB chunk {} of type {:#010x} ignored", chunk, type), at);
        }
        at = data + length;
    }
    if (out.json.empty()) return make_error(ErrorCode::Malformed, "the GLB has no JSON chunk", GLB_HEADER_SIZE);
    return out;
}

std::optional<std::span<const uint8_t>> Reader::buffer(uint32_t which) {
    const std::string path = fmt::format("/buffers/{}", which);
    const Json* b = item("buffers", which);
    uint64_t length = 0;
    std::string uri;
    if (!b || !uint(*b, "byteLength", path, length, true) || !string(*b, "uri", path, uri)) return std::nullopt;
    // EXT_meshopt_compression's fallback buffer stands in for data that only compressed views hold.
    const Json* extensions = object(*b, "extensions", path);
    const Json* meshopt = extensions ? object(*extensions, "EXT_meshopt_compression", path + "/extensions") : nullptr;
    bool fallback = false;
    if (!ok() || (meshopt && !boolean(*meshopt, "fallback", path + "/extensions/EXT_meshopt_compression", fallback))) return std::nullopt;
    if (fallback)
        return fail(ErrorCode::Malformed, path, "an EXT_meshopt_compression fallback buffer, read by a bufferView without the extension"),
               std::nullopt;
    if (loaded_.size() < count("buffers")) loaded_.resize(count("buffers"));
    auto& slot = loaded_[which];
    std::span<const uint8_t> data;
    if (slot) {
        data = *slot;
    } else if (uri.empty() && !find(*b, "uri")) {
        if (!glb || which != 0) return fail(ErrorCode::Malformed, path, "no uri (only the first buffer of a GLB may omit it)"), std::nullopt;
        if (!glb_bin) return fail(ErrorCode::Malformed, path, "no uri, and the GLB has no BIN chunk"), std::nullopt;
        data = *glb_bin;
    } else if (uri.rfind("data:", 0) == 0) {
        std::vector<uint8_t> bytes;
        std::string media_type;
        if (auto bad = decode_data_uri(uri, bytes, media_type)) return fail(ErrorCode::Malformed, path + "/uri", *bad), std::nullopt;
        slot = std::move(bytes);
        data = *slot;
        bytes_read += data.size();
    } else {
        const std::string name = percent_decode(uri);
        if (!options.read_resource)
            return fail(ErrorCode::Unsupported, path + "/uri",
                        fmt::format("external buffer '{}': no folder to read it from (use load with a path)", detail::excerpt(name, 80))),
                   std::nullopt;
        auto bytes = options.read_resource(name);
        if (!bytes) {
            Error inner = bytes.error();
            inner.message = fmt::format("{}/uri: external buffer '{}': {}", path, detail::excerpt(name, 80), inner.to_string());
            inner.path.clear();
            if (!error) error = std::move(inner);
            return std::nullopt;
        }
        slot = std::move(*bytes);
        data = *slot;
        bytes_read += data.size();
    }
    if (data.size() < length)
        return fail(ErrorCode::Malformed, path + "/byteLength", fmt::format("{} but the data holds {} bytes", length, data.size())), std::nullopt;
    return data.first(length);
}

std::optional<std::span<const uint8_t>> Reader::buffer_view(uint32_t which, uint32_t& stride) {
    const std::string path = fmt::format("/bufferViews/{}", which);
    const Json* v = item("bufferViews", which);
    uint32_t buffer_index = 0;
    uint64_t offset = 0, length = 0, byte_stride = 0;
    if (!v || !index(*v, "buffer", path, buffer_index, true, "buffers", count("buffers")) || !uint(*v, "byteOffset", path, offset, false) ||
        !uint(*v, "byteLength", path, length, true) || !uint(*v, "byteStride", path, byte_stride, false))
        return std::nullopt;
    if (find(*v, "byteStride") && (byte_stride < 4 || byte_stride > 252 || byte_stride % 4 != 0))
        return fail(ErrorCode::Malformed, path + "/byteStride", fmt::format("{} is not a multiple of 4 in 4..252", byte_stride)), std::nullopt;
    stride = uint32_t(byte_stride);
    // A compressed view's bytes come from its extension (gltf_read_meshopt.cpp); its own buffer is a
    // fallback that may hold nothing, so only its declared length is checked, never its data.
    const Json* extensions = object(*v, "extensions", path);
    if (!ok()) return std::nullopt;
    if (const Json* meshopt = extensions ? Reader::find(*extensions, "EXT_meshopt_compression") : nullptr) {
        const Json* b = item("buffers", buffer_index);
        uint64_t declared = 0;
        if (!b || !uint(*b, "byteLength", fmt::format("/buffers/{}", buffer_index), declared, true)) return std::nullopt;
        if (!io::range_fits(offset, 1, length, declared))
            return fail(ErrorCode::Malformed, path,
                        fmt::format("byteOffset {} + byteLength {} exceeds the {}-byte buffer {}", offset, length, declared, buffer_index)),
                   std::nullopt;
        return meshopt_view(which, *meshopt, length);
    }
    auto data = buffer(buffer_index);
    if (!data) return std::nullopt;
    if (!io::range_fits(offset, 1, length, data->size()))
        return fail(ErrorCode::Malformed, path,
                    fmt::format("byteOffset {} + byteLength {} exceeds the {}-byte buffer {}", offset, length, data->size(), buffer_index)),
               std::nullopt;
    stride = uint32_t(byte_stride);
    return data->subspan(offset, length);
}

}  // namespace rigport::gltf::read_detail
