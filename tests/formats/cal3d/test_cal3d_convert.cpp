// Whole Cal3D characters through the CLI and the conversions, judged by independent references:
// the Khronos validator and three.js for glTF, `rigport validate` and rigport's IQM reader for IQM,
// Debian's cal3d_converter for the .cfg writer (docs/cal3d.md §4.4, §4.5, §5, §7).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <map>

#include <sys/wait.h>

#include "gltf_oracle.hpp"
#include "rigport/anim.hpp"
#include "rigport/cal3d.hpp"
#include "rigport/compile.hpp"
#include "rigport/io.hpp"
#include "rigport/process.hpp"
#include "rigport/sample.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

namespace fs = std::filesystem;
using Point = std::array<double, 3>;

fs::path cal3d(const std::string& rel) { return corpus_dir() / "cal3d" / rel; }

// The Cal3D characters the corpus can assemble: the two .cfg files, and the file sets of each
// folder that hold a skeleton with meshes or animations for it (docs/testing.md "Corpus counts").
struct Character {
    std::string name;
    std::vector<std::string> files;  // relative to corpus/cal3d
};

std::vector<Character> characters() {
    return {
        {"cally_cfg", {"upstream_binary/cally/cally.cfg"}},
        {"paladin_cfg", {"upstream_binary/paladin/paladin.cfg"}},
        {"cally_idle", {"upstream_binary/cally/cally_idle.caf", "upstream_binary/cally/cally_chest.cmf", "upstream_binary/cally/cally.csf",
                        "upstream_binary/cally/cally_chest.xrf"}},
        {"dokurochan",
         {"upstream_binary/dokurochan/DokuroChan.csf", "upstream_binary/dokurochan/DokuroChan_mesh.001_morphs_v1300.cmf",
          "upstream_binary/dokurochan/DokuroChan_mesh.014_v1300.cmf", "upstream_binary/dokurochan/DokuroChan_test_bone.caf",
          "upstream_binary/dokurochan/DokuroChan_0.xrf"}},
        {"dokurochan_morphs",  // 44 morph targets over 11 submeshes, on the skeleton
         {"upstream_binary/dokurochan/DokuroChan.csf", "upstream_binary/dokurochan/DokuroChan_mesh.001_morphs_v1300.cmf"}},
        {"upstream_tests_base", {"upstream_tests/base.xsf", "upstream_tests/base.xmf", "upstream_tests/base.xaf", "upstream_tests/base.xrf"}},
        {"debian_1100_mixed",  // XML from Debian's converter with a binary animation, in no particular order
         {"upstream_binary/cally/cally_walk.caf", "converted/debian0.11_v1100/cally_head.xmf", "converted/debian0.11_v1100/cally.xsf"}},
        {"imvu_919_xml",
         {"converted/imvu_fork_v919/cally.xsf", "converted/imvu_fork_v919/cally_head.xmf", "converted/imvu_fork_v919/cally_ponytail.xmf",
          "converted/imvu_fork_v919/cally_walk.xaf"}},
        {"imvu_919_binary",
         {"converted/imvu_fork_v919_binary/cally.csf", "converted/imvu_fork_v919_binary/cally_head.cmf",
          "converted/imvu_fork_v919_binary/cally_walk.caf"}},
        {"upstream_1301_xml",
         {"converted/mp3butcher_v1301/cally.xsf", "converted/mp3butcher_v1301/cally_head.xmf",
          "converted/mp3butcher_v1301/cally_ponytail_springs.xmf", "converted/mp3butcher_v1301/cally_walk.xaf"}},
        {"upstream_1301_binary",
         {"converted/mp3butcher_v1301_binary/cally.csf", "converted/mp3butcher_v1301_binary/cally_head.cmf",
          "converted/mp3butcher_v1301_binary/cally_skin.crf", "converted/mp3butcher_v1301_binary/cally_walk.caf"}},
    };
}

void PrintTo(const Character& c, std::ostream* os) { *os << c.name; }

std::vector<std::string> paths_of(const Character& c) {
    std::vector<std::string> out;
    for (auto& f : c.files) out.push_back(cal3d(f).string());
    return out;
}

RunResult convert(const std::vector<std::string>& inputs, const fs::path& out, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args{"convert"};
    args.insert(args.end(), extra.begin(), extra.end());
    args.insert(args.end(), inputs.begin(), inputs.end());
    args.push_back("-o");
    args.push_back(out.string());
    return run_cli(args);
}

// The scene `rigport convert` builds for a glTF / .cfg output (every influence kept).
Scene compile_like_convert(const std::vector<std::string>& paths, ClipEnd clip_end = ClipEnd::Clamp) {
    std::vector<CompileInput> inputs;
    for (auto& p : paths) inputs.push_back(CompileInput{{p}, {}});
    CompileOptions options;
    options.max_influences = 0;
    options.clip_end = clip_end;
    options.load.allow_missing = true;  // the corpus .cfg files name members it does not hold
    auto scene = compile(inputs, options);
    EXPECT_TRUE(scene.has_value()) << (scene ? "" : scene.error().to_string());
    return scene ? std::move(*scene) : Scene{};
}

