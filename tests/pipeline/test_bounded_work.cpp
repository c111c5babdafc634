// Bounded work on hostile input (docs/cli.md, "Bounded work"): nesting beyond LoadOptions::max_depth is an error,
// not a stack overflow; values a file does not store are bounded by the bytes it has; inputs of
// many animations, meshes and morph targets cost linear time (the suite's ctest TIMEOUT is the
// hang guard; the tests check counts, not timings), and where a cost could grow faster than the
// input (OBJ smoothing groups, polygons and mtllib, FBX sampling, compile's vertex-cache order)
// the work at n is compared with the work at 4n (§3b); writers refuse non-finite values with
// exit 2 (an input problem) and write nothing. Every input is generated here.
#include <gtest/gtest.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <string>

#include "formats/cal3d/cal3d.hpp"
#include "rigport/cal3d.hpp"
#include "rigport/io.hpp"
#include "rigport/process.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

namespace fs = std::filesystem;

fs::path write_text(const fs::path& p, const std::string& text) {
    write_bytes(p, std::vector<uint8_t>(text.begin(), text.end()));
    return p;
}

std::span<const uint8_t> bytes_of(const std::string& s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

std::string repeat(const std::string& s, size_t n) {
    std::string out;
    out.reserve(s.size() * n);
    for (size_t i = 0; i < n; ++i) out += s;
    return out;
}

std::string base64(const std::string& bytes) {
    static const char* digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    for (size_t i = 0; i < bytes.size(); i += 3) {
        uint32_t v = uint32_t(uint8_t(bytes[i])) << 16;
        if (i + 1 < bytes.size()) v |= uint32_t(uint8_t(bytes[i + 1])) << 8;
        if (i + 2 < bytes.size()) v |= uint8_t(bytes[i + 2]);
        out += digits[v >> 18 & 63];
        out += digits[v >> 12 & 63];
        out += i + 1 < bytes.size() ? digits[v >> 6 & 63] : '=';
        out += i + 2 < bytes.size() ? digits[v & 63] : '=';
    }
    return out;
}

std::string floats(std::initializer_list<float> values) {
    std::string out;
    for (float f : values) out.append(reinterpret_cast<const char*>(&f), 4);
    return out;
}

std::string data_uri(const std::string& bytes) { return "data:application/octet-stream;base64," + base64(bytes); }

// A glTF with one triangle (indices: accessor 2) whose `vertices` positions are accessor 0 and
// whose `targets` morph targets all name accessor 1 (zero deltas, stored once).
std::string morph_gltf(size_t targets, size_t vertices = 3) {
    const std::string positions = floats({0, 0, 0, 1, 0, 0, 0, 1, 0}) + std::string((vertices - 3) * 12, '\0');
    const std::string deltas(vertices * 12, '\0');
    const std::string indices("\0\0\1\0\2\0\0\0", 8);
    const std::string buffer = positions + deltas + indices;
    std::string list = repeat("{\"POSITION\":1},", targets);
    list.pop_back();
    std::string weights = repeat("0,", targets);
    weights.pop_back();
    const std::string n = std::to_string(vertices), size = std::to_string(vertices * 12), twice = std::to_string(vertices * 24);
    return R"({"asset":{"version":"2.0"},"buffers":[{"byteLength":)" + std::to_string(buffer.size()) + R"(,"uri":")" + data_uri(buffer) +
           R"("}],"bufferViews":[{"buffer":0,"byteLength":)" + size + R"(},{"buffer":0,"byteOffset":)" + size + R"(,"byteLength":)" + size +
           R"(},{"buffer":0,"byteOffset":)" + twice + R"(,"byteLength":6}],"accessors":[{"bufferView":0,"componentType":5126,"count":)" + n +
           R"(,"type":"VEC3","min":[0,0,0],"max":[1,1,0]},{"bufferView":1,"componentType":5126,"count":)" + n +
           R"(,"type":"VEC3","min":[0,0,0],"max":[0,0,0]},{"bufferView":2,"componentType":5123,"count":3,"type":"SCALAR"}],)"
           R"("meshes":[{"primitives":[{"attributes":{"POSITION":0},"indices":2,"targets":[)" +
           list + R"(]}],"weights":[)" + weights + R"(]}],"nodes":[{"mesh":0}],"scenes":[{"nodes":[0]}]})";
}

const struct {
    const char* ext;
    const char* magic;
    const char* body;
} cal3d_xml[] = {{"xsf", "XSF", "SKELETON"}, {"xmf", "XMF", "MESH"}, {"xaf", "XAF", "ANIMATION"}, {"xrf", "XRF", "MATERIAL"}, {"xpf", "XPF", "ANIMATION"}};

std::string nested_xml(const char* magic, const char* body, size_t depth) {
    return std::string("<HEADER MAGIC=\"") + magic + "\" VERSION=\"919\" />\n<" + body + ">" + repeat("<a>", depth) + repeat("</a>", depth) +
           "</" + body + ">\n";
}

// ---- 1. depth -----------------------------------------------------------------------------------

