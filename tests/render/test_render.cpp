// `rigport render` and render(): deterministic pictures, framing, views, poses, textures, the
// overlays, the CLI's errors, and golden images (tests/golden/render/*.png, written by rigport's
// own renderer and reviewed by eye; RIGPORT_UPDATE_GOLDEN=1 rewrites them after a deliberate
// change, to be reviewed in the commit).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include <stb_image.h>
#include <stb_image_write.h>

#include "rigport/render.hpp"
#include "rigport/sample.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace rigport;
using namespace rigport::test;

namespace {

RenderImage decode_png(const std::vector<uint8_t>& png) {
    RenderImage out;
    int w = 0, h = 0, n = 0;
    stbi_uc* p = stbi_load_from_memory(png.data(), int(png.size()), &w, &h, &n, 4);
    if (!p) return out;
    out.width = uint32_t(w);
    out.height = uint32_t(h);
    out.rgba.assign(p, p + size_t(w) * h * 4);
    stbi_image_free(p);
    return out;
}

// The pixels that are not the background, and their bounding box.
struct Coverage {
    size_t pixels = 0;
    uint32_t x0 = UINT32_MAX, y0 = UINT32_MAX, x1 = 0, y1 = 0;
};
Coverage coverage(const RenderImage& image, std::array<uint8_t, 4> background) {
    Coverage c;
    for (uint32_t y = 0; y < image.height; ++y)
        for (uint32_t x = 0; x < image.width; ++x) {
            const uint8_t* p = &image.rgba[(size_t(y) * image.width + x) * 4];
            if (std::equal(p, p + 4, background.begin())) continue;
            ++c.pixels;
            c.x0 = std::min(c.x0, x), c.y0 = std::min(c.y0, y), c.x1 = std::max(c.x1, x), c.y1 = std::max(c.y1, y);
        }
    return c;
}

RenderOptions small(uint32_t w = 128, uint32_t h = 128) {
    RenderOptions o;
    o.width = w;
    o.height = h;
    return o;
}

// Pixels differing by more than `tolerance` in any channel, as a share of all pixels.
double mismatch(const RenderImage& a, const RenderImage& b, int tolerance) {
    if (a.width != b.width || a.height != b.height) return 1.0;
    size_t bad = 0;
    for (size_t i = 0; i < a.rgba.size(); i += 4)
        for (int k = 0; k < 4; ++k)
            if (std::abs(int(a.rgba[i + k]) - int(b.rgba[i + k])) > tolerance) {
                ++bad;
                break;
            }
    return double(bad) / double(a.width * a.height);
}

// A PNG whose header declares w x h RGBA pixels, with a token IDAT: a few dozen bytes to write,
// w x h x 4 to decode (16384 x 16384: 1 GiB).
std::vector<uint8_t> png_declaring(uint32_t w, uint32_t h) {
    std::vector<uint8_t> png = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
    auto chunk = [&](const char* type, std::vector<uint8_t> data) {
        const uint32_t n = uint32_t(data.size());
        for (int k = 3; k >= 0; --k) png.push_back(uint8_t(n >> (8 * k)));
        std::vector<uint8_t> body(type, type + 4);
        body.insert(body.end(), data.begin(), data.end());
        uint32_t crc = 0xFFFFFFFFu;
        for (uint8_t b : body) {
            crc ^= b;
            for (int i = 0; i < 8; ++i) crc = crc & 1 ? (crc >> 1) ^ 0xEDB88320u : crc >> 1;
        }
        crc ^= 0xFFFFFFFFu;
        png.insert(png.end(), body.begin(), body.end());
        for (int k = 3; k >= 0; --k) png.push_back(uint8_t(crc >> (8 * k)));
    };
    std::vector<uint8_t> ihdr;
    for (uint32_t v : {w, h})
        for (int k = 3; k >= 0; --k) ihdr.push_back(uint8_t(v >> (8 * k)));
    ihdr.insert(ihdr.end(), {8, 6, 0, 0, 0});  // 8 bits, RGBA, deflate, no filter method, not interlaced
    chunk("IHDR", ihdr);
    chunk("IDAT", {0x78, 0x01, 0x00});  // a zlib header and the start of a block: the rest is missing
    chunk("IEND", {});
    return png;
}

// A real PNG of w x h pixels (a gradient).
std::vector<uint8_t> png_of(int w, int h) {
    std::vector<uint8_t> rgb(size_t(w) * h * 3);
    for (size_t i = 0; i < rgb.size(); ++i) rgb[i] = uint8_t(i * 7);
    return encode_png(w, h, rgb.data());
}

// One texture under five spellings, as five materials name it.
const std::vector<std::string> five_spellings = {"b1.png", "./b1.png", ".//b1.png", "sub/../b1.png", "sub/./..//b1.png"};

Scene materials_naming(const std::vector<std::string>& uris) {
    Scene scene;
    for (size_t m = 0; m < uris.size(); ++m) {
        Material material;
        material.name = "m" + std::to_string(m);
        material.maps.push_back(TextureMap{TextureType::Diffuse, uris[m], {}, -1});
        scene.materials.push_back(material);
    }
    return scene;
}

// An IQE of one textured quad per material name (IQE names a material by its texture).
std::string quads_iqe(const std::vector<std::string>& textures) {
    std::string text = "# Inter-Quake Export\n";
    for (size_t m = 0; m < textures.size(); ++m) {
        const std::string x = std::to_string(m * 2);
        text += "mesh quad" + std::to_string(m) + "\nmaterial \"" + textures[m] + "\"\nvp " + x + " 0 0\nvt 0 1\nvp " + x +
                ".5 0 0\nvt 1 1\nvp " + x + ".5 1 0\nvt 1 0\nvp " + x + " 1 0\nvt 0 0\nfm 0 2 1\nfm 0 3 2\n";
    }
    return text;
}

void write_text(const fs::path& path, const std::string& text) { write_bytes(path, std::vector<uint8_t>(text.begin(), text.end())); }

size_t occurrences(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

// The sample with its first animation copied n times, as a0 ... a(n-1).
Scene with_animations(size_t n) {
    Scene scene = make_sample_scene();
    const Animation first = scene.animations.at(0);
    scene.animations.clear();
    for (size_t i = 0; i < n; ++i) {
        scene.animations.push_back(first);
        scene.animations.back().name = "a" + std::to_string(i);
    }
    return scene;
}

}  // namespace

TEST(Render, SameInputSameBytes) {
    const Scene scene = make_sample_scene();
    auto a = render(scene, small());
    auto b = render(scene, small());
    ASSERT_TRUE(a && b);
    EXPECT_EQ(a->rgba, b->rgba);
    EXPECT_EQ(encode_png(*a), encode_png(*b));
}

TEST(Render, FramesTheModelAndKeepsItUpright) {
    // The sample is a Z-up cylinder about 4.2 tall and 1.1 wide: drawn Y-up from the front it is
    // a tall shape filling the image's height less the 6% margins, centred.
    RenderOptions o = small(200, 200);
    view_angles("front", o.yaw, o.pitch);
    auto image = render(make_sample_scene(), o);
    ASSERT_TRUE(image);
    const Coverage c = coverage(*image, o.background);
    ASSERT_GT(c.pixels, 0u);
    const double height = c.y1 - c.y0 + 1, width = c.x1 - c.x0 + 1;
    EXPECT_NEAR(height, 200 * 0.88, 3);
    EXPECT_GT(height, 2.5 * width);
    EXPECT_NEAR((c.x0 + c.x1) / 2.0, 100, 2);
    EXPECT_NEAR((c.y0 + c.y1) / 2.0, 100, 2);
    // Its narrow end (the top of the cylinder in Z) is at the top of the image.
    auto row_width = [&](uint32_t y) {
        uint32_t n = 0;
        for (uint32_t x = 0; x < image->width; ++x)
            n += !std::equal(&image->rgba[(size_t(y) * image->width + x) * 4], &image->rgba[(size_t(y) * image->width + x) * 4] + 4,
                             o.background.begin());
        return n;
    };
    EXPECT_LT(row_width(c.y0 + 10), row_width(c.y1 - 10));
}

TEST(Render, ViewsPosesAndOverlaysChangeThePicture) {
    const Scene scene = make_sample_scene();
    ASSERT_FALSE(scene.animations.empty());
    RenderOptions front = small(), side = small(), posed = small(), wire = small(), bones = small();
    view_angles("front", front.yaw, front.pitch);
    view_angles("side", side.yaw, side.pitch);
    posed.animation = 0;
    posed.time = scene.animations[0].duration() * 0.5f;
    wire.wireframe = true;
    bones.skeleton = true;
    bones.supersample = 1;  // the bones' colour exact in whole pixels
    auto f = render(scene, front), s = render(scene, side), base = render(scene, small()), p = render(scene, posed),
         w = render(scene, wire), k = render(scene, bones);
    ASSERT_TRUE(f && s && base && p && w && k);
    EXPECT_GT(mismatch(*f, *s, 8), 0.01);
    EXPECT_GT(mismatch(*base, *p, 8), 0.01) << "the animation's middle pose looks like the bind pose";
    EXPECT_GT(mismatch(*base, *w, 8), 0.01);
    EXPECT_GT(mismatch(*base, *k, 8), 0.001);
    // The skeleton's colour (bones drawn over the mesh) appears only with the overlay.
    auto has_orange = [](const RenderImage& im) {
        for (size_t i = 0; i < im.rgba.size(); i += 4)
            if (im.rgba[i] == 255 && im.rgba[i + 1] == 170 && im.rgba[i + 2] == 30) return true;
        return false;
    };
    EXPECT_TRUE(has_orange(*k));
    EXPECT_FALSE(has_orange(*base));
}

TEST(Render, TexturesAreSampled) {
    const Scene scene = make_sample_scene();
    ASSERT_FALSE(scene.materials.empty());
    RenderOptions plain = small(), textured = small();
    RenderImage checker;
    checker.width = checker.height = 2;
    checker.rgba = {255, 0, 0, 255, 0, 0, 255, 255, 0, 0, 255, 255, 255, 0, 0, 255};
    textured.textures.assign(scene.materials.size(), std::make_shared<const RenderImage>(checker));
    auto a = render(scene, plain), b = render(scene, textured);
    ASSERT_TRUE(a && b);
    EXPECT_GT(mismatch(*a, *b, 16), 0.05);
}

TEST(Render, RefusesSizesBeyondTheLimitsAndMissingAnimations) {
    const Scene scene = make_sample_scene();
    RenderOptions o = small(0, 10);
    EXPECT_EQ(render(scene, o).error().code, ErrorCode::InvalidArgument);
    o = small(max_render_side + 1, 10);
    EXPECT_EQ(render(scene, o).error().code, ErrorCode::InvalidArgument);
    o = small();
    o.animation = int32_t(scene.animations.size());
    EXPECT_EQ(render(scene, o).error().code, ErrorCode::InvalidArgument);
    o = small();
    o.supersample = 5;
    EXPECT_EQ(render(scene, o).error().code, ErrorCode::InvalidArgument);
}

TEST(Render, WorkIsBounded) {
    // Triangles as large as the picture, one over another: the samples they test are counted and
    // the drawing stops at the bound.
    Scene scene;
    Mesh mesh;
    mesh.name = "stack";
    for (int i = 0; i < 300; ++i) {
        const uint32_t v = mesh.vertex_count();
        const float z = float(i) * 1e-3f;
        mesh.positions.insert(mesh.positions.end(), {Vec3{-1, -1, z}, Vec3{1, -1, z}, Vec3{0, 1, z}});
        mesh.triangles.push_back({v, v + 1, v + 2});
    }
    scene.meshes.push_back(mesh);
    RenderOptions o = small(64, 64);
    EXPECT_TRUE(render(scene, o));
    o.max_sample_tests = 100 * 64 * 64 * 4;  // a hundred pictures' worth of samples
    auto r = render(scene, o);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ErrorCode::LimitExceeded);
    EXPECT_NE(r.error().message.find("mesh 'stack'"), std::string::npos) << r.error().message;
}

