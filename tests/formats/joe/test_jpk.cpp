// VDrift JPK packs (docs/joe.md §7; include/rigport/jpk.hpp), which are archives and not in the
// format registry: the written layout, names, tables pointing outside the file, extraction that
// never leaves its folder (and stages every member before replacing any: same bytes, no
// temporaries, nothing replaced when one fails), and seeded mutations of the packs (the members
// through the JOE reader).
// The JOE reader itself is covered by the registry-driven harness (test_robustness.cpp).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <random>

#include "formats/joe/joe.hpp"
#include "formats/joe/test_joe_builder.hpp"
#include "pipeline/robustness_harness.hpp"
#include "rigport/io.hpp"
#include "rigport/jpk.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

namespace fs = std::filesystem;

std::vector<uint8_t> small_pack() {
    std::vector<JpkMember> members = {{"a.joe", build_joe({.frames = {quad_frame()}})}, {"list.txt", {'h', 'i', '\n'}}};
    auto bytes = write_jpk(members);
    EXPECT_TRUE(bytes);
    return bytes ? *bytes : std::vector<uint8_t>{};
}

TEST(JpkRobustness, WrittenPacksFollowVdriftsLayout) {
    auto b = small_pack();
    ASSERT_FALSE(b.empty());
    EXPECT_EQ(std::string(b.begin(), b.begin() + 8), "JPK01.00");
    EXPECT_EQ(get_u32_at(b, 8), 2u);
    EXPECT_EQ(get_u32_at(b, 12), 8u);  // maxstrlen = longest name, no terminator
    const uint32_t fat_end = 16 + 2 * (8 + 8);
    EXPECT_EQ(get_u32_at(b, 16), fat_end);  // data right after the FAT, in FAT order
    EXPECT_EQ(b[16 + 8 + 5], 0);            // "a.joe" zero-padded
    auto p = parse_jpk(b);
    ASSERT_TRUE(p);
    EXPECT_TRUE(p->warnings.items.empty());
    ASSERT_EQ(p->entries.size(), 2u);
    auto txt = jpk_member_bytes(b, p->entries[1]);
    EXPECT_EQ(std::string(txt.begin(), txt.end()), "hi\n");
    // Names a pack must not hold are refused before anything is written.
    for (const char* bad : {"", "../x", "/abs", "a\\b", "C:x", "a//b", "./a"}) {
        std::vector<JpkMember> m = {{bad, {1}}};
        EXPECT_FALSE(write_jpk(m)) << bad;
    }
    std::vector<JpkMember> dup = {{"x", {1}}, {"x", {2}}};
    EXPECT_FALSE(write_jpk(dup));
}

TEST(JpkRobustness, NamesStopAtTheFirstNulAndDuplicatesLastWins) {
    auto b = small_pack();
    // Garbage after the NUL of "a.joe" (as trackeditor's joepack leaves) is ignored, and entry 2
    // renamed "a.joe" overrides entry 1 as VDrift's map does.
    b[16 + 8 + 6] = 0xE0;
    b[16 + 8 + 7] = 'z';
    std::memcpy(&b[16 + 16 + 8], "a.joe\0\0\0", 8);
    auto p = parse_jpk(b);
    ASSERT_TRUE(p) << p.error().to_string();
    EXPECT_EQ(p->entries[0].name, "a.joe");
    EXPECT_TRUE(p->entries[0].padding_garbage);
    EXPECT_TRUE(p->entries[0].overridden);
    const JpkEntry* e = find_jpk_member(*p, "a.joe");
    ASSERT_TRUE(e);
    EXPECT_EQ(e, &p->entries[1]);
    bool said = false;
    for (auto& w : p->warnings.items) said = said || w.message.find("duplicate name 'a.joe'") != std::string::npos;
    EXPECT_TRUE(said);
    const fs::path dir = temp_dir() / "x";
    auto written = extract_jpk(b, dir.string());
    ASSERT_TRUE(written) << written.error().to_string();
    EXPECT_EQ(*written, std::vector<std::string>{"a.joe"});
    EXPECT_EQ(read_bytes(dir / "a.joe"), (std::vector<uint8_t>{'h', 'i', '\n'}));
}

