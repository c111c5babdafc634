// Round trips through the glTF 2.0 reader (docs/gltf.md §8), judged against references:
//  * IQM / IQE -> glTF -> IQM keeps the original IQM's geometry to float precision and its
//    animation within one quantization step (the axis fix is an exact permutation both ways);
//  * glTF -> IQM -> glTF is skinned by three.js like the original file;
//  * glTF -> IQM (`rigport convert`) validates, and rigport's own sampler on that IQM matches
//    three.js's evaluation of the original glTF (the "done means" check).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <sstream>
#include <string>

#include "formats/gltf/gltf_parse.hpp"
#include "formats/iqm/iqm.hpp"
#include "gltf_oracle.hpp"
#include "rigport/anim.hpp"
#include "rigport/compile.hpp"
#include "rigport/formats.hpp"
#include "rigport/io.hpp"
#include "rigport/sample.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using Point = std::array<double, 3>;

std::string test_name(std::string name) {
    for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return name;
}

// Collects mismatches of one kind: counts them and keeps the first few messages, so a broken
// round trip reports "1861 of 1861 positions differ, first: ..." instead of 1861 failures.
class Mismatches {
public:
    explicit Mismatches(std::string what) : what_(std::move(what)) {}
    void check(bool ok, const std::string& message) {
        ++checked_;
        if (ok) return;
        if (bad_++ < 5) first_ += "\n    " + message;
    }
    template <class F>
        requires std::invocable<F>
    void check(bool ok, F&& message) {
        ++checked_;
        if (ok) return;
        if (bad_++ < 5) first_ += "\n    " + message();
    }
    ~Mismatches() { EXPECT_EQ(bad_, 0u) << bad_ << " of " << checked_ << " " << what_ << " differ; first:" << first_; }

private:
    std::string what_, first_;
    uint64_t checked_ = 0, bad_ = 0;
};

template <size_t N>
std::string text(const std::array<float, N>& v) {
    std::ostringstream s;
    s.precision(9);
    s << "(";
    for (size_t i = 0; i < N; ++i) s << (i ? ", " : "") << v[i];
    return s.str() + ")";
}

// Equal to float precision: every component within 1e-6 of the vectors' largest magnitude (a
// zero component next to a large one may carry the large one's rounding).
template <size_t N>
bool close(const std::array<float, N>& a, const std::array<float, N>& b, double relative = 1e-6) {
    double scale = 0;
    for (size_t i = 0; i < N; ++i) scale = std::max({scale, std::fabs(double(a[i])), std::fabs(double(b[i]))});
    for (size_t i = 0; i < N; ++i)
        if (!(std::fabs(double(a[i]) - double(b[i])) <= relative * scale)) return false;
    return true;
}

// ---------------------------------------------------------------------------------------------
// IQM / IQE -> glTF -> IQM
// ---------------------------------------------------------------------------------------------

struct LegacyModel {
    std::string name;  // test name suffix
    std::string sub;   // "iqm", "iqe"; empty for the built-in sample
    std::string file;
};

void PrintTo(const LegacyModel& m, std::ostream* os) { *os << m.name; }

std::vector<LegacyModel> legacy_models() {
    std::vector<LegacyModel> out{{"sample", "", "sample.iqm"}};
    for (const char* sub : {"iqm", "iqe"})
        for (const fs::path& p : corpus_files(sub, std::string(".") + sub))
            out.push_back({test_name(std::string(sub) + "_" + p.stem().string()), sub, p.filename().string()});
    return out;
}

// The original as IQM bytes: the corpus IQM itself; an IQE compiled the way `rigport convert
// X.iqe -o X.iqm` does (default pipeline, four influences); the sample through the IQM writer.
std::vector<uint8_t> original_iqm(const LegacyModel& m) {
    if (m.sub.empty()) {
        auto bytes = save_bytes(make_sample_scene(), "sample.iqm");
        EXPECT_TRUE(bytes) << bytes.error().to_string();
        return bytes ? *bytes : std::vector<uint8_t>{};
    }
    const fs::path path = corpus_dir() / m.sub / m.file;
    if (m.sub == "iqm") return read_bytes(path);
    CompileInput input;
    input.paths.push_back(path.string());
    CompileOptions options = compiler_options(*find_format("iqm"));
    auto scene = compile({input}, options);
    EXPECT_TRUE(scene) << scene.error().to_string();
    if (!scene) return {};
    auto bytes = save_bytes(*scene, "compiled.iqm");
    EXPECT_TRUE(bytes) << bytes.error().to_string();
    return bytes ? *bytes : std::vector<uint8_t>{};
}

