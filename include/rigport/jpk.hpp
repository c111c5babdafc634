// VDrift: JPK ("JoePack", JPK01.00) archives and the JOE-specific steps (docs/joe.md §4, §7, §9).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rigport/error.hpp"
#include "rigport/io.hpp"
#include "rigport/scene.hpp"

namespace rigport {

// ---- JPK packs (src/formats/joe/jpk.cpp) ---------------------------------------------------
inline constexpr char jpk_signature[8] = {'J', 'P', 'K', '0', '1', '.', '0', '0'};  // no NUL

struct JpkEntry {
    std::string name;          // the slot up to its first NUL (or the whole slot)
    uint64_t offset = 0;       // absolute, checked: offset + length <= file size
    uint64_t length = 0;
    uint64_t fat_offset = 0;   // where the entry's FAT record sits
    bool padding_garbage = false;  // non-zero bytes after the NUL in the name slot (ignored)
    bool overridden = false;       // a later entry has the same name (VDrift keeps the last)
};

struct JpkPack {
    uint32_t numobjs = 0;
    uint32_t maxstrlen = 0;
    uint64_t fat_end = 0;       // 16 + numobjs * (8 + maxstrlen)
    uint64_t data_end = 0;      // the furthest byte any member reaches (at least fat_end)
    uint64_t trailing_bytes = 0;  // bytes after data_end (stale bytes of a reused file)
    std::vector<JpkEntry> entries;  // in FAT order, duplicates included
    Warnings warnings;          // duplicates, padding garbage, trailing bytes, overlaps
};

bool detect_jpk(std::span<const uint8_t> bytes);
// Header, FAT and every offset + length range-checked (64-bit); errors name the byte offset.
Expected<JpkPack> parse_jpk(std::span<const uint8_t> bytes, uint64_t max_entries = 1ull << 24);
// The member VDrift would read for `name` (exact, case-sensitive; the last duplicate wins).
const JpkEntry* find_jpk_member(const JpkPack& pack, std::string_view name);
// A member's bytes inside the pack's bytes (parse_jpk checked the range).
inline std::span<const uint8_t> jpk_member_bytes(std::span<const uint8_t> pack_bytes, const JpkEntry& entry) {
    return pack_bytes.subspan(entry.offset, entry.length);
}

struct JpkMember {
    std::string name;
    std::vector<uint8_t> bytes;
};
// A pack as VDrift's readers expect (docs/joe.md §9 rule 14): maxstrlen = the longest name,
// zero padding, data contiguous in member order. Names must be non-empty, NUL-free, unique and
// safe (jpk_name_is_safe).
Expected<std::vector<uint8_t>> write_jpk(std::span<const JpkMember> members);

// A relative path with '/' separators and no '..', '.', empty or absolute parts, backslashes or
// drive letters: the only names extraction writes (and creation stores).
bool jpk_name_is_safe(std::string_view name);

// "PACK.jpk:MEMBER" -> (PACK.jpk, MEMBER) when the text has that form (".jpk:" in any case);
// nothing otherwise.
std::optional<std::pair<std::string, std::string>> split_jpk_member_path(const std::string& path);

// What to say when a pack is given where a model is expected (`convert PACK.jpk`): the
// PACK.jpk:MEMBER form with an example member, and the first max_names member names (quoted
// short and escaped, docs/cli.md "Messages"); path is the pack as the user named it.
std::string jpk_not_a_model(const JpkPack& pack, const std::string& path, size_t max_names = 20);

// ---- JPK files on disk (src/formats/joe/jpk_files.cpp) -------------------------------------
// Writes every member (the last of duplicates) under dir, creating dir and subfolders; refuses
// unsafe names and any path that would resolve outside dir (a symlinked subfolder). Returns the
// names written, in FAT order. Every member's target passes check_output (options.protect: the
// pack itself) before the first is written. All members are staged, then made durable in one
// step and renamed (WriteGroup): a member that fails to write replaces nothing.
Expected<std::vector<std::string>> extract_jpk(std::span<const uint8_t> pack_bytes, const std::string& dir,
                                               const WriteOptions& options = {});
// The regular files under dir (recursively, names relative with '/'), sorted by name, as members.
Expected<std::vector<JpkMember>> collect_jpk_members(const std::string& dir, uint64_t max_bytes = 1ull << 31);

// ---- JOE inspection and VDrift's normal fix (src/formats/joe/joe_normals.cpp) ---------------
// The counts a JOE file stores, per frame: what VDrift's loader sees before it welds corners.
struct JoeFrameCounts {
    uint32_t faces = 0, verts = 0, texcoords = 0, normals = 0;
    uint64_t corners = 0;  // unique (vertex, texcoord, normal) triples: the welded vertex count
};
struct JoeCounts {
    uint32_t magic = 0, version = 0;
    std::vector<JoeFrameCounts> frames;
};
Expected<JoeCounts> inspect_joe(std::span<const uint8_t> bytes);

// VDrift's NeedsNormalSwap on a scene mesh (its frame 0 and every morph target as a frame):
// per triangle, s = sum of the corner normals, g = (v2-v0)x(v1-v0); skipped unless |g|^2 and
// |s|^2 > 1e-8; perpendicular when |cos(s, g)| < 0.5. Fires when a frame has more than
// triangles / 4 perpendicular faces.
struct NormalSwapTest {
    uint64_t faces = 0;
    uint64_t perpendicular = 0;  // in the frame with the most
    uint64_t limit = 0;          // faces / 4
    bool fires = false;
};
NormalSwapTest test_vdrift_normal_swap(const Mesh& mesh);
// Applies VDrift's correction where it fires: every normal (and morph normal delta) of the mesh
// becomes (x, -z, y). Returns one test per mesh, in mesh order.
std::vector<NormalSwapTest> fix_vdrift_normals(Scene& scene);

}  // namespace rigport
