// Validation: hand-made bad scenes and damaged IQM files give the expected typed findings.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "formats/iqm/iqm_builder.hpp"
#include "rigport/io.hpp"
#include "rigport/sample.hpp"
#include "rigport/validate.hpp"

namespace rigport {
namespace {

const Finding* find(const ValidationReport& r, const std::string& code) {
    for (auto& f : r.findings)
        if (f.code == code) return &f;
    return nullptr;
}

std::string dump(const ValidationReport& r) {
    std::string s;
    for (auto& f : r.findings) s += std::string(to_string(f.severity)) + " " + f.code + ": " + f.message + "\n";
    return s;
}

ValidationReport check(const Scene& scene) {
    ValidationReport r;
    validate_scene(scene, r);
    return r;
}

// Expects exactly one finding with this code, of this severity and count.
void expect_finding(const ValidationReport& r, const std::string& code, Severity severity, std::optional<uint64_t> count = {}) {
    const Finding* f = find(r, code);
    ASSERT_NE(f, nullptr) << "no " << code << " in\n" << dump(r);
    EXPECT_EQ(f->severity, severity) << code;
    if (count) {
        EXPECT_EQ(f->count, *count) << code;
    }
}

TEST(ValidationReport, CountsAndNames) {
    ValidationReport r;
    r.add(Severity::Error, "a", "x", 12);
    r.add(Severity::Warning, "b", "y");
    r.add(Severity::Warning, "c", "z", {}, 7);
    EXPECT_EQ(r.count(Severity::Error), 1u);
    EXPECT_EQ(r.count(Severity::Warning), 2u);
    EXPECT_EQ(r.count(Severity::Info), 0u);
    EXPECT_EQ(r.findings[0].offset, 12u);
    EXPECT_EQ(r.findings[2].count, 7u);
    EXPECT_STREQ(to_string(Severity::Error), "error");
    EXPECT_STREQ(to_string(Severity::Warning), "warning");
    EXPECT_STREQ(to_string(Severity::Info), "info");
}

TEST(ValidateScene, WeightsNotSummingToOne) {
    Scene s = make_sample_scene();
    auto& inf = s.meshes[0].skin.influences;
    inf[0].weight *= 0.5f;  // vertex 0
    inf[4].weight += 0.1f;  // vertex 2
    expect_finding(check(s), "skin.weight_sum", Severity::Warning, 2);
}

TEST(ValidateScene, SameJointTwice) {
    Scene s = make_sample_scene();
    auto& inf = s.meshes[0].skin.influences;
    inf[1].joint = inf[0].joint;
    expect_finding(check(s), "skin.duplicate_joint", Severity::Warning, 1);
}

TEST(ValidateScene, NonUnitQuaternions) {
    Scene s = make_sample_scene();
    s.skeleton.joints[1].bind.rotate = {0, 0, 0, 0.9f};
    s.animations[0].tracks[1].values[3] = 2.0f;  // first key's w
    auto r = check(s);
    expect_finding(r, "joint.quaternion", Severity::Warning, 1);
    expect_finding(r, "animation.quaternion", Severity::Warning, 1);
}

TEST(ValidateScene, ReversedWindingIsAWarning) {
    Scene s = make_sample_scene();
    for (auto& t : s.meshes[0].triangles) std::swap(t[1], t[2]);
    expect_finding(check(s), "winding.inconsistent", Severity::Warning, s.meshes[0].triangles.size());
    // The same triangles are right for a counter-clockwise format.
    s.meta.front_face = Winding::CounterClockwise;
    EXPECT_EQ(find(check(s), "winding.inconsistent"), nullptr);
}

TEST(ValidateScene, AFewFlippedTrianglesAreANote) {
    Scene s = make_sample_scene();
    for (int i = 0; i < 3; ++i) std::swap(s.meshes[0].triangles[i][1], s.meshes[0].triangles[i][2]);
    expect_finding(check(s), "winding.mixed", Severity::Info, 3);
}

TEST(ValidateScene, UnknownFrontFaceIsANote) {
    Scene s = make_sample_scene();
    s.meta.front_face = Winding::Unknown;
    expect_finding(check(s), "winding.unknown", Severity::Info);
}

TEST(ValidateScene, NormalsAndTangents) {
    Scene s = make_sample_scene();
    s.meshes[0].normals[5] = {0, 0, 2};
    s.meshes[0].tangents[6][3] = 0.5f;
    s.meshes[0].tangents[7][3] = 0.0f;
    auto r = check(s);
    expect_finding(r, "normal.not_unit", Severity::Warning, 1);
    expect_finding(r, "tangent.handedness", Severity::Warning, 2);
}

TEST(ValidateScene, UnusedJointsAndMaterials) {
    Scene s = make_sample_scene();
    s.materials.push_back(Material{});
    Joint extra;
    extra.name = "extra";
    extra.parent = 0;
    s.skeleton.joints.push_back(extra);
    auto r = check(s);
    expect_finding(r, "material.unused", Severity::Info, 1);
    expect_finding(r, "joint.unused", Severity::Info, 1);
    EXPECT_EQ(r.count(Severity::Warning) + r.count(Severity::Error), 0u) << dump(r);
}

TEST(ValidateScene, BrokenInvariantIsOneErrorAndStopsThere) {
    Scene s = make_sample_scene();
    s.meshes[0].triangles[0][0] = 100000;
    auto r = check(s);
    ASSERT_EQ(r.findings.size(), 1u) << dump(r);
    expect_finding(r, "scene.invariants", Severity::Error);
    EXPECT_NE(r.findings[0].message.find("100000"), std::string::npos);

    Scene p = make_sample_scene();
    p.skeleton.joints[1].parent = 3;  // a parent after its child
    expect_finding(check(p), "scene.invariants", Severity::Error);
}

TEST(ValidateBytes, UnknownFormat) {
    const std::vector<uint8_t> bytes = {'h', 'e', 'l', 'l', 'o'};
    auto r = validate_bytes(bytes, "hello.txt");
    EXPECT_TRUE(r.format.empty());
    expect_finding(r, "format.unknown", Severity::Error);
}

TEST(ValidateFile, MissingFileIsAnIoError) {
    auto r = validate_file("/nonexistent/rigport/file.iqm");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ErrorCode::NotFound);
}

// ---- IQM files: the writer's output, then damaged in place ---------------------------------

using test::get_u32;
using test::set_u32;

std::vector<uint8_t> sample_iqm() {
    auto bytes = save_bytes(make_sample_scene(), "sample.iqm");
    EXPECT_TRUE(bytes) << bytes.error().to_string();
    return bytes ? *bytes : std::vector<uint8_t>{};
}

void set_f32(std::vector<uint8_t>& b, size_t at, float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    set_u32(b, at, u);
}

TEST(ValidateIqm, TruncatedFilesGiveOneErrorNeverACrash) {
    const auto bytes = sample_iqm();
    ASSERT_FALSE(bytes.empty());
    for (size_t len = 0; len < bytes.size(); len += 1 + len / 16) {
        std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + long(len));
        auto r = validate_bytes(cut, "cut.iqm", LoadOptions{"iqm"});
        EXPECT_GE(r.count(Severity::Error), 1u) << "length " << len;
        // The structural error is said once, not again by the loader.
        std::vector<std::string> messages;
        for (auto& f : r.findings)
            if (f.severity == Severity::Error) messages.push_back(f.message);
        for (size_t i = 1; i < messages.size(); ++i) EXPECT_NE(messages[i], messages[0]) << "length " << len;
    }
}

