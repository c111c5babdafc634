// CMF binary mesh reader, classic / IMVU / trunk layouts incl. both morph blocks (docs/cal3d.md §2.3).
#include "support/excerpt.hpp"
#include "formats/cal3d/cal3d_binary.hpp"

namespace rigport::cal3d {

namespace {

std::optional<Error> read_blend_vertex(BinaryReader& r, uint32_t id, int32_t texcoords, Morph& morph) {
    BlendVertex bv;
    bv.id = id;
    const uint64_t at = r.c.pos();
    bv.position = r.vec3();
    bv.normal = r.vec3();
    r.c.skip(uint64_t(texcoords) * 8);  // morph UVs: placeholders in every corpus file (§4.7)
    if (!r.c.ok()) return r.short_read("blend vertex");
    r.finite(bv.position, at);
    r.finite(bv.normal, at);
    morph.vertices.push_back(bv);
    return std::nullopt;
}

std::optional<Error> read_morph(BinaryReader& r, Family family, int32_t vertex_count, int32_t texcoords, Morph& morph) {
    if (auto e = r.string(morph.name, "morph name")) return e;
    const uint64_t blend_size = 4 + 24 + 8 * uint64_t(texcoords);
    int64_t previous = -1;
    auto check_id = [&](int32_t id, uint64_t at) -> std::optional<Error> {
        if (id < 0 || id >= vertex_count) return r.bad(fmt::format("morph '{}': blend vertex id {} not in [0, {})", detail::excerpt(morph.name), id, vertex_count), at);
        if (id <= previous) r.warnings().add(WarningCode::Tolerated, "blend vertex ids not ascending", at);
        previous = id;
        return std::nullopt;
    };
    if (family == Family::Imvu) {  // ids in ascending order, ended by an id >= vertexCount
        for (;;) {
            const uint64_t at = r.c.pos();
            const int32_t id = r.c.i32();
            if (!r.c.ok()) return r.short_read(fmt::format("morph '{}'", detail::excerpt(morph.name)));
            if (id >= vertex_count) break;
            if (morph.vertices.size() >= uint64_t(vertex_count))
                return r.bad(fmt::format("morph '{}': more blend vertices than vertices", detail::excerpt(morph.name)), at);
            if (auto e = check_id(id, at)) return e;
            if (auto e = read_blend_vertex(r, uint32_t(id), texcoords, morph)) return e;
        }
        return std::nullopt;
    }
    const uint64_t count_at = r.c.pos();
    const int32_t count = r.c.i32();
    if (!r.c.ok()) return r.short_read("morph blend vertex count");
    if (auto e = r.count(count, count_at, [&] { return fmt::format("morph '{}' blend vertex count", detail::excerpt(morph.name)); }, blend_size)) return e;
    for (int32_t i = 0; i < count; ++i) {
        const uint64_t at = r.c.pos();
        const int32_t id = r.c.i32();
        if (auto e = check_id(id, at)) return e;
        if (auto e = read_blend_vertex(r, uint32_t(id), texcoords, morph)) return e;
    }
    return std::nullopt;
}

std::optional<Error> read_submesh(BinaryReader& r, Family family, uint32_t index, Submesh& sm) {
    const uint64_t at = r.c.pos();
    int32_t h[7] = {};
    const int fields = family == Family::Classic ? 6 : 7;
    for (int i = 0; i < fields; ++i) h[i] = r.c.i32();
    if (!r.c.ok()) return r.short_read(fmt::format("submesh {} header", index));
    const int32_t vertex_count = h[1], face_count = h[2], spring_count = h[4], texcoords = h[5], morph_count = h[6];
    sm.material_thread = h[0];
    const std::string where = fmt::format("submesh {}", index);
    const uint64_t vertex_min = 24 + (family == Family::Imvu ? 12 : 0) + 8 + 8 * uint64_t(std::max(texcoords, 0)) + 4;
    if (auto e = r.count(texcoords, at + 20, where + " texCoordCount", 0)) return e;
    if (texcoords > 64) return r.bad(fmt::format("{}: texCoordCount {} > 64", where, texcoords), at + 20);
    if (auto e = r.count(vertex_count, at + 4, where + " vertexCount", vertex_min)) return e;
    if (auto e = r.count(face_count, at + 8, where + " faceCount", 12)) return e;
    if (auto e = r.count(spring_count, at + 16, where + " springCount", 16)) return e;
    if (auto e = r.count(morph_count, at + 24, where + " morphCount", 4)) return e;
    if (h[3] < 0) return r.bad(fmt::format("{}: lodCount {} < 0", where, h[3]), at + 12);
    Mesh& m = sm.mesh;
    const size_t n = size_t(vertex_count);
    m.positions.resize(n);
    m.normals.resize(n);
    m.texcoords.assign(size_t(texcoords), std::vector<Vec2>(n));
    if (family == Family::Imvu) m.colors.assign(1, std::vector<Vec4>(n));
    m.lod.resize(n);
    if (spring_count > 0) m.spring_weights.resize(n);
    m.skin.offsets.assign(n + 1, 0);
    bool any_lod = false;
    for (size_t v = 0; v < n; ++v) {
        const uint64_t vat = r.c.pos();
        m.positions[v] = r.vec3();
        m.normals[v] = r.vec3();
        r.finite(m.positions[v], vat);
        r.finite(m.normals[v], vat);
        if (family == Family::Imvu) {
            Vec3 c = r.vec3();
            for (int k = 0; k < 3; ++k) m.colors[0][v][k] = std::clamp(r.finite(c[k], vat), 0.0f, 1.0f);
            m.colors[0][v][3] = 1.0f;
        }
        m.lod[v].collapse_id = r.c.i32();
        m.lod[v].face_collapse_count = r.c.i32();
        any_lod |= m.lod[v].collapse_id >= 0 && m.lod[v].face_collapse_count != 0;
        for (auto& set : m.texcoords) set[v] = {r.finite(r.c.f32(), vat), r.finite(r.c.f32(), vat)};
        const uint64_t inf_at = r.c.pos();
        const int32_t influences = r.c.i32();
        if (!r.c.ok()) return r.short_read(fmt::format("{} vertex {}", where, v));
        if (auto e = r.count(influences, inf_at, [&] { return fmt::format("{} vertex {} influenceCount", where, v); }, 8)) return e;
        for (int32_t i = 0; i < influences; ++i) {
            const int32_t bone = r.c.i32();
            const float weight = r.finite(r.c.f32(), inf_at);
            if (bone < 0 || bone > max_bone_id)
                return r.bad(fmt::format("{} vertex {}: influence bone {} not in [0, {}]", where, v, bone, max_bone_id), inf_at);
            m.skin.influences.push_back(Influence{uint32_t(bone), weight});
        }
        m.skin.offsets[v + 1] = uint32_t(m.skin.influences.size());
        if (spring_count > 0) m.spring_weights[v] = r.finite(r.c.f32(), vat);
        if (!r.c.ok()) return r.short_read(fmt::format("{} vertex {}", where, v));
    }
    if (!any_lod) m.lod.clear();  // COLLAPSEID -1/0 (or DokuroChan's 0/0) everywhere: no LOD (§4.6)
    m.lod_steps = h[3];
    if (m.skin.influences.empty()) m.skin = {};
    for (int32_t s = 0; s < spring_count; ++s) {
        const uint64_t sat = r.c.pos();
        const int32_t a = r.c.i32(), b = r.c.i32();
        const float coef = r.c.f32(), idle = r.c.f32();
        if (a < 0 || a >= vertex_count || b < 0 || b >= vertex_count)
            return r.bad(fmt::format("{} spring {}: vertices {} {} not in [0, {})", where, s, a, b, vertex_count), sat);
        m.springs.push_back(Spring{uint32_t(a), uint32_t(b), r.finite(coef, sat), r.finite(idle, sat)});
    }
    for (int32_t i = 0; i < morph_count; ++i) {
        sm.morphs.emplace_back();
        if (auto e = read_morph(r, family, vertex_count, texcoords, sm.morphs.back())) return e;
    }
    if (auto e = r.count(face_count, at + 8, where + " faceCount", 12)) return e;
    m.triangles.resize(size_t(face_count));
    for (int32_t f = 0; f < face_count; ++f) {
        const uint64_t fat = r.c.pos();
        for (auto& idx : m.triangles[size_t(f)]) {
            const int32_t i = r.c.i32();
            if (r.c.ok() && (i < 0 || i >= vertex_count))
                return r.bad(fmt::format("{} face {}: vertex {} not in [0, {})", where, f, i, vertex_count), fat);
            idx = uint32_t(i);
        }
    }
    if (!r.c.ok()) return r.short_read(where + " faces");
    // §2.3: UP and DEB swap corners 1 and 2 of every face when the first face disagrees with
    // its first vertex normal, and fail on a degenerate first face. We keep the stored order.
    if (face_count > 0) {
        const auto& t = m.triangles[0];
        const Vec3 &p0 = m.positions[t[0]], &p1 = m.positions[t[1]], &p2 = m.positions[t[2]];
        const double a[3] = {double(p0[0]) - p1[0], double(p0[1]) - p1[1], double(p0[2]) - p1[2]};
        const double b[3] = {double(p2[0]) - p1[0], double(p2[1]) - p1[1], double(p2[2]) - p1[2]};
        const double c[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
        const double d = c[0] * m.normals[t[0]][0] + c[1] * m.normals[t[0]][1] + c[2] * m.normals[t[0]][2];
        if (c[0] == 0 && c[1] == 0 && c[2] == 0)
            r.warnings().add(WarningCode::DegenerateTriangle, where + ": the first face is degenerate (the upstream binary loader fails)");
        else if (d > 0)
            r.warnings().add(WarningCode::ReaderDifference, where + ": the upstream binary loader would reverse this submesh's winding; kept as stored");
    }
    return std::nullopt;
}

}  // namespace

Expected<Scene> read_cmf(std::span<const uint8_t> bytes, const LoadOptions& options) { return read_cmf(bytes, options, Ids::Placeholders); }

Expected<Scene> read_cmf(std::span<const uint8_t> bytes, const LoadOptions& options, Ids ids) {
    Scene scene;
    BinaryReader r(bytes, options, scene.warnings);
    int32_t version = 0;
    if (auto e = r.header(FileType::Mesh, version)) return *e;
    const Family family = family_of(version);
    const uint64_t count_at = r.c.pos();
    const int32_t submesh_count = r.c.i32();
    if (!r.c.ok()) return r.short_read("submeshCount");
    if (auto e = r.count(submesh_count, count_at, "submeshCount", 24)) return *e;
    std::vector<Submesh> submeshes(static_cast<size_t>(submesh_count));
    for (int32_t s = 0; s < submesh_count; ++s)
        if (auto e = read_submesh(r, family, uint32_t(s), submeshes[size_t(s)])) return *e;
    if (auto e = r.at_end()) return *e;
    if (auto st = finish_meshes(submeshes, scene, ids); !st) return st.error();
    set_meta(scene, FileType::Mesh, true, version);
    return scene;
}

}  // namespace rigport::cal3d
