// libFuzzer target for the SMD reader (docs/fuzzing.md): reads the input as a reference SMD, an
// animation SMD or a .vta, checks the scene and the error's line:col, validates, writes SMD back
// (the reference and its animation SMD side files) and reads every file again. The same bytes also
// go through the .qc reader (FormatInfo::model_list), which takes any bytes.
#include <cstdint>
#include <span>

#include "fuzz_common.hpp"
#include "rigport/formats.hpp"
#include "rigport/validate.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::span<const uint8_t> bytes(data, size);
    (void)rigport::find_format("smd")->model_list(bytes);
    rigport::LoadOptions options = fuzz::load_options();
    options.format = "smd";
    auto scene = rigport::load_bytes(bytes, "fuzz.smd", options);
    if (!scene) {
        fuzz::check_error(scene.error(), "smd");
        if (scene.error().line == 0) fuzz::fail("smd: error without line:col", &scene.error());
        return 0;
    }
    fuzz::check_scene(*scene, "smd");
    (void)rigport::validate_bytes(bytes, "fuzz.smd", options);
    rigport::SaveOptions save;
    save.max_poses = 1u << 20;
    auto out = rigport::save_output(*scene, "fuzz.smd", save);
    if (!out) {
        fuzz::check_error(out.error(), "writing smd");
        return 0;
    }
    fuzz::check_reads_back(out->bytes, "fuzz.smd", "smd");
    for (auto& side : out->side_files) fuzz::check_reads_back(side.bytes, side.name, "smd");
    return 0;
}
