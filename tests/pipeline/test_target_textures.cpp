// Textures against engine targets (docs/targets.md "Textures"): a model whose texture breaks one
// of a profile's texture rules is named by check with that rule's code; convert --target writes
// the image the engine loads beside the output (the right type, size, powers of two, palette),
// the material names it, the output passes check, its colours stay within a stated error of the
// source, and no input is touched. Every fixture is written here.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <stb_image.h>
#include <stb_image_write.h>

#include <cmath>
#include <filesystem>
#include <set>
#include <string>

#include "formats/images/image_files.hpp"
#include "rigport/io.hpp"
#include "rigport/targets.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace rigport;
using namespace rigport::test;

namespace {

// A smooth RGB gradient of many colours (more than 256 once it is 32 x 32 or larger).
std::vector<uint8_t> gradient(int w, int h) {
    std::vector<uint8_t> rgb(size_t(w) * size_t(h) * 3);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            uint8_t* p = rgb.data() + (size_t(y) * size_t(w) + size_t(x)) * 3;
            p[0] = uint8_t(x * 255 / std::max(1, w - 1));
            p[1] = uint8_t(y * 255 / std::max(1, h - 1));
            p[2] = uint8_t((x + y) * 255 / std::max(1, w + h - 2));
        }
    return rgb;
}

void write_png(const fs::path& path, int w, int h) {
    const auto rgb = gradient(w, h);
    ASSERT_TRUE(stbi_write_png(path.string().c_str(), w, h, 3, rgb.data(), w * 3));
}

// A triangle with texture coordinates, its material the texture `texture` (a name IQM keeps).
Scene textured(const std::string& texture) {
    Scene s;
    Mesh m;
    m.name = "body";
    m.positions = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
    m.texcoords = {{{0, 0}, {1, 0}, {0, 1}}};
    m.triangles = {{0, 1, 2}};
    m.material = 0;
    s.meshes.push_back(m);
    Material mat;
    mat.name = texture;
    mat.maps.push_back(TextureMap{TextureType::Diffuse, texture, {}, -1});
    s.materials.push_back(mat);
    return s;
}

// A folder of the test's own (files_dir() empties it, so each test takes it once) holding
// model.iqm and its texture skin.png of w x h.
fs::path fixture(const fs::path& base, const std::string& name, int w, int h) {
    const fs::path dir = base / name;
    fs::remove_all(dir);
    fs::create_directories(dir / "out");
    write_png(dir / "skin.png", w, h);
    EXPECT_TRUE(save(textured("skin.png"), (dir / "model.iqm").string()));
    return dir;
}

std::set<std::string> codes(const ValidationReport& r) {
    std::set<std::string> out;
    for (auto& f : r.findings)
        if (f.severity == Severity::Error) out.insert(f.code);
    return out;
}

ValidationReport check_file(const fs::path& model, const std::string& target) {
    auto scene = load(model.string());
    EXPECT_TRUE(scene) << scene.error().to_string();
    Warnings warnings;
    auto found = find_target_textures(*scene, model.string(), {}, false, warnings);
    EXPECT_TRUE(found);
    return check_target(*scene, *find_target(target), model.string(), *found);
}

struct Pixels {
    int w = 0, h = 0;
    std::vector<uint8_t> rgb;
};
Pixels decode(const fs::path& path) {
    Pixels p;
    int n = 0;
    stbi_uc* data = stbi_load(path.string().c_str(), &p.w, &p.h, &n, 3);
    if (!data) return p;
    p.rgb.assign(data, data + size_t(p.w) * size_t(p.h) * 3);
    stbi_image_free(data);
    return p;
}

