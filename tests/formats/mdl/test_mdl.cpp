// Quake 1 MDL (docs/mdl.md): the corpus reads with its frames and skins, converts to a GLB the
// Khronos validator passes and agrees with assimp's first frame; the Half-Life .mdl files still read
// as hlmdl; the built-in sample written as MDL reads back within one box's quantisation and assimp
// reads it; GLQuake's limits are refused by name; the seam rule, group skins and group frames of a
// hand-made file; hostile headers give clean errors at byte offsets.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>

#include "assimp_oracle.hpp"
#include "convert_checks.hpp"
#include "formats/common/embedded_images.hpp"
#include "formats/common/quake_normals.hpp"
#include "formats/mdl/mdl.hpp"
#include "support/byte_cursor.hpp"
#include "gltf_oracle.hpp"
#include "rigport/formats.hpp"
#include "rigport/io.hpp"
#include "rigport/process.hpp"
#include "rigport/sample.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

namespace fs = std::filesystem;
using P3 = std::array<double, 3>;

fs::path mdl_path(const char* file) { return corpus_dir() / "mdl" / (std::string("assimp_assimp__") + file); }

std::vector<Vec3> frame_positions(const Mesh& mesh, size_t f) {
    std::vector<Vec3> out = mesh.positions;
    if (f > 0)
        for (size_t v = 0; v < out.size(); ++v)
            for (int a = 0; a < 3; ++a) out[v][a] += mesh.morph_targets[f - 1].position_deltas[v][a];
    return out;
}

uint32_t u32_at(const std::vector<uint8_t>& b, uint64_t at) {
    uint32_t v;
    std::memcpy(&v, b.data() + at, 4);
    return v;
}
void set_u32(std::vector<uint8_t>& b, uint64_t at, uint32_t v) { std::memcpy(b.data() + at, &v, 4); }

// ---- the corpus -----------------------------------------------------------------------------------

// Measured from the files: skins and their size, vertices, triangles, frames (steg's one "base";
// tekmechbot's "mech1" .. "mech22"), and how many vertices the seam rule adds.
struct CorpusModel {
    const char* file;
    uint32_t skin_width, skin_height, triangles, frames;
    const char* animation;
};
const std::vector<CorpusModel>& corpus_models() {
    static const std::vector<CorpusModel> models = {{"steg.mdl", 12, 10, 305, 1, "base"}, {"tekmechbot.MDL", 56, 36, 1748, 22, "mech"}};
    return models;
}

TEST(MdlCorpus, EveryFileReadsWithItsFramesAndSkin) {
    RIGPORT_REQUIRE_CORPUS();
    for (const CorpusModel& m : corpus_models()) {
        auto scene = load(mdl_path(m.file).string());
        ASSERT_TRUE(scene) << m.file << ": " << scene.error().to_string();
        EXPECT_EQ(scene->meta.source_format, "mdl");
        EXPECT_EQ(scene->meta.up, UpAxis::Z);
        ASSERT_EQ(scene->meshes.size(), 1u);
        const Mesh& mesh = scene->meshes[0];
        EXPECT_EQ(mesh.morph_targets.size() + 1, m.frames) << m.file;
        EXPECT_EQ(mesh.triangles.size(), m.triangles) << m.file;
        // One frame is the mesh alone (no animation); tekmechbot's 22 are one animation.
        ASSERT_EQ(scene->animations.size(), m.frames > 1 ? 1u : 0u) << m.file;
        if (m.frames > 1) {
            EXPECT_EQ(scene->animations[0].name, m.animation);
            EXPECT_EQ(scene->animations[0].frame_count, m.frames);
            EXPECT_FLOAT_EQ(scene->animations[0].frame_rate, 10.0f);
        }
        // One skin: an image of the header's size, the mesh's material.
        ASSERT_EQ(scene->images.size(), 1u) << m.file;
        ASSERT_EQ(scene->materials.size(), 1u);
        EXPECT_EQ(mesh.material, 0);
        ASSERT_EQ(scene->materials[0].maps.size(), 1u);
        EXPECT_EQ(scene->materials[0].maps[0].image, 0);
        auto image = detail::decode_rgba(scene->images[0].bytes, 4096);
        ASSERT_TRUE(image) << image.error().to_string();
        EXPECT_EQ(image->width, m.skin_width);
        EXPECT_EQ(image->height, m.skin_height);
        // Every texel is a palette colour.
        for (size_t p = 0; p < image->rgba.size(); p += 4) {
            const bool found = std::any_of(mdl::palette.begin(), mdl::palette.end(), [&](const auto& c) {
                return c[0] == image->rgba[p] && c[1] == image->rgba[p + 1] && c[2] == image->rgba[p + 2];
            });
            ASSERT_TRUE(found) << m.file << " texel " << p / 4;
        }
        // Both files carry a QMEX block after the frames; it is said, not read.
        bool qmex = false;
        for (auto& w : scene->warnings.items) qmex = qmex || w.message.find("QMEX") != std::string::npos;
        EXPECT_TRUE(qmex) << m.file;
    }
}

