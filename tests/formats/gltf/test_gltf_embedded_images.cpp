// Images a .glb holds (bufferView + mimeType; glTF 2.0 §3.8.4) and a .gltf's data: URI images,
// through every writer by the real CLI: kept inside glTF per --images, written beside IQM, IQE,
// Cal3D and JOE under safe unique names that the materials name, never outside the output folder.
#include <gtest/gtest.h>
#include <stb_image_write.h>

#include <algorithm>
#include <set>

#include "formats/gltf/gltf_fixture.hpp"
#include "formats/gltf/gltf_parse.hpp"
#include "gltf_oracle.hpp"
#include "rigport/cal3d.hpp"
#include "rigport/io.hpp"
#include "test_support.hpp"

namespace rigport {
namespace {

namespace fs = std::filesystem;

std::vector<uint8_t> png(uint8_t r, uint8_t g, uint8_t b) {
    const uint8_t rgb[12] = {r, g, b, r, g, b, r, g, b, r, g, b};
    return test::encode_png(2, 2, rgb);
}

std::vector<uint8_t> jpeg() {
    const uint8_t rgb[8 * 8 * 3] = {200, 100, 50};
    std::vector<uint8_t> out;
    stbi_write_jpg_to_func(
        [](void* c, void* d, int n) {
            auto* o = static_cast<std::vector<uint8_t>*>(c);
            o->insert(o->end(), static_cast<uint8_t*>(d), static_cast<uint8_t*>(d) + n);
        },
        &out, 8, 8, 3, rgb, 90);
    return out;
}

// A minimal lossless WebP ("RIFF" size "WEBP" "VP8L" ...): only its magic matters here.
std::vector<uint8_t> webp() {
    const std::string text("RIFF\x1a\0\0\0WEBPVP8L\x0d\0\0\0\x2f\0\0\0\x10\x07\x10\x11\x11\x88\x88\xfe\x07\0", 34);
    return {text.begin(), text.end()};
}

struct HeldImage {
    std::string name;  // the glTF image's name ("" = none)
    std::string mime;
    std::vector<uint8_t> bytes;
};

// One textured triangle per material; material i uses image i (its baseColorTexture).
std::vector<uint8_t> textured_glb(const std::vector<std::string>& materials, const std::vector<HeldImage>& images) {
    test::GltfFixture f;
    for (size_t i = 0; i < images.size(); ++i) {
        nlohmann::json image = {{"bufferView", f.view(images[i].bytes.data(), images[i].bytes.size())}, {"mimeType", images[i].mime}};
        if (!images[i].name.empty()) image["name"] = images[i].name;
        f.push("images", image);
        f.push("textures", {{"source", i}});
    }
    for (size_t m = 0; m < materials.size(); ++m) {
        f.push("materials", {{"name", materials[m]}, {"pbrMetallicRoughness", {{"baseColorTexture", {{"index", m}}}}}});
        const float x = float(m);
        const uint32_t pos = f.floats({x, 0, 0, x + 1, 0, 0, x, 1, 0}, "VEC3");
        const uint32_t uv = f.floats({0, 0, 1, 0, 0, 1}, "VEC2");
        const uint32_t mesh = f.push("meshes", {{"name", "mesh" + std::to_string(m)},
                                                {"primitives", {{{"attributes", {{"POSITION", pos}, {"TEXCOORD_0", uv}}}, {"material", m}}}}});
        f.push("nodes", {{"mesh", mesh}});
    }
    return f.glb();
}

// Two PNGs and a JPEG, used by three materials; the second image has no name.
struct ThreeImages {
    std::vector<HeldImage> images{{"skin", "image/png", png(255, 0, 0)}, {"", "image/png", png(0, 255, 0)}, {"photo.jpg", "image/jpeg", jpeg()}};
    std::vector<std::string> materials{"Body", "Green", "Face"};
    // What each is called beside an output: its name with the type's extension, else the material's.
    std::vector<std::string> files{"skin.png", "Green.png", "photo.jpg"};
};

// Every file under dir, relative, sorted.
std::set<std::string> files_under(const fs::path& dir) {
    std::set<std::string> out;
    for (auto& e : fs::recursive_directory_iterator(dir))
        if (e.is_regular_file()) out.insert(fs::relative(e.path(), dir).generic_string());
    return out;
}

struct GltfEmbeddedImages : ::testing::Test {
    fs::path dir = test::temp_dir();
    fs::path in_dir = dir / "in", out_dir = dir / "out";
    ThreeImages three;

