// The Python module rigport (docs/python.md): load, save, convert, info, validate and sample over
// the library's own calls; the reports are the CLI's --json objects (rigport/report.hpp).
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>
#include <tuple>

#include "module.hpp"
#include "rigport/batch.hpp"
#include "rigport/convert.hpp"
#include "rigport/io.hpp"
#include "rigport/options.hpp"
#include "rigport/report.hpp"
#include "rigport/retarget.hpp"
#include "rigport/sample.hpp"
#include "rigport/targets.hpp"
#include "rigport/version.hpp"

namespace rigport::python {

namespace {

PyObject* error_type = nullptr;

// What a source argument names: bytes in memory, or one or several paths.
struct Source {
    std::optional<std::string> bytes;
    std::vector<std::string> paths;
};

bool is_bytes_like(const py::handle& h) {
    return py::isinstance<py::bytes>(h) || PyByteArray_Check(h.ptr()) || PyMemoryView_Check(h.ptr());
}

std::string fspath(const py::handle& h) {
    py::object p = py::module_::import("os").attr("fspath")(h);
    return p.cast<std::string>();  // str, or bytes from a bytes path-like
}

// A path (str or os.PathLike), a list or tuple of them, or (bytes_ok) bytes-like contents.
Source source_of(const py::handle& source, bool bytes_ok) {
    Source s;
    if (is_bytes_like(source)) {
        if (!bytes_ok) throw py::type_error("expected a path or a list of paths, not bytes");
        py::buffer_info b = py::reinterpret_borrow<py::buffer>(source).request();
        if (b.ndim != 1 || (b.itemsize != 1 && b.strides[0] != b.itemsize))
            throw py::value_error("bytes source: expected one contiguous run of bytes");
        s.bytes = std::string(static_cast<const char*>(b.ptr), size_t(b.size * b.itemsize));
    } else if (py::isinstance<py::list>(source) || py::isinstance<py::tuple>(source)) {
        for (auto item : source) s.paths.push_back(fspath(item));
        if (s.paths.empty()) throw py::value_error("an empty list of paths names no model");
    } else {
        s.paths.push_back(fspath(source));
    }
    return s;
}

LoadOptions load_options(bool allow_outside, bool allow_missing, bool companions) {
    LoadOptions o;
    o.allow_outside = allow_outside;
    o.allow_missing = allow_missing;
    o.companions = companions;
    return o;
}

py::object json_loads(const std::string& text) { return py::module_::import("json").attr("loads")(text); }

template <class T>
T value_or_raise(Expected<T>&& result) {
    if (!result) raise_error(result.error());
    return std::move(*result);
}

SceneRef load_py(const py::object& source, std::optional<std::string> name, bool allow_outside, bool allow_missing, bool companions) {
    Source s = source_of(source, true);
    const LoadOptions options = load_options(allow_outside, allow_missing, companions);
    Expected<Scene> scene = Scene{};
    if (s.bytes) {
        if (!name || name->empty()) throw py::value_error("load(bytes) needs name= (e.g. name=\"model.iqm\"): the file name picks the format");
        py::gil_scoped_release unlocked;
        scene = load_bytes(std::span(reinterpret_cast<const uint8_t*>(s.bytes->data()), s.bytes->size()), *name, options);
    } else {
        py::gil_scoped_release unlocked;
        scene = load_model(s.paths, options);
    }
    return SceneRef{std::make_shared<Scene>(value_or_raise(std::move(scene)))};
}

// A word the library refused (rigport/options.hpp): a ValueError with its message.
template <class T>
T word_or_raise(Expected<T>&& value) {
    if (!value) throw py::value_error(value.error().message);
    return std::move(*value);
}

// unit= as `rigport convert --unit` takes it (docs/units.md): checked before anything is read.
// An empty word is refused here (the CLI takes it for the format's own unit: None says that here).
std::string unit_keyword(const std::optional<std::string>& unit) {
    if (!unit) return {};
    if (unit->empty()) throw py::value_error("unit '': expected keep or a unit (" + unit_names() + ")");
    return word_or_raise(parse_unit_word(*unit));
}

std::vector<std::string> save_py(const SceneRef& scene, const py::object& path, std::optional<std::string> format, bool force,
                                 std::optional<std::string> unit) {
    const std::string out = fspath(path);
    SaveOptions save_options;
    if (format) save_options.format = *format;
    save_options.unit = unit_keyword(unit);
    WriteOptions write_options;
    write_options.force = force;
    Status written = Ok{};
    Warnings warnings;
    {
        py::gil_scoped_release unlocked;
        auto output = save_output(*scene.scene, out, save_options);
        if (!output)
            written = output.error();
        else {
            written = write_output(out, *output, write_options);
            warnings = std::move(output->warnings);
            warnings.set_path(out);
        }
    }
    value_or_raise(std::move(written));
    std::vector<std::string> texts;
    for (auto& w : warnings.items) texts.push_back(warning_text(w));
    return texts;
}

std::optional<Vec3> vec3(const std::optional<std::vector<float>>& v, const char* what) {
    if (!v) return std::nullopt;
    if (v->size() != 3) throw py::value_error(std::string(what) + ": expected three numbers (x, y, z)");
    for (float f : *v)
        if (!std::isfinite(f)) throw py::value_error(std::string(what) + ": expected finite numbers");
    return Vec3{(*v)[0], (*v)[1], (*v)[2]};
}

// texture_path= as `rigport convert --texture-path DIR` takes it, one folder (str or os.PathLike)
// or a list of them in order; each must be a folder (docs/cli.md "Textures").
std::vector<std::string> texture_path_keyword(const py::kwargs& kw) {
    std::vector<std::string> dirs;
    if (!kw.contains("texture_path") || kw["texture_path"].is_none()) return dirs;
    py::object value = kw["texture_path"];
    if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value))
        for (auto item : value) dirs.push_back(fspath(item));
    else
        dirs.push_back(fspath(value));
    for (auto& dir : dirs) {
        std::error_code ec;
        if (dir.empty() || !std::filesystem::is_directory(dir, ec)) throw py::value_error("texture_path '" + dir + "': not a folder");
    }
    return dirs;
}