// Mean absolute error per channel of `out` against the source gradient of sw x sh, each output
// texel compared with the source texel at the same place in texture space (the nearest).
double error_against_source(const Pixels& out, int sw, int sh) {
    const auto src = gradient(sw, sh);
    double sum = 0;
    for (int y = 0; y < out.h; ++y)
        for (int x = 0; x < out.w; ++x) {
            const int sx = std::min(sw - 1, int((x + 0.5) * sw / out.w)), sy = std::min(sh - 1, int((y + 0.5) * sh / out.h));
            for (int k = 0; k < 3; ++k)
                sum += std::abs(int(out.rgb[(size_t(y) * size_t(out.w) + size_t(x)) * 3 + size_t(k)]) -
                                int(src[(size_t(sy) * size_t(sw) + size_t(sx)) * 3 + size_t(k)]));
        }
    return sum / (double(out.w) * out.h * 3);
}

}  // namespace

// Every texture rule a profile states names its source; the Quake family's skin heights and
// GoldSrc's palette are there.
TEST(TargetTextures, EveryRuleNamesItsSource) {
    for (const TargetProfile& p : target_profiles()) {
        SCOPED_TRACE(std::string(p.name));
        const TargetTextures& t = p.textures;
        EXPECT_EQ(t.types.empty(), t.types_source.empty());
        for (auto type : t.types) EXPECT_FALSE(images::extension_of(type).empty()) << type;
        EXPECT_EQ(t.palette, !t.palette_source.empty());
        EXPECT_EQ(t.power_of_two, !t.power_of_two_source.empty());
        EXPECT_EQ(t.most_width || t.most_height, !t.size_source.empty());
        EXPECT_EQ(t.most_texels != 0, !t.texels_source.empty());
        // convert writes one of the types the engine loads.
        if (!t.types.empty()) {
            bool writable = false;
            for (auto type : t.types) writable = writable || images::can_write(type);
            EXPECT_TRUE(writable);
        }
    }
    EXPECT_TRUE(find_target("goldsrc")->textures.palette);
    EXPECT_EQ(find_target("quake")->textures.most_height, 480u);
    EXPECT_EQ(find_target("quake2")->textures.most_height, 480u);
    EXPECT_TRUE(find_target("source")->textures.power_of_two);
}

// One texture per broken rule, each named by its code and no other texture code.
TEST(TargetTextures, CheckNamesEachBrokenRule) {
    const fs::path base = files_dir();
    const fs::path a = fixture(base, "tt_check_a", 300, 200);
    EXPECT_EQ(codes(check_file(a / "model.iqm", "goldsrc")), (std::set<std::string>{"target.texture_type", "target.texture_palette"}));
    EXPECT_EQ(codes(check_file(a / "model.iqm", "source")), (std::set<std::string>{"target.texture_type", "target.texture_power_of_two"}));
    EXPECT_EQ(codes(check_file(a / "model.iqm", "quake2")), (std::set<std::string>{"target.texture_type"}));
    EXPECT_TRUE(codes(check_file(a / "model.iqm", "quake3")).empty());  // ioquake3 loads PNG
    EXPECT_TRUE(codes(check_file(a / "model.iqm", "quake")).empty());   // the MDL holds its skin

    const fs::path tall = fixture(base, "tt_check_tall", 64, 481);
    EXPECT_EQ(codes(check_file(tall / "model.iqm", "quake")), (std::set<std::string>{"target.texture_size"}));
    const ValidationReport q2 = check_file(tall / "model.iqm", "quake2");
    EXPECT_TRUE(codes(q2).count("target.texture_size"));
    for (auto& f : q2.findings) {
        if (f.code == "target.texture_size") {
            EXPECT_NE(f.message.find("64 x 481"), std::string::npos) << f.message;
        }
    }
    EXPECT_FALSE(codes(check_file(fixture(base, "tt_check_480", 64, 480) / "model.iqm", "quake")).count("target.texture_size"));

    // GoldSrc counts stored texels, the width rounded up to a multiple of 4, within 640 x 480 less
    // the 768-byte palette (306,432): 553 x 551 is stored as 556 x 551 = 306,356; 553 x 552 as
    // 306,912, over it though 553 x 552 itself is not.
    EXPECT_FALSE(codes(check_file(fixture(base, "tt_check_texels_at", 553, 551) / "model.iqm", "goldsrc")).count("target.texture_size"));
    EXPECT_TRUE(codes(check_file(fixture(base, "tt_check_texels_over", 553, 552) / "model.iqm", "goldsrc")).count("target.texture_size"));
    EXPECT_TRUE(codes(check_file(fixture(base, "tt_check_wide", 4096, 16) / "model.iqm", "source")).count("target.texture_size"));

    // The image the scene holds is measured as well; a texture found nowhere is not a limit.
    Scene held = textured("held.png");
    held.images.push_back(EmbeddedImage{"held", "image/png", read_bytes(a / "skin.png")});
    held.materials[0].maps[0].image = 0;
    EXPECT_TRUE(codes(check_target(held, *find_target("goldsrc"))).count("target.texture_type"));
    EXPECT_TRUE(codes(check_target(textured("nowhere.png"), *find_target("goldsrc"))).empty());
}

