// Cal3D mesh writers' shared step: scene meshes checked and laid out as SUBMESH records of one
// dialect (docs/cal3d.md §2.3, §3.5, §4.6, §4.7, §9 rules 4 and 10).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "formats/cal3d/cal3d_write.hpp"

namespace rigport::cal3d {

// One blend vertex as the dialect stores it: IMVU absolute (base + delta), trunk delta.
struct BlendVertexOut {
    int32_t id = 0;
    Vec3 position{0, 0, 0};
    Vec3 normal{0, 0, 0};
    float position_diff = 0;  // |delta|, IMVU XML's POSDIFF
};
struct MorphOut {
    std::string name;
    std::vector<BlendVertexOut> vertices;  // ascending ids, only non-zero deltas
};
// A scene mesh as one SUBMESH of the target dialect: what the dialect can hold, checked.
struct SubmeshOut {
    const Mesh* mesh = nullptr;
    int32_t material = -1;
    std::vector<int32_t> bones;   // per influence of mesh->skin: the Cal3D bone id
    bool colors = false;          // COLOR per vertex (IMVU always; 1301 XML when the mesh has colours)
    std::vector<Vec3> color;      // per vertex, 0..1 (white when the mesh has none)
    std::vector<Vec3> normals;    // per vertex (0 0 0 when the mesh has none)
    bool morphs = false;          // the dialect has morphCount / NUMMORPHS
    std::vector<MorphOut> targets;
    bool lod = false;             // some vertex has collapse data
    std::vector<float> physique;  // per vertex when there are springs
};

// Checks the listed meshes against the dialect's limits and lays them out; warnings (DroppedData
// for what the dialect cannot hold) go to options.warnings when it is set.
Expected<std::vector<SubmeshOut>> prepare_submeshes(const Scene& scene, const std::vector<uint32_t>& meshes, bool binary,
                                                   const SaveOptions& options);

std::vector<uint8_t> write_cmf_bytes(const std::vector<SubmeshOut>& submeshes, Dialect dialect);
std::vector<uint8_t> write_xmf_bytes(const std::vector<SubmeshOut>& submeshes, Dialect dialect);

}  // namespace rigport::cal3d
