// convert --target: the engine's unit, the way its models face, and the characters its names take
// (docs/targets.md "Units, axes and names").
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <string>

#include "pipeline/target_fix.hpp"
#include "rigport/io.hpp"
#include "rigport/sample.hpp"
#include "rigport/targets.hpp"
#include "test_support.hpp"

using namespace rigport;
using namespace rigport::test;

namespace {

struct Box {
    std::array<double, 3> lo{1e30, 1e30, 1e30}, hi{-1e30, -1e30, -1e30};
};

Box box_of(const Scene& s) {
    Box b;
    for (const Mesh& m : s.meshes)
        for (const auto& p : m.positions)
            for (int k = 0; k < 3; ++k) b.lo[k] = std::min(b.lo[k], double(p[k])), b.hi[k] = std::max(b.hi[k], double(p[k]));
    return b;
}

bool mentions(const std::vector<std::string>& fixes, const std::string& what) {
    return std::any_of(fixes.begin(), fixes.end(), [&](const std::string& f) { return f.find(what) != std::string::npos; });
}

std::vector<std::string> fixes_of(const RunResult& r) {
    const auto record = nlohmann::json::parse(r.out);
    return record.value("target_fixes", std::vector<std::string>{});
}

}  // namespace

// A glTF model (metres, facing +Z, Y up) for GoldSrc: scaled to inches and turned to face +X. The
// SMD read back is Z up, so a glTF point (x, y, z) must land at 39.3701 * (z, x, y): its box is
// checked corner by corner within 1e-4 of the model's size.
TEST(TargetSpace, AGltfModelIsScaledToTheEnginesUnitAndTurnedToFacePlusX) {
    const auto dir = files_dir();
    ASSERT_TRUE(save(make_sample_scene(), (dir / "sample.glb").string()));
    auto gltf = load((dir / "sample.glb").string());
    ASSERT_TRUE(gltf);
    const Box g = box_of(*gltf);
    const auto r = run_cli({"convert", (dir / "sample.glb").string(), "--target", "goldsrc", "-o", (dir / "hl.smd").string(), "--json", "-q"});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    const auto fixes = fixes_of(r);
    EXPECT_TRUE(mentions(fixes, "unit: scaled by 39.3701")) << r.out;
    EXPECT_TRUE(mentions(fixes, "facing: turned a quarter turn")) << r.out;
    auto smd = load((dir / "hl.smd").string());
    ASSERT_TRUE(smd);
    const Box s = box_of(*smd);
    const double k = 1 / 0.0254, size = k * (g.hi[1] - g.lo[1]);
    const int from[3] = {2, 0, 1};  // SMD x, y, z <- glTF z, x, y
    for (int a = 0; a < 3; ++a) {
        EXPECT_NEAR(s.lo[a], k * g.lo[from[a]], 1e-4 * size) << a;
        EXPECT_NEAR(s.hi[a], k * g.hi[from[a]], 1e-4 * size) << a;
    }
    EXPECT_EQ(run_cli({"check", "--target", "goldsrc", (dir / "hl.smd").string()}).exit_code, 0);
}

// An IQM for DarkPlaces keeps the engine's numbers: 32 units to the metre, not scaled back to the
// metres IQM's own unit would give. An IQM source is not scaled (its files are mostly in Quake
// units already), nor is anything when --unit decides.
TEST(TargetSpace, TheEnginesUnitStaysInAnIqmAndOnlyAStatedUnitIsConverted) {
    const auto dir = files_dir();
    ASSERT_TRUE(save(make_sample_scene(), (dir / "sample.glb").string()));
    ASSERT_TRUE(save(make_sample_scene(), (dir / "sample.iqm").string()));
    auto gltf = load((dir / "sample.glb").string());
    ASSERT_TRUE(gltf);
    const Box g = box_of(*gltf);

    const auto dp = run_cli({"convert", (dir / "sample.glb").string(), "--target", "darkplaces", "-o", (dir / "dp.iqm").string(), "--json", "-q"});
    ASSERT_EQ(dp.exit_code, 0) << dp.err;
    EXPECT_TRUE(mentions(fixes_of(dp), "unit: scaled by 32")) << dp.out;
    auto iqm = load((dir / "dp.iqm").string());
    ASSERT_TRUE(iqm);
    const Box q = box_of(*iqm);
    const double size = g.hi[1] - g.lo[1];
    EXPECT_NEAR(q.hi[2] - q.lo[2], 32 * size, 1e-4 * 32 * size);  // glTF's Y (up) is the IQM's Z

    const auto from_iqm = run_cli({"convert", (dir / "sample.iqm").string(), "--target", "goldsrc", "-o", (dir / "a.smd").string(), "--json", "-q"});
    ASSERT_EQ(from_iqm.exit_code, 0) << from_iqm.err;
    EXPECT_FALSE(mentions(fixes_of(from_iqm), "unit:")) << from_iqm.out;
    EXPECT_FALSE(mentions(fixes_of(from_iqm), "facing:")) << from_iqm.out;

    const auto kept = run_cli({"convert", (dir / "sample.glb").string(), "--target", "goldsrc", "--unit", "keep", "-o", (dir / "b.smd").string(),
                               "--json", "-q"});
    ASSERT_EQ(kept.exit_code, 0) << kept.err;
    EXPECT_FALSE(mentions(fixes_of(kept), "unit:")) << kept.out;
    EXPECT_TRUE(mentions(fixes_of(kept), "facing:")) << kept.out;
    auto b = load((dir / "b.smd").string());
    ASSERT_TRUE(b);
    const Box bb = box_of(*b);
    EXPECT_NEAR(bb.hi[2] - bb.lo[2], size, 1e-4 * size);
}

