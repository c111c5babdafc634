// libFuzzer target for the JOE reader and the JPK parser (build with -DRIGPORT_FUZZ=ON
// -DCMAKE_CXX_COMPILER=clang++-14 -DRIGPORT_SANITIZE=address,undefined); successful reads are
// checked, validated and written back, and pack members are read as JOE.
#include <cstdint>
#include <cstdlib>
#include <span>

#include "rigport/io.hpp"
#include "rigport/jpk.hpp"
#include "rigport/validate.hpp"

namespace {

void read_joe(std::span<const uint8_t> bytes) {
    rigport::LoadOptions options;
    options.format = "joe";
    options.max_elements = 1u << 20;  // keeps each run fast; the limit logic itself is tested elsewhere
    auto scene = rigport::load_bytes(bytes, "fuzz.joe", options);
    if (!scene) {
        if (!scene.error().offset && scene.error().code == rigport::ErrorCode::Malformed) std::abort();  // errors name the offset
        return;
    }
    if (!rigport::check_invariants(*scene)) std::abort();  // a reader that returns a broken scene is a bug
    (void)rigport::validate_bytes(bytes, "fuzz.joe", options);
    rigport::SaveOptions save;
    save.joe.force = true;
    auto out = rigport::save_bytes(*scene, "fuzz.joe", save);
    if (out && !rigport::load_bytes(*out, "fuzz.joe", options)) std::abort();  // must read what we write
    (void)rigport::save_bytes(*scene, "fuzz.glb");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::span<const uint8_t> bytes(data, size);
    if (rigport::detect_jpk(bytes)) {
        auto pack = rigport::parse_jpk(bytes);
        if (!pack) return 0;
        for (auto& e : pack->entries) {
            if (e.offset + e.length > size) std::abort();  // parse_jpk promised the range
            read_joe(rigport::jpk_member_bytes(bytes, e));
        }
        return 0;
    }
    read_joe(bytes);
    return 0;
}
