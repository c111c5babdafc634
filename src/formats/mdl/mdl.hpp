// Quake 1 MDL (magic "IDPO", version 6): the on-disk layout, read and write (docs/mdl.md).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "rigport/error.hpp"
#include "rigport/io.hpp"
#include "rigport/scene.hpp"

namespace rigport::mdl {

inline constexpr uint32_t magic = 0x4F504449u;  // bytes "IDPO" (Half-Life's .mdl is "IDST")
inline constexpr uint32_t version = 6;
inline constexpr uint32_t header_size = 84;
inline constexpr uint32_t st_size = 12;           // int32 onseam, s, t
inline constexpr uint32_t triangle_size = 16;     // int32 facesfront, vertex[3]
inline constexpr uint32_t vertex_size = 4;        // uint8 x, y, z, normal index
inline constexpr uint32_t pose_header_size = 24;  // trivertx bboxmin, bboxmax, char name[16]
inline constexpr uint32_t frame_name_size = 16;

// Header fields' byte offsets.
enum At : uint32_t {
    at_ident = 0, at_version = 4, at_scale = 8, at_translate = 20, at_radius = 32, at_eye = 36, at_num_skins = 48, at_skin_width = 52,
    at_skin_height = 56, at_num_verts = 60, at_num_tris = 64, at_num_frames = 68, at_sync_type = 72, at_flags = 76, at_size = 80
};

// GLQuake's limits (gl_model.h, model.c): the original engine refuses models beyond them; later
// engines raise the vertex limit to 2048 and more. The writer keeps to the original's.
inline constexpr uint32_t max_vertices = 1024;   // MAXALIASVERTS
inline constexpr uint32_t max_triangles = 2048;  // MAXALIASTRIS
inline constexpr uint32_t max_frames = 256;      // MAXALIASFRAMES
inline constexpr uint32_t max_skins = 32;        // MAX_SKINS
inline constexpr uint32_t max_skin_height = 480;  // MAX_LBM_HEIGHT in GLQuake (200 in the software renderer)
inline constexpr uint32_t max_skin_side = 4096;   // the reader's own bound on a skin's side

// Quake plays a model's frames at its server rate: 10 per second.
inline constexpr float frame_rate = 10.0f;

// Quake's palette (gfx/palette.lmp); mdl_palette.cpp. Indices from fullbright_first on are drawn
// unlit by the engine; the writer does not choose them.
extern const std::array<std::array<uint8_t, 3>, 256> palette;
inline constexpr uint32_t fullbright_first = 224;

// Magic "IDPO" and version 6 in a header's room.
bool detect(std::span<const uint8_t> bytes);

// Every count and offset checked against the file's size and LoadOptions before anything is
// allocated; errors name the byte offset. Skins decoded with Quake's palette into PNG images, one
// material each; vertices split where the seam rule gives a corner another s; frames (and the
// poses of group frames) as morph targets grouped into animations by name at 10 frames per second
// (LoadOptions::vertex_frame_rate overrides), as docs/formats.md "Vertex animation" describes.
Expected<Scene> read(std::span<const uint8_t> bytes, const LoadOptions& options);

// Every animation baked at 10 frames per second (bake_frames), quantised to bytes with one scale
// and translate for the whole file; meshes merged into one; the skin from the first mesh's
// material's image, quantised to Quake's palette; GLQuake's limits refused (Unsupported). Z up,
// clockwise front faces.
Expected<std::vector<uint8_t>> write(const Scene& scene, const SaveOptions& options);

}  // namespace rigport::mdl