// convert()'s keywords checked as `rigport convert` checks its options, before any input is read;
// batch() takes them but format (its own argument) and threads (its jobs decide).
ConvertOptions convert_options(const py::kwargs& kw, const std::string& function = "convert") {
    static const std::vector<std::string> known = {"format", "scale", "rotate", "meshtrans", "force_joints", "axis", "loop_key",
                                                   "images", "convert_images", "fix_normals", "clip_end", "cal3d_dialect",
                                                   "cal3d_binary", "md3_tags", "fbx_ascii", "fbx_version", "fbx_pre_rotation", "timestamp", "threads", "allow_outside", "allow_missing", "force",
                                                   "unit", "texture_path", "companions", "frame_rate", "target", "max_error",
                                                   "compress", "compress_level", "position_bits", "cache", "cache_max"};
    for (auto item : kw) {
        const std::string key = item.first.cast<std::string>();
        const bool batch_own = function == "batch" && (key == "format" || key == "threads");
        if (batch_own || std::find(known.begin(), known.end(), key) == known.end())
            throw py::type_error(function + "() got an unexpected keyword argument '" + key + "'");
    }
    auto get = [&kw](const char* key, auto fallback) {
        using T = decltype(fallback);
        return kw.contains(key) && !kw[key].is_none() ? kw[key].cast<T>() : fallback;
    };
    ConvertOptions o;
    o.load = load_options(get("allow_outside", false), get("allow_missing", false), get("companions", true));
    if (kw.contains("frame_rate") && !kw["frame_rate"].is_none()) {  // as --frame-rate
        const float fps = kw["frame_rate"].cast<float>();
        if (!std::isfinite(fps) || fps < 0.001f || fps > 10000.0f) throw py::value_error("frame_rate: must be a number in [0.001, 10000]");
        o.load.vertex_frame_rate = fps;
    }
    if (kw.contains("scale") && !kw["scale"].is_none()) {
        const float scale = kw["scale"].cast<float>();
        // As the CLI: the reference compiler clamps to 1e-8..1e8; a value outside is a typo.
        if (!std::isfinite(scale) || scale < 1e-8f || scale > 1e8f) throw py::value_error("scale: must be a number in [1e-8, 1e8]");
        o.transform.scale = scale;
    }
    if (auto r = vec3(get("rotate", std::optional<std::vector<float>>{}), "rotate")) o.transform.rotate_degrees = *r;
    if (auto t = vec3(get("meshtrans", std::optional<std::vector<float>>{}), "meshtrans")) o.transform.meshtrans = *t;
    o.force_joints = get("force_joints", false);
    o.axis = word_or_raise(parse_axis_word(get("axis", std::string("bake"))));
    o.loop_key = get("loop_key", false);
    o.unit = unit_keyword(get("unit", std::optional<std::string>{}));
    o.images.mode = word_or_raise(parse_image_mode_word(get("images", std::string("auto"))));
    o.images.convert = get("convert_images", false);
    o.images.texture_paths = texture_path_keyword(kw);
    o.fix_normals = get("fix_normals", false);
    o.clip_end = word_or_raise(parse_clip_end_word(get("clip_end", std::string())));
    o.cal3d.dialect = word_or_raise(parse_cal3d_dialect_word(get("cal3d_dialect", std::string("imvu"))));
    o.cal3d.binary = get("cal3d_binary", false);
    // md3_tags: "JOINT,..." as --md3-tags, or a list of joint names.
    if (kw.contains("md3_tags") && !kw["md3_tags"].is_none()) {
        std::string word;
        if (py::isinstance<py::str>(kw["md3_tags"])) {
            word = kw["md3_tags"].cast<std::string>();
        } else {
            for (const std::string& name : kw["md3_tags"].cast<std::vector<std::string>>()) word += (word.empty() ? "" : ",") + name;
        }
        o.md3.tags = word_or_raise(parse_md3_tags_word(word));
    }
    o.fbx.ascii = get("fbx_ascii", false);
    o.fbx.pre_rotation = get("fbx_pre_rotation", true);
    o.fbx.timestamp = get("timestamp", false);
    o.fbx.version = word_or_raise(parse_fbx_version_word(std::to_string(get("fbx_version", int64_t(7400)))));
    o.threads = get("threads", uint32_t(0));
    o.force = get("force", false);
    // cache (a folder) and cache_max (bytes) as --cache and --cache-max (docs/scale.md).
    if (kw.contains("cache") && !kw["cache"].is_none()) o.cache.dir = fspath(kw["cache"]);
    const int64_t cache_max = get("cache_max", int64_t(0));
    if (cache_max < 0) throw py::value_error("cache_max: a size in bytes, 0 (no limit) or more");
    if (cache_max > 0 && o.cache.dir.empty()) throw py::value_error("cache_max limits a cache: give cache too");
    o.cache.max_bytes = uint64_t(cache_max);
    // compress, compress_level ('fast' | 'small'), position_bits (1 to 16) as --compress,
    // --compress-level and --position-bits (docs/gltf.md "Compressed output").
    o.gltf_compression.enabled = get("compress", false);
    const std::string level = get("compress_level", std::string());
    const int64_t bits = get("position_bits", int64_t(0));
    if (!o.gltf_compression.enabled && (!level.empty() || bits != 0))
        throw py::value_error(std::string(bits != 0 ? "position_bits" : "compress_level") + " sets how compress=True compresses: give compress=True too");
    if (level == "fast") o.gltf_compression.level = GltfCompression::Level::Fast;
    else if (level == "small" || level.empty()) o.gltf_compression.level = GltfCompression::Level::Small;
    else throw py::value_error("compress_level '" + level + "': expected 'fast' or 'small'");
    if (bits < 0 || bits > 16) throw py::value_error("position_bits: expected 1 to 16");
    o.gltf_compression.position_bits = uint32_t(bits);
    // target as --target; max_error as --max-error, a fraction of the model's size.
    if (kw.contains("target") && !kw["target"].is_none()) {
        const std::string name = kw["target"].cast<std::string>();
        o.target = find_target(name);
        if (!o.target) throw py::value_error("target '" + name + "': unknown engine (rigport targets lists them)");
    }
    if (kw.contains("max_error") && !kw["max_error"].is_none()) {
        const double e = kw["max_error"].cast<double>();
        if (!std::isfinite(e) || e < 0) throw py::value_error("max_error: a fraction of the model's size, 0 or more");
        if (!o.target) throw py::value_error("max_error limits what target's fixes move: give target too");
        o.max_error = e;
    }
    return o;
}

