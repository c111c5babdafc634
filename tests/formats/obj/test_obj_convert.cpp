// OBJ corpus (docs/obj.md): every corpus OBJ reads with the counts its tools wrote, its .mtl found
// under the original name; Debian's assimp reads them to the same vertex positions (within 1e-5
// of the model size); `rigport convert x.obj -o x.glb | x.iqm` validates through the real binary.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "assimp_oracle.hpp"
#include "convert_checks.hpp"
#include "rigport/io.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

namespace fs = std::filesystem;

// A corpus OBJ copied into a fresh folder with its .mtl under the name its mtllib line uses
// (the corpus prefixes every file with its origin).
fs::path staged(const std::string& stem) {
    const fs::path dir = files_dir() / stem;
    fs::create_directories(dir);
    const fs::path obj = corpus_dir() / "obj" / (stem + ".obj");
    fs::copy_file(obj, dir / (stem + ".obj"), fs::copy_options::overwrite_existing);
    std::ifstream in(obj);
    std::string line;
    const std::string prefix = stem.substr(0, stem.find("__") + 2);
    while (std::getline(in, line)) {
        if (line.rfind("mtllib ", 0) != 0) continue;
        std::string name = line.substr(7);
        while (!name.empty() && (name.back() == '\r' || name.back() == ' ')) name.pop_back();
        const fs::path source = corpus_dir() / "obj" / (prefix + fs::path(name).filename().string());
        if (fs::exists(source)) fs::copy_file(source, dir / name, fs::copy_options::overwrite_existing);
    }
    return dir / (stem + ".obj");
}

struct Expect {
    const char* stem;
    size_t meshes, triangles, materials;
    bool mtl_found;
};
// Materials: those usemtl names (spider.mtl defines a fifth no face uses). Triangles: the faces fanned (spider 1368 and regr01 2710 triangles as the sources say;
// pirate's 2527 mostly-quad faces are 5010 triangles).
const Expect expected[] = {
    {"assimp_assimp__spider", 19, 1368, 4, true},
    {"assimp_assimp__regr01", 55, 2710, 12, true},
    {"assimp_assimp__box_mat_with_spaces", 1, 12, 1, true},
    {"assimp_assimp__concave_polygon", 1, 64, 1, true},
    {"assimp_assimp__cube_with_vertexcolors", 1, 12, 0, true},
    {"assimp_assimp__number_formats", 1, 1, 0, true},
    {"assimp_assimp__point_cloud", 0, 0, 0, true},
    {"assimp_assimp__testmixed", 1, 12, 1, true},
    {"ufbx_ufbx__blender_279_ball_0_obj", 2, 80, 2, true},
    {"ufbx_ufbx__blender_441_empty_material_0_obj", 2, 24, 1, true},
    {"ufbx_ufbx__max2009_blob", 17, 832, 0, true},
    {"ufbx_ufbx__maya_cube", 1, 12, 0, true},
    {"zeux_meshoptimizer__pirate", 7, 5010, 7, false},
};

TEST(ObjCorpus, EveryFileReadsWithItsCounts) {
    RIGPORT_REQUIRE_CORPUS();
    const auto files = corpus_files("obj", ".obj");
    ASSERT_EQ(files.size(), std::size(expected));
    for (const Expect& e : expected) {
        auto scene = load(staged(e.stem).string());
        ASSERT_TRUE(scene) << e.stem << ": " << scene.error().to_string();
        EXPECT_EQ(scene->meshes.size(), e.meshes) << e.stem;
        EXPECT_EQ(scene->triangle_count(), e.triangles) << e.stem;
        EXPECT_EQ(scene->materials.size(), e.materials) << e.stem;
        EXPECT_EQ(scene->warnings.has(WarningCode::PartMissing), !e.mtl_found) << e.stem;
        EXPECT_TRUE(check_invariants(*scene)) << e.stem;
        for (auto& w : scene->warnings.items) EXPECT_NE(w.code, WarningCode::Other) << e.stem << ": " << w.to_string();
        for (auto& m : scene->meshes) EXPECT_EQ(m.normals.size(), m.positions.size()) << e.stem << " " << m.name;
    }
    // The .mtl values arrive: spider's materials name their textures, Blender's Red is red.
    auto spider = load(staged("assimp_assimp__spider").string());
    ASSERT_TRUE(spider);
    size_t maps = 0;
    for (auto& m : spider->materials) maps += m.maps.size();
    EXPECT_GE(maps, 4u);
    auto ball = load(staged("ufbx_ufbx__blender_279_ball_0_obj").string());
    ASSERT_TRUE(ball);
    EXPECT_EQ(ball->materials[0].name, "Red");
    EXPECT_GT(ball->materials[0].diffuse[0], 0.5f);
    EXPECT_LT(ball->materials[0].diffuse[1], 0.1f);
}



TEST(ObjCorpus, AssimpAgreesOnVertexPositions) {
    RIGPORT_REQUIRE_CORPUS();
    RIGPORT_REQUIRE_ASSIMP();
    double worst_ratio = 0;
    for (const Expect& e : expected) {
        if (e.triangles == 0) continue;  // a point cloud: rigport makes no mesh of it
        const fs::path in = staged(e.stem);
        const fs::path out = in.parent_path() / "assimp_out.obj";
        ASSERT_TRUE(assimp_export_obj(in, out));
        const auto theirs = obj_vertex_positions(out);
        auto scene = load(in.string());
        ASSERT_TRUE(scene) << scene.error().to_string();
        // Both keep OBJ's positions as written (no change of axes).
        const auto ours = mesh_positions(*scene);
        const double size = largest_coordinate(ours);
        ASSERT_FALSE(theirs.empty()) << e.stem;
        const double error = expect_same_points_as_assimp(e.stem, ours, theirs, size);
        worst_ratio = std::max(worst_ratio, error / size);
    }
    std::cout << "[ note ] worst distance / model size: " << worst_ratio << "\n";
}

TEST(ObjConvert, ToGlbAndIqmValidate) {
    RIGPORT_REQUIRE_CORPUS();
    const fs::path in = staged("assimp_assimp__spider");
    const fs::path out = in.parent_path();
    for (const char* ext : {".glb", ".iqm"}) {
        const std::string target = (out / (std::string("spider") + ext)).string();
        Scene scene;
        ASSERT_NO_FATAL_FAILURE(convert_and_validate({in.string()}, target, scene));
        // The reference compiler's pipeline drops spider's 56 degenerate triangles.
        EXPECT_EQ(scene.triangle_count(), 1312u) << ext;
        EXPECT_EQ(scene.materials.size(), 4u) << ext;
    }
    expect_format_listed("obj");
}

}  // namespace
}  // namespace rigport::test
