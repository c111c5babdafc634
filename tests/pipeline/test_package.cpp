// The library as engines and pipelines adopt it: this build installed into a temporary
// prefix, examples/embed built against the installed CMake package (find_package) and again with
// pkg-config flags alone, both run, and the joint matrix they print checked against the library's
// own sampling of the same file loaded from its path; and a project that add_subdirectory()s
// rigport gets the library without the CLI or the tests.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "rigport/rigport.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

namespace fs = std::filesystem;

struct Shell {
    int code = -1;
    std::string output;  // stdout and stderr
};

Shell shell(const std::string& command) {
    Shell r;
    FILE* p = popen((command + " 2>&1").c_str(), "r");
    if (!p) return r;
    std::array<char, 4096> chunk;
    size_t n;
    while ((n = fread(chunk.data(), 1, chunk.size(), p)) > 0) r.output.append(chunk.data(), n);
    const int status = pclose(p);
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

std::string quoted(const fs::path& p) { return "'" + p.string() + "'"; }

// The 4x4 rows the example prints after "world matrix of".
std::vector<double> printed_matrix(const std::string& output) {
    std::vector<double> values;
    const size_t at = output.find("world matrix of");
    if (at == std::string::npos) return values;
    std::istringstream in(output.substr(output.find('\n', at) + 1));
    double v;
    for (int i = 0; i < 16 && in >> v; ++i) values.push_back(v);
    return values;
}

class Package : public ::testing::Test {
protected:
    void SetUp() override {
        if (std::string(RIGPORT_SANITIZE_BUILD).size())
            GTEST_SKIP() << "a sanitizer build installs an instrumented library that plain programs cannot link; the plain build checks the package";
    }
};

TEST_F(Package, InstalledPackageBuildsAndRunsTheEmbeddingExample) {
    const fs::path dir = temp_dir();
    const fs::path prefix = dir / "prefix", assets = dir / "assets";
    fs::create_directories(assets);
    Shell install = shell("cmake --install " + quoted(RIGPORT_BINARY_DIR) + " --prefix " + quoted(prefix));
    ASSERT_EQ(install.code, 0) << install.output;
    for (const char* f : {"include/rigport/rigport.hpp", "include/rigport/version.hpp", "include/rigport/cal3d.hpp",
                          "lib/cmake/rigport/rigportConfig.cmake", "lib/pkgconfig/rigport.pc"})
        EXPECT_TRUE(fs::exists(prefix / f)) << f;
    EXPECT_FALSE(fs::exists(prefix / "include/rigport/../../src")) << "private headers are not installed";

    // The model as an engine ships it: a .gltf and its .bin, read through the example's resource reader.
    ASSERT_EQ(run_cli({"sample", "-o", (assets / "sample.gltf").string()}).exit_code, 0);
    ASSERT_TRUE(fs::exists(assets / "sample.bin"));
    const std::string args = " " + quoted(assets) + " sample.gltf wave 0.5 tip";

    const fs::path example = fs::path(RIGPORT_SOURCE_DIR) / "examples/embed";
    Shell configure = shell("cmake -S " + quoted(example) + " -B " + quoted(dir / "b") + " -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=" +
                            quoted(prefix));
    ASSERT_EQ(configure.code, 0) << configure.output;
    Shell build = shell("cmake --build " + quoted(dir / "b"));
    ASSERT_EQ(build.code, 0) << build.output;
    Shell cmake_run = shell(quoted(dir / "b/embed") + args);
    ASSERT_EQ(cmake_run.code, 0) << cmake_run.output;

    // pkg-config alone gives every flag a plain compiler command needs.
    Shell flags = shell("PKG_CONFIG_PATH=" + quoted(prefix / "lib/pkgconfig") + " pkg-config --cflags --libs rigport");
    ASSERT_EQ(flags.code, 0) << flags.output;
    flags.output.erase(flags.output.find_last_not_of(" \n") + 1);
    Shell compile = shell("c++ -std=c++20 -O1 " + quoted(example / "main.cpp") + " -o " + quoted(dir / "pc_embed") + " " + flags.output);
    ASSERT_EQ(compile.code, 0) << "pkg-config --cflags --libs rigport: " << flags.output << "\n" << compile.output;
    Shell pc_run = shell(quoted(dir / "pc_embed") + args);
    ASSERT_EQ(pc_run.code, 0) << pc_run.output;
    EXPECT_EQ(pc_run.output, cmake_run.output);
    // The static library is position-independent: it links into a shared object (a Python module,
    // an engine's plugin), which a library built without -fPIC cannot (relocation R_X86_64_32...).
    const fs::path plugin = dir / "plugin.cpp";
    {
        const std::string code = "#include <rigport/rigport.hpp>\nextern \"C\" int plugin_joints(const char* path) {\n"
                                  "    auto s = rigport::load(path);\n    return s ? int(s->skeleton.joints.size()) : -1;\n}\n";
        write_bytes(plugin, std::vector<uint8_t>(code.begin(), code.end()));
    }
    Shell shared = shell("c++ -std=c++20 -O1 -shared -fPIC " + quoted(plugin) + " -o " + quoted(dir / "plugin.so") + " " + flags.output);
    EXPECT_EQ(shared.code, 0) << "a shared object linking librigport.a:\n" << shared.output;

    // The printed matrix is the library's own, for the file loaded from its path.
    EXPECT_NE(cmake_run.output.find(std::string("rigport ") + RIGPORT_VERSION_STRING), std::string::npos) << cmake_run.output;
    auto scene = load((assets / "sample.gltf").string());
    ASSERT_TRUE(scene) << scene.error().to_string();
    const Animation* wave = nullptr;
    for (auto& a : scene->animations)
        if (a.name == "wave") wave = &a;
    ASSERT_NE(wave, nullptr);
    const auto world = world_matrices(scene->skeleton, sample_pose(scene->skeleton, *wave, 0.5f, EndMode::Loop));
    const Mat4& tip = world.back();
    ASSERT_EQ(scene->skeleton.joints.back().name, "tip");
    const std::vector<double> printed = printed_matrix(cmake_run.output);
    ASSERT_EQ(printed.size(), 16u) << cmake_run.output;
    for (int row = 0; row < 4; ++row)
        for (int col = 0; col < 4; ++col) EXPECT_NEAR(printed[size_t(row * 4 + col)], tip[col][row], 1e-5) << row << "," << col;
    // A missing side file is the reader's error through the resource reader, not a crash.
    fs::remove(assets / "sample.bin");
    Shell missing = shell(quoted(dir / "b/embed") + args);
    EXPECT_EQ(missing.code, 2) << missing.output;
    EXPECT_NE(missing.output.find("not in the pak"), std::string::npos) << missing.output;
}

TEST_F(Package, AsASubprojectOnlyTheLibraryIsBuilt) {
    const fs::path dir = temp_dir();
    const std::string project = "cmake_minimum_required(VERSION 3.25)\nproject(consumer LANGUAGES CXX)\nadd_subdirectory(" +
                                quoted(RIGPORT_SOURCE_DIR).substr(1, std::string(RIGPORT_SOURCE_DIR).size()) +
                                " rigport)\n"
                                "foreach(t rigport_cli rigport_tests rigport_alloc_tests)\n"
                                "  if(TARGET ${t})\n    message(FATAL_ERROR \"subproject built ${t}\")\n  endif()\nendforeach()\n"
                                "if(NOT TARGET rigport::rigport)\n  message(FATAL_ERROR \"no rigport::rigport\")\nendif()\n";
    fs::create_directories(dir / "consumer");
    write_bytes(dir / "consumer/CMakeLists.txt", std::vector<uint8_t>(project.begin(), project.end()));
    Shell configure = shell("cmake -S " + quoted(dir / "consumer") + " -B " + quoted(dir / "b"));
    ASSERT_EQ(configure.code, 0) << configure.output;
    EXPECT_EQ(configure.output.find("GTest"), std::string::npos) << configure.output;
}

}  // namespace
}  // namespace rigport::test
