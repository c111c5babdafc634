// The build files of docs/cli.md "Build systems": a Make and Ninja depfile, and the dependency
// lines Ninja's deps = msvc reads (`rigport convert --depfile`, `--ninja-deps`).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <string_view>

#include "rigport/batch.hpp"

namespace rigport {

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

}  // namespace rigport
