// Every Cal3D corpus file loads with the counts measured from the files (docs/testing.md "Corpus counts"), passes the
// scene invariants, and `rigport info --json` agrees; cally.cfg and paladin.cfg load as characters.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <set>

#include "rigport/cal3d.hpp"
#include "rigport/io.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

namespace fs = std::filesystem;

// Expected counts, measured from the files (per folder). -1 = not checked.
// tracks/keys: Cal3D tracks (one rotation JointTrack each) and their keys; morphs: targets;
// morph_keys: keys over all morph tracks (one placeholder mesh per track when read alone).
struct Row {
    const char* path;
    const char* format;
    int bones, submeshes, vertices, faces, tracks, keys;
    double duration;
    int morphs, morph_tracks, morph_keys, springs, maps;
};

const Row rows[] = {
    {"converted/debian0.11_v1100/cally.xsf", "cal3d-xsf", 37, 0, 0, 0, 0, 0, -1, 0, 0, 0, 0, -1},
    {"converted/debian0.11_v1100/cally_head.xmf", "cal3d-xmf", -1, 1, 327, 640, 0, 0, -1, 0, 0, 0, 0, -1},
    {"converted/debian0.11_v1100/cally_walk.xaf", "cal3d-xaf", -1, 0, 0, 0, 37, 1147, 1.03333, 0, 0, 0, 0, -1},
    {"converted/imvu_fork_v919/cally.xsf", "cal3d-xsf", 37, 0, 0, 0, 0, 0, -1, 0, 0, 0, 0, -1},
    {"converted/imvu_fork_v919/cally_head.xmf", "cal3d-xmf", -1, 1, 327, 640, 0, 0, -1, 0, 0, 0, 0, -1},
    {"converted/imvu_fork_v919/cally_ponytail.xmf", "cal3d-xmf", -1, 1, 37, 68, 0, 0, -1, 0, 0, 0, 0, -1},
    {"converted/imvu_fork_v919/cally_walk.xaf", "cal3d-xaf", -1, 0, 0, 0, 37, 1147, 1.03333, 0, 0, 0, 0, -1},
    {"converted/imvu_fork_v919_binary/cally.csf", "cal3d-csf", 37, 0, 0, 0, 0, 0, -1, 0, 0, 0, 0, -1},
    {"converted/imvu_fork_v919_binary/cally_head.cmf", "cal3d-cmf", -1, 1, 327, 640, 0, 0, -1, 0, 0, 0, 0, -1},
    {"converted/imvu_fork_v919_binary/cally_walk.caf", "cal3d-caf", -1, 0, 0, 0, 37, 1147, 1.0333, 0, 0, 0, 0, -1},
    {"converted/imvu_fork_v919_binary/imvu_test_animmorph1.cpf", "cal3d-cpf", -1, -1, 0, 0, 0, 0, 0.166667, 1, 1, 6, 0, -1},
    {"converted/mp3butcher_v1301/DokuroChan.xsf", "cal3d-xsf", 99, 0, 0, 0, 0, 0, -1, 0, 0, 0, 0, -1},
    {"converted/mp3butcher_v1301/DokuroChan_facial_resaved_BUG_keyframes_lost.xpf", "cal3d-xpf", -1, -1, 0, 0, 0, 0, 162.867, 15, 15, 0, 0, -1},
    {"converted/mp3butcher_v1301/DokuroChan_mesh.014.xmf", "cal3d-xmf", -1, 1, 49, 31, 0, 0, -1, 0, 0, 0, 0, -1},
    {"converted/mp3butcher_v1301/cally.xsf", "cal3d-xsf", 37, 0, 0, 0, 0, 0, -1, 0, 0, 0, 0, -1},
    {"converted/mp3butcher_v1301/cally_head.xmf", "cal3d-xmf", -1, 1, 327, 640, 0, 0, -1, 0, 0, 0, 0, -1},
    {"converted/mp3butcher_v1301/cally_ponytail_springs.xmf", "cal3d-xmf", -1, 1, 37, 68, 0, 0, -1, 0, 0, 0, 128, -1},
    {"converted/mp3butcher_v1301/cally_walk.xaf", "cal3d-xaf", -1, 0, 0, 0, 37, 1147, 1.03333, 0, 0, 0, 0, -1},
    {"converted/mp3butcher_v1301/paladin_cape_springs.xmf", "cal3d-xmf", -1, 1, 25, 32, 0, 0, -1, 0, 0, 0, 129, -1},
    {"converted/mp3butcher_v1301_binary/cally.csf", "cal3d-csf", 37, 0, 0, 0, 0, 0, -1, 0, 0, 0, 0, -1},
    {"converted/mp3butcher_v1301_binary/cally_head.cmf", "cal3d-cmf", -1, 1, 327, 640, 0, 0, -1, 0, 0, 0, 0, -1},
    {"converted/mp3butcher_v1301_binary/cally_skin.crf", "cal3d-crf", 0, 0, 0, 0, 0, 0, -1, 0, 0, 0, 0, 0},
    {"converted/mp3butcher_v1301_binary/cally_walk.caf", "cal3d-caf", -1, 0, 0, 0, 37, 1147, 1.0333, 0, 0, 0, 0, -1},
    {"imvu_authored/binary_written_by_imvu_fork/imvu_test_animation1.caf", "cal3d-caf", -1, 0, 0, 0, 5, 160, 4, 0, 0, 0, 0, -1},
    {"imvu_authored/binary_written_by_imvu_fork/imvu_test_animation2_rotonly.caf", "cal3d-caf", -1, 0, 0, 0, 1, 2, 40, 0, 0, 0, 0, -1},
    {"imvu_authored/binary_written_by_imvu_fork/imvu_test_animation3.caf", "cal3d-caf", -1, 0, 0, 0, 1, 1, 40, 0, 0, 0, 0, -1},
    {"imvu_authored/binary_written_by_imvu_fork/imvu_test_animmorph1.cpf", "cal3d-cpf", -1, -1, 0, 0, 0, 0, 0.166667, 1, 1, 6, 0, -1},
    {"imvu_authored/binary_written_by_imvu_fork/imvu_test_material1.crf", "cal3d-crf", 0, 0, 0, 0, 0, 0, -1, 0, 0, 0, 0, 2},
    {"imvu_authored/binary_written_by_imvu_fork/imvu_test_mesh1_morph.cmf", "cal3d-cmf", -1, 1, 11, 6, 0, 0, -1, 1, 0, 0, 0, -1},
    {"imvu_authored/binary_written_by_imvu_fork/imvu_test_mesh_empty_morph.cmf", "cal3d-cmf", -1, 1, 1, 1, 0, 0, -1, 1, 0, 0, 0, -1},
    {"imvu_authored/binary_written_by_imvu_fork/imvu_test_skeleton1.csf", "cal3d-csf", 2, 0, 0, 0, 0, 0, -1, 0, 0, 0, 0, -1},
    {"imvu_authored/binary_written_by_imvu_fork/imvu_test_skeleton2.csf", "cal3d-csf", 1, 0, 0, 0, 0, 0, -1, 0, 0, 0, 0, -1},
    {"imvu_authored/xml/imvu_test_animation1.xaf", "cal3d-xaf", -1, 0, 0, 0, 5, 160, 4, 0, 0, 0, 0, -1},
    {"imvu_authored/xml/imvu_test_animation2_rotonly.xaf", "cal3d-xaf", -1, 0, 0, 0, 1, 2, 40, 0, 0, 0, 0, -1},
    {"imvu_authored/xml/imvu_test_animation3.xaf", "cal3d-xaf", -1, 0, 0, 0, 1, 1, 40, 0, 0, 0, 0, -1},
    {"imvu_authored/xml/imvu_test_animmorph1.xpf", "cal3d-xpf", -1, -1, 0, 0, 0, 0, 0.166667, 1, 1, 6, 0, -1},
    {"imvu_authored/xml/imvu_test_material1.xrf", "cal3d-xrf", 0, 0, 0, 0, 0, 0, -1, 0, 0, 0, 0, 2},
    {"imvu_authored/xml/imvu_test_mesh1_morph.xmf", "cal3d-xmf", -1, 1, 11, 6, 0, 0, -1, 1, 0, 0, 0, -1},
    {"imvu_authored/xml/imvu_test_mesh_empty_morph.xmf", "cal3d-xmf", -1, 1, 1, 1, 0, 0, -1, 2, 0, 0, 0, -1},
    {"imvu_authored/xml/imvu_test_skeleton1.xsf", "cal3d-xsf", 2, 0, 0, 0, 0, 0, -1, 0, 0, 0, 0, -1},
    {"imvu_authored/xml/imvu_test_skeleton2.xsf", "cal3d-xsf", 1, 0, 0, 0, 0, 0, -1, 0, 0, 0, 0, -1},
    {"upstream_binary/cally/cally.csf", "cal3d-csf", 37, 0, 0, 0, 0, 0, -1, 0, 0, 0, 0, -1},
    {"upstream_binary/cally/cally_chest.cmf", "cal3d-cmf", -1, 1, 243, 442, 0, 0, -1, 0, 0, 0, 0, -1},
    {"upstream_binary/cally/cally_chest.xrf", "cal3d-xrf", 0, 0, 0, 0, 0, 0, -1, 0, 0, 0, 0, 0},
    {"upstream_binary/cally/cally_head.cmf", "cal3d-cmf", -1, 1, 327, 640, 0, 0, -1, 0, 0, 0, 0, -1},
    {"upstream_binary/cally/cally_idle.caf", "cal3d-caf", -1, 0, 0, 0, 37, 74, 0.0667, 0, 0, 0, 0, -1},
    {"upstream_binary/cally/cally_pelvis.xrf", "cal3d-xrf", 0, 0, 0, 0, 0, 0, -1, 0, 0, 0, 0, 0},
    {"upstream_binary/cally/cally_ponytail.cmf", "cal3d-cmf", -1, 1, 37, 68, 0, 0, -1, 0, 0, 0, 128, -1},
    {"upstream_binary/cally/cally_ponytail.xrf", "cal3d-xrf", 0, 0, 0, 0, 0, 0, -1, 0, 0, 0, 0, 0},
    {"upstream_binary/cally/cally_skin.xrf", "cal3d-xrf", 0, 0, 0, 0, 0, 0, -1, 0, 0, 0, 0, 0},
    {"upstream_binary/cally/cally_walk.caf", "cal3d-caf", -1, 0, 0, 0, 37, 1147, 1.0333, 0, 0, 0, 0, -1},
    {"upstream_binary/dokurochan/DokuroChan.csf", "cal3d-csf", 99, 0, 0, 0, 0, 0, -1, 0, 0, 0, 0, -1},
    {"upstream_binary/dokurochan/DokuroChan_0.xrf", "cal3d-xrf", 0, 0, 0, 0, 0, 0, -1, 0, 0, 0, 0, 1},
    {"upstream_binary/dokurochan/DokuroChan_Key_test_facial.xpf", "cal3d-xpf", -1, -1, 0, 0, 0, 0, 162.866667, 15, 15, 3215, 0, -1},
    {"upstream_binary/dokurochan/DokuroChan_mesh.001_morphs_v1300.cmf", "cal3d-cmf", -1, 11, 6861, 10979, 0, 0, -1, 44, 0, 0, 0, -1},
    {"upstream_binary/dokurochan/DokuroChan_mesh.014_v1300.cmf", "cal3d-cmf", -1, 1, 49, 31, 0, 0, -1, 0, 0, 0, 0, -1},
    {"upstream_binary/dokurochan/DokuroChan_test_bone.caf", "cal3d-caf", -1, 0, 0, 0, 97, 28218, 162.87, 0, 0, 0, 0, -1},
    {"upstream_binary/paladin/paladin.csf", "cal3d-csf", 58, 0, 0, 0, 0, 0, -1, 0, 0, 0, 0, -1},
    {"upstream_binary/paladin/paladin_cape.cmf", "cal3d-cmf", -1, 1, 25, 32, 0, 0, -1, 0, 0, 0, 129, -1},
    {"upstream_binary/paladin/paladin_cape.xrf", "cal3d-xrf", 0, 0, 0, 0, 0, 0, -1, 0, 0, 0, 0, 1},
    {"upstream_binary/paladin/paladin_idle.caf", "cal3d-caf", -1, 0, 0, 0, 58, 116, 0.0667, 0, 0, 0, 0, -1},
    {"upstream_binary/paladin/paladin_loincloth.cmf", "cal3d-cmf", -1, 3, 46, 37, 0, 0, -1, 0, 0, 0, 46, -1},
    {"upstream_tests/base.xaf", "cal3d-xaf", -1, 0, 0, 0, 2, 2, 1.0, 0, 0, 0, 0, -1},
    {"upstream_tests/base.xmf", "cal3d-xmf", -1, 1, 24, 12, 0, 0, -1, 0, 0, 0, 0, -1},
    {"upstream_tests/base.xrf", "cal3d-xrf", 0, 0, 0, 0, 0, 0, -1, 0, 0, 0, 0, 1},
    {"upstream_tests/base.xsf", "cal3d-xsf", 19, 0, 0, 0, 0, 0, -1, 0, 0, 0, 0, -1},
};

