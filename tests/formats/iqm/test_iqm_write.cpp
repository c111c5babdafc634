// IQM writer: layout, alignment, text, blend weights, quantized frames and round trips through
// the reader (docs/iqm.md §1, §3.2 steps 5-11). Byte checks read the output independently.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "formats/iqm/iqm_builder.hpp"
#include "formats/iqm/iqm.hpp"
#include "rigport/anim.hpp"
#include "rigport/io.hpp"
#include "rigport/process.hpp"

namespace rigport::test {
namespace {

float get_f32(const std::vector<uint8_t>& b, size_t at) {
    uint32_t u = get_u32(b, at);
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}
uint16_t get_u16(const std::vector<uint8_t>& b, size_t at) { return uint16_t(b[at] | b[at + 1] << 8); }

// Two meshes sharing a material, a custom array on one of them, colours on the other, a skinned
// two-joint chain, a 3-frame animation and a comment.
Scene small_scene() {
    Scene s;
    s.materials.push_back(Material{});
    s.materials[0].name = "skin";
    s.skeleton.joints.resize(2);
    s.skeleton.joints[0].name = "root";
    s.skeleton.joints[1].name = "tip";
    s.skeleton.joints[1].parent = 0;
    s.skeleton.joints[1].bind.translate = {1, 0, 0};
    s.skeleton.joints[1].bind.rotate = {0, 0, -0.6f, -0.8f};

    Mesh body;
    body.name = "body";
    body.material = 0;
    body.positions = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}};
    body.normals = {{0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {0, 0, 1}};
    body.texcoords = {{{0, 0}, {1, 0}, {1, 1}, {0, 1}}};
    body.triangles = {{0, 1, 2}, {0, 2, 3}};
    body.skin.offsets = {0, 1, 4, 5, 6};
    body.skin.influences = {{0, 1.0f}, {0, 0.2f}, {1, 0.5f}, {0, 0.3f}, {1, 1.0f}, {1, 1.0f}};
    body.custom.push_back({"extra", ComponentType::Int16, 2, {-5, 7, 0, 1, 32767, -32768, 3, 3}});
    body.custom.push_back({"bytes", ComponentType::UInt8, 3, {1, 2, 3, 4, 5, 6, 7, 8, 9, 250, 251, 252}});  // 21 bytes
    body.custom.push_back({"dbl", ComponentType::Float64, 1, {0.1, 0.2, 1e300, -3}});                     // 8-aligned

    Mesh head;
    head.name = "head";
    head.material = 0;
    head.positions = {{0, 0, 2}, {1, 0, 2}, {0, 1, 2}};
    head.normals = {{0, 0, 1}, {0, 0, 1}, {0, 0, 1}};
    head.colors = {{{1, 0, 0, 1}, {0, 1, 0, 0.5f}, {0.2f, 0.4f, 0.6f, 0.8f}}};
    head.triangles = {{0, 1, 2}};
    // Named like the material: its string is shared, so its type is the smallest custom type.
    head.custom.push_back({"skin", ComponentType::Float32, 1, {0.5, 1.5, 2.5}});
    head.skin.offsets = {0, 1, 2, 3};
    head.skin.influences = {{1, 1.0f}, {1, 1.0f}, {0, 1.0f}};
    s.meshes = {body, head};

    Animation a;
    a.name = "walks";
    a.frame_rate = 24;
    a.frame_count = 3;
    a.loop = true;
    std::vector<float> times = {0, 1 / 24.0f, 2 / 24.0f};
    a.tracks.push_back({1, Channel::Rotation, Interpolation::Linear, times,
                        {0, 0, -0.6f, -0.8f, 0, 0, -0.28f, -0.96f, 0, 0, 0.28f, -0.96f}});
    a.tracks.push_back({0, Channel::Translation, Interpolation::Linear, times, {0, 0, 0, 0.5f, 0, 0, 1, 0, 0.25f}});
    s.animations.push_back(a);
    s.meta.comment = "tests wrote this";  // 16 bytes: the NUL makes it 17, padded to 20
    return s;
}

std::vector<uint8_t> write(const Scene& s, const SaveOptions& o = {}) {
    auto bytes = iqm::write(s, o);
    EXPECT_TRUE(bytes) << bytes.error().to_string();
    if (!bytes) return {};
    // Every file: the header's filesize is what was written, and the last section before the
    // extensions (the comment) is where the header says.
    EXPECT_EQ(get_u32(*bytes, H_FILESIZE), bytes->size());
    if (!s.meta.comment.empty()) {
        EXPECT_EQ(std::memcmp(&(*bytes)[get_u32(*bytes, H_OFS_COMMENT)], s.meta.comment.c_str(), s.meta.comment.size() + 1), 0);
    }
    return *bytes;
}

// The sections in the order the compiler writes them: (ofs field, byte length).
struct Section {
    const char* name;
    uint32_t ofs, bytes;
};
std::vector<Section> sections(const std::vector<uint8_t>& b) {
    auto h = [&](size_t f) { return get_u32(b, f); };
    const uint32_t tris = h(H_NUM_TRIANGLES), frames = h(H_NUM_FRAMES);
    return {{"text", h(H_OFS_TEXT), h(H_NUM_TEXT)},
            {"meshes", h(H_OFS_MESHES), h(H_NUM_MESHES) * 24},
            {"vertexarrays", h(H_OFS_VERTEXARRAYS), h(H_NUM_VERTEXARRAYS) * 20},
            {"triangles", h(H_OFS_TRIANGLES), tris * 12},
            {"adjacency", h(H_OFS_ADJACENCY), tris * 12},
            {"joints", h(H_OFS_JOINTS), h(H_NUM_JOINTS) * 48},
            {"poses", h(H_OFS_POSES), h(H_NUM_POSES) * 88},
            {"anims", h(H_OFS_ANIMS), h(H_NUM_ANIMS) * 20},
            {"frames", h(H_OFS_FRAMES), (frames * h(H_NUM_FRAMECHANNELS) + 1) / 2 * 4},
            {"bounds", h(H_OFS_BOUNDS), frames * 32},
            {"comment", h(H_OFS_COMMENT), h(H_NUM_COMMENT)}};
}

TEST(IqmWrite, HeaderSectionsInCompilerOrderAndAligned) {
    auto b = write(small_scene());
    ASSERT_GE(b.size(), 124u);
    EXPECT_EQ(std::memcmp(b.data(), "INTERQUAKEMODEL\0", 16), 0);
    EXPECT_EQ(get_u32(b, H_VERSION), 2u);
    EXPECT_EQ(get_u32(b, H_FILESIZE), b.size());
    EXPECT_EQ(get_u32(b, H_FLAGS), 0u);
    EXPECT_EQ(get_u32(b, H_NUM_MESHES), 2u);
    EXPECT_EQ(get_u32(b, H_NUM_VERTEXES), 7u);
    EXPECT_EQ(get_u32(b, H_NUM_TRIANGLES), 3u);
    EXPECT_EQ(get_u32(b, H_NUM_JOINTS), 2u);
    EXPECT_EQ(get_u32(b, H_NUM_POSES), 2u);
    EXPECT_EQ(get_u32(b, H_NUM_FRAMES), 3u);
    EXPECT_EQ(get_u32(b, H_NUM_EXTENSIONS), 0u);
    EXPECT_EQ(get_u32(b, H_OFS_EXTENSIONS), 0u);

    // Every section present, 4-aligned, and each one starts where the previous ended; the
    // vertex data sits between the array records and the triangles.
    auto list = sections(b);
    uint32_t end = 124;
    for (auto& s : list) {
        ASSERT_NE(s.ofs, 0u) << s.name;
        EXPECT_EQ(s.ofs % 4, 0u) << s.name;
        if (std::string(s.name) == "triangles") {
            EXPECT_GT(s.ofs, end);
        } else {
            EXPECT_EQ(s.ofs, end) << s.name;
        }
        end = s.ofs + s.bytes;
    }
    EXPECT_EQ(end, b.size());

    // Vertex arrays: ascending types, data 8-aligned start, each aligned to max(size, 4),
    // packed in order, and the data ends (padded to 4) where the triangles start.
    const uint32_t nva = get_u32(b, H_NUM_VERTEXARRAYS), va = get_u32(b, H_OFS_VERTEXARRAYS);
    uint32_t previous_type = 0, data_end = (va + nva * 20 + 7) / 8 * 8;
    const uint32_t sizes[9] = {1, 1, 2, 2, 4, 4, 2, 4, 8};
    for (uint32_t i = 0; i < nva; ++i) {
        const size_t r = va + i * 20;
        uint32_t type = get_u32(b, r), format = get_u32(b, r + 8), size = get_u32(b, r + 12), ofs = get_u32(b, r + 16);
        EXPECT_GE(type, previous_type);
        previous_type = type;
        ASSERT_LE(format, 8u);
        uint32_t align = std::max(sizes[format], 4u);
        EXPECT_EQ(ofs % align, 0u) << "array " << i;
        EXPECT_EQ(ofs, (data_end + align - 1) / align * align) << "array " << i;
        data_end = ofs + 7 * size * sizes[format];
    }
    EXPECT_EQ((data_end + 3) / 4 * 4, get_u32(b, H_OFS_TRIANGLES));
}

TEST(IqmWrite, ArraysInCanonicalOrderAndFormats) {
    auto b = write(small_scene());
    const uint32_t va = get_u32(b, H_OFS_VERTEXARRAYS);
    // position, texcoord, normal, blendindexes, blendweights, color (no tangents in the scene),
    // then the customs by type = 16 + text offset: "skin" (shared with the material) comes first.
    ASSERT_EQ(get_u32(b, H_NUM_VERTEXARRAYS), 10u);
    const std::string text(reinterpret_cast<const char*>(&b[get_u32(b, H_OFS_TEXT)]), get_u32(b, H_NUM_TEXT));
    auto custom_type = [&](const char* name) { return uint32_t(16 + text.find(std::string(name) + '\0')); };
    const uint32_t want[10][3] = {{0, 7, 3}, {1, 7, 2}, {2, 7, 3}, {4, 1, 4}, {5, 1, 4}, {6, 1, 4},
                                  {custom_type("skin"), 7, 1}, {custom_type("extra"), 2, 2},
                                  {custom_type("bytes"), 1, 3}, {custom_type("dbl"), 8, 1}};
    EXPECT_EQ(want[6][0], 16u + 6);
    for (uint32_t i = 0; i < 10; ++i) {
        EXPECT_EQ(get_u32(b, va + i * 20), want[i][0]) << i;
        EXPECT_EQ(get_u32(b, va + i * 20 + 8), want[i][1]) << i;
        EXPECT_EQ(get_u32(b, va + i * 20 + 12), want[i][2]) << i;
    }
    // Custom values are raw numbers; the double one sits 8-aligned after 21 bytes of "bytes".
    const uint32_t dbl = get_u32(b, va + 9 * 20 + 16);
    double d;
    std::memcpy(&d, &b[dbl + 2 * 8], 8);
    EXPECT_EQ(d, 1e300);
    EXPECT_EQ(b[get_u32(b, va + 8 * 20 + 16) + 3 * 3 + 2], 252);
    // Colours: the body has none (1,1,1,1 -> 255s); the head's are normalized with rounding.
    const uint32_t color = get_u32(b, va + 5 * 20 + 16);
    for (int k = 0; k < 4; ++k) EXPECT_EQ(b[color + k], 255);
    const uint8_t head2[4] = {uint8_t(std::floor(0.5 + 0.2f * 255)), uint8_t(std::floor(0.5 + 0.4f * 255)),
                              uint8_t(std::floor(0.5 + 0.6f * 255)), uint8_t(std::floor(0.5 + 0.8f * 255))};
    EXPECT_EQ(std::memcmp(&b[color + 6 * 4], head2, 4), 0);
    EXPECT_EQ(b[color + 5 * 4 + 3], 128);  // alpha 0.5 -> floor(128.0)
    // The custom values of the head (which lacks the array) are zeros.
    const uint32_t custom = get_u32(b, va + 7 * 20 + 16);
    EXPECT_EQ(int16_t(get_u16(b, custom)), -5);
    EXPECT_EQ(int16_t(get_u16(b, custom + 4 * 2 + 2)), -32768);
    for (int i = 8; i < 14; ++i) EXPECT_EQ(get_u16(b, custom + i * 2), 0);
}

TEST(IqmWrite, TextIsDeduplicatedInFirstUseOrderAndPadded) {
    auto b = write(small_scene());
    const uint32_t n = get_u32(b, H_NUM_TEXT), at = get_u32(b, H_OFS_TEXT);
    const std::string want("\0body\0skin\0head\0extra\0bytes\0dbl\0root\0tip\0walks\0", 47);
    ASSERT_EQ(n, (want.size() + 3) / 4 * 4);
    EXPECT_EQ(n % 4, 0u);
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(&b[at]), want.size()), want);
    for (uint32_t i = want.size(); i < n; ++i) EXPECT_EQ(b[at + i], 0);
    // Mesh records name "body"/"skin" and "head"/"skin" (the material shared).
    const uint32_t m = get_u32(b, H_OFS_MESHES);
    EXPECT_EQ(get_u32(b, m + 0), 1u);
    EXPECT_EQ(get_u32(b, m + 4), 6u);
    EXPECT_EQ(get_u32(b, m + 24), 11u);
    EXPECT_EQ(get_u32(b, m + 28), 6u);
    // Mesh ranges are running totals; triangles absolute.
    EXPECT_EQ(get_u32(b, m + 24 + 8), 4u);
    EXPECT_EQ(get_u32(b, m + 24 + 16), 2u);
    const uint32_t t = get_u32(b, H_OFS_TRIANGLES);
    EXPECT_EQ(get_u32(b, t + 2 * 12), 4u);
    EXPECT_EQ(get_u32(b, t + 2 * 12 + 8), 6u);
}