double extent(const Scene& scene) {
    Point lo{INFINITY, INFINITY, INFINITY}, hi{-INFINITY, -INFINITY, -INFINITY};
    for (const auto& mesh : scene.meshes)
        for (const auto& p : mesh.positions)
            for (int k = 0; k < 3; ++k) lo[k] = std::min(lo[k], double(p[k])), hi[k] = std::max(hi[k], double(p[k]));
    for (const auto& w : world_matrices(scene.skeleton, bind_pose(scene.skeleton)))
        for (int k = 0; k < 3; ++k) lo[k] = std::min(lo[k], w[3][k]), hi[k] = std::max(hi[k], w[3][k]);
    if (lo[0] > hi[0]) return 0;
    return std::hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
}

// ---- info / validate ------------------------------------------------------------------------

// Measured from the files: cally.cfg names 17 meshes of which the corpus holds chest (243 v, 442 f),
// head (327, 640) and ponytail (37, 68); skeleton 37 bones; 4 materials; 1 animation. paladin.cfg:
// cape (25, 32) and loincloth (3 submeshes: 3/1, 32/25, 11/11); 58 bones; 19 materials; idle.
TEST(Cal3dConvert, InfoReportsTheWholeCharacter) {
    RIGPORT_REQUIRE_CORPUS();
    struct Expect {
        const char* cfg;
        int vertices, triangles, joints, meshes, materials, animations;
    };
    for (const Expect& e : {Expect{"upstream_binary/cally/cally.cfg", 607, 1150, 37, 3, 4, 1},
                            Expect{"upstream_binary/paladin/paladin.cfg", 71, 69, 58, 4, 19, 1}}) {
        SCOPED_TRACE(e.cfg);
        // The corpus keeps only some of the members each .cfg names: a read error naming the
        // first missing one and its line (docs/cli.md, "Inputs"), unless --allow-missing leaves them out.
        RunResult strict = run_cli({"info", "--json", cal3d(e.cfg).string()});
        EXPECT_EQ(strict.exit_code, 2) << strict.err;
        EXPECT_NE(strict.err.find(".cfg:"), std::string::npos) << strict.err;
        RunResult r = run_cli({"info", "--json", "--allow-missing", cal3d(e.cfg).string()});
        ASSERT_EQ(r.exit_code, 0) << r.err;
        auto j = nlohmann::json::parse(r.out);
        EXPECT_EQ(j["format"], "cal3d");
        EXPECT_EQ(j["vertices"], e.vertices);
        EXPECT_EQ(j["triangles"], e.triangles);
        EXPECT_EQ(j["joints"], e.joints);
        EXPECT_EQ(j["meshes"].size(), size_t(e.meshes));
        EXPECT_EQ(j["materials"].size(), size_t(e.materials));
        EXPECT_EQ(j["animations"].size(), size_t(e.animations));
        RunResult text = run_cli({"info", "--allow-missing", cal3d(e.cfg).string()});
        ASSERT_EQ(text.exit_code, 0) << text.err;
        EXPECT_NE(text.out.find("joints: " + std::to_string(e.joints) + "\n"), std::string::npos) << text.out;
    }
    // Several files in any order are one character too; a lone file stays itself.
    RunResult several = run_cli({"info", "--json", cal3d("upstream_binary/cally/cally_walk.caf").string(),
                                 cal3d("upstream_binary/cally/cally_head.cmf").string(), cal3d("converted/debian0.11_v1100/cally.xsf").string()});
    ASSERT_EQ(several.exit_code, 0) << several.err;
    auto j = nlohmann::json::parse(several.out);
    EXPECT_EQ(j["format"], "cal3d");
    EXPECT_EQ(j["vertices"], 327);
    EXPECT_EQ(j["joints"], 37);
    EXPECT_EQ(j["animations"].size(), 1u);
    EXPECT_EQ(j["inputs"].size(), 3u);
    RunResult one = run_cli({"info", "--json", cal3d("upstream_binary/cally/cally_head.cmf").string()});
    ASSERT_EQ(one.exit_code, 0) << one.err;
    EXPECT_EQ(nlohmann::json::parse(one.out)["format"], "cal3d-cmf");
}