// A blank picture would say the model was drawn: a model with nothing to draw is Unsupported,
// and one with a skeleton but no triangle draws its skeleton (docs/render.md).
TEST(Render, NothingToDrawIsAnErrorAndASkeletonAloneIsDrawn) {
    auto image = render(Scene{}, small(16, 8));
    ASSERT_FALSE(image);
    EXPECT_EQ(image.error().code, ErrorCode::Unsupported);
    Scene bones;
    bones.skeleton.joints.resize(3);
    bones.skeleton.joints[1].parent = 0;
    bones.skeleton.joints[1].bind.translate = {0, 1, 0};
    bones.skeleton.joints[2].parent = 1;
    bones.skeleton.joints[2].bind.translate = {0.5f, 1, 0};
    EXPECT_TRUE(draws_skeleton_only(bones));
    image = render(bones, small(64, 64));
    ASSERT_TRUE(image) << image.error().to_string();
    EXPECT_GT(coverage(*image, RenderOptions{}.background).pixels, 20u);
    SheetOptions sheet;
    sheet.cell = small(32, 32);
    EXPECT_EQ(render_sheet(Scene{}, sheet).error().code, ErrorCode::Unsupported);
    EXPECT_TRUE(render_sheet(bones, sheet));
}

// Through the binary: a mesh-less model (an .md5anim-style skeleton as IQE joints) is drawn as its
// skeleton with a warning saying so; a model with nothing to draw exits 3 and writes no picture.
TEST(RenderCli, AModelWithoutAMeshDrawsItsSkeletonAndNothingAtAllIsAnError) {
    const fs::path dir = files_dir();
    write_text(dir / "bones.iqe", "# Inter-Quake Export\n"
                                  "joint \"root\" -1\npq 0 0 0 0 0 0 1\n"
                                  "joint \"spine\" 0\npq 0 0 1 0 0 0 1\n"
                                  "joint \"head\" 1\npq 0 0 1 0 0 0 1\n");
    auto r = run_cli({"render", (dir / "bones.iqe").string(), "-o", (dir / "bones.png").string(), "--size", "64x64"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("no mesh: its skeleton is drawn"), std::string::npos) << r.err;
    const RenderImage picture = decode_png(read_bytes(dir / "bones.png"));
    EXPECT_GT(coverage(picture, RenderOptions{}.background).pixels, 20u) << "not a blank picture";
    write_text(dir / "empty.iqe", "# Inter-Quake Export\n");
    r = run_cli({"render", (dir / "empty.iqe").string(), "-o", (dir / "empty.png").string(), "--size", "64x64"});
    EXPECT_EQ(r.exit_code, 3) << r.err;
    EXPECT_NE(r.err.find("nothing to draw"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir / "empty.png"));
}

TEST(RenderSheet, ARowPerAnimationFramedAlike) {
    const Scene scene = make_sample_scene();
    ASSERT_EQ(scene.animations.size(), 2u);
    SheetOptions o;
    o.cell = small(64, 48);
    o.frames = 5;
    auto sheet = render_sheet(scene, o);
    ASSERT_TRUE(sheet);
    EXPECT_EQ(sheet->width, 5u * 64);
    const uint32_t row = sheet->height / 2;
    EXPECT_EQ(sheet->height % 2, 0u);
    EXPECT_GT(row, 48u);  // a title strip above each row's cells
    // Cells of one row differ (the animation moves); the looping 'wave' ends where it starts, and
    // with one framing for every cell its first and last cells are the same picture but for their labels.
    auto cell = [&](uint32_t r, uint32_t k) {
        RenderImage c;
        c.width = 64;
        c.height = 30;  // above the time label
        for (uint32_t y = 0; y < c.height; ++y)
            c.rgba.insert(c.rgba.end(), sheet->rgba.begin() + ((size_t(r) * row + (row - 48) + y) * sheet->width + k * 64) * 4,
                          sheet->rgba.begin() + ((size_t(r) * row + (row - 48) + y) * sheet->width + k * 64 + 64) * 4);
        return c;
    };
    EXPECT_GT(mismatch(cell(0, 0), cell(0, 2), 8), 0.01);
    EXPECT_EQ(mismatch(cell(0, 0), cell(0, 4), 0), 0.0);
    // One animation only; limits.
    o.only = 1;
    auto one = render_sheet(scene, o);
    ASSERT_TRUE(one);
    EXPECT_EQ(one->height, row);
    o.frames = 0;
    EXPECT_EQ(render_sheet(scene, o).error().code, ErrorCode::InvalidArgument);
    o.frames = 64;
    o.only = -1;
    o.cell = small(4096, 4096);
    EXPECT_EQ(render_sheet(scene, o).error().code, ErrorCode::InvalidArgument);
    // No animation: the bind pose alone.
    Scene still = scene;
    still.animations.clear();
    o = SheetOptions{};
    o.cell = small(32, 32);
    auto bind = render_sheet(still, o);
    ASSERT_TRUE(bind);
    EXPECT_EQ(bind->width, 32u);
}

TEST(RenderSheet, EachCellIsPosedOnceAndTheWorkFollowsTheCellsDrawn) {
    // n and 4n animations: four times the cells, four times the posing, each cell posed once
    // (the framing pass's poses are the ones drawn).
    SheetOptions o;
    o.cell = small(16, 16);
    o.frames = 3;
    SheetStats n, n4;
    ASSERT_TRUE(render_sheet(with_animations(3), o, nullptr, &n));
    ASSERT_TRUE(render_sheet(with_animations(12), o, nullptr, &n4));
    EXPECT_EQ(n.rows, 3u);
    EXPECT_EQ(n.cells, 9u);
    EXPECT_EQ(n4.cells, 36u);
    EXPECT_EQ(n4.work, 4 * n.work);
    // A cell's work is a pose and a picture of the model: its joints, vertices and triangles (the
    // sample has no morph targets).
    const Scene sample = make_sample_scene();
    EXPECT_EQ(n.work, n.cells * (sample.skeleton.joints.size() + sample.vertex_count() + sample.triangle_count()));
}

TEST(RenderSheet, RowsPastTheBudgetAreNamedNotDrawn) {
    SheetOptions o;
    o.cell = small(16, 16);
    o.frames = 2;
    SheetStats one;
    ASSERT_TRUE(render_sheet(with_animations(1), o, nullptr, &one));
    const uint64_t row = one.work;  // one row of 2 cells
    auto three = render_sheet(with_animations(3), o);
    ASSERT_TRUE(three);
    // Eight animations, room for three rows: the three are drawn, the five others named.
    o.max_work = 3 * row + row / 2;
    Warnings warnings;
    SheetStats st;
    auto sheet = render_sheet(with_animations(8), o, &warnings, &st);
    ASSERT_TRUE(sheet) << sheet.error().message;
    EXPECT_EQ(st.rows, 3u);
    EXPECT_EQ(st.cells, 6u);
    EXPECT_LE(st.work, o.max_work);
    EXPECT_EQ(sheet->height, three->height);
    EXPECT_EQ(sheet->rgba, three->rgba);
    ASSERT_EQ(warnings.items.size(), 1u);
    const std::string& w = warnings.items[0].message;
    EXPECT_EQ(warnings.items[0].code, WarningCode::DroppedData);
    EXPECT_NE(w.find("first 3 of 8"), std::string::npos) << w;
    for (const char* name : {"'a3'", "'a4'", "'a5'", "'a6'", "'a7'"}) EXPECT_NE(w.find(name), std::string::npos) << name << ": " << w;
    EXPECT_EQ(w.find("'a2'"), std::string::npos) << w;
    // Not even one row: refused, saying why.
    o.max_work = row - 1;
    auto none = render_sheet(with_animations(8), o);
    ASSERT_FALSE(none);
    EXPECT_EQ(none.error().code, ErrorCode::LimitExceeded);
    EXPECT_NE(none.error().message.find("budget"), std::string::npos) << none.error().message;
}

TEST(RenderTextures, OneFileUnderFiveSpellingsIsReadAndDecodedOnce) {
    const fs::path dir = temp_dir();
    fs::create_directories(dir / "sub");
    write_bytes(dir / "b1.png", png_of(8, 4));
    const Scene scene = materials_naming(five_spellings);
    ImageOptions io;
    io.search_dir = dir.string();
    io.model_path = (dir / "m.iqe").string();
    int reads = 0;
    io.on_read = [&](const std::string&) { ++reads; };
    Warnings warnings;
    TextureStats st;
    auto textures = load_render_textures(scene, io, RenderOptions{}.max_texture_bytes, warnings, &st);
    ASSERT_TRUE(textures) << textures.error().message;
    EXPECT_EQ(reads, 1);
    EXPECT_EQ(st.decoded, 1u);
    EXPECT_EQ(st.decoded_bytes, 8u * 4 * 4);
    EXPECT_EQ(st.over_budget, 0u);
    ASSERT_EQ(textures->size(), 5u);
    ASSERT_TRUE((*textures)[0]);
    EXPECT_EQ((*textures)[0]->width, 8u);
    for (auto& t : *textures) EXPECT_EQ(t, (*textures)[0]);  // one image, shared
    EXPECT_TRUE(warnings.items.empty()) << warnings.items[0].message;
}

TEST(RenderTextures, AHugeDeclaredImageBeyondTheBudgetIsNeverDecoded) {
    // 16384 x 16384 declared in 70 bytes, under five spellings: one warning, nothing decoded.
    const fs::path dir = temp_dir();
    fs::create_directories(dir / "sub");
    write_bytes(dir / "b1.png", png_declaring(16384, 16384));
    ImageOptions io;
    io.search_dir = dir.string();
    io.model_path = (dir / "m.iqe").string();
    Warnings warnings;
    TextureStats st;
    auto textures = load_render_textures(materials_naming(five_spellings), io, RenderOptions{}.max_texture_bytes, warnings, &st);
    ASSERT_TRUE(textures) << textures.error().message;
    EXPECT_EQ(st.decoded, 0u);
    EXPECT_EQ(st.decoded_bytes, 0u);
    EXPECT_EQ(st.over_budget, 1u);
    for (auto& t : *textures) EXPECT_FALSE(t);
    ASSERT_EQ(warnings.items.size(), 1u);
    const Warning& w = warnings.items[0];
    EXPECT_EQ(w.code, WarningCode::DroppedData);
    EXPECT_EQ(w.count, 1u);
    for (const char* part : {"'b1.png'", "16384x16384", "1024.0 MiB", "budget of 256.0 MiB"})
        EXPECT_NE(w.message.find(part), std::string::npos) << part << ": " << w.message;
}

TEST(RenderTextures, TheBudgetHoldsForAllTexturesTogether) {
    // a.png and b.png 64 x 64 (16 KiB each decoded), an image the scene holds 32 x 32 (4 KiB)
    // named by two materials; room for a.png and the held image only.
    const fs::path dir = temp_dir();
    write_bytes(dir / "a.png", png_of(64, 64));
    write_bytes(dir / "b.png", png_of(64, 64));
    Scene scene = materials_naming({"a.png", "held.png", "b.png", "held.png"});
    scene.images.push_back(EmbeddedImage{"held", "image/png", png_of(32, 32)});
    scene.materials[1].maps[0].image = scene.materials[3].maps[0].image = 0;
    ImageOptions io;
    io.search_dir = dir.string();
    Warnings warnings;
    TextureStats st;
    auto textures = load_render_textures(scene, io, 64 * 64 * 4 + 32 * 32 * 4 + 100, warnings, &st);
    ASSERT_TRUE(textures) << textures.error().message;
    EXPECT_EQ(st.decoded, 2u);
    EXPECT_EQ(st.decoded_bytes, 64u * 64 * 4 + 32 * 32 * 4);
    EXPECT_EQ(st.over_budget, 1u);
    ASSERT_TRUE((*textures)[0] && (*textures)[1]);
    EXPECT_EQ((*textures)[1], (*textures)[3]);
    EXPECT_EQ((*textures)[1]->width, 32u);
    EXPECT_FALSE((*textures)[2]);
    ASSERT_EQ(warnings.items.size(), 1u);
    EXPECT_NE(warnings.items[0].message.find("'b.png'"), std::string::npos) << warnings.items[0].message;
}

TEST(RenderTextures, ATgaIsDecodedOnceAndQuietly) {
    // Not PNG or JPEG: read and decoded here (no detour through a PNG, no glTF format warning).
    const fs::path dir = temp_dir();
    std::vector<uint8_t> rgb(4 * 2 * 3);
    for (size_t i = 0; i < rgb.size(); ++i) rgb[i] = uint8_t(30 * i);
    ASSERT_TRUE(stbi_write_tga((dir / "skin.tga").string().c_str(), 4, 2, 3, rgb.data()));
    ImageOptions io;
    io.search_dir = dir.string();
    Warnings warnings;
    TextureStats st;
    auto textures = load_render_textures(materials_naming({"skin.tga", "./skin.tga"}), io, RenderOptions{}.max_texture_bytes, warnings, &st);
    ASSERT_TRUE(textures) << textures.error().message;
    EXPECT_EQ(st.decoded, 1u);
    ASSERT_TRUE((*textures)[0]);
    EXPECT_EQ((*textures)[0], (*textures)[1]);
    const RenderImage& t = *(*textures)[0];
    ASSERT_EQ(t.width, 4u);
    ASSERT_EQ(t.height, 2u);
    for (size_t p = 0; p < 8; ++p)
        for (size_t k = 0; k < 3; ++k) EXPECT_EQ(t.rgba[p * 4 + k], rgb[p * 3 + k]) << p << " " << k;
    EXPECT_TRUE(warnings.items.empty()) << warnings.items[0].message;
}

TEST(RenderCli, AHugeTextureUnderFiveSpellingsIsOneWarningAndAPicture) {
    const fs::path dir = files_dir();
    fs::create_directories(dir / "sub");
    write_bytes(dir / "b1.png", png_declaring(16384, 16384));
    write_text(dir / "m.iqe", quads_iqe(five_spellings));
    const fs::path out = dir / "m.png";
    auto r = run_cli({"render", (dir / "m.iqe").string(), "-o", out.string(), "--size", "64x32"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(occurrences(r.err, "beyond the texture budget of 256.0 MiB"), 1u) << r.err;
    EXPECT_EQ(decode_png(read_bytes(out)).width, 64u);
    // A budget of its own: a smaller one still refuses; one past the ceiling is a usage error.
    r = run_cli({"render", (dir / "m.iqe").string(), "-o", out.string(), "--size", "64x32", "--texture-budget", "1"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(occurrences(r.err, "beyond the texture budget of 1.0 MiB"), 1u) << r.err;
    r = run_cli({"render", (dir / "m.iqe").string(), "-o", out.string(), "--texture-budget", "99999999"});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    r = run_cli({"render", (dir / "m.iqe").string(), "-o", out.string(), "--texture-budget", "8", "--no-textures"});
    EXPECT_EQ(r.exit_code, 1) << r.err;
}

TEST(RenderCli, ABudgetOfNothingDrawsAsWithoutTextures) {
    const fs::path dir = files_dir();
    ASSERT_EQ(run_cli({"sample", "-o", (dir / "s.iqm").string()}).exit_code, 0);
    auto r = run_cli({"render", (dir / "s.iqm").string(), "-o", (dir / "zero.png").string(), "--size", "96x64", "--texture-budget", "0"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("sample_texture.png"), std::string::npos) << r.err;
    r = run_cli({"render", (dir / "s.iqm").string(), "-o", (dir / "plain.png").string(), "--size", "96x64", "--no-textures"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(decode_png(read_bytes(dir / "zero.png")).rgba, decode_png(read_bytes(dir / "plain.png")).rgba);
}

TEST(RenderCli, ATextureThatIsNoImageIsAWarning) {
    // docs/cli.md: a texture file that is no image is left out with a texture-not-found warning.
    const fs::path dir = files_dir();
    write_text(dir / "b1.png", "RIGPORT_NOT_AN_IMAGE plain text");
    write_text(dir / "skin.tga", "not a TGA either");
    write_text(dir / "m.iqe", quads_iqe({"b1.png", "skin.tga"}));
    for (bool sheet : {false, true}) {
        std::vector<std::string> args = {"render", (dir / "m.iqe").string(), "-o", (dir / "m.png").string(), "--size", "48x48"};
        if (sheet) args.push_back("--sheet");
        auto r = run_cli(args);
        ASSERT_EQ(r.exit_code, 0) << r.err;
        EXPECT_NE(r.err.find("b1.png is not an image"), std::string::npos) << r.err;
        // The second texture's warning differs only in its names: folded into the first's line.
        EXPECT_NE(r.err.find("(2 times; also 'skin.tga')"), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("drawn without it"), std::string::npos) << r.err;
        EXPECT_GT(decode_png(read_bytes(dir / "m.png")).width, 0u);
    }
}

TEST(RenderCli, WritesAPngOfTheSampleWithItsTexture) {
    const fs::path dir = files_dir();
    ASSERT_EQ(run_cli({"sample", "-o", (dir / "s.iqm").string()}).exit_code, 0);
    auto r = run_cli({"render", (dir / "s.iqm").string(), "-o", (dir / "s.png").string(), "--size", "96x64", "--background", "102030"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const RenderImage textured = decode_png(read_bytes(dir / "s.png"));
    ASSERT_EQ(textured.width, 96u);
    ASSERT_EQ(textured.height, 64u);
    EXPECT_EQ(textured.rgba[0], 0x10);
    EXPECT_EQ(textured.rgba[1], 0x20);
    EXPECT_EQ(textured.rgba[2], 0x30);
    // The sample's texture (sample_texture.png beside it) is found as the glTF export finds it.
    r = run_cli({"render", (dir / "s.iqm").string(), "-o", (dir / "plain.png").string(), "--size", "96x64", "--background", "102030",
                 "--no-textures"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_GT(mismatch(textured, decode_png(read_bytes(dir / "plain.png")), 16), 0.02);
}

TEST(RenderCli, ErrorsAndExitCodes) {
    const fs::path dir = files_dir();
    ASSERT_EQ(run_cli({"sample", "-o", (dir / "s.iqm").string()}).exit_code, 0);
    const std::string model = (dir / "s.iqm").string(), out = (dir / "o.png").string();
    auto r = run_cli({"render", model, "-o", out, "--size", "0x5"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("--size '0x5'"), std::string::npos) << r.err;
    r = run_cli({"render", model, "-o", out, "--view", "under"});
    EXPECT_EQ(r.exit_code, 1);
    r = run_cli({"render", model, "-o", out, "--background", "zz0000"});
    EXPECT_EQ(r.exit_code, 1);
    r = run_cli({"render", model, "-o", out, "--anim", "nope"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("'wave'"), std::string::npos) << r.err;  // names the animations there are
    r = run_cli({"render", model, "-o", out, "--sheet", "--time", "1"});
    EXPECT_EQ(r.exit_code, 1);
    // --time is seconds into --anim: alone it is refused, naming both.
    r = run_cli({"render", model, "-o", out, "--time", "0.5"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("--time needs --anim"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out));
    r = run_cli({"render", model, "-o", out, "--anim", "wave", "--time", "0.5"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    fs::remove(out);
    r = run_cli({"render", model, "-o", out, "--sheet", "--frames", "65"});
    EXPECT_EQ(r.exit_code, 1);
    r = run_cli({"render", model, "-o", out, "--frames", "3"});
    EXPECT_EQ(r.exit_code, 1);
    r = run_cli({"render", (dir / "missing.iqm").string(), "-o", out});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_FALSE(fs::exists(out));
    // The picture never replaces its own input.
    const auto before = read_bytes(model);
    r = run_cli({"render", model, "-o", model});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_EQ(read_bytes(model), before);
}

// Golden images: the sample and corpus models of three formats, 160 x 160.
struct Golden {
    std::string name;
    std::vector<std::string> args;  // model paths (relative to the corpus for corpus models) and options
    bool corpus;
};

class RenderGolden : public ::testing::TestWithParam<Golden> {};

TEST_P(RenderGolden, MatchesTheCommittedPicture) {
    const Golden& g = GetParam();
    const fs::path dir = files_dir();
    std::vector<std::string> args = {"render"};
    if (g.corpus) {
        RIGPORT_REQUIRE_CORPUS();
        for (auto& a : g.args) args.push_back(a.rfind("--", 0) == 0 || a.find('/') == std::string::npos ? a : (corpus_dir() / a).string());
    } else {
        ASSERT_EQ(run_cli({"sample", "-o", (dir / "sample.iqm").string()}).exit_code, 0);
        args.push_back((dir / "sample.iqm").string());
        args.insert(args.end(), g.args.begin(), g.args.end());
    }
    const fs::path out = dir / ("render_" + g.name + ".png");  // beside the sample and its texture
    args.insert(args.end(), {"-o", out.string(), "--size", "160x160"});
    auto r = run_cli(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const fs::path golden = fs::path(RIGPORT_SOURCE_DIR) / "tests" / "golden" / "render" / (g.name + ".png");
    if (std::getenv("RIGPORT_UPDATE_GOLDEN")) {
        fs::create_directories(golden.parent_path());
        fs::copy_file(out, golden, fs::copy_options::overwrite_existing);
    }
    const RenderImage want = decode_png(read_bytes(golden)), got = decode_png(read_bytes(out));
    ASSERT_FALSE(want.rgba.empty()) << golden << " is missing (RIGPORT_UPDATE_GOLDEN=1 writes it)";
    // Another libm may round a sine differently: a few pixels on edges may move, nothing more.
    EXPECT_LE(mismatch(want, got, 3), 0.005) << "render differs from " << golden;
}

INSTANTIATE_TEST_SUITE_P(Models, RenderGolden,
                         ::testing::Values(Golden{"sample", {}, false}, Golden{"sample_front_wire_skeleton", {"--view", "front", "--wireframe", "--skeleton"}, false},
                                           Golden{"sample_wave", {"--anim", "wave", "--time", "0.4"}, false},
                                           Golden{"sample_sheet", {"--sheet", "--frames", "4", "--view", "side"}, false},
                                           Golden{"mrfixit", {"iqm/mrfixit.iqm"}, true},
                                           Golden{"cally", {"cal3d/upstream_binary/cally/cally.cfg", "--allow-missing"}, true},
                                           Golden{"car_360", {"joe/vdrift-data-short__cars_360_body.joe", "--view", "iso"}, true}),
                         [](const auto& info) { return info.param.name; });

// Every format rigport reads draws: one corpus file of each, through the CLI, shows a model over a
// fair part of its picture (the framing works in every format's axes and units).
class RenderCorpusFormats : public ::testing::TestWithParam<std::vector<std::string>> {};

TEST_P(RenderCorpusFormats, DrawsTheModel) {
    RIGPORT_REQUIRE_CORPUS();
    const fs::path dir = files_dir();
    std::vector<std::string> args = {"render"};
    for (auto& a : corpus_args(GetParam())) args.push_back(a);
    args.insert(args.end(), {"-o", (dir / "m.png").string(), "--size", "64x64"});
    auto r = run_cli(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const RenderImage image = decode_png(read_bytes(dir / "m.png"));
    const Coverage c = coverage(image, RenderOptions{}.background);
    EXPECT_GT(double(c.pixels) / (64 * 64), 0.05);
    EXPECT_GE(std::max(c.x1 - c.x0, c.y1 - c.y0), 50u);  // the model's longer side fills the picture less the margins
}

INSTANTIATE_TEST_SUITE_P(Models, RenderCorpusFormats, ::testing::ValuesIn(corpus_model_per_format()), corpus_format_name);
