// convert --target's geometry and timing fixes (docs/targets.md "Fixing"): meshes split by the
// per-mesh limits with nothing moved, models decimated to the whole-model limits with the
// surface's move reported, clips resampled at a Quake engine's rate; and a generated
// 200,000-triangle, 100-joint model through every profile into a file that passes check.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <string>

#include "pipeline/target_fix.hpp"
#include "process/simplify.hpp"
#include "process/split_meshes.hpp"
#include "rigport/anim.hpp"
#include "rigport/formats.hpp"
#include "rigport/io.hpp"
#include "rigport/process.hpp"
#include "rigport/targets.hpp"
#include "test_support.hpp"

using namespace rigport;
using namespace rigport::test;

namespace {

constexpr double pi = 3.14159265358979323846;

// A closed-sided tube along +Y, `rings` x `sides` quads (two triangles each), 10 units tall and
// 1 across, its seam column doubled for the texture coordinates; a chain of `joints` joints up
// its middle, each vertex weighted to the joints within two links of its height (four for every
// vertex between the ends); one 1-second clip "bend" turning every joint about Z and back.
Scene tube(uint32_t rings, uint32_t sides, uint32_t joints) {
    Scene s;
    Mesh m;
    m.name = "tube";
    const double height = 10;
    m.texcoords.resize(1);
    for (uint32_t r = 0; r <= rings; ++r)
        for (uint32_t a = 0; a <= sides; ++a) {
            const double y = height * r / rings, angle = 2 * pi * a / sides;
            m.positions.push_back({float(0.5 * std::cos(angle)), float(y), float(0.5 * std::sin(angle))});
            m.normals.push_back({float(std::cos(angle)), 0, float(std::sin(angle))});
            m.texcoords[0].push_back({float(a) / float(sides), float(r) / float(rings)});
            // Tent weights two links wide around the vertex's place along the chain.
            const double t = y / height * (joints - 1);
            m.skin.offsets.push_back(uint32_t(m.skin.influences.size()));
            double sum = 0;
            const size_t first = m.skin.influences.size();
            for (int k = int(std::floor(t)) - 1; k <= int(std::floor(t)) + 2; ++k) {
                if (k < 0 || k >= int(joints)) continue;
                const double w = 1 - std::abs(t - k) / 2;
                if (w <= 0) continue;
                m.skin.influences.push_back({uint32_t(k), float(w)});
                sum += w;
            }
            for (size_t i = first; i < m.skin.influences.size(); ++i) m.skin.influences[i].weight = float(m.skin.influences[i].weight / sum);
        }
    m.skin.offsets.push_back(uint32_t(m.skin.influences.size()));
    for (uint32_t r = 0; r < rings; ++r)
        for (uint32_t a = 0; a < sides; ++a) {
            const uint32_t v = r * (sides + 1) + a, up = v + sides + 1;
            m.triangles.push_back({v, up, v + 1});
            m.triangles.push_back({v + 1, up, up + 1});
        }
    s.meshes.push_back(std::move(m));
    for (uint32_t j = 0; j < joints; ++j) {
        Joint joint{j == 0 ? "hips" : "link" + std::to_string(j), int32_t(j) - 1, Transform{}};
        if (j > 0) joint.bind.translate = {0, float(height / (joints - 1)), 0};
        s.skeleton.joints.push_back(joint);
    }
    Animation bend;
    bend.name = "bend";
    for (uint32_t j = 0; j < joints; ++j) {
        JointTrack t;
        t.joint = j;
        t.channel = Channel::Rotation;
        t.times = {0.0f, 0.5f, 1.0f};
        const float half = float(0.01 * std::sin(0.1 * j));  // half of a small angle about Z
        t.values = {0, 0, 0, 1, 0, 0, std::sin(half), std::cos(half), 0, 0, 0, 1};
        bend.tracks.push_back(t);
    }
    s.animations.push_back(bend);
    return s;
}

}  // namespace

