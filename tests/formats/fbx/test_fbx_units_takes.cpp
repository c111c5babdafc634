// FBX units and takes (docs/units.md, docs/fbx.md "Takes"): a centimetre file reaches glTF and IQM in
// metres unless told otherwise; each animation stack is its window of the file's timeline, from 0.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "formats/fbx/fbx_fixtures.hpp"
#include "rigport/anim.hpp"
#include "rigport/io.hpp"
#include "rigport/process.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace rigport;
using namespace rigport::test;

namespace {

constexpr int64_t ticks = 46186158000;  // one second in FBX time

std::vector<uint8_t> bytes_of(const std::string& text) { return {text.begin(), text.end()}; }

// One bone, "Bone", whose Lcl Translation X is keyed linearly at 0, 1 and 2 s to 0, 100 and 200
// (x = 100 t), and one stack per entry of `stacks`, each with its own layer and copy of the curve:
// NAME plus its Properties70 lines (a window, or none).
std::string one_bone_with_stacks(const std::vector<std::pair<std::string, std::string>>& stacks) {
    std::string objects, connections;
    int64_t id = 1000;
    for (auto& [name, props] : stacks) {
        const int64_t stack = id++, layer = id++, node = id++, curve = id++;
        objects += "\tAnimationStack: " + std::to_string(stack) + ", \"AnimStack::" + name + "\", \"\" {\n\t\tProperties70:  {\n" + props + "\t\t}\n\t}\n";
        objects += "\tAnimationLayer: " + std::to_string(layer) + ", \"AnimLayer::Base\", \"\" {\n\t}\n";
        objects += "\tAnimationCurveNode: " + std::to_string(node) + ", \"AnimCurveNode::T\", \"\" {\n\t\tProperties70:  {\n"
                   "\t\t\tP: \"d|X\", \"Number\", \"\", \"A\",0\n\t\t\tP: \"d|Y\", \"Number\", \"\", \"A\",0\n\t\t\tP: \"d|Z\", \"Number\", \"\", \"A\",0\n\t\t}\n\t}\n";
        objects += "\tAnimationCurve: " + std::to_string(curve) + ", \"AnimCurve::\", \"\" {\n\t\tDefault: 0\n\t\tKeyVer: 4009\n"
                   "\t\tKeyTime: *3 {\n\t\t\ta: 0," + std::to_string(ticks) + "," + std::to_string(2 * ticks) + "\n\t\t}\n"
                   "\t\tKeyValueFloat: *3 {\n\t\t\ta: 0,100,200\n\t\t}\n\t\tKeyAttrFlags: *1 {\n\t\t\ta: 4\n\t\t}\n"
                   "\t\tKeyAttrRefCount: *1 {\n\t\t\ta: 3\n\t\t}\n\t}\n";
        connections += "\tC: \"OO\"," + std::to_string(layer) + "," + std::to_string(stack) + "\n";
        connections += "\tC: \"OO\"," + std::to_string(node) + "," + std::to_string(layer) + "\n";
        connections += "\tC: \"OP\"," + std::to_string(node) + ",300, \"Lcl Translation\"\n";
        connections += "\tC: \"OP\"," + std::to_string(curve) + "," + std::to_string(node) + ", \"d|X\"\n";
    }
    return "; FBX 7.4.0 project file\nFBXHeaderExtension:  {\n\tFBXHeaderVersion: 1003\n\tFBXVersion: 7400\n}\n"
           "GlobalSettings:  {\n\tVersion: 1000\n\tProperties70:  {\n\t\tP: \"UnitScaleFactor\", \"double\", \"Number\", \"\",1\n"
           "\t\tP: \"TimeMode\", \"enum\", \"\", \"\",6\n\t}\n}\n"
           "Objects:  {\n\tModel: 300, \"Model::Bone\", \"LimbNode\" {\n\t}\n" +
           objects + "}\nConnections:  {\n\tC: \"OO\",300,0\n" + connections + "}\n";
}

std::string window(const char* start_name, const char* stop_name, double start, double stop) {
    auto line = [](const char* name, double seconds) {
        return "\t\t\tP: \"" + std::string(name) + "\", \"KTime\", \"Time\", \"\"," + std::to_string(int64_t(std::llround(seconds * ticks))) + "\n";
    };
    return line(start_name, start) + line(stop_name, stop);
}

float bone_x(const Scene& s, const Animation& a, float time) { return sample_pose(s.skeleton, a, time)[0].translate[0]; }

}  // namespace

