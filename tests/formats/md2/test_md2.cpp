// Quake 2 MD2 (docs/md2.md): the corpus reads with its frames and animations, converts to a GLB the
// Khronos validator passes, and agrees with two independent readers (assimp's first frame, three.js's
// MD2Loader at three frames); the built-in sample written as MD2 reads back as bake_frames made it,
// within the quantisation; Quake 2's limits are refused by name; hostile headers give clean errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <tuple>

#include <nlohmann/json.hpp>

#include "assimp_oracle.hpp"
#include "convert_checks.hpp"
#include "formats/md2/md2.hpp"
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

fs::path md2_path(const char* stem) { return corpus_dir() / "md2" / (std::string("assimp_assimp__") + stem + ".md2"); }

// Frame f of mesh 0 as the scene holds it: frame 0 is the mesh, frame f > 0 adds target f - 1.
std::vector<Vec3> frame_positions(const Mesh& mesh, size_t f) {
    std::vector<Vec3> out = mesh.positions;
    if (f > 0)
        for (size_t v = 0; v < out.size(); ++v)
            for (int a = 0; a < 3; ++a) out[v][a] += mesh.morph_targets[f - 1].position_deltas[v][a];
    return out;
}
std::vector<Vec3> frame_normals(const Mesh& mesh, size_t f) {
    std::vector<Vec3> out = mesh.normals;
    if (f > 0)
        for (size_t v = 0; v < out.size(); ++v)
            for (int a = 0; a < 3; ++a) out[v][a] += mesh.morph_targets[f - 1].normal_deltas[v][a];
    return out;
}

uint32_t word(const std::vector<uint8_t>& b, uint32_t w) {
    uint32_t v;
    std::memcpy(&v, b.data() + 4 * w, 4);
    return v;
}
void set_word(std::vector<uint8_t>& b, uint32_t w, uint32_t v) { std::memcpy(b.data() + 4 * w, &v, 4); }

// ---- the corpus -----------------------------------------------------------------------------------

// Measured from the files (and agreed by three.js's MD2Loader below): frames, triangles, distinct
// (vertex, st) pairs, and the animations in order with their frame counts.
struct CorpusModel {
    const char* stem;
    uint32_t frames, triangles, vertices;
    std::vector<std::pair<std::string, uint32_t>> animations;
};
const std::vector<CorpusModel>& corpus_models() {
    static const std::vector<CorpusModel> models = {
        {"faerie", 198, 654, 503,
         {{"stand", 40}, {"run", 6}, {"attack", 8}, {"pain", 12}, {"jump", 6}, {"flip", 12}, {"salute", 11}, {"taunt", 17},
          {"wave", 11}, {"point", 12}, {"crstnd", 19}, {"crwalk", 6}, {"crattak", 9}, {"crpain", 4}, {"crdeath", 5}, {"death", 20}}},
        {"sydney", 198, 679, 482,
         {{"stand", 40}, {"run", 6}, {"attack", 8}, {"pain", 12}, {"jump", 6}, {"flip", 12}, {"salute", 11}, {"taunt", 17},
          {"wave", 11}, {"point", 12}, {"crstnd", 19}, {"crwalk", 6}, {"crattak", 9}, {"crpain", 4}, {"crdeth", 5}, {"death", 20}}},
    };
    return models;
}

