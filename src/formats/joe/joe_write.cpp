// Scene -> JOE v3 (docs/joe.md §2, §9 rules 7-8): magic IDP2, one frame plus one per morph target,
// Z up and CCW, V top-down, arrays deduplicated bit-exactly, VDrift's limits enforced unless forced.
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <optional>
#include <unordered_map>

#include "formats/joe/joe.hpp"
#include "support/byte_cursor.hpp"
#include "rigport/process.hpp"

namespace rigport::joe {

namespace {

void warn(const SaveOptions& options, WarningCode code, std::string message) {
    if (options.warnings) options.warnings->add(code, std::move(message));
}

// Indexes values by their exact bits, first occurrence first.
template <size_t N>
struct Pool {
    std::vector<std::array<float, N>> values;
    std::unordered_map<std::string, uint32_t> index;

    uint32_t add(const std::array<float, N>& v) {
        std::string key(reinterpret_cast<const char*>(v.data()), sizeof(float) * N);
        auto [it, added] = index.try_emplace(std::move(key), uint32_t(values.size()));
        if (added) values.push_back(v);
        return it->second;
    }
};

// One merged mesh: corners in triangle order with their values per frame.
struct Merged {
    std::vector<Triangle> triangles;   // into positions
    std::vector<Vec3> positions, normals;
    std::vector<Vec2> texcoords;
    std::vector<std::vector<Vec3>> frame_positions, frame_normals;  // per morph frame, per vertex
    std::vector<uint8_t> flat;  // per triangle: its mesh has no normals, so it gets its face normal
    bool flat_normals = false;  // some triangle has
};

Vec3 face_normal(const Vec3& a, const Vec3& b, const Vec3& c) {
    const double e1[3] = {double(b[0]) - a[0], double(b[1]) - a[1], double(b[2]) - a[2]};
    const double e2[3] = {double(c[0]) - a[0], double(c[1]) - a[1], double(c[2]) - a[2]};
    const double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
    const double len = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (!(len > 0) || !std::isfinite(len)) return Vec3{0, 0, 1};
    return Vec3{float(n[0] / len), float(n[1] / len), float(n[2] / len)};
}

Expected<Merged> merge(const Scene& scene, const SaveOptions& options) {
    Merged m;
    // Morph frames: every mesh with targets must have the same number; meshes without get zeros.
    size_t frames = 0;
    bool frames_agree = true;
    for (auto& mesh : scene.meshes)
        if (!mesh.morph_targets.empty()) {
            if (frames != 0 && frames != mesh.morph_targets.size()) frames_agree = false;
            frames = std::max(frames, mesh.morph_targets.size());
        }
    if (!frames_agree) {
        warn(options, WarningCode::DroppedData, "meshes have different numbers of morph targets: only frame 0 is written");
        frames = 0;
    }
    m.frame_positions.resize(frames);
    m.frame_normals.resize(frames);
    for (auto& mesh : scene.meshes) {
        const uint32_t base = uint32_t(m.positions.size());
        const bool flat = mesh.normals.empty() && !mesh.triangles.empty();
        m.flat_normals = m.flat_normals || flat;
        const bool uv = !mesh.texcoords.empty();
        for (uint32_t v = 0; v < mesh.vertex_count(); ++v) {
            m.positions.push_back(mesh.positions[v]);
            m.normals.push_back(mesh.normals.empty() ? Vec3{0, 0, 0} : mesh.normals[v]);
            m.texcoords.push_back(uv ? mesh.texcoords[0][v] : Vec2{0, 0});
            for (size_t k = 0; k < frames; ++k) {
                Vec3 p = mesh.positions[v], n = m.normals.back();
                if (k < mesh.morph_targets.size()) {
                    const MorphTarget& t = mesh.morph_targets[k];
                    if (!t.position_deltas.empty())
                        for (int a = 0; a < 3; ++a) p[a] += t.position_deltas[v][a];
                    if (!t.normal_deltas.empty() && !mesh.normals.empty())
                        for (int a = 0; a < 3; ++a) n[a] += t.normal_deltas[v][a];
                }
                m.frame_positions[k].push_back(p);
                m.frame_normals[k].push_back(n);
            }
        }
        for (auto& t : mesh.triangles) m.triangles.push_back({base + t[0], base + t[1], base + t[2]});
        m.flat.resize(m.triangles.size(), flat);
    }
    return m;
}

struct FrameData {
    std::vector<Face> faces;
    Pool<3> verts, normals;
    Pool<2> texcoords;
};

// A frame from per-vertex values: faces index three deduplicated arrays. Flat normals (triangles
// of a mesh without normals) are the CCW face normal of each triangle.
FrameData build_frame(const Merged& m, const std::vector<Vec3>& positions, const std::vector<Vec3>& normals) {
    FrameData fd;
    fd.faces.resize(m.triangles.size());
    for (size_t f = 0; f < m.triangles.size(); ++f) {
        const Triangle& t = m.triangles[f];
        const bool flat = m.flat[f];
        const Vec3 face = flat ? face_normal(positions[t[0]], positions[t[1]], positions[t[2]]) : Vec3{};
        for (int k = 0; k < 3; ++k) {
            fd.faces[f].vertex[k] = uint16_t(fd.verts.add(positions[t[k]]));
            fd.faces[f].normal[k] = uint16_t(fd.normals.add(flat ? face : normals[t[k]]));
            fd.faces[f].texcoord[k] = uint16_t(fd.texcoords.add(m.texcoords[t[k]]));
        }
    }
    return fd;
}

}  // namespace

Expected<std::vector<uint8_t>> write(const Scene& input, const SaveOptions& options) {
    auto converted = z_up_ccw_copy(input);  // VDrift draws Z up, counter-clockwise
    const Scene& scene = converted ? *converted : input;
    if (scene.meshes.empty()) return make_error(ErrorCode::Unsupported, "the scene has no mesh: a JOE file holds one");

    // One JOE holds one mesh and no material (the texture is named in VDrift's .car file or the
    // track's object list): several meshes are merged, and each texture is reported.
    if (scene.meshes.size() > 1)
        warn(options, WarningCode::DroppedData,
             fmt::format("{} meshes merged into one: a JOE file holds one mesh (VDrift's advice: one file per material)", scene.meshes.size()));
    for (auto& mesh : scene.meshes) {
        if (mesh.material < 0 || size_t(mesh.material) >= scene.materials.size()) continue;
        const Material& mat = scene.materials[size_t(mesh.material)];
        std::string texture = mat.name;
        for (auto& map : mat.maps)
            if (map.type == TextureType::Diffuse) {
                texture = map.uri;
                break;
            }
        warn(options, WarningCode::DroppedData,
             fmt::format("JOE stores no material: mesh '{}' uses texture '{}'; name it in the car's .car file or the track's object list",
                         mesh.name, texture));
    }
    // What JOE cannot hold (a skeleton, skins, colours, tangents ...) is said by save_output from
    // the registry row; a missing texcoord set is JOE's own rule.
    for (auto& mesh : scene.meshes)
        if (mesh.texcoords.empty() && !mesh.triangles.empty())
            warn(options, WarningCode::DroppedData, "a mesh without texcoords gets texcoord (0,0) at every corner");

    auto merged = merge(scene, options);
    if (!merged) return merged.error();
    const Merged& m = *merged;
    if (m.flat_normals) warn(options, WarningCode::DroppedData, "a mesh without normals gets flat face normals");
    for (auto& p : m.positions)
        for (float x : p)
            if (!std::isfinite(x)) return make_error(ErrorCode::InvalidArgument, "a vertex position is not finite");

    const uint64_t faces = m.triangles.size();
    if (faces > vdrift_max_faces && !options.joe.force)
        return make_error(ErrorCode::Unsupported,
                          fmt::format("{} faces: VDrift loads at most {} per JOE file (split the mesh, or force to write it anyway)",
                                      faces, vdrift_max_faces));
    if (faces > UINT32_MAX) return make_error(ErrorCode::Unsupported, fmt::format("{} faces do not fit a u32 count", faces));

    std::vector<FrameData> frames;
    frames.push_back(build_frame(m, m.positions, m.normals));
    for (size_t k = 0; k < m.frame_positions.size(); ++k) frames.push_back(build_frame(m, m.frame_positions[k], m.frame_normals[k]));
    for (size_t fi = 0; fi < frames.size(); ++fi) {
        const FrameData& fd = frames[fi];
        const struct {
            const char* what;
            size_t n;
        } arrays[3] = {{"vertices", fd.verts.values.size()}, {"normals", fd.normals.values.size()}, {"texcoords", fd.texcoords.values.size()}};
        for (auto& a : arrays) {
            if (a.n > u16_entries)
                return make_error(ErrorCode::Unsupported,
                                  fmt::format("frame {}: {} distinct {}: JOE indices are u16, so at most {} fit", fi, a.n, a.what, u16_entries));
            if (a.n > signed_index_max + 1 && options.joe.force)
                warn(options, WarningCode::ReaderDifference,
                     fmt::format("frame {}: {} distinct {} written (forced): indices above {} read as negative in signed-short readers",
                                 fi, a.n, a.what, signed_index_max));
            if (a.n > signed_index_max + 1 && !options.joe.force)
                return make_error(ErrorCode::Unsupported,
                                  fmt::format("frame {}: {} distinct {} need indices above {}, which old VDrift, Stunt Rally and the "
                                              "Blender importer read as negative (force to write them anyway)",
                                              fi, a.n, a.what, signed_index_max));
        }
    }
    if (options.joe.force && faces > vdrift_max_faces)
        warn(options, WarningCode::ReaderDifference, fmt::format("{} faces written (forced): VDrift refuses more than {}", faces, vdrift_max_faces));

    io::ByteWriter w;
    w.u32(magic_idp2);
    w.u32(joe_version);
    w.u32(uint32_t(faces));
    w.u32(uint32_t(frames.size()));
    for (auto& fd : frames) {
        for (auto& face : fd.faces) {
            for (auto i : face.vertex) w.u16(i);
            for (auto i : face.normal) w.u16(i);
            for (auto i : face.texcoord) w.u16(i);
        }
        w.u32(uint32_t(fd.verts.values.size()));
        w.u32(uint32_t(fd.texcoords.values.size()));
        w.u32(uint32_t(fd.normals.values.size()));
        for (auto& v : fd.verts.values)
            for (float x : v) w.f32(x);
        for (auto& n : fd.normals.values)
            for (float x : n) w.f32(x);
        for (auto& t : fd.texcoords.values)
            for (float x : t) w.f32(x);
    }
    return std::move(w.bytes());
}

}  // namespace rigport::joe
