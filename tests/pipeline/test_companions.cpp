// Companions (docs/cli.md "Companions"): a mesh file given alone takes the animation files beside
// it that go with it: MD5 by stem (the longest matching stem wins), SMD by the .qc beside it. Through
// the real binary on folders laid out as games lay them out: batch, info, validate, convert, render,
// --no-companions, and an output two models would share.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>

#include "rigport/formats.hpp"
#include "rigport/io.hpp"
#include "rigport/sample.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json parse_file(const fs::path& path) {
    const auto bytes = read_bytes(path);
    return json::parse(std::string(bytes.begin(), bytes.end()));
}

std::set<std::string> animation_names(const fs::path& model) {
    std::set<std::string> names;
    auto scene = load(model.string());
    EXPECT_TRUE(scene) << model << ": " << scene.error().to_string();
    if (scene)
        for (auto& a : scene->animations) names.insert(a.name);
    return names;
}

std::vector<std::string> files_with(const fs::path& dir, const std::string& ext) {
    std::vector<std::string> out;
    for (auto& e : fs::directory_iterator(dir))
        if (e.path().extension() == ext) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
}

// A Doom 3-style model in dir: STEM.md5mesh (the sample) with STEM.md5anim and STEM_walk.md5anim
// beside it (the sample's two animations, renamed as a game names them).
void save_md5_model(const fs::path& dir, const std::string& stem) {
    fs::create_directories(dir);
    ASSERT_TRUE(save(make_sample_scene(), (dir / (stem + ".md5mesh")).string()));
    fs::rename(dir / (stem + "_wave.md5anim"), dir / (stem + ".md5anim"));
    fs::rename(dir / (stem + "_pulse.md5anim"), dir / (stem + "_walk.md5anim"));
}

// Two meshes whose stems prefix each other, each with its animation files: Bob's and Bobby's.
fs::path doom3_folder(const fs::path& dir) {
    save_md5_model(dir, "Bob");
    save_md5_model(dir, "Bobby");
    save_md5_model(dir, "Imp");
    return dir;
}