TEST(Md2Corpus, EveryFileReadsWithItsFramesAndAnimations) {
    RIGPORT_REQUIRE_CORPUS();
    EXPECT_EQ(corpus_files("md2", ".md2").size(), corpus_models().size() + 1);  // + the malformed one
    for (const CorpusModel& m : corpus_models()) {
        auto scene = load(md2_path(m.stem).string());
        ASSERT_TRUE(scene) << m.stem << ": " << scene.error().to_string();
        EXPECT_EQ(scene->meta.source_format, "md2");
        EXPECT_EQ(scene->meta.up, UpAxis::Z);
        ASSERT_EQ(scene->meshes.size(), 1u) << m.stem;
        const Mesh& mesh = scene->meshes[0];
        EXPECT_EQ(mesh.morph_targets.size() + 1, m.frames) << m.stem;
        EXPECT_EQ(mesh.triangles.size(), m.triangles) << m.stem;
        ASSERT_EQ(scene->animations.size(), m.animations.size()) << m.stem;
        uint32_t total = 0;
        for (size_t i = 0; i < m.animations.size(); ++i) {
            EXPECT_EQ(scene->animations[i].name, m.animations[i].first) << m.stem;
            EXPECT_EQ(scene->animations[i].frame_count, m.animations[i].second) << m.stem << " " << m.animations[i].first;
            EXPECT_FLOAT_EQ(scene->animations[i].frame_rate, 10.0f);
            total += scene->animations[i].frame_count;
        }
        EXPECT_EQ(total, m.frames) << m.stem;
        EXPECT_EQ(mesh.vertex_count(), m.vertices) << m.stem;  // distinct (vertex, st) pairs
        EXPECT_TRUE(scene->materials.empty()) << m.stem;      // neither file names a skin
        EXPECT_EQ(mesh.material, -1);
        // Clockwise seen from outside (meta.front_face): the stored corner order encloses a negative volume.
        EXPECT_EQ(scene->meta.front_face, Winding::Clockwise);
        double volume = 0;
        for (const Triangle& t : mesh.triangles) {
            const Vec3 &a = mesh.positions[t[0]], &b = mesh.positions[t[1]], &c = mesh.positions[t[2]];
            volume += (double(a[0]) * (double(b[1]) * c[2] - double(b[2]) * c[1]) - double(a[1]) * (double(b[0]) * c[2] - double(b[2]) * c[0]) +
                       double(a[2]) * (double(b[0]) * c[1] - double(b[1]) * c[0])) / 6;
        }
        EXPECT_LT(volume, 0) << m.stem;
    }
}

TEST(Md2Corpus, ConvertsToAGlbTheValidatorPasses) {
    RIGPORT_REQUIRE_CORPUS();
    for (const CorpusModel& m : corpus_models()) {
        const std::string target = (files_dir() / (std::string(m.stem) + ".glb")).string();
        Scene converted;
        ASSERT_NO_FATAL_FAILURE(convert_and_validate({md2_path(m.stem).string()}, target, converted));
        EXPECT_EQ(converted.animations.size(), m.animations.size()) << m.stem;
        RIGPORT_REQUIRE_JS();
        const ValidatorReport report = validate_gltf(target);
        ASSERT_TRUE(report.ran()) << report.error;
        EXPECT_EQ(report.errors, 0) << m.stem << "\n" << report.summary();
    }
    expect_format_listed("md2");
}

TEST(Md2Corpus, ZeroVerticesIsAClearError) {
    RIGPORT_REQUIRE_CORPUS();
    auto scene = load(md2_path("malformed_zero_numvertices").string());
    ASSERT_FALSE(scene);
    EXPECT_EQ(scene.error().code, ErrorCode::Malformed);
    EXPECT_EQ(scene.error().offset, std::optional<uint64_t>(24));
    EXPECT_NE(scene.error().message.find("num_xyz is 0"), std::string::npos) << scene.error().to_string();
    RunResult r = run_cli({"info", md2_path("malformed_zero_numvertices").string()});
    EXPECT_EQ(r.exit_code, 2) << r.err;
}

