// Quake 3 MD3 writer (docs/md3.md "Writing"): the built-in sample baked into frames with one joint
// as a tag reads back as bake_frames made it and as the joint's world transforms; assimp reads it;
// Quake 3's limits and unknown tags are refused with messages that say what and how many.
#include <gtest/gtest.h>

#include <cmath>

#include "assimp_oracle.hpp"
#include "formats/md3/md3.hpp"
#include "rigport/anim.hpp"
#include "rigport/io.hpp"
#include "rigport/process.hpp"
#include "rigport/sample.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

namespace fs = std::filesystem;

// Frame f of a read-back mesh: its positions plus morph target f - 1.
std::vector<Vec3> frame_positions(const Mesh& m, size_t f) {
    std::vector<Vec3> out = m.positions;
    if (f == 0) return out;
    for (size_t v = 0; v < out.size(); ++v)
        for (int k = 0; k < 3; ++k) out[v][k] += m.morph_targets[f - 1].position_deltas[v][k];
    return out;
}

TEST(Md3Write, SampleReadsBackAsBakedFramesAndItsTagAsTheJointsWorldTransform) {
    const Scene sample = make_sample_scene();
    SaveOptions o;
    o.md3.tags = {"upper"};
    Warnings warnings;
    o.warnings = &warnings;
    auto out = save_output(sample, "sample.md3", o);
    ASSERT_TRUE(out) << out.error().to_string();
    auto back = load_bytes(out->bytes, "sample.md3");
    ASSERT_TRUE(back) << back.error().to_string();
    auto baked = bake_frames(sample);
    ASSERT_TRUE(baked);
    const size_t frames = baked->frames.size();
    EXPECT_EQ(frames, 25u + 11u);

    // One material, one mesh: one surface, vertices in the sample's order.
    ASSERT_EQ(back->meshes.size(), 1u);
    const Mesh& m = back->meshes[0];
    ASSERT_EQ(m.vertex_count(), sample.meshes[0].vertex_count());
    EXPECT_EQ(m.triangles, sample.meshes[0].triangles);
    ASSERT_EQ(m.morph_targets.size(), frames - 1);
    EXPECT_EQ(back->materials.at(0).maps.at(0).uri, "sample_texture.png");
    // Positions within half a step of 1/64 unit (plus float error); normals within 2 degrees.
    double worst = 0, worst_normal = 0;
    for (size_t f = 0; f < frames; ++f) {
        const auto p = frame_positions(m, f);
        for (size_t v = 0; v < p.size(); ++v) {
            for (int k = 0; k < 3; ++k) worst = std::max(worst, double(std::fabs(p[v][k] - baked->frames[f].positions[0][v][k])));
            const Vec3 n = f == 0 ? m.normals[v] : Vec3{m.normals[v][0] + m.morph_targets[f - 1].normal_deltas[v][0],
                                                        m.normals[v][1] + m.morph_targets[f - 1].normal_deltas[v][1],
                                                        m.normals[v][2] + m.morph_targets[f - 1].normal_deltas[v][2]};
            const Vec3& e = baked->frames[f].normals[0][v];
            const double dot = double(n[0]) * e[0] + double(n[1]) * e[1] + double(n[2]) * e[2];
            worst_normal = std::max(worst_normal, std::acos(std::min(1.0, dot)) * 180 / 3.14159265358979);
        }
    }
    EXPECT_LE(worst, 0.5 / 64 + 1e-5);
    EXPECT_LT(worst_normal, 2.0);
    std::cout << "[ note ] sample through MD3: worst position error " << worst << " units (1/64 = 0.015625), worst normal "
              << worst_normal << " degrees\n";

    // Frames named wave1..wave25, pulse1..pulse11: two animations again.
    ASSERT_EQ(back->animations.size(), 2u);
    EXPECT_EQ(back->animations[0].name, "wave");
    EXPECT_EQ(back->animations[0].frame_count, 25u);
    EXPECT_EQ(back->animations[1].name, "pulse");
    EXPECT_EQ(back->animations[1].frame_count, 11u);

    // The tag: joint "upper"'s world transform at each frame, as floats (tolerance 1e-5 of the
    // model's size for the origin, 1e-5 per matrix entry for the axes, which carry its scale).
    ASSERT_EQ(back->skeleton.joints.size(), 1u);
    EXPECT_EQ(back->skeleton.joints[0].name, "upper");
    const uint32_t upper = 2;
    ASSERT_EQ(sample.skeleton.joints[upper].name, "upper");
    double worst_tag = 0;
    size_t frame = 0;
    for (size_t a = 0; a < 2; ++a) {
        const Animation& read = back->animations[a];
        for (uint32_t k = 0; k < read.frame_count; ++k, ++frame) {
            const float t = float(double(k) / baked->clips[a].frame_rate);
            const Mat4 want = world_matrices(sample.skeleton, sample_pose(sample.skeleton, sample.animations[a], t))[upper];
            const Mat4 got = world_matrices(back->skeleton, sample_pose(back->skeleton, read, float(k) / read.frame_rate))[0];
            for (int c = 0; c < 4; ++c)
                for (int r = 0; r < 3; ++r) worst_tag = std::max(worst_tag, std::fabs(want[c][r] - got[c][r]));
        }
    }
    EXPECT_EQ(frame, frames);
    EXPECT_LT(worst_tag, 1e-5 * 8);
    std::cout << "[ note ] sample tag 'upper' through MD3: worst matrix entry error " << worst_tag << "\n";
    // What MD3 did not keep is said.
    bool said_rate = false;
    for (auto& w : warnings.items) said_rate = said_rate || w.message.find("24 frames per second") != std::string::npos;
    EXPECT_TRUE(said_rate);
}

