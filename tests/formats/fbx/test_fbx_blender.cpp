// FBX animation and skinning against an independent reader: Blender's own FBX importer (Debian's
// blender 3.4, headless; binary 7.x files) poses each file at key times, and rigport's skinned
// positions of the same file at the same times are the same points. Blender turns the file's axes
// into its own and scales by the file's unit: the rest pose calibrates that (the axis-aligned
// rotation and the scale that fit best), then every posed time must agree within 1e-4 of the
// model's size (keys are compared at their own times, where cubic and linear readings agree).
// The FBX writer's files are read the same way (docs/fbx.md "Writing FBX"), all in one Blender run.
#include <gtest/gtest.h>

#include <set>
#include <nlohmann/json.hpp>

#include <array>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "fbx_write_checks.hpp"
#include "rigport/anim.hpp"
#include "rigport/io.hpp"
#include "rigport/report.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace rigport;
using namespace rigport::test;

namespace {

using P3 = std::array<double, 3>;

bool have_blender() { return std::system("command -v blender > /dev/null 2>&1") == 0; }

// rigport's positions of every mesh: skinned at `time` of `anim`, or as bound (anim < 0).
std::vector<P3> rigport_positions(const Scene& s, int anim, float time) {
    std::vector<P3> out;
    std::vector<Mat4> skinning;
    if (anim >= 0) skinning = skinning_matrices(s.skeleton, sample_pose(s.skeleton, s.animations[size_t(anim)], time));
    for (size_t i = 0; i < s.meshes.size(); ++i) {
        const Mesh& m = s.meshes[i];
        if (anim < 0) {
            for (auto& p : m.positions) out.push_back({p[0], p[1], p[2]});
            continue;
        }
        // glTF's order, as rigport samples: blend shapes first, then the skin.
        const auto morphed = morph_positions(m, sample_morph_weights(m, uint32_t(i), s.animations[size_t(anim)], time));
        for (auto& p : m.skin.empty() ? morphed : skin_positions(m, morphed, skinning)) out.push_back(p);
    }
    return out;
}

double size_of(const std::vector<P3>& points) {
    P3 lo{INFINITY, INFINITY, INFINITY}, hi{-INFINITY, -INFINITY, -INFINITY};
    for (auto& p : points)
        for (int k = 0; k < 3; ++k) lo[k] = std::min(lo[k], p[k]), hi[k] = std::max(hi[k], p[k]);
    return std::hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
}

// An axis-aligned rotation (a signed permutation, determinant +1) and a scale.
struct Fit {
    int axis[3] = {0, 1, 2};
    double sign[3] = {1, 1, 1};
    double scale = 1;
    std::vector<P3> apply(const std::vector<P3>& in) const {
        std::vector<P3> out(in.size());
        for (size_t i = 0; i < in.size(); ++i)
            for (int k = 0; k < 3; ++k) out[i][k] = sign[k] * in[i][size_t(axis[k])] * scale;
        return out;
    }
};

std::vector<P3> subsample(const std::vector<P3>& v, size_t n) {
    if (v.size() <= n) return v;
    std::vector<P3> out;
    for (size_t i = 0; i < v.size(); i += v.size() / n) out.push_back(v[i]);
    return out;
}

Fit calibrate(const std::vector<P3>& ours, const std::vector<P3>& blender) {
    Fit best;
    double best_error = INFINITY;
    const double scale = size_of(blender) / size_of(ours);
    const auto few = subsample(ours, 300);
    const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    for (auto& perm : perms)
        for (int signs = 0; signs < 8; ++signs) {
            Fit f;
            for (int k = 0; k < 3; ++k) f.axis[k] = perm[k], f.sign[k] = (signs >> k) & 1 ? -1 : 1;
            f.scale = scale;
            const double e = farthest_point(f.apply(few), blender);
            if (e < best_error) best_error = e, best = f;
        }
    return best;
}

}  // namespace

