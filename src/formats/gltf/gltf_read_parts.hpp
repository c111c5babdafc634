// Internal pieces of the glTF 2.0 reader (gltf_read*.cpp): checked JSON access, buffers, accessors,
// the node plan and the parts that fill the Scene (Khronos glTF 2.0 spec; docs/gltf.md §8).
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "support/excerpt.hpp"
#include "model/decompose.hpp"
#include "formats/gltf/gltf_read_json.hpp"
#include "rigport/anim.hpp"
#include "rigport/io.hpp"
#include "rigport/scene.hpp"

namespace rigport::gltf::read_detail {

inline constexpr uint32_t none = UINT32_MAX;

// An accessor checked against its bufferView and decoded on demand (glTF 2.0 §3.6.2, §3.6.2.3).
struct Accessor {
    std::string path;                 // "/accessors/3"
    uint32_t component_type = 5126;
    std::string type;                 // "SCALAR" ... "MAT4"
    uint32_t components = 1;          // 1 SCALAR ... 16 MAT4
    uint64_t count = 0;
    bool normalized = false;
    std::span<const uint8_t> data;    // from the first element; empty = all zeros (no bufferView)
    uint64_t stride = 0;              // bytes between elements
    std::vector<uint32_t> offsets;    // byte offset of each component inside an element
    std::vector<double> dense;        // sparse accessors: every raw value, materialized

    // The stored number (integers exact), and the same normalized when the accessor says so.
    // Inline: every vertex, key and matrix value passes through them.
    double raw(uint64_t element, uint32_t component) const {
        if (!dense.empty()) return dense[element * components + component];
        if (data.empty()) return 0.0;
        return decode(data.data() + element * stride + offsets[component], component_type);
    }
    double value(uint64_t element, uint32_t component) const {
        const double v = raw(element, component);
        return normalized ? normalize(v) : v;
    }
    double normalize(double v) const;

    // One little-endian component of a componentType (5124, INT, is read as int32; an unknown
    // type as 0).
    static double decode(const uint8_t* p, uint32_t type) {
        const auto u16 = [p] { return uint16_t(p[0] | p[1] << 8); };
        const auto u32 = [p] { return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24; };
        switch (type) {
            case 5120: return int8_t(p[0]);
            case 5121: return p[0];
            case 5122: return int16_t(u16());
            case 5123: return u16();
            case 5124: return int32_t(u32());
            case 5125: return u32();
            case 5126: return std::bit_cast<float>(u32());
            default: return 0.0;
        }
    }
};

// A textureInfo's KHR_texture_transform: uv' = offset + rotate(-rotation) (scale * uv) on set `set`.
struct TextureTransform {
    uint32_t set = 0;                 // the TEXCOORD_n it applies to (texCoord, or the extension's own)
    std::array<float, 2> offset{0, 0};
    float rotation = 0;               // radians, counter-clockwise in UV space
    std::array<float, 2> scale{1, 1};
    std::string slot;                 // "/materials/0/pbrMetallicRoughness/baseColorTexture"
    bool same(const TextureTransform& o) const { return set == o.set && offset == o.offset && rotation == o.rotation && scale == o.scale; }
};

// One primitive as a rigport mesh in its node's space: influences still index skin.joints.
struct Primitive {
    Mesh mesh;
    bool skinned = false;  // JOINTS_0 / WEIGHTS_0 present and the node has a skin
};

// The glTF node tree as the reader sees it (glTF 2.0 §3.5).
struct NodeInfo {
    std::string name;
    int64_t parent = -1;
    std::vector<uint32_t> children;
    Mat4 local = identity_matrix();
    Transform trs;              // local as TRS (a matrix decomposed)
    bool sheared = false;       // the matrix had shear: trs only approximates it
    Mat4 world = identity_matrix();
    uint32_t mesh = none, skin = none;
    bool in_scene = false;
    bool animated = false;      // a translation / rotation / scale channel targets it
    int32_t joint = -1;         // rigport joint, or -1
};

// Everything the parts share: the document, its buffers, the first error, the warnings.
class Reader {
public:
    explicit Reader(const LoadOptions& o) : options(o) {}
    Reader(const Reader&) = delete;
    Reader& operator=(const Reader&) = delete;

    const LoadOptions& options;
    JsonTree json;  // owns every value below
    Json root;
    bool glb = false;
    std::optional<std::span<const uint8_t>> glb_bin;  // the BIN chunk, when there is one
    bool quantization = false;                         // KHR_mesh_quantization declared
    Scene scene;
    std::optional<Error> error;

