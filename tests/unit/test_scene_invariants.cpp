// check_invariants: what every reader guarantees and every writer may assume.
#include <gtest/gtest.h>

#include <cmath>

#include "rigport/scene.hpp"

namespace rigport {
namespace {

Scene small_scene() {
    Scene s;
    s.skeleton.joints = {Joint{"root", -1, {}}, Joint{"child", 0, {}}};
    Mesh m;
    m.positions = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
    m.normals = {{0, 0, 1}, {0, 0, 1}, {0, 0, 1}};
    m.triangles = {{0, 1, 2}};
    m.skin.offsets = {0, 1, 2, 3};
    m.skin.influences = {{0, 1.0f}, {1, 1.0f}, {1, 1.0f}};
    s.meshes.push_back(m);
    Animation a;
    a.tracks.push_back(JointTrack{1, Channel::Rotation, Interpolation::Linear, {0, 1}, {0, 0, 0, 1, 0, 0, 1, 0}});
    s.animations.push_back(a);
    return s;
}

TEST(SceneInvariants, ValidSceneHolds) { EXPECT_TRUE(check_invariants(small_scene())); }

TEST(SceneInvariants, EachBreachIsNamed) {
    struct Case {
        const char* words;
        void (*breach)(Scene&);
    };
    const Case cases[] = {
        {"parent 1 is not an earlier joint", [](Scene& s) { s.skeleton.joints[1].parent = 1; }},
        {"normals has 2 entries for 3 vertices", [](Scene& s) { s.meshes[0].normals.pop_back(); }},
        {"triangle 0 uses vertex 3 >= 3", [](Scene& s) { s.meshes[0].triangles[0][2] = 3; }},
        {"skin influence 0 is on joint 2 >= 2 joints", [](Scene& s) { s.meshes[0].skin.influences[0].joint = 2; }},
        {"skin offsets has 3 entries for 3 vertices", [](Scene& s) { s.meshes[0].skin.offsets.pop_back(); }},
        {"skin offsets[3] is 3, below offsets[2] = 4294967295", [](Scene& s) { s.meshes[0].skin.offsets[2] = 0xFFFFFFFFu; }},
        {"skin offsets[2] is 0, below offsets[1] = 1", [](Scene& s) { s.meshes[0].skin.offsets[2] = 0; }},
        {"skin offsets[0] is 1, not 0", [](Scene& s) { s.meshes[0].skin.offsets[0] = 1; }},
        {"skin offsets[3] is 2, not the 3 influences", [](Scene& s) { s.meshes[0].skin.offsets[3] = 2; }},
        {"material 0 out of range", [](Scene& s) { s.meshes[0].material = 0; }},
        {"has 7 values for 2 keys", [](Scene& s) { s.animations[0].tracks[0].values.pop_back(); }},
        {"times[1] = 0 is before times[0] = 1", [](Scene& s) { s.animations[0].tracks[0].times = {1, 0}; }},
        {"not finite", [](Scene& s) { s.skeleton.joints[0].bind.translate[0] = NAN; }},
        {"custom array", [](Scene& s) { s.meshes[0].custom.push_back(CustomArray{"c", ComponentType::Float32, 2, {1, 2}}); }},
    };
    for (auto& c : cases) {
        Scene s = small_scene();
        c.breach(s);
        auto st = check_invariants(s);
        ASSERT_FALSE(st) << c.words;
        EXPECT_NE(st.error().message.find(c.words), std::string::npos) << st.error().message;
    }
}

TEST(Warnings, DeduplicatedAndCounted) {
    Warnings w;
    w.add(WarningCode::SeveralRoots, "3 roots", 10);
    w.add(WarningCode::SeveralRoots, "3 roots", 20);
    w.add(WarningCode::SeveralRoots, "2 roots");
    ASSERT_EQ(w.items.size(), 2u);
    EXPECT_EQ(w.items[0].count, 2u);
    EXPECT_EQ(w.items[0].offset, 10u);  // the first occurrence
    EXPECT_TRUE(w.has(WarningCode::SeveralRoots));
    EXPECT_FALSE(w.has(WarningCode::AnimationOnly));
}

TEST(Error, NamesFileAndPlace) {
    Error e = make_error(ErrorCode::Malformed, "bad", 124);
    e.path = "a.iqm";
    EXPECT_EQ(e.to_string(), "a.iqm: offset 124: bad");
    Error t = make_error(ErrorCode::Malformed, "bad");
    t.path = "a.iqe", t.line = 12, t.column = 5;
    EXPECT_EQ(t.to_string(), "a.iqe:12:5: bad");
}

}  // namespace
}  // namespace rigport
