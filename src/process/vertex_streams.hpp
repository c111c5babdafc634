// Rebuilding every per-vertex stream of a mesh from a list of source vertices (shared by the
// weld, optimize and smooth_normals steps so no stream is ever forgotten by one of them).
#pragma once

#include <cstdint>
#include <type_traits>
#include <vector>

#include "rigport/scene.hpp"

namespace rigport::detail {

// The mesh's new vertex i is its old vertex source[i] (indices may repeat or be left out):
// positions, normals, tangents, texcoords, colors, skin influences (offsets rebuilt), custom
// arrays, morph target deltas, lod and spring weights. Triangles and springs index vertices and
// are left to the caller, which alone knows how old indices map to new ones.
inline void gather_vertices(Mesh& mesh, const std::vector<uint32_t>& source) {
    auto gather = [&](auto& stream) {
        if (stream.empty()) return;
        std::remove_reference_t<decltype(stream)> out;
        out.reserve(source.size());
        for (uint32_t v : source) out.push_back(stream[v]);
        stream = std::move(out);
    };
    gather(mesh.positions);
    gather(mesh.normals);
    gather(mesh.tangents);
    for (auto& set : mesh.texcoords) gather(set);
    for (auto& set : mesh.colors) gather(set);
    gather(mesh.lod);
    gather(mesh.spring_weights);
    for (auto& target : mesh.morph_targets) {
        gather(target.position_deltas);
        gather(target.normal_deltas);
        gather(target.tangent_deltas);
    }
    for (auto& array : mesh.custom) {
        std::vector<double> out;
        out.reserve(source.size() * array.size);
        for (uint32_t v : source)
            out.insert(out.end(), array.values.begin() + size_t(v) * array.size,
                       array.values.begin() + size_t(v + 1) * array.size);
        array.values = std::move(out);
    }
    if (!mesh.skin.empty()) {
        SkinInfluences out;
        out.offsets.reserve(source.size() + 1);
        out.offsets.push_back(0);
        for (uint32_t v : source) {
            const SkinInfluences& s = mesh.skin;
            out.influences.insert(out.influences.end(), s.influences.begin() + s.offsets[v],
                                  s.influences.begin() + s.offsets[v + 1]);
            out.offsets.push_back(uint32_t(out.influences.size()));
        }
        mesh.skin = std::move(out);
    }
}

// Springs name two vertices each; after a remap (old index -> new index) they follow them.
inline void remap_springs(Mesh& mesh, const std::vector<uint32_t>& remap) {
    for (auto& s : mesh.springs) {
        s.vertex0 = remap[s.vertex0];
        s.vertex1 = remap[s.vertex1];
    }
}

}  // namespace rigport::detail
