// Cal3D (docs/cal3d.md §1-§4): magics, version families, the records readers share, and the readers.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rigport/error.hpp"
#include "rigport/io.hpp"
#include "rigport/scene.hpp"

namespace rigport::cal3d {

// §1: binary loaders accept [699, own version]; the families share the magics.
constexpr int32_t earliest_version = 699;
constexpr int32_t latest_version = 1301;
enum class Family : uint8_t { Classic, Imvu, Trunk, Unknown };
// 699-910 and 1000-1200 classic, 911-919 IMVU, 1300-1301 trunk (§9 rule 1).
Family family_of(int32_t version);
const char* dialect_name(Family family);

// Bone ids and material threads of a file read alone become placeholder joints / materials,
// so they are bounded well below max_elements (no real skeleton comes near).
constexpr int32_t max_bone_id = 65535;
constexpr int32_t max_material_thread = 65535;
// IM's "invalid translation" in CAF keys (§2.2).
constexpr float invalid_translation = 1e10f;

enum class FileType : uint8_t { Skeleton, Mesh, Animation, Material, MorphAnimation };
// "CSF\0" ... and "XSF" ...; registry names "cal3d-csf" ...
std::string_view binary_magic(FileType type);
std::string_view xml_magic(FileType type);
std::string_view format_name(FileType type, bool binary);

// Cal3D quaternions rotate by q*·v·q (§4.1): the standard quaternion is the conjugate.
inline Quat to_standard(const Quat& q_file) { return {-q_file[0], -q_file[1], -q_file[2], q_file[3]}; }

// §2.1 / §3.3, as read (rotations still in the file convention).
struct Bone {
    std::string name;
    Vec3 translation{0, 0, 0};
    Quat rotation{0, 0, 0, 1};
    Vec3 local_translation{0, 0, 0};
    Quat local_rotation{0, 0, 0, 1};
    int32_t parent = -1;
    std::vector<int32_t> children;
    uint64_t offset = 0;  // byte offset of the record, for warnings
};

// Parent-first joints with Skeleton::source_ids = bone ids, standard quaternions, the §4.2
// inverse-bind check (tolerance relative to the joint extent) and §9 rule 5 hierarchy checks.
Expected<Skeleton> build_skeleton(const std::vector<Bone>& bones, bool binary, Warnings& warnings);

// §2.3 / §3.5 morph target as stored: sparse blend vertices in the file's terms.
struct BlendVertex {
    uint32_t id = 0;
    Vec3 position{0, 0, 0};
    Vec3 normal{0, 0, 0};
};
struct Morph {
    std::string name;
    std::vector<BlendVertex> vertices;
};
// One SUBMESH: the mesh with influences still naming Cal3D bone ids, plus its morphs.
struct Submesh {
    Mesh mesh;
    int32_t material_thread = -1;
    std::vector<Morph> morphs;
};
// Read alone, a mesh or animation names bone ids and material threads it cannot resolve, so it
// gets placeholder joints (animation_only, source_ids = ids) and materials (thread i = material
// i) up to the largest id it names, up to 65,536 each. Read as a character's member the ids stay
// as given and no placeholder is made: load_cal3d_character binds them, and making and dropping
// 65,536 placeholders per member file made a .cfg of many members cost quadratic time.
enum class Ids : uint8_t { Placeholders, AsGiven };

// Submeshes -> scene meshes: morphs classified absolute / delta and stored as deltas (§4.7);
// placeholders per `ids`.
Status finish_meshes(std::vector<Submesh>& submeshes, Scene& scene, Ids ids = Ids::Placeholders);

// §2.2 / §3.4 key as read; has_translation false = use the bind translation.
struct Key {
    float time = 0;
    Vec3 translation{0, 0, 0};
    bool has_translation = true;
    Quat rotation{0, 0, 0, 1};  // file convention
};
struct Track {
    int32_t bone = 0;
    std::vector<Key> keys;
    uint64_t offset = 0;
};
// Tracks -> one Animation with a rotation and (when any key has one) translation JointTrack per
// bone; joint = bone id, on placeholder joints per `ids`.
Status finish_animation(float duration, std::vector<Track>& tracks, Scene& scene, Ids ids = Ids::Placeholders);

// §2.5 / §3.7: a morph weight track by name (IMVU) or by (mesh, submeshes, morph id) (upstream).
struct MorphTrack {
    std::string morph_name;
    int32_t mesh_id = -1, morph_id = -1;
    std::vector<int32_t> submeshes;
    std::vector<float> times, weights;
};
// One placeholder mesh per track holding one morph target named after what the track binds to
// (morph_track_name); one MorphWeightTrack per placeholder. load_cal3d_character resolves them.
void finish_morph_animation(float duration, std::vector<MorphTrack>& tracks, Scene& scene);
std::string morph_track_name(const MorphTrack& track);

// Bytes -> material colour (0..255 -> 0..1); all-zero alpha means opaque (§4.5).
void set_colors(Material& material, const uint8_t ambient[4], const uint8_t diffuse[4], const uint8_t specular[4]);
TextureType texture_type(std::string_view type_name);

void set_meta(Scene& scene, FileType type, bool binary, int32_t version);

// Detection: binary by magic + version; XML by the header or root element.
bool detect_binary(std::span<const uint8_t> bytes, FileType type);
std::optional<FileType> detect_xml(std::span<const uint8_t> bytes);

Expected<Scene> read_csf(std::span<const uint8_t> bytes, const LoadOptions& options);
Expected<Scene> read_cmf(std::span<const uint8_t> bytes, const LoadOptions& options);
Expected<Scene> read_cmf(std::span<const uint8_t> bytes, const LoadOptions& options, Ids ids);
Expected<Scene> read_caf(std::span<const uint8_t> bytes, const LoadOptions& options);
Expected<Scene> read_caf(std::span<const uint8_t> bytes, const LoadOptions& options, Ids ids);
Expected<Scene> read_crf(std::span<const uint8_t> bytes, const LoadOptions& options);
Expected<Scene> read_cpf(std::span<const uint8_t> bytes, const LoadOptions& options);
Expected<Scene> read_xsf(std::span<const uint8_t> bytes, const LoadOptions& options);
Expected<Scene> read_xmf(std::span<const uint8_t> bytes, const LoadOptions& options);
Expected<Scene> read_xmf(std::span<const uint8_t> bytes, const LoadOptions& options, Ids ids);
Expected<Scene> read_xaf(std::span<const uint8_t> bytes, const LoadOptions& options);
Expected<Scene> read_xaf(std::span<const uint8_t> bytes, const LoadOptions& options, Ids ids);
Expected<Scene> read_xrf(std::span<const uint8_t> bytes, const LoadOptions& options);
Expected<Scene> read_xpf(std::span<const uint8_t> bytes, const LoadOptions& options);

bool detect_csf(std::span<const uint8_t> bytes);
bool detect_cmf(std::span<const uint8_t> bytes);
bool detect_caf(std::span<const uint8_t> bytes);
bool detect_crf(std::span<const uint8_t> bytes);
bool detect_cpf(std::span<const uint8_t> bytes);
bool detect_xsf(std::span<const uint8_t> bytes);
bool detect_xmf(std::span<const uint8_t> bytes);
bool detect_xaf(std::span<const uint8_t> bytes);
bool detect_xrf(std::span<const uint8_t> bytes);
bool detect_xpf(std::span<const uint8_t> bytes);

}  // namespace rigport::cal3d
