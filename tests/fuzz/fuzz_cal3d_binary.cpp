// libFuzzer target for the Cal3D binary readers (.csf .cmf .caf .crf .cpf; docs/fuzzing.md): see
// fuzz::cal3d_one_file in fuzz_common.hpp.
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    fuzz::cal3d_one_file(std::span<const uint8_t>(data, size), "cal3d-c");
    return 0;
}
