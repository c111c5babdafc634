// The Half-Life studio models of the corpus (docs/hlmdl.md "Tests"): every hl1_ model reads, its
// counts agree with Debian's `assimp info`, its bind-pose positions with assimp's OBJ export, it
// converts to a GLB the Khronos validator passes, and man.mdl decompiles to SMD + QC that rigport
// reads back with the same joints and sequences.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "assimp_oracle.hpp"
#include "gltf_oracle.hpp"
#include "rigport/io.hpp"
#include "rigport/report.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

namespace fs = std::filesystem;

// The hl1_ models (the texture file manT.mdl is part of man.mdl, not a model).
std::vector<fs::path> hl1_models() {
    std::vector<fs::path> out;
    for (auto& p : corpus_files("mdl", ".mdl")) {
        const std::string name = p.filename().string();
        if (name.rfind("assimp_assimp__hl1_", 0) == 0 && name.size() > 5 && name.compare(name.size() - 5, 5, "T.mdl") != 0) out.push_back(p);
    }
    return out;
}

// A folder holding the model and what each reader looks for beside it. The texture file goes under
// the corpus's name (assimp, and rigport first, go by the model's file name) and under the name the
// model's header gives it (manT.mdl for ../../compiled_models/man.mdl). man.mdl
// names a second sequence group that no sequence uses but assimp insists on opening: a bare IDSQ
// header stands in for it.
fs::path staged(const fs::path& model, const fs::path& dir) {
    fs::create_directories(dir);
    const fs::path to = dir / model.filename();
    fs::copy_file(model, to, fs::copy_options::overwrite_existing);
    const std::string stem = model.stem().string();
    const std::string header_stem = stem.substr(std::string("assimp_assimp__hl1_").size());
    if (fs::exists(model.parent_path() / (stem + "T.mdl"))) {
        fs::copy_file(model.parent_path() / (stem + "T.mdl"), dir / (stem + "T.mdl"), fs::copy_options::overwrite_existing);
        fs::copy_file(model.parent_path() / (stem + "T.mdl"), dir / (header_stem + "T.mdl"), fs::copy_options::overwrite_existing);
    }
    std::vector<uint8_t> idsq(76, 0);
    std::copy_n("IDSQ", 4, idsq.begin());
    idsq[4] = 10;
    idsq[72] = 76;
    write_bytes(dir / (stem + "01.mdl"), idsq);
    return to;
}

// `assimp info`'s counts by their labels ("Faces", "Animations" ...).
std::map<std::string, long> assimp_info(const fs::path& model) {
    std::map<std::string, long> counts;
    RunResult r = run_program("assimp", {"info", model.string()});
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);) {
        const size_t colon = line.find(':');
        if (colon == std::string::npos) continue;
        std::string key = line.substr(0, colon);
        while (!key.empty() && key.back() == ' ') key.pop_back();
        try {
            counts[key] = std::stol(line.substr(colon + 1));
        } catch (...) {
        }
    }
    return counts;
}