    bool ok() const { return !error; }
    // Records the first error as "path: message"; always returns false.
    bool fail(ErrorCode code, const std::string& path, const std::string& message);
    bool malformed(const std::string& path, const std::string& message) { return fail(ErrorCode::Malformed, path, message); }
    void warn(WarningCode code, std::string message) { scene.warnings.add(code, std::move(message)); }
    // Counts elements made over the whole file (instances and reused accessors included)
    // against 4 x max_elements; false with an error beyond it.
    bool spend(uint64_t elements, const std::string& path);
    // Values the file asks for without storing them: accessors without a bufferView (zeros),
    // sparse accessors made dense, a morph target accessor materialized again. All of them count
    // against one budget of unbacked_floor + unbacked_per_byte x the bytes read (the document,
    // then each buffer as it is loaded), so a 600-byte file cannot ask for gigabytes;
    // false with a LimitExceeded error at path beyond it.
    static constexpr uint64_t unbacked_floor = 1ull << 20;
    static constexpr uint64_t unbacked_per_byte = 64;
    bool spend_unbacked(uint64_t values, const std::string& path);
    uint64_t bytes_read = 0;          // the document, then each buffer loaded
    std::vector<bool> morph_used;     // per accessor: materialized as a morph target already

    // ---- checked JSON access (gltf_read_json.cpp); a missing optional member leaves `out` as is.
    static const Json* find(const Json& object, const char* key);
    // Items of a top-level list ("nodes"); 0 when absent. Each item is checked to be an object.
    size_t count(const char* list) const;
    const Json* item(const char* list, size_t index);
    const Json* array(const Json& object, const char* key, const std::string& path);
    const Json* object(const Json& object, const char* key, const std::string& path);
    bool uint(const Json& object, const char* key, const std::string& path, uint64_t& out, bool required);
    // An index into a top-level list (`list`, with `size` items).
    bool index(const Json& object, const char* key, const std::string& path, uint32_t& out, bool required, const char* list, size_t size);
    bool index_value(const Json& value, const std::string& path, uint32_t& out, const char* list, size_t size);
    bool number(const Json& object, const char* key, const std::string& path, float& out);
    bool numbers(const Json& object, const char* key, const std::string& path, float* out, size_t n);
    bool string(const Json& object, const char* key, const std::string& path, std::string& out);
    bool boolean(const Json& object, const char* key, const std::string& path, bool& out);

    // ---- buffers (gltf_read_buffers.cpp)
    std::optional<std::span<const uint8_t>> buffer(uint32_t index);
    // The bytes of a bufferView and its byteStride (0 when not given); a view with
    // EXT_meshopt_compression is decoded once and its bytes kept (gltf_read_meshopt.cpp).
    std::optional<std::span<const uint8_t>> buffer_view(uint32_t index, uint32_t& stride);
    std::optional<std::span<const uint8_t>> meshopt_view(uint32_t index, const Json& extension, uint64_t view_length);
    // Bytes made by decompression (meshopt views, Draco primitives) count against one budget of
    // decoded_floor + decoded_per_byte x the bytes read; false with a LimitExceeded error beyond
    // it. meshopt's codecs expand at most about 64 times, so real files stay far below.
    static constexpr uint64_t decoded_floor = 1ull << 22;
    static constexpr uint64_t decoded_per_byte = 256;
    bool spend_decoded(uint64_t bytes, const std::string& path);

    // ---- accessors (gltf_read_accessor.cpp); checked once, then cached.
    const Accessor* accessor(uint32_t index);
    // Puts decoded values in place of accessor `index` (a Draco primitive's attributes and indices).
    void install_accessor(uint32_t index, std::unique_ptr<Accessor> decoded);

    // Draco primitives already decoded ("/meshes/2/primitives/0"): a mesh on several nodes is read
    // once per node, and its accessors hold the decoded values from the first read on.
    std::vector<std::string> draco_decoded;

    // Per material (document order): the texture transforms of its maps (gltf_read_material.cpp),
    // applied to its primitives' texcoords (gltf_read_texture_transform.cpp).
    std::vector<std::vector<TextureTransform>> texture_transforms;