// Names the engine's tools cannot take are named by check and replaced by convert --target:
// studiomdl ends a quoted name at '"'; QuakeC turns frame names into symbols.
TEST(TargetSpace, NameCharactersAreCheckedAndReplaced) {
    Scene s = make_sample_scene();
    ASSERT_GE(s.skeleton.joints.size(), 2u);
    ASSERT_FALSE(s.animations.empty());
    s.skeleton.joints[0].name = "hip \"left\"";
    s.skeleton.joints[1].name = "b\xC3\xA4r\tx";  // UTF-8 'ä' and a tab
    s.animations[0].name = "Armature|mixamo.com|Layer0";

    const ValidationReport hl = check_target(s, *find_target("goldsrc"));
    const auto finding = std::find_if(hl.findings.begin(), hl.findings.end(), [](const Finding& f) { return f.code == "target.name_characters"; });
    ASSERT_NE(finding, hl.findings.end());
    EXPECT_NE(finding->message.find("hip \"left\""), std::string::npos) << finding->message;
    EXPECT_NE(finding->message.find("2 names break it"), std::string::npos) << finding->message;

    Scene fixed = s;
    std::vector<std::string> fixes;
    ASSERT_TRUE(detail::fit_to_target(fixed, *find_target("goldsrc"), -1, fixes));
    EXPECT_EQ(fixed.skeleton.joints[0].name, "hip _left_");
    EXPECT_EQ(fixed.skeleton.joints[1].name, "b\xC3\xA4r_x");  // NoQuotes keeps UTF-8
    EXPECT_EQ(fixed.animations[0].name, "Armature|mixamo.com|Layer0");
    EXPECT_TRUE(mentions(fixes, "2 joint names with characters replaced by '_'")) << fixes.front();
    const ValidationReport after = check_target(fixed, *find_target("goldsrc"));
    EXPECT_TRUE(after.findings.empty()) << (after.findings.empty() ? "" : after.findings[0].message);

    // Quake: animation names only, letters, digits and '_'; a UTF-8 character becomes one '_',
    // and two names cleaned alike stay apart.
    Scene q = s;
    q.animations.resize(1);
    q.animations.push_back(q.animations[0]);
    q.animations[1].name = "Armature_mixamo_com_Layer0";
    q.skeleton.joints[1].name = "b\xC3\xA4r";
    q.animations.push_back(q.animations[0]);
    q.animations[2].name = "b\xC3\xA4r";
    const ValidationReport quake = check_target(q, *find_target("quake"));
    EXPECT_TRUE(std::any_of(quake.findings.begin(), quake.findings.end(), [](const Finding& f) {
        return f.code == "target.name_characters" && f.message.find("animation 'Armature|") == 0 && f.message.find("(2 names break it)") != std::string::npos;
    }));
    fixes.clear();
    ASSERT_TRUE(detail::fit_to_target(q, *find_target("quake"), -1, fixes));
    EXPECT_EQ(q.animations[0].name, "Armature_mixamo_com_Layer0_2");
    EXPECT_EQ(q.animations[1].name, "Armature_mixamo_com_Layer0");
    EXPECT_EQ(q.animations[2].name, "b_r");
    EXPECT_EQ(q.skeleton.joints[1].name, "b\xC3\xA4r");  // joint names are not Quake's to take
}

// `rigport targets --json` states each profile's unit, facing and name rule with its source.
TEST(TargetSpace, TargetsListsUnitsFacingAndNames) {
    const auto r = run_cli({"targets", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto all = nlohmann::json::parse(r.out)["targets"];
    bool seen = false;
    for (const auto& p : all) {
        if (p["name"] != "goldsrc") continue;
        seen = true;
        EXPECT_NEAR(p["unit"]["metres"].get<double>(), 0.0254, 1e-12);
        EXPECT_EQ(p["faces"]["front"], "+X");
        EXPECT_FALSE(p["name_characters"]["source"].get<std::string>().empty());
    }
    EXPECT_TRUE(seen);
    for (const TargetProfile& p : target_profiles()) {
        if (p.metres_per_unit > 0) EXPECT_GT(p.unit_source.size(), 10u) << p.name;
        if (p.faces_plus_x) EXPECT_GT(p.facing_source.size(), 10u) << p.name;
        if (p.name_characters != TargetProfile::NameCharacters::Any) EXPECT_GT(p.name_characters_source.size(), 10u) << p.name;
    }
}

// Every profile turns the sample, as a GLB (a unit and a front stated), into a file that passes
// check --target for it, after the unit and facing fixes.
TEST(TargetSpace, EveryProfileTakesTheSampleAsAGlb) {
    const auto dir = files_dir();
    ASSERT_TRUE(save(make_sample_scene(), (dir / "sample.glb").string()));
    for (const TargetProfile& p : target_profiles()) {
        SCOPED_TRACE(std::string(p.name));
        const std::string stem = (dir / (std::string(p.name) + "_glb")).string();
        const auto r = run_cli({"convert", (dir / "sample.glb").string(), "--target", std::string(p.name), "-o", stem, "--json", "-q"});
        ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
        const auto record = nlohmann::json::parse(r.out);
        const std::string written = record["outputs"][0];
        EXPECT_EQ(mentions(fixes_of(r), "unit: scaled"), p.metres_per_unit > 0) << r.out;
        EXPECT_EQ(mentions(fixes_of(r), "facing: turned"), p.faces_plus_x) << r.out;
        const auto check = run_cli({"check", "--target", std::string(p.name), written});
        EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
    }
}
