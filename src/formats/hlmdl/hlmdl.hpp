// Half-Life 1 studio model ("IDST", version 10; docs/hlmdl.md): the header's tables, their record
// sizes and the reader's face. Read only.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <span>

#include "rigport/error.hpp"
#include "rigport/io.hpp"
#include "rigport/scene.hpp"

namespace rigport::hlmdl {

inline constexpr uint32_t magic_idst = 0x54534449u;  // bytes "IDST": a model or its NAMEt.mdl textures
inline constexpr uint32_t magic_idsq = 0x51534449u;  // bytes "IDSQ": a sequence group file NAME01.mdl
inline constexpr uint32_t studio_version = 10;

// Record sizes in bytes (docs/hlmdl.md "Layout").
inline constexpr uint32_t header_size = 244;
inline constexpr uint32_t seqgroup_header_size = 76;  // id, version, name[64], length
inline constexpr uint32_t bone_size = 112;
inline constexpr uint32_t bonecontroller_size = 24;
inline constexpr uint32_t hitbox_size = 32;
inline constexpr uint32_t seqdesc_size = 176;
inline constexpr uint32_t seqgroup_size = 104;
inline constexpr uint32_t texture_size = 80;
inline constexpr uint32_t bodypart_size = 76;
inline constexpr uint32_t model_size = 112;
inline constexpr uint32_t mesh_size = 20;
inline constexpr uint32_t attachment_size = 88;
inline constexpr uint32_t anim_size = 12;  // mstudioanim_t: six u16 offsets, one per channel
inline constexpr uint32_t palette_size = 256 * 3;

// Header field offsets (studiohdr_t).
inline constexpr uint32_t at_name = 8, at_length = 72, at_numbones = 140, at_numbonecontrollers = 148, at_numhitboxes = 156,
                          at_numseq = 164, at_numseqgroups = 172, at_numtextures = 180, at_texturedataindex = 188,
                          at_numskinref = 192, at_numskinfamilies = 196, at_skinindex = 200, at_numbodyparts = 204,
                          at_numattachments = 212, at_numtransitions = 236;

// Texture flags (mstudiotexture_t::flags).
inline constexpr uint32_t nf_chrome = 2, nf_additive = 32, nf_masked = 64;
// Sequence flags (mstudioseqdesc_t::flags).
inline constexpr uint32_t seq_looping = 1;

// The engine's Euler angles (radians, x y z) to a unit quaternion x y z w: R = Rz(z)·Ry(y)·Rx(x)
// (docs/hlmdl.md "Rotations").
inline std::array<double, 4> angle_quaternion(double x, double y, double z) {
    const double cx = std::cos(x / 2), sx = std::sin(x / 2), cy = std::cos(y / 2), sy = std::sin(y / 2);
    const double cz = std::cos(z / 2), sz = std::sin(z / 2);
    return {sx * cy * cz - cx * sy * sz, cx * sy * cz + sx * cy * sz, cx * cy * sz - sx * sy * cz, cx * cy * cz + sx * sy * sz};
}

// "IDST" and version 10 (a texture file NAMEt.mdl has them too).
bool detect(std::span<const uint8_t> bytes);

// What the bytes are when they are another model's side file rather than a model (docs/hlmdl.md
// "Side files"): a texture file NAMEt.mdl (IDST without bones or body parts, with textures) or a
// sequence group file NAME01.mdl (IDSQ); null for anything else (FormatInfo::side_file).
const char* side_file(std::span<const uint8_t> bytes);

// Bones, meshes (every model of every body part), textures (embedded, else from NAMEt.mdl through
// LoadOptions::read_resource) and sequences (group 0 from the file, others from NAME01.mdl ...).
// Every count and offset is checked against the bytes before use; errors name the byte offset.
Expected<Scene> read(std::span<const uint8_t> bytes, const LoadOptions& options);

// The values of one animation channel for frames [0, frame_count): the run-length list at
// `offset` (docs/hlmdl.md "Animation values") decoded as the engine reads it. Errors name the
// byte offset of the run that breaks the rules or runs past the end.
Expected<std::vector<int16_t>> decode_anim_values(std::span<const uint8_t> bytes, uint64_t offset, uint32_t frame_count);

}  // namespace rigport::hlmdl
