// Quake 3 MD3 (magic IDP3, version 15): the on-disk layout, its limits, and the format's face
// (docs/md3.md).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "rigport/error.hpp"
#include "rigport/io.hpp"
#include "rigport/scene.hpp"

namespace rigport::md3 {

inline constexpr uint32_t magic_idp3 = 0x33504449u;  // bytes "IDP3"
inline constexpr uint32_t md3_version = 15;

// Record sizes in bytes (docs/md3.md "Layout").
inline constexpr uint32_t header_size = 108;     // ident, version, name[64], flags, 4 counts, 4 offsets
inline constexpr uint32_t frame_size = 56;       // bounds min, max, local_origin, radius, name[16]
inline constexpr uint32_t tag_size = 112;        // name[64], origin, axis[3]
inline constexpr uint32_t surface_size = 108;    // ident, name[64], flags, 4 counts, 5 offsets
inline constexpr uint32_t shader_size = 68;      // name[64], shader_index
inline constexpr uint32_t triangle_size = 12;    // int32 indexes[3]
inline constexpr uint32_t st_size = 8;           // float s, t
inline constexpr uint32_t xyz_normal_size = 8;   // int16 x, y, z, uint16 normal
inline constexpr uint32_t path_chars = 64;       // model, surface, shader and tag names, NUL included
inline constexpr uint32_t frame_name_chars = 16;

// Quake 3's own limits (qfiles.h): a writer refuses more, a reader takes what the file holds.
inline constexpr uint32_t max_frames = 1024;
inline constexpr uint32_t max_tags = 16;
inline constexpr uint32_t max_surfaces = 32;
inline constexpr uint32_t max_shaders = 256;
inline constexpr uint32_t max_verts = 4096;
inline constexpr uint32_t max_triangles = 8192;

// Positions are int16 in 1/64 unit.
inline constexpr double xyz_scale = 1.0 / 64.0;

// The frame rate a file is read at when LoadOptions::vertex_frame_rate is 0 (MD3 stores none).
inline constexpr float default_frame_rate = 15.0f;

// Normals as two bytes (docs/md3.md "Normals"): the high byte turns about Z (a full turn in 256
// steps), the low byte is the angle from +Z (a full turn in 256 steps, so 0..128 covers 0..pi).
Vec3 decode_normal(uint16_t packed);
// The code whose decoded direction is nearest `n` (n need not be unit length; zero gives +Z).
uint16_t encode_normal(const Vec3& n);

// Magic IDP3 and version 15.
bool detect(std::span<const uint8_t> bytes);

// Every count and offset checked against the file size and LoadOptions before anything is
// allocated; errors name the byte offset. Frame 0 is the mesh, later frames morph targets; tags
// are joints (docs/md3.md "Reading").
Expected<Scene> read(std::span<const uint8_t> bytes, const LoadOptions& options);

// bake_frames, one surface per material, SaveOptions::md3.tags as tags; Quake 3's limits refused
// (docs/md3.md "Writing"). The header's name is the file name of path.
Expected<Output> write(const Scene& scene, const std::string& path, const SaveOptions& options);

}  // namespace rigport::md3