TEST(IqmWrite, NoStringsNoText) {
    Scene empty;
    auto b = write(empty);
    EXPECT_EQ(get_u32(b, H_NUM_TEXT), 0u);
    EXPECT_EQ(get_u32(b, H_OFS_TEXT), 0u);
    for (auto& s : sections(b)) EXPECT_EQ(s.ofs, 0u) << s.name;
    EXPECT_EQ(b.size(), 128u);  // 124, padded to 8 before the (empty) vertex data as the compiler does
    EXPECT_EQ(get_u32(b, H_FILESIZE), 128u);
}

TEST(IqmWrite, Deterministic) {
    auto a = write(small_scene()), b = write(small_scene());
    ASSERT_FALSE(a.empty());
    EXPECT_EQ(a, b);
    // And serialize(from_scene) is what write gives.
    auto file = iqm::from_scene(small_scene(), {});
    ASSERT_TRUE(file);
    EXPECT_EQ(iqm::serialize(*file), a);
    EXPECT_EQ(file->text.size() % 4, 0u);  // the records are padded as written
    EXPECT_EQ(file->header.filesize, a.size());
}

// Blend weights of vertex v (ubyte x4) and indexes, from the written bytes.
std::pair<std::array<int, 4>, std::array<int, 4>> blend_of(const std::vector<uint8_t>& b, uint32_t v) {
    const uint32_t va = get_u32(b, H_OFS_VERTEXARRAYS), n = get_u32(b, H_NUM_VERTEXARRAYS);
    std::array<int, 4> index{}, weight{};
    for (uint32_t i = 0; i < n; ++i) {
        uint32_t type = get_u32(b, va + i * 20), ofs = get_u32(b, va + i * 20 + 16);
        for (int k = 0; k < 4; ++k) {
            if (type == 4) index[k] = b[ofs + v * 4 + k];
            if (type == 5) weight[k] = b[ofs + v * 4 + k];
        }
    }
    return {index, weight};
}

