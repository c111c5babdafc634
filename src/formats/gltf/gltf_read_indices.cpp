// glTF reader: a primitive's indices (or vertex order when it has none) checked against its vertex
// count and triangulated: TRIANGLES, TRIANGLE_STRIP and TRIANGLE_FAN (glTF 2.0 §3.7.2.1).
#include <fmt/format.h>

#include "formats/gltf/gltf.hpp"
#include "formats/gltf/gltf_read_parts.hpp"

namespace rigport::gltf::read_detail {

bool read_triangles(Reader& r, const Json& prim, const std::string& path, uint64_t vertices, uint32_t mode, std::vector<Triangle>& tris) {
    std::vector<uint32_t> indices;
    uint32_t index = none;
    if (!r.index(prim, "indices", path, index, false, "accessors", r.count("accessors"))) return false;
    if (index != none) {
        const Accessor* a = r.accessor(index);
        if (!a) return false;
        if (a->components != 1 || a->component_type == FLOAT)
            return r.malformed(path + "/indices", fmt::format("accessor {} is {} of type {}, not SCALAR integers", index, a->type, a->component_type));
        if (!r.spend(a->count, path + "/indices")) return false;
        indices.resize(a->count);
        for (uint64_t k = 0; k < a->count; ++k) {
            const double v = a->raw(k, 0);
            if (!(v >= 0 && v < double(vertices)))
                return r.malformed(path + "/indices", fmt::format("index {} at position {} is out of range ({} vertices)", v, k, vertices));
            indices[k] = uint32_t(v);
        }
    } else {
        indices.resize(vertices);  // non-indexed: vertices in order
        for (uint32_t v = 0; v < vertices; ++v) indices[v] = v;
    }
    const size_t n = indices.size();
    auto add = [&](uint32_t a, uint32_t b, uint32_t c, bool drop_degenerate) {
        if (drop_degenerate && (a == b || b == c || a == c)) return;
        tris.push_back({a, b, c});
    };
    if (mode == TRIANGLES) {
        tris.reserve(n / 3);
        for (size_t i = 0; i + 2 < n; i += 3) add(indices[i], indices[i + 1], indices[i + 2], false);
        if (n % 3) r.warn(WarningCode::DroppedData, fmt::format("{}: {} indices after the last whole triangle ignored", path, n % 3));
    } else if (mode == 5) {  // TRIANGLE_STRIP: every other triangle swaps its first two corners
        for (size_t i = 0; i + 2 < n; ++i)
            i % 2 == 0 ? add(indices[i], indices[i + 1], indices[i + 2], true) : add(indices[i + 1], indices[i], indices[i + 2], true);
    } else {  // 6 TRIANGLE_FAN around the first index
        for (size_t i = 1; i + 1 < n; ++i) add(indices[i], indices[i + 1], indices[0], true);
    }
    return true;
}

}  // namespace rigport::gltf::read_detail
