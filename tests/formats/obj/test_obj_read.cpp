// OBJ reader (docs/obj.md) on hand-written files: the four corner forms, relative indices,
// polygons as fans, (group, material) runs as meshes, shared corners, .mtl through a resource
// reader (and a missing one as a warning), generated normals, and errors with line:col.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

#include "rigport/io.hpp"

namespace rigport::test {
namespace {

Expected<Scene> read_obj(const std::string& text, std::map<std::string, std::string> files = {}) {
    LoadOptions options;
    options.read_resource = [files](const std::string& uri) -> Expected<std::vector<uint8_t>> {
        auto it = files.find(uri);
        if (it == files.end()) return make_error(ErrorCode::NotFound, "no file " + uri);
        return std::vector<uint8_t>(it->second.begin(), it->second.end());
    };
    return load_bytes(std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()), "t.obj", options);
}

const std::string square = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nvn 0 0 1\n";

TEST(ObjRead, FaceFormsAndRelativeIndices) {
    // The same quad four times: v, v/vt, v//vn, v/vt/vn (the last with negative indices).
    const std::string text = square + "g a\nf 1 2 3 4\ng b\nf 1/1 2/2 3/3 4/4\ng c\nf 1//1 2//1 3//1 4//1\ng d\nf -4/-4/-1 -3/-3/-1 -2/-2/-1 -1/-1/-1\n";
    auto s = read_obj(text);
    ASSERT_TRUE(s) << s.error().to_string();
    ASSERT_EQ(s->meshes.size(), 4u);
    for (auto& m : s->meshes) {
        EXPECT_EQ(m.vertex_count(), 4u) << m.name;
        ASSERT_EQ(m.triangles.size(), 2u) << m.name;
        EXPECT_EQ(m.triangles[0], (Triangle{0, 1, 2}));  // a fan from the first corner
        EXPECT_EQ(m.triangles[1], (Triangle{0, 2, 3}));
        EXPECT_EQ(m.positions[2], (Vec3{1, 1, 0}));
        ASSERT_EQ(m.normals.size(), 4u) << m.name;  // given, or generated (a flat quad: +Z)
        EXPECT_NEAR(m.normals[1][2], 1.0f, 1e-6f) << m.name;
    }
    EXPECT_EQ(s->meshes[0].name, "a");
    EXPECT_TRUE(s->meshes[0].texcoords.empty());
    ASSERT_EQ(s->meshes[1].texcoords.size(), 1u);
    EXPECT_EQ(s->meshes[1].texcoords[0][2], (Vec2{1, 0}));  // vt 1 1: V flipped to the scene's down-from-top
    EXPECT_EQ(s->meshes[3].texcoords[0][0], (Vec2{0, 1}));
    EXPECT_EQ(s->meta.up, UpAxis::Y);
    EXPECT_EQ(s->meta.front_face, Winding::CounterClockwise);
    EXPECT_TRUE(s->warnings.has(WarningCode::Substituted));  // normals generated for a and b
}

TEST(ObjRead, PolygonsCornersSharedAndRunsAsMeshes) {
    // A pentagon fan; a corner repeated with the same indices is one vertex, with other vt two.
    const std::string text = "v 0 0 0\nv 2 0 0\nv 3 1 0\nv 1 2 0\nv -1 1 0\nvt 0 0\nvt 1 1\nvn 0 0 1\n"
                             "usemtl m1\nf 1/1/1 2/1/1 3/1/1 4/1/1 5/1/1\nf 1/1/1 3/1/1 2/2/1\n"
                             "usemtl m2\nf 1//1 2//1 3//1\nusemtl m1\nf 1//1 2//1 3//1\ng other\nf 1//1 2//1 3//1\n";
    auto s = read_obj(text);
    ASSERT_TRUE(s) << s.error().to_string();
    ASSERT_EQ(s->meshes.size(), 4u);  // m1, m2, m1 again (a new run), then the group 'other' with m1
    EXPECT_EQ(s->meshes[0].triangles.size(), 4u);
    EXPECT_EQ(s->meshes[0].vertex_count(), 6u);  // 5 corners + vertex 2 with another vt
    EXPECT_EQ(s->meshes[0].triangles[3], (Triangle{0, 2, 5}));
    ASSERT_EQ(s->materials.size(), 2u);
    EXPECT_EQ(s->materials[0].name, "m1");
    EXPECT_EQ(s->meshes[1].material, 1);
    EXPECT_EQ(s->meshes[2].material, 0);
    EXPECT_EQ(s->meshes[3].material, 0);
    EXPECT_EQ(s->meshes[3].name, "other");
    // usemtl names no .mtl here: default materials, said once per name.
    EXPECT_TRUE(s->warnings.has(WarningCode::Substituted));
    EXPECT_EQ(s->materials[0].diffuse, (Vec4{1, 1, 1, 1}));
}

TEST(ObjRead, MaterialLibraryThroughTheResourceReader) {
    const std::string mtl = "# lib\nnewmtl red paint \nKa 0.1 0.1 0.1\nKd 1 0 0\nKs 0.5 0.5 0.5\nNs 32\nd 0.75\nillum 2\n"
                            "map_Kd -s 1 1 1 -bm 0.5 tex/red paint.png\nmap_Bump n.png\n\nnewmtl glass\nKd 0.2\nTr 0.9\n";
    const std::string text = square + "mtllib lib.mtl\nusemtl red paint\nf 1/1/1 2/2/1 3/3/1\nusemtl glass\nf 1/1/1 3/3/1 4/4/1\n";
    auto s = read_obj(text, {{"lib.mtl", mtl}});
    ASSERT_TRUE(s) << s.error().to_string();
    ASSERT_EQ(s->materials.size(), 2u);
    const Material& red = s->materials[0];
    EXPECT_EQ(red.name, "red paint");
    EXPECT_EQ(red.diffuse, (Vec4{1, 0, 0, 0.75f}));
    EXPECT_EQ(red.ambient[0], 0.1f);
    EXPECT_EQ(red.specular[1], 0.5f);
    EXPECT_EQ(red.shininess, 32.0f);
    ASSERT_EQ(red.maps.size(), 2u);
    EXPECT_EQ(red.maps[0].type, TextureType::Diffuse);
    EXPECT_EQ(red.maps[0].uri, "tex/red paint.png");
    EXPECT_EQ(red.maps[1].type, TextureType::Normal);
    const Material& glass = s->materials[1];
    EXPECT_EQ(glass.diffuse[0], 0.2f);
    EXPECT_EQ(glass.diffuse[2], 0.2f);
    EXPECT_NEAR(glass.diffuse[3], 0.1f, 1e-6f);
    for (auto& w : s->warnings.items) EXPECT_NE(w.code, WarningCode::PartMissing) << w.to_string();
}

TEST(ObjRead, MissingMaterialLibraryIsAWarning) {
    auto s = read_obj(square + "mtllib gone.mtl\nusemtl m\nf 1 2 3\n");
    ASSERT_TRUE(s) << s.error().to_string();
    EXPECT_TRUE(s->warnings.has(WarningCode::PartMissing));
    ASSERT_EQ(s->materials.size(), 1u);
    EXPECT_EQ(s->materials[0].name, "m");
    // From bytes with no resource reader at all: the same warning.
    const std::string text = square + "mtllib gone.mtl\nf 1 2 3\n";
    auto bare = load_bytes(std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()), "t.obj");
    ASSERT_TRUE(bare) << bare.error().to_string();
    EXPECT_TRUE(bare->warnings.has(WarningCode::PartMissing));
}