fs::path cal3d(const std::string& rel) { return corpus_dir() / "cal3d" / rel; }

void check_row(const Row& r, const Scene& s) {
    SCOPED_TRACE(r.path);
    EXPECT_EQ(s.meta.source_format, r.format);
    EXPECT_EQ(s.meta.up, UpAxis::Z);
    if (r.bones >= 0) {
        EXPECT_FALSE(s.skeleton.animation_only);
        EXPECT_EQ(s.skeleton.joints.size(), size_t(r.bones));
    }
    if (r.submeshes >= 0) {
        EXPECT_EQ(s.meshes.size(), size_t(r.submeshes));
    }
    EXPECT_EQ(s.vertex_count(), uint64_t(r.vertices));
    EXPECT_EQ(s.triangle_count(), uint64_t(r.faces));
    uint64_t tracks = 0, keys = 0, morphs = 0, morph_tracks = 0, morph_keys = 0, springs = 0;
    float duration = 0;
    for (auto& a : s.animations) {
        duration = std::max(duration, a.duration());
        for (auto& t : a.tracks)
            if (t.channel == Channel::Rotation) ++tracks, keys += t.times.size();
        morph_tracks += a.morph_tracks.size();
        for (auto& t : a.morph_tracks) morph_keys += t.times.size();
    }
    for (auto& m : s.meshes) morphs += m.morph_targets.size(), springs += m.springs.size();
    EXPECT_EQ(tracks, uint64_t(r.tracks));
    EXPECT_EQ(keys, uint64_t(r.keys));
    EXPECT_EQ(morphs, uint64_t(r.morphs));
    EXPECT_EQ(morph_tracks, uint64_t(r.morph_tracks));
    EXPECT_EQ(morph_keys, uint64_t(r.morph_keys));
    EXPECT_EQ(springs, uint64_t(r.springs));
    if (r.maps >= 0) {
        ASSERT_EQ(s.materials.size(), 1u);
        EXPECT_EQ(s.materials[0].maps.size(), size_t(r.maps));
    }
    (void)duration;
}

