// glTF 2.0 reader, animations and round trips: STEP kept, CUBICSPLINE resampled (checked against
// the spec's Hermite formula), morph targets with a weights track, names and rigport's extras,
// rigport sample -> glTF -> scene (same geometry and poses as the sample turned Y up), and glTF ->
// IQM in IQM conventions with keys at 24 fps landing on frames.
#include <gtest/gtest.h>

#include <cmath>

#include "formats/gltf/gltf_fixture.hpp"
#include "rigport/anim.hpp"
#include "rigport/io.hpp"
#include "rigport/process.hpp"
#include "rigport/sample.hpp"

namespace rigport::test {
namespace {

using json = nlohmann::json;
using P3 = std::array<double, 3>;

const std::vector<float> triangle = {0, 0, 0, 1, 0, 0, 0, 1, 0};
const double half_sqrt2 = std::sqrt(0.5);

// A triangle on node 0 whose `path` channel has the given keys.
GltfFixture animated(const std::string& path, const std::vector<float>& times, const std::vector<float>& values, const char* interpolation,
                     const char* type) {
    GltfFixture f;
    f.mesh_node({{"POSITION", f.floats(triangle, "VEC3")}}, -1, 4, {{"name", "mover"}});
    const uint32_t in = f.floats(times, "SCALAR"), out = f.floats(values, type);
    f.push("animations", {{"channels", {{{"sampler", 0}, {"target", {{"node", 0}, {"path", path}}}}}},
                          {"samplers", {{{"input", in}, {"output", out}, {"interpolation", interpolation}}}}});
    return f;
}

TEST(GltfReadAnim, StepKeysKeptAsStep) {
    GltfFixture f = animated("translation", {0, 1, 2}, {0, 0, 0, 5, 0, 0, 9, 0, 0}, "STEP", "VEC3");
    auto s = f.load();
    ASSERT_TRUE(s) << s.error().to_string();
    ASSERT_EQ(s->animations.size(), 1u);
    const Animation& a = s->animations[0];
    EXPECT_EQ(a.name, "animation_0");
    EXPECT_EQ(a.frame_rate, 0.0f) << "key-based";
    EXPECT_EQ(a.frame_count, 0u);
    ASSERT_EQ(a.tracks.size(), 1u);
    EXPECT_EQ(a.tracks[0].interpolation, Interpolation::Step);
    EXPECT_EQ(a.tracks[0].times, (std::vector<float>{0, 1, 2}));
    EXPECT_EQ(sample_pose(s->skeleton, a, 1.5f)[0].translate, (Vec3{5, 0, 0}));
}

// glTF 2.0 Appendix C: p(s) = (2s^3 - 3s^2 + 1) v_k + td (s^3 - 2s^2 + s) b_k + (-2s^3 + 3s^2) v_k+1
// + td (s^3 - s^2) a_k+1 with td = t_k+1 - t_k; outputs are (in-tangent a, value v, out-tangent b).
TEST(GltfReadAnim, CubicSplineResampledAtTheOptionRate) {
    const std::vector<float> times = {0.0f, 0.5f, 1.2f};
    const std::vector<float> out = {0, 0, 0,  1, 2, 3,   4, -1, 0,    // key 0: a, v, b
                                    2, 2, 2,  5, 0, 1,   -3, 1, 2,    // key 1
                                    1, -2, 0, 2, 2, 2,   0, 0, 0};    // key 2
    GltfFixture f = animated("translation", times, out, "CUBICSPLINE", "VEC3");
    LoadOptions o;
    o.resample_rate = 10;
    auto s = f.load(o);
    ASSERT_TRUE(s) << s.error().to_string();
    const JointTrack& t = s->animations.at(0).tracks.at(0);
    EXPECT_EQ(t.interpolation, Interpolation::Linear);
    ASSERT_EQ(t.times.size(), 13u);  // 0, 0.1, ... 1.2
    for (size_t i = 0; i < t.times.size(); ++i) EXPECT_EQ(t.times[i], float(i) / 10.0f) << i;
    auto at = [&](size_t k, int part, int c) { return double(out[(k * 3 + part) * 3 + c]); };
    for (size_t i = 0; i < t.times.size(); ++i) {
        const double time = t.times[i];
        const size_t k = time < 0.5 ? 0 : 1;
        const double td = double(times[k + 1]) - times[k], u = (time - times[k]) / td;
        for (int c = 0; c < 3; ++c) {
            const double expected = i + 1 == t.times.size() ? at(2, 1, c)
                                                             : (2 * u * u * u - 3 * u * u + 1) * at(k, 1, c) + td * (u * u * u - 2 * u * u + u) * at(k, 2, c) +
                                                                   (-2 * u * u * u + 3 * u * u) * at(k + 1, 1, c) + td * (u * u * u - u * u) * at(k + 1, 0, c);
            EXPECT_NEAR(t.values[i * 3 + c], expected, 1e-5) << "t " << time << " component " << c;
        }
    }
    bool said = false;
    for (auto& w : s->warnings.items) said |= w.message.find("CUBICSPLINE") != std::string::npos && w.message.find("10 keys per second") != std::string::npos;
    EXPECT_TRUE(said);
}

TEST(GltfReadAnim, CubicSplineRotationsStayUnit) {
    const float h = float(half_sqrt2);
    GltfFixture f = animated("rotation", {0, 1}, {0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, h, h, 0, 0, 0, 0}, "CUBICSPLINE", "VEC4");
    auto s = f.load();
    ASSERT_TRUE(s) << s.error().to_string();
    const JointTrack& t = s->animations.at(0).tracks.at(0);
    ASSERT_EQ(t.times.size(), 31u);  // 30 per second by default
    for (size_t k = 0; k < t.times.size(); ++k) {
        double n = 0;
        for (int c = 0; c < 4; ++c) n += double(t.values[k * 4 + c]) * t.values[k * 4 + c];
        EXPECT_NEAR(n, 1.0, 1e-6) << k;
    }
}

TEST(GltfReadAnim, MorphTargetsAndWeightsTrack) {
    GltfFixture f;
    const uint32_t pos = f.floats(triangle, "VEC3"), nrm = f.floats({0, 0, 1, 0, 0, 1, 0, 0, 1}, "VEC3");
    const uint32_t d0 = f.floats({0, 0, 1, 0, 0, 2, 0, 0, 3}, "VEC3"), d1 = f.floats({1, 0, 0, 1, 0, 0, 1, 0, 0}, "VEC3");
    const uint32_t n0 = f.floats({0, 0.5f, 0, 0, 0.5f, 0, 0, 0.5f, 0}, "VEC3");
    f.push("meshes", {{"name", "face"}, {"weights", {0.5, 0.25}}, {"extras", {{"targetNames", {"smile", "frown"}}}},
                      {"primitives", {{{"attributes", {{"POSITION", pos}, {"NORMAL", nrm}}}, {"targets", {{{"POSITION", d0}, {"NORMAL", n0}}, {{"POSITION", d1}}}}}}}});
    f.push("nodes", {{"mesh", 0}, {"rotation", {0, 0, half_sqrt2, half_sqrt2}}});  // static: deltas turn with the mesh
    const uint32_t in = f.floats({0, 1, 2}, "SCALAR"), out = f.floats({0, 0, 1, 0, 0.5f, 0.5f}, "SCALAR");
    f.push("animations", {{"name", "talk"}, {"channels", {{{"sampler", 0}, {"target", {{"node", 0}, {"path", "weights"}}}}}},
                          {"samplers", {{{"input", in}, {"output", out}, {"interpolation", "STEP"}}}}});
    auto s = f.load();
    ASSERT_TRUE(s) << s.error().to_string();
    const Mesh& m = s->meshes.at(0);
    ASSERT_EQ(m.morph_targets.size(), 2u);
    EXPECT_EQ(m.morph_targets[0].name, "smile");
    EXPECT_EQ(m.morph_targets[1].name, "frown");
    EXPECT_EQ(m.morph_targets[0].default_weight, 0.5f);
    EXPECT_EQ(m.morph_targets[1].default_weight, 0.25f);
    EXPECT_NEAR(m.morph_targets[0].position_deltas[2][2], 3.0f, 1e-6);
    EXPECT_NEAR(m.morph_targets[1].position_deltas[0][1], 1.0f, 1e-6) << "(1,0,0) turned 90 degrees about Z";
    EXPECT_NEAR(m.morph_targets[0].normal_deltas[0][0], -0.5f, 1e-6);
    EXPECT_TRUE(m.morph_targets[1].normal_deltas.empty());
    ASSERT_EQ(s->animations.size(), 1u);
    EXPECT_EQ(s->animations[0].name, "talk");
    ASSERT_EQ(s->animations[0].morph_tracks.size(), 1u);
    const MorphWeightTrack& t = s->animations[0].morph_tracks[0];
    EXPECT_EQ(t.mesh, 0u);
    EXPECT_EQ(t.interpolation, Interpolation::Step);
    EXPECT_EQ(t.times, (std::vector<float>{0, 1, 2}));
    EXPECT_EQ(t.weights, (std::vector<float>{0, 0, 1, 0, 0.5f, 0.5f}));
    EXPECT_TRUE(s->skeleton.joints.empty()) << "a weights channel does not make a joint";
    // IQM cannot hold them: dropped with a warning, never silently.
    Warnings w;
    SaveOptions so;
    so.warnings = &w;
    ASSERT_TRUE(save_bytes(*s, "x.iqm", so));
    EXPECT_TRUE(w.has(WarningCode::DroppedData));
}

TEST(GltfReadAnim, SeveralAnimationsAndRigportExtras) {
    GltfFixture f = animated("translation", {0, 1}, {0, 0, 0, 1, 0, 0}, "LINEAR", "VEC3");
    const uint32_t in = f.floats({0, 0.5f}, "SCALAR"), out = f.floats({0, 0, 0, 0, 1, 0}, "VEC3");
    f.push("animations", {{"name", "hop"}, {"extras", {{"loop", true}, {"frameRate", 24}}},
                          {"channels", {{{"sampler", 0}, {"target", {{"node", 0}, {"path", "translation"}}}}}},
                          {"samplers", {{{"input", in}, {"output", out}}}}});
    auto s = f.load();
    ASSERT_TRUE(s) << s.error().to_string();
    ASSERT_EQ(s->animations.size(), 2u);
    EXPECT_EQ(s->animations[0].name, "animation_0");
    EXPECT_FALSE(s->animations[0].loop);
    EXPECT_EQ(s->animations[1].name, "hop");
    EXPECT_TRUE(s->animations[1].loop);
    EXPECT_EQ(s->animations[1].frame_rate, 24.0f) << "rigport's own extras.frameRate";
    EXPECT_EQ(s->skeleton.joints.size(), 1u);
}

// rigport's sample (IQM conventions) -> GLB -> reader: the geometry is the sample turned Y up
// (bit for bit: the axis map is a permutation), triangles counter-clockwise, and the poses at every
// key time agree with the Y-up sample's within 1e-5.
TEST(GltfReadAnim, SampleThroughGltfKeepsGeometryAndPoses) {
    Scene original = make_sample_scene();
    auto glb = save_bytes(original, "sample.glb");
    ASSERT_TRUE(glb) << glb.error().to_string();
    auto s = load_bytes(*glb, "sample.glb");
    ASSERT_TRUE(s) << s.error().to_string();
    Scene yup = original;
    convert_to_y_up(yup);
    ASSERT_EQ(s->meshes.size(), yup.meshes.size());
    for (size_t m = 0; m < yup.meshes.size(); ++m) {
        EXPECT_EQ(s->meshes[m].positions, yup.meshes[m].positions);
        EXPECT_EQ(s->meshes[m].texcoords, yup.meshes[m].texcoords);
        ASSERT_EQ(s->meshes[m].triangles.size(), yup.meshes[m].triangles.size());
        for (size_t t = 0; t < yup.meshes[m].triangles.size(); ++t) {
            const Triangle& a = yup.meshes[m].triangles[t];
            EXPECT_EQ(s->meshes[m].triangles[t], (Triangle{a[0], a[2], a[1]})) << "clockwise -> counter-clockwise";
        }
    }
    ASSERT_EQ(s->skeleton.joints.size(), yup.skeleton.joints.size());
    for (size_t j = 0; j < yup.skeleton.joints.size(); ++j) {
        EXPECT_EQ(s->skeleton.joints[j].name, yup.skeleton.joints[j].name);
        EXPECT_EQ(s->skeleton.joints[j].parent, yup.skeleton.joints[j].parent);
    }
    ASSERT_EQ(s->animations.size(), yup.animations.size());
    for (size_t a = 0; a < yup.animations.size(); ++a) {
        const Animation& x = yup.animations[a];
        EXPECT_EQ(s->animations[a].name, x.name);
        EXPECT_EQ(s->animations[a].frame_rate, x.frame_rate);
        EXPECT_EQ(s->animations[a].loop, x.loop);
        for (uint32_t k = 0; k < x.frame_count; ++k) {
            const float t = float(k) / x.frame_rate;
            const auto p = sample_pose(yup.skeleton, x, t), q = sample_pose(s->skeleton, s->animations[a], t);
            for (size_t j = 0; j < p.size(); ++j) {
                const float sign = p[j].rotate[0] * q[j].rotate[0] + p[j].rotate[1] * q[j].rotate[1] + p[j].rotate[2] * q[j].rotate[2] +
                                               p[j].rotate[3] * q[j].rotate[3] < 0 ? -1.0f : 1.0f;
                for (int c = 0; c < 3; ++c) EXPECT_NEAR(q[j].translate[c], p[j].translate[c], 1e-5) << x.name << " key " << k << " joint " << j;
                for (int c = 0; c < 4; ++c) EXPECT_NEAR(q[j].rotate[c] * sign, p[j].rotate[c], 1e-5) << x.name << " key " << k << " joint " << j;
                for (int c = 0; c < 3; ++c) EXPECT_NEAR(q[j].scale[c], p[j].scale[c], 1e-5) << x.name << " key " << k << " joint " << j;
            }
        }
    }
    // And on to IQM: Z up and clockwise again, the positions the sample had.
    auto iqm = save_bytes(*s, "back.iqm");
    ASSERT_TRUE(iqm) << iqm.error().to_string();
    auto back = load_bytes(*iqm, "back.iqm");
    ASSERT_TRUE(back) << back.error().to_string();
    EXPECT_EQ(back->meta.up, UpAxis::Z);
    EXPECT_EQ(back->meta.front_face, Winding::Clockwise);
    EXPECT_EQ(back->meshes.at(0).positions, original.meshes.at(0).positions);
    EXPECT_EQ(back->meshes.at(0).triangles, original.meshes.at(0).triangles);
    ASSERT_EQ(back->animations.size(), original.animations.size());
    for (size_t a = 0; a < original.animations.size(); ++a) {
        EXPECT_EQ(back->animations[a].frame_count, original.animations[a].frame_count);
        EXPECT_EQ(back->animations[a].frame_rate, original.animations[a].frame_rate);
    }
}

// Keys at 24 fps that start after 0 and differ per channel: the IQM is sampled at 24 fps (so every
// key is a frame), frame 0 holds the first key, and each frame matches the glTF at its time.
TEST(GltfReadAnim, KeyedAnimationToIqmLandsKeysOnFrames) {
    GltfFixture f;
    f.mesh_node({{"POSITION", f.floats(triangle, "VEC3")}}, -1, 4, {{"name", "mover"}});
    const float h = float(half_sqrt2);
    const uint32_t t_in = f.floats({1 / 24.0f, 2 / 24.0f, 10 / 24.0f}, "SCALAR"), t_out = f.floats({0, 0, 0, 0, 1, 0, 3, 1, 0}, "VEC3");
    const uint32_t r_in = f.floats({0.5f, 0.75f}, "SCALAR"), r_out = f.floats({0, 0, 0, 1, 0, h, 0, h}, "VEC4");
    f.push("animations", {{"channels", {{{"sampler", 0}, {"target", {{"node", 0}, {"path", "translation"}}}}, {{"sampler", 1}, {"target", {{"node", 0}, {"path", "rotation"}}}}}},
                          {"samplers", {{{"input", t_in}, {"output", t_out}}, {{"input", r_in}, {"output", r_out}}}}});
    auto s = f.load();
    ASSERT_TRUE(s) << s.error().to_string();
    const Animation& a = s->animations.at(0);
    EXPECT_EQ(a.tracks.at(0).times.front(), 1 / 24.0f) << "times are kept, not shifted to 0";
    EXPECT_EQ(sampling_rate(a), 24.0f);
    EXPECT_EQ(sampled_frame_count(a), 19u);  // up to the last key of any channel, 0.75 s
    auto iqm = save_bytes(*s, "x.iqm");
    ASSERT_TRUE(iqm) << iqm.error().to_string();
    auto back = load_bytes(*iqm, "x.iqm");
    ASSERT_TRUE(back) << back.error().to_string();
    const Animation& b = back->animations.at(0);
    EXPECT_EQ(b.frame_rate, 24.0f);
    ASSERT_EQ(b.frame_count, 19u);
    for (uint32_t k = 0; k < b.frame_count; ++k) {
        const float t = float(k) / 24.0f;
        const auto want = skin_positions(s->meshes[0], skinning_matrices(s->skeleton, sample_pose(s->skeleton, a, t)));
        const auto got = skin_positions(back->meshes[0], skinning_matrices(back->skeleton, frame_pose(back->skeleton, b, k)));
        for (size_t v = 0; v < 3; ++v)
            for (int c = 0; c < 3; ++c) {
                const P3 y{got[v][0], got[v][2], -got[v][1]};  // IQM's Z up back to glTF's Y up
                EXPECT_NEAR(y[c], want[v][c], 2e-4) << "frame " << k << " vertex " << v;
            }
    }
}

TEST(GltfReadAnim, ChannelErrorsNameThePath) {
    GltfFixture f = animated("translation", {0, 1}, {0, 0, 0, 1, 0, 0, 2, 0, 0}, "LINEAR", "VEC3");
    auto s = f.load();
    ASSERT_FALSE(s);
    EXPECT_NE(s.error().message.find("/animations/0/samplers/0/output"), std::string::npos) << s.error().to_string();
    GltfFixture g = animated("translation", {1, 0}, {0, 0, 0, 1, 0, 0}, "LINEAR", "VEC3");
    auto d = g.load();
    ASSERT_FALSE(d);
    EXPECT_NE(d.error().message.find("does not increase"), std::string::npos) << d.error().to_string();
    // Keys a billion seconds apart are kept as keys (glTF holds them); a frame-based writer,
    // which would sample them, refuses them.
    GltfFixture h = animated("translation", {0, 1e9f}, {0, 0, 0, 1, 0, 0}, "LINEAR", "VEC3");
    auto l = h.load();
    ASSERT_TRUE(l) << l.error().to_string();
    ASSERT_TRUE(save_bytes(*l, "long.glb"));
    auto iqm = save_bytes(*l, "long.iqm");
    ASSERT_FALSE(iqm);
    EXPECT_EQ(iqm.error().code, ErrorCode::LimitExceeded) << iqm.error().to_string();
}

// Primitives of one mesh with different numbers of targets (invalid glTF): the weights channel
// drives the ones it fits, and the others are named in a warning, not dropped silently.
TEST(GltfReadAnim, AWeightsChannelThatDoesNotFitAPrimitiveIsSaid) {
    GltfFixture f;
    const uint32_t pos = f.floats(triangle, "VEC3");
    const uint32_t d0 = f.floats({0, 0, 1, 0, 0, 2, 0, 0, 3}, "VEC3"), d1 = f.floats({1, 0, 0, 1, 0, 0, 1, 0, 0}, "VEC3");
    f.push("meshes", {{"name", "face"},
                      {"primitives", {{{"attributes", {{"POSITION", pos}}}, {"targets", {{{"POSITION", d0}}, {{"POSITION", d1}}}}},
                                      {{"attributes", {{"POSITION", pos}}}, {"targets", {{{"POSITION", d0}}}}}}}});
    f.push("nodes", {{"mesh", 0}});
    const uint32_t in = f.floats({0, 1}, "SCALAR"), out = f.floats({0, 0, 1, 1}, "SCALAR");
    f.push("animations", {{"name", "talk"}, {"channels", {{{"sampler", 0}, {"target", {{"node", 0}, {"path", "weights"}}}}}},
                          {"samplers", {{{"input", in}, {"output", out}}}}});
    auto s = f.load();
    ASSERT_TRUE(s) << s.error().to_string();
    ASSERT_EQ(s->animations.size(), 1u);
    EXPECT_EQ(s->animations[0].morph_tracks.size(), 1u);
    bool warned = false;
    for (auto& w : s->warnings.items) warned |= w.message.find("has 1 morph targets") != std::string::npos;
    EXPECT_TRUE(warned);
}

}  // namespace
}  // namespace rigport::test
