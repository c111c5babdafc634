// IQM adjacency keyed on what the file stores (docs/iqm.md §1.6): corners whose weights differ
// in the scene (6e-8 against 0) but are stored as the same byte are one endpoint, for the writer
// and for `rigport validate` alike.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstring>
#include <filesystem>

#include "formats/iqm/iqm_builder.hpp"
#include "rigport/process.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Two triangles sharing the edge (1,0,0)-(0,1,0) through separate vertices; the second
// triangle's copy of (1,0,0) has a weight of 6e-8 on joint 1, which IQM's ubyte weights store
// as 0, like the first triangle's.
constexpr const char* tiny_weight_seam = R"(# Inter-Quake Export
joint root -1
joint second 0
pq 0 0 0 0 0 0 -1
pq 0 0 0 0 0 0 -1
mesh m
vp 0 0 0
vb 0 1
vp 1 0 0
vb 0 1
vp 0 1 0
vb 0 1
vp 1 0 0
vb 0 1 1 6e-8
vp 1 1 0
vb 0 1
vp 0 1 0
vb 0 1
fm 0 1 2
fm 5 3 4
)";

TEST(IqmStoredAdjacency, TinyWeightStoredAsZeroStillLinksTheEdge) {
    const fs::path dir = files_dir(), iqe = dir / "x.iqe", iqm = dir / "x.iqm";
    write_bytes(iqe, std::vector<uint8_t>(tiny_weight_seam, tiny_weight_seam + std::strlen(tiny_weight_seam)));
    RunResult c = run_cli({"convert", iqe.string(), "-o", iqm.string()});
    ASSERT_EQ(c.exit_code, 0) << c.err;

    // The writer links the two triangles across the shared edge (once each way).
    const std::vector<uint8_t> b = read_bytes(iqm);
    ASSERT_EQ(get_u32(b, H_NUM_TRIANGLES), 2u);
    const uint32_t adj = get_u32(b, H_OFS_ADJACENCY);
    ASSERT_NE(adj, 0u);
    int to_other = 0;
    for (uint32_t t = 0; t < 2; ++t)
        for (uint32_t k = 0; k < 3; ++k) {
            const uint32_t n = get_u32(b, adj + 12 * t + 4 * k);
            if (n == no_neighbor) continue;
            EXPECT_EQ(n, 1 - t);
            ++to_other;
        }
    EXPECT_EQ(to_other, 2);

    // validate recomputes the same adjacency from the stored bytes: no adjacency finding but
    // adjacency.correct.
    RunResult v = run_cli({"validate", "--json", iqm.string()});
    ASSERT_EQ(v.exit_code, 0) << v.err;
    const json j = json::parse(v.out);
    EXPECT_EQ(j["adjacency"]["valid"], 2);
    EXPECT_EQ(j["adjacency"]["missing"], 0);
    EXPECT_EQ(j["adjacency"]["wrong"], 0);
    for (auto& f : j["findings"])
        if (f["code"].get<std::string>().rfind("adjacency.", 0) == 0) EXPECT_EQ(f["code"], "adjacency.correct");
}

}  // namespace
}  // namespace rigport::test
