// One model converted as `rigport convert` does it (compile, images, save, safe write): the code
// path the CLI's convert, batch and view and the Python module go through (include/rigport/convert.hpp).
#include "rigport/convert.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <set>

#include "pipeline/cache.hpp"
#include "pipeline/convert_internal.hpp"
#include "pipeline/target_fix.hpp"
#include "pipeline/target_textures.hpp"
#include "rigport/report.hpp"

namespace rigport {

namespace {

// True when path ends with one of the format's own extensions (any letter case).
bool has_extension_of(const FormatInfo& format, std::string_view path) {
    for (auto ext : format.extensions) {
        if (path.size() < ext.size()) continue;
        bool same = true;
        for (size_t i = 0; i < ext.size() && same; ++i)
            same = std::tolower(static_cast<unsigned char>(path[path.size() - ext.size() + i])) == ext[i];
        if (same) return true;
    }
    return false;
}

}  // namespace

Expected<const FormatInfo*> find_output_format(const std::string& path, const std::string& format_name, const OutputFormatNames& names) {
    if (format_name.empty() && is_stdout_path(path))
        return make_error(ErrorCode::InvalidArgument,
                          fmt::format("{} - streams to standard output, which has no extension: name the format with {}", names.output, names.format));
    const FormatInfo* f = format_name.empty() ? find_format_by_extension(path) : find_format(format_name);
    if (!f)
        return make_error(ErrorCode::InvalidArgument,
                          format_name.empty()
                              ? fmt::format("cannot tell the output format from '{}'; use a known extension or {} (see '{}')", path, names.format, names.listing)
                              : fmt::format("unknown format '{}' (see '{}')", format_name, names.listing));
    // The registry says what an extension means: one that names another format than the one
    // asked for contradicts it (glb with .glb, gltf with .gltf or .glb agree). An extension no
    // format claims is left to the format asked for.
    if (!format_name.empty() && !is_stdout_path(path))
        if (const FormatInfo* by_extension = find_format_by_extension(path); by_extension && !has_extension_of(*f, path)) {
            std::string own;
            for (auto ext : f->extensions) own += fmt::format("{}{}", own.empty() ? "" : " or ", ext);
            return make_error(ErrorCode::InvalidArgument,
                              fmt::format("{} '{}' has the extension of {} but {} is {}: name the output {}or drop {}", names.output, path, by_extension->name,
                                          names.format, f->name, own.empty() ? "" : fmt::format("with {} ", own), names.format));
        }
    if (!f->write) return make_error(ErrorCode::Unsupported, fmt::format("writing {} is not supported yet", f->name));
    return f;
}

namespace {

void count(const Scene& scene, ConvertCounts& counts) {
    counts.meshes = scene.meshes.size();
    counts.vertices = scene.vertex_count();
    counts.triangles = scene.triangle_count();
    counts.joints = scene.skeleton.joints.size();
    counts.animations = scene.animations.size();
}

ConvertResult write_converted(const ConvertJob& job, Output converted, ConvertResult r, WriteOptions& write_options, const detail::BeforeWrite& before_write);

ConvertResult convert(const ConvertJob& job, const ConvertOptions& o, WriteOptions& write_options, const detail::BeforeWrite& before_write,
                      const detail::AfterCompile& after_compile, const std::vector<std::string>& also_read) {
    ConvertResult r;
    auto failed = [&r](const Error& e, bool write_error, bool writing) {
        r.error = e;
        r.write_error = write_error;
        r.failed_writing = writing;
        return std::move(r);
    };
    // The output may replace none of the inputs: checked now against the files named, and again
    // before writing against every file the inputs read (buffers, .cfg members, textures).
    write_options.force = o.force;
    for (auto& in : job.inputs)
        for (auto& p : in.paths) write_options.protect.push_back(input_file(p));
    for (auto& p : also_read) write_options.protect.push_back(input_file(p));
    if (job.check_output_first)
        if (auto st = check_output(job.output, write_options); !st) return failed(st.error(), true, true);

    // The compiler's pipeline, and what the output format can hold (compiler_options): influences
    // per vertex, end-of-clip keys unless the format keeps a clip's stated length (Cal3D DURATION).
    CompileOptions options = compiler_options(*o.format);
    options.load = o.load;
    options.transform = o.transform;
    options.force_joints = o.force_joints;
    options.threads = o.threads;
    options.load.on_read = [&write_options](const std::string& path) { write_options.protect.push_back(path); };
    if (o.clip_end) options.clip_end = *o.clip_end;
    // A model given as one mesh file reads its companions with it (docs/cli.md "Companions").
    std::vector<CompileInput> inputs = job.inputs;
    r.companions = add_companions(inputs, options.load);
    // The cache (docs/scale.md): an entry for the files this model read the last times it was
    // converted, as they are now, is written instead of converting. A conversion with a hook of
    // the caller's (retargeting) depends on more than its options say, and is not cached.
    const std::optional<detail::CacheQuery> query = after_compile ? std::nullopt : detail::cache_query(job, inputs, o);
    if (query)
        if (auto hit = detail::cache_find(o.cache, *query)) {
            for (auto& p : hit->inputs) write_options.protect.push_back(p);
            r.read_warnings = std::move(hit->reported.read_warnings);
            r.normal_swaps = std::move(hit->reported.normal_swaps);
            r.target_fixes = std::move(hit->reported.target_fixes);
            r.write_warnings = std::move(hit->reported.write_warnings);
            r.write_notes = std::move(hit->reported.write_notes);
            r.counts = hit->reported.counts;
            r.cached = true;
            Output output = std::move(hit->output);
            output.format = hit->format;  // copied into the result before hit goes
            return write_converted(job, std::move(output), std::move(r), write_options, before_write);
        }
    auto scene = compile(inputs, options);
    if (!scene) return failed(scene.error(), false, false);
    r.read_warnings = std::move(scene->warnings);
    if (after_compile)
        if (auto st = after_compile(*scene, options, r); !st) return failed(st.error(), false, false);
    // The textures the materials name are inputs too, read or not (an IQM output only names its
    // texture): no output or side file may replace one. Relative names are looked up beside each
    // input, as the model that named them may be any of them (companions included), and under the
    // texture paths.
    for (auto& in : inputs)
        for (auto& p : in.paths)
            for (auto& t : texture_files(*scene, std::filesystem::path(input_file(p)).parent_path().string(), o.images.texture_paths))
                write_options.protect.push_back(t);
    if (o.fix_normals) {
        const auto tests = fix_vdrift_normals(*scene);
        for (size_t m = 0; m < tests.size(); ++m)
            if (tests[m].fires)
                r.normal_swaps.push_back(fmt::format("mesh {}: normals swapped to (x, -z, y) as VDrift does ({} of {} faces perpendicular, limit {})",
                                                     m, tests[m].perpendicular, tests[m].faces, tests[m].limit));
    }
    // --target: what the engine's profile allows fixing, before anything is counted or written.
    // Textures first (docs/targets.md "Textures"): the converted images are held by the scene, so
    // the limits measured after the other fixes see them.
    std::vector<OutputFile> converted_textures;
    if (o.target && o.target->textures.any()) {
        Warnings unmeasured;  // a texture not found is only not measured; the output's images warn about it where they read it
        auto found = find_target_textures(*scene, job.inputs.front().paths.front(), o.images.texture_paths, o.load.allow_outside, unmeasured);
        if (!found) return failed(found.error(), false, false);
        // A new texture's name never lands on a file the conversion read (an input texture beside the output).
        const std::filesystem::path out_dir = std::filesystem::path(job.output).parent_path();
        auto taken = [&](const std::string& name) {
            std::error_code ec;
            const std::filesystem::path place = (out_dir.empty() ? std::filesystem::path(".") : out_dir) / name;
            if (!std::filesystem::exists(place, ec)) return false;
            for (auto& read : write_options.protect)
                if (std::filesystem::equivalent(place, read, ec)) return true;
            return false;
        };
        auto files = detail::fit_textures_to_target(*scene, *o.target, *found, taken, r.target_fixes);
        if (!files) return failed(files.error(), false, false);
        converted_textures = std::move(*files);
    }
    bool in_engine_unit = false;
    if (o.target) {
        if (auto st = detail::fit_to_target(*scene, *o.target, o.max_error, r.target_fixes); !st) return failed(st.error(), false, false);
        in_engine_unit = detail::fit_space(*scene, *o.target, !o.unit.empty(), r.target_fixes);
    }
    count(*scene, r.counts);
    const std::string& input = job.inputs.front().paths.front();

    SaveOptions save_options;
    save_options.format = std::string(o.format->name);
    save_options.force_joints = o.force_joints;
    save_options.threads = o.threads;
    save_options.warnings = &r.write_warnings;
    save_options.gltf.axis = o.axis;
    save_options.unit = in_engine_unit ? std::string("keep") : o.unit;  // numbers in the engine's unit stay so (an IQM for DarkPlaces)
    save_options.gltf.loop_key = o.loop_key;
    save_options.gltf.compression = o.gltf_compression;
    save_options.gltf.embed_buffer = is_stdout_path(job.output);  // standard output carries one file
    save_options.joe.force = o.force;
    save_options.cal3d = o.cal3d;
    save_options.md3 = o.md3;
    save_options.fbx = o.fbx;
    ImageOptions images = o.images;
    const bool gltf_out = o.format->holds_images;
    // --images embed: a format that can hold its images (FBX's Video Content) holds them.
    if (images.mode == ImageOptions::Mode::Embed) save_options.fbx.embed_images = true;
    const bool embeds = !gltf_out && o.format->embeds_images && o.format->embeds_images(save_options);
    const bool reads_textures = embeds || (o.format->uses_texture_images && images.mode != ImageOptions::Mode::None);
    // Images the inputs hold (a .glb's textures) go inside a glTF or beside the output; standard
    // output carries one file, so beside another format they are left out there.
    if (images.mode == ImageOptions::Mode::None) drop_embedded_images(*scene, "--images none", r.write_warnings);
    else if (!gltf_out && !embeds && is_stdout_path(job.output)) drop_embedded_images(*scene, "standard output carries one file", r.write_warnings);
    if (gltf_out || reads_textures) {
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
        if (!gltf_out) {
            // Their bytes, whatever image type (an FBX Video holds any file; MD2 and MDL decode it).
            images.mode = ImageOptions::Mode::Embed;
            images.any_type = true;
        }
        auto resolved = resolve_images(*scene, job.output, images, r.write_warnings);
        if (!resolved) return failed(resolved.error(), false, false);
        (gltf_out ? save_options.gltf.images : save_options.images) = std::move(*resolved);
    }
    // A .gltf output comes with its .bin: side files are written first, then the main file.
    auto output = save_output(*scene, job.output, save_options);
    if (!output) return failed(output.error(), true, false);
    // Textures --target converted go beside the output with it, written in the same step (once:
    // a writer that writes the images its materials hold has them already).
    for (auto& texture : converted_textures) {
        if (is_stdout_path(job.output)) {
            r.write_warnings.add(WarningCode::DroppedData,
                                 fmt::format("texture '{}' converted for --target {} is not written: standard output carries one file", texture.name, o.target->name));
            continue;
        }
        const bool written = std::any_of(output->side_files.begin(), output->side_files.end(), [&](const OutputFile& side) {
            return std::equal(side.name.begin(), side.name.end(), texture.name.begin(), texture.name.end(),
                              [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b)); });
        });
        if (!written) output->side_files.push_back(std::move(texture));
    }
    r.write_warnings.set_path(job.output);  // what is left unnamed (images dropped, not PNG/JPEG) is about the output
    r.write_notes = output->notes;
    // Stored before writing, under the key of every file read (docs/scale.md "The cache"): the
    // entry holds the bytes about to be written, whether or not this write then succeeds.
    if (query) {
        r.cached = false;
        std::vector<std::string> files_read;
        std::set<std::string> seen;
        for (auto& p : write_options.protect)
            if (seen.insert(p).second) files_read.push_back(p);
        if (auto st = detail::cache_store(o.cache, *query, files_read, *output, r); !st)
            r.cache_error = st.error();
    }
    return write_converted(job, std::move(*output), std::move(r), write_options, before_write);
}