py::object convert_py(const py::object& inputs, const py::object& output, const py::kwargs& kw) {
    Source s = source_of(inputs, false);
    const std::string out = fspath(output);
    if (is_stdout_path(out)) throw py::value_error("convert() writes a file: standard output ('-') is the CLI's");
    ConvertOptions options = convert_options(kw);
    const std::string format_name = kw.contains("format") && !kw["format"].is_none() ? kw["format"].cast<std::string>() : "";
    options.format = value_or_raise(find_output_format(out, format_name, {.output = "out", .format = "format=", .listing = "rigport.formats()"}));
    // compress= is a writer option of the formats whose registry row lists --compress.
    const auto& listed = options.format->writer_options;
    if (options.gltf_compression.enabled && std::find(listed.begin(), listed.end(), std::string_view("--compress")) == listed.end())
        throw py::value_error("compress: " + std::string(options.format->name) + " output has no compressed form (rigport.formats() lists the writer options)");
    ConvertJob job;
    for (auto& p : s.paths) job.inputs.push_back(CompileInput{{p}, {}});
    job.output = out;
    ConvertResult result;
    {
        py::gil_scoped_release unlocked;
        result = run_conversion(job, options);
    }
    if (result.error) raise_error(*result.error);
    return json_loads(conversion_json(s.paths.front(), result));
}

