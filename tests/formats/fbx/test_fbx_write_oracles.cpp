// The FBX writer's files read by independent readers (docs/fbx.md "Writing FBX"): ufbx (the probe
// of ufbx_oracle.hpp) and three.js's FBXLoader (tests/js/fbx.mjs) must place every vertex where
// rigport does, at rest and posed at 1/3 and 2/3 of every clip, within 1e-4 of the model's size;
// Debian's assimp must find the meshes, vertices and bones. The skinned, animated, blend-shaped
// test scene and the corpus's characters (mrfixit, CesiumMan, an MD5 with its animation, Cal3D's
// cally) are written and checked.
#include <gtest/gtest.h>

#include <regex>

#include "assimp_oracle.hpp"
#include "fbx_write_checks.hpp"
#include "gltf_oracle.hpp"
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


// The name the writer gives a mesh's Model (fbx_write.cpp name_or).
std::string name_or_index(const std::string& name, size_t index) { return name.empty() ? "mesh_" + std::to_string(index) : name; }

// A mesh's name as three.js keeps it (PropertyBinding.sanitizeNodeName: spaces become '_', the
// characters of its binding paths go).
std::string three_name(const std::string& name) {
    std::string out;
    for (char c : name) {
        if (c == ' ') {
            out += '_';
        } else if (std::string_view("[].:/").find(c) == std::string_view::npos) {
            out += c;
        }
    }
    return out;
}

// three.js's FBXLoader (tests/js/fbx.mjs) on `file` against `expected` (the scene written, in
// FBX's axes): one clip per animation by name, one bone per joint, and every triangle corner,
// at rest and at 1/3 and 2/3 of every clip (the times of the ufbx probe), where rigport's own
// sampling of the scene puts its vertex, within 1e-4 of the model's size (position_tolerance).
// FBXLoader builds one vertex per polygon corner in the file's order, and the writer's polygons
// are the scene's triangles in order, so corners are compared one to one, not as point sets.
// Returns the largest distance as a fraction of the size.
double expect_three_agrees(const fs::path& file, const Scene& expected) {
    nlohmann::json requests = nlohmann::json::array({{{"animation", nullptr}, {"time", 0}}});
    std::vector<std::pair<int, double>> asked = {{-1, 0.0}};
    for (size_t a = 0; a < expected.animations.size(); ++a)
        for (double f : {1.0 / 3.0, 2.0 / 3.0}) {
            const double t = f * expected.animations[a].duration();
            requests.push_back({{"animation", int(a)}, {"time", t}});
            asked.push_back({int(a), t});
        }
    const RunResult run = run_program("node", {(fs::path(RIGPORT_SOURCE_DIR) / "tests" / "js" / "fbx.mjs").string(), file.string(), requests.dump()});
    EXPECT_EQ(run.exit_code, 0) << run.err;
    if (run.exit_code != 0) return INFINITY;
    const auto j = nlohmann::json::parse(run.out);
    const double to_metres = j["unitScaleFactor"].get<double>() / 100.0;
    EXPECT_NEAR(to_metres, expected.meta.unit_scale, 1e-9 * expected.meta.unit_scale);
    EXPECT_EQ(j["bones"].get<size_t>(), expected.skeleton.joints.size());
    EXPECT_EQ(j["animations"].size(), expected.animations.size());
    for (size_t a = 0; a < j["animations"].size() && a < expected.animations.size(); ++a) {
        EXPECT_EQ(j["animations"][a]["name"].get<std::string>(), expected.animations[a].name);
        EXPECT_NEAR(j["animations"][a]["duration"].get<double>(), expected.animations[a].duration(), 1e-5);
    }
    // Each three.js mesh is the unused scene mesh of its name and corner count.
    EXPECT_EQ(j["meshes"].size(), expected.meshes.size());
    std::vector<bool> used(expected.meshes.size(), false);
    std::vector<size_t> first_vertex(expected.meshes.size(), 0);
    for (size_t m = 1; m < expected.meshes.size(); ++m) first_vertex[m] = first_vertex[m - 1] + expected.meshes[m - 1].vertex_count();
    std::vector<std::vector<P3>> ours;
    for (auto& [anim, time] : asked) ours.push_back(rigport_positions(expected, anim, time));
    const double size = diagonal(ours.front());
    double worst = 0;
    for (const auto& mesh : j["meshes"]) {
        const std::string name = mesh["name"].get<std::string>();
        const size_t corners = mesh["vertexCount"].get<size_t>();
        size_t found = expected.meshes.size();
        for (size_t m = 0; m < expected.meshes.size() && found == expected.meshes.size(); ++m)
            if (!used[m] && expected.meshes[m].triangles.size() * 3 == corners && three_name(name_or_index(expected.meshes[m].name, m)) == name) found = m;
        EXPECT_LT(found, expected.meshes.size()) << file.filename().string() << ": three.js mesh '" << name << "' (" << corners
                                                 << " corners) is no mesh of the scene";
        if (found == expected.meshes.size()) continue;
        used[found] = true;
        const Mesh& source = expected.meshes[found];
        EXPECT_EQ(mesh["skinned"].get<bool>(), !source.skin.empty()) << name;
        for (size_t i = 0; i < asked.size(); ++i) {
            const auto& theirs = mesh["frames"][i]["positions"];
            double off = 0;
            for (size_t t = 0; t < source.triangles.size(); ++t)
                for (size_t k = 0; k < 3; ++k) {
                    const P3& p = ours[i][first_vertex[found] + source.triangles[t][k]];
                    const size_t c = 3 * (3 * t + k);
                    off = std::max(off, std::hypot(theirs[c].get<double>() * to_metres - p[0], theirs[c + 1].get<double>() * to_metres - p[1],
                                                   theirs[c + 2].get<double>() * to_metres - p[2]));
                }
            const std::string where = asked[i].first < 0 ? std::string("at rest")
                                                         : "'" + expected.animations[size_t(asked[i].first)].name + "' at " + std::to_string(asked[i].second) + " s";
            EXPECT_LE(off, position_tolerance * size) << file.filename().string() << " mesh '" << name << "' " << where << " (tolerance "
                                                      << position_tolerance << " of the size " << size << " m)";
            worst = std::max(worst, off);
        }
    }
    worst = size > 0 ? worst / size : worst;
    std::cout << "[ note ] " << file.filename().string() << ": three.js FBXLoader " << j["meshes"].size() << " meshes, " << asked.size()
              << " poses, size " << size << " m, off by up to " << worst << " of the size\n";
    return worst;
}

}  // namespace

