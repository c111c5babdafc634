// libFuzzer target for VDrift JPK packs (docs/fuzzing.md): parse_jpk must only promise ranges
// inside the input; a "PACK.jpk:MEMBER" input reads the member VDrift would; extract_jpk into a
// per-process scratch folder writes exactly the members it names and nothing outside its folder,
// or nothing at all when it fails; the extracted folder packs again (collect_jpk_members +
// write_jpk) into a pack with the same members.
#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "fuzz_common.hpp"
#include "rigport/jpk.hpp"

namespace {

bool same(std::span<const uint8_t> a, std::span<const uint8_t> b) { return std::equal(a.begin(), a.end(), b.begin(), b.end()); }

// Every file under dir, relative, with '/'.
std::vector<std::string> files_under(const fuzz::fs::path& dir) {
    std::vector<std::string> out;
    std::error_code ec;
    for (auto it = fuzz::fs::recursive_directory_iterator(dir, ec); !ec && it != fuzz::fs::recursive_directory_iterator(); it.increment(ec))
        if (!it->is_directory()) out.push_back(fuzz::fs::relative(it->path(), dir).generic_string());
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const fuzz::Scratch scratch("jpk");
    std::span<const uint8_t> bytes(data, size);
    auto pack = rigport::parse_jpk(bytes, 1u << 16);
    if (!pack) {
        fuzz::check_error(pack.error(), "parse_jpk");
        return 0;
    }
    for (auto& e : pack->entries) {
        if (e.offset > size || e.length > size - e.offset) fuzz::fail("parse_jpk promised a range beyond the input");
        const rigport::JpkEntry* found = rigport::find_jpk_member(*pack, e.name);
        if (!found || found->overridden || found->name != e.name) fuzz::fail("find_jpk_member missed a member");
    }
    // Extraction writes one file per member: a few dozen keep each run fast.
    if (pack->entries.size() > 32) return 0;

    scratch.clear();
    const fuzz::fs::path pack_path = scratch.dir() / "p.jpk";
    const fuzz::fs::path out = scratch.dir() / "out";
    scratch.write(pack_path, bytes);
    for (auto& e : pack->entries) {
        if (e.overridden || e.name.empty() || e.name.find('\0') != std::string::npos) continue;
        auto member = rigport::read_input(pack_path.string() + ":" + e.name);
        if (member && !same(*member, rigport::jpk_member_bytes(bytes, e))) fuzz::fail("read_input PACK.jpk:MEMBER read another member");
        break;
    }

    auto written = rigport::extract_jpk(bytes, out.string());
    std::vector<std::string> outside = files_under(scratch.dir());
    outside.erase(std::remove_if(outside.begin(), outside.end(), [](const std::string& n) { return n == "p.jpk" || n.rfind("out/", 0) == 0; }),
                  outside.end());
    if (!outside.empty()) fuzz::fail("extract_jpk wrote outside its folder: " + outside.front());
    const std::vector<std::string> files = files_under(out);
    if (!written) {
        fuzz::check_error(written.error(), "extract_jpk");
        if (!files.empty()) fuzz::fail("extract_jpk failed but wrote " + files.front(), &written.error());
        return 0;
    }
    std::vector<std::string> names = *written;
    std::sort(names.begin(), names.end());
    if (names != files) fuzz::fail("extract_jpk: the files written differ from the names it returned");
    for (auto& name : names) {
        auto on_disk = rigport::read_file((out / name).string());
        const rigport::JpkEntry* e = rigport::find_jpk_member(*pack, name);
        if (!on_disk || !e || !same(*on_disk, rigport::jpk_member_bytes(bytes, *e))) fuzz::fail("extracted member differs: " + name);
    }

    auto members = rigport::collect_jpk_members(out.string());
    if (!members) fuzz::fail("collect_jpk_members refused what extract_jpk wrote", &members.error());
    auto repacked = rigport::write_jpk(*members);
    if (!repacked) fuzz::fail("write_jpk refused what extract_jpk wrote", &repacked.error());
    auto again = rigport::parse_jpk(*repacked);
    if (!again) fuzz::fail("write_jpk wrote a pack parse_jpk refuses", &again.error());
    if (again->entries.size() != members->size()) fuzz::fail("repacked pack has another member count");
    for (size_t i = 0; i < members->size(); ++i)
        if (again->entries[i].name != (*members)[i].name ||
            !same(rigport::jpk_member_bytes(*repacked, again->entries[i]), (*members)[i].bytes))
            fuzz::fail("repacked member differs: " + (*members)[i].name);
    return 0;
}
