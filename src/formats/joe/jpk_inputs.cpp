// A JPK pack where a model or a file is expected (docs/joe.md §7): a member read by name for
// "PACK.jpk:MEMBER" inputs, a pack's listing for `rigport info`, and what to say when a pack is given
// where a model is expected. The registry's archive row points here.
#include <fmt/format.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "support/excerpt.hpp"
#include "formats/joe/joe.hpp"
#include "rigport/formats.hpp"
#include "rigport/jpk.hpp"
#include "rigport/report.hpp"

namespace rigport {

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

namespace joe {

Expected<std::vector<uint8_t>> jpk_read_member(std::span<const uint8_t> pack_bytes, const std::string& member) {
    auto pack = parse_jpk(pack_bytes);
    if (!pack) return pack.error();
    const JpkEntry* entry = find_jpk_member(*pack, member);
    if (!entry) return make_error(ErrorCode::NotFound, fmt::format("no member '{}' in the pack ({} entries)", member, pack->entries.size()));
    auto span = jpk_member_bytes(pack_bytes, *entry);
    return std::vector<uint8_t>(span.begin(), span.end());
}

std::string jpk_not_a_model_text(std::span<const uint8_t> pack_bytes, const std::string& path) {
    if (!detect_jpk(pack_bytes)) return {};
    auto pack = parse_jpk(pack_bytes);
    return pack ? jpk_not_a_model(*pack, path) : std::string();
}

}  // namespace joe

}  // namespace rigport