TEST(Md3Write, AssimpReadsTheWrittenSample) {
    RIGPORT_REQUIRE_ASSIMP();
    const fs::path dir = files_dir();
    const fs::path md3 = dir / "sample.md3", obj = dir / "sample.obj";
    SaveOptions o;
    o.md3.tags = {"tip"};
    ASSERT_TRUE(save(make_sample_scene(), md3.string(), o));
    ASSERT_TRUE(assimp_export_obj(md3, obj));
    const auto theirs = obj_vertex_positions(obj);
    ASSERT_FALSE(theirs.empty());
    auto back = load(md3.string());
    ASSERT_TRUE(back) << back.error().to_string();
    std::vector<std::array<double, 3>> ours;  // assimp: (x, y, z) -> (x, z, -y)
    for (const Vec3& p : back->meshes[0].positions) ours.push_back({p[0], p[2], -p[1]});
    expect_same_points_as_assimp("sample.md3", ours, theirs, largest_coordinate(ours));
}

TEST(Md3Write, CliTakesMd3TagsAndRefusesABadList) {
    const fs::path dir = files_dir();
    const fs::path iqm = dir / "sample.iqm", md3 = dir / "sample.md3";
    ASSERT_TRUE(save(make_sample_scene(), iqm.string()));
    auto r = run_cli({"convert", iqm.string(), "-o", md3.string(), "--md3-tags", "tip,root"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto back = load(md3.string());
    ASSERT_TRUE(back) << back.error().to_string();
    ASSERT_EQ(back->skeleton.joints.size(), 2u);
    EXPECT_EQ(back->skeleton.joints[0].name, "tip");
    EXPECT_EQ(back->skeleton.joints[1].name, "root");
    r = run_cli({"convert", iqm.string(), "-o", md3.string(), "--md3-tags", "tip,,root"});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("--md3-tags"), std::string::npos) << r.err;
    r = run_cli({"convert", iqm.string(), "-o", md3.string(), "--md3-tags", "elbow"});
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.err.find("tag 'elbow': the scene has no joint of that name"), std::string::npos) << r.err;
}

// A flat grid of w x h vertices, one material of its own.
Mesh grid(uint32_t w, uint32_t h, float spacing, int32_t material) {
    Mesh m;
    m.material = material;
    for (uint32_t y = 0; y < h; ++y)
        for (uint32_t x = 0; x < w; ++x) m.positions.push_back({float(x) * spacing, float(y) * spacing, 0});
    for (uint32_t y = 0; y + 1 < h; ++y)
        for (uint32_t x = 0; x + 1 < w; ++x) {
            const uint32_t i = y * w + x;
            m.triangles.push_back({i, i + w, i + 1});
            m.triangles.push_back({i + 1, i + w, i + w + 1});
        }
    return m;
}