// The command line: exit 5 with the codes; a texture not found is a warning with exit 0.
TEST(TargetTextures, CheckOnTheCommandLine) {
    const fs::path base = files_dir();
    const fs::path a = fixture(base, "tt_cli", 300, 200);
    const auto broken = run_cli({"check", "--target", "goldsrc", "--json", (a / "model.iqm").string()});
    EXPECT_EQ(broken.exit_code, 5) << broken.err;
    const auto j = nlohmann::json::parse(broken.out);
    std::set<std::string> found;
    for (auto& f : j["findings"]) found.insert(f["code"]);
    EXPECT_TRUE(found.count("target.texture_type") && found.count("target.texture_palette")) << broken.out;
    fs::remove(a / "skin.png");
    const auto missing = run_cli({"check", "--target", "goldsrc", (a / "model.iqm").string()});
    EXPECT_EQ(missing.exit_code, 0) << missing.out << missing.err;
    EXPECT_NE(missing.out.find("skin.png"), std::string::npos) << missing.out;
    const auto listed = run_cli({"targets", "--json"});
    ASSERT_EQ(listed.exit_code, 0);
    EXPECT_NE(listed.out.find("\"texels\""), std::string::npos);
}

// GoldSrc: the PNG becomes an 8-bit BMP with its own palette beside the SMD, which names it; the
// colours of a 300 x 200 gradient (60,000 colours) stay within a mean error of 6 of 255 per
// channel; an image of 256 colours or fewer keeps them exactly. The inputs are unchanged.
TEST(TargetTextures, ConvertGoldSrcWritesAnEightBitBmpWithItsOwnPalette) {
    const fs::path base = files_dir();
    const fs::path dir = fixture(base, "tt_goldsrc", 300, 200);
    const auto png = read_bytes(dir / "skin.png");
    const auto model = read_bytes(dir / "model.iqm");
    const auto r = run_cli({"convert", (dir / "model.iqm").string(), "--target", "goldsrc", "-o", (dir / "out" / "m").string(), "--json", "-q"});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    const auto record = nlohmann::json::parse(r.out);
    ASSERT_TRUE(record.contains("target_fixes")) << r.out;
    const std::string fix = record["target_fixes"][0];
    EXPECT_NE(fix.find("'skin.png'"), std::string::npos) << fix;
    EXPECT_NE(fix.find("'skin.bmp'"), std::string::npos) << fix;
    EXPECT_NE(fix.find("256 colours"), std::string::npos) << fix;

    const auto bmp = read_bytes(dir / "out" / "skin.bmp");
    EXPECT_TRUE(images::holds_palette(bmp));
    const Pixels out = decode(dir / "out" / "skin.bmp");
    ASSERT_EQ(out.w, 300);
    ASSERT_EQ(out.h, 200);
    const double error = error_against_source(out, 300, 200);
    EXPECT_LT(error, 6.0);
    EXPECT_GT(error, 0.0);  // 60,000 colours cannot all be kept
    const auto smd = read_bytes(dir / "out" / "m.smd");
    const std::string text(smd.begin(), smd.end());
    EXPECT_NE(text.find("skin.bmp"), std::string::npos);
    EXPECT_EQ(text.find("skin.png"), std::string::npos);
    const auto check = run_cli({"check", "--target", "goldsrc", (dir / "out" / "m.smd").string()});
    EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
    EXPECT_EQ(read_bytes(dir / "skin.png"), png);
    EXPECT_EQ(read_bytes(dir / "model.iqm"), model);

    // 16 x 16 of 16 colours: the palette keeps each exactly.
    const fs::path few = fixture(base, "tt_goldsrc_few", 16, 16);
    std::vector<uint8_t> rgb(16 * 16 * 3);
    for (size_t i = 0; i < 256; ++i) rgb[i * 3] = uint8_t((i % 16) * 17), rgb[i * 3 + 1] = 40, rgb[i * 3 + 2] = 200;
    ASSERT_TRUE(stbi_write_png((few / "skin.png").string().c_str(), 16, 16, 3, rgb.data(), 48));
    ASSERT_EQ(run_cli({"convert", (few / "model.iqm").string(), "--target", "goldsrc", "-o", (few / "out" / "m.smd").string(), "-q"}).exit_code, 0);
    const Pixels exact = decode(few / "out" / "skin.bmp");
    ASSERT_EQ(exact.rgb.size(), rgb.size());
    EXPECT_EQ(exact.rgb, rgb);
}

