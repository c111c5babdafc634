// `rigport sample -o OUT`: writes the built-in sample model (src/model/sample.cpp).
#include <cstdio>
#include <memory>

#include "cli.hpp"

namespace rigport::cli {

namespace {

struct SampleArgs {
    std::string output;
    std::string format;
    bool verbose = false;
    bool force = false;
};

int run_sample(const SampleArgs& a) {
    int code = exit_ok;
    const FormatInfo* format = choose_output_format(a.output, a.format, code);
    if (!format) return code;
    if (auto st = check_output(a.output, WriteOptions{a.force, {}}); !st) {
        print_error(st.error().to_string());
        return write_exit_code(st.error());
    }
    const Scene scene = make_sample_scene();
    Warnings warnings;
    SaveOptions options;
    options.format = std::string(format->name);
    options.warnings = &warnings;
    // glTF holds images: the sample's texture goes inside. Other formats name it, so it is
    // written beside them as sample_texture.png (where a later convert to glTF finds it).
    const bool gltf = format->holds_images;
    options.gltf.embed_buffer = is_stdout_path(a.output);
    if (gltf) options.gltf.images.push_back(GltfImage{"sample_texture.png", "", "image/png", make_sample_texture()});
    auto output = save_output(scene, a.output, options);
    if (!output) {
        print_error(output.error().to_string());
        return write_exit_code(output.error());
    }
    // Standard output carries one file: the texture is left out there.
    if (!gltf && !is_stdout_path(a.output)) output->side_files.push_back(OutputFile{"sample_texture.png", make_sample_texture()});
    if (auto st = write_output(a.output, *output, WriteOptions{a.force, {}}); !st) {
        print_error(st.error().to_string());
        return write_exit_code(st.error());
    }
    print_warnings(warnings);
    if (a.verbose)
        fmt::print(is_stdout_path(a.output) ? stderr : stdout, "wrote {} ({}): vertices {}, triangles {}, joints {}, animations {}\n", terminal_text(a.output), format->name,
                   scene.vertex_count(), scene.triangle_count(), scene.skeleton.joints.size(), scene.animations.size());
    return exit_ok;
}

}  // namespace

Verb add_sample(CLI::App& app) {
    auto args = std::make_shared<SampleArgs>();
    CLI::App* sub = app.add_subcommand("sample", "Write the built-in sample model (a skinned, animated cylinder)");
    sub->add_option("-o,--output", args->output, "Output file, e.g. sample.iqm")->required();
    sub->add_option("--format", args->format, "Output format name, in any letter case (default: from the extension): " + format_names(true));
    sub->add_flag("--force", args->force, "Replace a read-only output");
    sub->add_flag("-v,--verbose", args->verbose, "Print what was written");
    return {sub, [args]() { return run_sample(*args); }};
}

}  // namespace rigport::cli