TEST(Cal3dCorpus, EveryFileLoadsWithItsCounts) {
    RIGPORT_REQUIRE_CORPUS();
    std::set<std::string> listed;
    for (auto& r : rows) {
        listed.insert(r.path);
        auto scene = load(cal3d(r.path).string());
        ASSERT_TRUE(scene) << r.path << ": " << scene.error().to_string();
        auto st = check_invariants(*scene);
        EXPECT_TRUE(st) << r.path << ": " << (st ? "" : st.error().message);
        check_row(r, *scene);
    }
    // Every Cal3D file of the corpus is in the table (the .cfg files are characters, below).
    for (auto& e : fs::recursive_directory_iterator(corpus_dir() / "cal3d"))
        if (e.is_regular_file() && e.path().extension() != ".cfg") {
            EXPECT_TRUE(listed.count(fs::relative(e.path(), corpus_dir() / "cal3d").generic_string())) << e.path();
        }
}

// Durations as the files store them (the animation's own DURATION is kept in the key times only
// through the last key; SOURCES gives last keys too).
TEST(Cal3dCorpus, KeyTimesAndValues) {
    RIGPORT_REQUIRE_CORPUS();
    auto walk = load(cal3d("upstream_binary/cally/cally_walk.caf").string());
    ASSERT_TRUE(walk);
    for (auto& t : walk->animations[0].tracks) {
        ASSERT_EQ(t.times.size(), 31u);
        EXPECT_NEAR(t.times.back(), 1.0f, 1e-5);
    }
    // IM's 1e10 sentinel: no translation track at all (the bind translation is used).
    auto rot = load(cal3d("imvu_authored/binary_written_by_imvu_fork/imvu_test_animation2_rotonly.caf").string());
    ASSERT_TRUE(rot);
    ASSERT_EQ(rot->animations[0].tracks.size(), 1u);
    EXPECT_EQ(rot->animations[0].tracks[0].channel, Channel::Rotation);
    auto crf = load(cal3d("converted/mp3butcher_v1301_binary/cally_skin.crf").string());
    ASSERT_TRUE(crf);
    EXPECT_NEAR(crf->materials[0].ambient[0], 128 / 255.0f, 1e-6);
    EXPECT_NEAR(crf->materials[0].diffuse[1], 184 / 255.0f, 1e-6);
    EXPECT_EQ(crf->materials[0].diffuse[3], 1.0f);  // all-zero alpha = opaque
    EXPECT_NEAR(crf->materials[0].shininess, 0.05f, 1e-6);
    auto imvu_crf = load(cal3d("imvu_authored/binary_written_by_imvu_fork/imvu_test_material1.crf").string());
    ASSERT_TRUE(imvu_crf);
    EXPECT_EQ(imvu_crf->materials[0].maps[1].type, TextureType::Opacity);
    EXPECT_EQ(imvu_crf->materials[0].maps[1].type_name, "Opacity");
}

