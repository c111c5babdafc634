// Where the benchmarks find corpus files: $RIGPORT_CORPUS, else ../shared/corpus beside the
// source tree (the same rule as the tests); a missing file is skipped by the benchmark itself.
#pragma once

#include <cstdlib>
#include <filesystem>

namespace rigport::bench {

inline std::filesystem::path corpus_path(const char* folder, const char* name) {
    const char* env = std::getenv("RIGPORT_CORPUS");
    const std::filesystem::path dir =
        env && *env ? std::filesystem::path(env) : std::filesystem::path(RIGPORT_SOURCE_DIR) / ".." / "shared" / "corpus";
    return dir / folder / name;
}

}  // namespace rigport::bench
