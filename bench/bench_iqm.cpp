// IQM read and write speed on named corpus files, with assimp's IQM importer (Debian's
// libassimp, static mesh only) timed in the same run as the peer. Run: build/rigport_bench
// [--benchmark_filter=...]; the corpus comes from $RIGPORT_CORPUS or ../shared/corpus.
#include <assimp/Importer.hpp>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>

#include "bench_models.hpp"
#include "rigport/io.hpp"

#include "bench_corpus.hpp"

namespace fs = std::filesystem;

namespace {

void label(benchmark::State& state, const fs::path& path) {
    state.SetLabel(path.filename().string() + " (" + std::to_string(fs::file_size(path)) + " B)");
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * fs::file_size(path)));
}

void BM_rigport_read(benchmark::State& state, const char* name) {
    fs::path path = rigport::bench::corpus_path("iqm", name);
    if (!fs::exists(path)) return state.SkipWithError("corpus file not found");
    auto bytes = rigport::read_file(path.string());
    for (auto _ : state) {
        auto scene = rigport::load_bytes(*bytes, path.string());
        benchmark::DoNotOptimize(scene);
    }
    label(state, path);
}

// assimp reads from memory too, so both sides skip the disk.
void BM_assimp_read(benchmark::State& state, const char* name) {
    fs::path path = rigport::bench::corpus_path("iqm", name);
    if (!fs::exists(path)) return state.SkipWithError("corpus file not found");
    auto bytes = rigport::read_file(path.string());
    for (auto _ : state) {
        Assimp::Importer importer;
        const aiScene* scene = importer.ReadFileFromMemory(bytes->data(), bytes->size(), 0, "iqm");
        if (!scene) return state.SkipWithError(importer.GetErrorString());
        benchmark::DoNotOptimize(scene);
    }
    label(state, path);
}

void BM_rigport_write(benchmark::State& state, const char* name) {
    fs::path path = rigport::bench::corpus_path("iqm", name);
    if (!fs::exists(path)) return state.SkipWithError("corpus file not found");
    auto scene = rigport::load(path.string());
    for (auto _ : state) {
        auto out = rigport::save_bytes(*scene, "out.iqm");
        benchmark::DoNotOptimize(out);
    }
    label(state, path);
}

// The generated grid (500,000 triangles, 100 joints, 100 frames, about 26 MB of IQM), read from
// memory: the MB/s figure of the big-file goal.
void BM_rigport_read_generated(benchmark::State& state) {
    static const std::vector<uint8_t> bytes = [] {
        auto out = rigport::save_bytes(rigport::bench::grid_scene(500, 100, 100), "grid.iqm");
        return out ? *out : std::vector<uint8_t>{};
    }();
    if (bytes.empty()) return state.SkipWithError("the generated model could not be written");
    for (auto _ : state) {
        auto scene = rigport::load_bytes(bytes, "grid.iqm");
        benchmark::DoNotOptimize(scene);
    }
    state.SetLabel("generated grid (" + std::to_string(bytes.size()) + " B)");
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes.size()));
}

}  // namespace

BENCHMARK(BM_rigport_read_generated)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_rigport_read, mrfixit, "mrfixit.iqm")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_assimp_read, mrfixit, "mrfixit.iqm")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_rigport_read, raylib_guy, "raylib_guy.iqm")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_assimp_read, raylib_guy, "raylib_guy.iqm")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_rigport_write, mrfixit, "mrfixit.iqm")->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();  // one main for every bench/*.cpp
