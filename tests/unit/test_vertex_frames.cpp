// Vertex frames both ways (docs/formats.md "Vertex animation"): frames read into morph targets and
// grouped by name, and a scene baked back into frames by bake_frames.
#include <gtest/gtest.h>

#include <cmath>

#include "formats/common/vertex_frames.hpp"
#include "rigport/process.hpp"

namespace rigport {
namespace {

TEST(VertexFrames, NamePrefixDropsTheTrailingNumberOnly) {
    EXPECT_EQ(detail::frame_name_prefix("run12"), "run");
    EXPECT_EQ(detail::frame_name_prefix("pain_a03"), "pain_a");
    EXPECT_EQ(detail::frame_name_prefix("death"), "death");
    EXPECT_EQ(detail::frame_name_prefix("123"), "123");
    EXPECT_EQ(detail::frame_name_prefix(std::string_view("jump2\0garbage9", 14)), "jump");
}

TEST(VertexFrames, ConsecutiveFramesWithOnePrefixAreOneGroupAndARepeatGetsANumber) {
    const auto groups = detail::group_frames_by_name({"stand01", "stand02", "run1", "run2", "run3", "stand03"});
    ASSERT_EQ(groups.size(), 3u);
    EXPECT_EQ(groups[0].name, "stand");
    EXPECT_EQ(groups[0].first, 0u);
    EXPECT_EQ(groups[0].count, 2u);
    EXPECT_EQ(groups[1].name, "run");
    EXPECT_EQ(groups[1].first, 2u);
    EXPECT_EQ(groups[1].count, 3u);
    EXPECT_EQ(groups[2].name, "stand_2");
    EXPECT_EQ(groups[2].first, 5u);
    EXPECT_EQ(groups[2].count, 1u);
}

// A triangle in four frames, read the way MD2 / MD3 / MDL readers do, then baked back: every
// frame comes out where it went in (tolerance 1e-6: one float subtraction and one addition).
TEST(VertexFrames, FramesReadAsMorphTargetsBakeBackToTheSameVertices) {
    const std::vector<std::string> names{"idle1", "idle2", "walk1", "walk2"};
    std::vector<std::vector<Vec3>> frames, normals;
    for (int f = 0; f < 4; ++f) {
        const float s = float(f);
        frames.push_back({Vec3{0 + s, 0, 0}, Vec3{1, 0.5f * s, 0}, Vec3{0, 1, 0.25f * s}});
        normals.push_back({Vec3{0, 0, 1}, Vec3{0, 0, 1}, Vec3{0, 0, 1}});
    }
    Scene scene;
    Mesh mesh;
    mesh.positions = frames[0];
    mesh.normals = normals[0];
    mesh.triangles = {{0, 1, 2}};
    detail::add_frame_targets(mesh, names, frames, normals);
    ASSERT_EQ(mesh.morph_targets.size(), 3u);
    EXPECT_EQ(mesh.morph_targets[1].name, "walk1");
    scene.meshes.push_back(std::move(mesh));
    detail::add_frame_animations(scene, detail::group_frames_by_name(names), 4, 10.0f);
    ASSERT_EQ(scene.animations.size(), 2u);
    EXPECT_EQ(scene.animations[1].name, "walk");
    EXPECT_FLOAT_EQ(scene.animations[1].duration(), 0.1f);

    auto baked = bake_frames(scene);
    ASSERT_TRUE(baked) << baked.error().message;
    ASSERT_EQ(baked->frames.size(), 4u);
    ASSERT_EQ(baked->clips.size(), 2u);
    EXPECT_EQ(baked->clips[1].first, 2u);
    EXPECT_EQ(baked->clips[1].count, 2u);
    EXPECT_FLOAT_EQ(baked->clips[1].frame_rate, 10.0f);
    EXPECT_EQ(baked->frames[3].name, "walk2");
    for (int f = 0; f < 4; ++f)
        for (int v = 0; v < 3; ++v)
            for (int k = 0; k < 3; ++k) EXPECT_NEAR(baked->frames[f].positions[0][v][k], frames[f][v][k], 1e-6) << f << " " << v;
}

// One joint moved by a translation track: each baked frame is the bind shape moved by the key,
// and a normal turned by a 90-degree rotation about Z turns with it.
TEST(VertexFrames, ASkinnedSceneBakesTheSkinnedPositionsAndNormals) {
    Scene scene;
    scene.skeleton.joints.push_back({"root", -1, {}});
    Mesh mesh;
    mesh.positions = {Vec3{1, 0, 0}, Vec3{0, 1, 0}, Vec3{0, 0, 1}};
    mesh.normals = {Vec3{1, 0, 0}, Vec3{1, 0, 0}, Vec3{1, 0, 0}};
    mesh.triangles = {{0, 1, 2}};
    mesh.skin.offsets = {0, 1, 2, 3};
    mesh.skin.influences = {{0, 1.0f}, {0, 1.0f}, {0, 1.0f}};
    scene.meshes.push_back(mesh);
    Animation a;
    a.name = "move";
    a.frame_rate = 2.0f;
    JointTrack t{0, Channel::Translation, Interpolation::Linear, {0.0f, 1.0f}, {0, 0, 0, 4, 0, 0}};
    const float h = std::sqrt(0.5f);
    JointTrack r{0, Channel::Rotation, Interpolation::Linear, {0.0f, 1.0f}, {0, 0, 0, 1, 0, 0, h, h}};
    a.tracks = {t, r};
    scene.animations.push_back(a);

    auto baked = bake_frames(scene);
    ASSERT_TRUE(baked) << baked.error().message;
    ASSERT_EQ(baked->frames.size(), 3u);  // 0, 0.5, 1 s at 2 per second
    EXPECT_EQ(baked->frames[0].name, "move1");
    // Frame 3: rotated 90 degrees about Z, then moved 4 along X.
    const auto& p = baked->frames[2].positions[0];
    EXPECT_NEAR(p[0][0], 4.0, 1e-5);
    EXPECT_NEAR(p[0][1], 1.0, 1e-5);
    EXPECT_NEAR(p[1][0], 3.0, 1e-5);
    EXPECT_NEAR(p[1][1], 0.0, 1e-5);
    const auto& n = baked->frames[2].normals[0];
    EXPECT_NEAR(n[0][0], 0.0, 1e-5);
    EXPECT_NEAR(n[0][1], 1.0, 1e-5);
    // Frame 2, half-way: the translation is half the key.
    EXPECT_NEAR(baked->frames[1].positions[0][2][0], 2.0, 1e-5);
}

TEST(VertexFrames, AStaticSceneIsOneBaseFrameWithFaceNormalsWhenItHasNone) {
    Scene scene;
    Mesh mesh;
    mesh.positions = {Vec3{0, 0, 0}, Vec3{1, 0, 0}, Vec3{0, 1, 0}};
    mesh.triangles = {{0, 1, 2}};
    scene.meshes.push_back(mesh);
    auto baked = bake_frames(scene);
    ASSERT_TRUE(baked);
    ASSERT_EQ(baked->frames.size(), 1u);
    EXPECT_EQ(baked->clips[0].name, "base");
    EXPECT_NEAR(baked->frames[0].normals[0][1][2], 1.0, 1e-6);
}

TEST(VertexFrames, TooManyFramesAreRefusedBeforeSampling) {
    Scene scene;
    Mesh mesh;
    mesh.positions = {Vec3{0, 0, 0}, Vec3{1, 0, 0}, Vec3{0, 1, 0}};
    mesh.triangles = {{0, 1, 2}};
    scene.meshes.push_back(mesh);
    scene.skeleton.joints.push_back({"root", -1, {}});
    Animation a;
    a.name = "long";
    a.tracks.push_back({0, Channel::Translation, Interpolation::Linear, {0.0f, 100000.0f}, {0, 0, 0, 1, 0, 0}});
    scene.animations.push_back(a);
    auto baked = bake_frames(scene);
    ASSERT_FALSE(baked);
    EXPECT_EQ(baked.error().code, ErrorCode::LimitExceeded);
    EXPECT_NE(baked.error().message.find("'long'"), std::string::npos);
}

}  // namespace
}  // namespace rigport
