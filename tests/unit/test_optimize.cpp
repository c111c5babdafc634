// Vertex cache order (meshoptimizer): every per-vertex stream follows its vertex, every
// triangle survives, and vertices come out in first-use order.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "rigport/process.hpp"

namespace rigport {
namespace {

// A grid of (n+1)^2 vertices with shuffled vertex numbers and shuffled triangles, whose every
// stream encodes the vertex's original id, plus two degenerate triangles.
Scene encoded_grid(uint32_t n) {
    Scene s;
    s.skeleton.joints.resize(1000);
    for (size_t j = 1; j < s.skeleton.joints.size(); ++j) s.skeleton.joints[j].parent = 0;
    const uint32_t count = (n + 1) * (n + 1);
    std::vector<uint32_t> slot(count);  // grid point -> vertex number
    for (uint32_t i = 0; i < count; ++i) slot[i] = i;
    std::mt19937 rng(7);
    std::shuffle(slot.begin(), slot.end(), rng);

    Mesh m;
    m.positions.resize(count);
    for (uint32_t y = 0; y <= n; ++y)
        for (uint32_t x = 0; x <= n; ++x) m.positions[slot[y * (n + 1) + x]] = {float(x), float(y), 0};
    m.texcoords.resize(2);
    m.colors.resize(1);
    m.custom = {CustomArray{"id", ComponentType::Float64, 2, {}}};
    m.morph_targets.resize(1);
    m.skin.offsets = {0};
    for (uint32_t id = 0; id < count; ++id) {
        float f = float(id);
        m.normals.push_back({f, 0, 0});
        m.tangents.push_back({0, f, 0, 1});
        m.texcoords[0].push_back({f, -f});
        m.texcoords[1].push_back({-f, f});
        m.colors[0].push_back({f, f, f, 1});
        m.custom[0].values.insert(m.custom[0].values.end(), {double(id), -double(id)});
        m.morph_targets[0].position_deltas.push_back({0, 0, f});
        m.morph_targets[0].normal_deltas.push_back({f, 1, 0});
        m.lod.push_back({int32_t(id), int32_t(id % 5)});
        m.spring_weights.push_back(f / 2);
        for (uint32_t k = 0; k <= id % 3; ++k) m.skin.influences.push_back({id % 1000, float(k + 1)});
        m.skin.offsets.push_back(uint32_t(m.skin.influences.size()));
    }
    for (uint32_t y = 0; y < n; ++y)
        for (uint32_t x = 0; x < n; ++x) {
            uint32_t a = slot[y * (n + 1) + x], b = slot[y * (n + 1) + x + 1];
            uint32_t c = slot[(y + 1) * (n + 1) + x], d = slot[(y + 1) * (n + 1) + x + 1];
            m.triangles.push_back({a, c, b});
            m.triangles.push_back({b, c, d});
        }
    std::shuffle(m.triangles.begin(), m.triangles.end(), rng);
    m.triangles.insert(m.triangles.begin() + 3, Triangle{5, 5, 9});
    m.triangles.push_back({7, 8, 7});
    m.springs = {{0, 1, 1, 1}, {count - 1, 2, 1, 1}};
    s.meshes.push_back(m);
    return s;
}

// A triangle as its three positions, rotated so the smallest comes first (winding kept).
using Corners = std::array<Vec3, 3>;
std::vector<Corners> triangle_set(const Mesh& m) {
    std::vector<Corners> out;
    for (auto& t : m.triangles) {
        if (t[0] == t[1] || t[1] == t[2] || t[0] == t[2]) continue;
        Corners c{m.positions[t[0]], m.positions[t[1]], m.positions[t[2]]};
        std::rotate(c.begin(), std::min_element(c.begin(), c.end()), c.end());
        out.push_back(c);
    }
    std::sort(out.begin(), out.end());
    return out;
}

TEST(OptimizeVertexCache, EveryStreamFollowsItsVertex) {
    const Scene before = encoded_grid(12);
    Scene s = before;
    optimize_vertex_cache(s);
    ASSERT_TRUE(check_invariants(s));
    const Mesh &m = s.meshes[0], &o = before.meshes[0];
    ASSERT_EQ(m.vertex_count(), o.vertex_count());  // every vertex is used
    std::vector<bool> seen(o.vertex_count());
    bool moved = false;
    for (uint32_t v = 0; v < m.vertex_count(); ++v) {
        const uint32_t id = uint32_t(m.normals[v][0]);
        const float f = float(id);
        ASSERT_LT(id, o.vertex_count());
        EXPECT_FALSE(seen[id]) << "vertex " << id << " twice";
        seen[id] = true;
        moved = moved || id != v;
        EXPECT_EQ(m.positions[v], o.positions[id]) << v;
        EXPECT_EQ(m.tangents[v], (Vec4{0, f, 0, 1})) << v;
        EXPECT_EQ(m.texcoords[0][v], (Vec2{f, -f})) << v;
        EXPECT_EQ(m.texcoords[1][v], (Vec2{-f, f})) << v;
        EXPECT_EQ(m.colors[0][v], (Vec4{f, f, f, 1})) << v;
        EXPECT_EQ(m.custom[0].values[2 * v], double(id)) << v;
        EXPECT_EQ(m.custom[0].values[2 * v + 1], -double(id)) << v;
        EXPECT_EQ(m.morph_targets[0].position_deltas[v], (Vec3{0, 0, f})) << v;
        EXPECT_EQ(m.morph_targets[0].normal_deltas[v], (Vec3{f, 1, 0})) << v;
        EXPECT_EQ(m.lod[v].collapse_id, int32_t(id)) << v;
        EXPECT_EQ(m.lod[v].face_collapse_count, int32_t(id % 5)) << v;
        EXPECT_EQ(m.spring_weights[v], f / 2) << v;
        ASSERT_EQ(m.skin.count(v), id % 3 + 1) << v;
        for (uint32_t k = 0; k < m.skin.count(v); ++k) {
            EXPECT_EQ(m.skin.begin(v)[k].joint, id % 1000);
            EXPECT_EQ(m.skin.begin(v)[k].weight, float(k + 1));
        }
    }
    EXPECT_TRUE(moved) << "the fixture should change the vertex order";
    for (size_t i = 0; i < m.springs.size(); ++i) {
        EXPECT_EQ(m.normals[m.springs[i].vertex0][0], float(o.springs[i].vertex0));
        EXPECT_EQ(m.normals[m.springs[i].vertex1][0], float(o.springs[i].vertex1));
    }
}

// Dropping degenerate triangles is drop_degenerate_triangles's job (test_degenerate.cpp).
TEST(OptimizeVertexCache, KeepsEveryTriangleDegeneratesIncluded) {
    const Scene before = encoded_grid(9);
    Scene s = before;
    optimize_vertex_cache(s);
    ASSERT_TRUE(check_invariants(s));
    EXPECT_EQ(s.meshes[0].triangles.size(), before.meshes[0].triangles.size());
    uint64_t degenerate = 0;
    for (auto& t : s.meshes[0].triangles) degenerate += t[0] == t[1] || t[1] == t[2] || t[0] == t[2];
    EXPECT_EQ(degenerate, 2u);
    EXPECT_EQ(triangle_set(s.meshes[0]), triangle_set(before.meshes[0]));
}

TEST(OptimizeVertexCache, VerticesInFirstUseOrder) {
    Scene s = encoded_grid(10);
    optimize_vertex_cache(s);
    uint32_t next = 0;
    std::vector<bool> seen(s.meshes[0].vertex_count());
    for (auto& t : s.meshes[0].triangles)
        for (uint32_t v : t)
            if (!seen[v]) {
                EXPECT_EQ(v, next);
                seen[v] = true;
                ++next;
            }
    EXPECT_EQ(next, s.meshes[0].vertex_count());
}

TEST(OptimizeVertexCache, UnusedVerticesKeptAtTheEnd) {
    Scene s;
    Mesh m;
    m.positions = {{9, 9, 9}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {8, 8, 8}};
    m.triangles = {{3, 2, 1}};
    m.springs = {{0, 4, 1, 1}};
    s.meshes.push_back(m);
    optimize_vertex_cache(s);
    ASSERT_TRUE(check_invariants(s));
    const Mesh& o = s.meshes[0];
    EXPECT_EQ(o.triangles[0], (Triangle{0, 1, 2}));
    EXPECT_EQ(o.positions, (std::vector<Vec3>{{0, 1, 0}, {1, 0, 0}, {0, 0, 0}, {9, 9, 9}, {8, 8, 8}}));
    EXPECT_EQ(o.springs[0].vertex0, 3u);
    EXPECT_EQ(o.springs[0].vertex1, 4u);
}

}  // namespace
}  // namespace rigport
