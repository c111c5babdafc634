// Cal3D read speed on named corpus files, with the reference implementation (Debian's libcal3d
// 0.11, CalLoader) timed in the same run as the peer. Both read the same bytes from memory:
// binary files through CalLoader's buffer source; XML from the file for both (libcal3d 0.11 loads
// XML by file name only). Run: build-bench/rigport_bench --benchmark_filter=cal3d
#include <benchmark/benchmark.h>
#include <cal3d/cal3d.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "rigport/cal3d.hpp"
#include "rigport/io.hpp"

#include "bench_corpus.hpp"

namespace fs = std::filesystem;

namespace {

fs::path cal3d_file(const std::string& rel) { return rigport::bench::corpus_path("cal3d", rel.c_str()); }

void label(benchmark::State& state, const fs::path& path) {
    state.SetLabel(path.filename().string() + " (" + std::to_string(fs::file_size(path)) + " B)");
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * fs::file_size(path)));
}

enum class Kind { Skeleton, Mesh, Animation };

// One file, read from memory. Animations are read with their skeleton, as both libraries need it
// to bind tracks (the skeleton is loaded once, outside the loop).
void BM_rigport_cal3d(benchmark::State& state, const char* rel, Kind) {
    const fs::path path = cal3d_file(rel);
    if (!fs::exists(path)) return state.SkipWithError("corpus file not found");
    auto bytes = rigport::read_file(path.string());
    for (auto _ : state) {
        auto scene = rigport::load_bytes(*bytes, path.string());
        if (!scene) return state.SkipWithError(scene.error().to_string().c_str());
        benchmark::DoNotOptimize(scene);
    }
    label(state, path);
}

void BM_libcal3d(benchmark::State& state, const char* rel, Kind kind) {
    const fs::path path = cal3d_file(rel);
    if (!fs::exists(path)) return state.SkipWithError("corpus file not found");
    auto bytes = rigport::read_file(path.string());
    CalCoreSkeletonPtr skeleton;
    if (kind == Kind::Animation) {
        skeleton = CalLoader::loadCoreSkeleton(cal3d_file("upstream_binary/cally/cally.csf").string());
        if (!skeleton) return state.SkipWithError("libcal3d could not load cally.csf");
    }
    const bool xml = path.extension().string()[1] == 'x';
    for (auto _ : state) {
        bool ok = false;
        if (kind == Kind::Skeleton)
            ok = bool(xml ? CalLoader::loadCoreSkeleton(path.string()) : CalLoader::loadCoreSkeleton(bytes->data()));
        else if (kind == Kind::Mesh)
            ok = bool(xml ? CalLoader::loadCoreMesh(path.string()) : CalLoader::loadCoreMesh(bytes->data()));
        else
            ok = bool(xml ? CalLoader::loadCoreAnimation(path.string(), skeleton.get())
                          : CalLoader::loadCoreAnimation(bytes->data(), skeleton.get()));
        if (!ok) return state.SkipWithError("libcal3d could not load the file");
    }
    label(state, path);
}

// A whole character from files: skeleton, head mesh and walk, as an engine loads cally.
void BM_rigport_cal3d_character(benchmark::State& state) {
    const std::vector<std::string> paths{cal3d_file("upstream_binary/cally/cally.csf").string(),
                                         cal3d_file("upstream_binary/cally/cally_head.cmf").string(),
                                         cal3d_file("upstream_binary/cally/cally_walk.caf").string()};
    for (auto& p : paths)
        if (!fs::exists(p)) return state.SkipWithError("corpus file not found");
    for (auto _ : state) {
        auto scene = rigport::load_cal3d_character(paths);
        if (!scene) return state.SkipWithError(scene.error().to_string().c_str());
        benchmark::DoNotOptimize(scene);
    }
    state.SetLabel("cally.csf + cally_head.cmf + cally_walk.caf, from disk");
}

void BM_libcal3d_character(benchmark::State& state) {
    for (auto _ : state) {
        CalCoreModel model("cally");
        bool ok = model.loadCoreSkeleton(cal3d_file("upstream_binary/cally/cally.csf").string()) &&
                  model.loadCoreMesh(cal3d_file("upstream_binary/cally/cally_head.cmf").string()) >= 0 &&
                  model.loadCoreAnimation(cal3d_file("upstream_binary/cally/cally_walk.caf").string()) >= 0;
        if (!ok) return state.SkipWithError("libcal3d could not load cally");
        benchmark::DoNotOptimize(model);
    }
    state.SetLabel("cally.csf + cally_head.cmf + cally_walk.caf, from disk");
}

}  // namespace

#define RIGPORT_CAL3D_PAIR(id, rel, kind)                                                     \
    BENCHMARK_CAPTURE(BM_rigport_cal3d, id, rel, kind)->Unit(benchmark::kMicrosecond);      \
    BENCHMARK_CAPTURE(BM_libcal3d, id, rel, kind)->Unit(benchmark::kMicrosecond)

RIGPORT_CAL3D_PAIR(cal3d_dokurochan_csf, "upstream_binary/dokurochan/DokuroChan.csf", Kind::Skeleton);
RIGPORT_CAL3D_PAIR(cal3d_cally_head_cmf, "upstream_binary/cally/cally_head.cmf", Kind::Mesh);
RIGPORT_CAL3D_PAIR(cal3d_dokurochan_test_bone_caf, "upstream_binary/dokurochan/DokuroChan_test_bone.caf", Kind::Animation);
RIGPORT_CAL3D_PAIR(cal3d_cally_walk_caf, "upstream_binary/cally/cally_walk.caf", Kind::Animation);
RIGPORT_CAL3D_PAIR(cal3d_cally_xsf, "converted/debian0.11_v1100/cally.xsf", Kind::Skeleton);
RIGPORT_CAL3D_PAIR(cal3d_cally_head_xmf, "converted/debian0.11_v1100/cally_head.xmf", Kind::Mesh);
RIGPORT_CAL3D_PAIR(cal3d_cally_walk_xaf, "converted/debian0.11_v1100/cally_walk.xaf", Kind::Animation);
BENCHMARK(BM_rigport_cal3d_character)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_libcal3d_character)->Unit(benchmark::kMicrosecond);