TEST(ValidateIqm, ZeroFramerateFlagsAndDuplicateNames) {
    auto b = sample_iqm();
    const uint32_t anims = get_u32(b, test::H_OFS_ANIMS);
    set_f32(b, anims + 12, 0.0f);          // wave: framerate 0
    set_u32(b, anims + 16, 0x3);           // wave: an unknown flag beside LOOP
    set_u32(b, anims + 20, get_u32(b, anims));  // pulse takes wave's name
    auto r = validate_bytes(b, "damaged.iqm");
    expect_finding(r, "anim.framerate", Severity::Warning);
    expect_finding(r, "anim.flags", Severity::Warning);
    expect_finding(r, "anim.duplicate_name", Severity::Warning);
}

TEST(ValidateIqm, AdjacencyAllAbsentIsIncompleteWithCounts) {
    auto b = sample_iqm();
    const uint32_t adj = get_u32(b, test::H_OFS_ADJACENCY), n = get_u32(b, test::H_NUM_TRIANGLES);
    ASSERT_NE(adj, 0u);
    for (uint32_t i = 0; i < 3 * n; ++i) set_u32(b, adj + 4 * i, 0xFFFFFFFFu);
    auto r = validate_bytes(b, "noadj.iqm");
    expect_finding(r, "adjacency.incomplete", Severity::Info, 3 * n);
    EXPECT_EQ(r.tally("adjacency", "valid"), 0u);
    EXPECT_EQ(r.tally("adjacency", "missing"), 3u * n);
    EXPECT_EQ(r.count(Severity::Warning), 0u) << dump(r);
}

