// FBX transform inheritance and animation evaluation (docs/fbx.md §2.2, §2.6), on small scenes
// written here whose answers are worked out by hand: InheritType RSrs / RrSs / Rrs under a
// scaled parent, cubic keys between keys (Hermite and weighted Bezier), and animation layers
// combined by weight and blend mode.
#include <gtest/gtest.h>

#include <bit>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <string>

#include "rigport/anim.hpp"
#include "rigport/io.hpp"
#include "test_support.hpp"

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

// The scene read with its curves resampled at 30 Hz (so values between keys can be checked).
Expected<Scene> load_resampled(const std::string& objects, const std::string& connections) {
    const std::string text = fbx_scene(objects, connections);
    LoadOptions options;
    options.resample_curves = true;
    return load_bytes(std::vector<uint8_t>(text.begin(), text.end()), "scene.fbx", options);
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

namespace {

constexpr int64_t second = 46186158000;  // FBX ticks

// An AnimationCurve from (seconds, value) keys, per-key flags and KeyAttrDataFloat (4 per key,
// written as ASCII files write them: each float's bit pattern as an integer).
std::string curve(int id, const std::vector<std::pair<double, double>>& keys, const std::vector<int64_t>& flags, const std::vector<float>& data) {
    std::string times, values, f, d, counts;
    for (auto [t, v] : keys) {
        times += (times.empty() ? "" : ",") + std::to_string(int64_t(std::llround(t * second)));
        values += (values.empty() ? "" : ",") + std::to_string(v);
    }
    for (int64_t x : flags) {
        f += (f.empty() ? "" : ",") + std::to_string(x);
        counts += std::string(counts.empty() ? "" : ",") + "1";
    }
    for (float x : data) d += (d.empty() ? "" : ",") + std::to_string(std::bit_cast<uint32_t>(x));
    const auto n = [](size_t k) { return std::to_string(k); };
    return "\tAnimationCurve: " + n(size_t(id)) + ", \"AnimCurve::\", \"\" {\n\t\tKeyTime: *" + n(keys.size()) + " {\n\t\t\ta: " + times +
           "\n\t\t}\n\t\tKeyValueFloat: *" + n(keys.size()) + " {\n\t\t\ta: " + values + "\n\t\t}\n\t\tKeyAttrFlags: *" + n(flags.size()) +
           " {\n\t\t\ta: " + f + "\n\t\t}\n\t\tKeyAttrDataFloat: *" + n(data.size()) + " {\n\t\t\ta: " + d +
           "\n\t\t}\n\t\tKeyAttrRefCount: *" + n(flags.size()) + " {\n\t\t\ta: " + counts + "\n\t\t}\n\t}\n";
}

// Weights packed as KeyAttrDataFloat's third value: right in the low 16 bits, next-left high.
float packed_weights(double right, double next_left) {
    return std::bit_cast<float>(uint32_t(std::lround(right * 1e4)) | uint32_t(std::lround(next_left * 1e4)) << 16);
}

std::string node(int id, const std::string& name) { return "\tAnimationCurveNode: " + std::to_string(id) + ", \"AnimCurveNode::" + name + "\", \"\" {\n\t}\n"; }

std::string link(int child, int parent, const std::string& property = "") {
    return "\tC: \"" + std::string(property.empty() ? "OO" : "OP") + "\"," + std::to_string(child) + "," + std::to_string(parent) +
           (property.empty() ? "" : ", \"" + property + "\"") + "\n";
}

// Y at u in [0, 1] of the Bezier (0, 0) (x1, y1) (x2, y2) (1, 1 or y3), by a dense scan of its
// parameter: independent of the reader's Newton solve.
double bezier_by_scan(double x1, double y1, double x2, double y2, double y3, double u) {
    double best = 0, error = 2;
    for (int i = 0; i <= 200000; ++i) {
        const double s = i / 200000.0, r = 1 - s;
        const double x = 3 * r * r * s * x1 + 3 * r * s * s * x2 + s * s * s;
        if (std::fabs(x - u) < error) {
            error = std::fabs(x - u);
            best = 3 * r * r * s * y1 + 3 * r * s * s * y2 + s * s * s * y3;
        }
    }
    return best;
}

}  // namespace

// Each joint's X translation follows one curve; read resampled at 30 Hz and compared at times
// on that grid with the curve's value worked out by hand (Hermite forms; a weighted span by an
// independent scan of its Bezier).
TEST(FbxCurves, CubicKeysBetweenKeysFollowTheirTangents) {
    const float third = packed_weights(1.0 / 3, 1.0 / 3);
    struct Case {
        const char* name;
        std::vector<std::pair<double, double>> keys;
        std::vector<int64_t> flags;
        std::vector<float> data;
        std::vector<std::pair<double, double>> expected;  // (seconds, value)
    };
    const double weighted_at_03 = bezier_by_scan(0.1, 0, 0.9, 1, 1, 0.3);
    const Case cases[] = {
        // User slopes 0 and 0, weights 1/3: smoothstep 3u^2 - 2u^3.
        {"Flat", {{0, 0}, {1, 1}}, {0x408, 0x408}, {0, 0, third, 0, 0, 0, third, 0}, {{0.3, 0.216}, {0.5, 0.5}}},
        // User slope 2 leaving the first key: (u^3 - 2u^2 + u) * 2 + 3u^2 - 2u^3.
        {"Slope", {{0, 0}, {1, 1}}, {0x408, 0x408}, {2, 0, third, 0, 0, 0, third, 0}, {{0.3, 0.51}, {0.5, 0.75}}},
        // Weighted 0.1 / 0.1 (flags 0x3000000), flat: the Bezier (0,0) (0.1,0) (0.9,1) (1,1).
        {"Weighted", {{0, 0}, {1, 1}}, {0x3000408, 0x408}, {0, 0, packed_weights(0.1, 0.1), 0, 0, 0, third, 0}, {{0.3, weighted_at_03}, {0.5, 0.5}}},
        // Auto (0x108) over 0, 1, 0: the ends' slopes toward their neighbour (1, -1), the middle
        // flat; the first span is (u^3 - 2u^2 + u) + 3u^2 - 2u^3.
        {"Auto", {{0, 0}, {1, 1}, {2, 0}}, {0x108, 0x108, 0x108}, std::vector<float>(12, 0.0f), {{0.5, 0.625}, {1.5, 0.625}}},
        // Maya's auto keys (0x6108: time-independent, progressive clamp): flat ends, smoothstep.
        {"Clamped", {{0, 0}, {1, 1}}, {0x6108, 0x6108}, std::vector<float>(8, 0.0f), {{0.3, 0.216}, {0.5, 0.5}}},
        // TCB (0x208) with tension, continuity and bias 0 over 0, 1, 0: as Auto.
        {"Tcb", {{0, 0}, {1, 1}, {2, 0}}, {0x208, 0x208, 0x208}, std::vector<float>(12, 0.0f), {{0.5, 0.625}, {1.5, 0.625}}},
        // Constant keys holding the next key's value (0x102), then linear.
        {"Next", {{0, 0}, {1, 1}, {2, 3}}, {0x102, 0x4, 0x4}, std::vector<float>(12, 0.0f), {{0.5, 1}, {1.5, 2}}},
    };
    std::string objects, connections;
    int id = 100;
    for (const Case& c : cases) {
        objects += model(id, c.name, "LimbNode", "") + node(id + 1, "T") + curve(id + 2, c.keys, c.flags, c.data);
        connections += link(id, 0) + link(id + 1, 11) + link(id + 1, id, "Lcl Translation") + link(id + 2, id + 1, "d|X");
        id += 10;
    }
    objects += "\tAnimationStack: 10, \"AnimStack::Curves\", \"\" {\n\t}\n\tAnimationLayer: 11, \"AnimLayer::Base\", \"\" {\n\t}\n";
    connections += link(11, 10);
    auto s = load_resampled(objects, connections);
    ASSERT_TRUE(s) << s.error().to_string();
    ASSERT_EQ(s->animations.size(), 1u);
    ASSERT_EQ(s->skeleton.joints.size(), std::size(cases));
    for (size_t j = 0; j < std::size(cases); ++j)
        for (auto [t, v] : cases[j].expected) {
            const auto pose = sample_pose(s->skeleton, s->animations[0], float(t));
            EXPECT_NEAR(pose[j].translate[0], v, 1e-5) << cases[j].name << " at " << t << " s";
        }
}

// Each joint is sampled at the keys of the curves that move it or its ancestors, and the take's
// start and stop (docs/fbx.md §2.6 "Sampling"): Arm (keys at 0, 1, 2 s), its child Hand (its own
// key at 0.25 s, and Arm's), Leg (keys at 0 and 0.5 s; the take stops at 2 s) and Still (no curve:
// no track). Values at the keys are the curves'; Leg holds its last value after 0.5 s.
TEST(FbxCurves, JointsAreSampledAtTheKeysThatMoveThem) {
    const std::vector<float> zeros(12, 0.0f);
    const std::string objects =
        model(100, "Arm", "LimbNode", "") + model(200, "Hand", "LimbNode", vec("Lcl Translation", 1, 0, 0)) + model(300, "Leg", "LimbNode", "") +
        model(400, "Still", "LimbNode", vec("Lcl Translation", 0, 0, 3)) + node(101, "T") + curve(102, {{0, 0}, {1, 1}, {2, 4}}, {4, 4, 4}, zeros) +
        node(201, "R") + curve(202, {{0, 0}, {0.25, 90}}, {4, 4}, zeros) + node(301, "T") + curve(302, {{0, 5}, {0.5, 6}}, {4, 4}, zeros) +
        "\tAnimationStack: 10, \"AnimStack::Walk\", \"\" {\n\t}\n\tAnimationLayer: 11, \"AnimLayer::Base\", \"\" {\n\t}\n";
    const std::string connections = link(100, 0) + link(200, 100) + link(300, 0) + link(400, 0) + link(11, 10) + link(101, 11) +
                                    link(101, 100, "Lcl Translation") + link(102, 101, "d|X") + link(201, 11) + link(201, 200, "Lcl Rotation") +
                                    link(202, 201, "d|Z") + link(301, 11) + link(301, 300, "Lcl Translation") + link(302, 301, "d|Y");
    auto s = load_text(fbx_scene(objects, connections));
    ASSERT_TRUE(s) << s.error().to_string();
    ASSERT_EQ(s->animations.size(), 1u);
    ASSERT_EQ(s->skeleton.joints.size(), 4u);
    std::map<std::string, std::vector<float>> times;
    for (const JointTrack& t : s->animations[0].tracks) {
        const std::string& name = s->skeleton.joints[t.joint].name;
        if (times.count(name)) {
            EXPECT_EQ(times[name], t.times) << name << ": its channels share their times";
        }
        times[name] = t.times;
    }
    EXPECT_EQ(times["Arm"], (std::vector<float>{0, 1, 2}));
    EXPECT_EQ(times["Hand"], (std::vector<float>{0, 0.25f, 1, 2}));
    EXPECT_EQ(times["Leg"], (std::vector<float>{0, 0.5f, 2}));
    EXPECT_EQ(times.count("Still"), 0u);
    const auto at = [&](float t) { return sample_pose(s->skeleton, s->animations[0], t); };
    EXPECT_NEAR(at(2)[0].translate[0], 4.0, 1e-6);
    EXPECT_NEAR(at(0.25f)[1].rotate[2], std::sin(M_PI / 4), 1e-6);
    EXPECT_NEAR(at(1)[2].translate[1], 6.0, 1e-6);
    EXPECT_NEAR(at(1)[3].translate[2], 3.0, 1e-6);
}

namespace {

std::string node_with(int id, const std::string& name, double x, double y, double z) {
    return "\tAnimationCurveNode: " + std::to_string(id) + ", \"AnimCurveNode::" + name + "\", \"\" {\n\t\tProperties70:  {\n" +
           "\t\t\tP: \"d|X\", \"Number\", \"\", \"A\"," + std::to_string(x) + "\n\t\t\tP: \"d|Y\", \"Number\", \"\", \"A\"," + std::to_string(y) +
           "\n\t\t\tP: \"d|Z\", \"Number\", \"\", \"A\"," + std::to_string(z) + "\n\t\t}\n\t}\n";
}

std::string layer(int id, const std::string& name, const std::string& properties) {
    return "\tAnimationLayer: " + std::to_string(id) + ", \"AnimLayer::" + name + "\", \"\" {\n\t\tProperties70:  {\n" + properties + "\t\t}\n\t}\n";
}

std::string number(const std::string& name, double v) { return "\t\t\tP: \"" + name + "\", \"Number\", \"\", \"A\"," + std::to_string(v) + "\n"; }

}  // namespace

// One joint 'Box' at (1, 0, 0) under seven layers, read at 0.5 s (worked out by hand):
//   Base       T.x 0 -> 2 over 1 s                                   x = 1
//   Add        additive at 50 %: T.x 4; R.z 90 (as rotations)        x = 1 + 2 = 3, R = Rz(45)
//   Over       override: S 3                                         S = 3
//   Pass       passthrough, weight animated 0 -> 100 %: T (1, 10, 0) x = 3 + (1 - 3) * 0.5 = 2, y = 5
//   Muted      muted: T.z 100                                        z = 0
//   ByChannel  additive, scales added: S 1                           S = 4
//   Mul        additive at 50 %, scales multiplied: S 2              S = 4 * 2^0.5
TEST(FbxLayers, LayersCombineByWeightAndBlendMode) {
    const std::string linear = curve(30, {{0, 0}, {1, 2}}, {4, 4}, std::vector<float>(8, 0.0f));
    const std::string weight = curve(31, {{0, 0}, {1, 100}}, {4, 4}, std::vector<float>(8, 0.0f));
    std::string objects = model(1, "Box", "LimbNode", vec("Lcl Translation", 1, 0, 0)) +
                          "\tAnimationStack: 10, \"AnimStack::Layers\", \"\" {\n\t}\n" + layer(11, "Base", "") +
                          layer(12, "Add", number("Weight", 50)) + layer(13, "Over", "\t\t\tP: \"BlendMode\", \"enum\", \"\", \"\",1\n") +
                          layer(14, "Pass", "\t\t\tP: \"BlendMode\", \"enum\", \"\", \"\",2\n" + number("Weight", 0)) +
                          layer(15, "Muted", "\t\t\tP: \"Mute\", \"bool\", \"\", \"\",1\n") +
                          layer(16, "ByChannel", "\t\t\tP: \"ScaleAccumulationMode\", \"enum\", \"\", \"\",1\n") + layer(17, "Mul", number("Weight", 50)) +
                          node_with(20, "T", 0, 0, 0) + linear + node_with(21, "T", 4, 0, 0) + node_with(22, "R", 0, 0, 90) + node_with(23, "S", 3, 3, 3) +
                          node_with(24, "T", 1, 10, 0) + "\tAnimationCurveNode: 25, \"AnimCurveNode::Weight\", \"\" {\n\t}\n" + weight +
                          node_with(26, "T", 0, 0, 100) + node_with(27, "S", 1, 1, 1) + node_with(28, "S", 2, 2, 2);
    std::string connections = link(1, 0) + link(11, 10) + link(12, 10) + link(13, 10) + link(14, 10) + link(15, 10) + link(16, 10) + link(17, 10);
    connections += link(20, 11) + link(20, 1, "Lcl Translation") + link(30, 20, "d|X");
    connections += link(21, 12) + link(21, 1, "Lcl Translation") + link(22, 12) + link(22, 1, "Lcl Rotation");
    connections += link(23, 13) + link(23, 1, "Lcl Scaling");
    connections += link(24, 14) + link(24, 1, "Lcl Translation") + link(25, 14) + link(25, 14, "Weight") + link(31, 25, "d|Weight");
    connections += link(26, 15) + link(26, 1, "Lcl Translation") + link(27, 16) + link(27, 1, "Lcl Scaling") + link(28, 17) + link(28, 1, "Lcl Scaling");
    auto s = load_resampled(objects, connections);
    ASSERT_TRUE(s) << s.error().to_string();
    ASSERT_EQ(s->animations.size(), 1u);
    ASSERT_EQ(s->skeleton.joints.size(), 1u);
    const Transform p = sample_pose(s->skeleton, s->animations[0], 0.5f)[0];
    EXPECT_NEAR(p.translate[0], 2.0, 1e-5);
    EXPECT_NEAR(p.translate[1], 5.0, 1e-5);
    EXPECT_NEAR(p.translate[2], 0.0, 1e-5);
    EXPECT_NEAR(std::fabs(p.rotate[2]), std::sin(M_PI / 8), 1e-5);
    EXPECT_NEAR(std::fabs(p.rotate[3]), std::cos(M_PI / 8), 1e-5);
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(p.scale[k], 4 * std::sqrt(2.0), 1e-5) << "scale " << k;
    // At the end Pass weighs 100 %: its values replace the layers below.
    const Transform end = sample_pose(s->skeleton, s->animations[0], 1.0f)[0];
    EXPECT_NEAR(end.translate[0], 1.0, 1e-5);
    EXPECT_NEAR(end.translate[1], 10.0, 1e-5);
    const bool muted_said = std::any_of(s->warnings.items.begin(), s->warnings.items.end(), [](const Warning& w) { return w.message.find("muted") != std::string::npos; });
    EXPECT_TRUE(muted_said);
}

// The corpus's Maya file with three layers on one stack (BaseLayer; X additive; Y additive with
// its weight keyed 0 -> 100 % from frame 1 to 20, channels accumulated channel by channel). At
// the end, from its keys by hand: T = X (10, -, 5) + Y (0, 10, 5) = (10, 10, 10); R = X (90, -, 45)
// + Y (-45, 90, 0) = (45, 90, 45) in XYZ order, which is 90 degrees about Y; scales added (the
// FBX SDK's rule for ScaleAccumulationMode 1, as ufbx reads it): 1 + (5, 1, 5) + (1, 5, 5).
TEST(FbxLayers, MayaLayersFileCombinesItsLayers) {
    RIGPORT_REQUIRE_CORPUS();
    const auto path = rigport::test::corpus_dir() / "fbx" / "ufbx_ufbx__maya_anim_layers_7500_ascii.fbx";
    if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " not in the corpus";
    auto s = load(path.string());
    ASSERT_TRUE(s) << s.error().to_string();
    ASSERT_EQ(s->animations.size(), 1u);
    ASSERT_EQ(s->skeleton.joints.size(), 1u);  // the animated cube moves as a joint
    const Animation& a = s->animations[0];
    const Transform end = sample_pose(s->skeleton, a, a.duration())[0];
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(end.translate[k], 10.0, 1e-4) << k;
    EXPECT_NEAR(std::fabs(end.rotate[1]), std::sqrt(0.5), 1e-5);
    EXPECT_NEAR(std::fabs(end.rotate[3]), std::sqrt(0.5), 1e-5);
    EXPECT_NEAR(end.scale[0], 7.0, 1e-4);
    EXPECT_NEAR(end.scale[1], 7.0, 1e-4);
    EXPECT_NEAR(end.scale[2], 11.0, 1e-4);
    // At frame 1, where the stack's window starts (the clip's 0), layer Y weighs 0: only X's first
    // keys add (0 translation, 0 rotation, scale 1).
    EXPECT_NEAR(a.source_start, 1.0 / 24, 1e-9);
    const Transform first = sample_pose(s->skeleton, a, 0.0f)[0];
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(first.translate[k], 0.0, 1e-3) << k;
    EXPECT_NEAR(first.scale[0], 2.0, 1e-4);
    // The cube's mesh follows it: rigidly bound to the joint.
    ASSERT_FALSE(s->meshes.empty());
    EXPECT_FALSE(s->meshes[0].skin.empty());
}

// A blend shape channel with an in-between shape: FullWeights 50 and 100, the first shape lifting
// vertex 0 by 1, the second by 4. Its percent goes 0 -> 100 over 1 s (resting at 75): the lift is
// 0.5 at 25 %, 1 at 50 %, 2.5 at 75 % (half of each), 4 at 100 %.
TEST(FbxShapes, InBetweenShapesBlendByTheirFullWeights) {
    std::string shapes =
        "\tDeformer: 40, \"Deformer::Shapes\", \"BlendShape\" {\n\t}\n"
        "\tDeformer: 41, \"SubDeformer::Lift\", \"BlendShapeChannel\" {\n\t\tDeformPercent: 75\n\t\tFullWeights: *2 {\n\t\t\ta: 50,100\n\t\t}\n\t}\n";
    for (auto [id, z] : {std::pair{42, 1}, std::pair{43, 4}})
        shapes += "\tGeometry: " + std::to_string(id) + ", \"Geometry::Lift\", \"Shape\" {\n\t\tIndexes: *1 {\n\t\t\ta: 0\n\t\t}\n\t\tVertices: *3 {\n\t\t\ta: 0,0," +
                  std::to_string(z) + "\n\t\t}\n\t}\n";
    const std::string objects = model(20, "Tri", "Mesh", "") + triangle(30) + shapes +
                                "\tAnimationStack: 10, \"AnimStack::Lift\", \"\" {\n\t}\n\tAnimationLayer: 11, \"AnimLayer::Base\", \"\" {\n\t}\n" +
                                "\tAnimationCurveNode: 50, \"AnimCurveNode::DeformPercent\", \"\" {\n\t}\n" +
                                curve(51, {{0, 0}, {1, 100}}, {4, 4}, std::vector<float>(8, 0.0f));
    const std::string connections = link(20, 0) + link(30, 20) + link(40, 30) + link(41, 40) + link(42, 41) + link(43, 41) + link(11, 10) + link(50, 11) +
                                    link(50, 41, "DeformPercent") + link(51, 50, "d|DeformPercent");
    auto s = load_resampled(objects, connections);
    ASSERT_TRUE(s) << s.error().to_string();
    ASSERT_EQ(s->meshes.size(), 1u);
    const Mesh& m = s->meshes[0];
    ASSERT_EQ(m.morph_targets.size(), 2u);
    EXPECT_EQ(m.morph_targets[0].name, "Lift_50");
    EXPECT_EQ(m.morph_targets[1].name, "Lift");
    auto lift = [&](const std::vector<float>& w) { return w[0] * m.morph_targets[0].position_deltas[0][2] + w[1] * m.morph_targets[1].position_deltas[0][2]; };
    EXPECT_NEAR(lift({m.morph_targets[0].default_weight, m.morph_targets[1].default_weight}), 2.5, 1e-6);  // at rest, 75 %
    ASSERT_EQ(s->animations.size(), 1u);
    for (auto [t, z] : {std::pair{0.0, 0.0}, {0.2, 0.4}, {0.5, 1.0}, {0.8, 2.8}, {1.0, 4.0}})
        EXPECT_NEAR(lift(sample_morph_weights(m, 0, s->animations[0], float(t))), z, 1e-5) << "at " << t << " s";
}

// Shape normals are offsets by control point: a triangle facing +Z under a model turned 90
// degrees about Z, its shape tilting vertex 0's normal by (1, 0, 0): at full weight that normal
// is the turned (1, 0, 1) / sqrt 2 = (0, 0.7071, 0.7071); the others keep theirs. A shape whose
// normals are all zero (Blender writes so) gives no normal deltas.
TEST(FbxShapes, ShapeNormalsAreOffsetsPlacedLikeTheMeshNormals) {
    const std::string geometry =
        "\tGeometry: 30, \"Geometry::Tri\", \"Mesh\" {\n\t\tVertices: *9 {\n\t\t\ta: 0,0,0,1,0,0,0,1,0\n\t\t}\n"
        "\t\tPolygonVertexIndex: *3 {\n\t\t\ta: 0,1,-3\n\t\t}\n\t\tLayerElementNormal: 0 {\n\t\t\tMappingInformationType: \"ByPolygonVertex\"\n"
        "\t\t\tReferenceInformationType: \"Direct\"\n\t\t\tNormals: *9 {\n\t\t\t\ta: 0,0,1,0,0,1,0,0,1\n\t\t\t}\n\t\t}\n\t}\n";
    std::string shapes = "\tDeformer: 40, \"Deformer::Shapes\", \"BlendShape\" {\n\t}\n";
    const std::pair<int, const char*> normals[] = {{42, "1,0,0"}, {44, "0,0,0"}};
    for (auto [id, n] : normals)
        shapes += "\tDeformer: " + std::to_string(id - 1) + ", \"SubDeformer::S" + std::to_string(id) + "\", \"BlendShapeChannel\" {\n\t}\n" +
                  "\tGeometry: " + std::to_string(id) + ", \"Geometry::S\", \"Shape\" {\n\t\tIndexes: *1 {\n\t\t\ta: 0\n\t\t}\n\t\tVertices: *3 {\n\t\t\ta: 0,0,1\n\t\t}\n" +
                  "\t\tNormals: *3 {\n\t\t\ta: " + n + "\n\t\t}\n\t}\n";
    auto s = load_text(fbx_scene(model(20, "Tri", "Mesh", vec("Lcl Rotation", 0, 0, 90)) + geometry + shapes,
                                 link(20, 0) + link(30, 20) + link(40, 30) + link(41, 40) + link(42, 41) + link(43, 40) + link(44, 43)));
    ASSERT_TRUE(s) << s.error().to_string();
    ASSERT_EQ(s->meshes.size(), 1u);
    const Mesh& m = s->meshes[0];
    ASSERT_EQ(m.morph_targets.size(), 2u);
    const MorphTarget& tilt = m.morph_targets[0];
    ASSERT_EQ(tilt.normal_deltas.size(), m.vertex_count());
    for (size_t v = 0; v < m.vertex_count(); ++v) {
        const bool moved = m.positions[v][0] == 0 && m.positions[v][1] == 0;  // control point 0 stays at the origin
        const Vec3 n{m.normals[v][0] + tilt.normal_deltas[v][0], m.normals[v][1] + tilt.normal_deltas[v][1], m.normals[v][2] + tilt.normal_deltas[v][2]};
        expect_point(n, 0, moved ? std::sqrt(0.5) : 0, moved ? std::sqrt(0.5) : 1, "normal of vertex " + std::to_string(v));
    }
    EXPECT_TRUE(m.morph_targets[1].normal_deltas.empty());
}
