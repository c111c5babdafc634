// libFuzzer target for every writer (docs/fuzzing.md): the input is read as any format (content
// first, then as .gltf JSON; side files refused), and the scene is written as every format that
// writes one file (IQM, IQE, GLB, .gltf with the buffer embedded, the ten Cal3D file types in a
// dialect the input picks, JOE, FBX). A writer may refuse a scene it cannot hold; a file it writes
// must read back.
#include <cstdint>
#include <span>
#include <string>

#include "fuzz_common.hpp"

namespace {

struct Target {
    const char* format;
    const char* path;
};
constexpr Target targets[] = {
    {"iqm", "out.iqm"},       {"iqe", "out.iqe"},       {"glb", "out.glb"},       {"gltf", "out.gltf"},
    {"cal3d-csf", "out.csf"}, {"cal3d-cmf", "out.cmf"}, {"cal3d-caf", "out.caf"}, {"cal3d-crf", "out.crf"},
    {"cal3d-cpf", "out.cpf"}, {"cal3d-xsf", "out.xsf"}, {"cal3d-xmf", "out.xmf"}, {"cal3d-xaf", "out.xaf"},
    {"cal3d-xrf", "out.xrf"}, {"cal3d-xpf", "out.xpf"}, {"joe", "out.joe"},       {"fbx", "out.fbx"},
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    rigport::LoadOptions options = fuzz::load_options();
    options.max_elements = 1u << 16;  // sixteen writers per input
    options.max_frames = 1024;
    options.read_resource = [](const std::string& uri) -> rigport::Expected<std::vector<uint8_t>> {
        return rigport::make_error(rigport::ErrorCode::NotFound, "'" + uri + "': side files are not read here");
    };
    auto scene = rigport::load_bytes(std::span<const uint8_t>(data, size), "fuzz.gltf", options);
    if (!scene) {
        fuzz::check_error(scene.error(), "read");
        return 0;
    }
    fuzz::check_scene(*scene, scene->meta.source_format);
    rigport::SaveOptions save;
    save.cal3d.dialect = size % 3 == 0   ? rigport::Cal3dOptions::Dialect::Imvu919
                         : size % 3 == 1 ? rigport::Cal3dOptions::Dialect::Classic1100
                                         : rigport::Cal3dOptions::Dialect::Trunk1301;
    save.joe.force = true;
    // The glTF reader keeps keys however far apart (only frame-based writers sample them): the
    // frame-based writers' budget, not the reader's max_frames, bounds each input's work here.
    save.max_poses = 1u << 16;
    for (const Target& t : targets) fuzz::write_and_read_back(*scene, t.format, t.path, save);
    return 0;
}
