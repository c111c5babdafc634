// Engine targets (docs/targets.md): every profile names its formats and the source of each
// limit; a small model within every limit fits every profile; a model made to break one limit of
// one profile is named by check_target with that limit's code; `rigport targets` and `rigport
// check --target` on the command line.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <set>
#include <string>

#include "pipeline/target_fix.hpp"
#include "rigport/formats.hpp"
#include "rigport/io.hpp"
#include "rigport/sample.hpp"
#include "rigport/targets.hpp"
#include "test_support.hpp"

using namespace rigport;
using namespace rigport::test;

namespace {

// A triangle skinned to one root joint "origin" (the name id Tech 4 wants), one short animation:
// within every profile's limits.
Scene small_model() {
    Scene s;
    Mesh m;
    m.name = "body";
    m.positions = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
    m.triangles = {{0, 1, 2}};
    m.skin.offsets = {0, 1, 2, 3};
    m.skin.influences = {{0, 1.0f}, {0, 1.0f}, {0, 1.0f}};
    s.meshes.push_back(m);
    s.skeleton.joints.push_back(Joint{"origin", -1, Transform{}});
    Animation a;
    a.name = "idle";
    JointTrack t;
    t.joint = 0;
    t.channel = Channel::Translation;
    t.times = {0.0f, 0.5f};
    t.values = {0, 0, 0, 0, 0, 1};
    a.tracks.push_back(t);
    s.animations.push_back(a);
    return s;
}

// Adds a chain of joints under the last one until the skeleton has n joints.
void grow_joints(Scene& s, size_t n) {
    while (s.skeleton.joints.size() < n)
        s.skeleton.joints.push_back(Joint{"j" + std::to_string(s.skeleton.joints.size()), int32_t(s.skeleton.joints.size()) - 1, Transform{}});
}

// The small model changed to count `n` of what `measure` counts.
Scene breaking(TargetMeasure measure, uint64_t n, double frame_rate) {
    Scene s = small_model();
    Mesh& m = s.meshes[0];
    auto vertices = [&](uint64_t count) {  // count vertices, in triangles (the last ones repeated)
        m.positions.resize(count);
        for (uint64_t v = 0; v < count; ++v) m.positions[v] = {float(v), 0, 1};  // distinct
        m.skin.offsets.resize(count + 1);
        m.skin.influences.resize(count, Influence{0, 1.0f});
        for (uint64_t v = 0; v <= count; ++v) m.skin.offsets[v] = uint32_t(v);
        m.triangles.clear();
        for (uint64_t v = 0; v + 2 < count + 2; v += 3)
            m.triangles.push_back({uint32_t(std::min(v, count - 1)), uint32_t(std::min(v + 1, count - 1)), uint32_t(std::min(v + 2, count - 1))});
    };
    switch (measure) {
        case TargetMeasure::Influences:
            grow_joints(s, n);
            m.skin.influences.clear();
            m.skin.offsets = {0};
            for (uint32_t v = 0; v < 3; ++v) {
                const uint64_t k = v == 0 ? n : 1;
                for (uint64_t j = 0; j < k; ++j) m.skin.influences.push_back({uint32_t(j), 1.0f / float(k)});
                m.skin.offsets.push_back(uint32_t(m.skin.influences.size()));
            }
            break;
        case TargetMeasure::Joints: grow_joints(s, n); break;
        case TargetMeasure::JointsPerMesh:
            grow_joints(s, n);
            vertices(n);
            for (uint64_t v = 0; v < n; ++v) m.skin.influences[v].joint = uint32_t(v);
            break;
        case TargetMeasure::Roots:
            for (uint64_t r = 1; r < n; ++r) s.skeleton.joints.push_back(Joint{"root" + std::to_string(r), -1, Transform{}});
            break;
        case TargetMeasure::VerticesPerMesh:
        case TargetMeasure::Vertices:
        case TargetMeasure::Positions: vertices(n); break;
        case TargetMeasure::TrianglesPerMesh:
        case TargetMeasure::Triangles: m.triangles.assign(n, {0, 1, 2}); break;
        case TargetMeasure::Meshes:
            while (s.meshes.size() < n) s.meshes.push_back(s.meshes[0]);
            break;
        case TargetMeasure::Frames:
            // n frames at the profile's rate: from 0 to (n - 1) / rate.
            s.animations[0].tracks[0].times = {0.0f, float(double(n - 1) / frame_rate)};
            break;
        case TargetMeasure::JointNameBytes: s.skeleton.joints[0].name = std::string(n, 'j'); break;
        case TargetMeasure::MeshNameBytes: s.meshes[0].name = std::string(n, 'm'); break;
        case TargetMeasure::MaterialNameBytes:
            s.materials.push_back(Material{});
            s.materials[0].name = std::string(n, 't');
            s.meshes[0].material = 0;
            break;
        case TargetMeasure::AnimationNameBytes: s.animations[0].name = std::string(n, 'a'); break;
    }
    return s;
}

bool has_code(const ValidationReport& r, const std::string& code) {
    for (auto& f : r.findings)
        if (f.code == code) return true;
    return false;
}

}  // namespace