TEST(MdlCorpus, ConvertsToAGlbTheValidatorPasses) {
    RIGPORT_REQUIRE_CORPUS();
    for (const CorpusModel& m : corpus_models()) {
        const std::string target = (files_dir() / (std::string(m.file) + ".glb")).string();
        Scene converted;
        ASSERT_NO_FATAL_FAILURE(convert_and_validate({mdl_path(m.file).string()}, target, converted));
        EXPECT_EQ(converted.images.size(), 1u) << m.file;
        RIGPORT_REQUIRE_JS();
        const ValidatorReport report = validate_gltf(target);
        ASSERT_TRUE(report.ran()) << report.error;
        EXPECT_EQ(report.errors, 0) << m.file << "\n" << report.summary();
    }
    expect_format_listed("mdl");
}

// assimp's MDL importer reads frame 0 and turns it Y up; its OBJ export has the points.
TEST(MdlCorpus, AssimpAgreesOnTheFirstFrame) {
    RIGPORT_REQUIRE_CORPUS();
    RIGPORT_REQUIRE_ASSIMP();
    for (const CorpusModel& m : corpus_models()) {
        const fs::path obj = files_dir() / (std::string(m.file) + ".obj");
        ASSERT_TRUE(assimp_export_obj(mdl_path(m.file), obj));
        auto scene = load(mdl_path(m.file).string());
        ASSERT_TRUE(scene) << scene.error().to_string();
        std::vector<P3> ours;
        for (auto& p : scene->meshes[0].positions) ours.push_back({p[0], p[2], -p[1]});
        const auto theirs = obj_vertex_positions(obj);
        ASSERT_FALSE(theirs.empty()) << m.file;
        expect_same_points_as_assimp(m.file, ours, theirs, largest_coordinate(ours));
    }
}

TEST(MdlCorpus, HalfLifeFilesStillReadAsHlmdl) {
    RIGPORT_REQUIRE_CORPUS();
    size_t seen = 0;
    for (const fs::path& p : corpus_files("mdl", ".mdl")) {
        if (p.filename().string().find("hl1_") == std::string::npos) continue;
        ++seen;
        auto scene = load(p.string());
        if (p.stem().string().back() == 'T') {  // a texture file: refused by the Half-Life reader, naming what it is
            ASSERT_FALSE(scene) << p;
            EXPECT_EQ(scene.error().code, ErrorCode::Unsupported);
            EXPECT_NE(scene.error().message.find("Half-Life texture file"), std::string::npos) << scene.error().message;
            continue;
        }
        ASSERT_TRUE(scene) << p << ": " << scene.error().to_string();
        EXPECT_EQ(scene->meta.source_format, "hlmdl") << p;
    }
    EXPECT_GE(seen, 5u);
    const FormatInfo* row = find_format_by_extension("X.mdl");
    ASSERT_NE(row, nullptr);
    EXPECT_EQ(row->name, "mdl");  // writing X.mdl picks Quake's row
}

