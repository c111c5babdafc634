// libFuzzer target for the MD5 reader (docs/fuzzing.md): reads the input as an .md5mesh or
// .md5anim, checks the scene and the error's line:col, validates, writes MD5 back (the mesh and
// its .md5anim side files) and reads every file again.
#include <cstdint>
#include <span>

#include "fuzz_common.hpp"
#include "rigport/validate.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::span<const uint8_t> bytes(data, size);
    rigport::LoadOptions options = fuzz::load_options();
    options.format = "md5";
    auto scene = rigport::load_bytes(bytes, "fuzz.md5mesh", options);
    if (!scene) {
        fuzz::check_error(scene.error(), "md5");
        if (scene.error().line == 0) fuzz::fail("md5: error without line:col", &scene.error());
        return 0;
    }
    fuzz::check_scene(*scene, "md5");
    (void)rigport::validate_bytes(bytes, "fuzz.md5mesh", options);
    rigport::SaveOptions save;
    save.max_poses = 1u << 20;
    auto out = rigport::save_output(*scene, "fuzz.md5mesh", save);
    if (!out) {
        fuzz::check_error(out.error(), "writing md5");
        return 0;
    }
    fuzz::check_reads_back(out->bytes, "fuzz.md5mesh", "md5");
    for (auto& side : out->side_files) fuzz::check_reads_back(side.bytes, side.name, "md5");
    return 0;
}
