// libFuzzer target for the Cal3D readers, XML and binary, every file type (build with
// -DRIGPORT_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++-14 -DRIGPORT_SANITIZE=address,undefined). The
// format comes from the content, as for a file on the command line; successful reads are checked
// and written back in the same file type, in the IMVU dialect, and must read again.
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>

#include "rigport/formats.hpp"
#include "rigport/io.hpp"
#include "rigport/validate.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::span<const uint8_t> bytes(data, size);
    rigport::LoadOptions options;
    options.max_elements = 1u << 20;  // keeps each run fast; the limit logic itself is tested elsewhere
    options.max_frames = 4096;
    auto scene = rigport::load_bytes(bytes, "fuzz", options);
    if (!scene) return 0;
    const std::string& format = scene->meta.source_format;
    if (format.rfind("cal3d", 0) != 0) return 0;  // another format's magic: its own target covers it
    if (!rigport::check_invariants(*scene)) std::abort();  // a reader that returns a broken scene is a bug
    rigport::SaveOptions save;
    save.format = format;
    auto out = rigport::save_bytes(*scene, "fuzz", save);
    if (out) {
        rigport::LoadOptions again = options;
        again.format = format;
        if (!rigport::load_bytes(*out, "fuzz", again)) std::abort();  // must read what we write
    }
    return 0;
}
