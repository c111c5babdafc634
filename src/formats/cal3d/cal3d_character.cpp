// Cal3D whole character: .cfg model lists and per-file scenes merged by bone id (docs/cal3d.md §4.5, §4.7, §5, §3.7).
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

#include "support/excerpt.hpp"
#include "model/guarded.hpp"
#include "formats/cal3d/cal3d.hpp"
#include "formats/cal3d/cal3d_write_cfg.hpp"
#include "io/confine.hpp"
#include "rigport/cal3d.hpp"
#include "rigport/formats.hpp"

namespace rigport {

namespace {

namespace fs = std::filesystem;

struct Input {
    std::string path;  // as shown in messages (and read from disk when uri is empty)
    // Named by a .cfg: where (cfg:line), by which key and value; a missing file is then an error
    // naming that line, or with allow_missing a warning and the part is left out.
    std::string cfg;
    uint32_t line = 0;
    std::string key, value;
    // Named by a .cfg: the member relative to the .cfg (path= prefix and value), read through a
    // resource reader, which confines it: the .cfg's own when the .cfg was read by path (cfg_by_path;
    // each .cfg of several its own), else LoadOptions::read_resource.
    std::string uri;
    bool cfg_by_path = false;
};

Error at_line(Error e, const std::string& cfg, uint32_t line) {
    e.path = cfg;
    e.line = line;
    e.column = 1;
    return e;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace((unsigned char)s.front())) s.remove_prefix(1);
    while (!s.empty() && std::isspace((unsigned char)s.back())) s.remove_suffix(1);
    return s;
}

bool ends_with_cfg(const std::string& p) {
    std::string e = fs::path(p).extension().string();
    std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return e == ".cfg";
}

// §4.5: key=value lines, '#' comments; paths relative to the .cfg (or to path=). `cfg` names the
// file in messages. A .cfg read by path (on_path) from disk has every path, path= included, checked
// at its line to resolve (through '..' and symlinks) into the .cfg's folder or below
// (LoadOptions::root when set) unless allow_outside, and its members are read through its own
// resource reader, confined the same way (LoadOptions::read_file's storage: lexically). A .cfg
// given as bytes leaves that to the caller's read_resource.
Status parse_cfg(std::string_view text, const std::string& cfg, bool on_path, const LoadOptions& options, std::vector<Input>& inputs,
                 Scene& scene) {
    const bool on_disk = on_path && !options.read_file;
    const std::string root = on_disk ? detail::confinement_root(cfg, options.root) : std::string();
    const fs::path folder = fs::path(cfg).parent_path();
    fs::path prefix;  // path=, relative to the .cfg
    uint32_t line_no = 0;
    while (!text.empty()) {
        size_t end = text.find('\n');
        std::string_view line = trim(text.substr(0, end));
        text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
        ++line_no;
        if (line.empty() || line.front() == '#') continue;
        size_t eq = line.find('=');
        if (eq == std::string_view::npos)
            return at_line(make_error(ErrorCode::Malformed, fmt::format("'{}' is not key=value", detail::excerpt(line, 60))), cfg, line_no);
        std::string key(trim(line.substr(0, eq)));
        std::transform(key.begin(), key.end(), key.begin(), [](unsigned char c) { return char(std::tolower(c)); });
        std::string value(trim(line.substr(eq + 1)));
        if (key == "path") {
            prefix = value;
            if (!on_disk) continue;
            if (auto inside = detail::confine((folder / prefix).string(), root, options.allow_outside); !inside)
                return at_line(make_error(ErrorCode::ReadFailed, fmt::format("path={}: {}", detail::excerpt(value, 80), inside.error().message)), cfg, line_no);
        } else if (key == "scale") {
            scene.meta.comment += fmt::format("cfg scale={} (a viewer setting; not applied)\n", value);
        } else if (key == "skeleton" || key == "mesh" || key == "material" || key == "animation" || key == "morphanim" ||
                   key == "morphanimation") {
            const std::string uri = (prefix / value).string();
            const std::string path = (folder / uri).string();
            if (on_disk)
                if (auto inside = detail::confine(path, root, options.allow_outside); !inside)
                    return at_line(make_error(ErrorCode::ReadFailed, fmt::format("{}={}: {}", key, detail::excerpt(value, 80), inside.error().message)), cfg, line_no);
            inputs.push_back(Input{path, cfg, line_no, key, value, uri, on_path});
        } else {
            scene.warnings.add(WarningCode::UnknownCommand, fmt::format("line {}: unknown key '{}' ignored", line_no, detail::excerpt(key)), std::nullopt, cfg);
        }
    }
    return Ok{};
}

Error in_file(Error e, const std::string& path) {
    if (e.path.empty()) e.path = path;
    return e;
}

// A member's bytes: one a .cfg names is read relative to that .cfg, through the .cfg's own
// resource reader when the .cfg was read by path, else through options.read_resource (either
// confines it); a file given as such is read by its path (LoadOptions::read_file or the disk, or
// a PACK.jpk:MEMBER).
Expected<std::vector<uint8_t>> fetch_member(const Input& in, const LoadOptions& options) {
    if (!in.uri.empty() && in.cfg_by_path) return resource_reader(in.cfg, options)(in.uri);  // confined to its .cfg's folder
    if (!in.uri.empty() && options.read_resource) return options.read_resource(in.uri);
    return read_input(in.path, options);
}

// One member file, as load() reads it, except that a mesh or animation keeps its bone ids and
// material threads without placeholders (cal3d::Ids::AsGiven): the character binds the ids.
Expected<Scene> read_member(const std::vector<uint8_t>& bytes, const std::string& path, const LoadOptions& character_options) {
    // Each member is detected by its own content and name (the .cfg may have been read with
    // LoadOptions::format "cal3d").
    LoadOptions options = character_options;
    options.format.clear();
    const FormatInfo* f = detect_format(bytes, path);
    const std::string_view name = f ? f->name : std::string_view{};
    using Reader = Expected<Scene> (*)(std::span<const uint8_t>, const LoadOptions&, cal3d::Ids);
    const Reader as_given = name == "cal3d-cmf"   ? Reader(&cal3d::read_cmf)
                            : name == "cal3d-xmf" ? Reader(&cal3d::read_xmf)
                            : name == "cal3d-caf" ? Reader(&cal3d::read_caf)
                            : name == "cal3d-xaf" ? Reader(&cal3d::read_xaf)
                                                  : nullptr;
    if (as_given) {
        auto scene = as_given(bytes, options, cal3d::Ids::AsGiven);
        if (!scene) return in_file(scene.error(), path);
        return scene;
    }
    LoadOptions with_folder = options;
    if (!with_folder.read_resource) with_folder.read_resource = resource_reader(path, options);
    return load_bytes(bytes, path, with_folder);
}

struct Loaded {
    std::string path, stem, format;
    Scene scene;
};

// Linear interpolation of a morph weight track at t, clamped outside its keys.
float sample(const std::vector<float>& times, const std::vector<float>& weights, float t) {
    if (times.empty()) return 0.0f;
    if (t <= times.front()) return weights.front();
    for (size_t i = 1; i < times.size(); ++i)
        if (t <= times[i]) {
            const float span = times[i] - times[i - 1];
            const float a = span > 0 ? (t - times[i - 1]) / span : 1.0f;
            return weights[i - 1] + a * (weights[i] - weights[i - 1]);
        }
    return weights.back();
}

}  // namespace

