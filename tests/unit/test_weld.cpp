// Vertex welding (docs/iqm.md §3.2 step 4): only vertices equal in every attribute merge.
#include <gtest/gtest.h>

#include <algorithm>

#include "rigport/process.hpp"

namespace rigport {
namespace {

// Four vertices: 0 and 2 identical in everything, 3 differs from 0 only in the attribute the
// caller changes. Triangles (0,1,2) (2,1,3).
Scene four_vertices() {
    Scene s;
    s.skeleton.joints.resize(3);
    s.skeleton.joints[1].parent = 0;
    s.skeleton.joints[2].parent = 0;
    Mesh m;
    m.positions = {{0, 0, 0}, {1, 0, 0}, {0, 0, 0}, {0, 0, 0}};
    m.normals.assign(4, Vec3{0, 0, 1});
    m.tangents.assign(4, Vec4{1, 0, 0, 1});
    m.texcoords = {{{0, 0}, {1, 0}, {0, 0}, {0, 0}}};
    m.colors = {std::vector<Vec4>(4, Vec4{1, 1, 1, 1})};
    m.skin.offsets = {0, 2, 3, 5, 7};
    m.skin.influences = {{1, 0.5f}, {2, 0.5f}, {0, 1}, {1, 0.5f}, {2, 0.5f}, {1, 0.5f}, {2, 0.5f}};
    m.custom = {CustomArray{"c", ComponentType::Float32, 2, {1, 2, 3, 4, 1, 2, 1, 2}}};
    MorphTarget t;
    t.position_deltas.assign(4, Vec3{0, 1, 0});
    m.morph_targets = {t};
    m.lod.assign(4, LodCollapse{});
    m.spring_weights.assign(4, 0.25f);
    m.triangles = {{0, 1, 2}, {2, 1, 3}};
    m.springs = {{2, 3, 1.0f, 0.5f}, {1, 2, 1.0f, 0.5f}};
    s.meshes.push_back(m);
    return s;
}

TEST(Weld, IdenticalVerticesMergeFirstOccurrenceWins) {
    Scene s = four_vertices();
    weld_vertices(s);
    ASSERT_TRUE(check_invariants(s));
    const Mesh& m = s.meshes[0];
    ASSERT_EQ(m.vertex_count(), 2u);  // vertex 3 equals 0 too in this fixture
    EXPECT_EQ(m.triangles[0], (Triangle{0, 1, 0}));
    EXPECT_EQ(m.triangles[1], (Triangle{0, 1, 0}));
    EXPECT_EQ(m.springs[0].vertex0, 0u);
    EXPECT_EQ(m.springs[0].vertex1, 0u);
    EXPECT_EQ(m.springs[1].vertex0, 1u);
    EXPECT_EQ(m.springs[1].vertex1, 0u);
    EXPECT_EQ(m.skin.offsets, (std::vector<uint32_t>{0, 2, 3}));
    EXPECT_EQ(m.skin.influences[2].joint, 0u);
    EXPECT_EQ(m.custom[0].values, (std::vector<double>{1, 2, 3, 4}));
    EXPECT_EQ(m.positions[1], (Vec3{1, 0, 0}));
}

// Each attribute on its own keeps vertex 3 apart from vertex 0 (and 2 still merges into 0).
TEST(Weld, EveryAttributeTakesPart) {
    struct Case {
        const char* name;
        void (*change)(Mesh&);
    };
    const Case cases[] = {
        {"position", [](Mesh& m) { m.positions[3][2] = 1e-7f; }},
        {"negative zero position", [](Mesh& m) { m.positions[3][0] = -0.0f; }},
        {"normal", [](Mesh& m) { m.normals[3] = {0, 1, 0}; }},
        {"tangent sign", [](Mesh& m) { m.tangents[3][3] = -1; }},
        {"texcoord", [](Mesh& m) { m.texcoords[0][3] = {0, 1}; }},
        {"second texcoord set", [](Mesh& m) { m.texcoords.push_back({{0, 0}, {0, 0}, {0, 0}, {5, 5}}); }},
        {"color", [](Mesh& m) { m.colors[0][3][3] = 0.5f; }},
        {"influence order", [](Mesh& m) { std::swap(m.skin.influences[5], m.skin.influences[6]); }},
        {"influence weight", [](Mesh& m) { m.skin.influences[6].weight = 0.25f; }},
        {"influence joint", [](Mesh& m) { m.skin.influences[6].joint = 0; }},
        {"influence count",
         [](Mesh& m) {
             m.skin.influences.pop_back();
             m.skin.offsets[4] = 6;
         }},
        {"custom", [](Mesh& m) { m.custom[0].values[7] = 3; }},
        {"morph delta", [](Mesh& m) { m.morph_targets[0].position_deltas[3] = {0, 0, 1}; }},
        {"morph normal delta", [](Mesh& m) { m.morph_targets[0].normal_deltas = {{}, {}, {}, {0, 0, 1}}; }},
        {"lod", [](Mesh& m) { m.lod[3].collapse_id = 1; }},
        {"spring weight", [](Mesh& m) { m.spring_weights[3] = 1; }},
    };
    for (const Case& c : cases) {
        Scene s = four_vertices();
        c.change(s.meshes[0]);
        ASSERT_TRUE(check_invariants(s)) << c.name;
        weld_vertices(s);
        ASSERT_TRUE(check_invariants(s)) << c.name;
        const Mesh& m = s.meshes[0];
        ASSERT_EQ(m.vertex_count(), 3u) << c.name;
        EXPECT_EQ(m.triangles[0], (Triangle{0, 1, 0})) << c.name;
        EXPECT_EQ(m.triangles[1], (Triangle{0, 1, 2})) << c.name;
        EXPECT_EQ(m.springs[0].vertex1, 2u) << c.name;
    }
}

// Brute force over a mesh with many repeats: the result keeps the distinct vertices in first-use
// order and every triangle names the same attribute values as before.
TEST(Weld, MatchesBruteForce) {
    Scene s;
    Mesh m;
    for (uint32_t i = 0; i < 200; ++i) {
        m.positions.push_back({float(i % 7), float(i % 3), 0});
        m.texcoords.resize(1);
        m.texcoords[0].push_back({float(i % 5), 0});
    }
    for (uint32_t i = 0; i + 2 < 200; i += 3) m.triangles.push_back({i, i + 1, i + 2});
    s.meshes.push_back(m);
    weld_vertices(s);
    ASSERT_TRUE(check_invariants(s));
    const Mesh& w = s.meshes[0];
    std::vector<std::pair<Vec3, Vec2>> distinct;
    for (uint32_t i = 0; i < 200; ++i) {
        std::pair<Vec3, Vec2> key{m.positions[i], m.texcoords[0][i]};
        if (std::find(distinct.begin(), distinct.end(), key) == distinct.end()) distinct.push_back(key);
    }
    ASSERT_EQ(w.vertex_count(), distinct.size());
    for (uint32_t v = 0; v < w.vertex_count(); ++v) {
        EXPECT_EQ(w.positions[v], distinct[v].first);
        EXPECT_EQ(w.texcoords[0][v], distinct[v].second);
    }
    for (size_t t = 0; t < m.triangles.size(); ++t)
        for (int k = 0; k < 3; ++k) {
            EXPECT_EQ(w.positions[w.triangles[t][k]], m.positions[m.triangles[t][k]]);
            EXPECT_EQ(w.texcoords[0][w.triangles[t][k]], m.texcoords[0][m.triangles[t][k]]);
        }
}

}  // namespace
}  // namespace rigport
