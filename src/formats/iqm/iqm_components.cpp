// IQM vertex components: decoding stored numbers and the reference compiler's normalization
// (docs/iqm.md §1.5: unsigned floor(0.5 + v(2^n-1)); signed x = v(2^n-1)/2 then floor/ceil(x-1)).
#include <cmath>
#include <cstring>

#include "formats/iqm/iqm.hpp"

namespace rigport::iqm {

float half_to_float(uint16_t h) {
    const uint32_t sign = uint32_t(h & 0x8000) << 16;
    const uint32_t exponent = (h >> 10) & 0x1F;
    const uint32_t mantissa = h & 0x3FF;
    float f;
    if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24
        f = std::ldexp(static_cast<float>(mantissa), -24);
        return sign ? -f : f;
    }
    uint32_t bits = exponent == 31 ? sign | 0x7F800000u | (mantissa << 13)  // inf / nan
                                   : sign | ((exponent + 112) << 23) | (mantissa << 13);
    std::memcpy(&f, &bits, 4);
    return f;
}

// Truncates the mantissa as the compiler does; overflow and NaN become infinity.
uint16_t float_to_half(float f) {
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
    const int32_t exponent = static_cast<int32_t>((bits >> 23) & 0xFF) - 127 + 15;
    const uint32_t mantissa = bits & 0x7FFFFF;
    if (((bits >> 23) & 0xFF) == 0xFF || exponent >= 31) return sign | 0x7C00;
    if (exponent <= 0) {  // subnormal half or zero
        if (exponent < -10) return sign;
        const uint32_t m = mantissa | 0x800000;
        return static_cast<uint16_t>(sign | (m >> (14 - exponent)));
    }
    return static_cast<uint16_t>(sign | (exponent << 10) | (mantissa >> 13));
}

double decode_component(std::span<const uint8_t> b, ComponentType type) {
    uint64_t v = 0;
    for (size_t i = 0; i < b.size() && i < 8; ++i) v |= uint64_t(b[i]) << (8 * i);
    switch (type) {
        case ComponentType::Int8: return static_cast<int8_t>(v);
        case ComponentType::UInt8: return static_cast<uint8_t>(v);
        case ComponentType::Int16: return static_cast<int16_t>(v);
        case ComponentType::UInt16: return static_cast<uint16_t>(v);
        case ComponentType::Int32: return static_cast<int32_t>(v);
        case ComponentType::UInt32: return static_cast<uint32_t>(v);
        case ComponentType::Half: return half_to_float(static_cast<uint16_t>(v));
        case ComponentType::Float32: {
            uint32_t u = static_cast<uint32_t>(v);
            float f;
            std::memcpy(&f, &u, 4);
            return f;
        }
        case ComponentType::Float64: {
            double d;
            std::memcpy(&d, &v, 8);
            return d;
        }
    }
    return 0.0;
}

namespace {

struct IntRange {
    double lo, hi;
};

IntRange int_range(ComponentType type) {
    switch (type) {
        case ComponentType::Int8: return {-128.0, 127.0};
        case ComponentType::UInt8: return {0.0, 255.0};
        case ComponentType::Int16: return {-32768.0, 32767.0};
        case ComponentType::UInt16: return {0.0, 65535.0};
        case ComponentType::Int32: return {-2147483648.0, 2147483647.0};
        case ComponentType::UInt32: return {0.0, 4294967295.0};
        default: return {0.0, 0.0};
    }
}

bool is_integer(ComponentType type) { return static_cast<unsigned>(type) <= static_cast<unsigned>(ComponentType::UInt32); }
bool is_signed(ComponentType type) {
    return type == ComponentType::Int8 || type == ComponentType::Int16 || type == ComponentType::Int32;
}

}  // namespace

namespace {

// The stored bits of one raw number in the component type (integers rounded and clamped).
uint64_t component_bits(double raw, ComponentType type) {
    if (is_integer(type)) {
        const IntRange r = int_range(type);
        double v = std::isnan(raw) ? 0.0 : std::nearbyint(raw);
        v = v < r.lo ? r.lo : v > r.hi ? r.hi : v;
        return static_cast<uint64_t>(static_cast<int64_t>(v));
    }
    if (type == ComponentType::Half) return float_to_half(static_cast<float>(raw));
    if (type == ComponentType::Float32) {
        float f = static_cast<float>(raw);
        uint32_t u;
        std::memcpy(&u, &f, 4);
        return u;
    }
    uint64_t bits;
    std::memcpy(&bits, &raw, 8);
    return bits;
}

}  // namespace

void encode_component(double raw, ComponentType type, std::vector<uint8_t>& out) {
    encode_components(&raw, 1, type, out);
}

namespace {

template <uint32_t Size>
void encode_sized(const double* raw, size_t count, ComponentType type, uint8_t* out) {
    for (size_t i = 0; i < count; ++i) {
        const uint64_t bits = component_bits(raw[i], type);
        for (uint32_t b = 0; b < Size; ++b) out[i * Size + b] = static_cast<uint8_t>(bits >> (8 * b));
    }
}

}  // namespace

void encode_components(const double* raw, size_t count, ComponentType type, std::vector<uint8_t>& out) {
    const uint32_t size = component_size(type);
    const size_t at = out.size();
    out.resize(at + count * size);  // one allocation, not one push_back per byte
    uint8_t* p = out.data() + at;
    switch (size) {  // the byte count known at compile time: the inner loop becomes a store
        case 1: return encode_sized<1>(raw, count, type, p);
        case 2: return encode_sized<2>(raw, count, type, p);
        case 4: return encode_sized<4>(raw, count, type, p);
        default: return encode_sized<8>(raw, count, type, p);
    }
}

double normalize_component(double raw, ComponentType type) {
    if (!is_integer(type)) return raw;
    const IntRange r = int_range(type);
    const double full = r.hi - r.lo;  // 2^n - 1
    // Signed values decode as (2c+1)/(2^n-1), the exact inverse of the compiler's encoding.
    return is_signed(type) ? (2.0 * raw + 1.0) / full : raw / full;
}

double denormalize_component(double value, ComponentType type) {
    if (!is_integer(type)) return value;
    const IntRange r = int_range(type);
    const double full = r.hi - r.lo;
    if (std::isnan(value)) return 0.0;
    double c;
    if (is_signed(type)) {
        const double x = value * full / 2.0;
        c = x < 0 ? std::ceil(x - 1.0) : std::floor(x);
    } else {
        c = std::floor(0.5 + value * full);
    }
    return std::fmin(std::fmax(c, r.lo), r.hi);
}

}  // namespace rigport::iqm
