// `rigport formats`: the format registry, with what each format supports.
#include <algorithm>
#include <cstdio>
#include <memory>

#include "cli.hpp"

namespace rigport::cli {

namespace {

// validate: every format rigport reads is validated (its reader's warnings and the scene
// checks); "bytes" where the format also has checks of the stored bytes (FormatInfo::validate).
int run_formats(bool json) {
    // Every field a row declares, for programs (the Blender add-on builds its menus from it).
    if (json) {
        fmt::print("{}\n", formats_json());
        return exit_ok;
    }
    auto extensions = [](const FormatInfo& f) {
        std::string ext;
        for (auto e : f.extensions) {
            if (!ext.empty()) ext += ',';
            ext += e;
        }
        return ext;
    };
    // Columns as wide as their widest entry (at least the widths the table always had).
    size_t name_width = 11, ext_width = 13;
    for (auto& f : formats()) {
        name_width = std::max(name_width, f.name.size() + 1);
        ext_width = std::max(ext_width, extensions(f).size() + 1);
    }
    fmt::print("{:<{}}{:<{}}{:<6}{:<6}{:<13}{}\n", "name", name_width, "extensions", ext_width, "read", "write", "validate", "description");
    for (auto& f : formats()) {
        const char* validate = !f.read ? "no" : f.validate ? "bytes+scene" : "scene";
        fmt::print("{:<{}}{:<{}}{:<6}{:<6}{:<13}{}\n", f.name, name_width, extensions(f), ext_width, f.read ? "yes" : "no",
                   f.write ? "yes" : "no", validate, f.description);
    }
    fmt::print("\nvalidate: 'scene' = the reader's warnings and the scene checks (skin weights, quaternions, geometry ...);\n"
               "'bytes+scene' adds checks of the file's stored layout. Names are accepted in any letter case (--format GLB).\n"
               "VDrift JPK packs: `rigport pack list`; a member of a pack is read as PACK.jpk:MEMBER.\n");
    return exit_ok;
}

}  // namespace

Verb add_formats(CLI::App& app) {
    CLI::App* sub = app.add_subcommand("formats", "List the formats rigport knows and what it can do with each");
    auto json = std::make_shared<bool>(false);
    sub->add_flag("--json", *json, "Every field of each registry row as JSON (docs/formats.md \"The registry as JSON\")");
    return {sub, [json]() { return run_formats(*json); }};
}

}  // namespace rigport::cli
