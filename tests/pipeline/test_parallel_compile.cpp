// The thread pool (core/thread_pool.hpp) and the compile on several threads: an IQE -> IQM compile
// gives the same bytes on one thread and on many, with chunks small enough that every parallel
// path runs on a small model; inputs over LoadOptions::max_file_bytes are refused before reading.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <fstream>
#include <stdexcept>
#include <unistd.h>

#include <fmt/format.h>

#include "support/thread_pool.hpp"
#include "formats/iqm/iqm.hpp"
#include "rigport/compile.hpp"
#include "rigport/formats.hpp"
#include "rigport/io.hpp"
#include "test_support.hpp"

namespace rigport::test {
namespace {

// Restores the grain cap however the test ends.
struct GrainCap {
    explicit GrainCap(size_t grain) { detail::set_max_grain_for_testing(grain); }
    ~GrainCap() { detail::set_max_grain_for_testing(0); }
};

TEST(ThreadPool, EveryIndexOnceInFixedChunks) {
    for (uint32_t threads : {0u, 1u, 2u, 5u})
        for (size_t count : {size_t(0), size_t(1), size_t(7), size_t(1000), size_t(100003)})
            for (size_t grain : {size_t(1), size_t(3), size_t(4096)}) {
                std::vector<std::atomic<int>> seen(count);
                std::atomic<size_t> bad_chunks{0};
                detail::parallel_for(count, grain, threads, [&](size_t begin, size_t end) {
                    // A chunk starts at a multiple of the grain and is a whole grain, but the last.
                    if (begin % grain != 0 || end - begin != std::min(grain, count - begin)) ++bad_chunks;
                    for (size_t i = begin; i < end; ++i) ++seen[i];
                });
                EXPECT_EQ(bad_chunks.load(), 0u) << count << " " << grain << " " << threads;
                for (size_t i = 0; i < count; ++i) ASSERT_EQ(seen[i].load(), 1) << i << " of " << count;
                EXPECT_EQ(detail::chunk_count(count, grain), (count + grain - 1) / grain);
            }
}

TEST(ThreadPool, NestedCallsAndInvokeFinish) {
    std::atomic<uint64_t> total{0};
    detail::parallel_for(64, 1, 0, [&](size_t begin, size_t) {
        detail::parallel_for(1000, 10, 0, [&](size_t b, size_t e) {
            for (size_t i = b; i < e; ++i) total += begin * 1000 + i;
        });
    });
    EXPECT_EQ(total.load(), uint64_t(64000) * 63999 / 2);
    int a = 0, b = 0;
    detail::parallel_invoke(0, [&] { a = 1; }, [&] { b = 2; });
    EXPECT_EQ(a + b, 3);
}

TEST(ThreadPool, FirstExceptionReachesTheCaller) {
    for (uint32_t threads : {1u, 0u}) {
        std::atomic<int> ran{0};
        EXPECT_THROW(detail::parallel_for(100, 1, threads,
                                          [&](size_t begin, size_t) {
                                              ++ran;
                                              if (begin == 3) throw std::runtime_error("chunk 3");
                                          }),
                     std::runtime_error);
        EXPECT_GE(ran.load(), 4);
        // The pool still works afterwards.
        std::atomic<int> after{0};
        detail::parallel_for(100, 1, threads, [&](size_t, size_t) { ++after; });
        EXPECT_EQ(after.load(), 100);
    }
}

// A skinned grid of cells x cells quads bent by a chain of joints (as bench_compile.cpp's), no
// normals, plus a second mesh with smoothing groups, a smoothing angle and smoothuv, so normal
// generation splits vertices; `frames` frames (37: batches of 32 + 8 lanes).
std::string generate_iqe(int cells, int joints, int frames) {
    std::string out = "# Inter-Quake Export\n";
    for (int j = 0; j < joints; ++j) out += fmt::format("joint \"j{}\" {}\n", j, j - 1);
    for (int j = 0; j < joints; ++j) out += fmt::format("pq {} 0 0 0 0 0 -1\n", j == 0 ? 0.0 : 1.0);
    const int n = cells + 1;
    auto grid = [&](double lift, int first_group) {
        for (int y = 0; y < n; ++y)
            for (int x = 0; x < n; ++x) {
                const double fx = double(x) / cells * joints, fy = double(y) / cells;
                const int j = std::min(joints - 1, int(fx));
                out += fmt::format("vp {} {} {}\nvt {} {}\nvb {} 0.75 {} 0.25\n", fx, fy * 10,
                                   lift + 0.3 * std::sin(3 * fx + fy) * ((x + y) % 3 == 0 ? -1 : 1), double(x % 4) / 3,
                                   double(y) / cells, j, std::min(joints - 1, j + 1));
            }
        for (int y = 0; y < cells; ++y) {
            if (first_group >= 0 && y % 5 == 0) out += fmt::format("smoothgroup {}\n", first_group + y / 5);
            for (int x = 0; x < cells; ++x) {
                const int a = y * n + x, b = a + 1, c = a + n, d = c + 1;
                out += fmt::format("fm {} {} {}\nfm {} {} {}\n", a, c, b, b, c, d);
            }
        }
    };
    out += "mesh \"grid\"\nmaterial \"grid.png\"\n";
    grid(0, -1);
    out += "mesh \"shell\"\nmaterial \"shell.png\"\nsmoothangle 40\nsmoothuv 1\n";
    grid(2, 0);
    out += "animation \"bend\"\nframerate 30\nloop\n";
    for (int f = 0; f < frames; ++f) {
        out += fmt::format("frame {}\n", f);
        const double angle = 0.3 * std::sin(f * 0.4);
        for (int j = 0; j < joints; ++j)
            out += fmt::format("pq {} 0 {} 0 {} {} {}\n", j == 0 ? 0.0 : 1.0, 0.01 * f, std::sin(angle / 2) * 0.6,
                               std::sin(angle / 2) * 0.8, -std::cos(angle / 2));
    }
    return out;
}

std::vector<uint8_t> compile_to_iqm(const std::string& path, uint32_t threads) {
    CompileOptions options = compiler_options(*find_format("iqm"));
    options.threads = threads;
    auto scene = compile({CompileInput{{path}, {}}}, options);
    EXPECT_TRUE(scene) << scene.error().to_string();
    if (!scene) return {};
    SaveOptions save;
    save.threads = threads;
    auto bytes = save_bytes(*scene, "out.iqm", save);
    EXPECT_TRUE(bytes) << bytes.error().to_string();
    return bytes ? *bytes : std::vector<uint8_t>{};
}

TEST(ParallelCompile, SameBytesOnOneThreadAndOnMany) {
    const auto path = (temp_dir() / "grid.iqe").string();
    std::ofstream(path, std::ios::binary) << generate_iqe(40, 12, 37);  // 6,400 triangles
    const std::vector<uint8_t> single = compile_to_iqm(path, 1);
    ASSERT_GT(single.size(), 100000u);
    // Default chunks (on a model this small most steps stay in one chunk) ...
    EXPECT_EQ(compile_to_iqm(path, 0), single);
    // ... and chunks of a few items, so every parallel path splits, on 2 threads and on more
    // threads than cores; and uneven chunk lengths.
    for (size_t grain : {size_t(7), size_t(64)}) {
        GrainCap cap(grain);
        EXPECT_EQ(compile_to_iqm(path, 2), single) << "grain " << grain;
        EXPECT_EQ(compile_to_iqm(path, 0), single) << "grain " << grain;
        EXPECT_EQ(compile_to_iqm(path, 1), single) << "grain " << grain;
    }
}

// write() keeps no raw vertex numbers (arrays encoded as filled, adjacency keyed on the raw
// numbers before they go): the same bytes as the records from_scene() returns, serialized, on
// any thread count and chunking.
TEST(ParallelCompile, LeanWriteEqualsTheRecordsSerialized) {
    const auto path = (temp_dir() / "grid.iqe").string();
    std::ofstream(path, std::ios::binary) << generate_iqe(40, 12, 37);
    auto scene = compile({CompileInput{{path}, {}}}, compiler_options(*find_format("iqm")));
    ASSERT_TRUE(scene) << scene.error().to_string();
    for (size_t grain : {size_t(0), size_t(7)}) {
        GrainCap cap(grain);
        for (uint32_t threads : {1u, 2u}) {
            SaveOptions save;
            save.threads = threads;
            auto written = iqm::write(*scene, save);
            auto records = iqm::from_scene(*scene, save);
            ASSERT_TRUE(written && records);
            EXPECT_FALSE(records->vertexarrays.front().values.empty());
            EXPECT_EQ(*written, iqm::serialize(*records)) << "grain " << grain << ", threads " << threads;
        }
    }
}

// The CLI's --threads reaches the compile and the writer; a model big enough to split on default
// chunks (30,000 triangles, 40 frames), so 1 and 2 threads take different paths.
TEST(ParallelCompile, ConvertThreadsOptionWritesTheSameBytes) {
    const std::filesystem::path dir = files_dir();
    const auto path = (dir / "grid.iqe").string();
    std::ofstream(path, std::ios::binary) << generate_iqe(122, 12, 40);
    for (const char* t : {"1", "2", "0"}) {
        auto r = run_cli({"convert", path, "-o", (dir / fmt::format("t{}.iqm", t)).string(), "--threads", t, "-q"});
        ASSERT_EQ(r.exit_code, 0) << r.err;
    }
    const auto one = read_bytes(dir / "t1.iqm");
    EXPECT_EQ(read_bytes(dir / "t2.iqm"), one);
    EXPECT_EQ(read_bytes(dir / "t0.iqm"), one);
    EXPECT_EQ(run_cli({"convert", path, "-o", (dir / "x.iqm").string(), "--threads", "-1"}).exit_code, 1);
}

TEST(ParallelCompile, InputOverTheSizeLimitRefusedBeforeReading) {
    // A sparse file just over the default 2 GiB limit: refused from its size, nothing read.
    const auto path = (temp_dir() / "huge.iqe").string();
    {
        std::ofstream(path, std::ios::binary) << "# Inter-Quake Export\n";
    }
    ASSERT_EQ(::truncate(path.c_str(), (1ll << 31) + 1), 0);
    auto scene = compile({CompileInput{{path}, {}}}, compiler_options(*find_format("iqm")));
    ASSERT_FALSE(scene);
    EXPECT_EQ(scene.error().code, ErrorCode::LimitExceeded);
    EXPECT_NE(scene.error().message.find("file is 2147483649 bytes, the limit is 2147483648"), std::string::npos)
        << scene.error().to_string();
    EXPECT_EQ(scene.error().path, path);
    // The limit is the caller's to set.
    CompileOptions small = compiler_options(*find_format("iqm"));
    small.load.max_file_bytes = 10;
    std::ofstream(path, std::ios::binary | std::ios::trunc) << "# Inter-Quake Export\n";
    auto refused = compile({CompileInput{{path}, {}}}, small);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().code, ErrorCode::LimitExceeded);
    EXPECT_NE(refused.error().message.find("the limit is 10"), std::string::npos) << refused.error().to_string();
}

}  // namespace
}  // namespace rigport::test
