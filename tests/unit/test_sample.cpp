// The built-in sample against IQM conventions, checked independently of the validator.
#include <gtest/gtest.h>

#include <cmath>

#include "rigport/io.hpp"
#include "rigport/sample.hpp"
#include "rigport/validate.hpp"

namespace rigport {
namespace {

using D3 = std::array<double, 3>;
D3 sub(const Vec3& a, const Vec3& b) { return {double(a[0]) - b[0], double(a[1]) - b[1], double(a[2]) - b[2]}; }
D3 cross(const D3& a, const D3& b) { return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]}; }
double dot(const D3& a, const D3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
D3 d3(const Vec3& v) { return {v[0], v[1], v[2]}; }

TEST(Sample, PassesInvariantsAndHasTheAdvertisedContent) {
    const Scene scene = make_sample_scene();
    auto st = check_invariants(scene);
    ASSERT_TRUE(st) << st.error().message;
    ASSERT_EQ(scene.meshes.size(), 1u);
    const Mesh& mesh = scene.meshes[0];
    EXPECT_GE(mesh.vertex_count(), 200u);
    EXPECT_LE(mesh.vertex_count(), 400u);
    EXPECT_EQ(mesh.normals.size(), mesh.vertex_count());
    EXPECT_EQ(mesh.tangents.size(), mesh.vertex_count());
    ASSERT_EQ(mesh.texcoords.size(), 1u);
    ASSERT_EQ(mesh.colors.size(), 1u);
    ASSERT_EQ(scene.materials.size(), 1u);
    EXPECT_EQ(scene.materials[0].name, "sample_texture.png");
    EXPECT_EQ(mesh.material, 0);
    ASSERT_EQ(scene.skeleton.joints.size(), 4u);
    for (size_t j = 0; j < 4; ++j) EXPECT_EQ(scene.skeleton.joints[j].parent, int32_t(j) - 1);
    EXPECT_EQ(scene.meta.source_format, "sample");
    EXPECT_EQ(scene.meta.up, UpAxis::Z);
    EXPECT_EQ(scene.meta.handedness, Handedness::Right);
    EXPECT_EQ(scene.meta.front_face, Winding::Clockwise);
    EXPECT_EQ(scene.meta.unit_scale, 1.0f);
}

TEST(Sample, IsDeterministic) {
    const Scene a = make_sample_scene(), b = make_sample_scene();
    EXPECT_EQ(a.meshes[0].positions, b.meshes[0].positions);
    EXPECT_EQ(a.animations[0].tracks[1].values, b.animations[0].tracks[1].values);
}

// IQM front faces are clockwise relative to the outward normals: (b-a)x(c-a) points inward.
TEST(Sample, EveryTriangleIsClockwiseRelativeToItsNormals) {
    const Scene scene = make_sample_scene();
    const Mesh& mesh = scene.meshes[0];
    size_t clockwise = 0;
    for (auto& t : mesh.triangles) {
        D3 face = cross(sub(mesh.positions[t[1]], mesh.positions[t[0]]), sub(mesh.positions[t[2]], mesh.positions[t[0]]));
        ASSERT_GT(dot(face, face), 0.0) << "degenerate triangle";
        double d = 0;
        for (uint32_t v : t) d += dot(face, d3(mesh.normals[v]));
        clockwise += d < 0;
    }
    EXPECT_EQ(clockwise, mesh.triangles.size());
}

TEST(Sample, NormalsPointOutwardFromTheAxis) {
    const Scene scene = make_sample_scene();
    const Mesh& mesh = scene.meshes[0];
    for (uint32_t v = 0; v < mesh.vertex_count(); ++v) {
        const Vec3& p = mesh.positions[v];
        const Vec3& n = mesh.normals[v];
        EXPECT_NEAR(std::sqrt(dot(d3(n), d3(n))), 1.0, 1e-6);
        // Side normals point away from the axis; cap normals along +-Z away from the middle.
        double radial = double(p[0]) * n[0] + double(p[1]) * n[1];
        double axial = (p[2] - 2.0) * n[2];
        EXPECT_GE(radial + axial, 0.0) << "vertex " << v;
    }
}

TEST(Sample, TwoInfluencesPerVertexSummingToOne) {
    const Scene scene = make_sample_scene();
    const Mesh& mesh = scene.meshes[0];
    ASSERT_FALSE(mesh.skin.empty());
    for (uint32_t v = 0; v < mesh.vertex_count(); ++v) {
        ASSERT_EQ(mesh.skin.count(v), 2u);
        const Influence* inf = mesh.skin.begin(v);
        EXPECT_NE(inf[0].joint, inf[1].joint);
        EXPECT_GT(inf[1].weight, 0.0f);
        EXPECT_GE(inf[0].weight, inf[1].weight);  // descending, as IQM stores them
        EXPECT_EQ(inf[0].weight + inf[1].weight, 1.0f);
    }
}

TEST(Sample, TangentsAreUnitPerpendicularWithHandedness) {
    const Scene scene = make_sample_scene();
    const Mesh& mesh = scene.meshes[0];
    const auto& uv = mesh.texcoords[0];
    for (uint32_t v = 0; v < mesh.vertex_count(); ++v) {
        const Vec4& t = mesh.tangents[v];
        D3 t3{t[0], t[1], t[2]};
        EXPECT_NEAR(std::sqrt(dot(t3, t3)), 1.0, 1e-6);
        EXPECT_NEAR(dot(t3, d3(mesh.normals[v])), 0.0, 1e-6);
        EXPECT_TRUE(t[3] == 1.0f || t[3] == -1.0f);
    }
    // Across each triangle, the tangent follows increasing u and cross(n, t) * w increasing v.
    for (auto& tri : mesh.triangles) {
        const uint32_t a = tri[0], b = tri[1], c = tri[2];
        D3 e1 = sub(mesh.positions[b], mesh.positions[a]), e2 = sub(mesh.positions[c], mesh.positions[a]);
        double du1 = uv[b][0] - uv[a][0], dv1 = uv[b][1] - uv[a][1], du2 = uv[c][0] - uv[a][0], dv2 = uv[c][1] - uv[a][1];
        double det = du1 * dv2 - du2 * dv1;
        if (std::abs(det) < 1e-12) continue;
        D3 dpdu, dpdv;
        for (int k = 0; k < 3; ++k) {
            dpdu[k] = (e1[k] * dv2 - e2[k] * dv1) / det;
            dpdv[k] = (e2[k] * du1 - e1[k] * du2) / det;
        }
        const Vec4& t = mesh.tangents[a];
        D3 t3{t[0], t[1], t[2]};
        D3 bitangent = cross(d3(mesh.normals[a]), t3);
        EXPECT_GT(dot(t3, dpdu), 0.0);
        EXPECT_GT(t[3] * dot(bitangent, dpdv), 0.0);
    }
}

TEST(Sample, AnimationsKeyedPerFrameWithUnitQuaternions) {
    const Scene scene = make_sample_scene();
    ASSERT_EQ(scene.animations.size(), 2u);
    const Animation& wave = scene.animations[0];
    EXPECT_EQ(wave.name, "wave");
    EXPECT_EQ(wave.frame_rate, 24.0f);
    EXPECT_TRUE(wave.loop);
    EXPECT_EQ(wave.frame_count, 25u);
    const Animation& pulse = scene.animations[1];
    EXPECT_EQ(pulse.name, "pulse");
    EXPECT_EQ(pulse.frame_rate, 10.0f);
    EXPECT_FALSE(pulse.loop);
    EXPECT_EQ(pulse.frame_count, 11u);

    bool has[3] = {false, false, false};
    for (const Animation* a : {&wave, &pulse}) {
        for (auto& track : a->tracks) {
            has[int(track.channel)] = true;
            ASSERT_EQ(track.times.size(), a->frame_count);
            for (uint32_t i = 0; i < a->frame_count; ++i) EXPECT_EQ(track.times[i], static_cast<float>(i) / a->frame_rate);
            if (track.channel == Channel::Rotation)
                for (size_t k = 0; k < track.values.size(); k += 4) {
                    const float* q = &track.values[k];
                    EXPECT_NEAR(std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]), 1.0, 1e-6);
                }
            if (track.channel == Channel::Scale)
                for (size_t k = 0; k < track.values.size(); k += 3) {
                    EXPECT_EQ(track.values[k], track.values[k + 1]);  // uniform
                    EXPECT_EQ(track.values[k], track.values[k + 2]);
                }
        }
    }
    EXPECT_TRUE(has[int(Channel::Translation)] && has[int(Channel::Rotation)] && has[int(Channel::Scale)]);
    for (auto& j : scene.skeleton.joints) {
        const Quat& q = j.bind.rotate;
        EXPECT_NEAR(std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]), 1.0, 1e-6);
    }
}

