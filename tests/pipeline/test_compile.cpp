// The compiler front end: several inputs, comma lists, per-file animation options, skeleton
// matching by name (reference-compiler bugs 2 and 6 on IQM inputs; IQE inputs in test_iqe_*).
#include <gtest/gtest.h>

#include <fstream>

#include "rigport/anim.hpp"
#include "rigport/compile.hpp"
#include "rigport/formats.hpp"
#include "rigport/io.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

// A triangle skinned to joint 0 of a chain named `names`, with one 5-frame animation that moves
// the last joint's x translation by the frame number.
Scene chain(const std::vector<std::string>& names, const std::string& mesh_name = "body") {
    Scene s;
    for (size_t j = 0; j < names.size(); ++j) s.skeleton.joints.push_back(Joint{names[j], int32_t(j) - 1, {}});
    Mesh m;
    m.name = mesh_name;
    m.positions = {{0, 0, 0}, {0, 1, 0}, {1, 0, 0}};
    m.triangles = {{0, 1, 2}};
    m.skin.offsets = {0, 1, 2, 3};
    m.skin.influences = {{0, 1}, {0, 1}, {0, 1}};
    s.meshes.push_back(m);
    Animation a;
    a.name = "move";
    a.frame_rate = 10;
    a.frame_count = 5;
    JointTrack t{uint32_t(names.size() - 1), Channel::Translation, Interpolation::Linear, {}, {}};
    for (int f = 0; f < 5; ++f) {
        t.times.push_back(float(f) / 10.0f);
        t.values.insert(t.values.end(), {float(f), 0, 0});
    }
    a.tracks.push_back(t);
    s.animations.push_back(a);
    return s;
}

std::string save_to(const Scene& s, const std::string& name) {
    auto path = (temp_dir().parent_path() / ("compile-" + name)).string();
    EXPECT_TRUE(save(s, path)) << path;
    return path;
}

CompileInput input(std::string path, AnimationInputOptions o = {}) { return CompileInput{{std::move(path)}, std::move(o)}; }

TEST(Compile, AnimationFileMatchedByJointName) {
    auto mesh = save_to(chain({"root", "arm", "hand"}), "mesh.iqm");
    // Same joints in another order: the track on "hand" must land on the mesh's "hand" (2).
    Scene other = chain({"root", "hand"});
    other.skeleton.joints = {Joint{"root", -1, {}}, Joint{"arm", 0, {}}, Joint{"hand", 1, {}}};
    std::swap(other.skeleton.joints[1].name, other.skeleton.joints[2].name);  // root, hand, arm
    other.animations[0].tracks[0].joint = 1;                                  // "hand"
    other.animations[0].name = "wave";
    auto anim = save_to(other, "anim.iqm");
    auto scene = compile({input(mesh), input(anim)}, CompileOptions{});
    ASSERT_TRUE(scene) << scene.error().to_string();
    ASSERT_EQ(scene->animations.size(), 2u);
    EXPECT_EQ(scene->animations[1].name, "wave");
    bool found = false;
    for (auto& t : scene->animations[1].tracks)
        if (t.channel == Channel::Translation && t.times.size() == 5) found = t.joint == 2;
    EXPECT_TRUE(found);
    // The parent differs ("hand" under "root" there, under "arm" here): reported, not hidden.
    EXPECT_TRUE(scene->warnings.has(WarningCode::PoseParentMismatch));
}

