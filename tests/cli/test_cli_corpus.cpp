// The CLI on the shared corpus: mrfixit's and raylib_guyanim's figures (docs/iqm.md §5, §6) (skipped without corpus).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>

#include "test_support.hpp"

namespace rigport::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

fs::path corpus_file(const std::string& name) { return corpus_dir() / "iqm" / name; }

json run_json(const std::vector<std::string>& args, int expected_exit = 0) {
    auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, expected_exit) << r.err;
    return json::parse(r.out);
}

TEST(CliCorpus, MrfixitInfo) {
    RIGPORT_REQUIRE_CORPUS();
    json j = run_json({"info", "--json", corpus_file("mrfixit.iqm").string()});
    EXPECT_EQ(j["format"], "iqm");
    EXPECT_EQ(j["version"], 2);
    EXPECT_EQ(j["meshes"].size(), 2u);
    EXPECT_EQ(j["vertices"], 1861);
    EXPECT_EQ(j["triangles"], 2988);
    EXPECT_EQ(j["joints"], 75);
    EXPECT_EQ(j["poses"], 75);
    ASSERT_EQ(j["animations"].size(), 1u);
    EXPECT_EQ(j["animations"][0]["name"], "idle");
    EXPECT_EQ(j["animations"][0]["frames"], 101);
    EXPECT_EQ(j["animations"][0]["fps"], 24.0);
}

// mrfixit.iqm as shipped was written by the reference compiler with its adjacency bug: 8,258
// entries right and 706 stored as "no neighbour", 18 of which are truly open edges.
TEST(CliCorpus, MrfixitAdjacencyIsIncomplete) {
    RIGPORT_REQUIRE_CORPUS();
    json j = run_json({"validate", "--json", corpus_file("mrfixit.iqm").string()});
    EXPECT_EQ(j["errors"], 0);
    ASSERT_TRUE(j["adjacency"].is_object());
    EXPECT_EQ(j["adjacency"]["valid"], 8258);
    EXPECT_EQ(j["adjacency"]["wrong"], 0);
    EXPECT_EQ(j["adjacency"]["missing"].get<int>() + j["adjacency"]["open"].get<int>(), 706);
    EXPECT_EQ(j["adjacency"]["open"], 18);
    bool incomplete = false;
    for (auto& f : j["findings"]) incomplete |= f["code"] == "adjacency.incomplete";
    EXPECT_TRUE(incomplete);
}

// Rewritten by rigport, the adjacency is complete and correct.
TEST(CliCorpus, MrfixitRewrittenHasCorrectAdjacency) {
    RIGPORT_REQUIRE_CORPUS();
    const fs::path out = files_dir() / "mrfixit.iqm";
    ASSERT_EQ(run_cli({"convert", corpus_file("mrfixit.iqm").string(), "-o", out.string()}).exit_code, 0);
    json j = run_json({"validate", "--json", out.string()});
    EXPECT_EQ(j["errors"], 0);
    ASSERT_TRUE(j["adjacency"].is_object());
    EXPECT_EQ(j["adjacency"]["valid"], 8946);
    EXPECT_EQ(j["adjacency"]["missing"], 0);
    EXPECT_EQ(j["adjacency"]["wrong"], 0);
    bool correct = false;
    for (auto& f : j["findings"]) correct |= f["code"] == "adjacency.correct";
    EXPECT_TRUE(correct);
}

TEST(CliCorpus, RaylibGuyanimIsAnimationOnly) {
    RIGPORT_REQUIRE_CORPUS();
    json j = run_json({"info", "--json", corpus_file("raylib_guyanim.iqm").string()});
    EXPECT_EQ(j["animation_only"], true);
    EXPECT_EQ(j["joints"], 0);
    EXPECT_EQ(j["poses"], 14);
    EXPECT_EQ(j["animations"].size(), 2u);
    EXPECT_EQ(j["vertices"], 0);
}

// Every corpus IQM: info and validate succeed, with no validation errors. Rewritten by rigport,
// validate recomputes exactly the adjacency the writer stored (both key on the stored bytes).
TEST(CliCorpus, EveryIqmHasInfoAndValidates) {
    RIGPORT_REQUIRE_CORPUS();
    const fs::path dir = files_dir();
    for (auto& path : corpus_files("iqm", ".iqm")) {
        SCOPED_TRACE(path.string());
        auto info = run_cli({"info", path.string()});
        EXPECT_EQ(info.exit_code, 0) << info.err;
        json j = run_json({"validate", "--json", path.string()});
        EXPECT_EQ(j["errors"], 0) << j.dump(2);

        const fs::path out = dir / path.filename();
        ASSERT_EQ(run_cli({"convert", path.string(), "-o", out.string()}).exit_code, 0);
        json w = run_json({"validate", "--json", out.string()});
        EXPECT_EQ(w["errors"], 0) << w.dump(2);
        if (!w["adjacency"].is_object()) continue;  // no triangles (an animation-only file)
        EXPECT_EQ(w["adjacency"]["missing"], 0);
        EXPECT_EQ(w["adjacency"]["wrong"], 0);
    }
}

}  // namespace
}  // namespace rigport::test