TEST(BoundedWork, DeeplyNestedCal3dXmlIsAnErrorNotACrash) {
    const fs::path dir = temp_dir();
    for (auto& f : cal3d_xml) {
        SCOPED_TRACE(f.ext);
        // 60,000 levels, ~420 KB: the recursive junk-text scan overflowed the stack (SIGSEGV).
        const fs::path in = write_text(dir / (std::string("deep.") + f.ext), nested_xml(f.magic, f.body, 60000));
        auto info = run_cli({"info", in.string()});
        EXPECT_EQ(info.exit_code, 2) << info.err;
        EXPECT_NE(info.err.find("nested deeper than 256 levels"), std::string::npos) << info.err;
        EXPECT_NE(info.err.find(in.filename().string()), std::string::npos) << info.err;  // names the file
        EXPECT_NE(info.err.find(":2:"), std::string::npos) << info.err;                   // and the line
        auto validate = run_cli({"validate", in.string()});
        EXPECT_EQ(validate.exit_code, 5) << validate.out << validate.err;
        const fs::path out = dir / (std::string("deep_out_") + f.ext + ".iqm");
        auto convert = run_cli({"convert", in.string(), "-o", out.string()});
        EXPECT_EQ(convert.exit_code, 2) << convert.err;
        EXPECT_FALSE(fs::exists(out));
    }
}

TEST(BoundedWork, MaxDepthIsALoadOption) {
    const std::string xml = nested_xml("XSF", "SKELETON", 10);
    LoadOptions shallow;
    shallow.max_depth = 5;
    auto refused = load_bytes(bytes_of(xml), "nested.xsf", shallow);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().code, ErrorCode::LimitExceeded);
    EXPECT_NE(refused.error().message.find("nested deeper than 5 levels"), std::string::npos) << refused.error().message;
    auto read = load_bytes(bytes_of(xml), "nested.xsf");  // 12 levels: within the default 256
    if (!read) {
        EXPECT_EQ(read.error().message.find("nested deeper"), std::string::npos) << read.error().message;
    }

    const std::string json = R"({"asset":{"version":"2.0"},"extras":)" + repeat("[", 10) + repeat("]", 10) + "}";
    auto refused_json = load_bytes(bytes_of(json), "nested.gltf", shallow);
    ASSERT_FALSE(refused_json);
    EXPECT_EQ(refused_json.error().code, ErrorCode::LimitExceeded);
    EXPECT_TRUE(load_bytes(bytes_of(json), "nested.gltf")) << "12 levels are within the default";
}

TEST(BoundedWork, DeeplyNestedGltfJsonIsAnError) {
    const fs::path dir = temp_dir();
    const fs::path in = write_text(dir / "deep.gltf", R"({"asset":{"version":"2.0"},"extras":)" + repeat("[", 100000) + repeat("]", 100000) + "}");
    auto info = run_cli({"info", in.string()});
    EXPECT_EQ(info.exit_code, 2) << info.err;
    EXPECT_NE(info.err.find("nested deeper than 256 levels"), std::string::npos) << info.err;
    EXPECT_NE(info.err.find("offset"), std::string::npos) << info.err;
    const fs::path out = dir / "deep.glb";
    EXPECT_EQ(run_cli({"convert", in.string(), "-o", out.string()}).exit_code, 2);
    EXPECT_FALSE(fs::exists(out));
}

// ---- 2. allocations justified by the bytes present ----------------------------------------------

TEST(BoundedWork, AccessorWithoutBufferViewIsBoundedByTheFileSize) {
    const fs::path dir = temp_dir();
    // 266 bytes asking for 2^26 - 1 zero VEC3 positions: took 12.6 s and 4.7 GB.
    const fs::path in = write_text(dir / "zeros.gltf",
                                   R"({"asset":{"version":"2.0"},"accessors":[{"componentType":5126,"count":67108863,"type":"VEC3","min":[0,0,0],"max":[0,0,0]}],)"
                                   R"("meshes":[{"primitives":[{"attributes":{"POSITION":0}}]}],"nodes":[{"mesh":0}],"scenes":[{"nodes":[0]}]})");
    auto info = run_cli({"info", in.string()});
    EXPECT_EQ(info.exit_code, 2) << info.err;
    EXPECT_NE(info.err.find("/accessors/0"), std::string::npos) << info.err;
    EXPECT_NE(info.err.find("not stored in the file"), std::string::npos) << info.err;
    const fs::path out = dir / "zeros.iqm";
    EXPECT_EQ(run_cli({"convert", in.string(), "-o", out.string()}).exit_code, 2);
    EXPECT_FALSE(fs::exists(out));

    // A small zero accessor stays valid glTF and is read.
    const std::string small = R"({"asset":{"version":"2.0"},"accessors":[{"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[0,0,0]}],)"
                              R"("meshes":[{"primitives":[{"attributes":{"POSITION":0}}]}],"nodes":[{"mesh":0}],"scenes":[{"nodes":[0]}]})";
    auto scene = load_bytes(bytes_of(small), "small.gltf");
    ASSERT_TRUE(scene) << scene.error().to_string();
    ASSERT_EQ(scene->meshes.size(), 1u);
    EXPECT_EQ(scene->meshes[0].vertex_count(), 3u);
}

