// Scene -> Quake 1 MDL (docs/mdl.md "Writing"): every animation baked into frames at 10 per
// second, meshes merged into one, every frame quantised to bytes in ONE box for the whole file, the
// skin quantised to Quake's palette.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <unordered_map>

#include "formats/common/embedded_images.hpp"
#include "formats/common/quake_normals.hpp"
#include "formats/common/vertex_frames.hpp"
#include "formats/mdl/mdl.hpp"
#include "rigport/process.hpp"
#include "support/byte_cursor.hpp"

namespace rigport::mdl {

namespace {

void warn(const SaveOptions& options, WarningCode code, std::string message) {
    if (options.warnings) options.warnings->add(code, std::move(message));
}

// The skin: palette indices, width a multiple of 4 (Quake refuses others), and the width its
// texture coordinates are measured in (the image's own, before padding).
struct Skin {
    uint32_t width = 256, height = 256, texel_width = 256;
    std::vector<uint8_t> pixels;
};

// Palette index 8, (123, 123, 123): the flat grey of a model without an image.
constexpr uint8_t grey_index = 8;

// The nearest colour (squared distance in RGB) among the palette's lit colours, 0 to 223.
uint8_t nearest_colour(uint8_t r, uint8_t g, uint8_t b) {
    uint8_t best = 0;
    int best_d = INT32_MAX;
    for (uint32_t i = 0; i < fullbright_first; ++i) {
        const int dr = int(palette[i][0]) - r, dg = int(palette[i][1]) - g, db = int(palette[i][2]) - b;
        const int d = dr * dr + dg * dg + db * db;
        if (d < best_d) best_d = d, best = uint8_t(i);
    }
    return best;
}

Skin make_skin(const Scene& scene, int32_t material, const SaveOptions& options) {
    Skin skin;
    const Material* m = material >= 0 && size_t(material) < scene.materials.size() ? &scene.materials[size_t(material)] : nullptr;
    // The image the scene holds, or the one the pipeline found on disk (SaveOptions::images).
    const TextureMap* map = m ? detail::diffuse_map_with_image(scene, options, *m) : nullptr;
    if (!map) {
        std::string why = "the first mesh has no material";
        if (m) {
            why = fmt::format("material '{}' has no diffuse texture", m->name);
            for (const TextureMap& t : m->maps)
                if (t.type == TextureType::Diffuse && !t.uri.empty())
                    why = fmt::format("texture '{}' of material '{}' is neither held in the scene nor found beside the model", t.uri, m->name);
        }
        warn(options, WarningCode::Substituted, fmt::format("{}: the MDL gets a flat grey skin of 256 x 256 texels", why));
        skin.pixels.assign(size_t(skin.width) * skin.height, grey_index);
        return skin;
    }
    auto image = detail::decode_rgba(*detail::texture_image(scene, options, *map), max_skin_side);
    if (!image) {
        warn(options, WarningCode::Substituted,
             fmt::format("texture '{}' cannot be a skin ({}): the MDL gets a flat grey skin of 256 x 256 texels", map->uri, image.error().message));
        skin.pixels.assign(size_t(skin.width) * skin.height, grey_index);
        return skin;
    }
    skin.texel_width = image->width;
    skin.width = (image->width + 3) / 4 * 4;
    skin.height = image->height;
    if (skin.width != image->width)
        warn(options, WarningCode::Interpreted,
             fmt::format("texture '{}' is {} texels wide: padded to {} with its last column (Quake needs a multiple of 4)", map->uri,
                         image->width, skin.width));
    if (skin.height > max_skin_height)
        warn(options, WarningCode::ReaderDifference,
             fmt::format("skin height {}: GLQuake refuses skins taller than {} (the software renderer 200)", skin.height, max_skin_height));
    skin.pixels.resize(size_t(skin.width) * skin.height);
    std::unordered_map<uint32_t, uint8_t> known;
    bool translucent = false;
    for (uint32_t y = 0; y < skin.height; ++y)
        for (uint32_t x = 0; x < skin.width; ++x) {
            const uint8_t* p = image->rgba.data() + (size_t(y) * image->width + std::min(x, image->width - 1)) * 4;
            translucent = translucent || p[3] < 255;
            const uint32_t key = uint32_t(p[0]) << 16 | uint32_t(p[1]) << 8 | p[2];
            auto [it, added] = known.try_emplace(key, 0);
            if (added) it->second = nearest_colour(p[0], p[1], p[2]);
            skin.pixels[size_t(y) * skin.width + x] = it->second;
        }
    if (translucent) warn(options, WarningCode::DroppedData, fmt::format("texture '{}': its transparency is dropped (an MDL skin is opaque)", map->uri));
    return skin;
}

std::string vertex_limit_message(uint64_t vertices) {
    return fmt::format("{} vertices: GLQuake loads at most {} per MDL (MAXALIASVERTS; some later engines 2048)", vertices, max_vertices);
}

// Quake's mark for a vertex on the seam (ALIAS_ONSEAM); any non-zero value works for the engine.
constexpr int32_t onseam_mark = 0x20;

}  // namespace

Expected<std::vector<uint8_t>> write(const Scene& input, const SaveOptions& options) {
    auto converted = iqm_conventions_copy(input);  // Quake's: Z up, clockwise front faces
    const Scene& scene = converted ? *converted : input;
    if (scene.meshes.empty()) return make_error(ErrorCode::Unsupported, "the scene has no mesh: an MDL file holds one");
    if (scene.meshes.size() > 1)
        warn(options, WarningCode::DroppedData, fmt::format("{} meshes merged into one: an MDL file holds one mesh", scene.meshes.size()));
    bool materials_differ = false;
    for (const Mesh& mesh : scene.meshes) {
        if (mesh.material != scene.meshes[0].material) materials_differ = true;
        // What MDL cannot hold (colours, tangents, a second texcoord set, the skeleton ...) is said
        // by save_output from the registry row.
        if (mesh.texcoords.empty() && !mesh.triangles.empty())
            warn(options, WarningCode::DroppedData, "a mesh without texcoords gets texcoord (0,0) at every corner");
    }
    if (materials_differ)
        warn(options, WarningCode::DroppedData, "meshes use different materials: an MDL skin covers the whole model, so the first mesh's is used");

    // Limits first, before anything is baked.
    uint64_t vertices = 0, triangles = 0;
    for (const Mesh& mesh : scene.meshes) vertices += mesh.vertex_count(), triangles += mesh.triangles.size();
    // Seam pairs join below (at most two rigport vertices per MDL vertex); the exact count is
    // checked once they have.
    if (vertices > 2 * uint64_t(max_vertices))
        return make_error(ErrorCode::Unsupported, vertex_limit_message(vertices));
    if (triangles > max_triangles)
        return make_error(ErrorCode::Unsupported,
                          fmt::format("{} triangles: GLQuake loads at most {} per MDL (MAXALIASTRIS)", triangles, max_triangles));
    if (vertices == 0) return make_error(ErrorCode::Unsupported, "the meshes have no vertices: Quake refuses an MDL without any");
    if (triangles == 0) return make_error(ErrorCode::Unsupported, "the meshes have no triangles: Quake refuses an MDL without any");

    auto baked = rigport::detail::bake_within_frame_limit(scene, frame_rate, max_frames, "GLQuake", "MDL", "MAXALIASFRAMES");
    if (!baked) return baked.error();
    const std::vector<BakedFrame>& frames = baked->frames;

    std::vector<std::string> names(frames.size());
    bool truncated = false;
    for (const BakedClip& clip : baked->clips)
        for (uint32_t k = 0; k < clip.count; ++k)
            names[clip.first + k] = detail::numbered_frame_name(clip.name, k + 1, clip.count, frame_name_size - 1, truncated);
    if (truncated) warn(options, WarningCode::DroppedData, "animation names shortened: an MDL frame name holds 15 bytes with its number");

    // One box over every frame: MDL has one scale and translate per file, so a step is 1/255 of
    // the whole animation's extent on each axis (docs/mdl.md "Writing").
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    double radius = 0;
    for (size_t f = 0; f < frames.size(); ++f)
        for (const auto& mesh : frames[f].positions)
            for (const Vec3& p : mesh) {
                for (int a = 0; a < 3; ++a) {
                    if (!std::isfinite(p[a]))
                        return make_error(ErrorCode::InvalidArgument, fmt::format("frame '{}': a vertex position is not finite", names[f]));
                    lo[a] = std::min(lo[a], p[a]), hi[a] = std::max(hi[a], p[a]);
                }
                radius = std::max(radius, std::sqrt(double(p[0]) * p[0] + double(p[1]) * p[1] + double(p[2]) * p[2]));
            }
    float scale[3];
    for (int a = 0; a < 3; ++a) scale[a] = (hi[a] - lo[a]) / 255.0f;
    auto quantise = [&](const Vec3& p, int a) {
        return scale[a] > 0 ? uint8_t(std::clamp(std::lround((double(p[a]) - lo[a]) / scale[a]), 0l, 255l)) : uint8_t(0);
    };

    const Skin skin = make_skin(scene, scene.meshes[0].material, options);
    size_t other_skins = 0;
    for (size_t i = 0; i < scene.materials.size(); ++i)
        if (int32_t(i) != scene.meshes[0].material && detail::diffuse_map_with_image(scene, options, scene.materials[i])) ++other_skins;
    if (other_skins)
        warn(options, WarningCode::DroppedData,
             fmt::format("{} other materials' images are not written: the MDL gets one skin, the first mesh's", other_skins));

    // Corners: each rigport vertex with its own s, t, meshes one after another.
    std::vector<std::array<int32_t, 2>> st;
    std::vector<std::array<uint32_t, 3>> tris;
    double area = 0;
    for (size_t m = 0; m < scene.meshes.size(); ++m) {
        const Mesh& mesh = scene.meshes[m];
        const uint32_t base = uint32_t(st.size());
        for (uint32_t v = 0; v < mesh.vertex_count(); ++v) {
            const Vec2 t = mesh.texcoords.empty() ? Vec2{0, 0} : mesh.texcoords[0][v];
            // The reader's (s + 0.5) / width undone; coordinates far outside the skin are clamped.
            const auto texel = [](float x, uint32_t n) {
                const double s = std::isfinite(x) ? double(x) * n - 0.5 : 0.0;
                return int32_t(std::clamp(std::lround(s), -(1l << 24), 1l << 24));
            };
            st.push_back({texel(t[0], skin.texel_width), texel(t[1], skin.height)});
        }
        const auto& p = frames[0].positions[m];
        for (const Triangle& t : mesh.triangles) {
            tris.push_back({base + t[0], base + t[1], base + t[2]});
            const Vec3 e1{p[t[1]][0] - p[t[0]][0], p[t[1]][1] - p[t[0]][1], p[t[1]][2] - p[t[0]][2]};
            const Vec3 e2{p[t[2]][0] - p[t[0]][0], p[t[2]][1] - p[t[0]][1], p[t[2]][2] - p[t[0]][2]};
            const double cx = double(e1[1]) * e2[2] - double(e1[2]) * e2[1], cy = double(e1[2]) * e2[0] - double(e1[0]) * e2[2],
                         cz = double(e1[0]) * e2[1] - double(e1[1]) * e2[0];
            area += 0.5 * std::sqrt(cx * cx + cy * cy + cz * cz);
        }
    }
    const uint32_t count = uint32_t(st.size());

    // Every vertex of every frame packed: x, y, z and the normal index, one word each.
    std::vector<uint32_t> packed(size_t(count) * frames.size());
    for (size_t f = 0; f < frames.size(); ++f) {
        uint32_t v = 0;
        for (size_t m = 0; m < frames[f].positions.size(); ++m)
            for (size_t i = 0; i < frames[f].positions[m].size(); ++i, ++v) {
                const Vec3& p = frames[f].positions[m][i];
                packed[size_t(v) * frames.size() + f] = uint32_t(quantise(p, 0)) | uint32_t(quantise(p, 1)) << 8 |
                                                        uint32_t(quantise(p, 2)) << 16 |
                                                        uint32_t(detail::nearest_quake_normal(frames[f].normals[m][i])) << 24;
            }
    }

    // The seam rule used backwards (docs/mdl.md "Writing"): two vertices equal in every frame,
    // with one t and s half a skin apart, are one MDL vertex on the seam; the one on the right is
    // what triangles that do not face front see. A triangle cannot both face front and not, so a
    // pair whose two halves meet in one triangle stays two vertices.
    std::vector<uint32_t> order(count);
    for (uint32_t v = 0; v < count; ++v) order[v] = v;
    const size_t nf = frames.size();
    auto same_place = [&](uint32_t a, uint32_t b) {
        return st[a][1] == st[b][1] && std::equal(packed.begin() + a * nf, packed.begin() + (a + 1) * nf, packed.begin() + b * nf);
    };
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        if (st[a][1] != st[b][1]) return st[a][1] < st[b][1];
        const int c = std::memcmp(packed.data() + a * nf, packed.data() + b * nf, nf * 4);
        if (c != 0) return c < 0;
        return st[a][0] != st[b][0] ? st[a][0] < st[b][0] : a < b;
    });
    const int32_t half = int32_t(skin.width / 2);
    std::vector<int32_t> joins(count, -1), joined_by(count, -1);  // back vertex -> its front, and back
    for (size_t i = 0; i < order.size();) {
        size_t j = i + 1;
        while (j < order.size() && same_place(order[i], order[j])) ++j;
        for (size_t a = i; a < j; ++a)  // the run is sorted by s: a back partner lies after its front
            for (size_t b = a + 1; b < j && joined_by[order[a]] < 0 && joins[order[a]] < 0; ++b) {
                const uint32_t front = order[a], back = order[b];
                if (st[back][0] == st[front][0] + half && joins[back] < 0 && joined_by[back] < 0)
                    joins[back] = int32_t(front), joined_by[front] = int32_t(back);
            }
        i = j;
    }
    for (bool changed = true; changed;) {
        changed = false;
        for (const auto& t : tris) {
            bool back = false, front = false;
            for (uint32_t c : t) back = back || joins[c] >= 0, front = front || joined_by[c] >= 0;
            if (back && front)
                for (uint32_t c : t)
                    if (joins[c] >= 0) joined_by[size_t(joins[c])] = -1, joins[c] = -1, changed = true;
        }
    }
    std::vector<uint32_t> number(count);
    uint32_t kept = 0;
    for (uint32_t v = 0; v < count; ++v)
        if (joins[v] < 0) number[v] = kept++;
    if (kept > max_vertices) return make_error(ErrorCode::Unsupported, vertex_limit_message(kept));

    io::ByteWriter w;
    w.u32(magic);
    w.u32(version);
    for (float s : scale) w.f32(s);
    for (float t : lo) w.f32(t);
    w.f32(float(radius));
    for (int a = 0; a < 3; ++a) w.f32(0.0f);  // eye position: the file's origin
    for (uint32_t word : {1u, skin.width, skin.height, kept, uint32_t(tris.size()), uint32_t(frames.size()), 0u, 0u})
        w.u32(word);  // numskins ... numframes, synctype 0 (synchronised), flags 0 (no effects)
    w.f32(float(area / double(tris.size())));  // size: the mean triangle area of frame 0, as modelgen wrote it
    w.u32(0);                                   // a single skin
    w.bytes(skin.pixels.data(), skin.pixels.size());
    for (uint32_t v = 0; v < count; ++v)
        if (joins[v] < 0) w.i32(joined_by[v] >= 0 ? onseam_mark : 0), w.i32(st[v][0]), w.i32(st[v][1]);
    for (auto& t : tris) {
        bool back = false;
        for (uint32_t c : t) back = back || joins[c] >= 0;
        w.i32(back ? 0 : 1);  // facesfront: 0 where a corner is the back half of a seam vertex
        for (uint32_t c : t) w.i32(int32_t(number[joins[c] >= 0 ? uint32_t(joins[c]) : c]));
    }
    for (size_t f = 0; f < frames.size(); ++f) {
        uint8_t bmin[3] = {255, 255, 255}, bmax[3] = {0, 0, 0};
        for (uint32_t v = 0; v < count; ++v)
            for (int a = 0; a < 3; ++a) {
                const uint8_t q = uint8_t(packed[size_t(v) * nf + f] >> (8 * a));
                bmin[a] = std::min(bmin[a], q), bmax[a] = std::max(bmax[a], q);
            }
        w.u32(0);  // a simple frame
        w.bytes(bmin, 3), w.u8(0);
        w.bytes(bmax, 3), w.u8(0);
        char name[frame_name_size] = {};
        std::memcpy(name, names[f].data(), names[f].size());
        w.bytes(name, frame_name_size);
        for (uint32_t v = 0; v < count; ++v)
            if (joins[v] < 0) w.u32(packed[size_t(v) * nf + f]);
    }
    return std::move(w.bytes());
}

}  // namespace rigport::mdl
