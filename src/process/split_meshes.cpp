// Splitting meshes by vertex, triangle and joint counts (docs/targets.md "Fixing").
#include "process/split_meshes.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "process/vertex_streams.hpp"

namespace rigport::detail {

namespace {

// Triangle ranges [first, end) of one mesh, each within the limits.
std::vector<std::pair<size_t, size_t>> part_ranges(const Mesh& mesh, size_t joint_count, const SplitLimits& limits) {
    std::vector<std::pair<size_t, size_t>> parts;
    // Stamps: a vertex or joint belongs to the current part when its stamp is the part's number.
    std::vector<uint32_t> vertex_stamp(mesh.vertex_count(), 0), joint_stamp(joint_count, 0);
    uint32_t part = 1;
    uint64_t vertices = 0, joints = 0;
    size_t first = 0;
    const bool skinned = !mesh.skin.empty() && limits.joints;
    auto new_joints = [&](const Triangle& t, std::vector<uint32_t>& out) {
        out.clear();
        if (!skinned) return;
        for (uint32_t v : t) {
            if (vertex_stamp[v] == part) continue;
            for (const Influence* in = mesh.skin.begin(v); in != mesh.skin.begin(v) + mesh.skin.count(v); ++in)
                if (in->weight != 0 && in->joint < joint_count && joint_stamp[in->joint] != part &&
                    std::find(out.begin(), out.end(), in->joint) == out.end())
                    out.push_back(in->joint);
        }
    };
    std::vector<uint32_t> adding;
    for (size_t i = 0; i < mesh.triangles.size(); ++i) {
        const Triangle& t = mesh.triangles[i];
        uint64_t add = 0;
        for (int k = 0; k < 3; ++k) {
            bool repeated = false;
            for (int e = 0; e < k; ++e) repeated |= t[size_t(e)] == t[size_t(k)];
            add += !repeated && vertex_stamp[t[size_t(k)]] != part;
        }
        new_joints(t, adding);
        const bool over = (limits.vertices && vertices + add > limits.vertices) || (limits.triangles && i - first + 1 > limits.triangles) ||
                          (limits.joints && joints + adding.size() > limits.joints);
        if (over && i > first) {
            parts.push_back({first, i});
            first = i, ++part, vertices = 0, joints = 0;
            add = 0;
            for (int k = 0; k < 3; ++k) {
                bool repeated = false;
                for (int e = 0; e < k; ++e) repeated |= t[size_t(e)] == t[size_t(k)];
                add += !repeated;
            }
            new_joints(t, adding);
        }
        for (uint32_t v : t) vertex_stamp[v] = part;
        for (uint32_t j : adding) joint_stamp[j] = part;
        vertices += add, joints += adding.size();
    }
    parts.push_back({first, mesh.triangles.size()});
    return parts;
}

// The part of `mesh` made of triangles [first, end), with the vertices they use in the order
// they are first used.
Mesh make_part(const Mesh& mesh, size_t first, size_t end) {
    Mesh part = mesh;
    part.triangles.assign(mesh.triangles.begin() + std::ptrdiff_t(first), mesh.triangles.begin() + std::ptrdiff_t(end));
    std::vector<uint32_t> remap(mesh.vertex_count(), UINT32_MAX), source;
    for (Triangle& t : part.triangles)
        for (uint32_t& v : t) {
            if (remap[v] == UINT32_MAX) remap[v] = uint32_t(source.size()), source.push_back(v);
            v = remap[v];
        }
    gather_vertices(part, source);
    part.lod.clear(), part.springs.clear(), part.spring_weights.clear(), part.lod_steps = 0;
    return part;
}

}  // namespace

SplitResult split_meshes(Scene& scene, const SplitLimits& limits) {
    SplitResult result;
    std::vector<Mesh> meshes;
    std::vector<std::vector<uint32_t>> became(scene.meshes.size());  // old mesh -> its new indices
    for (size_t m = 0; m < scene.meshes.size(); ++m) {
        Mesh& mesh = scene.meshes[m];
        const auto parts = part_ranges(mesh, scene.skeleton.joints.size(), limits);
        if (parts.size() <= 1) {
            became[m].push_back(uint32_t(meshes.size()));
            meshes.push_back(std::move(mesh));
            continue;
        }
        ++result.meshes_split;
        result.parts_added += parts.size() - 1;
        uint64_t vertices = 0;
        for (size_t p = 0; p < parts.size(); ++p) {
            Mesh part = make_part(mesh, parts[p].first, parts[p].second);
            if (p > 0 && !part.name.empty()) part.name += "_" + std::to_string(p + 1);
            vertices += part.vertex_count();
            became[m].push_back(uint32_t(meshes.size()));
            meshes.push_back(std::move(part));
        }
        result.shared_vertices += vertices > mesh.vertex_count() ? vertices - mesh.vertex_count() : 0;
    }
    if (!result.meshes_split) {
        scene.meshes = std::move(meshes);
        return result;
    }
    scene.meshes = std::move(meshes);
    // Morph-weight tracks name a mesh: each part gets its mesh's track.
    for (Animation& a : scene.animations) {
        std::vector<MorphWeightTrack> tracks;
        for (const MorphWeightTrack& t : a.morph_tracks) {
            if (t.mesh >= became.size()) {
                tracks.push_back(t);
                continue;
            }
            for (uint32_t to : became[t.mesh]) {
                tracks.push_back(t);
                tracks.back().mesh = to;
            }
        }
        a.morph_tracks = std::move(tracks);
    }
    // Adjacency stored by the source numbers triangles over meshes in order, which parts keep;
    // bounds are per frame, not per mesh. Both stay.
    return result;
}

}  // namespace rigport::detail
