// Quake 2 MD2 (magic "IDP2", version 8): the on-disk layout, read and write (docs/md2.md).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "formats/common/quake_normals.hpp"
#include "rigport/error.hpp"
#include "rigport/io.hpp"
#include "rigport/scene.hpp"

namespace rigport::md2 {

inline constexpr uint32_t magic = 0x32504449u;  // bytes "IDP2" (VDrift JOE shares it, with version 3)
inline constexpr uint32_t version = 8;
inline constexpr uint32_t header_size = 68;      // 17 little-endian int32
inline constexpr uint32_t skin_name_size = 64;   // one skin: a NUL-padded path
inline constexpr uint32_t st_size = 4;           // int16 s, t in texels
inline constexpr uint32_t triangle_size = 12;    // uint16 vertex[3], st[3]
inline constexpr uint32_t frame_header_size = 40;  // float scale[3], translate[3], char name[16]
inline constexpr uint32_t frame_name_size = 16;
inline constexpr uint32_t vertex_size = 4;       // uint8 x, y, z, normal index

// Quake 2's own limits (qfiles.h): the engine refuses models beyond them; the writer does too.
inline constexpr uint32_t max_vertices = 2048;
inline constexpr uint32_t max_triangles = 4096;
inline constexpr uint32_t max_frames = 512;
inline constexpr uint32_t max_skins = 32;
inline constexpr uint32_t max_skin_height = 480;  // MAX_LBM_HEIGHT: Quake 2 refuses taller skins

// Quake 2 plays a model's frames at its server rate: 10 per second.
inline constexpr float frame_rate = 10.0f;

// The normal table a vertex's normal index selects: formats/common/quake_normals.hpp, shared with
// Quake 1 MDL.
inline constexpr uint32_t normal_count = detail::quake_normal_count;
inline const std::array<Vec3, normal_count>& normal_table = detail::quake_normal_table;
inline uint8_t nearest_normal(const Vec3& n) { return detail::nearest_quake_normal(n); }

// Header words in file order; the byte offset of word i is 4 * i.
enum Word : uint32_t {
    w_ident, w_version, w_skin_width, w_skin_height, w_frame_size, w_num_skins, w_num_vertices, w_num_st, w_num_tris,
    w_num_glcmds, w_num_frames, w_ofs_skins, w_ofs_st, w_ofs_tris, w_ofs_frames, w_ofs_glcmds, w_ofs_end, word_count
};

// Magic "IDP2" and version 8 in a header's room.
bool detect(std::span<const uint8_t> bytes);

// Every count and offset checked against the file's size and LoadOptions before anything is
// allocated; errors name the byte offset. Frame 0 is the mesh, later frames its morph targets,
// grouped into animations by name at 10 frames per second (LoadOptions::vertex_frame_rate
// overrides) as docs/formats.md "Vertex animation" describes. GL commands are not read.
Expected<Scene> read(std::span<const uint8_t> bytes, const LoadOptions& options);

// Every animation baked at 10 frames per second (bake_frames), each frame quantised to bytes with
// its own scale and translate; meshes merged into one; skins from the materials' diffuse maps;
// Quake 2's limits refused (Unsupported). Z up, clockwise front faces.
Expected<std::vector<uint8_t>> write(const Scene& scene, const SaveOptions& options);

}  // namespace rigport::md2