    // ---- images the file holds (gltf_read_material.cpp): per glTF image and per bufferView, the
    // Scene::images entry made of it (-1 = none yet), so a shared image is copied once.
    std::vector<int32_t> image_of_image, image_of_view;
    // Bytes copied into Scene::images: never more than bytes_read, so overlapping bufferViews
    // cannot make a small file allocate gigabytes.
    uint64_t image_bytes = 0;

private:
    std::vector<std::optional<std::vector<uint8_t>>> loaded_;  // external and data: buffers
    std::vector<std::optional<std::vector<uint8_t>>> decoded_views_;  // meshopt views, decoded
    uint64_t decoded_ = 0;
    std::vector<std::unique_ptr<Accessor>> accessors_;
    uint64_t spent_ = 0;
    uint64_t unbacked_ = 0;
};

// gltf_read_buffers.cpp: the GLB container (§4.4) split into JSON text and BIN chunk.
struct GlbChunks {
    std::span<const uint8_t> json;
    uint64_t json_offset = 0;
    std::optional<std::span<const uint8_t>> bin;
};
Expected<GlbChunks> split_glb(std::span<const uint8_t> bytes, Warnings& warnings);
// RFC 3986 percent-decoding; invalid escapes are kept as written.
std::string percent_decode(const std::string& uri);
// An RFC 2397 data: URI's bytes (base64 or percent-encoded) and its media type ("image/png";
// empty when not given); a message saying what is wrong, or nothing.
std::optional<std::string> decode_data_uri(const std::string& uri, std::vector<uint8_t>& bytes, std::string& media_type);

// gltf_read_json.cpp: the JSON text parsed without exceptions; errors carry the byte offset.
// Arrays and objects nested deeper than max_depth (LoadOptions::max_depth) are refused first.
Expected<JsonTree> parse_json(std::span<const uint8_t> text, uint64_t base_offset, uint32_t max_depth);

// A transform folded into a root joint: the static ancestors' world matrix when it is a
// similarity (rotation, uniform scale, translation), so t' = A t, q' = q_A (x) q, s' = s_A s.
struct Fold {
    bool identity = true;
    Mat4 matrix = identity_matrix();
    Quat rotate{0, 0, 0, 1};
    float scale = 1.0f;

    Vec3 point(const Vec3& p) const;
    Quat rotation(const Quat& q) const;
    Vec3 scaled(const Vec3& s) const { return {s[0] * scale, s[1] * scale, s[2] * scale}; }
};

struct SkinInfo {
    std::vector<uint32_t> joints;  // nodes
    uint32_t inverse_bind_matrices = none;
    bool used = false;             // a node in the scene carries it with a mesh
    bool skeleton = false;         // no mesh uses it, but its joints are in the scene: a skeleton all the
                                   // same (an animation clip, a rig with rigid parts), read as joints
    bool counts() const { return used || skeleton; }
};

// What the parts build in turn: the node tree, skins, joints and where meshes went.
struct Plan {
    std::vector<NodeInfo> nodes;
    std::vector<uint32_t> order;                      // every node, parent-first (pre-order)
    std::vector<SkinInfo> skins;
    std::vector<Fold> fold;                           // per rigport joint
    std::vector<std::vector<uint32_t>> node_meshes;   // per node: the scene meshes made for it
};

// gltf_read_nodes.cpp: the tree (cycles and second parents refused), the scene's nodes, world
// matrices at rest, and TRS of matrices.
bool read_nodes(Reader& r, Plan& plan);

// gltf_read_skeleton.cpp: joints (skins' joints, animated nodes, the nodes between them), ordered
// parent-first (a skin's order kept where it already is); static ancestors above root joints
// folded into them when they are similarities, else made joints too. Sets NodeInfo::joint.
bool build_skeleton(Reader& r, Plan& plan);

// gltf_read_mesh.cpp: one primitive in its own space. skin_joints = joints of the node's skin, or
// none when the node has no skin (JOINTS_n / WEIGHTS_n then ignored).
bool read_primitive(Reader& r, uint32_t mesh, uint32_t primitive, uint32_t skin_joints, Primitive& out);
// gltf_read_draco.cpp: a primitive's KHR_draco_mesh_compression extension (`extension`) decoded,
// its accessors (attributes the extension names, and the indices) replaced by the decoded values.
bool decode_draco(Reader& r, const Json& prim, const Json& extension, const std::string& path);
// gltf_read_indices.cpp: the primitive's triangles (mode 4, 5 or 6; strips and fans lose their
// degenerate triangles), every index checked against `vertices`.
bool read_triangles(Reader& r, const Json& prim, const std::string& path, uint64_t vertices, uint32_t mode, std::vector<Triangle>& out);
// gltf_read_texture_transform.cpp: the texture transforms of the primitive's material applied to
// its texcoord sets, with a warning (rigport's scene has no place for them).
void apply_texture_transforms(Reader& r, const std::string& path, Mesh& mesh);
// gltf_read_morph.cpp: morph targets of a primitive, names and default weights from the mesh.
bool read_targets(Reader& r, uint32_t mesh, uint32_t primitive, const Json& prim, Mesh& out);

// gltf_read_place.cpp: every mesh of every node in the scene, placed: static meshes baked to
// world, meshes under joints bound rigidly, skinned meshes bound to their skin (IBMs baked when
// they are not the inverse rest pose). Fills plan.node_meshes.
bool place_meshes(Reader& r, Plan& plan);
// Applies an affine map to a mesh: positions, normals, tangents and morph deltas; a negative
// determinant reverses the winding.
void transform_mesh(Mesh& mesh, const Mat4& m);

// gltf_read_anim.cpp: every animation; root joint keys get their fold.
bool read_animations(Reader& r, const Plan& plan);

// gltf_read_material.cpp: materials in document order, so primitive.material indexes them.
bool read_materials(Reader& r);

}  // namespace rigport::gltf::read_detail
