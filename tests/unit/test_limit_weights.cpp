// Influence limits: top N by weight (stable), weights <= min dropped, renormalized to sum 1.
#include <gtest/gtest.h>

#include "rigport/process.hpp"

namespace rigport {
namespace {

Scene skinned(std::vector<std::vector<Influence>> per_vertex) {
    Scene s;
    s.skeleton.joints.resize(8);
    for (size_t j = 1; j < 8; ++j) s.skeleton.joints[j].parent = 0;
    Mesh m;
    m.skin.offsets.push_back(0);
    for (auto& v : per_vertex) {
        m.positions.push_back({0, 0, 0});
        m.skin.influences.insert(m.skin.influences.end(), v.begin(), v.end());
        m.skin.offsets.push_back(uint32_t(m.skin.influences.size()));
    }
    s.meshes.push_back(m);
    return s;
}

std::vector<Influence> of(const Mesh& m, uint32_t v) { return {m.skin.begin(v), m.skin.begin(v) + m.skin.count(v)}; }

void expect_influences(const std::vector<Influence>& got, const std::vector<Influence>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
        EXPECT_EQ(got[i].joint, want[i].joint) << i;
        EXPECT_NEAR(got[i].weight, want[i].weight, 1e-6) << i;
    }
}

TEST(LimitWeights, KeepsHeaviestFourAndRenormalizes) {
    Scene s = skinned({{{1, 0.1f}, {2, 0.3f}, {3, 0.05f}, {4, 0.2f}, {5, 0.25f}, {6, 0.1f}},
                       {{7, 2.0f}, {1, 2.0f}},
                       {{3, 1.0f}}});
    limit_weights(s);
    ASSERT_TRUE(check_invariants(s));
    const Mesh& m = s.meshes[0];
    // 0.3 0.25 0.2 and the first 0.1 (joint 1, stored before joint 6): sum 0.85.
    expect_influences(of(m, 0), {{2, 0.3f / 0.85f}, {5, 0.25f / 0.85f}, {4, 0.2f / 0.85f}, {1, 0.1f / 0.85f}});
    expect_influences(of(m, 1), {{7, 0.5f}, {1, 0.5f}});
    expect_influences(of(m, 2), {{3, 1.0f}});
}

TEST(LimitWeights, DropsSmallWeightsAndEmptiesZeroVertices) {
    Scene s = skinned({{{1, 0.001f}, {2, 0.6f}, {3, 0.2f}}, {{4, 0.0f}, {5, -1.0f}}, {}});
    limit_weights(s, 2, 0.01f);
    ASSERT_TRUE(check_invariants(s));
    const Mesh& m = s.meshes[0];
    expect_influences(of(m, 0), {{2, 0.75f}, {3, 0.25f}});
    EXPECT_EQ(m.skin.count(1), 0u);
    EXPECT_EQ(m.skin.count(2), 0u);
    EXPECT_EQ(m.skin.offsets.back(), m.skin.influences.size());
}

TEST(LimitWeights, UnskinnedMeshUntouched) {
    Scene s;
    s.meshes.resize(1);
    s.meshes[0].positions = {{0, 0, 0}};
    limit_weights(s);
    EXPECT_TRUE(s.meshes[0].skin.empty());
}

}  // namespace
}  // namespace rigport