// The character from its files: inputs in order (a .cfg's members, or files given one by one).
static Expected<Scene> assemble_character(const std::vector<Input>& inputs, Scene out, const LoadOptions& options);

static Expected<Scene> load_cal3d_character_unguarded(const std::vector<std::string>& paths, const LoadOptions& options) {
    Scene out;
    std::vector<Input> inputs;
    for (auto& p : paths) {
        if (ends_with_cfg(p)) {
            auto text = read_input(p, options);
            if (!text) return text.error();
            const std::string_view view(reinterpret_cast<const char*>(text->data()), text->size());
            if (auto st = parse_cfg(view, p, true, options, inputs, out); !st) return st.error();
        } else {
            inputs.push_back(Input{p, {}, 0, {}, {}, {}, false});
        }
    }
    // A character from several files is a read of its own, outside load_bytes: the same check of
    // the scene's invariants after it (src/pipeline/load.cpp does it for every single-file read).
    auto scene = assemble_character(inputs, std::move(out), options);
    if (scene)
        if (auto st = check_invariants(*scene); !st) {
            Error e = st.error();
            if (e.path.empty() && !paths.empty()) e.path = paths.front();
            return e;
        }
    return scene;
}

static Expected<Scene> assemble_character(const std::vector<Input>& inputs, Scene out, const LoadOptions& options) {
    std::vector<Loaded> files;
    std::string missing_skeleton;  // a skeleton the .cfg names that allow_missing left out
    for (auto& in : inputs) {
        const std::string stem = fs::path(in.path).stem().string();
        auto bytes = fetch_member(in, options);
        if (!bytes) {
            // Named by a .cfg (line > 0; a .cfg read from bytes has no name of its own, and
            // load_bytes names it): the error or warning names the .cfg line.
            if (in.line > 0 && bytes.error().code == ErrorCode::NotFound) {
                const std::string what = fmt::format("{} '{}' not found ({})", in.key, detail::excerpt(in.value, 80), detail::excerpt(in.path, 200));
                if (!options.allow_missing)
                    return at_line(make_error(ErrorCode::NotFound, what + "; --allow-missing leaves it out"), in.cfg, in.line);
                out.warnings.add(WarningCode::PartMissing, fmt::format("line {}: {}; left out", in.line, what), std::nullopt, in.cfg);
                if (in.key == "skeleton") missing_skeleton = fmt::format("'{}' ({}:{})", detail::excerpt(in.value, 80), in.cfg, in.line);
                // A material slot keeps its index: material threads count .cfg lines (§4.5).
                std::string ext = fs::path(in.path).extension().string();
                std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
                if (ext == ".xrf" || ext == ".crf") {
                    Scene placeholder;
                    placeholder.materials.push_back(Material{});
                    files.push_back(Loaded{in.path, stem, "cal3d-material-missing", std::move(placeholder)});
                }
                continue;
            }
            // Refused (outside the .cfg's folder), unreadable: the .cfg line that names it.
            if (in.line > 0)
                return at_line(make_error(bytes.error().code, fmt::format("{}={}: {}", in.key, detail::excerpt(in.value, 80), bytes.error().message)), in.cfg, in.line);
            return in_file(bytes.error(), in.path);
        }
        auto scene = read_member(*bytes, in.path, options);
        if (!scene) return in_file(scene.error(), in.path);
        std::string format = scene->meta.source_format;
        if (!format.starts_with("cal3d-"))
            return in_file(make_error(ErrorCode::InvalidArgument, fmt::format("not a Cal3D file ({})", format)), in.path);
        // Binding uses bone ids and material threads, never a member's own joints or materials
        // (meshes and animations are read without placeholders: read_member).
        if (format != "cal3d-csf" && format != "cal3d-xsf" && scene->skeleton.animation_only) scene->skeleton = Skeleton{};
        if (format != "cal3d-crf" && format != "cal3d-xrf") scene->materials.clear();
        files.push_back(Loaded{in.path, stem, format, std::move(*scene)});
    }
    auto is = [](const Loaded& f, std::string_view a, std::string_view b) { return f.format == a || f.format == b; };
    auto is_material = [&](const Loaded& f) { return is(f, "cal3d-crf", "cal3d-xrf") || f.format == "cal3d-material-missing"; };

    // Skeleton: exactly one at most; bone id -> joint.
    std::map<int32_t, uint32_t> joint_of;
    const Loaded* skeleton = nullptr;
    for (auto& f : files)
        if (is(f, "cal3d-csf", "cal3d-xsf")) {
            if (skeleton) return in_file(make_error(ErrorCode::InvalidArgument, fmt::format("a second skeleton (the first is {})", skeleton->path)), f.path);
            skeleton = &f;
            out.skeleton = f.scene.skeleton;
            for (size_t j = 0; j < out.skeleton.source_ids.size(); ++j) joint_of[out.skeleton.source_ids[j]] = uint32_t(j);
            std::string cfg_comment = std::move(out.meta.comment);
            out.meta = f.scene.meta;
            out.meta.comment = std::move(cfg_comment);
        }
    // A mesh with influences, or a skeletal animation, without a skeleton: the error names the
    // bone ids it needs and the skeleton file that would hold them.
    auto no_skeleton = [&](const Loaded& f, const std::set<uint32_t>& ids, const char* what) {
        std::string list;
        size_t shown = 0;
        for (uint32_t id : ids) {
            if (shown++ == 12) {
                list += fmt::format(" ... ({} in all)", ids.size());
                break;
            }
            list += fmt::format("{}{}", list.empty() ? "" : ", ", id);
        }
        const std::string which = missing_skeleton.empty() ? std::string("none was given")
                                                           : fmt::format("the skeleton {} is missing", missing_skeleton);
        return in_file(make_error(ErrorCode::NotFound,
                                  fmt::format("{} on bone{} {} need a Cal3D skeleton (.csf or .xsf) holding those bone ids; {}", what,
                                              ids.size() == 1 ? "" : "s", list, which)),
                       f.path);
    };
    if (!skeleton) {  // meshes first: their bones are what a viewer needs
        for (auto& f : files) {
            std::set<uint32_t> ids;
            if (is(f, "cal3d-cmf", "cal3d-xmf"))
                for (auto& m : f.scene.meshes)
                    for (auto& inf : m.skin.influences) ids.insert(inf.joint);
            if (!ids.empty()) return Expected<Scene>(no_skeleton(f, ids, "the mesh's influences"));
        }
        for (auto& f : files) {
            std::set<uint32_t> ids;
            if (is(f, "cal3d-caf", "cal3d-xaf"))
                for (auto& a : f.scene.animations)
                    for (auto& t : a.tracks) ids.insert(t.joint);
            if (!ids.empty()) return Expected<Scene>(no_skeleton(f, ids, "the animation's tracks"));
        }
    }
    auto bone = [&](uint32_t id, const Loaded& f, const char* what) -> Expected<uint32_t> {
        if (!skeleton) return no_skeleton(f, {id}, what);
        auto it = joint_of.find(int32_t(id));
        if (it == joint_of.end())
            return in_file(make_error(ErrorCode::Malformed, fmt::format("{} on bone {}, the skeleton has {} bones", what, id, joint_of.size())), f.path);
        return it->second;
    };
    for (auto& f : files)
        if (is_material(f)) {
            Material m = f.scene.materials.empty() ? Material{} : f.scene.materials.front();
            m.name = f.stem;
            out.materials.push_back(std::move(m));
        }
    std::vector<std::vector<uint32_t>> meshes_of_file;  // mesh file (in order) -> scene meshes (its submeshes)
    for (auto& f : files) {
        if (!is(f, "cal3d-cmf", "cal3d-xmf")) continue;
        meshes_of_file.emplace_back();
        const size_t count = f.scene.meshes.size();
        for (size_t s = 0; s < count; ++s) {
            Mesh m = f.scene.meshes[s];
            m.name = count > 1 ? fmt::format("{}#{}", f.stem, s) : f.stem;
            for (auto& inf : m.skin.influences) {
                auto j = bone(inf.joint, f, "an influence");
                if (!j) return j.error();
                inf.joint = *j;
            }
            if (m.material >= int32_t(out.materials.size())) {
                out.warnings.add(WarningCode::Ignored, fmt::format("material thread {} but {} materials; none used", m.material, out.materials.size()), std::nullopt, f.path);
                m.material = -1;
            }
            meshes_of_file.back().push_back(uint32_t(out.meshes.size()));
            out.meshes.push_back(std::move(m));
        }
    }
    for (auto& f : files) {
        if (!is(f, "cal3d-caf", "cal3d-xaf")) continue;
        // Tracks on bones the skeleton lacks are left out with one warning, as the animation
        // matching of every other format does (docs/cal3d.md); a file none of whose tracks binds
        // belongs to another skeleton.
        std::set<uint32_t> lacking, bound;
        for (auto& a : f.scene.animations)
            for (auto& t : a.tracks) (skeleton && joint_of.count(int32_t(t.joint)) ? bound : lacking).insert(t.joint);
        if (!lacking.empty() && bound.empty()) {
            auto j = bone(*lacking.begin(), f, "a track");
            if (!j) return j.error();
        }
        if (!lacking.empty()) {
            std::string list;
            size_t shown = 0;
            for (uint32_t id : lacking) {
                if (shown++ == 4) {
                    list += fmt::format(" ... ({} in all)", lacking.size());
                    break;
                }
                list += fmt::format("{}{}", list.empty() ? "" : ", ", id);
            }
            out.warnings.add(WarningCode::Ignored,
                             fmt::format("tracks on {} bone{} the skeleton lacks left out: bone id{} {}", lacking.size(),
                                         lacking.size() == 1 ? "" : "s", lacking.size() == 1 ? "" : "s", list),
                             std::nullopt, f.path);
        }
        for (Animation a : f.scene.animations) {
            a.name = f.stem;
            std::erase_if(a.tracks, [&](const JointTrack& t) { return lacking.count(t.joint) > 0; });
            for (auto& t : a.tracks) {
                auto j = bone(t.joint, f, "a track");
                if (!j) return j.error();
                t.joint = *j;
            }
            out.animations.push_back(std::move(a));
        }
    }
    for (auto& f : files) {
        if (!is(f, "cal3d-cpf", "cal3d-xpf")) continue;
        // Which (scene mesh, target) each placeholder track drives.
        std::map<uint32_t, std::vector<std::pair<uint32_t, size_t>>> drives;  // scene mesh -> (target, placeholder mesh)
        uint64_t unbound = 0;
        for (size_t p = 0; p < f.scene.meshes.size(); ++p) {
            const std::string& name = f.scene.meshes[p].name;
            int mesh_id = -1, morph_id = -1;
            char subs[256] = {};
            bool found = false;
            if (std::sscanf(name.c_str(), "mesh %d submesh %255s morph %d", &mesh_id, subs, &morph_id) == 3) {
                if (mesh_id >= 0 && size_t(mesh_id) < meshes_of_file.size()) {
                    std::string list = subs;
                    for (size_t at = 0; at < list.size();) {
                        size_t comma = list.find(',', at);
                        const int s = std::atoi(list.substr(at, comma - at).c_str());
                        if (s >= 0 && size_t(s) < meshes_of_file[mesh_id].size()) {
                            const uint32_t sm = meshes_of_file[mesh_id][size_t(s)];
                            if (morph_id >= 0 && size_t(morph_id) < out.meshes[sm].morph_targets.size()) {
                                drives[sm].push_back({uint32_t(morph_id), p});
                                found = true;
                            }
                        }
                        if (comma == std::string::npos) break;
                        at = comma + 1;
                    }
                }
            } else {
                for (uint32_t m = 0; m < out.meshes.size(); ++m)
                    for (uint32_t t = 0; t < out.meshes[m].morph_targets.size(); ++t)
                        if (out.meshes[m].morph_targets[t].name == name) drives[m].push_back({t, p}), found = true;
            }
            unbound += !found;
        }
        if (unbound) out.warnings.add(WarningCode::Ignored, fmt::format("{} morph tracks name no loaded morph target; ignored", unbound), std::nullopt, f.path);
        const auto& src = f.scene.animations.front().morph_tracks;
        Animation a;
        a.name = f.stem;
        a.loop = true;
        for (auto& [m, list] : drives) {
            std::set<float> times;
            for (auto& [t, p] : list) times.insert(src[p].times.begin(), src[p].times.end());
            MorphWeightTrack mt;
            mt.mesh = m;
            mt.times.assign(times.begin(), times.end());
            const size_t targets = out.meshes[m].morph_targets.size();
            mt.weights.assign(mt.times.size() * targets, 0.0f);
            for (size_t k = 0; k < mt.times.size(); ++k)
                for (auto& [t, p] : list) mt.weights[k * targets + t] = sample(src[p].times, src[p].weights, mt.times[k]);
            a.morph_tracks.push_back(std::move(mt));
        }
        out.animations.push_back(std::move(a));
    }
    if (!skeleton && !files.empty()) {
        std::string cfg_comment = std::move(out.meta.comment);
        out.meta = files.front().scene.meta;
        out.meta.comment = std::move(cfg_comment);
    }
    out.meta.source_format = "cal3d";
    for (auto& f : files)
        for (auto w : f.scene.warnings.items) {
            if (w.path.empty()) w.path = f.path;  // each member's warnings name the member
            out.warnings.add_warning(w);
        }
    return out;
}