// `rigport retarget CLIP... --onto SKELETON -o OUT` (rigport/retarget.hpp, docs/retarget.md): with
// an output, its --json record; without one, the target Scene holding the retargeted clips.
py::object retarget_py(const py::object& clips, const py::object& onto, const py::object& output, const py::object& map,
                       const std::string& root_motion, std::optional<std::string> name, const py::object& save_map,
                       std::optional<std::string> format, bool force, bool allow_outside, bool allow_missing, bool companions) {
    RetargetOptions retarget;
    const auto mode = parse_root_motion(root_motion);
    if (!mode) throw py::value_error("root_motion '" + root_motion + "': expected 'scale', 'keep' or 'in-place'");
    retarget.root_motion = *mode;
    retarget.name = name.value_or("");
    RetargetJob job;
    for (auto& p : source_of(clips, false).paths) job.clips.push_back(CompileInput{{p}, {}});
    job.onto = CompileInput{{fspath(onto)}, {}};
    // map: 'auto', or a map file's path (str or os.PathLike).
    const std::string map_word = fspath(map);
    if (map_word.empty()) throw py::value_error("map '': expected 'auto' or a map file");
    if (map_word != "auto") job.map_file = map_word;
    if (!save_map.is_none()) job.save_map = fspath(save_map);
    const LoadOptions load = load_options(allow_outside, allow_missing, companions);
    if (output.is_none()) {
        if (!job.save_map.empty()) throw py::value_error("save_map is written with the output: give output too");
        Expected<RetargetedModel> model = RetargetedModel{};
        {
            py::gil_scoped_release unlocked;
            model = retarget_model(job, load, retarget);
        }
        return py::cast(SceneRef{std::make_shared<Scene>(std::move(value_or_raise(std::move(model)).scene))});
    }
    job.output = fspath(output);
    if (is_stdout_path(job.output)) throw py::value_error("retarget() writes a file: standard output ('-') is the CLI's");
    ConvertOptions options;
    options.load = load;
    options.force = force;
    options.format = value_or_raise(find_output_format(job.output, format.value_or(""), {.output = "output", .format = "format=", .listing = "rigport.formats()"}));
    RetargetResult result;
    {
        py::gil_scoped_release unlocked;
        result = run_retarget(job, options, retarget);
    }
    if (result.error) raise_error(*result.error);
    return json_loads(retarget_json(job.clips.front().paths.front(), result));
}

const char* failure_name(FailureClass c) {
    switch (c) {
        case FailureClass::None: return nullptr;
        case FailureClass::Read: return "read";
        case FailureClass::Unsupported: return "unsupported";
        case FailureClass::Write: return "write";
    }
    return "read";
}

