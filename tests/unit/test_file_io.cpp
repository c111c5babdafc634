// Whole-file read and atomic write: a failed write never leaves a partial file or harms the old one.
#include <gtest/gtest.h>

#include <filesystem>

#include "rigport/io.hpp"
#include "test_support.hpp"

namespace rigport {
namespace {
namespace fs = std::filesystem;

size_t files_in(const fs::path& dir) {
    size_t n = 0;
    for ([[maybe_unused]] auto& e : fs::directory_iterator(dir)) ++n;
    return n;
}

TEST(FileIo, AtomicWriteReplacesAndLeavesNoTemporary) {
    fs::path dir = test::temp_dir();
    fs::path out = dir / "model.iqm";
    const std::vector<uint8_t> first = {1, 2, 3}, second = {9, 8, 7, 6};
    ASSERT_TRUE(write_file_atomic(out.string(), first));
    ASSERT_TRUE(write_file_atomic(out.string(), second));
    auto back = read_file(out.string());
    ASSERT_TRUE(back);
    EXPECT_EQ(*back, second);
    EXPECT_EQ(files_in(dir), 1u);  // no *.tmp-* left behind
}

TEST(FileIo, FailedWriteKeepsTheOldFile) {
    fs::path dir = test::temp_dir();
    fs::path out = dir / "model.iqm";
    test::write_bytes(out, {5, 5, 5});
    // The target is now a directory's path that cannot be replaced by a file.
    fs::path blocked = dir / "sub";
    fs::create_directories(blocked / "inside");
    auto st = write_file_atomic(blocked.string(), std::vector<uint8_t>{1});
    ASSERT_FALSE(st);
    EXPECT_EQ(st.error().code, ErrorCode::WriteFailed);
    EXPECT_EQ(st.error().path, blocked.string());
    EXPECT_TRUE(fs::is_directory(blocked / "inside"));
    // A missing directory fails before anything is created.
    EXPECT_FALSE(write_file_atomic((dir / "missing" / "x.iqm").string(), std::vector<uint8_t>{1}));
    EXPECT_EQ(test::read_bytes(out), (std::vector<uint8_t>{5, 5, 5}));
    EXPECT_EQ(files_in(dir), 2u);  // model.iqm and sub: no temporaries
}

TEST(FileIo, ReadErrorsAreTyped) {
    fs::path dir = test::temp_dir();
    auto missing = read_file((dir / "nope.iqm").string());
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().code, ErrorCode::NotFound);
    auto directory = read_file(dir.string());
    ASSERT_FALSE(directory);
    EXPECT_EQ(directory.error().code, ErrorCode::ReadFailed);
    test::write_bytes(dir / "big.bin", std::vector<uint8_t>(100, 0));
    auto big = read_file((dir / "big.bin").string(), 99);
    ASSERT_FALSE(big);
    EXPECT_EQ(big.error().code, ErrorCode::LimitExceeded);
}

TEST(FileIo, UnknownContentAndExtensionIsUnknownFormat) {
    auto scene = load_bytes(std::vector<uint8_t>{'h', 'e', 'l', 'l', 'o'}, "notes.txt");
    ASSERT_FALSE(scene);
    EXPECT_EQ(scene.error().code, ErrorCode::UnknownFormat);
    EXPECT_EQ(scene.error().path, "notes.txt");
}

TEST(FileIo, SeveralOutputFilesAreAllWrittenOrNoneIs) {
    fs::path dir = test::temp_dir();
    const fs::path main = dir / "m.gltf", bin = dir / "m.bin";
    test::write_bytes(main, {1});
    test::write_bytes(bin, {2});
    // The second side file cannot be staged: the first one must not replace m.bin either.
    Output bad{{9, 9}, {OutputFile{"m.bin", {8}}, OutputFile{"missing/x.bin", {7}}}};
    EXPECT_FALSE(write_output(main.string(), bad));
    EXPECT_EQ(test::read_bytes(main), std::vector<uint8_t>{1});
    EXPECT_EQ(test::read_bytes(bin), std::vector<uint8_t>{2});
    EXPECT_EQ(files_in(dir), 2u);  // no temporaries left

    Output good{{9, 9}, {OutputFile{"m.bin", {8}}}};
    ASSERT_TRUE(write_output(main.string(), good));
    EXPECT_EQ(test::read_bytes(main), (std::vector<uint8_t>{9, 9}));
    EXPECT_EQ(test::read_bytes(bin), std::vector<uint8_t>{8});
    EXPECT_EQ(files_in(dir), 2u);
}

}  // namespace
}  // namespace rigport
