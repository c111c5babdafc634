// The registry says what each format holds, so the CLI prepares a scene for an output without
// naming formats: IQM stores 4 influences, Cal3D keeps a clip's stated length, glTF
// carries images; every other row leaves the scene as it is.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <string>

#include "rigport/formats.hpp"
#include "rigport/io.hpp"
#include "rigport/sample.hpp"
#include "test_support.hpp"

namespace rigport {
namespace {

TEST(Registry, FormatsSayWhatTheyHold) {
    for (const FormatInfo& f : formats()) {
        SCOPED_TRACE(std::string(f.name));
        const bool cal3d = f.name.rfind("cal3d", 0) == 0, gltf = f.name == "gltf" || f.name == "glb";
        EXPECT_EQ(f.max_influences, f.name == "iqm" || f.name == "md5" ? 4u : 0u);  // MD5: docs/md5.md "Writer"
        EXPECT_EQ(f.stated_duration, cal3d);
        EXPECT_EQ(f.holds_images, gltf);
        EXPECT_EQ(f.compiler_source, f.name == "iqe" || f.name == "md5" || f.name == "smd" || f.name == "obj");  // the reference compiler's text sources
    }
}

// Only JOE stores per-part counts its scene does not show (`rigport info` asks the row, not the name).
TEST(Registry, StoredPartsComeFromTheRow) {
    for (const FormatInfo& f : formats()) EXPECT_EQ(f.stored_parts != nullptr, f.name == "joe") << f.name;
    auto joe = save_bytes(make_sample_scene(), "sample.joe");
    ASSERT_TRUE(joe) << joe.error().to_string();
    auto parts = find_format("joe")->stored_parts(*joe);
    ASSERT_TRUE(parts) << parts.error().to_string();
    ASSERT_EQ(parts->size(), 1u);
    EXPECT_EQ(parts->front().part, "frame");
    ASSERT_EQ(parts->front().counts.size(), 5u);
    EXPECT_EQ(parts->front().counts[0].first, "faces");
    EXPECT_GT(parts->front().counts[0].second, 0u);
    EXPECT_FALSE(find_format("joe")->stored_parts(std::vector<uint8_t>(7, 0)));  // an Error, never a throw
}

// Only a Cal3D .cfg is made of files it names (a batch converts them with it, not alone).
TEST(Registry, NamedFilesComeFromTheRow) {
    for (const FormatInfo& f : formats()) EXPECT_EQ(f.named_files != nullptr, f.name == "cal3d") << f.name;
    const std::string cfg = "# a character\nskeleton=a.xsf\npath=parts\nmesh=b.xmf\nanimation = walk.xaf\nscale=2\n";
    auto names = find_format("cal3d")->named_files(std::span(reinterpret_cast<const uint8_t*>(cfg.data()), cfg.size()));
    ASSERT_TRUE(names) << names.error().to_string();
    EXPECT_EQ(*names, (std::vector<std::string>{"a.xsf", "parts/b.xmf", "parts/walk.xaf"}));
    const std::string bad = "no equals sign here\n";
    EXPECT_FALSE(find_format("cal3d")->named_files(std::span(reinterpret_cast<const uint8_t*>(bad.data()), bad.size())));
}

// A writer's warnings are never lost: the Output carries them, naming the output, whether or not
// the caller gave SaveOptions::warnings; the Output names the variant written.
TEST(Registry, WriterWarningsTravelWithTheOutput) {
    Scene scene = make_sample_scene();
    ASSERT_FALSE(scene.materials.empty());
    scene.materials[0].maps.push_back(TextureMap{});
    scene.materials[0].maps.back().uri = "skin.png";
    auto out = save_output(scene, "out/model.iqm");
    ASSERT_TRUE(out) << out.error().to_string();
    ASSERT_TRUE(out->warnings.has(WarningCode::DroppedData));
    for (auto& w : out->warnings.items) EXPECT_EQ(w.path, "out/model.iqm") << w.message;
    EXPECT_EQ(out->format, "iqm");
    Warnings also;
    SaveOptions options;
    options.warnings = &also;
    auto again = save_output(scene, "out/model.iqm", options);
    ASSERT_TRUE(again);
    EXPECT_EQ(also.items.size(), again->warnings.items.size());
    auto glb = save_output(scene, "out/model.glb");
    ASSERT_TRUE(glb) << glb.error().to_string();
    EXPECT_EQ(glb->format, "glb");
    auto gltf = save_output(scene, "out/model.gltf");
    ASSERT_TRUE(gltf) << gltf.error().to_string();
    EXPECT_EQ(gltf->format, "gltf");
}

// Warnings are typed for every format: no reader or writer in src/ reports WarningCode::Other.
TEST(Registry, NoWarningIsUntyped) {
    const std::filesystem::path src = std::filesystem::path(RIGPORT_SOURCE_DIR) / "src";
    ASSERT_TRUE(std::filesystem::exists(src)) << src;
    uint64_t files = 0;
    for (auto& entry : std::filesystem::recursive_directory_iterator(src)) {
        if (!entry.is_regular_file()) continue;
        const auto bytes = test::read_bytes(entry.path());
        const std::string text(bytes.begin(), bytes.end());
        ++files;
        if (entry.path().filename() == "error.cpp") continue;  // the enum's own name table
        EXPECT_EQ(text.find("WarningCode::Other"), std::string::npos) << entry.path();
    }
    EXPECT_GT(files, 50u);
}

// What a format holds and how its files work is on its row: which images go beside an output,
// the files a Cal3D character is made of, animation-only files, glTF's one-file variant.
TEST(Registry, RowsSayHowTheirFilesWork) {
    for (const FormatInfo& f : formats()) {
        SCOPED_TRACE(std::string(f.name));
        const bool gltf = f.name == "gltf" || f.name == "glb";
        EXPECT_EQ(f.single_file_extension, gltf ? ".glb" : "");
        EXPECT_EQ(f.repairs_normals, gltf);
        EXPECT_EQ(!f.member_extensions.empty(), f.name == "cal3d");
        EXPECT_EQ(f.read_compiler_source != nullptr, f.name == "iqe");
        EXPECT_EQ(f.holds.meshes || f.holds.skeleton || f.holds.animation || f.holds.morph_animation || f.holds.materials, true);
        for (auto ext : f.animation_only_extensions) EXPECT_TRUE(has_extension(std::string("a") + std::string(ext), f.extensions)) << ext;
    }
    EXPECT_EQ(find_format("iqm")->texture_files, TextureFiles::diffuse_of_used);
    EXPECT_EQ(find_format("obj")->texture_files, TextureFiles::every_material);
    EXPECT_EQ(find_format("cal3d-xrf")->texture_files, TextureFiles::first_material);
    EXPECT_EQ(find_format("gltf")->texture_files, TextureFiles::none);
    EXPECT_EQ(find_format_made_of("dir/walk.XAF"), find_format("cal3d"));
    EXPECT_EQ(find_format_made_of("hero.cfg"), find_format("cal3d"));
    EXPECT_EQ(find_format_made_of("hero.iqm"), nullptr);
    EXPECT_TRUE(find_format("cal3d")->writes_xml_text(SaveOptions{}));
    SaveOptions binary;
    binary.cal3d.binary = true;
    EXPECT_FALSE(find_format("cal3d")->writes_xml_text(binary));
    EXPECT_EQ(find_format("cal3d-csf")->writes_xml_text, nullptr);
}

// `rigport formats --json`: one object per row, in registry order, with the row's fields.
TEST(Registry, FormatsJsonListsEveryRow) {
    auto run = test::run_cli({"formats", "--json"});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(run.out, formats_json() + "\n");
    size_t at = 0, rows = 0;
    for (const FormatInfo& f : formats()) {
        at = run.out.find("\"name\": \"" + std::string(f.name) + "\"", at);
        ASSERT_NE(at, std::string::npos) << f.name;
        ++rows;
    }
    EXPECT_EQ(rows, formats().size());
    for (const char* field : {"\"holds\"", "\"member_extensions\"", "\"animation_only_extensions\"", "\"single_file_extension\"",
                              "\"writer_options\"", "\"texture_files\"", "\"read\"", "\"write\""})
        EXPECT_NE(run.out.find(field), std::string::npos) << field;
    // The archives of models after the rows, from archives() (the add-on's import menu lists them).
    const size_t packs = run.out.find("\"archives\": [");
    ASSERT_NE(packs, std::string::npos);
    for (const ArchiveInfo& a : archives()) {
        EXPECT_NE(run.out.find("\"name\": \"" + std::string(a.name) + "\"", packs), std::string::npos) << a.name;
        EXPECT_NE(run.out.find("\"description\": \"" + std::string(a.description) + "\"", packs), std::string::npos) << a.name;
    }
}

// No code outside src/formats/ compares a model format's name or extension: it asks the row
// (docs/architecture.md "Adding a format: one folder + one row").
TEST(Registry, NoFormatNamesOutsideTheFormats) {
    const std::filesystem::path root(RIGPORT_SOURCE_DIR);
    const std::regex quoted(R"re("\.?(iqm|iqe|gltf|glb|cal3d|md5|md5mesh|md5anim|smd|vta|obj|fbx|joe|cfg|xsf|xmf|xaf|xrf|csf|cmf|caf|crf|cpf|xpf|qc|mtl|md2|md3|mdl|hlmdl)")re");
    uint64_t files = 0;
    for (const char* dir : {"src", "tools", "python", "blender"})
        for (auto& entry : std::filesystem::recursive_directory_iterator(root / dir)) {
            if (!entry.is_regular_file()) continue;
            const std::string ext = entry.path().extension().string();
            if (ext != ".cpp" && ext != ".hpp" && ext != ".py") continue;
            if (entry.path().lexically_relative(root).string().rfind("src/formats/", 0) == 0) continue;
            const auto bytes = test::read_bytes(entry.path());
            const std::string text(bytes.begin(), bytes.end());
            ++files;
            std::smatch m;
            EXPECT_FALSE(std::regex_search(text, m, quoted)) << entry.path() << ": " << m.str();
        }
    EXPECT_GT(files, 50u);
}

}  // namespace
}  // namespace rigport