TEST(BoundedWork, SparseAccessorIsBoundedByTheFileSize) {
    // One stored substitution in an accessor of 2^26 - 1 elements.
    const std::string buffer = std::string("\0\0\0\0", 4) + floats({1, 2, 3});
    const std::string gltf = R"({"asset":{"version":"2.0"},"buffers":[{"byteLength":16,"uri":")" + data_uri(buffer) +
                             R"("}],"bufferViews":[{"buffer":0,"byteLength":4},{"buffer":0,"byteOffset":4,"byteLength":12}],)"
                             R"("accessors":[{"componentType":5126,"count":67108863,"type":"VEC3","min":[0,0,0],"max":[1,2,3],)"
                             R"("sparse":{"count":1,"indices":{"bufferView":0,"componentType":5125},"values":{"bufferView":1}}}],)"
                             R"("meshes":[{"primitives":[{"attributes":{"POSITION":0}}]}],"nodes":[{"mesh":0}],"scenes":[{"nodes":[0]}]})";
    auto scene = load_bytes(bytes_of(gltf), "sparse.gltf");
    ASSERT_FALSE(scene);
    EXPECT_EQ(scene.error().code, ErrorCode::LimitExceeded);
    EXPECT_NE(scene.error().message.find("/accessors/0"), std::string::npos) << scene.error().message;
}

TEST(BoundedWork, MorphTargetsReusingOneAccessorAreBounded) {
    // 5,000 targets naming one stored accessor of 20,000 vertices: 3e8 values (1.2 GB) from
    // ~0.7 MB, within the 4 x max_elements count but not justified by the bytes.
    auto scene = load_bytes(bytes_of(morph_gltf(5000, 20000)), "reuse.gltf");
    ASSERT_FALSE(scene);
    EXPECT_EQ(scene.error().code, ErrorCode::LimitExceeded);
    EXPECT_NE(scene.error().message.find("/meshes/0/primitives/0/targets/"), std::string::npos) << scene.error().message;
}

// ---- 3. costs linear in the input ---------------------------------------------------------------

TEST(BoundedWork, ManyMorphTargetsAreReadAndWritten) {
    // 100,000 targets (1.7 MB): 12.8 s before (the glTF writer's buffer grew by exact reserves).
    const fs::path dir = temp_dir();
    const fs::path in = write_text(dir / "morphs.gltf", morph_gltf(100000));
    const fs::path out = dir / "morphs.glb";
    auto r = run_cli({"convert", in.string(), "-o", out.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto back = load(out.string());
    ASSERT_TRUE(back) << back.error().to_string();
    ASSERT_EQ(back->meshes.size(), 1u);
    EXPECT_EQ(back->meshes[0].morph_targets.size(), 100000u);
}

TEST(BoundedWork, ManyAnimationsAreLinear) {
    // 50,000 animations without a framerate: one distinct warning each, which the warning list
    // deduplicated by a linear search (quadratic; `info` took 6.7 s).
    const fs::path dir = temp_dir();
    std::string iqe = "# Inter-Quake Export\njoint \"root\" -1\npq 0 0 0 0 0 0 1\n";
    for (int i = 0; i < 50000; ++i) iqe += "animation a" + std::to_string(i) + "\nframe\npq 0 0 0 0 0 0 1\nframe\npq 1 0 0 0 0 0 1\n";
    const fs::path in = write_text(dir / "anims.iqe", iqe);
    auto info = run_cli({"info", in.string(), "--json"});
    ASSERT_EQ(info.exit_code, 0) << info.err;
    auto j = nlohmann::json::parse(info.out);
    EXPECT_EQ(j["animations"].size(), 50000u);
    EXPECT_EQ(j["animations"][49999]["frames"], 2);
    for (const char* ext : {"iqm", "glb"}) {
        const fs::path out = dir / (std::string("anims_out.") + ext);
        auto r = run_cli({"convert", in.string(), "-o", out.string()});
        ASSERT_EQ(r.exit_code, 0) << r.err;
        auto back = load(out.string());
        ASSERT_TRUE(back) << back.error().to_string();
        EXPECT_EQ(back->animations.size(), 50000u) << ext;
    }
}

TEST(BoundedWork, ManyMeshesAreLinear) {
    // 30,000 meshes of their own materials: material merging, the IQE writer's duplicate check
    // and the glTF image table searched every earlier item (quadratic).
    const fs::path dir = temp_dir();
    std::string iqe = "# Inter-Quake Export\n";
    for (int i = 0; i < 30000; ++i)
        iqe += "mesh m" + std::to_string(i) + "\nmaterial t" + std::to_string(i) + ".png\nvp 0 0 0\nvp 1 0 0\nvp 0 1 0\nfm 0 1 2\n";
    const fs::path in = write_text(dir / "meshes.iqe", iqe);
    for (const char* ext : {"iqe", "iqm", "glb"}) {
        const fs::path out = dir / (std::string("meshes_out.") + ext);
        auto r = run_cli({"convert", in.string(), "-o", out.string()});
        ASSERT_EQ(r.exit_code, 0) << r.err;
        auto back = load(out.string());
        ASSERT_TRUE(back) << back.error().to_string();
        EXPECT_EQ(back->meshes.size(), 30000u) << ext;
        EXPECT_EQ(back->materials.size(), 30000u) << ext;
    }
}

// A .cfg of 3,000 meshes each naming material thread 65,535 and bone id 65,535: each member read
// alone made 65,536 placeholder materials and joints, which the character then dropped (30 s,
// quadratic in a .cfg whose member i names thread i). Members are now read with their ids as
// given (cal3d::Ids::AsGiven): 0.06 s.
TEST(BoundedWork, CfgMembersAreReadWithoutPlaceholders) {
    const std::string xmf = R"(<HEADER MAGIC="XMF" VERSION="919"/><MESH NUMSUBMESH="1">
<SUBMESH NUMVERTICES="3" NUMFACES="1" NUMLODSTEPS="0" NUMSPRINGS="0" NUMTEXCOORDS="0" MATERIAL="65535" NUMMORPHS="0">
<VERTEX ID="0" NUMINFLUENCES="1"><POS>0 0 0</POS><NORM>0 0 1</NORM><INFLUENCE ID="65535">1</INFLUENCE></VERTEX>
<VERTEX ID="1" NUMINFLUENCES="0"><POS>1 0 0</POS><NORM>0 0 1</NORM></VERTEX>
<VERTEX ID="2" NUMINFLUENCES="0"><POS>0 1 0</POS><NORM>0 0 1</NORM></VERTEX>
<FACE VERTEXID="0 1 2"/></SUBMESH></MESH>
)";
    auto alone = cal3d::read_xmf(bytes_of(xmf), {});
    ASSERT_TRUE(alone) << alone.error().to_string();
    EXPECT_EQ(alone->materials.size(), 65536u);
    EXPECT_EQ(alone->skeleton.joints.size(), 65536u);
    auto member = cal3d::read_xmf(bytes_of(xmf), {}, cal3d::Ids::AsGiven);
    ASSERT_TRUE(member) << member.error().to_string();
    EXPECT_EQ(member->materials.size(), 0u);
    EXPECT_EQ(member->skeleton.joints.size(), 0u);
    EXPECT_EQ(member->meshes[0].material, 65535);
    EXPECT_EQ(member->meshes[0].skin.influences[0].joint, 65535u);

    // Through the binary: without a skeleton the influences name the bone they need (exit 2);
    // without influences the meshes load with a warning per missing material.
    const fs::path dir = temp_dir();
    std::string cfg, plain_cfg;
    std::string plain = xmf;
    plain.replace(plain.find("NUMINFLUENCES=\"1\""), 17, "NUMINFLUENCES=\"0\"");
    plain.erase(plain.find("<INFLUENCE"), plain.find("</VERTEX>") - plain.find("<INFLUENCE"));
    for (int i = 0; i < 3000; ++i) {
        write_text(dir / fmt::format("m{}.xmf", i), xmf);
        write_text(dir / fmt::format("p{}.xmf", i), plain);
        cfg += fmt::format("mesh=m{}.xmf\n", i);
        plain_cfg += fmt::format("mesh=p{}.xmf\n", i);
    }
    auto r = run_cli({"info", write_text(dir / "skinned.cfg", cfg).string()});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("65535"), std::string::npos) << r.err;
    auto character = load_cal3d_character({write_text(dir / "plain.cfg", plain_cfg).string()});
    ASSERT_TRUE(character) << character.error().to_string();
    EXPECT_EQ(character->meshes.size(), 3000u);
}

