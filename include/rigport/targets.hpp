// Engine targets (docs/targets.md): the limits of the engine a model is meant for, each with the
// engine's source or documentation it comes from, and a model checked against them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "rigport/scene.hpp"
#include "rigport/validate.hpp"

namespace rigport {

// What a limit counts. Each broken limit is a finding "target.<measure>" (target_measure_name).
enum class TargetMeasure : uint8_t {
    Influences,        // joints weighting one vertex (non-zero weights)
    Joints,            // joints of the model
    JointsPerMesh,     // joints weighting the vertices of one mesh
    Roots,             // joints without a parent
    VerticesPerMesh,   // vertices of one mesh (a surface, a submodel)
    TrianglesPerMesh,  // triangles of one mesh
    Vertices,          // vertices of the model
    Positions,         // distinct vertex positions of the model (studiomdl stores normals and UVs apart)
    Triangles,         // triangles of the model
    Meshes,            // meshes (surfaces, skins of one model)
    Frames,            // frames of the model: every animation sampled at the profile's frame rate
    JointNameBytes,    // bytes of a joint's name
    MeshNameBytes,     // bytes of a mesh's name (an MD3 surface's)
    MaterialNameBytes, // bytes of a material's name (a skin's, a shader's, a texture's)
    AnimationNameBytes,  // bytes of an animation's name (a sequence's)
};
std::string_view target_measure_name(TargetMeasure measure);

struct TargetLimit {
    TargetMeasure measure = TargetMeasure::Influences;
    uint64_t most = 0;        // the largest count the engine takes
    std::string_view source{};  // where the number comes from: the engine's file and constant, or its manual
};

struct TargetProfile {
    std::string_view name{};       // "goldsrc": what --target takes
    std::string_view engine{};     // "GoldSrc (Half-Life), through studiomdl"
    std::vector<std::string_view> formats{};  // registry names of the formats it loads, the first the default output
    std::vector<TargetLimit> limits{};
    // The name the root joint must have ("origin" for Doom 3), with its source; empty = any.
    std::string_view root_name{}, root_name_source{};
    // Every skinned vertex must be weighted (a vertex without influences stays at the origin, or
    // is refused, in these engines).
    bool weighted_vertices = false;
    // The rate the engine steps frames at (Quake's 10 per second), with its source: Frames counts
    // at it and convert --target resamples at it; 0 = each clip's own (sampling_rate).
    double frame_rate = 0;
    std::string_view frame_rate_source{};
};

// Every profile, in the order `rigport targets` lists them.
const std::vector<TargetProfile>& target_profiles();
// The profile of that name (any letter case), or null.
const TargetProfile* find_target(std::string_view name);

// Checks the scene against the profile: one Error finding per broken limit, coded
// "target.<measure>" ("target.root_name", "target.unweighted" for the rules beside the
// limits), its message naming the worst part, its count and the limit with its source.
ValidationReport check_target(const Scene& scene, const TargetProfile& profile, const std::string& path = {});

}  // namespace rigport