    void SetUp() override {
        fs::create_directories(in_dir);
        fs::create_directories(out_dir);
    }
    void empty_output_folder() {
        fs::remove_all(out_dir);
        fs::create_directories(out_dir);
    }
    fs::path input(const std::vector<uint8_t>& glb, const std::string& name = "model.glb") {
        test::write_bytes(in_dir / name, glb);
        return in_dir / name;
    }
    fs::path three_image_input() { return input(textured_glb(three.materials, three.images)); }
    test::RunResult convert(const fs::path& in, const std::string& out, std::vector<std::string> extra = {}) {
        std::vector<std::string> args{"convert", in.string(), "-o", (out_dir / out).string()};
        args.insert(args.end(), extra.begin(), extra.end());
        return test::run_cli(args);
    }
    // The input folder holds only the input, untouched; the output folder exactly `expected`.
    void expect_files(const std::set<std::string>& expected) {
        EXPECT_EQ(files_under(in_dir), (std::set<std::string>{"model.glb"}));
        EXPECT_EQ(files_under(out_dir), expected);
        EXPECT_EQ(files_under(dir).size(), expected.size() + 1) << "a file was written outside the output folder";
    }
    // Each image's file beside the output, byte for byte.
    void expect_image_files(const std::vector<size_t>& which) {
        for (size_t i : which) EXPECT_EQ(test::read_bytes(out_dir / three.files[i]), three.images[i].bytes) << three.files[i];
    }
    // The texture each material of a .cfg character names, in order, read back.
    static std::vector<std::string> textures(const fs::path& cfg) {
        auto scene = load_cal3d_character({cfg.string()});
        EXPECT_TRUE(scene) << scene.error().to_string();
        std::vector<std::string> out;
        if (scene)
            for (auto& m : scene->materials) out.push_back(m.maps.empty() ? std::string() : m.maps[0].uri);
        return out;
    }
};

TEST_F(GltfEmbeddedImages, ReaderHoldsBufferViewImages) {
    auto scene = load(three_image_input().string());
    ASSERT_TRUE(scene) << scene.error().to_string();
    ASSERT_EQ(scene->images.size(), 3u);
    EXPECT_FALSE(scene->warnings.has(WarningCode::DroppedData));
    for (size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(scene->images[i].bytes, three.images[i].bytes);
        EXPECT_EQ(scene->images[i].mime_type, three.images[i].mime);
        ASSERT_EQ(scene->materials[i].maps.size(), 1u);
        EXPECT_EQ(scene->materials[i].maps[0].image, int32_t(i));
        EXPECT_EQ(scene->materials[i].maps[0].uri, three.files[i]);
    }
}

TEST_F(GltfEmbeddedImages, GlbToGlbKeepsThemEmbedded) {
    auto r = convert(three_image_input(), "out.glb");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err.find("Warning"), std::string::npos) << r.err;
    expect_files({"out.glb"});
    const auto gltf = test::parse_glb(test::read_bytes(out_dir / "out.glb"));
    ASSERT_EQ(gltf.json["images"].size(), 3u);
    for (size_t i = 0; i < 3; ++i) {
        const auto& image = gltf.json["images"][i];
        ASSERT_TRUE(image.contains("bufferView")) << image.dump();
        EXPECT_FALSE(image.contains("uri"));
        EXPECT_EQ(image["mimeType"], three.images[i].mime);
        const auto& view = gltf.json["bufferViews"][image["bufferView"].get<size_t>()];
        const size_t at = view.value("byteOffset", size_t(0)), length = view["byteLength"];
        ASSERT_LE(at + length, gltf.bin.size());
        EXPECT_EQ(std::vector<uint8_t>(gltf.bin.begin() + long(at), gltf.bin.begin() + long(at + length)), three.images[i].bytes);
    }
    // Read again: the same images, the same names.
    auto again = load((out_dir / "out.glb").string());
    ASSERT_TRUE(again) << again.error().to_string();
    ASSERT_EQ(again->images.size(), 3u);
    for (size_t i = 0; i < 3; ++i) EXPECT_EQ(again->materials[i].maps.at(0).uri, three.files[i]);
    if (!test::js_oracles_missing().empty()) GTEST_SKIP() << test::js_oracles_missing();
    const auto report = test::validate_gltf(out_dir / "out.glb");
    ASSERT_TRUE(report.ran()) << report.error;
    EXPECT_EQ(report.errors, 0) << report.summary();
    EXPECT_EQ(report.warnings, 0) << report.summary();
}

TEST_F(GltfEmbeddedImages, GltfPerImagesMode) {
    const fs::path in = three_image_input();
    for (const std::string mode : {"auto", "reference", "embed", "none"}) {
        SCOPED_TRACE(mode);
        empty_output_folder();
        auto r = convert(in, "out.gltf", {"--images", mode});
        ASSERT_EQ(r.exit_code, 0) << r.err;
        const auto json = test::file_json(out_dir / "out.gltf");
        if (mode == "none") {
            expect_files({"out.gltf", "out.bin"});
            EXPECT_FALSE(json.contains("images"));
            EXPECT_NE(r.err.find("--images none"), std::string::npos) << r.err;
        } else if (mode == "embed") {
            expect_files({"out.gltf", "out.bin"});
            ASSERT_EQ(json["images"].size(), 3u);
            for (auto& image : json["images"]) EXPECT_TRUE(image.contains("bufferView")) << image.dump();
        } else {  // auto and reference: files beside the .gltf, referenced by their names
            expect_files({"out.gltf", "out.bin", three.files[0], three.files[1], three.files[2]});
            expect_image_files({0, 1, 2});
            ASSERT_EQ(json["images"].size(), 3u);
            for (size_t i = 0; i < 3; ++i) EXPECT_EQ(json["images"][i]["uri"], three.files[i]);
        }
        if (mode != "none") {
            auto scene = load((out_dir / "out.gltf").string());
            ASSERT_TRUE(scene) << scene.error().to_string();
            for (size_t i = 0; i < 3; ++i) EXPECT_EQ(scene->materials[i].maps.at(0).uri, three.files[i]);
            if (test::js_oracles_missing().empty()) {
                const auto report = test::validate_gltf(out_dir / "out.gltf");
                ASSERT_TRUE(report.ran()) << report.error;
                EXPECT_EQ(report.errors, 0) << report.summary();
            }
        }
    }
}

TEST_F(GltfEmbeddedImages, IqmAndIqeNameTheFilesWrittenBeside) {
    const fs::path in = three_image_input();
    for (const std::string ext : {"iqm", "iqe"}) {
        SCOPED_TRACE(ext);
        empty_output_folder();
        auto r = convert(in, "out." + ext);
        ASSERT_EQ(r.exit_code, 0) << r.err;
        expect_files({"out." + ext, three.files[0], three.files[1], three.files[2]});
        expect_image_files({0, 1, 2});
        // IQM and IQE name a material by its texture file.
        auto scene = load((out_dir / ("out." + ext)).string());
        ASSERT_TRUE(scene) << scene.error().to_string();
        std::set<std::string> names;
        for (auto& m : scene->materials) names.insert(m.name);
        EXPECT_EQ(names, (std::set<std::string>(three.files.begin(), three.files.end())));
    }
}

TEST_F(GltfEmbeddedImages, Cal3dCharacterXmlAndBinary) {
    const fs::path in = three_image_input();
    for (const bool binary : {false, true}) {
        SCOPED_TRACE(binary ? "binary" : "xml");
        empty_output_folder();
        std::vector<std::string> extra;
        if (binary) extra.push_back("--cal3d-binary");
        auto r = convert(in, "out.cfg", extra);
        ASSERT_EQ(r.exit_code, 0) << r.err;
        const auto written = files_under(out_dir);
        for (auto& f : three.files) EXPECT_TRUE(written.count(f)) << f;
        expect_image_files({0, 1, 2});
        EXPECT_EQ(textures(out_dir / "out.cfg"), three.files);
    }
}

TEST_F(GltfEmbeddedImages, XrfWritesOnlyItsMaterialsImage) {
    auto r = convert(three_image_input(), "out.xrf");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    expect_files({"out.xrf", three.files[0]});
    expect_image_files({0});
    auto scene = load((out_dir / "out.xrf").string());
    ASSERT_TRUE(scene) << scene.error().to_string();
    ASSERT_EQ(scene->materials.size(), 1u);
    EXPECT_EQ(scene->materials[0].maps.at(0).uri, three.files[0]);
}

TEST_F(GltfEmbeddedImages, JoeWritesTheTexturesItReports) {
    auto r = convert(three_image_input(), "out.joe");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    expect_files({"out.joe", three.files[0], three.files[1], three.files[2]});
    expect_image_files({0, 1, 2});
    // JOE holds no material: the warning names the texture file written (one line for the three
    // meshes: "mesh 'mesh0' uses texture 'A' ... (3 times; also 'mesh1' 'B'; 'mesh2' 'C')").
    EXPECT_NE(r.err.find("texture '" + three.files[0] + "'"), std::string::npos) << r.err;
    for (auto& f : three.files) EXPECT_NE(r.err.find("'" + f + "'"), std::string::npos) << r.err;
}

TEST_F(GltfEmbeddedImages, ImagesNoneWritesNoImage) {
    const fs::path in = three_image_input();
    for (const std::string out : {"out.iqm", "out.glb"}) {
        SCOPED_TRACE(out);
        empty_output_folder();
        auto r = convert(in, out, {"--images", "none"});
        ASSERT_EQ(r.exit_code, 0) << r.err;
        expect_files({out});
        EXPECT_NE(r.err.find("not written (--images none)"), std::string::npos) << r.err;
        auto scene = load((out_dir / out).string());
        ASSERT_TRUE(scene) << scene.error().to_string();
        EXPECT_TRUE(scene->images.empty());
    }
    // glTF: the materials are written without the dropped maps.
    auto scene = load((out_dir / "out.glb").string());
    ASSERT_TRUE(scene);
    for (auto& m : scene->materials) EXPECT_TRUE(m.maps.empty()) << m.name;
}

TEST_F(GltfEmbeddedImages, HostileNamesGiveSafeUniqueFiles) {
    const std::vector<HeldImage> images{{"../../x", "image/png", png(1, 2, 3)},
                                        {"a/b", "image/png", png(4, 5, 6)},
                                        {std::string("\0", 1), "image/png", png(7, 8, 9)},
                                        {"dup", "image/png", png(10, 11, 12)},
                                        {"dup", "image/png", png(13, 14, 15)},
                                        {"..", "image/jpeg", jpeg()}};
    const std::vector<std::string> materials{"m0", "m1", "../evil\x01", "m3", "m4", "C:\\win"};
    auto r = convert(input(textured_glb(materials, images)), "out.iqm");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::vector<std::string> expected{"_._x.png", "a_b.png", "_evil_.png", "dup.png", "dup_2.png", "C_win.jpg"};
    expect_files({"out.iqm", expected[0], expected[1], expected[2], expected[3], expected[4], expected[5]});
    for (size_t i = 0; i < images.size(); ++i) EXPECT_EQ(test::read_bytes(out_dir / expected[i]), images[i].bytes) << expected[i];
    for (auto& name : expected) {
        EXPECT_EQ(name.find(".."), std::string::npos) << name;
        EXPECT_TRUE(std::all_of(name.begin(), name.end(), [](unsigned char c) { return c > 0x20 && c < 0x7f && c != '/' && c != '\\'; })) << name;
    }
}

TEST_F(GltfEmbeddedImages, NameNeverReplacesAFileTheInputReads) {
    // A .gltf naming "skin.png" on disk and holding another image called "skin": the held one
    // gets another name, so the input's texture is never replaced when writing beside it.
    test::GltfFixture f;
    const auto held = png(9, 9, 9);
    f.push("images", {{"uri", "skin.png"}});
    f.push("images", {{"name", "skin"}, {"uri", "data:image/png;base64," + test::GltfFixture::base64(held)}});
    for (uint32_t i = 0; i < 2; ++i) {
        f.push("textures", {{"source", i}});
        f.push("materials", {{"name", "m" + std::to_string(i)}, {"pbrMetallicRoughness", {{"baseColorTexture", {{"index", i}}}}}});
        const uint32_t pos = f.floats({0, 0, 0, 1, 0, 0, 0, 1, 0}, "VEC3");
        const uint32_t mesh = f.push("meshes", {{"primitives", {{{"attributes", {{"POSITION", pos}}}, {"material", i}}}}});
        f.push("nodes", {{"mesh", mesh}});
    }
    test::write_bytes(in_dir / "model.gltf", f.gltf());
    test::write_bytes(in_dir / "skin.png", png(1, 1, 1));
    auto r = test::run_cli({"convert", (in_dir / "model.gltf").string(), "-o", (in_dir / "out.iqm").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(test::read_bytes(in_dir / "skin.png"), png(1, 1, 1));
    EXPECT_EQ(test::read_bytes(in_dir / "skin_2.png"), held);  // the data: URI image, decoded
}

TEST_F(GltfEmbeddedImages, WebpIsWrittenAsAFileWithAWarning) {
    const fs::path in = input(textured_glb({"Leaf"}, {{"leaf", "image/webp", webp()}}));
    auto r = convert(in, "out.glb");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("image/webp, which glTF core does not allow"), std::string::npos) << r.err;
    expect_files({"out.glb", "leaf.webp"});
    EXPECT_EQ(test::read_bytes(out_dir / "leaf.webp"), webp());
    const auto json = test::file_json(out_dir / "out.glb");
    ASSERT_EQ(json["images"].size(), 1u);
    EXPECT_EQ(json["images"][0]["uri"], "leaf.webp");
    EXPECT_FALSE(json["images"][0].contains("bufferView"));
    // Declared as PNG but WebP by its magic bytes: still never embedded as a PNG.
    empty_output_folder();
    r = convert(input(textured_glb({"Leaf"}, {{"leaf", "image/png", webp()}})), "out.glb", {"--images", "embed"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("image/webp"), std::string::npos) << r.err;
    expect_files({"out.glb", "leaf.webp"});
}

TEST_F(GltfEmbeddedImages, HostileBufferViewsAreErrors) {
    // An image bufferView past its buffer, and many images over one overlapping range.
    test::GltfFixture past;
    const auto bytes = png(1, 2, 3);
    past.view(bytes.data(), bytes.size());
    past.doc["bufferViews"][0]["byteLength"] = 1u << 30;
    past.push("images", {{"bufferView", 0}, {"mimeType", "image/png"}});
    past.push("textures", {{"source", 0}});
    past.push("materials", {{"pbrMetallicRoughness", {{"baseColorTexture", {{"index", 0}}}}}});
    auto scene = load_bytes(past.glb(), "past.glb");
    ASSERT_FALSE(scene);
    EXPECT_NE(scene.error().message.find("/bufferViews/0"), std::string::npos) << scene.error().to_string();

    test::GltfFixture overlap;
    std::vector<uint8_t> big(1 << 16, 7);
    overlap.view(big.data(), big.size());
    for (uint32_t i = 0; i < 64; ++i) {
        overlap.push("bufferViews", {{"buffer", 0}, {"byteOffset", 0}, {"byteLength", big.size()}});
        overlap.push("images", {{"bufferView", i + 1}, {"mimeType", "image/png"}});
        overlap.push("textures", {{"source", i}});
        overlap.push("materials", {{"pbrMetallicRoughness", {{"baseColorTexture", {{"index", i}}}}}});
    }
    scene = load_bytes(overlap.glb(), "overlap.glb");
    ASSERT_FALSE(scene);
    EXPECT_EQ(scene.error().code, ErrorCode::LimitExceeded) << scene.error().to_string();
}

TEST(GltfEmbeddedImagesCorpus, CesiumManToIqmWritesItsTexture) {
    RIGPORT_REQUIRE_CORPUS();
    const fs::path in = test::corpus_dir() / "gltf" / "CesiumMan.glb";
    if (!fs::exists(in)) GTEST_SKIP() << in << " not in the corpus";
    const fs::path dir = test::temp_dir();
    auto r = test::run_cli({"convert", in.string(), "-o", (dir / "cesium.iqm").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err.find("images are not loaded"), std::string::npos) << r.err;
    auto source = load(in.string());
    ASSERT_TRUE(source) << source.error().to_string();
    ASSERT_EQ(source->images.size(), 1u);
    auto scene = load((dir / "cesium.iqm").string());
    ASSERT_TRUE(scene) << scene.error().to_string();
    ASSERT_FALSE(scene->materials.empty());
    const std::string texture = scene->materials[0].name;
    EXPECT_TRUE(texture.ends_with(".jpg") || texture.ends_with(".png")) << texture;
    EXPECT_EQ(test::read_bytes(dir / texture), source->images[0].bytes);
    EXPECT_EQ(files_under(dir), (std::set<std::string>{"cesium.iqm", texture}));
}

}  // namespace
}  // namespace rigport
