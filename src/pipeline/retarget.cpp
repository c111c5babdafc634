// `rigport retarget` in the library: the clips and the target read as convert reads its inputs,
// the clips retargeted onto the target (src/process/retarget_*.cpp) and the model saved as convert
// saves it, with the map used beside it (docs/retarget.md).
#include "rigport/retarget.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>

#include "pipeline/convert_internal.hpp"

namespace rigport {

namespace {

// The map file's pairs, read (and parsed) before either model.
Expected<std::optional<BoneMapOverrides>> read_map_file(const std::string& path, const LoadOptions& load) {
    if (path.empty()) return std::optional<BoneMapOverrides>{};
    auto bytes = read_input(path, load);
    if (!bytes) return bytes.error();
    auto pairs = parse_bone_map(std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()), path);
    if (!pairs) return pairs.error();
    return std::optional<BoneMapOverrides>(std::move(*pairs));
}

// The clips as convert reads its inputs: as one model, a mesh file with its companions.
Expected<Scene> compile_clips(const std::vector<CompileInput>& clips, const CompileOptions& options, std::vector<std::string>& companions) {
    std::vector<CompileInput> inputs = clips;
    companions = add_companions(inputs, options.load);
    auto scene = compile(inputs, options);
    if (!scene) return scene.error();
    if (scene->animations.empty()) {
        Error e = make_error(ErrorCode::Unsupported, "holds no animation to retarget");
        e.path = clips.front().paths.front();
        return e;
    }
    return scene;
}

struct Placed {
    BoneMap map;
    std::vector<std::string> unmapped;
    double root_scale = 1.0;
};

// The target's own clips replaced by the retargeted ones; warnings name the target's file.
Expected<Placed> place_clips(Scene& target, Scene& clips, const std::optional<BoneMapOverrides>& overrides, const RetargetJob& job,
                             const RetargetOptions& options, Warnings& warnings) {
    BoneMap map = auto_bone_map(clips.skeleton, target.skeleton);
    if (overrides) {
        auto applied = apply_bone_map(std::move(map), *overrides, clips.skeleton, target.skeleton, job.map_file);
        if (!applied) return applied.error();
        map = std::move(*applied);
    }
    auto done = retarget_clips(clips, target, map, options);
    if (!done) {
        Error e = done.error();
        if (e.path.empty()) e.path = job.onto.paths.front();
        return e;
    }
    for (auto& w : done->warnings.items) warnings.add(w.code, w.message, w.offset, job.onto.paths.front());
    target.animations = std::move(done->animations);
    return Placed{std::move(map), std::move(done->unmapped), done->root_scale};
}

Status usage(std::string message) { return make_error(ErrorCode::InvalidArgument, std::move(message)); }

Status check_job(const RetargetJob& job) {
    if (job.clips.empty() || job.clips.front().paths.empty()) return usage("no clip given to retarget");
    if (job.onto.paths.empty()) return usage("no target skeleton given (onto)");
    if (!job.save_map.empty() && is_stdout_path(job.output)) return usage("the saved map is written with the output: not with standard output");
    return Ok{};
}

}  // namespace

RetargetResult run_retarget(const RetargetJob& job, const ConvertOptions& options, const RetargetOptions& retarget) {
    RetargetResult r;
    if (auto st = check_job(job); !st) {
        r.error = st.error();
        return r;
    }
    std::vector<std::string> also_read{job.map_file};
    for (auto& in : job.clips)
        for (auto& p : in.paths) also_read.push_back(p);
    if (job.map_file.empty()) also_read.erase(also_read.begin());
    // The saved map is an output too: checked with the model's before anything is read.
    if (!job.save_map.empty()) {
        WriteOptions check{options.force, also_read};
        for (auto& p : job.onto.paths) check.protect.push_back(input_file(p));
        check.protect.push_back(job.output);
        if (auto st = check_output(job.save_map, check); !st) {
            r.error = st.error();
            r.write_error = r.failed_writing = true;
            return r;
        }
    }
    auto overrides = read_map_file(job.map_file, options.load);
    if (!overrides) {
        r.error = overrides.error();
        return r;
    }
    ConvertJob convert_job;
    convert_job.inputs = {job.onto};
    convert_job.output = job.output;
    WriteGroup group;
    if (!is_stdout_path(job.output)) convert_job.stage_into = &group;
    // The target is read alone: its own clips are replaced, so the files beside it are not read.
    ConvertOptions target_options = options;
    target_options.load.companions = false;
    Placed placed;
    auto hook = [&](Scene& scene, const CompileOptions& compiled, ConvertResult& result) -> Status {
        CompileOptions clip_options;
        clip_options.load = options.load;
        clip_options.load.on_read = compiled.load.on_read;
        clip_options.clip_end = compiled.clip_end;
        clip_options.threads = compiled.threads;
        auto clips = compile_clips(job.clips, clip_options, result.companions);
        if (!clips) return clips.error();
        for (auto& w : clips->warnings.items) result.read_warnings.items.push_back(w);
        auto done = place_clips(scene, *clips, *overrides, job, retarget, result.read_warnings);
        if (!done) return done.error();
        placed = std::move(*done);
        return Ok{};
    };
    static_cast<ConvertResult&>(r) = detail::run_conversion(convert_job, target_options, nullptr, hook, also_read);
    r.map = std::move(placed.map);
    r.unmapped = std::move(placed.unmapped);
    r.root_scale = placed.root_scale;
    if (r.error || is_stdout_path(job.output)) return r;
    if (!job.save_map.empty()) {
        const std::string text = bone_map_json(r.map);
        WriteOptions write{options.force, r.inputs};
        if (auto st = group.stage(job.save_map, std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()), write); !st) {
            r.error = st.error();
            r.write_error = r.failed_writing = true;
            r.outputs.clear();
            return r;
        }
        r.outputs.push_back(job.save_map);
    }
    if (auto st = group.commit(); !st) {
        r.error = st.error();
        r.write_error = r.failed_writing = true;
        r.outputs.clear();
    }
    return r;
}

Expected<RetargetedModel> retarget_model(const RetargetJob& job, const LoadOptions& load, const RetargetOptions& retarget) {
    if (auto st = check_job(job); !st) return st.error();
    auto overrides = read_map_file(job.map_file, load);
    if (!overrides) return overrides.error();
    CompileOptions target_options;
    target_options.load = load;
    target_options.load.companions = false;
    auto target = compile({job.onto}, target_options);
    if (!target) return target.error();
    CompileOptions clip_options;
    clip_options.load = load;
    std::vector<std::string> companions;
    auto clips = compile_clips(job.clips, clip_options, companions);
    if (!clips) return clips.error();
    Warnings warnings;
    auto placed = place_clips(*target, *clips, *overrides, job, retarget, warnings);
    if (!placed) return placed.error();
    for (auto& w : warnings.items) target->warnings.items.push_back(w);
    return RetargetedModel{std::move(*target), std::move(placed->map), std::move(placed->unmapped)};
}

std::string retarget_json(const std::string& input, const RetargetResult& result) {
    using Json = nlohmann::ordered_json;
    Json j = Json::parse(conversion_json(input, result));
    j["map"] = Json::object();
    for (auto& [s, t] : result.map) j["map"][s] = t;
    j["unmapped"] = result.unmapped;
    j["root_scale"] = result.root_scale;
    return j.dump(2, ' ', false, Json::error_handler_t::replace);
}

}  // namespace rigport
