// Cal3D mesh writers: scene meshes -> SUBMESH records, CMF binary in the IMVU 919 / classic 1100 /
// trunk 1301 layouts, and the registry entries (docs/cal3d.md §1.1, §2.3, §4.6, §4.7, §9 rule 10).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "formats/cal3d/cal3d_write_mesh.hpp"
#include "rigport/process.hpp"

namespace rigport::cal3d {

namespace {

bool is_zero(const Vec3& v) { return v[0] == 0 && v[1] == 0 && v[2] == 0; }
Vec3 plus(const Vec3& a, const Vec3& b) { return {a[0] + b[0], a[1] + b[1], a[2] + b[2]}; }

Error invalid(size_t mesh, std::string what) { return make_error(ErrorCode::InvalidArgument, fmt::format("mesh {}: {}", mesh, what)); }

// §4.7: sparse blend vertices, exactly the vertices whose position or normal delta is not zero
// (no 0.01 / 1.0 thresholds as the reference writers use); IMVU stores absolute targets.
MorphOut morph_out(const MorphTarget& t, const SubmeshOut& sm, bool absolute) {
    const Mesh& m = *sm.mesh;
    MorphOut out;
    out.name = t.name;
    for (uint32_t v = 0; v < m.vertex_count(); ++v) {
        const Vec3 dp = v < t.position_deltas.size() ? t.position_deltas[v] : Vec3{0, 0, 0};
        const Vec3 dn = v < t.normal_deltas.size() ? t.normal_deltas[v] : Vec3{0, 0, 0};
        if (is_zero(dp) && is_zero(dn)) continue;
        BlendVertexOut bv;
        bv.id = int32_t(v);
        bv.position = absolute ? plus(m.positions[v], dp) : dp;
        bv.normal = absolute ? plus(sm.normals[v], dn) : dn;
        bv.position_diff = float(std::sqrt(double(dp[0]) * dp[0] + double(dp[1]) * dp[1] + double(dp[2]) * dp[2]));
        out.vertices.push_back(bv);
    }
    return out;
}

}  // namespace

Expected<std::vector<SubmeshOut>> prepare_submeshes(const Scene& scene, const std::vector<uint32_t>& meshes, bool binary,
                                                   const SaveOptions& options) {
    const Dialect dialect = options.cal3d.dialect;
    const int32_t version = version_of(dialect);
    auto drop = [&](std::string message) {
        if (options.warnings) options.warnings->add(WarningCode::DroppedData, std::move(message));
    };
    const std::vector<int32_t> ids = bone_ids(scene.skeleton);
    std::vector<SubmeshOut> out;
    if (meshes.size() > uint64_t(std::numeric_limits<int32_t>::max())) return make_error(ErrorCode::LimitExceeded, "too many submeshes");
    for (uint32_t index : meshes) {
        if (index >= scene.meshes.size()) return make_error(ErrorCode::InvalidArgument, fmt::format("mesh {} does not exist", index));
        const Mesh& m = scene.meshes[index];
        const size_t n = m.vertex_count();
        SubmeshOut sm;
        sm.mesh = &m;
        // Counts are int32; the IMVU morph sentinel is vertexCount + 1 (§2.3).
        if (n >= size_t(std::numeric_limits<int32_t>::max()))
            return make_error(ErrorCode::LimitExceeded, fmt::format("mesh {}: {} vertices do not fit a Cal3D int32 count", index, n));
        if (m.triangles.size() > size_t(std::numeric_limits<int32_t>::max()))
            return make_error(ErrorCode::LimitExceeded, fmt::format("mesh {}: {} triangles do not fit a Cal3D int32 count", index, m.triangles.size()));
        for (size_t f = 0; f < m.triangles.size(); ++f)
            for (uint32_t i : m.triangles[f]) {
                if (i >= n) return invalid(index, fmt::format("triangle {} uses vertex {} of {}", f, i, n));
                // IM's binary loader rejects indices above 65535 (§2.3, §9 rule 4).
                if (dialect == Dialect::Imvu919 && i > 65535)
                    return make_error(ErrorCode::Unsupported,
                                      fmt::format("mesh {}: triangle {} uses vertex {}; IMVU's loader accepts face indices up to 65535 "
                                                  "(split the mesh or write another dialect)", index, f, i));
            }
        if (m.material < -1 || (m.material >= 0 && size_t(m.material) >= scene.materials.size() && !scene.materials.empty()))
            return invalid(index, fmt::format("material {} does not exist", m.material));
        sm.material = m.material;
        if (m.texcoords.size() > 64) return make_error(ErrorCode::LimitExceeded, fmt::format("mesh {}: {} texcoord sets (readers accept 64)", index, m.texcoords.size()));
        for (auto& set : m.texcoords)
            if (set.size() != n) return invalid(index, "a texcoord set does not have one entry per vertex");
        if ((!m.normals.empty() && m.normals.size() != n) || (!m.lod.empty() && m.lod.size() != n) ||
            (!m.spring_weights.empty() && m.spring_weights.size() != n))
            return invalid(index, "a vertex stream does not have one entry per vertex");
        sm.normals = m.normals.empty() ? std::vector<Vec3>(n, Vec3{0, 0, 0}) : m.normals;
        if (m.normals.empty() && n > 0 && options.warnings)
            options.warnings->add(WarningCode::Substituted, fmt::format("mesh {}: no normals; written as 0 0 0", index));

        // Influences: scene joint -> Cal3D bone id.
        if (!m.skin.empty()) {
            if (m.skin.offsets.size() != n + 1 || m.skin.offsets.back() != m.skin.influences.size())
                return invalid(index, "skin offsets do not match the vertices");
            for (auto& inf : m.skin.influences) {
                if (inf.joint >= ids.size())
                    return invalid(index, fmt::format("an influence names joint {} of a skeleton with {}", inf.joint, ids.size()));
                sm.bones.push_back(ids[inf.joint]);
            }
        }

        // Vertex colours: IMVU always (white when none); trunk XML when the mesh has some (UP reads
        // COLOR at any version, §3.5); classic and trunk binary have no place for them (§1.1).
        const bool has_colors = !m.colors.empty();
        sm.colors = dialect == Dialect::Imvu919 || (dialect == Dialect::Trunk1301 && !binary && has_colors);
        if (has_colors && !sm.colors)
            drop(fmt::format("vertex colours not written: {} {} has no vertex colours", version, binary ? "CMF" : "XMF"));
        if (sm.colors) {
            sm.color.assign(n, Vec3{1, 1, 1});
            if (has_colors) {
                if (m.colors[0].size() != n) return invalid(index, "colour set 0 does not have one entry per vertex");
                bool alpha = false, clamped = false;
                for (size_t v = 0; v < n; ++v) {
                    const Vec4& c = m.colors[0][v];
                    for (int k = 0; k < 3; ++k) {
                        sm.color[v][k] = std::clamp(c[k], 0.0f, 1.0f);
                        clamped |= sm.color[v][k] != c[k];
                    }
                    alpha |= c[3] != 1.0f;
                }
                if (alpha) drop("vertex colour alpha not written: Cal3D COLOR is r g b");
                if (clamped && options.warnings) options.warnings->add(WarningCode::ValueClamped, "vertex colours outside 0..1 clamped");
                if (m.colors.size() > 1) drop("vertex colour sets after the first not written: Cal3D has one");
            }
        }

        // LOD (§4.6): COLLAPSEID / COLLAPSECOUNT and NUMLODSTEPS as stored, in every dialect.
        for (auto& l : m.lod) sm.lod |= l.collapse_id != -1 || l.face_collapse_count != 0;
        if (m.lod_steps < 0) return invalid(index, fmt::format("lod_steps {} < 0", m.lod_steps));

        // Springs and PHYSIQUE (§4.6): kept in every dialect (IM's loaders read past them).
        for (auto& s : m.springs)
            if (s.vertex0 >= n || s.vertex1 >= n) return invalid(index, fmt::format("a spring joins vertices {} and {} of {}", s.vertex0, s.vertex1, n));
        if (m.springs.size() > size_t(std::numeric_limits<int32_t>::max())) return make_error(ErrorCode::LimitExceeded, "too many springs");
        if (!m.springs.empty()) {
            sm.physique = m.spring_weights.empty() ? std::vector<float>(n, m.physique_weight) : m.spring_weights;
        } else if (std::any_of(m.spring_weights.begin(), m.spring_weights.end(), [](float w) { return w != 0; })) {
            drop("PHYSIQUE weights without springs not written: Cal3D stores them only with springs");
        }

        // Morph targets (§4.7): IMVU absolute, trunk delta, classic none.
        sm.morphs = dialect != Dialect::Classic1100;
        if (!m.morph_targets.empty() && !sm.morphs) drop("morph targets not written: version 1100 has no MORPH (Debian's loader rejects it)");
        if (sm.morphs) {
            if (m.morph_targets.size() > size_t(std::numeric_limits<int32_t>::max())) return make_error(ErrorCode::LimitExceeded, "too many morph targets");
            for (auto& t : m.morph_targets) {
                if ((!t.position_deltas.empty() && t.position_deltas.size() != n) || (!t.normal_deltas.empty() && t.normal_deltas.size() != n))
                    return invalid(index, fmt::format("morph target '{}' does not have one delta per vertex", t.name));
                if (!t.tangent_deltas.empty()) drop("morph tangent deltas not written: Cal3D morphs have none");
                if (t.default_weight != 0) drop("morph default weights not written: Cal3D has none");
                sm.targets.push_back(morph_out(t, sm, dialect == Dialect::Imvu919));
            }
        }
        out.push_back(std::move(sm));
    }
    return out;
}

std::vector<uint8_t> write_cmf_bytes(const std::vector<SubmeshOut>& submeshes, Dialect dialect) {
    ByteWriter w;
    w.magic(FileType::Mesh);
    w.i32(version_of(dialect));
    w.i32(int32_t(submeshes.size()));
    for (const SubmeshOut& sm : submeshes) {
        const Mesh& m = *sm.mesh;
        const uint32_t n = m.vertex_count();
        const int32_t springs = int32_t(m.springs.size());
        w.i32(sm.material);
        w.i32(int32_t(n));
        w.i32(int32_t(m.triangles.size()));
        w.i32(m.lod_steps);
        w.i32(springs);
        w.i32(int32_t(m.texcoords.size()));
        if (sm.morphs) w.i32(int32_t(sm.targets.size()));
        for (uint32_t v = 0; v < n; ++v) {
            w.vec3(m.positions[v]);
            w.vec3(sm.normals[v]);
            if (sm.colors) w.vec3(sm.color[v]);  // only IMVU gets here in binary
            const LodCollapse lod = m.lod.empty() ? LodCollapse{} : m.lod[v];
            w.i32(lod.collapse_id);
            w.i32(lod.face_collapse_count);
            for (auto& set : m.texcoords) {
                w.f32(set[v][0]);
                w.f32(set[v][1]);
            }
            const uint32_t first = m.skin.empty() ? 0 : m.skin.offsets[v];
            const uint32_t last = m.skin.empty() ? 0 : m.skin.offsets[v + 1];
            w.i32(int32_t(last - first));
            for (uint32_t i = first; i < last; ++i) {
                w.i32(sm.bones[i]);
                w.f32(m.skin.influences[i].weight);
            }
            if (springs > 0) w.f32(sm.physique[v]);
        }
        for (auto& s : m.springs) {
            w.i32(int32_t(s.vertex0));
            w.i32(int32_t(s.vertex1));
            w.f32(s.coefficient);
            w.f32(s.idle_length);
        }
        for (const MorphOut& t : sm.targets) {
            w.string(t.name);
            if (dialect == Dialect::Trunk1301) w.i32(int32_t(t.vertices.size()));
            for (const BlendVertexOut& bv : t.vertices) {
                w.i32(bv.id);
                w.vec3(bv.position);
                w.vec3(bv.normal);
                for (auto& set : m.texcoords) {  // the base vertex's UVs (§4.7)
                    w.f32(set[size_t(bv.id)][0]);
                    w.f32(set[size_t(bv.id)][1]);
                }
            }
            if (dialect == Dialect::Imvu919) w.i32(int32_t(n) + 1);  // IM's sentinel (§2.3)
        }
        for (auto& t : m.triangles)
            for (uint32_t i : t) w.i32(int32_t(i));
    }
    return std::move(w.bytes);
}

Expected<std::vector<uint8_t>> write_mesh(const Scene& scene, const std::vector<uint32_t>& meshes, bool binary, const SaveOptions& options) {
    auto submeshes = prepare_submeshes(scene, meshes, binary, options);
    if (!submeshes) return submeshes.error();
    return binary ? write_cmf_bytes(*submeshes, options.cal3d.dialect) : write_xmf_bytes(*submeshes, options.cal3d.dialect);
}

namespace {

Expected<Output> write_mesh_file(const Scene& scene, bool binary, const SaveOptions& options) {
    const std::optional<Scene> copy = z_up_ccw_copy(scene);
    const Scene& s = copy ? *copy : scene;
    if (s.meshes.empty()) return make_error(ErrorCode::InvalidArgument, "the scene has no meshes to write as a Cal3D mesh");
    std::vector<uint32_t> all(s.meshes.size());
    for (size_t i = 0; i < all.size(); ++i) all[i] = uint32_t(i);
    auto bytes = write_mesh(s, all, binary, options);
    if (!bytes) return bytes.error();
    return Output{std::move(*bytes), {}, {}, {}, {}};
}

}  // namespace

Expected<Output> write_cmf(const Scene& scene, const std::string&, const SaveOptions& options) { return write_mesh_file(scene, true, options); }
Expected<Output> write_xmf(const Scene& scene, const std::string&, const SaveOptions& options) { return write_mesh_file(scene, false, options); }

}  // namespace rigport::cal3d