// `info --json` counts a vertex-animated mesh's morph targets: one per frame after the first
// (faerie: 198 frames), and the text report shows them on the mesh's line.
TEST(Md2Corpus, InfoReportsTheMorphTargetsPerMesh) {
    RIGPORT_REQUIRE_CORPUS();
    RunResult r = run_cli({"info", "--json", md2_path("faerie").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto info = nlohmann::json::parse(r.out);
    ASSERT_EQ(info["meshes"].size(), 1u);
    EXPECT_EQ(info["meshes"][0]["morph_targets"], 197);
    RunResult text = run_cli({"info", md2_path("faerie").string()});
    EXPECT_NE(text.out.find("197 morph targets"), std::string::npos) << text.out;
}

// assimp's MD2 importer reads frame 0 and turns it Y up; its OBJ export has the points.
TEST(Md2Corpus, AssimpAgreesOnTheFirstFrame) {
    RIGPORT_REQUIRE_CORPUS();
    RIGPORT_REQUIRE_ASSIMP();
    for (const CorpusModel& m : corpus_models()) {
        const fs::path obj = files_dir() / (std::string(m.stem) + ".obj");
        ASSERT_TRUE(assimp_export_obj(md2_path(m.stem), obj));
        auto scene = load(md2_path(m.stem).string());
        ASSERT_TRUE(scene) << scene.error().to_string();
        // assimp turns the Z-up model Y up: (x, y, z) -> (x, z, -y), as for MD5.
        std::vector<P3> ours;
        for (auto& p : scene->meshes[0].positions) ours.push_back({p[0], p[2], -p[1]});
        const auto theirs = obj_vertex_positions(obj);
        ASSERT_FALSE(theirs.empty()) << m.stem;
        expect_same_points_as_assimp(m.stem, ours, theirs, largest_coordinate(ours));
    }
}

// three.js's MD2Loader (tests/js/md2.mjs) gives per-corner morph positions of a frame; rigport's
// reading of the same corner (mesh + that frame's target) must match within float rounding of the
// delta (1e-4 of the model size).
TEST(Md2Corpus, ThreeJsMd2LoaderPlaysTheSameFrames) {
    RIGPORT_REQUIRE_CORPUS();
    RIGPORT_REQUIRE_JS();
    for (const CorpusModel& m : corpus_models()) {
        auto scene = load(md2_path(m.stem).string());
        ASSERT_TRUE(scene) << scene.error().to_string();
        const Mesh& mesh = scene->meshes[0];
        const std::vector<size_t> frames = {0, 57, m.frames - 1};
        RunResult r = run_program("node", {(fs::path(RIGPORT_SOURCE_DIR) / "tests" / "js" / "md2.mjs").string(), md2_path(m.stem).string(),
                                           nlohmann::json(frames).dump()});
        ASSERT_EQ(r.exit_code, 0) << r.err;
        const auto j = nlohmann::json::parse(r.out);
        ASSERT_EQ(j["corners"].get<size_t>(), mesh.triangles.size() * 3);
        // three.js's clips (grouped by name as ours, one per prefix) in the same order and lengths.
        ASSERT_EQ(j["animations"].size(), scene->animations.size());
        for (size_t i = 0; i < scene->animations.size(); ++i) EXPECT_EQ(j["animations"][i]["name"], scene->animations[i].name);
        double size = 0, worst = 0;
        for (auto& p : mesh.positions) size = std::max({size, std::fabs(double(p[0])), std::fabs(double(p[1])), std::fabs(double(p[2]))});
        for (size_t i = 0; i < frames.size(); ++i) {
            const auto& theirs = j["frames"][i]["positions"];
            const std::vector<Vec3> ours = frame_positions(mesh, frames[i]);
            if (frames[i] > 0) {
                EXPECT_EQ(j["frames"][i]["name"], mesh.morph_targets[frames[i] - 1].name);
            }
            ASSERT_EQ(theirs.size(), mesh.triangles.size() * 9);
            for (size_t t = 0; t < mesh.triangles.size(); ++t)
                for (int k = 0; k < 3; ++k)
                    for (int a = 0; a < 3; ++a)
                        worst = std::max(worst, std::fabs(theirs[9 * t + 3 * k + a].get<double>() - ours[mesh.triangles[t][k]][a]));
        }
        EXPECT_LE(worst, 1e-4 * size) << m.stem;
        std::cout << "[ note ] " << m.stem << ": three.js MD2Loader vs rigport at frames 0, 57, " << m.frames - 1 << ": max difference "
                  << worst << " (model size " << size << ")\n";
    }
}

TEST(Md2Corpus, Md2ToMd2KeepsEveryFrameWithinOneQuantisationStep) {
    RIGPORT_REQUIRE_CORPUS();
    auto scene = load(md2_path("faerie").string());
    ASSERT_TRUE(scene) << scene.error().to_string();
    auto out = save_output(*scene, "faerie.md2");
    ASSERT_TRUE(out) << out.error().to_string();
    auto back = load_bytes(out->bytes, "faerie.md2");
    ASSERT_TRUE(back) << back.error().to_string();
    ASSERT_EQ(back->animations.size(), scene->animations.size());
    for (size_t i = 0; i < scene->animations.size(); ++i) {
        EXPECT_EQ(back->animations[i].name, scene->animations[i].name);
        EXPECT_EQ(back->animations[i].frame_count, scene->animations[i].frame_count);
    }
    const Mesh &a = scene->meshes[0], &b = back->meshes[0];
    ASSERT_EQ(a.morph_targets.size(), b.morph_targets.size());
    ASSERT_EQ(a.triangles.size(), b.triangles.size());
    for (size_t f = 0; f <= a.morph_targets.size(); f += 7) {
        const auto pa = frame_positions(a, f), pb = frame_positions(b, f);
        float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (auto& p : pa)
            for (int k = 0; k < 3; ++k) lo[k] = std::min(lo[k], p[k]), hi[k] = std::max(hi[k], p[k]);
        for (size_t t = 0; t < a.triangles.size(); ++t)
            for (int c = 0; c < 3; ++c)
                for (int k = 0; k < 3; ++k)
                    EXPECT_LE(std::fabs(pa[a.triangles[t][c]][k] - pb[b.triangles[t][c]][k]), (hi[k] - lo[k]) / 255.0f * 0.5f + 1e-4f)
                        << "frame " << f;
    }
}

// ---- writing: the built-in sample ------------------------------------------------------------------

// The sample with its texture embedded, so the writer knows the skin's size (64 x 64).
Scene sample_with_texture() {
    Scene s = make_sample_scene();
    s.images.push_back(EmbeddedImage{"sample.png", "image/png", make_sample_texture()});
    for (auto& m : s.materials)
        for (auto& map : m.maps) map.image = 0;
    return s;
}

TEST(Md2Write, SampleReadsBackAsBakeFramesMadeIt) {
    const Scene sample = sample_with_texture();
    Warnings warnings;
    SaveOptions so;
    so.warnings = &warnings;
    auto out = save_output(sample, "sample.md2", so);
    ASSERT_TRUE(out) << out.error().to_string();
    EXPECT_TRUE(md2::detect(out->bytes));
    EXPECT_EQ(word(out->bytes, md2::w_skin_width), 64u);
    EXPECT_EQ(word(out->bytes, md2::w_skin_height), 64u);
    EXPECT_EQ(word(out->bytes, md2::w_ofs_end), out->bytes.size());
    auto back = load_bytes(out->bytes, "sample.md2");
    ASSERT_TRUE(back) << back.error().to_string();
    EXPECT_TRUE(back->warnings.items.empty()) << back->warnings.items[0].message;

    BakeOptions bake;
    bake.frame_rate = md2::frame_rate;
    auto baked = bake_frames(sample, bake);
    ASSERT_TRUE(baked);
    ASSERT_EQ(baked->frames.size(), 22u);  // wave: 1 s at 10 fps = 11 frames; pulse: 11
    ASSERT_EQ(back->animations.size(), 2u);
    EXPECT_EQ(back->animations[0].name, "wave");
    EXPECT_EQ(back->animations[0].frame_count, 11u);
    EXPECT_EQ(back->animations[1].name, "pulse");
    EXPECT_EQ(back->animations[1].frame_count, 11u);
    ASSERT_EQ(back->materials.size(), 1u);
    ASSERT_EQ(back->materials[0].maps.size(), 1u);
    EXPECT_EQ(back->materials[0].maps[0].uri, sample.materials[0].maps[0].uri);

    // Read-back vertex -> the sample's vertex, through the corners (triangles keep their order).
    const Mesh& in = sample.meshes[0];
    const Mesh& mesh = back->meshes[0];
    ASSERT_EQ(mesh.triangles.size(), in.triangles.size());
    std::vector<uint32_t> source(mesh.vertex_count(), UINT32_MAX);
    for (size_t t = 0; t < in.triangles.size(); ++t)
        for (int k = 0; k < 3; ++k) source[mesh.triangles[t][k]] = in.triangles[t][k];
    for (uint32_t s : source) ASSERT_NE(s, UINT32_MAX);
    // Texture coordinates: within half a texel of 64, and those on the skin's far edge (1) on its
    // last texel, 63 / 64, which is inside the skin as DarkPlaces requires (docs/md2.md "Writing").
    for (size_t v = 0; v < source.size(); ++v)
        for (int a = 0; a < 2; ++a) {
            const double want = in.texcoords[0][source[v]][a];
            EXPECT_NEAR(mesh.texcoords[0][v][a], want > 1 - 0.5 / 64 ? 63.0 / 64 : want, 0.5 / 64 + 1e-6);
        }

    double worst_step = 0;
    for (size_t f = 0; f < baked->frames.size(); ++f) {
        const auto& want = baked->frames[f].positions[0];
        const auto& want_n = baked->frames[f].normals[0];
        float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (auto& p : want)
            for (int a = 0; a < 3; ++a) lo[a] = std::min(lo[a], p[a]), hi[a] = std::max(hi[a], p[a]);
        const auto got = frame_positions(mesh, f), got_n = frame_normals(mesh, f);
        for (size_t v = 0; v < got.size(); ++v) {
            const Vec3 &p = want[source[v]], &n = want_n[source[v]];
            for (int a = 0; a < 3; ++a) {
                // Half a step of this frame's extent / 255 on each axis, plus float rounding.
                const double step = (hi[a] - lo[a]) / 255.0;
                EXPECT_LE(std::fabs(got[v][a] - p[a]), 0.5 * step + 1e-5) << "frame " << f << " vertex " << v << " axis " << a;
                worst_step = std::max(worst_step, std::fabs(got[v][a] - p[a]) / std::max(step, 1e-12));
            }
            // The normal is the table's nearest entry to the baked one.
            double best = -2;
            for (const Vec3& t : md2::normal_table) best = std::max(best, double(t[0]) * n[0] + double(t[1]) * n[1] + double(t[2]) * n[2]);
            const double dot = double(got_n[v][0]) * n[0] + double(got_n[v][1]) * n[1] + double(got_n[v][2]) * n[2];
            EXPECT_NEAR(dot, best, 1e-4) << "frame " << f << " vertex " << v;
        }
    }
    std::cout << "[ note ] sample -> MD2 -> scene: worst position error " << worst_step << " of a quantisation step\n";
    // And the frame names hold the clip's name and the frame's number.
    EXPECT_EQ(mesh.morph_targets[0].name, "wave2");
    EXPECT_EQ(mesh.morph_targets.back().name, "pulse11");
}

TEST(Md2Write, AssimpReadsTheWrittenSample) {
    RIGPORT_REQUIRE_ASSIMP();
    auto out = save_output(make_sample_scene(), "sample.md2");
    ASSERT_TRUE(out) << out.error().to_string();
    const fs::path md2 = files_dir() / "sample.md2", obj = files_dir() / "sample_assimp.obj";
    write_bytes(md2, out->bytes);
    ASSERT_TRUE(assimp_export_obj(md2, obj));
    auto back = load(md2.string());
    ASSERT_TRUE(back) << back.error().to_string();
    std::vector<P3> ours;
    for (auto& p : back->meshes[0].positions) ours.push_back({p[0], p[2], -p[1]});
    expect_same_points_as_assimp("sample.md2", ours, obj_vertex_positions(obj), largest_coordinate(ours));
}

TEST(Md2Write, GlCommandsAreFansOfTheTriangles) {
    auto out = save_output(make_sample_scene(), "sample.md2");
    ASSERT_TRUE(out) << out.error().to_string();
    const auto& b = out->bytes;
    const uint32_t tris = word(b, md2::w_num_tris), glcmds = word(b, md2::w_num_glcmds), at = word(b, md2::w_ofs_glcmds);
    ASSERT_EQ(glcmds, 10 * tris + 1);
    ASSERT_EQ(at + 4 * glcmds, b.size());
    const uint32_t tri_at = word(b, md2::w_ofs_tris);
    for (uint32_t t = 0; t < tris; ++t) {
        int32_t count;
        std::memcpy(&count, b.data() + at + 40 * t, 4);
        ASSERT_EQ(count, -3);
        for (int k = 0; k < 3; ++k) {
            uint32_t index;
            std::memcpy(&index, b.data() + at + 40 * t + 4 + 12 * k + 8, 4);
            uint16_t tri_index;
            std::memcpy(&tri_index, b.data() + tri_at + 12 * t + 2 * k, 2);
            EXPECT_EQ(index, tri_index);
        }
    }
    EXPECT_EQ(word(b, (b.size() - 4) / 4), 0u);
}

TEST(Md2Write, QuakeTwoLimitsAreRefusedByName) {
    auto expect_refused = [](const Scene& s, const char* limit) {
        auto out = save_output(s, "big.md2");
        ASSERT_FALSE(out) << limit;
        EXPECT_EQ(out.error().code, ErrorCode::Unsupported);
        EXPECT_NE(out.error().message.find(limit), std::string::npos) << out.error().message;
    };
    Scene s;
    Mesh mesh;
    for (uint32_t i = 0; i < 2049; ++i) mesh.positions.push_back({float(i), 0, 0});
    for (uint32_t i = 0; i + 2 < 2049; i += 3) mesh.triangles.push_back({i, i + 1, i + 2});
    s.meshes.push_back(mesh);
    expect_refused(s, "MAX_VERTS");

    s.meshes[0].positions.resize(3);
    s.meshes[0].triangles.assign(4097, Triangle{0, 1, 2});
    expect_refused(s, "MAX_TRIANGLES");

    s.meshes[0].triangles.assign(1, Triangle{0, 1, 2});
    for (int i = 0; i < 33; ++i) {
        Material m;
        m.name = "m" + std::to_string(i);
        TextureMap map;
        map.uri = "skin" + std::to_string(i) + ".pcx";
        m.maps.push_back(map);
        s.materials.push_back(m);
    }
    expect_refused(s, "MAX_MD2SKINS");
    s.materials.resize(32);
    EXPECT_TRUE(save_output(s, "ok.md2"));

    // 60 s of animation at 10 frames per second: 601 frames.
    MorphTarget target;
    target.position_deltas.assign(3, Vec3{0, 0, 1});
    s.meshes[0].morph_targets.push_back(target);
    Animation a;
    a.name = "long";
    MorphWeightTrack w;
    w.times = {0.0f, 60.0f};
    w.weights = {0.0f, 1.0f};
    a.morph_tracks.push_back(w);
    s.animations.push_back(a);
    expect_refused(s, "MAX_FRAMES");
    s.animations[0].morph_tracks[0].times[1] = 10.0f;  // 101 frames
    auto out = save_output(s, "ok.md2");
    ASSERT_TRUE(out) << out.error().to_string();
    EXPECT_EQ(word(out->bytes, md2::w_num_frames), 101u);
}

// Every material's diffuse texture is a skin, the mesh's own first; read back, each skin is a
// material and the mesh uses the first.
TEST(Md2Write, SkinsComeFromTheMaterialsTheMeshsFirst) {
    Scene s = make_sample_scene();
    s.materials.clear();
    for (const char* uri : {"models/a.pcx", "models/b.pcx", "models/c.pcx"}) {
        Material m;
        m.name = uri;
        TextureMap map;
        map.uri = uri;
        m.maps.push_back(map);
        s.materials.push_back(m);
    }
    s.meshes[0].material = 1;
    auto out = save_output(s, "skins.md2");
    ASSERT_TRUE(out) << out.error().to_string();
    EXPECT_EQ(word(out->bytes, md2::w_num_skins), 3u);
    auto back = load_bytes(out->bytes, "skins.md2");
    ASSERT_TRUE(back) << back.error().to_string();
    ASSERT_EQ(back->materials.size(), 3u);
    const char* want[] = {"models/b.pcx", "models/a.pcx", "models/c.pcx"};
    for (size_t i = 0; i < 3; ++i) {
        ASSERT_EQ(back->materials[i].maps.size(), 1u);
        EXPECT_EQ(back->materials[i].maps[0].uri, want[i]);
    }
    EXPECT_EQ(back->meshes[0].material, 0);
}

TEST(Md2Write, LongClipNamesKeepTheirFrameNumbers) {
    Scene s = make_sample_scene();
    s.animations[0].name = "a_very_long_animation_name";
    Warnings warnings;
    SaveOptions so;
    so.warnings = &warnings;
    auto out = save_output(s, "long.md2", so);
    ASSERT_TRUE(out) << out.error().to_string();
    bool warned = false;
    for (auto& w : warnings.items) warned = warned || w.message.find("names shortened") != std::string::npos;
    EXPECT_TRUE(warned);
    auto back = load_bytes(out->bytes, "long.md2");
    ASSERT_TRUE(back) << back.error().to_string();
    ASSERT_EQ(back->animations.size(), 2u);
    EXPECT_EQ(back->animations[0].name, "a_very_long_a");  // 15 bytes with room for the two-digit "11"
    EXPECT_EQ(back->animations[0].frame_count, 11u);
}

// ---- reading: hand-made files -------------------------------------------------------------------------

// --frame-rate on the command line sets the rate the frames play at (an IQE keeps it as its
// framerate); without it the file plays at Quake 2's 10; outside (0, 10000] is a usage error.
TEST(Md2Read, FrameRateFromTheCommandLine) {
    auto out = save_output(make_sample_scene(), "sample.md2");
    ASSERT_TRUE(out);
    const auto dir = files_dir();
    write_bytes(dir / "sample.md2", out->bytes);
    for (const auto& [args, rate] : {std::pair<std::vector<std::string>, float>{{"--frame-rate", "24"}, 24.0f}, {{}, 10.0f}}) {
        std::vector<std::string> cmd = {"convert", (dir / "sample.md2").string(), "-o", (dir / "sample.iqe").string(), "--force"};
        cmd.insert(cmd.end(), args.begin(), args.end());
        RunResult r = run_cli(cmd);
        ASSERT_EQ(r.exit_code, 0) << r.err;
        auto back = load((dir / "sample.iqe").string());
        ASSERT_TRUE(back) << back.error().to_string();
        ASSERT_FALSE(back->animations.empty());
        EXPECT_FLOAT_EQ(back->animations[0].frame_rate, rate);
    }
    RunResult zero = run_cli({"convert", (dir / "sample.md2").string(), "-o", (dir / "x.iqe").string(), "--frame-rate", "0"});
    EXPECT_EQ(zero.exit_code, 1) << zero.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "x.iqe"));
}

