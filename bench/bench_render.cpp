// `rigport render` speed (goal: a 500,000-triangle model at 1024 x 1024 in under a second):
// render() of the generated skinned grid (bench/iqe_generate.hpp, 500,000 triangles, 100 joints),
// its bind pose and a pose of its animation, plus the PNG encoding, in process.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "iqe_generate.hpp"
#include "rigport/compile.hpp"
#include "rigport/render.hpp"

namespace {

const rigport::Scene& grid() {
    static const rigport::Scene scene = [] {
        auto p = (std::filesystem::temp_directory_path() / "rigport-bench-render-grid500k.iqe").string();
        std::ofstream(p, std::ios::binary) << rigport::bench::generate_iqe(500, 100, 100);
        auto s = rigport::compile({rigport::CompileInput{{p}, {}}}, rigport::CompileOptions{});
        std::filesystem::remove(p);
        return s ? std::move(*s) : rigport::Scene{};
    }();
    return scene;
}

// The argument: -1 = the bind pose, 0 = the animation's middle.
void BM_render_1024(benchmark::State& state) {
    const rigport::Scene& scene = grid();
    if (scene.meshes.empty()) return state.SkipWithError("the generated grid did not compile");
    rigport::RenderOptions options;
    options.width = options.height = 1024;
    options.animation = int32_t(state.range(0));
    if (options.animation >= 0) options.time = scene.animations[0].duration() / 2;
    for (auto _ : state) {
        auto image = rigport::render(scene, options);
        if (!image) return state.SkipWithError(image.error().to_string().c_str());
        benchmark::DoNotOptimize(image);
    }
    state.SetLabel(fmt::format("generated grid, {} triangles, 1024x1024, 2x2 samples, {}", scene.triangle_count(),
                               options.animation < 0 ? "bind pose" : "animation pose"));
}

void BM_render_png_1024(benchmark::State& state) {
    const rigport::Scene& scene = grid();
    rigport::RenderOptions options;
    options.width = options.height = 1024;
    auto image = rigport::render(scene, options);
    if (!image) return state.SkipWithError(image.error().to_string().c_str());
    for (auto _ : state) benchmark::DoNotOptimize(rigport::encode_png(*image));
    state.SetLabel("encode_png of the 1024x1024 bind-pose picture");
}

}  // namespace

BENCHMARK(BM_render_1024)->Unit(benchmark::kMillisecond)->Arg(-1)->Arg(0);
BENCHMARK(BM_render_png_1024)->Unit(benchmark::kMillisecond);