TEST(ObjRead, ColoursLinesPointsAndUnknownKeywordsAreTyped) {
    const std::string text = "v 0 0 0 1 0 0\nv 1 0 0 0 1 0\nv 0 1 0 0 0 1\nvp 0.5\nl 1 2\np 3\nbogus 1 2\nf 1 2 3\n";
    auto s = read_obj(text);
    ASSERT_TRUE(s) << s.error().to_string();
    ASSERT_EQ(s->meshes.size(), 1u);
    ASSERT_EQ(s->meshes[0].colors.size(), 1u);
    EXPECT_EQ(s->meshes[0].colors[0][1], (Vec4{0, 1, 0, 1}));
    EXPECT_TRUE(s->warnings.has(WarningCode::UnknownCommand));
    EXPECT_TRUE(s->warnings.has(WarningCode::Ignored));
    for (auto& w : s->warnings.items) EXPECT_NE(w.code, WarningCode::Other) << w.to_string();
}

TEST(ObjRead, SmoothingGroupsGiveNormals) {
    // Two faces of a roof meeting at a ridge: smooth in one group (the ridge normal is up),
    // flat with s off (each corner keeps its face's normal).
    const std::string roof = "v -1 0 0\nv 0 1 0\nv 0 1 1\nv -1 0 1\nv 1 0 0\nv 1 0 1\n";
    auto smooth = read_obj(roof + "s 1\nf 1 4 3 2\nf 2 3 6 5\n");
    ASSERT_TRUE(smooth) << smooth.error().to_string();
    auto flat = read_obj(roof + "s off\nf 1 4 3 2\nf 2 3 6 5\n");
    ASSERT_TRUE(flat) << flat.error().to_string();
    auto normal_at = [](const Scene& s, Vec3 p) {
        std::vector<Vec3> out;
        for (auto& m : s.meshes)
            for (uint32_t v = 0; v < m.vertex_count(); ++v)
                if (m.positions[v] == p) out.push_back(m.normals[v]);
        return out;
    };
    // Smooth: one area-weighted normal at the ridge, leaning up (the fans weigh the faces unequally).
    const auto ridge = normal_at(*smooth, {0, 1, 0});
    ASSERT_FALSE(ridge.empty());
    for (const Vec3& n : ridge) {
        EXPECT_GT(n[1], 0.9f);
        EXPECT_EQ(n, ridge[0]);
    }
    // Flat: each corner keeps its own face's normal, both faces present.
    bool left = false, right = false;
    for (const Vec3& n : normal_at(*flat, {0, 1, 0})) {
        EXPECT_NEAR(n[1], std::sqrt(0.5f), 1e-5f);
        EXPECT_NEAR(std::fabs(n[0]), std::sqrt(0.5f), 1e-5f);
        (n[0] < 0 ? left : right) = true;
    }
    EXPECT_TRUE(left && right);
}

