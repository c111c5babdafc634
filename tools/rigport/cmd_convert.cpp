// `rigport convert [FILE-OPTIONS] INPUT... -o OUTPUT [options]`: compile the inputs into one scene
// (the reference `iqm` compiler's command line, iqm-iqe.md §3.1) and save it atomically.
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include "cli.hpp"
#include "rigport/jpk.hpp"

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
    bool loop_key = false;      // glTF: key 0 again at the end of looping animations
    std::string images = "auto";  // glTF: auto | reference | embed | none
    bool convert_images = false;  // glTF: TGA and other non-core images -> embedded PNG
    std::string clip_end;                 // Cal3D DURATION past the last key: clamp | extrapolate | none; empty = by output
    std::string cal3d_dialect = "imvu";   // Cal3D output: imvu | 1100 | 1301
    bool cal3d_binary = false;            // Cal3D .cfg output: binary side files
    bool fix_normals = false;     // VDrift's normal swap where its heuristic fires (jpk.hpp)
    bool force = false;           // replace a read-only output; JOE: write beyond VDrift's limits
    LoadFlags load;               // --allow-outside, --allow-missing
};

// "X,Y,Z" (or a single number when single_means_z: the reference compiler's -t Z) -> finite floats.
std::optional<Vec3> parse_vec3(const std::string& text, bool single_means_z) {
    std::vector<float> values;
    const char* p = text.data();
    const char* end = p + text.size();
    while (true) {
        float v = 0;
        if (p < end && *p == '+') ++p;  // from_chars refuses a leading '+'
        auto [next, ec] = std::from_chars(p, end, v);
        if (ec != std::errc() || !std::isfinite(v)) return std::nullopt;
        values.push_back(v);
        p = next;
        if (p == end) break;
        if (*p != ',') return std::nullopt;
        ++p;
    }
    if (values.size() == 3) return Vec3{values[0], values[1], values[2]};
    if (values.size() == 1 && single_means_z) return Vec3{0, 0, values[0]};
    return std::nullopt;
}

// Splits the positional words into inputs: "--name A --fps N --loop --start N --end N" apply to
// the next input only; "a.iqe,b.iqe" is one input whose geometry accumulates.
std::optional<std::vector<CompileInput>> parse_inputs(const std::vector<std::string>& words) {
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
        if (takes_value && i + 1 == words.size()) {
            print_error(fmt::format("{} needs a value", w));
            return std::nullopt;
        }
        if (w == "--name") {
            pending.name = words[++i];
        } else if (w == "--fps") {
            float fps = 0;
            if (!number(words[++i], fps) || !std::isfinite(fps) || fps < 0) {
                print_error(fmt::format("--fps '{}': expected a frame rate >= 0", words[i]));
                return std::nullopt;
            }
            pending.fps = fps;
        } else if (w == "--start" || w == "--end") {
            int64_t v = 0;
            if (!number(words[++i], v)) {
                print_error(fmt::format("{} '{}': expected a whole number of frames", w, words[i]));
                return std::nullopt;
            }
            (w == "--start" ? pending.start : pending.end) = v;
        } else if (w == "--loop") {
            pending.loop = true;
        } else if (w.size() > 1 && w[0] == '-') {
            print_error(fmt::format("unknown option '{}'", w));
            return std::nullopt;
        } else {
            CompileInput input;
            for (size_t from = 0; from <= w.size();) {
                size_t comma = w.find(',', from);
                if (comma == std::string::npos) comma = w.size();
                if (comma > from) input.paths.push_back(w.substr(from, comma - from));
                from = comma + 1;
            }
            if (input.paths.empty()) {
                print_error(fmt::format("'{}' names no file", w));
                return std::nullopt;
            }
            input.animation = pending;
            pending = {};
            inputs.push_back(std::move(input));
        }
    }
    if (pending.name || pending.fps || pending.loop || pending.start || pending.end) {
        print_error("animation options must come before the input they apply to");
        return std::nullopt;
    }
    if (inputs.empty()) {
        print_error("no input given");
        return std::nullopt;
    }
    return inputs;
}

// The file an input path reads: the pack of a "PACK.jpk:MEMBER" that names no file itself.
std::string input_file(const std::string& path) {
    std::error_code ec;
    if (auto split = split_jpk_member_path(path); split && !std::filesystem::exists(path, ec)) return split->first;
    return path;
}

