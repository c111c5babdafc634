// rigport: the command-line tool (`rigport <verb>`), argument dispatch and the shared helpers.
#include <cstdio>
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

const FormatInfo* choose_output_format(const std::string& path, const std::string& format_name, int& exit_code) {
    if (format_name.empty() && is_stdout_path(path)) {
        print_error("-o - streams to standard output, which has no extension: name the format with --format");
        exit_code = exit_usage;
        return nullptr;
    }
    const FormatInfo* f = format_name.empty() ? find_format_by_extension(path) : find_format(format_name);
    if (!f) {
        print_error(format_name.empty()
                        ? fmt::format("cannot tell the output format from '{}'; use a known extension or --format (see 'rigport formats')", path)
                        : fmt::format("unknown format '{}' (see 'rigport formats')", format_name));
        exit_code = exit_usage;
        return nullptr;
    }
    if (!f->write) {
        print_error(fmt::format("writing {} is not supported yet", f->name));
        exit_code = exit_unsupported;
        return nullptr;
    }
    return f;
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

    const std::vector<Verb> verbs = {add_info(app), add_validate(app), add_convert(app), add_sample(app), add_formats(app), add_pack(app)};

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        // Help and --version are "errors" with exit code 0 in CLI11; everything else is usage.
        return app.exit(e) == 0 ? exit_ok : exit_usage;
    }
    for (auto& verb : verbs)
        if (verb.command->parsed()) return verb.run();
    return exit_usage;
}
