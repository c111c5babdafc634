// glTF reading speed on every corpus glTF, in process: rigport's read, its glTF -> IQM, and
// assimp (Debian's libassimp) reading the same file in the same run as the peer.
#include <assimp/Importer.hpp>
#include <assimp/scene.h>
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "rigport/io.hpp"

#include "bench_corpus.hpp"

namespace fs = std::filesystem;

namespace {

void label(benchmark::State& state, const fs::path& path, const std::string& what) {
    state.SetLabel(path.filename().string() + " (" + std::to_string(fs::file_size(path)) + " B)" + what);
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * fs::file_size(path)));
}

// The model's bytes already in memory, as assimp's importer gets them below; a .gltf's external
// .bin is read through the options' resource reader, as load(path) does.
rigport::LoadOptions options_for(const fs::path& path) {
    rigport::LoadOptions options;
    options.read_resource = rigport::resource_reader(path.string(), options.max_file_bytes);
    return options;
}

// Everything rigport reads: JSON, buffers, accessors, skeleton, animations, materials.
void BM_rigport_gltf_read(benchmark::State& state, const char* name) {
    fs::path path = rigport::bench::corpus_path("gltf", name);
    if (!fs::exists(path)) return state.SkipWithError("corpus file not found");
    auto bytes = rigport::read_file(path.string());
    const rigport::LoadOptions options = options_for(path);
    for (auto _ : state) {
        auto scene = rigport::load_bytes(*bytes, path.string(), options);
        if (!scene) return state.SkipWithError(scene.error().to_string().c_str());
        benchmark::DoNotOptimize(scene);
    }
    label(state, path, "");
}

// The read plus the IQM write (adjacency, per-frame skinned bounds), in memory; an embedded
// texture becomes a side file beside the IQM, as the CLI writes it.
void BM_rigport_gltf_to_iqm(benchmark::State& state, const char* name) {
    fs::path path = rigport::bench::corpus_path("gltf", name);
    if (!fs::exists(path)) return state.SkipWithError("corpus file not found");
    auto bytes = rigport::read_file(path.string());
    const rigport::LoadOptions options = options_for(path);
    size_t out_bytes = 0;
    for (auto _ : state) {
        auto scene = rigport::load_bytes(*bytes, path.string(), options);
        if (!scene) return state.SkipWithError(scene.error().to_string().c_str());
        auto out = rigport::save_output(*scene, "out.iqm");
        if (!out) return state.SkipWithError(out.error().to_string().c_str());
        out_bytes = out->bytes.size();
        benchmark::DoNotOptimize(out);
    }
    label(state, path, " -> IQM (" + std::to_string(out_bytes) + " B)");
}

// assimp's glTF 2 importer with no post-processing; from memory for .glb, from the file for
// .gltf (an in-memory read cannot resolve its external buffer).
void BM_assimp_gltf_read(benchmark::State& state, const char* name) {
    fs::path path = rigport::bench::corpus_path("gltf", name);
    if (!fs::exists(path)) return state.SkipWithError("corpus file not found");
    auto bytes = rigport::read_file(path.string());
    const bool glb = path.extension() == ".glb";
    for (auto _ : state) {
        Assimp::Importer importer;
        const aiScene* scene = glb ? importer.ReadFileFromMemory(bytes->data(), bytes->size(), 0, "glb")
                                   : importer.ReadFile(path.string(), 0);
        if (!scene) return state.SkipWithError(importer.GetErrorString());
        benchmark::DoNotOptimize(scene);
    }
    label(state, path, "");
}

#define RIGPORT_GLTF_READ(id, file)                                                                            \
    BENCHMARK_CAPTURE(BM_rigport_gltf_read, id, file)->Unit(benchmark::kMicrosecond);                          \
    BENCHMARK_CAPTURE(BM_assimp_gltf_read, id, file)->Unit(benchmark::kMicrosecond);                           \
    BENCHMARK_CAPTURE(BM_rigport_gltf_to_iqm, id, file)->Unit(benchmark::kMicrosecond)

}  // namespace

RIGPORT_GLTF_READ(CesiumMan, "CesiumMan.glb");
RIGPORT_GLTF_READ(greenman, "greenman.glb");
RIGPORT_GLTF_READ(RiggedFigure, "RiggedFigure.glb");
RIGPORT_GLTF_READ(RiggedSimple, "RiggedSimple.gltf");
RIGPORT_GLTF_READ(BoxAnimated, "BoxAnimated.glb");
RIGPORT_GLTF_READ(AnimatedMorphCube, "AnimatedMorphCube.glb");
RIGPORT_GLTF_READ(SimpleSkin, "SimpleSkin.gltf");
RIGPORT_GLTF_READ(SimpleMorph, "SimpleMorph.gltf");
RIGPORT_GLTF_READ(AnimatedTriangle, "AnimatedTriangle.gltf");
