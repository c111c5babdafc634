// glTF 2.0 JOINTS_n / WEIGHTS_n: duplicates merged, zero weights dropped, heaviest first, FLOAT
// weights summing to 1 in float (docs/gltf.md §2.3; glTF 2.0 §3.7.3.3).
#include <fmt/format.h>

#include <algorithm>

#include "formats/gltf/gltf.hpp"
#include "formats/gltf/gltf_write_parts.hpp"

namespace rigport::gltf {

namespace {

struct Weighted {
    uint32_t joint;
    double weight;
};

// One vertex's influences: a joint listed twice gets the sum, weights <= 0 go, the rest sorted
// heaviest first (ties by joint) and normalized in double.
void merge(const Mesh& mesh, uint32_t v, std::vector<Weighted>& out) {
    out.clear();
    for (const Influence* i = mesh.skin.begin(v); i != mesh.skin.begin(v) + mesh.skin.count(v); ++i) {
        auto same = std::find_if(out.begin(), out.end(), [&](const Weighted& w) { return w.joint == i->joint; });
        if (same != out.end()) same->weight += i->weight;
        else out.push_back({i->joint, double(i->weight)});
    }
    std::erase_if(out, [](const Weighted& w) { return !(w.weight > 0); });
    std::sort(out.begin(), out.end(), [](const Weighted& a, const Weighted& b) {
        return a.weight != b.weight ? a.weight > b.weight : a.joint < b.joint;
    });
    double sum = 0;
    for (auto& w : out) sum += w.weight;
    for (auto& w : out) w.weight /= sum;
}

}  // namespace

void write_influences(WriteContext& ctx, const Mesh& mesh, const std::string& where, Attributes& attributes) {
    const uint32_t n = mesh.vertex_count();
    std::vector<uint32_t> offsets{0};
    std::vector<Weighted> all, one;
    uint32_t unweighted = 0;
    size_t widest = 1;
    for (uint32_t v = 0; v < n; ++v) {
        if (!mesh.skin.empty()) merge(mesh, v, one);
        else one.clear();
        if (one.empty()) {
            // Every glTF vertex needs weights summing to 1: follow joint 0 (a root joint).
            ++unweighted;
            one.push_back({0, 1.0});
        }
        widest = std::max(widest, one.size());
        all.insert(all.end(), one.begin(), one.end());
        offsets.push_back(uint32_t(all.size()));
    }
    if (unweighted)
        ctx.warn(WarningCode::UnweightedVertex, fmt::format("{}: {} vertices without influences are bound to joint 0", where, unweighted));

    const uint32_t sets = uint32_t((widest + 3) / 4);
    const uint32_t joint_type = ctx.scene.skeleton.joints.size() <= 256 ? UNSIGNED_BYTE : UNSIGNED_SHORT;
    std::vector<std::vector<int64_t>> joints(sets, std::vector<int64_t>(size_t(n) * 4, 0));
    if (ctx.grid) {
        // Compressed output: normalized UNSIGNED_BYTE weights summing to exactly 255 over all sets
        // (docs/gltf.md "Compressed output").
        std::vector<std::vector<int64_t>> bytes(sets, std::vector<int64_t>(size_t(n) * 4, 0));
        std::vector<double> w;
        std::vector<int64_t> q;
        for (uint32_t v = 0; v < n; ++v) {
            const uint32_t first = offsets[v], count = offsets[v + 1] - first;
            w.resize(count), q.resize(count);
            for (uint32_t k = 0; k < count; ++k) w[k] = all[first + k].weight;
            weights_to_unorm8(w, q);
            for (uint32_t k = 0; k < count; ++k) {
                joints[k / 4][size_t(v) * 4 + k % 4] = all[first + k].joint;
                bytes[k / 4][size_t(v) * 4 + k % 4] = q[k];
            }
        }
        for (uint32_t s = 0; s < sets; ++s) {
            attributes.emplace_back(fmt::format("JOINTS_{}", s), ctx.buffer.integers(joints[s], 4, joint_type, ARRAY_BUFFER));
            attributes.emplace_back(fmt::format("WEIGHTS_{}", s), ctx.buffer.integers(bytes[s], 4, UNSIGNED_BYTE, ARRAY_BUFFER, true));
        }
        return;
    }
    std::vector<std::vector<float>> weights(sets, std::vector<float>(size_t(n) * 4, 0.0f));
    for (uint32_t v = 0; v < n; ++v) {
        const uint32_t first = offsets[v], count = offsets[v + 1] - first;
        // The heaviest weight takes what the others leave, so the float sum is 1 to half an ulp.
        double rest = 0;
        for (uint32_t k = 1; k < count; ++k) rest += double(float(all[first + k].weight));
        for (uint32_t k = 0; k < count; ++k) {
            const size_t at = size_t(v) * 4 + k % 4;
            joints[k / 4][at] = all[first + k].joint;
            weights[k / 4][at] = k == 0 ? float(1.0 - rest) : float(all[first + k].weight);
        }
    }
    for (uint32_t s = 0; s < sets; ++s) {
        attributes.emplace_back(fmt::format("JOINTS_{}", s), ctx.buffer.integers(joints[s], 4, joint_type, ARRAY_BUFFER));
        attributes.emplace_back(fmt::format("WEIGHTS_{}", s), ctx.buffer.floats(weights[s], 4, ARRAY_BUFFER, false));
    }
}

}  // namespace rigport::gltf
