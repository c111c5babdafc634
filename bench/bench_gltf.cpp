// IQM -> GLB conversion speed on named corpus files, in memory, with assimp (Debian's libassimp:
// static mesh only, no skin or animation) doing the same conversion in the same run as the peer.
#include <assimp/Exporter.hpp>
#include <assimp/Importer.hpp>
#include <assimp/scene.h>
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>

#include "rigport/io.hpp"

#include "bench_corpus.hpp"

namespace fs = std::filesystem;

namespace {

void label(benchmark::State& state, const fs::path& path, size_t out_bytes) {
    state.SetLabel(path.filename().string() + " (" + std::to_string(fs::file_size(path)) + " B) -> GLB (" +
                   std::to_string(out_bytes) + " B)");
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * fs::file_size(path)));
}

// Read the IQM bytes and write a GLB (skin, animations, materials), both in memory.
void BM_rigport_iqm_to_glb(benchmark::State& state, const char* name) {
    fs::path path = rigport::bench::corpus_path("iqm", name);
    if (!fs::exists(path)) return state.SkipWithError("corpus file not found");
    auto bytes = rigport::read_file(path.string());
    size_t out_bytes = 0;
    for (auto _ : state) {
        auto scene = rigport::load_bytes(*bytes, path.string());
        if (!scene) return state.SkipWithError(scene.error().to_string().c_str());
        auto out = rigport::save_bytes(*scene, "out.glb");
        if (!out) return state.SkipWithError(out.error().to_string().c_str());
        out_bytes = out->size();
        benchmark::DoNotOptimize(out);
    }
    label(state, path, out_bytes);
}

void BM_assimp_iqm_to_glb(benchmark::State& state, const char* name) {
    fs::path path = rigport::bench::corpus_path("iqm", name);
    if (!fs::exists(path)) return state.SkipWithError("corpus file not found");
    auto bytes = rigport::read_file(path.string());
    size_t out_bytes = 0;
    for (auto _ : state) {
        Assimp::Importer importer;
        const aiScene* scene = importer.ReadFileFromMemory(bytes->data(), bytes->size(), 0, "iqm");
        if (!scene) return state.SkipWithError(importer.GetErrorString());
        Assimp::Exporter exporter;
        const aiExportDataBlob* blob = exporter.ExportToBlob(scene, "glb2");
        if (!blob) return state.SkipWithError(exporter.GetErrorString());
        out_bytes = blob->size;
        benchmark::DoNotOptimize(blob);
    }
    label(state, path, out_bytes);
}

}  // namespace

BENCHMARK_CAPTURE(BM_rigport_iqm_to_glb, mrfixit, "mrfixit.iqm")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_assimp_iqm_to_glb, mrfixit, "mrfixit.iqm")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_rigport_iqm_to_glb, raylib_guy, "raylib_guy.iqm")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_assimp_iqm_to_glb, raylib_guy, "raylib_guy.iqm")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_rigport_iqm_to_glb, raylib_guyanim, "raylib_guyanim.iqm")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_assimp_iqm_to_glb, raylib_guyanim, "raylib_guyanim.iqm")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_rigport_iqm_to_glb, raylib_vertex_colored_object, "raylib_vertex_colored_object.iqm")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_assimp_iqm_to_glb, raylib_vertex_colored_object, "raylib_vertex_colored_object.iqm")->Unit(benchmark::kMillisecond);
