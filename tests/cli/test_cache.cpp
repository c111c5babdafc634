// The content-addressed cache through the real binary (docs/scale.md): a second batch converts
// nothing and writes the same bytes, a changed texture reconverts only its model, two processes
// racing on one cache leave no partial entry, a damaged entry is rebuilt, least recently used
// entries go past --cache-max, convert's --depfile and --json with a hit, RIGPORT_CACHE.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <thread>

#include "rigport/io.hpp"
#include "rigport/sample.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The sample in its own folder with its texture beside it (a glb output embeds it, so the texture
// is a file the conversion reads).
void save_textured(const fs::path& model, const std::vector<uint8_t>& texture) {
    fs::create_directories(model.parent_path());
    auto st = save(make_sample_scene(), model.string());
    ASSERT_TRUE(st) << st.error().to_string();
    write_bytes(model.parent_path() / "sample_texture.png", texture);
}

// A 2 x 2 PNG; `shade` sets one pixel, so two shades differ in a few bytes.
std::vector<uint8_t> texture(uint8_t shade) {
    uint8_t rgb[12] = {shade, 0, 0, 255, 255, 255, 0, 255, 0, 0, 0, 255};
    return encode_png(2, 2, rgb);
}

std::map<std::string, std::vector<uint8_t>> snapshot(const fs::path& dir) {
    std::map<std::string, std::vector<uint8_t>> out;
    if (!fs::exists(dir)) return out;
    for (auto& e : fs::recursive_directory_iterator(dir))
        if (e.is_regular_file()) out[fs::relative(e.path(), dir).generic_string()] = read_bytes(e.path());
    return out;
}

