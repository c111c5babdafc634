// libFuzzer target for the glTF 2.0 reader (docs/fuzzing.md): .glb and .gltf JSON (the reader
// tells them apart by the GLB magic, not by the name). Buffers and images may be data: URIs (inline) or other URIs, which go to a
// read_resource that refuses names starting with 'x' and returns a small fixed buffer for the
// rest. Successful reads are checked, written as GLB and as .gltf with the buffer embedded, and
// read back. scripts/fuzz.sh adds meshopt- and Draco-compressed seeds, so the decoders of
// docs/gltf.md §7.1 are reached from the first run.
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "fuzz_common.hpp"

namespace {

// 256 bytes that read as small floats, u8/u16/u32 indices 0..3 and unit quaternions alike.
std::vector<uint8_t> fixed_buffer() {
    std::vector<uint8_t> b(256);
    for (size_t i = 0; i < b.size(); i += 4) {
        const float f = (i / 4) % 3 == 0 ? 0.5f : (i / 4) % 3 == 1 ? 0.0f : 1.0f;
        if (i % 32 < 16) std::memcpy(&b[i], &f, 4);
        else b[i] = uint8_t((i / 4) % 4);
    }
    return b;
}

rigport::Expected<std::vector<uint8_t>> read_resource(const std::string& uri) {
    if (!uri.empty() && uri[0] == 'x') return rigport::make_error(rigport::ErrorCode::NotFound, "'" + uri + "': no such file");
    static const std::vector<uint8_t> buffer = fixed_buffer();
    return buffer;
}

void read_as(std::span<const uint8_t> bytes, const char* name) {
    rigport::LoadOptions options = fuzz::load_options();
    options.format = "gltf";
    options.read_resource = read_resource;
    auto scene = rigport::load_bytes(bytes, name, options);
    if (!scene) {
        fuzz::check_error(scene.error(), "gltf");
        return;
    }
    fuzz::check_scene(*scene, "gltf");
    fuzz::write_and_read_back(*scene, "glb", "fuzz-out.glb");
    fuzz::write_and_read_back(*scene, "gltf", "fuzz-out.gltf");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    read_as(std::span<const uint8_t>(data, size), size >= 4 && std::memcmp(data, "glTF", 4) == 0 ? "fuzz.glb" : "fuzz.gltf");
    return 0;
}
