// Outputs stay byte-identical: every writable format is produced from the built-in sample, a
// generated model and corpus files through the CLI, and each output folder's digest is compared
// with tests/golden/output_digests.txt, written by the code before the speed work recorded in docs/speed.md.
// A deliberate output change regenerates the table: RIGPORT_UPDATE_DIGESTS=1 ./rigport_tests
// --gtest_filter='OutputDigests.*' (then review the diff of the table in the commit).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace rigport::test;

namespace {

// One output per writable format; a .cfg, .gltf, .md5mesh or .obj output writes side files too.
const std::vector<std::string> output_names = {"out.iqm", "out.iqe", "out.glb",  "out.gltf", "out.cfg",
                                               "out.md5mesh", "out.smd", "out.obj", "out.joe"};

fs::path golden_path() { return fs::path(RIGPORT_SOURCE_DIR) / "tests" / "golden" / "output_digests.txt"; }

// FNV-1a, 64-bit: stable across machines and runs (std::hash is not).
struct Fnv {
    uint64_t h = 1469598103934665603ull;
    void add(const void* data, size_t n) {
        auto* p = static_cast<const uint8_t*>(data);
        for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
    }
    void add(const std::string& s) { add(s.data(), s.size() + 1); }
};

// The exit code and the digest of every file the command left in folder (names and bytes, sorted
// by name): "exit 0 1f2e...".
std::string convert_digest(const std::vector<std::string>& inputs, const fs::path& folder, const std::string& output) {
    fs::create_directories(folder);
    std::vector<std::string> args = {"convert"};
    args.insert(args.end(), inputs.begin(), inputs.end());
    args.push_back("-o");
    args.push_back((folder / output).string());
    args.push_back("-q");
    const RunResult r = run_cli(args);
    std::vector<fs::path> files;
    for (auto& e : fs::directory_iterator(folder)) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    Fnv fnv;
    for (auto& f : files) {
        fnv.add(f.filename().string());
        const auto bytes = read_bytes(f);
        fnv.add(bytes.data(), bytes.size());
    }
    return fmt::format("exit {} {:016x} files {}", r.exit_code, fnv.h, files.size());
}

std::map<std::string, std::string> read_golden() {
    std::map<std::string, std::string> rows;
    std::ifstream in(golden_path());
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        const size_t bar = line.find(" | ");
        if (bar != std::string::npos) rows[line.substr(0, bar)] = line.substr(bar + 3);
    }
    return rows;
}

// Compares (or, with RIGPORT_UPDATE_DIGESTS=1, records) the digest of every output of each model.
// Every model must reach IQM and GLB (so a moved input cannot pass as a recorded failure).
void check_models(const fs::path& work, const std::vector<std::pair<std::string, std::vector<std::string>>>& models) {
    const bool update = std::getenv("RIGPORT_UPDATE_DIGESTS") != nullptr;
    auto golden = read_golden();
    int n = 0;
    for (auto& [name, inputs] : models) {
        for (auto& output : output_names) {
            const std::string key = fmt::format("{} -> {}", name, fs::path(output).extension().string());
            const std::string got = convert_digest(inputs, work / std::to_string(n++), output);
            if (output == "out.iqm" || output == "out.glb") {
                EXPECT_EQ(got.rfind("exit 0 ", 0), 0u) << key << ": " << got;
            }
            if (update) {
                golden[key] = got;
                continue;
            }
            auto it = golden.find(key);
            if (it == golden.end()) {
                ADD_FAILURE() << key << ": no digest in " << golden_path() << " (RIGPORT_UPDATE_DIGESTS=1 records it)";
                continue;
            }
            EXPECT_EQ(got, it->second) << key << ": the output bytes changed";
        }
    }
    if (update) {
        std::ofstream out(golden_path(), std::ios::binary);
        out << "# model -> output format | exit code, FNV-1a 64 of the output folder (names + bytes), file count\n"
               "# written by tests/pipeline/test_output_digests.cpp with RIGPORT_UPDATE_DIGESTS=1\n";
        for (auto& [key, value] : golden) out << key << " | " << value << "\n";
    }
}

