// SMD writer (Studiomdl Data version 1; docs/smd.md): a reference SMD (nodes, the bind pose as
// skeleton time 0, triangles with Source's link lists) and one animation SMD per animation beside
// it (<stem>_<animation>.smd, every node at every frame). The scene is first put in SMD's
// conventions: Z up, counter-clockwise front faces, V up from the bottom of the image.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <iterator>
#include <set>

#include "formats/common/studiomdl_qc.hpp"
#include "formats/common/embedded_images.hpp"
#include "formats/common/frame_budget.hpp"
#include "model/quatd.hpp"
#include "formats/common/text_names.hpp"
#include "formats/smd/smd.hpp"
#include "rigport/anim.hpp"
#include "rigport/process.hpp"

namespace rigport::smd {

namespace {

// The shortest text that reads back as the same float (studiomdl and the exporters read
// exponents through sscanf / float()); deterministic on every machine.
void put(std::string& out, double v) {
    const float f = float(v);
    if (f == 0.0f) {
        out += '0';
        return;
    }
    fmt::format_to(std::back_inserter(out), "{}", f);
}

// Names are quoted without escapes: a quote or line break cannot be written.
// A material line that reads back as itself: one line, trimmed, not a keyword or a comment.
std::string material_line(std::string name, bool& changed) {
    for (char& c : name)
        if (c == '\n' || c == '\r' || c == '\t') c = ' ', changed = true;
    const size_t b = name.find_first_not_of(' '), e = name.find_last_not_of(' ');
    std::string s = b == std::string::npos ? std::string() : name.substr(b, e - b + 1);
    if (s != name && !name.empty()) changed = true;
    if (s.empty()) return "no_material";
    if (s == "end" || s.rfind("end ", 0) == 0 || s[0] == '#' || s[0] == ';' || s.rfind("//", 0) == 0) s = "_" + s, changed = true;
    return s;
}

class Writer {
public:
    Writer(Scene& scene, const SaveOptions& options) : scene_(scene), options_(options) {}
    void prepare();
    std::string reference_file();
    std::string animation_file(const Animation& a);

private:
    void warn(WarningCode code, std::string message) {
        if (options_.warnings) options_.warnings->add(code, std::move(message));
    }
    void nodes(std::string& out) const {
        out += "version 1\nnodes\n";
        for (size_t j = 0; j < names_.size(); ++j) fmt::format_to(std::back_inserter(out), "{} {} {}\n", j, names_[j], scene_.skeleton.joints[j].parent);
        out += "end\nskeleton\n";
    }
    static void pose(std::string& out, uint64_t time, const std::vector<Transform>& local) {
        fmt::format_to(std::back_inserter(out), "time {}\n", time);
        for (size_t j = 0; j < local.size(); ++j) {
            const Transform& t = local[j];
            const auto e = quat_to_euler(quatd::unit(t.rotate));
            fmt::format_to(std::back_inserter(out), "{} ", j);
            for (int c = 0; c < 3; ++c) put(out, t.translate[size_t(c)]), out += ' ';
            for (int c = 0; c < 3; ++c) put(out, e[size_t(c)]), out += c < 2 ? ' ' : '\n';
        }
    }

