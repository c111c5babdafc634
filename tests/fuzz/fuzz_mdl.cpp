// libFuzzer target for the Quake 1 MDL reader (docs/fuzzing.md): reads the input as MDL (errors
// must name the byte offset), writes MDL back (every animation baked into frames) and reads it again.
#include <cstdint>
#include <span>

#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::span<const uint8_t> bytes(data, size);
    rigport::LoadOptions options = fuzz::load_options();
    options.format = "mdl";
    auto scene = rigport::load_bytes(bytes, "fuzz.mdl", options);
    if (!scene) {
        fuzz::check_error(scene.error(), "mdl");
        if (!scene.error().offset && scene.error().code == rigport::ErrorCode::Malformed)
            fuzz::fail("mdl: a Malformed error without a byte offset", &scene.error());
        return 0;
    }
    fuzz::check_scene(*scene, "mdl");
    fuzz::write_and_read_back(*scene, "mdl", "fuzz.mdl");
    return 0;
}
