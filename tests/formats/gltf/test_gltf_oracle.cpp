// The glTF oracles themselves (tests/js via gltf_oracle.hpp) on the Khronos samples in the corpus:
// the validator agrees with the counts measured from the files and can fail; three.js loads, animates and skins.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <string>

#include "gltf_oracle.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

fs::path gltf_file(const std::string& name) { return corpus_dir() / "gltf" / name; }

// Largest coordinate difference between two frames of one mesh.
double max_difference(const ThreeFrame& a, const ThreeFrame& b) {
    double d = 0;
    for (size_t i = 0; i < a.positions.size() && i < b.positions.size(); ++i)
        for (int k = 0; k < 3; ++k) d = std::max(d, std::fabs(a.positions[i][k] - b.positions[i][k]));
    return d;
}

bool all_finite(const ThreeFrame& f) {
    for (const auto& p : f.positions)
        for (double x : p)
            if (!std::isfinite(x)) return false;
    return true;
}

// The validator's counts for every corpus glTF file, as measured from the files (docs/testing.md "Corpus counts").
TEST(GltfOracle, ValidatorMatchesDocumentedCounts) {
    RIGPORT_REQUIRE_CORPUS();
    RIGPORT_REQUIRE_JS();
    struct Expected {
        const char* file;
        int errors, warnings, infos, hints;
    };
    const Expected expected[] = {
        {"AnimatedTriangle.gltf", 0, 0, 0, 0}, {"SimpleSkin.gltf", 0, 2, 0, 1},
        {"SimpleMorph.gltf", 0, 0, 0, 0},      {"RiggedSimple.gltf", 0, 1, 0, 0},
        {"BoxAnimated.glb", 0, 0, 0, 0},       {"AnimatedMorphCube.glb", 0, 0, 1, 10},
        {"RiggedFigure.glb", 0, 1, 0, 0},      {"CesiumMan.glb", 0, 1, 0, 0},
        {"greenman.glb", 0, 1, 0, 0},
    };
    for (const auto& e : expected) {
        SCOPED_TRACE(e.file);
        ValidatorReport r = validate_gltf(gltf_file(e.file));
        ASSERT_TRUE(r.ran()) << r.error;
        EXPECT_EQ(r.errors, e.errors) << r.summary();
        EXPECT_EQ(r.warnings, e.warnings) << r.summary();
        EXPECT_EQ(r.infos, e.infos) << r.summary();
        EXPECT_EQ(r.hints, e.hints) << r.summary();
        EXPECT_EQ(r.messages.size(), size_t(e.errors + e.warnings + e.infos + e.hints));
    }
    ValidatorReport cesium = validate_gltf(gltf_file("CesiumMan.glb"));
    EXPECT_EQ(cesium.count("NODE_SKINNED_MESH_NON_ROOT"), 1u);
}

// The oracle can fail: one byte of a GLB's JSON changed so an accessor claims 9xxx elements.
TEST(GltfOracle, ValidatorReportsBrokenAccessorCount) {
    RIGPORT_REQUIRE_CORPUS();
    RIGPORT_REQUIRE_JS();
    std::vector<uint8_t> glb = read_bytes(gltf_file("BoxAnimated.glb"));
    ASSERT_GT(glb.size(), 20u);
    uint32_t json_length = 0;
    std::memcpy(&json_length, glb.data() + 12, 4);
    const std::string json_text(glb.begin() + 20, glb.begin() + 20 + json_length);
    // The first multi-digit count: its leading digit becomes 9 (same length, so the chunk stays valid).
    size_t at = 0;
    while ((at = json_text.find("\"count\":", at)) != std::string::npos) {
        at += 8;
        if (std::isdigit(static_cast<unsigned char>(json_text[at + 1])) && json_text[at] != '9') break;
    }
    ASSERT_NE(at, std::string::npos);
    glb[20 + at] = '9';
    const fs::path broken = temp_dir() / "broken.glb";
    write_bytes(broken, glb);

    ValidatorReport r = validate_gltf(broken);
    ASSERT_TRUE(r.ran()) << r.error;
    EXPECT_GT(r.errors, 0) << r.summary();
    EXPECT_GT(r.count("ACCESSOR_TOO_LONG"), 0u) << r.summary();
}

