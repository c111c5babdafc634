// One model converted as `rigport convert` does it (the library's run_conversion) with the CLI's
// exit codes; the depfile and the JSON record of a model.
#include "convert_model.hpp"

#include <algorithm>
#include <cctype>
#include <string_view>
#include <filesystem>
#include <optional>

namespace rigport::cli {

ModelResult convert_model(const ModelJob& job, const ModelOptions& options) {
    ModelResult r{run_conversion(job, options)};
    if (r.error) r.exit_code = r.write_error ? write_exit_code(*r.error) : read_exit_code(*r.error);
    return r;
}

std::string path_identity(const std::string& path) {
    std::error_code ec;
    std::filesystem::path p = std::filesystem::weakly_canonical(path, ec);
    if (ec) p = std::filesystem::absolute(path, ec).lexically_normal();
    return p.string();
}

namespace {

// Why GNU Make and Ninja's depfile reader cannot both read `path` back as it is, or nothing. The
// rules were found by writing depfiles and reading them with GNU Make 4.3 (`-include`) and Ninja
// 1.11 (`ninja -t deps`), docs/cli.md "Build systems":
// - Ninja takes letters, digits, bytes >= 0x80 and + , / _ : . ~ ( ) { } % = @ [ ] ! - as they
//   are; a space and '#' after a backslash, '$' as "$$", ':' as "\:". Every other byte ends the
//   name there, and a backslash before it stays: there is no escape for it.
// - Make reads '=' as a variable assignment and ';' as the start of a recipe (neither has an
//   escape), "[...]" as a wildcard (the files it matches replace the name), "A(B)" as a member
//   of an archive, a leading '~' as a home folder, '%' in a target as a pattern rule, and drops a
//   trailing space even after a backslash.
// - A backslash right before '#', ':' or '$' (or at the end) is counted differently by the two.
std::optional<std::string> depfile_refusal(const std::string& path, bool target) {
    for (size_t i = 0; i < path.size(); ++i) {
        const unsigned char c = static_cast<unsigned char>(path[i]);
        if (c == '\n' || c == '\r') return std::string("a line break ends the rule for Make and Ninja alike");
        if (c < 0x20 || c == 0x7f) return fmt::format("Ninja's depfile reader has no escape for the control character 0x{:02x}", c);
        if (c == ';') return std::string("';' starts a recipe in Make, and Ninja's depfile reader has no escape for it");
        if (std::string_view("|&'*?<>\"`^").find(char(c)) != std::string_view::npos) return fmt::format("Ninja's depfile reader has no escape for '{}'", char(c));
        if (c == '=') return std::string("Make reads a name with '=' as a variable assignment");
        if (c == '%' && target) return std::string("Make reads a target with '%' as a pattern rule");
        if (c == '\\' && (i + 1 == path.size() || std::string_view("#:$").find(path[i + 1]) != std::string_view::npos))
            return std::string("Make and Ninja count a backslash before '#', ':' or '$' (or at the end) differently");
        if (c == '[' && path.find(']', i) != std::string::npos) return std::string("Make reads '[...]' as a wildcard pattern");
    }
    if (!path.empty() && path.back() == ' ') return std::string("Make drops a space at the end of a name");
    if (!path.empty() && path.back() == ':') return std::string("Ninja reads a name ending in ':' as a target");
    if (!path.empty() && path.front() == '~') return std::string("Make reads a leading '~' as a home folder");
    // Make's archive member test: a '(' after the first byte, and a ')' at the end that is not right after it.
    if (const size_t open = path.find('('); open != std::string::npos && open > 0 && path.back() == ')' && open + 2 < path.size())
        return std::string("Make reads 'NAME(MEMBER)' as a member of an archive");
    return std::nullopt;
}

// Escaped as both read it, once depfile_refusal has nothing against it: a space or '#' gets a
// backslash, and the backslashes right before a space are doubled; '$' is "$$"; ':' is "\:".
std::string depfile_escape(const std::string& path) {
    std::string out;
    size_t backslashes = 0;
    for (char c : path) {
        if (c == ' ' || c == '#') {
            out.append(backslashes, '\\');  // each run of backslashes before it doubled
            out += '\\';
        } else if (c == ':') {
            out += '\\';
        } else if (c == '$') {
            out += '$';
        }
        backslashes = c == '\\' ? backslashes + 1 : 0;
        out += c;
    }
    return out;
}

Error unlistable(const std::string& file, const std::string& where, const std::string& why) {
    // {:?} shows the name quoted with its control characters escaped: a line break in it cannot
    // start a line of its own on the terminal either.
    return make_error(ErrorCode::WriteFailed, fmt::format("cannot list {:?} {}: {}", file, where, why));
}

}  // namespace

Expected<std::string> make_depfile(const std::string& depfile, const std::string& target, const std::vector<std::string>& dependencies) {
    auto refuse = [&](const std::string& file, const std::string& why) {
        Error e = unlistable(file, "as a Make and Ninja depfile name", why + " (batch --ninja takes any name but a line break; docs/cli.md \"Build systems\")");
        e.path = depfile;
        return e;
    };
    if (auto why = depfile_refusal(target, true)) return refuse(target, *why);
    std::string text = depfile_escape(target) + ":";
    for (auto& d : dependencies) {
        if (auto why = depfile_refusal(d, false)) return refuse(d, *why);
        text += " \\\n  " + depfile_escape(d);
    }
    return text + "\n";
}

bool ninja_msvc_drops(const std::string& path) {
    std::string lower = path;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return lower.find("program files") != std::string::npos || lower.find("microsoft visual studio") != std::string::npos;
}

Expected<std::string> ninja_deps_lines(const std::vector<std::string>& files) {
    std::string text;
    for (auto& f : files) {
        if (f.find_first_of("\r\n") != std::string::npos)
            return unlistable(f, "for Ninja", "a line break ends the line Ninja reads (docs/cli.md \"Build systems\")");
        if (ninja_msvc_drops(f))
            return unlistable(f, "for Ninja",
                              "Ninja's deps = msvc does not record a path containing 'program files' or 'microsoft visual studio' "
                              "(use --depfile for this model; docs/cli.md \"Build systems\")");
        // Ninja skips the spaces after the prefix; "./" keeps a name's own (Ninja removes the "./").
        text += fmt::format("{} {}{}\n", ninja_deps_prefix, !f.empty() && f.front() == ' ' ? "./" : "", f);
    }
    return text;
}

void append_warnings(const ModelResult& result, std::string& text, const WarningLimit& limit) {
    std::vector<WarningLine> lines;
    auto add = [&](const Warnings& warnings) {
        if (limit.every_warning)
            for (auto& w : warnings.items) lines.push_back({warning_text(w), 1});
        else
            for (auto& line : warning_lines(warnings.items)) lines.push_back(std::move(line));
    };
    add(result.read_warnings);
    for (auto& s : result.normal_swaps) lines.push_back({s, 1});
    if (result.ok()) add(result.write_warnings);
    size_t shown = lines.size();
    if (!limit.every_warning && lines.size() > limit.max_lines) shown = limit.max_lines > 0 ? limit.max_lines - 1 : 0;
    for (size_t i = 0; i < shown; ++i) text += fmt::format("Warning: {}\n", terminal_text(lines[i].text));
    size_t more = 0;
    for (size_t i = shown; i < lines.size(); ++i) more += lines[i].warnings;
    if (more > 0) text += fmt::format("Warning: {} more warning{} ({})\n", more, more == 1 ? "" : "s", limit.hint);
}

Json model_record(const std::string& input, const ModelResult& r) { return Json::parse(conversion_json(input, r)); }

}  // namespace rigport::cli
