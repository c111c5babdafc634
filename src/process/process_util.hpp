// Small helpers shared by the process steps: double-precision 3-vectors and hashing of exact values.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <cstddef>

#include "rigport/scene.hpp"

namespace rigport::detail {

struct D3 {
    double x = 0, y = 0, z = 0;
};
inline D3 operator+(D3 a, D3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
inline D3 operator-(D3 a, D3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
inline D3 operator*(D3 a, double s) { return {a.x * s, a.y * s, a.z * s}; }
inline double dot(D3 a, D3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
inline D3 cross(D3 a, D3 b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
inline D3 d3(const Vec3& v) { return {v[0], v[1], v[2]}; }
inline D3 normalized_or_zero(D3 v) {
    double len = std::sqrt(dot(v, v));
    return len > 0 && std::isfinite(len) ? v * (1 / len) : D3{};
}

// splitmix64 finalizer over a running hash.
inline uint64_t mix(uint64_t h, uint64_t v) {
    h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    h ^= h >> 30;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 27;
    h *= 0x94D049BB133111EBull;
    return h ^ (h >> 31);
}

// The bits of a float with -0 folded into +0, so values that compare equal hash equal.
inline uint32_t float_bits(float f) {
    f += 0.0f;
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
}

// Slots for an open-addressing table with linear probing, at most half full (power of two):
// one flat array instead of a node per entry, which made hashing the slowest part of a compile.
inline size_t table_size(size_t entries) {
    size_t n = 16;
    while (n < entries * 2) n *= 2;
    return n;
}

}  // namespace rigport::detail
