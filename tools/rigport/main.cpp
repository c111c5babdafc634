// rigport: the command-line tool (`rigport <verb>`), argument dispatch and the shared helpers.
#include <cstdio>
#include <cstring>
#include <vector>

#include "cli.hpp"

namespace rigport::cli {

void print_error(std::string_view message) { fmt::print(stderr, "Error: {}\n", terminal_text(message)); }
void print_warning(std::string_view message) { fmt::print(stderr, "Warning: {}\n", terminal_text(message)); }

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

int fail(const Error& error, int exit_code, bool json) {
    print_error(error.to_string());
    if (json) fmt::print("{}\n", Json{{"error", Json::parse(error_json(error))}}.dump(2, ' ', false, Json::error_handler_t::replace));
    return exit_code;
}

Error usage_error(std::string message) { return make_error(ErrorCode::InvalidArgument, std::move(message)); }

const FormatInfo* choose_output_format(const std::string& path, const std::string& format_name, int& exit_code) {
    auto f = find_output_format(path, format_name);
    if (!f) {
        print_error(f.error().to_string());
        exit_code = write_exit_code(f.error());
        return nullptr;
    }
    return *f;
}

namespace {

// The length of the valid UTF-8 sequence at s[i] (RFC 3629: no overlong forms, no surrogates,
// nothing above U+10FFFF, and not U+0080..U+009F, the C1 controls some terminals obey), or 0.
size_t utf8_length(std::string_view s, size_t i) {
    const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char b0 = byte(i);
    size_t n = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
    if (b0 == 0xC2) n = 2, lo = 0xA0;
    else if (b0 >= 0xC3 && b0 <= 0xDF) n = 2;
    else if (b0 == 0xE0) n = 3, lo = 0xA0;
    else if (b0 >= 0xE1 && b0 <= 0xEC) n = 3;
    else if (b0 == 0xED) n = 3, hi = 0x9F;
    else if (b0 >= 0xEE && b0 <= 0xEF) n = 3;
    else if (b0 == 0xF0) n = 4, lo = 0x90;
    else if (b0 >= 0xF1 && b0 <= 0xF3) n = 4;
    else if (b0 == 0xF4) n = 4, hi = 0x8F;
    else return 0;
    if (i + n > s.size() || byte(i + 1) < lo || byte(i + 1) > hi) return 0;
    for (size_t k = 2; k < n; ++k)
        if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
    return n;
}

}  // namespace

std::string printable(std::string_view text, size_t max_chars) {
    std::string out;
    for (size_t i = 0; i < text.size();) {
        if (out.size() >= max_chars) {
            out += "...";
            break;
        }
        const auto c = static_cast<unsigned char>(text[i]);
        if (c >= 0x20 && c < 0x7F) {
            out += static_cast<char>(c);
            ++i;
        } else if (const size_t n = c >= 0x80 ? utf8_length(text, i) : 0; n > 0) {
            out.append(text.substr(i, n));
            i += n;
        } else {
            if (c == '\n') out += "\\n";
            else if (c == '\r') out += "\\r";
            else if (c == '\t') out += "\\t";
            else out += fmt::format("\\x{:02x}", c);
            ++i;
        }
    }
    return out;
}

std::string terminal_text(std::string_view text) { return printable(text, std::string::npos); }

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
                fmt::print("{}\n", Json{{"error", Json::parse(error_json(usage_error(e.what())))}}.dump(2, ' ', false, Json::error_handler_t::replace));
                break;
            }
        return exit_usage;
    }
    for (auto& verb : verbs)
        if (verb.command->parsed()) return verb.run();
    return exit_usage;
}