TEST(Targets, EveryProfileNamesItsFormatsAndSources) {
    std::set<std::string> names;
    for (const TargetProfile& p : target_profiles()) {
        SCOPED_TRACE(std::string(p.name));
        EXPECT_TRUE(names.insert(std::string(p.name)).second);
        EXPECT_EQ(find_target(p.name), &p);
        EXPECT_FALSE(p.engine.empty());
        ASSERT_FALSE(p.formats.empty());
        for (auto f : p.formats) {
            const FormatInfo* info = find_format(f);
            ASSERT_NE(info, nullptr) << f;
            EXPECT_TRUE(info->write) << f << ": the profile's output must be writable";
        }
        for (const TargetLimit& l : p.limits) {
            EXPECT_GT(l.most, 0u) << target_measure_name(l.measure);
            EXPECT_GT(l.source.size(), 10u) << target_measure_name(l.measure) << ": every limit names its source";
        }
        if (!p.root_name.empty()) {
            EXPECT_FALSE(p.root_name_source.empty());
        }
    }
    for (const char* wanted : {"idtech4", "goldsrc", "source", "quake", "quake2", "quake3", "darkplaces", "fte", "raylib", "godot", "three", "unity", "unreal"})
        EXPECT_TRUE(names.count(wanted)) << wanted;
    EXPECT_EQ(find_target("GoldSrc"), find_target("goldsrc"));
    EXPECT_EQ(find_target("doom3"), nullptr);
}

// The small model fits every profile; each limit of each profile, broken by one, is named with
// its code and nothing else is (the other limits still hold).
TEST(Targets, EachBrokenLimitIsNamedByItsCode) {
    for (const TargetProfile& p : target_profiles()) {
        SCOPED_TRACE(std::string(p.name));
        const ValidationReport fits = check_target(small_model(), p);
        EXPECT_TRUE(fits.findings.empty()) << fits.findings[0].message;
        for (const TargetLimit& l : p.limits) {
            const std::string code = "target." + std::string(target_measure_name(l.measure));
            SCOPED_TRACE(code);
            const Scene at = breaking(l.measure, l.most, p.frame_rate > 0 ? p.frame_rate : 30);
            EXPECT_FALSE(has_code(check_target(at, p), code)) << "at the limit, " << l.most;
            const ValidationReport over = check_target(breaking(l.measure, l.most + 1, p.frame_rate > 0 ? p.frame_rate : 30), p);
            ASSERT_TRUE(has_code(over, code));
            for (auto& f : over.findings)
                if (f.code == code) {
                    EXPECT_EQ(f.severity, Severity::Error);
                    EXPECT_NE(f.message.find(std::to_string(l.most + 1)), std::string::npos) << f.message;
                    EXPECT_NE(f.message.find(std::string(l.source)), std::string::npos) << f.message;
                }
        }
    }
}

// A measure no built-in profile limits yet, through a profile of the caller's.
TEST(Targets, JointsPerMeshThroughACustomProfile) {
    TargetProfile p{.name = "custom", .engine = "a test", .formats = {"iqm"}, .limits = {{TargetMeasure::JointsPerMesh, 53, "a test's own number"}}};
    EXPECT_FALSE(has_code(check_target(breaking(TargetMeasure::JointsPerMesh, 53, 30), p), "target.joints_per_mesh"));
    EXPECT_TRUE(has_code(check_target(breaking(TargetMeasure::JointsPerMesh, 54, 30), p), "target.joints_per_mesh"));
}

TEST(Targets, RootNameAndUnweightedVertices) {
    Scene s = small_model();
    s.skeleton.joints[0].name = "Hips";
    const ValidationReport r = check_target(s, *find_target("idtech4"));
    ASSERT_TRUE(has_code(r, "target.root_name"));
    EXPECT_NE(r.findings[0].message.find("'Hips'"), std::string::npos) << r.findings[0].message;
    EXPECT_FALSE(has_code(check_target(s, *find_target("three")), "target.root_name"));

    Scene bare = small_model();
    bare.meshes[0].skin.influences[1].weight = 0;
    const ValidationReport u = check_target(bare, *find_target("three"));
    ASSERT_TRUE(has_code(u, "target.unweighted"));
    EXPECT_NE(u.findings[0].message.find("vertex 1"), std::string::npos) << u.findings[0].message;
    EXPECT_TRUE(check_target(bare, *find_target("quake2")).findings.empty());  // baked: weights do not matter
}