TEST(BoundedWork, WarningsDeduplicateInConstantTime) {
    Warnings w;
    for (int i = 0; i < 100000; ++i) w.add(WarningCode::Other, "w" + std::to_string(i % 50000));
    ASSERT_EQ(w.items.size(), 50000u);
    EXPECT_EQ(w.items[123].count, 2u);
    // A list appended to directly (merging) is still deduplicated afterwards.
    w.items.push_back(Warning{WarningCode::DroppedData, "merged", 1, std::nullopt, {}});
    w.add(WarningCode::DroppedData, "merged");
    EXPECT_EQ(w.items.size(), 50001u);
    EXPECT_EQ(w.items.back().count, 2u);
}

// ---- 3b. work that grows with the input, not faster: n against 4n ------------------------------
//
// Where the library counts its work (FBX poses against LoadOptions::max_elements, .mtl reads
// through read_resource) the tests hold that count to the input's size at n and 4n. Elsewhere
// they compare the process CPU time (every thread; the least of three runs) of 4n with n's: a
// linear step takes about 4 times as long, a quadratic one 16 times; the tests allow 10. No
// wall-clock limit: only the ratio of the two sizes counts.

double cpu_now() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

template <class F>
double least_cpu_seconds(F&& f) {
    double best = 1e300;
    for (int run = 0; run < 3; ++run) {
        const double before = cpu_now();
        f();
        best = std::min(best, cpu_now() - before);
    }
    return best;
}

// f(n) and f(4n) timed: 4n's time stays within 10 x n's (2.5 x n's per element).
template <class F>
void expect_linear(size_t n, F&& f, const std::string& what) {
    const double small = least_cpu_seconds([&] { f(n); });
    const double large = least_cpu_seconds([&] { f(4 * n); });
    EXPECT_LT(large, 10 * std::max(small, 1e-3)) << what << ": " << n << " took " << small << " s of CPU, " << 4 * n << " took " << large << " s";
}

// OBJ: n faces on the same three corners, each in its own smoothing group. Every corner's
// position is shared by n faces of n groups, and the smoothing rule compared each new corner
// with every group's first corner (10,000 groups 0.5 s, 40,000 8.2 s, 100,000 over 60 s).
std::string obj_smoothing_groups(size_t n) {
    std::string obj = "v 0 0 0\nv 1 0 0\nv 0 1 0\n";
    for (size_t i = 1; i <= n; ++i) obj += "s " + std::to_string(i) + "\nf 1 2 3\n";
    return obj;
}