// ---- writing --------------------------------------------------------------------------------------

// MDL -> MDL: the seam pairs the reader split join again (tekmechbot: 1480 rigport vertices, 910
// MDL vertices as in the file, under GLQuake's 1024), and every frame and texture coordinate comes
// back within half a step of the whole animation's box.
TEST(MdlCorpus, MdlToMdlJoinsTheSeamAgain) {
    RIGPORT_REQUIRE_CORPUS();
    auto scene = load(mdl_path("tekmechbot.MDL").string());
    ASSERT_TRUE(scene) << scene.error().to_string();
    auto out = save_output(*scene, "mech.mdl");
    ASSERT_TRUE(out) << out.error().to_string();
    EXPECT_EQ(u32_at(out->bytes, mdl::at_num_verts), 910u);
    auto back = load_bytes(out->bytes, "mech.mdl");
    ASSERT_TRUE(back) << back.error().to_string();
    const Mesh &a = scene->meshes[0], &b = back->meshes[0];
    ASSERT_EQ(b.vertex_count(), a.vertex_count());
    ASSERT_EQ(b.triangles.size(), a.triangles.size());
    std::vector<uint32_t> source(b.vertex_count(), UINT32_MAX);
    for (size_t t = 0; t < a.triangles.size(); ++t)
        for (int k = 0; k < 3; ++k) source[b.triangles[t][k]] = a.triangles[t][k];
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t f = 0; f <= a.morph_targets.size(); ++f)
        for (auto& p : frame_positions(a, f))
            for (int k = 0; k < 3; ++k) lo[k] = std::min(lo[k], p[k]), hi[k] = std::max(hi[k], p[k]);
    for (size_t f = 0; f <= a.morph_targets.size(); ++f) {
        const auto want = frame_positions(a, f), got = frame_positions(b, f);
        for (size_t v = 0; v < got.size(); ++v)
            for (int k = 0; k < 3; ++k) EXPECT_LE(std::fabs(got[v][k] - want[source[v]][k]), 0.5 * (hi[k] - lo[k]) / 255 + 1e-4);
    }
    for (size_t v = 0; v < source.size(); ++v)
        for (int k = 0; k < 2; ++k) EXPECT_NEAR(b.texcoords[0][v][k], a.texcoords[0][source[v]][k], 1e-6) << v;
}

Scene sample_with_texture() {
    Scene s = make_sample_scene();
    s.images.push_back(EmbeddedImage{"sample.png", "image/png", make_sample_texture()});
    for (auto& m : s.materials)
        for (auto& map : m.maps) map.image = 0;
    return s;
}