TEST(Cal3dConvert, ValidateChecksTheWholeCharacter) {
    RIGPORT_REQUIRE_CORPUS();
    RunResult r = run_cli({"validate", "--json", "--allow-missing", cal3d("upstream_binary/cally/cally.cfg").string()});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["format"], "cal3d");
    EXPECT_EQ(j["errors"], 0);
    // §9 rule 6: the last key (1.0 s) before DURATION (1.0333 s) is warned about; 14 mesh files
    // the .cfg names are not in the corpus.
    bool duration = false;
    int missing = 0;
    for (auto& f : j["findings"]) {
        const std::string m = f["message"];
        duration = duration || (f["code"] == "anim.ends-before-duration" && m.find("end before DURATION") != std::string::npos);
        missing += f["code"] == "read.part-missing" && m.find("not found") != std::string::npos;
    }
    EXPECT_TRUE(duration) << r.out;
    EXPECT_EQ(missing, 14);
    // Without --allow-missing the first missing member is a read error (exit 2) naming its line.
    RunResult strict = run_cli({"validate", cal3d("upstream_binary/cally/cally.cfg").string()});
    EXPECT_EQ(strict.exit_code, 2) << strict.out << strict.err;
    EXPECT_NE(strict.out.find("part.missing: " + cal3d("upstream_binary/cally/cally.cfg").string() + ":13:1: mesh 'cally_calf_left.cmf' not found"),
              std::string::npos) << strict.out;
    // A skinned mesh without its skeleton is a missing part (exit 2; docs/cal3d.md §4.5): the error names
    // the file, the bones it needs and the kind of file that holds them.
    RunResult bad = run_cli({"validate", cal3d("upstream_binary/cally/cally_head.cmf").string(), cal3d("upstream_binary/cally/cally_walk.caf").string()});
    EXPECT_EQ(bad.exit_code, 2) << bad.out << bad.err;
    EXPECT_NE(bad.err.find("cally_head.cmf"), std::string::npos) << bad.err;
    EXPECT_NE(bad.err.find(".csf or .xsf"), std::string::npos) << bad.err;
}

// ---- options --------------------------------------------------------------------------------

TEST(Cal3dConvert, OptionsAreCheckedBeforeAnyInputIsRead) {
    const fs::path dir = temp_dir();
    for (const auto& extra : {std::vector<std::string>{"--clip-end", "hold"}, std::vector<std::string>{"--cal3d-dialect", "1200"}}) {
        RunResult r = convert({(dir / "missing.cfg").string()}, dir / "out.cfg", extra);
        EXPECT_EQ(r.exit_code, 1) << r.err;
        EXPECT_NE(r.err.find(extra[0]), std::string::npos) << r.err;
        EXPECT_EQ(r.err.find("missing.cfg"), std::string::npos) << "the input was read: " << r.err;
    }
}

