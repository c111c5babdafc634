// Steps the format tests share: a model converted by the real binary and validated, a format listed
// by `rigport formats`, and a writer's output put on disk with the files that go beside it.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "rigport/io.hpp"
#include "rigport/scene.hpp"

namespace rigport::test {

// `rigport convert inputs... -o target` exits 0 (fatal otherwise), `rigport validate target`
// exits 0, and target reads back (fatal otherwise) into `converted`. Call it inside
// ASSERT_NO_FATAL_FAILURE.
void convert_and_validate(const std::vector<std::string>& inputs, const std::string& target, Scene& converted);
// `rigport formats` names the format.
void expect_format_listed(const std::string& name);
// out's main file written to path, each side file beside it; the paths written, main file first.
std::vector<std::string> write_files(const Output& out, const std::filesystem::path& path);

}  // namespace rigport::test