// The cache's entry files (not its lists of files read, not temporaries).
std::vector<fs::path> entries(const fs::path& cache) {
    std::vector<fs::path> out;
    const fs::path root = cache / "rigport-cache-1" / "entries";
    if (!fs::exists(root)) return out;
    for (auto& e : fs::recursive_directory_iterator(root))
        if (e.is_regular_file()) out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

size_t temporaries(const fs::path& cache) {
    size_t n = 0;
    for (auto& e : fs::recursive_directory_iterator(cache))
        if (e.path().filename().string().find(".tmp-") != std::string::npos) ++n;
    return n;
}

// "cached" of every record of a --report, by input.
std::map<std::string, bool> cached_by_input(const fs::path& report) {
    std::map<std::string, bool> out;
    for (auto& record : json::parse(read_bytes(report))) {
        EXPECT_EQ(record["status"], "converted") << record.dump();
        EXPECT_TRUE(record.contains("cached")) << record.dump();
        out[record["input"].get<std::string>()] = record.value("cached", false);
    }
    return out;
}

// Three models of three formats, two with a texture of their own; a Cal3D character (a .cfg and
// its members) as the third.
fs::path make_inputs(const fs::path& dir) {
    const fs::path in = dir / "in";
    save_textured(in / "a" / "a.iqm", texture(10));
    save_textured(in / "b" / "b.iqe", texture(20));
    Scene character = make_sample_scene();
    character.animations.resize(1);  // the scale-only "pulse" has no Cal3D form
    fs::create_directories(in / "c");
    auto st = save(character, (in / "c" / "c.cfg").string());
    EXPECT_TRUE(st) << st.error().to_string();
    return in;
}

// The CLI run with args exits 0; else the failure names its exit code and what it printed.
::testing::AssertionResult succeeds(const std::vector<std::string>& args) {
    const auto r = run_cli(args);
    if (r.exit_code == 0) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "exit " << r.exit_code << ":\n" << r.err;
}

std::vector<std::string> batch_args(const fs::path& in, const fs::path& out, const fs::path& cache, const fs::path& report) {
    return {"batch", in.string(), "-o", out.string(), "--format", "glb", "-q", "--cache", cache.string(), "--report", report.string()};
}

TEST(Cache, SecondBatchConvertsNothingAndWritesTheSameBytes) {
    const fs::path dir = temp_dir();
    const fs::path in = make_inputs(dir);
    auto plain = run_cli({"batch", in.string(), "-o", (dir / "plain").string(), "--format", "glb", "-q"});
    ASSERT_EQ(plain.exit_code, 0) << plain.err;

    auto first = run_cli(batch_args(in, dir / "out1", dir / "cache", dir / "r1.json"));
    ASSERT_EQ(first.exit_code, 0) << first.err;
    for (auto& [input, cached] : cached_by_input(dir / "r1.json")) EXPECT_FALSE(cached) << input;
    EXPECT_NE(first.err.find("3 converted (0 from the cache)"), std::string::npos) << first.err;
    EXPECT_EQ(entries(dir / "cache").size(), 3u);

    // Into the same folder (its files replaced by the same bytes) and into a fresh one.
    auto second = run_cli(batch_args(in, dir / "out1", dir / "cache", dir / "r2.json"));
    ASSERT_EQ(second.exit_code, 0) << second.err;
    for (auto& [input, cached] : cached_by_input(dir / "r2.json")) EXPECT_TRUE(cached) << input;
    EXPECT_NE(second.err.find("3 converted (3 from the cache)"), std::string::npos) << second.err;
    EXPECT_EQ(snapshot(dir / "out1"), snapshot(dir / "plain"));
    // The records match but for "cached" and the time.
    json r1 = json::parse(read_bytes(dir / "r1.json")), r2 = json::parse(read_bytes(dir / "r2.json"));
    ASSERT_EQ(r1.size(), r2.size());
    for (size_t i = 0; i < r1.size(); ++i) {
        for (auto* r : {&r1[i], &r2[i]}) r->erase("cached"), r->erase("seconds");
        EXPECT_EQ(r1[i], r2[i]);
    }
    fs::remove_all(dir / "out1");
    auto third = run_cli(batch_args(in, dir / "out1", dir / "cache", dir / "r3.json"));
    ASSERT_EQ(third.exit_code, 0) << third.err;
    for (auto& [input, cached] : cached_by_input(dir / "r3.json")) EXPECT_TRUE(cached) << input;
    EXPECT_EQ(snapshot(dir / "out1"), snapshot(dir / "plain"));

    // An option that changes the output is part of the key: nothing found.
    auto args = batch_args(in, dir / "cm", dir / "cache", dir / "r4.json");
    args.insert(args.end(), {"--unit", "cm"});
    auto other = run_cli(args);
    ASSERT_EQ(other.exit_code, 0) << other.err;
    for (auto& [input, cached] : cached_by_input(dir / "r4.json")) EXPECT_FALSE(cached) << input;
    EXPECT_EQ(entries(dir / "cache").size(), 6u);
}

TEST(Cache, ChangedTextureReconvertsOnlyItsModel) {
    const fs::path dir = temp_dir();
    const fs::path in = make_inputs(dir);
    ASSERT_TRUE(succeeds(batch_args(in, dir / "out", dir / "cache", dir / "r1.json")));
    const auto before = snapshot(dir / "out");
    write_bytes(in / "a" / "sample_texture.png", texture(11));  // one pixel's red 10 -> 11
    auto r = run_cli(batch_args(in, dir / "out", dir / "cache", dir / "r2.json"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto cached = cached_by_input(dir / "r2.json");
    EXPECT_FALSE(cached.at((in / "a" / "a.iqm").string()));
    EXPECT_TRUE(cached.at((in / "b" / "b.iqe").string()));
    EXPECT_TRUE(cached.at((in / "c" / "c.cfg").string()));
    const auto after = snapshot(dir / "out");
    EXPECT_NE(after.at("a/a.glb"), before.at("a/a.glb"));
    EXPECT_EQ(after.at("b/b.glb"), before.at("b/b.glb"));
    // What a conversion without the cache writes for the changed texture.
    auto plain = run_cli({"convert", (in / "a" / "a.iqm").string(), "-o", (dir / "plain.glb").string(), "-q"});
    ASSERT_EQ(plain.exit_code, 0) << plain.err;
    EXPECT_EQ(after.at("a/a.glb"), read_bytes(dir / "plain.glb"));
    // And the texture changed back finds the first entry again.
    write_bytes(in / "a" / "sample_texture.png", texture(10));
    ASSERT_TRUE(succeeds(batch_args(in, dir / "out", dir / "cache", dir / "r3.json")));
    for (auto& [input, hit] : cached_by_input(dir / "r3.json")) EXPECT_TRUE(hit) << input;
    EXPECT_EQ(snapshot(dir / "out"), before);
}

TEST(Cache, TwoProcessesRaceWithoutAPartialEntry) {
    // 40 models, two batches of the same models into the same folder at once (two machines given
    // one job) on one cache, each with 2 threads: both store every entry, renaming over each
    // other's. Neither may read a part of one, nor leave one.
    const fs::path dir = temp_dir();
    for (int i = 0; i < 40; ++i) save_textured(dir / "in" / fmt::format("m{:02}", i) / "m.iqm", texture(uint8_t(i)));
    auto plain = run_cli({"batch", (dir / "in").string(), "-o", (dir / "plain").string(), "--format", "glb", "-q"});
    ASSERT_EQ(plain.exit_code, 0) << plain.err;
    RunResult results[2];
    std::thread racers[2];
    for (int k = 0; k < 2; ++k)
        racers[k] = std::thread([&, k] {
            results[k] = run_cli({"batch", (dir / "in").string(), "-o", (dir / "out").string(), "--format", "glb", "-q", "-j", "2", "--cache",
                                  (dir / "cache").string()});
        });
    for (auto& t : racers) t.join();
    for (int k = 0; k < 2; ++k) ASSERT_EQ(results[k].exit_code, 0) << results[k].err;
    EXPECT_EQ(snapshot(dir / "out"), snapshot(dir / "plain"));
    EXPECT_EQ(entries(dir / "cache").size(), 40u);
    EXPECT_EQ(temporaries(dir / "cache"), 0u);
    // Every entry whole: a third run finds all 40 (a damaged one would be converted again).
    fs::remove_all(dir / "out");
    auto third = run_cli(batch_args(dir / "in", dir / "out", dir / "cache", dir / "r.json"));
    ASSERT_EQ(third.exit_code, 0) << third.err;
    const auto cached = cached_by_input(dir / "r.json");
    EXPECT_EQ(cached.size(), 40u);
    for (auto& [input, hit] : cached) EXPECT_TRUE(hit) << input;
    EXPECT_EQ(snapshot(dir / "out"), snapshot(dir / "plain"));
}

TEST(Cache, DamagedEntryIsRebuilt) {
    const fs::path dir = temp_dir();
    const fs::path in = make_inputs(dir);
    ASSERT_TRUE(succeeds(batch_args(in, dir / "out", dir / "cache", dir / "r1.json")));
    const auto good = snapshot(dir / "out");
    const auto files = entries(dir / "cache");
    ASSERT_EQ(files.size(), 3u);
    // Each entry damaged another way: a byte flipped near its end (in a file it holds), one cut
    // short, one emptied. Every model is converted again, and the same bytes written.
    auto flipped = read_bytes(files[0]);
    flipped[flipped.size() - 10] ^= 0x40;
    write_bytes(files[0], flipped);
    auto cut = read_bytes(files[1]);
    cut.resize(cut.size() / 2);
    write_bytes(files[1], cut);
    write_bytes(files[2], {});
    auto r = run_cli(batch_args(in, dir / "out", dir / "cache", dir / "r2.json"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (auto& [input, hit] : cached_by_input(dir / "r2.json")) EXPECT_FALSE(hit) << input;
    EXPECT_EQ(snapshot(dir / "out"), good);
    // Rebuilt: found whole the next time.
    ASSERT_TRUE(succeeds(batch_args(in, dir / "out", dir / "cache", dir / "r3.json")));
    for (auto& [input, hit] : cached_by_input(dir / "r3.json")) EXPECT_TRUE(hit) << input;
    EXPECT_EQ(entries(dir / "cache").size(), 3u);
    EXPECT_EQ(snapshot(dir / "out"), good);
}

// Runs `convert MODEL -o OUT --json` with the cache and says whether the record is a hit.
bool convert_cached(const fs::path& model, const fs::path& out, const fs::path& cache, const std::string& max = "") {
    std::vector<std::string> args{"convert", model.string(), "-o", out.string(), "-q", "--json", "--cache", cache.string()};
    if (!max.empty()) args.insert(args.end(), {"--cache-max", max});
    auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const json record = json::parse(r.out);
    return record.at("cached").get<bool>();
}

uint64_t cache_bytes(const fs::path& cache) {
    uint64_t total = 0;
    for (auto& e : fs::recursive_directory_iterator(cache))
        if (e.is_regular_file()) total += e.file_size();
    return total;
}

TEST(Cache, MaxEvictsTheLeastRecentlyUsed) {
    // Four models whose entries are the same size (names of one length); the cache limited to what
    // three take. a is used again after b and c were stored, so d's entry pushes out b's.
    const fs::path dir = temp_dir();
    for (const char* name : {"a", "b", "c", "d"}) save_textured(dir / "in" / name / "m.iqm", texture(1));
    const fs::path cache = dir / "cache";
    fs::create_directories(dir / "out");
    auto out = [&](const char* name) { return dir / "out" / (std::string(name) + ".glb"); };
    EXPECT_FALSE(convert_cached(dir / "in" / "a" / "m.iqm", out("a"), cache));
    EXPECT_FALSE(convert_cached(dir / "in" / "b" / "m.iqm", out("b"), cache));
    EXPECT_FALSE(convert_cached(dir / "in" / "c" / "m.iqm", out("c"), cache));
    const uint64_t three = cache_bytes(cache);
    EXPECT_TRUE(convert_cached(dir / "in" / "a" / "m.iqm", out("a"), cache));
    EXPECT_FALSE(convert_cached(dir / "in" / "d" / "m.iqm", out("d"), cache, std::to_string(three)));
    EXPECT_LE(cache_bytes(cache), three);
    EXPECT_EQ(entries(cache).size(), 3u);
    EXPECT_TRUE(convert_cached(dir / "in" / "a" / "m.iqm", out("a"), cache));
    EXPECT_TRUE(convert_cached(dir / "in" / "c" / "m.iqm", out("c"), cache));
    EXPECT_TRUE(convert_cached(dir / "in" / "d" / "m.iqm", out("d"), cache));
    EXPECT_FALSE(convert_cached(dir / "in" / "b" / "m.iqm", out("b"), cache));
    // A size that is no size is refused before anything is read.
    auto bad = run_cli({"convert", (dir / "in" / "a" / "m.iqm").string(), "-o", out("a").string(), "--cache", cache.string(), "--cache-max", "12Q"});
    EXPECT_EQ(bad.exit_code, 1) << bad.err;
    EXPECT_NE(bad.err.find("--cache-max '12Q'"), std::string::npos) << bad.err;
}

TEST(Cache, BatchEndsWithinItsMax) {
    // A batch's stores sweep the cache only at the first and after each eighth of the limit
    // (docs/scale.md "Eviction"); the batch then trims it. 16 models into a cache that holds
    // about five: at the end it is within the limit, and what is left is whole (found again).
    const fs::path dir = temp_dir();
    for (int i = 0; i < 16; ++i) save_textured(dir / "in" / fmt::format("m{:02}", i) / "m.iqm", texture(uint8_t(i)));
    const fs::path probe = dir / "probe";
    ASSERT_FALSE(convert_cached(dir / "in" / "m00" / "m.iqm", dir / "probe.glb", probe));
    const uint64_t one = cache_bytes(probe);  // one entry and its list
    const uint64_t limit = one * 5 + one / 2;
    auto r = run_cli({"batch", (dir / "in").string(), "-o", (dir / "out").string(), "--format", "glb", "-q", "-j", "2", "--cache",
                      (dir / "cache").string(), "--cache-max", std::to_string(limit)});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_LE(cache_bytes(dir / "cache"), limit);
    const size_t kept = entries(dir / "cache").size();
    EXPECT_GE(kept, 1u);
    EXPECT_LE(kept, 5u);
    const auto written = snapshot(dir / "out");
    auto again = run_cli(batch_args(dir / "in", dir / "out", dir / "cache", dir / "r.json"));
    ASSERT_EQ(again.exit_code, 0) << again.err;
    size_t hits = 0;
    for (auto& [input, hit] : cached_by_input(dir / "r.json")) hits += hit ? 1 : 0;
    EXPECT_GE(hits, 1u);
    EXPECT_LE(hits, kept);
    EXPECT_EQ(snapshot(dir / "out"), written);
}

TEST(Cache, ConvertHitKeepsTheDepfileAndTheEnvironmentNamesTheCache) {
    const fs::path dir = temp_dir();
    save_textured(dir / "in" / "m.iqm", texture(5));
    auto convert = [&](const char* output) {
        return run_cli({"convert", (dir / "in" / "m.iqm").string(), "-o", (dir / output).string(), "-q", "--json", "--depfile",
                        (dir / (std::string(output) + ".d")).string()});
    };
    ASSERT_EQ(::setenv("RIGPORT_CACHE", (dir / "cache").c_str(), 1), 0);
    auto first = convert("m.glb");
    auto second = convert("m.glb");
    ::unsetenv("RIGPORT_CACHE");
    ASSERT_EQ(first.exit_code, 0) << first.err;
    ASSERT_EQ(second.exit_code, 0) << second.err;
    EXPECT_FALSE(json::parse(first.out)["cached"].get<bool>());
    EXPECT_TRUE(json::parse(second.out)["cached"].get<bool>());
    EXPECT_EQ(json::parse(first.out)["inputs"], json::parse(second.out)["inputs"]);
    EXPECT_EQ(entries(dir / "cache").size(), 1u);
    const auto depfile_bytes = read_bytes(dir / "m.glb.d");
    const std::string depfile(depfile_bytes.begin(), depfile_bytes.end());
    EXPECT_NE(depfile.find("sample_texture.png"), std::string::npos) << depfile;
    // Without the variable or --cache there is no cache, and no "cached" in the record.
    auto plain = convert("plain.glb");
    ASSERT_EQ(plain.exit_code, 0) << plain.err;
    EXPECT_FALSE(json::parse(plain.out).contains("cached"));
    EXPECT_EQ(read_bytes(dir / "plain.glb"), read_bytes(dir / "m.glb"));
}

}  // namespace
}  // namespace rigport::test
