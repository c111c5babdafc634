// The in-memory model every format reads into and writes from: plain data, no I/O (docs/formats.md "Conventions").
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "rigport/error.hpp"

namespace rigport {

using Vec2 = std::array<float, 2>;
using Vec3 = std::array<float, 3>;
using Vec4 = std::array<float, 4>;
using Quat = std::array<float, 4>;  // standard unit quaternion, x y z w
using Triangle = std::array<uint32_t, 3>;

// Component types in IQM's numbering (iqm.txt: BYTE=0 ... DOUBLE=8); other formats map onto them.
enum class ComponentType : uint8_t { Int8, UInt8, Int16, UInt16, Int32, UInt32, Half, Float32, Float64 };
constexpr uint32_t component_count_types = 9;
uint32_t component_size(ComponentType type);
const char* to_string(ComponentType type);

// Standard vertex attributes (the ones with a meaning); everything else is a CustomArray.
enum class Attribute : uint8_t { Position, Texcoord, Normal, Tangent, BlendIndexes, BlendWeights, Color };
const char* to_string(Attribute attribute);

// How a source stored an attribute, so a writer of the same format can store it the same way.
struct AttributeFormat {
    Attribute attribute = Attribute::Position;
    uint32_t set = 0;  // texcoord / color set
    ComponentType type = ComponentType::Float32;
    uint32_t size = 0;  // components per vertex
};

// Per-vertex data with no standard meaning, by name. Values are the raw stored numbers
// (not normalized), exactly representable in double for every component type.
struct CustomArray {
    std::string name;
    ComponentType type = ComponentType::Float32;
    uint32_t size = 4;           // components per vertex (1..4 in IQM)
    std::vector<double> values;  // vertex_count * size
};

struct Influence {
    uint32_t joint = 0;
    float weight = 0.0f;
};

// Skin influences of any count per vertex, stored compressed: vertex v owns
// influences[offsets[v] .. offsets[v+1]). offsets is empty when the mesh is not skinned.
struct SkinInfluences {
    std::vector<uint32_t> offsets;  // vertex_count + 1 entries, or none
    std::vector<Influence> influences;

    bool empty() const { return offsets.empty(); }
    uint32_t count(uint32_t vertex) const { return offsets[vertex + 1] - offsets[vertex]; }
    const Influence* begin(uint32_t vertex) const { return influences.data() + offsets[vertex]; }
};

// A morph target: per-vertex deltas (empty stream = no delta of that kind).
struct MorphTarget {
    std::string name;
    std::vector<Vec3> position_deltas;
    std::vector<Vec3> normal_deltas;
    std::vector<Vec3> tangent_deltas;
    float default_weight = 0.0f;
};

// Cal3D cloth springs between two vertices of a mesh.
struct Spring {
    uint32_t vertex0 = 0, vertex1 = 0;
    float coefficient = 0.0f;
    float idle_length = 0.0f;
};

// Cal3D progressive-mesh data per vertex: collapse_id -1 and face_collapse_count 0 mean none.
struct LodCollapse {
    int32_t collapse_id = -1;
    int32_t face_collapse_count = 0;
};

struct Mesh {
    std::string name;
    int32_t material = -1;  // index into Scene::materials, -1 = none

    std::vector<Vec3> positions;               // defines the vertex count
    std::vector<Vec3> normals;                 // empty or one per vertex
    std::vector<Vec4> tangents;                // xyz + handedness w: bitangent = cross(n, t.xyz) * w
    std::vector<std::vector<Vec2>> texcoords;  // any number of sets
    std::vector<std::vector<Vec4>> colors;     // RGBA in 0..1, any number of sets
    SkinInfluences skin;
    std::vector<CustomArray> custom;

    std::vector<Triangle> triangles;  // indices into this mesh's vertices

    std::vector<MorphTarget> morph_targets;
    std::vector<Spring> springs;
    float physique_weight = 0.0f;      // Cal3D cloth: meaningful only with springs
    std::vector<LodCollapse> lod;      // empty or one per vertex
    std::vector<float> spring_weights; // Cal3D per-vertex physique weights, empty or one per vertex
    int32_t lod_steps = 0;             // Cal3D NUMLODSTEPS / lodCount as stored (0 = no LOD)

