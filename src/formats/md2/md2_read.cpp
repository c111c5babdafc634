// MD2 -> Scene (docs/md2.md "Reading"): header and sections bounded before use, corners split into
// vertices by (vertex, st) pair, frames as morph targets grouped into animations.
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <string>
#include <unordered_map>

#include "formats/common/vertex_frames.hpp"
#include "formats/md2/md2.hpp"
#include "support/byte_cursor.hpp"

namespace rigport::md2 {

namespace {

Error malformed(uint64_t offset, std::string message) { return make_error(ErrorCode::Malformed, std::move(message), offset); }

uint32_t u32_at(std::span<const uint8_t> b, uint64_t at) {
    return uint32_t(b[at]) | uint32_t(b[at + 1]) << 8 | uint32_t(b[at + 2]) << 16 | uint32_t(b[at + 3]) << 24;
}
uint16_t u16_at(std::span<const uint8_t> b, uint64_t at) { return uint16_t(b[at] | b[at + 1] << 8); }
int16_t i16_at(std::span<const uint8_t> b, uint64_t at) { return int16_t(u16_at(b, at)); }
float f32_at(std::span<const uint8_t> b, uint64_t at) {
    const uint32_t u = u32_at(b, at);
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

const char* word_name(uint32_t w) {
    static const char* const names[word_count] = {"ident",      "version",   "skinwidth",  "skinheight",  "framesize", "num_skins",
                                                   "num_xyz",    "num_st",    "num_tris",   "num_glcmds",  "num_frames", "ofs_skins",
                                                   "ofs_st",     "ofs_tris",  "ofs_frames", "ofs_glcmds",  "ofs_end"};
    return names[w];
}

// A NUL-terminated name in a fixed field; the whole field when it has no NUL.
std::string fixed_name(std::span<const uint8_t> b, uint64_t at, uint32_t size) {
    const char* p = reinterpret_cast<const char*>(b.data() + at);
    return std::string(p, strnlen(p, size));
}

// Distinct (vertex, st) pairs per vertex accepted on average (see read()).
constexpr uint32_t max_pairings = 16;

}  // namespace

bool detect(std::span<const uint8_t> bytes) {
    return bytes.size() >= header_size && u32_at(bytes, 0) == magic && u32_at(bytes, 4) == version;
}

Expected<Scene> read(std::span<const uint8_t> bytes, const LoadOptions& options) {
    if (bytes.size() < header_size)
        return malformed(bytes.size(), fmt::format("file is {} bytes, an MD2 header needs {}", bytes.size(), header_size));
    int32_t h[word_count];
    for (uint32_t w = 0; w < word_count; ++w) h[w] = int32_t(u32_at(bytes, 4 * w));
    if (uint32_t(h[w_ident]) != magic) return malformed(0, "not an MD2 file: the magic is not IDP2");
    if (h[w_version] != int32_t(version)) {
        if (h[w_version] == 3)
            return make_error(ErrorCode::Unsupported, "magic IDP2 with version 3 is a VDrift JOE model, not Quake 2 MD2 (version 8)", 4);
        return make_error(ErrorCode::Unsupported, fmt::format("version {}: only MD2 version 8 is known", h[w_version]), 4);
    }
    for (uint32_t w = w_skin_width; w < word_count; ++w)
        if (h[w] < 0) return malformed(4 * w, fmt::format("{} is {}: negative", word_name(w), h[w]));
    const uint64_t size = bytes.size();
    const uint32_t num_skins = uint32_t(h[w_num_skins]), num_vertices = uint32_t(h[w_num_vertices]), num_st = uint32_t(h[w_num_st]),
                   num_tris = uint32_t(h[w_num_tris]), num_frames = uint32_t(h[w_num_frames]);
    // Quake 2 refuses a model without vertices or frames; there is no frame 0 to be the mesh.
    if (num_vertices == 0) return malformed(4 * w_num_vertices, "num_xyz is 0: a model without vertices (Quake 2 refuses it)");
    if (num_frames == 0) return malformed(4 * w_num_frames, "num_frames is 0: a model without frames (Quake 2 refuses it)");
    for (uint32_t w : {w_num_skins, w_num_vertices, w_num_st, w_num_tris})
        if (uint32_t(h[w]) > options.max_elements)
            return make_error(ErrorCode::LimitExceeded, fmt::format("{} {} exceeds the limit {}", word_name(w), h[w], options.max_elements), 4 * w);
    if (num_frames > options.max_frames)
        return make_error(ErrorCode::LimitExceeded, fmt::format("num_frames {} exceeds the limit {}", num_frames, options.max_frames),
                          4 * w_num_frames);
    // Indices are uint16: a larger count cannot be reached, and is no MD2 a tool wrote.
    for (uint32_t w : {w_num_vertices, w_num_st})
        if (uint32_t(h[w]) > 65536) return malformed(4 * w, fmt::format("{} {} exceeds 65536: triangles index it with 16 bits", word_name(w), h[w]));
    const uint64_t frame_need = frame_header_size + uint64_t(vertex_size) * num_vertices;
    const uint32_t frame_size = uint32_t(h[w_frame_size]);
    if (frame_size < frame_need)
        return malformed(4 * w_frame_size, fmt::format("framesize {} is less than the {} bytes a frame of {} vertices needs", frame_size,
                                                       frame_need, num_vertices));
    // Each section inside the file before anything is allocated for it.
    const struct {
        uint32_t ofs, count;
        uint64_t item;
        const char* what;
    } sections[] = {{w_ofs_skins, num_skins, skin_name_size, "skins"},
                    {w_ofs_st, num_st, st_size, "texture coordinates"},
                    {w_ofs_tris, num_tris, triangle_size, "triangles"},
                    {w_ofs_frames, num_frames, frame_size, "frames"}};
    for (auto& s : sections)
        if (!io::range_fits(uint32_t(h[s.ofs]), s.count, s.item, size))
            return malformed(4 * s.ofs, fmt::format("{} {} at {} ({} bytes each) run past the end of the file ({} bytes)", s.count, s.what,
                                                    h[s.ofs], s.item, size));

    Scene scene;
    Warnings& warnings = scene.warnings;
    Meta& meta = scene.meta;
    meta.source_format = "md2";
    meta.source_version = version;
    // Quake's world: X forward, Y left, Z up, right-handed; front faces clockwise (the engine culls
    // GL_FRONT with GL's counter-clockwise default). Units are the game's, about an inch; the file
    // does not say, so the numbers are kept as they are (docs/md2.md "Axes and units").
    meta.up = UpAxis::Z;
    meta.handedness = Handedness::Right;
    meta.front_face = Winding::Clockwise;
    meta.attribute_formats = {{Attribute::Position, 0, ComponentType::UInt8, 3},
                              {Attribute::Texcoord, 0, ComponentType::Int16, 2},
                              {Attribute::Normal, 0, ComponentType::UInt8, 1}};

    if (uint64_t(h[w_ofs_end]) != size)
        warnings.add(WarningCode::ReaderDifference,
                     fmt::format("ofs_end is {}, the file has {} bytes (three.js refuses such a file; rigport reads the sections)",
                                 h[w_ofs_end], size),
                     4 * w_ofs_end);
    if (num_vertices > max_vertices || num_tris > max_triangles || num_frames > max_frames || num_skins > max_skins)
        warnings.add(WarningCode::ReaderDifference,
                     fmt::format("{} vertices, {} triangles, {} frames, {} skins: beyond Quake 2's limits ({}, {}, {}, {}); read anyway",
                                 num_vertices, num_tris, num_frames, num_skins, max_vertices, max_triangles, max_frames, max_skins));

    // Skins: one material each; the mesh uses the first (Quake 2's default skin).
    for (uint32_t i = 0; i < num_skins; ++i) {
        const uint64_t at = uint64_t(h[w_ofs_skins]) + uint64_t(i) * skin_name_size;
        Material m;
        const std::string path = fixed_name(bytes, at, skin_name_size);
        if (path.size() == skin_name_size)
            warnings.add(WarningCode::Tolerated, fmt::format("skin {}: its name fills all 64 bytes without a NUL", i), at);
        m.name = path.empty() ? fmt::format("skin{}", i) : path;
        if (!path.empty()) {
            TextureMap map;
            map.uri = path;  // a diffuse map
            m.maps.push_back(std::move(map));
        }
        scene.materials.push_back(std::move(m));
    }

    // Texture coordinates: texels over the skin's size, (0, 0) at the top left as the scene has it.
    float width = float(h[w_skin_width]), height = float(h[w_skin_height]);
    if (width <= 0 || height <= 0) {
        warnings.add(WarningCode::Substituted,
                     fmt::format("skin size {} x {}: texture coordinates divided by 256 instead", h[w_skin_width], h[w_skin_height]),
                     4 * w_skin_width);
        if (width <= 0) width = 256;
        if (height <= 0) height = 256;
    }

    // Corners split into vertices by (vertex, st) pair, first seen first; every index checked.
    Mesh mesh;
    mesh.name = "md2";
    if (num_skins > 0) mesh.material = 0;
    std::unordered_map<uint32_t, uint32_t> corner_vertex;
    corner_vertex.reserve(std::min<uint64_t>(uint64_t(num_tris) * 3, uint64_t(num_vertices) * 2));
    std::vector<uint32_t> source_vertex;  // per rigport vertex: its MD2 vertex
    std::vector<Vec2> uvs;
    mesh.triangles.resize(num_tris);
    for (uint32_t t = 0; t < num_tris; ++t) {
        const uint64_t at = uint64_t(h[w_ofs_tris]) + uint64_t(t) * triangle_size;
        for (int k = 0; k < 3; ++k) {
            const uint16_t v = u16_at(bytes, at + 2 * k), st = u16_at(bytes, at + 6 + 2 * k);
            if (v >= num_vertices)
                return malformed(at + 2 * k, fmt::format("triangle {}: vertex index {} >= num_xyz {}", t, v, num_vertices));
            if (st >= num_st) return malformed(at + 6 + 2 * k, fmt::format("triangle {}: st index {} >= num_st {}", t, st, num_st));
            const auto [it, added] = corner_vertex.try_emplace(uint32_t(v) << 16 | st, uint32_t(source_vertex.size()));
            if (added) {
                source_vertex.push_back(v);
                const uint64_t st_at = uint64_t(h[w_ofs_st]) + uint64_t(st) * st_size;
                uvs.push_back(Vec2{float(i16_at(bytes, st_at)) / width, float(i16_at(bytes, st_at + 2)) / height});
            }
            mesh.triangles[t][k] = it->second;
        }
    }
    if (num_tris == 0) warnings.add(WarningCode::ReaderDifference, "num_tris is 0: an empty mesh (Quake 2 refuses it)", 4 * w_num_tris);
    const uint64_t vertices = source_vertex.size();
    // Every frame becomes a morph target of every vertex: bound what the frames make, not only
    // what the file stores. A vertex paired with many texture coordinates is repeated in every
    // frame, so a small file could ask for frames x corners values: more than 16 pairings per
    // vertex on average (real models have 1 to 2) is refused, which keeps the scene within a
    // fixed multiple of the file's frame bytes.
    if (vertices > uint64_t(max_pairings) * num_vertices)
        return make_error(ErrorCode::LimitExceeded,
                          fmt::format("the triangles pair {} vertices with texture coordinates {} ways, more than {} per vertex; each of "
                                      "the {} frames would repeat them",
                                      num_vertices, vertices, max_pairings, num_frames),
                          4 * w_num_tris);
    if (vertices * num_frames > options.max_elements)
        return make_error(ErrorCode::LimitExceeded,
                          fmt::format("{} frames of {} vertices exceed the limit of {} values", num_frames, vertices, options.max_elements),
                          4 * w_num_frames);

    // Frames: positions and normals per rigport vertex, decoded with each frame's scale and translate.
    std::vector<std::string> names(num_frames);
    std::vector<std::vector<Vec3>> positions(num_frames), normals(num_frames);
    uint64_t bad_normals = 0, bad_scales = 0;
    std::optional<uint64_t> first_bad_normal, first_bad_scale;
    for (uint32_t f = 0; f < num_frames; ++f) {
        const uint64_t at = uint64_t(h[w_ofs_frames]) + uint64_t(f) * frame_size;
        float scale[3], translate[3];
        for (int a = 0; a < 3; ++a) {
            scale[a] = f32_at(bytes, at + 4 * a);
            translate[a] = f32_at(bytes, at + 12 + 4 * a);
            if (!std::isfinite(scale[a]) || !std::isfinite(translate[a]) || !std::isfinite(scale[a] * 255.0f + translate[a])) {
                if (!bad_scales++) first_bad_scale = at;
                scale[a] = 0, translate[a] = 0;
            }
        }
        names[f] = fixed_name(bytes, at + 24, frame_name_size);
        positions[f].resize(vertices);
        normals[f].resize(vertices);
        const uint64_t verts_at = at + frame_header_size;
        for (uint64_t v = 0; v < vertices; ++v) {
            const uint64_t p = verts_at + uint64_t(source_vertex[v]) * vertex_size;
            for (int a = 0; a < 3; ++a) positions[f][v][a] = float(bytes[p + a]) * scale[a] + translate[a];
            const uint8_t n = bytes[p + 3];
            if (n < normal_count) {
                normals[f][v] = normal_table[n];
            } else {
                normals[f][v] = Vec3{0, 0, 0};
                if (!bad_normals++) first_bad_normal = p + 3;
            }
        }
    }
    if (bad_scales)
        warnings.add(WarningCode::NonFiniteValue, fmt::format("{} frame scale or translate values are not finite (set to 0)", bad_scales),
                     first_bad_scale);
    if (bad_normals)
        warnings.add(WarningCode::InvalidNormal,
                     fmt::format("{} vertex normal indices are 162 or more, past the normal table (set to zero length)", bad_normals),
                     first_bad_normal);

    mesh.positions = positions[0];
    mesh.normals = normals[0];
    mesh.texcoords.push_back(std::move(uvs));
    detail::add_frame_targets(mesh, names, positions, normals);
    positions.clear();
    normals.clear();
    scene.meshes.push_back(std::move(mesh));
    const float rate = options.vertex_frame_rate > 0 && std::isfinite(options.vertex_frame_rate) ? options.vertex_frame_rate : frame_rate;
    detail::add_frame_animations(scene, detail::group_frames_by_name(names), num_frames, rate);
    return scene;
}

}  // namespace rigport::md2