// A script failure is reported as such, not as a clean report.
TEST(GltfOracle, MissingFileIsAnOracleFailure) {
    RIGPORT_REQUIRE_JS();
    const fs::path missing = temp_dir() / "missing.glb";
    EXPECT_FALSE(validate_gltf(missing).ran());
    ThreeSkinning s = three_skin(missing, {SkinRequest::bind_pose()});
    EXPECT_FALSE(s.ran());
    EXPECT_NE(s.error.find("missing.glb"), std::string::npos) << s.error;
}

// three.js skins the samples: documented vertex counts, finite positions, and the animation moves them.
TEST(GltfOracle, ThreeSkinsRiggedSimpleAndCesiumMan) {
    RIGPORT_REQUIRE_CORPUS();
    RIGPORT_REQUIRE_JS();
    struct Case {
        const char* file;
        size_t vertices;
        double later;  // a time well inside the animation
    };
    for (const Case& c : {Case{"RiggedSimple.gltf", 96, 1.0}, Case{"CesiumMan.glb", 3273, 1.0}}) {
        SCOPED_TRACE(c.file);
        ThreeSkinning s = three_skin(gltf_file(c.file), {SkinRequest::at(0, 0.0), SkinRequest::at(0, c.later),
                                                         SkinRequest::bind_pose()});
        ASSERT_TRUE(s.ran()) << s.error;
        ASSERT_EQ(s.animations.size(), 1u);
        ASSERT_EQ(s.meshes.size(), 1u);
        const ThreeMesh& m = s.meshes[0];
        EXPECT_TRUE(m.skinned);
        EXPECT_EQ(m.mesh_index, 0);
        EXPECT_EQ(m.primitive, 0);
        EXPECT_EQ(m.vertex_count, c.vertices);
        ASSERT_EQ(m.frames.size(), 3u);
        for (const auto& f : m.frames) {
            EXPECT_EQ(f.positions.size(), c.vertices);
            EXPECT_TRUE(all_finite(f));
        }
        EXPECT_EQ(m.frames[0].animation, s.animations[0].name);
        EXPECT_EQ(m.frames[1].time, c.later);
        EXPECT_EQ(m.frames[2].animation, "");
        EXPECT_GT(max_difference(m.frames[0], m.frames[1]), 0.01);
    }
}

// LoopOnce + clampWhenFinished: the last key holds at and after the duration, never wrapping to
// the first (the LoopRepeat trap of docs/gltf.md §6.2); clips are found by name; every request
// starts from the rest pose, so the same request gives the same positions again.
TEST(GltfOracle, ThreeClampsAtTheEndAndSelectsByName) {
    RIGPORT_REQUIRE_CORPUS();
    RIGPORT_REQUIRE_JS();
    ThreeSkinning s = three_skin(gltf_file("greenman.glb"),
                                 {SkinRequest::at("1_idle", 2.5), SkinRequest::at("1_idle", 100.0),
                                  SkinRequest::at("2_move", 0.6), SkinRequest::at("1_idle", 1.2),
                                  SkinRequest::at("2_move", 0.6), SkinRequest::at(1, 1.2)});
    ASSERT_TRUE(s.ran()) << s.error;
    ASSERT_EQ(s.animations.size(), 4u);
    EXPECT_EQ(s.animations[1].name, "1_idle");
    EXPECT_DOUBLE_EQ(s.animations[1].duration, 2.5);
    ASSERT_EQ(s.meshes.size(), 1u);
    const auto& f = s.meshes[0].frames;
    ASSERT_EQ(f.size(), 6u);
    EXPECT_EQ(f[1].animation, "1_idle");
    EXPECT_EQ(max_difference(f[0], f[1]), 0.0);  // clamped at the last key
    EXPECT_GT(max_difference(f[0], f[3]), 1e-3); // and the end differs from the middle
    EXPECT_EQ(max_difference(f[2], f[4]), 0.0);  // no state leaks between requests
    EXPECT_EQ(max_difference(f[3], f[5]), 0.0);  // index 1 is "1_idle"
    EXPECT_FALSE(three_skin(gltf_file("greenman.glb"), {SkinRequest::at("no such clip", 0)}).ran());
}

