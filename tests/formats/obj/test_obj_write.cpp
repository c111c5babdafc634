// OBJ writer (docs/obj.md): the sample scene -> OBJ + .mtl -> scene keeps every vertex's position,
// texcoord and normal (Y up, counter-clockwise) within float text precision; OBJ -> glTF -> OBJ
// keeps a corpus file's corners; skins, skeleton and animations are DroppedData warnings.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "rigport/io.hpp"
#include "rigport/process.hpp"
#include "rigport/sample.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

namespace fs = std::filesystem;

double distance(const Vec3& a, const Vec3& b) { return std::hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]); }

// Reads an Output back, its side files served from memory as read_resource would from disk.
Expected<Scene> read_back(const Output& out, const std::string& name) {
    LoadOptions options;
    options.read_resource = [&out](const std::string& uri) -> Expected<std::vector<uint8_t>> {
        for (auto& f : out.side_files)
            if (f.name == uri) return f.bytes;
        return make_error(ErrorCode::NotFound, uri);
    };
    return load_bytes(out.bytes, name, options);
}

TEST(ObjWrite, SampleSceneRoundTrip) {
    const Scene sample = make_sample_scene();
    Warnings warnings;
    SaveOptions save;
    save.warnings = &warnings;
    auto out = save_output(sample, "sample.obj", save);
    ASSERT_TRUE(out) << out.error().to_string();
    ASSERT_EQ(out->side_files.size(), 1u);  // sample.mtl (the sample names its texture, holds none)
    EXPECT_EQ(out->side_files[0].name, "sample.mtl");
    EXPECT_TRUE(warnings.has(WarningCode::DroppedData));  // skin, skeleton, animations, tangents
    auto back = read_back(*out, "sample.obj");
    ASSERT_TRUE(back) << back.error().to_string();
    for (auto& w : back->warnings.items) EXPECT_NE(w.code, WarningCode::PartMissing) << w.to_string();

    // The sample in OBJ's conventions: what the file must give back, vertex for vertex.
    Scene expect = sample;
    convert_to_y_up(expect);
    set_front_face(expect, Winding::CounterClockwise);
    ASSERT_EQ(back->meshes.size(), expect.meshes.size());
    ASSERT_EQ(back->materials.size(), expect.materials.size());
    EXPECT_EQ(back->materials[0].name, expect.materials[0].name);
    ASSERT_FALSE(back->materials[0].maps.empty());
    EXPECT_EQ(back->materials[0].maps[0].uri, expect.materials[0].maps[0].uri);
    double size = 0, pos = 0, nrm = 0, uv = 0;
    for (size_t i = 0; i < expect.meshes.size(); ++i) {
        const Mesh &a = expect.meshes[i], &b = back->meshes[i];
        // v/vt/vn of one index each: no corner merges; vertices are numbered in order of first use.
        ASSERT_EQ(b.vertex_count(), a.vertex_count());
        ASSERT_EQ(b.triangles.size(), a.triangles.size());
        ASSERT_EQ(b.texcoords.size(), 1u);
        ASSERT_EQ(b.colors.size(), 1u);
        for (size_t t = 0; t < a.triangles.size(); ++t)
            for (int k = 0; k < 3; ++k) {
                const uint32_t va = a.triangles[t][k], vb = b.triangles[t][k];
                for (float c : a.positions[va]) size = std::max(size, double(std::fabs(c)));
                pos = std::max(pos, distance(a.positions[va], b.positions[vb]));
                nrm = std::max(nrm, distance(a.normals[va], b.normals[vb]));
                uv = std::max({uv, double(std::fabs(a.texcoords[0][va][0] - b.texcoords[0][vb][0])),
                               double(std::fabs(a.texcoords[0][va][1] - b.texcoords[0][vb][1]))});
                for (int c = 0; c < 3; ++c) EXPECT_EQ(a.colors[0][va][c], b.colors[0][vb][c]);
            }
    }
    // Shortest round-trip floats: positions and normals exact; V passes through 1 - v twice.
    EXPECT_EQ(pos, 0.0) << "model size " << size;
    EXPECT_EQ(nrm, 0.0);
    EXPECT_LE(uv, 1e-6);
    EXPECT_EQ(back->meta.up, UpAxis::Y);
}