namespace cal3d {

// The registry's reader for a .cfg (load(path) and load_bytes): the list from bytes, the members
// through options.read_resource (load(path) sets one confined to the .cfg's folder).
Expected<Scene> read_cfg(std::span<const uint8_t> bytes, const LoadOptions& options) {
    if (!options.read_resource)
        return make_error(ErrorCode::Unsupported, "a Cal3D .cfg read from bytes needs LoadOptions::read_resource for the files it lists");
    Scene out;
    std::vector<Input> inputs;
    const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    if (auto st = parse_cfg(text, "", false, options, inputs, out); !st) return st.error();
    return assemble_character(inputs, std::move(out), options);
}

Expected<std::vector<std::string>> cfg_named_files(std::span<const uint8_t> bytes) {
    return detail::guarded(std::string(), "reading", [&]() -> Expected<std::vector<std::string>> {
        Scene unused;
        std::vector<Input> inputs;
        const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
        if (auto st = parse_cfg(text, "", false, LoadOptions{}, inputs, unused); !st) return st.error();
        std::vector<std::string> names;
        for (auto& in : inputs) names.push_back(in.uri);
        return names;
    });
}

}  // namespace cal3d

Expected<Scene> load_cal3d_character(const std::vector<std::string>& paths, const LoadOptions& options) {
    static const std::string no_path;
    return detail::guarded(paths.empty() ? no_path : paths.front(), "reading",
                           [&] { return load_cal3d_character_unguarded(paths, options); });
}

}  // namespace rigport