TEST(FbxTakes, EachStackIsItsWindowFromZero) {
    // Three takes sharing one timeline, as Maya and MotionBuilder write them, then a stack with only
    // ReferenceStart / ReferenceStop, one with no window (its keys' span) and one with an empty
    // window (stop = start: its keys' span too).
    const std::string text = one_bone_with_stacks({{"Walk", window("LocalStart", "LocalStop", 0.0, 2.0 / 3)},
                                                   {"Jump", window("LocalStart", "LocalStop", 5.0 / 6, 4.0 / 3)},
                                                   {"Idle", window("LocalStart", "LocalStop", 1.5, 2.0)},
                                                   {"Ref", window("ReferenceStart", "ReferenceStop", 0.5, 1.0)},
                                                   {"Whole", ""},
                                                   {"Empty", window("LocalStart", "LocalStop", 1.0, 1.0)}});
    auto s = load_bytes(bytes_of(text), "takes.fbx");
    ASSERT_TRUE(s) << s.error().to_string();
    ASSERT_EQ(s->animations.size(), 6u);
    const struct {
        const char* name;
        double start, stop;
    } want[] = {{"Walk", 0.0, 2.0 / 3}, {"Jump", 5.0 / 6, 4.0 / 3}, {"Idle", 1.5, 2.0}, {"Ref", 0.5, 1.0}, {"Whole", 0.0, 2.0}, {"Empty", 0.0, 2.0}};
    for (size_t k = 0; k < 6; ++k) {
        const Animation& a = s->animations[k];
        SCOPED_TRACE(a.name);
        EXPECT_EQ(a.name, want[k].name);
        // Durations to float precision of seconds; positions x = 100 t to 1e-3 cm.
        EXPECT_NEAR(a.duration(), want[k].stop - want[k].start, 1e-6);
        EXPECT_NEAR(a.source_start, want[k].start, 1e-9);
        for (double f : {0.0, 0.25, 0.5, 1.0}) {
            const double t = f * (want[k].stop - want[k].start);
            EXPECT_NEAR(bone_x(*s, a, float(t)), 100 * (want[k].start + t), 1e-3) << "at " << t << " s of the clip";
        }
        for (auto& track : a.tracks) {
            ASSERT_FALSE(track.times.empty());
            EXPECT_GE(track.times.front(), 0.0f);
            EXPECT_LE(track.times.back(), a.duration());
        }
    }
}

TEST(FbxTakes, HostileWindowsAreBoundedErrorsOrClips) {
    // A window spanning the whole 64-bit range cannot be a clip: a clear error, not an overflow.
    const std::string huge = one_bone_with_stacks({{"Huge", "\t\t\tP: \"LocalStart\", \"KTime\", \"Time\", \"\",-9223372036854775807\n"
                                                            "\t\t\tP: \"LocalStop\", \"KTime\", \"Time\", \"\",9223372036854775807\n"}});
    auto s = load_bytes(bytes_of(huge), "huge.fbx");
    ASSERT_FALSE(s);
    EXPECT_NE(s.error().message.find("Huge"), std::string::npos) << s.error().to_string();
    // A window before every key: the pose held from the first key, over the window's length.
    auto early = load_bytes(bytes_of(one_bone_with_stacks({{"Early", window("LocalStart", "LocalStop", -3.0, -1.0)}})), "early.fbx");
    ASSERT_TRUE(early) << early.error().to_string();
    ASSERT_EQ(early->animations.size(), 1u);
    EXPECT_NEAR(early->animations[0].duration(), 2.0, 1e-6);
    EXPECT_NEAR(bone_x(*early, early->animations[0], 1.0f), 0.0, 1e-6);
}

