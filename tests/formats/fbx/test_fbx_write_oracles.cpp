// The FBX writer's files read by independent readers (docs/fbx.md "Writing FBX"): ufbx (the probe
// of ufbx_oracle.hpp) must place every vertex where rigport does, at rest and posed at 1/3 and 2/3
// of every clip, within 1e-4 of the model's size; Debian's assimp must find the meshes, vertices
// and bones. The skinned, animated, blend-shaped test scene and the corpus's characters (mrfixit,
// CesiumMan, an MD5 with its animation, Cal3D's cally) are written and checked.
#include <gtest/gtest.h>

#include <regex>

#include "assimp_oracle.hpp"
#include "fbx_write_checks.hpp"
#include "rigport/report.hpp"
#include "test_support.hpp"
#include "ufbx_oracle.hpp"

using namespace rigport;
using namespace rigport::test;
using namespace rigport::test::ufbx_oracle;
namespace fs = std::filesystem;

namespace {

// Writes `scene` as FBX at `path`; its expected reading in FBX's axes.
Scene write_fbx_file(const Scene& scene, const fs::path& path) {
    auto st = save(scene, path.string());
    EXPECT_TRUE(st) << st.error().to_string();
    return as_fbx_axes(scene);
}

// ufbx's reading of `file` against `expected` (the scene written, in FBX's axes): the unit, the
// stacks (one per clip, same name, window 0 to the duration), the rest pose and every pose ufbx
// evaluates. Returns the largest distance found as a fraction of the size.
double expect_ufbx_agrees(const fs::path& file, const Scene& expected) {
    const UfbxScene& u = ufbx_read(file, file.parent_path());
    EXPECT_TRUE(u.error.empty()) << u.error;
    if (!u.error.empty()) return INFINITY;
    EXPECT_NEAR(u.unit_meters, expected.meta.unit_scale, 1e-6 * expected.meta.unit_scale);
    EXPECT_EQ(u.stacks.size(), expected.animations.size());
    for (size_t k = 0; k < u.stacks.size() && k < expected.animations.size(); ++k) {
        EXPECT_EQ(u.stacks[k].name, expected.animations[k].name);
        EXPECT_NEAR(u.stacks[k].time_begin, 0.0, 1e-9);
        EXPECT_NEAR(u.stacks[k].time_end, expected.animations[k].duration(), 1e-6);
    }
    EXPECT_FALSE(u.poses.empty());
    if (u.poses.empty()) return INFINITY;
    const double size = diagonal(u.poses.front().positions);
    double worst = 0;
    for (const UfbxPose& pose : u.poses) {
        const int clip = pose.stack;
        if (clip >= int(expected.animations.size())) continue;
        const std::string where = file.filename().string() + (clip < 0 ? std::string(" at rest") : " '" + expected.animations[size_t(clip)].name + "' at " +
                                                                                                         std::to_string(pose.time) + " s");
        worst = std::max(worst, compare_points(rigport_positions(expected, clip, pose.time), pose.positions, size, where));
    }
    std::cout << "[ note ] " << file.filename().string() << ": ufbx " << u.poses.size() << " poses (" << u.poses.front().positions.size()
              << " points each), size " << size << " m, off by up to " << worst << " of the size\n";
    return worst;
}

struct AssimpInfo {
    long meshes = -1, vertices = -1, bones = -1, animations = -1;
};

AssimpInfo assimp_info(const fs::path& file) {
    const RunResult r = run_program("assimp", {"info", file.string()});
    AssimpInfo info;
    auto field = [&](const char* name) {
        std::smatch m;
        const std::regex re(std::string("\n") + name + R"(:\s+(\d+))");
        return std::regex_search(r.out, m, re) ? std::stol(m[1].str()) : -1L;
    };
    info.meshes = field("Meshes");
    info.vertices = field("Vertices");
    info.bones = field("Bones");
    info.animations = field("Animations");
    return info;
}

// Joints that move some vertex (those the writer gives a Cluster), summed over meshes as assimp
// counts its bones.
long bones_of(const Scene& s) {
    long n = 0;
    for (const Mesh& m : s.meshes) {
        std::vector<bool> used(s.skeleton.joints.size(), false);
        for (const Influence& i : m.skin.influences)
            if (i.weight != 0) used[i.joint] = true;
        n += long(std::count(used.begin(), used.end(), true));
    }
    return n;
}

// assimp finds the meshes, the bones and the clips, and its vertices (exported to OBJ) are
// rigport's as bound, as point sets within 1e-5 of the size (assimp_oracle.hpp). Vertex counts
// are not compared: assimp joins corners by its own rules (mrfixit: 2255 for rigport's 1861).
void expect_assimp_agrees(const fs::path& file, const Scene& expected) {
    const AssimpInfo info = assimp_info(file);
    EXPECT_EQ(info.meshes, long(expected.meshes.size())) << file;
    EXPECT_EQ(info.bones, bones_of(expected)) << file;
    EXPECT_EQ(info.animations, long(expected.animations.size())) << file;
    const fs::path obj = file.parent_path() / (file.stem().string() + "_assimp.obj");
    ASSERT_TRUE(assimp_export_obj(file, obj));
    const auto ours = mesh_positions(expected);
    expect_same_points_as_assimp(file.filename().string(), ours, obj_vertex_positions(obj), diagonal(ours));
    std::cout << "[ note ] " << file.filename().string() << ": assimp " << info.meshes << " meshes, " << info.vertices << " vertices, "
              << info.bones << " bones, " << info.animations << " animations\n";
}

}  // namespace

