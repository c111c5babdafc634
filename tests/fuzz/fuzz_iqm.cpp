// libFuzzer target for the IQM reader (docs/fuzzing.md): reads the input as IQM, checks the
// scene, runs the IQM structural validation, writes IQM back and reads it again.
#include <cstdint>
#include <span>

#include "fuzz_common.hpp"
#include "rigport/validate.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::span<const uint8_t> bytes(data, size);
    rigport::LoadOptions options = fuzz::load_options();
    options.format = "iqm";
    auto scene = rigport::load_bytes(bytes, "fuzz.iqm", options);
    (void)rigport::validate_bytes(bytes, "fuzz.iqm", options);
    if (!scene) {
        fuzz::check_error(scene.error(), "iqm");
        return 0;
    }
    fuzz::check_scene(*scene, "iqm");
    fuzz::write_and_read_back(*scene, "iqm", "fuzz.iqm");
    return 0;
}
