// Cal3D mesh and material writers on the corpus: every CMF XMF CRF XRF read -> written in each dialect
// and encoding -> read back gives the same scene (what the dialect holds); binaries written in their
// own family are byte-identical where the scene holds everything (docs/cal3d.md §2.3, §2.4, §9).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <filesystem>

#include "formats/cal3d/cal3d_write.hpp"
#include "formats/cal3d/test_cal3d_write_mesh_compare.hpp"
#include "rigport/io.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

namespace fs = std::filesystem;
using cal3d::Dialect;
using cal3d::Family;
using namespace cal3d_mesh;

constexpr Dialect dialects[] = {Dialect::Imvu919, Dialect::Classic1100, Dialect::Trunk1301};

std::vector<fs::path> mesh_and_material_files() {
    std::vector<fs::path> out;
    const fs::path root = corpus_dir() / "cal3d";
    if (!fs::exists(root)) return out;
    for (auto& e : fs::recursive_directory_iterator(root)) {
        if (!e.is_regular_file()) continue;
        std::string ext = e.path().extension().string();
        std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
        if (ext == ".cmf" || ext == ".xmf" || ext == ".crf" || ext == ".xrf") out.push_back(e.path());
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::string rel(const fs::path& p) { return fs::relative(p, corpus_dir() / "cal3d").string(); }
bool is_mesh(const fs::path& p) { return p.extension() == ".cmf" || p.extension() == ".xmf"; }

SaveOptions options_for(Dialect d) {
    SaveOptions o;
    o.cal3d.dialect = d;
    return o;
}

// Every file, every dialect, both encodings, through the registry writers: read back by our reader
// (never rejected), the same meshes / material as far as the dialect holds them, floats bit for bit
// (IMVU morphs within the absolute-position rounding of expect_delta).
TEST(Cal3dWriteMeshCorpus, RoundTripEveryDialectAndEncoding) {
    RIGPORT_REQUIRE_CORPUS();
    const auto files = mesh_and_material_files();
    ASSERT_GE(files.size(), 30u);
    size_t round_trips = 0;
    for (auto& path : files) {
        SCOPED_TRACE(rel(path));
        auto src = load(path.string());
        ASSERT_TRUE(src) << src.error().to_string();
        for (Dialect d : dialects)
            for (bool binary : {true, false}) {
                SCOPED_TRACE(std::string(dialect_label(d)) + (binary ? " binary" : " xml"));
                const std::string out = std::string("out.") + (binary ? "c" : "x") + (is_mesh(path) ? "mf" : "rf");
                auto bytes = save_bytes(*src, out, options_for(d));
                ASSERT_TRUE(bytes) << bytes.error().to_string();
                auto back = load_bytes(*bytes, out);
                ASSERT_TRUE(back) << back.error().to_string();
                ++round_trips;
                if (is_mesh(path)) {
                    Expect e;
                    e.colors = d == Dialect::Imvu919 || (d == Dialect::Trunk1301 && !binary);
                    e.morphs = d != Dialect::Classic1100;
                    e.absolute = d == Dialect::Imvu919;
                    expect_same_meshes(*src, *back, e);
                } else {
                    ASSERT_EQ(back->materials.size(), 1u);
                    expect_same_material(src->materials[0], back->materials[0], d != Dialect::Classic1100);
                }
            }
    }
    EXPECT_EQ(round_trips, files.size() * 6);
}

// ---- byte identity -----------------------------------------------------------------------------

Dialect own_dialect(int32_t version) {
    const Family f = cal3d::family_of(version);
    return f == Family::Imvu ? Dialect::Imvu919 : f == Family::Trunk ? Dialect::Trunk1301 : Dialect::Classic1100;
}

// Differing 4-byte words (whole file when the sizes differ).
size_t differing_words(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
    if (a.size() != b.size()) return std::max(a.size(), b.size()) / 4;
    size_t words = 0;
    for (size_t i = 0; i + 4 <= a.size(); i += 4) words += std::memcmp(&a[i], &b[i], 4) != 0;
    return words;
}

// Every corpus binary written in its own family's dialect (699-1100 classic files as 1100, whose
// layout is the same, compared with the version patched back). The table says which are
// byte-identical (0) and why the others are not.
TEST(Cal3dWriteMeshCorpus, BinariesInTheirOwnVersion) {
    RIGPORT_REQUIRE_CORPUS();
    struct Expect {
        const char* path;
        size_t max_words;  // differing 4-byte words allowed (0: byte-identical)
        bool same_size;
        const char* why;   // when not identical
    };
    const Expect expected[] = {
        {"upstream_binary/cally/cally_chest.cmf", 0, true, ""},
        {"upstream_binary/cally/cally_head.cmf", 0, true, ""},
        {"upstream_binary/cally/cally_ponytail.cmf", 0, true, ""},
        {"upstream_binary/paladin/paladin_cape.cmf", 0, true, ""},
        {"upstream_binary/paladin/paladin_loincloth.cmf", 0, true, ""},
        {"converted/mp3butcher_v1301_binary/cally_head.cmf", 0, true, ""},
        {"converted/imvu_fork_v919_binary/cally_head.cmf", 0, true, ""},
        {"converted/mp3butcher_v1301_binary/cally_skin.crf", 0, true, ""},
        {"imvu_authored/binary_written_by_imvu_fork/imvu_test_material1.crf", 0, true, ""},
        // Blend vertex UVs: IM wrote each blend vertex's own UVs, which a scene does not hold; we
        // write the base vertex's. Absolute positions and normals come back bit for bit.
        {"imvu_authored/binary_written_by_imvu_fork/imvu_test_mesh1_morph.cmf", 30, true, "morph UVs (the blend vertices' own, not held by the scene)"},
        // Its one blend vertex lies ~5,800 units from its base: base + (POSITION - base) rounds.
        {"imvu_authored/binary_written_by_imvu_fork/imvu_test_mesh_empty_morph.cmf", 5, true, "morph UVs; absolute position far from base rounds"},
        {"upstream_binary/dokurochan/DokuroChan_mesh.014_v1300.cmf", 49, true, "COLLAPSEID 0 / COLLAPSECOUNT 0 read as no LOD (§4.6), written -1 / 0"},
        // + 44 bytes: the 44 morph names get their NUL (§2); the (0,1) placeholder morph UVs are
        // written as the base UVs; LOD 0 / 0 as above.
        {"upstream_binary/dokurochan/DokuroChan_mesh.001_morphs_v1300.cmf", SIZE_MAX, false, "LOD 0/0; morph names gain their NUL; placeholder morph UVs"},
    };
    for (auto& e : expected) {
        SCOPED_TRACE(e.path);
        const fs::path path = corpus_dir() / "cal3d" / e.path;
        const auto original = read_bytes(path);
        ASSERT_GE(original.size(), 8u);
        int32_t version;
        std::memcpy(&version, &original[4], 4);
        auto src = load(path.string());
        ASSERT_TRUE(src) << src.error().to_string();
        auto bytes = save_bytes(*src, path.filename().string(), options_for(own_dialect(version)));
        ASSERT_TRUE(bytes) << bytes.error().to_string();
        std::memcpy(bytes->data() + 4, &version, 4);
        const size_t words = differing_words(original, *bytes);
        EXPECT_EQ(original.size() == bytes->size(), e.same_size) << original.size() << " vs " << bytes->size();
        if (e.same_size) {
            EXPECT_LE(words, e.max_words);
        }
        if (e.max_words == 0) {
            EXPECT_EQ(original, *bytes);
        } else {
            EXPECT_NE(original, *bytes) << "now identical: update the table";
        }
        std::printf("[ bytes    ] %-70s %8zu B -> %8zu B, %zu differing words %s\n", e.path, original.size(), bytes->size(), words, e.why);
    }
}

}  // namespace
}  // namespace rigport::test