// Non-skinned meshes: node animation (BoxAnimated) and morph targets (SimpleMorph) are applied.
TEST(GltfOracle, ThreeAppliesNodeAnimationAndMorphs) {
    RIGPORT_REQUIRE_CORPUS();
    RIGPORT_REQUIRE_JS();
    ThreeSkinning box = three_skin(gltf_file("BoxAnimated.glb"), {SkinRequest::at(0, 0.0), SkinRequest::at(0, 1.0)});
    ASSERT_TRUE(box.ran()) << box.error;
    const ThreeMesh* inner = box.find(0);
    ASSERT_NE(inner, nullptr);
    EXPECT_EQ(inner->vertex_count, 96u);
    EXPECT_FALSE(inner->skinned);
    EXPECT_GT(max_difference(inner->frames[0], inner->frames[1]), 0.5);

    // SimpleMorph: weights [0.5, 0.5] at rest; the animation drives them, so t = 1 differs from t = 0.
    ThreeSkinning morph = three_skin(gltf_file("SimpleMorph.gltf"), {SkinRequest::at(0, 0.0), SkinRequest::at(0, 1.0)});
    ASSERT_TRUE(morph.ran()) << morph.error;
    ASSERT_EQ(morph.meshes.size(), 1u);
    EXPECT_EQ(morph.meshes[0].vertex_count, 3u);
    EXPECT_GT(max_difference(morph.meshes[0].frames[0], morph.meshes[0].frames[1]), 0.1);
}

// An external .bin (with a space in its name, so the URI is percent-encoded) really loads: the
// validator and three.js both read it, the positions equal the embedded original's, and without
// the .bin both oracles complain.
TEST(GltfOracle, ExternalBufferLoads) {
    RIGPORT_REQUIRE_CORPUS();
    RIGPORT_REQUIRE_JS();
    const std::vector<uint8_t> original = read_bytes(gltf_file("RiggedSimple.gltf"));
    json gltf = json::parse(original.begin(), original.end());
    const std::string uri = gltf["buffers"][0]["uri"];
    const size_t comma = uri.find(',');
    ASSERT_NE(comma, std::string::npos);
    // Base64 decode of the data: URI.
    std::vector<uint8_t> bin;
    uint32_t bits = 0;
    int count = 0;
    for (char c : uri.substr(comma + 1)) {
        const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        const char* p = std::strchr(alphabet, c);
        if (c == '=' || !p || !c) continue;
        bits = bits << 6 | uint32_t(p - alphabet);
        if ((count += 6) >= 8) bin.push_back(uint8_t(bits >> (count -= 8)));
    }
    ASSERT_EQ(bin.size(), gltf["buffers"][0]["byteLength"].get<size_t>());
    const fs::path dir = temp_dir();
    write_bytes(dir / "rigged simple.bin", bin);
    gltf["buffers"][0]["uri"] = "rigged%20simple.bin";
    const std::string text = gltf.dump();
    write_bytes(dir / "external.gltf", std::vector<uint8_t>(text.begin(), text.end()));

    ValidatorReport r = validate_gltf(dir / "external.gltf");
    ASSERT_TRUE(r.ran()) << r.error;
    EXPECT_EQ(r.errors, 0) << r.summary();
    const std::vector<SkinRequest> requests = {SkinRequest::at(0, 0.5), SkinRequest::at(0, 1.5)};
    ThreeSkinning external = three_skin(dir / "external.gltf", requests);
    ThreeSkinning embedded = three_skin(gltf_file("RiggedSimple.gltf"), requests);
    ASSERT_TRUE(external.ran()) << external.error;
    ASSERT_TRUE(embedded.ran()) << embedded.error;
    ASSERT_EQ(external.meshes.size(), 1u);
    ASSERT_EQ(external.meshes[0].vertex_count, 96u);
    for (size_t i = 0; i < requests.size(); ++i)
        EXPECT_EQ(max_difference(external.meshes[0].frames[i], embedded.meshes[0].frames[i]), 0.0);

    fs::remove(dir / "rigged simple.bin");
    ValidatorReport without = validate_gltf(dir / "external.gltf");
    ASSERT_TRUE(without.ran()) << without.error;
    EXPECT_GT(without.errors, 0) << without.summary();
    EXPECT_FALSE(three_skin(dir / "external.gltf", requests).ran());
}

}  // namespace
}  // namespace rigport::test