TEST(IqmWrite, UbyteWeightsSumTo255) {
    Scene s = small_scene();
    auto b = write(s);
    for (uint32_t v = 0; v < 7; ++v) {
        auto [index, weight] = blend_of(b, v);
        EXPECT_EQ(weight[0] + weight[1] + weight[2] + weight[3], 255) << v;
        for (int k = 1; k < 4; ++k) EXPECT_GE(weight[k - 1], weight[k]) << v;
        for (int k = 0; k < 4; ++k)
            if (weight[k] == 0) {
                EXPECT_EQ(index[k], 0) << v;  // unused slots are (0, 0)
            }
    }
    // Vertex 1: 0.2/0.5/0.3 (float) sorted to joints 1,0,0; renormalized by 1/1.0000000149 the
    // 0.5 gives 127.99999 -> 127, then 77 and 51: 255 with no adjustment.
    auto [index, weight] = blend_of(b, 1);
    EXPECT_EQ(index, (std::array<int, 4>{1, 0, 0, 0}));
    EXPECT_EQ(weight, (std::array<int, 4>{127, 77, 51, 0}));
}

TEST(IqmWrite, TopFourRenormalizedAndExactWeightsUnchanged) {
    Scene s = small_scene();
    s.skeleton.joints.resize(6);
    for (uint32_t j = 2; j < 6; ++j) s.skeleton.joints[j].parent = 0;
    Mesh& m = s.meshes[0];
    // Vertex 0: five influences (the lightest dropped); vertex 2: already k/255 summing to 255.
    m.skin.influences = {{5, 0.1f}, {4, 0.4f}, {3, 0.1f}, {2, 0.2f}, {1, 0.2f},
                         {0, 0.2f}, {1, 0.5f}, {0, 0.3f},
                         {3, 25 / 255.0f}, {1, 100 / 255.0f}, {2, 80 / 255.0f}, {4, 50 / 255.0f},
                         {1, 1.0f}};
    m.skin.offsets = {0, 5, 8, 12, 13};
    Warnings w;
    SaveOptions o;
    o.warnings = &w;
    auto b = write(s, o);
    EXPECT_TRUE(w.has(WarningCode::DroppedData));
    // Top four of vertex 0: 0.4 (4), 0.2 (2), 0.2 (1), 0.1 (5; the first of the equal 0.1s),
    // renormalized over 0.9: 113.8, 56.9, 56.9, 28.8 -> 113, 57, 57, 28 = 255.
    auto [i0, w0] = blend_of(b, 0);
    EXPECT_EQ(i0, (std::array<int, 4>{4, 2, 1, 5}));
    EXPECT_EQ(w0, (std::array<int, 4>{113, 57, 57, 28}));
    // Exact ubyte weights come back unchanged, order included (files with unsorted weights
    // exist, e.g. raylib_guy.iqm).
    auto [i2, w2] = blend_of(b, 2);
    EXPECT_EQ(i2, (std::array<int, 4>{3, 1, 2, 4}));
    EXPECT_EQ(w2, (std::array<int, 4>{25, 100, 80, 50}));
    // The same weights off by a little are not exact: sorted and rounded.
    m.skin.influences[8].weight = 25.5f / 255;
    auto [i3, w3] = blend_of(write(s), 2);
    EXPECT_EQ(i3, (std::array<int, 4>{1, 2, 4, 3}));
    EXPECT_EQ(w3[0] + w3[1] + w3[2] + w3[3], 255);
}