TEST(Md2Read, FrameRateOptionAndHostileHeaders) {
    auto out = save_output(make_sample_scene(), "sample.md2");
    ASSERT_TRUE(out);
    LoadOptions o;
    o.vertex_frame_rate = 20;
    auto fast = load_bytes(out->bytes, "sample.md2", o);
    ASSERT_TRUE(fast) << fast.error().to_string();
    EXPECT_FLOAT_EQ(fast->animations[0].frame_rate, 20.0f);
    EXPECT_FLOAT_EQ(fast->animations[0].morph_tracks[0].times.back(), 0.5f);

    LoadOptions as_md2;
    as_md2.format = "md2";
    // Each header word made hostile: a clean error at a byte offset, or a scene.
    for (uint32_t w = 0; w < md2::word_count; ++w)
        for (uint32_t v : {0u, 1u, 0xFFFFu, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFFu, uint32_t(out->bytes.size()), uint32_t(out->bytes.size() + 1)}) {
            std::vector<uint8_t> b = out->bytes;
            set_word(b, w, v);
            auto scene = load_bytes(b, "hostile.md2", as_md2);
            if (!scene) EXPECT_TRUE(scene.error().offset.has_value()) << "word " << w << " = " << v << ": " << scene.error().to_string();
            else EXPECT_TRUE(check_invariants(*scene)) << "word " << w << " = " << v;
        }
    // A triangle's vertex index past num_xyz: an error at that index.
    std::vector<uint8_t> b = out->bytes;
    const uint32_t tri_at = word(b, md2::w_ofs_tris);
    b[tri_at] = 0xFF, b[tri_at + 1] = 0xFF;
    auto bad = load_bytes(b, "bad.md2");
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().offset, std::optional<uint64_t>(tri_at));
    // Version 3 with the same magic is JOE's, not ours.
    b = out->bytes;
    set_word(b, 1, 3);
    EXPECT_FALSE(md2::detect(b));
    auto joe = load_bytes(b, "x.md2", as_md2);
    ASSERT_FALSE(joe);
    EXPECT_EQ(joe.error().code, ErrorCode::Unsupported);
}

