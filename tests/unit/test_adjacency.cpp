// Triangle adjacency (docs/iqm.md §1.6, bug 1) against a brute-force oracle and hand cases.
#include <gtest/gtest.h>

#include "process/adjacency.hpp"
#include "rigport/process.hpp"

namespace rigport {
namespace {

// A unit cube as 6 faces of 4 vertices each (split normals, as real files store it), faces
// 0-2 in one mesh and 3-5 in another so triangle numbers cross meshes.
Scene split_cube() {
    const Vec3 corner[8] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
    const int faces[6][4] = {{0, 1, 2, 3}, {4, 7, 6, 5}, {0, 4, 5, 1}, {1, 5, 6, 2}, {2, 6, 7, 3}, {3, 7, 4, 0}};
    Scene s;
    s.meshes.resize(2);
    for (int f = 0; f < 6; ++f) {
        Mesh& m = s.meshes[f / 3];
        uint32_t base = m.vertex_count();
        for (int k = 0; k < 4; ++k) m.positions.push_back(corner[faces[f][k]]);
        m.triangles.push_back({base, base + 1, base + 2});
        m.triangles.push_back({base, base + 2, base + 3});
    }
    return s;
}

// O(n^2) oracle: the unique other triangle with an edge of the same two positions.
std::vector<Triangle> brute_force(const Scene& s) {
    std::vector<std::array<Vec3, 3>> tris;
    for (auto& m : s.meshes)
        for (auto& t : m.triangles) tris.push_back({m.positions[t[0]], m.positions[t[1]], m.positions[t[2]]});
    std::vector<Triangle> adj(tris.size());
    for (size_t t = 0; t < tris.size(); ++t)
        for (int k = 0; k < 3; ++k) {
            Vec3 a = tris[t][k], b = tris[t][(k + 1) % 3];
            uint32_t found = no_neighbor;
            int count = 0;
            for (size_t u = 0; u < tris.size(); ++u) {
                if (u == t) continue;
                for (int j = 0; j < 3; ++j) {
                    Vec3 c = tris[u][j], d = tris[u][(j + 1) % 3];
                    if ((c == a && d == b) || (c == b && d == a)) found = uint32_t(u), ++count;
                }
            }
            adj[t][k] = count == 1 ? found : no_neighbor;
        }
    return adj;
}

TEST(Adjacency, ClosedCubeHas36CorrectEntries) {
    Scene s = split_cube();
    auto adj = compute_adjacency(s);
    ASSERT_EQ(adj.size(), 12u);
    auto oracle = brute_force(s);
    int entries = 0;
    for (size_t t = 0; t < 12; ++t)
        for (int k = 0; k < 3; ++k) {
            EXPECT_NE(adj[t][k], no_neighbor) << t << "," << k;
            EXPECT_EQ(adj[t][k], oracle[t][k]) << t << "," << k;
            entries += adj[t][k] != no_neighbor;
        }
    EXPECT_EQ(entries, 36);
    // Hand check: triangle 0 (0,1,2 of the bottom face) meets triangle 1 across its diagonal
    // (edge 2: corners 2 -> 0) and the front face (triangles 4, 5, mesh 0) across edge 0.
    EXPECT_EQ(adj[0][2], 1u);
    EXPECT_TRUE(adj[0][0] == 4u || adj[0][0] == 5u);
    // Triangles of mesh 1 point into mesh 0 by global number (face 3 borders face 0).
    bool crosses = false;
    for (int t = 6; t < 12; ++t)
        for (int k = 0; k < 3; ++k) crosses |= adj[t][k] < 6;
    EXPECT_TRUE(crosses);
    EXPECT_EQ(compare_adjacency(adj, oracle).valid, 36u);
}

TEST(Adjacency, EdgeSharedByThreeTrianglesHasNoNeighbours) {
    Scene s;
    Mesh m;
    m.positions = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}};
    m.triangles = {{0, 1, 2}, {1, 0, 3}, {0, 1, 4}};
    s.meshes.push_back(m);
    auto adj = compute_adjacency(s);
    for (auto& t : adj)
        for (uint32_t n : t) EXPECT_EQ(n, no_neighbor);
    // With two of them the edge is shared.
    s.meshes[0].triangles.pop_back();
    adj = compute_adjacency(s);
    EXPECT_EQ(adj[0][0], 1u);
    EXPECT_EQ(adj[1][0], 0u);
    EXPECT_EQ(adj[0][1], no_neighbor);
}