TEST(IqmWrite, RoundRobinKeepsWeightsSorted) {
    Scene s = small_scene();
    Mesh& m = s.meshes[0];
    m.skin.influences = {{0, 54.4f}, {1, 100.3f}, {0, 100.3f},       // 100.3 100.3 54.4 -> 100 100 54: +1 on slot 0
                         {0, 3}, {1, 3}, {1, 2}, {0, 2},              // .3 .3 .2 .2 -> 77 77 51 51: -1 on the last slot
                         {0, 0.999f}, {1, 0.001f},                    // the light one rounds to 0: slot (0, 0)
                         {0, 0.5f}, {1, 0.25f}, {0, 0.25f}};          // 128 64 64: -1 on the last slot
    m.skin.offsets = {0, 3, 7, 9, 12};
    auto b = write(s);
    using A = std::array<int, 4>;
    EXPECT_EQ(blend_of(b, 0), (std::pair<A, A>{{1, 0, 0, 0}, {101, 100, 54, 0}}));
    // The compiler takes from slot 0 first (76 77 51 51, unsorted); rigport from the lightest.
    EXPECT_EQ(blend_of(b, 1), (std::pair<A, A>{{0, 1, 1, 0}, {77, 77, 51, 50}}));
    EXPECT_EQ(blend_of(b, 2), (std::pair<A, A>{{0, 0, 0, 0}, {255, 0, 0, 0}}));
    EXPECT_EQ(blend_of(b, 3), (std::pair<A, A>{{0, 1, 0, 0}, {128, 64, 63, 0}}));
}

TEST(IqmWrite, AnimationsAreConcatenated) {
    Scene s = small_scene();
    Animation idle;
    idle.name = "idle";
    idle.frame_count = 2;  // no tracks: the bind pose, twice
    s.animations.push_back(idle);
    auto b = write(s);
    EXPECT_EQ(get_u32(b, H_NUM_FRAMES), 5u);
    EXPECT_EQ(get_u32(b, H_NUM_ANIMS), 2u);
    const uint32_t a = get_u32(b, H_OFS_ANIMS);
    EXPECT_EQ(get_u32(b, a + 20 + 4), 3u);  // first_frame
    EXPECT_EQ(get_u32(b, a + 20 + 8), 2u);
    EXPECT_EQ(get_f32(b, a + 20 + 12), 0.0f);  // no frame rate given
    EXPECT_EQ(get_u32(b, a + 20 + 16), 0u);
    EXPECT_EQ(get_u32(b, H_OFS_COMMENT) - get_u32(b, H_OFS_BOUNDS), 5u * 32);
    // Frame 3 is the bind pose: the tip's rotate z (channel 5) decodes to -0.6.
    auto back = iqm::read(b, LoadOptions{});
    ASSERT_TRUE(back) << back.error().to_string();
    EXPECT_NEAR(frame_pose(back->skeleton, back->animations[1], 0)[1].rotate[2], -0.6f, 1e-5);
    EXPECT_NEAR(frame_pose(back->skeleton, back->animations[0], 2)[1].rotate[2], 0.28f, 1e-5);
}

TEST(IqmWrite, ReportsWhatIqmCannotHold) {
    Scene s = small_scene();
    s.meshes[0].morph_targets.push_back(MorphTarget{});
    s.materials[0].maps.push_back(TextureMap{});
    s.animations.clear();
    s.skeleton.joints.clear();
    for (auto& m : s.meshes) m.skin = {};
    Warnings w;
    SaveOptions o;
    o.warnings = &w;
    ASSERT_TRUE(save_bytes(s, "x.iqm", o));  // save_output warns from the row: morph targets
    ASSERT_TRUE(w.has(WarningCode::DroppedData));
    ASSERT_EQ(w.items.size(), 2u);
    EXPECT_EQ(w.items[0].message, "mesh 'body': 1 morph targets not written (iqm holds none)");
    // Animations without joints cannot be written either.
    Scene a = small_scene();
    a.skeleton.joints.clear();
    for (auto& m : a.meshes) m.skin = {};
    a.animations[0].tracks.clear();
    Warnings wa;
    o.warnings = &wa;
    auto b = write(a, o);
    EXPECT_TRUE(wa.has(WarningCode::DroppedData));
    EXPECT_EQ(get_u32(b, H_NUM_ANIMS), 0u);
    // Nothing to report for a scene IQM holds entirely.
    Warnings none;
    o.warnings = &none;
    write(small_scene(), o);
    EXPECT_TRUE(none.items.empty());
    // A material named after its only (diffuse) texture is exactly what IQM stores.
    Scene named = small_scene();
    named.materials[0].maps.push_back(TextureMap{TextureType::Diffuse, named.materials[0].name, ""});
    Warnings still_none;
    o.warnings = &still_none;
    write(named, o);
    EXPECT_TRUE(still_none.items.empty());
    named.materials[0].shininess = 8;  // ... but a shininess is lost
    write(named, o);
    EXPECT_TRUE(still_none.has(WarningCode::DroppedData));
}