// Source: 300 x 200 is rounded up to 512 x 256 (the next powers of two, so no texel is lost) as
// a TGA; a 4000 x 100 one is scaled to vtex's 2048 wide (51 high) and then 64 high. The colours
// of the smooth gradient stay within a mean error of 3 of 255 of the source at the same place.
TEST(TargetTextures, ConvertSourceResizesToPowersOfTwo) {
    const fs::path base = files_dir();
    const fs::path dir = fixture(base, "tt_source", 300, 200);
    const auto r = run_cli({"convert", (dir / "model.iqm").string(), "--target", "source", "-o", (dir / "out" / "m").string(), "-q"});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    const auto tga = read_bytes(dir / "out" / "skin.tga");
    EXPECT_EQ(images::type_of(tga), "tga");
    const Pixels out = decode(dir / "out" / "skin.tga");
    ASSERT_EQ(out.w, 512);
    ASSERT_EQ(out.h, 256);
    EXPECT_LT(error_against_source(out, 300, 200), 3.0);
    EXPECT_EQ(run_cli({"check", "--target", "source", (dir / "out" / "m.smd").string()}).exit_code, 0);

    const fs::path wide = fixture(base, "tt_source_wide", 4000, 100);
    ASSERT_EQ(run_cli({"convert", (wide / "model.iqm").string(), "--target", "source", "-o", (wide / "out" / "m").string(), "-q"}).exit_code, 0);
    const Pixels w = decode(wide / "out" / "skin.tga");
    EXPECT_EQ(w.w, 2048);
    EXPECT_EQ(w.h, 64);
}

