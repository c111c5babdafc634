// Differential oracle for the Cal3D mesh and material writers: Debian's /usr/bin/cal3d_converter
// (libcal3d 0.11, docs/cal3d.md §7) converts the 1100-dialect XMF/CMF/XRF/CRF rigport writes into
// the other encoding, and rigport reads that back as what it wrote; corpus classic CMFs converted to
// XML by it read as the binaries do.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "formats/cal3d/cal3d_write.hpp"
#include "formats/cal3d/test_cal3d_write_mesh_compare.hpp"
#include "rigport/io.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

namespace fs = std::filesystem;
using cal3d::Dialect;
using namespace cal3d_mesh;

// The converter prints 6 significant digits (§3.8, §7): 1e-5 relative (absolute below 1).
constexpr double six_digits = 1e-5;

// A classic mesh with two texcoord sets, skin on a permuted skeleton, springs + PHYSIQUE and LOD,
// whose first faces agree with their first normals (DEB's binary loader re-winds a submesh
// otherwise, §2.3).
Scene oracle_scene() {
    Scene s;
    s.meta.up = UpAxis::Z;
    s.meta.front_face = Winding::CounterClockwise;
    s.skeleton.joints = {Joint{"a", -1, {}}, Joint{"b", 0, {}}};
    s.skeleton.source_ids = {1, 0};
    Mesh m;
    m.material = 0;
    m.positions = {{0, 0, 100.25f}, {10, 0, 100.5f}, {0, 10, 101.125f}, {10, 10, 99.0625f}};
    m.normals = {{0, 0, 1}, {0.6f, 0, 0.8f}, {0, 0.6f, 0.8f}, {0, 0, 1}};
    m.texcoords = {{{0, 0}, {1, 0}, {0, 1}, {1, 1}}, {{0.123456f, 0.5f}, {0.75f, 0.0625f}, {3, -2}, {0.1f, 0.2f}}};
    m.skin.offsets = {0, 1, 3, 3, 4};
    m.skin.influences = {{0, 1}, {0, 0.4f}, {1, 0.6f}, {1, 1}};
    m.triangles = {{0, 1, 2}, {2, 1, 3}};
    m.springs = {{0, 3, 1000, 14.142136f}};
    m.spring_weights = {0, 0.5f, 1, 0.25f};
    m.lod = {{-1, 0}, {0, 1}, {-1, 0}, {2, 1}};
    m.lod_steps = 2;
    s.meshes.push_back(m);
    Material mat;
    mat.ambient = {22 / 255.0f, 16 / 255.0f, 46 / 255.0f, 1};
    mat.diffuse = {1, 0.5f, 0, 1};
    mat.shininess = 0.05f;
    mat.maps = {TextureMap{TextureType::Diffuse, "cally.tga", ""}, TextureMap{TextureType::Diffuse, "second map.png", ""}};
    s.materials.push_back(mat);
    return s;
}

TEST(Cal3dWriteMeshOracle, ConverterReadsOurClassicFiles) {
    RIGPORT_REQUIRE_CAL3D_CONVERTER();
    const Scene scene = oracle_scene();
    SaveOptions o;
    o.cal3d.dialect = Dialect::Classic1100;
    const fs::path dir = temp_dir();
    struct Case {
        const char *ours, *theirs;
    };
    for (const Case c : {Case{"m.xmf", "m_deb.cmf"}, Case{"m.cmf", "m_deb.xmf"}, Case{"r.xrf", "r_deb.crf"}, Case{"r.crf", "r_deb.xrf"}}) {
        SCOPED_TRACE(std::string(c.ours) + " -> " + c.theirs);
        auto bytes = save_bytes(scene, c.ours, o);
        ASSERT_TRUE(bytes) << bytes.error().to_string();
        write_bytes(dir / c.ours, *bytes);
        ASSERT_EQ(run_cal3d_converter(dir / c.ours, dir / c.theirs), 0) << "cal3d_converter rejected our file";
        auto ours = load((dir / c.ours).string());
        auto theirs = load((dir / c.theirs).string());
        ASSERT_TRUE(ours) << ours.error().to_string();
        ASSERT_TRUE(theirs) << theirs.error().to_string();
        EXPECT_EQ(theirs->meta.source_version, 1100u);
        if (std::string(c.ours).find("mf") != std::string::npos) {
            Expect e;
            e.colors = false;
            e.morphs = false;
            e.tolerance = six_digits;
            expect_same_meshes(*ours, *theirs, e);
            // And what we read of our own file is the scene we wrote (bones by id).
            Expect exact;
            exact.joint_to_bone = {1, 0};
            expect_same_meshes(scene, *ours, exact);
        } else {
            ASSERT_EQ(theirs->materials.size(), 1u);
            expect_same_material(ours->materials.at(0), theirs->materials[0], false, six_digits);
            expect_same_material(scene.materials[0], ours->materials.at(0), false);
        }
    }
}

// Corpus classic binaries (v700 / v910 CMF) converted to XMF by the converter read as the binaries.
TEST(Cal3dWriteMeshOracle, ConverterXmlOfCorpusMeshes) {
    RIGPORT_REQUIRE_CAL3D_CONVERTER();
    RIGPORT_REQUIRE_CORPUS();
    const fs::path dir = temp_dir();
    size_t converted = 0;
    for (const char* sub : {"cal3d/upstream_binary/cally", "cal3d/upstream_binary/paladin"})
        for (auto& path : corpus_files(sub, ".cmf")) {
            SCOPED_TRACE(path.string());
            const fs::path xml = dir / (path.stem().string() + ".xmf");
            ASSERT_EQ(run_cal3d_converter(path, xml), 0);
            auto binary = load(path.string());
            auto text = load(xml.string());
            ASSERT_TRUE(binary) << binary.error().to_string();
            ASSERT_TRUE(text) << text.error().to_string();
            Expect e;
            e.colors = false;
            e.morphs = false;
            e.tolerance = six_digits;
            expect_same_meshes(*binary, *text, e);
            ++converted;
        }
    EXPECT_EQ(converted, 5u);
}

}  // namespace
}  // namespace rigport::test