TEST(FbxWriteOracles, UfbxPlacesTheTestSceneAsRigportDoes) {
    if (const std::string missing = ufbx_missing(); !missing.empty()) GTEST_SKIP() << "ufbx oracle not available: " << missing;
    const fs::path file = temp_dir() / "fbx_write_scene.fbx";
    const Scene expected = write_fbx_file(fbx_write_scene(), file);
    EXPECT_LT(expect_ufbx_agrees(file, expected), position_tolerance);
}

// The test scene with its blend shape weight as FBXLoader plays it (fbx_write_checks.hpp).
TEST(FbxWriteOracles, ThreeJsFbxLoaderPlacesTheTestSceneAsRigportDoes) {
    RIGPORT_SKIP_PEER_IN_SANITIZER_BUILD();
    RIGPORT_REQUIRE_JS();
    const fs::path file = temp_dir() / "fbx_write_scene.fbx";
    const Scene expected = write_fbx_file(fbx_write_scene_for_players(), file);
    EXPECT_LT(expect_three_agrees(file, expected), position_tolerance);
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
        if (ufbx) {
            EXPECT_LT(expect_ufbx_agrees(file, expected), position_tolerance);
        }
        if (have_assimp()) expect_assimp_agrees(file, expected);
    }
}

// three.js's FBXLoader on the corpus's characters written as FBX (binary 7.4, the default).
TEST(FbxWriteOracles, ThreeJsFbxLoaderPlacesCorpusCharactersAsRigportDoes) {
    RIGPORT_REQUIRE_CORPUS();
    RIGPORT_SKIP_PEER_IN_SANITIZER_BUILD();
    RIGPORT_REQUIRE_JS();
    const fs::path dir = temp_dir();
    for (const char* path : {"iqm/mrfixit.iqm", "gltf/CesiumMan.glb", "md5/UnvanquishedAssets_res-weapons_src.dpkdir__rifle_view.md5mesh"}) {
        SCOPED_TRACE(path);
        auto scene = load_model({(corpus_dir() / path).string()});
        ASSERT_TRUE(scene) << scene.error().to_string();
        const fs::path file = dir / (fs::path(path).stem().string() + ".fbx");
        const Scene expected = write_fbx_file(*scene, file);
        EXPECT_LT(expect_three_agrees(file, expected), position_tolerance);
    }
}