TEST(ObjWrite, ThroughGltfAndBack) {
    RIGPORT_REQUIRE_CORPUS();
    // Blender's two-material ball: OBJ -> glTF -> OBJ keeps meshes, materials and every corner.
    const fs::path dir = files_dir();
    const std::string stem = "ufbx_ufbx__blender_279_ball_0_obj";
    fs::copy_file(corpus_dir() / "obj" / (stem + ".obj"), dir / "ball.obj");
    fs::copy_file(corpus_dir() / "obj" / (stem + ".mtl"), dir / "blender_279_ball_0_obj.mtl");
    auto first = load((dir / "ball.obj").string());
    ASSERT_TRUE(first) << first.error().to_string();
    ASSERT_TRUE(save(*first, (dir / "ball.gltf").string()));
    auto gltf = load((dir / "ball.gltf").string());
    ASSERT_TRUE(gltf) << gltf.error().to_string();
    ASSERT_TRUE(save(*gltf, (dir / "again.obj").string()));
    EXPECT_TRUE(fs::exists(dir / "again.mtl"));
    auto again = load((dir / "again.obj").string());
    ASSERT_TRUE(again) << again.error().to_string();
    ASSERT_EQ(again->meshes.size(), first->meshes.size());
    ASSERT_EQ(again->materials.size(), 2u);
    EXPECT_EQ(again->materials[0].name, "Red");
    EXPECT_EQ(again->materials[0].diffuse, first->materials[0].diffuse);
    for (size_t i = 0; i < first->meshes.size(); ++i) {
        const Mesh &a = first->meshes[i], &b = again->meshes[i];
        ASSERT_EQ(a.triangles.size(), b.triangles.size());
        for (size_t t = 0; t < a.triangles.size(); ++t)
            for (int k = 0; k < 3; ++k) {
                EXPECT_LE(distance(a.positions[a.triangles[t][k]], b.positions[b.triangles[t][k]]), 1e-6);
                // Blender writes normals to 6 decimals; the glTF writer makes them unit length.
                EXPECT_LE(distance(a.normals[a.triangles[t][k]], b.normals[b.triangles[t][k]]), 1e-4);
            }
    }
}

TEST(ObjWrite, MeshesWithoutMaterialAndOddNames) {
    Scene s;
    s.meta.up = UpAxis::Y;
    s.meta.front_face = Winding::CounterClockwise;
    Material m;
    m.name = "  # odd\tname ";
    s.materials.push_back(m);
    for (int i = 0; i < 3; ++i) {
        Mesh mesh;
        mesh.name = "same";
        mesh.material = i == 1 ? -1 : 0;
        mesh.positions = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
        mesh.normals = {{0, 0, 1}, {0, 0, 1}, {0, 0, 1}};
        mesh.triangles = {{0, 1, 2}};
        s.meshes.push_back(mesh);
    }
    Warnings warnings;
    SaveOptions save;
    save.warnings = &warnings;
    auto out = save_output(s, "odd.obj", save);
    ASSERT_TRUE(out) << out.error().to_string();
    EXPECT_TRUE(warnings.has(WarningCode::Substituted));
    auto back = read_back(*out, "odd.obj");
    ASSERT_TRUE(back) << back.error().to_string();
    ASSERT_EQ(back->meshes.size(), 3u);  // unique names keep the three meshes apart
    EXPECT_EQ(back->meshes[0].material, 0);
    EXPECT_EQ(back->meshes[1].material, -1);  // an empty usemtl ends the material
    EXPECT_EQ(back->meshes[2].material, 0);
    EXPECT_EQ(back->materials[0].name, "_# odd name");
}

}  // namespace
}  // namespace rigport::test
