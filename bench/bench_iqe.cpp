// IQE text parse speed (iqe::parse: commands to Document, no normal generation, one thread), in MB/s
// of IQE text, from memory: the generated 500,000-triangle grid and each named corpus IQE. Run:
// build/rigport_bench --benchmark_filter=iqe_text; the corpus comes from $RIGPORT_CORPUS or ../shared/corpus.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "formats/iqe/iqe.hpp"
#include "iqe_generate.hpp"
#include "rigport/io.hpp"

#include "bench_corpus.hpp"

namespace fs = std::filesystem;

namespace {

void parse_loop(benchmark::State& state, std::span<const uint8_t> bytes, const std::string& label) {
    rigport::LoadOptions options;
    options.threads = 1;  // the per-core figure; BM_iqe_parse/0 (bench_compile.cpp) times the chunks on every core
    for (auto _ : state) {
        auto doc = rigport::iqe::parse(bytes, options);
        if (!doc) return state.SkipWithError(doc.error().to_string().c_str());
        benchmark::DoNotOptimize(doc);
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes.size()));
    state.SetLabel(label + " (" + std::to_string(bytes.size()) + " B)");
}

void BM_iqe_text_parse_generated(benchmark::State& state) {
    static const std::string text = rigport::bench::generate_iqe(500, 100, 100);  // 500,000 triangles
    parse_loop(state, {reinterpret_cast<const uint8_t*>(text.data()), text.size()}, "generated grid, 100 joints, 100 frames");
}

void BM_iqe_text_parse_corpus(benchmark::State& state, const char* name) {
    fs::path path = rigport::bench::corpus_path("iqe", name);
    if (!fs::exists(path)) return state.SkipWithError("corpus file not found");
    auto bytes = rigport::read_file(path.string());
    if (!bytes) return state.SkipWithError(bytes.error().to_string().c_str());
    parse_loop(state, *bytes, path.filename().string());
}

}  // namespace

BENCHMARK(BM_iqe_text_parse_generated)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_iqe_text_parse_corpus, lgun_view, "unvanquished_lgun_view.iqe")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_iqe_text_parse_corpus, mgturret, "unvanquished_mgturret.iqe")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_iqe_text_parse_corpus, rocket, "unvanquished_rocket.iqe")->Unit(benchmark::kMicrosecond);
