// Shared test helpers: where the corpus is, reading files, running the CLI.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "rigport/scene.hpp"

namespace rigport::test {

// The corpus directory: $RIGPORT_CORPUS, else ../shared/corpus beside the source tree when it
// exists; empty when neither exists (corpus tests then GTEST_SKIP with a message).
std::filesystem::path corpus_dir();
// Files with the extension in corpus_dir()/sub, sorted; empty when absent.
std::vector<std::filesystem::path> corpus_files(const std::string& sub, const std::string& ext);
// One corpus model of every format rigport reads (IQM, IQE, Cal3D .cfg, JOE, glTF, MD5, SMD, OBJ):
// a path under corpus_dir() and the options it needs. The render and view tests take each.
const std::vector<std::vector<std::string>>& corpus_model_per_format();
// Those words as CLI arguments: paths made absolute under corpus_dir(), options ("--...") as they are.
std::vector<std::string> corpus_args(const std::vector<std::string>& words);
// The format folder of such a model ("iqm"), as a test name.
std::string corpus_format_name(const ::testing::TestParamInfo<std::vector<std::string>>& info);

// The `v` lines of an OBJ file (what `assimp export X out.obj` writes), as points.
std::vector<std::array<double, 3>> obj_vertex_positions(const std::filesystem::path& path);
// The largest distance from a point of `a` to its nearest point of `b` (exact; b is searched by x).
double farthest_point(const std::vector<std::array<double, 3>>& a, const std::vector<std::array<double, 3>>& b);
// Every mesh's vertex positions in order, as points, and the largest |coordinate| among points.
std::vector<std::array<double, 3>> mesh_positions(const rigport::Scene& scene);
double largest_coordinate(const std::vector<std::array<double, 3>>& points);
// The larger of the two: how far apart two point sets are (a symmetric Hausdorff distance).
double point_set_distance(const std::vector<std::array<double, 3>>& a, const std::vector<std::array<double, 3>>& b);

std::vector<uint8_t> read_bytes(const std::filesystem::path& path);
void write_bytes(const std::filesystem::path& path, const std::vector<uint8_t>& bytes);
// A fresh empty directory under the build's temp area, unique per test.
std::filesystem::path temp_dir();
// A fresh empty sibling of temp_dir(), for files that must survive run_cli() (which calls
// temp_dir() and so empties the calling test's directory).
std::filesystem::path files_dir();

struct RunResult {
    int exit_code = -1;
    std::string out, err;
};
// An RGB image of w x h pixels (rgb holds w * h * 3 bytes) encoded as PNG by stb.
std::vector<uint8_t> encode_png(int w, int h, const uint8_t* rgb);

// Runs the built rigport CLI with the given arguments (shell-quoted for you).
RunResult run_cli(const std::vector<std::string>& args);
// Runs another program (found on PATH) the same way.
RunResult run_program(const std::string& program, const std::vector<std::string>& args);

// Debian's reference Cal3D implementation (libcal3d12-dev, installed by scripts/setup.sh), an
// oracle for the Cal3D writers: converts in to out by their extensions; its exit status.
extern const char* const cal3d_converter;
bool have_cal3d_converter();
int run_cal3d_converter(const std::filesystem::path& in, const std::filesystem::path& out);

// True in the sanitizer build (RIGPORT_SANITIZE set). Tests whose time goes to a peer program
// (Chromium, Blender, node with three.js) run in the normal build only: the peer runs none of
// rigport's instrumented code, and the conversions they start are covered under the sanitizers by
// the tests that run rigport on the same files.
bool sanitizer_build();

}  // namespace rigport::test

#define RIGPORT_SKIP_PEER_IN_SANITIZER_BUILD()                                                         \
    do {                                                                                           \
        if (::rigport::test::sanitizer_build())                                                    \
            GTEST_SKIP() << "a peer program's test: run in the normal build, not the sanitizer build"; \
    } while (0)

// Skips the current test when the corpus is absent, with a message naming the variable.
#define RIGPORT_REQUIRE_CORPUS()                                                                 \
    do {                                                                                         \
        if (::rigport::test::corpus_dir().empty())                                               \
            GTEST_SKIP() << "corpus not found: set RIGPORT_CORPUS or put ../shared/corpus beside " \
                            "the source tree";                                                   \
    } while (0)

// Skips the current test when cal3d_converter is not installed.
#define RIGPORT_REQUIRE_CAL3D_CONVERTER()                                                                  \
    do {                                                                                                   \
        if (!::rigport::test::have_cal3d_converter())                                                      \
            GTEST_SKIP() << ::rigport::test::cal3d_converter                                               \
                         << " not found: install libcal3d12-dev (scripts/setup.sh) for this oracle";       \
    } while (0)
