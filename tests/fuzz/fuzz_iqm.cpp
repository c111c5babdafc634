// libFuzzer target for the IQM reader (build with -DRIGPORT_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++-14
// -DRIGPORT_SANITIZE=address,undefined); successful reads are checked and written back.
#include <cstdint>
#include <cstdlib>
#include <span>

#include "rigport/io.hpp"
#include "rigport/validate.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::span<const uint8_t> bytes(data, size);
    rigport::LoadOptions options;
    options.format = "iqm";
    options.max_frames = 4096;  // keeps each run fast; the limit logic itself is tested elsewhere
    auto scene = rigport::load_bytes(bytes, "fuzz.iqm", options);
    if (!scene) return 0;
    if (!rigport::check_invariants(*scene)) std::abort();  // a reader that returns a broken scene is a bug
    (void)rigport::validate_bytes(bytes, "fuzz.iqm", options);
    auto out = rigport::save_bytes(*scene, "fuzz.iqm");
    if (out && !rigport::load_bytes(*out, "fuzz.iqm", options)) std::abort();  // must read what we write
    return 0;
}
