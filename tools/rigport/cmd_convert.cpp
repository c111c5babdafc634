// `rigport convert [FILE-OPTIONS] INPUT... -o OUTPUT [options]`: compile the inputs into one scene
// (the reference `iqm` compiler's command line, docs/iqm.md §3.1) and save it atomically.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <span>
#include <string>

#include "cli.hpp"
#include "convert_model.hpp"
#include "rigport/options.hpp"

namespace rigport::cli {

namespace {

struct ConvertArgs {
    std::vector<std::string> words;  // inputs and the per-file options before them, in order
    std::string output;
    std::string format;
    std::optional<float> scale;
    std::optional<std::string> rotate;
    std::optional<std::string> meshtrans;
    bool force_joints = false;
    bool verbose = false;
    std::string axis = "bake";  // glTF: bake | root
    std::string unit;           // --unit: keep | a unit name; empty = the output format's own (docs/units.md)
    bool loop_key = false;      // glTF: key 0 again at the end of looping animations
    bool compress = false;                // glTF: KHR_mesh_quantization + EXT_meshopt_compression
    std::string compress_level;           // glTF with --compress: fast | small (default)
    std::optional<uint32_t> position_bits;  // glTF with --compress: the position grid's bits, 1 to 16
    std::string images = "auto";  // glTF: auto | reference | embed | none
    bool convert_images = false;  // glTF: TGA and other non-core images -> embedded PNG
    std::string clip_end;                 // Cal3D DURATION past the last key: clamp | extrapolate | none; empty = by output
    std::string cal3d_dialect = "imvu";   // Cal3D output: imvu | 1100 | 1301
    bool cal3d_binary = false;            // Cal3D .cfg output: binary side files
    std::string md3_tags;                 // MD3 output: joints written as tags, JOINT,...
    bool fbx_ascii = false;               // FBX output: ASCII text instead of binary
    std::string fbx_version = "7400";     // FBX output: 7400, 7500 or 7700
    bool fbx_no_pre_rotation = false;     // FBX output: rest orientations in Lcl Rotation, no PreRotation
    bool timestamp = false;               // FBX output: the header's creation time from the clock
    std::string target;                   // --target: an engine profile (docs/targets.md)
    std::string max_error;                // --max-error: "0.01" or "1%" of the model's size
    bool fix_normals = false;     // VDrift's normal swap where its heuristic fires (jpk.hpp)
    bool force = false;           // replace a read-only output; JOE: write beyond VDrift's limits
    bool quiet = false;           // -q: no warnings (errors still print)
    bool json = false;            // --json: the result (or the failure) as one JSON object on stdout
    std::string depfile;          // --depfile FILE.d: every file read, for Make and Ninja
    bool ninja_deps = false;      // --ninja-deps: every file read on stdout, for Ninja's deps = msvc
    LoadFlags load;               // --allow-outside, --allow-missing
    TextureFlags textures;        // --texture-path DIR...
    CacheFlags cache;             // --cache DIR, --cache-max SIZE (docs/scale.md)
    uint32_t threads = 0;         // --threads N: 0 = every core; the bytes written never depend on it
};

// Splits the positional words into inputs: "--name A --fps N --loop --start N --end N" apply to
// the next input only; "a.iqe,b.iqe" is one input whose geometry accumulates, unless a file (or
// folder) has that very name: a word that names something on disk is that path, commas and all.
Expected<std::vector<CompileInput>> parse_inputs(const std::vector<std::string>& words) {
    std::vector<CompileInput> inputs;
    AnimationInputOptions pending;
    auto number = [](const std::string& text, auto& out) {
        const char* b = text.data() + (text.size() && text[0] == '+');
        auto [end, ec] = std::from_chars(b, text.data() + text.size(), out);
        return ec == std::errc() && end == text.data() + text.size();
    };
    for (size_t i = 0; i < words.size(); ++i) {
        const std::string& w = words[i];
        const bool takes_value = w == "--name" || w == "--fps" || w == "--start" || w == "--end";
        if (takes_value && i + 1 == words.size()) 
            return usage_error(fmt::format("{} needs a value", w));
        if (w == "--name") {
            pending.name = words[++i];
        } else if (w == "--fps") {
            float fps = 0;
            if (!number(words[++i], fps) || !std::isfinite(fps) || fps < 0) 
                return usage_error(fmt::format("--fps '{}': expected a frame rate >= 0", words[i]));
            pending.fps = fps;
        } else if (w == "--start" || w == "--end") {
            int64_t v = 0;
            if (!number(words[++i], v)) 
                return usage_error(fmt::format("{} '{}': expected a whole number of frames", w, words[i]));
            (w == "--start" ? pending.start : pending.end) = v;
        } else if (w == "--loop") {
            pending.loop = true;
        } else if (w.size() > 1 && w[0] == '-') 
            return usage_error(fmt::format("unknown option '{}'", w)); else {
            CompileInput input;
            std::error_code ec;
            const bool one_file = w.find(',') == std::string::npos || std::filesystem::exists(w, ec);
            for (size_t from = 0; from <= w.size();) {
                size_t comma = one_file ? std::string::npos : w.find(',', from);
                if (comma == std::string::npos) comma = w.size();
                if (comma > from) input.paths.push_back(w.substr(from, comma - from));
                from = comma + 1;
            }
            if (input.paths.empty()) 
                return usage_error(fmt::format("'{}' names no file", w));
            input.animation = pending;
            pending = {};
            inputs.push_back(std::move(input));
        }
    }
    if (pending.name || pending.fps || pending.loop || pending.start || pending.end) 
        return usage_error("animation options must come before the input they apply to");
    if (inputs.empty()) 
        return usage_error("no input given");
    return inputs;
}

// A word the library read into `to`, or why it refused it.
template <class T, class U>
Status take(Expected<T>&& word, U& to) {
    if (!word) return word.error();
    to = std::move(*word);
    return Ok{};
}

// Checks every option before any input is read; what they decide, or the usage error.
Expected<ModelOptions> model_options(const ConvertArgs& a) {
    ModelOptions o;
    o.threads = a.threads;
    if (a.scale) {
        // The reference compiler clamps to 1e-8..1e8; a value outside is a typo, not a wish.
        if (!std::isfinite(*a.scale) || *a.scale < 1e-8f || *a.scale > 1e8f)
            return usage_error(fmt::format("--scale {}: must be a number in [1e-8, 1e8]", *a.scale));
        o.transform.scale = *a.scale;
    }
    if (a.rotate) {
        auto v = parse_vec3_word(*a.rotate, false);
        if (!v) return usage_error(fmt::format("--rotate '{}': expected X,Y,Z in degrees", *a.rotate));
        o.transform.rotate_degrees = *v;
    }
    if (a.meshtrans) {
        auto v = parse_vec3_word(*a.meshtrans, true);
        if (!v) return usage_error(fmt::format("--meshtrans '{}': expected X,Y,Z or a single Z", *a.meshtrans));
        o.transform.meshtrans = *v;
    }
    // The words of the options, as the library reads them for every front end (rigport/options.hpp),
    // checked in this order: the first refused is the error.
    for (const Status& st : {take(parse_axis_word(a.axis, "--axis"), o.axis), take(parse_unit_word(a.unit, "--unit"), o.unit),
                             take(parse_image_mode_word(a.images, "--images"), o.images.mode), a.textures.check(),
                             take(parse_clip_end_word(a.clip_end, "--clip-end"), o.clip_end),
                             take(parse_cal3d_dialect_word(a.cal3d_dialect, "--cal3d-dialect"), o.cal3d.dialect),
                             take(parse_md3_tags_word(a.md3_tags, "--md3-tags"), o.md3.tags),
                             take(parse_fbx_version_word(a.fbx_version, "--fbx-version"), o.fbx.version)})
        if (!st) return st.error();
    o.images.convert = a.convert_images;
    o.images.texture_paths = a.textures.paths;
    o.cal3d.binary = a.cal3d_binary;
    o.fbx.ascii = a.fbx_ascii;
    o.fbx.pre_rotation = !a.fbx_no_pre_rotation;
    o.fbx.timestamp = a.timestamp;
    if (!a.target.empty()) {
        o.target = find_target(a.target);
        if (!o.target) {
            std::string names;
            for (const TargetProfile& p : target_profiles()) names += (names.empty() ? "" : ", ") + std::string(p.name);
            return usage_error(fmt::format("--target '{}': unknown engine (expected {})", printable(a.target, 80), names));
        }
    }
    if (!a.max_error.empty()) {
        // A fraction of the model's size, or a percentage with '%'.
        const bool percent = a.max_error.back() == '%';
        const std::string number = percent ? a.max_error.substr(0, a.max_error.size() - 1) : a.max_error;
        char* end = nullptr;
        const double v = std::strtod(number.c_str(), &end);
        if (number.empty() || *end != 0 || !std::isfinite(v) || v < 0)
            return usage_error(fmt::format("--max-error '{}': expected a fraction of the model's size (0.01) or a percentage (1%)", printable(a.max_error, 80)));
        if (a.target.empty()) return usage_error("--max-error limits what --target's fixes move: give --target too");
        o.max_error = percent ? v / 100 : v;
    }
    if (a.json && is_stdout_path(a.output))
        return usage_error("--json prints on standard output, where -o - streams the model: use one of them");
    if (!a.depfile.empty() && (is_stdout_path(a.output) || is_stdout_path(a.depfile)))
        return usage_error("--depfile names the output file a build system rebuilds: it needs -o FILE and a depfile path, not standard output");
    if (a.ninja_deps && (a.json || is_stdout_path(a.output)))
        return usage_error("--ninja-deps prints the files read on standard output: not with --json or -o -");
    o.load = a.load.load_options();
    auto cache = a.cache.options();
    if (!cache) return cache.error();
    o.cache = std::move(*cache);
    o.force_joints = a.force_joints;
    o.fix_normals = a.fix_normals;
    o.force = a.force;
    o.loop_key = a.loop_key;
    if (!a.compress && (!a.compress_level.empty() || a.position_bits))
        return usage_error(fmt::format("{} sets how --compress compresses: give --compress too", a.position_bits ? "--position-bits" : "--compress-level"));
    o.gltf_compression.enabled = a.compress;
    if (!a.compress_level.empty()) {
        if (a.compress_level == "fast") o.gltf_compression.level = GltfCompression::Level::Fast;
        else if (a.compress_level == "small") o.gltf_compression.level = GltfCompression::Level::Small;
        else return usage_error(fmt::format("--compress-level '{}': expected fast or small", printable(a.compress_level, 80)));
    }
    if (a.position_bits) {
        if (*a.position_bits < 1 || *a.position_bits > 16) return usage_error(fmt::format("--position-bits {}: expected 1 to 16", *a.position_bits));
        o.gltf_compression.position_bits = *a.position_bits;
    }
    return o;
}

int run_convert(const ConvertArgs& given) {
    ConvertArgs a = given;
    // --target with an output without extension: the engine's first format, its extension added.
    if (const TargetProfile* t = find_target(a.target); t && a.format.empty() && !is_stdout_path(a.output) &&
                                                           std::filesystem::path(a.output).extension().empty())
        if (const FormatInfo* f = find_format(t->formats.front()); f && !f->extensions.empty()) a.output += std::string(f->extensions.front());
    // Every option is checked before any input is read.
    auto options = model_options(a);
    if (!options) return fail(options.error(), exit_usage, a.json);
    auto format = find_output_format(a.output, a.format, output_format_names());
    if (!format) return fail(format.error(), write_exit_code(format.error()), a.json);
    options->format = *format;
    // --compress is a writer option of the formats whose row lists it (the registry names them).
    const auto& listed = (*format)->writer_options;
    if (a.compress && std::find(listed.begin(), listed.end(), std::string_view("--compress")) == listed.end())
        return fail(usage_error(fmt::format("--compress: {} output has no compressed form (see 'rigport formats')", (*format)->name)), exit_usage, a.json);
    auto inputs = parse_inputs(a.words);
    if (!inputs) return fail(inputs.error(), exit_usage, a.json);
    // The depfile is neither the output nor an input named (a file an input names, found while
    // reading, is checked before anything is written).
    if (!a.depfile.empty()) {
        const std::string depfile = path_identity(a.depfile);
        auto same = [&](const std::string& what, const std::string& path) {
            return usage_error(fmt::format("--depfile '{}' is the same file as {} '{}'", a.depfile, what, path));
        };
        if (depfile == path_identity(a.output)) return fail(same("the output", a.output), exit_usage, a.json);
        for (auto& in : *inputs)
            for (auto& p : in.paths)
                if (depfile == path_identity(input_file(p))) return fail(same("the input", p), exit_usage, a.json);
    }

    ModelJob job;
    job.inputs = std::move(*inputs);
    job.output = a.output;
    // With a depfile or --ninja-deps the model is staged, not put in place, until the list of
    // files read is made: a name that cannot be listed leaves every file as it was.
    const bool listing = !a.depfile.empty() || a.ninja_deps;
    WriteGroup group;
    if (listing) job.stage_into = &group;
    const std::string input = job.inputs.front().paths.front();
    const ModelResult result = convert_model(job, *options);
    if (!a.quiet) {
        print_companions(input, result.companions);
        std::string warnings;
        append_warnings(result, warnings, WarningLimit{.every_warning = a.verbose});
        fmt::print(stderr, "{}", warnings);
    }
    if (result.cache_error) print_warning(result.cache_error->to_string());
    if (!result.ok()) return fail(*result.error, result.exit_code, a.json);
    std::string deps_lines;
    if (a.ninja_deps) {
        auto lines = ninja_deps_lines(result.inputs);
        if (!lines) return fail(lines.error(), write_exit_code(lines.error()), a.json);
        deps_lines = std::move(*lines);
    }
    // The depfile goes in place with the model, after it: a failed conversion leaves an old
    // depfile as it was, and the build system sees the output as not built.
    if (!a.depfile.empty()) {
        const std::string depfile = path_identity(a.depfile);
        for (size_t k = 1; k < result.outputs.size(); ++k)
            if (depfile == path_identity(result.outputs[k]))
                return fail(usage_error(fmt::format("--depfile '{}' is the same file as '{}', written beside the output", a.depfile, result.outputs[k])),
                            exit_usage, a.json);
        auto text = make_depfile(a.depfile, a.output, result.inputs);
        if (!text) return fail(text.error(), write_exit_code(text.error()), a.json);
        WriteOptions depfile_write{a.force, result.inputs};
        if (auto st = group.stage(a.depfile, std::span(reinterpret_cast<const uint8_t*>(text->data()), text->size()), depfile_write); !st)
            return fail(st.error(), write_exit_code(st.error()), a.json);
    }
    if (listing)
        if (auto st = group.commit(); !st) return fail(st.error(), write_exit_code(st.error()), a.json);
    fmt::print("{}", deps_lines);
    if (a.json) fmt::print("{}\n", model_record(input, result).dump(2, ' ', false, Json::error_handler_t::replace));
    if (a.verbose) {
        std::FILE* to = is_stdout_path(a.output) || a.json ? stderr : stdout;
        fmt::print(to, "{} -> {} ({}, {} bytes): meshes {}, vertices {}, triangles {}, joints {}, animations {}\n",
                   terminal_text(input), terminal_text(a.output), result.written_format, result.bytes, result.counts.meshes, result.counts.vertices,
                   result.counts.triangles, result.counts.joints, result.counts.animations);
        for (const std::string& note : result.write_notes) fmt::print(to, "  {}\n", terminal_text(note));
    }
    return exit_ok;
}

}  // namespace

Verb add_convert(CLI::App& app) {
    auto args = std::make_shared<ConvertArgs>();
    CLI::App* sub = app.add_subcommand("convert", "Convert a model; the output format comes from -o's extension or --format");
    // Inputs and the per-file options before them are read in order by parse_inputs().
    sub->allow_extras();
    sub->footer(
        "Inputs: INPUT... where each is a file or a comma-joined list (a.iqe,b.iqe) whose geometry is merged;\n"
        "a word that names an existing file is that file, commas and all.\n"
        "Before an input, --name NAME, --fps N, --loop, --start N and --end N apply to that file's animation\n"
        "when it has exactly one (--end: last frame kept; negative counts from the end, -1 = unset).\n"
        "The first input gives meshes and skeleton; later inputs add animations, matched by joint name.\n"
        "Cal3D files (.cfg, .csf/.xsf, .cmf/.xmf, .crf/.xrf, .caf/.xaf, .cpf/.xpf) in any order form one character.");
    sub->add_option("-o,--output", args->output,
                    "Output file (replaced atomically; never one the inputs read; - streams to standard output with --format)")
        ->required();
    sub->add_option("--format", args->format, "Output format name, in any letter case: " + format_names(true) + " (see 'rigport formats')");
    sub->add_option("-s,--scale", args->scale, "Scale positions and all joint and key translations by N");
    sub->add_option("-r,--rotate", args->rotate, "Rotate by Euler angles X,Y,Z in degrees (geometry and root joints)");
    sub->add_option("-t,--meshtrans", args->meshtrans, "Translate the mesh only (not the skeleton) by X,Y,Z, or by Z alone");
    // No -j: that letter is batch's --jobs, one meaning across verbs (the reference compiler's -j
    // is this flag; docs/cli.md "convert").
    sub->add_flag("--forcejoints", args->force_joints, "Write joints with names even without a mesh");
    sub->add_option("--unit", args->unit,
                    "Output unit: keep (the source's numbers), or m, cm, mm, inch, ft ...; default: metres for glTF and IQM "
                    "(the source's unit as the file states it, e.g. FBX centimetres), the source's numbers for other formats");
    sub->add_option("--axis", args->axis, "glTF: bake (default) turns Z-up data Y-up; root keeps it under a rotated axis node");
    sub->add_flag("--loop-key", args->loop_key, "glTF: append key 0 at the end of looping animations (frame N at N/fps)");
    sub->add_flag("--compress", args->compress,
                  "glTF: quantised vertices (KHR_mesh_quantization) and meshoptimizer-compressed buffers (EXT_meshopt_compression); "
                  "animation keys thinned within 1/8192 (docs/gltf.md \"Compressed output\")");
    sub->add_option("--compress-level", args->compress_level,
                    "glTF with --compress: small (default: meshoptimizer's octahedral, quaternion and exponential filters too) or fast "
                    "(quantised integers only)");
    sub->add_option("--position-bits", args->position_bits,
                    "glTF with --compress: bits of the position grid, 1 to 16 (default 12: error at most half a step, 1/8190 of the model's "
                    "longest side)");
    sub->add_option("--images", args->images,
                    "glTF: auto (default: embedded in .glb, referenced from .gltf), reference, embed, or none (also: no image "
                    "files beside other formats for the images a .glb holds)");
    sub->add_flag("--convert-images", args->convert_images, "glTF: convert TGA, BMP and other non-PNG/JPEG textures to embedded PNG");
    sub->add_flag("--fix-normals", args->fix_normals,
                  "Apply VDrift's normal swap (x,-z,y) to each mesh where its JOE heuristic fires (more than 1/4 of faces perpendicular)");
    sub->add_flag("--force", args->force,
                  "Replace a read-only output; JOE: write a mesh beyond VDrift's limits (32,000 faces, indices above 32,767)");
    sub->add_option("--clip-end", args->clip_end,
                    "Cal3D DURATION past the last key: clamp (default: hold the last key, as IMVU), extrapolate (as upstream Cal3D) "
                    "or none (the default for Cal3D output, which keeps DURATION as it is)");
    sub->add_option("--cal3d-dialect", args->cal3d_dialect,
                    "Cal3D output: imvu (default: version 919, HEADER-form XML), 1100 (Debian's cal3d 0.11) or 1301 (upstream trunk)");
    sub->add_flag("--cal3d-binary", args->cal3d_binary, "Cal3D .cfg output: binary side files (.csf .cmf .crf .caf .cpf) instead of XML");
    sub->add_option("--md3-tags", args->md3_tags,
                    "MD3 output: joints written as tags, JOINT,... (at most 16; each frame stores the joint's world transform)");
    sub->add_flag("--fbx-ascii", args->fbx_ascii, "FBX output: ASCII text instead of binary");
    sub->add_option("--fbx-version", args->fbx_version,
                    "FBX output: 7400 (default: FBX 7.4, what Blender, Unity and Unreal write), 7500 or 7700 (64-bit record offsets)");
    sub->add_flag("--fbx-no-pre-rotation", args->fbx_no_pre_rotation,
                  "FBX output: joints' rest orientations in Lcl Rotation, without PreRotation (default: PreRotation, as Maya's joint orient)");
    sub->add_flag("--timestamp", args->timestamp,
                  "FBX output: the header's creation time from the clock (SOURCE_DATE_EPOCH when set) instead of the fixed one");
    sub->add_option("--target", args->target,
                    "Fit the model to an engine (idtech4, goldsrc, source, quake, quake2, quake3, darkplaces, fte, raylib, godot, three, "
                    "unity, unreal): apply the fixes its limits allow, report each, refuse what stays broken; -o without extension takes "
                    "the engine's format (docs/targets.md)");
    sub->add_option("--max-error", args->max_error,
                    "With --target: refuse when a fix moves a vertex by more than this fraction of the model's size (0.01, or 1%)");
    sub->add_option("--threads", args->threads,
                    "Threads for this model's compile and write (default 0: every core); the output is the same for any N");
    sub->add_flag("-v,--verbose", args->verbose, "Print every warning (one line each, none folded or held back) and a summary of what was written");
    sub->add_flag("-q,--quiet", args->quiet, "Print no warnings (errors still print)");
    sub->add_option("--depfile", args->depfile,
                    "Write a Make-style depfile (OUTPUT: every file the conversion read: inputs, side files, textures) for Make and Ninja; "
                    "a name both cannot read (a line break, | & ; = ...) is refused and nothing is written");
    sub->add_flag("--ninja-deps", args->ninja_deps,
                  "Print every file the conversion read on standard output as 'rigport-dep: PATH' lines, for Ninja's deps = msvc "
                  "(msvc_deps_prefix = rigport-dep:), which takes any name but a line break (batch --ninja uses it)");
    sub->add_flag("--json", args->json,
                  "Print the result as one JSON object on stdout (inputs, outputs, counts, warnings); a failure as {\"error\": {...}}");
    args->load.add_to(sub);
    args->textures.add_to(sub);
    args->cache.add_to(sub);
    return {sub, [args, sub]() {
                args->words = sub->remaining();
                return run_convert(*args);
            }};
}

}  // namespace rigport::cli
