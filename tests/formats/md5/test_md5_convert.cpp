// MD5 through the real binary and against an independent reader: `rigport convert model.md5mesh
// anim.md5anim -o x.iqm | x.glb` gives files `rigport validate` accepts, and Debian's assimp reads
// the same .md5mesh to the same vertex positions (within 1e-5 of the model size).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "assimp_oracle.hpp"
#include "convert_checks.hpp"
#include "rigport/io.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

namespace fs = std::filesystem;

const char* const rifle = "UnvanquishedAssets_res-weapons_src.dpkdir__rifle_view";

TEST(Md5Convert, MeshAndAnimationToIqmAndGlbValidate) {
    RIGPORT_REQUIRE_CORPUS();
    const fs::path md5 = corpus_dir() / "md5";
    const fs::path out = files_dir();
    for (const char* ext : {".iqm", ".glb"}) {
        const std::string target = (out / (std::string("rifle") + ext)).string();
        Scene scene;
        ASSERT_NO_FATAL_FAILURE(
            convert_and_validate({(md5 / (std::string(rifle) + ".md5mesh")).string(), (md5 / (std::string(rifle) + "_fire.md5anim")).string()}, target, scene));
        ASSERT_EQ(scene.animations.size(), 1u);
        EXPECT_EQ(scene.skeleton.joints.size(), 46u);
    }
    // And back to MD5: the mesh and its animation beside it.
    const std::string back = (out / "again.md5mesh").string();
    auto r = run_cli({"convert", (out / "rifle.iqm").string(), "-o", back});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    bool anim = false;
    for (auto& e : fs::directory_iterator(out)) anim = anim || e.path().extension() == ".md5anim";
    EXPECT_TRUE(anim);
    expect_format_listed("md5");
}



TEST(Md5Convert, AssimpAgreesOnVertexPositions) {
    RIGPORT_REQUIRE_CORPUS();
    RIGPORT_REQUIRE_ASSIMP();
    const fs::path dir = files_dir();
    for (const char* stem : {"assimp_assimp__SimpleCube", "assimp_assimp__BoarMan", "UnvanquishedAssets_res-weapons_src.dpkdir__grenade", rifle}) {
        const fs::path in = corpus_dir() / "md5" / (std::string(stem) + ".md5mesh");
        const fs::path obj = dir / (std::string(stem) + ".obj");
        ASSERT_TRUE(assimp_export_obj(in, obj));
        const auto theirs = obj_vertex_positions(obj);
        auto scene = load(in.string());
        ASSERT_TRUE(scene) << scene.error().to_string();
        // assimp turns MD5's Z up into its Y up on the root node: (x, y, z) -> (x, z, -y).
        std::vector<std::array<double, 3>> ours;
        double size = 0;
        for (auto& m : scene->meshes)
            for (auto& p : m.positions) {
                ours.push_back({p[0], p[2], -p[1]});
                size = std::max({size, double(std::fabs(p[0])), double(std::fabs(p[1])), double(std::fabs(p[2]))});
            }
        ASSERT_FALSE(theirs.empty()) << stem;
        expect_same_points_as_assimp(stem, ours, theirs, size);
    }
}

}  // namespace
}  // namespace rigport::test