// A skinned grid of cells x cells quads with joints along X and frames of a wave: no normals, so
// the compile smooths them; big enough that per-frame and per-mesh steps have real work.
std::string generated_iqe(int cells, int joints, int frames) {
    std::ostringstream s;
    s << "# Inter-Quake Export\n";
    for (int j = 0; j < joints; ++j)
        s << fmt::format("joint \"j{}\" {}\npq {} 0 0 0 0 0 1\n", j, j - 1, j == 0 ? 0.0 : 1.0);
    s << "mesh \"grid\"\nmaterial \"grid.png\"\n";
    for (int y = 0; y <= cells; ++y)
        for (int x = 0; x <= cells; ++x) {
            const float fx = float(x) / cells * float(joints), fy = float(y) / cells;
            const int j0 = std::min(joints - 1, int(fx)), j1 = std::min(joints - 1, j0 + 1);
            const float w1 = fx - float(int(fx));
            s << fmt::format("vp {} {} {}\nvt {} {}\nvb {} {} {} {}\n", fx, fy, 0.1f * std::sin(fx + fy),
                             float(x) / cells, float(y) / cells, j0, 1.0f - w1, j1, w1);
        }
    for (int y = 0; y < cells; ++y)
        for (int x = 0; x < cells; ++x) {
            const int a = y * (cells + 1) + x, b = a + 1, c = a + cells + 1, d = c + 1;
            s << fmt::format("fm {} {} {}\nfm {} {} {}\n", a, c, b, b, c, d);
        }
    s << "animation \"wave\"\nframerate 30\n";
    for (int f = 0; f < frames; ++f) {
        s << "frame\n";
        for (int j = 0; j < joints; ++j) {
            const float half = 0.2f * std::sin(0.3f * float(f + j));  // half the bend about Z
            s << fmt::format("pq {} 0 0 0 0 {} {}\n", j == 0 ? 0.0f : 1.0f, std::sin(half), std::cos(half));
        }
    }
    return s.str();
}

}  // namespace

TEST(OutputDigests, BuiltInSampleAndGeneratedModel) {
    const fs::path work = files_dir(), in = work / "inputs";
    fs::create_directories(in);
    ASSERT_EQ(run_cli({"sample", "-o", (in / "sample.iqm").string()}).exit_code, 0);
    ASSERT_EQ(run_cli({"sample", "-o", (in / "sample.glb").string()}).exit_code, 0);
    std::ofstream(in / "grid.iqe", std::ios::binary) << generated_iqe(120, 12, 40);  // 28,800 triangles
    check_models(work, {{"sample.iqm", {(in / "sample.iqm").string()}},
                  {"sample.glb", {(in / "sample.glb").string()}},
                  {"generated grid.iqe", {(in / "grid.iqe").string()}}});
}

TEST(OutputDigests, CorpusModels) {
    RIGPORT_REQUIRE_CORPUS();
    const fs::path c = corpus_dir();
    auto p = [&](const char* rel) { return (c / rel).string(); };
    check_models(files_dir(), {
        {"iqm/mrfixit.iqm", {p("iqm/mrfixit.iqm")}},
        {"iqm/raylib_guyanim.iqm", {p("iqm/raylib_guyanim.iqm")}},
        {"iqe/unvanquished_mgturret.iqe", {p("iqe/unvanquished_mgturret.iqe")}},
        {"gltf/CesiumMan.glb", {p("gltf/CesiumMan.glb")}},
        {"gltf/greenman.glb", {p("gltf/greenman.glb")}},
        {"gltf/AnimatedMorphCube.glb", {p("gltf/AnimatedMorphCube.glb")}},
        {"cal3d/cally csf+cmf+caf", {p("cal3d/upstream_binary/cally/cally.csf"), p("cal3d/upstream_binary/cally/cally_head.cmf"),
                                     p("cal3d/upstream_binary/cally/cally_walk.caf")}},
        {"cal3d/base xsf+xmf+xaf", {p("cal3d/upstream_tests/base.xsf"), p("cal3d/upstream_tests/base.xmf"),
                                    p("cal3d/upstream_tests/base.xaf")}},
        {"joe/cars_360_body.joe", {p("joe/vdrift-data-short__cars_360_body.joe")}},
        {"md5/BoarMan.md5mesh", {p("md5/assimp_assimp__BoarMan.md5mesh")}},
        {"md5/rifle_view + fire", {p("md5/UnvanquishedAssets_res-weapons_src.dpkdir__rifle_view.md5mesh"),
                                   p("md5/UnvanquishedAssets_res-weapons_src.dpkdir__rifle_view_fire.md5anim")}},
        {"smd/WusonSMD.smd", {p("smd/assimp_assimp__WusonSMD.smd")}},
        {"obj/regr01.obj", {p("obj/assimp_assimp__regr01.obj")}},
    });
}