// A minimal MD2 made here: one vertex, `pairings` texture coordinates, one triangle per
// coordinate using the vertex with it at all three corners, one frame.
std::vector<uint8_t> one_vertex_md2(uint32_t pairings) {
    std::vector<uint8_t> b(md2::header_size);
    const uint32_t ofs_st = md2::header_size, ofs_tris = ofs_st + 4 * pairings, ofs_frames = ofs_tris + 12 * pairings;
    const uint32_t end = ofs_frames + md2::frame_header_size + 4;
    const uint32_t h[md2::word_count] = {md2::magic, md2::version, 64, 64, md2::frame_header_size + 4, 0, 1, pairings, pairings, 0, 1,
                                         ofs_st, ofs_st, ofs_tris, ofs_frames, end, end};
    for (uint32_t w = 0; w < md2::word_count; ++w) set_word(b, w, h[w]);
    for (uint32_t i = 0; i < pairings; ++i) b.insert(b.end(), {uint8_t(i), 0, 0, 0});
    for (uint32_t i = 0; i < pairings; ++i) b.insert(b.end(), {0, 0, 0, 0, 0, 0, uint8_t(i), 0, uint8_t(i), 0, uint8_t(i), 0});
    b.resize(end, 0);
    const float one = 1.0f;
    for (int a = 0; a < 3; ++a) std::memcpy(b.data() + ofs_frames + 4 * a, &one, 4);
    std::memcpy(b.data() + ofs_frames + 24, "base1", 5);
    return b;
}

