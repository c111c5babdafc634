// libFuzzer target for the Quake 3 MD3 reader (docs/fuzzing.md, docs/md3.md): reads the input as
// MD3 (errors must name the byte offset), writes it back as MD3 with its tags kept, reads that
// again, and writes it as GLB.
#include <algorithm>
#include <cstdint>
#include <span>

#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::span<const uint8_t> bytes(data, size);
    rigport::LoadOptions options = fuzz::load_options();
    options.format = "md3";
    auto scene = rigport::load_bytes(bytes, "fuzz.md3", options);
    if (!scene) {
        fuzz::check_error(scene.error(), "md3");
        if (!scene.error().offset && scene.error().code != rigport::ErrorCode::LimitExceeded)
            fuzz::fail("md3: an error without a byte offset", &scene.error());
        return 0;
    }
    fuzz::check_scene(*scene, "md3");
    rigport::SaveOptions save;
    // The tags read (joints) written again as tags, when their names can be (one each, at most 16).
    for (const auto& joint : scene->skeleton.joints)
        if (save.md3.tags.size() < 16 && !joint.name.empty() && joint.name.find(',') == std::string::npos &&
            std::find(save.md3.tags.begin(), save.md3.tags.end(), joint.name) == save.md3.tags.end())
            save.md3.tags.push_back(joint.name);
    fuzz::write_and_read_back(*scene, "md3", "fuzz.md3", save);
    fuzz::write_and_read_back(*scene, "glb", "fuzz.glb");
    return 0;
}
