// `rigport formats`: the format registry, with what each format supports.
#include <cstdio>

#include "cli.hpp"

namespace rigport::cli {

namespace {

// validate: every format rigport reads is validated (its reader's warnings and the scene
// checks); "bytes" where the format also has checks of the stored bytes (FormatInfo::validate).
int run_formats() {
    fmt::print("{:<10} {:<12} {:<5} {:<5} {:<12} {}\n", "name", "extensions", "read", "write", "validate", "description");
    for (auto& f : formats()) {
        std::string ext;
        for (auto e : f.extensions) {
            if (!ext.empty()) ext += ',';
            ext += e;
        }
        const char* validate = !f.read ? "no" : f.validate ? "bytes+scene" : "scene";
        fmt::print("{:<10} {:<12} {:<5} {:<5} {:<12} {}\n", f.name, ext, f.read ? "yes" : "no", f.write ? "yes" : "no", validate,
                   f.description);
    }
    fmt::print("\nvalidate: 'scene' = the reader's warnings and the scene checks (skin weights, quaternions, geometry ...);\n"
               "'bytes+scene' adds checks of the file's stored layout. VDrift JPK packs: `rigport pack list`.\n");
    return exit_ok;
}

}  // namespace

Verb add_formats(CLI::App& app) {
    CLI::App* sub = app.add_subcommand("formats", "List the formats rigport knows and what it can do with each");
    return {sub, []() { return run_formats(); }};
}

}  // namespace rigport::cli
