// IQM on-disk layout (iqm.txt v2 2011-05-31, v1 2010-04-20) and the file as decoded records.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "rigport/error.hpp"
#include "rigport/io.hpp"
#include "rigport/process.hpp"
#include "rigport/scene.hpp"
#include "rigport/validate.hpp"

namespace rigport::iqm {

inline constexpr char magic[16] = "INTERQUAKEMODEL";  // 15 characters + NUL
inline constexpr uint32_t header_size = 124;
inline constexpr uint32_t mesh_size = 24, vertexarray_size = 20, triangle_size = 12,
                          joint_size_v2 = 48, joint_size_v1 = 44, pose_size_v2 = 88, pose_size_v1 = 80,
                          anim_size = 20, bounds_size = 32, extension_size = 16;

enum VertexArrayType : uint32_t {
    IQM_POSITION = 0,
    IQM_TEXCOORD = 1,
    IQM_NORMAL = 2,
    IQM_TANGENT = 3,
    IQM_BLENDINDEXES = 4,
    IQM_BLENDWEIGHTS = 5,
    IQM_COLOR = 6,
    IQM_CUSTOM = 0x10,  // type - IQM_CUSTOM = text offset of the array's name
};
// The recommended component format and size of each standard array type (iqm.txt); readers
// need only support these, and the reference demo refuses any other.
struct RecommendedFormat {
    ComponentType format;
    uint32_t size;
};
inline constexpr RecommendedFormat recommended_format[7] = {
    {ComponentType::Float32, 3}, {ComponentType::Float32, 2}, {ComponentType::Float32, 3}, {ComponentType::Float32, 4},
    {ComponentType::UInt8, 4},   {ComponentType::UInt8, 4},   {ComponentType::UInt8, 4},
};
inline constexpr uint32_t IQM_LOOP = 1;  // anim flags bit 0
inline constexpr uint32_t max_format = 8;  // IQM_DOUBLE; formats are ComponentType values

// Header fields in file order after the magic (all uint32).
struct Header {
    uint32_t version = 2, filesize = 0, flags = 0;
    uint32_t num_text = 0, ofs_text = 0;
    uint32_t num_meshes = 0, ofs_meshes = 0;
    uint32_t num_vertexarrays = 0, num_vertexes = 0, ofs_vertexarrays = 0;
    uint32_t num_triangles = 0, ofs_triangles = 0, ofs_adjacency = 0;
    uint32_t num_joints = 0, ofs_joints = 0;
    uint32_t num_poses = 0, ofs_poses = 0;
    uint32_t num_anims = 0, ofs_anims = 0;
    uint32_t num_frames = 0, num_framechannels = 0, ofs_frames = 0, ofs_bounds = 0;
    uint32_t num_comment = 0, ofs_comment = 0;
    uint32_t num_extensions = 0, ofs_extensions = 0;
};

struct MeshRecord {
    uint32_t name = 0, material = 0;
    uint32_t first_vertex = 0, num_vertexes = 0;
    uint32_t first_triangle = 0, num_triangles = 0;
};

struct VertexArray {
    uint32_t type = 0, flags = 0, format = 0, size = 0, offset = 0;
    // num_vertexes * size components, the raw stored numbers (not normalized).
    std::vector<double> values;
};

struct JointRecord {  // v1 joints are read into this with w reconstructed
    uint32_t name = 0;
    int32_t parent = -1;
    std::array<float, 3> translate{};
    std::array<float, 4> rotate{0, 0, 0, 1};
    std::array<float, 3> scale{1, 1, 1};
};

// Channels 0-2 translate, 3-6 rotate xyzw, 7-9 scale. A v1 pose has 9 channels (rotate xyz, no
// w; mask bits 0-8); it is kept in v1 numbering here with num_channels = 9.
struct PoseRecord {
    int32_t parent = -1;
    uint32_t channelmask = 0;
    uint32_t num_channels = 10;
    std::array<float, 10> channeloffset{};
    std::array<float, 10> channelscale{};
};

struct AnimRecord {
    uint32_t name = 0, first_frame = 0, num_frames = 0;
    float framerate = 0.0f;
    uint32_t flags = 0;
};

struct BoundsRecord {
    std::array<float, 3> bbmins{}, bbmaxs{};
    float xyradius = 0.0f, radius = 0.0f;
};

struct ExtensionRecord {
    uint32_t name = 0, num_data = 0, ofs_data = 0, ofs_extensions = 0;
    uint64_t record_offset = 0;  // where the record itself sits in the file
    std::vector<uint8_t> data;   // the payload, byte for byte
};

// The file as records: what parse() checked and what serialize() lays out.
struct IqmFile {
    Header header;
    std::vector<char> text;  // num_text bytes
    std::vector<MeshRecord> meshes;
    std::vector<VertexArray> vertexarrays;
    std::vector<Triangle> triangles;  // absolute vertex indices
    bool has_adjacency = false;
    std::vector<Triangle> adjacency;
    std::vector<JointRecord> joints;
    std::vector<PoseRecord> poses;
    std::vector<uint16_t> frames;  // num_frames * num_framechannels
    std::vector<AnimRecord> anims;
    std::vector<BoundsRecord> bounds;
    std::vector<uint8_t> comment;  // num_comment bytes as stored
    std::vector<ExtensionRecord> extensions;
    // Set by a lean parse: vertex array values, triangles and adjacency were checked but not
    // copied; to_scene() reads them from these bytes, which must outlive the file.
    std::span<const uint8_t> lean_source;

