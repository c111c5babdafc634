// Texture search as engines do it (docs/cli.md "Textures"), through the rigport binary: engine
// paths without extension found under a game's root (--texture-path), another machine's absolute
// path found by base name beside the model, one warning naming where it looked, and a texture path
// that opens no other folder outside.
#include <gtest/gtest.h>

#include <stb_image.h>
#include <stb_image_write.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "formats/fbx/fbx_fixtures.hpp"
#include "rigport/io.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

namespace fs = std::filesystem;

void write_text(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    write_bytes(path, std::vector<uint8_t>(text.begin(), text.end()));
}

size_t occurrences(const std::string& text, const std::string& part) {
    size_t n = 0;
    for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++n;
    return n;
}

// A w x h image of one colour: TGA (what id Tech games ship) or PNG.
void write_tga(const fs::path& path, int w, int h, uint8_t r, uint8_t g, uint8_t b) {
    fs::create_directories(path.parent_path());
    std::vector<uint8_t> rgb;
    for (int i = 0; i < w * h; ++i) rgb.insert(rgb.end(), {r, g, b});
    ASSERT_TRUE(stbi_write_tga(path.string().c_str(), w, h, 3, rgb.data()));
}
std::vector<uint8_t> png(int w, int h, uint8_t r, uint8_t g, uint8_t b) {
    std::vector<uint8_t> rgb;
    for (int i = 0; i < w * h; ++i) rgb.insert(rgb.end(), {r, g, b});
    return encode_png(w, h, rgb.data());
}

// A textured IQE quad whose material (its texture) is `texture`, filling a front view.
std::string quad_iqe(const std::string& texture) {
    return "# Inter-Quake Export\nmesh quad\nmaterial \"" + texture +
           "\"\nvp 0 0 0\nvt 0 1\nvp 1 0 0\nvt 1 1\nvp 1 1 0\nvt 1 0\nvp 0 1 0\nvt 0 0\nfm 0 2 1\nfm 0 3 2\n";
}

// A one-triangle MD5 mesh with Doom 3's kind of shader name.
std::string md5mesh(const std::string& shader) {
    return "MD5Version 10\ncommandline \"\"\n\nnumJoints 1\nnumMeshes 1\n\njoints {\n\t\"root\"\t-1 ( 0 0 0 ) ( 0 0 0 )\n}\n\n"
           "mesh {\n\tshader \"" + shader + "\"\n\tnumverts 3\n\tvert 0 ( 0 0 ) 0 1\n\tvert 1 ( 1 0 ) 1 1\n\tvert 2 ( 0 1 ) 2 1\n"
           "\tnumtris 1\n\ttri 0 0 2 1\n\tnumweights 3\n\tweight 0 0 1 ( 0 0 0 )\n\tweight 1 0 1 ( 1 0 0 )\n"
           "\tweight 2 0 1 ( 0 1 0 )\n}\n";
}

// The size of each image a .glb holds.
std::vector<std::pair<int, int>> image_sizes(const fs::path& glb) {
    auto scene = load(glb.string());
    EXPECT_TRUE(scene) << scene.error().to_string();
    std::vector<std::pair<int, int>> sizes;
    if (!scene) return sizes;
    for (auto& image : scene->images) {
        int w = 0, h = 0, n = 0;
        EXPECT_TRUE(stbi_info_from_memory(image.bytes.data(), int(image.bytes.size()), &w, &h, &n));
        sizes.emplace_back(w, h);
    }
    return sizes;
}

std::vector<uint8_t> bytes_of(const std::string& s) { return {s.begin(), s.end()}; }

bool file_holds(const fs::path& file, const std::vector<uint8_t>& marker) {
    const auto bytes = read_bytes(file);
    return std::search(bytes.begin(), bytes.end(), marker.begin(), marker.end()) != bytes.end();
}

}  // namespace

// Doom 3 names a texture as a path from the game's root without extension; the TGA is found beside
// the model by that name's base name, and with --texture-path GAME by the name itself.
TEST(TextureSearch, Md5ShaderWithoutExtensionIsFoundInItsGameTree) {
    const fs::path dir = files_dir();
    write_text(dir / "game/models/x/x.md5mesh", md5mesh("models/x/skin"));
    write_tga(dir / "game/models/x/skin.tga", 4, 2, 200, 40, 40);
    for (const std::vector<std::string>& extra : {std::vector<std::string>{}, {"--texture-path", (dir / "game").string()}}) {
        auto r = run_cli([&] {
            std::vector<std::string> args{"convert", (dir / "game/models/x/x.md5mesh").string(), "-o", (dir / "x.glb").string(),
                                          "--convert-images"};
            args.insert(args.end(), extra.begin(), extra.end());
            return args;
        }());
        ASSERT_EQ(r.exit_code, 0) << r.err;
        EXPECT_EQ(r.err.find("texture-not-found"), std::string::npos) << r.err;
        EXPECT_EQ(image_sizes(dir / "x.glb"), (std::vector<std::pair<int, int>>{{4, 2}}));
    }
}

