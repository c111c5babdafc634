// VDrift JOE read speed: the corpus cars and track objects, and a generated 125,000-face JOE, all
// from memory. Run: build/rigport_bench --benchmark_filter=joe; the corpus comes from
// $RIGPORT_CORPUS or ../shared/corpus.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>

#include "bench_models.hpp"
#include "rigport/io.hpp"

#include "bench_corpus.hpp"

namespace fs = std::filesystem;

namespace {

void read_loop(benchmark::State& state, const std::vector<uint8_t>& bytes, const std::string& name) {
    for (auto _ : state) {
        auto scene = rigport::load_bytes(bytes, name);
        if (!scene) return state.SkipWithError(scene.error().to_string().c_str());
        benchmark::DoNotOptimize(scene);
    }
    state.SetLabel(name + " (" + std::to_string(bytes.size()) + " B)");
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes.size()));
}

void BM_rigport_joe_read(benchmark::State& state, const char* name) {
    fs::path path = rigport::bench::corpus_path("joe", name);
    if (!fs::exists(path)) return state.SkipWithError("corpus file not found");
    auto bytes = rigport::read_file(path.string());
    read_loop(state, *bytes, path.filename().string());
}

// A 250 x 250 grid: 63,001 vertices, 125,000 faces, 3.5 MB (beyond VDrift's 32,000 faces, so
// written with force).
void BM_rigport_joe_read_generated(benchmark::State& state) {
    static const std::vector<uint8_t> bytes = [] {
        rigport::SaveOptions options;
        options.joe.force = true;
        auto out = rigport::save_bytes(rigport::bench::grid_scene(250, 0, 0), "grid.joe", options);
        return out ? *out : std::vector<uint8_t>{};
    }();
    if (bytes.empty()) return state.SkipWithError("the generated model could not be written");
    read_loop(state, bytes, "grid.joe");
}

}  // namespace

BENCHMARK(BM_rigport_joe_read_generated)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_rigport_joe_read, 360_body, "vdrift-data-short__cars_360_body.joe")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_rigport_joe_read, CO_body, "vdrift-data-short__cars_CO_body.joe")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_rigport_joe_read, EF_body, "vdrift-data-short__cars_EF_body.joe")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_rigport_joe_read, EF_glass, "vdrift-data-short__cars_EF_glass.joe")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_rigport_joe_read, XS_body, "vdrift-data-short__cars_XS_body.joe")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_rigport_joe_read, DCH_acc, "vdrift-data-short__cars_DCH_acc.joe")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_rigport_joe_read, roadtest, "trackeditor__tracks_test1_roadtest.joe")->Unit(benchmark::kMicrosecond);
