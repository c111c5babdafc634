// libFuzzer target for the VDrift JOE reader (docs/fuzzing.md): reads the input as JOE (errors
// must name the byte offset), inspects its counts, validates, applies VDrift's normal fix, writes
// JOE back and reads it again. JPK packs have their own target (fuzz_jpk).
#include <cstdint>
#include <span>

#include "fuzz_common.hpp"
#include "rigport/jpk.hpp"
#include "rigport/validate.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::span<const uint8_t> bytes(data, size);
    rigport::LoadOptions options = fuzz::load_options();
    options.format = "joe";
    (void)rigport::inspect_joe(bytes);
    auto scene = rigport::load_bytes(bytes, "fuzz.joe", options);
    if (!scene) {
        fuzz::check_error(scene.error(), "joe");
        if (!scene.error().offset && scene.error().code == rigport::ErrorCode::Malformed)
            fuzz::fail("joe: a Malformed error without a byte offset", &scene.error());
        return 0;
    }
    fuzz::check_scene(*scene, "joe");
    (void)rigport::validate_bytes(bytes, "fuzz.joe", options);
    rigport::SaveOptions save;
    save.joe.force = true;
    fuzz::write_and_read_back(*scene, "joe", "fuzz.joe", save);
    rigport::fix_vdrift_normals(*scene);
    fuzz::check_scene(*scene, "joe after fix_vdrift_normals");
    return 0;
}