Error refused(const Scene& s, const std::vector<std::string>& tags = {}) {
    SaveOptions o;
    o.md3.tags = tags;
    auto out = save_output(s, "x.md3", o);
    EXPECT_FALSE(out);
    return out ? Error{} : out.error();
}

TEST(Md3Write, QuakeThreeLimitsAreRefusedWithWhatAndHowMany) {
    {
        Scene s;
        s.meshes.push_back(grid(64, 65, 1, -1));  // 4160 vertices
        const Error e = refused(s);
        EXPECT_EQ(e.code, ErrorCode::Unsupported);
        EXPECT_NE(e.message.find("4160 vertices, an MD3 surface holds at most 4096"), std::string::npos) << e.message;
    }
    {
        Scene s;
        Mesh m = grid(2, 2, 1, -1);
        m.triangles.resize(8200, m.triangles[0]);  // 4 vertices, 8200 triangles
        s.meshes.push_back(m);
        const Error e = refused(s);
        EXPECT_NE(e.message.find("8200 triangles, an MD3 surface holds at most 8192"), std::string::npos) << e.message;
    }
    {
        Scene s;
        for (int i = 0; i < 33; ++i) {
            Material mat;
            mat.name = "m" + std::to_string(i);
            s.materials.push_back(mat);
            s.meshes.push_back(grid(2, 2, 1, i));
        }
        const Error e = refused(s);
        EXPECT_NE(e.message.find("33 surfaces (meshes merged by material within the per-surface limits): an MD3 holds at most 32"), std::string::npos) << e.message;
        s.meshes.resize(32);  // 32 fit
        EXPECT_TRUE(save_output(s, "x.md3", SaveOptions{}));
    }
    {
        // Two meshes of one material, 2500 vertices each: one surface would hold 5000, so the
        // second starts a surface of its own with the same shader.
        Scene s;
        s.meshes.push_back(grid(50, 50, 1, -1));
        s.meshes.push_back(grid(50, 50, 1, -1));
        auto out = save_output(s, "x.md3", SaveOptions{});
        ASSERT_TRUE(out) << out.error().to_string();
        auto back = load_bytes(out->bytes, "x.md3");
        ASSERT_TRUE(back) << back.error().to_string();
        ASSERT_EQ(back->meshes.size(), 2u);
        EXPECT_EQ(back->meshes[0].vertex_count(), 2500u);
    }
    {
        Scene s;
        s.meshes.push_back(grid(2, 2, 600, -1));  // a corner at 600 units
        const Error e = refused(s);
        EXPECT_EQ(e.code, ErrorCode::Unsupported);
        EXPECT_NE(e.message.find("beyond the 511.984375 units an MD3 holds"), std::string::npos) << e.message;
    }
    {
        Scene s = make_sample_scene();
        s.animations[0].frame_rate = 1000;  // 25 frames at 1000 per second: the keys are frames
        s.animations[0].frame_count = 1100;
        s.animations.resize(1);
        const Error e = refused(s);
        EXPECT_NE(e.message.find("1100 frames in 1 animations: an MD3 holds at most 1024"), std::string::npos) << e.message;
    }
    {
        const Scene s = make_sample_scene();
        std::vector<std::string> many;
        for (int i = 0; i < 17; ++i) many.push_back("t" + std::to_string(i));
        EXPECT_NE(refused(s, many).message.find("17 tags asked for: an MD3 holds at most 16"), std::string::npos);
        const Error e = refused(s, {"root", "nose"});
        EXPECT_EQ(e.code, ErrorCode::InvalidArgument);
        EXPECT_NE(e.message.find("tag 'nose': the scene has no joint of that name (4 joints)"), std::string::npos) << e.message;
    }
}

}  // namespace
}  // namespace rigport::test
