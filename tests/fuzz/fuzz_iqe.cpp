// libFuzzer target for the IQE reader (docs/fuzzing.md): reads the input as IQE text, checks the
// scene and the error's line:col, validates, writes IQE back and reads it again.
#include <cstdint>
#include <span>

#include "fuzz_common.hpp"
#include "rigport/validate.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::span<const uint8_t> bytes(data, size);
    rigport::LoadOptions options = fuzz::load_options();
    options.format = "iqe";
    auto scene = rigport::load_bytes(bytes, "fuzz.iqe", options);
    if (!scene) {
        fuzz::check_error(scene.error(), "iqe");
        return 0;
    }
    fuzz::check_scene(*scene, "iqe");
    (void)rigport::validate_bytes(bytes, "fuzz.iqe", options);
    fuzz::write_and_read_back(*scene, "iqe", "fuzz.iqe");
    return 0;
}
