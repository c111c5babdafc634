// MD5 writer (MD5Version 10; docs/md5.md): an .md5mesh with joints in object space and weights in
// joint space from the bind pose, at most four per vertex, and one .md5anim per animation with
// frame 0 as its baseframe and only the components that change flagged. The scene is first put in
// idTech 4's conventions (those of IQM: Z up, clockwise front faces, w <= 0).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cfloat>
#include <cmath>
#include <filesystem>
#include <iterator>
#include <set>

#include "formats/common/embedded_images.hpp"
#include "formats/common/frame_budget.hpp"
#include "model/quatd.hpp"
#include "formats/common/text_names.hpp"
#include "formats/md5/md5.hpp"
#include "rigport/anim.hpp"
#include "rigport/process.hpp"

namespace rigport::md5 {

namespace {

using quatd::D3;
using quatd::D4;

// Numbers as idTech 4's exporters print them: ten decimals (trailing zeros trimmed), no
// exponent. Ten decimals keep w = -sqrt(1 - x² - y² - z²) within 1e-5 even where w is near 0.
void put(std::string& out, double v) {
    std::string s = fmt::format("{:.10f}", v);
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
    out += s == "-0" ? "0" : s;
}

// Names are quoted without escapes: a quote or line break cannot be written.
// The object-space pose of a joint (MD5 has no scale).
struct Pose {
    D3 position{0, 0, 0};
    D4 orientation{0, 0, 0, 1};
};

// Parent-first local poses to object space: p = Pp + Qp·t, q = Qp·r (scales left out).
std::vector<Pose> object_space(const Skeleton& sk, const std::vector<Transform>& local) {
    std::vector<Pose> out(local.size());
    for (size_t j = 0; j < local.size(); ++j) {
        const Transform& l = local[j];
        const D3 t{l.translate[0], l.translate[1], l.translate[2]};
        const D4 r = quatd::unit(l.rotate);
        const int32_t p = j < sk.joints.size() ? sk.joints[j].parent : -1;
        if (p < 0) {
            out[j] = {t, r};
            continue;
        }
        const Pose& parent = out[size_t(p)];
        const D3 moved = quatd::rotate(parent.orientation, t);
        out[j].position = {parent.position[0] + moved[0], parent.position[1] + moved[1], parent.position[2] + moved[2]};
        out[j].orientation = quatd::unit(quatd::mul(parent.orientation, r));
    }
    return out;
}

// The stored x y z of a rotation: the sign that makes w <= 0, so that readers restore it.
std::array<double, 3> stored_xyz(const D4& q) {
    const double s = q[3] > 0 ? -1.0 : 1.0;
    return {s * q[0], s * q[1], s * q[2]};
}

class Writer {
public:
    Writer(Scene& scene, const SaveOptions& options) : scene_(scene), options_(options) {}
    void prepare();
    std::string mesh_file();
    std::string anim_file(const Animation& a);

private:
    void warn(WarningCode code, std::string message) {
        if (options_.warnings) options_.warnings->add(code, std::move(message));
    }
    void header(std::string& out) {
        bool changed = false;
        out += "MD5Version 10\ncommandline ";
        out += detail::quoted(scene_.meta.comment, changed);
        out += "\n\n";
        if (changed) warn(WarningCode::DroppedData, "comment: quotes and line breaks replaced (the commandline has no escapes)");
    }

