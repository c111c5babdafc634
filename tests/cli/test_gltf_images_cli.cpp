// `rigport convert ... -o X.glb|X.gltf` with textures: found beside the source, embedded,
// referenced, converted from TGA, or left out; the Khronos validator checks each result.
#include <gtest/gtest.h>


#include "formats/gltf/gltf_parse.hpp"
#include "gltf_oracle.hpp"
#include "test_support.hpp"

namespace rigport {
namespace {

namespace fs = std::filesystem;

// A textured, unskinned quad naming its texture as IQE does (the material is the texture).
std::string quad_iqe(const std::string& texture) {
    return "# Inter-Quake Export\nmesh quad\nmaterial \"" + texture +
           "\"\n"
           "vp 0 0 0\nvt 0 1\nvp 1 0 0\nvt 1 1\nvp 1 1 0\nvt 1 0\nvp 0 1 0\nvt 0 0\n"
           "fm 0 2 1\nfm 0 3 2\n";
}

std::vector<uint8_t> tga_2x2() {  // uncompressed 24-bit, top-left origin
    std::vector<uint8_t> b = {0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 2, 0, 24, 0x20};
    for (int i = 0; i < 4; ++i) b.insert(b.end(), {uint8_t(40 * i), 128, 255});
    return b;
}

std::vector<uint8_t> png_2x2() {
    const uint8_t rgb[12] = {255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255};
    return test::encode_png(2, 2, rgb);
}

struct GltfImagesCli : ::testing::Test {
    fs::path dir = test::temp_dir();
    fs::path model(const std::string& texture) {
        auto path = dir / "model.iqe";
        const std::string text = quad_iqe(texture);
        test::write_bytes(path, {text.begin(), text.end()});
        return path;
    }
    void expect_valid(const fs::path& file) {
        const auto report = test::validate_gltf(file);
        ASSERT_TRUE(report.ran()) << report.error;
        EXPECT_EQ(report.errors, 0) << report.summary();
        EXPECT_EQ(report.warnings, 0) << report.summary();
    }
};

TEST_F(GltfImagesCli, TgaConvertedAndEmbeddedIsValid) {
    RIGPORT_REQUIRE_JS();
    test::write_bytes(dir / "skin.tga", tga_2x2());
    auto r = test::run_cli({"convert", model("skin.tga").string(), "-o", (dir / "out.glb").string(), "--convert-images"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err.find("Warning"), std::string::npos) << r.err;
    const auto gltf = test::parse_glb(test::read_bytes(dir / "out.glb"));
    ASSERT_EQ(gltf.json["images"].size(), 1u);
    EXPECT_EQ(gltf.json["images"][0]["mimeType"], "image/png");
    EXPECT_TRUE(gltf.json["images"][0].contains("bufferView"));
    EXPECT_EQ(gltf.json["materials"][0]["pbrMetallicRoughness"]["baseColorTexture"]["index"], 0);
    expect_valid(dir / "out.glb");
}

TEST_F(GltfImagesCli, TgaWithoutConversionIsReferencedWithAWarning) {
    test::write_bytes(dir / "skin.tga", tga_2x2());
    auto r = test::run_cli({"convert", model("skin.tga").string(), "-o", (dir / "out.gltf").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("image-format-not-gltf"), std::string::npos) << r.err;
    const auto json = nlohmann::json::parse(test::read_bytes(dir / "out.gltf"));
    EXPECT_EQ(json["images"][0]["uri"], "skin.tga");
}

TEST_F(GltfImagesCli, PngReferencedFromGltfAndEmbeddedInGlb) {
    RIGPORT_REQUIRE_JS();
    fs::create_directories(dir / "textures" / "my skins");
    test::write_bytes(dir / "textures/my skins/body.png", png_2x2());
    fs::create_directories(dir / "out");
    auto src = model("textures/my skins/body.png");
    auto r = test::run_cli({"convert", src.string(), "-o", (dir / "out/m.gltf").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto json = nlohmann::json::parse(test::read_bytes(dir / "out/m.gltf"));
    EXPECT_EQ(json["images"][0]["uri"], "../textures/my%20skins/body.png");  // relative, percent-encoded
    expect_valid(dir / "out/m.gltf");

    r = test::run_cli({"convert", src.string(), "-o", (dir / "out/m.glb").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto glb = test::parse_glb(test::read_bytes(dir / "out/m.glb"));
    ASSERT_EQ(glb.json["images"].size(), 1u);
    EXPECT_TRUE(glb.json["images"][0].contains("bufferView"));
    expect_valid(dir / "out/m.glb");
}

TEST_F(GltfImagesCli, MissingTextureLeavesAValidFileAndAWarning) {
    RIGPORT_REQUIRE_JS();
    auto r = test::run_cli({"convert", model("Body.tga").string(), "-o", (dir / "out.glb").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("texture-not-found"), std::string::npos) << r.err;
    const auto glb = test::parse_glb(test::read_bytes(dir / "out.glb"));
    EXPECT_FALSE(glb.json.contains("images"));
    EXPECT_EQ(glb.json["materials"][0]["name"], "Body.tga");
    expect_valid(dir / "out.glb");
}

TEST_F(GltfImagesCli, ImagesNoneAndBadValues) {
    test::write_bytes(dir / "skin.png", png_2x2());
    auto r = test::run_cli({"convert", model("skin.png").string(), "-o", (dir / "out.glb").string(), "--images", "none"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_FALSE(test::parse_glb(test::read_bytes(dir / "out.glb")).json.contains("images"));

    r = test::run_cli({"convert", model("skin.png").string(), "-o", (dir / "bad.glb").string(), "--images", "inline"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_FALSE(fs::exists(dir / "bad.glb"));
}

TEST_F(GltfImagesCli, UndecodableTextureIsAReadErrorAndNothingIsWritten) {
    // A TGA header declaring 60000 x 60000: an image, beyond the decoder's limit.
    test::write_bytes(dir / "skin.tga", {0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x60, 0xEA, 0x60, 0xEA, 24, 0x20});
    auto r = test::run_cli({"convert", model("skin.tga").string(), "-o", (dir / "out.glb").string(), "--convert-images"});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("skin.tga"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir / "out.glb"));
    // Bytes that are no image at all are a warning, converted or not (docs/cli.md "Inputs").
    test::write_bytes(dir / "skin.tga", {0, 0, 2, 0});
    r = test::run_cli({"convert", model("skin.tga").string(), "-o", (dir / "out.glb").string(), "--convert-images"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("skin.tga is not an image"), std::string::npos) << r.err;
    EXPECT_FALSE(test::parse_glb(test::read_bytes(dir / "out.glb")).json.contains("images"));
}

TEST_F(GltfImagesCli, SampleEmbedsItsTexture) {
    RIGPORT_REQUIRE_JS();
    auto r = test::run_cli({"sample", "-o", (dir / "sample.glb").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto glb = test::parse_glb(test::read_bytes(dir / "sample.glb"));
    ASSERT_EQ(glb.json["images"].size(), 1u);
    EXPECT_EQ(glb.json["images"][0]["mimeType"], "image/png");
    expect_valid(dir / "sample.glb");
}

}  // namespace
}  // namespace rigport

namespace rigport {
namespace {

TEST(GltfImagesCliSample, IqmSampleBringsItsTextureAndConvertsWithoutWarnings) {
    RIGPORT_REQUIRE_JS();
    const auto dir = test::temp_dir();
    auto r = test::run_cli({"sample", "-o", (dir / "sample.iqm").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ASSERT_TRUE(std::filesystem::exists(dir / "sample_texture.png"));
    r = test::run_cli({"convert", (dir / "sample.iqm").string(), "-o", (dir / "sample.glb").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(r.err.empty()) << r.err;
    const auto glb = test::parse_glb(test::read_bytes(dir / "sample.glb"));
    ASSERT_EQ(glb.json["images"].size(), 1u);
    const auto report = test::validate_gltf(dir / "sample.glb");
    ASSERT_TRUE(report.ran()) << report.error;
    EXPECT_EQ(report.errors + report.warnings, 0) << report.summary();
}

}  // namespace
}  // namespace rigport
