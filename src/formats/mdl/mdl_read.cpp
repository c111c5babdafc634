// Quake 1 MDL -> Scene (docs/mdl.md "Reading"): header, skins decoded with Quake's palette, the seam
// rule's vertices split, frames and group frames as morph targets grouped into animations.
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <unordered_map>

#include "formats/common/embedded_images.hpp"
#include "formats/common/quake_normals.hpp"
#include "formats/common/vertex_frames.hpp"
#include "formats/mdl/mdl.hpp"
#include "support/byte_cursor.hpp"

namespace rigport::mdl {

namespace {

Error malformed(uint64_t offset, std::string message) { return make_error(ErrorCode::Malformed, std::move(message), offset); }

uint32_t u32_at(std::span<const uint8_t> b, uint64_t at) {
    return uint32_t(b[at]) | uint32_t(b[at + 1]) << 8 | uint32_t(b[at + 2]) << 16 | uint32_t(b[at + 3]) << 24;
}
int32_t i32_at(std::span<const uint8_t> b, uint64_t at) { return int32_t(u32_at(b, at)); }
float f32_at(std::span<const uint8_t> b, uint64_t at) {
    const uint32_t u = u32_at(b, at);
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

// A NUL-terminated name in a fixed field; the whole field when it has no NUL.
std::string fixed_name(std::span<const uint8_t> b, uint64_t at, uint32_t size) {
    const char* p = reinterpret_cast<const char*>(b.data() + at);
    return std::string(p, strnlen(p, size));
}

// The engine's effects for a model (Quake's EF_ flags), for the warning that they are not kept.
std::string flag_names(uint32_t flags) {
    static const char* const names[8] = {"rocket trail", "grenade trail", "gib trail", "rotate",
                                         "green tracer", "zombie gib trail", "orange tracer", "purple tracer"};
    std::string out;
    for (uint32_t bit = 0; bit < 8; ++bit)
        if (flags & (1u << bit)) out += (out.empty() ? "" : ", ") + std::string(names[bit]);
    if (flags >> 8) out += (out.empty() ? "" : ", ") + fmt::format("unknown bits 0x{:x}", flags & ~0xFFu);
    return out;
}

}  // namespace

bool detect(std::span<const uint8_t> bytes) {
    return bytes.size() >= header_size && u32_at(bytes, at_ident) == magic && u32_at(bytes, at_version) == version;
}

Expected<Scene> read(std::span<const uint8_t> bytes, const LoadOptions& options) {
    const uint64_t size = bytes.size();
    if (size < header_size) return malformed(size, fmt::format("file is {} bytes, an MDL header needs {}", size, header_size));
    if (u32_at(bytes, at_ident) != magic) return malformed(0, "not a Quake MDL file: the magic is not IDPO");
    if (u32_at(bytes, at_version) != version)
        return make_error(ErrorCode::Unsupported, fmt::format("version {}: only Quake MDL version 6 is known", i32_at(bytes, at_version)),
                          at_version);
    const int32_t num_skins = i32_at(bytes, at_num_skins), skin_width = i32_at(bytes, at_skin_width),
                  skin_height = i32_at(bytes, at_skin_height), num_verts = i32_at(bytes, at_num_verts),
                  num_tris = i32_at(bytes, at_num_tris), num_frames = i32_at(bytes, at_num_frames);
    const struct {
        uint32_t at;
        int32_t value;
        const char* name;
    } counts[] = {{at_num_skins, num_skins, "numskins"}, {at_skin_width, skin_width, "skinwidth"}, {at_skin_height, skin_height, "skinheight"},
                  {at_num_verts, num_verts, "numverts"}, {at_num_tris, num_tris, "numtris"},     {at_num_frames, num_frames, "numframes"}};
    for (auto& c : counts) {
        if (c.value < 0) return malformed(c.at, fmt::format("{} is {}: negative", c.name, c.value));
        if (uint64_t(c.value) > options.max_elements)
            return make_error(ErrorCode::LimitExceeded, fmt::format("{} {} exceeds the limit {}", c.name, c.value, options.max_elements), c.at);
    }
    // Quake refuses a model without vertices or frames; there is no frame 0 to be the mesh.
    if (num_verts == 0) return malformed(at_num_verts, "numverts is 0: a model without vertices (Quake refuses it)");
    if (num_frames == 0) return malformed(at_num_frames, "numframes is 0: a model without frames (Quake refuses it)");
    if (uint64_t(num_frames) > options.max_frames)
        return make_error(ErrorCode::LimitExceeded, fmt::format("numframes {} exceeds the limit {}", num_frames, options.max_frames),
                          at_num_frames);
    if (num_skins > 0 && (skin_width == 0 || skin_height == 0 || skin_width > int32_t(max_skin_side) || skin_height > int32_t(max_skin_side)))
        return malformed(at_skin_width, fmt::format("skin size {} x {}: {} skins need 1 to {} texels a side", skin_width, skin_height,
                                                    num_skins, max_skin_side));

    Scene scene;
    Warnings& warnings = scene.warnings;
    Meta& meta = scene.meta;
    meta.source_format = "mdl";
    meta.source_version = version;
    // Quake's world: X forward, Y left, Z up, right-handed; front faces clockwise as in MD2
    // (docs/mdl.md "Axes and units"). The numbers are kept as they are.
    meta.up = UpAxis::Z;
    meta.handedness = Handedness::Right;
    meta.front_face = Winding::Clockwise;
    meta.attribute_formats = {{Attribute::Position, 0, ComponentType::UInt8, 3},
                              {Attribute::Texcoord, 0, ComponentType::Int32, 2},
                              {Attribute::Normal, 0, ComponentType::UInt8, 1}};

    if (uint32_t(num_verts) > max_vertices || uint32_t(num_tris) > max_triangles || uint32_t(num_frames) > max_frames ||
        uint32_t(num_skins) > max_skins)
        warnings.add(WarningCode::ReaderDifference,
                     fmt::format("{} vertices, {} triangles, {} frames, {} skins: beyond GLQuake's limits ({}, {}, {}, {}); read anyway",
                                 num_verts, num_tris, num_frames, num_skins, max_vertices, max_triangles, max_frames, max_skins));
    if (num_skins == 0) warnings.add(WarningCode::ReaderDifference, "numskins is 0: Quake refuses a model without a skin", at_num_skins);
    if (num_skins > 0 && skin_width % 4 != 0)
        warnings.add(WarningCode::ReaderDifference, fmt::format("skinwidth {} is not a multiple of 4: Quake refuses it", skin_width),
                     at_skin_width);
    if (const uint32_t flags = u32_at(bytes, at_flags))
        warnings.add(WarningCode::Ignored, fmt::format("flags 0x{:x} ({}): the engine's effects for the model are not kept", flags, flag_names(flags)),
                     at_flags);

    // Skins: every image decoded with Quake's palette into a PNG, one material each.
    const uint64_t area = uint64_t(skin_width) * uint64_t(skin_height);
    uint64_t at = header_size;
    if (num_skins > 0 && uint64_t(num_skins) > (size - at) / (4 + area))
        return malformed(at_num_skins, fmt::format("{} skins of {} x {} texels run past the end of the file ({} bytes)", num_skins, skin_width,
                                                   skin_height, size));
    std::vector<uint8_t> rgba(num_skins > 0 ? area * 4 : 0);  // the skin size is bounded above only when there are skins
    auto add_image = [&](uint64_t pixels_at, const std::string& name) -> std::optional<Error> {
        for (uint64_t p = 0; p < area; ++p) {
            const auto& c = palette[bytes[pixels_at + p]];
            rgba[4 * p] = c[0], rgba[4 * p + 1] = c[1], rgba[4 * p + 2] = c[2], rgba[4 * p + 3] = 255;
        }
        std::vector<uint8_t> png = detail::encode_png(rgba.data(), uint32_t(skin_width), uint32_t(skin_height));
        if (png.empty()) return malformed(pixels_at, fmt::format("{}: PNG encoding failed", name));
        scene.images.push_back(EmbeddedImage{name, "image/png", std::move(png)});
        Material m;
        m.name = name;
        m.maps.push_back(TextureMap{TextureType::Diffuse, {}, {}, int32_t(scene.images.size() - 1)});
        scene.materials.push_back(std::move(m));
        return std::nullopt;
    };
    for (int32_t i = 0; i < num_skins; ++i) {
        if (!io::range_fits(at, 1, 4, size)) return malformed(at, fmt::format("skin {}: its type runs past the end of the file", i));
        const int32_t type = i32_at(bytes, at);
        if (type == 0) {
            if (!io::range_fits(at + 4, 1, area, size))
                return malformed(at + 4, fmt::format("skin {}: {} texels run past the end of the file ({} bytes)", i, area, size));
            if (auto e = add_image(at + 4, fmt::format("skin{}", i))) return *e;
            at += 4 + area;
        } else if (type == 1) {
            if (!io::range_fits(at + 4, 1, 4, size)) return malformed(at + 4, fmt::format("skin group {}: its count runs past the end of the file", i));
            const int32_t n = i32_at(bytes, at + 4);
            if (n <= 0 || uint64_t(n) > (size - at - 8) / (4 + area))
                return malformed(at + 4, fmt::format("skin group {}: {} images of {} texels (with their intervals) do not fit in the file ({} bytes)",
                                                     i, n, area, size));
            const uint64_t pixels_at = at + 8 + 4 * uint64_t(n);
            for (int32_t k = 0; k < n; ++k)
                if (auto e = add_image(pixels_at + uint64_t(k) * area, fmt::format("skin{}_{}", i, k))) return *e;
            warnings.add(WarningCode::Interpreted,
                         fmt::format("skin {} is a group of {} images the game shows in turn: each image is a material (skin{}_0 ...)", i, n, i),
                         at);
            at = pixels_at + uint64_t(n) * area;
        } else {
            return malformed(at, fmt::format("skin {}: type {} (0 single, 1 group)", i, type));
        }
    }
    detail::name_embedded_images(scene);

    // Texture coordinates and triangles, each section inside the file before it is read.
    const uint64_t st_at = at, tris_at = st_at + uint64_t(num_verts) * st_size;
    if (!io::range_fits(st_at, uint64_t(num_verts), st_size, size))
        return malformed(st_at, fmt::format("{} texture coordinates at {} ({} bytes each) run past the end of the file ({} bytes)", num_verts,
                                            st_at, st_size, size));
    if (!io::range_fits(tris_at, uint64_t(num_tris), triangle_size, size))
        return malformed(tris_at, fmt::format("{} triangles at {} ({} bytes each) run past the end of the file ({} bytes)", num_tris, tris_at,
                                              triangle_size, size));
    const float width = skin_width > 0 ? float(skin_width) : 256.0f, height = skin_height > 0 ? float(skin_height) : 256.0f;
    if (num_skins == 0 && (skin_width <= 0 || skin_height <= 0))
        warnings.add(WarningCode::Substituted,
                     fmt::format("skin size {} x {}: texture coordinates divided by 256 instead", skin_width, skin_height), at_skin_width);

    // A corner of a triangle that does not face front, on a vertex marked on the seam, takes the
    // skin's back half: s + skinwidth / 2. Such a corner is its own rigport vertex.
    Mesh mesh;
    mesh.name = "mdl";
    if (!scene.materials.empty()) mesh.material = 0;
    std::unordered_map<uint64_t, uint32_t> corner_vertex;
    std::vector<uint32_t> source_vertex;
    std::vector<Vec2> uvs;
    mesh.triangles.resize(size_t(num_tris));
    for (int32_t t = 0; t < num_tris; ++t) {
        const uint64_t tri = tris_at + uint64_t(t) * triangle_size;
        const bool faces_front = i32_at(bytes, tri) != 0;
        for (int k = 0; k < 3; ++k) {
            const int32_t v = i32_at(bytes, tri + 4 + 4 * k);
            if (v < 0 || v >= num_verts)
                return malformed(tri + 4 + 4 * k, fmt::format("triangle {}: vertex index {} outside 0 to {}", t, v, num_verts - 1));
            const uint64_t st = st_at + uint64_t(v) * st_size;
            const bool back_half = !faces_front && i32_at(bytes, st) != 0;
            const auto [it, added] = corner_vertex.try_emplace(uint64_t(v) << 1 | uint64_t(back_half), uint32_t(source_vertex.size()));
            if (added) {
                source_vertex.push_back(uint32_t(v));
                const double s = double(i32_at(bytes, st + 4)) + (back_half ? double(skin_width / 2) : 0.0), tt = double(i32_at(bytes, st + 8));
                uvs.push_back(Vec2{float((s + 0.5) / width), float((tt + 0.5) / height)});
            }
            mesh.triangles[size_t(t)][k] = it->second;
        }
    }
    if (num_tris == 0) warnings.add(WarningCode::ReaderDifference, "numtris is 0: an empty mesh (Quake refuses it)", at_num_tris);
    const uint64_t vertices = source_vertex.size();

    // Frames: a simple frame is one pose; a group frame holds several. Each is bounded by what is
    // left of the file before it is read, and the poses by the limits before anything is kept.
    const uint64_t pose_size = pose_header_size + uint64_t(vertex_size) * uint64_t(num_verts);
    at = tris_at + uint64_t(num_tris) * triangle_size;
    if (uint64_t(num_frames) > (size - at) / (4 + pose_size))
        return malformed(at_num_frames, fmt::format("{} frames of {} vertices at {} run past the end of the file ({} bytes)", num_frames,
                                                    num_verts, at, size));
    std::vector<uint64_t> pose_at;  // where each pose's bboxmin starts
    uint64_t groups = 0;
    std::optional<uint64_t> first_group;
    for (int32_t f = 0; f < num_frames; ++f) {
        if (!io::range_fits(at, 1, 4, size)) return malformed(at, fmt::format("frame {}: its type runs past the end of the file", f));
        const int32_t type = i32_at(bytes, at);
        uint64_t n = 1, poses_at = at + 4;
        if (type == 1) {
            if (!io::range_fits(at + 4, 1, 12, size)) return malformed(at + 4, fmt::format("frame group {}: its header runs past the end of the file", f));
            const int32_t count = i32_at(bytes, at + 4);
            if (count <= 0 || uint64_t(count) > (size - at - 16) / (4 + pose_size))
                return malformed(at + 4, fmt::format("frame group {}: {} poses of {} vertices (with their intervals) do not fit in the file ({} bytes)",
                                                     f, count, num_verts, size));
            n = uint64_t(count);
            poses_at = at + 16 + 4 * n;  // type, count, bboxmin, bboxmax, then the intervals
            if (!groups++) first_group = at;
        } else if (type != 0) {
            return malformed(at, fmt::format("frame {}: type {} (0 simple, 1 group)", f, type));
        }
        if (!io::range_fits(poses_at, n, pose_size, size))
            return malformed(poses_at, fmt::format("frame {}: {} poses of {} bytes run past the end of the file ({} bytes)", f, n, pose_size, size));
        if (pose_at.size() + n > options.max_frames)
            return make_error(ErrorCode::LimitExceeded, fmt::format("frame {}: more than {} poses in all (the frame limit)", f, options.max_frames), at);
        for (uint64_t k = 0; k < n; ++k) pose_at.push_back(poses_at + k * pose_size);
        at = poses_at + n * pose_size;
    }
    if (groups)
        warnings.add(WarningCode::Interpreted,
                     fmt::format("{} group frames (poses the game cycles by their own intervals): their poses read as consecutive frames", groups),
                     first_group);
    // Quake Model Editor appends a block of its own, magic "QMEX"; the engine never looks there.
    if (at != size)
        warnings.add(WarningCode::Ignored,
                     fmt::format("{} bytes after the last frame are not read{}", size - at,
                                 size - at >= 4 && std::memcmp(bytes.data() + at, "QMEX", 4) == 0 ? " (a QMEX block of Quake Model Editor)" : ""),
                     at);
    const uint64_t poses = pose_at.size();
    if (vertices * poses > options.max_elements)
        return make_error(ErrorCode::LimitExceeded,
                          fmt::format("{} poses of {} vertices exceed the limit of {} values", poses, vertices, options.max_elements), at_num_frames);

    // Positions: the header's one scale and translate for every pose.
    float scale[3], translate[3];
    bool bad_scale = false;
    for (int a = 0; a < 3; ++a) {
        scale[a] = f32_at(bytes, at_scale + 4 * a);
        translate[a] = f32_at(bytes, at_translate + 4 * a);
        if (!std::isfinite(scale[a]) || !std::isfinite(translate[a]) || !std::isfinite(scale[a] * 255.0f + translate[a]))
            bad_scale = true, scale[a] = 0, translate[a] = 0;
    }
    if (bad_scale) warnings.add(WarningCode::NonFiniteValue, "the header's scale or translate is not finite (set to 0)", at_scale);
    std::vector<std::string> names(poses);
    std::vector<std::vector<Vec3>> positions(poses), normals(poses);
    uint64_t bad_normals = 0;
    std::optional<uint64_t> first_bad_normal;
    for (uint64_t f = 0; f < poses; ++f) {
        names[f] = fixed_name(bytes, pose_at[f] + 8, frame_name_size);
        positions[f].resize(vertices);
        normals[f].resize(vertices);
        const uint64_t verts_at = pose_at[f] + pose_header_size;
        for (uint64_t v = 0; v < vertices; ++v) {
            const uint64_t p = verts_at + uint64_t(source_vertex[v]) * vertex_size;
            for (int a = 0; a < 3; ++a) positions[f][v][a] = float(bytes[p + a]) * scale[a] + translate[a];
            const uint8_t n = bytes[p + 3];
            if (n < detail::quake_normal_count) {
                normals[f][v] = detail::quake_normal_table[n];
            } else {
                normals[f][v] = Vec3{0, 0, 0};
                if (!bad_normals++) first_bad_normal = p + 3;
            }
        }
    }
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
    detail::add_frame_animations(scene, detail::group_frames_by_name(names), uint32_t(poses), rate);
    return scene;
}

}  // namespace rigport::mdl
