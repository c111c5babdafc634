// Debian's assimp (assimp-utils, installed by scripts/setup.sh) as an independent reader: the MD5,
// SMD, OBJ and FBX tests export a model with `assimp export` to OBJ and compare its vertex
// positions with rigport's.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <filesystem>
#include <string>
#include <vector>

namespace rigport::test {

// Whether `assimp` is on PATH.
bool have_assimp();
// `assimp export in obj`: success, or a failure that names the command.
::testing::AssertionResult assimp_export_obj(const std::filesystem::path& in, const std::filesystem::path& obj);
// rigport's points of a model (`ours`) and assimp's (`theirs`) are the same point set within 1e-5
// of the model's size (a non-fatal check naming the model); prints the figures as a note and
// returns the distance.
double expect_same_points_as_assimp(const std::string& name, const std::vector<std::array<double, 3>>& ours,
                                    const std::vector<std::array<double, 3>>& theirs, double size);

}  // namespace rigport::test

// Skips the current test when assimp is not installed.
#define RIGPORT_REQUIRE_ASSIMP()                                                                     \
    do {                                                                                             \
        if (!::rigport::test::have_assimp()) GTEST_SKIP() << "assimp not found: install assimp-utils (scripts/setup.sh)"; \
    } while (0)