// A model exported outside the game tree names "models/x/skin": only --texture-path GAME finds it,
// by the name as written before the base name (GAME/skin.png is a decoy of another size), and the
// file found is an input of the conversion (--ninja-deps lists it).
TEST(TextureSearch, IqeGamePathIsFoundUnderATexturePath) {
    const fs::path dir = files_dir();
    write_text(dir / "work/x.iqe", quad_iqe("models/x/skin"));
    write_tga(dir / "game/models/x/skin.tga", 4, 2, 40, 200, 40);
    write_bytes(dir / "game/skin.png", png(2, 2, 1, 2, 3));
    fs::create_directories(dir / "empty");
    const std::string in = (dir / "work/x.iqe").string(), out = (dir / "x.glb").string();

    auto without = run_cli({"convert", in, "-o", out, "--convert-images"});
    ASSERT_EQ(without.exit_code, 0) << without.err;
    EXPECT_EQ(occurrences(without.err, "texture-not-found"), 1u) << without.err;
    EXPECT_TRUE(image_sizes(out).empty());

    auto with = run_cli({"convert", in, "-o", out, "--convert-images", "--texture-path", (dir / "empty").string(), "--texture-path",
                         (dir / "game").string(), "--ninja-deps"});
    ASSERT_EQ(with.exit_code, 0) << with.err;
    EXPECT_EQ(with.err.find("texture-not-found"), std::string::npos) << with.err;
    EXPECT_EQ(image_sizes(out), (std::vector<std::pair<int, int>>{{4, 2}}));
    EXPECT_NE(with.out.find("rigport-dep: " + (dir / "game/models/x/skin.tga").string()), std::string::npos) << with.out;
    // A .gltf references the file found, with its real extension.
    auto gltf = run_cli({"convert", in, "-o", (dir / "x.gltf").string(), "--texture-path", (dir / "game").string()});
    ASSERT_EQ(gltf.exit_code, 0) << gltf.err;
    EXPECT_TRUE(file_holds(dir / "x.gltf", bytes_of("\"game/models/x/skin.tga\"")));
}

