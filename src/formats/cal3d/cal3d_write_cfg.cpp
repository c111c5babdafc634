// Cal3D whole character: a .cfg model list and its skeleton, mesh, material and animation files
// beside it (docs/cal3d.md §4.5; the per-file writers in cal3d_write*.cpp).
#include "formats/cal3d/cal3d_write_cfg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>

#include "formats/cal3d/cal3d_write.hpp"
#include "rigport/process.hpp"

namespace rigport::cal3d {

namespace {

// Side file names: [A-Za-z0-9._-] only, unique ignoring case (case-insensitive file systems).
class FileNames {
public:
    explicit FileNames(const std::string& cfg_name) { taken_.insert(folded(cfg_name)); }

    std::string add(const std::string& base, std::string_view extension) {
        std::string name = base;
        for (char& c : name)
            if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') c = '_';
        if (name.size() > 100) name.resize(100);
        std::string candidate = name + std::string(extension);
        for (uint32_t n = 2; !taken_.insert(folded(candidate)).second; ++n) candidate = fmt::format("{}_{}{}", name, n, extension);
        return candidate;
    }

private:
    static std::string folded(std::string s) {
        std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
        return s;
    }
    std::set<std::string> taken_;
};

std::string extension(bool binary, char kind) { return binary ? std::string(".c") + kind + "f" : std::string(".x") + kind + "f"; }

// The viewer scale a Cal3D source's .cfg gave (load_cal3d_character keeps it in the comment).
std::string source_scale(const std::string& comment) {
    const std::string key = "cfg scale=";
    const size_t at = comment.find(key);
    if (at == std::string::npos) return {};
    const size_t from = at + key.size();
    const size_t end = comment.find_first_of(" \n", from);
    std::string value = comment.substr(from, end == std::string::npos ? std::string::npos : end - from);
    const bool number = !value.empty() && value.find_first_not_of("0123456789.eE+-") == std::string::npos;
    return number ? value : std::string();
}

// What the animation writers read: the skeleton and, per mesh, the morph target names. For the 1301
// dialect a target is named after its binding as the morph writer reads it: mesh m of the .cfg
// (one file per scene mesh), its only submesh, target t.
Scene animation_scene(const Scene& s, Cal3dOptions::Dialect dialect) {
    Scene a;
    a.skeleton = s.skeleton;
    a.meta = s.meta;
    a.meshes.resize(s.meshes.size());
    for (size_t m = 0; m < s.meshes.size(); ++m) {
        a.meshes[m].name = s.meshes[m].name;
        for (size_t t = 0; t < s.meshes[m].morph_targets.size(); ++t) {
            MorphTarget target;
            target.name = dialect == Cal3dOptions::Dialect::Trunk1301 ? fmt::format("mesh {} submesh 0 morph {}", m, t)
                                                                       : s.meshes[m].morph_targets[t].name;
            a.meshes[m].morph_targets.push_back(std::move(target));
        }
    }
    return a;
}

// IMVU binds morph tracks by target name (§3.7): a target without a name, or with the name of an
// earlier target of its mesh, could not be told apart.
bool needs_target_names(const Scene& s) {
    for (auto& m : s.meshes)
        for (size_t t = 0; t < m.morph_targets.size(); ++t) {
            if (m.morph_targets[t].name.empty()) return true;
            for (size_t u = 0; u < t; ++u)
                if (m.morph_targets[u].name == m.morph_targets[t].name) return true;
        }
    return false;
}

// Names those targets "<mesh>.morph<t>", after their mesh and index.
void name_targets(Scene& s, Warnings* warnings) {
    uint64_t renamed = 0;
    for (size_t mi = 0; mi < s.meshes.size(); ++mi) {
        Mesh& m = s.meshes[mi];
        for (size_t t = 0; t < m.morph_targets.size(); ++t) {
            bool taken = m.morph_targets[t].name.empty();
            for (size_t u = 0; u < t && !taken; ++u) taken = m.morph_targets[u].name == m.morph_targets[t].name;
            if (!taken) continue;
            m.morph_targets[t].name = fmt::format("{}.morph{}", m.name.empty() ? fmt::format("mesh{}", mi) : m.name, t);
            ++renamed;
        }
    }
    if (warnings && renamed)
        warnings->add(WarningCode::Substituted, fmt::format("{} morph targets without a name of their own named '<mesh>.morph<index>' (IMVU binds by name)", renamed));
}

Error in_side_file(Error e, const std::string& name) {
    e.message = fmt::format("{}: {}", name, e.message);
    return e;
}

}  // namespace

Expected<Output> write_cfg(const Scene& scene, const std::string& path, const SaveOptions& options) {
    std::optional<Scene> copy = z_up_ccw_copy(scene);
    if (options.cal3d.dialect == Cal3dOptions::Dialect::Imvu919 && needs_target_names(copy ? *copy : scene)) {
        if (!copy) copy = scene;
        name_targets(*copy, options.warnings);
    }
    const Scene& s = copy ? *copy : scene;
    const bool binary = options.cal3d.binary;
    const std::filesystem::path cfg_path(path);
    const std::string stem = cfg_path.stem().string();
    FileNames names(cfg_path.filename().string());
    Output out;
    std::string skeleton_line, meshes, materials, animations, morphs;
    auto side = [&](const std::string& name, Expected<std::vector<uint8_t>> bytes) -> Status {
        if (!bytes) return in_side_file(bytes.error(), name);
        out.side_files.push_back(OutputFile{name, std::move(*bytes)});
        return Ok{};
    };

    if (!s.skeleton.joints.empty()) {
        const std::string name = names.add(stem, extension(binary, 's'));
        if (auto st = side(name, write_skeleton(s, binary, options)); !st) return st.error();
        skeleton_line = fmt::format("skeleton={}\n", name);
    }
    for (uint32_t m = 0; m < s.meshes.size(); ++m) {
        const std::string& mesh_name = s.meshes[m].name.empty() ? fmt::format("mesh{}", m) : s.meshes[m].name;
        const std::string name = names.add(stem + "_" + mesh_name, extension(binary, 'm'));
        if (auto st = side(name, write_mesh(s, {m}, binary, options)); !st) return st.error();
        meshes += fmt::format("mesh={}\n", name);
    }
    for (size_t i = 0; i < s.materials.size(); ++i) {
        const std::string& material_name = s.materials[i].name.empty() ? fmt::format("material{}", i) : s.materials[i].name;
        const std::string name = names.add(stem + "_" + material_name, extension(binary, 'r'));
        if (auto st = side(name, write_material(s.materials[i], binary, options)); !st) return st.error();
        materials += fmt::format("material={}\n", name);
    }

    // Each animation goes to a file per kind, written from a scene holding only that kind of track.
    Scene joints_only, morphs_only;
    uint64_t empty = 0, morphs_dropped = 0, scale_only = 0;
    for (auto& a : s.animations) {
        // Cal3D keys hold translation and rotation: an animation of scale keys alone has nothing
        // a .caf can hold, and is left out rather than failing the whole character.
        const bool has_joints = std::any_of(a.tracks.begin(), a.tracks.end(),
                                            [](const JointTrack& t) { return !t.times.empty() && t.channel != Channel::Scale; });
        const bool has_scales = std::any_of(a.tracks.begin(), a.tracks.end(), [](const JointTrack& t) { return !t.times.empty(); });
        const bool has_morphs = std::any_of(a.morph_tracks.begin(), a.morph_tracks.end(), [](const MorphWeightTrack& t) { return !t.times.empty(); });
        empty += !has_scales && !has_morphs;
        scale_only += has_scales && !has_joints;
        const std::string base = stem + "_" + (a.name.empty() ? fmt::format("animation{}", &a - s.animations.data()) : a.name);
        if (has_joints) {
            if (joints_only.animations.empty()) joints_only = animation_scene(s, options.cal3d.dialect);
            Animation only = a;
            only.morph_tracks.clear();
            joints_only.animations = {std::move(only)};
            const std::string name = names.add(base, extension(binary, 'a'));
            if (auto st = side(name, write_animation(joints_only, 0, binary, options)); !st) return st.error();
            animations += fmt::format("animation={}\n", name);
        }
        if (has_morphs && options.cal3d.dialect == Cal3dOptions::Dialect::Classic1100) {
            ++morphs_dropped;
        } else if (has_morphs) {
            if (morphs_only.animations.empty()) morphs_only = animation_scene(s, options.cal3d.dialect);
            Animation only = a;
            only.tracks.clear();
            morphs_only.animations = {std::move(only)};
            const std::string name = names.add(base, extension(binary, 'p'));
            if (auto st = side(name, write_morph_animation(morphs_only, 0, binary, options)); !st) return st.error();
            morphs += fmt::format("morphanim={}\n", name);
        }
    }
    if (options.warnings) {
        if (empty) options.warnings->add(WarningCode::DroppedData, fmt::format("{} animations without keys are not written", empty));
        if (scale_only)
            options.warnings->add(WarningCode::DroppedData,
                                  fmt::format("{} animations hold only scale keys, which Cal3D keys cannot: their joint keys are not written",
                                              scale_only));
        if (morphs_dropped)
            options.warnings->add(WarningCode::DroppedData,
                                  fmt::format("the 1100 dialect has no morph animation files: the morph weight tracks of {} animations are not written",
                                              morphs_dropped));
    }

    // Lines in the order of the stock .cfg files (cally.cfg): skeleton, animations, meshes,
    // materials (thread i = i-th material line); morph animations last.
    std::string text = "# Cal3D model written by rigport; paths are relative to this file\n";
    if (const std::string scale = source_scale(s.meta.comment); !scale.empty()) text += fmt::format("scale={}\n", scale);
    text += skeleton_line + animations + meshes + materials + morphs;
    out.bytes.assign(text.begin(), text.end());
    return out;
}

}  // namespace rigport::cal3d
