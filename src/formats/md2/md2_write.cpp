// Scene -> MD2 (docs/md2.md "Writing"): every animation baked into frames at 10 per second, meshes
// merged into one, each frame quantised to bytes with its own box, skins from the materials.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "formats/common/embedded_images.hpp"
#include "formats/common/vertex_frames.hpp"
#include "formats/md2/md2.hpp"
#include "rigport/process.hpp"
#include "support/byte_cursor.hpp"

namespace rigport::md2 {

namespace {

void warn(const SaveOptions& options, WarningCode code, std::string message) {
    if (options.warnings) options.warnings->add(code, std::move(message));
}

// The diffuse map of a material, or nullptr.
const TextureMap* diffuse_map(const Material& m) {
    for (const TextureMap& map : m.maps)
        if (map.type == TextureType::Diffuse && !map.uri.empty()) return &map;
    return nullptr;
}

}  // namespace

Expected<std::vector<uint8_t>> write(const Scene& input, const SaveOptions& options) {
    auto converted = iqm_conventions_copy(input);  // Quake's: Z up, clockwise front faces
    const Scene& scene = converted ? *converted : input;
    if (scene.meshes.empty()) return make_error(ErrorCode::Unsupported, "the scene has no mesh: an MD2 file holds one");

    if (scene.meshes.size() > 1)
        warn(options, WarningCode::DroppedData, fmt::format("{} meshes merged into one: an MD2 file holds one mesh", scene.meshes.size()));
    int32_t first_material = -1;
    bool materials_differ = false;
    for (size_t i = 0; i < scene.meshes.size(); ++i) {
        const Mesh& mesh = scene.meshes[i];
        if (i == 0) first_material = mesh.material;
        else if (mesh.material != first_material) materials_differ = true;
        // What MD2 cannot hold (colours, tangents, a second texcoord set, the skeleton ...) is said
        // by save_output from the registry row.
        if (mesh.texcoords.empty() && !mesh.triangles.empty())
            warn(options, WarningCode::DroppedData, "a mesh without texcoords gets texcoord (0,0) at every corner");
    }
    if (materials_differ)
        warn(options, WarningCode::DroppedData, "meshes use different materials: an MD2 skin covers the whole model, so the first mesh's is used");

    // Limits first, before anything is baked.
    uint64_t vertices = 0, triangles = 0;
    for (const Mesh& mesh : scene.meshes) vertices += mesh.vertex_count(), triangles += mesh.triangles.size();
    if (vertices > max_vertices)
        return make_error(ErrorCode::Unsupported, fmt::format("{} vertices: Quake 2 loads at most {} per MD2 (MAX_VERTS)", vertices, max_vertices));
    if (triangles > max_triangles)
        return make_error(ErrorCode::Unsupported,
                          fmt::format("{} triangles: Quake 2 loads at most {} per MD2 (MAX_TRIANGLES)", triangles, max_triangles));
    if (vertices == 0) return make_error(ErrorCode::Unsupported, "the meshes have no vertices: Quake 2 refuses an MD2 without any");

    // Skins: the first mesh's material's diffuse map first, then every other material's, once each.
    std::vector<std::string> skins;
    const Material* skin_material = nullptr;
    auto add_skin = [&](const Material& m) {
        const TextureMap* map = diffuse_map(m);
        if (!map || std::find(skins.begin(), skins.end(), map->uri) != skins.end()) return;
        if (map->uri.size() >= skin_name_size) {
            warn(options, WarningCode::DroppedData,
                 fmt::format("texture '{}' is not written as a skin: MD2 skin names hold at most {} bytes", map->uri, skin_name_size - 1));
            return;
        }
        if (skins.empty()) skin_material = &m;
        skins.push_back(map->uri);
    };
    if (first_material >= 0 && size_t(first_material) < scene.materials.size()) add_skin(scene.materials[size_t(first_material)]);
    for (const Material& m : scene.materials) add_skin(m);
    if (skins.size() > max_skins)
        return make_error(ErrorCode::Unsupported,
                          fmt::format("{} skins (materials' diffuse textures): Quake 2 loads at most {} per MD2 (MAX_MD2SKINS)", skins.size(),
                                      max_skins));

    // Skin size: the first skin's image (held by the scene, or found on disk by the caller:
    // SaveOptions::images), else 256 x 256.
    uint32_t width = 256, height = 256;
    bool sized = false;
    if (skin_material) {
        if (const std::vector<uint8_t>* image = detail::texture_image(scene, options, *diffuse_map(*skin_material))) {
            const auto size = detail::image_dimensions(*image);
            if (size[0] > 0 && size[1] > 0 && size[0] <= 32767 && size[1] <= 32767) width = size[0], height = size[1], sized = true;
        }
    }
    if (!skins.empty() && !sized)
        warn(options, WarningCode::Substituted,
             fmt::format("the size of skin '{}' is not known here: texture coordinates are written for 256 x 256 texels", skins.front()));
    if (height > max_skin_height)
        warn(options, WarningCode::ReaderDifference, fmt::format("skin height {}: Quake 2 refuses skins taller than {}", height, max_skin_height));

    auto baked = rigport::detail::bake_within_frame_limit(scene, frame_rate, max_frames, "Quake 2", "MD2", "MAX_FRAMES");
    if (!baked) return baked.error();
    const std::vector<BakedFrame>& frames = baked->frames;

    // Names: the clip's name and the frame's number, within 15 bytes and a NUL.
    std::vector<std::string> names(frames.size());
    bool truncated = false;
    for (const BakedClip& clip : baked->clips)
        for (uint32_t k = 0; k < clip.count; ++k) names[clip.first + k] = detail::numbered_frame_name(clip.name, k + 1, clip.count, frame_name_size - 1, truncated);
    if (truncated) warn(options, WarningCode::DroppedData, "animation names shortened: an MD2 frame name holds 15 bytes with its number");

    // Corners: one MD2 vertex and one st pair per rigport vertex, meshes one after another.
    std::vector<std::array<int16_t, 2>> st;
    std::vector<Vec2> uv;
    uint64_t outside = 0;  // st values beyond the skin's edges (tiling coordinates)
    std::vector<std::array<uint16_t, 3>> tris;
    for (const Mesh& mesh : scene.meshes) {
        const uint32_t base = uint32_t(uv.size());
        for (uint32_t v = 0; v < mesh.vertex_count(); ++v) {
            const Vec2 t = mesh.texcoords.empty() ? Vec2{0, 0} : mesh.texcoords[0][v];
            uv.push_back(t);
            // A texel of the skin, 0 to size - 1: DarkPlaces resets any other to (0, 0) (docs/md2.md
            // "Writing"); the GL commands keep the exact coordinate.
            const auto texel = [&](float x, uint32_t n) {
                const long k = std::lround(double(x) * n);
                outside += k < 0 || k > long(n);
                return int16_t(std::clamp(k, 0l, long(n) - 1));
            };
            st.push_back({texel(t[0], width), texel(t[1], height)});
        }
        for (const Triangle& t : mesh.triangles) tris.push_back({uint16_t(base + t[0]), uint16_t(base + t[1]), uint16_t(base + t[2])});
    }

    if (outside)
        warn(options, WarningCode::Substituted,
             fmt::format("{} texture coordinates lie outside the skin: an MD2's st pairs hold texels of the skin, so they were clamped to "
                         "its edge (the GL commands keep them)", outside));

    const uint32_t frame_size = frame_header_size + vertex_size * uint32_t(vertices);
    const uint32_t num_glcmds = uint32_t(tris.size()) * 10 + 1;  // per triangle: a 3-vertex fan (count + 3 x (s, t, index)); then 0
    const uint32_t ofs_skins = header_size, ofs_st = ofs_skins + skin_name_size * uint32_t(skins.size());
    const uint32_t ofs_tris = ofs_st + st_size * uint32_t(st.size()), ofs_frames = ofs_tris + triangle_size * uint32_t(tris.size());
    const uint32_t ofs_glcmds = ofs_frames + frame_size * uint32_t(frames.size()), ofs_end = ofs_glcmds + 4 * num_glcmds;

    io::ByteWriter w;
    for (uint32_t word : {magic, version, width, height, frame_size, uint32_t(skins.size()), uint32_t(vertices), uint32_t(st.size()),
                          uint32_t(tris.size()), num_glcmds, uint32_t(frames.size()), ofs_skins, ofs_st, ofs_tris, ofs_frames, ofs_glcmds, ofs_end})
        w.u32(word);
    for (const std::string& s : skins) {
        char name[skin_name_size] = {};
        std::memcpy(name, s.data(), s.size());
        w.bytes(name, skin_name_size);
    }
    for (auto& p : st) w.u16(uint16_t(p[0])), w.u16(uint16_t(p[1]));
    for (auto& t : tris) {
        for (uint16_t i : t) w.u16(i);
        for (uint16_t i : t) w.u16(i);  // st index = vertex index
    }
    for (size_t f = 0; f < frames.size(); ++f) {
        // The frame's box over every mesh: translate = its minimum, scale = its extent / 255.
        float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (const auto& mesh : frames[f].positions)
            for (const Vec3& p : mesh)
                for (int a = 0; a < 3; ++a) {
                    if (!std::isfinite(p[a]))
                        return make_error(ErrorCode::InvalidArgument, fmt::format("frame '{}': a vertex position is not finite", names[f]));
                    lo[a] = std::min(lo[a], p[a]), hi[a] = std::max(hi[a], p[a]);
                }
        float scale[3];
        for (int a = 0; a < 3; ++a) scale[a] = (hi[a] - lo[a]) / 255.0f;
        for (float s : scale) w.f32(s);
        for (float t : lo) w.f32(t);
        char name[frame_name_size] = {};
        std::memcpy(name, names[f].data(), names[f].size());
        w.bytes(name, frame_name_size);
        for (size_t m = 0; m < frames[f].positions.size(); ++m)
            for (size_t v = 0; v < frames[f].positions[m].size(); ++v) {
                const Vec3& p = frames[f].positions[m][v];
                for (int a = 0; a < 3; ++a)
                    w.u8(scale[a] > 0 ? uint8_t(std::clamp(std::lround((double(p[a]) - lo[a]) / scale[a]), 0l, 255l)) : 0);
                w.u8(nearest_normal(frames[f].normals[m][v]));
            }
    }
    // GL commands: Quake 2's renderer draws from them, not from the triangles.
    for (auto& t : tris) {
        w.i32(-3);  // negative: a fan
        for (uint16_t i : t) {
            w.f32(uv[i][0]);
            w.f32(uv[i][1]);
            w.i32(i);
        }
    }
    w.i32(0);
    return std::move(w.bytes());
}

}  // namespace rigport::md2