TEST(IqmWrite, LargeJointIndexesBecomeInt) {
    Scene s = small_scene();
    s.skeleton.joints.resize(300);
    for (uint32_t j = 2; j < 300; ++j) s.skeleton.joints[j].parent = 1;
    s.meshes[0].skin.influences[0].joint = 299;
    Warnings w;
    SaveOptions o;
    o.warnings = &w;
    auto b = write(s, o);
    EXPECT_TRUE(w.has(WarningCode::NonStandardFormat));
    const uint32_t va = get_u32(b, H_OFS_VERTEXARRAYS);
    ASSERT_EQ(get_u32(b, va + 3 * 20), 4u);
    EXPECT_EQ(get_u32(b, va + 3 * 20 + 8), 4u);  // int
    EXPECT_EQ(get_u32(b, get_u32(b, va + 3 * 20 + 16)), 299u);
}

TEST(IqmWrite, RejectsBrokenScenes) {
    Scene s = small_scene();
    s.meshes[1].triangles[0][2] = 99;
    auto r = iqm::write(s, {});
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("99"), std::string::npos) << r.error().message;
    Scene p = small_scene();
    p.skeleton.joints[0].parent = 1;  // not parent-first
    EXPECT_FALSE(iqm::write(p, {}));
    Scene inf = small_scene();
    inf.meshes[0].skin.influences[0].joint = 7;
    EXPECT_FALSE(iqm::from_scene(inf, {}));
}

TEST(IqmWrite, FramesQuantizedFrameMajor) {
    Scene s = small_scene();
    auto b = write(s);
    const uint32_t poses = get_u32(b, H_OFS_POSES);
    // Pose 0 animates translate x (0, 0.5, 1) and z (0, 0, 0.25); pose 1 rotate z, w.
    const uint32_t mask0 = get_u32(b, poses + 4), mask1 = get_u32(b, poses + 88 + 4);
    EXPECT_EQ(mask0, (1u << 0) | (1u << 2));
    EXPECT_EQ(mask1, (1u << 5) | (1u << 6));
    EXPECT_EQ(get_u32(b, H_NUM_FRAMECHANNELS), 4u);
    EXPECT_EQ(int32_t(get_u32(b, poses)), -1);
    EXPECT_EQ(int32_t(get_u32(b, poses + 88)), 0);
    // Offsets are the minima; scales (max-min)/65535.
    EXPECT_EQ(get_f32(b, poses + 8 + 0 * 4), 0.0f);
    EXPECT_EQ(get_f32(b, poses + 48 + 0 * 4), 1.0f / 65535.0f);
    EXPECT_EQ(get_f32(b, poses + 88 + 8 + 5 * 4), -0.6f);
    EXPECT_EQ(get_f32(b, poses + 88 + 8 + 4 * 4), 0.0f);  // constant rotate y
    // Frame 1: pose 0 tx=0.5 of [0,1], tz=0 -> 0; pose 1 qz=-0.28 of [-0.6,0.28], qw=-0.96 = min.
    // Expected samples by the spec's float formula, each step kept in float.
    auto sample = [](float v, float lo, float hi) {
        volatile float scale = (hi - lo) / 65535.0f;
        volatile float ratio = (v - lo) / scale;
        return uint16_t(0.5f + ratio);
    };
    const uint32_t f = get_u32(b, H_OFS_FRAMES);
    EXPECT_EQ(get_u16(b, f + 4 * 2 + 0), sample(0.5f, 0, 1));
    EXPECT_NEAR(get_u16(b, f + 4 * 2 + 0), 32768, 1);
    EXPECT_EQ(get_u16(b, f + 4 * 2 + 2), 0);
    EXPECT_EQ(get_u16(b, f + 4 * 2 + 4), sample(-0.28f, -0.6f, 0.28f));
    EXPECT_EQ(get_u16(b, f + 4 * 2 + 6), 0);
    EXPECT_EQ(get_u16(b, f + 2 * 4 * 2 + 2), 65535);  // frame 2 tz = max
    // Anim record: name "walk", frames 0..3, 24 fps, loop.
    const uint32_t a = get_u32(b, H_OFS_ANIMS);
    EXPECT_EQ(get_u32(b, a + 4), 0u);
    EXPECT_EQ(get_u32(b, a + 8), 3u);
    EXPECT_EQ(get_f32(b, a + 12), 24.0f);
    EXPECT_EQ(get_u32(b, a + 16), 1u);
}

TEST(IqmWrite, ConstantChannelsOnlyGiveNoFrameData) {
    Scene s = small_scene();
    s.animations[0].tracks.clear();
    s.animations[0].frame_count = 2;
    auto b = write(s);
    EXPECT_EQ(get_u32(b, H_NUM_FRAMES), 2u);
    EXPECT_EQ(get_u32(b, H_NUM_FRAMECHANNELS), 0u);
    EXPECT_EQ(get_u32(b, H_OFS_FRAMES), 0u);
    // The bind pose sits in the offsets.
    const uint32_t poses = get_u32(b, H_OFS_POSES);
    EXPECT_EQ(get_f32(b, poses + 88 + 8), 1.0f);
    EXPECT_EQ(get_f32(b, poses + 88 + 8 + 6 * 4), -0.8f);
}

