// SMD through the real binary and against an independent reader: `rigport convert ref.smd
// anim.smd -o x.iqm | x.glb` gives files `rigport validate` accepts, and Debian's assimp reads the
// corpus reference SMDs to the same vertex positions (within 1e-5 of the model size).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "assimp_oracle.hpp"
#include "convert_checks.hpp"
#include "rigport/io.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

namespace fs = std::filesystem;

TEST(SmdConvert, ReferenceAndAnimationToIqmAndGlbValidate) {
    RIGPORT_REQUIRE_CORPUS();
    const fs::path smd = corpus_dir() / "smd";
    const fs::path out = files_dir();
    // Blender Source Tools' cube and an action over the same two nodes.
    const std::string ref = (smd / "Artfunkel_BlenderSourceTools__Cube_Armature_Cube.smd").string();
    const std::string anim = (smd / "Artfunkel_BlenderSourceTools__ActionFilter_X_Axis.smd").string();
    for (const char* ext : {".iqm", ".glb"}) {
        const std::string target = (out / (std::string("cube") + ext)).string();
        Scene scene;
        ASSERT_NO_FATAL_FAILURE(convert_and_validate({ref, anim}, target, scene));
        ASSERT_EQ(scene.animations.size(), 1u);
        EXPECT_EQ(scene.animations[0].name, "Artfunkel_BlenderSourceTools__ActionFilter_X_Axis");
        EXPECT_EQ(scene.skeleton.joints.size(), 2u);
        EXPECT_EQ(scene.triangle_count(), 12u);
    }
    // SMD stores no rate: 30 fps, or --fps before the animation file (the keys move with it).
    const std::string at24 = (out / "cube24.iqm").string();
    auto fps = run_cli({"convert", ref, "--fps", "24", anim, "-o", at24});
    ASSERT_EQ(fps.exit_code, 0) << fps.err;
    auto scene24 = load(at24);
    ASSERT_TRUE(scene24) << scene24.error().to_string();
    EXPECT_EQ(scene24->animations[0].frame_rate, 24.0f);
    EXPECT_EQ(scene24->animations[0].frame_count, 3u);
    // And back to SMD: the reference and its animation beside it.
    const std::string back = (out / "again.smd").string();
    auto r = run_cli({"convert", (out / "cube.iqm").string(), "-o", back});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(fs::exists(out / "again_Artfunkel_BlenderSourceTools__ActionFilter_X_Axis.smd"));
    expect_format_listed("smd");
}



TEST(SmdConvert, AssimpAgreesOnVertexPositions) {
    RIGPORT_REQUIRE_CORPUS();
    RIGPORT_REQUIRE_ASSIMP();
    const fs::path dir = files_dir();
    for (const char* stem : {"assimp_assimp__WusonSMD", "assimp_assimp__holy_grailref", "assimp_assimp__triangle", "Artfunkel_BlenderSourceTools__Cube_Armature_Cube",
                             "Artfunkel_BlenderSourceTools__Cube_Armature_GoldSource_Cube", "Artfunkel_BlenderSourceTools__Curve_Armature_BezierCurve",
                             "Artfunkel_BlenderSourceTools__Overlapping_DifferentWeights"}) {
        const fs::path in = corpus_dir() / "smd" / (std::string(stem) + ".smd");
        const fs::path obj = dir / (std::string(stem) + ".obj");
        ASSERT_TRUE(assimp_export_obj(in, obj));
        const auto theirs = obj_vertex_positions(obj);
        auto scene = load(in.string());
        ASSERT_TRUE(scene) << scene.error().to_string();
        // assimp keeps SMD's model-space positions as they are (no change of axes).
        const auto ours = mesh_positions(*scene);
        const double size = largest_coordinate(ours);
        ASSERT_FALSE(theirs.empty()) << stem;
        expect_same_points_as_assimp(stem, ours, theirs, size);
    }
}

}  // namespace
}  // namespace rigport::test
