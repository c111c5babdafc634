// IQE -> IQM compile speed on a generated model of about 500,000 triangles, 100 joints and 100
// frames (the reference `iqm` compiler needs about 30 s for this size). Reports MB/s of
// IQE text for parsing alone and for the whole compile (parse, normals, weld, cache order,
// tangents, then the IQM writer with adjacency, bounds and quantization), on 1 and 2 threads, and
// the IQM writer alone on the compiled scene.
#include <benchmark/benchmark.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include <fmt/format.h>

#include "formats/iqe/iqe.hpp"
#include "iqe_generate.hpp"
#include "rigport/compile.hpp"
#include "rigport/formats.hpp"
#include "rigport/io.hpp"

namespace {

using rigport::bench::generate_iqe;

const std::string& model_path() {
    static const std::string path = [] {
        auto p = (std::filesystem::temp_directory_path() / "rigport-bench-grid500k.iqe").string();
        std::ofstream(p, std::ios::binary) << generate_iqe(500, 100, 100);  // 500,000 triangles
        return p;
    }();
    return path;
}

// The argument is LoadOptions::threads (1 = the serial parse; 0 = chunks on every core): real time
// is the wall clock.
void BM_iqe_parse(benchmark::State& state) {
    auto bytes = rigport::read_file(model_path());
    rigport::LoadOptions options;
    options.threads = uint32_t(state.range(0));
    for (auto _ : state) {
        auto doc = rigport::iqe::parse(*bytes, options);
        if (!doc) return state.SkipWithError(doc.error().to_string().c_str());
        benchmark::DoNotOptimize(doc);
    }
    state.SetBytesProcessed(int64_t(state.iterations() * bytes->size()));
    state.SetLabel(fmt::format("generated grid, {} B of IQE, 500000 triangles, 100 joints, 100 frames, {} threads", bytes->size(),
                               options.threads == 0 ? "all" : std::to_string(options.threads)));
}

// The argument is the thread count (CompileOptions::threads, SaveOptions::threads; 0 = every
// core): real time is the wall clock, CPU time the calling thread's only.
void BM_iqe_compile_to_iqm(benchmark::State& state) {
    const auto size = std::filesystem::file_size(model_path());
    const auto threads = uint32_t(state.range(0));
    for (auto _ : state) {
        auto options = rigport::compiler_options(*rigport::find_format("iqm"));
        options.threads = threads;
        auto scene = rigport::compile({rigport::CompileInput{{model_path()}, {}}}, options);
        if (!scene) return state.SkipWithError(scene.error().to_string().c_str());
        rigport::SaveOptions save;
        save.threads = threads;
        auto out = rigport::save_bytes(*scene, "out.iqm", save);
        if (!out) return state.SkipWithError(out.error().to_string().c_str());
        benchmark::DoNotOptimize(out);
    }
    state.SetBytesProcessed(int64_t(state.iterations() * size));
    state.SetLabel(fmt::format("generated grid, {} B of IQE -> IQM, {} threads", size, threads == 0 ? "all" : std::to_string(threads)));
}

// The IQM writer alone (arrays, adjacency, animation with skinned bounds, bytes) on the compiled
// 500k-triangle scene, on 1 and 2 threads.
void BM_iqm_write_compiled(benchmark::State& state) {
    static const rigport::Scene scene = [] {
        auto compiled = rigport::compile({rigport::CompileInput{{model_path()}, {}}}, rigport::compiler_options(*rigport::find_format("iqm")));
        return compiled ? std::move(*compiled) : rigport::Scene{};
    }();
    if (scene.meshes.empty()) return state.SkipWithError("the model did not compile");
    const auto threads = uint32_t(state.range(0));
    size_t bytes = 0;
    for (auto _ : state) {
        rigport::SaveOptions save;
        save.threads = threads;
        auto out = rigport::save_bytes(scene, "out.iqm", save);
        if (!out) return state.SkipWithError(out.error().to_string().c_str());
        bytes = out->size();
        benchmark::DoNotOptimize(out);
    }
    state.SetBytesProcessed(int64_t(state.iterations() * bytes));
    state.SetLabel(fmt::format("compiled generated grid (500000 triangles) -> {} B of IQM, {} threads", bytes, threads == 0 ? "all" : std::to_string(threads)));
}

}  // namespace

BENCHMARK(BM_iqe_parse)->Unit(benchmark::kMillisecond)->UseRealTime()->Arg(1)->Arg(0);
BENCHMARK(BM_iqe_compile_to_iqm)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime()->Arg(1)->Arg(2);
BENCHMARK(BM_iqm_write_compiled)->Unit(benchmark::kMillisecond)->UseRealTime()->Arg(1)->Arg(2);