// `rigport batch INPUT... -o OUT_DIR --format FORMAT` (rigport/batch.hpp): a failed model is in
// the report, never raised; bad options (and nothing to convert) raise rigport.Error.
py::dict batch_py(const py::object& inputs, const py::object& out_dir, const std::string& format, uint32_t jobs, bool follow_links,
                  const py::kwargs& kw) {
    BatchOptions options;
    options.inputs = source_of(inputs, false).paths;
    options.out_dir = fspath(out_dir);
    options.format = format;
    options.jobs = jobs;
    options.follow_links = follow_links;
    options.convert = convert_options(kw, "batch");
    options.companions = options.convert.load.companions;
    options.names.listing = "rigport.formats()";  // the keywords are the library's own names
    Expected<BatchPlan> plan = BatchPlan{};
    Expected<BatchReport> report = BatchReport{};
    {
        py::gil_scoped_release unlocked;
        plan = plan_batch(options);
        if (plan) report = run_batch(*plan, options);
    }
    if (!plan) raise_error(plan.error());
    if (!report) raise_error(report.error());
    py::list models, skipped;
    for (size_t i = 0; i < report->models.size(); ++i) {
        py::dict record = json_loads(conversion_json(plan->jobs[i].input, report->models[i].result));
        const char* failure = failure_name(report->models[i].failure);
        record["failure"] = failure ? py::object(py::str(failure)) : py::object(py::none());
        models.append(record);
    }
    for (auto& s : plan->skipped) skipped.append(py::dict(py::arg("path") = s.path, py::arg("reason") = s.reason));
    py::dict result;
    result["models"] = models;
    result["skipped"] = skipped;
    result["claimed"] = py::cast(plan->claimed);
    result["converted"] = report->converted;
    result["failed"] = report->failed;
    result["warnings"] = report->warnings;
    const char* failure = failure_name(report->failure);
    result["failure"] = failure ? py::object(py::str(failure)) : py::object(py::none());
    return result;
}

py::object info_py(const py::object& source, bool allow_outside, bool allow_missing, bool companions) {
    Source s = source_of(source, false);
    std::string text;
    if (s.paths.size() == 1)
        if (auto pack = read_pack_listing(s.paths[0])) text = pack_info_json(s.paths[0], value_or_raise(std::move(*pack)));
    if (text.empty()) {
        Expected<ModelInfo> info = ModelInfo{};
        {
            py::gil_scoped_release unlocked;
            info = read_model_info(s.paths, load_options(allow_outside, allow_missing, companions));
        }
        text = info_json(value_or_raise(std::move(info)));
    }
    return json_loads(text);
}

py::object validate_py(const py::object& source, bool allow_outside, bool allow_missing, bool companions) {
    Source s = source_of(source, false);
    Expected<ValidationReport> report = ValidationReport{};
    {
        py::gil_scoped_release unlocked;
        report = validate_model(s.paths, load_options(allow_outside, allow_missing, companions));
    }
    return json_loads(validation_json(value_or_raise(std::move(report))));
}

// The dict `rigport check --target T --json` prints: a loaded Scene or a path / list of paths
// measured against the engine profile (docs/targets.md).
py::object check_py(const py::object& model, const std::string& target, bool allow_outside, bool allow_missing, bool companions,
                    const py::object& texture_path) {
    const TargetProfile* profile = find_target(target);
    if (!profile) {
        std::string names;
        for (const TargetProfile& p : target_profiles()) names += (names.empty() ? "" : ", ") + std::string(p.name);
        throw py::value_error("unknown target '" + target + "' (expected " + names + ")");
    }
    ValidationReport report;
    if (py::isinstance<SceneRef>(model)) {
        const SceneRef& ref = model.cast<const SceneRef&>();
        report = check_target(*ref.scene, *profile);
    } else {
        Source s = source_of(model, false);
        Expected<Scene> scene = Scene{};
        {
            py::gil_scoped_release unlocked;
            scene = load_model(s.paths, load_options(allow_outside, allow_missing, companions));
        }
        // The textures the profile's rules measure, found as `rigport check` finds them (beside the
        // model, then under texture_path); one not found is a warning (docs/targets.md "Textures").
        py::kwargs kw;
        kw["texture_path"] = texture_path;
        const std::vector<std::string> dirs = texture_path_keyword(kw);
        const Scene loaded = value_or_raise(std::move(scene));
        Warnings looked;
        std::vector<GltfImage> textures;
        if (profile->textures.any()) textures = value_or_raise(find_target_textures(loaded, s.paths.front(), dirs, allow_outside, looked));
        report = check_target(loaded, *profile, s.paths.front(), textures);
        for (const Warning& w : looked.items) report.add(Severity::Warning, std::string(to_string(w.code)), w.message, {}, w.count);
    }
    py::object out = json_loads(validation_json(report));
    out["target"] = std::string(profile->name);
    return out;
}