TEST(Adjacency, SameDirectionStillShares) {
    Scene s;
    Mesh m;
    m.positions = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, -1, 0}};
    m.triangles = {{0, 1, 2}, {0, 1, 3}};  // both walk 0 -> 1
    s.meshes.push_back(m);
    auto adj = compute_adjacency(s);
    EXPECT_EQ(adj[0][0], 1u);
    EXPECT_EQ(adj[1][0], 0u);
}

// Two triangles meeting along x = 0..1 through separate vertices with their own blend data.
Scene seam(float weight_a, float weight_b, float zero_a = 0.0f) {
    Scene s;
    s.skeleton.joints.resize(2);
    s.skeleton.joints[1].parent = 0;
    Mesh m;
    m.positions = {{zero_a, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 0}, {1, 0, 0}, {0, -1, 0}};
    m.triangles = {{0, 1, 2}, {4, 3, 5}};
    m.skin.offsets = {0, 2, 4, 6, 8, 10, 12};
    for (int v = 0; v < 6; ++v) {
        float w = v < 3 ? weight_a : weight_b;
        m.skin.influences.push_back({0, w});
        m.skin.influences.push_back({1, 1 - w});
    }
    s.meshes.push_back(m);
    return s;
}

TEST(Adjacency, SeamWithDifferentBlendWeightsIsNotAnEdge) {
    auto same = compute_adjacency(seam(0.25f, 0.25f));
    EXPECT_EQ(same[0][0], 1u);
    EXPECT_EQ(same[1][0], 0u);
    auto different = compute_adjacency(seam(0.25f, 0.5f));
    EXPECT_EQ(different[0][0], no_neighbor);
    EXPECT_EQ(different[1][0], no_neighbor);
    // -0 and +0 are the same position (hashing must agree with ==).
    auto signed_zero = compute_adjacency(seam(0.25f, 0.25f, -0.0f));
    EXPECT_EQ(signed_zero[0][0], 1u);
}

TEST(Adjacency, BlendOrderAndZeroWeightsDoNotSplitAnEdge) {
    Scene s = seam(0.5f, 0.5f);
    auto& inf = s.meshes[0].skin.influences;
    std::swap(inf[6], inf[7]);  // vertex 3: same influences, other order
    // Vertex 4: an extra zero-weight influence.
    inf.insert(inf.begin() + 10, Influence{1, 0.0f});
    auto& offsets = s.meshes[0].skin.offsets;
    ++offsets[5], ++offsets[6];
    ASSERT_TRUE(check_invariants(s));
    auto adj = compute_adjacency(s);
    EXPECT_EQ(adj[0][0], 1u);
}

TEST(Adjacency, CompareCountsEachKind) {
    std::vector<Triangle> correct = {{1, no_neighbor, 2}, {0, no_neighbor, no_neighbor}, {0, 1, no_neighbor}};
    std::vector<Triangle> stored = {{1, no_neighbor, 1}, {no_neighbor, 2, no_neighbor}, {0, 1, no_neighbor}};
    auto c = compare_adjacency(stored, correct);
    EXPECT_EQ(c.valid, 3u);    // [0][0], [2][0], [2][1]
    EXPECT_EQ(c.wrong, 1u);    // [0][2]
    EXPECT_EQ(c.missing, 1u);  // [1][0]
    EXPECT_EQ(c.extra, 1u);    // [1][1]
    EXPECT_EQ(c.open, 3u);     // [0][1], [1][2], [2][2]
    // A shorter stored list counts as no neighbours.
    auto shorter = compare_adjacency({}, correct);
    EXPECT_EQ(shorter.missing, 5u);
    EXPECT_EQ(shorter.open, 4u);
}

}  // namespace
}  // namespace rigport
