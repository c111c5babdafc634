// Tangent generation (docs/iqm.md §3.2 step 7) against dP/du and dP/dv solved here, and supplied
// tangents kept on their own vertices through weld and cache order (the fix for bug 5).
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "rigport/process.hpp"

namespace rigport {
namespace {

Vec3 sub(Vec3 a, Vec3 b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
Vec3 cross(Vec3 a, Vec3 b) { return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]}; }
float dot(Vec3 a, Vec3 b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
Vec3 unit(Vec3 v) {
    float l = std::sqrt(dot(v, v));
    return {v[0] / l, v[1] / l, v[2] / l};
}

// A unit quad in the XY plane, two clockwise triangles, normals from (p2-p0) x (p1-p0).
Scene quad(std::vector<Vec2> uv) {
    Scene s;
    Mesh m;
    m.positions = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}};
    m.triangles = {{0, 1, 2}, {0, 2, 3}};
    Vec3 n = unit(cross(sub(m.positions[2], m.positions[0]), sub(m.positions[1], m.positions[0])));
    m.normals.assign(4, n);
    m.texcoords = {uv};
    s.meshes.push_back(m);
    return s;
}

// Solve e1 = T du1 + B dv1, e2 = T du2 + B dv2 for the first triangle.
void solve_tb(const Mesh& m, Vec3& T, Vec3& B) {
    const auto& t = m.triangles[0];
    Vec3 e1 = sub(m.positions[t[1]], m.positions[t[0]]), e2 = sub(m.positions[t[2]], m.positions[t[0]]);
    Vec2 a = m.texcoords[0][t[0]], b = m.texcoords[0][t[1]], c = m.texcoords[0][t[2]];
    float du1 = b[0] - a[0], dv1 = b[1] - a[1], du2 = c[0] - a[0], dv2 = c[1] - a[1];
    float det = du1 * dv2 - du2 * dv1;
    for (int i = 0; i < 3; ++i) {
        T[i] = (e1[i] * dv2 - e2[i] * dv1) / det;
        B[i] = (e2[i] * du1 - e1[i] * du2) / det;
    }
}

TEST(Tangents, QuadInXYPlane) {
    Scene s = quad({{0, 0}, {1, 0}, {1, 1}, {0, 1}});
    generate_tangents(s);
    ASSERT_TRUE(check_invariants(s));
    const Mesh& m = s.meshes[0];
    ASSERT_EQ(m.tangents.size(), 4u);
    Vec3 T, B;
    solve_tb(m, T, B);
    // The compiler's v direction is -dP/dv (UV origin top-left), so w = sign((n x t) . -dP/dv).
    float w = dot(cross(m.normals[0], unit(T)), B) > 0 ? -1.0f : 1.0f;
    for (auto& t : m.tangents) {
        EXPECT_NEAR(t[0], 1, 1e-6);
        EXPECT_NEAR(t[1], 0, 1e-6);
        EXPECT_NEAR(t[2], 0, 1e-6);
        EXPECT_EQ(t[3], w);
    }
    EXPECT_EQ(m.tangents[0][3], 1.0f);  // with n = (0,0,-1): n x t = (0,-1,0) = -dP/dv
}

TEST(Tangents, MirroredUvsFlipHandedness) {
    Scene s = quad({{1, 0}, {0, 0}, {0, 1}, {1, 1}});  // u mirrored
    generate_tangents(s);
    const Mesh& m = s.meshes[0];
    Vec3 T, B;
    solve_tb(m, T, B);
    for (auto& t : m.tangents) {
        Vec3 want = unit(T);
        for (int i = 0; i < 3; ++i) EXPECT_NEAR(t[i], want[i], 1e-6);
        EXPECT_NEAR(t[0], -1, 1e-6);
        EXPECT_EQ(t[3], -1.0f);
    }
}