TEST(MdlWrite, SampleReadsBackWithinOneStepOfTheWholeAnimationsBox) {
    const Scene sample = sample_with_texture();
    Warnings warnings;
    SaveOptions so;
    so.warnings = &warnings;
    auto out = save_output(sample, "sample.mdl", so);
    ASSERT_TRUE(out) << out.error().to_string();
    EXPECT_TRUE(mdl::detect(out->bytes));
    EXPECT_EQ(u32_at(out->bytes, mdl::at_skin_width), 64u);
    EXPECT_EQ(u32_at(out->bytes, mdl::at_skin_height), 64u);
    auto back = load_bytes(out->bytes, "sample.mdl");
    ASSERT_TRUE(back) << back.error().to_string();
    EXPECT_TRUE(back->warnings.items.empty()) << back->warnings.items[0].message;
    EXPECT_EQ(back->meta.source_format, "mdl");

    BakeOptions bake;
    bake.frame_rate = mdl::frame_rate;
    auto baked = bake_frames(sample, bake);
    ASSERT_TRUE(baked);
    ASSERT_EQ(baked->frames.size(), 22u);
    ASSERT_EQ(back->animations.size(), 2u);
    EXPECT_EQ(back->animations[0].name, "wave");
    EXPECT_EQ(back->animations[1].name, "pulse");
    // The skin: the sample's texture in Quake's lit colours, at its size.
    ASSERT_EQ(back->images.size(), 1u);
    auto skin = detail::decode_rgba(back->images[0].bytes, 4096);
    auto want = detail::decode_rgba(make_sample_texture(), 4096);
    ASSERT_TRUE(skin && want);
    EXPECT_EQ(skin->width, 64u);
    EXPECT_EQ(skin->height, 64u);
    double colour_error = 0;
    for (size_t p = 0; p < skin->rgba.size(); p += 4) {
        bool lit = false;
        for (uint32_t i = 0; i < mdl::fullbright_first; ++i)
            lit = lit || (mdl::palette[i][0] == skin->rgba[p] && mdl::palette[i][1] == skin->rgba[p + 1] && mdl::palette[i][2] == skin->rgba[p + 2]);
        ASSERT_TRUE(lit) << "texel " << p / 4 << " is not a lit palette colour";
        for (int c = 0; c < 3; ++c) colour_error = std::max(colour_error, std::fabs(double(skin->rgba[p + c]) - want->rgba[p + c]));
    }
    std::cout << "[ note ] sample skin -> Quake palette: largest channel error " << colour_error << " of 255\n";

    const Mesh& in = sample.meshes[0];
    const Mesh& mesh = back->meshes[0];
    ASSERT_EQ(mesh.triangles.size(), in.triangles.size());
    std::vector<uint32_t> source(mesh.vertex_count(), UINT32_MAX);
    for (size_t t = 0; t < in.triangles.size(); ++t)
        for (int k = 0; k < 3; ++k) source[mesh.triangles[t][k]] = in.triangles[t][k];
    for (uint32_t s : source) ASSERT_NE(s, UINT32_MAX);
    for (size_t v = 0; v < source.size(); ++v)
        for (int a = 0; a < 2; ++a) EXPECT_NEAR(mesh.texcoords[0][v][a], in.texcoords[0][source[v]][a], 0.5 / 64 + 1e-6);

    // One box for every frame: half a step of the whole animation's extent / 255 on each axis.
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (auto& frame : baked->frames)
        for (auto& p : frame.positions[0])
            for (int a = 0; a < 3; ++a) lo[a] = std::min(lo[a], p[a]), hi[a] = std::max(hi[a], p[a]);
    double worst = 0;
    for (size_t f = 0; f < baked->frames.size(); ++f) {
        const auto got = frame_positions(mesh, f);
        for (size_t v = 0; v < got.size(); ++v)
            for (int a = 0; a < 3; ++a) {
                const double step = (hi[a] - lo[a]) / 255.0;
                const double e = std::fabs(got[v][a] - baked->frames[f].positions[0][source[v]][a]);
                EXPECT_LE(e, 0.5 * step + 1e-5) << "frame " << f << " vertex " << v << " axis " << a;
                worst = std::max(worst, e / std::max(step, 1e-12));
            }
    }
    std::cout << "[ note ] sample -> MDL -> scene: worst position error " << worst << " of a step (1/255 of the animation's extent)\n";
    EXPECT_EQ(mesh.morph_targets[0].name, "wave2");
}

TEST(MdlWrite, AssimpReadsTheWrittenSample) {
    RIGPORT_REQUIRE_ASSIMP();
    auto out = save_output(sample_with_texture(), "sample.mdl");
    ASSERT_TRUE(out) << out.error().to_string();
    const fs::path mdl = files_dir() / "sample.mdl", obj = files_dir() / "sample_mdl_assimp.obj";
    write_bytes(mdl, out->bytes);
    ASSERT_TRUE(assimp_export_obj(mdl, obj));
    auto back = load(mdl.string());
    ASSERT_TRUE(back) << back.error().to_string();
    std::vector<P3> ours;
    for (auto& p : back->meshes[0].positions) ours.push_back({p[0], p[2], -p[1]});
    expect_same_points_as_assimp("sample.mdl", ours, obj_vertex_positions(obj), largest_coordinate(ours));
}

