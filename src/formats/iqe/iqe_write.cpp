// IQE writer (docs/iqe.md §2; iqe.txt 2010-04-20 + `vx` 2012-01-11): everything the scene holds that IQE can
// express, floats in shortest round-trip form so IQE -> scene -> IQE is exact.
#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <set>

#include "formats/common/embedded_images.hpp"
#include "formats/common/frame_budget.hpp"
#include "formats/iqe/iqe.hpp"
#include "rigport/anim.hpp"
#include "rigport/process.hpp"

namespace rigport::iqe {

namespace {

const char* component_name(ComponentType t) {
    static const char* names[] = {"byte", "ubyte", "short", "ushort", "int", "uint", "half", "float", "double"};
    return uint32_t(t) < std::size(names) ? names[uint32_t(t)] : "float";
}

const char* attribute_name(Attribute a) {
    static const char* names[] = {"position", "texcoord", "normal", "tangent", "blendindexes", "blendweights", "color"};
    return uint32_t(a) < std::size(names) ? names[uint32_t(a)] : "position";
}

bool is_default_format(const AttributeFormat& f) {
    static const AttributeFormat defaults[] = {
        {Attribute::Position, 0, ComponentType::Float32, 3}, {Attribute::Texcoord, 0, ComponentType::Float32, 2},
        {Attribute::Normal, 0, ComponentType::Float32, 3},   {Attribute::Tangent, 0, ComponentType::Float32, 4},
        {Attribute::BlendIndexes, 0, ComponentType::UInt8, 4}, {Attribute::BlendWeights, 0, ComponentType::UInt8, 4},
        {Attribute::Color, 0, ComponentType::UInt8, 4}};
    for (auto& d : defaults)
        if (d.attribute == f.attribute) return d.type == f.type && d.size == f.size;
    return false;
}

class Writer {
public:
    Writer(const Scene& scene, const SaveOptions& options) : scene_(scene), options_(options) {}
    std::vector<uint8_t> run();

private:
    void dropped(std::string message) {
        if (options_.warnings) options_.warnings->add(WarningCode::DroppedData, std::move(message));
    }
    // IQE names are quoted without escapes: a quote or line break cannot be written.
    std::string quoted(const std::string& name) {
        std::string s = name;
        bool changed = false;
        for (char& c : s)
            if (c == '"' || c == '\n' || c == '\r') c = c == '"' ? '\'' : ' ', changed = true;
        if (changed) dropped(fmt::format("name '{}': quotes and line breaks replaced (IQE names have no escapes)", name));
        return '"' + s + '"';
    }
    template <class... Args>
    void line(fmt::format_string<Args...> f, Args&&... args) {
        fmt::format_to(std::back_inserter(out_), f, std::forward<Args>(args)...);
        out_ += '\n';
    }
    void pose(const Transform& t) {
        line("pq {} {} {} {} {} {} {} {} {} {}", t.translate[0], t.translate[1], t.translate[2], t.rotate[0], t.rotate[1],
             t.rotate[2], t.rotate[3], t.scale[0], t.scale[1], t.scale[2]);
    }
    void skeleton();
    void declarations();
    void mesh(const Mesh& m, uint32_t index);
    void animations();

