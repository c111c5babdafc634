// rigport: the command-line tool (`rigport <verb>`), argument dispatch and the shared helpers.
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <utility>
#include <vector>

#include "cli.hpp"

namespace rigport::cli {

void print_error(std::string_view message) { fmt::print(stderr, "Error: {}\n", terminal_text(message)); }
void print_warning(std::string_view message) { fmt::print(stderr, "Warning: {}\n", terminal_text(message)); }

void print_warnings(const Warnings& warnings) {
    for (auto& line : warning_lines(warnings.items)) print_warning(line.text);
}

std::string companions_line(const std::string& model, const std::vector<std::string>& companions) {
    if (companions.empty()) return {};
    std::string files;
    for (auto& c : companions) files += (files.empty() ? "" : ", ") + c;
    return terminal_text(fmt::format("{}: with {} companion file{}: {} (--no-companions reads it alone)", model, companions.size(),
                                     companions.size() == 1 ? "" : "s", files));
}

void print_companions(const std::string& model, const std::vector<std::string>& companions) {
    if (!companions.empty()) fmt::print(stderr, "{}\n", companions_line(model, companions));
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

Status TextureFlags::check() const {
    for (auto& dir : paths) {
        std::error_code ec;
        if (dir.empty() || !std::filesystem::is_directory(dir, ec))
            return usage_error(fmt::format("--texture-path '{}': {}", printable(dir),
                                           std::filesystem::exists(dir, ec) ? "not a folder" : "no such folder"));
    }
    return Ok{};
}

Expected<CacheOptions> CacheFlags::options() const {
    CacheOptions o;
    o.dir = dir;
    if (o.dir.empty())
        if (const char* env = std::getenv("RIGPORT_CACHE"); env && *env) o.dir = env;
    if (max.empty()) return o;
    if (o.dir.empty()) return usage_error("--cache-max limits a cache: give --cache DIR (or set RIGPORT_CACHE)");
    uint64_t value = 0;
    auto [end, ec] = std::from_chars(max.data(), max.data() + max.size(), value);
    const std::string_view suffix(end, max.data() + max.size());
    unsigned shift = 0;
    if (suffix == "K" || suffix == "k") shift = 10;
    else if (suffix == "M" || suffix == "m") shift = 20;
    else if (suffix == "G" || suffix == "g") shift = 30;
    else if (suffix == "T" || suffix == "t") shift = 40;
    else if (!suffix.empty()) ec = std::errc::invalid_argument;
    if (ec != std::errc() || end == max.data() || value == 0 || value > (UINT64_MAX >> shift))
        return usage_error(fmt::format("--cache-max '{}': expected a size in bytes above 0, or with K, M, G or T (500M)", printable(max)));
    o.max_bytes = value << shift;
    return o;
}

const FormatInfo* choose_output_format(const std::string& path, const std::string& format_name, int& exit_code) {
    auto f = find_output_format(path, format_name, output_format_names());
    if (!f) {
        print_error(f.error().to_string());
        exit_code = write_exit_code(f.error());
        return nullptr;
    }
    return *f;
}

std::string printable(std::string_view text, size_t max_chars) { return printable_text(text, max_chars); }

std::string terminal_text(std::string_view text) { return printable_text(text); }

}  // namespace rigport::cli

int main(int argc, char** argv) {
    using namespace rigport::cli;
    CLI::App app{"rigport: read, validate, convert and write game model formats", "rigport"};
    app.set_version_flag("--version", "rigport " RIGPORT_VERSION_STRING);
    app.require_subcommand(1);
    // The formats from the registry, never a list kept here; made only when help is printed.
    app.footer([] { return formats_help() + "\nExit codes: 0 ok, 1 usage, 2 read error, 3 unsupported, 4 write error, 5 validation failed."; });

    // A run names its verb first: only that verb's options are built (building all nine is
    // about a fifth of a small run; docs/speed.md "FBX read against ufbx"). Anything else (--help,
    // --version, a mistyped verb) gets all of them, for the full help and the nearest verb.
    using AddVerb = Verb (*)(CLI::App&);
    static constexpr std::pair<const char*, AddVerb> all_verbs[] = {
        {"info", add_info},   {"validate", add_validate}, {"convert", add_convert}, {"sample", add_sample}, {"formats", add_formats},
        {"pack", add_pack},   {"batch", add_batch},       {"render", add_render},   {"view", add_view},       {"targets", add_targets},
        {"check", add_check}, {"retarget", add_retarget}};
    std::vector<Verb> verbs;
    for (const auto& [name, add] : all_verbs)
        if (argc > 1 && std::strcmp(argv[1], name) == 0) verbs.push_back(add(app));
    if (verbs.empty())
        for (const auto& [name, add] : all_verbs) verbs.push_back(add(app));

    // A usage error: on stderr, and with --json on stdout too for the verbs that have it.
    auto usage_failure = [&](const std::string& message) {
        fmt::print(stderr, "Error: {}\nRun 'rigport --help' or 'rigport <verb> --help' for usage.\n", terminal_text(message));
        const bool json_verb = argc > 1 && (std::strcmp(argv[1], "convert") == 0 || std::strcmp(argv[1], "info") == 0 ||
                                            std::strcmp(argv[1], "validate") == 0 || std::strcmp(argv[1], "check") == 0 ||
                                            std::strcmp(argv[1], "retarget") == 0);
        for (int i = 2; json_verb && i < argc; ++i)
            if (std::strcmp(argv[i], "--json") == 0) {
                fmt::print("{}\n", Json{{"error", Json::parse(error_json(usage_error(message)))}}.dump(2, ' ', false, Json::error_handler_t::replace));
                break;
            }
        return exit_usage;
    };
    // A short option this verb lacks may be another verb's (-j is batch's --jobs): say whose.
    auto elsewhere = [&](const std::string& name) -> std::string {
        if (name.size() != 2) return {};
        CLI::App every{"", "rigport"};
        for (const auto& [verb, add] : all_verbs) add(every);
        std::string owners;
        for (const CLI::App* sub : every.get_subcommands([](const CLI::App*) { return true; }))
            for (const CLI::Option* o : sub->get_options())
                for (auto& s : o->get_snames())
                    if ("-" + s == name)
                        owners += fmt::format("{}'{}' is '{}' of '{}'", owners.empty() ? "" : ", ", name,
                                              o->get_lnames().empty() ? name : "--" + o->get_lnames().front(), sub->get_name());
        return owners;
    };

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        // Help and --version are "errors" with exit code 0 in CLI11; everything else is usage.
        if (e.get_exit_code() == 0) {
            app.exit(e);
            return exit_ok;
        }
        // A word nothing took explains the failure best ("A subcommand is required" for `infos`).
        return usage_failure(unknown_word_message(app, elsewhere).value_or(e.what()));
    }
    // convert takes the words it does not know itself (its inputs): a mistyped option among them
    // is refused here, before any work, as the other verbs' are by the parser.
    if (auto message = unknown_word_message(app, elsewhere)) return usage_failure(*message);
    for (auto& verb : verbs)
        if (verb.command->parsed()) return verb.run();
    return exit_usage;
}