// The writing half of a conversion, for an output converted now or found in the cache: in memory,
// or claimed (before_write), then staged or written in place (docs/cli.md "Outputs").
ConvertResult write_converted(const ConvertJob& job, Output converted, ConvertResult r, WriteOptions& write_options, const detail::BeforeWrite& before_write) {
    auto failed = [&r](const Error& e) {
        r.error = e;
        r.write_error = true;
        r.failed_writing = true;
        return std::move(r);
    };
    std::optional<Output> output(std::move(converted));
    if (job.in_memory) {
        r.written_format = std::string(output->format);
        r.bytes = output->bytes.size();
        r.output = std::move(*output);
        return r;
    }
    std::vector<std::string> paths{job.output};
    if (!is_stdout_path(job.output))
        for (auto& side : output->side_files) paths.push_back((std::filesystem::path(job.output).parent_path() / side.name).string());
    if (before_write) {
        std::vector<std::span<const uint8_t>> contents{output->bytes};
        for (auto& side : output->side_files) contents.emplace_back(side.bytes);
        contents.resize(paths.size());  // standard output: the main file only
        if (auto st = before_write(paths, contents); !st) return failed(st.error());
    }
    const Status written = job.stage_into && !is_stdout_path(job.output) ? job.stage_into->stage(job.output, *output, write_options)
                                                                        : write_output(job.output, *output, write_options);
    if (!written) return failed(written.error());
    r.outputs = std::move(paths);
    r.written_format = std::string(output->format);
    r.bytes = output->bytes.size();
    return r;
}

}  // namespace