TEST(Tangents, TiltedTriangleIsPerpendicularToNormal) {
    Scene s;
    Mesh m;
    m.positions = {{0, 0, 0}, {2, 0, 1}, {0, 3, 1}};
    m.triangles = {{0, 1, 2}};
    m.normals = {unit(Vec3{0.2f, 0.1f, 1}), unit(Vec3{-0.1f, 0, 1}), unit(Vec3{0, -0.3f, 1})};
    m.texcoords = {{{0, 0}, {1, 0.2f}, {0.1f, 1}}};
    s.meshes.push_back(m);
    generate_tangents(s);
    Vec3 T, B;
    solve_tb(s.meshes[0], T, B);
    for (uint32_t v = 0; v < 3; ++v) {
        const Vec4& t = s.meshes[0].tangents[v];
        Vec3 n = m.normals[v];
        Vec3 want = unit(sub(T, Vec3{n[0] * dot(n, T), n[1] * dot(n, T), n[2] * dot(n, T)}));
        for (int i = 0; i < 3; ++i) EXPECT_NEAR(t[i], want[i], 1e-5) << v;
        EXPECT_EQ(t[3], dot(cross(n, want), B) > 0 ? -1.0f : 1.0f) << v;
    }
}

TEST(Tangents, DegenerateUvsGiveAFinitePerpendicular) {
    Scene s = quad({{0.5f, 0.5f}, {0.5f, 0.5f}, {0.5f, 0.5f}, {0.5f, 0.5f}});
    s.meshes[0].positions.push_back({5, 5, 5});  // a vertex no triangle uses
    s.meshes[0].normals.push_back({0, 1, 0});
    s.meshes[0].texcoords[0].push_back({0, 0});
    generate_tangents(s);
    ASSERT_TRUE(check_invariants(s));
    const Mesh& m = s.meshes[0];
    for (uint32_t v = 0; v < m.vertex_count(); ++v) {
        Vec3 t{m.tangents[v][0], m.tangents[v][1], m.tangents[v][2]};
        EXPECT_NEAR(dot(t, t), 1, 1e-6) << v;
        EXPECT_NEAR(dot(t, m.normals[v]), 0, 1e-6) << v;
        EXPECT_EQ(m.tangents[v][3], 1.0f) << v;
    }
}

TEST(Tangents, OnlyMeshesWithNormalsAndTexcoordsAndNoTangents) {
    Scene s = quad({{0, 0}, {1, 0}, {1, 1}, {0, 1}});
    s.meshes.push_back(s.meshes[0]);
    s.meshes.push_back(s.meshes[0]);
    s.meshes[1].normals.clear();
    s.meshes[2].texcoords.clear();
    generate_tangents(s);
    EXPECT_EQ(s.meshes[0].tangents.size(), 4u);
    EXPECT_TRUE(s.meshes[1].tangents.empty());
    EXPECT_TRUE(s.meshes[2].tangents.empty());
}

// Bug 5 belongs to whoever keeps supplied tangents; here: supplied tangents are never overwritten
// and stay on their vertices through weld and vertex-cache order, on a quad whose vertex order
// the optimizer changes (and with a duplicate vertex the weld removes).
TEST(Tangents, SuppliedTangentsFollowTheirVerticesThroughWeldAndOptimize) {
    Scene s;
    Mesh m;
    m.positions = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {1, 1, 0}};
    m.normals.assign(5, Vec3{0, 0, -1});
    m.texcoords = {{{0, 0}, {1, 0}, {1, 1}, {0, 1}, {1, 1}}};
    m.tangents = {{1, 0, 0, 1}, {0, 1, 0, -1}, {0.6f, 0.8f, 0, 1}, {0.8f, 0.6f, 0, -1}, {0.6f, 0.8f, 0, 1}};
    m.triangles = {{3, 4, 0}, {2, 1, 0}};  // vertex 4 duplicates vertex 2; first use is 3, 4, 0, 1
    s.meshes.push_back(m);
    std::map<Vec3, Vec4> by_position;
    for (uint32_t v = 0; v < 4; ++v) by_position[m.positions[v]] = m.tangents[v];

    weld_vertices(s);
    optimize_vertex_cache(s);
    generate_tangents(s);
    ASSERT_TRUE(check_invariants(s));
    const Mesh& o = s.meshes[0];
    ASSERT_EQ(o.vertex_count(), 4u);
    EXPECT_NE(o.positions[0], m.positions[0]) << "the fixture should change the vertex order";
    for (uint32_t v = 0; v < 4; ++v) EXPECT_EQ(o.tangents[v], by_position.at(o.positions[v])) << v;
}

}  // namespace
}  // namespace rigport
