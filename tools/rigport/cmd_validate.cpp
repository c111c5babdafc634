// `rigport validate FILE [--json] [--strict]`: the validation report, exit 5 on errors (3 for a
// file rigport cannot read as a model at all, 2 for a part it names that cannot be read).
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <memory>

#include "cli.hpp"

namespace rigport::cli {

namespace {

using Json = nlohmann::ordered_json;

struct ValidateArgs {
    std::vector<std::string> paths;
    bool json = false;
    bool strict = false;
    LoadFlags load;
};

// Errors first, then warnings, then notes; within a severity in the order found.
void print_text(const ValidationReport& r) {
    fmt::print("{}: {}\n", r.path, r.format.empty() ? "unknown format" : r.format);
    for (Severity s : {Severity::Error, Severity::Warning, Severity::Info})
        for (auto& f : r.findings) {
            if (f.severity != s) continue;
            std::string where = f.offset ? fmt::format(" [offset {}]", *f.offset) : "";
            fmt::print("  {:<7} {}: {}{}\n", to_string(f.severity), f.code, printable(f.message, 400), where);
        }
    for (auto& t : r.tallies) {
        std::string line = t.name + ":";
        for (size_t k = 0; k < t.counts.size(); ++k) line += fmt::format("{} {} {}", k ? "," : "", t.counts[k].second, t.counts[k].first);
        fmt::print("{}\n", line);
    }
    const uint64_t e = r.count(Severity::Error), w = r.count(Severity::Warning), i = r.count(Severity::Info);
    fmt::print("{} error{}, {} warning{}, {} note{}\n", e, e == 1 ? "" : "s", w, w == 1 ? "" : "s", i, i == 1 ? "" : "s");
}

}  // namespace

Verb add_validate(CLI::App& app) {
    auto args = std::make_shared<ValidateArgs>();
    CLI::App* sub = app.add_subcommand("validate", "Check a model's structure and semantics; exit 5 when it has errors");
    sub->add_option("FILE", args->paths, "Model file; several files (or a .cfg) are checked as one model, as 'convert' merges them")
        ->required();
    sub->add_flag("--json", args->json, "Print the report as one JSON object; a file that cannot be read as {\"error\": {...}}");
    sub->add_flag("--strict", args->strict, "Treat warnings as errors for the exit code");
    args->load.add_to(sub);
    return {sub, [args]() -> int {
                // One file as stored (a .cfg with its members too); several: the scene `rigport
                // convert` builds from them, before a writer's needs (every influence, keys as they are).
                const std::string& path = args->paths.front();
                auto report = validate_model(args->paths, args->load.load_options());
                if (!report) return fail(report.error(), read_exit_code(report.error()), args->json);
                const ValidationReport& r = *report;
                print_companions(path, r.companions);
                if (args->json)
                    fmt::print("{}\n", validation_json(r));
                else
                    print_text(r);
                // A file in no known format, or one recognised but not read (FBX before 3.0): the
                // file could not be checked (exit 3, as convert and info), not found wanting (exit 5).
                for (auto& f : r.findings)
                    if (f.code == "format.unknown" || f.code == "load.unsupported") {
                        // One file's format.unknown names no path (the report's path is the file);
                        // the other findings carry the error as read, path first.
                        const bool one_file = args->paths.size() == 1 && f.code == "format.unknown";
                        print_error(one_file ? fmt::format("{}: {}", path, f.message) : f.message);
                        return exit_unsupported;
                    }
                if (r.format.empty()) {
                    print_error(fmt::format("{}: not a recognised model format", path));
                    return exit_unsupported;
                }
                // A part the file names that is missing or refused: the file could not be checked
                // (exit 2, as convert and info), not found wanting (exit 5).
                for (auto& f : r.findings)
                    if (f.code == "part.missing" || f.code == "part.unreadable") return exit_read;
                const bool failed = r.count(Severity::Error) > 0 || (args->strict && r.count(Severity::Warning) > 0);
                return failed ? exit_validation : exit_ok;
            }};
}

}  // namespace rigport::cli
