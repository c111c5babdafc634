// libFuzzer target for the Half-Life 1 studio model reader (docs/fuzzing.md, docs/hlmdl.md): reads
// the input as an IDST model (errors must name the byte offset), its side files served from the
// same bytes (the input as NAMEt.mdl, and with the magic "IDSQ" as every sequence group file), and
// writes GLB and SMD back, each read again.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::span<const uint8_t> bytes(data, size);
    rigport::LoadOptions options = fuzz::load_options();
    options.format = "hlmdl";
    options.read_resource = [bytes](const std::string& uri) -> rigport::Expected<std::vector<uint8_t>> {
        std::vector<uint8_t> side(bytes.begin(), bytes.end());
        const bool texture_file = uri.size() >= 5 && (uri.compare(uri.size() - 5, 5, "T.mdl") == 0 || uri.compare(uri.size() - 5, 5, "t.mdl") == 0);
        if (!texture_file && side.size() >= 4) side[0] = 'I', side[1] = 'D', side[2] = 'S', side[3] = 'Q';
        return side;
    };
    auto scene = rigport::load_bytes(bytes, "fuzz.mdl", options);
    if (!scene) {
        fuzz::check_error(scene.error(), "hlmdl");
        if (!scene.error().offset && scene.error().code == rigport::ErrorCode::Malformed)
            fuzz::fail("hlmdl: a Malformed error without a byte offset", &scene.error());
        return 0;
    }
    fuzz::check_scene(*scene, "hlmdl");
    fuzz::write_and_read_back(*scene, "glb", "fuzz.glb");
    fuzz::write_and_read_back(*scene, "smd", "fuzz.smd");
    return 0;
}