// The error's place and words for a broken file.
void expect_error(const std::string& text, uint32_t line, uint32_t column, const std::string& words) {
    auto s = read_obj(text);
    ASSERT_FALSE(s) << text;
    EXPECT_EQ(s.error().line, line) << s.error().to_string();
    EXPECT_EQ(s.error().column, column) << s.error().to_string();
    EXPECT_NE(s.error().message.find(words), std::string::npos) << s.error().to_string();
}

TEST(ObjRead, ErrorsNameLineAndColumn) {
    expect_error("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 0 2\n", 4, 5, "index 0");
    expect_error("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 7\n", 4, 7, "position index 7 is out of range");
    expect_error("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 -4\n", 4, 7, "reaches before the first");
    expect_error("v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nf 1/1 2/1 3/2\n", 5, 11, "texcoord index 2 is out of range");
    expect_error("v 0 abc 0\n", 1, 5, "'abc' is not a number");
    expect_error("\n# c\nvn 0 1\n", 3, 7, "expected at least 3");
    expect_error("v 0 0 0\nf 1/x 1 1\n", 2, 3, "not an integer");
    expect_error("v 0 0 1e999\n", 1, 7, "out of range");
}

TEST(ObjRead, LimitsBoundCounts) {
    LoadOptions options;
    options.max_elements = 4;
    const std::string text = "v 0 0 0\nv 0 0 0\nv 0 0 0\nv 0 0 0\nv 0 0 0\n";
    auto s = load_bytes(std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()), "t.obj", options);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().code, ErrorCode::LimitExceeded);
    EXPECT_EQ(s.error().line, 5u);
}

}  // namespace
}  // namespace rigport::test