TEST(IqmWrite, KeyedAnimationsAreResampled) {
    Scene s = small_scene();
    Animation& a = s.animations[0];
    a.frame_count = 0;
    a.frame_rate = 0;  // resampled at default_frame_rate, the rate written (once 0)
    a.tracks = {{0, Channel::Translation, Interpolation::Linear, {0, 1}, {0, 0, 0, 3, 0, 0}}};
    auto b = write(s);
    EXPECT_EQ(get_u32(b, H_NUM_FRAMES), 31u);  // floor(1 * 30 + 0.5) + 1
    EXPECT_EQ(get_f32(b, get_u32(b, H_OFS_ANIMS) + 12), 30.0f);
    const uint32_t f = get_u32(b, H_OFS_FRAMES);
    EXPECT_EQ(get_u32(b, H_NUM_FRAMECHANNELS), 1u);
    EXPECT_EQ(get_u16(b, f), 0);
    EXPECT_EQ(get_u16(b, f + 30 * 2), 65535);
    EXPECT_NEAR(get_u16(b, f + 15 * 2), 32768, 1);
    EXPECT_EQ(get_u32(b, H_OFS_BOUNDS), f + 32 * 2);  // 31 samples padded to an even count
}

TEST(IqmWrite, BoundsMatchAnIndependentSkinning) {
    Scene s = small_scene();
    auto b = write(s);
    const uint32_t at = get_u32(b, H_OFS_BOUNDS);
    ASSERT_NE(at, 0u);
    // Bounds describe the frames as stored: skin with the poses the reader decodes (the
    // unquantized ones differ by up to half a step, checked loosely below).
    auto back = iqm::read(b, LoadOptions{});
    ASSERT_TRUE(back) << back.error().to_string();
    for (uint32_t f = 0; f < 3; ++f) {
        // Skin by hand with the reference demo's maths: world(pose) * inverse(world(bind)).
        auto pose = frame_pose(back->skeleton, back->animations[0], f);
        auto exact = frame_pose(s.skeleton, s.animations[0], f);
        for (size_t j = 0; j < pose.size(); ++j)
            for (int k = 0; k < 4; ++k) EXPECT_NEAR(pose[j].rotate[k], exact[j].rotate[k], 1e-5);
        auto skin = skinning_matrices(s.skeleton, pose);
        double lo[3] = {1e30, 1e30, 1e30}, hi[3] = {-1e30, -1e30, -1e30}, xy = 0, r = 0;
        for (auto& m : s.meshes)
            for (uint32_t v = 0; v < m.vertex_count(); ++v) {
                std::array<double, 3> p{0, 0, 0};
                double total = 0;
                for (uint32_t i = 0; i < m.skin.count(v); ++i) total += m.skin.begin(v)[i].weight;
                for (uint32_t i = 0; i < m.skin.count(v); ++i) {
                    auto& inf = m.skin.begin(v)[i];
                    auto q = transform_point(skin[inf.joint], {m.positions[v][0], m.positions[v][1], m.positions[v][2]});
                    for (int k = 0; k < 3; ++k) p[k] += q[k] * inf.weight / total;
                }
                for (int k = 0; k < 3; ++k) lo[k] = std::min(lo[k], p[k]), hi[k] = std::max(hi[k], p[k]);
                xy = std::max(xy, std::hypot(p[0], p[1]));
                r = std::max(r, std::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]));
            }
        const uint32_t rec = at + f * 32;
        for (int k = 0; k < 3; ++k) {
            EXPECT_NEAR(get_f32(b, rec + k * 4), lo[k], 1e-6) << f;
            EXPECT_NEAR(get_f32(b, rec + 12 + k * 4), hi[k], 1e-6) << f;
        }
        EXPECT_NEAR(get_f32(b, rec + 24), xy, 1e-6);
        EXPECT_NEAR(get_f32(b, rec + 28), r, 1e-6);
    }
}

TEST(IqmWrite, CommentAdjacencyAndExtensions) {
    Scene s = small_scene();
    s.meta.source_format = "iqm";
    s.meta.extensions = {{"FTE_EVENT", {1, 2, 3, 4, 5}}, {"EMPTY", {}}};
    s.meta.has_stored_adjacency = true;
    s.meta.stored_adjacency = {{7, 7, 7}, {7, 7, 7}, {7, 7, 7}};  // never copied
    auto b = write(s);
    EXPECT_EQ(get_u32(b, H_NUM_COMMENT), 20u);
    EXPECT_EQ(std::memcmp(&b[get_u32(b, H_OFS_COMMENT)], "tests wrote this\0\0\0\0", 20), 0);
    // Adjacency: the body's two triangles share the diagonal (edge 2 of t0, edge 0 of t1).
    const uint32_t adj = get_u32(b, H_OFS_ADJACENCY);
    EXPECT_EQ(get_u32(b, adj + 8), 1u);
    EXPECT_EQ(get_u32(b, adj + 12), 0u);
    EXPECT_EQ(get_u32(b, adj + 0), no_neighbor);
    // Extensions: a linked list after the comment.
    ASSERT_EQ(get_u32(b, H_NUM_EXTENSIONS), 2u);
    const uint32_t first = get_u32(b, H_OFS_EXTENSIONS);
    EXPECT_EQ(first, get_u32(b, H_OFS_COMMENT) + 20);
    EXPECT_EQ(get_u32(b, first + 4), 5u);
    EXPECT_EQ(get_u32(b, first + 8), first + 16);
    EXPECT_EQ(std::memcmp(&b[first + 16], "\1\2\3\4\5", 5), 0);
    const uint32_t second = get_u32(b, first + 12);
    EXPECT_EQ(second, first + 24);  // 16 + 5 padded to 4
    EXPECT_EQ(get_u32(b, second + 4), 0u);
    EXPECT_EQ(get_u32(b, second + 12), 0u);
    EXPECT_EQ(second + 16, b.size());
    const char* text = reinterpret_cast<const char*>(&b[get_u32(b, H_OFS_TEXT)]);
    EXPECT_STREQ(text + get_u32(b, first), "FTE_EVENT");
    // The records from_scene() returns carry the same list.
    auto file = iqm::from_scene(s, {});
    ASSERT_TRUE(file);
    ASSERT_EQ(file->extensions.size(), 2u);
    EXPECT_EQ(file->extensions[0].record_offset, first);
    EXPECT_EQ(file->extensions[0].ofs_data, first + 16);
    EXPECT_EQ(file->extensions[0].ofs_extensions, second);
    EXPECT_EQ(file->extensions[1].ofs_data, 0u);
    EXPECT_EQ(file->extensions[1].ofs_extensions, 0u);
    // Not an IQM source: extensions belong to another format and are not written.
    s.meta.source_format = "gltf";
    EXPECT_EQ(get_u32(write(s), H_NUM_EXTENSIONS), 0u);
}