    Scene& scene_;
    const SaveOptions& options_;
    std::vector<std::string> names_;  // quoted, unique node names
    bool had_skeleton_ = true;
};

void Writer::prepare() {
    Skeleton& sk = scene_.skeleton;
    if (sk.joints.empty()) {
        // Every SMD vertex hangs from a node: a static model gets one at the origin.
        had_skeleton_ = false;
        sk.joints.push_back(Joint{"root", -1, {}});
        sk.animation_only = false;
        if (!scene_.animations.empty()) {
            warn(WarningCode::DroppedData, "animations of a scene without a skeleton");
            scene_.animations.clear();
        }
    }
    bool changed = false;
    names_ = detail::unique_quoted_joint_names(sk, changed);
    if (changed) warn(WarningCode::Substituted, "node names made unique and non-empty, quotes and line breaks replaced (animations bind to meshes by name)");
    // What SMD cannot hold (joint scales, morph targets: no .vta is written, colours, tangents ...)
    // is said by save_output from the registry row.
    for (auto& a : scene_.animations) {
        const float rate = sampling_rate(a);
        if (rate != frame_rate)
            warn(WarningCode::ReaderDifference, fmt::format("animation '{}': {} fps is not stored in the SMD (SMD has no frame rate; readers of the SMD "
                                                            "alone assume {}; the .qc written beside a model says $sequence fps {})",
                                                            a.name, rate, frame_rate, rate));
    }
}

std::string Writer::reference_file() {
    std::string out;
    nodes(out);
    pose(out, 0, bind_pose(scene_.skeleton));
    out += "end\ntriangles\n";
    uint64_t unweighted = 0, flat = 0;
    bool changed = false;
    for (const Mesh& m : scene_.meshes) {
        const std::string material = material_line(
            m.material >= 0 && size_t(m.material) < scene_.materials.size() ? detail::material_text(scene_.materials[size_t(m.material)]) : m.name, changed);
        for (const Triangle& t : m.triangles) {
            // Without normals: the face's, counter-clockwise (SMD's front).
            Vec3 face{0, 0, 0};
            if (m.normals.empty()) {
                const Vec3 &a = m.positions[t[0]], &b = m.positions[t[1]], &c = m.positions[t[2]];
                const double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
                const double n[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
                const double len = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
                if (len > 0) face = {float(n[0] / len), float(n[1] / len), float(n[2] / len)};
                ++flat;
            }
            out += material;
            out += '\n';
            for (uint32_t v : t) {
                const uint32_t count = m.skin.empty() ? 0 : m.skin.count(v);
                const Influence* in = count ? m.skin.begin(v) : nullptr;
                double total = 0;
                uint32_t parent = 0;
                float heaviest = -1;
                for (uint32_t k = 0; k < count; ++k) {
                    total += in[k].weight;
                    if (in[k].weight > heaviest) heaviest = in[k].weight, parent = in[k].joint;
                }
                unweighted += count == 0 || total <= 0;
                fmt::format_to(std::back_inserter(out), "{} ", parent);
                const Vec3& p = m.positions[v];
                const Vec3& n = m.normals.empty() ? face : m.normals[v];
                const Vec2 uv = m.texcoords.empty() ? Vec2{0, 0} : m.texcoords[0][v];
                for (int c = 0; c < 3; ++c) put(out, p[size_t(c)]), out += ' ';
                for (int c = 0; c < 3; ++c) put(out, n[size_t(c)]), out += ' ';
                put(out, uv[0]), out += ' ', put(out, 1.0 - double(uv[1]));
                // Links summing to 1: studiomdl gives the parent only what they leave.
                if (total <= 0) {
                    out += " 0\n";
                    continue;
                }
                fmt::format_to(std::back_inserter(out), " {}", count);
                for (uint32_t k = 0; k < count; ++k) {
                    fmt::format_to(std::back_inserter(out), " {} ", in[k].joint);
                    put(out, in[k].weight / total);
                }
                out += '\n';
            }
        }
    }
    out += "end\n";
    if (unweighted && had_skeleton_)
        warn(WarningCode::UnweightedVertex, fmt::format("{} triangle corners without influences bound to node 0 {} (every SMD vertex hangs from a node)",
                                                        unweighted, names_.front()));
    if (flat) warn(WarningCode::Substituted, "meshes without normals: face normals written (SMD stores one per corner)");
    if (changed) warn(WarningCode::Substituted, "material names made one trimmed line that is not 'end' or a comment");
    return out;
}

std::string Writer::animation_file(const Animation& a) {
    const float rate = sampling_rate(a);
    const uint64_t frames = std::max<uint64_t>(1, sampled_frame_count(a));
    std::string out;
    nodes(out);
    for (uint64_t f = 0; f < frames; ++f) pose(out, f, frame_pose(scene_.skeleton, a, uint32_t(f), rate));
    out += "end\n";
    return out;
}

// A file name from an animation's name: letters, digits, '-', '_' and '.' kept, others '_'.
std::string file_part(const std::string& name, size_t index) {
    std::string s;
    for (char c : name) s += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.') ? c : '_';
    if (s.empty() || s.find_first_not_of('.') == std::string::npos) s = fmt::format("anim{}", index);
    return s.substr(0, 120);
}

// A name as one quoted .qc token: quotes and line breaks cannot be written in one.
std::string qc_quoted(const std::string& name) {
    std::string s;
    for (char c : name) s += c == '"' || c == '\n' || c == '\r' ? '_' : c;
    return '"' + s + '"';
}

// How a .qc names an SMD file: without ".smd" (GoldSrc's studiomdl adds it to every name), unless
// the name has another dot, which would read as an extension (then with it, as Source's reads it).
std::string qc_file(const std::string& file) {
    std::string ext = file.size() > 4 ? file.substr(file.size() - 4) : std::string();
    for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
    const std::string stem = ext == ".smd" ? file.substr(0, file.size() - 4) : file;
    return qc_quoted(ext == ".smd" && stem.find('.') == std::string::npos ? stem : file);
}

// The studiomdl .qc of a decompiled model (docs/smd.md "The .qc the writer writes"): its reference
// as the $body, each animation SMD as a $sequence with its frame rate and looping.
std::string qc_text(const std::string& stem, const std::string& reference,
                    const std::vector<std::pair<const Animation*, std::string>>& sequences, std::string_view kept_lines) {
    std::string out = "// Written by rigport: the reference SMD and one $sequence per animation SMD.\n";
    fmt::format_to(std::back_inserter(out), "$modelname {}\n$cd \".\"\n$cdtexture \".\"\n", qc_quoted(stem + ".mdl"));
    fmt::format_to(std::back_inserter(out), "$body {} {}\n", qc_quoted("body"), qc_file(reference));
    out += kept_lines;  // $controller, $hbox, $attachment of a compiled model read (docs/smd.md)
    std::set<std::string> names;
    for (size_t i = 0; i < sequences.size(); ++i) {
        const Animation& a = *sequences[i].first;
        std::string name = a.name.empty() ? fmt::format("sequence{}", i) : a.name;
        for (size_t k = 2; !names.insert(name).second; ++k) name = fmt::format("{}_{}", a.name, k);
        out += "$sequence " + qc_quoted(name) + ' ' + qc_file(sequences[i].second) + " fps ";
        put(out, sampling_rate(a));
        out += a.loop ? " loop\n" : "\n";
    }
    return out;
}

}  // namespace

Expected<Output> write(const Scene& input, const std::string& path, const SaveOptions& options) {
    if (std::filesystem::path(path).extension() == ".vta" || std::filesystem::path(path).extension() == ".VTA")
        return make_error(ErrorCode::Unsupported, "writing a .vta is not supported (morph targets are dropped from a written .smd)");
    // SMD is Z up with counter-clockwise front faces: other scenes are written from a copy.
    std::optional<Scene> converted = z_up_ccw_copy(input);
    Scene scene = converted ? std::move(*converted) : input;
    // The scene\'s invariants: checked by save_output before any writer runs (src/pipeline/save.cpp).
    if (auto st = rigport::detail::check_frame_budget(scene, options, "SMD"); !st) return st.error();
    Writer writer(scene, options);
    writer.prepare();

    Output out;
    out.format = "smd";
    const std::string text = writer.reference_file();
    out.bytes.assign(text.begin(), text.end());
    const std::string stem = std::filesystem::path(path).stem().string();
    std::set<std::string> taken{std::filesystem::path(path).filename().string()};
    std::vector<std::pair<const Animation*, std::string>> sequences;  // each animation and its file
    for (size_t i = 0; i < scene.animations.size(); ++i) {
        std::string name = stem + "_" + file_part(scene.animations[i].name, i) + ".smd";
        for (size_t k = 2; !taken.insert(name).second; ++k) name = fmt::format("{}_{}_{}.smd", stem, file_part(scene.animations[i].name, i), k);
        const std::string anim = writer.animation_file(scene.animations[i]);
        out.side_files.push_back(OutputFile{name, std::vector<uint8_t>(anim.begin(), anim.end())});
        sequences.emplace_back(&scene.animations[i], name);
    }
    // A model with meshes and animations gets the .qc that compiles it (and that names its
    // animation SMDs for rigport's own reading: docs/cli.md "Companions").
    std::string_view kept_lines;
    for (const PreservedExtension& e : scene.meta.extensions)
        if (e.name == rigport::detail::studiomdl_qc_extension) kept_lines = std::string_view(reinterpret_cast<const char*>(e.data.data()), e.data.size());
    if (!scene.meshes.empty() && (!sequences.empty() || !kept_lines.empty())) {
        const std::string qc = qc_text(stem, std::filesystem::path(path).filename().string(), sequences, kept_lines);
        out.side_files.push_back(OutputFile{stem + ".qc", std::vector<uint8_t>(qc.begin(), qc.end())});
    }
    return out;
}

}  // namespace rigport::smd