// For each joint of a, its joint in b: by name, or by index for an animation-only skeleton (no
// names). -1 = missing (a failure is reported). Joints of b nobody maps to must be inert: identity
// bind pose and no tracks (a common root a writer added, kept by the reader).
std::vector<int> map_joints(const Scene& a, const Scene& b) {
    std::vector<int> map(a.skeleton.joints.size(), -1);
    if (a.skeleton.animation_only) {
        EXPECT_EQ(a.skeleton.joints.size(), b.skeleton.joints.size()) << "animation-only skeleton: joints bind by index";
        for (size_t j = 0; j < map.size() && j < b.skeleton.joints.size(); ++j) map[j] = int(j);
        return map;
    }
    std::map<std::string, int> by_name;
    for (size_t j = 0; j < b.skeleton.joints.size(); ++j) by_name.emplace(b.skeleton.joints[j].name, int(j));
    std::vector<bool> used(b.skeleton.joints.size(), false);
    for (size_t j = 0; j < map.size(); ++j) {
        auto it = by_name.find(a.skeleton.joints[j].name);
        EXPECT_TRUE(it != by_name.end()) << "joint " << j << " '" << a.skeleton.joints[j].name << "' is lost";
        if (it == by_name.end()) continue;
        map[j] = it->second;
        used[size_t(it->second)] = true;
    }
    for (size_t k = 0; k < used.size(); ++k) {
        if (used[k]) continue;
        const Transform& t = b.skeleton.joints[k].bind;
        EXPECT_TRUE(close(t.translate, Vec3{0, 0, 0}, 0) && close(t.rotate, Quat{0, 0, 0, 1}, 1e-6) && close(t.scale, Vec3{1, 1, 1}, 1e-6))
            << "extra joint " << k << " '" << b.skeleton.joints[k].name << "' is not an identity: t " << text(t.translate) << " r "
            << text(t.rotate) << " s " << text(t.scale);
        for (const Animation& anim : b.animations)
            for (const JointTrack& track : anim.tracks) EXPECT_NE(track.joint, k) << "extra joint " << k << " is animated";
    }
    return map;
}

// Parents, names and bind poses agree through the joint map (rotations up to sign).
void expect_same_skeleton(const Scene& a, const Scene& b, const std::vector<int>& map) {
    Mismatches bind("bind poses");
    for (size_t j = 0; j < map.size(); ++j) {
        if (map[j] < 0) continue;
        const Joint& x = a.skeleton.joints[j];
        const Joint& y = b.skeleton.joints[size_t(map[j])];
        const int parent = x.parent < 0 ? -1 : map[size_t(x.parent)];
        // A root may gain an inert common parent (checked in map_joints).
        const bool root_gained_parent = x.parent < 0 && y.parent >= 0 && !a.skeleton.animation_only;
        EXPECT_TRUE(y.parent == parent || root_gained_parent)
            << "joint " << j << " '" << x.name << "': parent " << y.parent << ", expected " << parent;
        if (a.skeleton.animation_only) continue;  // no bind pose in the source to compare with
        Quat q = y.bind.rotate;
        if (q[0] * x.bind.rotate[0] + q[1] * x.bind.rotate[1] + q[2] * x.bind.rotate[2] + q[3] * x.bind.rotate[3] < 0)
            for (float& c : q) c = -c;
        bind.check(close(x.bind.translate, y.bind.translate, 1e-6) && close(x.bind.rotate, q, 2e-6) && close(x.bind.scale, y.bind.scale, 1e-6),
                   [&] {
                       return "joint '" + x.name + "': t " + text(x.bind.translate) + " vs " + text(y.bind.translate) + ", r " +
                              text(x.bind.rotate) + " vs " + text(y.bind.rotate) + ", s " + text(x.bind.scale) + " vs " + text(y.bind.scale);
                   });
    }
}

std::string material_name(const Scene& s, const Mesh& m) {
    return m.material >= 0 && size_t(m.material) < s.materials.size() ? s.materials[size_t(m.material)].name : "";
}