TEST(MdlWrite, WithoutAnImageTheSkinIsFlatGreyWithAWarning) {
    Warnings warnings;
    SaveOptions so;
    so.warnings = &warnings;
    auto out = save_output(make_sample_scene(), "sample.mdl", so);  // its texture is a file name only
    ASSERT_TRUE(out) << out.error().to_string();
    bool said = false;
    for (auto& w : warnings.items) said = said || w.message.find("flat grey skin") != std::string::npos;
    EXPECT_TRUE(said);
    EXPECT_EQ(u32_at(out->bytes, mdl::at_skin_width), 256u);
    EXPECT_EQ(out->bytes[mdl::header_size + 4], 8u);  // palette index 8, (123, 123, 123)
}

TEST(MdlWrite, GlQuakeLimitsAreRefusedByName) {
    auto expect_refused = [](const Scene& s, const char* limit) {
        auto out = save_output(s, "big.mdl");
        ASSERT_FALSE(out) << limit;
        EXPECT_EQ(out.error().code, ErrorCode::Unsupported);
        EXPECT_NE(out.error().message.find(limit), std::string::npos) << out.error().message;
    };
    Scene s;
    Mesh mesh;
    for (uint32_t i = 0; i < 1026; ++i) mesh.positions.push_back({float(i), 0, float(i % 3)});
    for (uint32_t i = 0; i + 2 < 1026; i += 3) mesh.triangles.push_back({i, i + 1, i + 2});
    s.meshes.push_back(mesh);
    expect_refused(s, "MAXALIASVERTS");
    s.meshes[0].positions.resize(3);
    s.meshes[0].triangles.assign(2049, Triangle{0, 1, 2});
    expect_refused(s, "MAXALIASTRIS");
    s.meshes[0].triangles.assign(1, Triangle{0, 1, 2});
    MorphTarget target;
    target.position_deltas.assign(3, Vec3{0, 0, 1});
    s.meshes[0].morph_targets.push_back(target);
    Animation a;
    a.name = "long";
    MorphWeightTrack w;
    w.times = {0.0f, 30.0f};  // 301 frames at 10 per second
    w.weights = {0.0f, 1.0f};
    a.morph_tracks.push_back(w);
    s.animations.push_back(a);
    expect_refused(s, "MAXALIASFRAMES");
    s.animations[0].morph_tracks[0].times[1] = 25.0f;  // 251 frames
    auto out = save_output(s, "ok.mdl");
    ASSERT_TRUE(out) << out.error().to_string();
    EXPECT_EQ(u32_at(out->bytes, mdl::at_num_frames), 251u);
}

// ---- a hand-made file: the seam rule, a group skin and a group frame --------------------------------

// Four vertices, two triangles (the second facing back, so its on-seam vertex 1 takes s + 4), a
// group skin of two 8 x 2 images, one simple frame "stand1" and a group frame of two poses "walk1",
// "walk2".
std::vector<uint8_t> hand_made() {
    io::ByteWriter w;
    w.u32(mdl::magic), w.u32(mdl::version);
    for (float f : {1.0f, 1.0f, 1.0f, -1.0f, -2.0f, -3.0f, 10.0f, 0.0f, 0.0f, 0.0f}) w.f32(f);
    for (uint32_t v : {1u, 8u, 2u, 4u, 2u, 2u, 0u, 0u}) w.u32(v);
    w.f32(1.0f);
    w.u32(1), w.u32(2), w.f32(0.1f), w.f32(0.2f);
    for (int k = 0; k < 2; ++k)
        for (int p = 0; p < 16; ++p) w.u8(uint8_t(k ? 250 : p));
    const int32_t st[4][3] = {{0, 0, 0}, {1, 2, 1}, {0, 3, 0}, {0, 1, 1}};
    for (auto& s : st) w.i32(s[0]), w.i32(s[1]), w.i32(s[2]);
    w.i32(1), w.i32(0), w.i32(1), w.i32(2);
    w.i32(0), w.i32(1), w.i32(3), w.i32(2);
    auto pose = [&](const char* name, uint8_t z) {
        for (int i = 0; i < 8; ++i) w.u8(0);
        char n[16] = {};
        std::strncpy(n, name, 15);
        w.bytes(n, 16);
        const uint8_t xyz[4][3] = {{0, 0, z}, {10, 0, z}, {0, 10, z}, {10, 10, z}};
        for (auto& v : xyz) w.u8(v[0]), w.u8(v[1]), w.u8(v[2]), w.u8(5);
    };
    w.u32(0);
    pose("stand1", 0);
    w.u32(1), w.u32(2), w.u32(0), w.u32(0), w.f32(0.1f), w.f32(0.2f);
    pose("walk1", 1);
    pose("walk2", 2);
    return std::move(w.bytes());
}

