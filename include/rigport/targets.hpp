// Engine targets (docs/targets.md): the limits of the engine a model is meant for, each with the
// engine's source or documentation it comes from, and a model checked against them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "rigport/io.hpp"
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

// What an engine takes as a model's texture image (docs/targets.md "Textures"), each with its
// source. The diffuse texture of each material a mesh uses is measured: the image the scene holds,
// or the file found beside the model or under the texture paths.
struct TargetTextures {
    // The image types it loads ("tga", "bmp" ...: the names of src/formats/images), the first the
    // one convert --target writes; empty = not checked (the skin is inside the model, or any type).
    std::vector<std::string_view> types{};
    std::string_view types_source{};
    bool power_of_two = false;  // both sides powers of two
    std::string_view power_of_two_source{};
    uint32_t most_width = 0, most_height = 0;  // the largest side; 0 = any
    std::string_view size_source{};
    // Texels of the stored image, its width rounded up to a multiple of 4 as studiomdl stores a
    // skin (GetSkinWidth); 0 = any.
    uint64_t most_texels = 0;
    std::string_view texels_source{};
    bool palette = false;  // 8-bit palette indices with the file's own palette of at most 256 colours
    std::string_view palette_source{};
    bool any() const { return !types.empty() || power_of_two || most_width || most_height || most_texels || palette; }
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
    TargetTextures textures{};
    // The characters the engine's tools take in names (docs/targets.md "Units, axes and names"),
    // with the source. Any: every byte; NoQuotes: no '"' and no control characters (bytes 0-31 and
    // 127), which end or break the quoted names of MD5 and of studiomdl's SMD and QC; Identifier:
    // letters, digits and '_' only (names a QuakeC $frame line or a C header turns into symbols).
    enum class NameCharacters : uint8_t { Any, NoQuotes, Identifier };
    NameCharacters name_characters = NameCharacters::Any;
    bool only_animation_names = false;  // the rule is for animation names only (the others are not stored)
    std::string_view name_characters_source{};
    // The engine's unit of length in metres, with its source; 0 = the output format's own (glTF:
    // metres), or an importer that converts (Unity, Unreal). convert --target scales a model whose
    // source format states its unit (FormatInfo::states_unit) to it, unless --unit is given.
    double metres_per_unit = 0;
    std::string_view unit_source{};
    // Its models face +X, Z up (id's and Valve's engines: yaw 0 looks along +X), with the source.
    // convert --target turns a model whose format says it faces +Z (glTF) a quarter turn about
    // its up axis to face +X.
    bool faces_plus_x = false;
    std::string_view facing_source{};
};

// Every profile, in the order `rigport targets` lists them.
const std::vector<TargetProfile>& target_profiles();
// The profile of that name (any letter case), or null.
const TargetProfile* find_target(std::string_view name);

// Checks the scene against the profile: one Error finding per broken limit, coded
// "target.<measure>" ("target.root_name", "target.unweighted", "target.name_characters" for the
// rules beside the limits), its message naming the worst part, its count and the limit with its source.
// The texture limits ("target.texture_type", "target.texture_palette", "target.texture_power_of_two",
// "target.texture_size") are measured on the images the scene holds and on `textures`: the files
// found for the maps' uris (resolve_images with ImageOptions::Mode::Embed and any_type). A texture
// with neither is not measured.
ValidationReport check_target(const Scene& scene, const TargetProfile& profile, const std::string& path = {},
                              const std::vector<GltfImage>& textures = {});

// The texture files the scene's materials name, found and read as convert finds them (docs/cli.md
// "Textures"): beside model_path, then under texture_paths, confined to those folders unless
// allow_outside. A texture that is not found gets a TextureNotFound warning and no bytes; an
// error when one cannot be read. What check_target takes as `textures`.
Expected<std::vector<GltfImage>> find_target_textures(const Scene& scene, const std::string& model_path,
                                                      const std::vector<std::string>& texture_paths, bool allow_outside,
                                                      Warnings& warnings);

}  // namespace rigport
