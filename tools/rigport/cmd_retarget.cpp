// `rigport retarget CLIP... --onto SKELETON -o OUT [--map auto|FILE.json] [--root-motion keep|in-place|scale]
// [--name NAME] [--save-map FILE.json]`: clips played on another skeleton (docs/retarget.md), written
// as convert writes a model.
#include <memory>
#include <string>
#include <vector>

#include "cli.hpp"
#include "convert_model.hpp"
#include "rigport/retarget.hpp"

namespace rigport::cli {

namespace {

struct RetargetArgs {
    std::vector<std::string> clips;
    std::string onto;
    std::string output;
    std::string format;
    std::string map = "auto";
    std::string root_motion = "scale";
    std::string name;
    std::string save_map;
    bool force = false;
    bool verbose = false;
    bool quiet = false;
    bool json = false;
    LoadFlags load;
};

int run_retarget_verb(const RetargetArgs& a) {
    // Every option is checked before any input is read.
    auto root_motion = parse_root_motion(a.root_motion);
    if (!root_motion)
        return fail(usage_error(fmt::format("--root-motion '{}': expected scale, keep or in-place", printable(a.root_motion, 80))), exit_usage, a.json);
    if (a.map.empty()) return fail(usage_error("--map: expected auto or a map file (FILE.json)"), exit_usage, a.json);
    if (a.json && is_stdout_path(a.output))
        return fail(usage_error("--json prints on standard output, where -o - streams the model: use one of them"), exit_usage, a.json);
    if (!a.save_map.empty() && (is_stdout_path(a.save_map) || is_stdout_path(a.output)))
        return fail(usage_error("--save-map writes a file beside the output: neither may be standard output"), exit_usage, a.json);
    if (!a.save_map.empty() && path_identity(a.save_map) == path_identity(a.output))
        return fail(usage_error(fmt::format("--save-map '{}' is the output itself", a.save_map)), exit_usage, a.json);
    auto format = find_output_format(a.output, a.format, output_format_names());
    if (!format) return fail(format.error(), write_exit_code(format.error()), a.json);

    ConvertOptions options;
    options.format = *format;
    options.load = a.load.load_options();
    options.force = a.force;
    RetargetOptions retarget;
    retarget.root_motion = *root_motion;
    retarget.name = a.name;
    RetargetJob job;
    for (auto& clip : a.clips) job.clips.push_back(CompileInput{{clip}, {}});
    job.onto = CompileInput{{a.onto}, {}};
    job.output = a.output;
    job.save_map = a.save_map;
    if (a.map != "auto") job.map_file = a.map;

    const RetargetResult result = run_retarget(job, options, retarget);
    if (!a.quiet) {
        print_companions(a.clips.front(), result.companions);
        std::string warnings;
        append_warnings(result, warnings, WarningLimit{.every_warning = a.verbose});
        fmt::print(stderr, "{}", warnings);
    }
    if (result.error) return fail(*result.error, result.write_error ? write_exit_code(*result.error) : read_exit_code(*result.error), a.json);
    if (a.json) fmt::print("{}\n", retarget_json(a.clips.front(), result));
    if (a.verbose)
        fmt::print(is_stdout_path(a.output) || a.json ? stderr : stdout, "{} -> {} ({}, {} bytes): {} joint pairs, {} left at rest, root travel x{:.4g}, animations {}\n",
                   terminal_text(a.clips.front()), terminal_text(a.output), result.written_format, result.bytes, result.map.size(), result.unmapped.size(),
                   result.root_scale, result.counts.animations);
    return exit_ok;
}

}  // namespace

Verb add_retarget(CLI::App& app) {
    auto args = std::make_shared<RetargetArgs>();
    CLI::App* sub = app.add_subcommand("retarget", "Play clips made for one skeleton on another and write that model with them (docs/retarget.md)");
    sub->footer(
        "CLIP...: the files holding the clips, read as one model as convert reads its inputs (a mesh file with the\n"
        "animation files beside it, an animation file with its mesh or skeleton file, Cal3D files as one character).\n"
        "--onto: the model whose skeleton and rest pose the clips are made to fit; its meshes, skin and materials are written.");
    sub->add_option("clips", args->clips, "Files holding the clips (and the skeleton they were made for)")->required()->type_name("CLIP");
    sub->add_option("--onto", args->onto, "The target model (or animation file): its skeleton and rest pose")->required()->type_name("SKELETON");
    sub->add_option("-o,--output", args->output, "Output file (replaced atomically; never one the inputs read)")->required();
    sub->add_option("--format", args->format, "Output format name, in any letter case: " + format_names(true) + " (see 'rigport formats')");
    sub->add_option("--map", args->map,
                    "auto (default): joints paired by their canonical names, then the hierarchy; FILE.json: an object "
                    "{\"source joint\": \"target joint\" | null} laid over the auto map")
        ->type_name("auto|FILE.json");
    sub->add_option("--root-motion", args->root_motion,
                    "The root's travel: scale (default: times target leg length / source leg length), keep, or in-place "
                    "(its horizontal part removed)")
        ->type_name("scale|keep|in-place");
    sub->add_option("--name", args->name, "The retargeted clip's name (several clips: NAME_<clip's name>)");
    sub->add_option("--save-map", args->save_map, "Write the map used, as --map FILE.json reads it, with the output (both or neither)")
        ->type_name("FILE.json");
    sub->add_flag("--force", args->force, "Replace a read-only output");
    sub->add_flag("-v,--verbose", args->verbose, "Print every warning and a summary of what was written");
    sub->add_flag("-q,--quiet", args->quiet, "Print no warnings (errors still print)");
    sub->add_flag("--json", args->json,
                  "Print the result as one JSON object on stdout (convert's record plus map, unmapped, root_scale); a failure as {\"error\": {...}}");
    args->load.add_to(sub);
    return {sub, [args]() { return run_retarget_verb(*args); }};
}

}  // namespace rigport::cli