// §4.2: the inverse-bind check is quiet on consistent skeletons and warns on the known bad ones.
TEST(Cal3dCorpus, InverseBindCheck) {
    RIGPORT_REQUIRE_CORPUS();
    auto warned = [](const std::string& rel) {
        auto s = load(cal3d(rel).string());
        EXPECT_TRUE(s) << rel;
        if (!s) return false;
        for (auto& w : s->warnings.items)
            if (w.message.find("inverse of the bind pose") != std::string::npos) return true;
        return false;
    };
    EXPECT_FALSE(warned("upstream_binary/cally/cally.csf"));
    EXPECT_FALSE(warned("upstream_binary/paladin/paladin.csf"));
    EXPECT_FALSE(warned("upstream_binary/dokurochan/DokuroChan.csf"));
    EXPECT_FALSE(warned("converted/debian0.11_v1100/cally.xsf"));
    EXPECT_TRUE(warned("upstream_tests/base.xsf"));
    EXPECT_TRUE(warned("converted/imvu_fork_v919/cally.xsf"));
    EXPECT_TRUE(warned("imvu_authored/xml/imvu_test_skeleton2.xsf"));
}

TEST(Cal3dCorpus, MorphVerdicts) {
    RIGPORT_REQUIRE_CORPUS();
    // Absolute (IMVU): stored as POSITION - base, so deltas are 45-86 units, not >= 855.
    auto abs = load(cal3d("imvu_authored/xml/imvu_test_mesh1_morph.xmf").string());
    ASSERT_TRUE(abs);
    float biggest = 0;
    for (auto& d : abs->meshes[0].morph_targets[0].position_deltas) biggest = std::max(biggest, std::hypot(d[0], d[1], d[2]));
    EXPECT_GT(biggest, 40.0f);
    EXPECT_LT(biggest, 100.0f);
    // Delta (DokuroChan 2015+): kept as stored, max 0.44.
    auto delta = load(cal3d("upstream_binary/dokurochan/DokuroChan_mesh.001_morphs_v1300.cmf").string());
    ASSERT_TRUE(delta);
    biggest = 0;
    for (auto& m : delta->meshes)
        for (auto& t : m.morph_targets)
            for (auto& d : t.position_deltas) biggest = std::max(biggest, std::hypot(d[0], d[1], d[2]));
    EXPECT_GT(biggest, 0.1f);
    EXPECT_LT(biggest, 0.5f);
}

