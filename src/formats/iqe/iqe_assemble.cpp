// IQE assembly (docs/iqe.md §1): what the commands read becomes the scene: the skeleton from joints
// and bind poses, meshes from their blocks with the deferred range checks, animations from frames.
#include "formats/iqe/iqe_parser.hpp"

namespace rigport::iqe::detail {

std::optional<Error> Parser::build_skeleton() {
    Skeleton& sk = doc_.scene.skeleton;
    if (joints_.empty()) {
        // Poses without joints: an animation-only file that binds to a skeleton by index.
        size_t n = bind_poses_.size();
        for (auto& a : anims_)
            if (n == 0 && !a.frames.empty()) n = a.frames.front().poses.size();
        if (n == 0) return std::nullopt;
        joints_.resize(n);
        if (bind_poses_.empty()) bind_poses_.resize(n);
        sk.animation_only = true;
        warn(WarningCode::AnimationOnly, fmt::format("poses without joints: {} unnamed joints (bind to a skeleton by index)", n));
    }
    if (bind_poses_.size() < joints_.size())
        warn(WarningCode::CountMismatch, fmt::format("{} bind poses for {} joints; the rest are identity", bind_poses_.size(), joints_.size()));
    else if (bind_poses_.size() > joints_.size())
        warn(WarningCode::DroppedData, fmt::format("{} bind poses for {} joints; the extra ones are ignored", bind_poses_.size(), joints_.size()));
    uint32_t roots = 0;
    for (size_t i = 0; i < joints_.size(); ++i) {
        if (i < bind_poses_.size()) joints_[i].bind = bind_poses_[i];
        roots += joints_[i].parent < 0;
    }
    if (roots > 1 && !sk.animation_only) warn(WarningCode::SeveralRoots, fmt::format("{} root joints", roots));
    sk.joints = std::move(joints_);
    return std::nullopt;
}

std::optional<Error> Parser::build_meshes() {
    Scene& scene = doc_.scene;
    const uint32_t n = static_cast<uint32_t>(positions_.size());
    if (max_face_index_ >= int64_t(n)) {
        const std::string what = max_face_relative_ ? fmt::format("fm index {} (file vertex {})", max_face_written_, max_face_index_)
                                                    : fmt::format("fa index {}", max_face_written_);
        return error_at(max_face_line_, max_face_column_, fmt::format("{} is beyond the {} vertices of the file", what, n));
    }
    const uint64_t joints = scene.skeleton.joints.size();
    if (max_vb_joint_ >= 0 && uint64_t(max_vb_joint_) >= joints)
        return error_at(max_vb_line_, max_vb_column_, fmt::format("vb: joint {} is beyond the {} joints of the file", max_vb_joint_, joints));

    // Resolve 6-number vx: handedness from the bitangent and the vertex's normal.
    for (auto& [v, b] : bitangents_) {
        Vec4& t = tangents_[v];
        const Vec3 nrm = v < normals_.size() ? normals_[v] : Vec3{0, 0, 0};
        const double c[3] = {double(nrm[1]) * t[2] - double(nrm[2]) * t[1], double(nrm[2]) * t[0] - double(nrm[0]) * t[2],
                             double(nrm[0]) * t[1] - double(nrm[1]) * t[0]};
        t[3] = c[0] * b[0] + c[1] * b[1] + c[2] * b[2] < 0 ? -1.0f : 1.0f;
    }

    // Without any face, consecutive vertex triples of each block form triangles (the spec).
    if (!any_face_)
        for (auto& m : meshes_)
            for (auto [first, end] : m.ranges)
                for (uint32_t v = first; v + 3 <= end; v += 3) {
                    m.triangles.push_back(Triangle{v, v + 1, v + 2});
                    m.smoothing.push_back(smoothing_);
                }

    // Each file vertex belongs to exactly one block, so to one scene mesh.
    std::vector<uint32_t> owner(n, UINT32_MAX), local(n, 0);
    for (uint32_t m = 0; m < meshes_.size(); ++m) {
        uint32_t next = 0;
        for (auto [first, end] : meshes_[m].ranges)
            for (uint32_t v = first; v < end; ++v) owner[v] = m, local[v] = next++;
    }
    std::vector<uint8_t> used(n, 0);
    for (auto& m : meshes_)
        for (auto& t : m.triangles)
            for (uint32_t v : t) used[v] = 1;

    std::unordered_map<std::string, int32_t> materials;
    for (uint32_t mi = 0; mi < meshes_.size(); ++mi) {
        OutMesh& om = meshes_[mi];
        std::vector<uint32_t> source;
        for (auto [first, end] : om.ranges)
            for (uint32_t v = first; v < end; ++v) source.push_back(v);
        // A block of vertices that only other meshes' faces use (fa style) is not a mesh.
        if (om.triangles.empty() && any_face_ && std::all_of(source.begin(), source.end(), [&](uint32_t v) { return used[v] != 0; }))
            continue;
        Mesh mesh;
        mesh.name = om.name;
        std::unordered_map<uint32_t, uint32_t> outside;
        mesh.triangles.resize(om.triangles.size());
        for (size_t t = 0; t < om.triangles.size(); ++t)
            for (int k = 0; k < 3; ++k) {
                const uint32_t v = om.triangles[t][k];
                if (owner[v] == mi) {
                    mesh.triangles[t][k] = local[v];
                    continue;
                }
                auto [it, added] = outside.try_emplace(v, static_cast<uint32_t>(source.size()));
                if (added) {
                    if (auto e = limit(source.size(), "vertices")) return e;
                    source.push_back(v);
                }
                mesh.triangles[t][k] = it->second;
                warn(WarningCode::TriangleOutsideMesh,
                     fmt::format("mesh '{}': a face uses a vertex of another mesh block; the vertex is copied", rigport::detail::excerpt(om.name)));
            }
        if (!om.material.empty()) {
            auto [it, added] = materials.try_emplace(om.material, static_cast<int32_t>(scene.materials.size()));
            if (added) {
                Material material;
                material.name = om.material;
                // IQE names a material by its texture (a file, or an engine path without extension).
                material.maps.push_back(TextureMap{TextureType::Diffuse, om.material, ""});
                scene.materials.push_back(std::move(material));
            }
            mesh.material = it->second;
        }

        uint16_t any = 0, all = 0xFFFF;
        for (uint32_t v : source) any |= has_[v], all &= has_[v];
        if (source.empty()) all = 0;
        auto check = [&](uint16_t bit, const char* cmd) {
            if ((any & bit) && !(all & bit))
                warn(WarningCode::CountMismatch, fmt::format("mesh '{}': some vertices have no '{}' (attribute arrays of unequal length); defaults used", rigport::detail::excerpt(om.name), cmd));
            return (any & bit) != 0;
        };
        auto pick = [&](auto& out, const auto& values, auto missing) {
            out.reserve(source.size());
            for (uint32_t v : source) out.push_back(v < values.size() ? values[v] : missing);
        };
        mesh.positions.reserve(source.size());
        for (uint32_t v : source) mesh.positions.push_back(positions_[v]);
        if (check(HAS_VT, "vt")) pick(mesh.texcoords.emplace_back(), texcoords_, Vec2{0, 0});
        if (check(HAS_VN, "vn")) pick(mesh.normals, normals_, Vec3{0, 0, 0});
        if (check(HAS_VX, "vx")) pick(mesh.tangents, tangents_, Vec4{0, 0, 0, 1});
        if (check(HAS_VC, "vc")) pick(mesh.colors.emplace_back(), colors_, Vec4{0, 0, 0, 1});
        if (check(HAS_VB, "vb")) {
            mesh.skin.offsets.reserve(source.size() + 1);
            mesh.skin.offsets.push_back(0);
            for (uint32_t v : source) {
                for (uint32_t i = skin_offsets_[v]; i < skin_offsets_[v + 1]; ++i) mesh.skin.influences.push_back(influences_[i]);
                mesh.skin.offsets.push_back(static_cast<uint32_t>(mesh.skin.influences.size()));
            }
        }
        for (uint32_t k = 0; k < custom_count; ++k) {
            const char cmd[3] = {'v', char('0' + k), 0};
            if (!check(uint16_t(HAS_V0 << k), cmd)) continue;
            const CustomDecl& d = custom_decl_[k];
            CustomArray c{d.name.empty() ? fmt::format("custom{}", k) : d.name, d.type, d.size, {}};
            c.values.reserve(source.size() * d.size);
            for (uint32_t v : source)
                for (uint32_t i = 0; i < d.size; ++i)
                    c.values.push_back(uint64_t(v) * 4 + i < custom_[k].size() ? custom_[k][uint64_t(v) * 4 + i] : 0.0);
            mesh.custom.push_back(std::move(c));
        }
        MeshSmoothing smoothing;
        smoothing.triangles = std::move(om.smoothing);
        if (any_vs_) pick(smoothing.vertex_index, smooth_index_, int32_t(0));
        doc_.smoothing.push_back(std::move(smoothing));
        scene.meshes.push_back(std::move(mesh));
    }
    return std::nullopt;
}

std::optional<Error> Parser::build_animations() {
    const uint64_t joints = doc_.scene.skeleton.joints.size();
    uint64_t keys = 0;
    for (auto& a : anims_) {
        Animation anim = std::move(a.anim);
        std::vector<Frame> frames;
        for (auto& f : a.frames)
            if (!f.poses.empty()) frames.push_back(std::move(f));
        anim.frame_count = static_cast<uint32_t>(frames.size());
        keys += frames.size() * joints;
        if (keys > options_.max_elements)
            return error_at(a.line, a.column, fmt::format("animation '{}': {} frames of {} joints exceed the limit of {} poses", rigport::detail::excerpt(anim.name), frames.size(), joints, options_.max_elements),
                            ErrorCode::LimitExceeded);
        if (!(anim.frame_rate > 0) || !std::isfinite(float(anim.frame_count) / anim.frame_rate)) {
            anim.frame_rate = 0;
            warn(WarningCode::ZeroFrameRate, fmt::format("animation '{}': no framerate (keys placed at {} fps)", rigport::detail::excerpt(anim.name), default_frame_rate));
        }
        const float rate = anim.frame_rate > 0 ? anim.frame_rate : default_frame_rate;
        for (auto& f : frames)
            if (f.poses.size() != joints) {
                warn(WarningCode::CountMismatch, fmt::format("animation '{}': frames whose pose count differs from the {} joints (padded with the bind pose or cut)", rigport::detail::excerpt(anim.name), joints));
                break;
            }
        const auto& skj = doc_.scene.skeleton.joints;
        auto pose_of = [&](const Frame& f, uint64_t j) -> const Transform& { return j < f.poses.size() ? f.poses[j] : skj[j].bind; };
        for (uint32_t j = 0; j < joints && !frames.empty(); ++j) {
            for (Channel ch : {Channel::Translation, Channel::Rotation, Channel::Scale}) {
                auto value = [&](const Transform& t) -> const float* {
                    return ch == Channel::Translation ? t.translate.data() : ch == Channel::Rotation ? t.rotate.data() : t.scale.data();
                };
                JointTrack track;
                track.joint = j;
                track.channel = ch;
                const uint32_t c = track.components();
                const float* first = value(pose_of(frames[0], j));
                bool constant = true;
                for (size_t i = 1; i < frames.size() && constant; ++i)
                    constant = std::equal(first, first + c, value(pose_of(frames[i], j)));
                // Constant channels carry one key, as the IQM reader does.
                const size_t count = constant ? 1 : frames.size();
                track.times.reserve(count);
                track.values.reserve(count * c);
                for (size_t i = 0; i < count; ++i) {
                    track.times.push_back(static_cast<float>(i) / rate);
                    const float* p = value(pose_of(frames[i], j));
                    track.values.insert(track.values.end(), p, p + c);
                }
                anim.tracks.push_back(std::move(track));
            }
        }
        doc_.scene.animations.push_back(std::move(anim));
    }
    return std::nullopt;
}

std::optional<Error> Parser::finish() {
    close_block();
    if (auto e = build_skeleton()) return e;
    if (auto e = build_meshes()) return e;
    if (auto e = build_animations()) return e;
    Meta& meta = doc_.scene.meta;
    meta.source_format = "iqe";
    meta.up = UpAxis::Z;  // IQM/IQE conventions (docs/iqm.md §2): Z up, right-handed, clockwise front faces
    meta.handedness = Handedness::Right;
    meta.front_face = Winding::Clockwise;
    return std::nullopt;
}

}  // namespace rigport::iqe::detail
