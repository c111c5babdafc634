// resolve_images: texture files found beside the source, referenced, embedded or converted to PNG.
#include <gtest/gtest.h>

#include <stb_image.h>

#include "rigport/images.hpp"
#include "test_support.hpp"

namespace rigport {
namespace {

namespace fs = std::filesystem;

// An uncompressed 24-bit TGA, top-left origin, pixel (x, y) = (10x, 20y, 7) in RGB.
std::vector<uint8_t> make_tga(uint16_t w, uint16_t h, bool with_pixels = true) {
    std::vector<uint8_t> b = {0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                              uint8_t(w), uint8_t(w >> 8), uint8_t(h), uint8_t(h >> 8), 24, 0x20};
    for (uint32_t y = 0; with_pixels && y < h; ++y)
        for (uint32_t x = 0; x < w; ++x) b.insert(b.end(), {7, uint8_t(20 * y), uint8_t(10 * x)});  // BGR
    return b;
}

Scene scene_with_textures(std::vector<std::string> uris) {
    Scene s;
    for (auto& u : uris) s.materials.push_back(Material{u, {1, 1, 1, 1}, {}, {}, {}, 0, {TextureMap{TextureType::Diffuse, u, ""}}});
    return s;
}

struct Images : ::testing::Test {
    fs::path dir = test::temp_dir();
    fs::path src = dir / "src";
    void SetUp() override { fs::create_directories(src / "tex"); }
    std::vector<GltfImage> resolve(const Scene& s, const fs::path& out, ImageOptions o, Warnings& w) {
        o.search_dir = src.string();
        auto r = resolve_images(s, out.string(), o, w);
        EXPECT_TRUE(r) << r.error().to_string();
        return r ? *r : std::vector<GltfImage>{};
    }
};

TEST_F(Images, TgaConvertedToPngWithTheSamePixels) {
    test::write_bytes(src / "tex/skin.tga", make_tga(3, 2));
    Warnings w;
    ImageOptions o;
    o.convert = true;
    auto images = resolve(scene_with_textures({"tex/skin.tga"}), dir / "out.gltf", o, w);
    ASSERT_EQ(images.size(), 1u);
    EXPECT_EQ(images[0].source_uri, "tex/skin.tga");
    EXPECT_EQ(images[0].mime_type, "image/png");
    EXPECT_TRUE(images[0].uri.empty());  // converted images are always embedded
    ASSERT_GT(images[0].bytes.size(), 8u);
    EXPECT_EQ(images[0].bytes[1], 'P');
    int x = 0, y = 0, n = 0;
    stbi_uc* px = stbi_load_from_memory(images[0].bytes.data(), int(images[0].bytes.size()), &x, &y, &n, 0);
    ASSERT_NE(px, nullptr);
    EXPECT_EQ(x, 3);
    EXPECT_EQ(y, 2);
    ASSERT_EQ(n, 3);
    for (int j = 0; j < 2; ++j)
        for (int i = 0; i < 3; ++i) {
            const stbi_uc* p = px + (j * 3 + i) * 3;
            EXPECT_EQ(p[0], 10 * i);
            EXPECT_EQ(p[1], 20 * j);
            EXPECT_EQ(p[2], 7);
        }
    stbi_image_free(px);
    EXPECT_TRUE(w.items.empty());
}

TEST_F(Images, TgaWithoutConversionIsReferencedRelativeToTheOutputWithAWarning) {
    test::write_bytes(src / "tex/skin.tga", make_tga(1, 1));
    fs::create_directories(dir / "out");
    Warnings w;
    auto images = resolve(scene_with_textures({"tex/skin.tga"}), dir / "out/model.glb", {}, w);
    ASSERT_EQ(images.size(), 1u);
    EXPECT_EQ(images[0].uri, "../src/tex/skin.tga");
    EXPECT_TRUE(images[0].bytes.empty());
    EXPECT_TRUE(w.has(WarningCode::ImageFormatNotGltf));
}

TEST_F(Images, PngIsEmbeddedInGlbAndReferencedFromGltf) {
    Warnings w;
    ImageOptions convert;
    convert.convert = true;
    test::write_bytes(src / "a.tga", make_tga(2, 2));
    auto png = resolve(scene_with_textures({"a.tga"}), dir / "x.glb", convert, w)[0].bytes;
    test::write_bytes(src / "skin.png", png);

    auto glb = resolve(scene_with_textures({"skin.png"}), dir / "m.glb", {}, w);
    EXPECT_EQ(glb[0].bytes, png);
    EXPECT_EQ(glb[0].mime_type, "image/png");
    auto gltf = resolve(scene_with_textures({"skin.png"}), src / "m.gltf", {}, w);
    EXPECT_EQ(gltf[0].uri, "skin.png");
    EXPECT_TRUE(gltf[0].bytes.empty());
    ImageOptions embed;
    embed.mode = ImageOptions::Mode::Embed;
    EXPECT_EQ(resolve(scene_with_textures({"skin.png"}), src / "m.gltf", embed, w)[0].bytes, png);
    EXPECT_TRUE(w.items.empty());
}

TEST_F(Images, EnginePathWithoutExtensionFindsTheImage) {
    test::write_bytes(src / "tex/lgun.jpg", {0xFF, 0xD8, 0xFF, 0xE0, 0, 0});
    Warnings w;
    auto images = resolve(scene_with_textures({"tex/lgun", "tex\\lgun.jpg"}), src / "m.gltf", {}, w);
    ASSERT_EQ(images.size(), 2u);
    EXPECT_EQ(images[0].uri, "tex/lgun.jpg");
    EXPECT_EQ(images[0].mime_type, "image/jpeg");
    EXPECT_EQ(images[1].uri, "tex/lgun.jpg");  // Windows separators
}

TEST_F(Images, MissingTextureGivesAnEmptyEntryAndAWarning) {
    Warnings w;
    auto images = resolve(scene_with_textures({"Body.tga", "Body.tga"}), dir / "m.glb", {}, w);
    ASSERT_EQ(images.size(), 1u);  // one entry per distinct URI
    EXPECT_TRUE(images[0].uri.empty());
    EXPECT_TRUE(images[0].bytes.empty());
    EXPECT_TRUE(w.has(WarningCode::TextureNotFound));
}

TEST_F(Images, ModeNoneDropsEveryImageSilently) {
    test::write_bytes(src / "skin.png", {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A});
    Warnings w;
    ImageOptions o;
    o.mode = ImageOptions::Mode::None;
    auto images = resolve(scene_with_textures({"skin.png", "gone.tga"}), dir / "m.glb", o, w);
    ASSERT_EQ(images.size(), 2u);
    for (auto& i : images) EXPECT_TRUE(i.uri.empty() && i.bytes.empty());
    EXPECT_TRUE(w.items.empty());
}

TEST_F(Images, BadImagesAreErrorsNamingTheFileNotCrashes) {
    test::write_bytes(src / "junk.tga", {1, 2, 3});
    test::write_bytes(src / "huge.tga", make_tga(60000, 60000, false));  // header only
    auto cut = make_tga(64, 64);
    cut.resize(cut.size() / 2);
    test::write_bytes(src / "cut.tga", cut);
    ImageOptions o;
    o.convert = true;
    o.search_dir = src.string();
    {
        Warnings w;
        auto r = resolve_images(scene_with_textures({"huge.tga"}), (dir / "m.glb").string(), o, w);
        ASSERT_FALSE(r);
        EXPECT_NE(r.error().path.find("huge.tga"), std::string::npos);
        EXPECT_NE(r.error().to_string().find("huge.tga"), std::string::npos) << r.error().to_string();
    }
    {
        // No image at all: left out with a warning, converted or not (docs/cli.md "Inputs").
        Warnings w;
        auto r = resolve_images(scene_with_textures({"junk.tga"}), (dir / "m.glb").string(), o, w);
        ASSERT_TRUE(r) << r.error().to_string();
        ASSERT_EQ(r->size(), 1u);
        EXPECT_TRUE((*r)[0].bytes.empty());
        EXPECT_TRUE((*r)[0].uri.empty());
        EXPECT_TRUE(w.has(WarningCode::TextureNotFound));
    }
    Warnings w;  // stb reads a truncated TGA as far as it goes: either way, no crash
    (void)resolve_images(scene_with_textures({"cut.tga"}), (dir / "m.glb").string(), o, w);
}

}  // namespace
}  // namespace rigport