// The batch on a cluster (docs/scale.md "Dask"): the plan made once, as plain data a worker
// receives; each worker converts its share of the jobs (BatchOptions::only) as run_batch does.
BatchOptions batch_options_of(std::vector<std::string> inputs, const py::object& out_dir, const std::string& format, uint32_t jobs, bool follow_links,
                              const py::kwargs& kw) {
    BatchOptions options;
    options.inputs = std::move(inputs);
    options.out_dir = fspath(out_dir);
    options.format = format;
    options.jobs = jobs;
    options.follow_links = follow_links;
    options.convert = convert_options(kw, "batch");
    options.companions = options.convert.load.companions;
    options.names.listing = "rigport.formats()";
    return options;
}

// _batch_plan(inputs, out_dir, format, *, follow_links, report_file, **convert's keywords) -> dict:
// plan_batch and prepare_batch (out_dir created, report_file checked), as plain data.
py::dict batch_plan_py(const py::object& inputs, const py::object& out_dir, const std::string& format, bool follow_links, const py::object& report_file,
                       const py::kwargs& kw) {
    BatchOptions options = batch_options_of(source_of(inputs, false).paths, out_dir, format, 0, follow_links, kw);
    if (!report_file.is_none()) options.report_file = fspath(report_file);
    Expected<BatchPlan> plan = BatchPlan{};
    Status prepared = Ok{};
    {
        py::gil_scoped_release unlocked;
        plan = plan_batch(options);
        if (plan) prepared = prepare_batch(*plan, options);
    }
    if (!plan) raise_error(plan.error());
    if (!prepared) raise_error(prepared.error());
    py::list jobs, skipped;
    for (auto& j : plan->jobs) {
        py::dict job;
        job["input"] = j.input;
        job["companions"] = py::cast(j.companions);
        job["output"] = j.output;
        if (j.refused) job["refused"] = py::make_tuple(int(j.refused->code), j.refused->message, j.refused->path);
        else job["refused"] = py::none();
        jobs.append(job);
    }
    for (auto& sk : plan->skipped) skipped.append(py::dict(py::arg("path") = sk.path, py::arg("reason") = sk.reason));
    py::dict result;
    result["format"] = std::string(plan->format->name);
    result["jobs"] = jobs;
    result["skipped"] = skipped;
    result["claimed"] = py::cast(plan->claimed);
    result["protect"] = py::cast(plan->protect);
    return result;
}

// _batch_run(plan, indices, out_dir, format, *, follow_links, report_file, **convert's keywords) ->
// list of (index, record, failure, warning count): the plan's jobs at indices converted as
// run_batch converts them.
py::list batch_run_py(const py::dict& plan_data, const std::vector<size_t>& indices, const py::object& out_dir, const std::string& format, bool follow_links,
                      const py::object& report_file, const py::kwargs& kw) {
    // One model at a time per call: a worker's threads run several calls at once.
    BatchOptions options = batch_options_of({}, out_dir, format, 1, follow_links, kw);
    if (!report_file.is_none()) options.report_file = fspath(report_file);
    BatchPlan plan;
    plan.format = find_format(plan_data["format"].cast<std::string>());
    if (!plan.format) throw py::value_error("_batch_run: the plan's format is not registered here");
    for (auto item : plan_data["jobs"]) {
        py::dict j = item.cast<py::dict>();
        BatchJob job;
        job.input = j["input"].cast<std::string>();
        job.companions = j["companions"].cast<std::vector<std::string>>();
        job.output = j["output"].cast<std::string>();
        if (!j["refused"].is_none()) {
            auto [code, message, path] = j["refused"].cast<std::tuple<int, std::string, std::string>>();
            Error e = make_error(static_cast<ErrorCode>(code), message);
            e.path = path;
            job.refused = e;
        }
        plan.jobs.push_back(std::move(job));
    }
    plan.claimed = plan_data["claimed"].cast<std::vector<std::string>>();
    plan.protect = plan_data["protect"].cast<std::vector<std::string>>();
    options.only = indices;
    Expected<BatchReport> report = BatchReport{};
    {
        py::gil_scoped_release unlocked;
        report = run_batch(plan, options);
    }
    if (!report) raise_error(report.error());
    py::list out;
    for (size_t i : indices) {
        const BatchModel& m = report->models[i];
        const char* failure = failure_name(m.failure);
        out.append(py::make_tuple(i, json_loads(conversion_json(plan.jobs[i].input, m.result)),
                                  failure ? py::object(py::str(failure)) : py::object(py::none()), m.result.warning_count()));
    }
    return out;
}

}  // namespace