TEST(Md2Read, TexturePairingsBeyondSixteenPerVertexAreRefused) {
    auto ok = load_bytes(one_vertex_md2(16), "ok.md2");
    ASSERT_TRUE(ok) << ok.error().to_string();
    EXPECT_EQ(ok->meshes[0].vertex_count(), 16u);
    auto refused = load_bytes(one_vertex_md2(17), "many.md2");
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().code, ErrorCode::LimitExceeded);
    EXPECT_EQ(refused.error().offset, std::optional<uint64_t>(4 * md2::w_num_tris));
}

// The skin's size comes from the texture the model names when it lies on disk beside it (the
// pipeline reads it for the writer): a PNG by stb, a Quake 2 PCX by its header. Texture
// coordinates are then in that skin's texels, and no "not known" warning is given.
TEST(Md2Write, SkinSizeFromTheTextureBesideTheModel) {
    const auto dir = files_dir();
    Scene s = make_sample_scene();
    ASSERT_TRUE(save(s, (dir / "png.iqm").string()));
    write_bytes(dir / "sample_texture.png", make_sample_texture());  // 64 x 64
    s.materials[0].maps[0].uri = "skin.pcx";
    s.materials[0].name = "skin.pcx";
    ASSERT_TRUE(save(s, (dir / "pcx.iqm").string()));
    std::vector<uint8_t> pcx(128 + 16, 0);  // header: manufacturer 10, version 5, RLE, 8 bits, window 0,0 to 127,95
    pcx[0] = 10, pcx[1] = 5, pcx[2] = 1, pcx[3] = 8, pcx[8] = 127, pcx[10] = 95;
    write_bytes(dir / "skin.pcx", pcx);
    for (auto [input, width, height] : {std::tuple{"png", 64u, 64u}, {"pcx", 128u, 96u}}) {
        SCOPED_TRACE(input);
        const auto out = dir / (std::string(input) + ".md2");
        const auto r = run_cli({"convert", (dir / (std::string(input) + ".iqm")).string(), "-o", out.string()});
        ASSERT_EQ(r.exit_code, 0) << r.err;
        EXPECT_EQ(r.err.find("not known"), std::string::npos) << r.err;
        const auto bytes = read_bytes(out);
        EXPECT_EQ(word(bytes, md2::w_skin_width), width);
        EXPECT_EQ(word(bytes, md2::w_skin_height), height);
        auto back = load(out.string());
        ASSERT_TRUE(back) << back.error().to_string();
        // Every UV read back within half a texel (of that skin) of one of the source's, the skin's
        // far edge kept on its last texel (docs/md2.md "Writing").
        const auto& src = s.meshes[0].texcoords[0];
        const auto inside = [](double u, int n) { return std::min(u, (n - 1.0) / n); };
        for (auto& t : back->meshes[0].texcoords[0]) {
            double best = INFINITY;
            for (auto& u : src)
                best = std::min(best, std::max(std::fabs(double(t[0]) - inside(u[0], width)) * width, std::fabs(double(t[1]) - inside(u[1], height)) * height));
            EXPECT_LE(best, 0.5 + 1e-4);
        }
    }
}

}  // namespace
}  // namespace rigport::test