TEST(JpkRobustness, TablesPointingOutsideTheFileAreErrorsWithTheOffset) {
    const auto good = small_pack();
    auto past = good;
    set_u32_at(past, 16 + 16 + 4, 1000);  // entry 1's length
    auto r1 = parse_jpk(past);
    ASSERT_FALSE(r1);
    EXPECT_EQ(r1.error().offset, 16u + 16);
    EXPECT_NE(r1.error().message.find("past the end"), std::string::npos) << r1.error().message;
    auto wrap = good;
    set_u32_at(wrap, 16, 0xFFFFFFF0u);  // offset + length overflows 32 bits
    auto r2 = parse_jpk(wrap);
    ASSERT_FALSE(r2);
    EXPECT_EQ(r2.error().offset, 16u);
    auto into_fat = good;
    set_u32_at(into_fat, 16, 4);
    EXPECT_FALSE(parse_jpk(into_fat));
    auto many = good;
    set_u32_at(many, 8, 0x10000);  // numobjs: the FAT would not fit
    auto r3 = parse_jpk(many);
    ASSERT_FALSE(r3);
    EXPECT_EQ(r3.error().offset, 8u);
    auto wide = good;
    set_u32_at(wide, 12, 0xFFFFFFFFu);  // maxstrlen
    EXPECT_FALSE(parse_jpk(wide));
    auto sig = good;
    sig[3] = '2';
    EXPECT_EQ(parse_jpk(sig).error().code, ErrorCode::UnknownFormat);
    for (size_t n = 0; n < good.size(); ++n) {
        auto p = parse_jpk(std::span(good.data(), n));
        ASSERT_FALSE(p && p->entries.size() == 2 && p->trailing_bytes == 0) << "cut at " << n;
        if (!p) {
            ASSERT_TRUE(p.error().offset.has_value()) << n;
        }
    }
    // Through the CLI: exit 2 and the offset named.
    const fs::path f = temp_dir() / "past.jpk";
    write_bytes(f, past);
    RunResult r = run_cli({"pack", "list", f.string()});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("offset 32"), std::string::npos) << r.err;
}

TEST(JpkRobustness, ExtractionNeverWritesOutsideItsFolder) {
    const fs::path root = temp_dir();
    for (const char* bad : {"../evil.txt", "/tmp/evil.txt", "a/../../evil.txt", "..", "a\\..\\evil.txt", "C:evil.txt"}) {
        // Build the pack by hand with the bad name (write_jpk refuses it).
        std::vector<uint8_t> p;
        p.insert(p.end(), {'J', 'P', 'K', '0', '1', '.', '0', '0'});
        const std::string name = bad;
        put_u32(p, 1);
        put_u32(p, uint32_t(name.size()));
        put_u32(p, uint32_t(16 + 8 + name.size()));
        put_u32(p, 3);
        p.insert(p.end(), name.begin(), name.end());
        p.insert(p.end(), {'b', 'a', 'd'});
        auto parsed = parse_jpk(p);
        ASSERT_TRUE(parsed) << bad;  // listing such a pack is fine ...
        auto x = extract_jpk(p, (root / "out").string());
        ASSERT_FALSE(x) << bad;  // ... extracting it is not
        EXPECT_EQ(x.error().code, ErrorCode::Unsupported);
        EXPECT_EQ(x.error().offset, 24u);
    }
    EXPECT_FALSE(fs::exists(root / "evil.txt"));
    // A subfolder that is a symlink out of the folder is not followed.
    const fs::path out = root / "out2", elsewhere = root / "elsewhere";
    fs::create_directories(out);
    fs::create_directories(elsewhere);
    fs::create_directory_symlink(elsewhere, out / "sub");
    std::vector<JpkMember> m = {{"sub/x.joe", {1, 2, 3}}};
    auto b = write_jpk(m);
    ASSERT_TRUE(b);
    auto x = extract_jpk(*b, out.string());
    ASSERT_FALSE(x);
    EXPECT_NE(x.error().message.find("outside"), std::string::npos) << x.error().message;
    EXPECT_FALSE(fs::exists(elsewhere / "x.joe"));
    // Via the CLI: exit 3, nothing written.
    const fs::path f = root / "evil.jpk";
    std::vector<uint8_t> p = {'J', 'P', 'K', '0', '1', '.', '0', '0'};
    put_u32(p, 1);
    put_u32(p, 5);
    put_u32(p, 16 + 8 + 5);
    put_u32(p, 1);
    for (char c : std::string("../ev")) p.push_back(uint8_t(c));
    p.push_back('!');
    write_bytes(f, p);
    RunResult r = run_cli({"pack", "extract", f.string(), "-o", (root / "cli").string()});
    EXPECT_EQ(r.exit_code, 3) << r.err;
    EXPECT_FALSE(fs::exists(root / "ev"));
}

// Every regular file below dir with its bytes, and whether any temporary is left there.
std::map<std::string, std::vector<uint8_t>> files_of(const fs::path& dir, bool* temporaries = nullptr) {
    std::map<std::string, std::vector<uint8_t>> files;
    for (auto& e : fs::recursive_directory_iterator(dir)) {
        if (temporaries && e.path().filename().string().find(".rigport-tmp-") != std::string::npos) *temporaries = true;
        if (e.is_regular_file()) files[fs::relative(e.path(), dir).generic_string()] = read_bytes(e.path());
    }
    return files;
}

