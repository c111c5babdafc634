// Quake 3 MD3 writer: every animation baked into vertex frames, one surface per material, chosen
// joints as tags, Quake 3's limits refused (docs/md3.md "Writing").
#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <optional>

#include "formats/md3/md3.hpp"
#include "rigport/anim.hpp"
#include "rigport/process.hpp"
#include "support/byte_cursor.hpp"

namespace rigport::md3 {

namespace {

using D3 = std::array<double, 3>;

void warn(const SaveOptions& options, WarningCode code, std::string message) {
    if (options.warnings) options.warnings->add(code, std::move(message));
}

Error unsupported(std::string message) { return make_error(ErrorCode::Unsupported, std::move(message)); }

// A fixed-size name field, NUL-padded (the caller checked it fits with its NUL).
void put_name(io::ByteWriter& w, const std::string& name, uint32_t chars) {
    std::vector<uint8_t> field(chars, 0);
    std::copy_n(name.begin(), std::min<size_t>(name.size(), chars - 1), field.begin());
    w.bytes(field.data(), field.size());
}

// Meshes sharing a material (or none) make one surface.
struct Surface {
    std::string name, shader;  // shader empty = no shader record
    std::vector<uint32_t> meshes;
    uint64_t vertices = 0, triangles = 0;
};

std::string shader_of(const Material& m) {
    for (const TextureMap& t : m.maps)
        if (t.type == TextureType::Diffuse && !t.uri.empty()) return t.uri;
    return m.name;
}

Expected<std::vector<Surface>> surfaces_of(const Scene& scene, const SaveOptions& options) {
    std::vector<Surface> out;
    std::vector<int32_t> material_of;  // per surface
    for (uint32_t m = 0; m < scene.meshes.size(); ++m) {
        const Mesh& mesh = scene.meshes[m];
        const int32_t material = mesh.material >= 0 && size_t(mesh.material) < scene.materials.size() ? mesh.material : -1;
        // The first surface of the material with room for the mesh: meshes that share a material
        // share a surface up to Quake 3's per-surface limits, then the material gets another (so a
        // mesh split into parts for those limits stays in parts: docs/md3.md "Writing").
        size_t s = 0;
        while (s < out.size() && (material_of[s] != material || out[s].vertices + mesh.vertex_count() > max_verts ||
                                  out[s].triangles + mesh.triangles.size() > max_triangles))
            ++s;
        if (s == out.size()) {
            Surface surface;
            surface.name = mesh.name;
            if (material >= 0) {
                surface.shader = shader_of(scene.materials[size_t(material)]);
                if (surface.name.empty()) surface.name = scene.materials[size_t(material)].name;
            }
            if (surface.name.empty()) surface.name = fmt::format("surface{}", out.size());
            out.push_back(std::move(surface));
            material_of.push_back(material);
        }
        out[s].meshes.push_back(m);
        out[s].vertices += mesh.vertex_count();
        out[s].triangles += mesh.triangles.size();
    }
    if (out.size() > max_surfaces)
        return unsupported(fmt::format("{} surfaces (meshes merged by material within the per-surface limits): an MD3 holds at most {} (merge materials first)", out.size(), max_surfaces));
    for (Surface& s : out) {
        if (s.vertices > max_verts)
            return unsupported(fmt::format("surface '{}': {} vertices, an MD3 surface holds at most {} (split the mesh or give its parts "
                                           "materials of their own)", s.name, s.vertices, max_verts));
        if (s.triangles > max_triangles)
            return unsupported(fmt::format("surface '{}': {} triangles, an MD3 surface holds at most {}", s.name, s.triangles, max_triangles));
        if (s.shader.size() >= path_chars)
            return unsupported(fmt::format("surface '{}': shader '{}' is {} bytes, an MD3 shader name holds at most {}", s.name, s.shader,
                                           s.shader.size(), path_chars - 1));
        if (s.name.size() >= path_chars) {
            warn(options, WarningCode::DroppedData, fmt::format("surface name '{}' cut to {} bytes", s.name, path_chars - 1));
            s.name.resize(path_chars - 1);
        }
    }
    return out;
}

// The joints SaveOptions::md3.tags names, in its order.
Expected<std::vector<uint32_t>> tag_joints(const Scene& scene, const std::vector<std::string>& names) {
    if (names.size() > max_tags)
        return make_error(ErrorCode::InvalidArgument, fmt::format("{} tags asked for: an MD3 holds at most {}", names.size(), max_tags));
    std::vector<uint32_t> out;
    for (const std::string& name : names) {
        if (name.size() >= path_chars)
            return make_error(ErrorCode::InvalidArgument,
                              fmt::format("tag '{}': {} bytes, an MD3 tag name holds at most {}", name, name.size(), path_chars - 1));
        uint32_t j = 0;
        while (j < scene.skeleton.joints.size() && scene.skeleton.joints[j].name != name) ++j;
        if (j == scene.skeleton.joints.size())
            return make_error(ErrorCode::InvalidArgument, fmt::format("tag '{}': the scene has no joint of that name ({} joints)", name,
                                                                      scene.skeleton.joints.size()));
        out.push_back(j);
    }
    return out;
}

// A frame's name: the clip's name cut so that its number (from 1) fits the 16-byte field.
std::string frame_name(const std::string& clip, uint32_t number, bool& cut) {
    const std::string digits = std::to_string(number);
    const size_t room = frame_name_chars - 1 - digits.size();
    cut = cut || clip.size() > room;
    return clip.substr(0, room) + digits;
}

struct FrameRecord {
    D3 min{0, 0, 0}, max{0, 0, 0}, origin{0, 0, 0};
    double radius = 0;
    std::string name;
};

}  // namespace

Expected<Output> write(const Scene& input, const std::string& path, const SaveOptions& options) {
    // Quake 3 is Z up with clockwise front faces, as IQM (docs/md3.md "Axes").
    const std::optional<Scene> converted = iqm_conventions_copy(input);
    const Scene& scene = converted ? *converted : input;

    auto tags = tag_joints(scene, options.md3.tags);
    if (!tags) return tags.error();
    auto surfaces = surfaces_of(scene, options);
    if (!surfaces) return surfaces.error();
    // Frames counted before any is sampled (as bake_frames counts them).
    uint64_t frames = 0;
    for (const Animation& a : scene.animations) frames += std::max<uint64_t>(sampled_frame_count(a), 1);
    frames = std::max<uint64_t>(frames, 1);
    if (frames > max_frames)
        return unsupported(fmt::format("{} frames in {} animations: an MD3 holds at most {} (shorten the clips, or resample them at a "
                                       "lower rate)", frames, scene.animations.size(), max_frames));
    auto baked = bake_frames(scene);
    if (!baked) return baked.error();
    const uint32_t num_frames = uint32_t(baked->frames.size());

    // What an MD3 does not keep (the skeleton beyond its tags, colours, a second texcoord set ...)
    // is said by save_output from the registry row; the rate is the writer's own rule.
    for (const BakedClip& c : baked->clips)
        if (c.frame_rate != default_frame_rate && c.count > 1)
            warn(options, WarningCode::DroppedData,
                 fmt::format("animation '{}': {} frames per second; an MD3 stores no rate and reads at {} (Quake 3 takes it from "
                             "animation.cfg)", c.name, c.frame_rate, default_frame_rate));

    // Frame names, quantised positions and bounds.
    std::vector<FrameRecord> records(num_frames);
    bool cut = false;
    for (const BakedClip& c : baked->clips)
        for (uint32_t k = 0; k < c.count; ++k) records[c.first + k].name = frame_name(c.name, k + 1, cut);
    if (cut) warn(options, WarningCode::DroppedData, fmt::format("animation names cut so that a frame's name and number fit {} bytes", frame_name_chars - 1));
    // positions[frame][mesh][vertex] as int16 in 1/64 unit
    std::vector<std::vector<std::vector<std::array<int16_t, 3>>>> quantised(num_frames);
    for (uint32_t f = 0; f < num_frames; ++f) {
        const BakedFrame& frame = baked->frames[f];
        quantised[f].resize(scene.meshes.size());
        bool any = false;
        FrameRecord& r = records[f];
        for (uint32_t m = 0; m < scene.meshes.size(); ++m) {
            quantised[f][m].resize(frame.positions[m].size());
            for (size_t v = 0; v < frame.positions[m].size(); ++v)
                for (int k = 0; k < 3; ++k) {
                    const double x = double(frame.positions[m][v][k]) / xyz_scale;
                    if (!(std::fabs(x) <= 32767.0))
                        return unsupported(fmt::format("mesh '{}' vertex {} in frame {} ('{}'): coordinate {} is beyond the {} units an MD3 "
                                                       "holds (int16 in 1/64 unit): scale the model down (--scale)",
                                                       scene.meshes[m].name, v, f, frame.name, frame.positions[m][v][k], 32767.0 * xyz_scale));
                    const int16_t q = int16_t(std::lround(x));
                    quantised[f][m][v][k] = q;
                    const double p = double(q) * xyz_scale;
                    r.min[k] = any ? std::min(r.min[k], p) : p;
                    r.max[k] = any ? std::max(r.max[k], p) : p;
                    any = any || k == 2;
                }
        }
        for (int k = 0; k < 3; ++k) r.origin[k] = (r.min[k] + r.max[k]) / 2;
        for (uint32_t m = 0; m < scene.meshes.size(); ++m)
            for (const auto& q : quantised[f][m]) {
                double d2 = 0;
                for (int k = 0; k < 3; ++k) d2 += (q[k] * xyz_scale - r.origin[k]) * (q[k] * xyz_scale - r.origin[k]);
                r.radius = std::max(r.radius, std::sqrt(d2));
            }
    }

    // Tags: the joints' world transforms at each frame, sampled as bake_frames samples the poses.
    std::vector<Mat4> tag_frames;  // frame-major: frame * tags + tag
    if (!tags->empty()) {
        tag_frames.reserve(size_t(num_frames) * tags->size());
        auto add = [&](const std::vector<Transform>& pose) {
            const std::vector<Mat4> world = world_matrices(scene.skeleton, pose);
            for (uint32_t j : *tags) tag_frames.push_back(world[j]);
        };
        if (scene.animations.empty()) {
            add(bind_pose(scene.skeleton));
        } else {
            for (size_t i = 0; i < baked->clips.size(); ++i) {
                const BakedClip& c = baked->clips[i];
                for (uint32_t f = 0; f < c.count; ++f)
                    add(sample_pose(scene.skeleton, scene.animations[i], float(double(f) / c.frame_rate)));
            }
        }
    }

    io::ByteWriter w;
    const uint32_t num_tags = uint32_t(tags->size()), num_surfaces = uint32_t(surfaces->size());
    const uint32_t ofs_frames = header_size;
    const uint32_t ofs_tags = ofs_frames + frame_size * num_frames;
    const uint32_t ofs_surfaces = ofs_tags + tag_size * num_tags * num_frames;
    w.u32(magic_idp3);
    w.u32(md3_version);
    put_name(w, std::filesystem::path(path).filename().string(), path_chars);
    w.u32(0);  // flags
    for (uint32_t v : {num_frames, num_tags, num_surfaces, 0u, ofs_frames, ofs_tags, ofs_surfaces, 0u}) w.u32(v);
    for (const FrameRecord& r : records) {
        for (const D3* v : {&r.min, &r.max, &r.origin})
            for (double x : *v) w.f32(float(x));
        w.f32(float(r.radius));
        put_name(w, r.name, frame_name_chars);
    }
    for (size_t t = 0; t < tag_frames.size(); ++t) {
        const Mat4& m = tag_frames[t];
        put_name(w, scene.skeleton.joints[(*tags)[t % num_tags]].name, path_chars);
        for (int r = 0; r < 3; ++r) w.f32(float(m[3][r]));
        for (int i = 0; i < 3; ++i)
            for (int r = 0; r < 3; ++r) w.f32(float(m[i][r]));
    }
    for (const Surface& s : *surfaces) {
        const uint64_t start = w.size();
        const uint32_t num_shaders = s.shader.empty() ? 0 : 1;
        const uint32_t verts = uint32_t(s.vertices), triangles = uint32_t(s.triangles);
        const uint32_t ofs_shaders = surface_size, ofs_triangles = ofs_shaders + shader_size * num_shaders;
        const uint32_t ofs_st = ofs_triangles + triangle_size * triangles, ofs_xyz = ofs_st + st_size * verts;
        const uint32_t ofs_end = ofs_xyz + xyz_normal_size * verts * num_frames;
        w.u32(magic_idp3);
        put_name(w, s.name, path_chars);
        w.u32(0);  // flags
        for (uint32_t v : {num_frames, num_shaders, verts, triangles, ofs_triangles, ofs_shaders, ofs_st, ofs_xyz, ofs_end}) w.u32(v);
        if (num_shaders) {
            put_name(w, s.shader, path_chars);
            w.u32(0);  // shader index: the engine's own, set at load
        }
        uint32_t base = 0;
        for (uint32_t m : s.meshes) {
            for (const Triangle& t : scene.meshes[m].triangles)
                for (uint32_t i : t) w.u32(base + i);
            base += scene.meshes[m].vertex_count();
        }
        for (uint32_t m : s.meshes) {
            const Mesh& mesh = scene.meshes[m];
            for (uint32_t v = 0; v < mesh.vertex_count(); ++v) {
                const Vec2 st = mesh.texcoords.empty() ? Vec2{0, 0} : mesh.texcoords[0][v];
                w.f32(st[0]);
                w.f32(st[1]);
            }
        }
        for (uint32_t f = 0; f < num_frames; ++f)
            for (uint32_t m : s.meshes)
                for (size_t v = 0; v < quantised[f][m].size(); ++v) {
                    for (int16_t x : quantised[f][m][v]) w.u16(uint16_t(x));
                    w.u16(encode_normal(baked->frames[f].normals[m][v]));
                }
        if (w.size() - start != ofs_end) return make_error(ErrorCode::WriteFailed, fmt::format("surface '{}': layout mismatch", s.name));
    }
    w.patch_u32(104, uint32_t(w.size()));
    return Output{std::move(w.bytes()), {}, {}, {}};
}

}  // namespace rigport::md3