TEST(IqmWrite, AnimationOnlySkeletonWritesPosesWithoutJoints) {
    Scene s = small_scene();
    s.meshes.clear();
    s.materials.clear();
    s.skeleton.animation_only = true;
    auto b = write(s);
    EXPECT_EQ(get_u32(b, H_NUM_JOINTS), 0u);
    EXPECT_EQ(get_u32(b, H_OFS_JOINTS), 0u);
    EXPECT_EQ(get_u32(b, H_NUM_POSES), 2u);
    EXPECT_EQ(int32_t(get_u32(b, get_u32(b, H_OFS_POSES) + 88)), 0);  // the tip's parent
    EXPECT_EQ(get_u32(b, H_OFS_BOUNDS), 0u);  // nothing to skin
    SaveOptions o;
    o.force_joints = true;
    auto forced = write(s, o);
    EXPECT_EQ(get_u32(forced, H_NUM_JOINTS), 2u);
}

TEST(IqmWrite, HalfTexcoordsOfAnIqmSourceStayHalf) {
    Scene s = small_scene();
    s.meta.source_format = "iqm";
    s.meta.attribute_formats = {{Attribute::Texcoord, 0, ComponentType::Half, 2}};
    auto b = write(s);
    const uint32_t va = get_u32(b, H_OFS_VERTEXARRAYS);
    EXPECT_EQ(get_u32(b, va + 20 + 8), 6u);
    const uint32_t tc = get_u32(b, va + 20 + 16);
    EXPECT_EQ(get_u16(b, tc + 4), 0x3C00);  // u of vertex 1 = 1.0 as a half
    EXPECT_EQ(get_u16(b, tc + 2 * 4 + 2), 0x3C00);  // v of vertex 2
    auto back = iqm::read(b, LoadOptions{});
    ASSERT_TRUE(back) << back.error().to_string();
    EXPECT_EQ(back->meshes[0].texcoords.at(0), s.meshes[0].texcoords[0]);
    // The recorded format comes back out: the same half bytes again.
    auto again = write(*back);
    const uint32_t va2 = get_u32(again, H_OFS_VERTEXARRAYS);
    ASSERT_EQ(get_u32(again, va2 + 20 + 8), 6u);
    const uint32_t tc2 = get_u32(again, va2 + 20 + 16);
    EXPECT_TRUE(std::equal(&b[tc], &b[tc] + 7 * 4, &again[tc2]));
}

// ---- round trips through the reader ------------------------------------------------------------

TEST(IqmWrite, RoundTripThroughTheReader) {
    Scene s = small_scene();
    auto b = write(s);
    auto back = iqm::read(b, LoadOptions{});
    ASSERT_TRUE(back) << back.error().to_string();
    ASSERT_EQ(back->meshes.size(), 2u);
    for (size_t i = 0; i < 2; ++i) {
        const Mesh &m = s.meshes[i], &r = back->meshes[i];
        EXPECT_EQ(r.name, m.name);
        EXPECT_EQ(back->materials.at(r.material).name, "skin");
        EXPECT_EQ(r.positions, m.positions);
        EXPECT_EQ(r.normals, m.normals);
        EXPECT_EQ(r.triangles, m.triangles);
        for (uint32_t v = 0; v < m.vertex_count(); ++v) {
            // Skinned positions agree within the ubyte weight error.
            double total = 0;
            for (uint32_t k = 0; k < r.skin.count(v); ++k) total += r.skin.begin(v)[k].weight;
            EXPECT_NEAR(total, 1.0, 1e-6);
        }
    }
    EXPECT_EQ(back->meshes[0].texcoords, s.meshes[0].texcoords);
    for (auto& c : s.meshes[0].custom) {
        auto it = std::find_if(back->meshes[0].custom.begin(), back->meshes[0].custom.end(), [&](auto& x) { return x.name == c.name; });
        ASSERT_NE(it, back->meshes[0].custom.end()) << c.name;
        EXPECT_EQ(it->type, c.type);
        EXPECT_EQ(it->values, c.values) << c.name;
    }
    for (int c = 0; c < 4; ++c) EXPECT_NEAR(back->meshes[1].colors.at(0)[2][c], s.meshes[1].colors[0][2][c], 0.5 / 255 + 1e-7);
    ASSERT_EQ(back->skeleton.joints.size(), 2u);
    EXPECT_EQ(back->skeleton.joints[1].name, "tip");
    EXPECT_EQ(back->skeleton.joints[1].bind.rotate, s.skeleton.joints[1].bind.rotate);
    EXPECT_EQ(back->meta.comment, "tests wrote this");
    ASSERT_EQ(back->animations.size(), 1u);
    const Animation& a = back->animations[0];
    EXPECT_EQ(a.name, "walks");
    EXPECT_TRUE(a.loop);
    EXPECT_EQ(a.frame_count, 3u);
    // Every frame within half a quantization step of the source, channel by channel.
    for (uint32_t f = 0; f < 3; ++f) {
        auto want = frame_pose(s.skeleton, s.animations[0], f);
        auto got = frame_pose(back->skeleton, a, f);
        for (size_t j = 0; j < 2; ++j) {
            for (int k = 0; k < 3; ++k) EXPECT_NEAR(got[j].translate[k], want[j].translate[k], 1.0 / 65535);
            for (int k = 0; k < 4; ++k) EXPECT_NEAR(got[j].rotate[k], want[j].rotate[k], 1.0 / 65535);
        }
    }
    // The stored adjacency and bounds are the ones recomputed from the scene.
    EXPECT_EQ(back->meta.stored_adjacency, compute_adjacency(s));
    EXPECT_EQ(back->meta.stored_bounds.size(), 3u);
}

