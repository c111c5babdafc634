// What an input path reads, looked at on disk: the pack behind "PACK.jpk:MEMBER", a JPK pack's
// listing (rigport/convert.hpp input_file, rigport/report.hpp read_pack_listing), and what to say
// when a pack is given where a model is expected (rigport/jpk.hpp jpk_not_a_model).
#include <fmt/format.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/excerpt.hpp"
#include "rigport/convert.hpp"
#include "rigport/formats.hpp"
#include "rigport/jpk.hpp"
#include "rigport/report.hpp"

namespace rigport {

std::string input_file(const std::string& path) {
    std::error_code ec;
    if (auto split = split_jpk_member_path(path); split && !std::filesystem::exists(path, ec)) return split->first;
    return path;
}

std::optional<Expected<JpkPack>> read_pack_listing(const std::string& path) {
    // The signature first: a model is not read twice to find it is not a pack. Only a regular
    // file is opened (a named pipe would block).
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
    char head[sizeof(jpk_signature)] = {};
    std::ifstream(path, std::ios::binary).read(head, sizeof(head));
    if (std::memcmp(head, jpk_signature, sizeof(head)) != 0) return std::nullopt;
    auto bytes = read_file(path);
    if (!bytes || !detect_jpk(*bytes)) return std::nullopt;
    auto pack = parse_jpk(*bytes);
    if (!pack) pack.error().path = path;
    return pack;
}

std::string jpk_not_a_model(const JpkPack& pack, const std::string& path, size_t max_names) {
    // The members VDrift reads (the last of duplicates), in FAT order; the example is the first
    // one a registered reader takes by its extension, else the first member.
    std::vector<const JpkEntry*> members;
    for (auto& e : pack.entries)
        if (!e.overridden) members.push_back(&e);
    const JpkEntry* example = members.empty() ? nullptr : members.front();
    for (auto* e : members)
        if (const FormatInfo* f = find_format_by_extension(e->name); f && f->read) {
            example = e;
            break;
        }
    std::string text = fmt::format("a VDrift JPK pack, not a model: name one of its members as {}:MEMBER", path);
    if (!example) return text + " (the pack has no members)";
    text += fmt::format(", e.g. {}:{}; {} member{}: ", path, detail::excerpt(example->name, 80), members.size(), members.size() == 1 ? "" : "s");
    for (size_t i = 0; i < members.size() && i < max_names; ++i) text += (i ? ", " : "") + detail::excerpt(members[i]->name, 80);
    if (members.size() > max_names)
        text += fmt::format(" and {} more (`rigport pack list {}` lists them all)", members.size() - max_names, path);
    return text;
}

}  // namespace rigport