    Scene& scene_;
    const SaveOptions& options_;
    std::vector<std::string> names_;  // quoted, unique joint names
};

void Writer::prepare() {
    Skeleton& sk = scene_.skeleton;
    if (sk.joints.empty()) {
        // idTech 4 needs a joint to bind to: a static model gets one at the origin.
        sk.joints.push_back(Joint{"origin", -1, {}});
        sk.animation_only = false;
        if (!scene_.animations.empty()) {
            warn(WarningCode::DroppedData, "animations of a scene without a skeleton");
            scene_.animations.clear();
        }
    }
    bool changed = false;
    names_ = detail::unique_quoted_joint_names(sk, changed);
    if (changed) warn(WarningCode::Substituted, "joint names made unique and non-empty, quotes and line breaks replaced (animations bind to meshes by name)");
    // What MD5 cannot hold (joint scales, normals: readers compute smooth ones, morphs, colours
    // ...) is said by save_output from the registry row.

    // At most four weights per vertex (limit_weights: the heaviest kept, renormalized).
    uint64_t over = 0;
    for (auto& m : scene_.meshes)
        for (uint32_t v = 0; !m.skin.empty() && v < m.vertex_count(); ++v) over += m.skin.count(v) > max_weights_per_vertex;
    if (over) warn(WarningCode::DroppedData, fmt::format("{} vertices with more than {} influences: the heaviest {} kept, renormalized", over,
                                                         max_weights_per_vertex, max_weights_per_vertex));
    limit_weights(scene_, max_weights_per_vertex);
}

std::string Writer::mesh_file() {
    const Skeleton& sk = scene_.skeleton;
    const std::vector<Pose> world = object_space(sk, bind_pose(sk));
    std::string out;
    header(out);
    fmt::format_to(std::back_inserter(out), "numJoints {}\nnumMeshes {}\n\njoints {{\n", sk.joints.size(), scene_.meshes.size());
    for (size_t j = 0; j < sk.joints.size(); ++j) {
        const Pose& p = world[j];
        const auto q = stored_xyz(p.orientation);
        fmt::format_to(std::back_inserter(out), "\t{}\t{} ( ", names_[j], sk.joints[j].parent);
        for (int c = 0; c < 3; ++c) put(out, p.position[c]), out += ' ';
        out += ") ( ";
        for (int c = 0; c < 3; ++c) put(out, q[c]), out += ' ';
        out += ")";
        if (sk.joints[j].parent >= 0) out += "\t\t// " + names_[size_t(sk.joints[j].parent)];
        out += '\n';
    }
    out += "}\n";

    uint64_t unweighted = 0;
    bool changed = false;
    for (const Mesh& m : scene_.meshes) {
        out += "\nmesh {\n";
        if (!m.name.empty()) {
            std::string name = m.name;
            std::replace(name.begin(), name.end(), '\n', ' ');
            std::replace(name.begin(), name.end(), '\r', ' ');
            out += "\t// meshes: " + name + "\n";
        }
        const std::string shader = m.material >= 0 && size_t(m.material) < scene_.materials.size()
                                       ? detail::material_text(scene_.materials[size_t(m.material)]) : std::string();
        out += "\tshader " + detail::quoted(shader, changed) + "\n\n";
        const uint32_t n = m.vertex_count();
        fmt::format_to(std::back_inserter(out), "\tnumverts {}\n", n);
        uint64_t next_weight = 0;
        for (uint32_t v = 0; v < n; ++v) {
            const uint32_t count = m.skin.empty() ? 0 : m.skin.count(v);
            const Vec2 uv = m.texcoords.empty() ? Vec2{0, 0} : m.texcoords[0][v];
            fmt::format_to(std::back_inserter(out), "\tvert {} ( ", v);
            put(out, uv[0]), out += ' ', put(out, uv[1]);
            fmt::format_to(std::back_inserter(out), " ) {} {}\n", next_weight, std::max(count, 1u));
            next_weight += std::max(count, 1u);
            unweighted += count == 0;
        }
        fmt::format_to(std::back_inserter(out), "\n\tnumtris {}\n", m.triangles.size());
        for (size_t t = 0; t < m.triangles.size(); ++t)
            fmt::format_to(std::back_inserter(out), "\ttri {} {} {} {}\n", t, m.triangles[t][0], m.triangles[t][1], m.triangles[t][2]);
        fmt::format_to(std::back_inserter(out), "\n\tnumweights {}\n", next_weight);
        uint64_t w = 0;
        auto weight = [&](uint32_t joint, float bias, const Vec3& p) {
            // The bind position in the joint's space: conj(Q)·(p − P).
            const Pose& j = world[joint];
            const D3 local = quatd::rotate(quatd::conj(j.orientation), {p[0] - j.position[0], p[1] - j.position[1], p[2] - j.position[2]});
            fmt::format_to(std::back_inserter(out), "\tweight {} {} ", w++, joint);
            put(out, bias);
            out += " ( ";
            for (int c = 0; c < 3; ++c) put(out, local[c]), out += ' ';
            out += ")\n";
        };
        for (uint32_t v = 0; v < n; ++v) {
            const uint32_t count = m.skin.empty() ? 0 : m.skin.count(v);
            if (count == 0) weight(0, 1.0f, m.positions[v]);  // bound to the first root
            for (uint32_t k = 0; k < count; ++k) weight(m.skin.begin(v)[k].joint, m.skin.begin(v)[k].weight, m.positions[v]);
        }
        out += "}\n";
    }
    if (unweighted)
        warn(WarningCode::UnweightedVertex, fmt::format("{} vertices without influences bound to joint {} (MD5 places every vertex by its weights)",
                                                        unweighted, names_.front()));
    if (changed) warn(WarningCode::DroppedData, "shader names: quotes and line breaks replaced (MD5 names have no escapes)");
    return out;
}

std::string Writer::anim_file(const Animation& a) {
    const Skeleton& sk = scene_.skeleton;
    const size_t joints = sk.joints.size();
    const float rate = sampling_rate(a);
    const uint32_t frames = uint32_t(std::max<uint64_t>(1, sampled_frame_count(a)));
    // Each frame's six components per joint: Tx Ty Tz Qx Qy Qz in the parent's space.
    std::vector<double> values(size_t(frames) * joints * 6);
    std::vector<std::vector<Transform>> poses;
    std::vector<FrameBounds> bounds;
    const bool skinned = has_skinned_vertices(scene_);
    auto flush_bounds = [&] {
        if (skinned) {
            for (auto& b : skinned_bounds(scene_, poses)) bounds.push_back(b);
        } else {
            for (auto& pose : poses) {  // no skinned mesh: the box of the joints
                FrameBounds b;
                b.min = {FLT_MAX, FLT_MAX, FLT_MAX}, b.max = {-FLT_MAX, -FLT_MAX, -FLT_MAX};
                for (const Pose& p : object_space(sk, pose))
                    for (int c = 0; c < 3; ++c) b.min[c] = std::min(b.min[c], float(p.position[c])), b.max[c] = std::max(b.max[c], float(p.position[c]));
                bounds.push_back(b);
            }
        }
        poses.clear();
    };
    for (uint32_t f = 0; f < frames; ++f) {
        std::vector<Transform> pose = frame_pose(sk, a, f, rate);
        for (size_t j = 0; j < joints; ++j) {
            double* v = values.data() + (size_t(f) * joints + j) * 6;
            const auto q = stored_xyz(quatd::unit(pose[j].rotate));
            v[0] = pose[j].translate[0], v[1] = pose[j].translate[1], v[2] = pose[j].translate[2];
            v[3] = q[0], v[4] = q[1], v[5] = q[2];
        }
        poses.push_back(std::move(pose));
        if (poses.size() == 1024) flush_bounds();
    }
    flush_bounds();

    // Frame 0 is the baseframe; a component is stored per frame when it changes.
    std::vector<uint32_t> flags(joints, 0), start(joints, 0);
    uint32_t components = 0;
    for (size_t j = 0; j < joints; ++j) {
        start[j] = components;
        for (int c = 0; c < 6; ++c) {
            const double base = values[j * 6 + size_t(c)];
            for (uint32_t f = 1; f < frames; ++f)
                if (values[(size_t(f) * joints + j) * 6 + size_t(c)] != base) {
                    flags[j] |= 1u << c;
                    ++components;
                    break;
                }
        }
    }

    std::string out;
    header(out);
    fmt::format_to(std::back_inserter(out), "numFrames {}\nnumJoints {}\nframeRate ", frames, joints);
    if (rate == std::floor(rate)) {
        fmt::format_to(std::back_inserter(out), "{}", int64_t(rate));
    } else {
        put(out, rate);
        warn(WarningCode::ReaderDifference, fmt::format("animation '{}': frameRate {} is not whole; idTech 4 reads it as an integer", a.name, rate));
    }
    fmt::format_to(std::back_inserter(out), "\nnumAnimatedComponents {}\n\nhierarchy {{\n", components);
    for (size_t j = 0; j < joints; ++j) {
        fmt::format_to(std::back_inserter(out), "\t{}\t{} {} {}", names_[j], sk.joints[j].parent, flags[j], start[j]);
        if (sk.joints[j].parent >= 0) out += "\t// " + names_[size_t(sk.joints[j].parent)];
        out += '\n';
    }
    out += "}\n\nbounds {\n";
    for (const FrameBounds& b : bounds) {
        out += "\t( ";
        for (int c = 0; c < 3; ++c) put(out, b.min[c]), out += ' ';
        out += ") ( ";
        for (int c = 0; c < 3; ++c) put(out, b.max[c]), out += ' ';
        out += ")\n";
    }
    out += "}\n\nbaseframe {\n";
    for (size_t j = 0; j < joints; ++j) {
        const double* v = values.data() + j * 6;
        out += "\t( ";
        for (int c = 0; c < 3; ++c) put(out, v[c]), out += ' ';
        out += ") ( ";
        for (int c = 3; c < 6; ++c) put(out, v[c]), out += ' ';
        out += ")\n";
    }
    out += "}\n";
    for (uint32_t f = 0; f < frames; ++f) {
        fmt::format_to(std::back_inserter(out), "\nframe {} {{\n", f);
        for (size_t j = 0; j < joints; ++j) {
            if (!flags[j]) continue;
            const double* v = values.data() + (size_t(f) * joints + j) * 6;
            out += '\t';
            for (int c = 0; c < 6; ++c)
                if (flags[j] & (1u << c)) put(out, v[c]), out += ' ';
            out.back() = '\n';
        }
        out += "}\n";
    }
    return out;
}

// A file name from an animation's name: letters, digits, '-', '_' and '.' kept, others '_'.
std::string file_part(const std::string& name, size_t index) {
    std::string s;
    for (char c : name) s += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.') ? c : '_';
    if (s.empty() || s.find_first_not_of('.') == std::string::npos) s = fmt::format("anim{}", index);
    return s.substr(0, 120);
}

bool ends_with_ci(std::string_view s, std::string_view suffix) {
    if (s.size() < suffix.size()) return false;
    for (size_t i = 0; i < suffix.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(s[s.size() - suffix.size() + i])) != suffix[i]) return false;
    return true;
}

}  // namespace