TEST(Companions, BatchConvertsEachMd5ModelWithItsAnimationsAndLosesNone) {
    const fs::path dir = files_dir();
    const fs::path in = doom3_folder(dir / "in");
    auto r = run_cli({"batch", in.string(), "-o", (dir / "out").string(), "--format", "glb", "--report", (dir / "r.json").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // One output per model, named after the model; no animation file became a model of its own.
    EXPECT_EQ(files_with(dir / "out", ".glb"), (std::vector<std::string>{"Bob.glb", "Bobby.glb", "Imp.glb"})) << r.err;
    // Bobby_walk.md5anim begins with "Bob" too: the longer stem, Bobby, takes it.
    EXPECT_EQ(animation_names(dir / "out/Bob.glb"), (std::set<std::string>{"Bob", "Bob_walk"}));
    EXPECT_EQ(animation_names(dir / "out/Bobby.glb"), (std::set<std::string>{"Bobby", "Bobby_walk"}));
    EXPECT_EQ(animation_names(dir / "out/Imp.glb"), (std::set<std::string>{"Imp", "Imp_walk"}));
    const json report = parse_file(dir / "r.json");
    ASSERT_EQ(report.size(), 3u) << report.dump(1);
    for (auto& rec : report) {
        EXPECT_EQ(rec["status"], "converted") << rec.dump(1);
        const std::string stem = fs::path(rec["input"].get<std::string>()).stem().string();
        EXPECT_EQ(rec["companions"], json::array({(in / (stem + ".md5anim")).string(), (in / (stem + "_walk.md5anim")).string()})) << rec.dump(1);
    }
    // Said on stderr, one line per model.
    EXPECT_NE(r.err.find((in / "Bobby.md5mesh").string() + ": with 2 companion files: " + (in / "Bobby.md5anim").string() + ", " +
                         (in / "Bobby_walk.md5anim").string()),
              std::string::npos)
        << r.err;
}

// A reference SMD takes the animation SMDs its folder's .qc names for it ($sequence, $animation,
// a name in another letter case or without ".smd" too); without a .qc, none.
TEST(Companions, BatchTakesTheSmdsTheQcNamesAndNoneWithoutAQc) {
    const fs::path dir = files_dir();
    const fs::path in = dir / "in";
    fs::create_directories(in / "hero");
    fs::create_directories(in / "noqc");
    ASSERT_TRUE(save(make_sample_scene(), (in / "hero/hero_ref.smd").string()));  // + hero_ref_wave.smd, hero_ref_pulse.smd
    ASSERT_TRUE(save(make_sample_scene(), (in / "hero/prop.smd").string()));      // a reference the .qc does not name
    const std::string qc =
        "// hero.qc\n"
        "$modelname \"hero.mdl\"\n"
        "$body \"studio\" \"hero_ref.smd\"\n"
        "$sequence idle \"HERO_REF_WAVE\" fps 30 loop ACT_IDLE 1\n"
        "/* $sequence old \"prop_wave.smd\" */\n"
        "$animation a_pulse \"hero_ref_pulse\" fps 15\n"
        "$sequence pulse a_pulse\n";
    write_bytes(in / "hero/hero.qc", std::vector<uint8_t>(qc.begin(), qc.end()));
    ASSERT_TRUE(save(make_sample_scene(), (in / "noqc/villain.smd").string()));
    // The SMD writer writes a .qc beside a model with animations: removed, so these folders hold
    // only the .qc written above (and none).
    for (const char* qc_written : {"hero/hero_ref.qc", "hero/prop.qc", "noqc/villain.qc"}) ASSERT_TRUE(fs::remove(in / qc_written)) << qc_written;
    auto r = run_cli({"batch", in.string(), "-o", (dir / "out").string(), "--format", "glb", "-q", "--report", (dir / "r.json").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(files_with(dir / "out/hero", ".glb"), (std::vector<std::string>{"hero_ref.glb", "prop.glb", "prop_pulse.glb", "prop_wave.glb"}));
    // Named as the .qc names them: "idle" by its $sequence, the $animation a_pulse by the sequence "pulse" that plays it.
    EXPECT_EQ(animation_names(dir / "out/hero/hero_ref.glb"), (std::set<std::string>{"idle", "pulse"}));
    EXPECT_EQ(animation_names(dir / "out/hero/prop.glb"), std::set<std::string>{});
    EXPECT_EQ(files_with(dir / "out/noqc", ".glb"), (std::vector<std::string>{"villain.glb", "villain_pulse.glb", "villain_wave.glb"}));
    EXPECT_EQ(animation_names(dir / "out/noqc/villain.glb"), std::set<std::string>{});
    for (auto& rec : parse_file(dir / "r.json"))
        if (rec["input"] == (in / "hero/hero_ref.smd").string())
            EXPECT_EQ(rec["companions"], json::array({(in / "hero/hero_ref_wave.smd").string(), (in / "hero/hero_ref_pulse.smd").string()}));
        else
            EXPECT_EQ(rec["companions"], json::array()) << rec.dump(1);
}

TEST(Companions, InfoValidateConvertAndRenderTakeThemAndNoCompanionsTurnsThemOff) {
    const fs::path dir = doom3_folder(files_dir());
    const std::string bob = (dir / "Bob.md5mesh").string();
    const json expected = json::array({(dir / "Bob.md5anim").string(), (dir / "Bob_walk.md5anim").string()});

    auto info = run_cli({"info", bob, "--json"});
    ASSERT_EQ(info.exit_code, 0) << info.err;
    json j = json::parse(info.out);
    EXPECT_EQ(j["companions"], expected);
    ASSERT_EQ(j["animations"].size(), 2u) << info.out;
    EXPECT_EQ(j["animations"][0]["name"], "Bob");
    EXPECT_EQ(j["animations"][1]["name"], "Bob_walk");
    EXPECT_NE(info.err.find(bob + ": with 2 companion files: "), std::string::npos) << info.err;
    // Text output says it on stderr too.
    auto text = run_cli({"info", bob});
    EXPECT_NE(text.err.find("(--no-companions reads it alone)"), std::string::npos) << text.err;
    EXPECT_NE(text.out.find("animations: 2"), std::string::npos) << text.out;

    auto alone = run_cli({"info", bob, "--json", "--no-companions"});
    ASSERT_EQ(alone.exit_code, 0) << alone.err;
    j = json::parse(alone.out);
    EXPECT_EQ(j["companions"], json::array());
    EXPECT_EQ(j["animations"].size(), 0u);
    EXPECT_EQ(alone.err.find("companion"), std::string::npos) << alone.err;

    // Several files given: read as given, nothing added.
    auto given = run_cli({"info", bob, (dir / "Bob_walk.md5anim").string(), "--json"});
    ASSERT_EQ(given.exit_code, 0) << given.err;
    j = json::parse(given.out);
    EXPECT_EQ(j["companions"], json::array());
    EXPECT_EQ(j["animations"].size(), 1u);

    auto validate = run_cli({"validate", bob, "--json"});
    ASSERT_EQ(validate.exit_code, 0) << validate.out << validate.err;
    EXPECT_EQ(json::parse(validate.out)["companions"], expected);
    auto validate_alone = run_cli({"validate", bob, "--json", "--no-companions"});
    EXPECT_EQ(json::parse(validate_alone.out)["companions"], json::array()) << validate_alone.out;

    const fs::path out = dir / "out.glb";
    auto convert = run_cli({"convert", bob, "-o", out.string(), "--json", "-q"});
    ASSERT_EQ(convert.exit_code, 0) << convert.err;
    EXPECT_EQ(json::parse(convert.out)["companions"], expected);
    EXPECT_EQ(animation_names(out), (std::set<std::string>{"Bob", "Bob_walk"}));
    ASSERT_EQ(run_cli({"convert", bob, "-o", out.string(), "--no-companions", "-q"}).exit_code, 0);
    EXPECT_EQ(animation_names(out), std::set<std::string>{});

    // render --anim finds an animation a companion brought, and not without it.
    const fs::path png = dir / "bob.png";
    auto render = run_cli({"render", bob, "-o", png.string(), "--size", "32x32", "--anim", "Bob_walk", "--no-textures"});
    EXPECT_EQ(render.exit_code, 0) << render.err;
    auto render_alone = run_cli({"render", bob, "-o", png.string(), "--size", "32x32", "--anim", "Bob_walk", "--no-textures", "--no-companions"});
    EXPECT_EQ(render_alone.exit_code, 1) << render_alone.err;
}

// Two models for one output: reported naming both inputs, the first converted, none lost from the
// report. With --no-companions an .md5anim is a model of its own and clashes with its mesh.
TEST(Companions, AClashForOneOutputNamesBothInputs) {
    const fs::path dir = files_dir();
    fs::create_directories(dir / "in/a");
    ASSERT_TRUE(save(make_sample_scene(), (dir / "in/a/x.iqm").string()));
    ASSERT_TRUE(save(make_sample_scene(), (dir / "in/a/x.iqe").string()));
    auto r = run_cli({"batch", (dir / "in").string(), "-o", (dir / "out").string(), "--format", "glb", "-q", "--report", (dir / "r.json").string()});
    EXPECT_EQ(r.exit_code, 4) << r.err;
    const std::string iqe = (dir / "in/a/x.iqe").string(), iqm = (dir / "in/a/x.iqm").string();
    const json report = parse_file(dir / "r.json");
    ASSERT_EQ(report.size(), 2u) << report.dump(1);
    EXPECT_EQ(report[0]["input"], iqe);
    EXPECT_EQ(report[0]["status"], "converted");
    EXPECT_EQ(report[1]["input"], iqm);
    EXPECT_EQ(report[1]["status"], "failed");
    const std::string message = report[1]["error"]["message"];
    EXPECT_NE(message.find(iqe), std::string::npos) << message;
    EXPECT_NE(message.find(iqm), std::string::npos) << message;
    EXPECT_NE(r.err.find("FAILED " + iqm), std::string::npos) << r.err;
    EXPECT_TRUE(fs::exists(dir / "out/a/x.glb"));

    const fs::path d3 = doom3_folder(dir / "d3");
    auto alone = run_cli({"batch", d3.string(), "-o", (dir / "out3").string(), "--format", "glb", "-q", "--no-companions", "--report",
                          (dir / "r3.json").string()});
    EXPECT_EQ(alone.exit_code, 4) << alone.err;
    const json report3 = parse_file(dir / "r3.json");
    EXPECT_EQ(report3.size(), 9u) << report3.dump(1);  // three meshes and six animation files, each a model
    size_t failed = 0;
    for (auto& rec : report3) {
        if (rec["status"] != "failed") continue;
        ++failed;
        const std::string m = rec["error"]["message"];
        const std::string stem = fs::path(rec["input"].get<std::string>()).stem().string();
        EXPECT_NE(m.find((d3 / (stem + ".md5anim")).string()), std::string::npos) << m;
        EXPECT_NE(m.find((d3 / (stem + ".md5mesh")).string()), std::string::npos) << m;
    }
    EXPECT_EQ(failed, 3u) << alone.err;
}

// --no-companions in a batch: a mesh file is read alone (its animation files are models of their
// own), as `convert --no-companions` reads it, and the report lists no companions.
TEST(Companions, BatchWithoutCompanionsReadsEachMeshAlone) {
    const fs::path dir = files_dir();
    const fs::path in = dir / "in";
    save_md5_model(in, "Bob");
    fs::remove(in / "Bob.md5anim");  // its output would be Bob.glb too: only Bob_walk stays beside the mesh
    auto r = run_cli({"batch", in.string(), "-o", (dir / "out").string(), "--format", "glb", "-q", "--no-companions", "--report",
                      (dir / "r.json").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(files_with(dir / "out", ".glb"), (std::vector<std::string>{"Bob.glb", "Bob_walk.glb"})) << r.err;
    EXPECT_EQ(animation_names(dir / "out/Bob.glb"), std::set<std::string>{}) << "the mesh was read with its animation file";
    EXPECT_EQ(animation_names(dir / "out/Bob_walk.glb"), std::set<std::string>{"Bob_walk"});
    for (auto& rec : parse_file(dir / "r.json")) EXPECT_TRUE(!rec.contains("companions") || rec["companions"].empty()) << rec.dump(1);
}

// The .qc reader through the registry: the files its model lines name, comments skipped.
TEST(Companions, QcListsReferencesAndAnimations) {
    const FormatInfo* smd = find_format("smd");
    ASSERT_TRUE(smd && smd->model_list);
    EXPECT_EQ(smd->model_list_extension, ".qc");
    const std::string qc =
        "$modelname \"m.mdl\" // $body x \"commented.smd\"\n"
        "$model \"body\" \"ref\" { flexfile \"f.vta\" }\n"
        "$bodygroup \"heads\" { studio \"head_a.smd\" studio \"sub\\head_b\" blank }\n"
        "$cdmaterials \"models\\m\"\n"
        "$sequence \"walk\" { \"anims/walk.smd\" fps 24 }\n"
        "# a comment\n"
        "$animation run \"run\" loop\n"
        "$sequence \"unterminated";
    const ModelList list = smd->model_list(std::span(reinterpret_cast<const uint8_t*>(qc.data()), qc.size()));
    EXPECT_EQ(list.meshes, (std::vector<std::string>{"ref.smd", "head_a.smd", "sub/head_b.smd"}));
    EXPECT_EQ(list.animations, (std::vector<std::string>{"anims/walk.smd", "fps.smd", "run.smd", "loop.smd"}));
    // Any bytes: cut at every length (an open quote or comment ends the text), at most the cut word more.
    for (size_t n = 0; n <= qc.size(); ++n) {
        const ModelList cut = smd->model_list(std::span(reinterpret_cast<const uint8_t*>(qc.data()), n));
        EXPECT_LE(cut.meshes.size(), list.meshes.size()) << n;
        EXPECT_LE(cut.animations.size(), list.animations.size() + 1) << n;  // "run" cut to "ru" is a name too
    }
}

}  // namespace
}  // namespace rigport::test