// Geometry to float precision: positions, normals, tangents, texcoords, colours and triangles,
// and the same influences (joints through the map, weights to 1e-6).
void expect_same_geometry(const Scene& a, const Scene& b, const std::vector<int>& map) {
    ASSERT_EQ(a.meshes.size(), b.meshes.size());
    for (size_t m = 0; m < a.meshes.size(); ++m) {
        const Mesh& x = a.meshes[m];
        const Mesh& y = b.meshes[m];
        SCOPED_TRACE("mesh " + std::to_string(m) + " '" + x.name + "'");
        EXPECT_EQ(x.name, y.name);
        EXPECT_EQ(material_name(a, x), material_name(b, y));
        ASSERT_EQ(x.vertex_count(), y.vertex_count());
        const size_t n = x.vertex_count();
        {
            Mismatches d("positions");
            for (size_t v = 0; v < n; ++v)
                d.check(close(x.positions[v], y.positions[v]), [&] { return "vertex " + std::to_string(v) + ": " + text(x.positions[v]) + " vs " + text(y.positions[v]); });
        }
        EXPECT_EQ(x.normals.size(), y.normals.size());
        if (x.normals.size() == y.normals.size()) {
            Mismatches d("normals");
            for (size_t v = 0; v < x.normals.size(); ++v)
                d.check(close(x.normals[v], y.normals[v]), [&] { return "vertex " + std::to_string(v) + ": " + text(x.normals[v]) + " vs " + text(y.normals[v]); });
        }
        EXPECT_EQ(x.tangents.size(), y.tangents.size());
        if (x.tangents.size() == y.tangents.size()) {
            Mismatches d("tangents");
            for (size_t v = 0; v < x.tangents.size(); ++v)
                d.check(close(x.tangents[v], y.tangents[v]), [&] { return "vertex " + std::to_string(v) + ": " + text(x.tangents[v]) + " vs " + text(y.tangents[v]); });
        }
        ASSERT_EQ(x.texcoords.size(), y.texcoords.size());
        for (size_t s = 0; s < x.texcoords.size(); ++s) {
            Mismatches d("texcoords (set " + std::to_string(s) + ")");
            for (size_t v = 0; v < n; ++v)
                d.check(close(x.texcoords[s][v], y.texcoords[s][v]), [&] { return "vertex " + std::to_string(v) + ": " + text(x.texcoords[s][v]) + " vs " + text(y.texcoords[s][v]); });
        }
        ASSERT_EQ(x.colors.size(), y.colors.size());
        for (size_t s = 0; s < x.colors.size(); ++s) {
            Mismatches d("colours (set " + std::to_string(s) + ")");
            for (size_t v = 0; v < n; ++v)
                d.check(close(x.colors[s][v], y.colors[s][v]), [&] { return "vertex " + std::to_string(v) + ": " + text(x.colors[s][v]) + " vs " + text(y.colors[s][v]); });
        }
        ASSERT_EQ(x.triangles.size(), y.triangles.size());
        {
            Mismatches d("triangles");
            for (size_t t = 0; t < x.triangles.size(); ++t)
                d.check(x.triangles[t] == y.triangles[t], [&] {
                    const auto &p = x.triangles[t], &q = y.triangles[t];
                    return "triangle " + std::to_string(t) + ": " + std::to_string(p[0]) + " " + std::to_string(p[1]) + " " + std::to_string(p[2]) + " vs " +
                           std::to_string(q[0]) + " " + std::to_string(q[1]) + " " + std::to_string(q[2]);
                });
        }
        EXPECT_EQ(x.skin.empty(), y.skin.empty());
        if (x.skin.empty() || y.skin.empty()) continue;
        Mismatches d("influence sets");
        for (uint32_t v = 0; v < n; ++v) {
            std::vector<std::pair<int, float>> p, q;
            for (const Influence* i = x.skin.begin(v); i != x.skin.begin(v) + x.skin.count(v); ++i)
                if (i->weight != 0) p.emplace_back(map[i->joint], i->weight);
            for (const Influence* i = y.skin.begin(v); i != y.skin.begin(v) + y.skin.count(v); ++i)
                if (i->weight != 0) q.emplace_back(int(i->joint), i->weight);
            std::sort(p.begin(), p.end());
            std::sort(q.begin(), q.end());
            bool same = p.size() == q.size();
            for (size_t k = 0; same && k < p.size(); ++k) same = p[k].first == q[k].first && std::fabs(p[k].second - q[k].second) <= 1e-6f;
            d.check(same, [&] {
                std::string s = "vertex " + std::to_string(v) + ":";
                for (auto& [j, w] : p) s += " " + std::to_string(j) + "/" + std::to_string(w);
                s += " vs";
                for (auto& [j, w] : q) s += " " + std::to_string(j) + "/" + std::to_string(w);
                return s;
            });
        }
    }
}

// Every frame of every animation: each joint's 10 channels within one quantization step (pose
// channelscale) plus float rounding; rotations up to sign.
// `back` is the IQM written from the glTF: it quantizes again with its own ranges, which can be
// wider than the source's (the glTF writer aligns quaternion hemispheres between keys, so a
// channel that flipped sign in the source spans more), so the larger of the two steps applies.
void expect_animation_within_one_step(const iqm::IqmFile& source, const iqm::IqmFile& back, const Scene& a, const Scene& b,
                                      const std::vector<int>& map) {
    ASSERT_EQ(a.animations.size(), b.animations.size());
    for (size_t i = 0; i < a.animations.size(); ++i) {
        const Animation& x = a.animations[i];
        const Animation& y = b.animations[i];
        SCOPED_TRACE("animation '" + x.name + "'");
        EXPECT_EQ(x.name, y.name);
        EXPECT_EQ(x.frame_rate, y.frame_rate);
        EXPECT_EQ(x.loop, y.loop);
        ASSERT_EQ(x.frame_count, y.frame_count);
        Mismatches d("joint poses");
        double worst_steps = 0;
        for (uint32_t f = 0; f < x.frame_count; ++f) {
            const auto px = frame_pose(a.skeleton, x, f);
            const auto py = frame_pose(b.skeleton, y, f);
            for (size_t j = 0; j < px.size(); ++j) {
                if (map[j] < 0) continue;
                const Transform& tx = px[j];
                Transform ty = py[size_t(map[j])];
                const float dot = tx.rotate[0] * ty.rotate[0] + tx.rotate[1] * ty.rotate[1] + tx.rotate[2] * ty.rotate[2] + tx.rotate[3] * ty.rotate[3];
                if (dot < 0)
                    for (float& c : ty.rotate) c = -c;
                float vx[10], vy[10];
                for (int k = 0; k < 3; ++k) vx[k] = tx.translate[k], vy[k] = ty.translate[k];
                for (int k = 0; k < 4; ++k) vx[3 + k] = tx.rotate[k], vy[3 + k] = ty.rotate[k];
                for (int k = 0; k < 3; ++k) vx[7 + k] = tx.scale[k], vy[7 + k] = ty.scale[k];
                // A source quaternion off unit length (mrfixit's by up to 2.7e-5) is normalized on the
                // way (glTF rotations are unit quaternions), which moves each component by that much.
                const float norm = std::sqrt(tx.rotate[0] * tx.rotate[0] + tx.rotate[1] * tx.rotate[1] + tx.rotate[2] * tx.rotate[2] +
                                             tx.rotate[3] * tx.rotate[3]);
                float magnitude[10];
                for (int k = 0; k < 10; ++k) {
                    const int from = k < 3 ? 0 : k < 7 ? 3 : 7, to = k < 3 ? 3 : k < 7 ? 7 : 10;
                    magnitude[k] = 0;
                    for (int c = from; c < to; ++c) magnitude[k] = std::max({magnitude[k], std::fabs(vx[c]), std::fabs(vy[c])});
                }
                for (int k = 0; k < 10; ++k) {
                    const size_t jb = size_t(map[j]);
                    const float step = std::max(j < source.poses.size() ? source.poses[j].channelscale[k] : 0.0f,
                                                jb < back.poses.size() ? back.poses[jb].channelscale[k] : 0.0f);
                    const float renormalized = k >= 3 && k < 7 ? std::fabs(vx[k]) * std::fabs(1.0f - norm) / std::max(norm, 1e-6f) : 0.0f;
                    const float tolerance = step * 1.0001f + renormalized + magnitude[k] * 2e-6f + 1e-7f;
                    const float diff = std::fabs(vx[k] - vy[k]);
                    if (step > 0) worst_steps = std::max(worst_steps, double(diff) / step);
                    d.check(diff <= tolerance, [&] {
                        return "frame " + std::to_string(f) + " joint " + std::to_string(j) + " '" + a.skeleton.joints[j].name + "' channel " +
                               std::to_string(k) + ": " + std::to_string(vx[k]) + " vs " + std::to_string(vy[k]) + " (step " + std::to_string(step) + ")";
                    });
                }
            }
        }
        std::cout << "[ measured ] animation '" << x.name << "': worst difference " << worst_steps << " quantization steps\n";
    }
}

