// The compiler on the corpus IQEs (../shared/corpus/iqe): every file compiles to an IQM that
// validates with no errors and fully correct adjacency (reference bug 1); IQE -> IQM -> IQE -> IQM
// keeps geometry exactly and animation within one quantization step; mrfixit.iqm -> IQE -> IQM
// keeps its geometry and animation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "anim_compare.hpp"
#include "formats/iqm/iqm.hpp"
#include "rigport/anim.hpp"
#include "rigport/compile.hpp"
#include "rigport/formats.hpp"
#include "rigport/io.hpp"
#include "rigport/validate.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

// As `rigport convert` compiles for an IQM output: the reference compiler's pipeline.
Expected<Scene> compile_one(const std::string& path) { return compile({CompileInput{{path}, {}}}, compiler_options(*find_format("iqm"))); }

std::vector<uint8_t> to_iqm(const Scene& s) {
    auto bytes = save_bytes(s, "out.iqm");
    EXPECT_TRUE(bytes) << bytes.error().to_string();
    return bytes ? *bytes : std::vector<uint8_t>{};
}

// One corner as every number it carries; a triangle as its three corners in winding order.
std::vector<float> corner(const Mesh& m, uint32_t v) {
    std::vector<float> c(m.positions[v].begin(), m.positions[v].end());
    if (!m.normals.empty()) c.insert(c.end(), m.normals[v].begin(), m.normals[v].end());
    if (!m.tangents.empty()) c.insert(c.end(), m.tangents[v].begin(), m.tangents[v].end());
    for (auto& set : m.texcoords) c.insert(c.end(), set[v].begin(), set[v].end());
    for (auto& set : m.colors) c.insert(c.end(), set[v].begin(), set[v].end());
    if (!m.skin.empty())
        for (uint32_t k = 0; k < m.skin.count(v); ++k) c.insert(c.end(), {float(m.skin.begin(v)[k].joint), m.skin.begin(v)[k].weight});
    return c;
}

std::vector<std::vector<float>> canonical_triangles(const Mesh& m) {
    std::vector<std::vector<float>> out;
    for (auto& t : m.triangles) {
        std::vector<float> key;
        for (uint32_t v : t) {
            auto c = corner(m, v);
            key.push_back(float(c.size()));
            key.insert(key.end(), c.begin(), c.end());
        }
        out.push_back(std::move(key));
    }
    std::sort(out.begin(), out.end());
    return out;
}

// Geometry exactly: the same meshes with the same vertex count and the same triangles, each with
// bit-equal corners in the same winding. The order of triangles and vertices is the compiler's
// (vertex-cache optimization is not idempotent), so it is not compared.
void expect_same_geometry(const Scene& a, const Scene& b) {
    ASSERT_EQ(a.meshes.size(), b.meshes.size());
    for (size_t m = 0; m < a.meshes.size(); ++m) {
        const Mesh& x = a.meshes[m];
        const Mesh& y = b.meshes[m];
        SCOPED_TRACE("mesh " + x.name);
        EXPECT_EQ(x.name, y.name);
        EXPECT_EQ(x.vertex_count(), y.vertex_count());
        ASSERT_EQ(x.triangles.size(), y.triangles.size());
        EXPECT_TRUE(canonical_triangles(x) == canonical_triangles(y));
    }
}


TEST(IqeCompileCorpus, EveryFileCompilesValidatesAndRoundTrips) {
    RIGPORT_REQUIRE_CORPUS();
    auto files = corpus_files("iqe", ".iqe");
    ASSERT_FALSE(files.empty());
    const auto dir = temp_dir();
    for (auto& path : files) {
        SCOPED_TRACE(path.filename().string());
        auto compiled = compile_one(path.string());
        ASSERT_TRUE(compiled) << compiled.error().to_string();
        auto iqm1 = to_iqm(*compiled);

        // The compiled file validates with no errors, and its adjacency is fully correct.
        ValidationReport report = validate_bytes(iqm1, path.filename().string() + ".iqm");
        EXPECT_EQ(report.count(Severity::Error), 0u);
        for (auto& f : report.findings)
            if (f.severity == Severity::Error) ADD_FAILURE() << f.code << ": " << f.message;
        EXPECT_EQ(report.tally("adjacency", "wrong"), 0u);  // wrong neighbours and extra ones
        EXPECT_EQ(report.tally("adjacency", "missing"), 0u);

        // IQM -> IQE -> IQM: geometry exactly, animation within one quantization step.
        auto a = load_bytes(iqm1, "1.iqm");
        ASSERT_TRUE(a) << a.error().to_string();
        auto iqe = save_bytes(*a, "2.iqe");
        ASSERT_TRUE(iqe) << iqe.error().to_string();
        const auto iqe_path = dir / (path.stem().string() + ".2.iqe");
        write_bytes(iqe_path, *iqe);
        auto recompiled = compile_one(iqe_path.string());
        ASSERT_TRUE(recompiled) << recompiled.error().to_string();
        auto b = load_bytes(to_iqm(*recompiled), "3.iqm");
        ASSERT_TRUE(b) << b.error().to_string();
        expect_same_geometry(*a, *b);
        Warnings w;
        auto steps = iqm::parse(iqm1, LoadOptions{}, w);
        ASSERT_TRUE(steps);
        expect_animation_within_one_step(*steps, *a, *b);
    }
}

TEST(IqeCompileCorpus, MrFixitThroughIqeKeepsGeometryAndAnimation) {
    RIGPORT_REQUIRE_CORPUS();
    const auto source = corpus_dir() / "iqm" / "mrfixit.iqm";
    auto original = read_bytes(source);
    auto a = load_bytes(original, source.string());
    ASSERT_TRUE(a) << a.error().to_string();
    auto iqe = save_bytes(*a, "mrfixit.iqe");
    ASSERT_TRUE(iqe) << iqe.error().to_string();
    const auto iqe_path = temp_dir() / "mrfixit.iqe";
    write_bytes(iqe_path, *iqe);
    auto compiled = compile_one(iqe_path.string());
    ASSERT_TRUE(compiled) << compiled.error().to_string();
    auto b = load_bytes(to_iqm(*compiled), "back.iqm");
    ASSERT_TRUE(b) << b.error().to_string();
    expect_same_geometry(*a, *b);
    Warnings w;
    auto steps = iqm::parse(original, LoadOptions{}, w);
    ASSERT_TRUE(steps);
    expect_animation_within_one_step(*steps, *a, *b);
}

}  // namespace
}  // namespace rigport::test
