// libFuzzer target for the glTF 2.0 reader, .glb and .gltf (build with -DRIGPORT_FUZZ=ON
// -DCMAKE_CXX_COMPILER=clang++-14 -DRIGPORT_SANITIZE=address,undefined); every input is read both
// as a GLB and as JSON, and successful reads are checked, written as IQM and GLB and read back.
#include <cstdint>
#include <cstdlib>
#include <span>

#include "rigport/io.hpp"

namespace {

void read_as(std::span<const uint8_t> bytes, const char* name) {
    rigport::LoadOptions options;
    options.format = "gltf";
    options.max_elements = 1u << 20;  // keeps each run fast; the limit logic itself is tested elsewhere
    options.max_frames = 4096;
    auto scene = rigport::load_bytes(bytes, name, options);
    if (!scene) {
        if (scene.error().message.empty()) std::abort();  // every error says what was wrong
        return;
    }
    if (!rigport::check_invariants(*scene)) std::abort();  // a reader that returns a broken scene is a bug
    for (const char* out_name : {"fuzz-out.iqm", "fuzz-out.glb"}) {
        auto out = rigport::save_bytes(*scene, out_name);
        if (out && !rigport::load_bytes(*out, out_name)) std::abort();  // must read what we write
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::span<const uint8_t> bytes(data, size);
    read_as(bytes, "fuzz.glb");
    read_as(bytes, "fuzz.gltf");
    return 0;
}