// An FBX names the author's absolute path; every other tool finds the file beside the model by its
// base name, and so does rigport.
TEST(TextureSearch, FbxAbsoluteWindowsPathIsFoundByBaseNameBesideTheModel) {
    const fs::path dir = files_dir();
    std::string fbx = fbx_skinned_quad_ascii();
    const std::string file_name = "FileName: \"C:\\art\\tex\\skin.png\"", relative = "RelativeFilename: \"tex\\skin.png\"";
    ASSERT_NE(fbx.find(file_name), std::string::npos);
    ASSERT_NE(fbx.find(relative), std::string::npos);
    fbx.replace(fbx.find(file_name), file_name.size(), "FileName: \"D:\\Dev\\hero\\textures\\diffuse.png\"");
    fbx.replace(fbx.find(relative), relative.size(), "RelativeFilename: \"\"");
    write_text(dir / "hero/hero.fbx", fbx);
    const auto texture = png(3, 5, 9, 99, 199);
    write_bytes(dir / "hero/diffuse.png", texture);
    auto r = run_cli({"convert", (dir / "hero/hero.fbx").string(), "-o", (dir / "hero.glb").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err.find("texture-not-found"), std::string::npos) << r.err;
    auto scene = load((dir / "hero.glb").string());
    ASSERT_TRUE(scene) << scene.error().to_string();
    ASSERT_EQ(scene->images.size(), 1u);
    EXPECT_EQ(scene->images[0].bytes, texture);
}

// A texture found nowhere: one warning, naming every folder and spelling it tried; render says the
// same once.
TEST(TextureSearch, ATextureFoundNowhereIsOneWarningNamingWhereItLooked) {
    const fs::path dir = files_dir();
    write_text(dir / "work/x.iqe", quad_iqe("models\\x\\missing"));
    fs::create_directories(dir / "game/models/x");
    const std::string game = (dir / "game").string();
    auto r = run_cli({"convert", (dir / "work/x.iqe").string(), "-o", (dir / "x.glb").string(), "--texture-path", game});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(occurrences(r.err, "Warning: "), 1u) << r.err;
    EXPECT_EQ(occurrences(r.err, "texture-not-found"), 1u) << r.err;
    for (const std::string& part : {std::string("'models\\x\\missing'"), std::string("models/x/missing and missing in"),
                                    (dir / "work").string(), game, std::string(".png"), std::string(".tga"), std::string(".pcx")})
        EXPECT_NE(r.err.find(part), std::string::npos) << part << ": " << r.err;
    auto picture = run_cli({"render", (dir / "work/x.iqe").string(), "-o", (dir / "x.png").string(), "--size", "32x32", "--texture-path", game});
    ASSERT_EQ(picture.exit_code, 0) << picture.err;
    EXPECT_EQ(occurrences(picture.err, "texture-not-found"), 1u) << picture.err;
    EXPECT_NE(picture.err.find(game), std::string::npos) << picture.err;
}

// render and view find a texture through --texture-path as convert does.
TEST(TextureSearch, RenderDrawsATextureFoundUnderATexturePath) {
    const fs::path dir = files_dir();
    write_text(dir / "work/x.iqe", quad_iqe("models/x/skin"));
    write_tga(dir / "game/models/x/skin.tga", 4, 4, 20, 220, 20);
    const std::string in = (dir / "work/x.iqe").string();
    auto plain = run_cli({"render", in, "-o", (dir / "plain.png").string(), "--size", "32x32", "--no-textures"});
    ASSERT_EQ(plain.exit_code, 0) << plain.err;
    auto found = run_cli({"render", in, "-o", (dir / "found.png").string(), "--size", "32x32", "--texture-path", (dir / "game").string()});
    ASSERT_EQ(found.exit_code, 0) << found.err;
    EXPECT_EQ(found.err.find("texture-not-found"), std::string::npos) << found.err;
    EXPECT_NE(read_bytes(dir / "plain.png"), read_bytes(dir / "found.png"));
}

// A texture path is allowed like the model's own folder, and nothing else is: a name leading up
// and out of either, an absolute path, a link inside the game tree leading out are not read.
TEST(TextureSearch, ATexturePathOpensNoOtherFolderOutside) {
    const fs::path dir = files_dir();
    const auto secret = png(2, 2, 13, 37, 251);
    write_bytes(dir / "secret.png", secret);
    fs::create_directories(dir / "game/models");
    fs::create_symlink(dir / "secret.png", dir / "game/models/link.png");
    const std::string game = (dir / "game").string(), out = (dir / "x.glb").string();
    for (const std::string& name : {std::string("../secret.png"), std::string("models/../../secret"), (dir / "secret.png").string(),
                                    std::string("models/link.png")}) {
        SCOPED_TRACE(name);
        write_text(dir / "work/x.iqe", quad_iqe(name));
        auto r = run_cli({"convert", (dir / "work/x.iqe").string(), "-o", out, "--texture-path", game});
        ASSERT_EQ(r.exit_code, 0) << r.err;
        EXPECT_EQ(occurrences(r.err, "texture-not-found"), 1u) << r.err;
        EXPECT_NE(r.err.find("outside"), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("--allow-outside"), std::string::npos) << r.err;
        EXPECT_FALSE(file_holds(out, secret));
        // The test can see a leak: --allow-outside reads it.
        auto allowed = run_cli({"convert", (dir / "work/x.iqe").string(), "-o", out, "--texture-path", game, "--allow-outside"});
        ASSERT_EQ(allowed.exit_code, 0) << allowed.err;
        EXPECT_TRUE(file_holds(out, secret));
    }
}

// batch converts with the texture paths, and writes them into its Ninja rules (absolute, quoted).
TEST(TextureSearch, BatchPassesTexturePathsOnIncludingToItsNinjaRules) {
    const fs::path dir = files_dir();
    write_text(dir / "work/x.iqe", quad_iqe("models/x/skin"));
    fs::create_directories(dir / "game/models/x");
    write_bytes(dir / "game/models/x/skin.png", png(4, 2, 40, 40, 200));  // batch has no --convert-images
    auto r = run_cli({"batch", (dir / "work").string(), "-o", (dir / "out").string(), "--format", "glb", "--texture-path",
                      (dir / "game").string(), "-q"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(image_sizes(dir / "out/x.glb").size(), 1u);
    auto ninja = run_cli({"batch", (dir / "work").string(), "-o", (dir / "out2").string(), "--format", "glb", "--texture-path",
                          (dir / "game").string(), "--ninja", (dir / "build.ninja").string()});
    ASSERT_EQ(ninja.exit_code, 0) << ninja.err;
    EXPECT_TRUE(file_holds(dir / "build.ninja", bytes_of("--texture-path '" + fs::absolute(dir / "game").lexically_normal().string() + "'")));
}

// --texture-path names a folder, checked before anything is read (exit 1), on every verb that has it.
TEST(TextureSearch, ATexturePathThatIsNoFolderIsAUsageError) {
    const fs::path dir = files_dir();
    write_text(dir / "x.iqe", quad_iqe("skin"));
    const std::string in = (dir / "x.iqe").string(), nowhere = (dir / "nowhere").string();
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"convert", in, "-o", (dir / "x.glb").string()}, {"render", in, "-o", (dir / "x.png").string()},
          {"view", in, "-o", (dir / "x.html").string()}, {"batch", in, "-o", (dir / "out").string(), "--format", "glb"}}) {
        SCOPED_TRACE(args[0]);
        std::vector<std::string> full = args;
        full.insert(full.end(), {"--texture-path", nowhere});
        auto r = run_cli(full);
        EXPECT_EQ(r.exit_code, 1) << r.err;
        EXPECT_NE(r.err.find("--texture-path"), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("nowhere"), std::string::npos) << r.err;
    }
    EXPECT_FALSE(fs::exists(dir / "x.glb"));
    EXPECT_FALSE(fs::exists(dir / "out"));
}

}  // namespace rigport::test