size_t ConvertResult::warning_count() const {
    return read_warnings.items.size() + normal_swaps.size() + (ok() ? write_warnings.items.size() : 0);
}

ConvertResult run_conversion(const ConvertJob& job, const ConvertOptions& options) { return detail::run_conversion(job, options, nullptr); }

ConvertResult detail::run_conversion(const ConvertJob& job, const ConvertOptions& options, const BeforeWrite& before_write,
                                     const AfterCompile& after_compile, const std::vector<std::string>& also_read) {
    const auto start = std::chrono::steady_clock::now();
    WriteOptions write_options;
    ConvertResult r = convert(job, options, write_options, before_write, after_compile, also_read);
    // Every file read, once each, in the order read (the protected list, which starts with the
    // files named).
    std::set<std::string> seen;
    for (auto& p : write_options.protect)
        if (seen.insert(p).second) r.inputs.push_back(p);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
}

std::string conversion_json(const std::string& input, const ConvertResult& r) {
    using Json = nlohmann::ordered_json;
    Json j;
    j["input"] = input;
    j["inputs"] = r.inputs;
    j["companions"] = r.companions;
    j["status"] = r.ok() ? "converted" : "failed";
    if (r.cached) j["cached"] = *r.cached;  // only with a cache (docs/scale.md)
    if (r.cache_error) j["cache_error"] = r.cache_error->to_string();
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
    // --fix-normals reports are the caller's request, not a reader's or writer's finding: they keep
    // the code "other" (the name of the code kept for callers' own warnings; tests/unit/test_registry
    // keeps that code out of the library's own warnings).
    for (auto& s : r.normal_swaps) j["warnings"].push_back({{"code", "other"}, {"message", s}, {"path", input}, {"count", 1}});
    if (r.ok())
        for (auto& w : r.write_warnings.items) add(w);
    // --target: each fix made, with what it moved (docs/targets.md "Fixing"); absent without it.
    if (!r.target_fixes.empty()) j["target_fixes"] = r.target_fixes;
    j["error"] = r.error ? Json::parse(error_json(*r.error)) : Json(nullptr);
    j["seconds"] = r.seconds;
    return j.dump(2, ' ', false, Json::error_handler_t::replace);
}

}  // namespace rigport
