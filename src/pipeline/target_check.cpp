// check_target (docs/targets.md "Checking"): the scene measured against an engine profile, one
// finding per broken limit naming the worst part, its count and the limit's source.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <set>

#include "pipeline/target_fix.hpp"
#include "pipeline/target_textures.hpp"
#include "rigport/anim.hpp"
#include "rigport/targets.hpp"

namespace rigport {

namespace {

// The largest count of one part (a mesh, a vertex, a name) and which part it is.
struct Worst {
    uint64_t count = 0;
    std::string part;  // "mesh 'body'", "vertex 12 of mesh 'body'", ...
    uint64_t over = 0;  // how many parts break the limit
    void see(uint64_t n, uint64_t most, const std::string& what) {
        if (n > most) ++over;
        if (n > count || part.empty()) count = n, part = what;
    }
};

std::string mesh_label(const Scene& scene, size_t m) {
    const std::string& name = scene.meshes[m].name;
    return name.empty() ? fmt::format("mesh {}", m) : fmt::format("mesh '{}'", name);
}

Worst measure(const Scene& scene, const TargetProfile& profile, TargetMeasure what, uint64_t most) {
    Worst w;
    switch (what) {
        case TargetMeasure::Influences:
            for (size_t m = 0; m < scene.meshes.size(); ++m) {
                const Mesh& mesh = scene.meshes[m];
                if (mesh.skin.empty()) continue;
                for (uint32_t v = 0; v < mesh.vertex_count(); ++v) {
                    uint64_t n = 0;
                    for (const Influence* in = mesh.skin.begin(v); in != mesh.skin.begin(v) + mesh.skin.count(v); ++in) n += in->weight != 0;
                    w.see(n, most, fmt::format("vertex {} of {}", v, mesh_label(scene, m)));
                }
            }
            break;
        case TargetMeasure::Joints: w.see(scene.skeleton.joints.size(), most, "the skeleton"); break;
        case TargetMeasure::JointsPerMesh:
            for (size_t m = 0; m < scene.meshes.size(); ++m) {
                std::set<uint32_t> joints;
                for (const Influence& in : scene.meshes[m].skin.influences)
                    if (in.weight != 0) joints.insert(in.joint);
                w.see(joints.size(), most, mesh_label(scene, m));
            }
            break;
        case TargetMeasure::Roots: {
            uint64_t roots = 0;
            for (const Joint& j : scene.skeleton.joints) roots += j.parent < 0;
            w.see(roots, most, "the skeleton");
            break;
        }
        case TargetMeasure::VerticesPerMesh:
            for (size_t m = 0; m < scene.meshes.size(); ++m) w.see(scene.meshes[m].vertex_count(), most, mesh_label(scene, m));
            break;
        case TargetMeasure::TrianglesPerMesh:
            for (size_t m = 0; m < scene.meshes.size(); ++m) w.see(scene.meshes[m].triangles.size(), most, mesh_label(scene, m));
            break;
        case TargetMeasure::Vertices: {
            uint64_t n = 0;
            for (const Mesh& mesh : scene.meshes) n += mesh.vertex_count();
            w.see(n, most, "the model");
            break;
        }
        case TargetMeasure::Positions: {
            // Seams split rigport's vertices by normal and texture coordinate; studiomdl counts
            // the positions (each with its bone), so equal positions count once.
            std::set<std::array<uint32_t, 3>> seen;
            for (const Mesh& mesh : scene.meshes)
                for (const Vec3& p : mesh.positions) seen.insert({std::bit_cast<uint32_t>(p[0]), std::bit_cast<uint32_t>(p[1]), std::bit_cast<uint32_t>(p[2])});
            w.see(seen.size(), most, "the model");
            break;
        }
        case TargetMeasure::Triangles: {
            uint64_t n = 0;
            for (const Mesh& mesh : scene.meshes) n += mesh.triangles.size();
            w.see(n, most, "the model");
            break;
        }
        case TargetMeasure::Meshes: w.see(scene.meshes.size(), most, "the model"); break;
        case TargetMeasure::Frames: {
            // As the vertex-animation writers bake (docs/formats.md "Vertex animation"): each
            // animation sampled at the profile's rate (or its own, sampled_frame_count) from 0 to
            // its end, at least one frame each, and one frame without any.
            uint64_t n = scene.animations.empty() ? 1 : 0;
            for (const Animation& a : scene.animations) {
                const double d = double(a.duration());
                if (profile.frame_rate > 0)
                    n += std::isfinite(d) && d > 0 ? uint64_t(std::min(std::floor(d * profile.frame_rate + 0.5), 1e15)) + 1 : 1;
                else
                    n += std::max<uint64_t>(sampled_frame_count(a), 1);
            }
            w.see(n, most, "the model's animations");
            break;
        }
        case TargetMeasure::JointNameBytes:
            for (const Joint& j : scene.skeleton.joints) w.see(j.name.size(), most, fmt::format("joint '{}'", j.name));
            break;
        case TargetMeasure::MeshNameBytes:
            for (const Mesh& mesh : scene.meshes) w.see(mesh.name.size(), most, fmt::format("mesh '{}'", mesh.name));
            break;
        case TargetMeasure::MaterialNameBytes:
            for (const Material& mat : scene.materials) w.see(mat.name.size(), most, fmt::format("material '{}'", mat.name));
            break;
        case TargetMeasure::AnimationNameBytes:
            for (const Animation& a : scene.animations) w.see(a.name.size(), most, fmt::format("animation '{}'", a.name));
            break;
    }
    return w;
}

}  // namespace

ValidationReport check_target(const Scene& scene, const TargetProfile& profile, const std::string& path, const std::vector<GltfImage>& textures) {
    ValidationReport report;
    report.path = path;
    report.format = scene.meta.source_format;
    for (const TargetLimit& limit : profile.limits) {
        const Worst w = measure(scene, profile, limit.measure, limit.most);
        if (w.count <= limit.most) continue;
        const std::string_view what = target_measure_name(limit.measure);
        std::string many = w.over > 1 ? fmt::format(" ({} over it)", w.over) : "";
        report.add(Severity::Error, fmt::format("target.{}", what),
                   fmt::format("{}: {} {}, {} takes at most {}{} ({})", w.part, w.count, what, profile.name, limit.most, many, limit.source), {},
                   std::max<uint64_t>(w.over, 1));
    }
    if (!profile.root_name.empty()) {
        for (const Joint& j : scene.skeleton.joints)
            if (j.parent < 0 && j.name != profile.root_name)
                report.add(Severity::Error, "target.root_name",
                           fmt::format("root joint '{}': {} wants the root named '{}' ({})", j.name, profile.name, profile.root_name, profile.root_name_source));
    }
    if (profile.weighted_vertices) {
        for (size_t m = 0; m < scene.meshes.size(); ++m) {
            const Mesh& mesh = scene.meshes[m];
            if (mesh.skin.empty()) continue;
            uint64_t bare = 0;
            uint32_t first = 0;
            for (uint32_t v = 0; v < mesh.vertex_count(); ++v) {
                double sum = 0;
                for (const Influence* in = mesh.skin.begin(v); in != mesh.skin.begin(v) + mesh.skin.count(v); ++in) sum += in->weight;
                if (!(sum > 0) && bare++ == 0) first = v;
            }
            if (bare)
                report.add(Severity::Error, "target.unweighted",
                           fmt::format("{}: {} vertices without a joint's weight (the first: vertex {}); {} moves only weighted vertices",
                                       mesh_label(scene, m), bare, first, profile.name),
                           {}, bare);
        }
    }
    if (profile.name_characters != TargetProfile::NameCharacters::Any) {
        // One finding for every name the engine's tools cannot take, naming the first.
        uint64_t bad = 0;
        std::string first;
        auto look = [&](const std::string& name, const char* kind) {
            for (char c : name)
                if (!detail::name_character_allowed(profile.name_characters, static_cast<unsigned char>(c))) {
                    if (bad++ == 0) first = fmt::format("{} '{}'", kind, name);
                    return;
                }
        };
        if (!profile.only_animation_names) {
            for (const Joint& j : scene.skeleton.joints) look(j.name, "joint");
            for (const Mesh& m : scene.meshes) look(m.name, "mesh");
            for (const Material& m : scene.materials) look(m.name, "material");
        }
        for (const Animation& a : scene.animations) look(a.name, "animation");
        if (bad) {
            const char* takes = profile.name_characters == TargetProfile::NameCharacters::Identifier
                                    ? "letters, digits and '_'"
                                    : "no '\"' and no control characters";
            report.add(Severity::Error, "target.name_characters",
                       fmt::format("{}: {} takes {} in {}names ({}){}", first, profile.name, takes, profile.only_animation_names ? "animation " : "",
                                   profile.name_characters_source, bad > 1 ? fmt::format(" ({} names break it)", bad) : ""),
                       {}, bad);
        }
    }
    detail::check_target_textures(scene, profile, textures, report);
    return report;
}

}  // namespace rigport