TEST(MdlRead, SeamRuleGroupSkinsAndGroupFrames) {
    const std::vector<uint8_t> b = hand_made();
    ASSERT_TRUE(mdl::detect(b));
    auto scene = load_bytes(b, "hand.mdl");
    ASSERT_TRUE(scene) << scene.error().to_string();
    // Written back: one skin, the mesh's; the group's second image is said to be left out.
    Warnings written;
    SaveOptions so;
    so.warnings = &written;
    ASSERT_TRUE(save_output(*scene, "hand_back.mdl", so));
    bool said = false;
    for (auto& w : written.items) said = said || w.message.find("1 other materials' images are not written") != std::string::npos;
    EXPECT_TRUE(said);
    const Mesh& mesh = scene->meshes[0];
    ASSERT_EQ(mesh.vertex_count(), 5u);  // vertex 1 twice: front (s 2) and back (s 2 + 8 / 2)
    EXPECT_FLOAT_EQ(mesh.texcoords[0][mesh.triangles[0][1]][0], 2.5f / 8);
    EXPECT_FLOAT_EQ(mesh.texcoords[0][mesh.triangles[1][0]][0], 6.5f / 8);
    EXPECT_FLOAT_EQ(mesh.texcoords[0][mesh.triangles[1][1]][0], 1.5f / 8);  // vertex 3: not on the seam
    EXPECT_EQ(mesh.positions[mesh.triangles[0][1]], (Vec3{9, -2, -3}));
    EXPECT_EQ(mesh.normals[0], detail::quake_normal_table[5]);
    ASSERT_EQ(scene->images.size(), 2u);
    ASSERT_EQ(scene->materials.size(), 2u);
    EXPECT_EQ(scene->materials[1].name, "skin0_1");
    auto second = detail::decode_rgba(scene->images[1].bytes, 64);
    ASSERT_TRUE(second);
    EXPECT_EQ(second->rgba[0], mdl::palette[250][0]);
    EXPECT_EQ(second->rgba[1], mdl::palette[250][1]);
    ASSERT_EQ(mesh.morph_targets.size(), 2u);
    EXPECT_FLOAT_EQ(mesh.morph_targets[1].position_deltas[0][2], 2.0f);
    ASSERT_EQ(scene->animations.size(), 2u);
    EXPECT_EQ(scene->animations[0].name, "stand");
    EXPECT_EQ(scene->animations[1].name, "walk");
    EXPECT_EQ(scene->animations[1].frame_count, 2u);

    LoadOptions fast;
    fast.vertex_frame_rate = 20;
    auto quick = load_bytes(b, "hand.mdl", fast);
    ASSERT_TRUE(quick);
    EXPECT_FLOAT_EQ(quick->animations[1].frame_rate, 20.0f);
}

LoadOptions mdl_options() {
    LoadOptions o;
    o.format = "mdl";
    return o;
}