    const Scene& scene_;
    const SaveOptions& options_;
    std::string out_;
    std::vector<std::string> custom_names_;  // custom slot k = v{k}
    std::set<std::pair<std::string, int32_t>> seen_meshes_;  // (name, material) of the meshes written
};

void Writer::skeleton() {
    const Skeleton& sk = scene_.skeleton;
    if (sk.joints.empty()) return;
    if (sk.animation_only) {
        // Animation-only: frames carry the poses. A skinned mesh still binds by joint index, so
        // the joint count goes in as bind poses without joint lines (the reader's animation-only
        // form); without them its vb lines name joints the file does not have (found by fuzz_roundtrip).
        const bool skinned = std::any_of(scene_.meshes.begin(), scene_.meshes.end(), [](const Mesh& m) { return !m.skin.empty(); });
        if (!skinned) return;
        out_ += '\n';
        for (auto& j : sk.joints) pose(j.bind);
        return;
    }
    out_ += '\n';
    for (auto& j : sk.joints) line("joint {} {}", quoted(j.name), j.parent);
    out_ += '\n';
    for (auto& j : sk.joints) pose(j.bind);
}

void Writer::declarations() {
    bool any = false;
    auto blank = [&] {
        if (!any) out_ += '\n';
        any = true;
    };
    for (auto& f : scene_.meta.attribute_formats) {
        if (f.set != 0 || is_default_format(f) || f.size < 1 || f.size > 4 || uint32_t(f.type) >= component_count_types) continue;
        blank();
        line("vertexarray {} {} {}", attribute_name(f.attribute), component_name(f.type), f.size);
    }
    // Custom arrays by name over all meshes, first-seen order; IQE has ten slots (v0..v9).
    for (auto& m : scene_.meshes)
        for (auto& c : m.custom) {
            if (std::find(custom_names_.begin(), custom_names_.end(), c.name) != custom_names_.end()) continue;
            if (custom_names_.size() == 10) {
                dropped(fmt::format("custom array '{}': IQE has only ten custom slots", c.name));
                continue;
            }
            blank();
            line("vertexarray custom{} {} {} {}", custom_names_.size(), component_name(c.type), std::clamp(c.size, 1u, 4u), quoted(c.name));
            custom_names_.push_back(c.name);
        }
}

void Writer::mesh(const Mesh& m, uint32_t index) {
    out_ += '\n';
    line("mesh {}", quoted(m.name));
    if (m.material >= 0 && size_t(m.material) < scene_.materials.size()) line("material {}", quoted(detail::material_text(scene_.materials[m.material])));
    // One set of (name, material) seen, so many meshes cost linear time.
    if (!seen_meshes_.emplace(m.name, m.material).second)
        dropped(fmt::format("mesh {} '{}': a reader merges meshes with equal name and material", index, m.name));

    std::vector<int> slot(m.custom.size(), -1);
    for (size_t c = 0; c < m.custom.size(); ++c) {
        auto it = std::find(custom_names_.begin(), custom_names_.end(), m.custom[c].name);
        if (it != custom_names_.end()) slot[c] = int(it - custom_names_.begin());
    }
    const uint32_t n = m.vertex_count();
    for (uint32_t v = 0; v < n; ++v) {
        const Vec3& p = m.positions[v];
        line("vp {} {} {}", p[0], p[1], p[2]);
        if (!m.texcoords.empty()) line("vt {} {}", m.texcoords[0][v][0], m.texcoords[0][v][1]);
        if (!m.normals.empty()) line("vn {} {} {}", m.normals[v][0], m.normals[v][1], m.normals[v][2]);
        if (!m.tangents.empty()) line("vx {} {} {} {}", m.tangents[v][0], m.tangents[v][1], m.tangents[v][2], m.tangents[v][3]);
        if (!m.skin.empty() && m.skin.count(v) > 0) {
            out_ += "vb";
            for (const Influence* i = m.skin.begin(v); i != m.skin.begin(v) + m.skin.count(v); ++i)
                fmt::format_to(std::back_inserter(out_), " {} {}", i->joint, i->weight);
            out_ += '\n';
        }
        if (!m.colors.empty()) line("vc {} {} {} {}", m.colors[0][v][0], m.colors[0][v][1], m.colors[0][v][2], m.colors[0][v][3]);
        for (size_t c = 0; c < m.custom.size(); ++c) {
            if (slot[c] < 0) continue;
            const CustomArray& a = m.custom[c];
            fmt::format_to(std::back_inserter(out_), "v{}", slot[c]);
            for (uint32_t k = 0; k < std::min(a.size, 4u); ++k) {
                const double value = a.values[uint64_t(v) * a.size + k];
                if (a.type == ComponentType::Float32 || a.type == ComponentType::Half) {
                    fmt::format_to(std::back_inserter(out_), " {}", static_cast<float>(value));
                } else {
                    fmt::format_to(std::back_inserter(out_), " {}", value);
                }
            }
            out_ += '\n';
        }
    }
    for (auto& t : m.triangles) line("fm {} {} {}", t[0], t[1], t[2]);
}

void Writer::animations() {
    const Skeleton& sk = scene_.skeleton;
    for (auto& a : scene_.animations) {
        out_ += '\n';
        line("animation {}", quoted(a.name));
        // A keyed animation (Cal3D, glTF) is sampled at sampling_rate(), and that is the rate
        // written; a frame-based source keeps its own line (none for a rate it did not give).
        const float rate = sampling_rate(a);
        if (a.frame_count == 0 || a.frame_rate > 0) line("framerate {}", rate);
        if (a.loop) line("loop");
        if (sk.joints.empty()) {
            if (!a.tracks.empty()) dropped(fmt::format("animation '{}': tracks without a skeleton", a.name));
            continue;
        }
        const uint64_t frames = sampled_frame_count(a);
        for (uint64_t f = 0; f < frames; ++f) {
            out_ += '\n';
            line("frame {}", f);
            for (auto& t : frame_pose(sk, a, static_cast<uint32_t>(f), rate)) pose(t);
        }
    }
}

std::vector<uint8_t> Writer::run() {
    out_ = "# Inter-Quake Export\n";
    skeleton();
    declarations();
    for (uint32_t m = 0; m < scene_.meshes.size(); ++m) mesh(scene_.meshes[m], m);
    animations();
    for (auto& mat : scene_.materials)
        if (mat.maps.size() > (detail::held_diffuse_map(mat) ? 1u : 0u)) {  // a held diffuse map is the material's name
            dropped("material properties and texture maps (IQE keeps material names only)");
            break;
        }
    if (!scene_.meta.extensions.empty()) dropped("preserved extensions");
    if (!scene_.meta.comment.empty()) {
        out_ += "\ncomment\n";
        out_ += scene_.meta.comment;
    }
    return std::vector<uint8_t>(out_.begin(), out_.end());
}

}  // namespace

Expected<std::vector<uint8_t>> write(const Scene& input, const SaveOptions& options) {
    // IQE shares IQM's conventions (Z up, clockwise): other scenes are written from a converted copy.
    const std::optional<Scene> converted = iqm_conventions_copy(input);
    const Scene& scene = converted ? *converted : input;
    // The scene\'s invariants: checked by save_output before any writer runs (src/pipeline/save.cpp).
    // Frames are sampled into text, refused before any is written beyond what a reader takes or
    // the pose budget (a DURATION of 4.29e9 s wrote until memory ran out).
    if (auto st = detail::check_frame_budget(scene, options, "IQE"); !st) return st.error();
    return Writer(scene, options).run();
}

}  // namespace rigport::iqe