    uint32_t vertex_count() const { return static_cast<uint32_t>(positions.size()); }
    // Some vertex collapses (Cal3D readers give every vertex an entry, most of them "none").
    bool has_lod() const;
    // What of the Cal3D-only data a format without it loses: "cloth springs", "level-of-detail
    // data", both joined by "and", or "" when the mesh has neither.
    std::string cloth_and_lod_names() const;
};

enum class TextureType : uint8_t { Diffuse, Normal, Specular, Emissive, Opacity, Ambient, Other };
const char* to_string(TextureType type);

struct TextureMap {
    TextureType type = TextureType::Diffuse;
    std::string uri;       // as written in the source (relative paths stay relative)
    std::string type_name; // the source's own name for the map type, when it has one
    // Index into Scene::images when the source holds the image itself (a glTF bufferView or data:
    // URI), else -1. uri is then a plain file name, unique in the scene and safe to write beside
    // any output: the file a writer that names textures (IQM, Cal3D ...) writes the image to.
    int32_t image = -1;
};

// An image the source holds inside itself, kept byte for byte (glTF 2.0 §3.8.4: a bufferView
// with mimeType, or a data: URI).
struct EmbeddedImage {
    std::string name;       // the source's name for it (may be empty; never used as a path)
    std::string mime_type;  // as the source declared it, e.g. "image/png"; may be empty
    std::vector<uint8_t> bytes;
};

struct Material {
    std::string name;
    Vec4 diffuse{1, 1, 1, 1};
    Vec4 ambient{0, 0, 0, 1};
    Vec4 specular{0, 0, 0, 1};
    Vec4 emissive{0, 0, 0, 1};
    float shininess = 0.0f;
    std::vector<TextureMap> maps;
};

// A local transform p' = translate + rotate * (scale * p), in the parent's space.
struct Transform {
    Vec3 translate{0, 0, 0};
    Quat rotate{0, 0, 0, 1};
    Vec3 scale{1, 1, 1};
};

struct Joint {
    std::string name;
    int32_t parent = -1;  // an earlier joint, or -1 for a root
    Transform bind;       // bind pose relative to the parent
};

// One skeleton; joints are stored parent-first (parent < index). Several roots are legal.
struct Skeleton {
    std::vector<Joint> joints;
    // True when the source held only an animation hierarchy (IQM poses without joints):
    // names are empty and the bind pose is unknown, so it binds to a skeleton by index.
    bool animation_only = false;
    // Per joint: the id the source gave the bone (Cal3D bone ids, in any order in the file);
    // empty when the ids are the joint indices. Influences and tracks are already remapped.
    std::vector<int32_t> source_ids;
};

enum class Channel : uint8_t { Translation, Rotation, Scale };
enum class Interpolation : uint8_t { Linear, Step };

// Keys of one joint channel. values holds 3 floats per key (4 for Rotation, x y z w).
struct JointTrack {
    uint32_t joint = 0;
    Channel channel = Channel::Translation;
    Interpolation interpolation = Interpolation::Linear;
    std::vector<float> times;  // seconds, ascending
    std::vector<float> values;

    uint32_t components() const { return channel == Channel::Rotation ? 4u : 3u; }
};

// Morph weights of one mesh: one weight per morph target per key.
struct MorphWeightTrack {
    uint32_t mesh = 0;
    Interpolation interpolation = Interpolation::Linear;
    std::vector<float> times;
    std::vector<float> weights;  // times.size() * mesh.morph_targets.size()
};

// Keyed tracks. A frame-based source is the special case of keys at frame / frame_rate
// (frame / default_frame_rate when the source gives none).
struct Animation {
    std::string name;
    float frame_rate = 0.0f;  // frames per second as the source gave it; 0 = not given
    bool loop = false;
    uint32_t frame_count = 0; // frames of a frame-based source; 0 for key-based sources
    // The length the source states when it is not where the keys end (Cal3D DURATION, which may
    // run past the last key); 0 = none. Writers of such formats keep it; duration() is the keys'.
    float stated_duration = 0.0f;
    // Where time 0 of this clip lies on the source's own timeline, in seconds: an FBX take is its
    // window cut from the file's timeline (docs/fbx.md, "Takes"), and this is the window's start.
    // 0 for other sources. Writers ignore it; it lines a clip up with the file it came from.
    double source_start = 0.0;
    std::vector<JointTrack> tracks;
    std::vector<MorphWeightTrack> morph_tracks;

    float duration() const;
};

constexpr float default_frame_rate = 30.0f;

enum class UpAxis : uint8_t { Unknown, X, Y, Z };
enum class Handedness : uint8_t { Unknown, Right, Left };
enum class Winding : uint8_t { Unknown, Clockwise, CounterClockwise };

// An extension record kept byte for byte (IQM's extension list, unknown chunks elsewhere).
struct PreservedExtension {
    std::string name;
    std::vector<uint8_t> data;
};

// Per-frame bounds as stored by IQM (measured from the origin).
struct FrameBounds {
    Vec3 min{0, 0, 0}, max{0, 0, 0};
    float xy_radius = 0.0f, radius = 0.0f;
};

// What the source said about itself. Readers record conventions; they never convert on their own.
struct Meta {
    std::string source_format;  // registry name, e.g. "iqm"
    uint32_t source_version = 0;
    std::string dialect;        // e.g. Cal3D version family
    UpAxis up = UpAxis::Unknown;
    Handedness handedness = Handedness::Unknown;
    Winding front_face = Winding::Unknown;
    float unit_scale = 1.0f;    // metres per unit, when the format says
    std::string comment;
    std::vector<PreservedExtension> extensions;
    std::vector<AttributeFormat> attribute_formats;  // how the source stored each attribute

    // Data a source stores but a writer recomputes; kept for validation, never trusted.
    bool has_stored_adjacency = false;
    std::vector<Triangle> stored_adjacency;  // global triangle numbers over meshes in order
    std::vector<FrameBounds> stored_bounds;  // one per frame over all animations in order
};

struct Scene {
    std::vector<Mesh> meshes;
    std::vector<Material> materials;
    std::vector<EmbeddedImage> images;  // TextureMap::image indexes them
    Skeleton skeleton;
    std::vector<Animation> animations;
    Meta meta;
    Warnings warnings;

    uint64_t vertex_count() const;
    uint64_t triangle_count() const;
};

// Checks the invariants every reader guarantees and every writer may assume: stream sizes,
// index ranges, parent order, finite values, influence joints in range. The first breach.
Status check_invariants(const Scene& scene);

}  // namespace rigport
