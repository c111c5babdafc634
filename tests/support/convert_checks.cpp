// Steps the format tests share (see convert_checks.hpp).
#include "convert_checks.hpp"

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace rigport::test {

void convert_and_validate(const std::vector<std::string>& inputs, const std::string& target, Scene& converted) {
    std::vector<std::string> args{"convert"};
    args.insert(args.end(), inputs.begin(), inputs.end());
    args.insert(args.end(), {"-o", target});
    auto r = run_cli(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto v = run_cli({"validate", target});
    EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
    auto scene = load(target);
    ASSERT_TRUE(scene) << scene.error().to_string();
    converted = std::move(*scene);
}

void expect_format_listed(const std::string& name) {
    auto f = run_cli({"formats"});
    EXPECT_NE(f.out.find(name), std::string::npos) << f.out;
}

std::vector<std::string> write_files(const Output& out, const std::filesystem::path& path) {
    std::vector<std::string> paths{path.string()};
    write_bytes(path, out.bytes);
    for (auto& side : out.side_files) {
        write_bytes(path.parent_path() / side.name, side.bytes);
        paths.push_back((path.parent_path() / side.name).string());
    }
    return paths;
}

}  // namespace rigport::test