int run_convert(const ConvertArgs& a) {
    // Every option is checked before any input is read.
    TransformOptions transform;
    if (a.scale) {
        // The reference compiler clamps to 1e-8..1e8; a value outside is a typo, not a wish.
        if (!std::isfinite(*a.scale) || *a.scale < 1e-8f || *a.scale > 1e8f) {
            print_error(fmt::format("--scale {}: must be a number in [1e-8, 1e8]", *a.scale));
            return exit_usage;
        }
        transform.scale = *a.scale;
    }
    if (a.rotate) {
        auto v = parse_vec3(*a.rotate, false);
        if (!v) {
            print_error(fmt::format("--rotate '{}': expected X,Y,Z in degrees", *a.rotate));
            return exit_usage;
        }
        transform.rotate_degrees = *v;
    }
    if (a.meshtrans) {
        auto v = parse_vec3(*a.meshtrans, true);
        if (!v) {
            print_error(fmt::format("--meshtrans '{}': expected X,Y,Z or a single Z", *a.meshtrans));
            return exit_usage;
        }
        transform.meshtrans = *v;
    }
    if (a.axis != "bake" && a.axis != "root") {
        print_error(fmt::format("--axis '{}': expected bake or root", a.axis));
        return exit_usage;
    }
    ImageOptions images;
    if (a.images == "auto") images.mode = ImageOptions::Mode::Auto;
    else if (a.images == "reference") images.mode = ImageOptions::Mode::Reference;
    else if (a.images == "embed") images.mode = ImageOptions::Mode::Embed;
    else if (a.images == "none") images.mode = ImageOptions::Mode::None;
    else {
        print_error(fmt::format("--images '{}': expected auto, reference, embed or none", a.images));
        return exit_usage;
    }
    images.convert = a.convert_images;
    ClipEnd clip_end = ClipEnd::Clamp;
    if (a.clip_end == "extrapolate") clip_end = ClipEnd::Extrapolate;
    else if (a.clip_end == "none") clip_end = ClipEnd::None;
    else if (!a.clip_end.empty() && a.clip_end != "clamp") {
        print_error(fmt::format("--clip-end '{}': expected clamp, extrapolate or none", a.clip_end));
        return exit_usage;
    }
    Cal3dOptions cal3d;
    cal3d.binary = a.cal3d_binary;
    if (a.cal3d_dialect == "1100") cal3d.dialect = Cal3dOptions::Dialect::Classic1100;
    else if (a.cal3d_dialect == "1301") cal3d.dialect = Cal3dOptions::Dialect::Trunk1301;
    else if (a.cal3d_dialect != "imvu" && a.cal3d_dialect != "919") {
        print_error(fmt::format("--cal3d-dialect '{}': expected imvu, 1100 or 1301", a.cal3d_dialect));
        return exit_usage;
    }
    int code = exit_ok;
    const FormatInfo* out_format = choose_output_format(a.output, a.format, code);
    if (!out_format) return code;
    auto inputs = parse_inputs(a.words);
    if (!inputs) return exit_usage;
    // The output may replace none of the inputs: checked now against the files named, and again
    // before writing against every file the inputs read (buffers, .cfg members, textures).
    WriteOptions write_options;
    write_options.force = a.force;
    for (auto& in : *inputs)
        for (auto& p : in.paths) write_options.protect.push_back(input_file(p));
    if (auto st = check_output(a.output, write_options); !st) {
        print_error(st.error().to_string());
        return write_exit_code(st.error());
    }

    // The compiler's pipeline, and what the output format can hold (compiler_options): influences
    // per vertex, end-of-clip keys unless the format keeps a clip's stated length (Cal3D DURATION).
    CompileOptions options = compiler_options(*out_format);
    options.load = a.load.load_options();
    options.transform = transform;
    options.force_joints = a.force_joints;
    options.load.on_read = [&write_options](const std::string& path) { write_options.protect.push_back(path); };
    if (!a.clip_end.empty()) options.clip_end = clip_end;
    auto scene = compile(*inputs, options);
    if (!scene) {
        print_error(scene.error().to_string());
        return read_exit_code(scene.error());
    }
    print_warnings(scene->warnings);
    if (a.fix_normals) {
        const auto tests = fix_vdrift_normals(*scene);
        for (size_t m = 0; m < tests.size(); ++m)
            if (tests[m].fires)
                print_warning(fmt::format("mesh {}: normals swapped to (x, -z, y) as VDrift does ({} of {} faces perpendicular, limit {})",
                                          m, tests[m].perpendicular, tests[m].faces, tests[m].limit));
    }
    const std::string& input = inputs->front().paths.front();

    Warnings write_warnings;
    SaveOptions save_options;
    save_options.format = std::string(out_format->name);
    save_options.force_joints = a.force_joints;
    save_options.warnings = &write_warnings;
    save_options.gltf.axis = a.axis == "root" ? GltfOptions::AxisMode::Root : GltfOptions::AxisMode::Bake;
    save_options.gltf.loop_key = a.loop_key;
    save_options.gltf.embed_buffer = is_stdout_path(a.output);  // standard output carries one file
    save_options.joe.force = a.force;
    save_options.cal3d = cal3d;
    const bool gltf_out = out_format->holds_images;
    // Images the inputs hold (a .glb's textures) go inside a glTF or beside the output; standard
    // output carries one file, so beside another format they are left out there.
    if (images.mode == ImageOptions::Mode::None) drop_embedded_images(*scene, "--images none", write_warnings);
    else if (!gltf_out && is_stdout_path(a.output)) drop_embedded_images(*scene, "standard output carries one file", write_warnings);
    if (gltf_out) {
        // Texture paths are relative to the model that names them: the first input's folder.
        images.search_dir = std::filesystem::path(input).parent_path().string();
        // Confined like every other file a model names (ImageOptions::root empty = search_dir).
        images.allow_outside = a.load.allow_outside;
        images.on_read = options.load.on_read;
        // Standard output carries one file: images go inside it, as in a .glb.
        if (is_stdout_path(a.output) && images.mode == ImageOptions::Mode::Auto) images.mode = ImageOptions::Mode::Embed;
        save_options.gltf.embedded_images = images.mode == ImageOptions::Mode::Embed       ? GltfOptions::EmbeddedImages::Embed
                                            : images.mode == ImageOptions::Mode::Reference ? GltfOptions::EmbeddedImages::Files
                                                                                           : GltfOptions::EmbeddedImages::Auto;
        auto resolved = resolve_images(*scene, a.output, images, write_warnings);
        if (!resolved) {
            print_error(resolved.error().to_string());
            return read_exit_code(resolved.error());
        }
        save_options.gltf.images = std::move(*resolved);
    }
    // A .gltf output comes with its .bin: side files are written first, then the main file.
    auto output = save_output(*scene, a.output, save_options);
    if (!output) {
        print_error(output.error().to_string());
        return write_exit_code(output.error());
    }
    if (auto st = write_output(a.output, *output, write_options); !st) {
        print_error(st.error().to_string());
        return write_exit_code(st.error());
    }
    print_warnings(write_warnings);
    if (a.verbose)
        fmt::print(is_stdout_path(a.output) ? stderr : stdout, "{} -> {} ({}, {} bytes): meshes {}, vertices {}, triangles {}, joints {}, animations {}\n", input, a.output,
                   output->format, output->bytes.size(), scene->meshes.size(), scene->vertex_count(), scene->triangle_count(),
                   scene->skeleton.joints.size(), scene->animations.size());
    return exit_ok;
}

}  // namespace

