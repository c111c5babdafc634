// rigport: the command-line tool (`rigport <verb>`), argument dispatch and the shared helpers.
#include <cctype>
#include <cstdio>
#include <cstring>
#include <vector>

#include "cli.hpp"

namespace rigport::cli {

void print_error(std::string_view message) { fmt::print(stderr, "Error: {}\n", message); }
void print_warning(std::string_view message) { fmt::print(stderr, "Warning: {}\n", message); }

std::string warning_text(const Warning& warning) {
    // "path: offset N: code: message": where first, as errors are printed.
    std::string where = warning.path;
    if (warning.offset) where += where.empty() ? fmt::format("offset {}", *warning.offset) : fmt::format(": offset {}", *warning.offset);
    std::string text = fmt::format("{}{}{}: {}", where, where.empty() ? "" : ": ", to_string(warning.code), warning.message);
    if (warning.count > 1) text += fmt::format(" (x{})", warning.count);
    return text;
}

void print_warnings(const Warnings& warnings) {
    for (auto& w : warnings.items) print_warning(warning_text(w));
}

int read_exit_code(const Error& error) {
    switch (error.code) {
        case ErrorCode::InvalidArgument: return exit_usage;
        case ErrorCode::UnknownFormat:
        case ErrorCode::Unsupported: return exit_unsupported;
        default: return exit_read;
    }
}

// Exit 4 means only that the filesystem refused the write: a writer refusing the data it was
// given (non-finite values, out of the target's range, over a limit) is an input problem, exit 2.
int write_exit_code(const Error& error) {
    switch (error.code) {
        case ErrorCode::InvalidArgument: return exit_usage;
        case ErrorCode::UnknownFormat:
        case ErrorCode::Unsupported: return exit_unsupported;
        case ErrorCode::WriteFailed: return exit_write;
        default: return exit_read;
    }
}

Json error_json(const Error& error) {
    Json j;
    j["code"] = to_string(error.code);
    j["message"] = error.message;
    if (!error.path.empty()) j["path"] = error.path;
    if (error.line > 0) {
        j["line"] = error.line;
        j["column"] = error.column;
    }
    if (error.offset) j["offset"] = *error.offset;
    return j;
}

int fail(const Error& error, int exit_code, bool json) {
    print_error(error.to_string());
    if (json) fmt::print("{}\n", Json{{"error", error_json(error)}}.dump(2, ' ', false, Json::error_handler_t::replace));
    return exit_code;
}

Error usage_error(std::string message) { return make_error(ErrorCode::InvalidArgument, std::move(message)); }

namespace {

// True when path ends with one of the format's own extensions (any letter case).
bool has_extension_of(const FormatInfo& format, std::string_view path) {
    for (auto ext : format.extensions) {
        if (path.size() < ext.size()) continue;
        bool same = true;
        for (size_t i = 0; i < ext.size() && same; ++i)
            same = std::tolower(static_cast<unsigned char>(path[path.size() - ext.size() + i])) == ext[i];
        if (same) return true;
    }
    return false;
}

}  // namespace

Expected<const FormatInfo*> find_output_format(const std::string& path, const std::string& format_name) {
    if (format_name.empty() && is_stdout_path(path))
        return usage_error("-o - streams to standard output, which has no extension: name the format with --format");
    const FormatInfo* f = format_name.empty() ? find_format_by_extension(path) : find_format(format_name);
    if (!f)
        return usage_error(format_name.empty()
                               ? fmt::format("cannot tell the output format from '{}'; use a known extension or --format (see 'rigport formats')", path)
                               : fmt::format("unknown format '{}' (see 'rigport formats')", format_name));
    // The registry says what an extension means: one that names another format than --format
    // contradicts it (--format glb with .glb, --format gltf with .gltf or .glb agree). An
    // extension no format claims is left to --format.
    if (!format_name.empty() && !is_stdout_path(path))
        if (const FormatInfo* by_extension = find_format_by_extension(path); by_extension && !has_extension_of(*f, path)) {
            std::string own;
            for (auto ext : f->extensions) own += fmt::format("{}{}", own.empty() ? "" : " or ", ext);
            return usage_error(fmt::format("-o '{}' has the extension of {} but --format is {}: name the output {}or drop --format", path,
                                           by_extension->name, f->name, own.empty() ? "" : fmt::format("with {} ", own)));
        }
    if (!f->write) return make_error(ErrorCode::Unsupported, fmt::format("writing {} is not supported yet", f->name));
    return f;
}

const FormatInfo* choose_output_format(const std::string& path, const std::string& format_name, int& exit_code) {
    auto f = find_output_format(path, format_name);
    if (!f) {
        print_error(f.error().to_string());
        exit_code = write_exit_code(f.error());
        return nullptr;
    }
    return *f;
}

std::string printable(std::string_view text, size_t max_chars) {
    std::string out;
    for (unsigned char c : text) {
        if (out.size() >= max_chars) {
            out += "...";
            break;
        }
        if (c == '\n')
            out += "\\n";
        else if (c < 0x20 || c == 0x7F)
            out += fmt::format("\\x{:02x}", c);
        else
            out += static_cast<char>(c);
    }
    return out;
}

}  // namespace rigport::cli

int main(int argc, char** argv) {
    using namespace rigport::cli;
    CLI::App app{"rigport: read, validate, convert and write game model formats (IQM, IQE, Cal3D, VDrift JOE/JPK, glTF 2.0)",
                 "rigport"};
    app.set_version_flag("--version", "rigport " RIGPORT_VERSION_STRING);
    app.require_subcommand(1);
    app.failure_message([](const CLI::App*, const CLI::Error& e) {
        return fmt::format("Error: {}\nRun 'rigport --help' or 'rigport <verb> --help' for usage.\n", e.what());
    });
    app.footer("Exit codes: 0 ok, 1 usage, 2 read error, 3 unsupported, 4 write error, 5 validation failed.");

    const std::vector<Verb> verbs = {add_info(app), add_validate(app), add_convert(app), add_sample(app), add_formats(app), add_pack(app),
                                   add_batch(app), add_render(app), add_view(app)};

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        // Help and --version are "errors" with exit code 0 in CLI11; everything else is usage.
        if (app.exit(e) == 0) return exit_ok;
        // The verbs with --json report a usage error on stdout too when it was asked for.
        const bool json_verb = argc > 1 && (std::strcmp(argv[1], "convert") == 0 || std::strcmp(argv[1], "info") == 0 ||
                                            std::strcmp(argv[1], "validate") == 0);
        for (int i = 2; json_verb && i < argc; ++i)
            if (std::strcmp(argv[i], "--json") == 0) {
                fmt::print("{}\n", Json{{"error", error_json(usage_error(e.what()))}}.dump(2, ' ', false, Json::error_handler_t::replace));
                break;
            }
        return exit_usage;
    }
    for (auto& verb : verbs)
        if (verb.command->parsed()) return verb.run();
    return exit_usage;
}
