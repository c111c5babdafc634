// `rigport retarget` through the real binary (docs/retarget.md, docs/cli.md "retarget"): a
// Mixamo-named clip onto a Valve-biped-named model by the auto map, map files given and saved, root
// motion in place, the unmapped joints warned, and bad map files refused with nothing written.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "rigport/io.hpp"
#include "test_support.hpp"
#include "unit/retarget_figures.hpp"

namespace rigport::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A model of the figure: a small triangle at each joint, skinned to it, so every writer keeps the skeleton.
Scene model_of(Skeleton skeleton, std::vector<Animation> clips = {}) {
    Scene scene;
    Mesh mesh;
    mesh.name = "body";
    const auto world = world_matrices(skeleton, bind_pose(skeleton));
    for (uint32_t j = 0; j < skeleton.joints.size(); ++j) {
        const float x = float(world[j][3][0]), y = float(world[j][3][1]), z = float(world[j][3][2]);
        for (Vec3 p : {Vec3{x, y, z}, Vec3{x + 0.02f, y, z}, Vec3{x, y + 0.02f, z}}) {
            mesh.positions.push_back(p);
            mesh.skin.offsets.push_back(uint32_t(mesh.skin.influences.size()));
            mesh.skin.influences.push_back({j, 1.0f});
        }
        mesh.triangles.push_back({3 * j, 3 * j + 1, 3 * j + 2});
    }
    mesh.skin.offsets.push_back(uint32_t(mesh.skin.influences.size()));
    scene.meshes.push_back(std::move(mesh));
    scene.skeleton = std::move(skeleton);
    scene.animations = std::move(clips);
    return scene;
}

struct Files {
    fs::path dir, clip, onto;
};

Files write_figures() {
    Files f;
    f.dir = files_dir();
    const Skeleton mixamo = make_figure({.rig = Rig::Mixamo});
    f.clip = f.dir / "walk.glb";
    f.onto = f.dir / "citizen.glb";
    EXPECT_TRUE(save(model_of(mixamo, {make_walk(mixamo)}), f.clip.string()));
    EXPECT_TRUE(save(model_of(make_figure({.rig = Rig::Valve, .leg_scale = 0.9, .arm_drop_degrees = 40, .turned_joints = true, .weapon = true})),
                     f.onto.string()));
    return f;
}

std::string text_of(const fs::path& p) {
    const auto bytes = read_bytes(p);
    return std::string(bytes.begin(), bytes.end());
}

