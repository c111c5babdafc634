// The binary buffer of a glTF 2.0 document: 4-byte aligned bufferViews and their accessors.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "formats/gltf/gltf_document.hpp"

namespace rigport::gltf {

const char* accessor_type(uint32_t components);  // 1 SCALAR ... 4 VEC4, 16 MAT4
uint32_t component_bytes(uint32_t component_type);

// Appends data little-endian, one bufferView per accessor, each starting 4-aligned (glTF 2.0
// §3.6.2.4: vertex attribute elements start on 4-byte boundaries).
class BufferBuilder {
public:
    explicit BufferBuilder(Document& doc) : doc_(doc) {}

    // A bufferView over raw bytes (e.g. an image), appended 4-aligned.
    uint32_t view(std::span<const uint8_t> bytes, uint32_t target = 0, uint32_t stride = 0);
    // A FLOAT accessor of values.size() / components elements, with min/max of the float values
    // when asked (POSITION, animation input and morph POSITION need them).
    uint32_t floats(std::span<const float> values, uint32_t components, uint32_t target, bool min_max);
    // An integer accessor (BYTE .. UNSIGNED_INT); each value must fit component_type. Vertex data
    // whose element is not a multiple of 4 bytes gets a byteStride padded to 4.
    // `normalized` marks the accessor so (glTF 2.0 §3.6.2.3); `min_max` writes the integers' min and
    // max (a quantised POSITION needs them).
    uint32_t integers(std::span<const int64_t> values, uint32_t components, uint32_t component_type, uint32_t target,
                      bool normalized = false, bool min_max = false);
    // An accessor over bytes already in their final form, `stride` bytes per element (a meshopt
    // filter's output, decoded by the reader before use); the view records the filter's name.
    uint32_t encoded(std::span<const uint8_t> bytes, uint32_t stride, uint32_t components, uint32_t component_type,
                     bool normalized, uint32_t target, const char* filter);

    uint64_t size() const { return bin_.size(); }
    // Room for about `bytes` of data up front: the buffer then grows without copies (a guess
    // too large costs untouched address space only).
    void reserve(uint64_t bytes) { bin_.reserve(bytes); }
    // The buffer padded with zeros to a multiple of 4; sets doc.buffer_length.
    std::vector<uint8_t> finish();

private:
    uint32_t add_view(uint64_t offset, uint64_t length, uint32_t target, uint32_t stride);
    void align();

    Document& doc_;
    std::vector<uint8_t> bin_;
};

}  // namespace rigport::gltf
