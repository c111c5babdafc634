// The rigport CLI as a user runs it: exit codes, quiet stdout, JSON reports, round trips, atomic output.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>

#include "rigport/io.hpp"
#include "rigport/jpk.hpp"
#include "rigport/sample.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A fresh directory for a test's files (run_cli() leaves it alone).
fs::path work_dir() { return temp_dir(); }

// The built-in sample written by the CLI into a fresh temp dir.
fs::path write_sample(const fs::path& dir) {
    fs::path p = dir / "sample.iqm";
    auto r = run_cli({"sample", "-o", p.string()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    return p;
}

fs::path write_text(const fs::path& p, const std::string& text) {
    write_bytes(p, std::vector<uint8_t>(text.begin(), text.end()));
    return p;
}

TEST(Cli, UsageErrorsExit1) {
    EXPECT_EQ(run_cli({}).exit_code, 1);
    EXPECT_EQ(run_cli({"frobnicate"}).exit_code, 1);
    EXPECT_EQ(run_cli({"info"}).exit_code, 1);                  // FILE missing
    EXPECT_EQ(run_cli({"convert", "a.iqm"}).exit_code, 1);      // -o missing
    EXPECT_EQ(run_cli({"info", "--bogus", "x.iqm"}).exit_code, 1);
    auto r = run_cli({"frobnicate"});
    EXPECT_EQ(r.err.rfind("Error: ", 0), 0u) << r.err;
    EXPECT_TRUE(r.out.empty());
}

TEST(Cli, HelpAndVersionExit0) {
    auto help = run_cli({"--help"});
    EXPECT_EQ(help.exit_code, 0);
    EXPECT_NE(help.out.find("convert"), std::string::npos);
    auto version = run_cli({"--version"});
    EXPECT_EQ(version.exit_code, 0);
    EXPECT_NE(version.out.find("rigport "), std::string::npos);
    EXPECT_EQ(run_cli({"convert", "--help"}).exit_code, 0);
}

TEST(Cli, FormatsListsIqm) {
    auto r = run_cli({"formats"});
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_NE(r.out.find("iqm"), std::string::npos);
    EXPECT_NE(r.out.find(".iqm"), std::string::npos);
    // Every readable format is validated: no row says it cannot be (docs/cli.md, "rigport formats").
    for (const char* row : {"iqm        .iqm              yes   yes   bytes+scene", "gltf       .gltf,.glb        yes   yes   scene",
                            "cal3d      .cfg              yes   yes   scene", "md5        .md5mesh,.md5anim yes   yes   scene"})
        EXPECT_NE(r.out.find(row), std::string::npos) << row << "\n" << r.out;
}

// `info` on a JPK pack lists its members and says how to read one (docs/cli.md, "VDrift JOE and JPK packs").
TEST(Cli, InfoOnAPackListsItsMembers) {
    const fs::path dir = work_dir();
    auto joe = save_bytes(make_sample_scene(), "car.joe");
    ASSERT_TRUE(joe) << joe.error().to_string();
    const std::vector<JpkMember> members{{"body.joe", *joe}, {"wheel.joe", *joe}};
    auto pack = write_jpk(members);
    ASSERT_TRUE(pack) << pack.error().to_string();
    write_bytes(dir / "garage.jpk", *pack);
    const std::string path = (dir / "garage.jpk").string();
    auto r = run_cli({"info", path});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("VDrift JPK pack, 2 members"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(path + ":MEMBER"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("wheel.joe"), std::string::npos) << r.out;
    auto j = run_cli({"info", "--json", path});
    ASSERT_EQ(j.exit_code, 0) << j.err;
    auto parsed = nlohmann::json::parse(j.out);
    EXPECT_EQ(parsed["format"], "jpk");
    ASSERT_EQ(parsed["members"].size(), 2u);
    EXPECT_EQ(parsed["members"][1]["name"], "wheel.joe");
    // A member reads as a model.
    auto member = run_cli({"info", path + ":body.joe"});
    EXPECT_EQ(member.exit_code, 0) << member.err;
    EXPECT_NE(member.out.find("joe"), std::string::npos);
}

TEST(Cli, ReadErrorsExit2) {
    const fs::path dir = work_dir();
    auto missing = run_cli({"info", (dir / "missing.iqm").string()});
    EXPECT_EQ(missing.exit_code, 2);
    EXPECT_EQ(missing.err.rfind("Error: ", 0), 0u) << missing.err;
    EXPECT_TRUE(missing.out.empty());

    // A truncated IQM: recognised by its magic, broken inside.
    auto bytes = read_bytes(write_sample(dir));
    bytes.resize(200);
    write_bytes(dir / "cut.iqm", bytes);
    EXPECT_EQ(run_cli({"info", (dir / "cut.iqm").string()}).exit_code, 2);
    EXPECT_EQ(run_cli({"convert", (dir / "cut.iqm").string(), "-o", (dir / "out.iqm").string()}).exit_code, 2);
    EXPECT_FALSE(fs::exists(dir / "out.iqm"));
    EXPECT_EQ(run_cli({"validate", (dir / "missing.iqm").string()}).exit_code, 2);
}

TEST(Cli, UnsupportedExit3) {
    const fs::path dir = work_dir();
    // Content and extension match no format.
    write_text(dir / "notes.txt", "not a model\n");
    EXPECT_EQ(run_cli({"info", (dir / "notes.txt").string()}).exit_code, 3);
    EXPECT_EQ(run_cli({"validate", (dir / "notes.txt").string()}).exit_code, 3);
}

TEST(Cli, SeveralInputsAddTheirAnimations) {
    const fs::path dir = work_dir();
    const fs::path sample = write_sample(dir);
    // The second file's single-animation options do not apply: it has two animations.
    auto r = run_cli({"convert", sample.string(), "--name", "x", sample.string(), "-o", (dir / "two.iqm").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("not exactly one"), std::string::npos) << r.err;
    auto info = run_cli({"info", "--json", (dir / "two.iqm").string()});
    ASSERT_EQ(info.exit_code, 0) << info.err;
    EXPECT_EQ(json::parse(info.out)["animations"].size(), 4u);
    // A per-file option with nothing after it is a usage error, before anything is read.
    EXPECT_EQ(run_cli({"convert", sample.string(), "--fps", "30", "-o", (dir / "x.iqm").string()}).exit_code, 1);
    EXPECT_EQ(run_cli({"convert", sample.string(), "--bogus", "-o", (dir / "x.iqm").string()}).exit_code, 1);
}

TEST(Cli, OptionsAreCheckedBeforeAnyInputIsRead) {
    const fs::path dir = work_dir();
    const std::string missing = (dir / "missing.iqm").string();  // reading it would give 2
    const std::string out = (dir / "out.iqm").string();
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {"convert", missing, "-o", out, "-s", "0"},
             {"convert", missing, "-o", out, "-s", "-2"},
             {"convert", missing, "-o", out, "-s", "abc"},
             {"convert", missing, "-o", out, "-s", "nan"},
             {"convert", missing, "-o", out, "-r", "90,0"},
             {"convert", missing, "-o", out, "-r", "x,y,z"},
             {"convert", missing, "-o", out, "-t", "1,2"},
             {"convert", missing, "-o", (dir / "out.unknownext").string()},
             {"convert", missing, "-o", out, "--format", "nosuchformat"},
             {"sample", "-o", (dir / "sample.unknownext").string()},
         }) {
        auto r = run_cli(args);
        std::string joined;
        for (auto& a : args) joined += a + " ";
        EXPECT_EQ(r.exit_code, 1) << joined << "\n" << r.err;
        EXPECT_EQ(r.err.rfind("Error: ", 0), 0u) << joined << "\n" << r.err;
    }
    EXPECT_FALSE(fs::exists(out));
}

TEST(Cli, WriteErrorsExit4AndLeaveNothingBehind) {
    const fs::path dir = work_dir();
    const fs::path sample = write_sample(dir);
    auto r = run_cli({"convert", sample.string(), "-o", (dir / "no" / "such" / "dir" / "out.iqm").string()});
    EXPECT_EQ(r.exit_code, 4) << r.err;
    EXPECT_EQ(r.err.rfind("Error: ", 0), 0u) << r.err;
    // The output is a directory: the rename fails and the temporary file is removed.
    fs::create_directories(dir / "taken.iqm");
    EXPECT_EQ(run_cli({"convert", sample.string(), "-o", (dir / "taken.iqm").string()}).exit_code, 4);
    EXPECT_EQ(run_cli({"sample", "-o", (dir / "taken.iqm").string()}).exit_code, 4);
    for (auto& e : fs::directory_iterator(dir))
        EXPECT_EQ(e.path().string().find(".tmp-"), std::string::npos) << e.path();
}

TEST(Cli, FailedConvertLeavesTheExistingOutputUntouched) {
    const fs::path dir = work_dir();
    const fs::path out = write_text(dir / "out.iqm", "previous contents");
    auto bytes = read_bytes(write_sample(dir));
    bytes.resize(bytes.size() / 2);
    write_bytes(dir / "cut.iqm", bytes);
    EXPECT_EQ(run_cli({"convert", (dir / "cut.iqm").string(), "-o", out.string()}).exit_code, 2);
    EXPECT_EQ(run_cli({"convert", (dir / "cut.iqm").string(), "-o", out.string(), "-s", "0"}).exit_code, 1);
    auto kept = read_bytes(out);
    EXPECT_EQ(std::string(kept.begin(), kept.end()), "previous contents");
}

TEST(Cli, InfoJsonOnTheSample) {
    const fs::path dir = work_dir();
    auto r = run_cli({"info", "--json", write_sample(dir).string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    json j = json::parse(r.out);
    for (const char* key : {"format", "version", "vertices", "triangles", "joints", "poses", "animation_only", "meshes",
                            "vertex_arrays", "animations", "comment", "extensions", "warnings"})
        EXPECT_TRUE(j.contains(key)) << key;
    const Scene sample = make_sample_scene();
    EXPECT_EQ(j["format"], "iqm");
    EXPECT_EQ(j["version"], 2);
    EXPECT_EQ(j["vertices"], sample.vertex_count());
    EXPECT_EQ(j["triangles"], sample.triangle_count());
    EXPECT_EQ(j["joints"], 4);
    EXPECT_EQ(j["poses"], 4);
    EXPECT_EQ(j["animation_only"], false);
    ASSERT_EQ(j["meshes"].size(), 1u);
    EXPECT_EQ(j["meshes"][0]["name"], "sample");
    EXPECT_EQ(j["meshes"][0]["material"], "sample_texture.png");
    EXPECT_EQ(j["meshes"][0]["vertices"], sample.vertex_count());
    EXPECT_EQ(j["meshes"][0]["triangles"], sample.triangle_count());
    ASSERT_EQ(j["animations"].size(), 2u);
    EXPECT_EQ(j["animations"][0], (json{{"name", "wave"}, {"frames", 25}, {"fps", 24.0}, {"loop", true}}));
    EXPECT_EQ(j["animations"][1], (json{{"name", "pulse"}, {"frames", 11}, {"fps", 10.0}, {"loop", false}}));
    std::vector<std::string> types;
    for (auto& a : j["vertex_arrays"]) types.push_back(a["type"]);
    EXPECT_EQ(types, (std::vector<std::string>{"position", "texcoord", "normal", "tangent", "blendindexes", "blendweights", "color"}));
    EXPECT_EQ(j["vertex_arrays"][0]["format"], "float");
    EXPECT_EQ(j["vertex_arrays"][0]["size"], 3);
    EXPECT_EQ(j["comment"], sample.meta.comment);
    EXPECT_TRUE(j["extensions"].empty());
    EXPECT_TRUE(j["warnings"].empty());
}

TEST(Cli, InfoTextNamesEverything) {
    const fs::path dir = work_dir();
    auto r = run_cli({"info", write_sample(dir).string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const char* s : {"iqm version 2", "sample_texture.png", "blendweights", "root", "tip", "wave", "pulse", "loop", "bounds"})
        EXPECT_NE(r.out.find(s), std::string::npos) << s << " in\n" << r.out;
}

TEST(Cli, ValidateTheSample) {
    const fs::path dir = work_dir();
    const std::string sample = write_sample(dir).string();
    auto text = run_cli({"validate", sample});
    EXPECT_EQ(text.exit_code, 0) << text.out << text.err;
    auto strict = run_cli({"validate", "--strict", sample});
    EXPECT_EQ(strict.exit_code, 0) << strict.out;
    auto r = run_cli({"validate", "--json", sample});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    json j = json::parse(r.out);
    EXPECT_EQ(j["format"], "iqm");
    EXPECT_EQ(j["errors"], 0);
    EXPECT_EQ(j["warnings"], 0);
    ASSERT_TRUE(j["adjacency"].is_object());
    EXPECT_EQ(j["adjacency"]["wrong"], 0);
    EXPECT_EQ(j["adjacency"]["missing"], 0);
    EXPECT_GT(j["adjacency"]["valid"].get<int>(), 0);
    bool correct = false;
    for (auto& f : j["findings"]) {
        for (const char* key : {"severity", "code", "message", "offset", "count"}) EXPECT_TRUE(f.contains(key)) << key;
        correct |= f["code"] == "adjacency.correct";
    }
    EXPECT_TRUE(correct);
}

TEST(Cli, ValidateFailuresExit5) {
    const fs::path dir = work_dir();
    auto bytes = read_bytes(write_sample(dir));
    bytes.resize(300);
    write_bytes(dir / "cut.iqm", bytes);
    auto r = run_cli({"validate", "--json", (dir / "cut.iqm").string()});
    EXPECT_EQ(r.exit_code, 5) << r.out << r.err;
    json j = json::parse(r.out);
    EXPECT_GE(j["errors"].get<int>(), 1);

    // A warning (framerate 0) passes normally and fails with --strict.
    bytes = read_bytes(dir / "sample.iqm");
    const uint32_t anims = bytes[88] | bytes[89] << 8 | bytes[90] << 16 | uint32_t(bytes[91]) << 24;
    for (int k = 0; k < 4; ++k) bytes[anims + 12 + k] = 0;
    write_bytes(dir / "zero.iqm", bytes);
    EXPECT_EQ(run_cli({"validate", (dir / "zero.iqm").string()}).exit_code, 0);
    EXPECT_EQ(run_cli({"validate", "--strict", (dir / "zero.iqm").string()}).exit_code, 5);
}

void expect_same_geometry(const Scene& a, const Scene& b, float position_scale = 1.0f) {
    ASSERT_EQ(a.meshes.size(), b.meshes.size());
    for (size_t m = 0; m < a.meshes.size(); ++m) {
        const Mesh &x = a.meshes[m], &y = b.meshes[m];
        ASSERT_EQ(x.vertex_count(), y.vertex_count());
        EXPECT_EQ(x.triangles, y.triangles);
        for (uint32_t v = 0; v < x.vertex_count(); ++v)
            for (int k = 0; k < 3; ++k) ASSERT_NEAR(x.positions[v][k] * position_scale, y.positions[v][k], 1e-5) << v;
        EXPECT_EQ(x.normals, y.normals);
        EXPECT_EQ(x.texcoords, y.texcoords);
    }
    ASSERT_EQ(a.skeleton.joints.size(), b.skeleton.joints.size());
    for (size_t j = 0; j < a.skeleton.joints.size(); ++j) EXPECT_EQ(a.skeleton.joints[j].name, b.skeleton.joints[j].name);
    ASSERT_EQ(a.animations.size(), b.animations.size());
    for (size_t i = 0; i < a.animations.size(); ++i) {
        EXPECT_EQ(a.animations[i].name, b.animations[i].name);
        EXPECT_EQ(a.animations[i].frame_rate, b.animations[i].frame_rate);
        EXPECT_EQ(a.animations[i].loop, b.animations[i].loop);
    }
}

TEST(Cli, ConvertRoundTripOfTheSample) {
    const fs::path dir = work_dir();
    const fs::path sample = write_sample(dir);
    const fs::path copy = dir / "copy.iqm", again = dir / "again.iqm";
    auto r = run_cli({"convert", sample.string(), "-o", copy.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(r.out.empty()) << "convert is quiet without -v: " << r.out;
    EXPECT_TRUE(r.err.empty()) << r.err;
    ASSERT_EQ(run_cli({"convert", copy.string(), "-o", again.string()}).exit_code, 0);
    // IQM -> IQM is stable: the second generation is byte-identical to the first.
    EXPECT_EQ(read_bytes(copy), read_bytes(again));

    auto a = load(sample.string()), b = load(copy.string());
    ASSERT_TRUE(a) << a.error().to_string();
    ASSERT_TRUE(b) << b.error().to_string();
    expect_same_geometry(*a, *b);
    EXPECT_EQ(a->meta.stored_adjacency, b->meta.stored_adjacency);
}

TEST(Cli, ConvertWithScaleAndVerbose) {
    const fs::path dir = work_dir();
    const fs::path sample = write_sample(dir);
    const fs::path scaled = dir / "scaled.iqm";
    auto r = run_cli({"convert", sample.string(), "-o", scaled.string(), "-s", "2", "-v"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("scaled.iqm (iqm, "), std::string::npos) << r.out;
    // The summary names the glTF form written.
    for (const char* ext : {"glb", "gltf"}) {
        const fs::path out = dir / (std::string("summary.") + ext);
        auto v = run_cli({"convert", sample.string(), "-o", out.string(), "-v"});
        ASSERT_EQ(v.exit_code, 0) << v.err;
        EXPECT_NE(v.out.find(out.filename().string() + " (" + ext + ", "), std::string::npos) << v.out;
    }
    auto a = load(sample.string()), b = load(scaled.string());
    ASSERT_TRUE(a && b);
    expect_same_geometry(*a, *b, 2.0f);
    EXPECT_FLOAT_EQ(b->skeleton.joints[1].bind.translate[2], 2.0f * a->skeleton.joints[1].bind.translate[2]);
    EXPECT_EQ(run_cli({"validate", "--strict", scaled.string()}).exit_code, 0);
}

TEST(Cli, ConvertRotateAndMeshtransForms) {
    const fs::path dir = work_dir();
    const fs::path sample = write_sample(dir);
    const fs::path moved = dir / "moved.iqm";
    // A single -t value means Z; negative values are values, not options.
    ASSERT_EQ(run_cli({"convert", sample.string(), "-o", moved.string(), "-t", "-1.5"}).exit_code, 0);
    auto a = load(sample.string()), b = load(moved.string());
    ASSERT_TRUE(a && b);
    EXPECT_NEAR(b->meshes[0].positions[0][2], a->meshes[0].positions[0][2] - 1.5f, 1e-5);
    EXPECT_EQ(b->skeleton.joints[0].bind.translate, a->skeleton.joints[0].bind.translate);  // skeleton stays
    auto r = run_cli({"convert", sample.string(), "-o", moved.string(), "-r", "-90,0,0", "-t", "1,2,3"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(run_cli({"convert", sample.string(), "-o", moved.string(), "--rotate=0,0,90"}).exit_code, 0);
}

TEST(Cli, ConvertWithExplicitFormat) {
    const fs::path dir = work_dir();
    const fs::path sample = write_sample(dir);
    auto r = run_cli({"convert", sample.string(), "-o", (dir / "model.bin").string(), "--format", "iqm"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    ASSERT_EQ(run_cli({"convert", sample.string(), "-o", (dir / "model.iqm").string()}).exit_code, 0);
    EXPECT_EQ(read_bytes(dir / "model.bin"), read_bytes(dir / "model.iqm"));
}

}  // namespace
}  // namespace rigport::test
