// VDrift JPK packs (JPK01.00) in memory: parse with every range checked, write as VDrift's readers
// expect (VDrift joepack.cpp, trackeditor joepack; docs/joe.md §7, §9 rules 13-14).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <set>
#include <unordered_map>

#include "support/excerpt.hpp"
#include "model/guarded.hpp"
#include "support/byte_cursor.hpp"
#include "rigport/jpk.hpp"

namespace rigport {

namespace {

constexpr uint64_t jpk_header_size = 16;
Error malformed(uint64_t offset, std::string message) { return make_error(ErrorCode::Malformed, std::move(message), offset); }

}  // namespace

bool detect_jpk(std::span<const uint8_t> bytes) {
    return bytes.size() >= jpk_header_size && std::memcmp(bytes.data(), jpk_signature, sizeof jpk_signature) == 0;
}

static Expected<JpkPack> parse_jpk_unguarded(std::span<const uint8_t> bytes, uint64_t max_entries) {
    if (bytes.size() < jpk_header_size)
        return malformed(bytes.size(), fmt::format("file is {} bytes, a JPK header needs {}", bytes.size(), jpk_header_size));
    if (!detect_jpk(bytes)) return make_error(ErrorCode::UnknownFormat, "not a JPK pack: the file does not start with JPK01.00", 0);
    io::ByteCursor c(bytes, 8);
    JpkPack pack;
    pack.numobjs = c.u32();
    pack.maxstrlen = c.u32();
    if (pack.numobjs > max_entries)
        return make_error(ErrorCode::LimitExceeded, fmt::format("numobjs {} exceeds the limit {}", pack.numobjs, max_entries), 8);
    const uint64_t record = 8 + uint64_t(pack.maxstrlen);
    if (!io::range_fits(jpk_header_size, pack.numobjs, record, bytes.size()))
        return malformed(8, fmt::format("{} FAT entries of {} bytes (maxstrlen {}) do not fit in the {} bytes after the header",
                                        pack.numobjs, record, pack.maxstrlen, bytes.size() - jpk_header_size));
    pack.fat_end = jpk_header_size + pack.numobjs * record;
    pack.data_end = pack.fat_end;
    pack.entries.reserve(pack.numobjs);
    uint64_t garbage = 0;
    for (uint32_t i = 0; i < pack.numobjs; ++i) {
        JpkEntry e;
        e.fat_offset = c.pos();
        e.offset = c.u32();
        e.length = c.u32();
        const uint8_t* slot = bytes.data() + c.pos();
        const size_t len = std::find(slot, slot + pack.maxstrlen, uint8_t(0)) - slot;
        e.name.assign(reinterpret_cast<const char*>(slot), len);
        e.padding_garbage = std::any_of(slot + len, slot + pack.maxstrlen, [](uint8_t b) { return b != 0; });
        garbage += e.padding_garbage;
        c.skip(pack.maxstrlen);
        if (e.name.empty()) return malformed(e.fat_offset + 8, fmt::format("entry {}: empty name", i));
        if (!io::range_fits(e.offset, 1, e.length, bytes.size()))
            return malformed(e.fat_offset, fmt::format("entry {} '{}': offset {} + length {} runs past the end of the {}-byte file", i,
                                                       detail::excerpt(e.name, 80), e.offset, e.length, bytes.size()));
        if (e.length > 0 && e.offset < pack.fat_end)
            return malformed(e.fat_offset, fmt::format("entry {} '{}': offset {} points into the header or FAT (which ends at {})", i,
                                                       detail::excerpt(e.name, 80), e.offset, pack.fat_end));
        pack.data_end = std::max(pack.data_end, e.offset + e.length);
        pack.entries.push_back(std::move(e));
    }
    // Duplicates: VDrift's map keeps the last entry of a name.
    std::unordered_map<std::string, size_t> last;
    for (size_t i = 0; i < pack.entries.size(); ++i) {
        auto [it, added] = last.try_emplace(pack.entries[i].name, i);
        if (!added) {
            pack.entries[it->second].overridden = true;
            pack.warnings.add(WarningCode::ArchiveLayout, fmt::format("duplicate name '{}': the later entry wins, as in VDrift", detail::excerpt(pack.entries[i].name, 80)),
                              pack.entries[i].fat_offset);
            it->second = i;
        }
    }
    if (garbage) {
        pack.warnings.add(WarningCode::ArchiveLayout, "name slots with bytes after the NUL (trackeditor joepack's uninitialised padding; ignored)");
        pack.warnings.items.back().count = uint32_t(garbage);
    }
    // Members normally follow each other in FAT order; report overlaps (a hand-made pack).
    std::vector<const JpkEntry*> by_offset;
    for (auto& e : pack.entries)
        if (e.length > 0) by_offset.push_back(&e);
    std::sort(by_offset.begin(), by_offset.end(), [](auto* a, auto* b) { return a->offset < b->offset; });
    for (size_t i = 1; i < by_offset.size(); ++i)
        if (by_offset[i]->offset < by_offset[i - 1]->offset + by_offset[i - 1]->length)
            pack.warnings.add(WarningCode::ArchiveLayout,
                              fmt::format("members '{}' and '{}' overlap", detail::excerpt(by_offset[i - 1]->name, 80), detail::excerpt(by_offset[i]->name, 80)),
                              by_offset[i]->fat_offset);
    pack.trailing_bytes = bytes.size() - pack.data_end;
    if (pack.trailing_bytes)
        pack.warnings.add(WarningCode::ArchiveLayout,
                          fmt::format("{} bytes after the last member (stale data of a pack rewritten in place; ignored)", pack.trailing_bytes),
                          pack.data_end);
    return pack;
}

Expected<JpkPack> parse_jpk(std::span<const uint8_t> bytes, uint64_t max_entries) {
    return detail::guarded(std::string(), "reading", [&] { return parse_jpk_unguarded(bytes, max_entries); });
}

const JpkEntry* find_jpk_member(const JpkPack& pack, std::string_view name) {
    for (size_t i = pack.entries.size(); i-- > 0;)
        if (pack.entries[i].name == name) return &pack.entries[i];
    return nullptr;
}

bool jpk_name_is_safe(std::string_view name) {
    if (name.empty() || name.front() == '/') return false;
    if (name.find('\\') != std::string_view::npos || name.find('\0') != std::string_view::npos) return false;
    if (name.size() >= 2 && name[1] == ':' && std::isalpha(static_cast<unsigned char>(name[0]))) return false;  // C:...
    size_t from = 0;
    while (from <= name.size()) {
        size_t slash = name.find('/', from);
        if (slash == std::string_view::npos) slash = name.size();
        const std::string_view part = name.substr(from, slash - from);
        if (part.empty() || part == "." || part == "..") return false;
        from = slash + 1;
    }
    return true;
}

std::optional<std::pair<std::string, std::string>> split_jpk_member_path(const std::string& path) {
    std::string lower = path;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char ch) { return char(std::tolower(ch)); });
    // The last ".jpk:" splits, so a folder called "x.jpk:" further up still works.
    const size_t at = lower.rfind(".jpk:");
    if (at == std::string::npos || at + 5 >= path.size()) return std::nullopt;
    return std::make_pair(path.substr(0, at + 4), path.substr(at + 5));
}

