// libFuzzer target for the OBJ reader (docs/fuzzing.md): reads the input as an .obj whose mtllib
// names are served one fixed .mtl (so the material parser is fuzzed too), checks the scene and the
// error's line:col, validates, writes OBJ + .mtl back and reads the OBJ again.
#include <cstdint>
#include <span>
#include <string>

#include "fuzz_common.hpp"
#include "rigport/validate.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::span<const uint8_t> bytes(data, size);
    rigport::LoadOptions options = fuzz::load_options();
    options.format = "obj";
    // The input is also its own material library: every mtllib reads these bytes as a .mtl.
    options.read_resource = [bytes](const std::string&) -> rigport::Expected<std::vector<uint8_t>> {
        return std::vector<uint8_t>(bytes.begin(), bytes.end());
    };
    auto scene = rigport::load_bytes(bytes, "fuzz.obj", options);
    if (!scene) {
        fuzz::check_error(scene.error(), "obj");
        if (scene.error().line == 0) fuzz::fail("obj: error without line:col", &scene.error());
        return 0;
    }
    fuzz::check_scene(*scene, "obj");
    (void)rigport::validate_bytes(bytes, "fuzz.obj", options);
    auto out = rigport::save_output(*scene, "fuzz.obj", rigport::SaveOptions{});
    if (!out) {
        fuzz::check_error(out.error(), "writing obj");
        return 0;
    }
    fuzz::check_reads_back(out->bytes, "fuzz.obj", "obj");
    return 0;
}
