// glTF 2.0 reader on the glTF corpus (docs/gltf.md §8): every file loads, passes the scene
// invariants, and `rigport info --json` plus the loaded scene report the counts that
// counts measured from the files themselves (docs/testing.md "Corpus counts") (an independent reference).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <string>

#include "formats/gltf/gltf_parse.hpp"
#include "rigport/io.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// One animation as measured from the file.
struct ExpectedAnimation {
    std::string name;   // empty when the glTF animation has none
    double duration;    // max - min over all sampler inputs, seconds (SOURCES rounds to 4 places)
    size_t channels;    // TRS and weights channels together
    size_t max_keys;    // "up to N keys"
};

// One corpus file as its measured counts give it.
struct ExpectedFile {
    std::string file;
    size_t primitives;     // "meshes / prims": every corpus mesh is used by one node, so one rigport mesh each
    uint64_t vertices;     // sum of POSITION counts
    uint64_t triangles;    // index count / 3
    size_t skin_joints;    // 0 = no skin
    size_t morph_targets;  // targets over all primitives
    std::vector<ExpectedAnimation> animations;
    // Not in SOURCES: the joints the reader makes (docs/gltf.md §8.2): skin joints, nodes with
    // TRS channels and the nodes between them; static ancestors folded into the roots. Only
    // BoxAnimated differs from "skin + animated": its static node 1 sits between animated 0 and 2.
    size_t joints;
};

void PrintTo(const ExpectedFile& f, std::ostream* os) { *os << f.file; }

// Measured from the files (docs/testing.md "Corpus counts").
const std::vector<ExpectedFile>& expected_files() {
    static const std::vector<ExpectedFile> table = {
        {"AnimatedTriangle.gltf", 1, 3, 1, 0, 0, {{"", 1.0000, 1, 5}}, 1},
        {"SimpleSkin.gltf", 1, 10, 8, 2, 0, {{"", 5.5000, 1, 12}}, 2},
        {"SimpleMorph.gltf", 1, 3, 1, 0, 2, {{"", 4.0000, 1, 5}}, 0},
        {"RiggedSimple.gltf", 1, 96, 188, 2, 0, {{"", 2.0417, 6, 3}}, 2},
        {"BoxAnimated.glb", 2, 320, 254, 0, 0, {{"", 3.7083, 2, 4}}, 3},
        {"AnimatedMorphCube.glb", 1, 24, 12, 0, 2, {{"Square", 4.2000, 1, 127}}, 0},
        {"RiggedFigure.glb", 1, 370, 256, 19, 0, {{"", 1.2500, 57, 2}}, 19},
        {"CesiumMan.glb", 1, 3273, 4672, 19, 0, {{"", 1.9583, 57, 48}}, 19},
        {"greenman.glb", 1, 196, 356, 12, 0,
         {{"0_pose", 0.1250, 36, 4}, {"1_idle", 2.4583, 36, 60}, {"2_move", 1.2083, 36, 30}, {"3_attack", 0.7917, 36, 20}},
         12},
    };
    return table;
}


// Node facts from the JSON: parents, skin joints, nodes with translation/rotation/scale channels.
struct NodeFacts {
    std::vector<int> parent;
    std::set<size_t> skin_joints;
    std::set<size_t> trs_animated;

    explicit NodeFacts(const json& j) {
        const json nodes = j.value("nodes", json::array());
        parent.assign(nodes.size(), -1);
        for (size_t n = 0; n < nodes.size(); ++n)
            for (const auto& c : nodes[n].value("children", json::array())) parent[c.get<size_t>()] = int(n);
        for (const auto& s : j.value("skins", json::array()))
            for (const auto& jt : s["joints"]) skin_joints.insert(jt.get<size_t>());
        for (const auto& a : j.value("animations", json::array()))
            for (const auto& c : a["channels"])
                if (c["target"].contains("node") && c["target"]["path"] != "weights") trs_animated.insert(c["target"]["node"].get<size_t>());
    }
    std::set<size_t> with_ancestors(const std::set<size_t>& nodes) const {
        std::set<size_t> out;
        for (size_t n : nodes)
            for (int k = int(n); k >= 0; k = parent[size_t(k)]) out.insert(size_t(k));
        return out;
    }
};

class GltfReadCorpus : public ::testing::TestWithParam<ExpectedFile> {};

// The file loads through the public API with the conventions the reader records (§8: readers
// record, writers convert), and the scene passes check_invariants.
TEST_P(GltfReadCorpus, LoadsWithInvariants) {
    RIGPORT_REQUIRE_CORPUS();
    const ExpectedFile& e = GetParam();
    const fs::path path = corpus_dir() / "gltf" / e.file;
    auto scene = load(path.string());
    ASSERT_TRUE(scene) << scene.error().to_string();
    auto st = check_invariants(*scene);
    EXPECT_TRUE(st) << (st ? "" : st.error().to_string());
    EXPECT_EQ(scene->meta.source_format, "gltf");
    EXPECT_EQ(scene->meta.up, UpAxis::Y);
    EXPECT_EQ(scene->meta.front_face, Winding::CounterClockwise);
    // The same bytes through load_bytes give the same counts (the .gltf ones need the extension).
    auto again = load_bytes(read_bytes(path), path.filename().string());
    ASSERT_TRUE(again) << again.error().to_string();
    EXPECT_EQ(again->vertex_count(), scene->vertex_count());
    EXPECT_EQ(again->triangle_count(), scene->triangle_count());
    EXPECT_EQ(again->skeleton.joints.size(), scene->skeleton.joints.size());
}