TEST(Cal3dCorpus, CliInfoReportsTheCounts) {
    RIGPORT_REQUIRE_CORPUS();
    for (auto& r : rows) {
        auto res = run_cli({"info", "--json", cal3d(r.path).string()});
        ASSERT_EQ(res.exit_code, 0) << r.path << res.err;
        auto j = nlohmann::json::parse(res.out);
        EXPECT_EQ(j["format"], r.format) << r.path;
        EXPECT_EQ(j["vertices"], r.vertices) << r.path;
        EXPECT_EQ(j["triangles"], r.faces) << r.path;
        if (r.bones > 0) {
            EXPECT_EQ(j["joints"], r.bones) << r.path;
        }
        if (r.submeshes >= 0) {
            EXPECT_EQ(j["meshes"].size(), size_t(r.submeshes)) << r.path;
        }
    }
}

// §4.5 characters. cally.cfg names 17 meshes, the corpus holds 3 of them (chest, head,
// ponytail); paladin.cfg names 3 meshes (cape and loincloth present), 19 materials (1 present),
// 7 animations (idle present). Missing files are errors naming the .cfg line, or with
// allow_missing warnings; material slots keep their index.
TEST(Cal3dCorpus, CallyAndPaladinCharacters) {
    RIGPORT_REQUIRE_CORPUS();
    auto strict = load_cal3d_character({cal3d("upstream_binary/cally/cally.cfg").string()});
    ASSERT_FALSE(strict);
    EXPECT_EQ(strict.error().code, ErrorCode::NotFound);
    EXPECT_GT(strict.error().line, 0u) << strict.error().to_string();
    LoadOptions allow_missing;
    allow_missing.allow_missing = true;
    auto cally = load_cal3d_character({cal3d("upstream_binary/cally/cally.cfg").string()}, allow_missing);
    ASSERT_TRUE(cally) << cally.error().to_string();
    EXPECT_TRUE(check_invariants(*cally));
    EXPECT_EQ(cally->skeleton.joints.size(), 37u);
    EXPECT_FALSE(cally->skeleton.animation_only);
    EXPECT_EQ(cally->meshes.size(), 3u);
    EXPECT_EQ(cally->materials.size(), 4u);
    ASSERT_EQ(cally->animations.size(), 1u);
    EXPECT_EQ(cally->animations[0].name, "cally_walk");
    EXPECT_EQ(cally->vertex_count(), 243u + 327u + 37u);
    EXPECT_EQ(cally->meshes[0].name, "cally_chest");
    EXPECT_EQ(cally->meshes[0].material, 2);  // MATERIAL 2 = third material line (chest)
    EXPECT_EQ(cally->materials[2].name, "cally_chest");

    auto paladin = load_cal3d_character({cal3d("upstream_binary/paladin/paladin.cfg").string()}, allow_missing);
    ASSERT_TRUE(paladin) << paladin.error().to_string();
    EXPECT_TRUE(check_invariants(*paladin));
    EXPECT_EQ(paladin->skeleton.joints.size(), 58u);
    EXPECT_EQ(paladin->meshes.size(), 4u);  // cape + 3 loincloth submeshes
    EXPECT_EQ(paladin->materials.size(), 19u);
    ASSERT_EQ(paladin->animations.size(), 1u);
    EXPECT_EQ(paladin->animations[0].tracks.size(), 58u * 2);
    EXPECT_NE(paladin->meta.comment.find("scale=0.5"), std::string::npos);
}

