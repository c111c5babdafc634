// `rigport formats`: the format registry, with what each format supports.
#include <cstdio>

#include "cli.hpp"

namespace rigport::cli {

namespace {

int run_formats() {
    fmt::print("{:<10} {:<12} {:<5} {:<5} {:<8} {}\n", "name", "extensions", "read", "write", "validate", "description");
    for (auto& f : formats()) {
        std::string ext;
        for (auto e : f.extensions) {
            if (!ext.empty()) ext += ',';
            ext += e;
        }
        fmt::print("{:<10} {:<12} {:<5} {:<5} {:<8} {}\n", f.name, ext, f.read ? "yes" : "no", f.write ? "yes" : "no",
                   f.validate ? "yes" : "no", f.description);
    }
    return exit_ok;
}

}  // namespace

Verb add_formats(CLI::App& app) {
    CLI::App* sub = app.add_subcommand("formats", "List the formats rigport knows and what it can do with each");
    return {sub, []() { return run_formats(); }};
}

}  // namespace rigport::cli
