// The reference `iqm` compiler (lsalzman/iqm, MIT; ../shared/peers/lsalzman-iqm) as an oracle for
// the sources it shares with rigport: MD5, SMD and OBJ. It is built here from its source with the
// system compiler (once per build tree, without rigport's sanitizer flags: its own code is not
// under test), run on corpus files, and its IQM compared with the IQM `rigport convert` writes
// from the same files. Both IQMs are read back by rigport's IQM reader, so the comparison is of
// what the files store: vertex positions (as sets: the two order vertices differently), the
// skeleton's joints and world bind poses, and every animation frame's world joint positions.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "rigport/anim.hpp"
#include "rigport/io.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

namespace fs = std::filesystem;
using Point = std::array<double, 3>;

fs::path reference_source() {
    if (const char* env = std::getenv("RIGPORT_PEERS"); env && *env) return fs::path(env) / "lsalzman-iqm";
    const fs::path corpus = corpus_dir();
    return corpus.empty() ? fs::path() : corpus.parent_path() / "peers" / "lsalzman-iqm";
}

// The compiler binary, built on first use into the build tree (an atomic rename, so parallel test
// processes never see half a binary); empty when its source or a C++ compiler is missing.
std::string reference_compiler() {
    const fs::path source = reference_source() / "iqm.cpp";
    if (source.empty() || !fs::exists(source)) return {};
    const fs::path binary = fs::path(RIGPORT_BINARY_DIR) / "iqm_reference";
    if (fs::exists(binary) && fs::last_write_time(binary) >= fs::last_write_time(source)) return binary.string();
    const fs::path partial = binary.string() + ".tmp" + std::to_string(::getpid());
    const std::string cmd = "c++ -O1 -w -o '" + partial.string() + "' '" + source.string() + "' >/dev/null 2>&1";
    if (std::system(cmd.c_str()) != 0) return {};
    fs::rename(partial, binary);
    return binary.string();
}

#define RIGPORT_REQUIRE_REFERENCE_COMPILER(path)                                                              \
    const std::string path = reference_compiler();                                                            \
    if (path.empty())                                                                                         \
        GTEST_SKIP() << "reference compiler not available: needs ../shared/peers/lsalzman-iqm/iqm.cpp (or "   \
                        "$RIGPORT_PEERS) and c++";

std::vector<Point> positions(const Scene& s) {
    std::vector<Point> out;
    for (auto& m : s.meshes)
        for (auto& p : m.positions) out.push_back({p[0], p[1], p[2]});
    return out;
}

double extent(const std::vector<Point>& points) {
    Point lo{INFINITY, INFINITY, INFINITY}, hi{-INFINITY, -INFINITY, -INFINITY};
    for (auto& p : points)
        for (int k = 0; k < 3; ++k) lo[k] = std::min(lo[k], p[k]), hi[k] = std::max(hi[k], p[k]);
    return points.empty() ? 0 : std::hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
}

// The largest distance from a point of `a` to its nearest point of `b` (brute force: the corpus
// models have at most a few thousand vertices).
double one_way(const std::vector<Point>& a, const std::vector<Point>& b) {
    double worst = 0;
    for (auto& p : a) {
        double best = INFINITY;
        for (auto& q : b) best = std::min(best, std::hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]));
        worst = std::max(worst, best);
    }
    return worst;
}

Point origin_of(const Mat4& m) { return {m[3][0], m[3][1], m[3][2]}; }

struct Case {
    const char* name;
    const char* sub;
    std::vector<std::string> files;  // the mesh first, then its animation files
    // OBJ (Y up) into IQM's Z up: the reference compiler cycles the axes, (x,y,z) -> (z,x,y);
    // rigport turns the model with the proper rotation (x,y,z) -> (x,-z,y) (docs/obj.md), so
    // rigport's point is the reference's (a,b,c) -> (b,-a,c): a quarter turn about Z.
    bool reference_axis_cycle = false;
};

class ReferenceCompiler : public ::testing::TestWithParam<Case> {};