TEST(Sample, ValidatesWithoutErrorsOrWarnings) {
    const Scene scene = make_sample_scene();
    ValidationReport report;
    validate_scene(scene, report);
    for (auto& f : report.findings)
        EXPECT_EQ(f.severity, Severity::Info) << f.code << ": " << f.message;
}

// Written as IQM and validated as a file: the writer's adjacency and bounds agree with ours.
TEST(Sample, WrittenAsIqmValidatesClean) {
    auto bytes = save_bytes(make_sample_scene(), "sample.iqm");
    ASSERT_TRUE(bytes) << bytes.error().to_string();
    const ValidationReport report = validate_bytes(*bytes, "sample.iqm");
    EXPECT_EQ(report.format, "iqm");
    for (auto& f : report.findings)
        EXPECT_EQ(f.severity, Severity::Info) << f.code << ": " << f.message;
    EXPECT_EQ(report.tally("adjacency", "wrong"), 0u);
    EXPECT_EQ(report.tally("adjacency", "missing"), 0u);
    // A closed surface: every edge has exactly one neighbour.
    EXPECT_EQ(report.tally("adjacency", "open"), 0u);
    bool correct = false;
    for (auto& f : report.findings) correct |= f.code == "adjacency.correct";
    EXPECT_TRUE(correct);
}

}  // namespace
}  // namespace rigport