// The command line: `targets` lists every profile (JSON too); `check --target` exits 5 with the
// codes when a limit is broken, 0 when the model fits, 1 for an unknown target.
TEST(Targets, CommandLine) {
    const auto dir = files_dir();
    const auto listed = run_cli({"targets", "--json"});
    ASSERT_EQ(listed.exit_code, 0) << listed.err;
    const auto j = nlohmann::json::parse(listed.out);
    EXPECT_EQ(j["targets"].size(), target_profiles().size());
    EXPECT_EQ(j["targets"][0]["limits"][0]["measure"], "roots");

    ASSERT_TRUE(save(make_sample_scene(), (dir / "sample.iqm").string()));
    Scene many = small_model();
    grow_joints(many, 129);
    ASSERT_TRUE(save(many, (dir / "many.iqm").string()));
    const auto fits = run_cli({"check", "--target", "three", (dir / "sample.iqm").string()});
    EXPECT_EQ(fits.exit_code, 0) << fits.out << fits.err;
    const auto broken = run_cli({"check", "--target", "goldsrc", "--json", (dir / "many.iqm").string()});
    EXPECT_EQ(broken.exit_code, 5) << broken.err;
    const auto report = nlohmann::json::parse(broken.out);
    EXPECT_EQ(report["target"], "goldsrc");
    bool joints = false;
    for (auto& f : report["findings"]) joints = joints || f["code"] == "target.joints";
    EXPECT_TRUE(joints) << broken.out;
    const auto unknown = run_cli({"check", "--target", "doom3", (dir / "sample.iqm").string()});
    EXPECT_EQ(unknown.exit_code, 1);
    EXPECT_NE(unknown.err.find("idtech4"), std::string::npos) << unknown.err;
}

// The displacement a fix causes, against a hand-computed case: a vertex at (1, 0, 0) weighted
// half to the root (at the origin) and half to a child at (0, 1, 0) that turns 90 degrees about Z
// in one second. At the end the child carries its half to (1, 2, 0), so the vertex is at (1, 1, 0);
// bound to the root alone (GoldSrc's one bone; the tie keeps the first) it stays at (1, 0, 0):
// 1 unit apart, the largest over the clip.
TEST(TargetConvert, DisplacementAgainstAHandComputedCase) {
    Scene s;
    Mesh m;
    m.positions = {{1, 0, 0}, {0, 0, 0}, {0, 0, 1}};
    m.triangles = {{0, 1, 2}};
    m.skin.offsets = {0, 2, 3, 4};
    m.skin.influences = {{0, 0.5f}, {1, 0.5f}, {0, 1.0f}, {0, 1.0f}};
    s.meshes.push_back(m);
    s.skeleton.joints.push_back(Joint{"origin", -1, Transform{}});
    Transform child;
    child.translate = {0, 1, 0};
    s.skeleton.joints.push_back(Joint{"child", 0, child});
    Animation a;
    a.name = "turn";
    JointTrack t;
    t.joint = 1;
    t.channel = Channel::Rotation;
    t.times = {0.0f, 1.0f};
    const float h = float(std::sqrt(0.5));
    t.values = {0, 0, 0, 1, 0, 0, h, h};
    a.tracks.push_back(t);
    s.animations.push_back(a);

    Scene fixed = s;
    std::vector<std::string> fixes;
    ASSERT_TRUE(detail::fit_to_target(fixed, *find_target("goldsrc"), -1, fixes));
    ASSERT_EQ(fixes.size(), 1u);
    EXPECT_NE(fixes[0].find("1 vertex had more than 1"), std::string::npos) << fixes[0];
    auto d = detail::skinned_displacement(s, fixed);
    ASSERT_TRUE(d);
    EXPECT_NEAR(d->largest, 1.0, 1e-5);
    // The size: the box of the vertices over the clip, from (0, 0, 0) to about (1.21, 1, 1).
    EXPECT_GT(d->size, std::sqrt(3.0) - 1e-6);
    EXPECT_LT(d->size, std::sqrt(1.2072 * 1.2072 + 2) + 1e-3);
    // --max-error below the figure refuses, above it passes.
    Scene again = s;
    fixes.clear();
    EXPECT_FALSE(detail::fit_to_target(again, *find_target("goldsrc"), 0.9 / d->size, fixes));
    again = s;
    fixes.clear();
    EXPECT_TRUE(detail::fit_to_target(again, *find_target("goldsrc"), 1.1 / d->size, fixes));
}

