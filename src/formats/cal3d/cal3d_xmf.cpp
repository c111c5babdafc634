// XMF XML mesh reader: SUBMESH, VERTEX, SPRING, MORPH/BLENDVERTEX, FACE (docs/cal3d.md §3.5).
#include <fmt/format.h>

#include "formats/cal3d/cal3d_xml.hpp"

namespace rigport::cal3d {

namespace {

std::optional<Error> read_vertex(const xml::Document& d, pugi::xml_node node, int32_t springs, Submesh& sm, Warnings& w,
                                 bool& any_lod, const LoadOptions& options) {
    Mesh& m = sm.mesh;
    Vec3 p{}, n{};
    if (auto e = xml::element_floats(d, node, "POS", p.data(), 3, w)) return e;
    if (auto e = xml::element_floats(d, node, "NORM", n.data(), 3, w)) return e;
    m.positions.push_back(p);
    m.normals.push_back(n);
    Vec3 c{1, 1, 1};
    bool has_color = false;
    if (auto e = xml::element_floats(d, node, "COLOR", c.data(), 3, w, false, &has_color)) return e;
    if (has_color) {
        if (m.colors.empty()) m.colors.assign(1, std::vector<Vec4>(m.positions.size() - 1, Vec4{1, 1, 1, 1}));
        bool garbage = false;
        for (float& x : c) garbage |= x < 0 || x > 1, x = std::clamp(x, 0.0f, 1.0f);
        if (garbage) w.add(WarningCode::ValueClamped, "vertex COLOR outside 0..1 (garbage); clamped");
    }
    if (!m.colors.empty()) m.colors[0].push_back(Vec4{c[0], c[1], c[2], 1});
    LodCollapse lod;
    if (auto id = xml::child(node, "COLLAPSEID")) {
        if (!xml::integer(id.child_value(), lod.collapse_id)) return xml::error_at(d, id, "not an integer");
        auto count = xml::child(node, "COLLAPSECOUNT");
        if (!count || !xml::integer(count.child_value(), lod.face_collapse_count))
            return xml::error_at(d, node, "COLLAPSEID without an integer COLLAPSECOUNT");
        any_lod |= lod.collapse_id >= 0 && lod.face_collapse_count != 0;
    }
    m.lod.push_back(lod);
    auto tc = xml::child(node, "TEXCOORD");
    for (auto& set : m.texcoords) {
        Vec2 uv{0, 0};
        bool non_finite = false;
        if (!tc || !xml::floats(tc.child_value(), uv.data(), 2, non_finite))
            return xml::error_at(d, tc ? tc : node, "expected NUMTEXCOORDS <TEXCOORD>s of 2 numbers");
        set.push_back(uv);
        tc = xml::next(tc, "TEXCOORD");
    }
    int32_t influences = 0;
    if (auto e = xml::int_attribute(d, node, "NUMINFLUENCES", influences, false)) return e;
    int32_t read = 0;
    for (auto inf = xml::child(node, "INFLUENCE"); inf; inf = xml::next(inf, "INFLUENCE"), ++read) {
        int32_t bone = 0;
        if (auto e = xml::int_attribute(d, inf, "ID", bone)) return e;
        if (bone < 0 || bone > max_bone_id) return xml::error_at(d, inf, fmt::format("bone {} not in [0, {}]", bone, max_bone_id));
        float weight = 0;
        bool non_finite = false;
        if (!xml::floats(inf.child_value(), &weight, 1, non_finite)) return xml::error_at(d, inf, "weight is not a number");
        if (m.skin.influences.size() >= options.max_elements) return xml::error_at(d, inf, "too many influences");
        m.skin.influences.push_back(Influence{uint32_t(bone), weight});
    }
    if (read != influences) w.add(WarningCode::CountMismatch, "NUMINFLUENCES differs from the INFLUENCE elements; all are read");
    m.skin.offsets.push_back(uint32_t(m.skin.influences.size()));
    float physique = 0;
    bool has_physique = false;
    if (auto e = xml::element_floats(d, node, "PHYSIQUE", &physique, 1, w, false, &has_physique)) return e;
    if (springs > 0) m.spring_weights.push_back(physique);
    return std::nullopt;
}

std::optional<Error> read_morph(const xml::Document& d, pugi::xml_node node, Submesh& sm, Warnings& w) {
    Morph morph;
    const char* name = xml::attribute(node, "NAME");
    morph.name = name ? name : "";
    for (auto bv = xml::child(node, "BLENDVERTEX"); bv; bv = xml::next(bv, "BLENDVERTEX")) {
        int32_t id = 0;
        if (auto e = xml::int_attribute(d, bv, "VERTEXID", id)) return e;
        if (id < 0 || uint64_t(id) >= sm.mesh.positions.size())
            return xml::error_at(d, bv, fmt::format("VERTEXID {} not in [0, {})", id, sm.mesh.positions.size()));
        BlendVertex v;
        v.id = uint32_t(id);
        if (auto e = xml::element_floats(d, bv, "POSITION", v.position.data(), 3, w)) return e;
        if (auto e = xml::element_floats(d, bv, "NORMAL", v.normal.data(), 3, w)) return e;
        morph.vertices.push_back(v);
    }
    sm.morphs.push_back(std::move(morph));
    return std::nullopt;
}

std::optional<Error> read_submesh(const xml::Document& d, pugi::xml_node node, Submesh& sm, Warnings& w, const LoadOptions& options) {
    int32_t texcoords = 0, springs = 0;
    if (auto e = xml::int_attribute(d, node, "MATERIAL", sm.material_thread)) return e;
    if (auto e = xml::int_attribute(d, node, "NUMTEXCOORDS", texcoords, false)) return e;
    if (auto e = xml::int_attribute(d, node, "NUMSPRINGS", springs, false)) return e;
    if (texcoords < 0 || texcoords > 64) return xml::error_at(d, node, fmt::format("NUMTEXCOORDS {} not in [0, 64]", texcoords));
    Mesh& m = sm.mesh;
    m.texcoords.resize(size_t(texcoords));
    m.skin.offsets.push_back(0);
    bool any_lod = false;
    for (auto v = xml::child(node, "VERTEX"); v; v = xml::next(v, "VERTEX")) {
        if (m.positions.size() >= options.max_elements) return xml::error_at(d, v, "too many vertices");
        if (auto e = read_vertex(d, v, springs, sm, w, any_lod, options)) return e;
    }
    if (!any_lod) m.lod.clear();
    // NUMLODSTEPS is stored, not a loop bound (§3.2): an unreadable or negative one is read as 0.
    if (const char* steps = xml::attribute(node, "NUMLODSTEPS"); steps && (!xml::integer(steps, m.lod_steps) || m.lod_steps < 0)) {
        w.add(WarningCode::ValueClamped, "NUMLODSTEPS is not an integer >= 0; read as 0");
        m.lod_steps = 0;
    }
    if (m.skin.influences.empty()) m.skin = {};
    for (auto s = xml::child(node, "SPRING"); s; s = xml::next(s, "SPRING")) {
        int32_t ids[2] = {0, 0};
        const char* text = xml::attribute(s, "VERTEXID");
        std::string_view t = text ? text : "";
        const size_t space = t.find_first_of(" \t");
        if (space == std::string_view::npos || !xml::integer(std::string(t.substr(0, space)).c_str(), ids[0]) ||
            !xml::integer(std::string(t.substr(space)).c_str(), ids[1]))
            return xml::error_at(d, s, "VERTEXID needs two integers");
        Spring sp;
        if (auto e = xml::float_attribute(d, s, "COEF", sp.coefficient, w)) return e;
        if (auto e = xml::float_attribute(d, s, "LENGTH", sp.idle_length, w)) return e;
        for (int32_t id : ids)
            if (id < 0 || uint64_t(id) >= m.positions.size()) return xml::error_at(d, s, fmt::format("vertex {} out of range", id));
        sp.vertex0 = uint32_t(ids[0]);
        sp.vertex1 = uint32_t(ids[1]);
        m.springs.push_back(sp);
    }
    for (auto mo = xml::child(node, "MORPH"); mo; mo = xml::next(mo, "MORPH"))
        if (auto e = read_morph(d, mo, sm, w)) return e;
    for (auto f = xml::child(node, "FACE"); f; f = xml::next(f, "FACE")) {
        const char* text = xml::attribute(f, "VERTEXID");
        float idx[3];
        bool non_finite = false;
        if (!xml::floats(text, idx, 3, non_finite)) return xml::error_at(d, f, "VERTEXID needs three integers");
        Triangle tri;
        for (int k = 0; k < 3; ++k) {
            if (!(idx[k] >= 0) || idx[k] >= float(m.positions.size()) || idx[k] != std::floor(idx[k]))
                return xml::error_at(d, f, fmt::format("vertex {} not in [0, {})", idx[k], m.positions.size()));
            tri[k] = uint32_t(idx[k]);
        }
        if (m.triangles.size() >= options.max_elements) return xml::error_at(d, f, "too many faces");
        m.triangles.push_back(tri);
    }
    int32_t declared = 0;
    if (xml::integer(xml::attribute(node, "NUMVERTICES"), declared) && uint64_t(declared) != m.positions.size())
        w.add(WarningCode::CountMismatch, "NUMVERTICES differs from the VERTEX elements; all are read");
    if (xml::integer(xml::attribute(node, "NUMFACES"), declared) && uint64_t(declared) != m.triangles.size())
        w.add(WarningCode::CountMismatch, "NUMFACES differs from the FACE elements; all are read");
    return std::nullopt;
}

}  // namespace

Expected<Scene> read_xmf(std::span<const uint8_t> bytes, const LoadOptions& options) { return read_xmf(bytes, options, Ids::Placeholders); }

Expected<Scene> read_xmf(std::span<const uint8_t> bytes, const LoadOptions& options, Ids ids) {
    Scene scene;
    xml::Document d;
    if (auto e = xml::parse(bytes, FileType::Mesh, d, scene.warnings, options.max_depth)) return *e;
    std::vector<Submesh> submeshes;
    for (auto node = xml::child(d.body, "SUBMESH"); node; node = xml::next(node, "SUBMESH")) {
        if (submeshes.size() >= options.max_elements) return xml::error_at(d, node, "too many submeshes");
        submeshes.emplace_back();
        if (auto e = read_submesh(d, node, submeshes.back(), scene.warnings, options)) return *e;
    }
    if (auto st = finish_meshes(submeshes, scene, ids); !st) return xml::error_at(d, d.body, st.error().message);
    set_meta(scene, FileType::Mesh, false, d.version);
    return scene;
}

}  // namespace rigport::cal3d
