// CSF binary skeleton reader, classic / IMVU / trunk layouts (docs/cal3d.md §2.1, §2.6).
#include "formats/cal3d/cal3d_binary.hpp"
#include "formats/cal3d/cal3d_write.hpp"

namespace rigport::cal3d {

Expected<Scene> read_csf(std::span<const uint8_t> bytes, const LoadOptions& options) {
    Scene scene;
    BinaryReader r(bytes, options, scene.warnings);
    int32_t version = 0;
    if (auto e = r.header(FileType::Skeleton, version)) return *e;
    const bool imvu = family_of(version) == Family::Imvu;
    const uint64_t count_at = r.c.pos();
    const int32_t bone_count = r.c.i32();
    if (!r.c.ok()) return r.short_read("boneCount");
    // Smallest bone: name length + 14 floats + parentId + childCount (+ light fields).
    if (auto e = r.count(bone_count, count_at, "boneCount", 4 + 56 + 8 + (imvu ? 16 : 0))) return *e;
    // IMVU sceneAmbient and bone lights: viewer state, kept in scene.meta.extensions for IMVU writers.
    Vec3 ambient{0, 0, 0};
    if (imvu) ambient = r.vec3();
    std::vector<Bone> bones(static_cast<size_t>(bone_count));
    std::vector<BoneLight> lights(imvu ? bones.size() : 0);
    for (int32_t i = 0; i < bone_count; ++i) {
        Bone& b = bones[size_t(i)];
        b.offset = r.c.pos();
        if (auto e = r.string(b.name, [&] { return fmt::format("bone {} name", i); })) return *e;
        b.translation = r.vec3();
        b.rotation = r.quat();
        b.local_translation = r.vec3();
        b.local_rotation = r.quat();
        b.parent = r.c.i32();
        if (imvu) {
            lights[size_t(i)].type = r.c.i32();
            lights[size_t(i)].color = r.vec3();
            r.finite(lights[size_t(i)].color, b.offset);
        }
        const uint64_t children_at = r.c.pos();
        const int32_t child_count = r.c.i32();
        if (!r.c.ok()) return r.short_read(fmt::format("bone {}", i));
        if (auto e = r.count(child_count, children_at, [&] { return fmt::format("bone {} childCount", i); }, 4)) return *e;
        b.children.resize(size_t(child_count));
        for (auto& c : b.children) c = r.c.i32();
        r.finite(b.translation, b.offset);
        r.finite(b.local_translation, b.offset);
        for (float& x : b.rotation) x = r.finite(x, b.offset);
        for (float& x : b.local_rotation) x = r.finite(x, b.offset);
    }
    if (auto e = r.at_end()) return *e;
    // IM's writer stores ROTATION as LOCALROTATION (§2.6): its signature is every bone having
    // LOCALROTATION == ROTATION (some not the identity). IMVU CSFs written by rigport do not.
    bool signature = imvu && !bones.empty(), rotated = false;
    for (auto& b : bones) {
        signature &= b.local_rotation == b.rotation;
        rotated |= !(b.rotation[0] == 0 && b.rotation[1] == 0 && b.rotation[2] == 0);
    }
    if (signature && rotated)
        scene.warnings.add(WarningCode::BindPoseMismatch,
                           "IMVU CSF: its writer stores ROTATION as LOCALROTATION (§2.6); inverse binds should be recomputed");
    auto sk = build_skeleton(bones, true, scene.warnings);
    if (!sk) return sk.error();
    scene.skeleton = std::move(*sk);
    if (imvu) {
        r.finite(ambient, count_at);
        store_imvu_lighting(scene, ambient, lights);
    }
    set_meta(scene, FileType::Skeleton, true, version);
    return scene;
}

}  // namespace rigport::cal3d
