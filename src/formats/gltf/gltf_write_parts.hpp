// Internal pieces of the glTF 2.0 writer (gltf_write*.cpp, gltf_glb.cpp). Not part of the API.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "formats/gltf/gltf_buffer.hpp"
#include "formats/gltf/gltf_document.hpp"
#include "formats/gltf/gltf_quantize.hpp"
#include "rigport/io.hpp"

namespace rigport::gltf {

inline constexpr uint32_t no_index = UINT32_MAX;

// What every part reads and fills. The scene is the one written: already turned Y-up in Bake mode.
struct WriteContext {
    WriteContext(const Scene& s, const SaveOptions& o, bool is_glb) : scene(s), options(o), warnings(o.warnings), glb(is_glb) {}
    WriteContext(const WriteContext&) = delete;
    WriteContext& operator=(const WriteContext&) = delete;

    const Scene& scene;
    const SaveOptions& options;
    Warnings* warnings;
    bool glb;  // the container written: GLB, or JSON
    Document doc;
    std::vector<OutputFile> side_files;  // images the scene holds, written beside the output
    BufferBuilder buffer{doc};

    // Node plan: joint j is node j; then the axis node (Root mode) or the common root node of a
    // multi-root skeleton; then one node per written mesh.
    std::optional<uint32_t> axis_node;    // carries the axis rotation (Root mode)
    std::optional<uint32_t> joint_root;   // the common root of all joints, when there is one
    bool skinning = false;                // some mesh is skinned (a skin is written for any skeleton)
    std::vector<Transform> rest;          // the joints' rest pose, as their nodes and the skin have it
    std::vector<uint32_t> mesh_node;      // per scene mesh: its node, or no_index when skipped
    std::vector<bool> mesh_skinned;       // per scene mesh: its node carries the skin

    // Compressed output (docs/gltf.md "Compressed output"): the position grid every mesh shares,
    // and whether meshoptimizer's filters are used (--compress-level small).
    std::optional<PositionGrid> grid;
    bool filters = false;
    std::vector<std::string> notes;  // Output::notes: the grid, the keys' bounds

    void warn(WarningCode code, std::string message) {
        if (warnings) warnings->add(code, std::move(message));
    }
};

// gltf_write_skin.cpp: joint nodes, the axis / common root node, and whether meshes are skinned.
void plan_nodes(WriteContext& ctx);
// The skin with inverse bind matrices, after the meshes (buffer order, §5.3).
void write_skin(WriteContext& ctx);
// gltf_write_mesh.cpp: one glTF mesh and node per scene mesh.
Expected<Ok> write_meshes(WriteContext& ctx);
// gltf_write_weights.cpp: JOINTS_n / WEIGHTS_n of one mesh.
void write_influences(WriteContext& ctx, const Mesh& mesh, const std::string& where, Attributes& attributes);
// gltf_write_anim.cpp: one glTF animation per scene animation.
Expected<Ok> write_animations(WriteContext& ctx);
// gltf_write_material.cpp: materials, images (embedded last in the buffer) and textures.
void write_materials(WriteContext& ctx);
// gltf_write_pack.cpp: every bufferView but images' encoded with EXT_meshopt_compression into a
// new buffer 0, the views moved to the fallback buffer 1 (docs/gltf.md "Compressed output").
std::vector<uint8_t> pack_buffer_views(Document& doc, std::vector<uint8_t> bin);
// RFC 3986 percent-encoding of a relative path (backslashes become '/').
std::string encode_uri(const std::string& path);

// gltf_glb.cpp
std::vector<uint8_t> make_glb(const std::string& json, std::vector<uint8_t> bin);  // reuses bin's memory
std::string base64(std::span<const uint8_t> bytes);

}  // namespace rigport::gltf