TEST(Units, CentimetreFbxIsMetresInGltfAndIqmAndKeptElsewhere) {
    auto s = load_bytes(bytes_of(fbx_skinned_quad_ascii()), "quad.fbx");
    ASSERT_TRUE(s) << s.error().to_string();
    ASSERT_FLOAT_EQ(s->meta.unit_scale, 0.01f);
    const auto source = mesh_positions(*s);
    const double root_y = s->skeleton.joints[0].bind.translate[1];
    // Each output read back, against the source's numbers times the expected factor (to 1e-6
    // relative: float products).
    auto check = [&](const std::string& name, const std::string& unit, double factor) {
        SCOPED_TRACE(name + " unit '" + unit + "'");
        SaveOptions o;
        o.unit = unit;
        auto out = save_output(*s, name, o);
        ASSERT_TRUE(out) << out.error().to_string();
        auto back = load_bytes(out->bytes, name);
        ASSERT_TRUE(back) << back.error().to_string();
        const auto got = mesh_positions(*back);
        ASSERT_EQ(got.size(), source.size());
        if (name.ends_with(".obj")) {  // OBJ holds no skeleton; its vertices are the posed quad
            for (size_t i = 0; i < got.size(); ++i)
                for (int k = 0; k < 3; ++k) EXPECT_NEAR(got[i][size_t(k)], source[i][size_t(k)] * factor, 1e-6 * 10 * factor) << i;
            return;
        }
        // IQM turns Y up into Z up; compare sizes (the bounding box's diagonal) and a bind length.
        auto diagonal = [](const std::vector<std::array<double, 3>>& p) {
            std::array<double, 3> lo{1e30, 1e30, 1e30}, hi{-1e30, -1e30, -1e30};
            for (auto& q : p)
                for (size_t k = 0; k < 3; ++k) lo[k] = std::min(lo[k], q[k]), hi[k] = std::max(hi[k], q[k]);
            return std::hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
        };
        EXPECT_NEAR(diagonal(got), diagonal(source) * factor, 1e-6 * diagonal(source) * factor);
        const auto& t = back->skeleton.joints[0].bind.translate;
        EXPECT_NEAR(std::hypot(t[0], t[1], t[2]), root_y * factor, 1e-6 * root_y * factor);
        EXPECT_FLOAT_EQ(back->meta.unit_scale, 1.0f);
    };
    check("out.glb", "", 0.01);
    check("out.iqm", "", 0.01);
    check("out.glb", "keep", 1.0);
    check("out.glb", "cm", 1.0);
    check("out.glb", "mm", 10.0);
    check("out.iqm", "inch", 1 / 2.54);
    check("out.obj", "", 1.0);
    check("out.obj", "m", 0.01);
    check("out.obj", "keep", 1.0);

    SaveOptions bad;
    bad.unit = "furlong";
    auto refused = save_output(*s, "out.glb", bad);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().code, ErrorCode::InvalidArgument);
    EXPECT_NE(refused.error().message.find("furlong"), std::string::npos);
    // The source is never changed by a conversion on the way out.
    EXPECT_FLOAT_EQ(s->meta.unit_scale, 0.01f);
    EXPECT_EQ(mesh_positions(*s), source);
}

TEST(Units, CliConvertAndBatchTakeUnit) {
    const fs::path dir = temp_dir();
    write_bytes(dir / "quad.fbx", bytes_of(fbx_skinned_quad_ascii()));
    auto source = load((dir / "quad.fbx").string());
    ASSERT_TRUE(source);
    const double size = largest_coordinate(mesh_positions(*source));
    auto largest_in = [&](const fs::path& p) {
        auto s = load(p.string());
        EXPECT_TRUE(s) << p;
        return s ? largest_coordinate(mesh_positions(*s)) : -1.0;
    };
    auto r = run_cli({"convert", (dir / "quad.fbx").string(), "-o", (dir / "m.glb").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NEAR(largest_in(dir / "m.glb"), size * 0.01, 1e-6 * size);
    r = run_cli({"convert", (dir / "quad.fbx").string(), "-o", (dir / "keep.glb").string(), "--unit", "keep"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NEAR(largest_in(dir / "keep.glb"), size, 1e-6 * size);
    r = run_cli({"convert", (dir / "quad.fbx").string(), "-o", (dir / "bad.glb").string(), "--unit", "furlong"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("--unit 'furlong'"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir / "bad.glb"));
    r = run_cli({"info", (dir / "quad.fbx").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("unit: 0.01 m"), std::string::npos) << r.out;

    fs::create_directories(dir / "in");
    write_bytes(dir / "in" / "quad.fbx", bytes_of(fbx_skinned_quad_ascii()));
    r = run_cli({"batch", (dir / "in").string(), "-o", (dir / "out").string(), "--format", "glb", "--unit", "mm", "-q"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NEAR(largest_in(dir / "out" / "quad.glb"), size * 10, 1e-6 * size * 10);
    r = run_cli({"batch", (dir / "in").string(), "-o", (dir / "out2").string(), "--format", "glb", "--unit", "mm", "--ninja", (dir / "build.ninja").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto ninja = read_bytes(dir / "build.ninja");
    EXPECT_NE(std::string(ninja.begin(), ninja.end()).find("--format glb --unit mm --ninja-deps"), std::string::npos);
    r = run_cli({"batch", (dir / "in").string(), "-o", (dir / "out3").string(), "--format", "glb", "--unit", "parsec"});
    EXPECT_EQ(r.exit_code, 1) << r.err;
}
