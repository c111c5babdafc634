// drop_degenerate_triangles: a repeated vertex or two corners at the same position goes;
// collinear corners and meshes with level-of-detail data stay.
#include <gtest/gtest.h>

#include "rigport/process.hpp"

namespace rigport {
namespace {

Scene strip() {
    Mesh m;
    m.positions = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {2, 0, 0}, {-0.0f, 1, 0}, {0, 0, 0}};
    m.triangles = {{0, 1, 2},   // good
                   {1, 1, 2},   // repeated vertex
                   {0, 2, 5},   // vertices 0 and 5 share a position
                   {0, 4, 1},   // vertex 4 is at -0 1 0, equal to vertex 2's position but not to 0's
                   {2, 4, 1},   // 2 and 4: -0 == +0
                   {0, 1, 3}};  // collinear, distinct positions: kept
    Scene s;
    s.meshes.push_back(m);
    return s;
}

TEST(DegenerateTriangles, RepeatedVertexAndSharedPositionGoCollinearStays) {
    Scene s = strip();
    EXPECT_EQ(drop_degenerate_triangles(s), 3u);
    EXPECT_EQ(s.meshes[0].triangles, (std::vector<Triangle>{{0, 1, 2}, {0, 4, 1}, {0, 1, 3}}));
    EXPECT_EQ(s.meshes[0].vertex_count(), 6u);  // vertices stay
    EXPECT_EQ(drop_degenerate_triangles(s), 0u);
}

TEST(DegenerateTriangles, MeshWithLevelOfDetailKeepsItsFaces) {
    Scene s = strip();
    s.meshes[0].lod.resize(s.meshes[0].vertex_count());  // entries that collapse nothing: no LOD
    Scene plain = s;
    EXPECT_EQ(drop_degenerate_triangles(plain), 3u);
    s.meshes[0].lod[3] = {1, 2};
    EXPECT_EQ(drop_degenerate_triangles(s), 0u);
    EXPECT_EQ(s.meshes[0].triangles.size(), 6u);
}

}  // namespace
}  // namespace rigport
