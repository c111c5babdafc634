// Validation driver and the format-independent scene checks (docs/iqm.md §9 rules 7, 10, 13 in scene terms).
#include "rigport/validate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "model/guarded.hpp"
#include "process/clip_end.hpp"
#include "rigport/formats.hpp"

namespace rigport {

const char* to_string(Severity severity) {
    switch (severity) {
        case Severity::Info: return "info";
        case Severity::Warning: return "warning";
        case Severity::Error: return "error";
    }
    return "?";
}

uint64_t ValidationReport::count(Severity severity) const {
    uint64_t n = 0;
    for (auto& f : findings)
        if (f.severity == severity) ++n;
    return n;
}

std::optional<uint64_t> ValidationReport::tally(std::string_view name, std::string_view key) const {
    for (auto& t : tallies)
        if (t.name == name)
            for (auto& [k, v] : t.counts)
                if (k == key) return v;
    return std::nullopt;
}

void ValidationReport::add(Severity severity, std::string code, std::string message, std::optional<uint64_t> offset,
                           uint64_t count) {
    findings.push_back(Finding{severity, std::move(code), std::move(message), offset, count});
}

namespace {

using D3 = std::array<double, 3>;

D3 sub(const Vec3& a, const Vec3& b) { return {double(a[0]) - b[0], double(a[1]) - b[1], double(a[2]) - b[2]}; }
D3 cross(const D3& a, const D3& b) {
    return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
double length(const float* v, int n) {
    double s = 0;
    for (int i = 0; i < n; ++i) s += double(v[i]) * v[i];
    return std::sqrt(s);
}

const char* winding_name(Winding w) { return w == Winding::Clockwise ? "clockwise" : "counter-clockwise"; }

// Normals are often stored in 8 or 16 bits, so a 1e-3 test would flag every quantized file;
// 1e-2 still catches unnormalized or garbage normals.
constexpr double normal_tolerance = 1e-2;
constexpr double weight_tolerance = 1e-3;
constexpr double quaternion_tolerance = 1e-3;

void check_skin(const Scene& scene, ValidationReport& report) {
    uint64_t bad_sum = 0, twice = 0;
    double worst = 0;
    for (auto& mesh : scene.meshes) {
        if (mesh.skin.empty()) continue;
        for (uint32_t v = 0; v < mesh.vertex_count(); ++v) {
            const Influence* inf = mesh.skin.begin(v);
            uint32_t n = mesh.skin.count(v);
            if (n == 0) continue;
            double sum = 0;
            for (uint32_t i = 0; i < n; ++i) {
                sum += inf[i].weight;
                for (uint32_t k = 0; k < i; ++k)
                    if (inf[k].joint == inf[i].joint && inf[i].weight != 0 && inf[k].weight != 0) {
                        ++twice;
                        break;
                    }
            }
            if (std::abs(sum - 1.0) > weight_tolerance) {
                ++bad_sum;
                worst = std::max(worst, std::abs(sum - 1.0));
            }
        }
    }
    if (bad_sum)
        report.add(Severity::Warning, "skin.weight_sum",
                   fmt::format("{} vertices have skin weights not summing to 1 (worst off by {:.3g})", bad_sum, worst), {}, bad_sum);
    if (twice)
        report.add(Severity::Warning, "skin.duplicate_joint",
                   fmt::format("{} influences name a joint the same vertex already uses", twice), {}, twice);
}

void check_quaternions(const Scene& scene, ValidationReport& report) {
    uint64_t bad_bind = 0, bad_keys = 0;
    for (auto& j : scene.skeleton.joints)
        if (std::abs(length(j.bind.rotate.data(), 4) - 1.0) > quaternion_tolerance) ++bad_bind;
    for (auto& a : scene.animations)
        for (auto& t : a.tracks)
            if (t.channel == Channel::Rotation)
                for (size_t k = 0; k + 4 <= t.values.size(); k += 4)
                    if (std::abs(length(&t.values[k], 4) - 1.0) > quaternion_tolerance) ++bad_keys;
    if (bad_bind)
        report.add(Severity::Warning, "joint.quaternion",
                   fmt::format("{} joints have a bind rotation that is not a unit quaternion", bad_bind), {}, bad_bind);
    if (bad_keys)
        report.add(Severity::Warning, "animation.quaternion",
                   fmt::format("{} rotation keys are not unit quaternions", bad_keys), {}, bad_keys);
}

// A triangle is "clockwise relative to its normals" when its geometric normal (b-a)x(c-a)
// points against the sum of its vertex normals.
void check_geometry(const Scene& scene, ValidationReport& report) {
    uint64_t cw = 0, ccw = 0, non_unit = 0, bad_w = 0;
    for (auto& mesh : scene.meshes) {
        for (auto& n : mesh.normals)
            if (std::abs(length(n.data(), 3) - 1.0) > normal_tolerance) ++non_unit;
        for (auto& t : mesh.tangents)
            if (t[3] != 1.0f && t[3] != -1.0f) ++bad_w;
        if (mesh.normals.empty()) continue;
        for (auto& tri : mesh.triangles) {
            const Vec3 &a = mesh.positions[tri[0]], &b = mesh.positions[tri[1]], &c = mesh.positions[tri[2]];
            D3 face = cross(sub(b, a), sub(c, a));
            double d = 0;
            for (uint32_t v : tri)
                for (int k = 0; k < 3; ++k) d += face[k] * mesh.normals[v][k];
            if (d < 0)
                ++cw;
            else if (d > 0)
                ++ccw;
        }
    }
    if (cw + ccw > 0) {
        const Winding front = scene.meta.front_face;
        const uint64_t against = front == Winding::Clockwise ? ccw : front == Winding::CounterClockwise ? cw : 0;
        if (front == Winding::Unknown) {
            report.add(Severity::Info, "winding.unknown",
                       fmt::format("the format does not say which winding is front; {} triangles are clockwise and {} "
                                   "counter-clockwise relative to their normals", cw, ccw));
        } else if (2 * against > cw + ccw) {
            report.add(Severity::Warning, "winding.inconsistent",
                       fmt::format("{} of {} triangles are not {} relative to their normals, as the format's front "
                                   "faces are: the winding is probably reversed", against, cw + ccw, winding_name(front)),
                       {}, against);
        } else if (against > 0) {
            report.add(Severity::Info, "winding.mixed",
                       fmt::format("{} of {} triangles are not {} relative to their normals", against, cw + ccw,
                                   winding_name(front)),
                       {}, against);
        }
    }
    if (non_unit)
        report.add(Severity::Warning, "normal.not_unit", fmt::format("{} normals are not unit length", non_unit), {}, non_unit);
    if (bad_w)
        report.add(Severity::Warning, "tangent.handedness", fmt::format("{} tangents have w other than +1 or -1", bad_w), {}, bad_w);
}

void check_usage(const Scene& scene, ValidationReport& report) {
    const auto& joints = scene.skeleton.joints;
    bool any_skin = false;
    std::vector<bool> joint_used(joints.size(), false);
    for (auto& mesh : scene.meshes) {
        if (mesh.skin.empty()) continue;
        any_skin = true;
        for (auto& inf : mesh.skin.influences)
            if (inf.weight != 0 && inf.joint < joints.size()) joint_used[inf.joint] = true;
    }
    // A joint that moves skinned children is used even without weights of its own.
    for (size_t j = joints.size(); j-- > 0;)
        if (joint_used[j] && joints[j].parent >= 0) joint_used[size_t(joints[j].parent)] = true;
    if (any_skin) {
        uint64_t unused = 0;
        for (bool u : joint_used) unused += !u;
        if (unused)
            report.add(Severity::Info, "joint.unused",
                       fmt::format("{} of {} joints neither influence a vertex nor parent one that does", unused, joints.size()),
                       {}, unused);
    } else if (!joints.empty() && !scene.meshes.empty()) {
        report.add(Severity::Info, "skin.absent", fmt::format("the scene has {} joints but no skinned mesh", joints.size()));
    }
    std::vector<bool> material_used(scene.materials.size(), false);
    for (auto& mesh : scene.meshes)
        if (mesh.material >= 0 && size_t(mesh.material) < material_used.size()) material_used[size_t(mesh.material)] = true;
    uint64_t unused_materials = 0;
    for (bool u : material_used) unused_materials += !u;
    if (unused_materials)
        report.add(Severity::Info, "material.unused", fmt::format("{} materials are not used by any mesh", unused_materials),
                   {}, unused_materials);
}

}  // namespace

void validate_scene(const Scene& scene, ValidationReport& report) {
    // The invariants (index ranges, stream sizes, parent order, finite values) come first: the
    // checks below index with the scene's own numbers and assume them.
    if (auto st = check_invariants(scene); !st) {
        report.add(Severity::Error, "scene.invariants", st.error().message);
        return;
    }
    check_skin(scene, report);
    check_quaternions(scene, report);
    check_geometry(scene, report);
    check_usage(scene, report);
    // Cal3D DURATION past the last keys (docs/cal3d.md §9 rule 6): players differ on the gap.
    for (auto& a : scene.animations)
        if (const detail::ClipGap gap = detail::clip_gap(a); gap.short_tracks)
            report.add(Severity::Warning, "anim.ends-before-duration",
                       fmt::format("animation '{}': {} of {} tracks end before DURATION {} s (last key {} s); IMVU holds the last key, upstream "
                                   "Cal3D extrapolates (convert --clip-end)", a.name, gap.short_tracks, gap.tracks, a.stated_duration, a.duration()));
}

static ValidationReport validate_bytes_unguarded(std::span<const uint8_t> bytes, const std::string& path,
                                                const LoadOptions& options) {
    ValidationReport report;
    report.path = path;
    const FormatInfo* format = options.format.empty() ? detect_format(bytes, path) : find_format(options.format);
    if (!format) {
        std::string message = options.format.empty() ? std::string("not a recognised model format (content and extension)")
                                                      : fmt::format("unknown format '{}'", options.format);
        // An archive holds models but is none: say how to name one of them, as load() does.
        if (options.format.empty())
            if (std::string text = archive_not_a_model(bytes, path); !text.empty()) message = std::move(text);
        report.add(Severity::Error, "format.unknown", std::move(message));
        return report;
    }
    report.format = std::string(format->name);
    if (format->validate) format->validate(bytes, options, report);

    LoadOptions load_options = options;
    load_options.format = std::string(format->name);
    auto scene = load_bytes(bytes, path, load_options);
    if (!scene) {
        // The format's own checks usually met the same structural error already; say it once.
        const Error& e = scene.error();
        bool said = false;
        for (auto& f : report.findings)
            if (f.severity == Severity::Error && f.message == e.message && f.offset == e.offset) said = true;
        // The file itself was read (validate_file): NotFound and ReadFailed come from a part it
        // names (a buffer, an image), missing or refused by confinement. The file could not be
        // checked, which is not a finding about it; the CLI exits 2 for these, as convert does.
        // A file rigport recognises but does not read (FBX before 3.0, a format without a reader)
        // is not found wanting either: the CLI exits 3 for it, as convert and info do.
        const char* code = e.code == ErrorCode::NotFound     ? "part.missing"
                           : e.code == ErrorCode::ReadFailed  ? "part.unreadable"
                           : e.code == ErrorCode::Unsupported ? "load.unsupported"
                                                              : "load.failed";
        if (!said) report.add(Severity::Error, code, e.to_string(), e.offset);
        return report;
    }
    // Formats without a validator still have their reader's typed warnings to show.
    if (!format->validate)
        for (auto& w : scene->warnings.items)
            report.add(Severity::Warning, fmt::format("read.{}", to_string(w.code)), w.message, w.offset, w.count);
    validate_scene(*scene, report);
    return report;
}

// As guarded() (core/guarded.hpp), but the exception becomes the report's Error finding.
ValidationReport validate_bytes(std::span<const uint8_t> bytes, const std::string& path, const LoadOptions& options) {
    try {
        return validate_bytes_unguarded(bytes, path, options);
    } catch (...) {
        const Error e = detail::current_exception_error(path, "validating");
        ValidationReport report;
        try {
            report.path = path;
            report.add(Severity::Error, "load.failed", e.to_string());
        } catch (...) {
            // Short strings need no allocation; only the one finding's slot does (best effort).
            try {
                report.findings.clear();
                report.add(Severity::Error, "load.failed", "out of memory");
            } catch (...) {
            }
        }
        return report;
    }
}

static Expected<ValidationReport> validate_file_unguarded(const std::string& path, const LoadOptions& options) {
    auto bytes = read_input(path, options);  // LoadOptions::read_file, else the disk
    if (!bytes) return bytes.error();
    // Files the model names (a .gltf's buffers, .cfg members) are read beside it, as load() does.
    if (options.read_resource) return validate_bytes(*bytes, path, options);
    LoadOptions beside = options;
    beside.read_resource = resource_reader(path, options);
    return validate_bytes(*bytes, path, beside);
}

Expected<ValidationReport> validate_file(const std::string& path, const LoadOptions& options) {
    return detail::guarded(path, "validating", [&] { return validate_file_unguarded(path, options); });
}

}  // namespace rigport
