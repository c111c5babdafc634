// `rigport convert INPUT... -o OUTPUT [options]`: load, apply the asked-for transforms, save atomically.
#include <charconv>
#include <cmath>
#include <cstdio>
#include <memory>

#include "cli.hpp"

namespace rigport::cli {

namespace {

struct ConvertArgs {
    std::vector<std::string> inputs;
    std::string output;
    std::string format;
    std::optional<float> scale;
    std::optional<std::string> rotate;
    std::optional<std::string> meshtrans;
    bool force_joints = false;
    bool verbose = false;
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

int run_convert(const ConvertArgs& a) {
    // Every option is checked before any input is read.
    TransformOptions transform;
    const bool transforming = a.scale || a.rotate || a.meshtrans;
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
    int code = exit_ok;
    const FormatInfo* out_format = choose_output_format(a.output, a.format, code);
    if (!out_format) return code;
    if (a.inputs.size() > 1) {
        print_error("not supported yet: several inputs (IQE compiler issue)");
        return exit_unsupported;
    }

    const std::string& input = a.inputs.front();
    auto scene = load(input);
    if (!scene) {
        print_error(scene.error().to_string());
        return read_exit_code(scene.error());
    }
    print_warnings(scene->warnings);
    if (transforming) apply_transform(*scene, transform);

    Warnings write_warnings;
    SaveOptions save_options;
    save_options.format = std::string(out_format->name);
    save_options.force_joints = a.force_joints;
    save_options.warnings = &write_warnings;
    auto bytes = save_bytes(*scene, a.output, save_options);
    if (!bytes) {
        print_error(bytes.error().to_string());
        return write_exit_code(bytes.error());
    }
    if (auto st = write_file_atomic(a.output, *bytes); !st) {
        print_error(st.error().to_string());
        return write_exit_code(st.error());
    }
    print_warnings(write_warnings);
    if (a.verbose)
        fmt::print("{} -> {} ({}, {} bytes): meshes {}, vertices {}, triangles {}, joints {}, animations {}\n", input, a.output,
                   out_format->name, bytes->size(), scene->meshes.size(), scene->vertex_count(), scene->triangle_count(),
                   scene->skeleton.joints.size(), scene->animations.size());
    return exit_ok;
}

}  // namespace

Verb add_convert(CLI::App& app) {
    auto args = std::make_shared<ConvertArgs>();
    CLI::App* sub = app.add_subcommand("convert", "Convert a model; the output format comes from -o's extension or --format");
    sub->add_option("INPUT", args->inputs, "Input model(s); one for now")->required();
    sub->add_option("-o,--output", args->output, "Output file (replaced atomically)")->required();
    sub->add_option("--format", args->format, "Output format name (see 'rigport formats')");
    sub->add_option("-s,--scale", args->scale, "Scale positions and all joint and key translations by N");
    sub->add_option("-r,--rotate", args->rotate, "Rotate by Euler angles X,Y,Z in degrees (geometry and root joints)");
    sub->add_option("-t,--meshtrans", args->meshtrans, "Translate the mesh only (not the skeleton) by X,Y,Z, or by Z alone");
    sub->add_flag("-j,--forcejoints", args->force_joints, "Write joints with names even without a mesh");
    sub->add_flag("-v,--verbose", args->verbose, "Print a summary of what was written");
    return {sub, [args]() { return run_convert(*args); }};
}

}  // namespace rigport::cli
