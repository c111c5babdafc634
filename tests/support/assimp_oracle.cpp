// The assimp oracle (see assimp_oracle.hpp).
#include "assimp_oracle.hpp"

#include <cstdlib>
#include <iostream>

#include "test_support.hpp"

namespace rigport::test {

bool have_assimp() { return std::system("command -v assimp > /dev/null 2>&1") == 0; }

::testing::AssertionResult assimp_export_obj(const std::filesystem::path& in, const std::filesystem::path& obj) {
    const std::string cmd = "assimp export '" + in.string() + "' '" + obj.string() + "' > /dev/null 2>&1";
    if (std::system(cmd.c_str()) == 0) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << cmd;
}

double expect_same_points_as_assimp(const std::string& name, const std::vector<std::array<double, 3>>& ours,
                                    const std::vector<std::array<double, 3>>& theirs, double size) {
    const double error = point_set_distance(ours, theirs);
    EXPECT_LE(error, 1e-5 * size) << name << ": model size " << size;
    std::cout << "[ note ] " << name << ": " << ours.size() << " vertices, assimp " << theirs.size() << ", max distance " << error
              << " (model size " << size << ")\n";
    return error;
}

}  // namespace rigport::test
