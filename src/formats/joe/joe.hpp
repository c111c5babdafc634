// VDrift JOE version 3 on-disk layout (docs/joe.md §2, VDrift model_joe03.cpp) and the file as decoded records.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "rigport/error.hpp"
#include "rigport/io.hpp"
#include "rigport/scene.hpp"
#include "rigport/formats.hpp"
#include "rigport/validate.hpp"

namespace rigport::joe {

inline constexpr uint32_t magic_idp2 = 0x32504449u;  // bytes "IDP2" (also Quake 2 MD2's magic, with version 8)
inline constexpr uint32_t joe_version = 3;
inline constexpr uint32_t md2_version = 8;
inline constexpr uint32_t header_size = 16;   // magic, version, num_faces, num_frames
inline constexpr uint32_t face_size = 18;     // u16 vertexIndex[3], normalIndex[3], textureIndex[3]
inline constexpr uint32_t counts_size = 12;   // num_verts, num_texcoords, num_normals
// VDrift's own limits (model_joe03.cpp; docs/joe.md §3, §9 rule 7).
inline constexpr uint32_t vdrift_max_faces = 32000;
inline constexpr uint32_t signed_index_max = 32767;  // readers with signed shorts (old VDrift, Stunt Rally, Blender)
inline constexpr uint32_t u16_entries = 65536;      // an index is a u16: at most this many entries per array

struct Face {
    std::array<uint16_t, 3> vertex{}, normal{}, texcoord{};
};

struct Frame {
    uint64_t offset = 0;         // where the frame's faces start
    std::vector<Face> faces;     // num_faces (header) of them
    uint64_t counts_offset = 0;  // num_verts, num_texcoords, num_normals
    uint32_t num_verts = 0, num_texcoords = 0, num_normals = 0;
    uint64_t verts_offset = 0, normals_offset = 0, texcoords_offset = 0;
    std::vector<Vec3> verts;
    std::vector<Vec3> normals;       // stored before the texcoords, although the counts list texcoords first
    std::vector<Vec2> texcoords;     // (u, v), v = 0 at the top of the image
};

struct JoeFile {
    uint32_t magic = magic_idp2, version = joe_version, num_faces = 0, num_frames = 0;
    std::vector<Frame> frames;
};

// Byte offset of face f of a frame, and of its index k of kind (0 vertex, 1 normal, 2 texcoord).
inline uint64_t face_offset(const Frame& frame, uint64_t f) { return frame.offset + f * face_size; }
inline uint64_t index_offset(const Frame& frame, uint64_t f, int kind, int k) { return face_offset(frame, f) + 6 * kind + 2 * k; }

// The byte count the size formula gives for the header's counts, walking the frames (0 when the
// bytes end before a frame's counts, or the arithmetic overflows).
uint64_t expected_size(std::span<const uint8_t> bytes);

// Version 3, magic IDP2 or 0, and the size formula matching the byte count exactly.
bool detect(std::span<const uint8_t> bytes);

// Structure: header, counts checked against the remaining bytes and LoadOptions before anything is
// allocated, indices checked against their arrays (u16, unsigned). Errors name the byte offset.
// The one tolerated breach: num_texcoords == 0 with texture indices 0 (VDrift substitutes (0,0)).
Expected<JoeFile> parse(std::span<const uint8_t> bytes, const LoadOptions& options, Warnings& warnings);

// Semantics: frame 0's corners welded on (vertex, texcoord, normal) index triples in first-seen
// order (as VDrift builds its mesh), later frames as morph targets; non-finite values replaced.
Expected<Scene> to_scene(const JoeFile& file, Warnings warnings);

Expected<Scene> read(std::span<const uint8_t> bytes, const LoadOptions& options);

// Writer: one mesh (several are merged, with a warning), magic IDP2, version 3, one frame plus one
// per morph target; Z up and counter-clockwise as VDrift expects. Refuses meshes beyond VDrift's
// limits unless options.joe.force.
Expected<std::vector<uint8_t>> write(const Scene& scene, const SaveOptions& options);

// JOE-specific validation (docs/joe.md §9 rules 5, 6) added to the report.
void validate(std::span<const uint8_t> bytes, const LoadOptions& options, ValidationReport& report);
// Each frame's stored counts (inspect_joe) as registry parts (FormatInfo::stored_parts).
Expected<std::vector<StoredPart>> stored_parts(std::span<const uint8_t> bytes);

// Faces of one frame whose CCW geometric normal (v1-v0)x(v2-v0) agrees (cos >= 0.5), disagrees
// (cos <= -0.5) or is perpendicular to the summed corner normals (also when either has no direction);
// degenerate faces (a repeated vertex index) are counted apart.
struct WindingCounts {
    uint64_t agree = 0, disagree = 0, perpendicular = 0, degenerate = 0;
};
// swap_normals: count as if VDrift's (x, -z, y) swap had been applied.
WindingCounts count_winding(const Frame& frame, bool swap_normals);

// VDrift's NeedsNormalSwap on one frame: faces with |cos(s, g)| < 0.5 where s is the sum of the
// corner normals and g = (v2-v0)x(v1-v0), skipping faces with |g|^2 or |s|^2 <= 1e-8.
uint64_t count_perpendicular(const Frame& frame);

// The JPK pack as the registry's archive row uses it (docs/joe.md §7): one member's bytes by its
// name (the last of duplicates, as VDrift reads them), and what to say when a pack is given where a
// model is expected (empty when the bytes are no pack).
Expected<std::vector<uint8_t>> jpk_read_member(std::span<const uint8_t> pack, const std::string& member);
std::string jpk_not_a_model_text(std::span<const uint8_t> pack, const std::string& path);

}  // namespace rigport::joe
