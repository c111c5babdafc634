// glTF export of the whole IQM/IQE corpus and the built-in sample, judged by independent oracles
// (docs/gltf.md §6): the Khronos validator must be clean, and three.js must skin every GLB to the same
// world positions as rigport's own CPU skinning of the source, axis-converted (docs/gltf.md §6).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iostream>
#include <string>

#include "gltf_oracle.hpp"
#include "rigport/anim.hpp"
#include "rigport/compile.hpp"
#include "rigport/formats.hpp"
#include "rigport/process.hpp"
#include "rigport/sample.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using Point = std::array<double, 3>;

// One model to convert: a corpus file, or the built-in sample (written as IQM by `rigport sample`).
struct Model {
    std::string name;  // test name suffix
    std::string sub;   // corpus folder ("iqm", "iqe"), empty for the sample
    std::string file;  // file name in that folder
    std::vector<std::string> animations = {};  // animation files in that folder converted with it
};

void PrintTo(const Model& m, std::ostream* os) { *os << m.name; }

std::vector<Model> models() {
    std::vector<Model> out{{"sample", "", "sample.iqm"}};
    for (const char* sub : {"iqm", "iqe"})
        for (const fs::path& p : corpus_files(sub, std::string(".") + sub)) {
            std::string name = std::string(sub) + "_" + p.stem().string();
            for (char& c : name)
                if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
            out.push_back({name, sub, p.filename().string()});
        }
    // The reference compiler's other sources (docs/iqm.md §3.2): a few of each, chosen to cover skins,
    // an animation bound by joint name, a static prop, and Y-up static meshes.
    const std::vector<Model> others = {
        {"md5_rifle_view_fire", "md5", "UnvanquishedAssets_res-weapons_src.dpkdir__rifle_view.md5mesh",
         {"UnvanquishedAssets_res-weapons_src.dpkdir__rifle_view_fire.md5anim"}},
        {"md5_SimpleCube", "md5", "assimp_assimp__SimpleCube.md5mesh"},
        {"md5_grenade", "md5", "UnvanquishedAssets_res-weapons_src.dpkdir__grenade.md5mesh"},
        {"smd_Cube_Armature", "smd", "Artfunkel_BlenderSourceTools__Cube_Armature_Cube.smd"},
        {"smd_BezierCurve", "smd", "Artfunkel_BlenderSourceTools__Curve_Armature_BezierCurve.smd"},
        {"smd_holy_grailref", "smd", "assimp_assimp__holy_grailref.smd"},
        {"obj_spider", "obj", "assimp_assimp__spider.obj"},
        {"obj_maya_cube", "obj", "ufbx_ufbx__maya_cube.obj"},
        // FBX (docs/fbx.md): Blender, Maya and 3ds Max skins with animation stacks, a big-endian file,
        // animation layers.
        {"fbx_sausage", "fbx", "ufbx_ufbx__blender_279_sausage_7400_binary.fbx"},
        {"fbx_kenney", "fbx", "ufbx_ufbx__maya_kenney_character_7700_binary.fbx"},
        {"fbx_max_transformed_skin", "fbx", "ufbx_ufbx__max_transformed_skin_7500_binary.fbx"},
        {"fbx_maya_cube_big_endian", "fbx", "ufbx_ufbx__maya_cube_big_endian_7500_binary.fbx"},
        {"fbx_sausage_6100_ascii", "fbx", "ufbx_ufbx__blender_279_sausage_6100_ascii.fbx"},
        {"fbx_half_skinned", "fbx", "ufbx_ufbx__blender_293_half_skinned_7400_binary.fbx"},
        {"fbx_barbarian_blend_shapes", "fbx", "ufbx_ufbx__blender_293_barbarian_7400_binary.fbx"},
        {"fbx_maya_anim_layers", "fbx", "ufbx_ufbx__maya_anim_layers_7500_ascii.fbx"},  // three layers on a rigid cube
    };
    for (const Model& m : others)
        if (!corpus_dir().empty() && fs::exists(corpus_dir() / m.sub / m.file)) out.push_back(m);
    return out;
}

// The animation files of a model, as paths.
std::vector<std::string> animation_paths(const Model& m) {
    std::vector<std::string> paths;
    for (auto& a : m.animations) paths.push_back((corpus_dir() / m.sub / a).string());
    return paths;
}

