// One model converted as `rigport convert` does it (compile, images, save, safe write): the code
// path `convert` and every model of `batch` go through.
#include "convert_model.hpp"

#include <chrono>
#include <filesystem>
#include <set>

#include "rigport/jpk.hpp"

namespace rigport::cli {

std::string input_file(const std::string& path) {
    std::error_code ec;
    if (auto split = split_jpk_member_path(path); split && !std::filesystem::exists(path, ec)) return split->first;
    return path;
}

namespace {

void count(const Scene& scene, ModelCounts& counts) {
    counts.meshes = scene.meshes.size();
    counts.vertices = scene.vertex_count();
    counts.triangles = scene.triangle_count();
    counts.joints = scene.skeleton.joints.size();
    counts.animations = scene.animations.size();
}

ModelResult convert(const ModelJob& job, const ModelOptions& o, WriteOptions& write_options) {
    ModelResult r;
    auto failed = [&r](const Error& e, int code, bool writing) {
        r.error = e;
        r.exit_code = code;
        r.failed_writing = writing;
        return std::move(r);
    };
    // The output may replace none of the inputs: checked now against the files named, and again
    // before writing against every file the inputs read (buffers, .cfg members, textures).
    write_options.force = o.force;
    for (auto& in : job.inputs)
        for (auto& p : in.paths) write_options.protect.push_back(input_file(p));
    if (job.check_output_first)
        if (auto st = check_output(job.output, write_options); !st) return failed(st.error(), write_exit_code(st.error()), true);

    // The compiler's pipeline, and what the output format can hold (compiler_options): influences
    // per vertex, end-of-clip keys unless the format keeps a clip's stated length (Cal3D DURATION).
    CompileOptions options = compiler_options(*o.format);
    options.load = o.load;
    options.transform = o.transform;
    options.force_joints = o.force_joints;
    options.threads = o.threads;
    options.load.on_read = [&write_options](const std::string& path) { write_options.protect.push_back(path); };
    if (o.clip_end) options.clip_end = *o.clip_end;
    auto scene = compile(job.inputs, options);
    if (!scene) return failed(scene.error(), read_exit_code(scene.error()), false);
    r.read_warnings = std::move(scene->warnings);
    if (o.fix_normals) {
        const auto tests = fix_vdrift_normals(*scene);
        for (size_t m = 0; m < tests.size(); ++m)
            if (tests[m].fires)
                r.normal_swaps.push_back(fmt::format("mesh {}: normals swapped to (x, -z, y) as VDrift does ({} of {} faces perpendicular, limit {})",
                                                     m, tests[m].perpendicular, tests[m].faces, tests[m].limit));
    }
    count(*scene, r.counts);
    const std::string& input = job.inputs.front().paths.front();

    SaveOptions save_options;
    save_options.format = std::string(o.format->name);
    save_options.force_joints = o.force_joints;
    save_options.threads = o.threads;
    save_options.warnings = &r.write_warnings;
    save_options.gltf.axis = o.axis;
    save_options.gltf.loop_key = o.loop_key;
    save_options.gltf.embed_buffer = is_stdout_path(job.output);  // standard output carries one file
    save_options.joe.force = o.force;
    save_options.cal3d = o.cal3d;
    ImageOptions images = o.images;
    const bool gltf_out = o.format->holds_images;
    // Images the inputs hold (a .glb's textures) go inside a glTF or beside the output; standard
    // output carries one file, so beside another format they are left out there.
    if (images.mode == ImageOptions::Mode::None) drop_embedded_images(*scene, "--images none", r.write_warnings);
    else if (!gltf_out && is_stdout_path(job.output)) drop_embedded_images(*scene, "standard output carries one file", r.write_warnings);
    if (gltf_out) {
        // Texture paths are relative to the model that names them: the first input's folder.
        images.search_dir = std::filesystem::path(input).parent_path().string();
        images.model_path = input;
        // Confined like every other file a model names (ImageOptions::root empty = search_dir).
        images.allow_outside = o.load.allow_outside;
        images.on_read = options.load.on_read;
        // Standard output carries one file: images go inside it, as in a .glb.
        if (is_stdout_path(job.output) && images.mode == ImageOptions::Mode::Auto) images.mode = ImageOptions::Mode::Embed;
        save_options.gltf.embedded_images = images.mode == ImageOptions::Mode::Embed       ? GltfOptions::EmbeddedImages::Embed
                                            : images.mode == ImageOptions::Mode::Reference ? GltfOptions::EmbeddedImages::Files
                                                                                           : GltfOptions::EmbeddedImages::Auto;
        auto resolved = resolve_images(*scene, job.output, images, r.write_warnings);
        if (!resolved) return failed(resolved.error(), read_exit_code(resolved.error()), false);
        save_options.gltf.images = std::move(*resolved);
    }
    // A .gltf output comes with its .bin: side files are written first, then the main file.
    auto output = save_output(*scene, job.output, save_options);
    if (!output) return failed(output.error(), write_exit_code(output.error()), false);
    r.write_warnings.set_path(job.output);  // what is left unnamed (images dropped, not PNG/JPEG) is about the output
    if (job.in_memory) {
        r.written_format = std::string(output->format);
        r.bytes = output->bytes.size();
        r.output = std::move(*output);
        return r;
    }
    std::vector<std::string> paths{job.output};
    if (!is_stdout_path(job.output))
        for (auto& side : output->side_files) paths.push_back((std::filesystem::path(job.output).parent_path() / side.name).string());
    if (job.before_write) {
        std::vector<std::span<const uint8_t>> contents{output->bytes};
        for (auto& side : output->side_files) contents.emplace_back(side.bytes);
        contents.resize(paths.size());  // standard output: the main file only
        if (auto st = job.before_write(paths, contents); !st) return failed(st.error(), write_exit_code(st.error()), true);
    }
    const Status written = job.stage_into && !is_stdout_path(job.output) ? job.stage_into->stage(job.output, *output, write_options)
                                                                        : write_output(job.output, *output, write_options);
    if (!written) return failed(written.error(), write_exit_code(written.error()), true);
    r.outputs = std::move(paths);
    r.written_format = std::string(output->format);
    r.bytes = output->bytes.size();
    return r;
}

}  // namespace

size_t ModelResult::warning_count() const {
    return read_warnings.items.size() + normal_swaps.size() + (ok() ? write_warnings.items.size() : 0);
}

ModelResult convert_model(const ModelJob& job, const ModelOptions& options) {
    const auto start = std::chrono::steady_clock::now();
    WriteOptions write_options;
    ModelResult r = convert(job, options, write_options);
    // Every file read, once each, in the order read (the protected list, which starts with the
    // files named).
    std::set<std::string> seen;
    for (auto& p : write_options.protect)
        if (seen.insert(p).second) r.inputs.push_back(p);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
}

namespace {

// Make's escaping: a space or '#' gets a backslash, as do the backslashes right before a space
// or '#' (doubled); '$' is "$$". Ninja's depfile parser reads the same.
std::string make_escape(const std::string& path) {
    std::string out;
    size_t backslashes = 0;
    for (char c : path) {
        if (c == ' ' || c == '#' || c == '\t') {
            out.append(backslashes, '\\');  // each run of backslashes before it doubled
            out += '\\';
        }
        backslashes = c == '\\' ? backslashes + 1 : 0;
        if (c == '$') out += '$';
        out += c;
    }
    return out;
}

}  // namespace

std::string make_depfile(const std::string& target, const std::vector<std::string>& dependencies) {
    std::string text = make_escape(target) + ":";
    for (auto& d : dependencies) text += " \\\n  " + make_escape(d);
    return text + "\n";
}

void append_warnings(const ModelResult& result, std::string& text) {
    for (auto& w : result.read_warnings.items) text += fmt::format("Warning: {}\n", warning_text(w));
    for (auto& s : result.normal_swaps) text += fmt::format("Warning: {}\n", s);
    if (result.ok())
        for (auto& w : result.write_warnings.items) text += fmt::format("Warning: {}\n", warning_text(w));
}

Json model_record(const std::string& input, const ModelResult& r) {
    Json j;
    j["input"] = input;
    j["inputs"] = r.inputs;
    j["status"] = r.ok() ? "converted" : "failed";
    j["outputs"] = r.outputs;
    if (r.ok())
        j["counts"] = {{"meshes", r.counts.meshes}, {"vertices", r.counts.vertices}, {"triangles", r.counts.triangles},
                       {"joints", r.counts.joints}, {"animations", r.counts.animations}};
    else
        j["counts"] = nullptr;
    j["warnings"] = Json::array();
    auto add = [&j](const Warning& w) {
        j["warnings"].push_back({{"code", to_string(w.code)}, {"message", w.message}, {"path", w.path}, {"count", w.count}});
    };
    for (auto& w : r.read_warnings.items) add(w);
    // --fix-normals reports are the CLI's own: code "other" (WarningCode::Other, kept for callers).
    for (auto& s : r.normal_swaps) add(Warning{WarningCode::Other, s, 1, std::nullopt, input});
    if (r.ok())
        for (auto& w : r.write_warnings.items) add(w);
    j["error"] = r.error ? error_json(*r.error) : Json(nullptr);
    j["seconds"] = r.seconds;
    return j;
}

}  // namespace rigport::cli