// Quake 2: the PNG becomes a TGA (the renderer reads TGA skins in full colour; PCX would need the
// game's palette), a skin taller than 480 scaled to 480; the MD2 names it. Quake: the MDL holds
// its skin, scaled to 480 high, and nothing is written beside it.
TEST(TargetTextures, ConvertQuakeSkinsToTheirHeight) {
    const fs::path base = files_dir();
    const fs::path dir = fixture(base, "tt_quake2", 64, 600);
    ASSERT_EQ(run_cli({"convert", (dir / "model.iqm").string(), "--target", "quake2", "-o", (dir / "out" / "m").string(), "-q"}).exit_code, 0);
    const Pixels out = decode(dir / "out" / "skin.tga");
    EXPECT_EQ(out.w, 51);
    EXPECT_EQ(out.h, 480);
    EXPECT_LT(error_against_source(out, 64, 600), 3.0);
    auto md2 = load((dir / "out" / "m.md2").string());
    ASSERT_TRUE(md2);
    ASSERT_FALSE(md2->materials.empty());
    EXPECT_EQ(md2->materials[0].maps[0].uri, "skin.tga");
    EXPECT_EQ(run_cli({"check", "--target", "quake2", (dir / "out" / "m.md2").string()}).exit_code, 0);

    const fs::path q1 = fixture(base, "tt_quake", 64, 600);
    ASSERT_EQ(run_cli({"convert", (q1 / "model.iqm").string(), "--target", "quake", "-o", (q1 / "out" / "m").string(), "-q"}).exit_code, 0);
    auto mdl = load((q1 / "out" / "m.mdl").string());
    ASSERT_TRUE(mdl);
    ASSERT_FALSE(mdl->images.empty());
    int w = 0, h = 0, n = 0;
    ASSERT_TRUE(stbi_info_from_memory(mdl->images[0].bytes.data(), int(mdl->images[0].bytes.size()), &w, &h, &n));
    EXPECT_EQ(h, 480);
    EXPECT_EQ(run_cli({"check", "--target", "quake", (q1 / "out" / "m.mdl").string()}).exit_code, 0);
    size_t beside = 0;
    for (auto& e : fs::directory_iterator(q1 / "out")) beside += e.path().filename() != "m.mdl";
    EXPECT_EQ(beside, 0u);
}

// An input texture beside the output keeps its bytes: the new one takes another name. A
// conversion refused for another limit writes no texture.
TEST(TargetTextures, InputsAreNeverReplacedAndARefusalWritesNothing) {
    const fs::path base = files_dir();
    const fs::path dir = base / "tt_inputs";
    fs::remove_all(dir);
    fs::create_directories(dir);
    const auto rgb = gradient(40, 30);
    ASSERT_TRUE(stbi_write_bmp((dir / "skin.bmp").string().c_str(), 40, 30, 3, rgb.data()));  // 24-bit: not what studiomdl takes
    ASSERT_TRUE(save(textured("skin.bmp"), (dir / "model.iqm").string()));
    const auto before = read_bytes(dir / "skin.bmp");
    const auto r = run_cli({"convert", (dir / "model.iqm").string(), "--target", "goldsrc", "-o", (dir / "m.smd").string(), "-q"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(read_bytes(dir / "skin.bmp"), before);
    EXPECT_TRUE(images::holds_palette(read_bytes(dir / "skin_2.bmp")));
    EXPECT_EQ(run_cli({"check", "--target", "goldsrc", (dir / "m.smd").string()}).exit_code, 0);

    const fs::path big = fixture(base, "tt_refused", 64, 600);
    // A clip of 60 s: 601 frames at Quake 2's 10 per second, beyond its 512, which no fix changes.
    Scene many = textured("skin.png");
    many.skeleton.joints.push_back(Joint{"root", -1, Transform{}});
    Animation clip;
    clip.name = "long";
    JointTrack track;
    track.joint = 0;
    track.channel = Channel::Translation;
    track.times = {0.0f, 60.0f};
    track.values = {0, 0, 0, 0, 0, 1};
    clip.tracks.push_back(track);
    many.animations.push_back(clip);
    ASSERT_TRUE(save(many, (big / "model.iqm").string()));
    const auto refused = run_cli({"convert", (big / "model.iqm").string(), "--target", "quake2", "-o", (big / "out" / "m.md2").string()});
    EXPECT_EQ(refused.exit_code, 3) << refused.err;
    EXPECT_NE(refused.err.find("601 frames"), std::string::npos) << refused.err;
    EXPECT_FALSE(fs::exists(big / "out" / "skin.tga"));
    EXPECT_FALSE(fs::exists(big / "out" / "m.md2"));
}