TEST(BoundedWork, ObjSmoothingGroupsSharingAVertexAreLinear) {
    auto scene = load_bytes(bytes_of(obj_smoothing_groups(3)), "groups.obj");
    ASSERT_TRUE(scene) << scene.error().to_string();
    EXPECT_EQ(scene->vertex_count(), 9u);  // each group's corners apart: one vertex per group and corner
    expect_linear(20000, [](size_t n) {
        auto s = load_bytes(bytes_of(obj_smoothing_groups(n)), "groups.obj");
        ASSERT_TRUE(s) << s.error().to_string();
        ASSERT_EQ(s->vertex_count(), 3 * n);
    }, "OBJ smoothing groups");
}

// OBJ: one polygon of n corners round (0, 0, 0), flat (`s off`) or smooth: a fan of n - 2
// triangles whose first corner every triangle shares (900,000 corners, 5.4 MB: over 60 s).
std::string obj_polygon(size_t n, bool flat) {
    std::string obj = flat ? "s off\n" : "";
    obj += "v 0 0 0\n";
    for (size_t i = 1; i < n; ++i)
        obj += fmt::format("v {} {} 0\n", std::cos(6.283185307179586 * double(i) / double(n)), std::sin(6.283185307179586 * double(i) / double(n)));
    obj += "f";
    for (size_t i = 1; i <= n; ++i) obj += " " + std::to_string(i);
    return obj + "\n";
}

TEST(BoundedWork, ObjPolygonOfManyCornersIsLinear) {
    for (bool flat : {false, true}) {
        SCOPED_TRACE(flat ? "s off" : "smooth");
        expect_linear(50000, [flat](size_t n) {
            auto s = load_bytes(bytes_of(obj_polygon(n, flat)), "polygon.obj");
            ASSERT_TRUE(s) << s.error().to_string();
            ASSERT_EQ(s->triangle_count(), n - 2);
        }, flat ? "OBJ flat polygon" : "OBJ smooth polygon");
    }
}

// OBJ: `mtllib` naming one library n times is one read of it, at n and at 4n (a 16 KB .obj naming
// a 1.4 MB .mtl 2,000 times read 2.8 GB: 30 s).
TEST(BoundedWork, ObjMtllibNamedManyTimesIsReadOnce) {
    const std::string mtl = "newmtl red\nKd 1 0 0\n";
    for (size_t n : {500, 2000}) {
        size_t reads = 0;
        LoadOptions options;
        options.read_resource = [&](const std::string& uri) -> Expected<std::vector<uint8_t>> {
            ++reads;
            if (uri != "lib.mtl" && uri != "other.mtl") return make_error(ErrorCode::NotFound, uri + " not found");
            return std::vector<uint8_t>(mtl.begin(), mtl.end());
        };
        std::string obj = "mtllib";
        for (size_t i = 0; i < n; ++i) obj += " lib.mtl";
        obj += "\nmtllib other.mtl lib.mtl\nmtllib missing.mtl missing.mtl\nusemtl red\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
        auto s = load_bytes(bytes_of(obj), "many.obj", options);
        ASSERT_TRUE(s) << s.error().to_string();
        EXPECT_EQ(reads, 3u) << n << " names";  // lib.mtl, other.mtl and missing.mtl, once each
        ASSERT_EQ(s->materials.size(), 1u);
        EXPECT_EQ(s->materials[0].diffuse[0], 1.0f);
        EXPECT_EQ(s->materials[0].diffuse[1], 0.0f);
    }
}

// FBX: `joints` sibling joints under a root, the first moved by one curve of `keys` keys on its
// Lcl Translation X (with `shared`, every joint by that one curve). Every joint was placed at
// every key time: 1,000 joints and a 67,000-key curve (964 KB) took 41 s and 2.6 GB.
std::string fbx_joints_and_one_curve(size_t joints, size_t keys, bool shared = false) {
    std::string objects, connections;
    objects += "\tModel: 1, \"Model::Root\", \"LimbNode\" {\n\t}\n";
    connections += "\tC: \"OO\",1,0\n";
    for (size_t j = 0; j < joints; ++j) {
        objects += fmt::format("\tModel: {}, \"Model::J{}\", \"LimbNode\" {{\n\t\tProperties70:  {{\n\t\t\tP: \"Lcl Translation\", \"Lcl Translation\", \"\", \"A\",{},0,0\n\t\t}}\n\t}}\n",
                               100 + j, j, j);
        connections += fmt::format("\tC: \"OO\",{},1\n", 100 + j);
        if (j == 0 || shared) {
            const size_t node = 100 + joints + j;
            objects += fmt::format("\tAnimationCurveNode: {}, \"AnimCurveNode::T\", \"\" {{\n\t}}\n", node);
            connections += fmt::format("\tC: \"OO\",{},11\n\tC: \"OP\",{},{}, \"Lcl Translation\"\n\tC: \"OP\",13,{}, \"d|X\"\n", node, node, 100 + j, node);
        }
    }
    std::string times, values;
    for (size_t k = 0; k < keys; ++k) {
        times += (k ? "," : "") + std::to_string(int64_t(k) * 1924423250);  // 1/24 s apart
        values += (k ? "," : "") + std::to_string(k % 7);
    }
    objects += "\tAnimationStack: 10, \"AnimStack::Take\", \"\" {\n\t}\n\tAnimationLayer: 11, \"AnimLayer::Base\", \"\" {\n\t}\n";
    objects += fmt::format("\tAnimationCurve: 13, \"AnimCurve::\", \"\" {{\n\t\tKeyTime: *{} {{\n\t\t\ta: {}\n\t\t}}\n\t\tKeyValueFloat: *{} {{\n\t\t\ta: {}\n\t\t}}\n\t}}\n",
                           keys, times, keys, values);
    connections += "\tC: \"OO\",11,10\n";
    return "; FBX 7.4.0 project file\nFBXHeaderExtension:  {\n\tFBXHeaderVersion: 1003\n\tFBXVersion: 7400\n}\n"
           "GlobalSettings:  {\n\tVersion: 1000\n\tProperties70:  {\n\t\tP: \"TimeMode\", \"enum\", \"\", \"\",11\n\t}\n}\n"
           "Objects:  {\n" + objects + "}\nConnections:  {\n" + connections + "}\n";
}

