// ufbx as an oracle for the FBX tests (docs/fbx.md "Checked against ufbx"): runs
// tests/oracles/ufbx_probe.c on a file and reads its JSON (unit, stacks, world positions at rest
// and at 1/3 and 2/3 of each stack's window); rigport's positions to compare with, as point sets.
#pragma once

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "rigport/anim.hpp"
#include "rigport/scene.hpp"
#include "test_support.hpp"

namespace rigport::test::ufbx_oracle {

namespace fs = std::filesystem;
using P3 = std::array<double, 3>;

// Positions agree within this fraction of the model's size (ufbx computes in double, rigport
// keeps float positions and keys).
constexpr double position_tolerance = 1e-4;

struct UfbxPose {
    int stack = -1;  // -1: rest
    double time = 0;
    std::vector<P3> positions;
};

struct UfbxStack {
    std::string name;
    double time_begin = 0, time_end = 0;
};

struct UfbxScene {
    std::string error;  // the probe could not load the file
    double unit_meters = 0, original_unit_meters = 0;
    double frames_per_second = 0;
    std::vector<UfbxStack> stacks;
    std::vector<UfbxPose> poses;
};

inline std::string ufbx_missing() {
    if (std::string(RIGPORT_UFBX_PROBE).empty()) return RIGPORT_UFBX_MISSING;
    if (!fs::exists(RIGPORT_UFBX_PROBE)) return std::string("ufbx_probe not built at ") + RIGPORT_UFBX_PROBE;
    return {};
}

// Runs the probe on one file (once per file per test run), its output going to `work` (a fresh
// files_dir() when empty, which empties the test's temp_dir(): a test whose file lies there names
// another folder).
inline const UfbxScene& ufbx_read(const fs::path& file, const fs::path& work = {}) {
    static std::map<fs::path, UfbxScene> cache;
    auto found = cache.find(file);
    if (found != cache.end()) return found->second;
    UfbxScene& out = cache[file];
    const fs::path dir = work.empty() ? files_dir() : work;
    const fs::path json = dir / "ufbx.json", err = dir / "ufbx.err";
    const std::string cmd = std::string("'") + RIGPORT_UFBX_PROBE + "' '" + file.string() + "' > '" + json.string() + "' 2> '" + err.string() + "'";
    if (std::system(cmd.c_str()) != 0) {
        std::ifstream in(err);
        std::stringstream text;
        text << in.rdbuf();
        out.error = text.str().empty() ? "ufbx_probe failed" : text.str();
        return out;
    }
    const auto j = nlohmann::json::parse(std::ifstream(json));
    out.unit_meters = j["unit_meters"].get<double>();
    out.original_unit_meters = j["original_unit_meters"].get<double>();
    out.frames_per_second = j["frames_per_second"].get<double>();
    for (auto& s : j["stacks"]) out.stacks.push_back({s["name"].get<std::string>(), s["time_begin"].get<double>(), s["time_end"].get<double>()});
    for (auto& p : j["poses"]) out.poses.push_back({p["stack"].get<int>(), p["time"].get<double>(), p["positions"].get<std::vector<P3>>()});
    return out;
}

// rigport's world-space positions in metres: every mesh's vertices as bound (anim < 0), or with
// blend shapes at their sampled weights and then skinned at `time` of `anim` (glTF's order, as
// rigport samples).
inline std::vector<P3> rigport_positions(const Scene& s, int anim, double time) {
    std::vector<P3> out;
    std::vector<Mat4> skinning;
    if (anim >= 0) skinning = skinning_matrices(s.skeleton, sample_pose(s.skeleton, s.animations[size_t(anim)], float(time)));
    for (size_t i = 0; i < s.meshes.size(); ++i) {
        const Mesh& m = s.meshes[i];
        if (anim < 0) {
            for (auto& p : m.positions) out.push_back({p[0], p[1], p[2]});
            continue;
        }
        const auto morphed = morph_positions(m, sample_morph_weights(m, uint32_t(i), s.animations[size_t(anim)], float(time)));
        for (auto& p : m.skin.empty() ? morphed : skin_positions(m, morphed, skinning)) out.push_back(p);
    }
    const double unit = s.meta.unit_scale;
    for (auto& p : out)
        for (auto& c : p) c *= unit;
    return out;
}

inline double diagonal(const std::vector<P3>& points) {
    P3 lo{INFINITY, INFINITY, INFINITY}, hi{-INFINITY, -INFINITY, -INFINITY};
    for (auto& p : points)
        for (int k = 0; k < 3; ++k) lo[k] = std::min(lo[k], p[k]), hi[k] = std::max(hi[k], p[k]);
    return points.empty() ? 0.0 : std::hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
}

inline double distance(const P3& a, const P3& b) { return std::hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]); }

inline std::string str(const P3& p) {
    char text[96];
    std::snprintf(text, sizeof text, "(%.6g, %.6g, %.6g)", p[0], p[1], p[2]);
    return text;
}

// The first point of `a` (in its order) farther than `tolerance` from every point of `b`, as a
// message naming it and its nearest point; empty when there is none. `largest` gets the largest
// such nearest distance over all of `a`.
inline std::string first_unmatched(const std::vector<P3>& a, const char* a_name, const std::vector<P3>& b, const char* b_name, double tolerance,
                            double& largest) {
    std::string first;
    for (size_t i = 0; i < a.size(); ++i) {
        double best = INFINITY;
        size_t nearest = 0;
        for (size_t k = 0; k < b.size(); ++k) {
            const double d = distance(a[i], b[k]);
            if (d < best) best = d, nearest = k;
        }
        largest = std::max(largest, best);
        if (best > tolerance && first.empty())
            first = std::string(a_name) + " vertex " + std::to_string(i) + " " + str(a[i]) + ": nearest " + b_name + " point " +
                    (b.empty() ? std::string("(none)") : std::to_string(nearest) + " " + str(b[nearest])) + " is " + std::to_string(best) +
                    " m away";
    }
    return first;
}

// Compares two point sets both ways; adds a failure naming the first vertex that differs. The
// largest distance found, as a fraction of size.
inline double compare_points(const std::vector<P3>& ours, const std::vector<P3>& theirs, double size, const std::string& where) {
    const double tolerance = position_tolerance * size;
    double largest = 0;
    const std::string a = first_unmatched(ours, "rigport", theirs, "ufbx", tolerance, largest);
    const std::string b = first_unmatched(theirs, "ufbx", ours, "rigport", tolerance, largest);
    EXPECT_TRUE(a.empty()) << where << ": " << a << " (tolerance " << tolerance << " m = " << position_tolerance << " of the size " << size << " m)";
    EXPECT_TRUE(b.empty()) << where << ": " << b << " (tolerance " << tolerance << " m = " << position_tolerance << " of the size " << size << " m)";
    return size > 0 ? largest / size : largest;
}

}  // namespace rigport::test::ufbx_oracle