TEST(RetargetCli, MixamoClipOntoValveBipedByTheAutoMap) {
    const Files f = write_figures();
    const fs::path out = f.dir / "citizen_walk.glb", map = f.dir / "used.json";
    RunResult r = run_cli({"retarget", f.clip.string(), "--onto", f.onto.string(), "-o", out.string(), "--map", "auto", "--save-map", map.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // The joints no source joint drives, in one warning.
    EXPECT_NE(r.err.find("unmapped"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("ValveBiped.weapon_bone"), std::string::npos) << r.err;
    const json pairs = json::parse(text_of(map));
    EXPECT_EQ(pairs["mixamorig:Hips"], "ValveBiped.Bip01_Pelvis");
    EXPECT_EQ(pairs["mixamorig:LeftUpLeg"], "ValveBiped.Bip01_L_Thigh");
    EXPECT_EQ(pairs["mixamorig:RightHandIndex1"], "ValveBiped.Bip01_R_Finger1");

    // The written model's bones point where the clip's do, at every key.
    auto clip = load(f.clip.string());
    auto written = load(out.string());
    ASSERT_TRUE(clip && written);
    ASSERT_EQ(written->animations.size(), 1u);
    EXPECT_EQ(written->animations[0].name, "walk");
    EXPECT_EQ(written->meshes.size(), 1u);
    double worst = 0;
    for (float t : {0.0f, 0.25f, 0.5f, 0.75f, 1.0f})
        for (auto& [from, to] : compared_bones())
            worst = std::max(worst, bone_angle(clip->skeleton, Rig::Mixamo, clip->animations[0], written->skeleton, Rig::Valve, written->animations[0], t, from, to));
    std::printf("[ figures  ] through the CLI and glb files: worst bone angle %.2e degrees\n", worst);
    EXPECT_LT(worst, 0.5);

    // The saved map given back as the map: the same model, byte for byte.
    const fs::path again = f.dir / "again.glb";
    r = run_cli({"retarget", f.clip.string(), "--onto", f.onto.string(), "-o", again.string(), "--map", map.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(read_bytes(again), read_bytes(out));
}

TEST(RetargetCli, MapFileOverridesAndRootMotionInPlace) {
    const Files f = write_figures();
    const fs::path out = f.dir / "out.glb", overrides = f.dir / "mine.json", saved = f.dir / "saved.json";
    write_bytes(overrides, [] {
        const std::string t = R"({"mixamorig:Head": null, "mixamorig:Spine1": "ValveBiped.Bip01_Spine1"})";
        return std::vector<uint8_t>(t.begin(), t.end());
    }());
    RunResult r = run_cli({"retarget", f.clip.string(), "--onto", f.onto.string(), "-o", out.string(), "--map", overrides.string(),
                           "--root-motion", "in-place", "--name", "stroll", "--save-map", saved.string(), "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const json record = json::parse(r.out);
    EXPECT_EQ(record["map"]["mixamorig:Spine1"], "ValveBiped.Bip01_Spine1");
    EXPECT_FALSE(record["map"].contains("mixamorig:Head"));
    EXPECT_EQ(record["map"], json::parse(text_of(saved)));
    const auto unmapped = record["unmapped"].get<std::vector<std::string>>();
    EXPECT_NE(std::find(unmapped.begin(), unmapped.end(), "ValveBiped.Bip01_Head1"), unmapped.end());
    EXPECT_NE(std::find(unmapped.begin(), unmapped.end(), "ValveBiped.Bip01_Spine2"), unmapped.end());

    // In place: the pelvis keeps its rest position across the ground (x and z; y is up here) at every key.
    auto written = load(out.string());
    ASSERT_TRUE(written);
    ASSERT_EQ(written->animations.size(), 1u);
    EXPECT_EQ(written->animations[0].name, "stroll");
    const int32_t pelvis = joint_index(written->skeleton, "ValveBiped.Bip01_Pelvis");
    const auto rest = posed_positions(written->skeleton, Animation{}, 0)[size_t(pelvis)];
    double moved_up = 0;
    for (float t : {0.0f, 0.25f, 0.5f, 0.75f, 1.0f}) {
        const auto p = posed_positions(written->skeleton, written->animations[0], t)[size_t(pelvis)];
        EXPECT_NEAR(p[0], rest[0], 1e-5);
        EXPECT_NEAR(p[2], rest[2], 1e-5);
        moved_up = std::max(moved_up, std::abs(p[1] - rest[1]));
    }
    EXPECT_GT(moved_up, 0.01);  // the bob is kept
}

// A bad map file is a read error (exit 2) naming the file; nothing is written and an old output stays.
TEST(RetargetCli, BadMapFilesAreRefusedAndNothingIsWritten) {
    const Files f = write_figures();
    const fs::path out = f.dir / "out.glb", saved = f.dir / "saved.json";
    const std::vector<uint8_t> old{'o', 'l', 'd'};
    write_bytes(out, old);
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"{\"mixamorig:Hips\": ", "not JSON"},
        {"[\"mixamorig:Hips\"]", "a bone map is a JSON object"},
        {R"({"mixamorig:Hips": "ValveBiped.Bip01_Nowhere"})", "the target skeleton has no joint"},
        {R"({"mixamorig:Tail": "ValveBiped.Bip01_Pelvis"})", "the clips' skeleton has no such joint"},
    };
    for (auto& [text, says] : cases) {
        SCOPED_TRACE(text);
        const fs::path map = f.dir / "bad.json";
        write_bytes(map, std::vector<uint8_t>(text.begin(), text.end()));
        RunResult r = run_cli({"retarget", f.clip.string(), "--onto", f.onto.string(), "-o", out.string(), "--map", map.string(), "--save-map", saved.string()});
        EXPECT_EQ(r.exit_code, 2) << r.err;
        EXPECT_NE(r.err.find("Error: " + map.string()), std::string::npos) << r.err;
        EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
        EXPECT_EQ(read_bytes(out), old);
        EXPECT_FALSE(fs::exists(saved));
    }
    // A missing map file is a read error too; an unknown root motion is a usage error (exit 1).
    RunResult r = run_cli({"retarget", f.clip.string(), "--onto", f.onto.string(), "-o", out.string(), "--map", (f.dir / "none.json").string()});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    r = run_cli({"retarget", f.clip.string(), "--onto", f.onto.string(), "-o", out.string(), "--root-motion", "sideways"});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("--root-motion 'sideways'"), std::string::npos) << r.err;
    EXPECT_EQ(read_bytes(out), old);
}

}  // namespace
}  // namespace rigport::test
