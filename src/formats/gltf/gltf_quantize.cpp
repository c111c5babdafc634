// Quantisation of positions, unit vectors, texture coordinates, colours and weights for
// compressed glTF output (KHR_mesh_quantization; meshoptimizer's octahedral filter; docs/gltf.md
// "Compressed output").
#include "formats/gltf/gltf_quantize.hpp"

#include <meshoptimizer.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

#include "formats/gltf/gltf.hpp"

namespace rigport::gltf {

uint32_t position_bits_for(double error_fraction) {
    // Half a step of a grid of 2^b - 1 steps over the longest side: 1 / (2 (2^b - 1)).
    for (uint32_t b = 1; b < 16; ++b)
        if (0.5 / double((1u << b) - 1) <= error_fraction) return b;
    return 16;
}

PositionGrid plan_position_grid(const Scene& scene, uint32_t bits) {
    PositionGrid g;
    g.bits = bits ? bits : position_bits_for(default_position_error);
    g.component_type = g.bits <= 8 ? UNSIGNED_BYTE : UNSIGNED_SHORT;
    std::array<double, 3> lo{HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi{-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
    for (const Mesh& m : scene.meshes)
        for (const Vec3& p : m.positions)
            for (int c = 0; c < 3; ++c) lo[c] = std::min(lo[c], double(p[c])), hi[c] = std::max(hi[c], double(p[c]));
    if (!(lo[0] <= hi[0])) return g;  // no positions
    g.origin = {float(lo[0]), float(lo[1]), float(lo[2])};
    g.longest_side = std::max({hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]});
    const double steps = double((1u << g.bits) - 1);
    // A step a little over side / steps when float rounds it down, so the largest q stays in range.
    float step = float(g.longest_side / steps);
    if (step > 0 && double(step) * steps < g.longest_side) step = std::nextafter(step, HUGE_VALF);
    g.step = step > 0 ? step : 1.0f;  // a single point (or a flat axis only) gets any step
    return g;
}

std::vector<int64_t> quantize_positions(std::span<const Vec3> positions, const PositionGrid& grid) {
    const int64_t top = (int64_t(1) << grid.bits) - 1;
    std::vector<int64_t> q;
    q.reserve(positions.size() * 3);
    for (const Vec3& p : positions)
        for (int c = 0; c < 3; ++c)
            q.push_back(std::clamp<int64_t>(std::llround((double(p[c]) - grid.origin[c]) / grid.step), 0, top));
    return q;
}

std::optional<std::vector<int64_t>> quantize_deltas(std::span<const Vec3> deltas, const PositionGrid& grid) {
    std::vector<int64_t> q;
    q.reserve(deltas.size() * 3);
    for (const Vec3& d : deltas)
        for (int c = 0; c < 3; ++c) {
            const double v = std::round(double(d[c]) / grid.step);
            if (!(std::fabs(v) <= 32767)) return std::nullopt;
            q.push_back(int64_t(v));
        }
    return q;
}

std::vector<int64_t> quantize_unit_snorm8(std::span<const Vec3> vectors) {
    std::vector<int64_t> out;
    out.reserve(vectors.size() * 3);
    for (const Vec3& v : vectors) {
        double s[3], f[3];
        for (int c = 0; c < 3; ++c) s[c] = std::clamp(double(v[c]), -1.0, 1.0) * 127, f[c] = std::floor(s[c]);
        int best[3] = {0, 0, 0};
        double best_len = HUGE_VAL, best_dir = HUGE_VAL;
        for (int mask = 0; mask < 8; ++mask) {
            int q[3];
            double len = 0, dot = 0;
            for (int c = 0; c < 3; ++c) {
                q[c] = std::clamp(int(f[c]) + ((mask >> c) & 1), -127, 127);
                len += double(q[c]) * q[c];
                dot += q[c] * double(v[c]);
            }
            len = std::sqrt(len) / 127;
            const double off = std::fabs(len - 1), dir = len > 0 ? 1 - dot / (len * 127) : 2;
            if (off < best_len - 1e-12 || (off < best_len + 1e-12 && dir < best_dir)) best_len = off, best_dir = dir, std::copy(q, q + 3, best);
        }
        out.insert(out.end(), {best[0], best[1], best[2]});
    }
    return out;
}

std::vector<uint8_t> octahedral_snorm8(std::span<const Vec4> vectors) {
    std::vector<float> data;
    data.reserve(vectors.size() * 4);
    for (const Vec4& v : vectors) data.insert(data.end(), v.begin(), v.end());
    std::vector<uint8_t> out(vectors.size() * 4);
    if (!vectors.empty()) meshopt_encodeFilterOct(out.data(), vectors.size(), 4, 8, data.data());
    return out;
}

std::vector<int64_t> quantize_unorm(std::span<const float> values, uint32_t bits) {
    const double top = double((1u << bits) - 1);
    std::vector<int64_t> out;
    out.reserve(values.size());
    for (float v : values) out.push_back(std::llround(std::clamp(double(v), 0.0, 1.0) * top));
    return out;
}

bool all_in_unit_range(std::span<const float> values) {
    return std::all_of(values.begin(), values.end(), [](float v) { return v >= 0 && v <= 1; });
}

void weights_to_unorm8(std::span<const double> weights, std::span<int64_t> out) {
    int64_t given = 0;
    std::vector<size_t> order(weights.size());
    for (size_t k = 0; k < weights.size(); ++k) {
        out[k] = int64_t(std::floor(weights[k] * 255));
        given += out[k];
        order[k] = k;
    }
    auto remainder = [&](size_t k) { return weights[k] * 255 - double(out[k]); };
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return remainder(a) > remainder(b); });
    for (size_t i = 0; given < 255 && !order.empty(); i = (i + 1) % order.size()) ++out[order[i]], ++given;
}

}  // namespace rigport::gltf