TEST(ValidateIqm, WrongAdjacencyIsAWarning) {
    auto b = sample_iqm();
    const uint32_t adj = get_u32(b, test::H_OFS_ADJACENCY);
    // Triangle 0's first neighbour becomes a far-away triangle that shares no edge with it.
    set_u32(b, adj, get_u32(b, test::H_NUM_TRIANGLES) - 1);
    auto r = validate_bytes(b, "badadj.iqm");
    expect_finding(r, "adjacency.incomplete", Severity::Warning);
    EXPECT_EQ(r.tally("adjacency", "wrong"), 1u);
}

TEST(ValidateIqm, UbyteWeightsNotSummingTo255) {
    auto b = sample_iqm();
    const uint32_t records = get_u32(b, test::H_OFS_VERTEXARRAYS), count = get_u32(b, test::H_NUM_VERTEXARRAYS);
    bool done = false;
    for (uint32_t i = 0; i < count && !done; ++i) {
        const uint32_t at = records + 20 * i;
        if (get_u32(b, at) == 5 && get_u32(b, at + 8) == 1) {  // BLENDWEIGHTS, UBYTE
            b[get_u32(b, at + 16)] -= 1;                          // vertex 0, first slot
            done = true;
        }
    }
    ASSERT_TRUE(done);
    expect_finding(validate_bytes(b, "weights.iqm"), "blend.ubyte_sum", Severity::Warning, 1);
}

TEST(ValidateIqm, HeaderFlagsAndTrailingBytes) {
    auto b = sample_iqm();
    set_u32(b, test::H_FLAGS, 4);
    b.insert(b.end(), 8, 0);  // filesize now smaller than the data
    auto r = validate_bytes(b, "header.iqm");
    expect_finding(r, "header.flags", Severity::Warning);
    expect_finding(r, "header.filesize", Severity::Warning);
}

TEST(ValidateIqm, PoseParentDiffersFromJointParent) {
    auto b = sample_iqm();
    const uint32_t poses = get_u32(b, test::H_OFS_POSES);
    set_u32(b, poses + 3 * 88, 0);  // pose 3 ("tip") claims the root as parent; joint 3's is 2
    expect_finding(validate_bytes(b, "pose.iqm"), "pose.parent", Severity::Warning, 1);
}

TEST(ValidateIqm, BoundsThatDoNotMatchTheSkinnedVertices) {
    auto b = sample_iqm();
    const uint32_t bounds = get_u32(b, test::H_OFS_BOUNDS);
    ASSERT_NE(bounds, 0u);
    set_f32(b, bounds + 20, 40.0f);  // frame 0 bbmaxs.z
    expect_finding(validate_bytes(b, "bounds.iqm"), "bounds.mismatch", Severity::Warning, 1);
}