TEST(HlmdlCorpus, EveryModelReadsAndAgreesWithAssimpInfo) {
    RIGPORT_REQUIRE_CORPUS();
    RIGPORT_REQUIRE_ASSIMP();
    const auto models = hl1_models();
    ASSERT_EQ(models.size(), 4u);
    const fs::path dir = files_dir();
    for (auto& model : models) {
        SCOPED_TRACE(model.filename().string());
        const fs::path here = staged(model, dir / model.stem());
        auto scene = load(here.string());
        ASSERT_TRUE(scene) << scene.error().to_string();
        EXPECT_EQ(scene->meta.source_format, "hlmdl");
        // Mesh names from the models' file names, without the folders studiomdl stored with them.
        for (auto& m : scene->meshes) EXPECT_EQ(m.name.find_first_of("/\\"), std::string::npos) << m.name;
        auto theirs = assimp_info(here);
        ASSERT_TRUE(theirs.count("Faces")) << "assimp info read nothing";
        EXPECT_EQ(long(scene->triangle_count()), theirs["Faces"]);
        EXPECT_EQ(long(scene->vertex_count()), theirs["Vertices"]);
        EXPECT_EQ(long(scene->meshes.size()), theirs["Meshes"]);
        // assimp makes one animation per blend of a sequence; rigport reads the first blend.
        const std::vector<uint8_t> bytes = read_bytes(here);
        auto i32 = [&](size_t at) { return int32_t(uint32_t(bytes[at]) | uint32_t(bytes[at + 1]) << 8 | uint32_t(bytes[at + 2]) << 16 | uint32_t(bytes[at + 3]) << 24); };
        long blends = 0;
        for (int32_t q = 0; q < i32(164); ++q) blends += i32(size_t(i32(168)) + 176 * size_t(q) + 120);
        EXPECT_EQ(blends, theirs["Animations"]);
        EXPECT_EQ(long(scene->animations.size()), i32(164));
        EXPECT_EQ(long(scene->images.size()), theirs["Textures (embed.)"]);
        // assimp makes a material per texture the meshes use; rigport one per texture.
        std::set<int32_t> used;
        for (auto& m : scene->meshes) used.insert(m.material);
        EXPECT_EQ(long(used.size()), theirs["Materials"]);
        EXPECT_EQ(scene->materials.size(), scene->images.size());
        std::cout << "[ note ] " << model.filename().string() << ": " << scene->meshes.size() << " meshes, " << scene->vertex_count()
                  << " vertices, " << scene->triangle_count() << " triangles, " << scene->skeleton.joints.size() << " joints (assimp's bones "
                  << theirs["Bones"] << "), " << scene->animations.size() << " sequences, " << scene->images.size() << " textures\n";
    }
}

// The bind pose (each vertex moved out of its bone's space) against assimp's OBJ export of the
// same model, which places the vertices by the same bone matrices: the same point set within
// 1e-5 of the model's size (measured: 2e-6 at most). (assimp exports the bind pose, not a sequence's first frame; the
// sequences' first frames are compared with the bind pose by the SMD round trip below.)
TEST(HlmdlCorpus, BindPosePositionsMatchAssimp) {
    RIGPORT_REQUIRE_CORPUS();
    RIGPORT_REQUIRE_ASSIMP();
    const fs::path dir = files_dir();
    for (auto& model : hl1_models()) {
        SCOPED_TRACE(model.filename().string());
        const fs::path here = staged(model, dir / model.stem());
        auto scene = load(here.string());
        ASSERT_TRUE(scene) << scene.error().to_string();
        const fs::path obj = dir / (model.stem().string() + ".obj");
        ASSERT_TRUE(assimp_export_obj(here, obj));
        // assimp's HL1 import hands the scene over turned Y up: (x, y, z) as (-y, z, -x) (measured on
        // these files; its own convention, not the file's).
        auto ours = mesh_positions(*scene);
        for (auto& p : ours) p = {-p[1], p[2], -p[0]};
        const auto theirs = obj_vertex_positions(obj);
        const double size = std::max(1.0, largest_coordinate(ours));
        const double error = point_set_distance(ours, theirs);
        EXPECT_LE(error, 1e-5 * size) << "model size " << size;
        std::cout << "[ note ] " << model.filename().string() << ": " << ours.size() << " vertices, assimp " << theirs.size()
                  << ", max distance " << error << " (model size " << size << ")\n";
    }
}

TEST(HlmdlCorpus, EveryModelConvertsToAValidGlb) {
    RIGPORT_REQUIRE_CORPUS();
    RIGPORT_REQUIRE_JS();
    const fs::path dir = files_dir();
    for (auto& model : hl1_models()) {
        SCOPED_TRACE(model.filename().string());
        const fs::path out = dir / (model.stem().string() + ".glb");
        RunResult r = run_cli({"convert", model.string(), "-o", out.string()});
        ASSERT_EQ(r.exit_code, 0) << r.err;
        ValidatorReport v = validate_gltf(out);
        ASSERT_TRUE(v.ran()) << v.error;
        EXPECT_EQ(v.errors, 0) << v.summary();
    }
}

