// End to end through the compiler (IQE text in, IQM bytes out, read back): regressions for the
// reference compiler's verified bugs 2, 3 and 5 (docs/iqm.md §5), next to the unit tests of
// each step.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "rigport/compile.hpp"
#include "rigport/formats.hpp"
#include "rigport/io.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

Scene compile_text(const std::string& name, const std::string& text) {
    const auto path = temp_dir() / name;
    std::ofstream(path) << text;
    auto scene = compile({CompileInput{{path.string()}, {}}}, compiler_options(*find_format("iqm")));
    EXPECT_TRUE(scene) << scene.error().to_string();
    if (!scene) return {};
    auto bytes = save_bytes(*scene, "out.iqm");
    EXPECT_TRUE(bytes) << bytes.error().to_string();
    auto back = load_bytes(*bytes, "out.iqm");
    EXPECT_TRUE(back) << back.error().to_string();
    return back ? std::move(*back) : Scene{};
}

TEST(CompileBugs, Bug2RepeatedMeshBlocksKeepEveryTriangle) {
    Scene s = compile_text("bug2.iqe", R"(# Inter-Quake Export
mesh "A"
vp 0 0 0
vp 1 0 0
vp 0 1 0
fm 0 2 1
mesh "B"
vp 5 0 0
vp 6 0 0
vp 5 1 0
fm 0 2 1
mesh "A"
vp 0 0 1
vp 1 0 1
vp 0 1 1
fm 0 2 1
)");
    ASSERT_EQ(s.meshes.size(), 2u);
    EXPECT_EQ(s.meshes[0].name, "A");
    EXPECT_EQ(s.meshes[0].triangles.size(), 2u);  // the reference compiler writes 2 triangles in all
    EXPECT_EQ(s.meshes[1].triangles.size(), 1u);
}

// Two faces sharing the edge x = 0 (y from 0 to 1), folded so their normals are 60 degrees apart.
std::string fold(int smoothangle) {
    const double a = 60.0 * M_PI / 180.0;
    return "# Inter-Quake Export\nsmoothangle " + std::to_string(smoothangle) +
           "\nmesh \"fold\"\n"
           "vp 0 0 0\nvp 0 1 0\nvp -1 0 0\nvp " + std::to_string(std::cos(a)) + " 0 " + std::to_string(std::sin(a)) +
           "\nfm 0 1 2\nfm 1 0 3\n";
}

// True when the two vertices at the origin ended up as one smooth vertex (same normal).
bool smoothed(const Scene& s) {
    const Mesh& m = s.meshes.at(0);
    std::vector<Vec3> at_origin;
    for (uint32_t v = 0; v < m.vertex_count(); ++v)
        if (m.positions[v] == Vec3{0, 0, 0}) at_origin.push_back(m.normals.at(v));
    return at_origin.size() == 1;
}

TEST(CompileBugs, Bug3SmoothangleAboveNinetyIsATrueAngle) {
    for (int angle : {180, 150, 130, 110, 70}) EXPECT_TRUE(smoothed(compile_text("fold.iqe", fold(angle)))) << angle;
    for (int angle : {50, 0}) EXPECT_FALSE(smoothed(compile_text("fold.iqe", fold(angle)))) << angle;
}

TEST(CompileBugs, Bug5SuppliedTangentsStayOnTheirVertices) {
    // A quad whose vertices are listed in an order the cache optimizer changes; each vertex has
    // its own tangent, tagged by its x (the tangent's z is the vertex's position x + 2).
    Scene s = compile_text("bug5.iqe", R"(# Inter-Quake Export
mesh "quad"
vp 1 1 0
vt 1 1
vn 0 0 1
vx 1 0 3 1
vp 0 0 0
vt 0 0
vn 0 0 1
vx 1 0 2 1
vp 0.5 1 0
vt 0.5 1
vn 0 0 1
vx 1 0 2.5 -1
vp 1 0 0
vt 1 0
vn 0 0 1
vx 1 0 3 1
vp 0 1 0
vt 0 1
vn 0 0 1
vx 1 0 2 -1
fm 1 4 2
fm 1 2 3
fm 3 2 0
)");
    const Mesh& m = s.meshes.at(0);
    ASSERT_EQ(m.tangents.size(), m.vertex_count());
    for (uint32_t v = 0; v < m.vertex_count(); ++v) {
        EXPECT_FLOAT_EQ(m.tangents[v][2], m.positions[v][0] + 2.0f) << "vertex at x=" << m.positions[v][0];
        const float w = (m.positions[v] == Vec3{0.5f, 1, 0} || m.positions[v] == Vec3{0, 1, 0}) ? -1.0f : 1.0f;
        EXPECT_EQ(m.tangents[v][3], w);
    }
}

}  // namespace
}  // namespace rigport::test