TEST(MdlRead, HostileHeadersAreErrorsAtByteOffsets) {
    const std::vector<uint8_t> good = hand_made();
    auto expect_error = [&](uint64_t at, uint32_t value, uint64_t offset, const char* words) {
        std::vector<uint8_t> b = good;
        set_u32(b, at, value);
        auto scene = load_bytes(b, "hostile.mdl", mdl_options());
        ASSERT_FALSE(scene) << "word at " << at << " = " << value;
        EXPECT_EQ(scene.error().offset, std::optional<uint64_t>(offset)) << scene.error().to_string();
        EXPECT_NE(scene.error().message.find(words), std::string::npos) << scene.error().to_string();
    };
    expect_error(mdl::at_num_verts, 0, mdl::at_num_verts, "numverts is 0");
    expect_error(mdl::at_num_frames, 0x7FFFFFFF, mdl::at_num_frames, "exceeds the limit");
    expect_error(mdl::at_num_skins, 1000, mdl::at_num_skins, "run past the end");
    expect_error(mdl::at_skin_width, 0x10000, mdl::at_skin_width, "skin size");
    expect_error(mdl::at_num_tris, 0xFFFFFFFF, mdl::at_num_tris, "negative");
    expect_error(mdl::header_size + 4, 0x40000000, mdl::header_size + 4, "skin group 0");
    expect_error(mdl::header_size, 7, mdl::header_size, "type 7");
    // Without skins the skin size is not a size of anything: a huge one allocates nothing.
    {
        std::vector<uint8_t> b = good;
        set_u32(b, mdl::at_num_skins, 0);
        set_u32(b, mdl::at_skin_width, 0x3FFFFFF);
        set_u32(b, mdl::at_skin_height, 0x3FFFFFF);
        auto scene = load_bytes(b, "noskins.mdl", mdl_options());
        ASSERT_FALSE(scene);  // the skin group's bytes are now read as texture coordinates, which run out
        EXPECT_TRUE(scene.error().offset.has_value()) << scene.error().to_string();
    }
    // A triangle's vertex index past numverts.
    const uint64_t tris = mdl::header_size + 16 + 32 + 4 * 12;
    expect_error(tris + 4, 4, tris + 4, "vertex index 4");
    // Every truncation is an error or a scene, never a crash; those inside the header name where.
    for (size_t n = 0; n < good.size(); ++n) {
        auto scene = load_bytes(std::span<const uint8_t>(good.data(), n), "cut.mdl", mdl_options());
        if (!scene) {
            EXPECT_TRUE(scene.error().offset.has_value()) << n << ": " << scene.error().to_string();
        }
    }
}

// The skin comes from the texture the model names when it lies on disk beside it (the pipeline
// reads it for the writer): the sample's 64 x 64 PNG beside an IQM becomes the MDL's skin, in
// Quake's palette within the same error as from a held image, with no "flat grey" warning.
TEST(MdlWrite, TheTextureBesideTheModelIsTheSkin) {
    const auto dir = files_dir();
    ASSERT_TRUE(save(make_sample_scene(), (dir / "in.iqm").string()));
    const auto texture = make_sample_texture();
    write_bytes(dir / "sample_texture.png", texture);
    const auto r = run_cli({"convert", (dir / "in.iqm").string(), "-o", (dir / "out.mdl").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err.find("flat grey"), std::string::npos) << r.err;
    const auto bytes = read_bytes(dir / "out.mdl");
    EXPECT_EQ(u32_at(bytes, mdl::at_skin_width), 64u);
    EXPECT_EQ(u32_at(bytes, mdl::at_skin_height), 64u);
    // The same skin as written from the scene holding the image.
    auto held = save_output(sample_with_texture(), "sample.mdl");
    ASSERT_TRUE(held) << held.error().to_string();
    auto a = load(dir.string() + "/out.mdl");
    auto b = load_bytes(held->bytes, "sample.mdl");
    ASSERT_TRUE(a && b);
    ASSERT_EQ(a->images.size(), 1u);
    ASSERT_EQ(b->images.size(), 1u);
    EXPECT_EQ(a->images[0].bytes, b->images[0].bytes);
}

}  // namespace
}  // namespace rigport::test
