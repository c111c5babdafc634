// libFuzzer target for the Quake 2 MD2 reader (docs/fuzzing.md): reads the input as MD2 (errors
// must name the byte offset), writes MD2 back (every animation baked into frames) and reads it again.
#include <cstdint>
#include <span>

#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::span<const uint8_t> bytes(data, size);
    rigport::LoadOptions options = fuzz::load_options();
    options.format = "md2";
    auto scene = rigport::load_bytes(bytes, "fuzz.md2", options);
    if (!scene) {
        fuzz::check_error(scene.error(), "md2");
        if (!scene.error().offset && scene.error().code == rigport::ErrorCode::Malformed)
            fuzz::fail("md2: a Malformed error without a byte offset", &scene.error());
        return 0;
    }
    fuzz::check_scene(*scene, "md2");
    fuzz::write_and_read_back(*scene, "md2", "fuzz.md2");
    return 0;
}