TEST_P(ReferenceCompiler, SameGeometrySkeletonAndFrames) {
    RIGPORT_REQUIRE_CORPUS();
    RIGPORT_REQUIRE_REFERENCE_COMPILER(iqm);
    const Case& c = GetParam();
    std::vector<std::string> inputs;
    for (auto& f : c.files) inputs.push_back((corpus_dir() / c.sub / f).string());
    for (auto& f : inputs)
        if (!fs::exists(f)) GTEST_SKIP() << f << " is not in the corpus";
    const fs::path dir = files_dir();
    const fs::path theirs = dir / "reference.iqm", ours = dir / "rigport.iqm";
    RunResult ref = run_program(iqm, [&] {
        std::vector<std::string> args{theirs.string()};
        args.insert(args.end(), inputs.begin(), inputs.end());
        return args;
    }());
    ASSERT_TRUE(fs::exists(theirs)) << "the reference compiler failed: " << ref.out << ref.err;
    std::vector<std::string> args{"convert"};
    args.insert(args.end(), inputs.begin(), inputs.end());
    args.insert(args.end(), {"-o", ours.string(), "-q"});
    RunResult r = run_cli(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto a = load(theirs.string()), b = load(ours.string());
    ASSERT_TRUE(a) << a.error().to_string();
    ASSERT_TRUE(b) << b.error().to_string();

    // Geometry: every vertex of each file lies on one of the other's (the writers order and weld
    // vertices each their own way), within 1e-5 of the model's size.
    auto pa = positions(*a);
    const auto pb = positions(*b);
    if (c.reference_axis_cycle)
        for (auto& p : pa) p = {p[1], -p[0], p[2]};
    const double size = extent(pa), tolerance = 1e-5 * std::max(size, 1.0);
    const double worst = std::max(one_way(pa, pb), one_way(pb, pa));
    EXPECT_LE(worst, tolerance) << "vertex positions differ by up to " << worst;
    std::cout << "[ measured ] " << c.name << ": " << pa.size() << " / " << pb.size() << " vertices, " << a->triangle_count()
              << " / " << b->triangle_count() << " triangles (reference / rigport), positions within " << worst << " (size "
              << size << ")\n";

    // Skeleton: the same joints in the same order, bind poses equal in world space.
    ASSERT_EQ(a->skeleton.joints.size(), b->skeleton.joints.size());
    for (size_t j = 0; j < a->skeleton.joints.size(); ++j) {
        EXPECT_EQ(a->skeleton.joints[j].name, b->skeleton.joints[j].name);
        EXPECT_EQ(a->skeleton.joints[j].parent, b->skeleton.joints[j].parent);
    }
    const auto wa = world_matrices(a->skeleton, bind_pose(a->skeleton)), wb = world_matrices(b->skeleton, bind_pose(b->skeleton));
    for (size_t j = 0; j < wa.size(); ++j)
        for (int col = 0; col < 4; ++col)
            for (int row = 0; row < 3; ++row)
                EXPECT_NEAR(wa[j][col][row], wb[j][col][row], col == 3 ? tolerance : 1e-4) << "joint " << j << " bind";

    // Animations: the same frame count, every frame's world joint positions within tolerance plus
    // the 16-bit quantization both files store (a 65535th of each channel's range).
    ASSERT_EQ(a->animations.size(), b->animations.size());
    for (size_t n = 0; n < a->animations.size(); ++n) {
        const Animation &x = a->animations[n], &y = b->animations[n];
        ASSERT_EQ(x.frame_count, y.frame_count) << "animation " << n;
        double frame_worst = 0;
        for (uint32_t f = 0; f < x.frame_count; ++f) {
            const auto fa = world_matrices(a->skeleton, frame_pose(a->skeleton, x, f));
            const auto fb = world_matrices(b->skeleton, frame_pose(b->skeleton, y, f));
            for (size_t j = 0; j < fa.size(); ++j) {
                const Point p = origin_of(fa[j]), q = origin_of(fb[j]);
                frame_worst = std::max(frame_worst, std::hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]));
            }
        }
        EXPECT_LE(frame_worst, 1e-3 * std::max(size, 1.0)) << "animation " << n;
        std::cout << "[ measured ] " << c.name << ": animation '" << y.name << "' " << x.frame_count
                  << " frames, world joint positions within " << frame_worst << "\n";
    }
}

INSTANTIATE_TEST_SUITE_P(
    Sources, ReferenceCompiler,
    ::testing::Values(Case{"md5_rifle_view_fire", "md5",
                           {"UnvanquishedAssets_res-weapons_src.dpkdir__rifle_view.md5mesh",
                            "UnvanquishedAssets_res-weapons_src.dpkdir__rifle_view_fire.md5anim"}},
                      Case{"md5_grenade", "md5", {"UnvanquishedAssets_res-weapons_src.dpkdir__grenade.md5mesh"}},
                      Case{"md5_SimpleCube", "md5", {"assimp_assimp__SimpleCube.md5mesh"}},
                      Case{"smd_holy_grailref", "smd", {"assimp_assimp__holy_grailref.smd"}},
                      Case{"smd_Cube_Armature", "smd", {"Artfunkel_BlenderSourceTools__Cube_Armature_Cube.smd"}},
                      Case{"obj_spider", "obj", {"assimp_assimp__spider.obj"}, true},
                      Case{"obj_maya_cube", "obj", {"ufbx_ufbx__maya_cube.obj"}, true}),
    [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace rigport::test
