// The CLI for someone new to it, through the built binary: the nearest verb or option for a
// mistyped one, format names in any case, one meaning per short option, the PACK.jpk:MEMBER form
// for a pack given as a model, exit codes as docs/cli.md's table says, formats listed from the registry.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <regex>
#include <sstream>

#include "rigport/formats.hpp"
#include "rigport/io.hpp"
#include "rigport/jpk.hpp"
#include "rigport/sample.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The sample written by the CLI into dir.
fs::path sample_iqm(const fs::path& dir) {
    const fs::path p = dir / "sample.iqm";
    auto r = run_cli({"sample", "-o", p.string()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return p;
}

// A binary FBX header of version 2000: recognised as FBX, refused as too old (Unsupported).
fs::path old_fbx(const fs::path& dir) {
    const std::string magic("Kaydara FBX Binary  \0\x1a\0", 23);
    std::vector<uint8_t> bytes(magic.begin(), magic.end());
    for (uint8_t b : {0xd0, 0x07, 0x00, 0x00}) bytes.push_back(b);  // 2000, little-endian
    bytes.resize(bytes.size() + 100, 0);
    write_bytes(dir / "old.fbx", bytes);
    return dir / "old.fbx";
}

TEST(CliGuidance, UnknownVerbSuggestsTheNearest) {
    auto r = run_cli({"infos", "f"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_TRUE(contains(r.err, "Error: unknown command 'infos'; did you mean 'info'?")) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    r = run_cli({"valdiate", "f"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_TRUE(contains(r.err, "did you mean 'validate'?")) << r.err;
    // Nothing near: the verbs are listed.
    r = run_cli({"frobnicate"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_TRUE(contains(r.err, "unknown command 'frobnicate'; the commands are: info, validate, convert")) << r.err;
    // The same one level down.
    r = run_cli({"pack", "lst", "p.jpk"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_TRUE(contains(r.err, "unknown 'pack' command 'lst'; did you mean 'list'?")) << r.err;
}

TEST(CliGuidance, UnknownOptionSuggestsTheNearest) {
    const fs::path dir = files_dir();
    const fs::path in = sample_iqm(dir), out = dir / "out.glb";
    struct Case {
        std::vector<std::string> args;
        std::string said;
    } cases[] = {
        {{"convert", in.string(), "-o", out.string(), "--fromat", "glb"}, "unknown option '--fromat' for 'convert'; did you mean '--format'?"},
        // Before the missing -o is noticed: the typo is the reason it is missing.
        {{"convert", in.string(), "--outptu", out.string()}, "unknown option '--outptu' for 'convert'; did you mean '--output'?"},
        {{"info", in.string(), "--jsn"}, "unknown option '--jsn' for 'info'; did you mean '--json'?"},
        {{"batch", in.string(), "-o", (dir / "b").string(), "--fromat", "glb"}, "unknown option '--fromat' for 'batch'; did you mean '--format'?"},
        {{"render", in.string(), "-o", (dir / "r.png").string(), "--wirefrane"}, "did you mean '--wireframe'?"},
        {{"--verison"}, "unknown option '--verison'; did you mean '--version'?"},
    };
    for (auto& c : cases) {
        auto r = run_cli(c.args);
        EXPECT_EQ(r.exit_code, 1) << c.args[0];
        EXPECT_TRUE(contains(r.err, c.said)) << r.err;
    }
    EXPECT_FALSE(fs::exists(out));
    EXPECT_FALSE(fs::exists(dir / "b"));
    // --json puts the same message on stdout.
    auto r = run_cli({"convert", in.string(), "-o", out.string(), "--fromat", "glb", "--json"});
    EXPECT_EQ(r.exit_code, 1);
    const json j = json::parse(r.out);
    EXPECT_EQ(j["error"]["message"], "unknown option '--fromat' for 'convert'; did you mean '--format'?") << r.out;
    // convert's per-file options are not unknown, nor a negative frame number after --end.
    r = run_cli({"convert", "--name", "walk", "--end", "-1", in.string(), "-o", (dir / "named.iqm").string(), "-q"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(CliGuidance, FormatNamesIgnoreCase) {
    const fs::path dir = files_dir();
    const fs::path in = sample_iqm(dir);
    // The library's lookup, which every caller goes through.
    ASSERT_NE(find_format("glb"), nullptr);
    EXPECT_EQ(find_format("GLB"), find_format("glb"));
    EXPECT_EQ(find_format("Cal3D-XMF"), find_format("cal3d-xmf"));
    EXPECT_EQ(find_format("glbx"), nullptr);
    for (auto& f : formats())
        for (char c : f.name) EXPECT_FALSE(c >= 'A' && c <= 'Z') << f.name << ": registry names are lower case";

    auto r = run_cli({"convert", in.string(), "-o", (dir / "upper.glb").string(), "--format", "GLB"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto glb = read_bytes(dir / "upper.glb");
    ASSERT_GE(glb.size(), 4u);
    EXPECT_EQ(std::string(glb.begin(), glb.begin() + 4), "glTF");
    r = run_cli({"convert", in.string(), "-o", (dir / "lower.glb").string(), "--format", "glb"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(read_bytes(dir / "lower.glb"), glb);

    r = run_cli({"batch", in.string(), "-o", (dir / "batch").string(), "--format", "Iqe", "-q"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(fs::exists(dir / "batch" / "sample.iqe"));
    r = run_cli({"sample", "-o", (dir / "s.model").string(), "--format", "SMD"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    LoadOptions as_smd;
    as_smd.format = "smd";
    auto smd = load((dir / "s.model").string(), as_smd);
    EXPECT_TRUE(smd) << smd.error().to_string();
    // An unknown name is still a usage error naming it as given.
    r = run_cli({"convert", in.string(), "-o", (dir / "x.out").string(), "--format", "GLBX"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_TRUE(contains(r.err, "unknown format 'GLBX'")) << r.err;
}

TEST(CliGuidance, ShortJMeansJobsInEveryVerb) {
    const char* verbs[] = {"info", "validate", "convert", "sample", "formats", "batch", "render", "view"};
    for (const char* verb : verbs) {
        auto help = run_cli({verb, "--help"});
        ASSERT_EQ(help.exit_code, 0) << verb;
        std::istringstream lines(help.out);
        for (std::string line; std::getline(lines, line);)
            if (std::regex_search(line, std::regex("(^|[ ,])-j[, ]"))) {
                EXPECT_TRUE(contains(line, "-j,--jobs")) << verb << ": " << line;
            }
    }
    const fs::path dir = files_dir();
    const fs::path in = sample_iqm(dir);
    // convert -j is refused, saying where -j belongs; --forcejoints keeps its long name.
    auto r = run_cli({"convert", in.string(), "-o", (dir / "j.iqm").string(), "-j"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_TRUE(contains(r.err, "unknown option '-j' for 'convert' ('-j' is '--jobs' of 'batch')")) << r.err;
    EXPECT_FALSE(fs::exists(dir / "j.iqm"));
    r = run_cli({"convert", in.string(), "-o", (dir / "joints.iqm").string(), "--forcejoints"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    r = run_cli({"batch", in.string(), "-o", (dir / "jobs").string(), "--format", "iqm", "-j", "2", "-q"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(fs::exists(dir / "jobs" / "sample.iqm"));
}

TEST(CliGuidance, APackGivenAsAModelNamesItsMembers) {
    const fs::path dir = files_dir();
    auto joe = save_bytes(make_sample_scene(), "car.joe");
    ASSERT_TRUE(joe) << joe.error().to_string();
    // 25 members, a texture first: the example is the first model among them.
    std::vector<JpkMember> members{{"paint.png", {1, 2, 3}}};
    for (int i = 0; i < 24; ++i) members.push_back({"part" + std::to_string(100 + i) + ".joe", *joe});
    auto pack = write_jpk(members);
    ASSERT_TRUE(pack) << pack.error().to_string();
    const std::string path = (dir / "car.jpk").string();
    write_bytes(path, *pack);
    const fs::path out = dir / "car.glb";
    for (const std::vector<std::string>& args : {std::vector<std::string>{"convert", path, "-o", out.string()},
                                                 std::vector<std::string>{"validate", path},
                                                 std::vector<std::string>{"render", path, "-o", (dir / "car.png").string()}}) {
        auto r = run_cli(args);
        EXPECT_EQ(r.exit_code, 3) << args[0] << ": " << r.err;  // a pack is no model format (docs/cli.md "Exit codes")
        EXPECT_TRUE(contains(r.err, "a VDrift JPK pack, not a model: name one of its members as " + path + ":MEMBER, e.g. " + path + ":part100.joe"))
            << r.err;
        EXPECT_TRUE(contains(r.err, "25 members: paint.png, part100.joe, ")) << r.err;
        EXPECT_TRUE(contains(r.err, "part118.joe and 5 more")) << r.err;  // the first 20 named
        EXPECT_FALSE(contains(r.err, "part119.joe")) << r.err;
    }
    EXPECT_FALSE(fs::exists(out));
    // The form it suggests works.
    auto r = run_cli({"convert", path + ":part100.joe", "-o", out.string(), "-q"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(CliGuidance, ExitCodesFollowTheTableInEveryVerb) {
    const fs::path dir = files_dir();
    const std::string fbx = old_fbx(dir).string(), missing = (dir / "missing.iqm").string(), good = sample_iqm(dir).string();
    const std::string nowhere = (dir / "no-such-folder").string();
    write_bytes(dir / "bad.iqm", {'g', 'a', 'r', 'b', 'a', 'g', 'e'});
    struct Case {
        std::vector<std::string> args;
        int exit_code;
    } cases[] = {
        // 3: recognised (FBX) but not read; validate too, where it used to exit 5.
        {{"info", fbx}, 3},
        {{"validate", fbx}, 3},
        {{"validate", fbx, good}, 3},
        {{"validate", "--json", fbx}, 3},
        {{"convert", fbx, "-o", (dir / "o.glb").string()}, 3},
        {{"render", fbx, "-o", (dir / "o.png").string()}, 3},
        {{"view", fbx, "-o", (dir / "o.html").string()}, 3},
        {{"batch", fbx, "-o", (dir / "b3").string(), "--format", "glb", "-q"}, 3},
        {{"convert", good, "-o", (dir / "o.vta").string()}, 3},  // no VTA writer (SMD morphs)
        {{"retarget", fbx, "--onto", good, "-o", (dir / "o.glb").string()}, 3},
        // 2: read errors.
        {{"info", missing}, 2},
        {{"validate", missing}, 2},
        {{"convert", missing, "-o", (dir / "o.glb").string()}, 2},
        {{"render", missing, "-o", (dir / "o.png").string()}, 2},
        {{"batch", missing, "-o", (dir / "b2").string(), "--format", "glb", "-q"}, 2},
        {{"pack", "list", missing}, 2},
        {{"retarget", missing, "--onto", good, "-o", (dir / "o.glb").string()}, 2},
        {{"retarget", good, "--onto", missing, "-o", (dir / "o.glb").string()}, 2},
        // 5 keeps its documented meaning: validate found errors (a malformed file is a finding).
        {{"validate", (dir / "bad.iqm").string()}, 5},
        // 4: the filesystem refused the output.
        {{"convert", good, "-o", nowhere + "/o.glb"}, 4},
        {{"render", good, "-o", nowhere + "/o.png"}, 4},
        {{"sample", "-o", nowhere + "/s.iqm"}, 4},
        {{"batch", good, "-o", nowhere + "/sub", "--format", "glb", "-q"}, 4},
        {{"retarget", good, "--onto", good, "-o", nowhere + "/o.glb"}, 4},
        // 1: usage.
        {{"convert", good, "-o", (dir / "o.zzz").string()}, 1},
        {{"batch", good, "-o", (dir / "b1").string(), "--format", "nope"}, 1},
        {{"formats", "extra"}, 1},
        {{"retarget", good, "--onto", good, "-o", (dir / "o.glb").string(), "--root-motion", "sideways"}, 1},
    };
    for (auto& c : cases) {
        auto r = run_cli(c.args);
        std::string line;
        for (auto& a : c.args) line += a + " ";
        EXPECT_EQ(r.exit_code, c.exit_code) << line << "\n" << r.err;
        if (c.exit_code != 5) {  // 5: the report on stdout says why
            EXPECT_TRUE(contains(r.err, "Error: ") || contains(r.err, "FAILED")) << line << "\n" << r.err;
        }
    }
    // validate's finding for the FBX says what it is.
    auto r = run_cli({"validate", "--json", fbx});
    const json j = json::parse(r.out);
    ASSERT_EQ(j["findings"].size(), 1u) << r.out;
    EXPECT_EQ(j["findings"][0]["code"], "load.unsupported");
    EXPECT_TRUE(contains(j["findings"][0]["message"].get<std::string>(), "FBX version 2000")) << r.out;
}

TEST(CliGuidance, HelpAndFormatsListEveryRegisteredFormat) {
    auto help = run_cli({"--help"});
    ASSERT_EQ(help.exit_code, 0);
    auto listed = run_cli({"formats"});
    ASSERT_EQ(listed.exit_code, 0);
    // --help groups the names by what the registry says each can do.
    auto group = [&](const std::string& label) {
        const size_t at = help.out.find("  " + label);
        if (at == std::string::npos) return std::string();
        // The group runs on over indented continuation lines.
        size_t end = help.out.find('\n', at);
        while (end != std::string::npos && help.out.compare(end + 1, 18, std::string(18, ' ')) == 0) end = help.out.find('\n', end + 1);
        return help.out.substr(at, end - at) + ",";
    };
    const std::string both = group("read and write:"), read_only = group("read only:"), write_only = group("write only:");
    for (auto& f : formats()) {
        const std::string name = " " + std::string(f.name) + ",";
        const std::string& expected = f.read && f.write ? both : f.read ? read_only : write_only;
        EXPECT_TRUE(contains(expected, name)) << f.name << "\n" << help.out;
        for (const std::string* other : {&both, &read_only, &write_only})
            if (other != &expected) {
                EXPECT_FALSE(contains(*other, name)) << f.name << "\n" << help.out;
            }
        // `rigport formats`: one row per format, its flags as the registry says.
        std::istringstream lines(listed.out);
        bool found = false;
        for (std::string line; std::getline(lines, line);) {
            std::istringstream words(line);
            std::string row_name, extensions, read, write;
            words >> row_name >> extensions >> read >> write;
            if (row_name != f.name) continue;
            found = true;
            EXPECT_EQ(read, f.read ? "yes" : "no") << line;
            EXPECT_EQ(write, f.write ? "yes" : "no") << line;
        }
        EXPECT_TRUE(found) << f.name << "\n" << listed.out;
    }
    EXPECT_TRUE(contains(help.out, std::to_string(formats().size()) + " registered")) << help.out;
}

}  // namespace
}  // namespace rigport::test