// A mesh split by vertices per part keeps every triangle, every vertex's position and its
// weights, and copies only the vertices on the cuts; its morph track follows each part.
TEST(TargetGeometry, SplitKeepsEveryTriangleWhereItWas) {
    Scene s = tube(40, 10, 5);
    MorphTarget bulge;
    bulge.name = "bulge";
    bulge.position_deltas.assign(s.meshes[0].vertex_count(), Vec3{0.1f, 0, 0});
    s.meshes[0].morph_targets.push_back(bulge);
    s.animations[0].morph_tracks.push_back({0, Interpolation::Linear, {0.0f, 1.0f}, {0.0f, 1.0f}});
    const Scene before = s;
    const auto result = detail::split_meshes(s, {100, 0, 0});
    EXPECT_EQ(result.meshes_split, 1u);
    ASSERT_GE(s.meshes.size(), 5u);  // 451 vertices, at most 100 a part
    EXPECT_EQ(result.parts_added, s.meshes.size() - 1);
    size_t triangles = 0, vertices = 0;
    for (size_t m = 0; m < s.meshes.size(); ++m) {
        const Mesh& part = s.meshes[m];
        EXPECT_LE(part.vertex_count(), 100u);
        EXPECT_EQ(part.name, m == 0 ? "tube" : "tube_" + std::to_string(m + 1));
        ASSERT_EQ(part.morph_targets.size(), 1u);
        // Each part's triangles are the original's next ones, at the same positions.
        for (const Triangle& t : part.triangles) {
            const Triangle& was = before.meshes[0].triangles[triangles++];
            for (int k = 0; k < 3; ++k) {
                EXPECT_EQ(part.positions[t[size_t(k)]], before.meshes[0].positions[was[size_t(k)]]);
                EXPECT_EQ(part.skin.count(t[size_t(k)]), before.meshes[0].skin.count(was[size_t(k)]));
            }
        }
        vertices += part.vertex_count();
    }
    EXPECT_EQ(triangles, before.meshes[0].triangles.size());
    EXPECT_EQ(vertices, before.meshes[0].vertex_count() + result.shared_vertices);
    ASSERT_EQ(s.animations[0].morph_tracks.size(), s.meshes.size());
    for (size_t m = 0; m < s.meshes.size(); ++m) EXPECT_EQ(s.animations[0].morph_tracks[m].mesh, m);
    // Skinned and morphed, the parts are where the whole was at every frame: the split moves nothing.
    auto a = bake_frames(before), b = bake_frames(s);
    ASSERT_TRUE(a && b);
    ASSERT_EQ(a->frames.size(), b->frames.size());
    for (size_t f = 0; f < a->frames.size(); ++f) {
        size_t t = 0;
        for (size_t m = 0; m < s.meshes.size(); ++m)
            for (const Triangle& tri : s.meshes[m].triangles) {
                const Triangle& was = before.meshes[0].triangles[t++];
                for (int k = 0; k < 3; ++k)
                    for (int c = 0; c < 3; ++c)
                        EXPECT_NEAR(b->frames[f].positions[m][tri[size_t(k)]][size_t(c)], a->frames[f].positions[0][was[size_t(k)]][size_t(c)], 1e-5);
            }
    }
    // By joints: no part has more than 4 joints weighting it.
    Scene j = before;
    detail::split_meshes(j, {0, 0, 4});
    EXPECT_GT(j.meshes.size(), 1u);
    EXPECT_TRUE(check_target(j, TargetProfile{.name = "t", .limits = {{TargetMeasure::JointsPerMesh, 4, "test"}}}).findings.empty());
}

// Decimation keeps the kept vertices where they were (only fewer of them) with their streams
// and weights, and states meshoptimizer's error estimate, which on a tube of radius 0.5 brought
// to a tenth of its triangles stays below the radius.
TEST(TargetGeometry, DecimationKeepsVerticesAndStatesTheError) {
    Scene s = tube(100, 24, 8);
    const Scene before = s;
    const auto r = detail::simplify_meshes(s, 0.1);
    EXPECT_EQ(r.triangles_before, 4800u);
    EXPECT_LE(r.triangles_after, 600u);  // 480 asked; meshoptimizer stops near it
    EXPECT_GT(r.triangles_after, 100u);
    EXPECT_LT(r.vertices_after, r.vertices_before);
    EXPECT_GE(r.error, 0);
    EXPECT_LT(r.error, 0.5);  // less than the radius: the tube keeps its shape
    // Every kept vertex is an original vertex with its original weights.
    const Mesh& m = s.meshes[0];
    for (uint32_t v = 0; v < m.vertex_count(); ++v) {
        bool found = false;
        for (uint32_t o = 0; o < before.meshes[0].vertex_count() && !found; ++o)
            found = before.meshes[0].positions[o] == m.positions[v] && before.meshes[0].texcoords[0][o] == m.texcoords[0][v] &&
                    before.meshes[0].skin.count(o) == m.skin.count(v);
        EXPECT_TRUE(found) << "vertex " << v;
    }
}