TEST(IqmWrite, RewritingTheReadSceneIsStable) {
    // IQM -> scene -> IQM -> scene -> IQM: the second and third files are byte-identical.
    Scene s = small_scene();
    auto first = write(s);
    auto a = iqm::read(first, LoadOptions{});
    ASSERT_TRUE(a) << a.error().to_string();
    auto second = write(*a);
    auto b = iqm::read(second, LoadOptions{});
    ASSERT_TRUE(b) << b.error().to_string();
    auto third = write(*b);
    EXPECT_EQ(second, third);
    // Frames round-trip exactly: reading gives key values the writer reproduces.
    EXPECT_EQ(get_u32(second, H_NUM_FRAMECHANNELS), get_u32(first, H_NUM_FRAMECHANNELS));
    const uint32_t n = get_u32(first, H_NUM_FRAMES) * get_u32(first, H_NUM_FRAMECHANNELS);
    for (uint32_t i = 0; i < n; ++i)
        EXPECT_EQ(get_u16(second, get_u32(second, H_OFS_FRAMES) + i * 2), get_u16(first, get_u32(first, H_OFS_FRAMES) + i * 2)) << i;
}

TEST(IqmWrite, ReaderFixtureRoundTrips) {
    // A file made by the independent test builder (ubyte weights 128/127, animated channels)
    // survives read -> write -> read with the same geometry and frames.
    RawIqm m;
    m.text = std::string("\0quad\0root\0tip\0bend\0", 20);
    m.num_vertexes = 3;
    m.meshes = {{{1, 0, 0, 3, 0, 1}}};
    m.arrays.push_back({0, 7, 3, floats({0, 0, 0, 1, 0, 0, 1, 1, 0})});
    m.arrays.push_back({4, 1, 4, {0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}});
    m.arrays.push_back({5, 1, 4, {128, 127, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0}});
    m.triangles = {0, 1, 2};
    m.num_joints = 2;
    put_joint(m.joints, 6, -1, {0, 0, 0}, {0, 0, 0, -1}, {1, 1, 1});
    put_joint(m.joints, 11, 0, {1, 0, 0}, {0, 0, 0.6f, -0.8f}, {1, 1, 1});
    m.num_poses = 2;
    put_pose(m.poses, -1, 0, {0, 0, 0, 0, 0, 0, -1, 1, 1, 1}, std::vector<float>(10, 0));
    put_pose(m.poses, 0, 1u | (1u << 5), {1, 0, 0, 0, 0, 0.5f, -0.8f, 1, 1, 1}, {0.001f, 0, 0, 0, 0, 0.0001f, 0, 0, 0, 0});
    m.num_anims = 1;
    put_anim(m.anims, 15, 0, 3, 24.0f, 1);
    m.num_frames = 3;
    m.num_framechannels = 2;
    m.frames = {0, 0, 1000, 2000, 65535, 1000};
    auto a = iqm::read(build_iqm(m), LoadOptions{});
    ASSERT_TRUE(a) << a.error().to_string();
    auto written = write(*a);
    auto b = iqm::read(written, LoadOptions{});
    ASSERT_TRUE(b) << b.error().to_string();
    EXPECT_EQ(b->meshes[0].positions, a->meshes[0].positions);
    ASSERT_EQ(b->meshes[0].skin.influences.size(), a->meshes[0].skin.influences.size());
    for (size_t i = 0; i < a->meshes[0].skin.influences.size(); ++i) {
        EXPECT_EQ(b->meshes[0].skin.influences[i].joint, a->meshes[0].skin.influences[i].joint);
        EXPECT_EQ(b->meshes[0].skin.influences[i].weight, a->meshes[0].skin.influences[i].weight);
    }
    // Blend bytes identical to the fixture's.
    auto [index, weight] = blend_of(written, 0);
    EXPECT_EQ(weight, (std::array<int, 4>{128, 127, 0, 0}));
    EXPECT_EQ(index, (std::array<int, 4>{0, 1, 0, 0}));
    // Frames: requantized over their own range (tx 1..66.535, qz 0.5..0.7), so every decoded
    // value comes back within half of the new step.
    ASSERT_EQ(get_u32(written, H_NUM_FRAMECHANNELS), 2u);
    ASSERT_EQ(b->animations.size(), 1u);
    for (uint32_t f = 0; f < 3; ++f) {
        auto want = frame_pose(a->skeleton, a->animations[0], f);
        auto got = frame_pose(b->skeleton, b->animations[0], f);
        EXPECT_NEAR(got[1].translate[0], want[1].translate[0], 65.535 / 65535 / 2 + 1e-5) << f;
        EXPECT_NEAR(got[1].rotate[2], want[1].rotate[2], 0.2 / 65535 / 2 + 1e-7) << f;
        EXPECT_EQ(got[0].rotate, want[0].rotate);
    }
}

}  // namespace
}  // namespace rigport::test