// --name before a Cal3D animation file names that animation, wherever the file stands.
TEST(Cal3dConvert, PerFileOptionsApplyToTheirAnimation) {
    RIGPORT_REQUIRE_CORPUS();
    const fs::path out = temp_dir() / "cally.iqm";
    RunResult r = run_cli({"convert", cal3d("upstream_binary/cally/cally.csf").string(), "--name", "stroll", "--fps", "15",
                           cal3d("upstream_binary/cally/cally_walk.caf").string(), cal3d("upstream_binary/cally/cally_idle.caf").string(),
                           cal3d("upstream_binary/cally/cally_head.cmf").string(), "-o", out.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto scene = load(out.string());
    ASSERT_TRUE(scene) << scene.error().to_string();
    ASSERT_EQ(scene->animations.size(), 2u);
    EXPECT_EQ(scene->animations[0].name, "stroll");
    EXPECT_EQ(scene->animations[0].frame_rate, 15.0f);
    EXPECT_EQ(scene->animations[1].name, "cally_idle");
    // 31 keys on 1/30 s become 31 frames at 15 fps, plus the clamp key at DURATION (31 frames in).
    EXPECT_EQ(scene->animations[0].frame_count, 32u);
}

// Keys sampled into frames store the rate they were sampled at. The built-in
// sample's clips (wave at 24 fps, pulse at 10 fps) through a Cal3D .cfg come back as keys; wave
// is sampled at 24 fps (its keys fall on no 30 fps frame), pulse at 30 (keys at 0.1 s fall on
// 30 fps frames), and IQM and IQE must store that rate (pulse said 0 before).
TEST(Cal3dConvert, KeysSampledIntoFramesStoreTheirRate) {
    const fs::path dir = temp_dir();
    const fs::path sample = dir / "sample.iqm";
    ASSERT_TRUE(save(make_sample_scene(), sample.string()));
    const fs::path cfg = dir / "sample.cfg";
    ASSERT_EQ(run_cli({"convert", sample.string(), "-o", cfg.string()}).exit_code, 0);
    const Scene original = *load(sample.string());
    for (const char* ext : {"iqm", "iqe"}) {
        SCOPED_TRACE(ext);
        const fs::path out = dir / (std::string("back.") + ext);
        RunResult r = run_cli({"convert", cfg.string(), "-o", out.string()});
        ASSERT_EQ(r.exit_code, 0) << r.err;
        auto back = load(out.string());
        ASSERT_TRUE(back) << back.error().to_string();
        ASSERT_EQ(back->animations.size(), original.animations.size());
        for (size_t a = 0; a < original.animations.size(); ++a) {
            const Animation& x = original.animations[a];
            const Animation& y = back->animations[a];
            SCOPED_TRACE(y.name);
            EXPECT_EQ(y.frame_rate, x.frame_rate == 24.0f ? 24.0f : 30.0f);
            // The same length in seconds: (frames - 1) / rate.
            EXPECT_NEAR(double(y.frame_count - 1) / y.frame_rate, double(x.frame_count - 1) / x.frame_rate, 1e-6);
        }
        RunResult v = run_cli({"validate", "--json", out.string()});
        EXPECT_EQ(v.out.find("anim.framerate"), std::string::npos) << v.out;
    }
}

// ---- glTF -----------------------------------------------------------------------------------

class Cal3dCharacters : public ::testing::TestWithParam<Character> {};

TEST_P(Cal3dCharacters, GlbValidatesWithoutErrors) {
    RIGPORT_REQUIRE_CORPUS();
    RIGPORT_REQUIRE_JS();
    const Character& c = GetParam();
    const fs::path glb = temp_dir() / (c.name + ".glb");
    RunResult r = convert(paths_of(c), glb, {"--allow-missing"});  // the corpus .cfg files name absent members
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ValidatorReport v = validate_gltf(glb);
    ASSERT_TRUE(v.ran()) << v.error;
    EXPECT_EQ(v.errors, 0) << v.summary(200);
    std::cout << "[ measured ] " << c.name << ": validator " << v.errors << " errors, " << v.warnings << " warnings, " << v.infos
              << " infos\n";
}

INSTANTIATE_TEST_SUITE_P(Corpus, Cal3dCharacters, ::testing::ValuesIn(characters()),
                         [](const ::testing::TestParamInfo<Character>& info) { return info.param.name; });

// The corpus files no character above uses (IMVU's test files, whose mesh names bone 22 of a
// skeleton that is not in the corpus; upstream's morph meshes and morph animations), each converted
// alone: bone ids on placeholder joints, morph targets and weight tracks as glTF has them.
std::vector<std::string> lone_files() {
    // A fixed list, so the suite has the same tests with or without the corpus (they skip).
    std::vector<std::string> out;
    for (const auto& [folder, x] : {std::pair{"imvu_authored/xml", 'x'}, std::pair{"imvu_authored/binary_written_by_imvu_fork", 'c'}})
        for (const char* stem : {"imvu_test_animation1.?af", "imvu_test_animation2_rotonly.?af", "imvu_test_animation3.?af", "imvu_test_animmorph1.?pf",
                                 "imvu_test_material1.?rf", "imvu_test_mesh1_morph.?mf", "imvu_test_mesh_empty_morph.?mf", "imvu_test_skeleton1.?sf",
                                 "imvu_test_skeleton2.?sf"}) {
            std::string name = stem;
            name[name.size() - 3] = x;
            out.push_back(std::string(folder) + "/" + name);
        }
    for (const char* f : {"upstream_binary/dokurochan/DokuroChan_mesh.001_morphs_v1300.cmf", "upstream_binary/dokurochan/DokuroChan_Key_test_facial.xpf",
                          "upstream_binary/paladin/paladin_cape.cmf", "converted/mp3butcher_v1301/paladin_cape_springs.xmf",
                          "converted/mp3butcher_v1301/DokuroChan_mesh.014.xmf", "converted/mp3butcher_v1301/DokuroChan_facial_resaved_BUG_keyframes_lost.xpf"})
        out.push_back(f);
    return out;
}

class Cal3dLoneFiles : public ::testing::TestWithParam<std::string> {};

TEST_P(Cal3dLoneFiles, GlbValidatesWithoutErrors) {
    RIGPORT_REQUIRE_CORPUS();
    RIGPORT_REQUIRE_JS();
    const fs::path source = cal3d(GetParam());
    const fs::path glb = temp_dir() / (source.filename().string() + ".glb");
    RunResult r = convert({source.string()}, glb);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ValidatorReport v = validate_gltf(glb);
    ASSERT_TRUE(v.ran()) << v.error;
    EXPECT_EQ(v.errors, 0) << v.summary(200);
    std::cout << "[ measured ] " << GetParam() << ": validator " << v.errors << " errors, " << v.warnings << " warnings\n";
}

INSTANTIATE_TEST_SUITE_P(Corpus, Cal3dLoneFiles, ::testing::ValuesIn(lone_files()), [](const ::testing::TestParamInfo<std::string>& info) {
    std::string name = info.param;
    for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return name;
});

// cally walk: rigport's own sampling and skinning of the Cal3D source (Z up) against three.js
// evaluating rigport's GLB of it (Y up baked: glTF = (x, z, -y)), at key and in-between times and
// in the clamped end interval (1.0 .. 1.0333 s).
TEST(Cal3dConvert, CallyWalkThreeJsMatchesOwnSampling) {
    RIGPORT_REQUIRE_CORPUS();
    RIGPORT_REQUIRE_JS();
    const std::vector<std::string> paths{cal3d("upstream_binary/cally/cally.cfg").string()};
    const fs::path glb = temp_dir() / "cally.glb";
    RunResult r = convert(paths, glb, {"--allow-missing"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const Scene scene = compile_like_convert(paths);
    ASSERT_EQ(scene.animations.size(), 1u);
    const std::vector<double> times{0.0, 0.25, 0.5, 0.77, 1.0, 1.02, 1.0333333};
    std::vector<SkinRequest> requests;
    for (double t : times) requests.push_back(SkinRequest::at(0, t));
    ThreeSkinning three = three_skin(glb, requests);
    ASSERT_TRUE(three.ran()) << three.error;
    const double tolerance = 1e-4 * extent(scene);
    double worst = 0;
    uint64_t compared = 0;
    for (size_t m = 0; m < scene.meshes.size(); ++m) {
        const ThreeMesh* mesh = three.find(int(m), 0);
        ASSERT_NE(mesh, nullptr) << "mesh " << m;
        ASSERT_EQ(mesh->vertex_count, scene.meshes[m].vertex_count());
        ASSERT_EQ(mesh->frames.size(), times.size());
        for (size_t k = 0; k < times.size(); ++k) {
            const auto pose = sample_pose(scene.skeleton, scene.animations[0], float(times[k]), EndMode::Clamp);
            const auto expected = skin_positions(scene.meshes[m], skinning_matrices(scene.skeleton, pose));
            for (size_t v = 0; v < expected.size(); ++v) {
                const Point want{expected[v][0], expected[v][2], -expected[v][1]};
                const auto& got = mesh->frames[k].positions[v];
                const double d = std::hypot(got[0] - want[0], got[1] - want[1], got[2] - want[2]);
                EXPECT_LE(d, tolerance) << "mesh " << m << " vertex " << v << " t=" << times[k];
                worst = std::max(worst, d);
                ++compared;
            }
        }
    }
    // The walk moves: poses at 0 and 0.5 s differ by far more than the tolerance.
    const auto p0 = skin_positions(scene.meshes[0], skinning_matrices(scene.skeleton, sample_pose(scene.skeleton, scene.animations[0], 0.0f)));
    const auto p5 = skin_positions(scene.meshes[0], skinning_matrices(scene.skeleton, sample_pose(scene.skeleton, scene.animations[0], 0.5f)));
    double moved = 0;
    for (size_t v = 0; v < p0.size(); ++v) moved = std::max(moved, std::hypot(p0[v][0] - p5[v][0], p0[v][1] - p5[v][1], p0[v][2] - p5[v][2]));
    EXPECT_GT(moved, 100 * tolerance);
    std::cout << "[ measured ] cally walk: " << compared << " vertex positions, max three.js error " << worst << " (tolerance "
              << tolerance << ", extent " << extent(scene) << ")\n";
}

// --clip-end: clamp holds the last key to DURATION, extrapolate continues it (three.js sees the key
// rigport added at 1.0333 s); none leaves the clip at 1.0 s.
TEST(Cal3dConvert, ClipEndChoosesTheLastInterval) {
    RIGPORT_REQUIRE_CORPUS();
    const std::vector<std::string> paths{cal3d("upstream_binary/cally/cally.cfg").string()};
    const fs::path dir = temp_dir();
    std::map<std::string, Scene> back;
    for (const char* mode : {"clamp", "extrapolate", "none"}) {
        const fs::path out = dir / (std::string(mode) + ".glb");
        RunResult r = convert(paths, out, {"--clip-end", mode, "--allow-missing", "-v"});  // -v: every warning
        ASSERT_EQ(r.exit_code, 0) << r.err;
        // Keys added are reported; none adds nothing and says nothing (validate reports the gap).
        EXPECT_EQ(r.err.find("end before DURATION") != std::string::npos, std::string(mode) != "none") << r.err;
        auto s = load(out.string());
        ASSERT_TRUE(s) << s.error().to_string();
        back[mode] = std::move(*s);
    }
    EXPECT_NEAR(back["clamp"].animations[0].duration(), 1.0333333f, 1e-5);
    EXPECT_NEAR(back["extrapolate"].animations[0].duration(), 1.0333333f, 1e-5);
    EXPECT_NEAR(back["none"].animations[0].duration(), 1.0f, 1e-6);
    // At 1.0333 s: clamp = the pose at 1.0; extrapolate = 1.0 + (1.0 - 0.9667) continued.
    const Scene source = compile_like_convert(paths, ClipEnd::None);
    auto world = [](const Scene& s, float t) { return world_matrices(s.skeleton, sample_pose(s.skeleton, s.animations[0], t)); };
    const auto at_end = world(source, 1.0f);
    const auto clamp = world(back["clamp"], 1.0333333f), extra = world(back["extrapolate"], 1.0333333f);
    ASSERT_EQ(clamp.size(), at_end.size());
    ASSERT_EQ(extra.size(), at_end.size());
    // glTF joints are Y up: source (x, y, z) is glTF (x, z, -y).
    auto gap = [&](const std::vector<Mat4>& gltf, size_t j) {
        return std::hypot(gltf[j][3][0] - at_end[j][3][0], gltf[j][3][1] - at_end[j][3][2], gltf[j][3][2] + at_end[j][3][1]);
    };
    double clamp_gap = 0, extra_gap = 0;
    for (size_t j = 0; j < at_end.size(); ++j) clamp_gap = std::max(clamp_gap, gap(clamp, j)), extra_gap = std::max(extra_gap, gap(extra, j));
    EXPECT_LT(clamp_gap, 1e-3);
    EXPECT_GT(extra_gap, 0.05);  // the walk moves about a unit per 1/30 s
}

// ---- IQM / IQE ------------------------------------------------------------------------------

// Cal3D -> IQM: keys resampled at 30 fps (the walk's keys lie on 1/30 s), 32 frames with the clamp
// key at DURATION; `rigport validate` finds no error; joints follow the source within IQM's u16
// quantisation.
TEST(Cal3dConvert, CallyToIqmResampledAndValid) {
    RIGPORT_REQUIRE_CORPUS();
    const std::vector<std::string> paths{cal3d("upstream_binary/cally/cally.cfg").string()};
    const fs::path dir = temp_dir();
    const fs::path iqm = dir / "cally.iqm";
    RunResult r = convert(paths, iqm, {"--allow-missing"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    RunResult v = run_cli({"validate", "--json", iqm.string()});
    EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
    EXPECT_EQ(nlohmann::json::parse(v.out)["errors"], 0) << v.out;
    auto out = load(iqm.string());
    ASSERT_TRUE(out) << out.error().to_string();
    ASSERT_EQ(out->animations.size(), 1u);
    EXPECT_EQ(out->animations[0].name, "cally_walk");
    EXPECT_EQ(out->animations[0].frame_count, 32u);
    EXPECT_EQ(sampling_rate(out->animations[0]), 30.0f);
    EXPECT_EQ(out->vertex_count(), 607u);
    EXPECT_EQ(out->skeleton.joints.size(), 37u);
    const Scene source = compile_like_convert(paths);
    const double tolerance = 1e-3 * extent(source);
    for (uint32_t frame : {0u, 7u, 15u, 23u, 31u}) {
        const auto want = world_matrices(source.skeleton, sample_pose(source.skeleton, source.animations[0], float(frame) / 30.0f));
        const auto got = world_matrices(out->skeleton, frame_pose(out->skeleton, out->animations[0], frame));
        ASSERT_EQ(want.size(), got.size());
        for (size_t j = 0; j < want.size(); ++j)
            EXPECT_LE(std::hypot(got[j][3][0] - want[j][3][0], got[j][3][1] - want[j][3][1], got[j][3][2] - want[j][3][2]), tolerance)
                << "frame " << frame << " joint " << j;
    }
    const fs::path iqe = dir / "cally.iqe";
    RunResult e = convert(paths, iqe, {"--allow-missing"});
    ASSERT_EQ(e.exit_code, 0) << e.err;
    auto back = load(iqe.string());
    ASSERT_TRUE(back) << back.error().to_string();
    EXPECT_EQ(back->vertex_count(), 607u);
    EXPECT_EQ(back->skeleton.joints.size(), 37u);
    EXPECT_EQ(back->animations.size(), 1u);
}

// ---- .cfg output ----------------------------------------------------------------------------

// A model written as .cfg in the 1100 dialect: Debian's converter accepts every file it wrote, and
// load_cal3d_character gives back the geometry, skeleton and animation of the source in Cal3D
// conventions (Z up, counter-clockwise).
void expect_cfg_round_trip(const fs::path& source, const std::string& stem) {
    const fs::path dir = temp_dir() / "cfg", converted = dir.parent_path() / "converted";
    fs::create_directories(dir);
    fs::create_directories(converted);
    const fs::path cfg = dir / (stem + ".cfg");
    RunResult r = convert({source.string()}, cfg, {"--cal3d-dialect", "1100"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::vector<uint8_t> cfg_bytes = read_bytes(cfg);
    const std::string text(cfg_bytes.begin(), cfg_bytes.end());
    size_t files = 0;
    for (auto& e : fs::directory_iterator(dir)) {
        const std::string ext = e.path().extension().string();
        if (ext == ".cfg") continue;
        if (ext == ".jpg" || ext == ".png") continue;  // the textures the glTF holds: named by the materials
        ++files;
        EXPECT_NE(text.find("=" + e.path().filename().string() + "\n"), std::string::npos) << e.path() << " not listed in\n" << text;
        if (have_cal3d_converter() && (ext == ".xsf" || ext == ".xmf" || ext == ".xaf" || ext == ".xrf")) {
            const fs::path out = converted / (e.path().stem().string() + std::string(ext == ".xsf" ? ".csf" : ext == ".xmf" ? ".cmf" : ext == ".xaf" ? ".caf" : ".crf"));
            EXPECT_EQ(run_cal3d_converter(e.path(), out), 0) << "cal3d_converter rejected " << e.path();
        }
    }
    EXPECT_GE(files, 3u);
    if (!have_cal3d_converter()) std::cout << "[ note     ] " << cal3d_converter << " not found: the converter check was skipped\n";

    Scene original = compile_like_convert({source.string()});
    if (auto copy = z_up_ccw_copy(original)) original = std::move(*copy);
    auto back = load_cal3d_character({cfg.string()});
    ASSERT_TRUE(back) << back.error().to_string();
    ASSERT_EQ(back->meshes.size(), original.meshes.size());
    ASSERT_EQ(back->skeleton.joints.size(), original.skeleton.joints.size());
    ASSERT_EQ(back->animations.size(), original.animations.size());
    EXPECT_EQ(back->materials.size(), original.materials.size());
    const double tolerance = 1e-5 * extent(original);
    double worst = 0;
    for (size_t m = 0; m < original.meshes.size(); ++m) {
        const Mesh &a = original.meshes[m], &b = back->meshes[m];
        ASSERT_EQ(a.vertex_count(), b.vertex_count()) << "mesh " << m;
        EXPECT_EQ(a.triangles, b.triangles) << "mesh " << m;
        EXPECT_EQ(b.material, a.material) << "mesh " << m;
        for (size_t v = 0; v < a.positions.size(); ++v)
            worst = std::max(worst, std::hypot(double(a.positions[v][0]) - b.positions[v][0], double(a.positions[v][1]) - b.positions[v][1],
                                               double(a.positions[v][2]) - b.positions[v][2]));
    }
    EXPECT_LE(worst, tolerance);
    // Skinned at the middle of the first animation, the written character moves as the source.
    double skinned = 0;
    const float t = original.animations.empty() ? 0.0f : original.animations[0].duration() / 2;
    for (size_t m = 0; m < original.meshes.size(); ++m) {
        auto pose = [&](const Scene& s) {
            return s.animations.empty() ? bind_pose(s.skeleton) : sample_pose(s.skeleton, s.animations[0], t);
        };
        const auto a = skin_positions(original.meshes[m], skinning_matrices(original.skeleton, pose(original)));
        const auto b = skin_positions(back->meshes[m], skinning_matrices(back->skeleton, pose(*back)));
        for (size_t v = 0; v < a.size(); ++v) skinned = std::max(skinned, std::hypot(a[v][0] - b[v][0], a[v][1] - b[v][1], a[v][2] - b[v][2]));
    }
    EXPECT_LE(skinned, 1e-4 * extent(original));
    std::cout << "[ measured ] " << source.filename().string() << " -> .cfg (1100): " << files << " side files, max position error " << worst
              << ", skinned at t=" << t << " " << skinned << " (extent " << extent(original) << ")\n";
}

TEST(Cal3dConvert, IqmToCfgAcceptedByCal3dConverter) {
    RIGPORT_REQUIRE_CORPUS();
    expect_cfg_round_trip(corpus_dir() / "iqm" / "mrfixit.iqm", "mrfixit");
}

TEST(Cal3dConvert, GltfToCfgAcceptedByCal3dConverter) {
    RIGPORT_REQUIRE_CORPUS();
    expect_cfg_round_trip(corpus_dir() / "gltf" / "CesiumMan.glb", "cesium");
}

// Binary side files, names made safe and unique, material thread i = i-th material line.
TEST(Cal3dConvert, CfgBinarySideFilesAndNames) {
    RIGPORT_REQUIRE_CORPUS();
    const fs::path dir = temp_dir();
    const fs::path cfg = dir / "pal.cfg";
    RunResult r = convert({cal3d("upstream_binary/paladin/paladin.cfg").string()}, cfg,
                          {"--cal3d-binary", "--cal3d-dialect", "1100", "--allow-missing"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::vector<uint8_t> bytes = read_bytes(cfg);
    const std::string text(bytes.begin(), bytes.end());
    EXPECT_NE(text.find("skeleton=pal.csf\n"), std::string::npos) << text;
    EXPECT_NE(text.find("mesh=pal_paladin_loincloth_1.cmf\n"), std::string::npos) << text;  // "paladin_loincloth#1"
    EXPECT_NE(text.find("animation=pal_paladin_idle.caf\n"), std::string::npos) << text;
    EXPECT_NE(text.find("scale=0.5\n"), std::string::npos) << text;
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1 + 1 + 1 + 1 + 4 + 19);  // comment, scale, skeleton, animation, meshes, materials
    LoadOptions allow_missing;
    allow_missing.allow_missing = true;  // the corpus holds only part of paladin.cfg's members
    auto source = load_cal3d_character({cal3d("upstream_binary/paladin/paladin.cfg").string()}, allow_missing);
    auto back = load_cal3d_character({cfg.string()});
    ASSERT_TRUE(source && back) << (back ? "" : back.error().to_string());
    ASSERT_EQ(back->meshes.size(), source->meshes.size());
    for (size_t m = 0; m < source->meshes.size(); ++m) {
        EXPECT_EQ(back->meshes[m].material, source->meshes[m].material) << "mesh " << m;
        EXPECT_EQ(back->meshes[m].springs.size(), source->meshes[m].springs.size()) << "mesh " << m;
    }
    EXPECT_EQ(back->materials.size(), 19u);
    EXPECT_EQ(back->meta.source_version, 1100u);
}

// One Cal3D file alone converts between XML and binary and between dialects, as cal3d_converter
// does: no skeleton needed, bone ids kept, no end-of-clip keys added, and back to the source's own
// version the bytes are the original's apart from the version field (bytes 4..7).
TEST(Cal3dConvert, LoneFilesConvertWithoutTheirSkeleton) {
    RIGPORT_REQUIRE_CORPUS();
    const fs::path dir = temp_dir();
    for (const std::string name : {"cally_walk.caf", "cally_chest.cmf"}) {
        const fs::path source = cal3d("upstream_binary/cally/" + name);
        const std::string stem = fs::path(name).stem().string();
        const fs::path xml_path = dir / (stem + (fs::path(name).extension() == ".caf" ? ".xaf" : ".xmf"));
        RunResult r = convert({source.string()}, xml_path);
        ASSERT_EQ(r.exit_code, 0) << name << ": " << r.err;
        const fs::path binary = dir / name;
        r = convert({xml_path.string()}, binary, {"--cal3d-dialect", "1100"});
        ASSERT_EQ(r.exit_code, 0) << name << ": " << r.err;
        std::vector<uint8_t> original = read_bytes(source), back = read_bytes(binary);
        ASSERT_EQ(back.size(), original.size()) << name;
        for (size_t i = 4; i < 8; ++i) back[i] = original[i] = 0;  // 700 in the corpus, 1100 written
        EXPECT_TRUE(back == original) << name << ": bytes differ beyond the version field";
    }
}


// Morph weight tracks go to a morph animation file that binds to the mesh files of the .cfg: by
// target name (IMVU) or by .cfg mesh line, submesh and morph id (1301); 1100 has none.
TEST(Cal3dConvert, CfgMorphAnimationsBindToTheirMesh) {
    RIGPORT_REQUIRE_CORPUS();
    const fs::path source = corpus_dir() / "gltf" / "AnimatedMorphCube.glb";
    const Scene original = compile_like_convert({source.string()});
    ASSERT_EQ(original.animations.size(), 1u);
    ASSERT_EQ(original.animations[0].morph_tracks.size(), 1u);
    const MorphWeightTrack& want = original.animations[0].morph_tracks[0];
    for (const char* dialect : {"imvu", "1301"}) {
        SCOPED_TRACE(dialect);
        const fs::path cfg = temp_dir() / "cube.cfg";
        RunResult r = convert({source.string()}, cfg, {"--cal3d-dialect", dialect});
        ASSERT_EQ(r.exit_code, 0) << r.err;
        auto back = load_cal3d_character({cfg.string()});
        ASSERT_TRUE(back) << back.error().to_string();
        ASSERT_EQ(back->animations.size(), 1u);
        ASSERT_EQ(back->animations[0].morph_tracks.size(), 1u);
        const MorphWeightTrack& got = back->animations[0].morph_tracks[0];
        EXPECT_EQ(got.mesh, want.mesh);
        EXPECT_EQ(got.times, want.times);
        ASSERT_EQ(got.weights.size(), want.weights.size());
        for (size_t i = 0; i < want.weights.size(); ++i) EXPECT_NEAR(got.weights[i], want.weights[i], 1e-6) << i;
    }
    const fs::path cfg = temp_dir() / "cube.cfg";
    RunResult r = convert({source.string()}, cfg, {"--cal3d-dialect", "1100"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("no morph animation files"), std::string::npos) << r.err;
    const std::vector<uint8_t> bytes = read_bytes(cfg);
    EXPECT_EQ(std::string(bytes.begin(), bytes.end()).find("morphanim="), std::string::npos);
}

}  // namespace
}  // namespace rigport::test

namespace rigport::test {

// What a Cal3D character cannot hold: an animation of scale keys alone is left out with a
// warning (the sample's glTF 'pulse' scales one joint), not a failed character; a skeleton that
// is only an animation hierarchy (no names, no bind pose) is Unsupported, exit 3.
TEST(Cal3dConvert, WhatCal3dCannotHoldIsLeftOutOrUnsupported) {
    const fs::path dir = files_dir();
    ASSERT_EQ(run_cli({"sample", "-o", (dir / "s.glb").string()}).exit_code, 0);
    auto r = run_cli({"convert", (dir / "s.glb").string(), "-o", (dir / "c.cfg").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("1 animations hold only scale keys"), std::string::npos) << r.err;
    EXPECT_TRUE(fs::exists(dir / "c_wave.xaf"));
    EXPECT_FALSE(fs::exists(dir / "c_pulse.xaf"));
    auto back = load((dir / "c.cfg").string());
    ASSERT_TRUE(back) << back.error().to_string();
    ASSERT_EQ(back->animations.size(), 1u);
    EXPECT_EQ(back->animations[0].name, "c_wave");  // named by its file

    Scene anim_only = make_sample_scene();
    anim_only.skeleton.animation_only = true;
    SaveOptions save;
    auto out = save_output(anim_only, (dir / "a.cfg").string(), save);
    ASSERT_FALSE(out);
    EXPECT_EQ(out.error().code, ErrorCode::Unsupported);
}

}  // namespace rigport::test
