// One front door: a model loaded through the library from an engine's own storage
// (LoadOptions::read_file: every file by path, side files joined to the folder that names them)
// equals the one `rigport convert` builds from the same files on disk, byte for byte after
// writing: an IQE (the compiler pipeline runs in compile()), a Cal3D .cfg and its members, a
// .gltf with an external buffer, and a member of a VDrift JPK pack.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "rigport/rigport.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

namespace fs = std::filesystem;

// The storage: every file under dir by its path relative to dir; asked-for names are recorded.
struct Pak {
    std::map<std::string, std::vector<uint8_t>> files;
    std::vector<std::string> asked;

    explicit Pak(const fs::path& dir) {
        for (auto& e : fs::recursive_directory_iterator(dir))
            if (e.is_regular_file()) files[fs::relative(e.path(), dir).generic_string()] = read_bytes(e.path());
    }
    FileReader reader() {
        return [this](const std::string& path) -> Expected<std::vector<uint8_t>> {
            asked.push_back(path);
            auto it = files.find(path);
            if (it == files.end()) return make_error(ErrorCode::NotFound, "'" + path + "' is not in the pak");
            return it->second;
        };
    }
};

class FrontDoor : public ::testing::Test {
protected:
    void SetUp() override {
        dir = temp_dir() / "assets";
        fs::create_directories(dir / "cal");
        fs::create_directories(dir / "gl");
        fs::create_directories(dir / "joe");
        auto ok = [](const std::vector<std::string>& args) { ASSERT_EQ(run_cli(args).exit_code, 0) << args[1]; };
        ok({"sample", "-o", (dir / "sample.iqm").string()});
        ok({"convert", (dir / "sample.iqm").string(), "-o", (dir / "sample.iqe").string()});
        ok({"convert", (dir / "sample.iqm").string(), "-o", (dir / "cal/sample.cfg").string()});
        ok({"sample", "-o", (dir / "gl/sample.gltf").string()});
        ok({"convert", (dir / "sample.iqm").string(), "-o", (dir / "joe/car.joe").string()});
        ok({"pack", "create", (dir / "joe").string(), "-o", (dir / "garage.jpk").string()});
    }
    fs::path dir;
};

TEST_F(FrontDoor, LibraryFromStorageEqualsTheCliByteForByte) {
    for (const std::string model : {"sample.iqe", "cal/sample.cfg", "gl/sample.gltf", "garage.jpk:car.joe"}) {
        SCOPED_TRACE(model);
        const fs::path cli_out = dir.parent_path() / "cli.iqm";
        RunResult r = run_cli({"convert", (dir / model).string(), "-o", cli_out.string()});
        ASSERT_EQ(r.exit_code, 0) << r.err;

        Pak pak(dir);
        // What convert uses for an IQM output: the compiler's pipeline, 4 influences, clip end clamped.
        CompileOptions options = compiler_options(*find_format("iqm"));
        options.load.read_file = pak.reader();
        auto scene = compile({CompileInput{{model}, {}}}, options);
        ASSERT_TRUE(scene) << scene.error().to_string();
        auto bytes = save_output(*scene, "lib.iqm");
        ASSERT_TRUE(bytes) << bytes.error().to_string();
        EXPECT_TRUE(bytes->bytes == read_bytes(cli_out)) << "the library's IQM differs from the CLI's";
        EXPECT_FALSE(pak.asked.empty());
        for (auto& asked : pak.asked) EXPECT_EQ(asked.find(dir.string()), std::string::npos) << asked << ": only names inside the pak";
    }
}

// Two .cfg files in two folders, one character: each reads its members from its own folder.
TEST_F(FrontDoor, EachCfgReadsItsMembersFromItsOwnFolder) {
    fs::create_directories(dir / "more");
    fs::copy_file(dir / "cal/sample_wave.xaf", dir / "more/moved.xaf");
    const std::string cfg = "animation=moved.xaf\n";
    write_bytes(dir / "more/more.cfg", std::vector<uint8_t>(cfg.begin(), cfg.end()));
    auto both = load_cal3d_character({(dir / "cal/sample.cfg").string(), (dir / "more/more.cfg").string()});
    ASSERT_TRUE(both) << both.error().to_string();
    EXPECT_EQ(both->animations.size(), 3u);
    RunResult r = run_cli({"info", (dir / "cal/sample.cfg").string(), (dir / "more/more.cfg").string()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST_F(FrontDoor, LoadFromStorageServesSideFilesAndRefusesNamesLeadingOut) {
    Pak pak(dir);
    LoadOptions options;
    options.read_file = pak.reader();
    // load() of a .cfg through the storage: its members come from the storage too.
    auto cfg = load("cal/sample.cfg", options);
    ASSERT_TRUE(cfg) << cfg.error().to_string();
    EXPECT_EQ(cfg->animations.size(), 2u);
    bool member = false;
    for (auto& a : pak.asked) member = member || a == "cal/sample.xsf";
    EXPECT_TRUE(member) << "the skeleton was not asked for by its joined path";
    // A .gltf whose buffer leads above its folder is refused, not asked for.
    std::string gltf(pak.files["gl/sample.gltf"].begin(), pak.files["gl/sample.gltf"].end());
    gltf.replace(gltf.find("sample.bin"), 10, "../sample.iqm");
    pak.files["gl/up.gltf"] = std::vector<uint8_t>(gltf.begin(), gltf.end());
    pak.asked.clear();
    auto up = load("gl/up.gltf", options);
    ASSERT_FALSE(up);
    EXPECT_NE(up.error().message.find("outside"), std::string::npos) << up.error().to_string();
    for (auto& a : pak.asked) EXPECT_NE(a, "sample.iqm");
    options.allow_outside = true;
    auto allowed = load("gl/up.gltf", options);
    EXPECT_FALSE(allowed) << "an IQM is no glTF buffer of the right length";
    EXPECT_EQ(pak.asked.back(), "sample.iqm") << "with allow_outside the name is asked for";
    // Missing from the storage: the reader's NotFound, naming the JSON path.
    options.allow_outside = false;
    pak.files.erase("gl/sample.bin");
    auto missing = load("gl/sample.gltf", options);
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.error().to_string().find("/buffers/0/uri"), std::string::npos) << missing.error().to_string();
}

}  // namespace
}  // namespace rigport::test