TEST(BoundedWork, FbxJointsArePlacedOnlyAtTheKeysThatMoveThem) {
    // The poses the sampler makes count against LoadOptions::max_elements. With n joints and an
    // n-key curve moving one of them, a budget of one per byte of the file holds at n and
    // at 4n (placing every joint at every key time was n^2 poses).
    for (size_t n : {1000, 4000}) {
        SCOPED_TRACE(n);
        const std::string fbx = fbx_joints_and_one_curve(n, n);
        LoadOptions options;
        options.max_elements = fbx.size();
        auto s = load_bytes(bytes_of(fbx), "joints.fbx", options);
        ASSERT_TRUE(s) << s.error().to_string();
        ASSERT_EQ(s->skeleton.joints.size(), n + 1);
        ASSERT_EQ(s->animations.size(), 1u);
        // J0 has a key at each of the curve's times; the others hold their bind pose (no track).
        for (const JointTrack& t : s->animations[0].tracks) {
            EXPECT_EQ(s->skeleton.joints[t.joint].name, "J0");
            EXPECT_EQ(t.times.size(), n);
        }
        EXPECT_EQ(s->animations[0].tracks.size(), 3u);
        // The same curve moving every joint is n poses per joint: refused under that budget,
        // naming the option.
        const std::string every = fbx_joints_and_one_curve(n, n, true);
        options.max_elements = every.size();
        auto refused = load_bytes(bytes_of(every), "every.fbx", options);
        ASSERT_FALSE(refused);
        EXPECT_EQ(refused.error().code, ErrorCode::LimitExceeded);
        EXPECT_NE(refused.error().message.find("placing"), std::string::npos) << refused.error().message;
        EXPECT_NE(refused.error().message.find("LoadOptions::max_elements"), std::string::npos) << refused.error().message;
    }
    // The review's file: 1,000 joints and a 67,000-key curve, with the default options.
    auto s = load_bytes(bytes_of(fbx_joints_and_one_curve(1000, 67000)), "review.fbx");
    ASSERT_TRUE(s) << s.error().to_string();
    ASSERT_EQ(s->animations.size(), 1u);
    EXPECT_EQ(s->animations[0].tracks.size(), 3u);
}

// Compile's vertex-cache order: a fan of n triangles round one vertex (meshoptimizer's Forsyth
// order rescans every triangle of a cached vertex after each triangle it emits: 20,000 triangles
// 0.2 s, 80,000 3.2 s).
Scene fan(size_t n) {
    Scene scene;
    Mesh& m = scene.meshes.emplace_back();
    m.positions.push_back({0, 0, 0});
    for (size_t i = 0; i <= n; ++i) m.positions.push_back({std::cos(float(i)), std::sin(float(i)), 0});
    for (uint32_t i = 1; i <= n; ++i) m.triangles.push_back({0, i, i + 1});
    return scene;
}

TEST(BoundedWork, VertexCacheOrderOfAFanIsLinear) {
    expect_linear(50000, [](size_t n) {
        Scene s = fan(n);
        optimize_vertex_cache(s);
        ASSERT_EQ(s.meshes[0].triangles.size(), n);
    }, "vertex-cache order of a fan");
    // Still every triangle once, over the same vertices (renumbered in first-use order).
    Scene s = fan(1000), before = s;
    optimize_vertex_cache(s);
    auto corners = [](const Scene& x, const Triangle& t) {
        std::array<std::array<float, 3>, 3> p;
        for (int k = 0; k < 3; ++k) p[size_t(k)] = {x.meshes[0].positions[t[size_t(k)]][0], x.meshes[0].positions[t[size_t(k)]][1], x.meshes[0].positions[t[size_t(k)]][2]};
        std::rotate(p.begin(), std::min_element(p.begin(), p.end()), p.end());  // winding kept, start normalized
        return p;
    };
    std::vector<std::array<std::array<float, 3>, 3>> a, b;
    for (auto& t : before.meshes[0].triangles) a.push_back(corners(before, t));
    for (auto& t : s.meshes[0].triangles) b.push_back(corners(s, t));
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    EXPECT_EQ(a, b);
    EXPECT_EQ(s.meshes[0].triangles[0][0], 0u);  // first use numbers vertices
}

// ---- 4. writers and non-finite values -----------------------------------------------------------