// A one-triangle file made by the independent builder, for quirks our writer never produces.
test::RawIqm triangle_file() {
    test::RawIqm m;
    m.text = std::string("\0tri\0mat\0", 9);
    m.num_vertexes = 3;
    m.meshes = {{{1, 5, 0, 3, 0, 1}}};
    m.arrays.push_back({0, 7, 3, test::floats({0, 0, 0, 0, 1, 0, 1, 0, 0})});
    m.arrays.push_back({2, 7, 3, test::floats({0, 0, 1, 0, 0, 1, 0, 0, 1})});
    m.triangles = {0, 1, 2};
    return m;
}

TEST(ValidateIqm, BuilderFileIsClean) {
    auto r = validate_bytes(test::build_iqm(triangle_file()), "tri.iqm");
    EXPECT_EQ(r.count(Severity::Error) + r.count(Severity::Warning), 0u) << dump(r);
}

TEST(ValidateIqm, UnalignedSectionsAndArrayOrder) {
    auto m = triangle_file();
    m.text = std::string("\0tri\0mat", 8) + std::string(1, '\0');  // 9 bytes: the next section is unaligned
    m.align = 1;
    std::swap(m.arrays[0], m.arrays[1]);  // normal before position
    auto r = validate_bytes(test::build_iqm(m), "unaligned.iqm");
    expect_finding(r, "range.unaligned", Severity::Warning);
    expect_finding(r, "array.order", Severity::Warning);
}

TEST(ValidateIqm, ReservedTypeAndNonStandardFormat) {
    auto m = triangle_file();
    m.arrays[1] = {2, 5, 3, {}};  // normal as UINT
    for (uint32_t v : {0u, 0u, 1u, 0u, 0u, 1u, 0u, 0u, 1u}) test::put_u32(m.arrays[1].data, v);
    m.arrays.push_back({9, 7, 1, test::floats({1, 2, 3})});
    auto r = validate_bytes(test::build_iqm(m), "arrays.iqm");
    expect_finding(r, "array.format", Severity::Warning);
    expect_finding(r, "array.reserved_type", Severity::Warning);
}

TEST(ValidateIqm, TextNotStartingEmptyAndNameInsideAString) {
    auto m = triangle_file();
    m.text = std::string("x\0tri\0mat\0\0\0", 12);
    m.meshes = {{{3, 7, 0, 3, 0, 1}}};  // "ri" and "at": both inside strings
    auto r = validate_bytes(test::build_iqm(m), "text.iqm");
    expect_finding(r, "text.first_not_empty", Severity::Warning);
    expect_finding(r, "text.inside_string", Severity::Warning, 2);
}

TEST(ValidateIqm, DegenerateAndOutsideTheMesh) {
    auto m = triangle_file();
    m.num_vertexes = 4;
    m.arrays[0].data = test::floats({0, 0, 0, 0, 1, 0, 1, 0, 0, 5, 5, 5});
    m.arrays[1].data = test::floats({0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1});
    m.meshes = {{{1, 5, 0, 3, 0, 2}}, {{1, 5, 3, 1, 2, 0}}};
    m.triangles = {0, 1, 3, 0, 0, 1};  // uses vertex 3 of the other mesh; a repeated vertex
    auto r = validate_bytes(test::build_iqm(m), "mesh.iqm");
    expect_finding(r, "mesh.index_outside", Severity::Warning, 1);
    expect_finding(r, "mesh.degenerate", Severity::Info, 1);
}

TEST(ValidateIqm, ExtensionCountMismatch) {
    auto m = triangle_file();
    m.text = std::string("\0tri\0mat\0FTE_MESH\0\0\0", 20);
    m.extensions.push_back({9, std::vector<uint8_t>(28, 0)});
    auto b = test::build_iqm(m);
    set_u32(b, test::H_NUM_EXTENSIONS, 2);
    auto r = validate_bytes(b, "ext.iqm");
    expect_finding(r, "extension.count", Severity::Warning);
    expect_finding(r, "extension.fte", Severity::Info);
}

}  // namespace
}  // namespace rigport