Verb add_convert(CLI::App& app) {
    auto args = std::make_shared<ConvertArgs>();
    CLI::App* sub = app.add_subcommand("convert", "Convert a model; the output format comes from -o's extension or --format");
    // Inputs and the per-file options before them are read in order by parse_inputs().
    sub->allow_extras();
    sub->footer(
        "Inputs: INPUT... where each is a file or a comma-joined list (a.iqe,b.iqe) whose geometry is merged.\n"
        "Before an input, --name NAME, --fps N, --loop, --start N and --end N apply to that file's animation\n"
        "when it has exactly one (--end: last frame kept; negative counts from the end, -1 = unset).\n"
        "The first input gives meshes and skeleton; later inputs add animations, matched by joint name.\n"
        "Cal3D files (.cfg, .csf/.xsf, .cmf/.xmf, .crf/.xrf, .caf/.xaf, .cpf/.xpf) in any order form one character.");
    sub->add_option("-o,--output", args->output,
                    "Output file (replaced atomically; never one the inputs read; - streams to standard output with --format)")
        ->required();
    sub->add_option("--format", args->format, "Output format name (see 'rigport formats')");
    sub->add_option("-s,--scale", args->scale, "Scale positions and all joint and key translations by N");
    sub->add_option("-r,--rotate", args->rotate, "Rotate by Euler angles X,Y,Z in degrees (geometry and root joints)");
    sub->add_option("-t,--meshtrans", args->meshtrans, "Translate the mesh only (not the skeleton) by X,Y,Z, or by Z alone");
    sub->add_flag("-j,--forcejoints", args->force_joints, "Write joints with names even without a mesh");
    sub->add_option("--axis", args->axis, "glTF: bake (default) turns Z-up data Y-up; root keeps it under a rotated axis node");
    sub->add_flag("--loop-key", args->loop_key, "glTF: append key 0 at the end of looping animations (frame N at N/fps)");
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
    sub->add_flag("-v,--verbose", args->verbose, "Print a summary of what was written");
    args->load.add_to(sub);
    return {sub, [args, sub]() {
                args->words = sub->remaining();
                return run_convert(*args);
            }};
}

}  // namespace rigport::cli