// A model over a whole-model limit is decimated into one that passes check, the fix says by how
// much the surface moved; --max-error below that refuses it.
TEST(TargetGeometry, QuakeProfilesDecimateAndMaxErrorRefuses) {
    const Scene s = tube(60, 40, 6);  // 4800 triangles, 2501 vertices: over quake's 1024 and 2048
    Scene fixed = s;
    std::vector<std::string> fixes;
    ASSERT_TRUE(detail::fit_to_target(fixed, *find_target("quake"), -1, fixes));
    EXPECT_TRUE(check_target(fixed, *find_target("quake")).findings.empty());
    ASSERT_FALSE(fixes.empty());
    EXPECT_EQ(fixes[0].rfind("decimated: 4800 triangles and 2501 vertices became ", 0), 0u) << fixes[0];
    EXPECT_NE(fixes[0].find("MAXALIASVERTS"), std::string::npos) << fixes[0];
    EXPECT_NE(fixes[0].find("% of the model's size"), std::string::npos) << fixes[0];
    Scene refused = s;
    fixes.clear();
    const auto st = detail::fit_to_target(refused, *find_target("quake"), 1e-9, fixes);
    ASSERT_FALSE(st);
    EXPECT_NE(st.error().message.find("more than --max-error"), std::string::npos) << st.error().message;
}

// quake3 splits a surface over 4096 vertices into surfaces, moving nothing (no decimation).
TEST(TargetGeometry, Quake3SplitsLargeSurfaces) {
    Scene s = tube(100, 60, 4);  // 6161 vertices, 12000 triangles
    std::vector<std::string> fixes;
    ASSERT_TRUE(detail::fit_to_target(s, *find_target("quake3"), -1, fixes));
    EXPECT_TRUE(check_target(s, *find_target("quake3")).findings.empty());
    ASSERT_FALSE(fixes.empty());
    EXPECT_EQ(fixes[0].rfind("split: 1 mesh over quake3's 4096 vertices_per_mesh", 0), 0u) << fixes[0];
    EXPECT_NE(fixes[0].find("no vertex moves"), std::string::npos);
    uint64_t triangles = 0;
    for (const Mesh& m : s.meshes) triangles += m.triangles.size();
    EXPECT_EQ(triangles, 12000u);
}

// A 30 fps clip for Quake 2 is resampled at its 10 per second; the check counts frames at it.
TEST(TargetGeometry, ClipsAreResampledAtTheEnginesRate) {
    Scene s = tube(4, 4, 3);
    s.animations[0].frame_rate = 30;
    std::vector<std::string> fixes;
    ASSERT_TRUE(detail::fit_to_target(s, *find_target("quake2"), -1, fixes));
    bool said = false;
    for (const std::string& f : fixes) said |= f.rfind("frame rate: 1 animation resampled from 30 to 10 frames per second (Quake 2 source", 0) == 0;
    EXPECT_TRUE(said) << (fixes.empty() ? "" : fixes[0]);
    EXPECT_EQ(sampling_rate(s.animations[0]), 10.0f);
    EXPECT_EQ(sampled_frame_count(s.animations[0]), 11u);
    // Already at the rate: nothing said.
    fixes.clear();
    ASSERT_TRUE(detail::fit_to_target(s, *find_target("quake2"), -1, fixes));
    for (const std::string& f : fixes) EXPECT_NE(f.rfind("frame rate", 0), 0u) << f;
}

// The generated 200,000-triangle, 100-joint model through every profile: converted with
// --target into the profile's format, the file passes check --target for it. Run in the normal
// build only: the sanitizer build runs the same fixes on the smaller models above.
TEST(TargetGeometry, A200kTriangle100JointModelFitsEveryProfile) {
    if (sanitizer_build()) GTEST_SKIP() << "a large generated model: the normal build runs it, the sanitizer build the small cases";
    const auto dir = files_dir();
    const Scene big = tube(1000, 100, 100);
    ASSERT_EQ(big.triangle_count(), 200000u);
    ASSERT_EQ(big.skeleton.joints.size(), 100u);
    ASSERT_TRUE(save(big, (dir / "big.iqm").string()));
    for (const TargetProfile& p : target_profiles()) {
        SCOPED_TRACE(std::string(p.name));
        const auto start = std::chrono::steady_clock::now();
        const std::string stem = (dir / ("big_" + std::string(p.name))).string();
        const auto r = run_cli({"convert", (dir / "big.iqm").string(), "--target", std::string(p.name), "-o", stem, "--json", "-q"});
        ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
        const auto record = nlohmann::json::parse(r.out);
        const std::string written = record["outputs"][0];
        const auto check = run_cli({"check", "--target", std::string(p.name), written});
        EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
        std::string fixes;
        if (record.contains("target_fixes"))
            for (const auto& f : record["target_fixes"]) fixes += "\n  " + f.get<std::string>();
        std::printf("%s: %.1f s%s\n", std::string(p.name).c_str(),
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), fixes.c_str());
    }
}