void bind_error(py::module_& m) {
    error_type = PyErr_NewExceptionWithDoc("rigport.Error",
                                           "A rigport failure: str() is the CLI's message; .code (e.g. 'malformed'), .path, and the "
                                           "place: .offset (binary) or .line and .column (text), None when absent.",
                                           PyExc_Exception, nullptr);
    if (!error_type) throw py::error_already_set();
    m.add_object("Error", py::handle(error_type));
}

void raise_error(const Error& e) {
    py::object type = py::reinterpret_borrow<py::object>(error_type);
    const std::string message = e.to_string();
    py::object instance = type(py::reinterpret_steal<py::str>(PyUnicode_DecodeUTF8(message.data(), py::ssize_t(message.size()), "replace")));
    instance.attr("code") = to_string(e.code);
    instance.attr("path") = e.path.empty() ? py::object(py::none()) : py::reinterpret_steal<py::object>(
        PyUnicode_DecodeFSDefaultAndSize(e.path.data(), py::ssize_t(e.path.size())));
    instance.attr("offset") = e.offset ? py::object(py::int_(*e.offset)) : py::object(py::none());
    instance.attr("line") = e.line > 0 ? py::object(py::int_(e.line)) : py::object(py::none());
    instance.attr("column") = e.line > 0 ? py::object(py::int_(e.column)) : py::object(py::none());
    PyErr_SetObject(error_type, instance.ptr());
    throw py::error_already_set();
}

}  // namespace rigport::python

