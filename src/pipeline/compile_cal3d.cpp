// The compile front end's Cal3D part: every Cal3D input as one character (docs/cal3d.md §4.5, §5),
// and which animation each input's per-file options aim at.
#include "pipeline/compile_cal3d.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "rigport/cal3d.hpp"
#include "rigport/formats.hpp"
#include "rigport/io.hpp"

namespace rigport {

namespace {

enum class Kind { Cfg, Skeletal, Morph, Other };

// What a file of a character is, from its registry row: the list itself (the row made of
// members), an animation-only file of skeletal or of morph animation, or another part.
Kind kind_of(const std::string& path) {
    const FormatInfo* f = find_format_by_extension(path);
    if (!f || !find_format_made_of(path)) return Kind::Other;  // not a file of a character
    if (!f->member_extensions.empty() && has_extension(path, f->extensions)) return Kind::Cfg;
    if (has_extension(path, f->animation_only_extensions)) {
        if (f->holds.animation) return Kind::Skeletal;
        if (f->holds.morph_animation) return Kind::Morph;
    }
    return Kind::Other;
}

bool has_options(const AnimationInputOptions& o) { return o.name || o.fps || o.loop || o.start || o.end; }

}  // namespace

// The Cal3D row lists its members' extensions (FormatInfo::member_extensions).
bool is_cal3d_path(const std::string& path) { return find_format_made_of(path) != nullptr; }

namespace detail {

Expected<Cal3dGroup> load_cal3d_group(const std::vector<CompileInput>& inputs, const LoadOptions& options) {
    std::vector<std::string> paths;
    for (auto& in : inputs) paths.insert(paths.end(), in.paths.begin(), in.paths.end());
    // One file alone (not a .cfg) is read as `rigport info` reads it: a mesh or animation without
    // its skeleton keeps its bone ids on placeholder joints, so `a.cmf -o a.xmf` or `walk.caf -o
    // walk.xaf` converts between encodings and dialects as cal3d_converter does.
    auto scene = paths.size() == 1 && kind_of(paths.front()) != Kind::Cfg ? load(paths.front(), options)
                                                                           : load_cal3d_character(paths, options);
    if (!scene) return scene.error();
    Cal3dGroup group{std::move(*scene), {}};
    Scene& s = group.scene;
    if (paths.size() == 1) {  // unnamed parts take the file's stem, as in a character
        const std::string stem = std::filesystem::path(paths.front()).stem().string();
        for (auto& m : s.meshes)
            if (m.name.empty()) m.name = stem;
        for (auto& a : s.animations)
            if (a.name.empty()) a.name = stem;
    }

    // The character holds one animation per .caf/.xaf (named after the file's stem), then one per
    // .cpf/.xpf; a .cfg adds its own. An input's animation is the k-th of its kind and stem when
    // the command line's inputs of that kind and stem account for all of them.
    auto skeletal = [](const Animation& a) { return !a.tracks.empty(); };
    std::map<std::pair<bool, std::string>, std::vector<size_t>> animations, given;
    for (size_t a = 0; a < s.animations.size(); ++a) animations[{skeletal(s.animations[a]), s.animations[a].name}].push_back(a);
    for (size_t i = 0; i < inputs.size(); ++i)
        for (auto& p : inputs[i].paths)
            if (kind_of(p) == Kind::Skeletal || kind_of(p) == Kind::Morph)
                given[{kind_of(p) == Kind::Skeletal, std::filesystem::path(p).stem().string()}].push_back(i);

    for (size_t i = 0; i < inputs.size(); ++i) {
        const CompileInput& in = inputs[i];
        if (!has_options(in.animation)) continue;
        const std::string& path = in.paths.front();
        auto ignored = [&](const std::string& why) {
            s.warnings.add(WarningCode::Ignored, fmt::format("animation options ignored: {}", why), std::nullopt, path);
        };
        if (in.paths.size() != 1) {
            ignored("they apply to one file, not to a comma-joined list");
            continue;
        }
        const Kind kind = kind_of(path);
        if (kind == Kind::Cfg) {
            if (s.animations.size() == 1)
                group.targets.push_back({0, in.animation});
            else
                ignored(fmt::format("the character has {} animations, not exactly one", s.animations.size()));
            continue;
        }
        if (kind == Kind::Other) {
            ignored("not a Cal3D animation file (.caf, .xaf, .cpf, .xpf)");
            continue;
        }
        const std::pair<bool, std::string> key{kind == Kind::Skeletal, std::filesystem::path(path).stem().string()};
        const auto& found = animations[key];
        const auto& inputs_like = given[key];
        if (found.size() != inputs_like.size()) {
            ignored(fmt::format("the character has {} animations called '{}'", found.size(), key.second));
            continue;
        }
        const size_t k = size_t(std::find(inputs_like.begin(), inputs_like.end(), i) - inputs_like.begin());
        group.targets.push_back({found[k], in.animation});
    }
    return group;
}

}  // namespace detail
}  // namespace rigport