// Every profile: the built-in sample converted with --target and an output without extension
// gets the engine's format, and the file written passes check --target for the same profile.
TEST(TargetConvert, EveryProfileTurnsTheSampleIntoAFileThatFits) {
    const auto dir = files_dir();
    ASSERT_TRUE(save(make_sample_scene(), (dir / "sample.iqm").string()));
    write_bytes(dir / "sample_texture.png", make_sample_texture());
    for (const TargetProfile& p : target_profiles()) {
        SCOPED_TRACE(std::string(p.name));
        const std::string stem = (dir / std::string(p.name)).string();
        const auto r = run_cli({"convert", (dir / "sample.iqm").string(), "--target", std::string(p.name), "-o", stem, "--json", "-q"});
        ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
        const auto record = nlohmann::json::parse(r.out);
        const std::string written = record["outputs"][0];
        const FormatInfo* format = find_format(p.formats.front());
        ASSERT_NE(format, nullptr);
        EXPECT_EQ(written, stem + std::string(format->extensions.front()));
        const auto check = run_cli({"check", "--target", std::string(p.name), written});
        EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
    }
}

// What no fix reaches is refused with the limit's code and nothing is written; joint names are
// cut to the engine's bytes and kept unique.
TEST(TargetConvert, UnfixableLimitsRefuseAndNamesAreCut) {
    const auto dir = files_dir();
    Scene big = small_model();  // a clip of 60 s: 601 frames at Quake 2's 10 per second
    big.animations[0].tracks[0].times = {0.0f, 60.0f};
    ASSERT_TRUE(save(big, (dir / "big.iqm").string()));
    const auto r = run_cli({"convert", (dir / "big.iqm").string(), "--target", "quake2", "-o", (dir / "big.md2").string()});
    EXPECT_EQ(r.exit_code, 3) << r.err;
    EXPECT_NE(r.err.find("601 frames"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "big.md2"));

    Scene named = small_model();
    grow_joints(named, 3);
    named.skeleton.joints[1].name = std::string(40, 'a');
    named.skeleton.joints[2].name = std::string(40, 'a') + "b";
    std::vector<std::string> fixes;
    ASSERT_TRUE(detail::fit_to_target(named, *find_target("goldsrc"), -1, fixes));
    EXPECT_EQ(named.skeleton.joints[1].name, std::string(31, 'a'));
    EXPECT_EQ(named.skeleton.joints[2].name, std::string(29, 'a') + "_2");
    ASSERT_FALSE(fixes.empty());
    EXPECT_NE(fixes.back().find("2 joint names cut to 31 bytes"), std::string::npos) << fixes.back();
}

// --max-error and an unknown --target are usage errors before anything is read.
TEST(TargetConvert, CommandLineWords) {
    const auto dir = files_dir();
    ASSERT_TRUE(save(make_sample_scene(), (dir / "s.iqm").string()));
    EXPECT_EQ(run_cli({"convert", (dir / "s.iqm").string(), "--target", "doom3", "-o", (dir / "x.md5mesh").string()}).exit_code, 1);
    EXPECT_EQ(run_cli({"convert", (dir / "s.iqm").string(), "--max-error", "1%", "-o", (dir / "x.iqm").string()}).exit_code, 1);
    EXPECT_EQ(run_cli({"convert", (dir / "s.iqm").string(), "--target", "goldsrc", "--max-error", "x", "-o", (dir / "x.smd").string()}).exit_code, 1);
    const auto refused = run_cli({"convert", (dir / "s.iqm").string(), "--target", "goldsrc", "--max-error", "0.1%", "-o", (dir / "x.smd").string()});
    EXPECT_EQ(refused.exit_code, 3) << refused.err;
    EXPECT_NE(refused.err.find("more than --max-error 0.1%"), std::string::npos) << refused.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "x.smd"));
}

// A skinned vertex without weight is bound to the joint nearest it in the bind pose: it then
// follows that joint (here 1 unit up over the clip, the figure reported) instead of staying.
TEST(TargetConvert, UnweightedVerticesAreBoundToTheNearestJoint) {
    Scene s = small_model();
    grow_joints(s, 2);
    s.skeleton.joints[1].bind.translate = {5, 5, 5};  // far from every vertex
    s.meshes[0].skin.influences[1].weight = 0;         // vertex 1, at (1, 0, 0)
    std::vector<std::string> fixes;
    Scene fixed = s;
    ASSERT_TRUE(detail::fit_to_target(fixed, *find_target("three"), -1, fixes));
    ASSERT_EQ(fixes.size(), 1u);
    EXPECT_NE(fixes[0].find("unweighted: 1 vertex of skinned meshes bound"), std::string::npos) << fixes[0];
    const Mesh& m = fixed.meshes[0];
    ASSERT_EQ(m.skin.count(1), 1u);
    EXPECT_EQ(m.skin.begin(1)->joint, 0u);
    EXPECT_EQ(m.skin.begin(1)->weight, 1.0f);
    auto d = detail::skinned_displacement(s, fixed);
    ASSERT_TRUE(d);
    EXPECT_NEAR(d->largest, 1.0, 1e-5);  // the root's clip lifts it by 1
    EXPECT_TRUE(check_target(fixed, *find_target("three")).findings.empty());
}