TEST(FbxWriteOracles, UfbxPlacesTheTestSceneAsRigportDoes) {
    if (const std::string missing = ufbx_missing(); !missing.empty()) GTEST_SKIP() << "ufbx oracle not available: " << missing;
    const fs::path file = temp_dir() / "fbx_write_scene.fbx";
    const Scene expected = write_fbx_file(fbx_write_scene(), file);
    EXPECT_LT(expect_ufbx_agrees(file, expected), position_tolerance);
}

TEST(FbxWriteOracles, AssimpReadsTheTestScene) {
    RIGPORT_REQUIRE_ASSIMP();
    const fs::path file = temp_dir() / "fbx_write_scene.fbx";
    const Scene expected = write_fbx_file(fbx_write_scene(), file);
    expect_assimp_agrees(file, expected);
}

// The corpus's characters through the library's own loading (companions, Cal3D members) and
// written as FBX: ufbx agrees at rest and at its two times per clip, assimp on the counts.
TEST(FbxWriteOracles, CorpusCharactersAgreeWithUfbxAndAssimp) {
    RIGPORT_REQUIRE_CORPUS();
    const bool ufbx = ufbx_missing().empty();
    if (!ufbx && !have_assimp()) GTEST_SKIP() << "neither ufbx nor assimp available";
    const std::vector<std::vector<std::string>> models = {
        {"iqm/mrfixit.iqm"}, {"gltf/CesiumMan.glb"}, {"md5/UnvanquishedAssets_res-weapons_src.dpkdir__rifle_view.md5mesh"}, {"cal3d/upstream_binary/cally/cally.cfg"}};
    const fs::path dir = temp_dir();
    for (const auto& paths : models) {
        SCOPED_TRACE(paths[0]);
        LoadOptions lo;
        lo.allow_missing = true;  // the corpus has some of cally's meshes
        std::vector<std::string> full;
        for (auto& p : paths) full.push_back((corpus_dir() / p).string());
        auto scene = load_model(full, lo);
        ASSERT_TRUE(scene) << scene.error().to_string();
        const fs::path file = dir / (fs::path(paths[0]).stem().string() + ".fbx");
        const Scene expected = write_fbx_file(*scene, file);
        if (ufbx) EXPECT_LT(expect_ufbx_agrees(file, expected), position_tolerance);
        if (have_assimp()) expect_assimp_agrees(file, expected);
    }
}
