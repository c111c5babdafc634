// MD5 reader, .md5mesh (docs/md5.md): joints in object space become parent-relative bind poses
// (exactly, in double precision); each vertex is the bias-weighted sum of its weights' positions
// moved by their joints; smooth normals are computed as the reference compiler does for MD5.
#include <algorithm>
#include <unordered_map>

#include "model/quatd.hpp"
#include "formats/md5/md5_parser.hpp"
#include "process/smooth_normals.hpp"

namespace rigport::md5::detail {

namespace {

// A stored (x, y, z) as a unit quaternion; false when x² + y² + z² is beyond 1 (then normalized).
bool unit_orientation(const double xyz[3], std::array<double, 4>& out) {
    out = restore_w(xyz[0], xyz[1], xyz[2]);
    const double n2 = xyz[0] * xyz[0] + xyz[1] * xyz[1] + xyz[2] * xyz[2];
    if (n2 <= 1.0 + 1e-6) return true;
    out = quatd::unit(out);
    return false;
}

}  // namespace

std::optional<Error> Parser::joints_block() {
    if (have_joints_) return error_at(last_, "a second 'joints' block");
    have_joints_ = true;
    for (;;) {
        const Token t = lex_.next();
        if (t.kind == Kind::CloseBrace) return std::nullopt;
        if (t.kind != Kind::String) return error_at(t, fmt::format("joints: expected a \"quoted\" joint name or '}}', found {}", describe(t)));
        if (joints_.size() >= options_.max_elements)
            return error_at(t, fmt::format("more than {} joints (LoadOptions::max_elements)", options_.max_elements), ErrorCode::LimitExceeded);
        MeshJoint j;
        j.name.assign(t.text);
        const std::string context = fmt::format("joint {} \"{}\"", joints_.size(), rigport::detail::excerpt(j.name));
        int64_t parent = 0;
        if (auto e = integer(context, parent)) return e;
        // Parents come first (idTech 4 builds joint matrices in file order).
        if (parent < -1 || parent >= int64_t(joints_.size()))
            return error_at(last_, fmt::format("{}: parent {} is not an earlier joint (-1 for a root)", context, parent));
        j.parent = int32_t(parent);
        double q[3];
        if (auto e = vector(context, j.position.data(), 3)) return e;
        if (auto e = vector(context, q, 3)) return e;
        if (!unit_orientation(q, j.orientation))
            warn(WarningCode::NonUnitQuaternion, "joint orientations with x² + y² + z² > 1 (normalized)", t);
        joints_.push_back(std::move(j));
    }
}

std::optional<Error> Parser::mesh_block() {
    const Token open = last_;
    lex_.clear_mesh_comment();
    RawMesh m;
    std::optional<uint64_t> numverts, numtris, numweights;
    std::vector<uint8_t> vert_seen, tri_seen, weight_seen;
    uint64_t worst_end = 0;  // the largest start + count of a vert, checked against numweights
    Token worst_at;
    auto declare = [&](std::string_view k, std::optional<uint64_t>& slot, uint64_t min_bytes, auto resize) -> std::optional<Error> {
        const Token at = last_;
        if (slot) return error_at(at, fmt::format("mesh {}: a second '{}'", meshes_read_, k));
        uint64_t n = 0;
        if (auto e = count(k, min_bytes, n)) return e;
        slot = n;
        resize(size_t(n));
        return std::nullopt;
    };
    auto duplicate = [&](std::vector<uint8_t>& seen, uint64_t i, std::string_view k) -> std::optional<Error> {
        if (seen[i]) return error_at(last_, fmt::format("mesh {}: {} {} is defined twice", meshes_read_, k, i));
        seen[i] = 1;
        return std::nullopt;
    };
    for (;;) {
        const Token t = last_ = lex_.next();
        if (t.kind == Kind::CloseBrace) break;
        if (t.kind != Kind::Word) return error_at(t, fmt::format("mesh {}: expected a keyword or '}}', found {}", meshes_read_, describe(t)));
        const std::string_view k = t.text;
        const std::string context = fmt::format("mesh {}: {}", meshes_read_, k);
        if (k == "shader") {
            if (auto e = name(context, m.shader)) return e;
        } else if (k == "numverts") {
            if (auto e = declare(k, numverts, 10, [&](size_t n) { m.verts.resize(n), vert_seen.resize(n); })) return e;
            vertex_total_ += *numverts;
            if (vertex_total_ > options_.max_elements)
                return error_at(last_, fmt::format("more than {} vertices in all (LoadOptions::max_elements)", options_.max_elements), ErrorCode::LimitExceeded);
        } else if (k == "numtris") {
            if (auto e = declare(k, numtris, 8, [&](size_t n) { m.tris.resize(n), tri_seen.resize(n); })) return e;
        } else if (k == "numweights") {
            if (auto e = declare(k, numweights, 12, [&](size_t n) { m.weights.resize(n), weight_seen.resize(n); })) return e;
            weight_total_ += *numweights;
            if (weight_total_ > options_.max_elements)
                return error_at(last_, fmt::format("more than {} weights in all (LoadOptions::max_elements)", options_.max_elements), ErrorCode::LimitExceeded);
        } else if (k == "vert") {
            uint64_t i = 0;
            if (auto e = index(context, numverts, "numverts", i)) return e;
            if (auto e = duplicate(vert_seen, i, "vert")) return e;
            RawMesh::Vert& v = m.verts[i];
            double uv[2];
            if (auto e = vector(context, uv, 2)) return e;
            v.u = uv[0], v.v = uv[1];
            int64_t start = 0, n = 0;
            if (auto e = integer(context, start)) return e;
            if (start < 0 || start > int64_t(UINT32_MAX)) return error_at(last_, fmt::format("vert {}: startWeight {} is out of range", i, start));
            if (auto e = integer(context, n)) return e;
            if (n < 0 || n > int64_t(UINT32_MAX)) return error_at(last_, fmt::format("vert {}: countWeight {} is out of range", i, n));
            v.start = uint32_t(start), v.count = uint32_t(n);
            if (uint64_t(start) + uint64_t(n) > worst_end) worst_end = uint64_t(start) + uint64_t(n), worst_at = last_;
        } else if (k == "tri") {
            uint64_t i = 0;
            if (auto e = index(context, numtris, "numtris", i)) return e;
            if (auto e = duplicate(tri_seen, i, "tri")) return e;
            for (int c = 0; c < 3; ++c) {
                uint64_t v = 0;
                if (auto e = index(fmt::format("mesh {}: tri {}: vertex", meshes_read_, i), numverts, "numverts", v)) return e;
                m.tris[i][c] = uint32_t(v);
            }
        } else if (k == "weight") {
            uint64_t i = 0;
            if (auto e = index(context, numweights, "numweights", i)) return e;
            if (auto e = duplicate(weight_seen, i, "weight")) return e;
            RawMesh::Weight& w = m.weights[i];
            int64_t joint = 0;
            if (auto e = integer(context, joint)) return e;
            if (joint < 0 || joint > int64_t(UINT32_MAX)) return error_at(last_, fmt::format("weight {}: joint {} is out of range", i, joint));
            if (joint > max_weight_joint_) max_weight_joint_ = joint, max_weight_joint_at_ = last_;
            w.joint = uint32_t(joint);
            if (auto e = number(context, w.bias)) return e;
            if (auto e = vector(context, w.position.data(), 3)) return e;
        } else {
            return error_at(t, fmt::format("mesh {}: unknown keyword {}", meshes_read_, describe(t)));
        }
    }
    // Every declared element present, every vert's weights inside the mesh's.
    auto missing = [&](const std::vector<uint8_t>& seen, std::string_view k, std::string_view count_name) -> std::optional<Error> {
        auto it = std::find(seen.begin(), seen.end(), uint8_t(0));
        if (it == seen.end()) return std::nullopt;
        return error_at(last_, fmt::format("mesh {}: {} {} is missing ({} {})", meshes_read_, k, it - seen.begin(), count_name, seen.size()));
    };
    if (auto e = missing(vert_seen, "vert", "numverts")) return e;
    if (auto e = missing(tri_seen, "tri", "numtris")) return e;
    if (auto e = missing(weight_seen, "weight", "numweights")) return e;
    if (worst_end > m.weights.size())
        return error_at(worst_at, fmt::format("mesh {}: a vert's weights end at {}, beyond numweights {}", meshes_read_, worst_end, m.weights.size()));
    m.name.assign(lex_.mesh_comment());
    (void)open;
    ++meshes_read_;
    meshes_.push_back(std::move(m));
    return std::nullopt;
}

std::optional<Error> Parser::finish_mesh(const Token& end) {
    if (!have_joints_) return error_at(end, "an .md5mesh without a 'joints' block");
    if (joints_.empty()) return error_at(end, "an .md5mesh without joints (idTech 4 needs at least one)");
    if (max_weight_joint_ >= int64_t(joints_.size()))
        return error_at(max_weight_joint_at_, fmt::format("weight: joint {} is beyond the {} joints of the file", max_weight_joint_, joints_.size()));
    if (num_joints_ && *num_joints_ != joints_.size())
        warn(WarningCode::CountMismatch, fmt::format("numJoints {} but {} joints; the joints read are used", *num_joints_, joints_.size()));
    if (num_meshes_ && *num_meshes_ != meshes_read_)
        warn(WarningCode::CountMismatch, fmt::format("numMeshes {} but {} mesh blocks; the blocks read are used", *num_meshes_, meshes_read_));

    // Bind poses relative to the parent: t = conj(Qp)·(Pj − Pp), r = conj(Qp)·Qj.
    Skeleton& sk = scene_.skeleton;
    std::vector<uint32_t> depth(joints_.size(), 1);
    uint32_t roots = 0;
    for (size_t i = 0; i < joints_.size(); ++i) {
        const MeshJoint& j = joints_[i];
        Joint out;
        out.name = j.name;
        out.parent = j.parent;
        quatd::D4 r = j.orientation;
        quatd::D3 t = j.position;
        if (j.parent >= 0) {
            const MeshJoint& p = joints_[size_t(j.parent)];
            const quatd::D4 inv = quatd::conj(p.orientation);
            t = quatd::rotate(inv, {t[0] - p.position[0], t[1] - p.position[1], t[2] - p.position[2]});
            r = quatd::unit(quatd::mul(inv, r));
            depth[i] = depth[size_t(j.parent)] + 1;
            if (depth[i] > options_.max_depth)
                return error_at(end, fmt::format("joint {} \"{}\" is {} parents deep, more than {} (LoadOptions::max_depth)", i, rigport::detail::excerpt(j.name), depth[i],
                                                 options_.max_depth), ErrorCode::LimitExceeded);
        } else {
            ++roots;
        }
        out.bind.translate = {float(t[0]), float(t[1]), float(t[2])};
        out.bind.rotate = {float(r[0]), float(r[1]), float(r[2]), float(r[3])};
        sk.joints.push_back(std::move(out));
    }
    if (roots > 1) warn(WarningCode::SeveralRoots, fmt::format("{} root joints", roots));

    std::unordered_map<std::string, int32_t> materials;
    uint64_t unweighted = 0, negative = 0;
    for (RawMesh& raw : meshes_) {
        // As the reference compiler: a block without vertices or triangles is no mesh (BoarMan has 13).
        if (raw.verts.empty() || raw.tris.empty()) {
            ++empty_meshes_;
            continue;
        }
        Mesh mesh;
        mesh.name = raw.name;
        const size_t n = raw.verts.size();
        mesh.positions.reserve(n);
        mesh.texcoords.emplace_back().reserve(n);
        mesh.skin.offsets.reserve(n + 1);
        mesh.skin.offsets.push_back(0);
        for (const RawMesh::Vert& v : raw.verts) {
            quatd::D3 p{0, 0, 0};
            for (uint32_t k = v.start; k < v.start + v.count; ++k) {
                const RawMesh::Weight& w = raw.weights[k];
                const MeshJoint& j = joints_[w.joint];
                const quatd::D3 moved = quatd::rotate(j.orientation, w.position);
                for (int c = 0; c < 3; ++c) p[c] += w.bias * (moved[c] + j.position[c]);
                // The position takes every weight, as idTech 4 does; only positive ones bind.
                if (w.bias > 0) mesh.skin.influences.push_back(Influence{w.joint, float(w.bias)});
                else negative += w.bias < 0;
            }
            if (v.count == 0) ++unweighted;
            for (double& c : p)
                if (!(std::fabs(c) <= FLT_MAX)) return error_at(end, "a vertex position beyond the range of a float");
            mesh.positions.push_back(Vec3{float(p[0]), float(p[1]), float(p[2])});
            mesh.texcoords[0].push_back(Vec2{float(v.u), float(v.v)});
            mesh.skin.offsets.push_back(uint32_t(mesh.skin.influences.size()));
        }
        mesh.triangles = std::move(raw.tris);
        if (!raw.shader.empty()) {
            auto [it, added] = materials.try_emplace(raw.shader, int32_t(scene_.materials.size()));
            if (added) {
                // The shader names an idTech 4 material declaration (or an image path).
                Material material;
                material.name = raw.shader;
                material.maps.push_back(TextureMap{TextureType::Diffuse, raw.shader, ""});
                scene_.materials.push_back(std::move(material));
            }
            mesh.material = it->second;
        }
        scene_.meshes.push_back(std::move(mesh));
    }
    if (empty_meshes_)
        warn(WarningCode::Ignored, fmt::format("{} mesh blocks without vertices or triangles skipped", empty_meshes_));
    if (unweighted)
        warn(WarningCode::UnweightedVertex, fmt::format("{} vertices without weights: at the origin, bound to no joint", unweighted));
    if (negative)
        warn(WarningCode::Tolerated, fmt::format("{} weights with a negative bias: they move the position but bind no joint", negative));

    // MD5 stores no normals: area-weighted smooth normals over equal positions with equal
    // texcoords, as the reference compiler's MD5 route (smoothuv on its default group).
    std::vector<MeshSmoothing> smoothing(scene_.meshes.size());
    TriangleSmoothing rule;
    rule.smooth_uv = true;
    for (size_t i = 0; i < smoothing.size(); ++i) smoothing[i].triangles.assign(scene_.meshes[i].triangles.size(), rule);
    generate_normals(scene_, smoothing);
    return std::nullopt;
}

}  // namespace rigport::md5::detail