Expected<Output> write(const Scene& input, const std::string& path, const SaveOptions& options) {
    // MD5 shares IQM's conventions (Z up, clockwise, w <= 0): other scenes are written from a copy.
    std::optional<Scene> converted = iqm_conventions_copy(input);
    Scene scene = converted ? std::move(*converted) : input;
    // The scene\'s invariants: checked by save_output before any writer runs (src/pipeline/save.cpp).
    if (auto st = rigport::detail::check_frame_budget(scene, options, "MD5"); !st) return st.error();
    Writer writer(scene, options);
    writer.prepare();

    const bool anim_only = ends_with_ci(path, ".md5anim");
    Output out;
    out.format = "md5";
    const std::string stem = std::filesystem::path(path).stem().string();
    std::set<std::string> taken;
    size_t first_side = 0;
    if (anim_only) {
        if (scene.animations.empty()) return make_error(ErrorCode::Unsupported, "an .md5anim holds an animation, and the scene has none");
        if (!scene.meshes.empty() && options.warnings) options.warnings->add(WarningCode::DroppedData, "meshes (an .md5anim holds an animation only)");
        const std::string text = writer.anim_file(scene.animations[0]);
        out.bytes.assign(text.begin(), text.end());
        taken.insert(std::filesystem::path(path).filename().string());
        first_side = 1;
    } else {
        const std::string text = writer.mesh_file();
        out.bytes.assign(text.begin(), text.end());
    }
    for (size_t i = first_side; i < scene.animations.size(); ++i) {
        std::string name = stem + "_" + file_part(scene.animations[i].name, i) + ".md5anim";
        for (size_t k = 2; !taken.insert(name).second; ++k) name = fmt::format("{}_{}_{}.md5anim", stem, file_part(scene.animations[i].name, i), k);
        const std::string text = writer.anim_file(scene.animations[i]);
        out.side_files.push_back(OutputFile{name, std::vector<uint8_t>(text.begin(), text.end())});
    }
    return out;
}

}  // namespace rigport::md5
