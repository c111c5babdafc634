// convert --target's geometry fixes (docs/targets.md "Fixing"): meshes over an engine's per-mesh
// limits split into parts, and a model over its whole-model limits decimated until it fits.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "pipeline/target_fix.hpp"
#include "process/simplify.hpp"
#include "process/split_meshes.hpp"

namespace rigport::detail {

namespace {

bool is_geometry(TargetMeasure m) {
    switch (m) {
        case TargetMeasure::Vertices:
        case TargetMeasure::Positions:
        case TargetMeasure::Triangles:
        case TargetMeasure::VerticesPerMesh:
        case TargetMeasure::TrianglesPerMesh:
        case TargetMeasure::JointsPerMesh:
        case TargetMeasure::Meshes: return true;
        default: return false;
    }
}

// The profile's geometry limits alone, so a trial is measured only on what these fixes change.
TargetProfile geometry_only(const TargetProfile& profile) {
    TargetProfile p;
    p.name = profile.name;
    for (const TargetLimit& l : profile.limits)
        if (is_geometry(l.measure)) p.limits.push_back(l);
    return p;
}

uint64_t limit(const TargetProfile& profile, TargetMeasure m) {
    for (const TargetLimit& l : profile.limits)
        if (l.measure == m) return l.most;
    return 0;
}

const TargetLimit* limit_of(const TargetProfile& profile, TargetMeasure m) {
    for (const TargetLimit& l : profile.limits)
        if (l.measure == m) return &l;
    return nullptr;
}

// The diagonal of the box of every vertex at rest.
double rest_size(const Scene& scene) {
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (const Mesh& mesh : scene.meshes)
        for (const Vec3& p : mesh.positions)
            for (int k = 0; k < 3; ++k) lo[k] = std::min(lo[k], double(p[size_t(k)])), hi[k] = std::max(hi[k], double(p[size_t(k)]));
    if (!(lo[0] <= hi[0])) return 0;
    return std::sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) + (hi[2] - lo[2]) * (hi[2] - lo[2]));
}

std::string split_message(const SplitResult& s, const TargetProfile& profile) {
    std::string why;
    for (TargetMeasure m : {TargetMeasure::VerticesPerMesh, TargetMeasure::TrianglesPerMesh, TargetMeasure::JointsPerMesh})
        if (const TargetLimit* l = limit_of(profile, m))
            why += fmt::format("{}{} {} ({})", why.empty() ? "" : ", ", l->most, target_measure_name(m), l->source);
    return fmt::format("split: {} mesh{} over {}'s {} now in {} more part{} ({} vertices copied onto the cuts); no vertex moves",
                       s.meshes_split, s.meshes_split == 1 ? "" : "es", profile.name, why, s.parts_added, s.parts_added == 1 ? "" : "s",
                       s.shared_vertices);
}

// The smallest ratio of what there is to what the whole-model limits take (1 when none is over).
double needed_ratio(const Scene& trial, const TargetProfile& geometry) {
    double ratio = 1;
    const ValidationReport report = check_target(trial, geometry);
    for (const Finding& f : report.findings) {
        for (const TargetLimit& l : geometry.limits) {
            if (f.code != fmt::format("target.{}", target_measure_name(l.measure))) continue;
            double have = 0;
            switch (l.measure) {
                case TargetMeasure::Vertices:
                case TargetMeasure::Positions: have = double(trial.vertex_count()); break;
                case TargetMeasure::Triangles: have = double(trial.triangle_count()); break;
                case TargetMeasure::Meshes: have = double(trial.meshes.size()); break;
                default: break;
            }
            if (have > 0) ratio = std::min(ratio, double(l.most) / have);
        }
    }
    return ratio;
}

}  // namespace

Status fit_geometry(Scene& scene, const TargetProfile& profile, double max_error, std::vector<std::string>& fixes) {
    const TargetProfile geometry = geometry_only(profile);
    if (geometry.limits.empty() || check_target(scene, geometry).findings.empty()) return Ok{};
    const SplitLimits per_mesh{limit(profile, TargetMeasure::VerticesPerMesh), limit(profile, TargetMeasure::TrianglesPerMesh),
                               limit(profile, TargetMeasure::JointsPerMesh)};
    const bool splits = per_mesh.vertices || per_mesh.triangles || per_mesh.joints;
    // A mesh count over the limit before any split comes from the materials: fewer triangles
    // cannot help it, and the final check names it.
    if (const TargetLimit* meshes = limit_of(profile, TargetMeasure::Meshes); meshes && scene.meshes.size() > meshes->most) return Ok{};

    // Splitting alone, when it is enough: nothing moves.
    Scene trial = scene;
    SplitResult split = splits ? split_meshes(trial, per_mesh) : SplitResult{};
    if (check_target(trial, geometry).findings.empty()) {
        scene = std::move(trial);
        fixes.push_back(split_message(split, profile));
        return Ok{};
    }
    // Decimation: from the ratio the limits ask for, a little lower each time the result is
    // still over one (seams keep vertices the count did not foresee), each trial from the model
    // as it came.
    double ratio = needed_ratio(trial, geometry) * 0.95;
    const double size = rest_size(scene);
    for (int attempt = 0; attempt < 24 && ratio > 0; ++attempt) {
        trial = scene;
        const SimplifyResult simplified = simplify_meshes(trial, ratio);
        split = splits ? split_meshes(trial, per_mesh) : SplitResult{};
        if (!check_target(trial, geometry).findings.empty()) {
            ratio *= std::min(0.9, needed_ratio(trial, geometry));
            continue;
        }
        const double fraction = size > 0 ? simplified.error / size : 0;
        std::string why;
        for (const Finding& f : check_target(scene, geometry).findings) why += (why.empty() ? "" : "; ") + f.message;
        fixes.push_back(fmt::format("decimated: {} triangles and {} vertices became {} and {} (meshoptimizer{}) because {}: the surface moved "
                                    "by about {:.3g}% of the model's size ({:.4g} units) at rest, meshoptimizer's estimate; the kept vertices "
                                    "do not move",
                                    simplified.triangles_before, simplified.vertices_before, simplified.triangles_after, simplified.vertices_after,
                                    simplified.sloppy_meshes ? ", vertex clustering where edge collapses stopped short" : "", why, fraction * 100,
                                    simplified.error));
        if (split.meshes_split) fixes.push_back(split_message(split, profile));
        if (max_error >= 0 && fraction > max_error)
            return make_error(ErrorCode::Unsupported, fmt::format("--target {}: decimating moves the surface by about {:.3g}% of the model's "
                                                                  "size, more than --max-error {:.3g}%",
                                                                  profile.name, fraction * 100, max_error * 100));
        scene = std::move(trial);
        return Ok{};
    }
    return Ok{};  // the final check names what is still over
}

}  // namespace rigport::detail
