// Engine targets (docs/targets.md): every profile names its formats and the source of each
// limit; a small model within every limit fits every profile; a model made to break one limit of
// one profile is named by check_target with that limit's code; `rigport targets` and `rigport
// check --target` on the command line.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <set>
#include <string>

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
        m.positions.resize(count, Vec3{0, 0, 1});
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
        case TargetMeasure::Vertices: vertices(n); break;
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