TEST(FbxBlender, PosedPositionsAgreeWithBlendersImporter) {
    RIGPORT_REQUIRE_CORPUS();
    RIGPORT_SKIP_PEER_IN_SANITIZER_BUILD();
    if (!have_blender()) GTEST_SKIP() << "blender not found: scripts/setup.sh installs it for this test";
    // Blender's importer reads binary FBX only.
    const char* names[] = {"ufbx_ufbx__blender_279_sausage_7400_binary.fbx", "ufbx_ufbx__maya_kenney_character_7700_binary.fbx",
                           "ufbx_ufbx__max_transformed_skin_7500_binary.fbx", "ufbx_ufbx__blender_293_half_skinned_7400_binary.fbx",
                           "ufbx_ufbx__blender_293_barbarian_7400_binary.fbx"};
    const fs::path script = fs::path(RIGPORT_SOURCE_DIR) / "tests" / "blender" / "fbx_oracle.py";
    for (const char* name : names) {
        SCOPED_TRACE(name);
        const fs::path in = corpus_dir() / "fbx" / name;
        if (!fs::exists(in)) continue;
        auto scene = load(in.string());
        ASSERT_TRUE(scene) << scene.error().to_string();
        // The rest pose, then for each animation its first, middle and last key times.
        nlohmann::json request = nlohmann::json::array({{{"stack", nullptr}, {"time", 0}}});
        std::vector<std::pair<int, float>> asked = {{-1, 0.0f}};
        for (size_t a = 0; a < scene->animations.size(); ++a) {
            // Blender keeps the file's times; rigport's clip starts at its window's start.
            const double start = scene->animations[a].source_start;
            std::vector<float> times;
            for (auto& t : scene->animations[a].tracks) times.insert(times.end(), t.times.begin(), t.times.end());
            std::sort(times.begin(), times.end());
            times.erase(std::unique(times.begin(), times.end()), times.end());
            if (times.size() < 2) continue;
            for (float t : {times.front(), times[times.size() / 2], times.back()}) {
                request.push_back({{"stack", scene->animations[a].name}, {"time", start + t}});
                asked.push_back({int(a), t});
            }
        }
        const fs::path dir = temp_dir();
        std::ofstream(dir / "request.json") << request.dump();
        const std::string cmd = "blender -b --factory-startup --python-exit-code 1 -P '" + script.string() + "' -- '" + in.string() + "' '" +
                                (dir / "request.json").string() + "' '" + (dir / "out.json").string() + "' > '" + (dir / "blender.log").string() + "' 2>&1";
        ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
        const auto result = nlohmann::json::parse(std::ifstream(dir / "out.json"));
        ASSERT_EQ(result["positions"].size(), asked.size());
        std::vector<std::vector<P3>> theirs;
        for (auto& frame : result["positions"]) theirs.push_back(frame.get<std::vector<P3>>());
        // Blender's shape key weights at rest are whatever its last evaluation left: a file with
        // blend shapes calibrates on its first posed time instead of the rest pose.
        bool morphs = false;
        for (auto& m : scene->meshes) morphs = morphs || !m.morph_targets.empty();
        const size_t calibration = morphs && asked.size() > 1 ? 1 : 0;
        const auto reference = rigport_positions(*scene, asked[calibration].first, asked[calibration].second);
        const Fit fit = calibrate(reference, theirs[calibration]);
        const double size = size_of(theirs[calibration]);
        if (calibration == 0) {
            const double rest_error = point_set_distance(fit.apply(reference), theirs[0]);
            EXPECT_LE(rest_error, 1e-4 * size) << "rest pose";
            std::cout << "[ note ] " << name << ": scale " << fit.scale << ", rest pose off by " << rest_error / size << " of the size " << size << "\n";
        }
        for (size_t i = 1; i < asked.size(); ++i) {
            const auto ours = fit.apply(rigport_positions(*scene, asked[i].first, asked[i].second));
            const double e = point_set_distance(ours, theirs[i]);
            EXPECT_LE(e, 1e-4 * size) << scene->animations[size_t(asked[i].first)].name << " at " << asked[i].second << " s";
            std::cout << "[ note ]   " << scene->animations[size_t(asked[i].first)].name << " at " << asked[i].second << " s: off by " << e / size
                      << " of the size\n";
        }
    }
}

