// FBX animation and skinning against an independent reader: Blender's own FBX importer (Debian's
// blender 3.4, headless; binary 7.x files) poses each file at key times, and rigport's skinned
// positions of the same file at the same times are the same points. Blender turns the file's axes
// into its own and scales by the file's unit: the rest pose calibrates that (the axis-aligned
// rotation and the scale that fit best), then every posed time must agree within 1e-4 of the
// model's size (keys are compared at their own times, where cubic and linear readings agree).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cmath>
#include <cstdlib>
#include <fstream>

#include "rigport/anim.hpp"
#include "rigport/io.hpp"
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