TEST(JpkRobustness, ExtractOfManyMembersGivesTheirBytesAndNoTemporaries) {
    const fs::path root = temp_dir();
    std::vector<JpkMember> members;
    std::map<std::string, std::vector<uint8_t>> expected;
    std::mt19937 rng(5);
    for (int i = 0; i < 120; ++i) {
        JpkMember m{fmt::format("part{}/m{:03}.joe", i % 5, i), std::vector<uint8_t>(rng() % 700)};
        for (auto& b : m.bytes) b = uint8_t(rng());
        expected[m.name] = m.bytes;
        members.push_back(std::move(m));
    }
    auto pack = write_jpk(members);
    ASSERT_TRUE(pack);
    // Into a new folder, then again over the files of the first extract.
    for (int run = 0; run < 2; ++run) {
        auto x = extract_jpk(*pack, (root / "out").string());
        ASSERT_TRUE(x) << x.error().to_string();
        EXPECT_EQ(x->size(), members.size());
        bool temporaries = false;
        EXPECT_EQ(files_of(root / "out", &temporaries), expected);
        EXPECT_FALSE(temporaries);
    }
}

TEST(JpkRobustness, AMemberThatFailsToWriteLeavesEarlierFilesAsTheyWere) {
    const fs::path root = temp_dir();
    std::vector<JpkMember> old_members = {{"a.txt", {'o', 'l', 'd'}}, {"sub/b.txt", {'o', 'l', 'd'}}};
    auto old_pack = write_jpk(old_members);
    ASSERT_TRUE(old_pack);
    ASSERT_TRUE(extract_jpk(*old_pack, (root / "out").string()));
    // The new pack's last member has a name the folder can hold but its temporary cannot (one
    // character short of NAME_MAX): it fails while staging, after a.txt and sub/b.txt were staged.
    std::vector<JpkMember> new_members = {{"a.txt", {'n', 'e', 'w'}}, {"sub/b.txt", {'n', 'e', 'w'}}, {std::string(254, 'z'), {1}}};
    auto new_pack = write_jpk(new_members);
    ASSERT_TRUE(new_pack);
    auto x = extract_jpk(*new_pack, (root / "out").string());
    ASSERT_FALSE(x);
    EXPECT_EQ(x.error().code, ErrorCode::WriteFailed) << x.error().to_string();
    bool temporaries = false;
    const auto files = files_of(root / "out", &temporaries);
    EXPECT_EQ(files, (std::map<std::string, std::vector<uint8_t>>{{"a.txt", {'o', 'l', 'd'}}, {"sub/b.txt", {'o', 'l', 'd'}}}));
    EXPECT_FALSE(temporaries);
    // The CLI says so with the write exit code and leaves the same.
    write_bytes(root / "new.jpk", *new_pack);
    RunResult r = run_cli({"pack", "extract", (root / "new.jpk").string(), "-o", (root / "out").string()});
    EXPECT_EQ(r.exit_code, 4) << r.err;
    EXPECT_EQ(files_of(root / "out"), files);
}

TEST(JpkRobustness, SeededMutationsOfThePacks) {
    std::vector<std::pair<std::string, std::vector<uint8_t>>> packs = {{"small", small_pack()}};
    for (auto& p : corpus_files("joe", ".jpk")) packs.emplace_back(p.filename().string(), read_bytes(p));
    for (auto& [name, bytes] : packs) {
        std::mt19937 rng(0x4A504B31u ^ uint32_t(bytes.size()));
        int parsed = 0;
        for (int i = 0; i < 5000; ++i) {
            std::vector<uint8_t> m = bytes;
            const int edits = 1 + int(rng() % 3);
            for (int e = 0; e < edits; ++e) {
                if (rng() % 2) {
                    const size_t at = 8 + 4 * (rng() % std::min<size_t>(64, (m.size() - 8) / 4));
                    set_u32_at(m, at, robustness::hostile_word(rng, uint32_t(m.size())));
                } else {
                    m[rng() % m.size()] ^= uint8_t(1u << (rng() % 8));
                }
            }
            auto p = parse_jpk(m);
            if (!p) {
                ASSERT_TRUE(p.error().offset.has_value()) << name << " mutation " << i << ": " << p.error().message;
                continue;
            }
            ++parsed;
            for (auto& e : p->entries) {
                ASSERT_LE(e.offset + e.length, m.size()) << name << " mutation " << i;
                (void)joe::read(jpk_member_bytes(m, e), LoadOptions{});
            }
        }
        std::cout << "[ note ] " << name << ": " << parsed << " of 5000 mutants parsed, the rest gave clean errors\n";
    }
}

TEST(JpkRobustness, MemberPathsSplitOnTheLastJpkColon) {
    auto s = split_jpk_member_path("data/tracks/x/objects.jpk:bka.dof-00.joe");
    ASSERT_TRUE(s);
    EXPECT_EQ(s->first, "data/tracks/x/objects.jpk");
    EXPECT_EQ(s->second, "bka.dof-00.joe");
    EXPECT_TRUE(split_jpk_member_path("A.JPK:b.joe"));
    EXPECT_FALSE(split_jpk_member_path("a.jpk:"));
    EXPECT_FALSE(split_jpk_member_path("a.joe"));
    EXPECT_FALSE(read_input("/nonexistent/x.jpk:a.joe"));
}

}  // namespace
}  // namespace rigport::test
