// The GLB container (glTF 2.0 §4.4: header, JSON chunk padded with spaces, BIN chunk padded with
// zeros and omitted when empty) and base64 (RFC 4648) for data: URIs.
#include <algorithm>

#include "formats/gltf/gltf.hpp"
#include "formats/gltf/gltf_write_parts.hpp"

namespace rigport::gltf {

namespace {

uint32_t padded(size_t n) { return uint32_t((n + 3) / 4 * 4); }

}  // namespace

bool detect(std::span<const uint8_t> bytes) {
    if (bytes.size() < GLB_HEADER_SIZE) return false;
    auto u32 = [&](size_t at) { return uint32_t(bytes[at]) | uint32_t(bytes[at + 1]) << 8 | uint32_t(bytes[at + 2]) << 16 | uint32_t(bytes[at + 3]) << 24; };
    return u32(0) == GLB_MAGIC && u32(4) == GLB_VERSION;
}

// Built in the BIN buffer itself when it has room: the chunk moves up within memory already
// touched, instead of a second buffer of the whole file being allocated and filled.
std::vector<uint8_t> make_glb(const std::string& json, std::vector<uint8_t> bin) {
    const uint32_t json_length = padded(json.size()), bin_length = padded(bin.size());
    const bool has_bin = !bin.empty();
    const uint32_t front = GLB_HEADER_SIZE + GLB_CHUNK_HEADER_SIZE + json_length + (has_bin ? GLB_CHUNK_HEADER_SIZE : 0);
    const uint32_t total = front + (has_bin ? bin_length : 0);
    std::vector<uint8_t> out = std::move(bin);
    out.resize(has_bin ? bin_length : 0, 0);
    out.insert(out.begin(), front, 0);
    uint8_t* p = out.data();
    auto put_u32 = [&p](uint32_t v) {
        for (int i = 0; i < 4; ++i) *p++ = uint8_t(v >> (8 * i));
    };
    put_u32(GLB_MAGIC);
    put_u32(GLB_VERSION);
    put_u32(total);
    put_u32(json_length);
    put_u32(GLB_CHUNK_JSON);
    p = std::copy(json.begin(), json.end(), p);
    p = std::fill_n(p, json_length - json.size(), uint8_t(' '));
    if (has_bin) {
        put_u32(bin_length);
        put_u32(GLB_CHUNK_BIN);
    }
    return out;
}

std::string base64(std::span<const uint8_t> bytes) {
    static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    for (size_t i = 0; i < bytes.size(); i += 3) {
        const size_t n = std::min<size_t>(3, bytes.size() - i);
        uint32_t v = uint32_t(bytes[i]) << 16;
        if (n > 1) v |= uint32_t(bytes[i + 1]) << 8;
        if (n > 2) v |= bytes[i + 2];
        out += digits[(v >> 18) & 63];
        out += digits[(v >> 12) & 63];
        out += n > 1 ? digits[(v >> 6) & 63] : '=';
        out += n > 2 ? digits[v & 63] : '=';
    }
    return out;
}

}  // namespace rigport::gltf