class GltfRoundTripLegacy : public ::testing::TestWithParam<LegacyModel> {};

// IQM (or compiled IQE) -> .glb and .gltf (embedded buffer) -> load -> IQM -> load: the second
// IQM holds the first one's geometry, skeleton and animation.
TEST_P(GltfRoundTripLegacy, IqmThroughGltfKeepsGeometryAndAnimation) {
    const LegacyModel& m = GetParam();
    if (!m.sub.empty()) RIGPORT_REQUIRE_CORPUS();
    const std::vector<uint8_t> original = original_iqm(m);
    ASSERT_FALSE(original.empty());
    Warnings parse_warnings;
    auto file = iqm::parse(original, LoadOptions{}, parse_warnings);
    ASSERT_TRUE(file) << file.error().to_string();
    auto a = load_bytes(original, "original.iqm");
    ASSERT_TRUE(a) << a.error().to_string();

    for (const char* ext : {".glb", ".gltf"}) {
        SCOPED_TRACE(ext);
        const std::string gltf_name = "through" + std::string(ext);
        auto gltf = save_bytes(*a, gltf_name);
        ASSERT_TRUE(gltf) << gltf.error().to_string();
        auto b = load_bytes(*gltf, gltf_name);
        ASSERT_TRUE(b) << "rigport cannot read the glTF it wrote: " << b.error().to_string();
        auto st = check_invariants(*b);
        EXPECT_TRUE(st) << (st ? "" : st.error().to_string());
        EXPECT_EQ(b->meta.up, UpAxis::Y);
        EXPECT_EQ(b->meta.front_face, Winding::CounterClockwise);
        Warnings write_warnings;
        SaveOptions save_options;
        save_options.warnings = &write_warnings;
        auto back = save_bytes(*b, "back.iqm", save_options);
        ASSERT_TRUE(back) << back.error().to_string();
        auto c = load_bytes(*back, "back.iqm");
        ASSERT_TRUE(c) << c.error().to_string();
        EXPECT_EQ(c->meta.up, UpAxis::Z);
        Warnings back_warnings;
        auto back_file = iqm::parse(*back, LoadOptions{}, back_warnings);
        ASSERT_TRUE(back_file) << back_file.error().to_string();
        const std::vector<int> map = map_joints(*a, *c);
        expect_same_skeleton(*a, *c, map);
        expect_same_geometry(*a, *c, map);
        expect_animation_within_one_step(*file, *back_file, *a, *c, map);
        if (HasFailure()) {
            const fs::path keep = temp_dir();
            write_bytes(keep / "original.iqm", original);
            write_bytes(keep / gltf_name, *gltf);
            write_bytes(keep / "back.iqm", *back);
            ADD_FAILURE() << "files kept in " << keep;
            return;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Models, GltfRoundTripLegacy, ::testing::ValuesIn(legacy_models()),
                         [](const ::testing::TestParamInfo<LegacyModel>& info) { return info.param.name; });

// ---------------------------------------------------------------------------------------------
// glTF -> IQM (-> glTF), judged by three.js on the original glTF
// ---------------------------------------------------------------------------------------------

struct GltfModel {
    std::string file;
    bool morphs = false;  // morph targets: IQM cannot hold them (the writer warns and drops them)
};

void PrintTo(const GltfModel& m, std::ostream* os) { *os << m.file; }

// corpus/gltf, as measured from the files (morph targets: SimpleMorph, AnimatedMorphCube).
std::vector<GltfModel> gltf_models() {
    return {{"AnimatedTriangle.gltf"}, {"SimpleSkin.gltf"}, {"SimpleMorph.gltf", true}, {"RiggedSimple.gltf"}, {"BoxAnimated.glb"},
            {"AnimatedMorphCube.glb", true}, {"RiggedFigure.glb"}, {"CesiumMan.glb"}, {"greenman.glb"}};
}


std::string describe(const SkinRequest& r) {
    return r.animation < 0 ? std::string("bind pose") : "animation " + std::to_string(r.animation) + " t=" + std::to_string(r.time);
}


// The original file's primitives in the order the reader makes meshes of them: nodes in pre-order
// from the parentless nodes in index order (children in their listed order), each node's mesh's
// primitives in order (gltf_read_place.cpp). Every corpus node is in the scene.
std::vector<std::pair<int, int>> primitive_order(const fs::path& file) {
    const json j = file_json(file);
    std::vector<std::pair<int, int>> out;
    if (!j.is_object()) return out;
    const json nodes = j.value("nodes", json::array());
    std::vector<bool> child(nodes.size(), false);
    for (const auto& n : nodes)
        for (const auto& c : n.value("children", json::array())) child[c.get<size_t>()] = true;
    std::function<void(size_t)> visit = [&](size_t n) {
        if (nodes[n].contains("mesh")) {
            const size_t m = nodes[n]["mesh"];
            for (size_t p = 0; p < j["meshes"][m]["primitives"].size(); ++p) out.emplace_back(int(m), int(p));
        }
        for (const auto& c : nodes[n].value("children", json::array())) visit(c.get<size_t>());
    };
    for (size_t n = 0; n < nodes.size(); ++n)
        if (!child[n]) visit(n);
    return out;
}

double diagonal_of(const ThreeSkinning& three) {
    Point lo{INFINITY, INFINITY, INFINITY}, hi{-INFINITY, -INFINITY, -INFINITY};
    for (const ThreeMesh& m : three.meshes)
        if (!m.frames.empty())
            for (const Point& p : m.frames.front().positions)
                for (int k = 0; k < 3; ++k) lo[k] = std::min(lo[k], p[k]), hi[k] = std::max(hi[k], p[k]);
    return lo[0] > hi[0] ? 0 : std::hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
}

// Largest distance between two position lists of one request (NaN counts as the worst).
double worst_distance(const std::vector<Point>& got, const std::vector<Point>& expected, size_t& worst_vertex) {
    double worst = 0;
    worst_vertex = 0;
    for (size_t v = 0; v < expected.size() && v < got.size(); ++v) {
        const double d = std::hypot(got[v][0] - expected[v][0], got[v][1] - expected[v][1], got[v][2] - expected[v][2]);
        if (!(d <= worst)) worst = d, worst_vertex = v;
    }
    return worst;
}

// `rigport convert IN -o OUT`; the run's result (stderr carries the warnings).
RunResult convert(const fs::path& in, const fs::path& out) {
    RunResult r = run_cli({"convert", in.string(), "-o", out.string()});
    EXPECT_EQ(r.exit_code, 0) << "rigport convert " << in << " -o " << out << ": " << r.err;
    return r;
}

// `rigport validate FILE --json`: exit 0 and no Error findings.
void expect_validates(const fs::path& file) {
    RunResult r = run_cli({"validate", "--json", file.string()});
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    const json report = json::parse(r.out, nullptr, false);
    ASSERT_TRUE(report.is_object()) << r.out << r.err;
    EXPECT_EQ(report["errors"].get<int>(), 0) << report.dump(2);
}

// rigport's own evaluation of a scene at a request, per mesh, with the library's run-time sampler
// (the calls an engine makes, anim.hpp): morph weights at the time (the targets' defaults at the
// bind pose), morphed positions, then skinning by the sampled pose (keys kept at their times), in
// the scene's own axes.
std::vector<std::vector<Point>> evaluate(const Scene& scene, const SkinRequest& r) {
    const Animation* animation = r.animation < 0 ? nullptr : &scene.animations[size_t(r.animation)];
    const auto local = animation ? sample_pose(scene.skeleton, *animation, float(r.time), EndMode::Clamp) : bind_pose(scene.skeleton);
    const auto skinning = skinning_matrices(scene.skeleton, local);
    std::vector<std::vector<Point>> out;
    for (size_t m = 0; m < scene.meshes.size(); ++m) {
        const Mesh& mesh = scene.meshes[m];
        std::vector<float> weights;
        if (animation) {
            weights = sample_morph_weights(mesh, uint32_t(m), *animation, float(r.time));
        } else {
            for (const MorphTarget& t : mesh.morph_targets) weights.push_back(t.default_weight);
        }
        out.push_back(skin_positions(mesh, morph_positions(mesh, weights), skinning));
    }
    return out;
}

// IQM stores blend weights as ubyte k/255 (docs/iqm.md §1.5; the only form the reference loaders
// read), so a glTF's float weights move by up to 1/510 each on the way: a vertex between two joints
// that have moved apart by D lands up to about D/255 away, more than 1e-4 of the diagonal on every
// skinned corpus model (CesiumMan 8.3e-4, greenman 6.9e-4, SimpleSkin 6.2e-4 of the diagonal).
// That loss is judged on its own: the IQM's weights must be the source weights rounded to ubyte
// (check_ubyte_weights), and the skinned positions may differ from the reference by 1e-4 of the
// diagonal plus, per vertex, exactly what that rounding moves the vertex by (weight_allowance:
// rigport's skinning of the glTF scene with its own weights vs with the IQM's).
class WeightAllowance {
public:
    // gltf: the reader's scene; iqm: the IQM written from it (same meshes, vertices and joint names).
    WeightAllowance(const Scene& gltf, const Scene& iqm) : gltf_(gltf), rounded_(gltf) {
        std::map<std::string, uint32_t> by_name;
        for (size_t j = 0; j < gltf.skeleton.joints.size(); ++j) by_name.emplace(gltf.skeleton.joints[j].name, uint32_t(j));
        valid_ = iqm.meshes.size() == gltf.meshes.size();
        for (size_t m = 0; valid_ && m < gltf.meshes.size(); ++m) {
            valid_ = iqm.meshes[m].vertex_count() == gltf.meshes[m].vertex_count();
            rounded_.meshes[m].skin = iqm.meshes[m].skin;
            for (Influence& i : rounded_.meshes[m].skin.influences) {
                const auto it = by_name.find(iqm.skeleton.joints[i.joint].name);
                valid_ = valid_ && it != by_name.end();
                if (it != by_name.end()) i.joint = it->second;
            }
        }
    }
    bool valid() const { return valid_; }
    // Per mesh and vertex: how far the ubyte rounding moves the vertex at this request.
    std::vector<std::vector<double>> at(const SkinRequest& r) const {
        const auto exact = evaluate(gltf_, r), rounded = evaluate(rounded_, r);
        std::vector<std::vector<double>> out(exact.size());
        for (size_t m = 0; m < exact.size(); ++m)
            for (size_t v = 0; v < exact[m].size(); ++v)
                out[m].push_back(std::hypot(exact[m][v][0] - rounded[m][v][0], exact[m][v][1] - rounded[m][v][1], exact[m][v][2] - rounded[m][v][2]));
        return out;
    }
    const Scene& rounded() const { return rounded_; }

private:
    const Scene& gltf_;
    Scene rounded_;
    bool valid_ = false;
};

// The IQM's weights are the source's (normalized) weights in ubyte steps k/255, on the same joints
// (a weight below a step may vanish). The IQM writer rounds each weight (half a step) and then
// moves whole steps round-robin until they sum to 255, a shortfall to the heaviest slot first
// (iqm_write_arrays.cpp), so a weight may end up to 1.5 steps from its exact value.
void check_ubyte_weights(const Scene& gltf, const WeightAllowance& allowance) {
    Mismatches d("vertex weights");
    auto weights = [](const SkinInfluences& s, uint32_t v) {
        std::map<uint32_t, double> w;
        if (s.empty()) return w;  // not skinned: no influences
        double total = 0;
        for (const Influence* i = s.begin(v); i != s.begin(v) + s.count(v); ++i) total += i->weight;
        for (const Influence* i = s.begin(v); i != s.begin(v) + s.count(v); ++i)
            if (i->weight > 0) w[i->joint] += i->weight / total;
        return w;
    };
    for (size_t m = 0; m < gltf.meshes.size(); ++m)
        for (uint32_t v = 0; v < gltf.meshes[m].vertex_count(); ++v) {
            const auto wa = weights(gltf.meshes[m].skin, v), wb = weights(allowance.rounded().meshes[m].skin, v);
            bool ok = true;
            double worst = 0;
            for (auto& [j, w] : wa) {
                const auto it = wb.find(j);
                worst = std::max(worst, std::fabs(w - (it == wb.end() ? 0.0 : it->second)) * 255);
            }
            for (auto& [j, w] : wb) ok = ok && wa.count(j);
            d.check(ok && worst <= 1.5 + 1e-4, [&] {
                return "mesh " + std::to_string(m) + " vertex " + std::to_string(v) + ": " + std::to_string(worst) + " steps" +
                       (ok ? "" : ", a joint the source does not use");
            });
        }
}

class GltfRoundTripCorpus : public ::testing::TestWithParam<GltfModel> {};

// The reader alone: rigport's sampler on the scene the glTF reader makes (Y up, keys at their
// times, morph targets kept) matches three.js on the same file at the bind pose and at several
// times of every animation, within 1e-4 of the bounding-box diagonal. No IQM quantization or
// resampling is involved, so this bounds what the reader itself contributes to the tests below.
TEST_P(GltfRoundTripCorpus, ReaderSceneMatchesThreeOnOriginal) {
    RIGPORT_REQUIRE_CORPUS();
    RIGPORT_REQUIRE_JS();
    const GltfModel& m = GetParam();
    const fs::path source = corpus_dir() / "gltf" / m.file;
    auto scene = load(source.string());
    ASSERT_TRUE(scene) << scene.error().to_string();
    const std::vector<SkinRequest> requests = requests_for(*scene);
    const ThreeSkinning three = three_skin(source, requests);
    ASSERT_TRUE(three.ran()) << three.error;
    const auto order = primitive_order(source);
    ASSERT_EQ(scene->meshes.size(), order.size()) << "one rigport mesh per primitive of each node with a mesh";
    const double diagonal = diagonal_of(three), tolerance = 1e-4 * diagonal;
    double worst = 0;
    for (size_t r = 0; r < requests.size(); ++r) {
        const auto positions = evaluate(*scene, requests[r]);
        for (size_t i = 0; i < order.size(); ++i) {
            const ThreeMesh* mesh = three.find(order[i].first, order[i].second);
            ASSERT_NE(mesh, nullptr);
            ASSERT_EQ(scene->meshes[i].vertex_count(), mesh->vertex_count) << "mesh " << i;
            size_t vertex = 0;
            const double d = worst_distance(positions[i], mesh->frames[r].positions, vertex);
            EXPECT_LE(d, tolerance) << "mesh " << i << ", " << describe(requests[r]) << ": vertex " << vertex << " is " << d
                                    << " away (tolerance " << tolerance << ")";
            worst = std::isnan(d) ? d : std::max(worst, d);
        }
    }
    std::cout << "[ measured ] " << m.file << " read by rigport vs three.js: max error " << worst << " (bbox diagonal " << diagonal << ", "
              << requests.size() << " poses)\n";
    RecordProperty("max_error", std::to_string(worst));
}

// glTF -> `rigport convert -o X.iqm`: exit 0, and `rigport validate X.iqm` finds no errors.
TEST_P(GltfRoundTripCorpus, ConvertedIqmValidates) {
    RIGPORT_REQUIRE_CORPUS();
    const GltfModel& m = GetParam();
    const fs::path source = corpus_dir() / "gltf" / m.file;
    const fs::path iqm = temp_dir() / (fs::path(m.file).stem().string() + ".iqm");
    RunResult r = convert(source, iqm);
    if (r.exit_code != 0) return;
    expect_validates(iqm);
    if (m.morphs) {
        // IQM has no morph targets: dropped with a warning, never silently.
        EXPECT_NE(r.err.find("morph"), std::string::npos) << "no morph warning: " << r.err;
    }
}

// Measured distances of one comparison: the largest raw one, and the largest beyond the weight
// allowance (what the test judges).
struct Worst {
    double raw = 0, beyond = 0;
    void add(double d, double allowance) {
        raw = std::isnan(d) ? d : std::max(raw, d);
        beyond = std::isnan(d) ? d : std::max(beyond, d - allowance);
    }
};

// Judges one mesh at one request: every vertex within tolerance + its weight allowance.
void judge(const std::vector<Point>& got, const std::vector<Point>& expected, const std::vector<double>& allowance, double tolerance,
           const std::string& what, Worst& worst) {
    double frame_raw = 0, frame_beyond = -INFINITY;
    size_t at = 0;
    for (size_t v = 0; v < expected.size() && v < got.size(); ++v) {
        const double d = std::hypot(got[v][0] - expected[v][0], got[v][1] - expected[v][1], got[v][2] - expected[v][2]);
        const double extra = v < allowance.size() ? allowance[v] : 0.0;
        worst.add(d, extra);
        frame_raw = std::max(frame_raw, d);
        if (!(d - extra <= frame_beyond)) frame_beyond = d - extra, at = v;
    }
    EXPECT_LE(frame_beyond, tolerance) << what << ": vertex " << at << " is " << frame_beyond + (at < allowance.size() ? allowance[at] : 0)
                                       << " away, " << frame_beyond << " beyond what ubyte weights move it (tolerance " << tolerance
                                       << "; largest distance in this pose " << frame_raw << ")";
}

// glTF -> IQM -> glTF: three.js skins the final file like the original at the bind pose and at
// 0, a middle key, a between-keys time and the last key of every animation, within 1e-4 of the
// bounding-box diagonal plus the weight allowance. IQM keeps each mesh's vertex order (no pipeline
// runs for binary input), so vertex v of final mesh i is vertex v of the reader's mesh i.
TEST_P(GltfRoundTripCorpus, ThreeSkinningOfGltfIqmGltfMatchesOriginal) {
    RIGPORT_REQUIRE_CORPUS();
    RIGPORT_REQUIRE_JS();
    const GltfModel& m = GetParam();
    const fs::path source = corpus_dir() / "gltf" / m.file;
    const fs::path dir = temp_dir();
    const std::string stem = fs::path(m.file).stem().string();
    if (m.morphs) {
        std::cout << "[ note     ] " << m.file << ": morph targets have no IQM form (dropped with a warning, checked in "
                                                 "ConvertedIqmValidates); animated comparison skipped\n";
        GTEST_SKIP() << m.file << " has morph targets, which IQM cannot hold";
    }
    auto scene = load(source.string());
    ASSERT_TRUE(scene) << scene.error().to_string();
    const fs::path iqm = dir / (stem + ".iqm"), glb = dir / (stem + ".glb");
    if (convert(source, iqm).exit_code != 0 || convert(iqm, glb).exit_code != 0) return;
    auto middle = load(iqm.string());
    ASSERT_TRUE(middle) << middle.error().to_string();
    const WeightAllowance allowance(*scene, *middle);
    ASSERT_TRUE(allowance.valid()) << "the IQM's meshes, vertices or joint names differ from the glTF's";
    check_ubyte_weights(*scene, allowance);

    const std::vector<SkinRequest> requests = requests_for(*scene);
    const ThreeSkinning original = three_skin(source, requests);
    ASSERT_TRUE(original.ran()) << original.error;
    const ThreeSkinning final = three_skin(glb, requests);
    ASSERT_TRUE(final.ran()) << final.error;
    ASSERT_EQ(final.animations.size(), original.animations.size());

    const auto order = primitive_order(source);
    ASSERT_EQ(final.meshes.size(), order.size()) << "one IQM mesh per original primitive";
    const double diagonal = diagonal_of(original), tolerance = 1e-4 * diagonal;
    Worst worst;
    for (size_t r = 0; r < requests.size(); ++r) {
        const auto extra = allowance.at(requests[r]);
        for (size_t i = 0; i < order.size(); ++i) {
            const ThreeMesh* a = original.find(order[i].first, order[i].second);
            const ThreeMesh* b = final.find(int(i), 0);
            ASSERT_NE(a, nullptr);
            ASSERT_NE(b, nullptr) << "final glTF has no mesh " << i;
            ASSERT_EQ(b->vertex_count, a->vertex_count)
                << "mesh " << i << ": vertex counts differ, so vertices cannot be matched by index: the IQM path must keep every vertex "
                   "of a primitive in order (nothing welded, nothing reordered)";
            judge(b->frames[r].positions, a->frames[r].positions, extra[i], tolerance, "mesh " + std::to_string(i) + ", " + describe(requests[r]),
                  worst);
        }
    }
    std::cout << "[ measured ] " << m.file << " -> IQM -> glTF, three.js vs three.js: max error " << worst.raw << ", " << worst.beyond
              << " beyond the ubyte-weight allowance (bbox diagonal " << diagonal << ", " << requests.size() << " poses)\n";
    RecordProperty("max_error", std::to_string(worst.raw));
    RecordProperty("max_error_beyond_weights", std::to_string(worst.beyond));
}

INSTANTIATE_TEST_SUITE_P(Files, GltfRoundTripCorpus, ::testing::ValuesIn(gltf_models()),
                         [](const ::testing::TestParamInfo<GltfModel>& info) { return test_name(info.param.file); });

// The "done means" check: FILE.glb -> `rigport convert -o X.iqm` -> `rigport validate` clean, then
// rigport's own sampler and CPU skinning on the IQM (Z up), mapped back to glTF's Y up with
// (x, y, z) -> (x, z, -y), matches three.js's evaluation of the original glTF at the bind pose and
// at several times of every animation: within 1e-4 of its bounding-box diagonal plus the weight
// allowance, and the IQM's weights within one ubyte step of the source's.
class GltfToIqmSampler : public ::testing::TestWithParam<std::string> {};

TEST_P(GltfToIqmSampler, RigportSamplerOnIqmMatchesThreeOnOriginal) {
    RIGPORT_REQUIRE_CORPUS();
    RIGPORT_REQUIRE_JS();
    const std::string& name = GetParam();
    const fs::path source = corpus_dir() / "gltf" / name;
    const fs::path iqm = temp_dir() / (fs::path(name).stem().string() + ".iqm");
    if (convert(source, iqm).exit_code != 0) return;
    expect_validates(iqm);

    auto gltf = load(source.string());
    ASSERT_TRUE(gltf) << gltf.error().to_string();
    auto scene = load(iqm.string());
    ASSERT_TRUE(scene) << scene.error().to_string();
    ASSERT_EQ(scene->animations.size(), gltf->animations.size());
    const WeightAllowance allowance(*gltf, *scene);
    ASSERT_TRUE(allowance.valid()) << "the IQM's meshes, vertices or joint names differ from the glTF's";
    check_ubyte_weights(*gltf, allowance);
    const std::vector<SkinRequest> requests = requests_for(*gltf);
    const ThreeSkinning three = three_skin(source, requests);
    ASSERT_TRUE(three.ran()) << three.error;

    const auto order = primitive_order(source);
    ASSERT_EQ(scene->meshes.size(), order.size()) << "one IQM mesh per original primitive";
    const double diagonal = diagonal_of(three), tolerance = 1e-4 * diagonal;
    Worst worst;
    for (size_t r = 0; r < requests.size(); ++r) {
        const SkinRequest& q = requests[r];
        const auto local = q.animation < 0 ? bind_pose(scene->skeleton)
                                           : sample_pose(scene->skeleton, scene->animations[size_t(q.animation)], float(q.time), EndMode::Clamp);
        const auto skinning = skinning_matrices(scene->skeleton, local);
        const auto extra = allowance.at(q);
        for (size_t i = 0; i < order.size(); ++i) {
            const ThreeMesh* mesh = three.find(order[i].first, order[i].second);
            ASSERT_NE(mesh, nullptr);
            ASSERT_EQ(scene->meshes[i].vertex_count(), mesh->vertex_count) << "mesh " << i << ": vertices cannot be matched by index";
            auto positions = skin_positions(scene->meshes[i], skinning);
            for (auto& p : positions) p = {p[0], p[2], -p[1]};
            judge(positions, mesh->frames[r].positions, extra[i], tolerance, "mesh " + std::to_string(i) + ", " + describe(q), worst);
        }
    }
    std::cout << "[ measured ] " << name << " -> IQM, rigport sampler vs three.js: max error " << worst.raw << ", " << worst.beyond
              << " beyond the ubyte-weight allowance (bbox diagonal " << diagonal << ", " << requests.size() << " poses)\n";
    RecordProperty("max_error", std::to_string(worst.raw));
    RecordProperty("max_error_beyond_weights", std::to_string(worst.beyond));
}

INSTANTIATE_TEST_SUITE_P(Files, GltfToIqmSampler, ::testing::Values("CesiumMan.glb", "RiggedFigure.glb", "greenman.glb"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return test_name(info.param); });

}  // namespace
}  // namespace rigport::test
