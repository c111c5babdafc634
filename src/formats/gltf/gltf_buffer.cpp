// The glTF 2.0 binary buffer builder: aligned bufferViews, accessors with min/max (glTF 2.0 §3.6).
#include "formats/gltf/gltf_buffer.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

#include "formats/gltf/gltf.hpp"

namespace rigport::gltf {

namespace {

// `bytes` low bytes of value, little-endian, at p.
void put_le(uint8_t* p, uint64_t value, uint32_t bytes) {
    for (uint32_t i = 0; i < bytes; ++i) p[i] = uint8_t(value >> (8 * i));
}

}  // namespace

const char* accessor_type(uint32_t components) {
    switch (components) {
        case 1: return "SCALAR";
        case 2: return "VEC2";
        case 3: return "VEC3";
        case 4: return "VEC4";
        case 16: return "MAT4";
    }
    return "SCALAR";
}

uint32_t component_bytes(uint32_t component_type) {
    switch (component_type) {
        case BYTE:
        case UNSIGNED_BYTE: return 1;
        case SHORT:
        case UNSIGNED_SHORT: return 2;
        default: return 4;
    }
}

void BufferBuilder::align() { bin_.resize((bin_.size() + 3) / 4 * 4, 0); }

uint32_t BufferBuilder::add_view(uint64_t offset, uint64_t length, uint32_t target, uint32_t stride) {
    BufferView v;
    v.byte_offset = offset, v.byte_length = length, v.byte_stride = stride, v.target = target;
    doc_.buffer_views.push_back(v);
    return uint32_t(doc_.buffer_views.size() - 1);
}

uint32_t BufferBuilder::view(std::span<const uint8_t> bytes, uint32_t target, uint32_t stride) {
    align();
    const uint64_t offset = bin_.size();
    bin_.insert(bin_.end(), bytes.begin(), bytes.end());
    return add_view(offset, bytes.size(), target, stride);
}

uint32_t BufferBuilder::floats(std::span<const float> values, uint32_t components, uint32_t target, bool min_max) {
    align();
    const uint64_t offset = bin_.size();
    // Grown geometrically: reserving exactly size + n on every call copies the whole buffer each
    // time, quadratic in the number of accessors (100,000 morph targets).
    if (bin_.capacity() < bin_.size() + values.size() * 4) bin_.reserve(std::max(bin_.size() + values.size() * 4, bin_.capacity() * 2));
    bin_.resize(offset + values.size() * 4);
    uint8_t* out = bin_.data() + offset;
    if (std::endian::native == std::endian::little) {
        if (!values.empty()) std::memcpy(out, values.data(), values.size() * 4);  // glTF's byte order already
    } else {
        for (float f : values) put_le(out, std::bit_cast<uint32_t>(f), 4), out += 4;
    }
    Accessor a;
    a.buffer_view = add_view(offset, values.size() * 4, target, 0);
    a.component_type = FLOAT;
    a.count = uint32_t(values.size() / components);
    a.type = accessor_type(components);
    if (min_max && a.count > 0) {
        a.min.assign(values.begin(), values.begin() + components);
        a.max = a.min;
        for (size_t i = 0; i < values.size(); ++i) {
            const size_t c = i % components;
            a.min[c] = std::min(a.min[c], values[i]);
            a.max[c] = std::max(a.max[c], values[i]);
        }
    }
    doc_.accessors.push_back(std::move(a));
    return uint32_t(doc_.accessors.size() - 1);
}

uint32_t BufferBuilder::integers(std::span<const int64_t> values, uint32_t components, uint32_t component_type,
                                 uint32_t target, bool normalized, bool min_max) {
    align();
    const uint64_t offset = bin_.size();
    const uint32_t size = component_bytes(component_type);
    const uint32_t element = size * components;
    const bool padded = target == ARRAY_BUFFER && element % 4 != 0;
    const uint32_t stride = padded ? (element + 3) / 4 * 4 : 0;
    // Sized once (padding bytes zero), then filled in place.
    const size_t elements = values.size() / components, rest = values.size() % components;
    const size_t length = padded ? elements * stride + rest * size : values.size() * size;
    if (bin_.capacity() < offset + length) bin_.reserve(std::max<size_t>(offset + length, bin_.capacity() * 2));
    bin_.resize(offset + length, 0);
    uint8_t* out = bin_.data() + offset;
    for (size_t i = 0; i < values.size(); ++i) {
        put_le(out, uint64_t(values[i]), size);
        out += size;
        if (padded && (i + 1) % components == 0) out += stride - element;
    }
    Accessor a;
    a.buffer_view = add_view(offset, bin_.size() - offset, target, stride);
    a.component_type = component_type;
    a.count = uint32_t(values.size() / components);
    a.type = accessor_type(components);
    a.normalized = normalized;
    if (min_max && a.count > 0) {
        a.min.assign(values.begin(), values.begin() + components);
        a.max = a.min;
        for (size_t i = 0; i < values.size(); ++i) {
            const size_t c = i % components;
            a.min[c] = std::min(a.min[c], float(values[i]));
            a.max[c] = std::max(a.max[c], float(values[i]));
        }
    }
    doc_.accessors.push_back(std::move(a));
    return uint32_t(doc_.accessors.size() - 1);
}

uint32_t BufferBuilder::encoded(std::span<const uint8_t> bytes, uint32_t stride, uint32_t components, uint32_t component_type,
                                bool normalized, uint32_t target, const char* filter) {
    const uint32_t element = component_bytes(component_type) * components;
    Accessor a;
    a.buffer_view = view(bytes, target, target == ARRAY_BUFFER && stride != element ? stride : 0);
    doc_.buffer_views[a.buffer_view].filter = filter;
    a.component_type = component_type;
    a.count = stride ? uint32_t(bytes.size() / stride) : 0;
    a.type = accessor_type(components);
    a.normalized = normalized;
    doc_.accessors.push_back(std::move(a));
    return uint32_t(doc_.accessors.size() - 1);
}

std::vector<uint8_t> BufferBuilder::finish() {
    align();
    doc_.buffer_length = bin_.size();
    return std::move(bin_);
}

}  // namespace rigport::gltf