    // The NUL-terminated string at a text offset ("" when out of range; parse() has checked).
    std::string string_at(uint32_t offset) const;
};

bool detect(std::span<const uint8_t> bytes);

// Structure: header, every section range-checked (64-bit), records decoded. Tolerated quirks go
// to `warnings`; everything else malformed is an Error with the byte offset.
// `lean` (read()'s choice) leaves the big arrays in `bytes`: see IqmFile::lean_source.
Expected<IqmFile> parse(std::span<const uint8_t> bytes, const LoadOptions& options, Warnings& warnings, bool lean = false);

// Semantics: IqmFile -> Scene (meshes split out of the global arrays, poses dequantized into
// keyed tracks, v1 converted to the v2 meaning). Checks parents, indices and finite values.
Expected<Scene> to_scene(const IqmFile& file, Warnings warnings);

Expected<Scene> read(std::span<const uint8_t> bytes, const LoadOptions& options);

// Writer: Scene -> IqmFile (v2, canonical formats, quantized channels, computed adjacency and
// bounds, deduplicated text), then the bytes in the reference compiler's order and alignment.
Expected<IqmFile> from_scene(const Scene& scene, const SaveOptions& options);
std::vector<uint8_t> serialize(const IqmFile& file);
Expected<std::vector<uint8_t>> write(const Scene& scene, const SaveOptions& options);

// Adjacency of the file's triangles keyed on its stored numbers: the stored position values and
// the blend slots with a stored weight other than 0 (iqm_adjacency.cpp). The writer stores it and
// validate() compares the stored adjacency against it.
std::vector<Triangle> compute_adjacency(const IqmFile& file);

// IQM-specific validation (docs/iqm.md §9) added to the report.
void validate(std::span<const uint8_t> bytes, const LoadOptions& options, ValidationReport& report);

// Component encode/decode in the compiler's normalization (docs/iqm.md §1.5).
double decode_component(std::span<const uint8_t> bytes, ComponentType type);  // raw number
void encode_component(double raw, ComponentType type, std::vector<uint8_t>& out);  // raw number, clamped
void encode_components(const double* raw, size_t count, ComponentType type, std::vector<uint8_t>& out);
double normalize_component(double raw, ComponentType type);   // integer -> [-1,1] / [0,1]
double denormalize_component(double value, ComponentType type);  // the compiler's rounding
float half_to_float(uint16_t h);
uint16_t float_to_half(float f);

}  // namespace rigport::iqm
