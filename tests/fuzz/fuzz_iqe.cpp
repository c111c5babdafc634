// libFuzzer target for the IQE reader (docs/fuzzing.md): reads the input as IQE text, checks the
// scene and the error's line:col, validates, writes IQE back and reads it again. Each input is
// also parsed in 64-byte chunks on two threads (the parallel path big files take), which must give
// the same scene (the same IQE written from it) or the same error, word for word.
#include <cstdint>
#include <span>

#include "formats/iqe/iqe.hpp"
#include "fuzz_common.hpp"
#include "rigport/validate.hpp"

namespace {

void check_chunked_parse(std::span<const uint8_t> bytes, const rigport::Expected<rigport::Scene>& serial) {
    rigport::LoadOptions options = fuzz::load_options();
    options.format = "iqe";
    options.threads = 2;
    rigport::iqe::set_chunk_bytes_for_testing(64);
    auto chunked = rigport::load_bytes(bytes, "fuzz.iqe", options);
    rigport::iqe::set_chunk_bytes_for_testing(0);
    if (bool(serial) != bool(chunked)) fuzz::fail("iqe: the chunked parse and the serial parse disagree on success", serial ? &chunked.error() : &serial.error());
    if (!serial) {
        if (serial.error().to_string() != chunked.error().to_string()) fuzz::fail("iqe: the chunked parse gives another error", &chunked.error());
        return;
    }
    auto a = rigport::save_bytes(*serial, "a.iqe"), b = rigport::save_bytes(*chunked, "b.iqe");
    if (bool(a) != bool(b) || (a && *a != *b)) fuzz::fail("iqe: the chunked parse gives another scene");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::span<const uint8_t> bytes(data, size);
    rigport::LoadOptions options = fuzz::load_options();
    options.format = "iqe";
    auto scene = rigport::load_bytes(bytes, "fuzz.iqe", options);
    check_chunked_parse(bytes, scene);
    if (!scene) {
        fuzz::check_error(scene.error(), "iqe");
        return 0;
    }
    fuzz::check_scene(*scene, "iqe");
    (void)rigport::validate_bytes(bytes, "fuzz.iqe", options);
    fuzz::write_and_read_back(*scene, "iqe", "fuzz.iqe");
    return 0;
}