// `rigport info --json`: meshes (one per primitive), vertices, triangles and animations as
// The measured counts hold them; joints: every skin joint and every TRS-animated node is a joint,
// and nothing else but their ancestors (the reader may keep an ancestor as a joint rather than
// bake it).
TEST_P(GltfReadCorpus, InfoReportsSourceCounts) {
    RIGPORT_REQUIRE_CORPUS();
    const ExpectedFile& e = GetParam();
    const fs::path path = corpus_dir() / "gltf" / e.file;
    RunResult r = run_cli({"info", "--json", path.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const json info = json::parse(r.out, nullptr, false);
    ASSERT_TRUE(info.is_object()) << r.out;
    EXPECT_EQ(info["format"], "gltf");
    EXPECT_EQ(info["meshes"].size(), e.primitives);
    EXPECT_EQ(info["vertices"].get<uint64_t>(), e.vertices);
    EXPECT_EQ(info["triangles"].get<uint64_t>(), e.triangles);
    EXPECT_EQ(info["animations"].size(), e.animations.size());
    for (size_t a = 0; a < e.animations.size() && a < info["animations"].size(); ++a)
        if (!e.animations[a].name.empty()) {
            EXPECT_EQ(info["animations"][a]["name"], e.animations[a].name);
        }

    // The skin as SOURCES gives it (checks the table against the file), then the reader's joints.
    const json j = file_json(path);
    ASSERT_TRUE(j.is_object());
    const NodeFacts nodes(j);
    EXPECT_EQ(nodes.skin_joints.size(), e.skin_joints) << "the measured count and the file disagree";
    std::set<size_t> needed = nodes.skin_joints;
    needed.insert(nodes.trs_animated.begin(), nodes.trs_animated.end());
    const size_t most = nodes.with_ancestors(needed).size();
    const uint64_t joints = info["joints"].get<uint64_t>();
    EXPECT_GE(joints, needed.size()) << "skin joints + animated nodes";
    EXPECT_LE(joints, most) << "skin joints + animated nodes + their ancestors";
    EXPECT_EQ(joints, e.joints);
    EXPECT_EQ(info["poses"].get<uint64_t>(), joints);
    EXPECT_FALSE(info["animation_only"].get<bool>());

    // Every skin joint and animated node appears among the joints by name (the reader names an
    // unnamed node "node_N" after its index).
    std::set<std::string> names;
    for (const auto& jt : info["skeleton"]) names.insert(jt["name"].get<std::string>());
    for (size_t n : needed) {
        std::string name = j["nodes"][n].value("name", "");
        if (name.empty()) name = "node_" + std::to_string(n);
        EXPECT_TRUE(names.count(name)) << "node " << n << " '" << name << "' is not a joint";
    }
    std::cout << "[ measured ] " << e.file << ": " << joints << " joints (skin " << e.skin_joints << ", skin + animated "
              << needed.size() << ", with ancestors " << most << ")\n";
}

// Morph targets, animation durations (max - min of the sampler inputs), channels and keys per
// animation, from the loaded scene (info --json does not print them).
TEST_P(GltfReadCorpus, MorphTargetsAndAnimationsMatchSource) {
    RIGPORT_REQUIRE_CORPUS();
    const ExpectedFile& e = GetParam();
    auto scene = load((corpus_dir() / "gltf" / e.file).string());
    ASSERT_TRUE(scene) << scene.error().to_string();
    size_t targets = 0;
    for (const Mesh& m : scene->meshes) targets += m.morph_targets.size();
    EXPECT_EQ(targets, e.morph_targets);
    ASSERT_EQ(scene->animations.size(), e.animations.size());
    for (size_t a = 0; a < e.animations.size(); ++a) {
        const Animation& anim = scene->animations[a];
        const ExpectedAnimation& x = e.animations[a];
        SCOPED_TRACE("animation " + std::to_string(a) + " '" + anim.name + "'");
        if (!x.name.empty()) {
            EXPECT_EQ(anim.name, x.name);
        }
        float lo = INFINITY, hi = -INFINITY;
        size_t keys = 0;
        auto span = [&](const std::vector<float>& times) {
            if (times.empty()) return;
            lo = std::min(lo, times.front());
            hi = std::max(hi, times.back());
            keys = std::max(keys, times.size());
            EXPECT_TRUE(std::is_sorted(times.begin(), times.end()));
        };
        for (const auto& t : anim.tracks) span(t.times);
        for (const auto& t : anim.morph_tracks) span(t.times);
        EXPECT_NEAR(double(hi) - double(lo), x.duration, 1e-4);
        EXPECT_EQ(anim.tracks.size() + anim.morph_tracks.size(), x.channels);
        EXPECT_EQ(keys, x.max_keys);
        // Keys keep their times: the last key is at duration() (nothing is shifted to start at 0).
        EXPECT_FLOAT_EQ(anim.duration(), hi);
    }
}

INSTANTIATE_TEST_SUITE_P(Files, GltfReadCorpus, ::testing::ValuesIn(expected_files()),
                         [](const ::testing::TestParamInfo<ExpectedFile>& info) {
                             std::string name = info.param.file;
                             for (char& c : name)
                                 if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                             return name;
                         });

// The table covers the whole corpus folder: a file added there needs a row here.
TEST(GltfReadCorpusTable, CoversEveryCorpusFile) {
    RIGPORT_REQUIRE_CORPUS();
    std::set<std::string> listed;
    for (const auto& e : expected_files()) listed.insert(e.file);
    for (const char* ext : {".gltf", ".glb"})
        for (const fs::path& p : corpus_files("gltf", ext)) EXPECT_TRUE(listed.count(p.filename().string())) << p;
}

}  // namespace
}  // namespace rigport::test
