// `rigport targets [--json]`: the engine profiles and their limits; `rigport check --target T
// MODEL... [--json]`: the model against one profile, exit 5 when a limit is broken
// (docs/targets.md, docs/cli.md "check").
#include <nlohmann/json.hpp>

#include <memory>

#include "cli.hpp"
#include "rigport/targets.hpp"

namespace rigport::cli {

namespace {

using Json = nlohmann::ordered_json;

std::string profile_names() {
    std::string names;
    for (const TargetProfile& p : target_profiles()) names += (names.empty() ? "" : ", ") + std::string(p.name);
    return names;
}

int run_targets(bool json) {
    if (json) {
        Json all = Json::array();
        for (const TargetProfile& p : target_profiles()) {
            Json limits = Json::array();
            for (const TargetLimit& l : p.limits)
                limits.push_back({{"measure", target_measure_name(l.measure)}, {"most", l.most}, {"source", l.source}});
            Json formats = Json::array();
            for (auto f : p.formats) formats.push_back(f);
            Json row{{"name", p.name}, {"engine", p.engine}, {"formats", formats}, {"limits", limits}};
            row["root_name"] = p.root_name.empty() ? Json(nullptr) : Json(p.root_name);
            row["weighted_vertices"] = p.weighted_vertices;
            row["frame_rate"] = p.frame_rate;
            all.push_back(row);
        }
        fmt::print("{}\n", Json{{"targets", all}}.dump(2));
        return exit_ok;
    }
    for (const TargetProfile& p : target_profiles()) {
        std::string formats;
        for (auto f : p.formats) formats += (formats.empty() ? "" : ", ") + std::string(f);
        fmt::print("{:<11} {} (writes {})\n", p.name, p.engine, formats);
        for (const TargetLimit& l : p.limits) fmt::print("    {:<19} {:>6}  {}\n", target_measure_name(l.measure), l.most, l.source);
        if (!p.root_name.empty()) fmt::print("    {:<19} {:>6}  {}\n", "root_name", p.root_name, p.root_name_source);
        if (p.weighted_vertices) fmt::print("    {:<19} {:>6}  every skinned vertex weighted\n", "unweighted", 0);
    }
    fmt::print("\nrigport check --target NAME MODEL... checks a model against one (docs/targets.md).\n");
    return exit_ok;
}

struct CheckArgs {
    std::vector<std::string> paths;
    std::string target;
    bool json = false;
    LoadFlags load;
};

}  // namespace

Verb add_targets(CLI::App& app) {
    CLI::App* sub = app.add_subcommand("targets", "List the engine profiles (limits with their sources) that check --target uses");
    auto json = std::make_shared<bool>(false);
    sub->add_flag("--json", *json, "Every profile and limit as JSON");
    return {sub, [json]() { return run_targets(*json); }};
}

Verb add_check(CLI::App& app) {
    auto args = std::make_shared<CheckArgs>();
    CLI::App* sub = app.add_subcommand("check", "Check a model against an engine's limits (--target); exit 5 when one is broken");
    sub->add_option("FILE", args->paths, "Model file; several files are checked as one model, as 'convert' merges them")->required();
    sub->add_option("--target", args->target, "The engine profile: " + profile_names() + " ('rigport targets' lists their limits)")
        ->required();
    sub->add_flag("--json", args->json, "Print the report as one JSON object (as validate --json, with \"target\")");
    args->load.add_to(sub);
    return {sub, [args]() -> int {
                const TargetProfile* profile = find_target(args->target);
                if (!profile) {
                    print_error(fmt::format("unknown target '{}' (expected {})", printable(args->target, 80), profile_names()));
                    return exit_usage;
                }
                auto scene = load_model(args->paths, args->load.load_options());
                if (!scene) return fail(scene.error(), read_exit_code(scene.error()), args->json);
                const ValidationReport r = check_target(*scene, *profile, args->paths.front());
                if (args->json) {
                    Json j = Json::parse(validation_json(r));
                    j["target"] = profile->name;
                    fmt::print("{}\n", j.dump(2));
                } else {
                    fmt::print("{}: {} for {}\n", args->paths.front(), r.findings.empty() ? "fits" : "does not fit", profile->engine);
                    for (auto& f : r.findings) fmt::print("  {:<7} {}: {}\n", to_string(f.severity), f.code, printable(f.message, 400));
                    const uint64_t e = r.count(Severity::Error);
                    fmt::print("{} limit{} broken\n", e, e == 1 ? "" : "s");
                }
                return r.count(Severity::Error) > 0 ? exit_validation : exit_ok;
            }};
}

}  // namespace rigport::cli
