// libFuzzer target for the FBX reader (docs/fbx.md, docs/fuzzing.md): parses the input's node
// tree as binary FBX (by its magic) or ASCII, requires every error to have a message and a place
// (a byte offset in binary, line:col in ASCII), walks the tree; then reads the scene, checks it,
// and writes it as GLB, which must read back.
#include <cstdint>
#include <span>

#include "formats/fbx/fbx_document.hpp"
#include "fuzz_common.hpp"

namespace {

// Arrays hold the kind their type says; the walk touches every value (ASan sees bad views).
size_t walk(const rigport::fbx::Node& node) {
    size_t sum = node.name.size();
    for (const auto& p : node.properties) {
        if (p.is_array() && p.count > 0 && !p.data) fuzz::fail("fbx: an array without its elements");
        if (!p.is_array() && (p.count != 0 || p.data)) fuzz::fail("fbx: a value that is not an array has elements");
        for (char c : p.text) sum += uint8_t(c);
        // Every element read: ASan sees an array that claims more than its bytes.
        for (size_t k = 0; k < p.count; ++k) sum += size_t(p.integer_at(k));
    }
    for (const auto& c : node.children) sum += walk(c);
    return sum;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::span<const uint8_t> bytes(data, size);
    const bool binary = rigport::fbx::is_binary(bytes);
    auto doc = rigport::fbx::parse(bytes, fuzz::load_options());
    if (!doc) {
        fuzz::check_error(doc.error(), "fbx");
        if (binary && !doc.error().offset) fuzz::fail("fbx: binary error without an offset", &doc.error());
        if (!binary && doc.error().line == 0) fuzz::fail("fbx: ASCII error without line:col", &doc.error());
        return 0;
    }
    if (doc->binary != binary) fuzz::fail("fbx: parsed as the other kind");
    volatile size_t sink = walk(doc->root);
    (void)sink;
    rigport::LoadOptions options = fuzz::load_options();
    options.format = "fbx";
    auto scene = rigport::load_bytes(bytes, "fuzz.fbx", options);
    if (!scene) {
        fuzz::check_error(scene.error(), "fbx scene");
        return 0;
    }
    fuzz::check_scene(*scene, "fbx");
    fuzz::write_and_read_back(*scene, "glb", "fuzz-out.glb");
    return 0;
}
