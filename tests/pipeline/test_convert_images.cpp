// `convert --convert-images` (src/io/images.cpp): a texture file that is no image is a
// texture-not-found warning and the material goes without it (docs/cli.md "Inputs"), as without
// the option; an image stb reads is still converted to PNG.
#include <gtest/gtest.h>

#include <stb_image.h>
#include <stb_image_write.h>

#include "rigport/io.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace rigport;
using namespace rigport::test;

namespace {

void write_text(const fs::path& path, const std::string& text) { write_bytes(path, std::vector<uint8_t>(text.begin(), text.end())); }

// Two triangles, each material named by its texture (IQE).
std::string two_materials_iqe(const std::string& a, const std::string& b) {
    return "# Inter-Quake Export\nmesh a\nmaterial \"" + a + "\"\nvp 0 0 0\nvt 0 0\nvp 1 0 0\nvt 1 0\nvp 0 1 0\nvt 0 1\nfm 0 1 2\n" +
           "mesh b\nmaterial \"" + b + "\"\nvp 1 0 0\nvt 0 0\nvp 2 0 0\nvt 1 0\nvp 1 1 0\nvt 0 1\nfm 0 1 2\n";
}

}  // namespace

TEST(ConvertImages, ATextureThatIsNoImageIsAWarningAndAnImageIsConverted) {
    const fs::path dir = files_dir();
    write_text(dir / "notes.tga", "RIGPORT_NOT_AN_IMAGE plain text");
    // A real 4 x 2 TGA, which --convert-images turns into a PNG.
    std::vector<uint8_t> rgb(4 * 2 * 3, 200);
    ASSERT_TRUE(stbi_write_tga((dir / "skin.tga").string().c_str(), 4, 2, 3, rgb.data()));
    write_text(dir / "m.iqe", two_materials_iqe("notes.tga", "skin.tga"));
    auto r = run_cli({"convert", (dir / "m.iqe").string(), "-o", (dir / "m.glb").string(), "--convert-images"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("notes.tga is not an image"), std::string::npos) << r.err;
    auto back = load((dir / "m.glb").string());
    ASSERT_TRUE(back) << back.error().to_string();
    ASSERT_EQ(back->images.size(), 1u);  // skin.tga's, as PNG
    EXPECT_EQ(back->images[0].mime_type, "image/png");
    int w = 0, h = 0, n = 0;
    ASSERT_TRUE(stbi_info_from_memory(back->images[0].bytes.data(), int(back->images[0].bytes.size()), &w, &h, &n));
    EXPECT_EQ(w, 4);
    EXPECT_EQ(h, 2);
    const auto glb = read_bytes(dir / "m.glb");
    const std::string marker = "RIGPORT_NOT_AN_IMAGE";
    EXPECT_EQ(std::search(glb.begin(), glb.end(), marker.begin(), marker.end()), glb.end());
}
