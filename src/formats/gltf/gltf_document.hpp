// The glTF 2.0 document the writer builds before serializing it (names from the glTF 2.0 spec).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rigport/scene.hpp"

namespace rigport::gltf {

// EXT_meshopt_compression on a bufferView: where its encoded bytes are in buffer 0 and how they
// decode; the view itself then lies in the fallback buffer (docs/gltf.md "Compressed output").
struct MeshoptView {
    const char* mode = nullptr;    // "ATTRIBUTES", "TRIANGLES" or "INDICES"; null = not compressed
    const char* filter = nullptr;  // "OCTAHEDRAL", "QUATERNION", "EXPONENTIAL"; null = NONE
    uint64_t byte_offset = 0, byte_length = 0;
    uint32_t byte_stride = 0, count = 0;
};

struct BufferView {
    uint64_t byte_offset = 0;
    uint64_t byte_length = 0;
    uint32_t byte_stride = 0;  // 0 = tightly packed (not written)
    uint32_t target = 0;       // 0 = none (animation data, matrices, images)
    uint32_t buffer = 0;
    const char* filter = nullptr;  // the meshopt filter its bytes were written with (set by the writer)
    MeshoptView meshopt;           // set by the packing pass (gltf_write_pack.cpp)
};

struct Accessor {
    uint32_t buffer_view = 0;
    uint64_t byte_offset = 0;  // within the view: several accessors share one (compressed output)
    uint32_t component_type = 0;
    uint32_t count = 0;
    const char* type = "SCALAR";  // SCALAR, VEC2, VEC3, VEC4, MAT4
    bool normalized = false;
    std::vector<float> min, max;  // empty = not written
};

using Attributes = std::vector<std::pair<std::string, uint32_t>>;  // semantic -> accessor, in write order

struct Primitive {
    Attributes attributes;
    std::optional<uint32_t> indices;
    std::optional<uint32_t> material;
    uint32_t mode = 4;
    std::vector<Attributes> targets;
};

struct MeshDoc {
    std::string name;
    Primitive primitive;
    std::vector<float> weights;             // default morph weights
    std::vector<std::string> target_names;  // mesh.extras.targetNames
};

struct Node {
    std::string name;
    std::optional<Vec3> translation;
    std::optional<Quat> rotation;
    std::optional<Vec3> scale;
    std::vector<uint32_t> children;
    std::optional<uint32_t> mesh, skin;
};

struct Skin {
    uint32_t inverse_bind_matrices = 0;
    std::vector<uint32_t> joints;
    std::optional<uint32_t> skeleton;
};

struct AnimationSampler {
    uint32_t input = 0, output = 0;
    const char* interpolation = "LINEAR";
};

struct AnimationChannel {
    uint32_t sampler = 0;
    uint32_t node = 0;
    const char* path = "translation";
};

struct AnimationDoc {
    std::string name;
    std::vector<AnimationSampler> samplers;
    std::vector<AnimationChannel> channels;
    bool loop = false;
    float frame_rate = 0.0f;  // 0 = not written
};

// A map kept only in material.extras (glTF core has no slot for its type).
struct ExtraMap {
    std::string type, uri, type_name;
};

struct MaterialDoc {
    std::string name;
    std::optional<Vec4> base_color_factor;
    std::optional<uint32_t> base_color_texture, normal_texture, emissive_texture;  // texture = image index
    std::optional<Vec3> emissive_factor;
    std::vector<ExtraMap> extra_maps;
};

struct Image {
    std::string name;
    std::string uri;  // encoded, or empty with buffer_view set
    std::optional<uint32_t> buffer_view;
    std::string mime_type;
};

struct Document {
    std::string comment;  // asset.extras.comment
    std::vector<uint32_t> scene_nodes;
    std::vector<Node> nodes;
    std::vector<MeshDoc> meshes;
    std::vector<Skin> skins;
    std::vector<AnimationDoc> animations;
    std::vector<MaterialDoc> materials;
    std::vector<Image> images;  // texture i uses image i (one sampler-less texture each)
    std::vector<Accessor> accessors;
    std::vector<BufferView> buffer_views;
    uint64_t buffer_length = 0;  // 0 = no buffer
    std::string buffer_uri;      // empty = GLB's BIN chunk
    uint64_t fallback_length = 0;  // EXT_meshopt_compression's fallback buffer (no data); 0 = none
    std::vector<std::string> extensions_used, extensions_required;
};

// The JSON text; false in the second member when a non-finite float slipped through.
std::pair<std::string, bool> to_json(const Document& doc);

}  // namespace rigport::gltf
