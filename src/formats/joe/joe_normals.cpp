// VDrift's normal-swap heuristic (NeedsNormalSwap in model_joe03.cpp; docs/joe.md §4), winding
// against stored normals (§5), and the stored counts of a JOE file.
#include <algorithm>
#include <cmath>
#include <unordered_set>

#include "model/guarded.hpp"
#include "formats/joe/joe.hpp"
#include "rigport/jpk.hpp"

namespace rigport {

namespace {

// VDrift works in float (MathVector<float,3>); so does this, to decide borderline faces alike.
struct V3 {
    float x = 0, y = 0, z = 0;
};
V3 operator+(V3 a, V3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
V3 operator-(V3 a, V3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
V3 cross(V3 a, V3 b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
float dot(V3 a, V3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
V3 v3(const Vec3& v) { return {v[0], v[1], v[2]}; }
// (x, y, z) -> (x, -z, y): VDrift's correction for dof2joe's unconverted normals.
V3 swapped(V3 n) { return {n.x, -n.z, n.y}; }

enum class FaceClass { Skipped, Agree, Disagree, Perpendicular };

// g is the face's geometric normal, s the summed corner normals.
FaceClass classify(V3 g, V3 s) {
    const float gg = dot(g, g), ss = dot(s, s);
    if (!(gg > 1e-8f) || !(ss > 1e-8f)) return FaceClass::Skipped;
    const float cos = dot(g, s) / (std::sqrt(gg) * std::sqrt(ss));
    if (cos >= 0.5f) return FaceClass::Agree;
    if (cos <= -0.5f) return FaceClass::Disagree;
    return FaceClass::Perpendicular;
}

// The heuristic over one frame of triangles: VDrift's g = (v2-v0)x(v1-v0).
template <class Position, class Normal>
uint64_t perpendicular_faces(size_t faces, Position position, Normal normal) {
    uint64_t n = 0;
    for (size_t f = 0; f < faces; ++f) {
        const V3 p0 = position(f, 0), p1 = position(f, 1), p2 = position(f, 2);
        const V3 s = normal(f, 0) + normal(f, 1) + normal(f, 2);
        n += classify(cross(p2 - p0, p1 - p0), s) == FaceClass::Perpendicular;
    }
    return n;
}

}  // namespace

namespace joe {

uint64_t count_perpendicular(const Frame& frame) {
    return perpendicular_faces(
        frame.faces.size(), [&](size_t f, int k) { return v3(frame.verts[frame.faces[f].vertex[k]]); },
        [&](size_t f, int k) { return v3(frame.normals[frame.faces[f].normal[k]]); });
}

WindingCounts count_winding(const Frame& frame, bool swap_normals) {
    WindingCounts w;
    for (auto& face : frame.faces) {
        const V3 p0 = v3(frame.verts[face.vertex[0]]), p1 = v3(frame.verts[face.vertex[1]]), p2 = v3(frame.verts[face.vertex[2]]);
        V3 s;
        for (int k = 0; k < 3; ++k) {
            const V3 n = v3(frame.normals[face.normal[k]]);
            s = s + (swap_normals ? swapped(n) : n);
        }
        if (face.vertex[0] == face.vertex[1] || face.vertex[1] == face.vertex[2] || face.vertex[0] == face.vertex[2]) {
            ++w.degenerate;
            continue;
        }
        // CCW geometric normal (v1-v0)x(v2-v0), in double and without VDrift's 1e-8 cut: tiny faces
        // of a model in metres still have a direction (docs/joe.md §4 table, SOURCES counts).
        const double e1[3] = {double(p1.x) - p0.x, double(p1.y) - p0.y, double(p1.z) - p0.z};
        const double e2[3] = {double(p2.x) - p0.x, double(p2.y) - p0.y, double(p2.z) - p0.z};
        const double g[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        const double gg = g[0] * g[0] + g[1] * g[1] + g[2] * g[2];
        const double ss = double(s.x) * s.x + double(s.y) * s.y + double(s.z) * s.z;
        if (!(gg > 0) || !(ss > 0)) {  // no direction to agree with: neither agrees nor disagrees
            ++w.perpendicular;
            continue;
        }
        const double cos = (g[0] * s.x + g[1] * s.y + g[2] * s.z) / (std::sqrt(gg) * std::sqrt(ss));
        if (cos >= 0.5) ++w.agree;
        else if (cos <= -0.5) ++w.disagree;
        else ++w.perpendicular;
    }
    return w;
}

}  // namespace joe

static Expected<JoeCounts> inspect_joe_unguarded(std::span<const uint8_t> bytes) {
    Warnings warnings;
    auto file = joe::parse(bytes, LoadOptions{}, warnings);
    if (!file) return file.error();
    JoeCounts counts;
    counts.magic = file->magic;
    counts.version = file->version;
    for (auto& frame : file->frames) {
        JoeFrameCounts c;
        c.faces = uint32_t(frame.faces.size());
        c.verts = frame.num_verts;
        c.texcoords = frame.num_texcoords;
        c.normals = frame.num_normals;
        std::unordered_set<uint64_t> unique;
        for (auto& face : frame.faces)
            for (int k = 0; k < 3; ++k)
                unique.insert(uint64_t(face.vertex[k]) | uint64_t(face.texcoord[k]) << 16 | uint64_t(face.normal[k]) << 32);
        c.corners = unique.size();
        counts.frames.push_back(c);
    }
    return counts;
}

Expected<JoeCounts> inspect_joe(std::span<const uint8_t> bytes) {
    return detail::guarded(std::string(), "reading", [&] { return inspect_joe_unguarded(bytes); });
}

namespace joe {

Expected<std::vector<StoredPart>> stored_parts(std::span<const uint8_t> bytes) {
    auto counts = inspect_joe(bytes);
    if (!counts) return counts.error();
    return detail::guarded(std::string(), "reading", [&]() -> Expected<std::vector<StoredPart>> {
        std::vector<StoredPart> parts;
        for (auto& f : counts->frames)
            parts.push_back(StoredPart{"frame", {{"faces", f.faces}, {"verts", f.verts}, {"texcoords", f.texcoords}, {"normals", f.normals}, {"corners", f.corners}}});
        return parts;
    });
}

}  // namespace joe

NormalSwapTest test_vdrift_normal_swap(const Mesh& mesh) {
    NormalSwapTest test;
    test.faces = mesh.triangles.size();
    test.limit = test.faces / 4;
    if (mesh.normals.size() != mesh.positions.size()) return test;
    const auto& tris = mesh.triangles;
    auto frame_count = [&](const MorphTarget* target) {
        auto position = [&](size_t f, int k) {
            V3 p = v3(mesh.positions[tris[f][k]]);
            if (target && !target->position_deltas.empty()) p = p + v3(target->position_deltas[tris[f][k]]);
            return p;
        };
        auto normal = [&](size_t f, int k) {
            V3 n = v3(mesh.normals[tris[f][k]]);
            if (target && !target->normal_deltas.empty()) n = n + v3(target->normal_deltas[tris[f][k]]);
            return n;
        };
        return perpendicular_faces(tris.size(), position, normal);
    };
    test.perpendicular = frame_count(nullptr);
    for (auto& target : mesh.morph_targets) test.perpendicular = std::max(test.perpendicular, frame_count(&target));
    test.fires = test.perpendicular > test.limit;
    return test;
}

std::vector<NormalSwapTest> fix_vdrift_normals(Scene& scene) {
    std::vector<NormalSwapTest> tests;
    for (auto& mesh : scene.meshes) {
        tests.push_back(test_vdrift_normal_swap(mesh));
        if (!tests.back().fires) continue;
        auto turn = [](Vec3& n) { n = Vec3{n[0], -n[2], n[1]}; };
        for (auto& n : mesh.normals) turn(n);
        // The swap is linear, so a delta turns with its normals.
        for (auto& target : mesh.morph_targets)
            for (auto& d : target.normal_deltas) turn(d);
        // Tangents were made for the old normals; they no longer fit.
        mesh.tangents.clear();
    }
    return tests;
}

}  // namespace rigport