TEST(BoundedWork, NonFinitePositionsAreRefusedByEveryWriterWithExit2) {
    // 1e38 scaled by 1e8 is infinity in float: before, exit 4 ("could not write").
    const fs::path dir = temp_dir();
    const fs::path in = write_text(dir / "big.iqe", "# Inter-Quake Export\nmesh m\nvp 1e38 0 0\nvp 0 1 0\nvp 0 0 1\nfm 0 1 2\n");
    for (const char* ext : {"iqm", "iqe", "glb", "gltf", "xmf", "cmf", "joe"}) {
        SCOPED_TRACE(ext);
        const fs::path out = dir / (std::string("big_out.") + ext);
        auto r = run_cli({"convert", in.string(), "-s", "1e8", "-o", out.string()});
        EXPECT_EQ(r.exit_code, 2) << r.err;
        EXPECT_NE(r.err.find("not finite"), std::string::npos) << r.err;
        EXPECT_FALSE(fs::exists(out));
    }
    EXPECT_FALSE(fs::exists(dir / "big_out.bin"));
}

TEST(BoundedWork, IqmQuantizationOfAHugeRangeReadsBack) {
    // Translation keys at -3e38 and 3e38: max - min overflowed float, the channel scale became
    // infinite and the IQM written with exit 0 was refused by rigport ("not finite").
    const std::string buffer = floats({0, 1}) + floats({-3e38f, 0, 0, 3e38f, 0, 0});
    const std::string gltf = R"({"asset":{"version":"2.0"},"buffers":[{"byteLength":32,"uri":")" + data_uri(buffer) +
                             R"("}],"bufferViews":[{"buffer":0,"byteLength":8},{"buffer":0,"byteOffset":8,"byteLength":24}],)"
                             R"("accessors":[{"bufferView":0,"componentType":5126,"count":2,"type":"SCALAR","min":[0],"max":[1]},)"
                             R"({"bufferView":1,"componentType":5126,"count":2,"type":"VEC3"}],"nodes":[{"name":"j"}],"scenes":[{"nodes":[0]}],)"
                             R"("animations":[{"channels":[{"sampler":0,"target":{"node":0,"path":"translation"}}],"samplers":[{"input":0,"output":1}]}]})";
    const fs::path dir = temp_dir();
    const fs::path in = write_text(dir / "huge.gltf", gltf);
    const fs::path out = dir / "huge.iqm";
    auto r = run_cli({"convert", in.string(), "-o", out.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto info = run_cli({"validate", out.string()});
    EXPECT_EQ(info.exit_code, 0) << info.out << info.err;
    auto back = load(out.string());
    ASSERT_TRUE(back) << back.error().to_string();
    ASSERT_EQ(back->animations.size(), 1u);
    for (auto& t : back->animations[0].tracks)
        for (float v : t.values) EXPECT_TRUE(std::isfinite(v));
}

TEST(BoundedWork, Cal3dDurationBeyondWhatATargetHoldsIsExit2) {
    // DURATION 4.29e9 s: 1.3e11 frames at 30 fps. Before, exit 4 ("could not write").
    const fs::path dir = temp_dir();
    const fs::path in = write_text(dir / "long.xaf", R"(<HEADER MAGIC="XAF" VERSION="919" />
<ANIMATION DURATION="4.29e9" NUMTRACKS="1">
  <TRACK BONEID="0" NUMKEYFRAMES="2">
    <KEYFRAME TIME="0"><TRANSLATION>0 0 0</TRANSLATION><ROTATION>0 0 0 1</ROTATION></KEYFRAME>
    <KEYFRAME TIME="4.29e9"><TRANSLATION>1 0 0</TRANSLATION><ROTATION>0 0 0 1</ROTATION></KEYFRAME>
  </TRACK>
</ANIMATION>
)");
    for (const char* ext : {"iqm", "iqe"}) {
        SCOPED_TRACE(ext);
        const fs::path out = dir / (std::string("long_out.") + ext);
        auto r = run_cli({"convert", in.string(), "-o", out.string()});
        EXPECT_EQ(r.exit_code, 2) << r.err;
        EXPECT_FALSE(fs::exists(out));
    }
    // glTF samples no frames: the two keys are kept as they are, and read back.
    const fs::path glb = dir / "long_out.glb";
    auto r = run_cli({"convert", in.string(), "-o", glb.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto back = load(glb.string());
    ASSERT_TRUE(back) << back.error().to_string();
    ASSERT_EQ(back->animations.size(), 1u);
    EXPECT_NEAR(back->animations[0].duration(), 4.29e9, 4.29e9 * 1e-6);
}

// Fuzz finding (fuzz_roundtrip): a few keys at large times on a 37-joint skeleton made the IQE
// and IQM writers sample ~2^20 frames of every joint (2.5 GB). 30,000 s at 30 fps is 900,001
// frames, within LoadOptions::max_frames, but x 40 joints passes SaveOptions::max_poses (2^24):
// exit 2 before any frame is sampled. glTF keeps the keys as they are and is written.
TEST(BoundedWork, FrameBasedWritersRefuseMorePosesThanTheBudget) {
    const fs::path dir = temp_dir();
    std::string xsf = "<HEADER MAGIC=\"XSF\" VERSION=\"919\"/>\n<SKELETON NUMBONES=\"40\">\n";
    for (int b = 0; b < 40; ++b)
        xsf += fmt::format("<BONE NAME=\"b{}\" ID=\"{}\" NUMCHILDS=\"{}\"><TRANSLATION>0 0 1</TRANSLATION><ROTATION>0 0 0 1</ROTATION>"
                           "<LOCALTRANSLATION>0 0 -{}</LOCALTRANSLATION><LOCALROTATION>0 0 0 1</LOCALROTATION><PARENTID>{}</PARENTID>{}</BONE>\n",
                           b, b, b < 39 ? 1 : 0, b + 1, b - 1, b < 39 ? fmt::format("<CHILDID>{}</CHILDID>", b + 1) : "");
    xsf += "</SKELETON>\n";
    const fs::path skel = write_text(dir / "long.xsf", xsf);
    const fs::path anim = write_text(dir / "long.xaf", R"(<HEADER MAGIC="XAF" VERSION="919" />
<ANIMATION DURATION="30000" NUMTRACKS="1">
  <TRACK BONEID="0" NUMKEYFRAMES="2">
    <KEYFRAME TIME="0"><TRANSLATION>0 0 0</TRANSLATION><ROTATION>0 0 0 1</ROTATION></KEYFRAME>
    <KEYFRAME TIME="30000"><TRANSLATION>1 0 0</TRANSLATION><ROTATION>0 0 0 1</ROTATION></KEYFRAME>
  </TRACK>
</ANIMATION>
)");
    for (const char* ext : {"iqm", "iqe"}) {
        SCOPED_TRACE(ext);
        const fs::path out = dir / (std::string("long_out.") + ext);
        auto r = run_cli({"convert", skel.string(), anim.string(), "-o", out.string()});
        EXPECT_EQ(r.exit_code, 2) << r.err;
        EXPECT_NE(r.err.find("900001 frames of 40 joints"), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("SaveOptions::max_poses"), std::string::npos) << r.err;
        EXPECT_FALSE(fs::exists(out));
    }
    auto r = run_cli({"convert", skel.string(), anim.string(), "-o", (dir / "long_out.glb").string()});
    EXPECT_EQ(r.exit_code, 0) << r.err;

    // The budget is an option: exactly frames x joints passes, one less is refused.
    Scene scene;
    for (int j = 0; j < 40; ++j) scene.skeleton.joints.push_back({"j" + std::to_string(j), j - 1, {}});
    Animation a;
    a.name = "ten";
    a.tracks.push_back({0, Channel::Translation, Interpolation::Linear, {0, 10}, {0, 0, 0, 1, 0, 0}});
    scene.animations.push_back(a);  // 10 s at 30 fps: 301 frames x 40 joints = 12,040 poses
    SaveOptions save;
    for (const char* format : {"iqm", "iqe"}) {
        SCOPED_TRACE(format);
        save.format = format;
        save.max_poses = 12040;
        EXPECT_TRUE(save_bytes(scene, "x", save));
        save.max_poses = 12039;
        auto refused = save_bytes(scene, "x", save);
        ASSERT_FALSE(refused);
        EXPECT_EQ(refused.error().code, ErrorCode::LimitExceeded);
    }
}

TEST(BoundedWork, Exit4OnlyWhenTheFilesystemRefuses) {
    const fs::path dir = temp_dir();
    const fs::path in = write_text(dir / "tri.iqe", "# Inter-Quake Export\nmesh m\nvp 0 0 0\nvp 1 0 0\nvp 0 1 0\nfm 0 1 2\n");
    auto r = run_cli({"convert", in.string(), "-o", (dir / "no such folder" / "tri.iqm").string()});
    EXPECT_EQ(r.exit_code, 4) << r.err;
}

// Fuzz finding (fuzz_roundtrip): a joint name holding a control byte went as-is into Cal3D XML,
// which no XML parser reads; now an input error (exit 2) and nothing is written. Binary keeps it.
TEST(BoundedWork, NamesXmlCannotHoldAreRefusedByTheCal3dXmlWriters) {
    const fs::path dir = temp_dir();
    const fs::path in = write_text(dir / "ctl.iqe", std::string("# Inter-Quake Export\njoint \"a\x01\" -1\npq 0 0 0 0 0 0 1\n"));
    for (const char* out : {"ctl.xsf", "ctl.cfg"}) {
        auto r = run_cli({"convert", in.string(), "-o", (dir / out).string()});
        EXPECT_EQ(r.exit_code, 2) << out << ": " << r.err;
        EXPECT_NE(r.err.find("0x01"), std::string::npos) << r.err;
        EXPECT_FALSE(fs::exists(dir / out));
    }
    auto r = run_cli({"convert", in.string(), "-o", (dir / "ctl.csf").string()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    auto back = load((dir / "ctl.csf").string());
    ASSERT_TRUE(back) << back.error().to_string();
    EXPECT_EQ(back->skeleton.joints.at(0).name, "a\x01");
}

// Fuzz finding (fuzz_iqe): poses without joint lines and a skinned mesh were written as an IQE
// whose vb lines named joints it did not write; tests/fuzz/regressions/fuzz_iqe holds the input.
TEST(BoundedWork, AnimationOnlySkinnedIqeWritesAnIqeThatReadsBack) {
    const fs::path dir = temp_dir();
    const fs::path in = fs::path(RIGPORT_SOURCE_DIR) / "tests/fuzz/regressions/fuzz_iqe/animation-only-skinned.iqe";
    auto r = run_cli({"convert", in.string(), "-o", (dir / "out.iqe").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto back = load((dir / "out.iqe").string());
    ASSERT_TRUE(back) << back.error().to_string();
    EXPECT_EQ(back->vertex_count(), 3u);
}

}  // namespace
}  // namespace rigport::test
