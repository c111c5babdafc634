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

// The characters a profile's names may hold, in words.
std::string_view name_rule(const TargetProfile& p) {
    switch (p.name_characters) {
        case TargetProfile::NameCharacters::Any: break;
        case TargetProfile::NameCharacters::NoQuotes: return "no '\"' or control characters";
        case TargetProfile::NameCharacters::Identifier: return "letters, digits and '_'";
    }
    return "any";
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
            const TargetTextures& t = p.textures;
            Json textures = Json::object();
            if (!t.types.empty()) {
                Json types = Json::array();
                for (auto type : t.types) types.push_back(type);
                textures["types"] = {{"types", types}, {"source", t.types_source}};
            }
            if (t.palette) textures["palette"] = {{"source", t.palette_source}};
            if (t.power_of_two) textures["power_of_two"] = {{"source", t.power_of_two_source}};
            if (t.most_width || t.most_height)
                textures["size"] = {{"most_width", t.most_width ? Json(t.most_width) : Json(nullptr)},
                                    {"most_height", t.most_height ? Json(t.most_height) : Json(nullptr)}, {"source", t.size_source}};
            if (t.most_texels) textures["texels"] = {{"most", t.most_texels}, {"source", t.texels_source}};
            row["textures"] = textures;
            row["name_characters"] = p.name_characters == TargetProfile::NameCharacters::Any
                                         ? Json(nullptr)
                                         : Json{{"rule", name_rule(p)}, {"animations_only", p.only_animation_names}, {"source", p.name_characters_source}};
            row["unit"] = p.metres_per_unit > 0 ? Json{{"metres", p.metres_per_unit}, {"source", p.unit_source}} : Json(nullptr);
            row["faces"] = p.faces_plus_x ? Json{{"front", "+X"}, {"up", "+Z"}, {"source", p.facing_source}} : Json(nullptr);
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
        const TargetTextures& t = p.textures;
        if (!t.types.empty()) {
            std::string types;
            for (auto type : t.types) types += (types.empty() ? "" : " ") + std::string(type);
            fmt::print("    {:<19} {:>6}  {} ({})\n", "texture_type", "", types, t.types_source);
        }
        if (t.palette) fmt::print("    {:<19} {:>6}  {}\n", "texture_palette", 256, t.palette_source);
        if (t.power_of_two) fmt::print("    {:<19} {:>6}  {}\n", "texture_power_of_two", "", t.power_of_two_source);
        if (t.most_width || t.most_height)
            fmt::print("    {:<19} {:>6}  {} x {} at most ({})\n", "texture_size", "", t.most_width ? fmt::format("{}", t.most_width) : "any",
                       t.most_height ? fmt::format("{}", t.most_height) : "any", t.size_source);
        if (t.most_texels) fmt::print("    {:<19} {:>6}  texels ({})\n", "texture_size", t.most_texels, t.texels_source);
        if (p.name_characters != TargetProfile::NameCharacters::Any)
            fmt::print("    {:<19} {:>6}  {}{} ({})\n", "name_characters", "", name_rule(p), p.only_animation_names ? " (animation names)" : "",
                       p.name_characters_source);
        if (p.metres_per_unit > 0) fmt::print("    {:<19} {:>6.4g}  metres ({})\n", "unit", p.metres_per_unit, p.unit_source);
        if (p.faces_plus_x) fmt::print("    {:<19} {:>6}  Z up ({})\n", "faces", "+X", p.facing_source);
    }
    fmt::print("\nrigport check --target NAME MODEL... checks a model against one (docs/targets.md).\n");
    return exit_ok;
}

struct CheckArgs {
    std::vector<std::string> paths;
    std::string target;
    bool json = false;
    LoadFlags load;
    TextureFlags textures;  // --texture-path DIR...: where the textures the limits measure are also looked for
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
    args->textures.add_to(sub);
    return {sub, [args]() -> int {
                const TargetProfile* profile = find_target(args->target);
                if (!profile) {
                    print_error(fmt::format("unknown target '{}' (expected {})", printable(args->target, 80), profile_names()));
                    return exit_usage;
                }
                if (auto st = args->textures.check(); !st) return fail(st.error(), exit_usage, args->json);
                auto scene = load_model(args->paths, args->load.load_options());
                if (!scene) return fail(scene.error(), read_exit_code(scene.error()), args->json);
                // The textures the profile's texture rules measure, found as convert finds them; one
                // not found is a warning, not a broken limit (docs/targets.md "Textures").
                Warnings looked;
                std::vector<GltfImage> textures;
                if (profile->textures.any()) {
                    auto found = find_target_textures(*scene, args->paths.front(), args->textures.paths, args->load.allow_outside, looked);
                    if (!found) return fail(found.error(), read_exit_code(found.error()), args->json);
                    textures = std::move(*found);
                }
                ValidationReport r = check_target(*scene, *profile, args->paths.front(), textures);
                for (const Warning& w : looked.items) r.add(Severity::Warning, std::string(to_string(w.code)), w.message, {}, w.count);
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