TEST(Cal3dCorpus, CharacterFromFilesInAnyOrder) {
    RIGPORT_REQUIRE_CORPUS();
    auto s = load_cal3d_character({cal3d("upstream_binary/cally/cally_walk.caf").string(),
                                   cal3d("upstream_binary/cally/cally_head.cmf").string(),
                                   cal3d("converted/debian0.11_v1100/cally.xsf").string()});
    ASSERT_TRUE(s) << s.error().to_string();
    EXPECT_TRUE(check_invariants(*s));
    EXPECT_EQ(s->skeleton.joints.size(), 37u);
    EXPECT_EQ(s->meshes.size(), 1u);
    EXPECT_EQ(s->animations.size(), 1u);
    // A skinned mesh without a skeleton is an error naming the file.
    auto bad = load_cal3d_character({cal3d("upstream_binary/cally/cally_head.cmf").string()});
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().path.find("cally_head.cmf"), std::string::npos);
    // IMVU morph track bound by name onto the IMVU mesh.
    auto morph = load_cal3d_character({cal3d("imvu_authored/xml/imvu_test_skeleton1.xsf").string(),
                                       cal3d("imvu_authored/xml/imvu_test_animmorph1.xpf").string()});
    ASSERT_TRUE(morph) << morph.error().to_string();
}

}  // namespace
}  // namespace rigport::test
