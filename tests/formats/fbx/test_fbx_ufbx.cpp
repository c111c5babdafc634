// The FBX reader against ufbx (docs/fbx.md, "Checked against ufbx"): tests/oracles/ufbx_probe.c
// loads each corpus FBX with ufbx in metres, Y up, right-handed, and prints its unit, its
// animation stacks' windows and every mesh's world-space positions at rest and at 1/3 and 2/3 of
// each stack's window. rigport's reading of the same file, turned Y up (convert_to_y_up) and
// scaled to metres (meta.unit_scale), must give the same unit, the same clip windows and the same
// points. Positions are compared as point sets (the readers split and order vertices differently):
// every rigport vertex has a ufbx point within 1e-4 of the model's size (the diagonal of ufbx's
// rest-pose bounding box) and every ufbx point a rigport vertex. Files rigport refuses as
// Unsupported (FBX 5.x) are listed and skipped; a file both read must agree.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cmath>
#include <limits>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "rigport/anim.hpp"
#include "rigport/io.hpp"
#include "rigport/process.hpp"
#include "test_support.hpp"
#include "ufbx_oracle.hpp"

namespace fs = std::filesystem;
using namespace rigport;
using namespace rigport::test;
using namespace rigport::test::ufbx_oracle;

namespace {

// Tolerances. Positions: ufbx_oracle::position_tolerance, 1e-4 of the model's size (ufbx computes
// in double, rigport keeps float positions and keys). Units: relative 1e-6 (rigport keeps metres per unit as a float). Clip
// durations: 1e-4 s, or two float steps of the duration where that is more (key times are float
// seconds: a 333,333 s window is exact only to 0.03 s).
constexpr double unit_tolerance = 1e-6;
constexpr double duration_tolerance = 1e-4;

std::vector<fs::path> corpus_fbx() {
    std::vector<fs::path> files;
    for (const char* sub : {"fbx", "fbx-cases"})
        if (fs::is_directory(corpus_dir() / sub))
            for (auto& e : fs::directory_iterator(corpus_dir() / sub)) {
                std::string ext = e.path().extension().string();
                for (auto& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
                if (ext == ".fbx") files.push_back(e.path());
            }
    std::sort(files.begin(), files.end());
    return files;
}

// rigport's scene turned Y up (the skeleton and keys with it, so skinning stays consistent).
Scene y_up(Scene scene) {
    convert_to_y_up(scene);
    return scene;
}

// Reading options for the posed comparison. Between its samples rigport interpolates keys
// linearly (slerp for rotations) where FBX curves may be cubic or Euler (docs/fbx.md §2.6), so
// poses are compared where rigport has samples: the probe's times fall on the file's frames, and
// rigport resamples every curve (LoadOptions::resample_curves) at the frame rate, or more sparsely
// when a window would need more than max_samples frames (a curve whose keys lie days apart then
// differs from its chords by far less than the tolerance).
constexpr double max_samples = 4096;

LoadOptions posed_options(const UfbxScene& u) {
    LoadOptions options;
    double window = 0;
    for (auto& s : u.stacks) window = std::max(window, s.time_end - s.time_begin);
    double rate = u.frames_per_second > 0 ? u.frames_per_second : 30.0;
    if (window * rate > max_samples) rate = max_samples / window;
    options.resample_curves = true;
    options.resample_rate = float(rate);
    return options;
}

// A file both read: rigport's default reading and its resampled one (both Y up), and ufbx's.
struct Read {
    fs::path file;
    Scene scene, posed;
    const UfbxScene* ufbx = nullptr;
};

std::vector<Read> read_both(std::vector<std::string>& refused, std::vector<std::string>& ufbx_refused) {
    std::vector<Read> out;
    for (const fs::path& file : corpus_fbx()) {
        const UfbxScene& theirs = ufbx_read(file);
        auto ours = load(file.string());
        if (!ours) {
            // Only a version rigport does not read yet is skipped; any other error is a failure.
            EXPECT_EQ(ours.error().code, ErrorCode::Unsupported) << ours.error().to_string();
            refused.push_back(file.filename().string() + " (" + ours.error().to_string() + ")");
            continue;
        }
        if (!theirs.error.empty()) {
            ufbx_refused.push_back(file.filename().string() + " (" + theirs.error + ")");
            continue;
        }
        auto posed = load(file.string(), posed_options(theirs));
        EXPECT_TRUE(posed) << file.filename().string() << " resampled: " << posed.error().to_string();
        if (!posed) continue;
        out.push_back({file, y_up(std::move(*ours)), y_up(std::move(*posed)), &theirs});
    }
    return out;
}

void print_refused(const std::vector<std::string>& refused, const std::vector<std::string>& ufbx_refused) {
    for (auto& r : refused) std::cout << "[ skip ] rigport refuses " << r << "\n";
    for (auto& r : ufbx_refused) std::cout << "[ skip ] ufbx refuses " << r << "\n";
}

}  // namespace

// The unit and the bind pose: rigport's meta.unit_scale is ufbx's unit_meters, and rigport's
// meshes as bound, in metres and Y up, are ufbx's bind-pose points (blend shapes off).
TEST(FbxUfbx, UnitAndRestPoseAgreeWithUfbx) {
    RIGPORT_REQUIRE_CORPUS();
    if (const std::string missing = ufbx_missing(); !missing.empty()) GTEST_SKIP() << "ufbx oracle not available: " << missing;
    std::vector<std::string> refused, ufbx_refused;
    const auto both = read_both(refused, ufbx_refused);
    print_refused(refused, ufbx_refused);
    ASSERT_FALSE(both.empty()) << "no corpus FBX file that both rigport and ufbx read";
    size_t points = 0;
    for (const Read& r : both) {
        const std::string name = r.file.filename().string();
        SCOPED_TRACE(name);
        const UfbxScene& u = *r.ufbx;
        EXPECT_NEAR(r.scene.meta.unit_scale, u.unit_meters, unit_tolerance * u.unit_meters) << "metres per file unit";
        EXPECT_EQ(u.unit_meters, u.original_unit_meters) << "ufbx reports the file's own unit";
        ASSERT_FALSE(u.poses.empty());
        const auto& rest = u.poses.front();
        ASSERT_EQ(rest.stack, -1);
        const double size = diagonal(rest.positions);
        const double off = compare_points(rigport_positions(r.scene, -1, 0), rest.positions, size, name + " at rest");
        points += rest.positions.size();
        std::cout << "[ note ] " << name << ": unit " << r.scene.meta.unit_scale << " m, size " << size << " m, rest pose off by " << off
                  << " of the size\n";
    }
    std::cout << "[ summary ] unit and rest pose: " << both.size() << " files read by both (" << points << " ufbx points), "
              << refused.size() << " refused by rigport, " << ufbx_refused.size() << " by ufbx\n";
}

// The clips: each ufbx stack is a rigport animation of the same name, in the same order, clipped
// to the stack's window and shifted to start at 0 (duration time_end - time_begin), and rigport's
// skinned positions at time t are ufbx's at time_begin + t, at 1/3 and 2/3 of the window. A stack
// rigport leaves out (one without keys, with a warning: docs/fbx.md §2.6) must move nothing: ufbx's
// poses in it are rigport's rest.
TEST(FbxUfbx, ClipWindowsAndPosesAgreeWithUfbx) {
    RIGPORT_REQUIRE_CORPUS();
    if (const std::string missing = ufbx_missing(); !missing.empty()) GTEST_SKIP() << "ufbx oracle not available: " << missing;
    std::vector<std::string> refused, ufbx_refused;
    const auto both = read_both(refused, ufbx_refused);
    print_refused(refused, ufbx_refused);
    ASSERT_FALSE(both.empty()) << "no corpus FBX file that both rigport and ufbx read";
    size_t clips = 0, left_out = 0, poses = 0;
    for (const Read& r : both) {
        const std::string name = r.file.filename().string();
        SCOPED_TRACE(name);
        const UfbxScene& u = *r.ufbx;
        const double size = diagonal(u.poses.front().positions);
        // ufbx stack -> rigport animation (the same in both readings), -1 when rigport left it out.
        std::vector<int> clip_of(u.stacks.size(), -1);
        size_t next = 0;
        for (size_t k = 0; k < u.stacks.size(); ++k) {
            const UfbxStack& stack = u.stacks[k];
            if (next < r.scene.animations.size() && r.scene.animations[next].name == stack.name) {
                const Animation& a = r.scene.animations[next];
                const double span = stack.time_end - stack.time_begin;
                EXPECT_NEAR(a.duration(), span, std::max(duration_tolerance, 2 * double(std::numeric_limits<float>::epsilon()) * std::fabs(span)))
                    << "animation " << next << " '" << stack.name << "': ufbx's window " << stack.time_begin << " - " << stack.time_end << " s";
                ASSERT_LT(next, r.posed.animations.size());
                ASSERT_EQ(r.posed.animations[next].name, stack.name);
                clip_of[k] = int(next++);
                ++clips;
            } else {
                ++left_out;
            }
        }
        EXPECT_EQ(next, r.scene.animations.size()) << "rigport animations without a ufbx stack of their name, in order, from "
                                                   << (next < r.scene.animations.size() ? "'" + r.scene.animations[next].name + "'" : "");
        double worst = 0;
        for (const UfbxPose& pose : u.poses) {
            if (pose.stack < 0) continue;
            const UfbxStack& stack = u.stacks[size_t(pose.stack)];
            const int clip = clip_of[size_t(pose.stack)];
            const double t = pose.time - stack.time_begin;
            const std::string where = name + ": '" + stack.name + "' at " + std::to_string(t) + " s (ufbx " + std::to_string(pose.time) + " s)" +
                                      (clip < 0 ? ", a stack rigport left out" : "");
            worst = std::max(worst, compare_points(rigport_positions(r.posed, clip, t), pose.positions, size, where));
            ++poses;
        }
        std::cout << "[ note ] " << name << ": " << u.stacks.size() << " stacks, posed positions off by up to " << worst << " of the size " << size
                  << " m\n";
    }
    std::cout << "[ summary ] clips: " << both.size() << " files read by both, " << clips << " clips and " << left_out
              << " stacks left out by rigport, " << poses << " poses compared, " << refused.size() << " files refused by rigport, "
              << ufbx_refused.size() << " by ufbx\n";
}
