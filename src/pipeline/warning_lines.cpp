// Warnings as the lines a person reads (include/rigport/report.hpp, docs/cli.md "Warnings"): the
// warnings of one code and file whose messages differ only in their quoted names and numbers
// (one per material, mesh or value) folded into one line with a count.
#include <fmt/format.h>

#include <algorithm>
#include <string_view>
#include <unordered_map>

#include "rigport/report.hpp"

namespace rigport {

namespace {

// A message split into its wording and its items: each quoted 'name', each file path and each
// number becomes a placeholder in `wording`, its text one of `items` (`quoted` says which are names).
struct Shape {
    std::string wording;
    std::vector<std::string_view> items;
    std::vector<bool> quoted;
};

bool is_digit(char c) { return c >= '0' && c <= '9'; }

Shape shape_of(std::string_view message) {
    Shape s;
    for (size_t i = 0; i < message.size();) {
        const char c = message[i];
        if (c == '\'') {
            const size_t close = message.find('\'', i + 1);
            if (close != std::string_view::npos) {
                s.items.push_back(message.substr(i, close + 1 - i));
                s.quoted.push_back(true);
                s.wording += "'\x01'";
                i = close + 1;
                continue;
            }
        }
        if (c == '/' && (i == 0 || message[i - 1] == ' ' || message[i - 1] == '(')) {  // an absolute path, to a space or ); ,
            size_t end = i + 1;
            while (end < message.size() && std::string_view(" );,").find(message[end]) == std::string_view::npos) ++end;
            s.items.push_back(message.substr(i, end - i));
            s.quoted.push_back(false);
            s.wording += '\x02';
            i = end;
            continue;
        }
        if (is_digit(c)) {
            size_t end = i + 1;
            while (end < message.size() && (is_digit(message[end]) || (message[end] == '.' && end + 1 < message.size() && is_digit(message[end + 1])))) ++end;
            s.items.push_back(message.substr(i, end - i));
            s.quoted.push_back(false);
            s.wording += '\x03';
            i = end;
            continue;
        }
        s.wording += c;
        ++i;
    }
    return s;
}

std::string where_and_code(const Warning& w) {
    std::string where = w.path;
    if (w.offset) where += where.empty() ? fmt::format("offset {}", *w.offset) : fmt::format(": offset {}", *w.offset);
    return fmt::format("{}{}{}: ", where, where.empty() ? "" : ": ", to_string(w.code));
}

}  // namespace

std::string warning_text(const Warning& warning) {
    // "path: offset N: code: message": where first, as errors are printed.
    std::string text = where_and_code(warning) + warning.message;
    if (warning.count > 1) text += fmt::format(" ({} times)", warning.count);
    return text;
}

std::vector<WarningLine> warning_lines(std::span<const Warning> warnings) {
    struct Group {
        std::vector<size_t> members;  // indexes into warnings, first one first
        Shape first;
    };
    std::vector<Group> groups;
    std::unordered_map<std::string, size_t> by_key;  // code, path and wording -> group
    for (size_t i = 0; i < warnings.size(); ++i) {
        const Warning& w = warnings[i];
        Shape shape = shape_of(w.message);
        std::string key = fmt::format("{}\x04{}\x04{}", int(w.code), w.path, shape.wording);
        auto [it, added] = by_key.try_emplace(std::move(key), groups.size());
        if (added) groups.push_back(Group{{}, std::move(shape)});
        groups[it->second].members.push_back(i);
    }
    std::vector<WarningLine> lines;
    lines.reserve(groups.size());
    for (const Group& g : groups) {
        const Warning& first = warnings[g.members.front()];
        if (g.members.size() == 1) {
            lines.push_back({warning_text(first), 1});
            continue;
        }
        // The items that differ from the first warning's name the others: the quoted names when
        // some of them differ ('Zahn', not "mesh 10 'Zahn'"), else the numbers and paths.
        std::vector<bool> varies(g.first.items.size(), false);
        std::vector<Shape> shapes;
        uint64_t times = 0;
        for (size_t m : g.members) {
            times += warnings[m].count;
            shapes.push_back(shape_of(warnings[m].message));
            for (size_t k = 0; k < varies.size(); ++k) varies[k] = varies[k] || shapes.back().items[k] != g.first.items[k];
        }
        bool names_vary = false;
        for (size_t k = 0; k < varies.size(); ++k) names_vary = names_vary || (varies[k] && g.first.quoted[k]);
        if (names_vary)
            for (size_t k = 0; k < varies.size(); ++k) varies[k] = varies[k] && g.first.quoted[k];
        // Each other warning by its items ("'mesh1' 'Green.png'"), parted by ", " or, when an item
        // of several names one, by "; ".
        constexpr size_t shown = 3;
        const char* part = std::count(varies.begin(), varies.end(), true) > 1 ? "; " : ", ";
        std::string also;
        for (size_t s = 1; s < shapes.size() && s <= shown; ++s) {
            std::string subject;
            for (size_t k = 0; k < varies.size(); ++k)
                if (varies[k]) subject += fmt::format("{}{}", subject.empty() ? "" : " ", shapes[s].items[k]);
            also += fmt::format("{}{}", s > 1 ? part : "", subject);
        }
        if (shapes.size() - 1 > shown) also += fmt::format(" and {} more", shapes.size() - 1 - shown);
        lines.push_back({fmt::format("{}{} ({} times; also {})", where_and_code(first), first.message, times, also), g.members.size()});
    }
    return lines;
}

}  // namespace rigport