// The source file to convert; the sample is first written into dir.
fs::path source_path(const Model& m, const fs::path& dir) {
    if (!m.sub.empty()) return corpus_dir() / m.sub / m.file;
    const fs::path p = dir / m.file;
    RunResult r = run_cli({"sample", "-o", p.string()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return p;
}

// `rigport convert SOURCE [ANIMATIONS...] -o OUT [extra...]`; true when it exited 0.
bool convert(const fs::path& source, const fs::path& out, const std::vector<std::string>& extra = {},
             const std::vector<std::string>& animations = {}) {
    std::vector<std::string> args{"convert", source.string()};
    args.insert(args.end(), animations.begin(), animations.end());
    args.insert(args.end(), {"-o", out.string()});
    args.insert(args.end(), extra.begin(), extra.end());
    RunResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, 0) << "rigport " << args[0] << " " << source << " -o " << out << ": " << r.err;
    return r.exit_code == 0;
}

// The scene `rigport convert` builds from one input, the way tools/rigport/cmd_convert.cpp does for a
// glTF output (compiler_options for glTF: the pipeline, all influences kept), so vertex order and
// count match.
Scene compile_like_convert(const fs::path& source, const std::vector<std::string>& animations = {}) {
    std::vector<CompileInput> inputs{CompileInput{{source.string()}, {}}};
    for (auto& a : animations) inputs.push_back(CompileInput{{a}, {}});
    CompileOptions options = compiler_options(*find_format("gltf"));
    auto scene = compile(inputs, options);
    EXPECT_TRUE(scene.has_value()) << (scene ? "" : scene.error().to_string());
    return scene ? std::move(*scene) : Scene{};
}

void expect_clean(const fs::path& file) {
    ValidatorReport r = validate_gltf(file);
    ASSERT_TRUE(r.ran()) << r.error;
    EXPECT_EQ(r.errors, 0) << file.filename() << ": " << r.summary(1000);
    EXPECT_EQ(r.warnings, 0) << file.filename() << ": " << r.summary(1000);
}


// rigport's own morphing and skinning of mesh `m` for the request, mapped Z-up -> Y-up: (x,y,z) -> (x,z,-y)
// when the source is Z up (a Y-up source, OBJ, is written as it is).
std::vector<Point> reference_positions(const Scene& scene, size_t m, const SkinRequest& r) {
    const auto local = r.animation < 0 ? bind_pose(scene.skeleton)
                                       : sample_pose(scene.skeleton, scene.animations[size_t(r.animation)],
                                                     float(r.time), EndMode::Clamp);
    // Morph targets first (their default weights, or the animation's), then the skin, as glTF does.
    const Mesh& mesh = scene.meshes[m];
    std::vector<float> weights;
    for (const MorphTarget& t : mesh.morph_targets) weights.push_back(t.default_weight);
    if (r.animation >= 0) weights = sample_morph_weights(mesh, uint32_t(m), scene.animations[size_t(r.animation)], float(r.time), EndMode::Clamp);
    auto positions = skin_positions(mesh, morph_positions(mesh, weights), skinning_matrices(scene.skeleton, local));
    if (scene.meta.up == UpAxis::Z)
        for (auto& p : positions) p = {p[0], p[2], -p[1]};
    return positions;
}

double bounding_box_diagonal(const Scene& scene) {
    Point lo{INFINITY, INFINITY, INFINITY}, hi{-INFINITY, -INFINITY, -INFINITY};
    for (const auto& mesh : scene.meshes)
        for (const auto& p : mesh.positions)
            for (int k = 0; k < 3; ++k) lo[k] = std::min(lo[k], double(p[k])), hi[k] = std::max(hi[k], double(p[k]));
    if (lo[0] > hi[0]) return 0;
    return std::hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
}

// three.js's world positions from `glb` against the reference for every mesh and request, within
// 1e-4 of the bounding-box diagonal. Returns the largest distance found.
double compare_with_three(const Scene& scene, const fs::path& glb) {
    const std::vector<SkinRequest> requests = requests_for(scene);
    ThreeSkinning three = three_skin(glb, requests);
    EXPECT_TRUE(three.ran()) << three.error;
    if (!three.ran()) return INFINITY;
    EXPECT_EQ(three.animations.size(), scene.animations.size());
    for (size_t a = 0; a < scene.animations.size() && a < three.animations.size(); ++a)
        if (!scene.animations[a].name.empty()) {
            EXPECT_EQ(three.animations[a].name, scene.animations[a].name);
        }

    const double tolerance = 1e-4 * bounding_box_diagonal(scene);
    double worst = 0;
    for (size_t m = 0; m < scene.meshes.size(); ++m) {
        SCOPED_TRACE("mesh " + std::to_string(m) + " '" + scene.meshes[m].name + "'");
        const ThreeMesh* mesh = three.find(int(m), 0);
        EXPECT_NE(mesh, nullptr) << "three.js has no glTF mesh " << m;
        if (!mesh) continue;
        EXPECT_EQ(mesh->vertex_count, scene.meshes[m].vertex_count());
        if (mesh->vertex_count != scene.meshes[m].vertex_count() || mesh->frames.size() != requests.size()) continue;
        // three.js skins by JOINTS_0 / WEIGHTS_0 only: a vertex with more than 4 influences (which
        // rigport writes to JOINTS_1 too) cannot be compared there.
        const SkinInfluences& skin = scene.meshes[m].skin;
        size_t beyond_four = 0;
        for (uint32_t v = 0; !skin.empty() && v < scene.meshes[m].vertex_count(); ++v) beyond_four += skin.count(v) > 4;
        if (beyond_four)
            std::cout << "[ note     ] mesh '" << scene.meshes[m].name << "': " << beyond_four
                      << " vertices with more than 4 influences left out (three.js reads JOINTS_0 only)\n";
        for (size_t r = 0; r < requests.size(); ++r) {
            const auto expected = reference_positions(scene, m, requests[r]);
            double frame_worst = 0;
            size_t frame_worst_vertex = 0;
            for (size_t v = 0; v < expected.size(); ++v) {
                if (!skin.empty() && skin.count(uint32_t(v)) > 4) continue;
                const auto& got = mesh->frames[r].positions[v];
                double d = std::hypot(got[0] - expected[v][0], got[1] - expected[v][1], got[2] - expected[v][2]);
                if (!(d <= frame_worst)) frame_worst = d, frame_worst_vertex = v;  // NaN counts as worst
            }
            EXPECT_LE(frame_worst, tolerance)
                << "animation " << requests[r].animation << " t=" << requests[r].time << ": vertex "
                << frame_worst_vertex << " is " << frame_worst << " away (tolerance " << tolerance << ")";
            worst = std::isnan(frame_worst) ? frame_worst : std::max(worst, frame_worst);
        }
    }
    return worst;
}

class GltfCorpus : public ::testing::TestWithParam<Model> {};

// Every model converts to .glb and to .gltf (+ .bin), and the validator finds nothing to say
// beyond infos and hints.
TEST_P(GltfCorpus, ValidatesClean) {
    const Model& m = GetParam();
    RIGPORT_SKIP_PEER_IN_SANITIZER_BUILD();
    if (!m.sub.empty()) RIGPORT_REQUIRE_CORPUS();
    RIGPORT_REQUIRE_JS();
    const fs::path dir = temp_dir();
    const fs::path source = source_path(m, dir);
    for (const char* ext : {".glb", ".gltf"}) {
        SCOPED_TRACE(ext);
        const fs::path out = dir / (fs::path(m.file).stem().string() + ext);
        if (convert(source, out, {}, animation_paths(m))) expect_clean(out);
    }
}

// three.js's skinning of the GLB equals rigport's skinning of the source, with the axis
// conversion baked (default) and with it on a root node (--axis root).
TEST_P(GltfCorpus, ThreeSkinningMatchesSource) {
    const Model& m = GetParam();
    RIGPORT_SKIP_PEER_IN_SANITIZER_BUILD();
    if (!m.sub.empty()) RIGPORT_REQUIRE_CORPUS();
    RIGPORT_REQUIRE_JS();
    const fs::path dir = temp_dir();
    const fs::path source = source_path(m, dir);
    Scene scene = compile_like_convert(source, animation_paths(m));
    convert_units(scene, 1.0);  // a GLB is in metres: an FBX in centimetres is scaled on the way (docs/units.md)
    if (scene.meshes.empty()) {
        std::cout << "[ note     ] " << m.file << " has no mesh (animation only): skinning comparison skipped\n";
        GTEST_SKIP() << m.file << " has no mesh: nothing to skin";
    }
    for (const auto& [mode, extra] : {std::pair<std::string, std::vector<std::string>>{"bake", {}},
                                      {"root", {"--axis", "root"}}}) {
        SCOPED_TRACE("axis " + mode);
        const fs::path glb = dir / (fs::path(m.file).stem().string() + "-" + mode + ".glb");
        if (!convert(source, glb, extra, animation_paths(m))) continue;
        expect_clean(glb);
        const double worst = compare_with_three(scene, glb);
        const double diagonal = bounding_box_diagonal(scene);
        std::cout << "[ measured ] " << m.file << " axis " << mode << ": max three.js error " << worst
                  << " (bbox diagonal " << diagonal << ", " << requests_for(scene).size() << " poses)\n";
        RecordProperty("max_error_" + mode, std::to_string(worst));
    }
}

INSTANTIATE_TEST_SUITE_P(Models, GltfCorpus, ::testing::ValuesIn(models()),
                         [](const ::testing::TestParamInfo<Model>& info) { return info.param.name; });

// `rigport sample -o X.glb` writes the sample straight from memory: clean, and skinned by three.js
// like make_sample_scene() itself.
TEST(GltfSample, WrittenDirectlyValidatesAndSkins) {
    RIGPORT_REQUIRE_JS();
    const fs::path glb = temp_dir() / "sample.glb";
    RunResult r = run_cli({"sample", "-o", glb.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    expect_clean(glb);
    const Scene scene = make_sample_scene();
    const double worst = compare_with_three(scene, glb);
    std::cout << "[ measured ] built-in sample (direct): max three.js error " << worst << " (bbox diagonal "
              << bounding_box_diagonal(scene) << ")\n";
}

// The GLB's JSON chunk (glTF 2.0 §4.4: 12-byte header, then chunks of length, type, data).
json glb_json(const std::vector<uint8_t>& glb) {
    if (glb.size() < 20 || std::memcmp(glb.data(), "glTF", 4) != 0) return nullptr;
    uint32_t length = 0, type = 0;
    std::memcpy(&length, glb.data() + 12, 4);
    std::memcpy(&type, glb.data() + 16, 4);
    if (type != 0x4E4F534A || length > glb.size() - 20) return nullptr;
    return json::parse(glb.begin() + 20, glb.begin() + 20 + length, nullptr, false);
}

// mrfixit's skin has all 75 joints, and "idle" keeps its 101 frames as 101 keys (t = 0 .. 100/24)
// in every animated channel; a constant channel may be one key (docs/gltf.md §4.3).
TEST(GltfCorpusMrfixit, SkinJointsAndIdleKeys) {
    RIGPORT_REQUIRE_CORPUS();
    const fs::path glb = temp_dir() / "mrfixit.glb";
    ASSERT_TRUE(convert(corpus_dir() / "iqm" / "mrfixit.iqm", glb));
    json j = glb_json(read_bytes(glb));
    ASSERT_TRUE(j.is_object()) << "no JSON chunk in " << glb;
    ASSERT_EQ(j["skins"].size(), 1u);
    EXPECT_EQ(j["skins"][0]["joints"].size(), 75u);
    ASSERT_EQ(j["animations"].size(), 1u);
    const json& idle = j["animations"][0];
    EXPECT_EQ(idle["name"], "idle");
    size_t animated = 0;
    for (const auto& channel : idle["channels"]) {
        const json& sampler = idle["samplers"][channel["sampler"].get<size_t>()];
        const json& input = j["accessors"][sampler["input"].get<size_t>()];
        const json& output = j["accessors"][sampler["output"].get<size_t>()];
        const int keys = input["count"];
        EXPECT_TRUE(keys == 101 || keys == 1) << keys << " keys in channel " << channel["target"].dump();
        EXPECT_EQ(output["count"], keys) << "channel " << channel["target"].dump();
        if (keys != 101) continue;
        ++animated;
        EXPECT_EQ(input["min"][0].get<double>(), 0.0);
        EXPECT_EQ(input["max"][0].get<float>(), 100.0f / 24.0f);
    }
    // 333 animated frame channels in the IQM (measured from the file) make at least 75 animated tracks.
    EXPECT_GE(animated, 75u);
}

}  // namespace
}  // namespace rigport::test
