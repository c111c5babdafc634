// What the CLI says about a word it cannot place (a mistyped verb or option, docs/cli.md "Unknown
// words"), and the format lists its help prints, both from what is registered rather than kept by hand.
#include <algorithm>
#include <cctype>
#include <vector>

#include "cli.hpp"

namespace rigport::cli {

size_t edit_distance(std::string_view a, std::string_view b) {
    // Optimal string alignment: insertions, deletions, substitutions and swaps of two neighbours
    // ("fromat" -> "format") each count 1. Three rows of the table are enough.
    std::vector<size_t> before(b.size() + 1), previous(b.size() + 1), current(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) previous[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        current[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) current[j] = std::min(current[j], before[j - 2] + 1);
        }
        std::swap(before, previous);
        std::swap(previous, current);
    }
    return previous[b.size()];
}

std::string closest_name(std::string_view word, const std::vector<std::string>& names) {
    // Nearest by edit distance, within a third of the name's length (at least 1, at most 3), the
    // first of equals in the order given; else the one name the word begins (--conv ->
    // --convert-images).
    std::string best;
    size_t best_distance = SIZE_MAX;
    for (auto& name : names) {
        const size_t limit = std::clamp<size_t>(name.size() / 3, 1, 3);
        const size_t d = edit_distance(word, name);
        if (d <= limit && d < best_distance) {
            best = name;
            best_distance = d;
        }
    }
    if (!best.empty() || word.size() < 2) return best;
    std::string only;
    for (auto& name : names)
        if (name.size() > word.size() && name.compare(0, word.size(), word) == 0) {
            if (!only.empty()) return {};
            only = name;
        }
    return only;
}

namespace {

// "-x", "--name", "--name=value"; not "-", "--", nor a negative number ("-1", "-.5").
bool looks_like_option(const std::string& word) {
    if (word.size() < 2 || word[0] != '-' || word == "--") return false;
    const unsigned char c = static_cast<unsigned char>(word[1]);
    return !std::isdigit(c) && c != '.';
}

std::vector<std::string> option_names(const CLI::App& command) {
    std::vector<std::string> names;
    for (const CLI::Option* o : command.get_options()) {
        for (auto& l : o->get_lnames()) names.push_back("--" + l);
        for (auto& s : o->get_snames()) names.push_back("-" + s);
    }
    return names;
}

// "convert", "pack list": the words that lead to the command.
std::string command_path(const CLI::App& command) {
    std::string path = command.get_name();
    for (const CLI::App* p = command.get_parent(); p && p->get_parent(); p = p->get_parent()) path = p->get_name() + " " + path;
    return path;
}

}  // namespace

std::optional<std::string> unknown_word_message(const CLI::App& app, const std::function<std::string(const std::string&)>& elsewhere) {
    // From the top down the commands given: each one's words that nothing took, in order.
    std::vector<const CLI::App*> chain{&app};
    while (true) {
        const auto parsed = chain.back()->get_subcommands();
        if (parsed.empty()) break;
        chain.push_back(parsed.front());
    }
    for (const CLI::App* command : chain) {
        const bool top = command == &app;
        // convert reads its inputs and the per-file options before each itself (cmd_convert.cpp).
        const bool convert = command->get_name() == "convert" && command->get_parent() == &app;
        static const std::vector<std::string> per_file_values = {"--name", "--fps", "--start", "--end"};
        const std::vector<std::string> words = command->remaining();
        for (size_t i = 0; i < words.size(); ++i) {
            const std::string& word = words[i];
            if (convert && std::find(per_file_values.begin(), per_file_values.end(), word) != per_file_values.end()) {
                ++i;  // its value, whatever it looks like (--end -1)
                continue;
            }
            if (convert && word == "--loop") continue;
            if (!looks_like_option(word)) {
                // A word where a command was due: the top level, or `pack` before list/extract/create.
                if (command != chain.back() || command->get_require_subcommand_min() == 0) continue;
                std::vector<std::string> commands;
                for (const CLI::App* sub : command->get_subcommands([](const CLI::App*) { return true; })) commands.push_back(sub->get_name());
                const std::string where = top ? "command" : fmt::format("'{}' command", command_path(*command));
                const std::string near = closest_name(word, commands);
                if (!near.empty()) return fmt::format("unknown {} '{}'; did you mean '{}'?", where, word, near);
                std::string list;
                for (auto& c : commands) list += (list.empty() ? "" : ", ") + c;
                return fmt::format("unknown {} '{}'; the commands are: {}", where, word, list);
            }
            // The names are gathered only now: a run without a stray option pays nothing for them.
            std::vector<std::string> names = option_names(*command);
            if (convert) {
                names.insert(names.end(), per_file_values.begin(), per_file_values.end());
                names.push_back("--loop");
            }
            const std::string name = word.substr(0, word.find('='));
            if (std::find(names.begin(), names.end(), name) != names.end()) continue;
            const std::string of = top ? "" : fmt::format(" for '{}'", command_path(*command));
            // A single letter is one typo away from every other: no guess, but where it belongs.
            const bool letter = name.size() == 2;
            const std::string near = letter ? std::string() : closest_name(name, names);
            if (!near.empty()) return fmt::format("unknown option '{}'{}; did you mean '{}'?", name, of, near);
            const std::string other = elsewhere ? elsewhere(name) : std::string();
            if (!other.empty()) return fmt::format("unknown option '{}'{} ({})", name, of, other);
            return fmt::format("unknown option '{}'{}; 'rigport {}--help' lists the options", name, of, top ? "" : command_path(*command) + " ");
        }
    }
    return std::nullopt;
}

std::string format_names(bool writable) {
    std::string names;
    for (auto& f : formats())
        if (writable ? f.write != nullptr : f.read != nullptr) {
            if (!names.empty()) names += ", ";
            names += f.name;
        }
    return names;
}

std::string formats_help() {
    // Grouped by what the registry row can do; a group with no format is left out.
    std::string both, read_only, write_only;
    for (auto& f : formats()) {
        std::string& group = f.read && f.write ? both : f.read ? read_only : write_only;
        if (!f.read && !f.write) continue;
        group += fmt::format("{}{}", group.empty() ? "" : ", ", f.name);
    }
    // Each group's names wrapped at 100 columns under its label.
    auto group_lines = [](std::string_view label, const std::string& names) {
        std::string text = fmt::format("  {:<16}", label), line;
        for (size_t from = 0; from < names.size();) {
            size_t comma = names.find(", ", from);
            const std::string word = names.substr(from, comma == std::string::npos ? std::string::npos : comma + 1 - from);
            if (!line.empty() && 18 + line.size() + 1 + word.size() > 100) {
                text += line + "\n" + std::string(18, ' ');
                line.clear();
            }
            line += (line.empty() ? "" : " ") + word;
            from = comma == std::string::npos ? names.size() : comma + 2;
        }
        return text + line + "\n";
    };
    std::string text = fmt::format("Formats ({} registered; 'rigport formats' shows extensions and what validate checks):\n", formats().size());
    if (!both.empty()) text += group_lines("read and write:", both);
    if (!read_only.empty()) text += group_lines("read only:", read_only);
    if (!write_only.empty()) text += group_lines("write only:", write_only);
    text += "Format names may be written in any letter case (--format GLB). VDrift JPK packs: 'rigport pack'; a member\n"
            "of a pack is read as PACK.jpk:MEMBER.";
    return text;
}

}  // namespace rigport::cli
