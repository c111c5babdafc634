// Cal3D skeleton writers, CSF and XSF in the IMVU 919 / classic 1100 / trunk 1301 dialects (docs/cal3d.md §2.1, §3.3, §3.8, §9 rule 10).
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>

#include "model/quatd.hpp"
#include "formats/cal3d/cal3d_write.hpp"
#include "rigport/process.hpp"

namespace rigport::cal3d {

namespace {

using quatd::D3;
using quatd::D4;
using quatd::mul;
using quatd::rotate;
using quatd::unit;

void put_f32(std::vector<uint8_t>& out, float v) {
    const uint32_t u = std::bit_cast<uint32_t>(v);
    for (int i = 0; i < 4; ++i) out.push_back(uint8_t(u >> (8 * i)));
}
void put_i32(std::vector<uint8_t>& out, int32_t v) { put_f32(out, std::bit_cast<float>(v)); }
uint32_t get_u32(const std::vector<uint8_t>& in, size_t at) {
    return uint32_t(in[at]) | uint32_t(in[at + 1]) << 8 | uint32_t(in[at + 2]) << 16 | uint32_t(in[at + 3]) << 24;
}
float get_f32(const std::vector<uint8_t>& in, size_t at) { return std::bit_cast<float>(get_u32(in, at)); }

const PreservedExtension* find_extension(const Scene& scene, std::string_view name) {
    for (auto& e : scene.meta.extensions)
        if (e.name == name) return &e;
    return nullptr;
}

bool is_zero(const Vec3& v) { return v[0] == 0 && v[1] == 0 && v[2] == 0; }

// ROTATION in the file convention, normalised only when off by more than float rounding
// (|n² − 1| > 1e-6), so a unit quaternion keeps its bits.
Quat file_rotation(const Quat& q_std) {
    const double n2 = double(q_std[0]) * q_std[0] + double(q_std[1]) * q_std[1] + double(q_std[2]) * q_std[2] + double(q_std[3]) * q_std[3];
    if (std::fabs(n2 - 1.0) <= 1e-6) return to_file(q_std);
    const D4 u = unit(q_std);
    return to_file({float(u[0]), float(u[1]), float(u[2]), float(u[3])});
}

// The inverse bind pose of every joint (§4.2: boneSpace(v) = R(lq)·v + lt), in the file
// convention: LOCALROTATION = to_file(conj(q_world)) = q_world; LOCALTRANSLATION = −R(q_world*)·T_world.
struct InverseBind {
    Vec3 translation;
    Quat rotation;  // file convention
};
std::vector<InverseBind> inverse_binds(const Skeleton& skeleton) {
    const size_t n = skeleton.joints.size();
    std::vector<D4> world_q(n);
    std::vector<D3> world_t(n);
    std::vector<InverseBind> out(n);
    for (size_t j = 0; j < n; ++j) {
        const Joint& joint = skeleton.joints[j];
        const D4 q = unit(joint.bind.rotate);
        const D3 t{joint.bind.translate[0], joint.bind.translate[1], joint.bind.translate[2]};
        if (joint.parent < 0 || size_t(joint.parent) >= j) {
            world_q[j] = q;
            world_t[j] = t;
        } else {
            const size_t p = size_t(joint.parent);
            world_q[j] = mul(world_q[p], q);
            const D3 r = rotate(world_q[p], t);
            world_t[j] = {world_t[p][0] + r[0], world_t[p][1] + r[1], world_t[p][2] + r[2]};
        }
        const D4& w = world_q[j];
        const D3 lt = rotate({-w[0], -w[1], -w[2], w[3]}, world_t[j]);
        out[j].translation = {float(-lt[0]), float(-lt[1]), float(-lt[2])};
        out[j].rotation = {float(w[0]), float(w[1]), float(w[2]), float(w[3])};
    }
    return out;
}

}  // namespace

void store_imvu_lighting(Scene& scene, const Vec3& ambient, const std::vector<BoneLight>& lights_by_bone) {
    if (!is_zero(ambient)) {
        PreservedExtension e{std::string(scene_ambient_extension), {}};
        for (float c : ambient) put_f32(e.data, c);
        scene.meta.extensions.push_back(std::move(e));
    }
    const auto& ids = scene.skeleton.source_ids;
    bool any = false;
    for (auto& l : lights_by_bone) any |= l.type != 0 || !is_zero(l.color);
    if (!any || ids.size() != scene.skeleton.joints.size()) return;
    PreservedExtension e{std::string(bone_lights_extension), {}};
    for (int32_t id : ids) {
        const BoneLight l = id >= 0 && size_t(id) < lights_by_bone.size() ? lights_by_bone[size_t(id)] : BoneLight{};
        put_i32(e.data, l.type);
        for (float c : l.color) put_f32(e.data, c);
    }
    scene.meta.extensions.push_back(std::move(e));
}

Vec3 imvu_scene_ambient(const Scene& scene) {
    const PreservedExtension* e = find_extension(scene, scene_ambient_extension);
    if (!e || e->data.size() != 12) return {0, 0, 0};
    return {get_f32(e->data, 0), get_f32(e->data, 4), get_f32(e->data, 8)};
}

std::vector<BoneLight> imvu_bone_lights(const Scene& scene, Warnings* warnings) {
    const size_t n = scene.skeleton.joints.size();
    std::vector<BoneLight> lights(n);
    const PreservedExtension* e = find_extension(scene, bone_lights_extension);
    if (!e) return lights;
    if (e->data.size() != n * 16) {
        if (warnings)
            warnings->add(WarningCode::DroppedData, fmt::format("{} holds {} bytes, not 16 per joint for {} joints; bone lights not written",
                                                                bone_lights_extension, e->data.size(), n));
        return lights;
    }
    for (size_t j = 0; j < n; ++j) {
        lights[j].type = int32_t(get_u32(e->data, j * 16));
        for (int c = 0; c < 3; ++c) lights[j].color[c] = get_f32(e->data, j * 16 + 4 + 4 * size_t(c));
    }
    return lights;
}

bool has_imvu_lighting(const Scene& scene) {
    return find_extension(scene, scene_ambient_extension) || find_extension(scene, bone_lights_extension);
}

Expected<std::vector<uint8_t>> write_skeleton(const Scene& scene, bool binary, const SaveOptions& options) {
    const Dialect dialect = options.cal3d.dialect;
    const Skeleton& sk = scene.skeleton;
    const size_t n = sk.joints.size();
    if (n == 0) return make_error(ErrorCode::InvalidArgument, "the scene has no skeleton to write as a Cal3D skeleton");
    if (sk.animation_only)
        return make_error(ErrorCode::Unsupported,
                          "the scene's skeleton is only an animation hierarchy (no names, no bind pose); a Cal3D skeleton needs both");
    if (n > uint64_t(INT32_MAX)) return make_error(ErrorCode::LimitExceeded, fmt::format("{} joints", n));
    for (size_t j = 0; j < n; ++j)
        if (sk.joints[j].parent >= int32_t(j))
            return make_error(ErrorCode::InvalidArgument, fmt::format("joint {}: parent {} is not an earlier joint", j, sk.joints[j].parent));

    const bool imvu = dialect == Dialect::Imvu919;
    if (!imvu && has_imvu_lighting(scene) && options.warnings)
        options.warnings->add(WarningCode::DroppedData,
                              fmt::format("IMVU scene ambient and bone lights are not written: version {} has no place for them", version_of(dialect)));
    const std::vector<int32_t> ids = bone_ids(sk);
    std::vector<size_t> joint_of(n);
    for (size_t j = 0; j < n; ++j) joint_of[size_t(ids[j])] = j;
    std::vector<std::vector<int32_t>> children(n);  // by joint: child bone ids
    for (size_t j = 0; j < n; ++j)
        if (sk.joints[j].parent >= 0) children[size_t(sk.joints[j].parent)].push_back(ids[j]);
    for (auto& c : children) std::sort(c.begin(), c.end());
    const std::vector<InverseBind> inverse = inverse_binds(sk);
    const Vec3 ambient = imvu ? imvu_scene_ambient(scene) : Vec3{0, 0, 0};
    const std::vector<BoneLight> lights = imvu ? imvu_bone_lights(scene, options.warnings) : std::vector<BoneLight>(n);
    const bool xml_lights = imvu && find_extension(scene, bone_lights_extension) != nullptr;

    if (binary) {
        ByteWriter w;
        w.magic(FileType::Skeleton);
        w.i32(version_of(dialect));
        w.i32(int32_t(n));
        if (imvu) w.vec3(ambient);
        for (size_t b = 0; b < n; ++b) {
            const size_t j = joint_of[b];
            const Joint& joint = sk.joints[j];
            w.string(joint.name);
            w.vec3(joint.bind.translate);
            w.quat(file_rotation(joint.bind.rotate));
            w.vec3(inverse[j].translation);
            w.quat(inverse[j].rotation);
            w.i32(joint.parent < 0 ? -1 : ids[size_t(joint.parent)]);
            if (imvu) {
                w.i32(lights[j].type);
                w.vec3(lights[j].color);
            }
            w.i32(int32_t(children[j].size()));
            for (int32_t c : children[j]) w.i32(c);
        }
        return std::move(w.bytes);
    }

    XmlWriter x;
    const std::string root = x.header(FileType::Skeleton, dialect);
    std::string attrs = root + fmt::format(" NUMBONES=\"{}\"", n);
    if (imvu) attrs += xml_attr("SCENEAMBIENTCOLOR", xml_floats(ambient.data(), 3));
    x.open("SKELETON", attrs);
    for (size_t b = 0; b < n; ++b) {
        const size_t j = joint_of[b];
        const Joint& joint = sk.joints[j];
        std::string bone;
        if (imvu) {  // IM: NAME ID [LIGHTTYPE LIGHTCOLOR] (§3.8)
            bone = xml_attr("NAME", joint.name) + fmt::format(" ID=\"{}\"", b);
            if (xml_lights)
                bone += fmt::format(" LIGHTTYPE=\"{}\"", lights[j].type) + xml_attr("LIGHTCOLOR", xml_floats(lights[j].color.data(), 3));
        } else {  // DEB / UP: ID NAME NUMCHILDS
            bone = fmt::format(" ID=\"{}\"", b) + xml_attr("NAME", joint.name) + fmt::format(" NUMCHILDS=\"{}\"", children[j].size());
        }
        x.open("BONE", bone);
        const Quat rotation = file_rotation(joint.bind.rotate);
        x.leaf("TRANSLATION", {}, xml_floats(joint.bind.translate.data(), 3));
        x.leaf("ROTATION", {}, xml_floats(rotation.data(), 4));
        x.leaf("LOCALTRANSLATION", {}, xml_floats(inverse[j].translation.data(), 3));
        x.leaf("LOCALROTATION", {}, xml_floats(inverse[j].rotation.data(), 4));
        x.leaf("PARENTID", {}, std::to_string(joint.parent < 0 ? -1 : ids[size_t(joint.parent)]));
        for (int32_t c : children[j]) x.leaf("CHILDID", {}, std::to_string(c));
        x.close("BONE");
    }
    x.close("SKELETON");
    return std::vector<uint8_t>(x.text.begin(), x.text.end());
}

namespace {

Expected<Output> write_skeleton_file(const Scene& scene, bool binary, const SaveOptions& options) {
    const std::optional<Scene> copy = z_up_ccw_copy(scene);
    auto bytes = write_skeleton(copy ? *copy : scene, binary, options);
    if (!bytes) return bytes.error();
    return Output{std::move(*bytes), {}, {}, {}, {}};
}

}  // namespace

Expected<Output> write_csf(const Scene& scene, const std::string&, const SaveOptions& options) {
    return write_skeleton_file(scene, true, options);
}
Expected<Output> write_xsf(const Scene& scene, const std::string&, const SaveOptions& options) {
    return write_skeleton_file(scene, false, options);
}

}  // namespace rigport::cal3d