// Reference bug 6: a joint the mesh lacks made the reference compiler write an inconsistent file.
// Its channels are left out with one warning (as studiomdl and assimp ignore them); an animation
// with no joint of the mesh's is refused.
TEST(Compile, AnimationJointsTheMeshLacksAreLeftOutNotWrittenInconsistent) {
    auto mesh = save_to(chain({"root", "arm"}), "mesh2.iqm");
    auto anim = save_to(chain({"root", "arm", "tail"}), "anim2.iqm");
    auto scene = compile({input(mesh), input(anim)}, CompileOptions{});
    ASSERT_TRUE(scene) << scene.error().to_string();
    ASSERT_EQ(scene->animations.size(), 2u);
    size_t kept = 0;
    for (auto& t : scene->animations[1].tracks) {
        EXPECT_LT(t.joint, 2u);
        ++kept;
    }
    EXPECT_GT(kept, 0u);  // root and arm keep their channels
    size_t notes = 0;
    for (auto& w : scene->warnings.items)
        if (w.message.find("lacks") != std::string::npos) {
            ++notes;
            EXPECT_EQ(w.code, WarningCode::Ignored);
            EXPECT_NE(w.message.find("1 joint the mesh's skeleton lacks left out: 'tail'"), std::string::npos) << w.message;
            EXPECT_NE(w.path.find("anim2.iqm"), std::string::npos);
        }
    EXPECT_EQ(notes, 1u);
    EXPECT_TRUE(check_invariants(*scene));

    auto stranger = save_to(chain({"wing", "tip"}), "anim3.iqm");
    auto bad = compile({input(mesh), input(stranger)}, CompileOptions{});
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().message.find("none of the animation's 2 joints ('wing', 'tip')"), std::string::npos) << bad.error().message;
    EXPECT_NE(bad.error().path.find("anim3.iqm"), std::string::npos);
}

TEST(Compile, CommaListKeepsEveryTriangleOfEqualMeshes) {  // reference bug 2, comma-joined
    auto a = save_to(chain({"root"}, "hull"), "a.iqm");
    auto b = save_to(chain({"root"}, "hull"), "b.iqm");
    auto scene = compile({CompileInput{{a, b}, {}}}, CompileOptions{});
    ASSERT_TRUE(scene) << scene.error().to_string();
    EXPECT_EQ(scene->triangle_count(), 2u);
}

// --start / --end / --fps / --name / --loop on a 5-frame animation whose hand moves x = frame.
std::vector<float> frames_after(AnimationInputOptions o, Animation* out = nullptr) {
    auto path = save_to(chain({"root", "hand"}), "opts.iqm");
    auto scene = compile({input(path, o)}, CompileOptions{});
    EXPECT_TRUE(scene) << scene.error().to_string();
    std::vector<float> xs;
    if (!scene) return xs;
    const Animation& a = scene->animations.at(0);
    for (uint32_t f = 0; f < a.frame_count; ++f) xs.push_back(frame_pose(scene->skeleton, a, f)[1].translate[0]);
    if (out) *out = a;
    return xs;
}

// The x of each kept frame, compared within one IQM quantization step (4 / 65535) since the
// input went through an IQM file.
void expect_frames(const std::vector<float>& got, const std::vector<float>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 4.0 / 65535 + 1e-6) << "frame " << i;
}

AnimationInputOptions range(std::optional<int64_t> start, std::optional<int64_t> end) {
    AnimationInputOptions o;
    o.start = start;
    o.end = end;
    return o;
}

TEST(Compile, AnimationOptionsAsTheReferenceCompiler) {
    expect_frames(frames_after(AnimationInputOptions{}), {0, 1, 2, 3, 4});
    expect_frames(frames_after(range(1, 3)), {1, 2, 3});         // inclusive
    expect_frames(frames_after(range(-5, {})), {0, 1, 2, 3, 4});  // start clamped to 0
    expect_frames(frames_after(range({}, -1)), {0, 1, 2, 3, 4});  // -1 = unset
    expect_frames(frames_after(range({}, -2)), {0, 1, 2, 3, 4});  // still keeps the last frame
    expect_frames(frames_after(range({}, -3)), {0, 1, 2, 3});     // drops one
    Animation a;
    AnimationInputOptions named;
    named.name = std::string("run");
    named.fps = 25.0f;
    named.loop = true;
    expect_frames(frames_after(named, &a), {0, 1, 2, 3, 4});
    EXPECT_EQ(a.name, "run");
    EXPECT_EQ(a.frame_rate, 25.0f);
    EXPECT_TRUE(a.loop);
}