// The FBX writer's files through Blender's importer: the test scene (its blend shape weight as
// Blender plays it, fbx_write_checks.hpp) and the corpus's characters
// (mrfixit, CesiumMan, an MD5 with its animation, Cal3D's cally) written as binary FBX 7.4, all
// imported in one Blender run (tests/blender/fbx_write_oracle.py). Each must give one armature
// with a bone per joint (by name), one action of the armature per clip, its frame range 0 to the
// clip's last key (within 1e-4 s), and the same posed points as rigport's own
// sampling at a key a third and two thirds into each clip, within 1e-4 of the model's size after
// Blender's turn from the file's Y up to its Z up and its scaling by the file's unit.
TEST(FbxBlender, ImportsWrittenFilesAsRigportPosesThem) {
    RIGPORT_SKIP_PEER_IN_SANITIZER_BUILD();
    if (!have_blender()) GTEST_SKIP() << "blender not found: scripts/setup.sh installs it for this test";
    const fs::path dir = temp_dir();
    struct Written {
        std::string name;
        Scene scene;  // as written, in FBX's axes
        std::vector<std::pair<int, float>> asked;
    };
    std::vector<Written> written;
    Scene players = fbx_write_scene_for_players();
    written.push_back({"scene", as_fbx_axes(players), {}});
    if (!corpus_dir().empty()) {
        for (const char* path : {"iqm/mrfixit.iqm", "gltf/CesiumMan.glb", "md5/UnvanquishedAssets_res-weapons_src.dpkdir__rifle_view.md5mesh",
                                 "cal3d/upstream_binary/cally/cally.cfg"}) {
            LoadOptions lo;
            lo.allow_missing = true;  // the corpus has some of cally's meshes
            auto scene = load_model({(corpus_dir() / path).string()}, lo);
            ASSERT_TRUE(scene) << path << ": " << scene.error().to_string();
            written.push_back({fs::path(path).stem().string(), as_fbx_axes(*scene), {}});
        }
    } else {
        std::cout << "[ note ] corpus absent (set RIGPORT_CORPUS): the test scene only\n";
    }
    nlohmann::json request = nlohmann::json::array();
    for (Written& w : written) {
        const fs::path file = dir / (w.name + ".fbx");
        // The scene is already in FBX's axes: the writer leaves it as it is.
        auto st = save(w.scene, file.string());
        ASSERT_TRUE(st) << st.error().to_string();
        nlohmann::json poses = nlohmann::json::array({{{"stack", nullptr}, {"time", 0}}});
        w.asked = {{-1, 0.0f}};
        for (size_t a = 0; a < w.scene.animations.size(); ++a) {
            std::vector<float> times;
            for (auto& t : w.scene.animations[a].tracks) times.insert(times.end(), t.times.begin(), t.times.end());
            for (auto& t : w.scene.animations[a].morph_tracks) times.insert(times.end(), t.times.begin(), t.times.end());
            std::sort(times.begin(), times.end());
            times.erase(std::unique(times.begin(), times.end()), times.end());
            if (times.empty()) continue;
            for (float t : {times[times.size() / 3], times[2 * times.size() / 3]}) {
                poses.push_back({{"stack", w.scene.animations[a].name}, {"time", t}});
                w.asked.push_back({int(a), t});
            }
        }
        nlohmann::json stacks = nlohmann::json::array();
        for (const Animation& a : w.scene.animations) stacks.push_back(a.name);
        request.push_back({{"file", file.string()}, {"stacks", stacks}, {"poses", poses}});
    }
    std::ofstream(dir / "request.json") << request.dump();
    const fs::path script = fs::path(RIGPORT_SOURCE_DIR) / "tests" / "blender" / "fbx_write_oracle.py";
    const std::string cmd = "blender -b --factory-startup --python-exit-code 1 -P '" + script.string() + "' -- '" + (dir / "request.json").string() +
                            "' '" + (dir / "out.json").string() + "' > '" + (dir / "blender.log").string() + "' 2>&1";
    if (std::system(cmd.c_str()) != 0) {
        std::stringstream log;
        log << std::ifstream(dir / "blender.log").rdbuf();
        FAIL() << cmd << "\n" << log.str();
    }
    const auto result = nlohmann::json::parse(std::ifstream(dir / "out.json"));
    ASSERT_EQ(result.size(), written.size());
    for (size_t f = 0; f < written.size(); ++f) {
        const Written& w = written[f];
        const auto& r = result[f];
        SCOPED_TRACE(w.name);
        // One armature, a bone per joint.
        ASSERT_EQ(r["armatures"].size(), 1u) << r["armatures"].dump();
        const std::string armature = r["armatures"][0]["name"].get<std::string>();
        std::vector<std::string> bones = r["armatures"][0]["bones"].get<std::vector<std::string>>(), joints;
        for (auto& j : w.scene.skeleton.joints) joints.push_back(j.name);
        std::sort(bones.begin(), bones.end());
        std::sort(joints.begin(), joints.end());
        EXPECT_EQ(bones, joints);
        // When some clip moves a joint, every clip keys every moved joint (at the bind pose where
        // it does not move it), so every clip has an action of the armature, its frame range
        // from 0 (the bind keys) to the clip's last key.
        const double fps = r["fps"].get<double>();
        size_t armature_actions = 0;
        for (auto& a : r["actions"]) armature_actions += a.get<std::string>().rfind(armature + "|", 0) == 0;
        const bool moves = std::any_of(w.scene.animations.begin(), w.scene.animations.end(), [](const Animation& a) { return !a.tracks.empty(); });
        const size_t clips_with_joints = moves ? w.scene.animations.size() : 0;
        ASSERT_EQ(r["stacks"].size(), w.scene.animations.size());
        for (size_t a = 0; a < w.scene.animations.size() && moves; ++a) {
            const Animation& anim = w.scene.animations[a];
            const auto& stack = r["stacks"][a];
            EXPECT_FALSE(stack["action"].is_null()) << "no action of " << armature << " for '" << anim.name << "': " << r["actions"].dump();
            if (stack["action"].is_null()) continue;
            // From the first key, or 0 where the clip leaves a moved joint's channel at the bind key.
            float first = INFINITY, last = 0;
            std::set<std::pair<uint32_t, int>> keyed, moved;
            for (auto& t : anim.tracks)
                if (!t.times.empty()) first = std::min(first, t.times.front()), last = std::max(last, t.times.back()), keyed.insert({t.joint, int(t.channel)});
            for (const Animation& other : w.scene.animations)
                for (auto& t : other.tracks)
                    for (int ch = 0; ch < 3; ++ch) moved.insert({t.joint, ch});
            if (keyed != moved) first = 0;
            EXPECT_NEAR(stack["start"].get<double>() / fps, first, 1e-4) << anim.name;
            if (!anim.tracks.empty()) EXPECT_NEAR(stack["end"].get<double>() / fps, last, 1e-4) << anim.name;
        }
        EXPECT_EQ(armature_actions, clips_with_joints) << r["actions"].dump();
        // Posed points, through the axes and unit Blender's importer applies to what the writer
        // declares (GlobalSettings: Y up, +Z front, +X right, UnitScaleFactor): Blender's
        // (x, y, z) = (x, -z, y) x the unit in metres. Not fitted: the sample's rest shape is
        // turned into itself by several axis swaps, which would hide a wrong one.
        std::vector<std::vector<P3>> theirs;
        for (auto& frame : r["positions"]) theirs.push_back(frame.get<std::vector<P3>>());
        ASSERT_EQ(theirs.size(), w.asked.size());
        Fit fit;
        fit.axis[1] = 2, fit.axis[2] = 1, fit.sign[1] = -1;
        fit.scale = w.scene.meta.unit_scale;
        const double size = size_of(theirs[0]);
        double worst = 0;
        for (size_t i = 0; i < w.asked.size(); ++i) {
            const double e = point_set_distance(fit.apply(rigport_positions(w.scene, w.asked[i].first, w.asked[i].second)), theirs[i]);
            EXPECT_LE(e, 1e-4 * size) << (w.asked[i].first < 0 ? std::string("rest") : w.scene.animations[size_t(w.asked[i].first)].name) << " at "
                                      << w.asked[i].second << " s";
            worst = std::max(worst, e / size);
        }
        std::cout << "[ note ] " << w.name << ": Blender " << bones.size() << " bones, " << armature_actions << " armature actions of "
                  << r["actions"].size() << ", " << w.asked.size() << " poses, scale " << fit.scale << ", off by up to " << worst << " of the size "
                  << size << "\n";
    }
}