static Expected<std::vector<uint8_t>> write_jpk_unguarded(std::span<const JpkMember> members) {
    std::set<std::string_view> names;
    uint64_t maxstrlen = 0, total = 0;
    for (size_t i = 0; i < members.size(); ++i) {
        const std::string& n = members[i].name;
        if (!jpk_name_is_safe(n))
            return make_error(ErrorCode::InvalidArgument, fmt::format("member {} '{}': not a safe relative name", i, n));
        if (!names.insert(n).second) return make_error(ErrorCode::InvalidArgument, fmt::format("member name '{}' given twice", n));
        maxstrlen = std::max<uint64_t>(maxstrlen, n.size());
        total += members[i].bytes.size();
    }
    const uint64_t fat_end = jpk_header_size + members.size() * (8 + maxstrlen);
    if (members.size() > UINT32_MAX || fat_end + total > UINT32_MAX)
        return make_error(ErrorCode::Unsupported, fmt::format("{} members of {} bytes: JPK offsets are u32 (4 GiB at most)", members.size(), total));
    io::ByteWriter w;
    w.bytes(jpk_signature, sizeof jpk_signature);
    w.u32(uint32_t(members.size()));
    w.u32(uint32_t(maxstrlen));
    uint64_t offset = fat_end;
    for (auto& m : members) {
        w.u32(uint32_t(offset));
        w.u32(uint32_t(m.bytes.size()));
        w.bytes(m.name.data(), m.name.size());
        for (size_t k = m.name.size(); k < maxstrlen; ++k) w.u8(0);
        offset += m.bytes.size();
    }
    for (auto& m : members) w.bytes(m.bytes.data(), m.bytes.size());
    return std::move(w.bytes());
}

Expected<std::vector<uint8_t>> write_jpk(std::span<const JpkMember> members) {
    return detail::guarded(std::string(), "writing", [&] { return write_jpk_unguarded(members); });
}

}  // namespace rigport