TEST(Compile, TransformIsAppliedAfterMerging) {
    auto path = save_to(chain({"root"}), "scaled.iqm");
    CompileOptions o;
    o.transform.scale = 2;
    auto scene = compile({input(path)}, o);
    ASSERT_TRUE(scene) << scene.error().to_string();
    EXPECT_EQ(scene->meshes[0].positions[1], (Vec3{0, 2, 0}));
}

}  // namespace
}  // namespace rigport::test

namespace rigport::test {
namespace {

// Two equal vertices in a file without normals, no tangents: the plain load (the default) keeps
// them apart and gives smoothing normals only; the compiler's pipeline (asked for explicitly, as
// `rigport convert` does) welds them and adds tangents.
TEST(Compile, TheCompilerPipelineIsAnExplicitOption) {
    const auto path = temp_dir() / "pipeline.iqe";
    std::ofstream(path) << "# Inter-Quake Export\nmesh m\n"
                           "vp 0 0 0\nvt 0 0\nvp 1 0 0\nvt 1 0\nvp 0 1 0\nvt 0 1\nvp 0 0 0\nvt 0 0\n"
                           "fm 0 1 2\nfm 3 2 1\n";
    const CompileInput in{{path.string()}, {}};
    auto plain = compile({in}, CompileOptions{});
    ASSERT_TRUE(plain) << plain.error().to_string();
    EXPECT_EQ(plain->vertex_count(), 4u);
    EXPECT_EQ(plain->meshes.at(0).normals.size(), 4u) << "the smoothing rules' normals, as load() gives";
    EXPECT_TRUE(plain->meshes.at(0).tangents.empty());
    auto loaded = load(path.string());
    ASSERT_TRUE(loaded) << loaded.error().to_string();
    EXPECT_EQ(loaded->meshes.at(0).positions, plain->meshes.at(0).positions);
    EXPECT_EQ(loaded->meshes.at(0).normals, plain->meshes.at(0).normals);

    const CompileOptions iqm = compiler_options(*find_format("iqm"));
    EXPECT_EQ(iqm.pipeline, Pipeline::Compiler);
    EXPECT_EQ(iqm.max_influences, 4u);
    EXPECT_EQ(iqm.clip_end, ClipEnd::Clamp);
    auto compiled = compile({in}, iqm);
    ASSERT_TRUE(compiled) << compiled.error().to_string();
    EXPECT_EQ(compiled->vertex_count(), 3u) << "welded";
    EXPECT_EQ(compiled->meshes.at(0).tangents.size(), 3u);

    // Plain defaults keep every influence and the keys as they are; a Cal3D output keeps DURATION.
    EXPECT_EQ(CompileOptions{}.max_influences, 0u);
    EXPECT_EQ(CompileOptions{}.clip_end, ClipEnd::None);
    EXPECT_EQ(compiler_options(*find_format("cal3d")).clip_end, ClipEnd::None);
    EXPECT_EQ(compiler_options(*find_format("gltf")).max_influences, 0u);
}

// Every warning names the file it is about: a reader's the input, compile()'s each input's own.
TEST(Compile, WarningsNameTheirFile) {
    const auto mesh = save_to(chain({"root", "arm", "hand"}), "warned-mesh.iqm");
    Scene other = chain({"root", "arm", "hand"});
    other.skeleton.joints[2].parent = 0;  // hand under root: another parent than in the mesh
    other.animations[0].name = "wave";
    const auto anim = save_to(other, "warned-anim.iqm");
    auto scene = compile({input(mesh), input(anim)}, CompileOptions{});
    ASSERT_TRUE(scene) << scene.error().to_string();
    bool found = false;
    for (auto& w : scene->warnings.items) {
        EXPECT_FALSE(w.path.empty()) << w.message;
        if (w.code == WarningCode::PoseParentMismatch) {
            EXPECT_EQ(w.path, anim);
            EXPECT_EQ(w.to_string().rfind(anim + ": joint 'hand'", 0), 0u) << w.to_string();
            found = true;
        }
    }
    EXPECT_TRUE(found);
}

}  // namespace
}  // namespace rigport::test
