// libFuzzer target for Cal3D characters (.cfg; docs/fuzzing.md). The input is split into files
// (fuzz::split_parts: the .cfg text, then "\n@file NAME\n" parts such as a .xsf skeleton and .xmf
// meshes), written to a per-process scratch folder and loaded with load_cal3d_character, which
// reads only from that folder. A character that loads is checked, written as a .cfg with its
// members (XML or binary, in a dialect the input picks) into a folder of its own, and that .cfg
// must load again.
#include <cstdint>
#include <span>

#include "fuzz_common.hpp"
#include "rigport/cal3d.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const fuzz::Scratch scratch("cfg");
    scratch.clear();
    const fuzz::fs::path in = scratch.dir() / "in";
    const fuzz::fs::path out = scratch.dir() / "out";
    fuzz::fs::create_directory(in);
    fuzz::fs::create_directory(out);
    const auto parts = fuzz::split_parts(std::span<const uint8_t>(data, size));
    if (parts.size() > 16) return 0;  // keeps each run fast
    scratch.write(in / "fuzz.cfg", parts.front().bytes);
    for (size_t i = 1; i < parts.size(); ++i)
        if (parts[i].name != "fuzz.cfg") scratch.write(in / parts[i].name, parts[i].bytes);

    const rigport::LoadOptions options = fuzz::load_options();
    auto scene = rigport::load_cal3d_character({(in / "fuzz.cfg").string()}, options);
    if (!scene) {
        fuzz::check_error(scene.error(), "cfg");
        return 0;
    }
    fuzz::check_scene(*scene, "cfg");

    rigport::SaveOptions save;
    save.format = "cal3d";
    save.cal3d.binary = size % 2 == 0;
    save.cal3d.dialect = size % 3 == 0   ? rigport::Cal3dOptions::Dialect::Imvu919
                         : size % 3 == 1 ? rigport::Cal3dOptions::Dialect::Classic1100
                                         : rigport::Cal3dOptions::Dialect::Trunk1301;
    const std::string written = (out / "w.cfg").string();
    if (auto st = rigport::save(*scene, written, save); !st) {
        fuzz::check_error(st.error(), "writing cfg");
        if (st.error().code == rigport::ErrorCode::WriteFailed) fuzz::fail("writing cfg: filesystem error", &st.error());
        return 0;
    }
    auto back = rigport::load_cal3d_character({written}, options);
    if (!back) {
        if (back.error().code != rigport::ErrorCode::LimitExceeded) fuzz::fail("written .cfg does not load again", &back.error());
        return 0;
    }
    fuzz::check_scene(*back, "cfg read back");
    return 0;
}
