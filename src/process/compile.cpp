// The IQE -> IQM compiler front end (docs/iqm.md §3.1, §3.2): inputs merged into one scene, the
// processing pipeline for text inputs, per-file animation options, skeleton matching by name;
// Cal3D files as one character (compile_cal3d.cpp; docs/cal3d.md §4.5), the clip-end rule (§4.4).
#include "process/smooth_normals.hpp"
#include "rigport/compile.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <unordered_map>

#include "core/embedded_images.hpp"
#include "core/guarded.hpp"
#include "formats/iqe/iqe_layout.hpp"
#include "process/compile_cal3d.hpp"
#include "process/threaded.hpp"
#include "rigport/anim.hpp"
#include "rigport/formats.hpp"

namespace rigport {

namespace {

Error at_path(Error e, const std::string& path) {
    if (e.path.empty()) e.path = path;
    return e;
}

// The path an error of the whole compile names: the first input's (a reference: no allocation
// before the guard).
const std::string& first_path(const std::vector<CompileInput>& inputs) {
    static const std::string none;
    return inputs.empty() || inputs.front().paths.empty() ? none : inputs.front().paths.front();
}

// One input group ("a.iqe,b.iqe") as a scene, plus what normal generation needs.
struct Part {
    Scene scene;
    std::vector<MeshSmoothing> smoothing;
    bool text = false;         // from a compiler source (FormatInfo::compiler_source): runs through the pipeline
    bool has_normals = true;
};

Expected<Part> load_part(const std::string& path, const LoadOptions& options) {
    auto bytes = read_input(path, options);  // a file, or PACK.jpk:MEMBER (jpk.hpp); LoadOptions::read_file
    if (!bytes) return bytes.error();
    Part part;
    const FormatInfo* format = options.format.empty() ? detect_format(*bytes, path) : find_format(options.format);
    if (format && format->name == "iqe") {
        auto doc = iqe::parse(*bytes, options);
        if (!doc) return at_path(doc.error(), path);
        part.scene = std::move(doc->scene);
        part.scene.warnings.set_path(path);
        part.smoothing = std::move(doc->smoothing);
        part.text = true;
        part.has_normals = doc->has_normals;
        return part;
    }
    // Files the model refers to (a .gltf's external buffers) are read beside it, as load() does:
    // confined to its folder (or options.root) and reported to options.on_read.
    LoadOptions beside = options;
    if (!beside.read_resource) beside.read_resource = resource_reader(path, options);
    auto scene = load_bytes(*bytes, path, beside);
    if (!scene) return scene.error();
    part.scene = std::move(*scene);
    part.smoothing.resize(part.scene.meshes.size());
    // The reference compiler's other sources (MD5) as IQE: their meshes run through the pipeline
    // (the reader gave them normals), and an animation the file does not name (an .md5anim) is
    // named after the file.
    if (format && format->compiler_source) {
        part.text = true;
        for (auto& a : part.scene.animations)
            if (a.name.empty()) a.name = std::filesystem::path(path).stem().string();
    }
    return part;
}

bool same_skeleton(const Skeleton& a, const Skeleton& b) {
    if (a.joints.size() != b.joints.size()) return false;
    for (size_t j = 0; j < a.joints.size(); ++j)
        if (a.joints[j].name != b.joints[j].name || a.joints[j].parent != b.joints[j].parent) return false;
    return true;
}

// Material m of `from` for `into`: the images it holds moved along (each once, image_map).
Material take_material(Scene& into, Scene& from, int32_t m, std::vector<int32_t>& image_map) {
    Material material = from.materials[size_t(m)];
    for (auto& map : material.maps) {
        if (map.image < 0) continue;
        int32_t& moved = image_map[size_t(map.image)];
        if (moved < 0) {
            into.images.push_back(std::move(from.images[size_t(map.image)]));
            moved = int32_t(into.images.size() - 1);
        }
        map.image = moved;
    }
    return material;
}

// Appends `from`'s meshes to `into`: meshes with an equal (name, material) are merged with every
// triangle kept (the reference compiler loses the later ones: bug 2).
void append_meshes(Part& into, Part&& from) {
    auto material_name = [](const Scene& s, int32_t m) { return m < 0 ? std::string() : s.materials[m].name; };
    // Materials by name (the last of a name wins), so 30,000 meshes cost linear time.
    std::unordered_map<std::string, int32_t> by_name;
    for (size_t k = 0; k < into.scene.materials.size(); ++k) by_name[into.scene.materials[k].name] = int32_t(k);
    std::vector<int32_t> image_map(from.scene.images.size(), -1);
    for (size_t i = 0; i < from.scene.meshes.size(); ++i) {
        Mesh& src = from.scene.meshes[i];
        const std::string mat = material_name(from.scene, src.material);
        int32_t target_material = -1;
        if (src.material >= 0) {
            auto [it, added] = by_name.try_emplace(mat, int32_t(into.scene.materials.size()));
            if (added) into.scene.materials.push_back(take_material(into.scene, from.scene, src.material, image_map));
            target_material = it->second;
        }
        src.material = target_material;
        into.scene.meshes.push_back(std::move(src));
        into.smoothing.push_back(i < from.smoothing.size() ? std::move(from.smoothing[i]) : MeshSmoothing{});
    }
    into.has_normals = into.has_normals && from.has_normals;
    detail::name_embedded_images(into.scene);  // unique again over both inputs' maps
}

// The frame of a key of a frame-based animation.
int64_t frame_of(float time, float rate) { return std::llround(double(time) * rate); }

// --name --fps --loop --start --end on one animation (docs/iqm.md §3.1).
void apply_to_animation(Animation& a, const AnimationInputOptions& o) {
    if (o.name) a.name = *o.name;
    if (o.loop) a.loop = true;
    const float old_rate = sampling_rate(a);  // keyed sources: the rate their keys fall on
    const int64_t frames = a.frame_count;
    int64_t first = std::max<int64_t>(0, o.start.value_or(0));
    // --end: >= 0 is the last frame kept (inclusive); -1 means unset; -2 still keeps the last
    // frame and -3 drops one, as the reference tool does.
    int64_t last = frames - 1;
    if (o.end && *o.end >= 0) last = std::min(last, *o.end);
    if (o.end && *o.end <= -2) last = frames + *o.end + 1;
    if (frames > 0 && (first > 0 || last < frames - 1)) {
        if (last < first) last = first - 1;  // nothing left
        for (auto& t : a.tracks) {
            if (t.times.size() <= 1) continue;  // constant channels: one key holds for every frame
            const uint32_t c = t.components();
            std::vector<float> times, values;
            for (size_t k = 0; k < t.times.size(); ++k) {
                const int64_t f = frame_of(t.times[k], old_rate);
                if (f < first || f > last) continue;
                times.push_back(float(f - first) / old_rate);
                values.insert(values.end(), t.values.begin() + k * c, t.values.begin() + (k + 1) * c);
            }
            t.times = std::move(times);
            t.values = std::move(values);
        }
        a.frame_count = uint32_t(std::max<int64_t>(0, last - first + 1));
    }
    if (o.fps && *o.fps >= 0) {
        a.frame_rate = *o.fps;
        const float new_rate = a.frame_rate > 0 ? a.frame_rate : default_frame_rate;
        for (auto& t : a.tracks)
            for (auto& time : t.times) time = float(frame_of(time, old_rate)) / new_rate;
        for (auto& t : a.morph_tracks)
            for (auto& time : t.times) time = float(frame_of(time, old_rate)) / new_rate;
        if (a.stated_duration > 0) a.stated_duration = float(double(a.stated_duration) * old_rate / new_rate);
    }
}

// The options for a file with exactly one animation.
void apply_animation_options(Scene& scene, const AnimationInputOptions& o, const std::string& path) {
    const bool any = o.name || o.fps || o.loop || o.start || o.end;
    if (!any) return;
    if (scene.animations.size() != 1) {
        scene.warnings.add(WarningCode::Ignored, fmt::format("animation options ignored: the file has {} animations, not exactly one", scene.animations.size()),
                           std::nullopt, path);
        return;
    }
    apply_to_animation(scene.animations[0], o);
}

// Every Cal3D input as one character, with the per-file options on the animations they aim at.
Expected<Part> load_cal3d_part(const std::vector<CompileInput>& inputs, const LoadOptions& options) {
    auto group = detail::load_cal3d_group(inputs, options);
    if (!group) return group.error();
    for (auto& target : group->targets) apply_to_animation(group->scene.animations[target.animation], target.options);
    Part part;
    part.scene = std::move(group->scene);
    part.smoothing.resize(part.scene.meshes.size());
    return part;
}

// Joint names as a warning lists them: the first few quoted, then how many in all.
std::string name_list(const std::vector<std::string>& names) {
    constexpr size_t shown = 4;
    std::string list;
    for (size_t i = 0; i < names.size() && i < shown; ++i) list += fmt::format("{}'{}'", i ? ", " : "", names[i]);
    if (names.size() > shown) list += fmt::format(" ... ({} in all)", names.size());
    return list;
}

// Moves `from`'s animations onto `skeleton`, matching joints by name (or by index when `from`
// has no names, as animation-only IQM files do; an .md5anim's hierarchy has names). Channels of
// joints the skeleton lacks are left out with one warning, as studiomdl and assimp ignore them;
// an animation none of whose joints is in the skeleton is an error (it belongs to another model).
Status retarget_animations(Scene& into, Scene& from, const std::string& path) {
    constexpr uint32_t unmatched = UINT32_MAX;
    const auto& target = into.skeleton.joints;
    const auto& source = from.skeleton.joints;
    std::vector<uint32_t> map(source.size(), unmatched);
    const bool named = std::any_of(source.begin(), source.end(), [](const Joint& j) { return !j.name.empty(); });
    if (from.skeleton.animation_only && !named) {
        if (source.size() != target.size())
            return at_path(make_error(ErrorCode::Malformed, fmt::format("the animation has {} unnamed joints but the mesh's skeleton has {}; "
                                                                        "without names they can only bind by index", source.size(), target.size())),
                           path);
        for (uint32_t j = 0; j < source.size(); ++j) map[j] = j;
    } else {
        std::unordered_map<std::string, uint32_t> by_name;
        for (uint32_t j = 0; j < target.size(); ++j) by_name.emplace(target[j].name, j);
        std::vector<std::string> missing;
        for (uint32_t j = 0; j < source.size(); ++j) {
            auto it = by_name.find(source[j].name);
            if (it == by_name.end()) missing.push_back(source[j].name);
            else map[j] = it->second;
        }
        if (!source.empty() && missing.size() == source.size())
            return at_path(make_error(ErrorCode::Malformed, fmt::format("none of the animation's {} joints ({}) is in the mesh's skeleton",
                                                                        source.size(), name_list(missing))),
                           path);
        if (!missing.empty())
            into.warnings.add(WarningCode::Ignored,
                              fmt::format("the animation's channels for {} joint{} the mesh's skeleton lacks left out: {}", missing.size(),
                                          missing.size() == 1 ? "" : "s", name_list(missing)),
                              std::nullopt, path);
    }
    for (uint32_t j = 0; j < source.size(); ++j) {
        if (map[j] == unmatched) continue;
        // The parent it has in the animation, skipping joints the skeleton lacks.
        int32_t sp = source[j].parent;
        while (sp >= 0 && map[size_t(sp)] == unmatched) sp = source[size_t(sp)].parent;
        const int32_t expected = sp < 0 ? -1 : int32_t(map[size_t(sp)]);
        if (target[map[j]].parent != expected)
            into.warnings.add(WarningCode::PoseParentMismatch,
                              fmt::format("joint '{}' has another parent in the animation than in the mesh's skeleton", target[map[j]].name), std::nullopt, path);
    }
    for (auto& a : from.animations) {
        std::erase_if(a.tracks, [&](const JointTrack& t) { return map[t.joint] == unmatched; });
        for (auto& t : a.tracks) t.joint = map[t.joint];
        a.morph_tracks.clear();
        into.animations.push_back(std::move(a));
    }
    return Ok{};
}

Expected<Part> load_group(const CompileInput& input, const LoadOptions& options) {
    Part group;
    bool first = true;
    for (auto& path : input.paths) {
        auto part = load_part(path, options);
        if (!part) return part.error();
        for (auto& w : part->scene.warnings.items) group.scene.warnings.items.push_back(w);
        if (first) {
            group.scene.skeleton = part->scene.skeleton;
            group.scene.animations = std::move(part->scene.animations);
            group.scene.meta = part->scene.meta;
            group.text = part->text;
            first = false;
        } else {
            if (!same_skeleton(group.scene.skeleton, part->scene.skeleton))
                return at_path(make_error(ErrorCode::Malformed, "its skeleton differs from the other files of the comma-joined list"), path);
            for (auto& a : part->scene.animations) group.scene.animations.push_back(std::move(a));
            group.text = group.text || part->text;
        }
        append_meshes(group, std::move(*part));
    }
    return group;
}

// One rule for every input, whatever the output (degenerate.cpp): the geometry that is kept
// loses its degenerate triangles, as the reference compiler's IQE route does.
void drop_degenerate(Scene& scene, const std::string& path) {
    if (uint64_t n = drop_degenerate_triangles(scene))
        scene.warnings.add(WarningCode::DegenerateTriangle,
                           fmt::format("{} degenerate triangles dropped (a repeated vertex, or two corners at the same position)", n), std::nullopt, path);
}

// Normals when absent (the meaning of the file: every pipeline), then the compiler's steps: weld,
// vertex-cache order, tangents when absent (docs/iqm.md §3.2 3-7).
void run_pipeline(Part& part, Pipeline pipeline, uint32_t threads) {
    if (!part.has_normals) generate_normals(part.scene, part.smoothing, threads);
    part.smoothing = {};  // no longer needed: its memory goes before the next step's
    if (pipeline == Pipeline::Plain) return;
    detail::weld_vertices(part.scene, threads);
    optimize_vertex_cache(part.scene);
    detail::generate_tangents(part.scene, threads);
}

}  // namespace

static Expected<Scene> compile_unguarded(const std::vector<CompileInput>& inputs, const CompileOptions& options) {
    if (inputs.empty()) return make_error(ErrorCode::InvalidArgument, "no input");
    // Cal3D files form one character, which takes the place of the first of them (docs/cal3d.md §4.5).
    std::vector<CompileInput> cal3d_inputs;
    size_t first_cal3d = inputs.size();
    for (size_t i = 0; i < inputs.size(); ++i) {
        const auto& paths = inputs[i].paths;
        const size_t n = size_t(std::count_if(paths.begin(), paths.end(), [](const std::string& p) { return is_cal3d_path(p); }));
        if (n == 0) continue;
        if (n != paths.size())
            return at_path(make_error(ErrorCode::InvalidArgument, "a comma-joined list mixes Cal3D files with other formats"), paths.front());
        cal3d_inputs.push_back(inputs[i]);
        first_cal3d = std::min(first_cal3d, i);
    }
    // The first input gives the meshes and the skeleton (a mesh file comes before its animation
    // files, as with the reference compiler); later inputs add their animations.
    Scene result;
    bool first = true;
    LoadOptions load = options.load;
    load.threads = options.threads;  // the readers use the compile's threads
    for (size_t i = 0; i < inputs.size(); ++i) {
        const bool cal3d = !cal3d_inputs.empty() && is_cal3d_path(inputs[i].paths.front());
        if (cal3d && i != first_cal3d) continue;
        auto group = cal3d ? load_cal3d_part(cal3d_inputs, load) : load_group(inputs[i], load);
        if (!group) return group.error();
        const std::string& path = inputs[i].paths.front();
        if (!cal3d) apply_animation_options(group->scene, inputs[i].animation, path);
        if (first) drop_degenerate(group->scene, path);
        if (group->text) run_pipeline(*group, options.pipeline, options.threads);
        if (first) {
            result = std::move(group->scene);
            first = false;
            continue;
        }
        // An animation-only input bound to the mesh's skeleton is used as intended: the reader's
        // note that it stands alone ("an .md5anim alone") no longer holds.
        for (auto& w : group->scene.warnings.items)
            if (w.code != WarningCode::AnimationOnly) result.warnings.add_warning(w);
        if (!group->scene.meshes.empty())
            result.warnings.add(WarningCode::DroppedData, "geometry of a later input is ignored; only its animations are used", std::nullopt, path);
        if (auto st = retarget_animations(result, group->scene, path); !st) return st.error();
    }
    apply_clip_end(result, options.clip_end);
    if (options.max_influences > 0) limit_weights(result, options.max_influences);
    const TransformOptions identity;
    if (options.transform.scale != identity.scale || options.transform.rotate_degrees != identity.rotate_degrees ||
        options.transform.meshtrans != identity.meshtrans)
        apply_transform(result, options.transform);
    if (auto st = check_invariants(result); !st) return st.error();
    return result;
}

CompileOptions compiler_options(const FormatInfo& output) {
    CompileOptions options;
    options.pipeline = Pipeline::Compiler;
    options.max_influences = output.max_influences;
    options.clip_end = output.stated_duration ? ClipEnd::None : ClipEnd::Clamp;
    return options;
}

Expected<Scene> compile(const std::vector<CompileInput>& inputs, const CompileOptions& options) {
    return detail::guarded(first_path(inputs), "compiling", [&] { return compile_unguarded(inputs, options); });
}

static Expected<ValidationReport> validate_compiled_unguarded(const std::vector<CompileInput>& inputs, const CompileOptions& options) {
    ValidationReport report;
    if (!inputs.empty() && !inputs.front().paths.empty()) report.path = inputs.front().paths.front();
    auto scene = compile(inputs, options);
    if (!scene) {
        const Error& e = scene.error();
        if (e.code == ErrorCode::NotFound || e.code == ErrorCode::ReadFailed) return e;
        // What the inputs were meant to be: a Cal3D character, else the first input's format.
        bool cal3d = false;
        for (auto& in : inputs)
            for (auto& p : in.paths) cal3d = cal3d || is_cal3d_path(p);
        const FormatInfo* f = find_format_by_extension(report.path);
        if (cal3d) report.format = "cal3d";
        else if (f && e.code != ErrorCode::UnknownFormat) report.format = std::string(f->name);
        // As validate_file's findings: matching no format, or recognised but not read, is not a
        // finding about the model (the CLI exits 3 for both).
        const char* code = e.code == ErrorCode::UnknownFormat ? "format.unknown"
                           : e.code == ErrorCode::Unsupported ? "load.unsupported"
                                                              : "load.failed";
        report.add(Severity::Error, code, e.to_string(), e.offset);
        return report;
    }
    report.format = scene->meta.source_format;
    for (auto& w : scene->warnings.items)
        report.add(Severity::Warning, fmt::format("read.{}", to_string(w.code)), w.message, w.offset, w.count);
    validate_scene(*scene, report);
    return report;
}

Expected<ValidationReport> validate_compiled(const std::vector<CompileInput>& inputs, const CompileOptions& options) {
    return detail::guarded(first_path(inputs), "validating", [&] { return validate_compiled_unguarded(inputs, options); });
}

std::vector<std::string> add_companions(std::vector<CompileInput>& inputs, const LoadOptions& options) {
    // A model given as several files is read as given: the user chose its files.
    if (!options.companions || inputs.size() != 1 || inputs.front().paths.size() != 1) return {};
    std::vector<std::string> found = find_companions(inputs.front().paths.front(), options);
    for (auto& c : found) inputs.push_back(CompileInput{{c}, {}});
    return found;
}

}  // namespace rigport