// The texture file is found by the model's own file name: the corpus's man.mdl, read where it lies
// (renamed assimp_assimp__hl1_man.mdl, its textures in assimp_assimp__hl1_manT.mdl beside it),
// gets its materials and texture coordinates without any staging.
TEST(HlmdlCorpus, TheTextureFileIsFoundByTheModelsOwnFileName) {
    RIGPORT_REQUIRE_CORPUS();
    const fs::path model = corpus_dir() / "mdl" / "assimp_assimp__hl1_man.mdl";
    if (!fs::exists(model)) GTEST_SKIP() << model << " not in the corpus";
    auto scene = load(model.string());
    ASSERT_TRUE(scene) << scene.error().to_string();
    EXPECT_FALSE(scene->materials.empty());
    EXPECT_FALSE(scene->images.empty());
    EXPECT_FALSE(scene->warnings.has(WarningCode::TextureNotFound));
    // Bytes without a name find only what the header names (here: nothing beside the corpus).
    const std::vector<uint8_t> bytes = read_bytes(model);
    LoadOptions unnamed;
    unnamed.source_name = "elsewhere.mdl";
    unnamed.read_resource = resource_reader(model.string(), LoadOptions{});
    auto other = load_bytes(bytes, model.string(), unnamed);
    ASSERT_TRUE(other) << other.error().to_string();
    EXPECT_TRUE(other->materials.empty());
    EXPECT_TRUE(other->warnings.has(WarningCode::TextureNotFound));
}

// man.mdl -> man.smd (reference) + man_<sequence>.smd + man.qc; rigport reads man.smd back with
// the animations the .qc names: the same joints (names, parents), the same sequences (named as
// the .qc's $sequence lines name them) with the same frame counts, rates and looping, and the
// first frame's pose the same.
TEST(HlmdlCorpus, ManDecompilesToSmdAndQcThatReadBack) {
    RIGPORT_REQUIRE_CORPUS();
    const fs::path corpus_model = corpus_dir() / "mdl" / "assimp_assimp__hl1_man.mdl";
    if (!fs::exists(corpus_model)) GTEST_SKIP() << corpus_model << " not in the corpus";
    const fs::path dir = files_dir();
    const fs::path model = staged(corpus_model, dir / "in");
    auto source = load(model.string());
    ASSERT_TRUE(source) << source.error().to_string();
    ASSERT_EQ(source->animations.size(), 3u);
    EXPECT_FALSE(source->materials.empty()) << "manT.mdl beside it was not read";
    const fs::path smd = dir / "man.smd";
    RunResult r = run_cli({"convert", model.string(), "-o", smd.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ASSERT_TRUE(fs::exists(dir / "man.qc"));
    const std::vector<uint8_t> qc = read_bytes(dir / "man.qc");
    const std::string qc_text(qc.begin(), qc.end());
    EXPECT_NE(qc_text.find("$body \"body\" \"man\""), std::string::npos) << qc_text;
    for (auto& a : source->animations) {
        EXPECT_TRUE(fs::exists(dir / ("man_" + a.name + ".smd"))) << a.name;
        EXPECT_NE(qc_text.find("$sequence \"" + a.name + "\" \"man_" + a.name + "\""), std::string::npos) << qc_text;
    }

    auto back = load_model(std::vector<std::string>{smd.string()});
    ASSERT_TRUE(back) << back.error().to_string();
    ASSERT_EQ(back->skeleton.joints.size(), source->skeleton.joints.size());
    for (size_t j = 0; j < source->skeleton.joints.size(); ++j) {
        EXPECT_EQ(back->skeleton.joints[j].name, source->skeleton.joints[j].name);
        EXPECT_EQ(back->skeleton.joints[j].parent, source->skeleton.joints[j].parent);
    }
    ASSERT_EQ(back->animations.size(), source->animations.size());
    for (size_t i = 0; i < source->animations.size(); ++i) {
        const Animation& a = source->animations[i];
        auto it = std::find_if(back->animations.begin(), back->animations.end(), [&](const Animation& b) { return b.name == a.name; });
        ASSERT_NE(it, back->animations.end()) << a.name;
        EXPECT_EQ(it->frame_count, a.frame_count) << a.name;
        EXPECT_FLOAT_EQ(it->frame_rate, a.frame_rate) << a.name;
        EXPECT_EQ(it->loop, a.loop) << a.name;
    }
    EXPECT_EQ(back->triangle_count(), source->triangle_count());
    const double size = std::max(1.0, largest_coordinate(mesh_positions(*source)));
    EXPECT_LE(point_set_distance(mesh_positions(*back), mesh_positions(*source)), 1e-4 * size);
}

}  // namespace
}  // namespace rigport::test