// The compiled part of the package rigport (python/rigport/__init__.py re-exports it; docs/python.md).
PYBIND11_MODULE(_rigport, m) {
    using namespace rigport::python;
    namespace py = pybind11;
    m.doc() = "rigport: read, validate, convert and write game model formats (docs/python.md)";
    m.attr("__version__") = RIGPORT_VERSION_STRING;
    bind_error(m);
    bind_scene(m);
    m.def("load", &load_py, py::arg("source"), py::kw_only(), py::arg("name") = py::none(), py::arg("allow_outside") = false,
          py::arg("allow_missing") = false, py::arg("companions") = true,
          "Load a model: a path, a list of paths (one model, as `rigport convert` merges them), or bytes with name= (the file name "
          "that picks the format); a mesh file given alone takes its companions unless companions=False (docs/cli.md "
          "\"Companions\"). Returns a Scene; raises rigport.Error.");
    m.def("save", &save_py, py::arg("scene"), py::arg("path"), py::kw_only(), py::arg("format") = py::none(), py::arg("force") = false,
          py::arg("unit") = py::none(),
          "Write a scene atomically (format from format= or the extension; unit= as `rigport convert --unit`: None = the format's "
          "own, metres for glTF and IQM). Returns the writer's warnings (list of str).");
    m.def("convert", &convert_py, py::arg("inputs"), py::arg("output"),
          "convert(inputs, output, *, format=None, scale=None, rotate=None, meshtrans=None, force_joints=False, axis='bake', "
          "loop_key=False, images='auto', convert_images=False, fix_normals=False, clip_end=None, cal3d_dialect='imvu', "
          "cal3d_binary=False, md3_tags=None, fbx_ascii=False, fbx_version=7400, fbx_pre_rotation=True, timestamp=False, threads=0, allow_outside=False, allow_missing=False, force=False, unit=None, "
          "texture_path=None, companions=True) -> dict: what `rigport convert INPUT... -o OUTPUT` does (the same bytes), returning "
          "its --json record. texture_path: a folder or a list of folders, as --texture-path; companions=False: --no-companions; "
          "md3_tags: joint names ('a,b' or a list), as --md3-tags; fbx_ascii, fbx_version (7400, 7500 or 7700) as --fbx-ascii, "
          "--fbx-version; fbx_pre_rotation=False as --fbx-no-pre-rotation; timestamp as --timestamp; target and max_error (a fraction) as "
          "--target and --max-error; compress, compress_level ('fast' or 'small') and position_bits as --compress, --compress-level and "
          "--position-bits (glTF); cache (a folder) and cache_max (bytes) as --cache and --cache-max (docs/scale.md).");
    m.def("retarget", &retarget_py, py::arg("clips"), py::arg("onto"), py::arg("output") = py::none(), py::kw_only(),
          py::arg("map") = "auto", py::arg("root_motion") = "scale", py::arg("name") = py::none(), py::arg("save_map") = py::none(),
          py::arg("format") = py::none(), py::arg("force") = false, py::arg("allow_outside") = false, py::arg("allow_missing") = false,
          py::arg("companions") = true,
          "retarget(clips, onto, output=None, *, map='auto', root_motion='scale', name=None, save_map=None, format=None, force=False, "
          "allow_outside=False, allow_missing=False, companions=True): what `rigport retarget CLIP... --onto ONTO -o OUTPUT` does "
          "(docs/retarget.md). clips: a path or a list of paths (one model); map: 'auto' or a map file's path; root_motion: 'scale', "
          "'keep' or 'in-place'. With output: writes it (and save_map with it) and returns the --json record (map, unmapped, "
          "root_scale included); without: returns the target Scene holding the retargeted clips. Raises rigport.Error.");
    m.def("batch", &batch_py, py::arg("inputs"), py::arg("out_dir"), py::arg("format"), py::kw_only(), py::arg("jobs") = 0,
          py::arg("follow_links") = false,
          "batch(inputs, out_dir, format, *, jobs=0, follow_links=False, **convert's keywords but format and threads) -> dict: what "
          "`rigport batch INPUT... -o OUT_DIR --format FORMAT` does (the same files, the same bytes). inputs: a path or a list of "
          "files and folders. Returns {'models': [convert's record per model, plus 'failure': None, 'read', 'unsupported' or "
          "'write'], 'skipped': [{'path', 'reason'}], 'claimed': [paths read as parts of another model], 'converted', 'failed', "
          "'warnings', 'failure'}. A model that fails is reported there, the others go on; bad options raise rigport.Error or "
          "ValueError. companions=False: every file a model of its own, read alone.");
    m.def("_batch_plan", &batch_plan_py, py::arg("inputs"), py::arg("out_dir"), py::arg("format"), py::kw_only(), py::arg("follow_links") = false,
          py::arg("report_file") = py::none(), "The plan of batch() as plain data, made once for a cluster's workers (docs/scale.md).");
    m.def("_batch_run", &batch_run_py, py::arg("plan"), py::arg("indices"), py::arg("out_dir"), py::arg("format"), py::kw_only(),
          py::arg("follow_links") = false, py::arg("report_file") = py::none(),
          "Converts the plan's jobs at indices as batch() does: [(index, record, failure, warnings)] (docs/scale.md).");
    m.def("_cache_trim", [](const py::object& cache, uint64_t cache_max) {
              rigport::CacheOptions o{fspath(cache), cache_max};
              py::gil_scoped_release unlocked;
              rigport::trim_cache(o);
          },
          py::arg("cache"), py::arg("cache_max"),
          "Evicts the cache's least recently used entries down to cache_max bytes: a cluster's batch ends with it (docs/scale.md).");
    m.def("info", &info_py, py::arg("source"), py::kw_only(), py::arg("allow_outside") = false, py::arg("allow_missing") = false,
          py::arg("companions") = true,
          "The dict `rigport info --json` prints for a path or a list of paths.");
    m.def("validate", &validate_py, py::arg("source"), py::kw_only(), py::arg("allow_outside") = false, py::arg("allow_missing") = false,
          py::arg("companions") = true,
          "The dict `rigport validate --json` prints for a path or a list of paths.");
    m.def("check", &check_py, py::arg("model"), py::arg("target"), py::kw_only(), py::arg("allow_outside") = false,
          py::arg("allow_missing") = false, py::arg("companions") = true, py::arg("texture_path") = py::none(),
          "The dict `rigport check --target TARGET --json` prints, for a Scene or a path or a list of paths: each broken limit of "
          "the engine profile a finding coded target.<measure> (docs/targets.md); 'errors' 0 when the model fits. The textures "
          "the profile's rules measure are those a Scene holds, or for a path the files found beside it and under texture_path "
          "(a folder or a list, as --texture-path).");
    m.def("formats", []() { return json_loads(rigport::formats_json()); },
          "The dict `rigport formats --json` prints: every registry row with what it declares (docs/formats.md).");
    m.def("sample", []() { return SceneRef{std::make_shared<rigport::Scene>(rigport::make_sample_scene())}; },
          "The built-in sample model (what `rigport sample` writes).");
}
